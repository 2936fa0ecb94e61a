"""Screens and dialogs driven by keys, fed with engine-built messages (no server).

Without a session the app puts what it would send into ``app.outbox``, so these tests see exactly
which action or request a key produced.
"""

from __future__ import annotations

import copy
import doctest
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from textual._context import visible_screen_stack
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import DataTable, OptionList

import client.bury_check
import client.coach
import client.config
import client.decisions
import client.model
import client.settings
import client.widgets.cards
import client.widgets.table
from client.app import SheepsheadApp
from client.screens.dialogs import BuryDialog, CallDialog, ChatDialog, ConfirmDialog
from client.screens.info import HELP_TEXT, HelpScreen, HistoryScreen, RulesScreen, TricksScreen
from client.screens.lobby import LobbyScreen
from client.screens.result import ResultScreen, ScoreSheetScreen
from client.screens.table import TableScreen, play_keys
from client.widgets.hand import CardWidget
from engine.record import replay_record
from engine.rules import RuleSet
from tests.client.feed import EngineTable, FakeSession, at_the_bury, at_the_call
from tests.client.test_e2e import wait_for

SIZE = (80, 24)


async def fed(pilot: Pilot[Any], messages: list[dict[str, Any]]) -> None:
    """Hand ``messages`` to the app, then wait until the screen they leave on top is drawn
    (on a busy machine one pause can return before a dialog just pushed has been laid out:
    its text read back empty)."""
    app: Any = pilot.app
    for msg in messages:
        app.handle_message(msg)
    await pilot.pause()
    deadline = time.monotonic() + 10
    while not screen_text(app).strip() and time.monotonic() < deadline:
        await pilot.pause(0.02)


def my_play_turn(seed: int = 7) -> EngineTable:
    table = EngineTable(seed=seed, dealer=2, me=0)
    hand = table.hand
    while not (hand.phase == "play" and hand.turn == 0 and hand.current):
        table.apply(hand.legal_actions()[0].to_dict())
    return table


def drawn_strips(app: Any) -> list[Strip]:
    """The terminal now, a strip a line, drawn as a frame is: with the screens a dialog lets
    show through it (a frame sets them; tests draw more often than frames, see conftest)."""
    visible_screen_stack.set(app._background_screens)
    return list(app.screen._compositor.render_strips())


def screen_text(app: Any) -> str:
    """Everything on the terminal now, as plain text lines."""
    return "\n".join(strip.text for strip in drawn_strips(app))


