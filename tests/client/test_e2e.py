"""The client against the real server over real sockets, driven by key presses (Pilot).

Every test starts a :class:`server.app.Server` on 127.0.0.1 port 0 with bots that act at once and
no pause between hands; what is waited for is always a model or screen condition, with a timeout,
never a fixed sleep.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Select

from client import config
from client import join as join_command
from client import play as play_command
from client.app import SheepsheadApp
from client.config import CLIENT_NAME
from client.screens import lobby as lobby_screen
from client.screens.dialogs import BuryDialog, CallDialog, ConfirmDialog, CreateTableDialog
from client.screens.lobby import LobbyScreen
from client.screens.result import ResultScreen
from client.screens.table import TableScreen, TopBar
from client.session import ConnectionLost, Session, TokenStore
from engine.record import replay_record
from server.app import Server
from tests.server.support import Raw, running_server

SIZE = (80, 24)


async def session_for(
    server: Server,
    tmp_path: Path,
    name: str = "Ann",
    *,
    player_key: str | None = None,
    tokens: str = "tokens.json",
) -> Session:
    """A connected client session (``tokens``: its seat tokens file in ``tmp_path``)."""
    session = Session(
        "127.0.0.1",
        server.port,
        name=name,
        client_name=CLIENT_NAME,
        token_store=TokenStore(tmp_path / tokens),
        min_backoff=0.05,
        player_key=player_key,
    )
    await session.connect()
    return session


async def seated_with_bots(
    session: Session,
    hands: int | None = 10,
    *,
    name: str = "test",
    password: str | None = None,
    **create: Any,
) -> str:
    """``session`` opens a table of ``name`` and seats four random server bots; the match is
    started. Returns the table's id. ``create``: more of ``create_table``'s fields (e.g.
    ``grace=0.0``: a stand-in plays a seat whose player is away)."""
    reply = await session.request(
        "create_table",
        name=name,
        preset="seed",
        options={},
        hands=hands,
        password=password,
        **create,
    )
    for _ in range(4):
        await session.request("add_bot", seat=None, strategy="random")
    await session.request("start")
    return str(reply["table"])


def play_options(memory: bool, **changes: Any) -> argparse.Namespace:
    """``sheepshead play`` options for a short local match against random bots (three hands,
    the seed preset); ``changes`` set any of them."""
    return argparse.Namespace(
        **{
            "bots": "random",
            "preset": "seed",
            "hands": 3,
            "bot_delay": 0.0,
            "memory": memory,
            "new": False,
            **changes,
        }
    )


@contextlib.asynccontextmanager
async def local_game(args: argparse.Namespace) -> AsyncIterator[tuple[Any, Any]]:
    """``sheepshead play``'s server and session for ``args`` (Ann at a started match, as
    :func:`client.play.start_local` sets up), asserted to start; both stopped when done."""
    server, session, error = await play_command.start_local(args, "Ann")
    assert error is None, error
    try:
        yield server, session
    finally:
        await session.close()
        await server.stop()


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], timeout: float = 30, what: str | None = None
) -> None:
    """Polls ``condition`` until it holds; on timeout says ``what`` was awaited (a lambda has no
    name of its own, so without ``what`` the failure only shows its repr)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            awaited = what or condition.__doc__ or condition
            raise AssertionError(f"timed out after {timeout} s waiting for {awaited}")
        await pilot.pause(0.02)


