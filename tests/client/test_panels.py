"""Issue 28's panels at 80×24 and 120×40: the score sheet (a fixed header, the stakes, columns
that hold at three-digit payouts), panels as tall as the terminal, the result panel when the next
decision comes, a watcher's texts and keys, the log after a late join or a reconnect, and the
rematch key at the end of a match.

Engine-fed Pilot tests (tests/client/feed.py), and real-server ones where the server's own
timing matters (the late join, ``sheepshead play``'s rematch).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from client.app import SheepsheadApp
from client.model import Change, FinishedHand, TableModel
from client.screens.dialogs import BuryDialog, ConfirmDialog
from client.screens.info import HistoryScreen
from client.screens.result import (
    KEYS_WIDTH,
    MatchOverScreen,
    ResultScreen,
    ScoreSheetScreen,
    result_keys,
)
from client.screens.table import TableScreen
from client.session import Session
from client.widgets.cards import card_label
from server.app import Server
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_club_table import fed, next_hand_asks_me_to_pick
from tests.client.test_e2e import Player, local_game, play_options, session_for, wait_for
from tests.client.test_screens import screen_text

SMALL = (80, 24)
BIG = (120, 40)


def hands_played(count: int) -> list[dict[str, Any]]:
    """The messages of ``count`` whole hands at one table (you at seat 0)."""
    table = EngineTable(seed=21, dealer=4, me=0, hands_limit=count)
    messages = table.messages() + table.play_out()
    for seed in range(22, 21 + count):
        messages += table.next_hand(seed=seed) + table.play_out()
    return messages


def box_rows(app: Any, title: str) -> list[str]:
    """The screen lines of the box whose top border carries ``title``, borders included."""
    lines = screen_text(app).splitlines()
    top = next(i for i, line in enumerate(lines) if f"╭─ {title}" in line)
    column = lines[top].index(f"╭─ {title}")
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i][column : column + 1] == "╰")
    return lines[top : bottom + 1]


# ---------------------------------------------------------------------- the score sheet


def assert_seat_columns(header: str, body: list[str]) -> None:
    """Under each seat's name, every row has a payout of four cells then `` =``."""
    starts = [m.start() for m in re.finditer(r"(you|Bob|Cal|Dee|Eve)", header)]
    assert len(starts) == 5, header
    for row in body:
        for start in starts:
            cell = row[start : start + 6]
            assert re.fullmatch(r" *[+-]?\d+ =", cell), (cell, header, row)


async def test_the_score_sheet_header_stays_in_sight_after_20_hands() -> None:
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SMALL) as pilot:
        await fed(pilot, hands_played(20))
        await pilot.press("escape", "k")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await pilot.pause()
        rows = box_rows(app, "Score sheet")
        assert re.search(r"#\s+side\s+pts\s+stk\s+you\s+Bob", rows[1]), rows
        body = [row for row in rows if re.match(r"│ +\d+ ", row)]
        assert body[-1].startswith("│ 20 "), rows  # the latest hand, below
        assert_seat_columns(rows[1], body)  # the rows under a scroll bar still line up
        assert "Esc closes" in rows[-2]


def crafted_hand(number: int, payouts: list[int], totals: list[int], **result: Any) -> FinishedHand:
    return FinishedHand(
        number=number,
        result={"payouts": payouts, **result},
        reveal={},
        totals=totals,
        names=["Ann", "Bob", "Cal", "Dee", "Eve"],
    )


async def test_the_score_sheet_shows_the_stakes_and_aligns_three_digit_payouts() -> None:
    """A -144 row is explained by its ×16, and the payouts stay in their columns."""
    crack = [
        {"kind": "doubler", "seat": None, "pair": None, "factor": 2},
        {"kind": "crack", "seat": 1, "pair": "black", "factor": 4},
        {"kind": "recrack", "seat": 0, "pair": None, "factor": 2},
    ]
    hands = [
        crafted_hand(
            1,
            [2, -1, 1, -1, -1],
            [2, -1, 1, -1, -1],
            picker=0,
            partner=2,
            picker_side_points=70,
            doublings=[],
        ),
        crafted_hand(
            2,
            [-144, 36, 36, 36, 36],
            [-142, 35, 37, 35, 35],
            picker=0,
            alone=True,
            picker_side_points=20,
            doublings=crack,
        ),
        crafted_hand(3, [0, 0, 0, 0, 0], [-142, 35, 37, 35, 35], doubler=True),
    ]
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SMALL) as pilot:
        await fed(pilot, EngineTable(seed=3).messages())
        app.model.history = hands
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await pilot.pause()
        rows = box_rows(app, "Score sheet")
        body = [row for row in rows if re.match(r"│ \d ", row)]
        assert len(body) == 3, rows
        assert "×16" in body[1] and "you alone" in body[1]  # you are Ann, seat 0
        assert "×" not in body[0] and "doubler" in body[2]
        # Each seat's "=" sits in the same column on every row, whatever the payout's width.
        marks = [[m.start() for m in re.finditer(" =", row)] for row in body]
        assert len(marks[0]) == 5 and marks[0] == marks[1] == marks[2], body
        assert "-144 =-142" in body[1]
        assert_seat_columns(rows[1], body)