@pytest.mark.parametrize(
    "module",
    [
        client.config,
        client.model,
        client.widgets.cards,
        client.settings,
        client.decisions,
        client.bury_check,
        client.coach,
        client.widgets.table,
        client.screens.table,
        client.screens.result,
    ],
)
def test_doctests(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0, "no example found: nothing was tested"
    assert result.failed == 0


async def test_number_keys_play_only_legal_cards() -> None:
    table = my_play_turn()
    legal = {a.to_dict()["card"] for a in table.hand.legal_actions()}
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        hand = app.model.hand
        illegal = [i for i, c in enumerate(hand) if c not in legal]
        assert illegal, "this deal should leave a card you may not play"
        await pilot.press(str(illegal[0] + 1))
        await pilot.pause()
        assert app.outbox == [] and app.model.prompt is not None
        cards = list(app.screen.query(CardWidget))
        assert cards[illegal[0]].has_class("-dim")
        good = next(i for i, c in enumerate(hand) if c in legal)
        assert cards[good].has_class("-legal")
        # Two presses taken in before the send's worker ran (typed in one go, "3 5" at a
        # terminal): the second sent a play as well, refused "It is seat 2's turn, not yours
        # (not_your_turn)" in a red pop-up.
        screen: Any = app.screen
        screen.action_card(good)
        screen.action_card(good)
        await pilot.pause()
        assert app.outbox == [{"action": "play", "card": hand[good]}]
        assert app.model.prompt is None  # a second key press cannot send twice
        await pilot.press(str(good + 1), "enter")
        assert len(app.outbox) == 1


async def test_arrows_and_enter_play_the_cursor_card() -> None:
    table = my_play_turn()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        screen: Any = app.screen
        legal = app.model.legal_cards
        assert screen.cursor is None  # no card is chosen: Enter alone plays nothing
        await pilot.press("enter")
        await pilot.pause()
        assert app.outbox == []
        await pilot.press("right")
        # → goes to the first legal card from the left
        assert app.model.hand[screen.cursor] == next(c for c in app.model.hand if c in legal)
        while app.model.hand[screen.cursor] != legal[-1]:
            await pilot.press("right")
        await pilot.press("enter")
        await pilot.pause()
        assert app.outbox == [{"action": "play", "card": legal[-1]}]


async def test_clicking_a_card_plays_it() -> None:
    table = my_play_turn()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        legal = app.model.legal_cards
        index = app.model.hand.index(legal[0])
        await pilot.click(f"#card-{index + 1}")
        await pilot.pause()
        assert app.outbox == [{"action": "play", "card": legal[0]}]


async def test_pick_bury_and_call_through_keys_and_dialogs() -> None:
    table = EngineTable(seed=1, dealer=4, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        assert app.model.decision == "pick"
        # h before any hand finished: an empty box that named no key (the footer under it
        # says "esc Lobby", the table's).
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        text = screen_text(app)
        assert "No hand has finished yet" in text and "Esc closes" in text, text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        await pilot.press("p")
        await pilot.pause()
        assert app.outbox == [{"action": "pick"}]
        await fed(pilot, table.apply(app.outbox.pop()))
        assert isinstance(app.screen, BuryDialog)
        # The status line under the open dialog said "b opens the bury dialog".
        status = screen_text(app).splitlines()[-2]
        assert "bury in the dialog" in status and "b opens" not in status, status
        hand = app.model.hand
        # One card chosen: Enter neither buries nor puts it back ("7 Enter", a card confirmed
        # as at the table, chose 10♠ and unchose it unseen); it says what Enter waits for.
        await pilot.press("1", "enter")
        await pilot.pause()
        assert app.outbox == [] and isinstance(app.screen, BuryDialog)
        assert app.screen.chosen == [hand[0]]
        assert "Enter buries once two are chosen" in screen_text(app)
        await pilot.press("1", "3", "8", "escape")  # unchoose 1, choose 3 and 8, close
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.outbox == []
        assert "b opens the bury dialog" in screen_text(app).splitlines()[-2]
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(app.screen, BuryDialog)
        assert app.screen.chosen == [hand[2], hand[7]]  # Esc kept the choice
        await pilot.press("enter")
        await pilot.pause()
        assert app.outbox == [{"action": "bury", "cards": [hand[2], hand[7]]}]
        await fed(pilot, table.apply(app.outbox.pop()))
        assert isinstance(app.screen, CallDialog)
        calls = [a for a in app.model.legal if a["action"] == "call"]
        assert len(calls) >= 2
        text = screen_text(app)
        assert "hold card" in text
        assert "alone in the dialog" in text.splitlines()[-2], text.splitlines()[-2]
        await pilot.press("2")
        await pilot.pause()
        assert app.outbox == [calls[1]]
        await fed(pilot, table.apply(app.outbox.pop()))
        assert app.model.view is not None and app.model.view["called"] == calls[1]["card"]


async def test_alone_from_the_call_dialog_and_from_the_table() -> None:
    async with at_the_call(1) as (app, pilot, table):
        # a asks first, in the dialog and at the table (one key went alone at once): no keeps
        # the choice open, yes goes alone.
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "Go alone" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, CallDialog) and app.outbox == []
        await pilot.press("escape", "a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and app.outbox == []
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.outbox == []
        await pilot.press("a", "y")
        await pilot.pause()
        assert app.outbox == [{"action": "alone"}]
        # A later hand's call with the same choices (the timer's bot answered this one): the
        # "Go alone?" left open over the old call dialog stayed up across hands, and its y
        # went alone in the later hand.
        app.outbox.clear()

        def later(hands: int) -> list[dict[str, Any]]:
            out = copy.deepcopy(table.messages())
            for msg in out:
                msg["seq"] += hands
            out[0]["hand"] += hands
            return out

        await fed(pilot, later(1))
        assert isinstance(app.screen, CallDialog)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await fed(pilot, later(2))
        stack = [type(s) for s in app.screen_stack]
        assert stack.count(CallDialog) == 1 and ConfirmDialog not in stack, stack
        assert app.screen.answers_decision == app.model.decision_key()  # type: ignore[attr-defined]
        await pilot.press("y")
        await pilot.pause()
        assert app.outbox == [] and isinstance(app.screen, CallDialog)


async def test_alone_from_the_call_list_asks_too() -> None:
    async with at_the_call(1) as (app, pilot, _table):
        dialog = app.screen
        assert isinstance(dialog, CallDialog)
        dialog.query_one("#call-list", OptionList).highlighted = len(dialog.actions) - 1
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and app.outbox == []
        await pilot.press("y")
        await pilot.pause()
        assert app.outbox == [{"action": "alone"}]


async def test_the_key_player_buries_from_a_dialog_reopened_with_its_cards_chosen() -> None:
    # The end-to-end tests' Player (tests/client/test_e2e.py): a bury dialog closed and opened
    # again keeps its chosen cards, and pressing 1 2 Enter on it again cycled without burying.
    from tests.client.test_e2e import Player

    async with at_the_bury(1) as (app, pilot, _):
        await pilot.press("1", "2", "escape", "b")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, BuryDialog) and len(dialog.chosen) == 2
        player = Player(pilot)
        await player.until(lambda: bool(app.outbox), timeout=10)
        assert app.outbox == [{"action": "bury", "cards": dialog.chosen}]


async def test_a_forced_alone_is_not_asked_again() -> None:
    # Burying 7♣ Q♣ (seed 3) leaves nothing to call: "Go alone? No" would only bring the
    # same choice back, so the dialog's a and the table's a go alone at once.
    for from_table in (False, True):
        table = EngineTable(seed=3, dealer=4, me=0)
        table.apply({"action": "pick"})
        table.apply({"action": "bury", "cards": ["7C", "QC"]})
        assert [a.to_dict() for a in table.hand.legal_actions()] == [{"seat": 0, "action": "alone"}]
        app = SheepsheadApp(mode="play")
        async with app.run_test(size=SIZE) as pilot:
            await fed(pilot, table.messages())
            assert isinstance(app.screen, CallDialog)
            assert "You have no card you may call" in screen_text(app)
            if from_table:
                await pilot.press("escape")
                await pilot.pause()
                assert isinstance(app.screen, TableScreen)
            await pilot.press("a")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmDialog)
            assert app.outbox == [{"action": "alone"}]


