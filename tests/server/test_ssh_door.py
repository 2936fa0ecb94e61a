"""The SSH door over loopback, driven by asyncssh's own client: a real server, a real door,
real child processes on real ptys."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import re
import signal
import struct
import termios
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from client.session import DOOR_FINGERPRINT_ENV
from server.app import Server
from server.config import ServerConfig
from server.doors import ssh
from server.doors.host import Doors
from server.doors.ssh import (
    ANOTHER_WINDOW,
    HOST_KEY_FILE,
    INPUT_BACKLOG,
    KEY_NOT_LISTED,
    MESSAGE_COLUMNS,
    NEEDS_A_KEY,
    NEEDS_PTY,
    NO_COMMANDS,
    NO_FORWARDING,
    OTHER_WINDOW_GONE,
    PLAYERS_DIR,
    SEAT_STAYS,
    SHUTTING_DOWN,
    TOO_MANY_RESIZES,
)
from tests.server.support import running_server

START = 60.0
"""Seconds a child client may take to show its first screen (a Python start, on a busy box)."""

_ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def plain(data: bytes) -> str:
    """Terminal output without its escape sequences."""
    return _ANSI.sub(b"", data).decode("utf-8", "replace")


@contextlib.asynccontextmanager
async def ssh_door(tmp_path: Path, **overrides: Any) -> AsyncIterator[tuple[Server, Doors]]:
    """A server with its SSH door on a free loopback port."""
    async with running_server(**overrides) as server:
        doors = Doors(server, tmp_path / "data", ssh_port=0)
        await doors.start("127.0.0.1")
        try:
            yield server, doors
        finally:
            await doors.stop()


def connect(doors: Doors, key: asyncssh.SSHKey, user: str = "ann") -> Any:
    """An asyncssh client connection to the door (the host key is not checked)."""
    assert doors.ssh is not None
    return asyncssh.connect(
        "127.0.0.1",
        doors.ssh.port,
        username=user,
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        preferred_auth="publickey",
    )


class Screen:
    """A pty session's output, read in the background, searchable without escapes."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes]) -> None:
        self.process = process
        self.data = b""
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(asyncssh.Error, OSError):
            while True:
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    return
                self.data += chunk

    async def wait_for(self, text: str, timeout: float = START, since: int = 0) -> None:
        """Until ``text`` shows up in the output after byte ``since``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while text not in plain(self.data[since:]):
            if loop.time() > deadline:
                raise AssertionError(f"{text!r} never showed; got {plain(self.data)[-800:]!r}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def open_game(conn: asyncssh.SSHClientConnection, size: tuple[int, int] = (80, 24)) -> Any:
    return await conn.create_process(
        term_type="xterm-256color", term_size=size, encoding=None, stderr=asyncssh.STDOUT
    )


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def until(check: Any, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


def token_filed(doors: Doors) -> bool:
    """Whether a client of the door has filed a seat token in its (throwaway) home."""
    assert doors.ssh is not None
    homes = [path for path, _, _ in doors.ssh.pending_homes.values()]
    return any((home / "config" / "sheepshead" / "tokens.json").exists() for home in homes)


def ssh_tagged(server: Server, fingerprint: str) -> bool:
    """Whether the server knows a player as the SSH key with ``fingerprint`` (an ``ssh``
    identity labelled with it: what the standings tag the player with)."""
    rows = server.store._db.execute("SELECT kind, label FROM identities")
    return ("ssh", fingerprint) in set(rows)


async def table_created(conn: asyncssh.SSHClientConnection) -> Screen:
    """A game on ``conn`` whose client creates a table from the lobby (c, Enter) as "ann": its
    :class:`Screen` once the table shows (the server may not have seated ann yet)."""
    process = await open_game(conn)
    screen = Screen(process)
    await screen.wait_for("No tables yet")
    process.stdin.write(b"c")
    await screen.wait_for("New table")
    process.stdin.write(b"\r")
    await screen.wait_for("ann's table")
    return screen


async def seated_game(server: Server, doors: Doors, conn: asyncssh.SSHClientConnection) -> Any:
    """A game on ``conn`` whose client creates a table as "ann" (seat 0), its seat token filed:
    its :class:`Screen` and the table."""
    screen = await table_created(conn)
    await until(lambda: any(t.seats[0].name == "ann" for t in server.lobby.tables.values()))
    (table,) = server.lobby.tables.values()
    await until(lambda: token_filed(doors))
    return screen, table


@pytest.fixture
def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


async def test_a_pty_session_sees_the_lobby_resizes_and_leaves_no_child(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with ssh_door(tmp_path) as (_, doors), connect(doors, key) as conn:
        assert doors.ssh is not None
        assert (tmp_path / "data" / HOST_KEY_FILE).exists()
        process = await open_game(conn)
        screen = Screen(process)
        await screen.wait_for("Sheepshead lobby")
        await screen.wait_for("you are ann")
        (child,) = doors.ssh.children
        pid = child.pid
        assert pid is not None and not gone(pid)
        # A window change reaches the child's terminal, and the client draws again.
        seen = len(screen.data)
        process.change_terminal_size(100, 30)
        assert child._master is not None
        master = child._master

        def size() -> tuple[int, int]:
            rows, cols, _, _ = struct.unpack(
                "HHHH", fcntl.ioctl(master, termios.TIOCGWINSZ, b"\0" * 8)
            )
            return cols, rows

        await until(lambda: size() == (100, 30))
        await screen.wait_for("Sheepshead lobby", since=seen)
        process.close()
        await screen.close()
        conn.close()
        await until(lambda: gone(pid) and not doors.ssh.children)


async def test_quitting_the_client_ends_the_session(
    tmp_path: Path, key: asyncssh.SSHKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """asyncssh's client keeps the connection once the channel has closed: the door closes it,
    ``CLOSE_AFTER_CHANNEL`` later (cut to 0.2 s here)."""
    monkeypatch.setattr(ssh, "CLOSE_AFTER_CHANNEL", 0.2)
    async with ssh_door(tmp_path) as (_, doors), connect(doors, key) as conn:
        assert doors.ssh is not None
        process = await open_game(conn)
        screen = Screen(process)
        await screen.wait_for("Sheepshead lobby")
        (child,) = doors.ssh.children
        process.stdin.write(b"q")
        result = await asyncio.wait_for(process.wait(), START)
        assert result.exit_status == 0
        await asyncio.wait_for(conn.wait_closed(), 10)
        await screen.close()
        assert child.pid is not None and gone(child.pid)
        assert not doors.ssh.children


async def test_a_server_stopping_tells_each_session_why_it_ends(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    # Before, a restart of the server left an SSH player with "Connection to HOST closed."
    async with running_server() as server:
        doors = Doors(server, tmp_path / "data", ssh_port=0)
        await doors.start("127.0.0.1")
        try:
            async with connect(doors, key) as conn:
                process = await open_game(conn)
                screen = Screen(process)
                await screen.wait_for("Sheepshead lobby")
                since = len(screen.data)
                await doors.stop()
                await screen.wait_for("shutting down", timeout=10, since=since)
                await screen.close()
        finally:
            await doors.stop()


async def test_the_same_key_gets_its_seat_back_in_a_second_session(
    tmp_path: Path, key: asyncssh.SSHKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ssh, "LINK_CHECK", 0.5)
    monkeypatch.setattr(ssh, "SEAT_WATCH", 0.2)
    async with ssh_door(tmp_path) as (server, doors):
        async with connect(doors, key) as first:
            screen, table = await seated_game(server, doors, first)
            # A key's first session is tagged with its fingerprint in the standings once it
            # sits, not only when it ends (the player showed as a bare player key all night).
            await until(lambda: ssh_tagged(server, key.get_fingerprint("sha256")), timeout=10)
            dropped = table.seats[0].peer
            assert dropped is not None
            # The first session's link dropped without the door noticing (keepalives take
            # minutes): its client answers nothing more. Another connection with the same key
            # (from anywhere), meanwhile, is back at the table, seat 0, without a question: the
            # door asked the first link for a keepalive, had no answer, and closed it. It ran
            # in a fresh home before (the key's first session's home was kept only at its
            # end): a new player key, in the lobby.
            first._transport.pause_reading()
            async with connect(doors, key) as conn:
                process = await open_game(conn)
                again = Screen(process)
                await again.wait_for("does not answer")
                await until(lambda: table.seats[0].peer not in (None, dropped))
                await again.wait_for("ann's table")
                await again.close()
            first._transport.resume_reading()
            await screen.close()
        # The key's home is kept once its last session ends, so any later session sits there.
        await until(lambda: not doors.ssh or not doors.ssh.pending_homes)
        assert [p.name for p in (tmp_path / "data" / PLAYERS_DIR).glob("*/config/*/tokens.json")]
        # A different key is somebody else: the lobby, not the seat.
        other = asyncssh.generate_private_key("ssh-ed25519")
        async with connect(doors, other) as conn:
            process = await open_game(conn)
            screen = Screen(process)
            await screen.wait_for("Sheepshead lobby")
            await screen.close()


async def _nothing_held(fingerprint: str, name: str) -> tuple[None, None]:
    """A door's look for a held seat that finds none (it looked before the seat was taken)."""
    return None, None