class Player:
    """Answers whatever the table asks with keys, the way a person at the keyboard would."""

    def __init__(self, pilot: Pilot[Any]) -> None:
        self.pilot = pilot
        self.app: Any = pilot.app
        self.seen: set[str] = set()
        self.results: list[dict[str, Any]] = []
        self.pending: tuple[str | None, int | None] | None = None
        """A bury or call decision waiting with no dialog up, and since when."""
        self.pending_since = 0.0

    async def step(self) -> None:
        app, press = self.app, self.pilot.press
        screen = app.screen
        model = app.model
        if isinstance(screen, ResultScreen):
            self.seen.add("result")
            self.results.append(screen.hand.result)
            await press("enter")
        elif isinstance(screen, BuryDialog):
            self.seen.add("bury")
            # A dialog reopened for the same bury keeps the cards chosen in it before: choose
            # only what is missing (toggling 1 and 2 again would unchoose them, for ever).
            missing = [str(i + 1) for i, c in enumerate(screen.hand) if c not in screen.chosen]
            await press(*missing[: max(0, 2 - len(screen.chosen))], "enter")
        elif isinstance(screen, CallDialog):
            self.seen.add("call")
            calls = [a for a in screen.actions if a.get("action") != "alone"]
            await press("1" if calls else "a")
        elif isinstance(screen, ConfirmDialog) and "Go alone" in screen.question:
            await press("y")
        elif model.decision == "pick":
            await press("p")
        elif model.decision in ("bury", "call") and isinstance(screen, TableScreen):
            # The dialog opens by itself when the decision arrives. Right after an answer the
            # old prompt is still pending for a moment; a dialog that stays away for a second
            # is opened as a person would, with its key.
            now = asyncio.get_running_loop().time()
            pending = (model.decision, model.prompt.seq if model.prompt else None)
            if self.pending != pending:
                self.pending, self.pending_since = pending, now
            elif now - self.pending_since > 1.0:
                self.seen.add(f"{model.decision} by key")
                self.pending_since = now
                await press("b" if model.decision == "bury" else "c")
            await self.pilot.pause(0.02)
        elif model.decision == "play":
            # No card is chosen when the turn comes: → chooses the first playable one.
            await press("right", "enter")
        else:
            await self.pilot.pause(0.02)

    async def until(self, condition: Callable[[], bool], timeout: float = 60) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            if loop.time() > deadline:
                model = self.app.model
                raise AssertionError(
                    f"timed out; seen {self.seen}; on {type(self.app.screen).__name__}, "
                    f"decision {model.decision}, phase {model.phase}, turn {model.turn}"
                )
            await self.step()


async def test_lobby_create_bots_start_and_play_until_we_picked(
    server: Server, tmp_path: Path
) -> None:
    """Create a table in the lobby, seat bots, start, and play hands by keys until we picked.

    We press pick whenever asked; the first speaker rotates with the deal, so within five hands
    we are asked first and pick, then bury and call through their dialogs.
    """
    session = await session_for(server, tmp_path)
    app = SheepsheadApp(session, mode="join", export_dir=tmp_path / "hands")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.seats)
        assert app.model.table_state == "waiting" and app.model.is_host
        for _ in range(4):
            await pilot.press("plus")
        await wait_for(pilot, lambda: sum(s.is_bot for s in app.model.seats) == 4)
        await pilot.press("g")
        await wait_for(pilot, lambda: app.model.view is not None)
        player = Player(pilot)
        me = app.model.my_seat
        assert me == 0

        def picked_hand_done() -> bool:
            return any(r.get("picker") == me for r in player.results)

        await player.until(picked_hand_done, timeout=40)
        assert {"bury", "call", "result"} <= player.seen
        assert len(app.model.history) == len(player.results)
        assert sum(app.model.totals) == 0
        mine = next(h for h in app.model.history if h.result.get("picker") == me)
        assert replay_record(mine.to_record())["payouts"] == mine.result["payouts"]

        # Export the latest hand: a record file that replays to the shown result.
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("x")
        await wait_for(pilot, lambda: any((tmp_path / "hands").glob("*.json")))
        path = next((tmp_path / "hands").glob("*.json"))
        record = json.loads(path.read_text(encoding="utf-8"))
        last = app.model.history[-1]
        replayed = replay_record(record)
        assert replayed == {k: last.result[k] for k in replayed}
    await session.close()