async def test_result_history_tricks_and_export(tmp_path: Path) -> None:
    table = EngineTable(seed=11, dealer=1, me=0, rules=RuleSet.from_preset("wisconsin"))
    messages = table.messages()
    while not table.hand.is_over:
        messages += table.apply(table.hand.legal_actions()[0].to_dict())
    app = SheepsheadApp(mode="play", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)
        body = screen_text(app)
        assert "schneidered" in body and "double on the bump" in body
        await pilot.press("x")
        await pilot.pause()
        files = list(tmp_path.glob("*.json"))
        assert len(files) == 1
        record = json.loads(files[0].read_text(encoding="utf-8"))
        assert replay_record(record) == table.hand.result().to_dict()
        await pilot.press("enter", "l")
        await pilot.pause()
        assert isinstance(app.screen, TricksScreen)
        # Your card is "you"'s, as on the result panel and over your column (it read "Ann Q♠").
        last = next(line for line in screen_text(app).splitlines() if "Last trick:" in line)
        assert "you " in last and f"{table.names[0]} " not in last, last
        await pilot.press("escape", "h")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        assert "taken by" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_rules_panel_shows_options_and_the_trump_order() -> None:
    table = EngineTable(seed=2, rules=RuleSet.from_preset("wisconsin", unknown_card=True))
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        # The top bar called a table with an option changed "Wisconsin (standard)".
        top = screen_text(app).splitlines()[0]
        assert "Wisconsin +1 option" in top and "standard" not in top, top
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        text = screen_text(app)
        assert "Wisconsin (standard): the options of this table" in text
        assert "Unknown card                  yes" in text, text
        assert "Jacks in trump                J♣ J♠ J♥ J♦" in text, text
        assert "unknown_card" not in text  # options by their titles, not wire names
        assert "Q♣ Q♠ Q♥ Q♦ J♣ J♠ J♥ J♦ A♦ 10♦ K♦ 9♦ 8♦ 7♦" in text