async def test_a_second_window_of_a_seated_key_asks_before_it_takes_the_seat(
    tmp_path: Path, key: asyncssh.SSHKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player's second terminal (to watch another table, say) took the seat of the first
    one, open and in play, without a word: the same key's sessions share a home, so the second
    client took the seat back with the first one's token. Now the second session is asked;
    ``l`` opens the lobby there and leaves the seat where it is, ``t`` moves it, and the first
    window says so and shows the lobby."""
    monkeypatch.setattr(ssh, "LINK_CHECK", 0.5)
    async with ssh_door(tmp_path) as (server, doors), connect(doors, key) as first:
        assert doors.ssh is not None
        screen, table = await seated_game(server, doors, first)
        seated = table.seats[0].peer
        assert seated is not None
        async with connect(doors, key) as conn:
            watcher = await open_game(conn)
            lobby = Screen(watcher)
            await lobby.wait_for("take the seat here")
            assert not any(s.child for s in doors.ssh.sessions if s.answer is not None)
            watcher.stdin.write(b"l")
            await lobby.wait_for("Sheepshead lobby")
            await lobby.wait_for("ann's table")
            # The first window still has the seat; the lobby's home has no seat token.
            assert table.seats[0].peer is seated
            (side,) = doors.ssh.side_homes.values()
            assert not (side / "config" / "sheepshead" / "tokens.json").exists()
            # The first window's connection drops (its client held still, so it cannot come
            # back yet). The lobby window is the same player key: for a minute after its start
            # it took the seat back by itself at the first listing that showed it away, so
            # the window opened to browse had the seat and the first one, back, was told its
            # seat plays in another window. Now it only says so; Enter would take it.
            (held,) = (c for c in doors.ssh.children if c not in doors.ssh.side_homes)
            assert held.pid is not None
            os.kill(held.pid, signal.SIGSTOP)
            try:
                seated.transport.abort()  # type: ignore[attr-defined]
                await until(lambda: table.seats[0].peer is None)
                since = len(lobby.data)
                watcher.stdin.write(b"\x1b[15~")  # F5: the tables, listed now
                await lobby.wait_for("(away): Enter takes it back", since=since)
                watcher.stdin.write(b"w")  # after any take-back the listing started
                await until(lambda: bool(table.spectators) or table.seats[0].peer is not None)
                assert table.seats[0].peer is None, "the lobby window took the seat"
            finally:
                os.kill(held.pid, signal.SIGCONT)
            await until(lambda: table.seats[0].peer is not None)  # the first window is back
            seated = table.seats[0].peer
            watcher.close()
            await lobby.close()
        await until(lambda: not side.exists())
        # The race: the door looked for a held seat before the first window sat down, and the
        # new client read the seat token that window filed meanwhile (its start-up takes a
        # second): it took the seat over, unasked. It may take a seat back only with the token
        # the door checked (none here): it opens the lobby, and the first window keeps its seat.
        with pytest.MonkeyPatch.context() as early:
            early.setattr(doors.ssh, "_seat_elsewhere", _nothing_held)
            async with connect(doors, key) as conn:
                late = Screen(await open_game(conn))
                await late.wait_for("Sheepshead lobby")
                await late.wait_for("ann's table")
                assert table.seats[0].peer is seated
                await late.close()
        since = len(screen.data)
        async with connect(doors, key) as conn:
            taker = await open_game(conn)
            here = Screen(taker)
            await here.wait_for("take the seat here")
            assert table.seats[0].peer is seated
            taker.stdin.write(b"t")
            await until(lambda: table.seats[0].peer not in (None, seated))
            await here.wait_for("ann's table")
            # The first window is told, in the lobby, and does not take the seat back.
            await screen.wait_for("another window", since=since, timeout=20)
            await screen.wait_for("Sheepshead lobby", since=since, timeout=20)
            moved = table.seats[0].peer
            assert moved is not seated and len(doors.ssh.children) == 2
            await here.close()
        await screen.close()


async def test_no_pty_and_commands_are_refused_with_a_message(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    async with ssh_door(tmp_path) as (_, doors), connect(doors, key) as conn:
        assert doors.ssh is not None
        result = await conn.run("ls /", encoding="utf-8")
        assert result.exit_status == 1
        assert str(result.stderr).strip() == NO_COMMANDS.strip()
        assert result.stdout == ""
        result = await conn.run(encoding="utf-8")  # a shell without a pty
        assert result.exit_status == 1
        assert str(result.stderr).strip() == NEEDS_PTY.strip()
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.start_sftp_client()
        assert not doors.ssh.children


async def test_port_forwarding_is_refused(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with ssh_door(tmp_path) as (server, doors), connect(doors, key) as conn:
        with pytest.raises(asyncssh.ChannelOpenError) as refused:
            await conn.open_connection("127.0.0.1", server.port)
        assert refused.value.reason == NO_FORWARDING
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", server.port)


async def test_passwords_are_off(tmp_path: Path) -> None:
    async with ssh_door(tmp_path) as (_, doors):
        assert doors.ssh is not None
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect(
                "127.0.0.1",
                doors.ssh.port,
                username="ann",
                password="secret",
                client_keys=None,
                known_hosts=None,
                agent_path=None,
            )


async def test_the_per_address_limit_holds(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    async with ssh_door(tmp_path, door_sessions_per_address=1) as (_, doors):
        assert doors.ssh is not None
        async with connect(doors, key) as first:
            with pytest.raises(asyncssh.DisconnectError) as refused:
                async with connect(doors, key):
                    pass
            assert "Too many sessions from your address" in refused.value.reason
            assert doors.gate.per_address["127.0.0.1"] == 1
            result = await first.run("true", encoding="utf-8")
            assert result.exit_status == 1  # the first one still works
        await until(lambda: not doors.gate.per_address)
        async with connect(doors, key):  # its place is free again
            pass


async def test_a_venues_two_tables_and_watchers_log_in_from_one_address(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """A club evening: every player at the venue comes from its one address. At the old
    default (4 door sessions per address) the fifth player was refused, so not even one table
    could sit down. At the defaults, two tables of five, two watchers and the old sessions of
    a dropped laptop or two are all let in; one more is told the host can raise the limit."""
    config = ServerConfig()
    async with ssh_door(tmp_path) as (_, doors), contextlib.AsyncExitStack() as venue:
        for n in range(12):  # two tables of five and two watchers
            await venue.enter_async_context(connect(doors, key, f"player{n}"))
        for n in range(12, config.door_sessions_per_address):  # and the rest of its places
            await venue.enter_async_context(connect(doors, key, f"player{n}"))
        assert doors.gate.per_address["127.0.0.1"] == config.door_sessions_per_address
        with pytest.raises(asyncssh.DisconnectError) as refused:
            async with connect(doors, key, "late"):
                pass
        assert "--limit door_sessions_per_address=" in refused.value.reason


async def test_a_connection_flood_is_cut_off_before_the_key_exchange(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """Each refusal with a reason costs a key exchange (about a millisecond of CPU): past the
    address's allowance of new connections (the game port's, shared) the door closes at once,
    saying nothing. Then the start allowance refuses with its reason."""
    async with ssh_door(tmp_path, connection_burst=3, connection_rate=0.01) as (_, doors):
        assert doors.ssh is not None
        async with connect(doors, key):
            pass
        await until(lambda: not doors.gate.per_address)
        async with connect(doors, key):
            pass
        await until(lambda: not doors.gate.per_address)
        async with connect(doors, key):
            pass
        with pytest.raises((asyncssh.ConnectionLost, ConnectionResetError)):
            async with connect(doors, key):
                pass
        assert not doors.gate.per_address


async def test_connects_that_start_no_game_spend_no_door_start(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """A door start (one every 5 s per address, ``door_start_rate``) was spent at the TCP
    connect: a port scan or a flaky network from a player's address (a NAT) used up the starts
    of everybody there. Now bare connects, and logins that open no game, spend none: the start
    goes when a session starts its client, and the next game past the allowance is refused
    with its reason on the terminal."""
    async with ssh_door(tmp_path, door_start_burst=1.0, door_start_rate=0.001) as (_, doors):
        assert doors.ssh is not None
        for _ in range(3):  # a port scanner: connect, read the banner perhaps, hang up
            _, writer = await asyncio.open_connection("127.0.0.1", doors.ssh.port)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        async with connect(doors, key) as conn:  # a login without a game (ssh -N, a check)
            result = await conn.run("true", encoding="utf-8")
            assert result.exit_status == 1  # refused: commands are not run
        await until(lambda: not doors.gate.per_address)
        async with connect(doors, key) as conn:
            screen = Screen(await open_game(conn))
            await screen.wait_for("Sheepshead lobby")
            await screen.close()
        async with connect(doors, key) as conn:
            process = await open_game(conn)
            output = await process.stdout.read()
            assert "Too many new sessions from your address" in plain(output)
            await process.wait()
            assert process.exit_status == 1


class _Instructed(asyncssh.SSHClient):
    """A client that shows keyboard-interactive instructions, as OpenSSH prints them."""

    shown: list[str]

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        self.shown.append(instructions)
        return ["" for _ in prompts]


async def refusal_shown(doors: Doors, keys: list[asyncssh.SSHKey]) -> str:
    """Log in with ``keys`` (none: a player who never made one); what the refusal says."""
    assert doors.ssh is not None
    shown: list[str] = []
    client = type("Client", (_Instructed,), {"shown": shown})
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncssh.connect(
            "127.0.0.1",
            doors.ssh.port,
            username="ann",
            client_factory=client,
            client_keys=keys,
            known_hosts=None,
            agent_path=None,
            password=None,
        )
    return " ".join(shown)


async def test_a_login_without_a_key_is_told_how_to_make_one(tmp_path: Path) -> None:
    # Before, a player with no SSH key read only "Permission denied (publickey)".
    async with ssh_door(tmp_path) as (server, doors):
        assert "ssh-keygen -t ed25519" in await refusal_shown(doors, [])
        assert not server.lobby.tables


async def test_a_key_that_ssh_keys_does_not_list_is_told_so(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    allowed = tmp_path / "authorized_keys"
    allowed.write_bytes(key.export_public_key())
    async with running_server() as server:
        doors = Doors(server, tmp_path / "data", ssh_port=0, ssh_keys=allowed)
        await doors.start("127.0.0.1")
        try:
            other = asyncssh.generate_private_key("ssh-ed25519")
            assert "send your public key" in await refusal_shown(doors, [other])
        finally:
            await doors.stop()


class _Probing(_Instructed):
    """A client without a key that answers the keyboard-interactive challenge with ``answer``
    and, once refused, asks for keyboard-interactive again and then tries a password in the
    same connection: as requests of its own, since asyncssh's client only tries what the door
    lists (OpenSSH's retries keyboard-interactive as long as it is listed)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.shown: list[str] = []
        self.listed: list[list[bytes]] = []
        """The methods each refusal after the challenge listed."""
        self.tried: list[bytes] = []

    def connection_made(self, conn: Any) -> None:
        from asyncssh.constants import MSG_USERAUTH_FAILURE, MSG_USERAUTH_REQUEST
        from asyncssh.packet import Boolean, String

        # A copy of the packet table on this connection alone, as the door's metering does.
        handlers = dict(conn._packet_handlers)
        refused = handlers[MSG_USERAUTH_FAILURE]
        requests = [
            (b"keyboard-interactive", (String(""), String(""))),
            (b"password", (Boolean(False), String("secret"))),
        ]

        def failure(conn: Any, pkttype: int, pktid: int, packet: Any) -> Any:
            if not self.shown:
                return refused(conn, pkttype, pktid, packet)
            start = packet._idx
            self.listed.append(list(packet.get_namelist()))
            packet._idx = start
            if len(self.tried) == len(requests):
                return refused(conn, pkttype, pktid, packet)
            method, args = requests[len(self.tried)]
            self.tried.append(method)
            request = conn._get_userauth_request_packet(method, args)
            conn.send_packet(MSG_USERAUTH_REQUEST, request[1:])
            return None

        handlers[MSG_USERAUTH_FAILURE] = failure
        conn._packet_handlers = handlers

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str]:
        self.shown.append(instructions)
        return [self.answer]  # an answer though nothing was asked


