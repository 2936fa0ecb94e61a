"""Snapshot tests of the main screens at 80×24, fed with deterministic engine-built states.

No server, clock or network: each app gets the ``state`` / ``your_turn`` / ``hand_over`` messages
an engine hand produces (tests/client/feed.py), so the pictures only change when the UI does.
Regenerate after an intended change with ``pytest tests/client --snapshot-update`` and look at
the SVGs before committing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

import client.terminal
from client.app import SheepsheadApp
from engine.rules import RuleSet
from tests.client.feed import EngineTable, buried, picked

SIZE = (80, 24)


def fed(messages: list[dict[str, Any]], *keys: str) -> Callable[[Pilot[Any]], Any]:
    """A ``run_before`` that feeds the messages, then presses the keys."""

    async def run_before(pilot: Pilot[Any]) -> None:
        app: Any = pilot.app
        for msg in messages:
            app.handle_message(msg)
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


def mid_trick() -> list[dict[str, Any]]:
    """Cal (seat 3) picks and calls; two tricks later it is your turn inside a trick."""
    table = EngineTable(seed=7, dealer=2, me=0)
    out = table.messages()
    hand = table.hand
    while not (hand.phase == "play" and hand.turn == 0 and hand.current and hand.tricks):
        out += table.apply(hand.legal_actions()[0].to_dict())
    return out


LOBBY_TABLES: list[dict[str, Any]] = [
    {
        "id": "k3x9",
        "name": "Kitchen table",
        "rules": {"preset": "seed"},
        "hands": 10,
        "hands_played": 3,
        "state": "playing",
        "password": False,
        "seats": [{"kind": "human"}] * 2 + [{"kind": "bot"}] * 3,
        "spectators": 1,
    },
    {
        "id": "w7a2",
        "name": "Wisconsin rules",
        "host": "Ann",
        "turn_timer": 30.0,  # as the server sends it: the detail read "30.0 s turns"
        "rules": {"preset": "wisconsin", "no_pick": "doubler"},
        "hands": None,
        "hands_played": 0,
        "state": "waiting",
        "password": True,
        "seats": [{"kind": "human", "name": "Ann", "connected": True}]
        + [{"kind": "bot", "name": "Random bot 1", "strategy": "random"}]
        + [{"kind": "empty"}] * 3,
        "spectators": 0,
    },
    {
        "id": "q1b4",
        "name": "Friday night",
        "rules": {"preset": "seed"},
        "hands": 5,
        "hands_played": 5,
        "state": "over",
        "password": False,
        "seats": [{"kind": "human"}] * 5,
        "spectators": 0,
    },
]


def test_lobby(snap_compare: Any) -> None:
    """The lobby listing three tables, the second one highlighted."""

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.screen.show_tables(LOBBY_TABLES)  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(SheepsheadApp(mode="join"), terminal_size=SIZE, run_before=run_before)


def test_your_turn_mid_trick(snap_compare: Any) -> None:
    """Your turn to play, two cards already in the trick, legal cards highlighted."""
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(mid_trick()))


def test_bury_dialog(snap_compare: Any) -> None:
    """You picked: the bury dialog with two cards chosen."""
    _, messages = picked()
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(messages, "2", "7"))


def test_call_dialog(snap_compare: Any) -> None:
    """After the bury: the calls the server allows, each with your hold cards, and alone."""
    _, messages = buried()
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(messages))


def test_hand_result(snap_compare: Any) -> None:
    """The result panel: sides' points, stake, payouts, every hand revealed."""
    table = EngineTable(seed=11, dealer=1, me=0, rules=RuleSet.from_preset("wisconsin"))
    messages = table.messages()
    while not table.hand.is_over:
        messages += table.apply(table.hand.legal_actions()[0].to_dict())
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(messages))


def test_help(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The help screen lists every key (Ctrl+Z too: a player's terminal, run from a shell, not
    the test runner's process group, whatever it is)."""
    monkeypatch.setattr(client.terminal, "can_suspend", lambda: True)
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(mid_trick(), "question_mark"))


def test_finished_trick(snap_compare: Any) -> None:
    """The first trick just completed: all five cards, the winner's reversed, who took it."""
    table = EngineTable(seed=7, dealer=2, me=0)
    messages = table.messages()
    hand = table.hand
    while not (hand.phase == "play" and len(hand.tricks) == 1 and not hand.current):
        messages += table.apply(hand.legal_actions()[0].to_dict())
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(messages))


def test_score_sheet(snap_compare: Any) -> None:
    """The score sheet (k) after three hands: picker, partner, points, payouts and totals."""
    table = EngineTable(seed=21, dealer=4, me=0, hands_limit=3)
    messages = table.messages() + table.play_out()
    for seed in (22, 23):
        messages += table.next_hand(seed=seed) + table.play_out()
    app = SheepsheadApp(mode="play")
    assert snap_compare(app, terminal_size=SIZE, run_before=fed(messages, "escape", "k"))