@pytest.mark.parametrize("mode", ["join", "play"])
async def test_help_lists_every_key_of_the_table(mode: Any) -> None:
    app = SheepsheadApp(mode=mode)
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, EngineTable().messages())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(screen_text(app).split())
        for binding in TableScreen.BINDINGS:
            action = binding.action.split("(")[0]  # type: ignore[union-attr]
            assert action in HELP_TEXT, action
            if action == "leave" and mode == "play":
                # Esc does nothing in a local game: help does not offer it.
                assert HELP_TEXT[action] not in text and "Lobby" not in text
            else:
                assert HELP_TEXT[action] in text, action


def test_the_lobbys_help_row_is_its_own() -> None:
    """The help screen's Lobby column read "? rules, trump order / help": the table's row,
    where the lobby has no rules (its ? is this help alone)."""
    from client.screens.info import help_rows

    rows = dict(help_rows(LobbyScreen.BINDINGS, {"help": "this help"}))
    assert rows["?"] == "this help", rows
    assert dict(help_rows(TableScreen.BINDINGS))["r ?"] == HELP_TEXT["rules"]


def test_the_crack_keys_row_says_what_its_keys_do() -> None:
    """The crack row read "n w  crack: c, w +queens, n no": a key the row does not list (c is
    the call's) and its keys again. Now keys, then what each does, as every other row ("host:
    add / remove a bot")."""
    from client.screens.info import help_rows

    rows = dict(help_rows(TableScreen.BINDINGS))
    assert rows["n w"] == "crack: no / with queens", rows
    assert rows["c"] == "call dialog / crack", rows


async def test_help_and_rules_say_when_the_table_waits_for_you() -> None:
    """Help at 80x24 covered the status line: the player lost that it was their turn (or
    that it came while help was open). The box's border says it, with the turn timer, and
    every row of help is still there."""
    table = EngineTable(seed=7, dealer=2, me=0)  # seat 3 picks, then the play comes to you
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "Your turn" not in screen_text(app)
        turn = table.advance()  # your turn comes while help is open
        turn[-1]["deadline"] = 20.0
        await fed(pilot, turn)
        await wait_for(pilot, lambda: "▶ Your turn to play" in screen_text(app))
        lines = screen_text(app).splitlines()
        box_bottom = next(line for line in lines if "Your turn" in line)
        assert "Esc goes back to the table" in box_bottom
        # The timer counts down from 20 s: a busy machine may take a few seconds to get here.
        timer = re.search(r"⏱ (\d+)s", box_bottom)
        assert timer is not None and 0 < int(timer.group(1)) <= 20, box_bottom
        app.handle_message({"type": "connection", "status": "reconnecting"})  # not known now
        await wait_for(
            pilot,
            lambda: "▶ Your turn to play: Esc goes back to the table ⏱ --" in screen_text(app),
        )
        app.handle_message({"type": "connection", "status": "connected"})
        text = " ".join(" ".join(lines).split())
        for binding in TableScreen.BINDINGS:
            action = binding.action.split("(")[0]  # type: ignore[union-attr]
            assert action == "leave" or HELP_TEXT[action] in text, action
        assert "Mouse: click cards" in text
        await pilot.press("escape", "r")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        assert "▶ Your turn to play" in screen_text(app)
        await fed(pilot, table.apply(table.hand.legal_actions()[0].to_dict()))  # the timer's
        await wait_for(pilot, lambda: "Your turn" not in screen_text(app))


async def test_help_names_the_hosts_match_keys_in_the_order_it_lists_them() -> None:
    # The row read "n g e  host: start / end / rematch": n looked like start.
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, EngineTable().messages())
        await pilot.press("question_mark")
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines() if "rematch" in line)
        assert re.search(r"\bg e n\s+host: start / end / rematch", row), row