async def test_keyboard_interactive_is_offered_once_and_what_it_is_sent_lets_nobody_in(
    tmp_path: Path,
) -> None:
    """The refusal's message goes out once per connection (clients retry keyboard-interactive
    while it is listed): a 250,000-character answer to it (about asyncssh's largest packet),
    a second keyboard-interactive request and a password in the same connection are all
    refused, and the door lists keyboard-interactive no more after the challenge."""
    async with ssh_door(tmp_path) as (server, doors):
        assert doors.ssh is not None
        client = _Probing("x" * 250_000)
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect(
                "127.0.0.1",
                doors.ssh.port,
                username="ann",
                client_factory=lambda: client,
                client_keys=[],
                known_hosts=None,
                agent_path=None,
                password=None,
            )
        assert len(client.shown) == 1
        assert "ssh-keygen -t ed25519" in client.shown[0]
        assert client.tried == [b"keyboard-interactive", b"password"]
        assert client.listed == [[b"publickey"]] * 3
        assert not doors.ssh.children
        assert not server.lobby.tables
        await until(lambda: not doors.gate.per_address)


class _Asking(asyncssh.SSHClient):
    """A client that, once its first login request is refused, sends ``count`` password
    requests at once in the same connection (each is refused: passwords are off)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.refusals = 0
        self.lost = asyncio.Event()

    def connection_made(self, conn: Any) -> None:
        from asyncssh.constants import MSG_USERAUTH_FAILURE, MSG_USERAUTH_REQUEST
        from asyncssh.packet import Boolean, String

        handlers = dict(conn._packet_handlers)

        def failure(conn: Any, pkttype: int, pktid: int, packet: Any) -> None:
            self.refusals += 1
            if self.refusals == 1:
                args = (Boolean(False), String("secret"))
                request = conn._get_userauth_request_packet(b"password", args)[1:]
                for _ in range(self.count):
                    conn.send_packet(MSG_USERAUTH_REQUEST, request)

        handlers[MSG_USERAUTH_FAILURE] = failure
        conn._packet_handlers = handlers

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()


async def test_a_flood_of_refused_login_requests_closes_the_connection(tmp_path: Path) -> None:
    """Each refused login request (a password, keyboard-interactive once it was offered, a
    key) costs the door some 0.1 ms to receive and refuse, and nothing bounded how many one
    connection sent during its 30 s of login grace: 20,000 in 6 s kept a core busy. Past
    ``door_login_requests`` (30 by default; 5 here) the connection is closed."""
    async with ssh_door(tmp_path, door_login_requests=5) as (_, doors):
        assert doors.ssh is not None
        client = _Asking(1000)
        port = doors.ssh.port

        async def log_in() -> None:
            await asyncssh.connect(
                "127.0.0.1",
                port,
                username="ann",
                client_factory=lambda: client,
                client_keys=[],
                known_hosts=None,
                agent_path=None,
                password=None,
                login_timeout=60,
            )

        task = asyncio.create_task(log_in())
        try:
            await until(lambda: client.lost.is_set() or client.refusals > 1000)
            assert client.lost.is_set()
            assert client.refusals <= 5  # the server's door_login_requests
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, asyncssh.Error, OSError):
                await task
        await until(lambda: not doors.gate.per_address)


async def test_ssh_keys_limits_the_door(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    allowed = tmp_path / "authorized_keys"
    allowed.write_bytes(key.export_public_key())
    async with running_server() as server:
        doors = Doors(server, tmp_path / "data", ssh_port=0, ssh_keys=allowed)
        await doors.start("127.0.0.1")
        try:
            async with connect(doors, key) as conn:
                assert (await conn.run("true")).exit_status == 1
            with pytest.raises(asyncssh.PermissionDenied):
                async with connect(doors, asyncssh.generate_private_key("ssh-ed25519")):
                    pass
        finally:
            await doors.stop()


def terminal_size(master: int) -> tuple[int, int]:
    """The (columns, rows) of the pty whose master side is ``master``."""
    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(master, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


async def test_a_window_change_flood_closes_the_session_with_a_message(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """Within the allowance the latest size always arrives (one held back is applied later);
    a session that goes on past it by a whole burst is closed, with a message."""
    async with (
        ssh_door(tmp_path, ssh_request_rate=5.0, ssh_request_burst=20.0) as (_, doors),
        connect(doors, key) as conn,
    ):
        assert doors.ssh is not None
        process = await open_game(conn)
        screen = Screen(process)
        await screen.wait_for("Sheepshead lobby")
        (child,) = doors.ssh.children
        assert child._master is not None
        master = child._master
        for n in range(25):  # past the burst, not by a whole burst
            process.change_terminal_size(60 + n, 20)
        await until(lambda: terminal_size(master) == (84, 20))
        for n in range(1000):
            process.change_terminal_size(100 + n % 50, 30)
        result = await asyncio.wait_for(process.wait(), 30)
        assert result.exit_status == 1
        await screen.close()
        assert TOO_MANY_RESIZES.strip() in plain(screen.data)
        await asyncio.wait_for(conn.wait_closed(), 10)
        await until(lambda: not doors.ssh.children)


async def test_a_flood_of_env_requests_closes_the_connection_before_any_game(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """asyncssh keeps every ``env`` variable a client sends: a loop of them was the server's
    memory. They count against the session's allowance like any channel request, and are
    not kept; a few are fine."""
    async with ssh_door(tmp_path, ssh_request_burst=20.0) as (_, doors):
        assert doors.ssh is not None
        async with connect(doors, key) as conn:
            process = await conn.create_process(
                term_type="xterm", encoding=None, env={f"V{n}": "x" * 100 for n in range(5)}
            )
            screen = Screen(process)
            await screen.wait_for("Sheepshead lobby")
            await screen.close()
        await until(lambda: not doors.ssh.children)
        async with connect(doors, key) as conn:
            with contextlib.suppress(asyncssh.Error, OSError):
                process = await conn.create_process(
                    term_type="xterm",
                    encoding=None,
                    env={f"V{n}": "x" * 1000 for n in range(200)},
                )
                await asyncio.wait_for(process.wait(), 30)
            await asyncio.wait_for(conn.wait_closed(), 10)
        assert not doors.ssh.children


async def test_a_client_re_keying_in_a_loop_is_closed(tmp_path: Path, key: asyncssh.SSHKey) -> None:
    """A client may ask for a key exchange at any time, each a millisecond or two of the
    server's CPU: one re-keying every few milliseconds took a quarter of a core. Past the
    connection's allowance of key exchanges it is closed."""
    async with ssh_door(tmp_path, ssh_rekey_burst=3.0, ssh_request_burst=100_000.0) as (_, doors):
        assert doors.ssh is not None
        conn = await asyncssh.connect(
            "127.0.0.1",
            doors.ssh.port,
            username="ann",
            client_keys=[key],
            known_hosts=None,
            agent_path=None,
            rekey_seconds=0.01,
            keepalive_interval=0.02,
            keepalive_count_max=1000,
        )
        await asyncio.wait_for(conn.wait_closed(), 30)


