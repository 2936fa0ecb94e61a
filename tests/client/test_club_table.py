"""The table a club would sit at: each change a key press can show, with Pilot.

Fed with engine-built messages (tests/client/feed.py). Where the app must ask the server
something this branch's server may not know yet (``history``, ``rematch``),
a :class:`FakeSession` answers, once as the new server would and once as an older one
(``unknown_type``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

import client.screens.table
from client.app import (
    STALE_TOKEN_IN_LOBBY,
    TABLE_REFUSALS,
    YOUR_TURN_TITLE,
    SheepsheadApp,
    table_refusal,
)
from client.bury_check import forces_alone
from client.screens.dialogs import BuryDialog, CreateTableDialog, PasswordDialog
from client.screens.info import HistoryScreen, TricksScreen
from client.screens.lobby import LobbyScreen
from client.screens.result import MatchOverScreen, ResultScreen, ScoreSheetScreen
from client.screens.table import TableScreen
from client.session import ConnectionLost, ServerError
from client.settings import ClientSettings
from client.widgets.cards import card_label
from client.widgets.hand import CardWidget
from client.widgets.table import LastTrickBox, SeatBox, TrickView, tag_name
from engine.rules import RuleSet
from engine.view import seat_view
from protocol import errors
from tests.client.feed import EngineTable, FakeSession, at_the_bury, unknown_type
from tests.client.test_e2e import wait_for
from tests.client.test_screens import drawn_strips, fed, my_play_turn, screen_text

SIZE = (80, 24)


def settings(**changes: Any) -> ClientSettings:
    """Test settings (no bell, no trick pause) with some changed."""
    return ClientSettings(bell=False, trick_pause=0.0).with_overrides(**changes)


def first_trick_done(seed: int = 7) -> tuple[EngineTable, list[dict[str, Any]]]:
    """Dee picks; the first trick has just been completed (nobody has led the second)."""
    table = EngineTable(seed=seed, dealer=2, me=0)
    out = table.messages()
    hand = table.hand
    while not (hand.phase == "play" and len(hand.tricks) == 1 and not hand.current):
        out += table.apply(hand.legal_actions()[0].to_dict())
    return table, out


def whole_hand(table: EngineTable) -> list[dict[str, Any]]:
    return table.messages() + table.play_out()


async def history_asked(pilot: Any, session: FakeSession) -> None:
    """Wait until the app has asked for the history and taken the answer in."""
    for _ in range(200):
        if any(r["type"] == "history" for r in session.sent):
            break
        await pilot.pause(0.01)
    await pilot.pause()  # the worker's reply reaches the model and the screens
    await pilot.pause()


def trick_title(app: Any) -> str:
    return str(app.screen.query_one(TrickView).border_title)


# ---------------------------------------------------------------------- seeing the game


class FakeClock:
    """The table screen's clock, moved by the test (a loaded machine cannot make a real
    pause flaky); the screen's own timer is stood in for by calling ``_hold_over``."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    clock = FakeClock()
    monkeypatch.setattr(client.screens.table, "clock", clock)
    return clock


async def test_the_finished_trick_stays_until_the_next_lead_and_the_pause(
    fake_clock: FakeClock,
) -> None:
    table, messages = first_trick_done()
    trick = table.hand.tricks[0]
    winner = table.names[trick.winner]
    app = SheepsheadApp(mode="play", settings=settings(trick_pause=1.5))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert trick_title(app) == f"{winner} takes {trick.points}"
        view = app.screen.query_one(TrickView)
        shown = str(view.render())
        played = [card_label(c) for c in table.messages()[0]["view"]["tricks"][0]["cards"]]
        assert all(label in shown for label in played)  # all five cards
        # The winner's card is drawn reversed: marked without colour.
        winner_card = seat_view(table.hand, 0)["tricks"][0]["cards"][
            (trick.winner - trick.leader) % 5
        ]
        drawn: Any = view._shown
        spans = [s for s in drawn.spans if "reverse" in str(s.style)]
        assert [drawn.plain[s.start : s.end] for s in spans] == [card_label(winner_card)]
        # The next card is led at once: the finished trick still shows until the pause is over.
        fake_clock.now += 1.0
        await fed(pilot, table.apply(table.hand.legal_actions()[0].to_dict()))
        assert trick_title(app) == f"{winner} takes {trick.points}"
        fake_clock.now += 0.6
        app.screen._hold_over()  # type: ignore[attr-defined]
        await pilot.pause()
        assert trick_title(app) == "Trick 2 of 6"


async def test_without_a_pause_the_finished_trick_stays_until_the_next_lead() -> None:
    table, messages = first_trick_done()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        await pilot.pause(0.1)
        assert "takes" in trick_title(app)
        await fed(pilot, table.apply(table.hand.legal_actions()[0].to_dict()))
        assert trick_title(app) == "Trick 2 of 6"


async def test_the_last_trick_is_seen_before_the_result(fake_clock: FakeClock) -> None:
    table = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(mode="play", settings=settings(trick_pause=1.5))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        assert isinstance(app.screen, TableScreen)
        last = table.hand.tricks[-1]
        assert trick_title(app) == app.model.says(last.winner, "take") + f" {last.points}"
        screen: Any = app.screen
        screen._hold_over()  # too early: the result still waits
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        fake_clock.now += 1.6
        screen._hold_over()
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        # A trick pause longer than the server's pause between hands: the next deal comes
        # while hand 2's result still waits. It popped up 0.85 s into hand 3's auction; now it
        # is told in a pop-up, and Enter (p and s still pick and pass) shows the panel.
        await pilot.press("enter")
        await fed(pilot, table.next_hand(seed=12) + table.play_out())
        assert isinstance(app.screen, TableScreen) and app.model.phase == "done"
        await fed(pilot, table.next_hand(seed=13))
        fake_clock.now += 1.6
        screen._hold_over()
        await pilot.pause()
        assert isinstance(app.screen, TableScreen), app.screen
        told = [n.title for n in app._notifications]
        assert any(str(title).startswith("Hand 2: ") for title in told), told
        app.notify("Bob is back", title="Notice")  # told beside it
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen) and app.screen.hand.number == 2
        # The pop-up said the same, over the panel's right half: it goes, and only it (every
        # pop-up went with it).
        assert [n.title for n in app._notifications] == ["Notice"]