async def test_dropped_connection_is_shown_and_the_seat_taken_back(
    server: Server, tmp_path: Path
) -> None:
    session = await session_for(server, tmp_path)
    await seated_with_bots(session)
    app = SheepsheadApp(session, mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.prompt is not None)
        statuses: list[str] = []
        app.watch(app, "status", lambda new: statuses.append(new), init=False)
        seq_before = app.model.seq
        for conn in list(server.connections):
            conn.transport.abort()
        await wait_for(pilot, lambda: "reconnecting" in statuses)
        await wait_for(pilot, lambda: app.status == "connected" and app.model.prompt is not None)
        top = str(app.screen.query_one(TopBar).render())
        assert "connected" in top and "reconnecting" not in top
        assert app.model.seq >= seq_before
        log = [e.text for e in app.model.log]
        assert "Connection lost: reconnecting…" in log and "Reconnected" in log
        # The seat is ours again: keep playing until a hand is over.
        player = Player(pilot)
        await player.until(lambda: bool(player.results), timeout=20)
    await session.close()


async def test_a_restarted_client_rejoins_its_seat(server: Server, tmp_path: Path) -> None:
    key = "ann-s-player-key-on-every-device"
    first = await session_for(server, tmp_path, player_key=key)
    table = await seated_with_bots(first)
    hand_before = None
    app = SheepsheadApp(first, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.hand)
        hand_before = list(app.model.hand)
    await first.close()  # a crash: no leave, the token stays in the store

    second = await session_for(server, tmp_path, player_key=key)
    assert second.table == table
    app = SheepsheadApp(second, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.hand)
        assert app.model.table == table and app.model.my_seat == 0
        assert app.model.hand == hand_before
    await second.close()

    # A new laptop: the same player key, no seat tokens. The first listing shows one table
    # keeping the key's seat, still connected (the old device's connection, dropped without a
    # word, is not seen gone yet: a browser tab reloaded while its network was down); once
    # it is away, the client takes it back by itself, as a token would.
    old_device = await session_for(server, tmp_path, player_key=key)
    assert old_device.table == table
    third = await session_for(server, tmp_path, player_key=key, tokens="new-laptop.json")
    assert third.table is None
    app = SheepsheadApp(third, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables)
        assert app.take_back_by_key  # waiting: the seat is connected elsewhere
        await old_device.close()
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.hand)
        assert app.model.table == table and app.model.my_seat == 0
        assert "Taking your seat back at test" in [n.message for n in app._notifications]
        # The same key leaves a second table away (another device), and this one crashes.
        other = await session_for(server, tmp_path, player_key=key, tokens="other.json")
        second_table = (await other.request("create_table", name="second"))["table"]
        await other.close()
    await third.close()

    # Two tables keep the key's seat away: the lobby marks both (they look full) and leaves
    # the choice to the player; Enter takes the highlighted one back.
    fourth = await session_for(server, tmp_path, player_key=key, tokens="fourth.json")
    app = SheepsheadApp(fourth, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        away = [t["id"] for t in lobby.tables if t.get("yours", {}).get("away") is True]
        assert sorted(away) == sorted([table, second_table])
        assert not app.take_back_by_key and isinstance(app.screen, LobbyScreen)
        row = [t["id"] for t in lobby.tables].index(table)
        lobby.query_one(DataTable).move_cursor(row=row)
        await pilot.pause()
        grid = lobby.query_one(DataTable)
        assert str(grid.get_cell_at(Coordinate(row, 3))) == "yours (away)"
        hint = str(lobby.query_one("#lobby-hint").render())
        assert "Your seat 0 (away): Enter takes it back" in hint
        assert "(yours, away)" in str(lobby.query_one("#lobby-detail").render())
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.hand)
        assert app.model.table == table and app.model.my_seat == 0
        assert server.lobby.tables[second_table].seats[0].peer is None  # still away
    await fourth.close()


