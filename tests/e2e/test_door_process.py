"""The doors in a process of their own (``serve --server-socket``) outlive a server restart.

A real ``sheepshead serve --local-socket PATH`` subprocess; the doors (the same object
``serve --server-socket PATH`` runs) in the test's process, pointed at that socket; a real SSH
player with a pty who creates a table and sits. The server is killed (SIGKILL) and a new one
started on the same database and socket path: the same SSH session, with the same child
client, reconnects by itself and has its seat back, and a browser tab in the lobby stays open and
says ``connected`` again. In-process doors (``serve --ssh``) die with the server, and the player
had to ssh in again.

Such doors cannot see the server's tables and players: they ask over its socket (PROTOCOL.md
§15), so a key's second SSH window is asked where the seat goes and the standings tag the key's
fingerprint, as with the doors in the server's process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import aiohttp
import asyncssh

from server import cli
from server.config import ServerConfig
from server.doors.child import WAITING
from server.doors.host import Doors, RemoteServer
from server.doors.kit import SEAT_STAYS
from server.doors.web import COOKIE, SEAT_ELSEWHERE
from server.net.connection import peer_pid
from tests.e2e.test_server_crash import Served
from tests.server.support import Raw, running_server
from tests.server.test_ssh_door import (
    Screen,
    connect,
    gone,
    open_game,
    plain,
    seated_game,
    ssh_tagged,
    table_created,
    token_filed,
    until,
)
from tests.server.test_web_door import _TabScreen

RESTART = 60.0
"""Seconds a reconnect may take: the client's backoff reaches 8 s, on a busy box."""


async def seat_of(port: int, name: str) -> dict[str, Any] | None:
    """Seat 0's summary at the one table of the server on ``port`` if ``name`` sits there."""
    raw = await Raw.open(port)
    try:
        await raw.hello("watcher")
        reply = await raw.request("list_tables")
    finally:
        await raw.close()
    for table in reply.get("tables", []):
        seat = table["seats"][0]
        if seat.get("name") == name:
            return dict(seat)
    return None


async def connected_seat(port: int, name: str) -> bool:
    """Whether ``name`` holds seat 0 with a connection up."""
    seat = await seat_of(port, name)
    return seat is not None and bool(seat.get("connected"))


async def poll(check: Any, timeout: float) -> None:
    """Until the coroutine function ``check`` answers true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.2)


class Tab:
    """A browser tab's websocket, its screens read in the background."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.data = b""
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data += message.data

    async def wait_for(self, text: str, timeout: float, since: int = 0) -> None:
        """Until ``text`` shows in the screens after byte ``since``."""
        await until(lambda: text in plain(self.data[since:]), timeout)

    async def close(self) -> None:
        await self.socket.close()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def test_an_ssh_player_keeps_the_session_and_the_seat_across_a_kill_9(
    tmp_path: Path,
) -> None:
    db = tmp_path / "server.db"
    socket_path = str(tmp_path / "run" / "server.sock")
    extra = ("--local-socket", socket_path)
    served = await Served.start(db, extra=extra)
    assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(Path(socket_path).parent).st_mode) == 0o700
    # The children at the test's priority, as tests/server/test_web_door.py's (on two busy
    # cores a niced one took a minute to start).
    remote = RemoteServer(ServerConfig(door_child_nice=0), socket_path, 7453)
    doors = Doors(remote, tmp_path / "data", ssh_port=0, web_port=0)
    await doors.start("127.0.0.1")
    assert doors.web is not None
    key = asyncssh.generate_private_key("ssh-ed25519")
    http = aiohttp.ClientSession()
    try:
        tab = Tab(await http.ws_connect(f"http://127.0.0.1:{doors.web.port}/ws/Bea?width=80"))
        async with connect(doors, key) as conn:
            screen = await table_created(conn)
            await until(lambda: token_filed(doors))
            await poll(lambda: connected_seat(served.port, "ann"), 30)
            assert doors.ssh is not None
            (child,) = doors.ssh.children
            pid = child.pid
            assert pid is not None

            await tab.wait_for("you are Bea", 60)
            (service,) = doors.web.services
            web_child = service._process
            assert web_child is not None

            since, tab_since = len(screen.data), len(tab.data)
            await served.kill()
            await screen.wait_for("reconnecting", timeout=30, since=since)
            await tab.wait_for("reconnecting", 30, tab_since)
            # A session started while the server is down waits for it (before, its client's
            # first connect was refused and the session ended at once).
            other = asyncssh.generate_private_key("ssh-ed25519")
            late_conn = await connect(doors, other, "bob")
            late = Screen(await open_game(late_conn))
            await late.wait_for(WAITING, timeout=60)
            served = await Served.start(db, extra=extra)
            since, tab_since = len(screen.data), len(tab.data)
            # The seat comes back to the same client, in the same SSH session.
            await poll(lambda: connected_seat(served.port, "ann"), RESTART)
            await screen.wait_for("connected", timeout=30, since=since)
            assert not gone(pid) and child in doors.ssh.children
            assert not conn.is_closed()
            # The tab in the lobby: the same websocket and client, connected again.
            await tab.wait_for("connected", 30, tab_since)
            assert not tab.socket.closed and web_child.returncode is None
            await late.wait_for("you are bob", timeout=60)
            await late.close()
            late_conn.close()
            screen.process.close()
            await screen.close()
            await tab.close()
    finally:
        await http.close()
        await doors.stop()
        with contextlib.suppress(ProcessLookupError):
            await served.terminate()


