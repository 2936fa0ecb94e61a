"""The lobby's standings screen (s) against a real server whose players finished matches."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from client.app import SheepsheadApp
from client.screens import standings as standings_screen
from client.screens.lobby import LobbyScreen
from client.screens.result import MatchOverScreen
from client.screens.standings import StandingsScreen
from client.session import Session
from tests.client.feed import EngineTable
from tests.client.test_club_table import whole_hand
from tests.client.test_screens import fed, screen_text
from tests.server.support import play_until, running_server, session

SIZE = (80, 24)


async def solo_match(player: Session, hands: int) -> None:
    """``player`` and four random server bots play a match to its end."""
    await player.request("create_table", name="m", preset="seed", options={}, hands=hands)
    for _ in range(4):
        await player.request("add_bot", strategy="random")
    await player.request("start")
    await play_until(player, "match_over", [], random.Random(3), timeout=60)
    await player.request("leave")


async def until(pilot: Pilot[Any], condition: Any, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, screen_text(pilot.app)
        await pilot.pause(0.05)


async def standings_opened(pilot: Pilot[Any], app: SheepsheadApp) -> StandingsScreen:
    """From the lobby, s: the standings screen once it shows (its answer may not be in yet)."""
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, StandingsScreen))
    screen = app.screen
    assert isinstance(screen, StandingsScreen)
    return screen


async def test_the_lobby_shows_the_standings_by_total_and_per_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_screen, "MIN_HANDS", 2)
    async with running_server() as server:
        ann = session(server, "Ann", tmp_path, player_key="a" * 32)
        bob = session(server, "Bob", tmp_path, player_key="b" * 32)
        for s in (ann, bob):
            await s.connect()
        await solo_match(ann, hands=2)
        await solo_match(bob, hands=1)
        reply = await ann.request("standings")
        for s in (ann, bob):
            await s.close()
        by_total = [row["player"] for row in reply["players"]]
        assert sorted(by_total) == ["Ann", "Bob", "random"]

        # Bob looks, on his own key: his row says it is his (two players of one name could
        # not tell which "Ann·…" row was theirs).
        viewer = session(server, "Bob", tmp_path, player_key="b" * 32)
        await viewer.connect()
        app = SheepsheadApp(viewer, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            screen = await standings_opened(pilot, app)
            await until(pilot, lambda: screen.loaded)
            await pilot.pause()
            text = screen_text(app)
            assert "by total payout" in text
            assert "Bob (you)" in text and "Ann (you)" not in text, text
            # A bot's row is its strategy's, named as the match-over panel names a table's
            # bot ("Ole (random bot)"), not "random (bot)" as if "random" were its name.
            shown = [n if n != "random" else "random bot" for n in by_total]
            positions = [text.index(name) for name in shown]
            assert positions == sorted(positions)  # in the server's order: best total first
            # Per hand: only those with at least MIN_HANDS (2) hands; Bob played one.
            await pilot.press("tab")
            await pilot.pause()
            text = screen_text(app)
            assert "by payout per hand (at least 2 hands)" in text
            assert "Ann" in text and "random bot" in text and "Bob" not in text
            ann_row = next(r for r in reply["players"] if r["player"] == "Ann")
            assert f"{ann_row['per_hand']:+.2f}" in text
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await viewer.close()


async def test_standings_of_a_new_server_say_so(tmp_path: Path) -> None:
    async with running_server() as server:
        # Bob looks, on his own key: his row says it is his (two players of one name could
        # not tell which "Ann·…" row was theirs).
        viewer = session(server, "Bob", tmp_path, player_key="b" * 32)
        await viewer.connect()
        app = SheepsheadApp(viewer, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await standings_opened(pilot, app)
            await until(pilot, lambda: "No finished matches yet" in screen_text(app))
        await viewer.close()


def people_matches(store: Any, finished: float) -> None:
    """One ended match of one hand: Ann +6, Bob -4, Cy -2, two bots 0 (written straight in)."""
    from server.storage.store import SeatRow

    table = store.create_table({"name": "evening"}, created=0.0)
    for seat, name in enumerate(["Ann", "Bob", "Cy"]):
        token = f"token-{name}-{finished}"
        store.save_seat(table, seat, SeatRow(seat, "human", name, None, "human", token))
        store.note_identity(f"id-{name}", "key", name=name)
        store.link_seat(token, f"id-{name}")
    for seat in (3, 4):
        store.save_seat(table, seat, SeatRow(seat, "bot", f"B{seat}", "random", None, None))
    store.save_hand(table, 0, {}, [6, -4, -2, 0, 0], finished=finished)
    store.save_results(table, [], hands=1, finished=finished)
    store.commit()


async def test_tonight_and_settling_up_at_a_stake(tmp_path: Path) -> None:
    """n shows tonight's standings (none here: the match ended before the server started, as
    far as it is told) and back; m settles up in money at a stake that + and - change; both
    keys are in the footer at 80 x 24."""
    import time

    async with running_server() as server:
        assert server.store is not None
        people_matches(server.store, time.time() - 60)
        server.players.started = time.time()
        viewer = session(server, "Dee", tmp_path)
        await viewer.connect()
        app = SheepsheadApp(viewer, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            screen = await standings_opened(pilot, app)
            await until(pilot, lambda: screen.loaded)
            text = screen_text(app)
            footer = text.splitlines()[-1]
            assert "Tonight" in footer and "Settle up" in footer, footer
            assert "Ann" in text and "Standings · by total payout" in text
            await pilot.press("n")
            await until(pilot, lambda: screen.loaded)
            await until(pilot, lambda: "No match has ended tonight yet" in screen_text(app))
            assert "Tonight · by total payout" in screen_text(app)
            # The footer says what n does now: it said "n Tonight" over tonight's list.
            footer = screen_text(app).splitlines()[-1]
            assert "n All matches" in footer and "Tonight" not in footer, footer
            # Which matches tonight counted and why, as the server words it, whole at 80
            # columns (before, the screen did not say where "tonight" began).
            window = server.players.tonight(time.time())["text"].splitlines()
            lines = [line.strip() for line in screen_text(app).splitlines()]
            assert window[0].split(" to ")[0] in lines[1], lines
            assert window[1].strip() in lines, lines
            assert "since the server on this database started, at" in window[1]
            await pilot.press("n")
            await until(pilot, lambda: screen.loaded and "Ann" in screen_text(app))
            assert "tonight: matches" not in screen_text(app)  # all time: no window
            await pilot.press("m")
            await until(pilot, lambda: "settle up at $0.25 a point" in screen_text(app))
            text = screen_text(app)
            assert "Bob pays Ann $1.00" in text and "Cy pays Ann $0.50" in text
            # m goes back to the list (it said "m Settle up"), and Tab, which ranked the
            # hidden list with nothing to see, is not offered.
            footer = text.splitlines()[-1]
            assert "m List" in footer and "Settle up" not in footer, footer
            assert "Total/hand" not in footer and "n Tonight" in footer, footer
            await pilot.press("plus")
            await until(pilot, lambda: "Bob pays Ann $2.00" in screen_text(app))
            assert "Cy pays Ann $1.00" in screen_text(app)
            await pilot.press("minus", "minus")
            await until(pilot, lambda: "Bob pays Ann $0.40" in screen_text(app))
            await pilot.press("m")
            await until(pilot, lambda: "pays" not in screen_text(app))
            assert "m Settle up" in screen_text(app).splitlines()[-1]
        await viewer.close()


async def test_the_match_over_standings_name_each_bot_by_its_seat_and_its_strategy() -> None:
    """A club evening's table called its bots "Gus" and "Ole", and the standings then listed
    "heuristic (bot)": nothing said which of the table's bots went into that row. The match's
    own standings name a bot as the table did, with the words of its all-time row."""
    table = EngineTable(seed=11, dealer=1, me=0, hands_limit=1, bots=(1, 2, 3))
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(80, 30)) as pilot:
        await fed(pilot, [*whole_hand(table), table.match_over()])
        app.push_screen(MatchOverScreen())
        await until(pilot, lambda: isinstance(app.screen, MatchOverScreen))
        await pilot.pause()
        text = screen_text(app)
        for seat in (1, 2, 3):
            assert f"{table.names[seat]} (random bot)" in text, text
        assert f"{table.names[4]} (" not in text  # a person: no strategy
        assert f"{table.names[0]} (you)" in text


def test_ranked_per_hand_the_line_under_the_list_says_who_is_left_out() -> None:
    """At a club evening Tab left one bot of six players, and the line under the list was
    the column legend: five players gone, with only the title's "(at least 10 hands)"."""
    from client.screens.standings import standings_hint

    assert standings_hint(6, 1, tonight=True) == (
        "5 players with fewer than 10 hands are not ranked here: Tab ranks by total."
    )
    assert standings_hint(2, 1, tonight=False).startswith("1 player with fewer than 10 hands is")
    assert standings_hint(6, 6, tonight=False).startswith("Pick: share of hands picked")
    assert standings_hint(6, 0, tonight=False).startswith("Nobody has played 10 hands yet")