# ---------------------------------------------------------------------- panel heights


async def test_the_result_and_its_review_use_the_height_of_a_big_terminal() -> None:
    table = EngineTable(seed=11, dealer=1, me=0, hints=True)
    messages = table.messages() + table.play_out()
    decision = {
        "trick": 1,
        "action": {"action": "play", "card": "9H"},
        "value": -0.3,
        "best": {"action": "play", "card": "QC"},
        "best_value": 0.8,
        "cost": 1.1,
        "deals": 40,
    }
    # The moves a stand-in made for you are named apart, not judged.
    standin = {"n": 40, "trick": 6, "action": {"action": "play", "card": "8C"}, "by": "standin"}
    review = {"type": "ok", "hand": 0, "decisions": [decision] * 16, "made_for": [standin]}
    session = FakeSession({"review": review})
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=BIG) as pilot:
        await fed(pilot, messages)
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        result = app.screen
        assert isinstance(result, ResultScreen)
        await pilot.press("v")
        await wait_for(pilot, lambda: bool(result.review))
        await pilot.pause()
        rows = box_rows(app, "Hand 1")
        assert len(rows) > 30, rows  # was capped at 23 rows, the review cut off
        assert "Enter close" in rows[-2]
        assert sum("your 9♥ cost about" in row for row in rows) == 16
        assert any("Trick 6: played by a stand-in while you were away (8♣)." in row for row in rows)
        # A hand somebody else played in your seat (you sat down after it, in the seat of a
        # player who left): "v review your play" reviewed that player's decisions as yours.
        result.hand.names = ["Annie", *result.hand.names[1:]]
        app.model_changed.publish(Change.LOG)
        await pilot.pause()
        assert "review your play" not in screen_text(app)
        asked = len(session.sent)
        await pilot.press("v")
        await pilot.pause()
        assert not [r for r in session.sent[asked:] if r["type"] == "review"]
        # The history (h) reviews a hand too: once the next hand is dealt (two seconds after
        # the last trick at a server) the result panel is gone, and with it the only v.
        # Not the hand somebody else played in your seat, either...
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.press("v")
        await pilot.pause()
        assert not [r for r in session.sent[asked:] if r["type"] == "review"]
        assert "v review" not in screen_text(app)
        # ... but yours.
        result.hand.names = ["Ann", *result.hand.names[1:]]
        await pilot.press("escape", "h")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await wait_for(pilot, lambda: "v review" in screen_text(app))
        await pilot.press("v")
        await wait_for(pilot, lambda: "your 9♥ cost about" in screen_text(app))
        assert [r for r in session.sent[asked:] if r["type"] == "review"] == [
            {"type": "review", "hand": 0}
        ]
        assert "The coach on your decisions:" in screen_text(app)


async def test_the_score_sheet_uses_the_height_of_a_big_terminal() -> None:
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=BIG) as pilot:
        await fed(pilot, hands_played(30))
        await pilot.press("escape", "k")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await pilot.pause()
        rows = box_rows(app, "Score sheet")
        assert len(rows) > 30, rows


async def test_the_history_help_and_rules_fit_a_terminal_shorter_than_24_rows() -> None:
    """The history's box was 22 rows tall at any size: at 80x20 its key line and bottom border
    were cut off (the help's and the rules' too)."""
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(80, 20)) as pilot:
        await fed(pilot, hands_played(1))
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        for key, title, hint in (
            ("h", "Match history", "Esc closes"),
            ("question_mark", "Keys", "Esc closes"),
            ("r", "Rules of this table", "Esc closes"),
        ):
            await pilot.press(key)
            await wait_for(pilot, lambda: not isinstance(app.screen, TableScreen))
            await wait_for(pilot, lambda t=title: f"╭─ {t}" in screen_text(app), timeout=5)  # type: ignore[misc]
            rows = box_rows(app, title)
            assert hint in rows[-2], (title, rows[-3:])
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))