async def test_watch_a_table(server: Server, tmp_path: Path) -> None:
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host)
    watcher = await session_for(server, tmp_path, name="Eve")
    app = SheepsheadApp(watcher, mode="watch", watch_table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        assert app.model.my_seat is None and app.model.hand == []
        # The status line is redrawn on the next refresh after the view arrives.
        await wait_for(
            pilot, lambda: str(app.screen.query_one("#status").render()).startswith("Watching")
        )
        await pilot.press("escape", "y")  # stop watching: the lobby, not an empty screen
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: not server.lobby.tables[table].spectators)
    await watcher.close()
    await host.close()


async def test_a_watcher_watches_again_after_its_connection_drops(
    server: Server, tmp_path: Path
) -> None:
    # A watcher has no seat token: its welcome names no table, and its session kept the old
    # table's id, so the reconnect never sent watch again and the table froze on its screen.
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host)
    watcher = await session_for(server, tmp_path, name="Eve")
    await watcher.request("watch", table=table)
    spectators = server.lobby.tables[table].spectators
    loop = asyncio.get_running_loop()

    async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
        deadline = loop.time() + timeout
        while not condition():
            assert loop.time() < deadline, "timed out"
            await asyncio.sleep(0.01)

    await until(lambda: any(p.name == "Eve" for p in spectators))
    for conn in list(server.connections):
        if conn.name == "Eve":
            conn.transport.abort()
    await until(lambda: not any(p.name == "Eve" for p in spectators))
    await until(lambda: watcher.status == "connected" and any(p.name == "Eve" for p in spectators))
    # The server counts the watcher before its reply reaches the session, which names the
    # table once it has read it (a loaded machine read the table between the two).
    await until(lambda: watcher.table == table)
    assert watcher.seat is None
    await watcher.close()
    await host.close()


async def test_watching_a_table_that_is_not_there_opens_the_lobby(
    server: Server, tmp_path: Path
) -> None:
    """It showed an empty table named "table", and Esc then left a blank screen."""
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host)
    watcher = await session_for(server, tmp_path, name="Eve")
    app = SheepsheadApp(watcher, mode="watch", watch_table="t999")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("t999" in n.message for n in app._notifications))
        assert isinstance(app.screen, LobbyScreen)
        lobby = app.screen
        await wait_for(pilot, lambda: [t.get("id") for t in lobby.tables] == [table])
        assert "Enter watches the highlighted table" in str(lobby.query_one("#lobby-hint").render())
        await pilot.press("enter")  # watch mode: Enter watches the highlighted table
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        assert app.model.table == table and app.model.my_seat is None
    await watcher.close()
    await host.close()


async def test_play_command_sets_up_a_started_table_with_four_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))
    args = play_options(True, preset="wisconsin", hands=2)
    async with local_game(args) as (_server, session):
        app = SheepsheadApp(session, mode="play")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.model.view is not None)
            assert isinstance(app.screen, TableScreen)
            assert [s.kind for s in app.model.seats] == ["human"] + ["bot"] * 4
            assert app.model.info["rules"]["preset"] == "wisconsin"
            assert app.model.info["hands"] == 2


def test_join_says_clearly_when_the_server_is_unreachable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = argparse.Namespace(address=f"127.0.0.1:{port}", name="Ann", command="join")
    assert join_command.run(args) == 1
    err = capsys.readouterr().err
    assert f"cannot reach 127.0.0.1:{port}" in err and "Traceback" not in err
    bad = argparse.Namespace(address="127.0.0.1:http", name="Ann", command="join")
    assert join_command.run(bad) == 2
    assert "bad port" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["", "   "])