def test_two_players_of_one_name_are_two_rows_and_two_people_to_settle() -> None:
    """At a club evening two players went by "bob" (two SSH keys): the standings showed two
    rows "bob" nobody could tell apart, and settling up keyed the totals by name, so one
    bob's total replaced the other's (here Ann was told to pay the bob who lost)."""
    from client.screens.standings import settle_lines, shown_names

    rows = [
        {"player": "bob", "kind": "ssh", "tag": "SHA256:Bog0GwduGdMV", "total": 4},
        {"player": "ann", "kind": "ssh", "tag": "SHA256:jqi3vCCXkhY1", "total": -2},
        {"player": "heuristic", "kind": "bot", "tag": "heuristic", "total": 0},
        {"player": "bob", "kind": "key", "tag": "3b295660", "total": -2},
    ]
    assert shown_names(rows) == ["bob·Bog0Gw", "ann", "heuristic bot", "bob·3b2956"]
    # A long name shared is cut to keep the tag in the Player column (the column cut the tag).
    long = [{"player": "Bartholomew Smith", "tag": tag} for tag in ("a1b2c3d4", "e5f6a7b8")]
    assert shown_names(long, 16) == ["Bartholo…·a1b2c3", "Bartholo…·e5f6a7"]
    assert settle_lines(rows, 100) == [
        "ann pays bob·Bog0Gw $2.00",
        "bob·3b2956 pays bob·Bog0Gw $2.00",
    ]


def test_one_point_not_settled_is_one_point() -> None:
    """The club evening's settling up said "Not settled: 1 points the people won from the
    bots and unremembered players."."""
    from client.screens.standings import settle_lines

    rows = [
        {"player": "eve", "kind": "key", "total": 3},
        {"player": "ann", "kind": "ssh", "total": -2},
        {"player": "heuristic", "kind": "bot", "total": -1},
    ]
    assert settle_lines(rows, 25)[-1] == (
        "Not settled: 1 point the people won from the bots and unremembered players."
    )