async def test_keystrokes_a_child_does_not_read_wait_in_the_ssh_window_not_in_memory(
    tmp_path: Path, key: asyncssh.SSHKey
) -> None:
    """Keystrokes the child has not taken yet were kept by the door without limit (a client
    typing faster than its child reads): past ``INPUT_BACKLOG`` the session stops reading,
    and the SSH window holds the client back until the child catches up."""
    async with ssh_door(tmp_path) as (_, doors), connect(doors, key) as conn:
        assert doors.ssh is not None
        process = await open_game(conn)
        screen = Screen(process)
        await screen.wait_for("Sheepshead lobby")
        (child,) = doors.ssh.children
        assert child.pid is not None
        session = child.on_output.__self__  # type: ignore[attr-defined]
        os.kill(child.pid, signal.SIGSTOP)
        try:
            # A bracketed paste: cheap for the client to read once it runs again. Three times
            # the backlog: read without the pause, it would be past the bound asserted below
            # (eight times cost the child 0.7 CPU-s more to read, for the same proof).
            process.stdin.write(b"\x1b[200~" + b"z" * (3 * INPUT_BACKLOG) + b"\x1b[201~")
            await until(lambda: session.input_paused)
            assert child.input_backlog <= 2 * INPUT_BACKLOG
        finally:
            os.kill(child.pid, signal.SIGCONT)
        await until(lambda: not session.input_paused, timeout=START)
        await screen.close()


