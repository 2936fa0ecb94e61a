"""A club evening played through: what its players stumbled on (seat boxes, the log, results,
the create form), each pinned where it was seen."""

from __future__ import annotations

from typing import Any

from textual.widgets._select import SelectOverlay

from client.app import SheepsheadApp
from client.model import TableModel, _result_line
from client.screens.dialogs import CreateTableDialog
from client.screens.lobby import LobbyScreen
from client.screens.result import final_text, last_trick_line, result_summary
from client.screens.table import TableScreen
from client.session import ServerError
from client.widgets.table import SeatBox, TrickView
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import wait_for
from tests.client.test_screens import fed, screen_text

SIZE = (80, 24)


async def test_a_seat_left_mid_match_says_a_bot_plays_it_and_keeps_its_score() -> None:
    """Bob left during the match: the server said 'bob left; a bot plays seat 1' and the seat
    went on passing and playing, but its box read '(empty) / empty' with no score, as if
    nobody played there and its points were gone."""
    table = EngineTable(me=0, bots=())
    table.totals = [2, 3, -1, -2, -2]
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        table.empty.add(1)
        await fed(pilot, table.messages())
        box = next(b for b in app.screen.query(SeatBox) if b.seat == 1)
        text = str(box.render())
        assert "bot plays" in text and "score +3" in text, text
        assert "empty" not in text, text
        # Cy's client died: offline, then past the grace a stand-in plays for him (the box
        # kept saying "offline" beside the notice that a bot plays for Cy).
        cy = next(b for b in app.screen.query(SeatBox) if b.seat == 2)
        table.offline.add(2)
        await fed(pilot, table.messages())
        assert "offline" in str(cy.render())
        table.standins.add(2)
        await fed(pilot, table.messages())
        text = str(cy.render())
        assert "bot plays" in text and "offline" not in text and "score -1" in text, text
        # The dealer's stand-in picks: "Ⓓ bot plays PICKER" ran past the box's 14 columns.
        table.offline.add(4)
        table.standins.add(4)
        for _ in range(4):
            table.apply({"action": "pass"})
        table.apply({"action": "pick"})
        await fed(pilot, table.messages())
        dealer = next(b for b in app.screen.query(SeatBox) if b.seat == 4)
        first = str(dealer.render()).splitlines()[0]
        assert first.split() == ["Ⓓ", "bot", "PICKER"], first
        table.state = "over"  # after the match nobody plays it: it is simply empty
        await fed(pilot, table.messages())
        text = str(box.render())
        assert "empty" in text and "bot plays" not in text and "score" not in text, text
        # The hand the match ended in leaves the table: its centre said "waiting".
        table_screen = next(s for s in app.screen_stack if isinstance(s, TableScreen))
        trick = str(table_screen.query_one(TrickView).render())
        assert "match over" in trick and "waiting" not in trick, trick
        # Cy stood up once the match was over: his box read "offline", as if he would be
        # back, where the lobby said "Cy (left: free)".
        table.standins.discard(2)
        table.left.add(2)
        await fed(pilot, table.messages())
        text = str(cy.render())
        assert "left" in text and "offline" not in text and "score -1" in text, text


async def test_a_seat_freed_after_the_passes_does_not_tell_the_last_pass_again() -> None:
    """Seats passed; then the host freed a bot's seat. The server sends the new summary in a
    state of its own (a new seq, the same ``last``), and the log said 'Eve passes' a second
    time, under 'You freed seat 4: Eve (bot) left' (seen after a leaster's last pass)."""
    table = EngineTable(me=0, dealer=2, bots=(1, 2, 3, 4))
    passing = table.advance(lambda hand: {"action": "pass"})
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, passing)
        last = {"seat": 4, "action": "pass"}
        before = [e.text for e in app.model.log]
        assert before.count("Eve passes") == 1, before
        table.empty.add(4)
        table.seq += 1  # the summary's own state
        await fed(pilot, table.messages(last))
        texts = [e.text for e in app.model.log]
        assert texts == [*before, "You freed seat 4: Eve (bot) left"], texts


def _leaster(takers: list[int], points: list[int]) -> dict[str, Any]:
    return {
        "leaster": True,
        "leaster_winner": 0,
        "points": points,
        "tricks": [{"winner": seat, "points": 0} for seat in takers],
    }