async def test_in_a_door_help_names_no_ctrl_z_and_ctrl_z_says_why() -> None:
    """Help said "Ctrl+Z suspends" in the browser door, whose driver cannot suspend (the key did
    nothing), and in the SSH door, whose client leads a session of its own: it stopped for
    good, the session frozen on a blank screen with no shell to bring it back."""
    app = SheepsheadApp(mode="join", door=True)
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, EngineTable().messages())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "Mouse: click cards and buttons · Esc closes" in text and "Ctrl+Z" not in text
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: bool(app._notifications), timeout=5)
        told = str(list(app._notifications)[-1].message)
        assert told.startswith("Ctrl+Z does not suspend the game here: it runs on the server")


async def test_chat_and_quit_confirmation() -> None:
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, EngineTable().messages())
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, ChatDialog)
        await pilot.press(*"hello", "enter")
        await pilot.pause()
        assert app.outbox == [{"type": "chat", "text": "hello"}]
        app.handle_message({"type": "chat", "from": "Bob", "seat": 1, "text": "hi Ann"})
        await pilot.pause()
        assert "Bob: hi Ann" in [e.text for e in app.model.log]
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and app.is_running


async def test_waiting_table_host_keys_send_requests() -> None:
    app = SheepsheadApp(mode="join")
    info = EngineTable().info() | {"state": "waiting"}
    info["seats"] = [info["seats"][0]] + [{"seat": s, "kind": "empty"} for s in range(1, 5)]
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, LobbyScreen)
        await fed(
            pilot,
            [
                {
                    "type": "state",
                    "table": "t1",
                    "seq": 0,
                    "seat": 0,
                    "info": info,
                    "view": None,
                    "last": None,
                    "totals": [0] * 5,
                    "hand": 0,
                }
            ],
        )
        assert isinstance(app.screen, TableScreen)
        assert "+ adds a bot" in screen_text(app)
        await pilot.press("plus", "g")
        await pilot.pause()
        assert app.outbox == [{"type": "add_bot", "seat": None}, {"type": "start"}]


async def test_no_color_keeps_suits_and_card_states_readable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    table = my_play_turn()
    app = SheepsheadApp(mode="play")
    assert app.no_color
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        cards = list(app.screen.query(CardWidget))
        shown = [c for c in cards if c.display]
        # Without colour a card's state is its border: solid for playable, dashed for not.
        styles = {c.styles.border_top[0] for c in shown}
        assert {"dashed"} & styles and ({"round"} | {"double"}) & styles
        assert all(any(s in str(c.render()) for s in "♣♠♥♦") for c in shown)


async def test_turn_timer_counts_down_in_the_status_line() -> None:
    table = my_play_turn()
    messages = table.messages()
    messages[-1]["deadline"] = 20.0
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        line = screen_text(app).splitlines()[-2]
        first = int(re.search(r"⏱ (\d+)s", line).group(1))  # type: ignore[union-attr]
        assert "Your turn" in line and 17 <= first <= 20
        app.model.prompt.received -= 5  # type: ignore[union-attr]
        await pilot.pause(0.6)
        line = screen_text(app).splitlines()[-2]
        later = int(re.search(r"⏱ (\d+)s", line).group(1))  # type: ignore[union-attr]
        assert later <= first - 5
        # While the connection is down the server's clock is not known here: it counted on,
        # then jumped to the server's deadline once back. The line says it is unknown.
        app.handle_message({"type": "connection", "status": "reconnecting"})
        await pilot.pause()
        line = screen_text(app).splitlines()[-2]
        assert "reconnecting" in line and "⏱ --" in line, line
        assert not re.search(r"⏱ \d", line), line
        app.handle_message({"type": "connection", "status": "connected"})
        await pilot.pause()
        assert re.search(r"⏱ \d+s", screen_text(app).splitlines()[-2])