def nice_value(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[16])


def data_limit(pid: int) -> str:
    with open(f"/proc/{pid}/limits") as limits:
        (line,) = (x for x in limits if x.startswith("Max data size"))
    return line.split()[3]


async def test_a_huge_pty_is_clamped_and_children_run_niced_and_capped(
    tmp_path: Path, key: asyncssh.SSHKey, caplog: pytest.LogCaptureFixture
) -> None:
    """A 70000x70000 pty (past what a terminal's size can hold) gets the door's maximum and
    logs no traceback; the child runs at the door's nice value under its data cap."""
    async with (
        ssh_door(
            tmp_path, door_max_columns=300, door_child_nice=7, door_child_data_bytes=400 << 20
        ) as (_, doors),
        connect(doors, key) as conn,
    ):
        assert doors.ssh is not None
        base = os.nice(0)
        process = await open_game(conn, size=(70000, 70000))
        screen = Screen(process)
        await until(lambda: len(doors.ssh.children) == 1, timeout=START)
        (child,) = doors.ssh.children
        assert child._master is not None and child.pid is not None
        assert terminal_size(child._master) == (300, 200)
        # The client is told its key's fingerprint: its standings row says "(you)" (two SSH
        # keys named bob saw bob·Bog0Gw and bob·3b2956, and neither knew which was theirs).
        assert child.env[DOOR_FINGERPRINT_ENV] == key.get_fingerprint("sha256")
        process.change_terminal_size(65535, 65535)
        process.change_terminal_size(120, 40)
        await until(lambda: child._master is not None and terminal_size(child._master) == (120, 40))
        await until(lambda: nice_value(child.pid) == min(19, base + 7))
        await until(lambda: data_limit(child.pid) == str(400 << 20))  # set after the nice value
        process.close()
        await screen.close()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_fresh_keys_that_never_sit_leave_no_identity_and_no_directory(
    tmp_path: Path,
) -> None:
    """A new SSH key per login must not add an identity row and a directory each: a key gets
    them only once it takes a seat."""
    async with ssh_door(tmp_path) as (server, doors):
        assert doors.ssh is not None
        for n in range(3):
            fresh = asyncssh.generate_private_key("ssh-ed25519")
            async with connect(doors, fresh, user=f"drive{n}") as conn:
                process = await open_game(conn)
                screen = Screen(process)
                await screen.wait_for("Sheepshead lobby")
                await screen.close()
            await until(lambda: not doors.ssh.children and not doors.ssh.pending_homes)
        identities = server.store._db.execute("SELECT count(*) FROM identities").fetchone()[0]
        assert identities == 0
        players = tmp_path / "data" / PLAYERS_DIR
        assert not players.exists() or not list(players.iterdir())