async def test_the_result_panel_shows_your_new_cards_when_you_are_asked_to_pick() -> None:
    """At 80×24 the panel covers your hand: the question comes with the cards it is about.
    When the pick is made without you (the turn timer, the dealer made to pick), the bury
    dialog opens over the table, not over the panel: left under the dialog, the panel's
    "▶ Your turn in the next hand: Enter closes this panel" showed through it, where Enter
    buries."""
    table, messages = next_hand_asks_me_to_pick()
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SMALL) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)
        text = screen_text(app)
        assert "Your turn in the next hand: p picks" in text
        cards = next(line for line in text.splitlines() if "Your cards:" in line)
        assert len(app.model.hand) == 6
        for code in app.model.hand:
            assert card_label(code) in cards, (code, cards)
        said = "Time ran out for Ann; picked for them, as the rules require"
        timed_out = {"type": "notice", "table": "t1", "code": "timer_expired", "seat": 0}
        await fed(pilot, [{**timed_out, "text": said}, *table.apply({"action": "pick"})])
        await wait_for(pilot, lambda: isinstance(app.screen, BuryDialog), timeout=5)
        assert [type(s) for s in app.screen_stack[1:]] == [TableScreen, BuryDialog]
        text = screen_text(app)
        assert "Your turn in the next hand" not in text and "Choose two cards" in text
        said_to_me = "Time ran out for you; picked for you, as the rules require"
        assert said_to_me in [e.text for e in app.model.log]
        assert "You pick" not in [e.text for e in app.model.log]  # said once, by the notice


@pytest.mark.parametrize("out", [None, "Esc leave table", "Esc stop watching", "Esc table"])
@pytest.mark.parametrize("review", [False, True])
@pytest.mark.parametrize("rematch", [False, True])
def test_the_result_panels_keys_fit_its_line_whole(
    out: str | None, review: bool, rematch: bool
) -> None:
    """The host's line at a match's end with a hand to review was 77 cells: at 80×24 it was
    cut to "... · v review · q"."""
    keys = result_keys(out, review=review, rematch=rematch)
    assert len(keys) <= KEYS_WIDTH and keys.endswith(" · q quit"), keys
    assert ("n rematch" in keys) == rematch and ("v review" in keys) == review, keys


# ---------------------------------------------------------------------- a watcher


async def test_a_watcher_has_no_seat_to_keep_no_play_to_review_and_q_quits() -> None:
    table = EngineTable(seed=11, dealer=1, me=None, hints=True)
    messages = table.messages() + table.play_out()
    session = FakeSession(name="Ole")
    app = SheepsheadApp(session, mode="watch")  # type: ignore[arg-type]
    async with app.run_test(size=SMALL) as pilot:
        await fed(pilot, messages)
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        text = screen_text(app)
        assert "review your play" not in text and "q quit" in text
        # t on the result opens the chat over it (it did nothing; the line typed behind it
        # ran the panel's keys), and the line goes out; the panel stays.
        await pilot.press("t", *"gg well played", "enter")
        await wait_for(
            pilot, lambda: {"type": "chat", "text": "gg well played"} in session.sent, timeout=5
        )
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen), timeout=5)
        table_screen = next(s for s in app.screen_stack if isinstance(s, TableScreen))
        app.handle_message({"type": "connection", "status": "reconnecting"})
        status = table_screen.status_text()
        assert "seat" not in status and "watch this table again" in status, status
        # The top bar's status is whole at 80 columns (it was cut to "◌ reconnecting to").
        await wait_for(pilot, lambda: "reconnecting" in screen_text(app).splitlines()[0], timeout=5)
        top = screen_text(app).splitlines()[0].rstrip()
        assert re.search(r"◌ reconnecting( to 127\.0\.0\.1:7453)?$", top), top
        # At the match's end the watcher's Esc asks "Stop watching…?", and both panels' key
        # lines say so (they said "Esc leave table"), whole at 80 columns.
        app.handle_message({"type": "connection", "status": "connected"})
        await fed(pilot, [table.match_over()])
        await wait_for(pilot, lambda: "Esc stop watching" in screen_text(app), timeout=5)
        assert "Enter standings · Esc stop watching ·" in screen_text(app)
        assert "leave table" not in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen), timeout=5)
        keys = next(line for line in screen_text(app).splitlines() if "Esc stop" in line)
        assert "Enter table · Esc stop watching ·" in keys and "· q quit" in keys, keys
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog), timeout=5)
        assert "Stop watching" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen), timeout=5)
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0


# ---------------------------------------------------------------------- the log


def log_texts(model: TableModel) -> list[str]:
    return [e.text for e in model.log]


