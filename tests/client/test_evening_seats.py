"""Seats at a club evening as the players see them when someone leaves mid-match."""

from __future__ import annotations

from client.app import SheepsheadApp
from client.widgets.table import SeatBox
from tests.client.feed import EngineTable
from tests.client.test_screens import fed

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
        table.state = "over"  # after the match nobody plays it: it is simply empty
        await fed(pilot, table.messages())
        text = str(box.render())
        assert "empty" in text and "bot plays" not in text and "score" not in text, text


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