def test_an_empty_name_is_an_error_not_the_login_name(
    given: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # --name "" silently took the login name, as if --name were left out.
    monkeypatch.setattr(config, "default_name", lambda: "olaf")
    for run in (join_command.run, play_command.run):
        args = argparse.Namespace(address="127.0.0.1:1", name=given, command="join")
        assert run(args) == 2
        err = capsys.readouterr().err
        assert "--name is empty: give a name, or leave --name out to use olaf" in err


def test_a_name_of_invisible_characters_is_an_error_before_connecting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # play said "cannot set up the local table: bad_request: field 'name' must contain
    # printable characters" (exit 1); join went on to the server, which refused it.
    for run in (join_command.run, play_command.run):
        args = argparse.Namespace(address="127.0.0.1:1", name="\u200b\u2060", command="join")
        assert run(args) == 2
        assert "shows nothing (only invisible characters)" in capsys.readouterr().err


async def test_join_says_why_the_server_refused_the_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A venue's 17th connection from one address: the server answers too_many_connections
    # (with no id) and closes; the player read "the connection to the server was lost".
    monkeypatch.setenv("SHEEPSHEAD_CONFIG_DIR", str(tmp_path))
    async with running_server(max_per_address=1) as server:
        held = await Raw.open(server.port)
        await held.hello("Held")
        session, error = await join_command.connect("127.0.0.1", server.port, "Ann")
        assert session is None and error is not None
        assert "too_many_connections" in error and "was lost" not in error
        assert "serve --limit max_per_address=N" in error
        await held.close()


async def test_a_game_in_memory_leaves_the_unfinished_local_match_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))

    async def table_of(memory: bool) -> tuple[str | None, bool]:
        server, session, error = await play_command.start_local(play_options(memory), "Ann")
        assert error is None, error
        resumed = session.welcome is not None and session.welcome.get("table") is not None
        table = session.table
        await session.close()
        await server.stop()
        return table, resumed

    kept, resumed = await table_of(memory=False)  # a match on disk, left unfinished
    assert kept is not None and not resumed
    _, resumed = await table_of(memory=True)  # a throwaway game in between
    assert not resumed  # it did not try the disk match's seat on a server that never had it
    again, resumed = await table_of(memory=False)
    assert resumed and again == kept


async def test_the_lobby_lists_tables_only_while_it_is_on_screen(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Polling the lobby from under the table screen cost the server a listing every few
    seconds per player, and after a suspended client came back it showed a stray error."""
    monkeypatch.setattr(lobby_screen, "REFRESH_SECONDS", 0.05)
    session = await session_for(server, tmp_path)
    listings: list[str] = []
    request = session.request

    async def counted(kind: str, **fields: Any) -> dict[str, Any]:
        if kind == "list_tables":
            listings.append(type(app.screen).__name__)
        return await request(kind, **fields)

    monkeypatch.setattr(session, "request", counted)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and len(listings) >= 3)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableDialog))
        await wait_for(pilot, lambda: listings[-1] == "CreateTableDialog")  # still on screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.seats)
        at_table = len(listings)
        await pilot.pause(0.5)  # ten refresh periods
        assert len(listings) <= at_table + 1, listings[at_table - 3 :]  # one may be on its way
        assert "TableScreen" not in listings[at_table + 1 :]
        await pilot.press("escape", "y")  # leave the table: back in the lobby, listing again
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: len(listings) >= at_table + 3)
    await session.close()


async def test_a_lost_connection_is_not_reported_for_the_lobby_clock(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = await session_for(server, tmp_path)

    async def lost(kind: str, **fields: Any) -> dict[str, Any]:
        raise ConnectionLost()

    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        monkeypatch.setattr(session, "request", lost)
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await lobby.refresh_tables().wait()  # as on the clock: the title bar tells
        assert not [n for n in app._notifications if "connection" in n.message]
        await pilot.press("f5")  # asked for: told, in a sentence ("list_tables failed: ...")
        await wait_for(
            pilot,
            lambda: any(
                "connection to the server is down" in n.message and "list_tables" not in n.message
                for n in app._notifications
            ),
        )
    await session.close()


async def test_esc_at_a_running_match_asks_before_giving_the_seat_away(
    server: Server, tmp_path: Path
) -> None:
    """Esc closes every dialog; one press too many at the table gave the seat away at once,
    and closed the table (ending the match) when nobody else was seated."""
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and "the table closes" in dialog.question
        await pilot.press("escape")  # no
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert server.lobby.tables[table].seats[0].peer is not None  # still seated
        await pilot.press("escape", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: table not in server.lobby.tables)
    await session.close()


async def test_a_second_local_game_on_disk_is_refused_while_one_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `sheepshead play` at once would both resume the one unfinished match."""
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))

    async with local_game(play_options(False)) as (_server, _session):
        again = await play_command.start_local(play_options(False), "Ann")
        assert again[:2] == (None, None)
        assert again[2] is not None and "--memory" in again[2] and "another" in again[2]
        in_memory, memory_session, error = await play_command.start_local(play_options(True), "Ann")
        assert error is None, error  # a game in memory needs no database
        await memory_session.close()
        await in_memory.stop()