async def test_the_last_trick_of_the_match_is_seen_before_the_match_over_panel(
    fake_clock: FakeClock,
) -> None:
    """The match-over panel covered the match's last trick at once, and the result then
    opened on top of it."""
    table = EngineTable(seed=11, dealer=1, me=0, hands_limit=1)
    app = SheepsheadApp(mode="play", settings=settings(trick_pause=1.5))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*whole_hand(table), table.match_over()])
        assert isinstance(app.screen, TableScreen)
        last = table.hand.tricks[-1]
        assert trick_title(app) == app.model.says(last.winner, "take") + f" {last.points}"
        fake_clock.now += 1.6
        screen: Any = app.screen
        screen._hold_over()
        await pilot.pause()
        # The result first, alone; the standings follow it (they were stacked over it).
        assert isinstance(app.screen, ResultScreen)
        assert not any(isinstance(s, MatchOverScreen) for s in app.screen_stack)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MatchOverScreen)


async def test_k_on_the_last_result_of_the_match_opens_the_score_sheet_and_esc_comes_back(
    fake_clock: FakeClock,
) -> None:
    """Under the match's last result the status line offers "k sheet", and the panel took
    no k: nothing happened. Then the sheet's Esc left the player at the bare table, the
    result and the way on to the standings gone: it comes back to the panel."""
    table = EngineTable(seed=11, dealer=1, me=0, hands_limit=1)
    app = SheepsheadApp(mode="play", settings=settings(trick_pause=1.5))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*whole_hand(table), table.match_over()])
        fake_clock.now += 1.6
        screen: Any = app.screen
        screen._hold_over()
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        assert "k sheet" in str(screen.query_one("#status").render())
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("h")  # the history likewise
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MatchOverScreen)


async def test_the_trick_pause_runs_on_its_own_timer() -> None:
    """The real timer: with a short pause the result opens by itself."""
    table = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(mode="play", settings=settings(trick_pause=0.2))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        for _ in range(100):
            if isinstance(app.screen, ResultScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, ResultScreen)


async def test_the_last_trick_box_names_who_played_each_card() -> None:
    table, messages = first_trick_done()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        box = app.screen.query_one(LastTrickBox)
        text = str(box.render())
        trick = seat_view(table.hand, 0)["tricks"][0]
        for i, code in enumerate(trick["cards"]):
            seat = (trick["leader"] + i) % 5
            who = "You" if seat == 0 else table.names[seat]
            assert f"{who} {card_label(code)}" in text
        assert str(box.border_title).startswith(table.names[trick["winner"]])


async def test_a_freed_seats_card_keeps_its_players_name_in_the_last_trick() -> None:
    """The host removed the bot that took the last trick: its card is still tagged with who
    played it, and it is still the taker (the box said "— Q♥" and "empty +10" while the log
    said "Gus takes 10"), never the cut "(em" / "(emp…" of "(empty)"."""
    table, messages = first_trick_done()
    trick = seat_view(table.hand, 0)["tricks"][0]
    winner = trick["winner"]
    assert winner != 0
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        table.empty.add(winner)
        await fed(pilot, table.messages())
        assert app.model.seats[winner].is_empty
        box = app.screen.query_one(LastTrickBox)
        text = str(box.render())
        card = trick["cards"][(winner - trick["leader"]) % 5]
        assert f"{tag_name(table.names[winner])} {card_label(card)}" in text, text
        assert "—" not in text and "(em" not in text, text
        title = str(box.border_title)
        assert title.startswith(f"{table.names[winner]} +"), title


def _taken_over_mid_hand() -> tuple[EngineTable, list[dict[str, Any]]]:
    """Seat 0's earlier holder passed and the first trick was played: the messages a
    newcomer who takes seat 0 over then gets (its ``joined`` notice, then the snapshot)."""
    table = EngineTable(seed=16, dealer=4, me=0)  # seat 0 speaks first, and takes trick 1
    table.apply({"action": "pass"})
    hand = table.hand
    while len(hand.tricks) < 1:
        table.apply(hand.legal_actions()[0].to_dict())
    joined = _notice("joined", "Cleo took seat 0") | {"table": table.table}
    return table, [joined, *table.messages()]


async def test_a_newcomers_log_does_not_credit_them_with_the_seats_earlier_moves() -> None:
    """Taking a seat over mid-hand, the log of the hand so far said "You pass" (and "You
    take" for the seat's trick) for moves the seat's earlier holder made. A server that
    does not say who that was (an older one): the lines say the seat's, before you. One whose
    seat summary names them (``before``): the log, the last-trick box and the tricks screen
    name Gus, who held the seat until the newcomer sat down after the first trick."""
    table, messages = _taken_over_mid_hand()
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        lines = [e.text for e in app.model.log]
        assert "Seat 0 (before you) passes" in lines, lines
        assert "You took seat 0" in lines  # the newcomer's own join, told as theirs
        moves = [line for line in lines if line != "You took seat 0"]
        assert not [line for line in moves if "You" in line or table.names[0] in line], lines
        assert table.hand.tricks[0].winner == 0
        assert any(line.startswith("Trick 1: Seat 0 (before you) takes") for line in lines)
        assert "Seat 0 (before you)" in screen_text(app)  # the log column
        assert app.model.says(0, "take") == "You take"  # from now on the seat's are yours
    named = copy.deepcopy(messages)
    seats = next(msg for msg in named if msg["type"] == "state")["info"]["seats"]
    seats[0] = {**seats[0], "before": [{"name": "Gus", "decisions": 1, "cards": 5}]}
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, named)
        lines = [e.text for e in app.model.log]
        assert "Gus passes" in lines, lines
        assert any(line.startswith("Trick 1: Gus takes") for line in lines), lines
        moves = [line for line in lines if line != "You took seat 0"]
        assert not [line for line in moves if "You" in line or "before you" in line], lines
        box = app.screen.query_one(LastTrickBox)
        trick = seat_view(table.hand, 0)["tricks"][0]
        card = trick["cards"][(0 - trick["leader"]) % 5]
        assert f"{tag_name('Gus')} {card_label(card)}" in str(box.render())
        assert str(box.border_title).startswith("Gus +"), box.border_title
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, TricksScreen))
        text = screen_text(app)
        assert "Last trick: Gus " in text and "Gus played seat 0's cards of trick 1" in text
        assert app.model.says(0, "take", ("card", 5)) == "You take"  # the seat's since: yours


async def test_the_picker_sees_the_blind_then_the_bury() -> None:
    async with at_the_bury(3) as (app, pilot, table):
        blind = seat_view(table.hand, 0)["blind"]

        def marked() -> list[str]:
            return sorted(w.code for w in app.screen.query(CardWidget) if "◆" in str(w.render()))

        # Polled: on a busy machine the dialog's cards were once read before their marks (none).
        await wait_for(pilot, lambda: marked() == sorted(blind))
        pair = ["QD", "KD"]
        keys = [str(app.model.hand.index(c) + 1) for c in pair]
        await pilot.press(*keys, "enter")
        await pilot.pause()
        await fed(pilot, table.apply(app.outbox.pop()))
        await pilot.press("escape")  # the call dialog: later
        await pilot.pause()
        text = screen_text(app)
        assert "Buried Q♦ K♦" in text