async def test_match_over_shows_the_final_standings() -> None:
    table = EngineTable(seed=4, dealer=0, me=1, hands_limit=1)
    messages = table.messages()
    while not table.hand.is_over:
        messages += table.apply(table.hand.legal_actions()[0].to_dict())
    final = list(table.totals)
    messages.append(
        {"type": "match_over", "table": "t1", "seq": table.seq, "totals": final, "hands": 1}
    )
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)  # the last hand first, then the standings
        await pilot.press("enter")
        await pilot.pause()
        text = screen_text(app)
        assert "Match over after 1 hand " in text or "Match over after 1 hand─" in text
        best = max(range(5), key=lambda s: final[s])
        assert f"1  {table.names[best]}" in text or f"1 {table.names[best]}" in text
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert "Match over" in screen_text(app).splitlines()[-2]


async def test_history_pages_through_the_hands(tmp_path: Path) -> None:
    app = SheepsheadApp(mode="play", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(2):
            table = EngineTable(seed=11 + n, dealer=n, me=0)
            table.hands_played = n
            messages = table.messages()
            while not table.hand.is_over:
                messages += table.apply(table.hand.legal_actions()[0].to_dict())
            await fed(pilot, messages)
            await pilot.press("enter")  # close the result panel
        await pilot.press("h")
        await pilot.pause()
        assert "Match history: hand 2 (2 of 2)" in screen_text(app)
        await pilot.press("left")
        await pilot.pause()
        assert "Match history: hand 1 (1 of 2)" in screen_text(app)
        await pilot.press("left", "x")  # stays on the first hand; exports it
        await pilot.pause()
        (path,) = tmp_path.glob("*hand1-*.json")
        assert replay_record(json.loads(path.read_text(encoding="utf-8")))["complete"]


async def test_status_names_the_number_keys_of_the_cards_held() -> None:
    table = EngineTable(seed=7, dealer=2, me=0)
    hand = table.hand
    # My turn in the third trick or later, so fewer cards are held than at the deal.
    while not (hand.phase == "play" and hand.turn == 0 and len(hand.tricks) >= 2):
        table.apply(hand.legal_actions()[0].to_dict())
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        held = len(app.model.hand)
        assert 1 < held < 6
        line = screen_text(app).splitlines()[-2]
        playable = [a.to_dict()["card"] for a in hand.legal_actions()]
        keys = play_keys(app.model.hand, playable)  # the keys of the playable cards only
        assert f"play a card: {keys}," in line, line


async def test_a_terminal_smaller_than_the_table_needs_is_told_once_per_shrink() -> None:
    def warnings(app: SheepsheadApp) -> list[str]:
        return [n.message for n in app._notifications if n.title == "Terminal too small"]

    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        assert warnings(app) == []
        await pilot.resize_terminal(70, 24)
        await pilot.pause()
        assert len(warnings(app)) == 1 and "70×24" in warnings(app)[0]
        await pilot.resize_terminal(65, 20)  # still too small: no second warning
        await pilot.pause()
        assert len(warnings(app)) == 1
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.resize_terminal(80, 23)  # too small again: told again
        await pilot.pause()
        assert len(warnings(app)) == 2 and "80×23" in warnings(app)[1]
        # Short of a row only, it said "make it at least 80×24" where 80 columns were there;
        # 85 columns short of rows read "needs 80×24 ...: make it at least 85×24".
        assert "make it 1 row taller" in warnings(app)[1], warnings(app)[1]

    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(60, 18)) as pilot:  # too small from the start
        await pilot.pause()
        assert len(warnings(app)) == 1 and "60×18" in warnings(app)[0]


async def test_a_dialog_whose_decision_the_timer_made_closes() -> None:
    """Away from the keyboard, the turn timer's bot buries and calls for you: the dialogs
    that opened for those decisions close instead of piling up over the table."""
    async with at_the_bury(1) as (app, pilot, table):
        await fed(pilot, table.apply(table.hand.legal_actions()[0].to_dict()))  # the timer
        assert isinstance(app.screen, CallDialog)
        assert [type(s) for s in app.screen_stack].count(BuryDialog) == 0
        await fed(pilot, table.apply(table.hand.legal_actions()[-1].to_dict()))  # the timer
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        assert app.outbox == []  # nothing was sent from a dialog