def test_a_leaster_won_by_taking_every_trick_does_not_say_fewest_points() -> None:
    """Everyone passed and ann took all six tricks: the only one to take a trick, she won the
    leaster (it needs a trick), and the result read 'ann wins with the fewest points, 120.'"""
    names = ["ann", "bob", "Dave", "Eve", "Gus"]
    alone = _leaster([0] * 6, [120, 0, 0, 0, 0])
    text = " ".join(str(line) for line in result_summary(alone, names))
    assert "ann wins, the only one to take a trick (120)" in text, text
    assert "fewest" not in text, text
    # Dave, Eve and Gus took no trick: their 0 points could not win (it read as if 10 were
    # the fewest at the table).
    shared = _leaster([0, 1, 1, 1, 1, 1], [10, 110, 0, 0, 0])
    text = " ".join(str(line) for line in result_summary(shared, names))
    assert "ann wins with the fewest points of those who took a trick, 10." in text, text
    everyone = _leaster([0, 1, 2, 3, 4, 4], [10, 20, 25, 30, 35])
    text = " ".join(str(line) for line in result_summary(everyone, names))
    assert "ann wins with the fewest points, 10." in text, text


def test_the_log_says_who_won_a_leaster() -> None:
    """The log read 'Hand over: leaster won; you -1': won by whom (a watcher's said nothing
    more)."""
    table = EngineTable(me=0)
    model = TableModel()
    for msg in table.messages():
        model.apply(msg)
    result = {"leaster": True, "leaster_winner": 1, "outcome_text": "leaster won"}
    assert _result_line(model, {**result, "payouts": [-1, 4, -1, -1, -1]}) == (
        "Hand over: Bob won the leaster; you -1"
    )
    assert _result_line(model, {**result, "leaster_winner": 0, "payouts": [4, -1, -1, -1, -1]}) == (
        "Hand over: you won the leaster; you +4"
    )


def test_a_server_restart_reads_as_what_happens_not_a_code() -> None:
    """At a restart every player's log read 'The server is shutting down; reconnect later
    (server_shutdown)': a code, and a chore this client does by itself."""
    model = TableModel()
    message = {
        "type": "error",
        "re": None,
        "code": "server_shutdown",
        "message": "The server is shutting down; reconnect later",
    }
    model.apply(message)
    (line,) = [e.text for e in model.log]
    assert "reconnects by itself" in line and "seat you hold is kept" in line, line
    assert "server_shutdown" not in line and "reconnect later" not in line, line
    model.apply({**message, "code": "table_full", "message": "Every seat is taken"})
    assert model.log[-1].text == "Every seat is taken (table_full)"  # others keep their code


async def test_a_create_forms_list_opens_in_a_frame_not_as_the_next_fields_values() -> None:
    """Space on the coach hints opened its list with no frame over the next fields' values:
    the form read 'Jacks in trump  off' and 'When everybody passes  on: i asks for a hint'."""
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableDialog))
        dialog = app.screen
        await wait_for(pilot, lambda: dialog.focused is dialog.query_one("#f-name"))
        await pilot.press(*["tab"] * 5, "space")
        overlay = dialog.query_one("#f-hints").query_one(SelectOverlay)
        await wait_for(pilot, lambda: overlay.region.height > 0)
        lines = screen_text(app).splitlines()
        top = overlay.region.y
        assert "╭" in lines[top] and "Jacks in trump" in lines[top], lines[top]
        assert "│off" in lines[top + 1], lines[top + 1]