@pytest.mark.parametrize(
    ("wait", "hold"),
    [(None, True), (0.2, False)],
    ids=["real wait, the client holding its last output", "wait cut to 0.2 s"],
)
async def test_quitting_with_output_still_queued_sends_it_all_and_exits_0(
    tmp_path: Path,
    key: asyncssh.SSHKey,
    monkeypatch: pytest.MonkeyPatch,
    wait: float | None,
    hold: bool,
) -> None:
    """The exit status and the close go out behind the client's last output (its terminal
    restore), and the connection closes only after the channel: a disconnect sent at once
    would overtake them, and ``ssh`` end with 255, "Disconnected by application" (at match
    over, where the screen is bigger). A client that reads nothing for a while, with a
    small receive window, keeps that output queued at the server.

    The door waits for that output while it moves, not for a fixed time: with the wait cut to
    0.2 s (a busy machine's slow drain, in short) everything still arrives. (At 0.05 s, one
    run in five failed on a machine loaded three times over: its process stalled that long.)

    Once the channel has closed, the door leaves the connection for the client to close: a
    client may answer the channel's close before it has shown all it received (asyncssh
    does, its reading paused), and a disconnect makes it drop that. Held here until the
    door has ended the session; before, the door closed the connection at once, and on a
    busy machine (the whole lobby read before the ``q``, its last kilobyte in flight) the
    terminal restore was lost in 2 of 5 ``make test`` runs."""
    if wait is not None:
        monkeypatch.setattr(ssh, "CLOSE_AFTER_EXIT", wait)
    async with ssh_door(tmp_path) as (_, doors), connect(doors, key) as conn:
        assert doors.ssh is not None
        process = await conn.create_process(
            term_type="xterm-256color",
            term_size=(200, 60),
            encoding=None,
            stderr=asyncssh.STDOUT,
            window=1 << 20 if hold else 1024,
            max_pktsize=512,
        )
        screen = Screen(process)
        await screen.wait_for("Sheepshead lobby")
        await screen.close()  # reads nothing more for now
        if hold:
            process.channel.pause_reading()  # what arrives from now on waits, not shown
        (child,) = doors.ssh.children
        assert child.pid is not None
        process.stdin.write(b"q")
        await until(lambda: gone(child.pid), timeout=START)
        if hold:  # until the door has had the channel's close back and ended the session
            await until(lambda: not doors.ssh.pending_homes)
        rest = Screen(process)
        if hold:
            process.channel.resume_reading()
        result = await asyncio.wait_for(process.wait(), START)
        await asyncio.wait_for(rest._task, 10)
        assert result.exit_status == 0
        assert b"\x1b[?1049l" in rest.data  # the client's terminal restore arrived