async def test_a_doors_process_asks_a_keys_second_window_and_tags_the_key(tmp_path: Path) -> None:
    """Doors in a process of their own (here a :class:`RemoteServer` on the socket of a server
    in the test's process, whose objects it cannot see): a key's second session is asked
    where the seat goes before anything moves (before, it took the seat without a word), and
    once the key's first session has sat the standings know the player by the key's
    fingerprint (before, by their player key only; then only once that session ended)."""
    path = str(tmp_path / "run" / "server.sock")
    async with running_server() as server:
        await cli._open_local_socket(server, path)
        remote = RemoteServer(ServerConfig(door_child_nice=0), path, server.port)
        doors = Doors(remote, tmp_path / "data", ssh_port=0)
        await doors.start("127.0.0.1")
        key = asyncssh.generate_private_key("ssh-ed25519")
        fingerprint = key.get_fingerprint("sha256")
        try:
            async with connect(doors, key) as conn:
                screen, table = await seated_game(server, doors, conn)
                seated = table.seats[0].peer
                assert seated is not None
                # Told at the first sit, in the key's first session (asked over the socket).
                await until(lambda: ssh_tagged(server, fingerprint), timeout=20)
                async with connect(doors, key) as second:
                    asked = Screen(await open_game(second))
                    await asked.wait_for("take the seat here", timeout=30)
                    assert "ann's table, seat 0" in plain(asked.data)
                    assert table.seats[0].peer is seated  # nothing moved at the question
                    asked.process.stdin.write(b"q")
                    await asked.wait_for(SEAT_STAYS.strip(), timeout=30)
                    await asked.close()
                assert table.seats[0].peer is seated
                screen.process.close()
                await screen.close()
        finally:
            await doors.stop()


async def test_a_doors_process_asks_a_browsers_second_tab(tmp_path: Path) -> None:
    """The browser door in a process of its own: a second tab of a browser whose seated tab is
    open is asked (the server tells which client holds the seat: the process at the other end
    of its connection on the socket); before, it took the seat without a word."""
    path = str(tmp_path / "run" / "server.sock")
    async with (
        running_server() as server,
        aiohttp.ClientSession(cookies={COOKIE: secrets.token_urlsafe(32)}) as http,
    ):
        await cli._open_local_socket(server, path)
        remote = RemoteServer(ServerConfig(door_child_nice=0), path, server.port)
        doors = Doors(remote, tmp_path / "data", web_port=0)
        await doors.start("127.0.0.1")
        web = doors.web
        assert web is not None

        async def tab() -> _TabScreen:
            url = f"http://127.0.0.1:{web.port}/ws/Eve?width=80&height=24"
            return _TabScreen(await http.ws_connect(url))

        def holder() -> int | None:
            (table,) = server.lobby.tables.values()
            return peer_pid(getattr(table.seats[0].peer, "transport", None))

        def client_pids() -> set[int | None]:
            return {s._process.pid if s._process else None for s in web.services}

        try:
            first = await tab()
            await first.create_table("Eve")
            await until(lambda: len(server.lobby.tables) == 1 and holder() in client_pids())
            (service,) = web.services
            await until((service.home / "config" / "sheepshead" / "tokens.json").exists)
            second = await tab()  # beside the first, which holds the seat and its token
            await second.wait_for("another tab of this browser")
            assert len(web.services) == 1  # no client meanwhile
            await second.ws.send_json(["stdin", "q"])
            await until(lambda: second.closed is not None)
            assert second.closed == (SEAT_ELSEWHERE, SEAT_STAYS.strip())
            assert holder() in client_pids()
            await first.close()
            await second.close()
        finally:
            await doors.stop()