async def test_x_before_a_hand_of_the_match_has_finished_says_of_this_match() -> None:
    """In a rematch's first hand, three hands into the evening, x said 'No hand has finished
    yet.'"""
    table = EngineTable(me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await pilot.press("x")
        notes = [str(n.message) for n in app._notifications]
        assert notes == ["No hand of this match has finished yet."], notes
        # A server restart: the log's line said this client reconnects by itself while a red
        # pop-up beside it said the server's "reconnect later" (kept in this app run: cheap).
        app.handle_message(
            {
                "type": "error",
                "re": None,
                "code": "server_shutdown",
                "message": "The server is shutting down; reconnect later",
            }
        )
        await wait_for(pilot, lambda: len(app._notifications) == 2, timeout=5)
        told = list(app._notifications)[-1]
        assert "reconnects by itself" in str(told.message), told.message
        assert told.severity != "error"


def test_the_result_says_you_of_your_own_seat() -> None:
    """The table says "Picker you" and the log "You take", but the result panel said "Picker
    root played alone" and "root took the blind" of the player's own seat, as of a stranger."""
    names = ["root", "bob", "Dave", "Eve", "Gus"]
    alone = {"picker": 0, "partner": None, "alone": True, "picker_side_points": 61}
    text = " ".join(str(line) for line in result_summary(alone, names, 0))
    assert "You picked and played alone" in text, text
    called = {"picker": 1, "partner": 0, "called": "AH", "picker_side_points": 61}
    text = " ".join(str(line) for line in result_summary(called, names, 0))
    assert "Picker bob with partner you" in text, text
    assert "Picker bob with partner root" in " ".join(
        str(line) for line in result_summary(called, names, 2)
    )
    shared = _leaster([0, 1, 1, 1, 1, 1], [10, 110, 0, 0, 0])
    text = " ".join(str(line) for line in result_summary(shared, names, 0))
    assert "Leaster: you win with the fewest points of those who took a trick, 10." in text, text
    assert "bob took the blind with the last trick" in text, text
    everything = _leaster([0] * 6, [120, 0, 0, 0, 0])
    text = " ".join(str(line) for line in result_summary(everything, names, 0))
    assert "Leaster: you win, the only one to take a trick (120)." in text, text
    assert "You took the blind with the last trick." in text, text


def test_the_last_trick_and_the_final_totals_say_you_of_your_own_seat() -> None:
    """Under "You picked", the result panel read "Last trick: ..., root 7♥ → root takes 25"
    and "Match over. Final: Lena +1, root +0" (the log too) of the player's own seat."""
    names = ["root", "Lena", "Sven", "Inga", "Gus"]
    trick = {"leader": 1, "cards": ["KS", "QH", "TS", "KD", "7H"], "winner": 0, "points": 25}
    line = last_trick_line(trick, names, 0).plain
    assert line.startswith("Last trick: Lena K♠, Sven Q♥, Inga 10♠, Gus K♦, you 7♥"), line
    assert "→ you take 25" in line, line
    assert "→ root takes 25" in last_trick_line(trick, names, 2).plain
    model = TableModel()
    model.apply(
        {"type": "state", "table": "t1", "seq": 1, "seat": 0, "seats": [{"name": n} for n in names]}
    )
    model.apply({"type": "match_over", "table": "t1", "hands": 2, "totals": [0, 1, -3, 1, 1]})
    final = final_text(model, names, 0)
    assert final is not None and "you +0" in final.plain and "root" not in final.plain, final
    assert "you +0" in model.log[-1].text and "root" not in model.log[-1].text, model.log[-1].text


async def test_a_seed_for_a_start_called_off_is_not_told_as_a_late_answer() -> None:
    """The host took a rematch as Bob left: the start was called off ("A seat emptied before
    the deal"), and the client's own seed for it, sent by itself, came back ``stale``. The host
    read a red pop-up "client_seed refused: That answer came after the table had moved on:
    answer what the status line asks now", and the same in the log, about nothing they did."""
    table = EngineTable(seed=11, dealer=1, me=0)
    stale = ServerError("stale", "No commitment is collecting seeds at this table")
    session = FakeSession({"client_seed": stale})
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    for msg in table.messages():
        app.model.apply(msg)
    told: list[str] = []

    def notify(message: str, **options: Any) -> None:
        told.append(message)

    app.notify = notify  # type: ignore[method-assign]
    lines = len(app.model.log)
    await app.send_client_seed("ab" * 32, "cd" * 32)
    assert session.sent[-1]["type"] == "client_seed"
    assert told == [] and len(app.model.log) == lines, (told, app.model.log[lines:])


async def test_a_match_ended_before_its_first_hand_ranks_nobody() -> None:
    """The host ended the match (e) during its first hand: the match-over panel ranked all
    five seats first at +0 ("1 Ann +0", "1 Dan +0", ...) above "No hand has finished yet in
    this match"; such a match counts for nobody, and the panel says so instead."""
    table = EngineTable(me=0, bots=())
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*table.messages(), table.match_over()])
        await wait_for(pilot, lambda: "Match over after 0 hands" in screen_text(app))
        text = screen_text(app)
        assert "counts for nobody" in text and "place" not in text, text
        # Nothing to page through nor to export: the key line offered h and x all the same.
        assert "h history" not in text and "export" not in text, text
        assert app.screen.check_action("history", ()) is False
        # Under the open panel the table's status line said "Enter standings", what Enter had
        # already done: it names what Enter does there (cheap: this app run is reused).
        table_screen = app.screen_stack[-2]
        assert isinstance(table_screen, TableScreen)
        await wait_for(pilot, lambda: "Enter goes back to the table" in screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is table_screen)
        await wait_for(pilot, lambda: "Enter standings" in screen_text(app))
        # Its footer offered h History and k Score, which only said no hand had finished.
        footer = screen_text(app).splitlines()[-1]
        assert "History" not in footer and "Score" not in footer, footer
        assert table_screen.check_action("score_sheet", ()) is False
