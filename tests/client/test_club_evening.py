"""A club evening at 80x24, seen by its players and watchers: each thing found by playing and
watching in a terminal, pinned by a Pilot test (fed by the engine, or end to end against the
real server where the table's events matter)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import RichLog
from textual.widgets._toast import Toast

from client.app import SheepsheadApp
from client.settings import ClientSettings
from client.widgets.cards import card_label
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import wait_for
from tests.client.test_screens import fed, screen_text

SIZE = (80, 24)


def settings(**changes: Any) -> ClientSettings:
    """Test settings (no bell, no trick pause) with some changed."""
    return ClientSettings(bell=False, trick_pause=0.0).with_overrides(**changes)


async def test_the_hint_never_shows_a_negative_zero() -> None:
    # The coach's mean of -0.04 for passing read "Hint: pass (−0.0 over 40 deals)".
    reply = {
        "type": "ok",
        "deals": 40,
        "candidates": [
            {"action": {"action": "pass"}, "value": -0.04},
            {"action": {"action": "pick"}, "value": -0.02, "se": 0.3},
        ],
    }
    session = FakeSession({"hint": reply})
    table = EngineTable(seed=3, dealer=4, me=0, hints=True)
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await wait_for(pilot, lambda: "i: hint" in screen_text(app))
        await pilot.press("i")
        await wait_for(pilot, lambda: "over 40 deals" in screen_text(app))
        line = next(x for x in screen_text(app).splitlines() if "Hint:" in x)
        assert "−0.0" not in line and "-0.0" not in line, line
        assert "0.0" in line, line


def one_card_to_play() -> EngineTable:
    """Seed 6: your first card of the hand, six held, and only one of them may follow."""
    table = EngineTable(seed=6, dealer=2, me=0, hints=True)
    hand = table.hand
    while not (hand.phase == "play" and hand.turn == 0):
        table.apply(hand.legal_actions()[0].to_dict())
    assert len(hand.legal_actions()) == 1
    return table


@pytest.mark.parametrize("confirm", [False, True])
async def test_the_status_line_names_only_the_playable_cards_keys(confirm: bool) -> None:
    # Following suit with one card of six, it said "play a card: 1-6": five keys refused.
    table = one_card_to_play()
    (only,) = [a.to_dict()["card"] for a in table.hand.legal_actions()]
    app = SheepsheadApp(mode="play", settings=settings(confirm_cards=confirm))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await wait_for(pilot, lambda: "i: hint" in screen_text(app))
        key = app.model.hand.index(only) + 1
        line = screen_text(app).splitlines()[-2]
        assert "1-6" not in line, line
        assert f"{key} ({card_label(only)})" in line, line
        assert line.rstrip().endswith("i: hint"), line  # all of it on the one line


@pytest.mark.parametrize("size", [SIZE, (110, 30), (130, 44)])
async def test_a_pop_up_lies_over_the_log_and_covers_no_seat(size: tuple[int, int]) -> None:
    # At 80x24 a pop-up 40 columns wide covered the top right seat box (who sat there, their
    # score) for the four seconds it stayed.
    table = EngineTable(seed=3, dealer=4, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=size, notifications=True) as pilot:
        await fed(pilot, table.messages())
        app.notify(
            "Only the host can start the match, free a seat or start a rematch.",
            title="Not the host",
        )
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        await pilot.pause()
        log = app.screen.query_one(RichLog).region
        needed = [w.region for w in app.screen.query("#felt > *, #hand, #status, #topbar")]
        for toast in app.screen.query(Toast):
            box = toast.region
            assert box.height > 0 and box.y >= 1, box  # seen, under the title bar
            assert box.x >= log.x and box.right <= log.right, (box, log)
            assert box.bottom <= log.bottom, (box, log)
            for region in needed:
                assert not box.overlaps(region), (box, region)