async def test_an_open_result_shows_the_latest_hand() -> None:
    first = EngineTable(seed=11, dealer=1, me=0)
    messages = first.messages()
    while not first.hand.is_over:
        messages += first.apply(first.hand.legal_actions()[0].to_dict())
    second = EngineTable(seed=12, dealer=2, me=0)
    second.seq, second.hands_played, second.totals = first.seq + 1, 1, list(first.totals)
    later = second.messages()
    while not second.hand.is_over:
        later += second.apply(second.hand.legal_actions()[0].to_dict())
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen) and "Hand 1:" in screen_text(app)
        await pilot.press("k")  # the score sheet over the panel: its Esc comes back to it
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        await fed(pilot, later)  # the player never closed it; the timer played hand 2
        await pilot.pause()
        assert isinstance(app.screen, ScoreSheetScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert [type(s) for s in app.screen_stack].count(ResultScreen) == 1
        assert "Hand 2:" in screen_text(app) and "Hand 1:" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)


async def test_i_in_the_bury_dialog_asks_the_coach_and_buries_nothing() -> None:
    """The status line offered i during the bury, and in the dialog it did nothing."""
    session = FakeSession()
    async with at_the_bury(3, hints=True, session=session) as (app, pilot, _):
        dialog = app.screen
        assert isinstance(dialog, BuryDialog) and dialog.query_one("#bury-hint").display
        best = next(a for a in app.model.legal if a["action"] == "bury")
        session.replies["hint"] = {
            "type": "ok",
            "deals": 40,
            "candidates": [{"action": best, "value": 1.5}],
        }
        await pilot.press("i")
        for _ in range(50):
            await pilot.pause(0.02)
            if sorted(dialog.chosen) == sorted(best["cards"]):
                break
        assert sorted(dialog.chosen) == sorted(best["cards"])  # chosen, shown
        assert "Hint: bury" in screen_text(app)
        assert [m["type"] for m in session.sent if m["type"] != "history"] == ["hint"]
        assert app.screen is dialog  # nothing buried


async def test_i_in_the_call_dialog_highlights_the_coachs_choice() -> None:
    session = FakeSession()
    async with at_the_call(1, hints=True, session=session) as (app, pilot, _table):
        assert isinstance(app.screen, CallDialog)
        # With a turn timer: the call's sentence and "· i: hint" pushed the clock past the
        # 80th column (the player at the call did not see how long they had).
        assert app.model.prompt is not None
        app.model.prompt.deadline, app.model.prompt.received = 45.0, time.monotonic()
        await pilot.press("escape")  # later: the table's line names c
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        status = screen_text(app).splitlines()[-2]
        # The clock counts down in real time: 45s, or less on a loaded machine.
        assert "c opens the call dialog" in status and re.search(r"⏱ \d+s", status), status
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, CallDialog)
        best = dialog.actions[1]
        session.replies["hint"] = {"type": "ok", "deals": 9, "candidates": [{"action": best}]}
        await pilot.press("i")
        options = dialog.query_one("#call-list", OptionList)
        for _ in range(50):
            await pilot.pause(0.02)
            if options.highlighted == 1:
                break
        assert options.highlighted == 1 and "Hint: call" in screen_text(app)
        assert app.screen is dialog
        assert [m["type"] for m in session.sent if m["type"] != "history"] == ["hint"]


async def test_i_at_a_table_without_the_coach_says_so() -> None:
    async with at_the_bury(3) as (app, pilot, _):
        await pilot.press("i")
        await pilot.pause()
        assert any("no coach" in n.message for n in app._notifications)
        assert app.outbox == []