# ---------------------------------------------------------------------- not playing by mistake


def next_hand_asks_me_to_pick() -> tuple[EngineTable, list[dict[str, Any]]]:
    """Hand 1 is played out; hand 2 is dealt and the first decision is yours (pick)."""
    table = EngineTable(seed=11, dealer=3, me=0)
    messages = whole_hand(table)
    messages += table.next_hand(seed=12)  # dealer 4: seat 0 speaks first
    assert table.hand.turn == 0 and table.hand.phase == "pick"
    return table, messages


async def test_enter_enter_at_a_result_plays_nothing() -> None:
    table = my_play_turn()
    done = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(done))
        assert isinstance(app.screen, ResultScreen)
        await fed(pilot, table.messages())  # the next decision is a card to play
        assert app.model.decision == "play"
        # The status line under the panel says "play a card: 1-6": a card's key did nothing
        # there. It shows the table (the trick the panel covered), and plays nothing.
        assert "Enter or a card's key closes this panel" in screen_text(app)
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.outbox == []
        app.open_result(app.model.history[-1])
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("enter", "enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.outbox == []
        assert app.screen.cursor is None  # type: ignore[attr-defined]


async def test_while_the_result_is_up_it_says_your_turn_and_p_picks() -> None:
    _, messages = next_hand_asks_me_to_pick()
    # At a table with a turn timer the panel counts it down: it covers the status line, and a
    # player reading the coach's review there lost two turns with nothing counting down.
    timed = {**messages[-1], "deadline": 20.0}
    assert timed["type"] == "your_turn"
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*messages[:-1], timed])
        assert isinstance(app.screen, ResultScreen)
        said = " ".join(screen_text(app).split())
        assert re.search(r"Your turn in the next hand \(⏱ (19|20)s\): p picks, s passes", said)
        await pilot.press("p")
        await pilot.pause()
        assert app.outbox == [{"action": "pick"}]
        assert isinstance(app.screen, TableScreen)


async def test_s_passes_from_the_result() -> None:
    _, messages = next_hand_asks_me_to_pick()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        await pilot.press("s")
        await pilot.pause()
        assert app.outbox == [{"action": "pass"}]


async def test_confirm_mode_plays_on_the_second_press_of_the_same_key() -> None:
    table = my_play_turn()
    app = SheepsheadApp(mode="play", settings=settings(confirm_cards=True))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        hand, legal = app.model.hand, app.model.legal_cards
        first, second = (str(hand.index(c) + 1) for c in (legal + legal)[:2])
        await pilot.press(first)
        await pilot.pause()
        assert app.outbox == []
        assert f"Press {first} again" in screen_text(app)
        if second != first:
            await pilot.press(second)  # another key only moves the choice
            await pilot.pause()
            assert app.outbox == []
        await pilot.press(second)
        await pilot.pause()
        assert app.outbox == [{"action": "play", "card": hand[int(second) - 1]}]


async def test_a_bury_that_leaves_you_alone_is_warned_about() -> None:
    pair = ["7C", "QC"]
    async with at_the_bury(3) as (app, pilot, table):
        view = seat_view(table.hand, 0)
        assert forces_alone(view["hand"], view["blind"], pair, table.rules.to_dict(), 0)
        keys = [str(app.model.hand.index(c) + 1) for c in pair]
        await pilot.press(*keys, "enter")
        await pilot.pause()
        assert isinstance(app.screen, BuryDialog) and app.outbox == []
        text = str(app.screen.query_one("#bury-chosen").render())
        assert "Burying 7♣ and Q♣ leaves you nothing to call: you would play alone." in text
        assert "Bury anyway?" in text
        await pilot.press("enter")
        await pilot.pause()
        assert app.outbox == [{"action": "bury", "cards": pair}]


async def test_a_third_card_says_which_it_put_back() -> None:
    async with at_the_bury(3) as (app, pilot, _):
        hand = app.model.hand
        await pilot.press("1", "2", "3")
        await pilot.pause()
        dialog: Any = app.screen
        assert dialog.chosen == [hand[1], hand[2]]
        assert f"{card_label(hand[0])} put back" in screen_text(app)


async def test_a_refusal_clears_when_the_situation_changes() -> None:
    table = my_play_turn()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        bad = next(i for i, c in enumerate(app.model.hand) if c not in app.model.legal_cards)
        await pilot.press(str(bad + 1))
        await pilot.pause()
        status = screen_text(app).splitlines()[-2]
        assert f"You can't play {card_label(app.model.hand[bad])} now" in status
        await pilot.press("right")  # another card chosen: the refusal is about nothing now
        await pilot.pause()
        assert "can't play" not in screen_text(app).splitlines()[-2]


# ---------------------------------------------------------------------- the alert


async def test_the_turn_alert_rings_once_and_titles_the_terminal() -> None:
    table = my_play_turn()
    app = SheepsheadApp(mode="play", settings=settings(bell=True))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages()[:1])
        assert app.bells == 0 and app.terminal_title == "Sheepshead"
        await fed(pilot, table.messages())
        await fed(pilot, table.messages())  # the same prompt again (a redraw): no second ring
        assert app.bells == 1 and app.terminal_title == YOUR_TURN_TITLE
        await pilot.press("right", "enter")
        await pilot.pause()
        assert app.terminal_title == "Sheepshead"


async def test_the_bell_is_a_setting() -> None:
    app = SheepsheadApp(mode="play")  # the tests' settings: bell off
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, my_play_turn().messages())
        assert app.bells == 0 and app.terminal_title == YOUR_TURN_TITLE


# ---------------------------------------------------------------------- the score sheet


def three_hands() -> EngineTable:
    table = EngineTable(seed=21, dealer=4, me=0, hands_limit=3)
    table.play_out()
    for seed in (22, 23):
        table.next_hand(seed=seed)
        table.play_out()
    return table