@pytest.mark.parametrize(
    "message",
    [
        NEEDS_PTY,
        NO_COMMANDS,
        TOO_MANY_RESIZES,
        SHUTTING_DOWN,
        NEEDS_A_KEY,
        KEY_NOT_LISTED,
        ANOTHER_WINDOW.format(table="x" * 40, seat=4),
        OTHER_WINDOW_GONE,
        SEAT_STAYS,
    ],
)
def test_the_doors_messages_fit_an_80_column_terminal(message: str) -> None:
    """At 80 columns the restart notice was broken mid-word ('connect again in a minut' /
    'e (a seat you hold is kept).'), and so were the no-key instructions OpenSSH prints."""
    for line in message.replace("\r", "").split("\n"):
        assert len(line) <= MESSAGE_COLUMNS, line


async def test_a_door_started_again_keeps_the_home_a_killed_door_left_pending(
    tmp_path: Path,
) -> None:
    """A key that had never sat gets a pending home, moved to the key's directory when its
    session ends. A door killed meanwhile (``kill -9``, a crash) never moved it: it was in the
    system's temporary directory, and the player back with the same key found their seat away
    and no token to take it with. The pending homes live beside the players' directories now,
    and a door's start keeps each whose player sat (and deletes the rest)."""
    data = tmp_path / "data"
    sat = ssh.new_pending_home(data, "SHA256:" + "s" * 43)
    (sat / "config" / "sheepshead").mkdir(parents=True)
    (sat / "config" / "sheepshead" / "tokens.json").write_text("{}", encoding="utf-8")
    looked = ssh.new_pending_home(data, "SHA256:" + "l" * 43)
    stray = data / PLAYERS_DIR / ssh.PENDING_DIR / "stray"
    stray.mkdir()
    assert sat.parent == looked.parent == stray.parent
    async with ssh_door(tmp_path):
        home = ssh.player_home(data, "SHA256:" + "s" * 43)
        assert (home / "config" / "sheepshead" / "tokens.json").exists()
        assert (home / "fingerprint").read_text(encoding="ascii") == "SHA256:" + "s" * 43 + "\n"
        assert not ssh.player_home(data, "SHA256:" + "l" * 43).exists()
        assert not (data / PLAYERS_DIR / ssh.PENDING_DIR).exists()
