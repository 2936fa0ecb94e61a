"""A club evening at 80x24, seen by its players and watchers: each thing found by playing and
watching in a terminal, pinned by a Pilot test (fed by the engine, or end to end against the
real server where the table's events matter)."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import RichLog
from textual.widgets._toast import Toast

from client.app import SheepsheadApp
from client.screens.dialogs import ConfirmDialog
from client.screens.lobby import LobbyScreen
from client.screens.result import MatchOverScreen, ResultScreen, ScoreSheetScreen
from client.screens.table import TableScreen
from client.settings import ClientSettings
from client.widgets.cards import card_label
from server.app import Server
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import Player, seated_with_bots, session_for, wait_for
from tests.client.test_screens import fed, screen_text
from tests.server.support import play_until

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


# ---------------------------------------------------------------------- against the server


async def test_the_score_sheet_names_the_stake_the_result_said(
    server: Server, tmp_path: Path
) -> None:
    # The result said "stake 3 per player"; the sheet's "×" column, "× the stakes" in its
    # legend, was blank for that hand (it held only the doublings).
    session = await session_for(server, tmp_path)
    await session.request(
        "create_table", name="club", preset="wisconsin", options={}, hands=3, password=None
    )
    for _ in range(4):
        await session.request("add_bot", seat=None, strategy="random")
    await session.request("start")
    app = SheepsheadApp(session, mode="join")
    said: dict[int, str] = {}  # hand number → the result panel's text
    async with app.run_test(size=SIZE) as pilot:
        player = Player(pilot)
        while len(said) < 3:
            screen = app.screen
            if isinstance(screen, ResultScreen) and screen.hand.number not in said:
                await wait_for(pilot, lambda: "per player" in screen_text(app))
                said[screen.hand.number] = screen_text(app)
            await player.step()
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen | MatchOverScreen))
        if isinstance(app.screen, MatchOverScreen):
            await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await pilot.pause()
        sheet = screen_text(app)
        assert "stk: the stake per player" in sheet, sheet
        for number, text in said.items():
            row = next(x for x in sheet.splitlines() if re.match(rf"│ +{number} .* =[+-]\d", x))
            stake = re.search(r"stake (\d+) per player", text)
            assert stake is not None, text  # we pick when asked: no leaster
            doubled = re.search(r"(?:stakes|bump) ×(\d+)(?: in all)?(?! ·.*×)", text)
            expected = stake.group(1) + (f"×{doubled.group(1)}" if doubled else "")
            assert f" {expected} " in row, (expected, row, text)


async def test_everyone_reads_who_left_the_seat_the_host_freed(
    server: Server, tmp_path: Path
) -> None:
    # The host's - changed the seat box to "empty" and the log said nothing: a watcher (or a
    # player) looking away from the seat never learned that Gus had gone.
    host = await session_for(server, tmp_path, name="Ann")
    table = await seated_with_bots(host, hands=3)
    eve = await session_for(server, tmp_path / "eve", name="Eve")
    app = SheepsheadApp(eve, mode="watch", watch_table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        gone = app.model.seats[4].name
        await host.request("remove_bot", seat=4)
        line = f"Ann freed seat 4: {gone} (bot) left"
        await wait_for(pilot, lambda: any(e.text == line for e in app.model.log))
        await wait_for(pilot, lambda: "freed seat 4" in screen_text(app))
    await eve.close()
    await host.close()


async def test_the_hosts_own_log_says_the_seat_it_freed(server: Server, tmp_path: Path) -> None:
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=3)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        gone = app.model.seats[4].name
        await pilot.press("minus")
        line = f"You freed seat 4: {gone} (bot) left"
        await wait_for(pilot, lambda: any(e.text == line for e in app.model.log))
        await pilot.pause()
        assert sum("freed seat" in e.text for e in app.model.log) == 1
    await session.close()


# ---------------------------------------------------------------------- watching


async def back_to_the_lobby(pilot: Any) -> None:
    """Close whatever panel is up, then Esc and yes: the lobby."""
    app: Any = pilot.app
    while not isinstance(app.screen, TableScreen):
        await pilot.press("escape")
        await pilot.pause()
    await pilot.press("escape")
    await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
    await pilot.press("y")
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_watching_a_table_again_brings_back_its_finished_hands(
    server: Server, tmp_path: Path
) -> None:
    # Wendy watched, went back to the lobby and watched the same table again: its score sheet
    # said "No hand has finished yet in this match" (the history was asked for once per
    # table, and the lobby had forgotten it).
    host = await session_for(server, tmp_path, name="Ann")
    await seated_with_bots(host, hands=2)
    playing = asyncio.create_task(play_until(host, "match_over", [], random.Random(5), timeout=60))
    eve = await session_for(server, tmp_path / "eve", name="Wendy")
    app = SheepsheadApp(eve, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables)
        await pilot.press("w")
        await wait_for(pilot, lambda: app.model.table is not None and app.model.seats[0].name)
        await playing
        await wait_for(pilot, lambda: app.model.match_over is not None)
        await wait_for(pilot, lambda: len(app.model.history) == 2)
        await back_to_the_lobby(pilot)
        await wait_for(pilot, lambda: app.screen.tables)
        await pilot.press("w")
        await wait_for(pilot, lambda: app.model.match_over is not None)
        await wait_for(pilot, lambda: [h.number for h in app.model.history] == [1, 2])
        while not isinstance(app.screen, TableScreen):
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
        await pilot.pause()
        assert "No hand has finished" not in screen_text(app)
    await eve.close()
    await host.close()