async def test_the_score_sheet_is_filled_from_history_after_a_restart() -> None:
    table = three_hands()
    session = FakeSession({"history": table.history()})
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        # A client that just started sees only the current state, then asks for the history.
        await fed(pilot, table.next_hand(seed=24)[:1])
        await history_asked(pilot, session)
        assert [r["type"] for r in session.sent] == ["history"]
        assert len(app.model.history) == 3
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        lines = screen_text(app).splitlines()
        for entry in table.finished:
            number = entry["hand"] + 1
            row = next(line for line in lines if re.search(rf"│ {number} ", line))
            for pay, total in zip(entry["payouts"], entry["totals"], strict=True):
                assert f"={total:+d}" in row
                assert (f"{pay:+d}" if pay else "0") in row
            picker = entry["picker"]
            if picker is not None:  # your own seat is "you", as its column is
                assert ("you" if picker == table.me else table.names[picker]) in row


async def test_an_older_server_without_history_keeps_what_was_seen() -> None:
    table = EngineTable(seed=11, dealer=1, me=0)
    session = FakeSession({"history": unknown_type("history")})
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        await history_asked(pilot, session)
        assert len(app.model.history) == 1
        assert not [n for n in app._notifications if n.severity == "error"]
        await pilot.press("enter", "k")
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)


async def test_chat_and_notices_of_the_history_are_logged_once() -> None:
    table = EngineTable(seed=11, dealer=1, me=0)
    lines = [
        {"type": "chat", "from": "Bob", "seat": 1, "text": "hi all", "spectator": False},
        {"type": "chat", "from": "Ole", "seat": None, "text": "go Ann", "spectator": True},
        {"type": "notice", "code": "joined", "text": "Ole is watching", "seat": None},
    ]
    session = FakeSession({"history": table.history(lines=lines)})
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await history_asked(pilot, session)
        texts = [e.text for e in app.model.log]
        assert "Bob: hi all" in texts and "Ole (watching): go Ann" in texts
        assert "Ole is watching" in texts
        app.model.apply_history(table.history(lines=lines))
        assert [e.text for e in app.model.log] == texts  # nothing twice


def stack_of(app: Any) -> list[type]:
    """The panels over the table, bottom first."""
    return [type(s) for s in app.screen_stack if isinstance(s, ResultScreen | MatchOverScreen)]


async def test_the_match_over_panel_follows_the_last_result_one_at_a_time() -> None:
    """The match-over panel was stacked over the last hand's result: the result showed half
    behind it, then again after it. Now the result comes alone, says the match is over and
    that Enter shows the standings; the standings replace it; Enter on the table brings
    them back."""
    table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
    session = FakeSession()
    app = SheepsheadApp(session, mode="join", settings=settings())  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        assert stack_of(app) == [ResultScreen]
        assert "Match over" not in screen_text(app)
        await fed(pilot, [table.match_over()])  # after the panel opened
        await pilot.pause()
        text = screen_text(app)
        assert stack_of(app) == [ResultScreen]
        assert "Match over. Final: " in text
        assert "n rematch · Enter standings ·" in text and "Enter close" not in text
        # The history asked for at the match's end names who played (a watcher's came after
        # the panel opened): the panel is drawn again and still says the match is over.
        names = [*table.names[:4], "Gus (heuristic bot)"]
        reply = table.history()
        reply["hands"] = [{**h, "names": names} for h in reply["hands"]]
        app.model_changed.publish(app.model.apply_history(reply))
        await wait_for(pilot, lambda: "Gus (heuristic bot)" in screen_text(app))
        await wait_for(pilot, lambda: "Match over. Final: " in screen_text(app), timeout=5)
        await pilot.press("enter")
        await pilot.pause()
        assert stack_of(app) == [MatchOverScreen]
        assert "Match over after 1 hand" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        status = screen_text(app).splitlines()[-2]
        assert "Match over: Enter standings, n rematch" in status
        assert "Standings ⏎" in screen_text(app)
        await pilot.press("enter")  # the table's Enter: the standings again, not the result
        await pilot.pause()
        assert stack_of(app) == [MatchOverScreen]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_the_end_of_a_match_is_one_esc_from_the_question_to_leave() -> None:
    """At a match's end a player pressed Esc on the last result (the standings came), Esc on
    the standings (the table), and Esc again before the question whether to leave. Now Esc
    on either panel asks it at once, each panel naming its Esc; in ``play``, where Esc does
    not leave, it goes straight to the table. Enter still shows the standings."""
    from client.screens.dialogs import ConfirmDialog

    for mode in ("join", "play"):
        table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
        app = SheepsheadApp(FakeSession(), mode=mode, settings=settings())  # type: ignore[arg-type]
        async with app.run_test(size=SIZE) as pilot:
            await fed(pilot, [*whole_hand(table), table.match_over()])
            assert stack_of(app) == [ResultScreen]
            out = "Esc leave table" if mode == "join" else "Esc table"
            assert f"Enter standings · {out} ·" in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
            assert stack_of(app) == []
            if mode == "join":
                assert isinstance(app.screen, ConfirmDialog), app.screen
                assert "The match is over" in app.screen.question
                await pilot.press("n")
                await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            # The standings as the match ends (as Enter on the result opens them): Esc asks too.
            app.open_match_over()
            await pilot.pause()
            assert (f"Enter table · {out}" if mode == "join" else out) in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
            expected = ConfirmDialog if mode == "join" else TableScreen
            assert isinstance(app.screen, expected), app.screen
            if mode == "join":
                await pilot.press("n")
                await pilot.pause()
            await pilot.press("enter")  # the table's Enter: the standings, whose Esc closes
            await pilot.pause()
            assert stack_of(app) == [MatchOverScreen]
            assert "Esc table ·" in screen_text(app) and "leave" not in screen_text(app)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)


async def test_the_last_result_over_an_open_history_goes_back_to_the_table() -> None:
    """The last hand's result opened over the history the player was reading: Enter put the
    standings over the history too, and their Esc showed the history, not the table (Esc on
    the result asked to leave over the history)."""
    from client.screens.dialogs import ConfirmDialog

    table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
    app = SheepsheadApp(FakeSession(), mode="join", settings=settings())  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        messages = whole_hand(table)
        await fed(pilot, messages[:-3])
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await fed(pilot, [*messages[-3:], table.match_over()])
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("escape")  # the question to leave, over the table
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert not any(isinstance(s, HistoryScreen) for s in app.screen_stack)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        app.open_result(app.model.history[-1])
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("enter")  # the standings, on the table
        await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen))
        assert not any(isinstance(s, HistoryScreen) for s in app.screen_stack)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen), timeout=5)


