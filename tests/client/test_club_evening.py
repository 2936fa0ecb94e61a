"""A club evening at 80x24, seen by its players and watchers: each thing found by playing and
watching in a terminal, pinned by a Pilot test (fed by the engine, or end to end against the
real server where the table's events matter)."""

from __future__ import annotations

from client.app import SheepsheadApp
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import wait_for
from tests.client.test_screens import fed, screen_text

SIZE = (80, 24)


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