async def test_the_lobby_detail_counts_hands_in_words() -> None:
    # "1 hands" read wrong in the lobby's line about the highlighted table.
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        tables = [
            {"id": f"t{n}", "name": f"T{n}", "state": "waiting", "hands": hands, "seats": []}
            for n, hands in ((1, 1), (2, 10), (3, None))
        ]
        # A full table with the coach on: its line said "Enter joins" (refused: table_full)
        # and nothing of the hints.
        # Long names: the seats line wraps, and its second line started at column 0.
        seats = [{"seat": n, "name": f"Bartholomew Bigsby {n}", "kind": "human"} for n in range(5)]
        full = {"id": "t4", "name": "T4", "state": "playing", "hands": 2, "seats": seats}
        tables.append({**full, "hints": True})
        # Full, one seat ours and played in another window: Enter joined, and was refused
        # "already seated" (the hint line said nothing of Enter); w watched.
        tables.append({**full, "id": "t5", "name": "T5", "yours": {"seat": 1, "away": False}})
        lobby.show_tables(tables)
        texts, hints, details = [], [], []
        for _ in tables:
            await pilot.pause()
            details.append(str(lobby.query_one("#lobby-detail").render()).splitlines())
            texts.append(details[-1][0])
            hints.append(str(lobby.query_one("#lobby-hint").render()))
            await pilot.press("down")
        assert texts == [
            " T1 · 1 hand",
            " T2 · 10 hands",
            " T3 · open-ended",
            " T4 · 2 hands · coach hints (i)",
            " T5 · 2 hands",
        ]
        assert details[3][1].startswith(" Seats: Bartholomew Bigsby 0, "), details[3]
        assert details[3][2].startswith("        Bartholomew Bigsby "), details[3]
        assert max(len(line) for line in details[3]) <= SIZE[0], details[3]
        assert "Enter joins" in hints[0] and "Enter joins" not in hints[3], hints
        assert "Every seat is taken: Enter watches" in hints[3], hints
        assert "Your seat 1 plays in another window: Enter watches" in hints[4], hints
        # Home and End go to the first and last table (they only scrolled the list sideways;
        # Up and Down moved), PageUp and PageDown a page (all of these five) at a time.
        grid = lobby.query_one("#tables", DataTable)
        for key, row in (("home", 0), ("end", 4), ("pageup", 0), ("pagedown", 4)):
            await pilot.press(key)
            await pilot.pause()
            assert grid.cursor_row == row, (key, grid.cursor_row)
        assert str(lobby.query_one("#lobby-detail").render()).startswith(" T5 ·")
        await pilot.press("enter")  # on T5: watches it
        await wait_for(pilot, lambda: bool(app.outbox), timeout=5)
        assert [m["type"] for m in app.outbox] == ["watch"] and app.outbox[0]["table"] == "t5"
        app.outbox.clear()
        await wait_for(pilot, lambda: app.screen is not lobby, timeout=5)
        await app.pop_screen()  # the table screen it opened: back in the lobby
        await pilot.press("up", "enter")  # on T4: watches it (joining was refused)
        await pilot.pause()
        assert [m["type"] for m in app.outbox] == ["watch"] and app.outbox[0]["table"] == "t4"


async def test_the_history_shows_a_hand_that_ends_while_it_is_open_keeping_your_place() -> None:
    """A hand that ended while the history was open did not appear until it was closed and
    opened again ("No hand has finished yet", "1 of 1"). Now the page being read stays where
    it was scrolled to, the title counts the new hand, and the hint names it until → shows it."""
    table = EngineTable(seed=11, dealer=1, me=0, rules=RuleSet.from_preset("wisconsin"))
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await pilot.press("h")
        await pilot.pause()
        assert "No hand has finished yet" in screen_text(app)
        await fed(pilot, table.play_out())
        await pilot.press("enter")  # the result panel, over the history
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        assert "hand 1 (1 of 1)" in screen_text(app), screen_text(app)
        detail = app.screen.query_one("#history-detail")
        detail.scroll_end(animate=False)  # to the blind, under the last trick at 80x24
        await pilot.pause()
        place = detail.scroll_y
        assert place > 0 and "Blind " in screen_text(app)
        await fed(pilot, table.next_hand(seed=12) + table.play_out())
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        text = screen_text(app)
        assert "hand 1 (1 of 2)" in text and "Hand 2 just ended: → shows it" in text, text
        assert detail.scroll_y == place  # the reader's place
        await pilot.press("right")
        await pilot.pause()
        text = screen_text(app)
        assert "hand 2 (2 of 2)" in text and "just ended" not in text, text