async def test_rematch_from_the_last_result_leaves_no_panel_behind() -> None:
    """n on the last hand's result starts the rematch; the standings do not open after it."""
    table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
    session = FakeSession()
    app = SheepsheadApp(session, mode="join", settings=settings())  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*whole_hand(table), table.match_over()])
        assert stack_of(app) == [ResultScreen]
        await pilot.press("n")
        await pilot.pause()
        assert session.sent[-1] == {"type": "rematch"}
        assert stack_of(app) == []
        table.state, table.totals, table.hands_played = "playing", [0] * 5, 0
        rematch = {
            "type": "notice",
            "table": "t1",
            "code": "rematch",
            "text": "Ann started a new match at this table",
            "seat": 0,
        }
        await fed(pilot, [rematch, *table.next_hand(seed=5)])
        assert isinstance(app.screen, TableScreen) and stack_of(app) == []
        assert app.model.match_over is None
        # The pop-up says it as the log does: the host read "Ann started…" about themself.
        notes = [n.message for n in app._notifications if n.title == "Notice"]
        assert notes == ["You started a new match at this table"]
        # The way back to the lobby is in the footer: it named q Quit alone, and a watcher's
        # q quit the program at once.
        footer = screen_text(app).splitlines()[-1]
        assert "esc Lobby" in footer and "q Quit" in footer, footer


async def test_match_over_shows_the_sheet_tied_places_and_rematch() -> None:
    table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
    messages = whole_hand(table)
    messages.append(table.match_over())
    session = FakeSession()
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("enter")  # the standings follow the last hand's result
        await pilot.pause()
        assert isinstance(app.screen, MatchOverScreen)
        text = screen_text(app)
        assert "Match over after 1 hand" in text and "1 hands" not in text
        assert "n rematch" in text
        best = max(table.totals)
        tied = [table.names[s] for s in range(5) if table.totals[s] == best]
        assert len(tied) > 1, "this deal should tie the best totals"
        for name in tied:  # tied totals share the first place
            assert re.search(rf"│\s+1  {name}", text), name
        await pilot.press("n")
        await pilot.pause()
        assert session.sent[-1] == {"type": "rematch"}
        # The server starts the new match: everyone gets a notice and a state.
        table.state, table.totals, table.hands_played = "playing", [0] * 5, 0
        rematch = {"type": "notice", "table": "t1", "code": "rematch", "text": "A new match"}
        await fed(pilot, [rematch, *table.next_hand(seed=5)])
        assert isinstance(app.screen, TableScreen)
        assert app.model.match_over is None and app.model.history == []


async def test_rematch_on_an_older_server_says_what_to_do() -> None:
    table = EngineTable(seed=4, dealer=0, me=0, hands_limit=1)
    messages = [*whole_hand(table), table.match_over()]
    session = FakeSession({"rematch": unknown_type("rematch")})
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        await pilot.press("n")
        await pilot.pause()
        notes = [n.message for n in app._notifications]
        assert any("cannot start a rematch" in n for n in notes)


async def test_only_the_host_has_the_rematch_key() -> None:
    table = EngineTable(seed=4, dealer=0, me=2, hands_limit=1)
    messages = [*whole_hand(table), table.match_over()]
    session = FakeSession()
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        await pilot.press("n")
        await pilot.pause()
        assert "n rematch" not in screen_text(app)
        assert {"type": "rematch"} not in session.sent


# ---------------------------------------------------------------------- settings and looks


async def test_hidden_card_points_leave_tricks_won() -> None:
    _, messages = first_trick_done()
    app = SheepsheadApp(mode="play", settings=settings(hide_card_points=True))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        boxes = {box.seat: str(box.render()) for box in app.screen.query(SeatBox)}
        assert "pts" in boxes[0]
        others = [text for seat, text in boxes.items() if seat != 0]
        assert all("pts" not in t and " tr" in t for t in others)


async def test_no_color_draws_every_card_in_the_default_foreground(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    table = my_play_turn()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        shown = [c for c in app.screen.query(CardWidget) if c.display]
        assert any(c.has_class("-dim") for c in shown)  # the deal has unplayable cards
        strips = drawn_strips(app)
        for card in shown:
            foreground = card.rich_style.color  # the widget's own, default text colour
            assert not card.styles.text_style.dim
            line = card.region.y + 1
            glyphs = [
                seg
                for seg in strips[line].crop(card.region.x, card.region.right)
                if any(s in seg.text for s in "♣♠♥♦")
            ]
            assert glyphs, card.code
            for seg in glyphs:
                assert seg.style is not None and not seg.style.dim
                assert seg.style.color == foreground, (card.code, seg.style)
            # What reaches the terminal: the app's filters leave no colour at all, so the
            # card is in the terminal's own foreground.
            sent = strips[line].crop(card.region.x, card.region.right)
            for line_filter in app._filters:
                sent = sent.apply_filter(line_filter, app.background_colors[0])
            for seg in sent:
                if any(s in seg.text for s in "♣♠♥♦"):
                    assert seg.style is not None and not seg.style.dim
                    assert seg.style.color is None or seg.style.color.is_default, seg.style


async def test_presets_by_name_and_wisconsin_first() -> None:
    table = EngineTable(seed=2)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        assert "gamerules.com text (J♠ over J♣)" in screen_text(app).splitlines()[0]
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        app.screen.show_tables(  # type: ignore[attr-defined]
            [{"id": "a1", "name": "T", "rules": {"preset": "wisconsin"}, "state": "waiting"}]
        )
        await pilot.pause()
        assert "Wisconsin" in screen_text(app) and "wisconsin" not in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CreateTableDialog)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.outbox[-1]["preset"] == "wisconsin"


async def test_a_full_table_does_not_offer_a_bot() -> None:
    table = EngineTable()
    table.state = "waiting"
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        state = table.messages()[0] | {"view": None}
        await fed(pilot, [state])
        status = screen_text(app).splitlines()[-2]
        assert "+ adds a bot" not in status and "g starts the match" in status
        # A watcher of the waiting table (as Dee, who came before the match): the screen
        # read as a player's, "Waiting for the host to start the match", and no "watching".
        await fed(pilot, [state | {"seat": None, "seq": 1}])
        await wait_for(pilot, lambda: "Watching" in screen_text(app).splitlines()[-2], timeout=5)
        assert "· watching" in screen_text(app).splitlines()[0]


async def test_the_log_grows_with_a_big_window_and_a_small_one_keeps_the_trick() -> None:
    _, messages = first_trick_done()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(150, 44)) as pilot:
        await fed(pilot, messages)
        assert app.screen.query_one("#log").size.width > 50
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(70, 20)) as pilot:
        await fed(pilot, messages)
        await pilot.pause()
        trick = app.screen.query_one(TrickView)
        assert trick.size.height >= 5 and trick.region.bottom <= 20
        hand = app.screen.query_one("#hand")
        assert hand.region.height == 3 and hand.region.bottom <= 20
        notes = [n.message for n in app._notifications if n.title == "Terminal too small"]
        assert notes and "at least 80×24" in notes[0]