async def test_the_host_ends_an_open_ended_match(server: Server, tmp_path: Path) -> None:
    """A match with no hand limit ended no other way from the client."""
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=None)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")  # not yet
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert server.lobby.tables[table].state == "playing"
        await pilot.press("e", "y")
        await wait_for(pilot, lambda: app.model.match_over is not None)
        assert server.lobby.tables[table].state == "over"
    await session.close()


async def test_only_the_host_can_end_the_match(server: Server, tmp_path: Path) -> None:
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host, hands=None)
    watcher = await session_for(server, tmp_path, name="Eve")
    app = SheepsheadApp(watcher, mode="watch", watch_table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        await pilot.press("e")
        await pilot.pause(0.2)
        assert isinstance(app.screen, TableScreen)  # no question, nothing sent
        assert server.lobby.tables[table].state == "playing"
    await watcher.close()
    await host.close()


async def test_a_finished_local_match_starts_a_new_one_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`play --hands 1` to the end, quit, `play` again: a new match, and no red bad_token."""
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))
    args = play_options(memory=False)
    args.hands = 1
    async with local_game(args) as (_server, session):
        first = session.table
        app = SheepsheadApp(session, mode="play")
        async with app.run_test(size=SIZE) as pilot:
            await Player(pilot).until(lambda: app.model.match_over is not None, timeout=60)

    async with local_game(args) as (_server, session):
        assert session.table is not None and session.table != first
        app = SheepsheadApp(session, mode="play")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.model.view is not None)
            errors = [n.message for n in app._notifications if n.severity == "error"]
            assert errors == []
            assert "bad_token" not in " ".join(e.text for e in app.model.log)
            assert app.model.match_over is None and app.model.table_state == "playing"


async def test_history_on_this_server_is_answered_or_politely_unknown(
    server: Server, tmp_path: Path
) -> None:
    """The client asks every server for the match's history: one that does not know the
    request (an older server) gives None, never an error; one that does gives this table's."""
    session = await session_for(server, tmp_path)
    try:
        table = await seated_with_bots(session)
        reply = await session.history()
        assert reply is None or (reply["table"] == table and reply["hands"] == [])
    finally:
        await session.close()


async def test_the_fake_feed_summary_has_every_field_the_server_sends(
    server: Server, tmp_path: Path
) -> None:
    """tests/client/feed.py cannot drift from the server's table summary unnoticed."""
    from tests.client.feed import EngineTable

    session = await session_for(server, tmp_path)
    try:
        await seated_with_bots(session)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while session.last_state is None and loop.time() < deadline:
            await asyncio.sleep(0.02)
        assert session.last_state is not None
        real = session.last_state["info"]
        fake = EngineTable().info()
        assert set(fake) >= set(real), set(real) - set(fake)
        assert set(fake["seats"][0]) >= set(real["seats"][0])
    finally:
        await session.close()


async def test_the_host_turns_the_coach_on_when_creating_a_table(
    server: Server, tmp_path: Path
) -> None:
    """Tables on a server start without hints; the create dialog's "Coach hints" turns them on."""
    session = await session_for(server, tmp_path)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CreateTableDialog))
        app.screen.query_one("#f-hints", Select).value = "on"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.seats)
        table = server.lobby.tables[str(app.model.table)]
        assert table.config.hints
        await wait_for(pilot, lambda: app.model.info.get("hints") is True)
    await session.close()