def test_the_log_after_a_reconnect_tells_what_happened_while_away() -> None:
    """The state after a reconnect is far ahead of the last one seen: the pick, the bury and
    the call made meanwhile are logged from the view, once, before the trick lines."""
    table = EngineTable(seed=7, dealer=2, me=0)
    model = TableModel()
    for msg in table.messages():
        model.apply(msg)
    hand = table.hand
    while not (hand.phase == "play" and hand.tricks):
        table.apply(hand.legal_actions()[0].to_dict())
    for msg in table.messages(last={"seat": 1, "action": "play", "card": "7D"}):
        model.apply(msg)
    picker = hand.picker
    assert picker is not None
    texts = log_texts(model)
    name = model.name(picker)
    assert f"{name} picks" in texts and f"{name} buries 2 cards" in texts, texts
    assert texts.index(f"{name} picks") < texts.index(f"{name} buries 2 cards")
    assert texts.index(f"{name} buries 2 cards") < texts.index(
        next(t for t in texts if t.startswith("Trick 1:"))
    )
    assert len(texts) == len(set(texts)), texts  # nothing twice


async def answer_until_a_bot_picked(session: Session, table: str) -> None:
    """As the host at ``table``: pass at every pick, play the first legal card, until a bot
    picked and the play waits for this seat (the table then stands still)."""
    while True:
        prompt = None
        state = None
        while prompt is None:
            msg = await session.events.get()
            if msg.get("type") == "state":
                state = msg
            elif msg.get("type") == "your_turn":
                prompt = msg
        view = (state or {}).get("view") or {}
        if prompt["decision"] == "play" and view.get("picker") not in (None, view.get("seat")):
            return
        legal = prompt["legal"]
        chosen = next((a for a in legal if a["action"] == "pass"), legal[0])
        chosen = {k: v for k, v in chosen.items() if k != "seat"}
        await session.act(chosen, seq=prompt["seq"])


async def test_a_late_watcher_logs_the_pick_and_the_bury_of_the_hand(
    server: Server, tmp_path: Path
) -> None:
    host = await session_for(server, tmp_path, name="Host")
    reply = await host.request(
        "create_table", name="late", preset="seed", options={}, hands=None, password=None
    )
    table = str(reply["table"])
    for _ in range(4):
        await host.request("add_bot", seat=None, strategy="random")
    await host.request("start")
    await answer_until_a_bot_picked(host, table)
    watcher = await session_for(server, tmp_path, name="Watcher")
    app = SheepsheadApp(watcher, mode="watch", watch_table=table)
    try:
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: app.model.view is not None)
            picker = app.model.view["picker"]  # type: ignore[index]
            name = app.model.name(picker)
            await wait_for(pilot, lambda: f"{name} buries 2 cards" in log_texts(app.model))
            texts = log_texts(app.model)
            assert f"{name} picks" in texts, texts
            assert texts.index(f"{name} picks") < texts.index(f"{name} buries 2 cards")
    finally:
        await watcher.close()
        await host.close()


# ---------------------------------------------------------------------- rematch in play


async def test_n_starts_a_rematch_in_sheepshead_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the end of a `sheepshead play` match, with the panels closed, n starts the next."""
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))
    args = play_options(True, hands=1)
    async with local_game(args) as (_server, session):
        app = SheepsheadApp(session, mode="play")
        async with app.run_test(size=SMALL) as pilot:
            player = Player(pilot)
            await player.until(lambda: isinstance(app.screen, MatchOverScreen), timeout=60)
            # The player closed the last hand's result; the standings followed it alone.
            assert not any(isinstance(s, ResultScreen) for s in app.screen_stack)
            await pilot.press("enter")  # close the standings: n still works on the table
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
            assert "n rematch" in screen_text(app)
            await pilot.press("n")
            await wait_for(pilot, lambda: app.model.match_over is None and app.model.view)
            assert app.model.table_state == "playing"
            assert any("new match" in text for text in log_texts(app.model))


async def test_the_table_draws_before_its_action_buttons_are_mounted() -> None:
    """The table screen's Mount can come before its action buttons (three containers down)
    are mounted: a watcher whose client awaited one request more before the watch failed at
    its first draw, "No nodes match '#btn-result'" (seen in a full run; the buttons are drawn
    again once mounted)."""
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        assert isinstance(screen, TableScreen)
        buttons = list(screen.query_one("#actions").children)
        await screen.query_one("#actions").remove_children()
        screen._draw_actions()  # raised NoMatches
        await screen.query_one("#actions").mount_all(buttons)
        screen._draw_actions()
        assert screen.query_one("#btn-result").display is False