async def test_the_leaster_result_says_who_took_the_blind() -> None:
    table = EngineTable(seed=5, dealer=4, me=0, rules=RuleSet(no_pick="leaster"))
    messages = table.messages()
    while table.hand.phase == "pick":
        messages += table.apply({"action": "pass"})
    messages += table.play_out()
    result = table.hand.result()
    assert result.leaster
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)
        taker = table.names[table.hand.tricks[-1].winner]
        assert f"{taker} took the blind with the last trick" in screen_text(app)


async def test_the_result_says_who_took_the_last_trick() -> None:
    """The result panel opens over the table as the last trick ends: it names that trick."""
    table = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        assert isinstance(app.screen, ResultScreen)
        last = table.hand.tricks[-1]
        text = screen_text(app)
        assert "Last trick: " in text
        assert f"→ {table.names[last.winner]} takes {last.points} points" in text
    # With names as long as the bots' (Lena, Sven, Inga), "points" wrapped onto a line alone.
    table = EngineTable(seed=11, dealer=1, me=0, names=["Rolf", "Lena", "Sven", "Inga", "Gus"])
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, whole_hand(table))
        last = table.hand.tricks[-1]
        lines = [line.strip("│ ╭╰") for line in screen_text(app).splitlines()]
        assert any(f"→ {table.names[last.winner]} takes {last.points}" in line for line in lines)
        assert "points" not in lines, "\n".join(lines)


async def test_the_action_quotes_the_seq_of_the_prompt_it_answers() -> None:
    table = my_play_turn()
    session = FakeSession()
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await pilot.press("right", "enter")
        await pilot.pause()
        sent = [r for r in session.sent if r["type"] == "action"]
        assert len(sent) == 1 and sent[0]["seq"] == table.seq


def test_settings_come_from_the_file_and_a_bad_entry_is_named(tmp_path: Any) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('bell = false\nconfirm_cards = true\ntrick_pause = "slow"\ncolour = 1\n')
    loaded = ClientSettings.load(path)
    assert loaded.bell is False and loaded.confirm_cards is True
    assert loaded.trick_pause == 1.5  # the bad value keeps its default
    assert loaded.problems == ("bad value for trick_pause: 'slow'", "unknown setting 'colour'")
    path.write_text("bell = [")
    assert ClientSettings.load(path).problems  # unreadable: defaults, and said why
    assert ClientSettings.load(tmp_path / "none.toml") == ClientSettings()


async def test_back_at_an_over_table_the_match_over_panel_shows() -> None:
    """A client that comes back after the match ended (the server keeps its seat) sees the
    standings and, from the history, the whole score sheet."""
    table = three_hands()
    table.state = "over"
    session = FakeSession({"history": table.history()})
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages()[:1])
        await history_asked(pilot, session)
        # The last hand's result came after the standings: it replaces them, and they follow
        # it again (one panel at a time).
        assert stack_of(app) == [ResultScreen]
        assert len(app.model.history) == 3
        await pilot.press("enter")  # (Esc asks to leave: the match is over)
        await pilot.pause()
        assert stack_of(app) == [MatchOverScreen]
        text = screen_text(app)
        assert "Match over after 3 hands" in text and "n rematch" in text
        assert all(f"│ {n} " in text for n in (1, 2, 3))


async def test_the_history_completes_a_shown_result_without_reopening_it() -> None:
    table = EngineTable(seed=11, dealer=1, me=0)
    messages = whole_hand(table)
    session = FakeSession({"history": table.history()})
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        await history_asked(pilot, session)
        assert [type(s) for s in app.screen_stack].count(ResultScreen) == 1
        assert app.model.history[0].from_server
        await pilot.press("enter")
        await pilot.pause()
        app.model_changed.publish(app.model.apply_history(table.history()))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_pop_ups_sit_at_the_top_not_over_your_hand_and_the_status_line() -> None:
    """At 80x24 a pop-up at the bottom right (Textual's place) covered the last cards of the
    hand and the status line that says what to do."""
    from textual.widgets._toast import Toast

    table = EngineTable(seed=3, dealer=4, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await fed(pilot, table.messages())
        app.notify("No hand has finished yet.")
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        toasts = list(app.screen.query(Toast))
        assert toasts and all(t.region.y <= 4 and t.region.bottom <= 8 for t in toasts)
        assert "Your turn" in screen_text(app).splitlines()[-2]


def _notice(code: str, text: str, seat: int | None = 0) -> dict[str, Any]:
    return {"type": "notice", "code": code, "text": text, "seat": seat}


async def test_the_earlier_lines_of_a_second_drop_are_logged_and_none_twice() -> None:
    """Back after a second drop: the table's lines say Ann dropped, came back, dropped, came
    back; this client showed the first three. The second "You were disconnected" was lost (a
    line shown once hid every line with its text); now it is the one line logged, once."""
    table = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        drop, back = (
            _notice("disconnected", "Ann was disconnected"),
            _notice("reconnected", "Ann is back"),
        )
        app.model.earlier_told = True  # at this table before: its first history came then
        for msg in (drop, back, back):
            app.model.apply(msg)
        before = [e.text for e in app.model.log]
        app.model.apply_history(table.history(lines=[drop, back, drop, back]))
        after = [e.text for e in app.model.log]
        # Before the lines shown that came after it (the log's drop is the table's second).
        assert after[len(before) - 3 :] == [
            "── Earlier at this table",
            "You were disconnected",
            "── Now",
            "You were disconnected",
            "You are back",
            "You are back",
        ]
        assert after[: len(before) - 3] == before[:-3]
        # Back under another name: the server's whole sentence (280 characters) went in a
        # pop-up that ran off the terminal's bottom under the reconnect's others, for 4 s.
        name = app.model.seats[0].name
        kept = _notice(
            "name_kept",
            f"You are back at seat 0 as {name}, not Annie: a seat keeps its name for the match,"
            " so the score sheet and everybody at the table see one name throughout. To play"
            " as Annie, leave the seat once the match is over and join again.",
        )
        app.handle_message(kept)
        await pilot.pause()
        assert app.model.log[-1].text == kept["text"]  # the log keeps it whole
        told = list(app._notifications)[-1]
        assert told.message.startswith(f"You are back at seat 0 as {name}: a seat keeps")
        assert len(told.message) < 100 and told.timeout == 10


async def test_a_notice_queued_before_the_history_reply_is_logged_once() -> None:
    """The "You are back" of a reconnect arrives before the history reply that lists it too:
    if the reply was taken in first, the line was logged in the earlier lines and again."""
    table = EngineTable(seed=11, dealer=1, me=0)
    back = _notice("reconnected", "Ann is back")
    session = FakeSession({"history": table.history()})
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await history_asked(pilot, session)
        # The event pump held back (as on a busy loop): the notice waits in the queue while
        # the reply to the history asked after the reconnect is taken in.
        app.workers.cancel_group(app, "events")
        await pilot.pause()
        session.events.put_nowait(back)
        session.replies["history"] = table.history(lines=[back])
        assert await app.load_history(table.table).wait()
        while not session.events.empty():  # the pump catching up
            app.handle_message(session.events.get_nowait())
        texts = [e.text for e in app.model.log]
        assert texts.count("You are back") == 1, texts


async def test_a_watch_refused_for_too_many_spectators_is_told_in_a_sentence() -> None:
    """The lobby's watch of a table with as many spectators as the server allows: a sentence
    that says so and what to do, no password asked (nor the server's message and code)."""
    refusal = ServerError("too_many_spectators", "Table t1 has 50 spectators, as many as...")
    app = SheepsheadApp(FakeSession({"watch": refusal}))  # type: ignore[arg-type]
    told: list[tuple[str, str | None]] = []

    def notify(message: str, **options: Any) -> None:
        told.append((message, options.get("title")))

    app.notify = notify  # type: ignore[method-assign]
    assert await app.enter_table("watch", "t1", "Friday club") is None
    sentence = (
        "Nobody more can watch Friday club: it has as many watchers as the server allows. "
        "Try again when one of them leaves."
    )
    assert told == [(sentence, "No room to watch")]


async def test_a_lobby_refusal_is_a_sentence_and_a_lost_table_closes_the_password_ask() -> None:
    """Enter on a table that closed meanwhile told "No open table has the id 't1'
    (no_such_table)"; and a reconnect's ``table_lost`` that came while the password dialog
    was open popped it without an answer: the lobby's join waited for one forever."""
    tables = [
        {"id": "t1", "name": "Friday club", "state": "waiting", "seats": []},
        {"id": "t2", "name": "Locked", "state": "waiting", "seats": [], "password": True},
    ]
    refusal = ServerError("no_such_table", "No open table has the id 't1'")
    replies = {"list_tables": {"type": "ok", "tables": tables}, "join": refusal}
    # The longest name the server takes: the title's "● connected" was cut to "●".
    session = FakeSession(replies, name="bartholomew_the_magnific")
    app = SheepsheadApp(session)  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.screen
        await wait_for(pilot, lambda: len(getattr(lobby, "tables", ())) == 2)
        title = screen_text(app).splitlines()[0].rstrip()
        assert title.endswith(f"● {app.status}") and "you are" in title, title
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.severity == "error" for n in app._notifications))
        told = [(n.message, n.title) for n in app._notifications if n.severity == "error"]
        sentence = (
            "Friday club is not open on this server: it has closed, or never was. Choose "
            "another table in the lobby, or press c to create one."
        )
        assert told == [(sentence, "Table closed")]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PasswordDialog))
        (joining,) = [w for w in app.workers if w.group == "lobby-actions" and not w.is_finished]
        lost = {"type": "table_lost", "table": "t9", "seat": None, "code": "no_such_table"}
        app.handle_message(lost)
        await wait_for(pilot, lambda: joining.is_finished and app.screen is lobby, timeout=5)
        assert joining.result is None and not [r for r in session.sent if r["type"] == "join"][1:]
        # A seat another window of the player took over is not a reconnect that failed; the
        # server's notice and the table_lost after it made two pop-ups saying the same.
        moved = "Your seat moved to another window or device of yours: a newer connection..."
        app.handle_message({"type": "notice", "table": "t1", "code": "replaced", "text": moved})
        app.handle_message({"type": "table_lost", "table": "t1", "seat": 2, "code": "replaced"})
        await wait_for(pilot, lambda: "moved to another window" in app.model.log[-1].text)
        assert "could not" not in app.model.log[-1].text, app.model.log[-1].text
        await pilot.pause()
        told = [n.message for n in app._notifications if "moved to another" in n.message]
        assert len(told) == 1 and "You are back in the lobby" in told[0], told


async def test_a_stale_seat_token_in_the_lobby_says_what_is_true_there() -> None:
    """A seat token the server no longer knows (``bad_token`` at the start) said "Esc goes back
    to the lobby" to a player in the lobby; while the lobby may still take a seat of the player
    key back, it is said only once that found none."""
    tables = [{"id": "t1", "name": "Friday club", "state": "waiting", "seats": []}]
    session = FakeSession({"list_tables": {"type": "ok", "tables": tables}})
    app = SheepsheadApp(session)  # type: ignore[arg-type]
    stale = {"type": "error", "re": None, "code": "bad_token", "message": "That seat token..."}

    def gone() -> list[str]:
        return [n.message for n in app._notifications if n.title == "Seat gone"]

    async with app.run_test(size=SIZE) as pilot:
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await wait_for(pilot, lambda: bool(lobby.tables) and not app.take_back_by_key)
        app.handle_message(stale)
        await wait_for(pilot, lambda: bool(gone()), timeout=5)
        assert gone() == [STALE_TOKEN_IN_LOBBY] and "Esc" not in gone()[0]
        app.clear_notifications()
        # The lobby has yet to look for a seat of the key: one it finds (here held by another
        # window) makes the sentence untrue, and it is not said.
        app.take_back_by_key = True
        app.handle_message(stale)
        yours = {**tables[0], "yours": {"seat": 2, "away": False}}
        session.replies["list_tables"] = {"type": "ok", "tables": [yours]}
        lobby.refresh_tables()
        await wait_for(pilot, lambda: lobby.tables[0].get("yours") is not None, timeout=5)
        await pilot.pause()
        assert not gone()
        # None found: said then.
        session.replies["list_tables"] = {"type": "ok", "tables": tables}
        app.take_back_by_key = True
        app.handle_message(stale)
        await pilot.pause()
        assert not gone()
        lobby.refresh_tables()
        await wait_for(pilot, lambda: bool(gone()), timeout=5)


async def test_a_refused_play_is_told_in_a_sentence_and_the_log_keeps_the_code() -> None:
    """A play refused at the table ended its red pop-up with the raw code: "It is seat 2's
    turn, not yours (not_your_turn)". Every code the server sends reads as a sentence."""
    table = EngineTable(seed=11, dealer=1, me=0)
    session = FakeSession()
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    for msg in table.messages():
        app.model.apply(msg)
    turn = app.model.turn
    assert turn is not None and turn != 0
    refusal = ServerError("not_your_turn", f"It is seat {turn}'s turn, not yours")

    async def refused(action: dict[str, Any], *, seq: int | None = None) -> dict[str, Any]:
        raise refusal

    session.act = refused  # type: ignore[method-assign]
    told: list[tuple[str, str | None]] = []

    def notify(message: str, **options: Any) -> None:
        told.append((message, options.get("title")))

    app.notify = notify  # type: ignore[method-assign]
    assert not await app.act({"action": "pass"}, seq=app.model.seq)
    name = app.model.name(turn)
    sentence = f"It is {name}'s turn, not yours: wait until the status line says it is yours."
    assert told == [(sentence, "Not allowed")]
    assert app.model.log[-1].text.endswith("(not_your_turn)")  # for a bug report
    for code, meaning in errors.ERROR_CODES.items():
        said = table_refusal(code, meaning, app.model)
        assert f"({code})" not in said and ("_" not in code or code not in said), said
        assert said[:1].isupper() and said.endswith("."), (code, said)
        assert code in TABLE_REFUSALS, code  # a sentence of its own, with what to do


async def test_a_play_while_the_connection_is_down_is_told_in_a_sentence() -> None:
    """A card played while the client reconnected (a server restart) said "Not sent, the
    connection dropped: connection_lost: Not connected to the server": a code, and nothing
    on what to do. Now a sentence, the log keeping the code."""
    table = EngineTable(seed=11, dealer=1, me=0)
    session = FakeSession()
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    for msg in table.messages():
        app.model.apply(msg)

    async def lost(action: dict[str, Any], *, seq: int | None = None) -> dict[str, Any]:
        raise ConnectionLost("Not connected to the server")

    session.act = lost  # type: ignore[method-assign]
    told: list[tuple[str, str | None]] = []

    def notify(message: str, **options: Any) -> None:
        told.append((message, options.get("title")))

    app.notify = notify  # type: ignore[method-assign]
    assert not await app.act({"action": "pass"}, seq=app.model.seq)
    assert len(told) == 1 and "connection_lost" not in told[0][0], told
    assert "top bar says connected" in told[0][0] and told[0][1] == "Not sent", told
    assert app.model.log[-1].text.endswith("(connection_lost)")  # for a bug report


async def test_your_own_join_mid_match_is_told_as_yours() -> None:
    """Fay sat down in a seat a bot played mid-match, and her pop-up read "Fay took seat 1":
    the server tells the table before it answers the join, when her client did not know its
    seat yet. Held until the reply names it; another's join meanwhile is told as it was."""
    session = FakeSession(name="Fay")
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    told: list[str] = []
    app.notify = lambda message, **options: told.append(message)  # type: ignore[method-assign]

    async def join(type: str, **fields: Any) -> dict[str, Any]:
        assert type == "join"
        for seat, name in ((1, "Fay"), (2, "Gus")):
            notice = {"type": "notice", "table": "t1", "code": "joined", "seat": seat}
            app.handle_message({**notice, "text": f"{name} took seat {seat}"})
        return {"type": "ok", "table": "t1", "seat": 1, "token": "tok", "name": "Fay"}

    session.request = join  # type: ignore[method-assign]
    assert await app.enter_table("join", "t1", "Friday club", seat=None) is not None
    assert told == ["You took seat 1", "Gus took seat 2"], told
    app.model.reset("t1")  # the lobby opens the table (LobbyScreen._enter_table)
    app.handle_message(
        {"type": "notice", "table": "t1", "code": "joined", "seat": 3, "text": "Hal took seat 3"}
    )
    assert told[2:] == ["Hal took seat 3"], told  # no join of this client's on its way


def test_a_refusal_about_a_table_by_its_id_starts_with_a_capital() -> None:
    """sheepshead watch --table t9, a table that closed: "table t9 is not open on this
    server" began the pop-up's sentence in lower case."""
    from client.app import refusal_text

    said = refusal_text("no_such_table", "No open table has the id 't9'", "table t9")
    assert said.startswith("Table t9 is not open on this server"), said


def test_a_name_the_server_numbered_is_told_why() -> None:
    """ssh gus@club: the server numbers a server bot's name ("gus 2") and the lobby's title
    said "you are gus 2" with nothing on why. A name only cleaned, or a seat taken back under
    its kept name (the name_kept notice tells that), is not told."""
    from types import SimpleNamespace

    from client.app import renamed_text

    def session(asked: str, name: str, table: str | None = None) -> object:
        return SimpleNamespace(requested_name=asked, name=name, welcome={"table": table})

    assert (
        renamed_text(session("gus", "gus 2")) == "gus is a server bot's name here: you are gus 2."
    )
    assert renamed_text(session("Ann\u200b", "Ann")) is None
    assert renamed_text(session("Annie", "Ann", table="t1")) is None
    assert renamed_text(FakeSession()) is None


async def test_a_table_the_server_closed_is_told_and_the_lobby_shown() -> None:
    """Ten minutes after the match ended with nobody starting another, the server closed the
    table: the client stayed on it, dead, its status line still offering the standings, and
    Esc's "Leave the table?" ended in a red "leave refused"."""
    table = EngineTable(seed=11, dealer=1, me=0)
    app = SheepsheadApp(FakeSession(), mode="join")  # type: ignore[arg-type]
    told: list[tuple[str, str | None]] = []
    app.notify = lambda message, **options: told.append(  # type: ignore[method-assign]
        (message, options.get("title"))
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.model.reset("t1")
        app.open_table()
        await fed(pilot, table.messages())
        assert isinstance(app.screen, TableScreen)
        reason = "The match is over and nobody started a new one"
        app.handle_message(
            {"type": "notice", "table": "t1", "code": "table_closed", "text": reason}
        )
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), what="the lobby")
        sentence = (
            "Kitchen table has closed: the match is over and nobody started a new one. "
            "You are back in the lobby."
        )
        assert (sentence, "Table closed") in told, told
        assert app.model.table is None
        # A new table's snapshot come before the lobby's reset for it (the server sends it
        # before it answers a create_table): the closed table's line stood at the top of the
        # new table's log ("Kitchen table has closed" over a new Kitchen table).
        await fed(pilot, EngineTable(seed=12, dealer=1, me=0, table="t2").messages())
        lobby = next(s for s in app.screen_stack if isinstance(s, LobbyScreen))
        lobby._enter_table("t2")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen), what="the table")
        assert app.model.table == "t2"
        assert sentence not in [entry.text for entry in app.model.log], app.model.log
