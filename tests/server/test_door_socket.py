"""``serve --local-socket`` and ``serve --server-socket``: the options' checks, the socket's
permissions, a stale socket and a live one, the doors-only command, the allowances of a
doors process (:class:`server.doors.host.RemoteServer`), and the doors' local-only requests
(PROTOCOL.md §15: answered on the local socket, refused over TCP). The restart itself, and a
second window's question and the standings tag through a doors process:
tests/e2e/test_door_process.py."""

from __future__ import annotations

import asyncio
import doctest
import errno
import gc
import os
import signal
import socket
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

from client.cli import main
from server import cli
from server.config import ServerConfig
from server.doors import child as door_child
from server.doors.child import WAITING, wait_for_server
from server.doors.host import ASK_TIMEOUT, RemoteServer
from server.storage.standings import identity_of
from tests.server.support import Raw, running_server, serve_banner, start_serve

FINGERPRINT = "SHA256:" + "q" * 43
"""An SSH key's fingerprint, as the SSH door sends it."""


def test_socket_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--server-socket", "/tmp/x.sock"]) == 2
    assert "--server-socket needs --ssh PORT or --web PORT" in capsys.readouterr().err
    assert main(["serve", "--server-socket", "/a", "--local-socket", "/b", "--ssh", "0"]) == 2
    assert "no --local-socket" in capsys.readouterr().err
    assert main(["serve", "--local-socket", "/" + "x" * 200]) == 2
    assert "--local-socket must be a path of 1-107 bytes" in capsys.readouterr().err


async def test_the_socket_is_the_users_own_and_a_live_one_is_not_taken(tmp_path: Path) -> None:
    path = str(tmp_path / "run" / "server.sock")
    async with running_server() as first, running_server() as second:
        await cli._open_local_socket(first, path)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(tmp_path / "run").st_mode) == 0o700
        with pytest.raises(OSError) as refused:
            await cli._open_local_socket(second, path)
        assert refused.value.errno == errno.EADDRINUSE
        assert cli._answers(path)  # still the first server's


async def test_a_stale_socket_is_replaced(tmp_path: Path) -> None:
    path = str(tmp_path / "server.sock")
    with socket.socket(socket.AF_UNIX) as stale:  # a killed server's, left behind
        stale.bind(path)
    assert not cli._answers(path)
    async with running_server() as server:
        await cli._open_local_socket(server, path)
        assert cli._answers(path)


def test_a_doors_process_forgets_the_allowances_of_addresses_gone() -> None:
    remote = RemoteServer(ServerConfig(door_start_rate=1.0), "/nowhere", 7453)
    remote.allowance("192.0.2.1", 0.0).door_starts.take(0.0)
    remote.allowance("192.0.2.2", 0.0).door_starts.take(0.0)
    remote.allowance("192.0.2.3", 0.0)
    remote.forget_allowances(0.5, in_use={"192.0.2.2"})
    assert set(remote._allowances) == {"192.0.2.1", "192.0.2.2"}  # .1 owes a start still
    remote.forget_allowances(100.0, in_use={"192.0.2.2"})
    assert set(remote._allowances) == {"192.0.2.2"}  # a session open there


async def test_the_doors_requests_are_answered_on_the_local_socket_and_refused_over_tcp(
    tmp_path: Path,
) -> None:
    """``door_seat`` and ``door_player`` (PROTOCOL.md §15): a doors process asks them over
    the server's local socket; over TCP each is refused ``local_only``, nothing looked up."""
    path = str(tmp_path / "run" / "server.sock")
    async with running_server() as server:
        await cli._open_local_socket(server, path)
        remote = RemoteServer(server.config, path, server.port)
        ann = await Raw.open(server.port)
        await ann.hello("ann", player_key="k" * 32)
        created = await ann.request("create_table", name="Ann's")
        token = created["token"]
        stranger = await Raw.open(server.port)
        try:
            await stranger.hello("eve", player_key="e" * 32)
            for asked in (
                {"tokens": [token]},
                {"player_key": "k" * 32, "fingerprint": FINGERPRINT, "name": "mallory"},
            ):
                kind = "door_seat" if "tokens" in asked else "door_player"
                refused = await stranger.request(kind, **asked)
                assert (refused["type"], refused["code"]) == ("error", "local_only"), refused
            malformed = await stranger.request("door_seat", tokens=["x"] * 25)
            assert malformed["code"] == "bad_request"
            # On the local socket: the seat's connection is up (a TCP one: no process told).
            local = Raw(*await asyncio.open_unix_connection(path))
            await local.hello("doors")
            reply = await local.request("door_seat", tokens=["nonsense", token])
            expected = {"table": created["table"], "name": "Ann's", "seat": 0, "pid": None}
            assert reply["seats"] == [None, expected]
            assert (await local.request("door_seat", tokens=["x" * 129]))["code"] == "bad_request"
            await local.close()
            # The doors process asks the same, one connection a question.
            (held,) = await remote.held_seats([token])
            assert held is not None and (held["name"], held["seat"]) == ("Ann's", 0)
            assert await remote.held_seats([]) == []
            # Only a known key is tagged: Ann's (she sat), not a key that never sat.
            assert await remote.door_player("k" * 32, FINGERPRINT, "ann")
            assert not await remote.door_player("n" * 32, FINGERPRINT, "nobody")
            rows = server.store._db.execute("SELECT identity, kind, label FROM identities")
            assert set(rows) == {(identity_of("k" * 32), "ssh", FINGERPRINT)}
        finally:
            await stranger.close()
            await ann.close()
        # Ann's connection is gone: her seat is away, not held.
        deadline = time.monotonic() + 10
        while await remote.held_seats([token]) != [None]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    # The server is down: the doors go on at once, as if nothing were held.
    started = time.monotonic()
    assert await remote.held_seats([token, token]) == [None, None]
    assert not await remote.door_player("k" * 32, FINGERPRINT, "ann")
    assert time.monotonic() - started < ASK_TIMEOUT


async def test_a_server_that_does_not_answer_is_given_up_after_the_timeout(tmp_path: Path) -> None:
    """A server that takes the connection and says nothing (stopped, hung): the doors wait
    ``ask_timeout`` at most, then go on as if nothing were held."""
    path = str(tmp_path / "server.sock")
    silent = await asyncio.start_unix_server(lambda reader, writer: None, path)
    remote = RemoteServer(ServerConfig(), path, 7453)
    remote.ask_timeout = 0.2
    try:
        started = time.monotonic()
        assert await remote.held_seats(["t" * 43]) == [None]
        assert not await remote.door_player("k" * 32, FINGERPRINT, "ann")
        assert 0.4 <= time.monotonic() - started < 0.4 + ASK_TIMEOUT
    finally:
        silent.close()


def test_serve_server_socket_runs_only_the_doors_and_stops_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "data" / "s.db"
    doors = start_serve(
        *("--ssh", "0", "--db", str(db)),
        *("--server-socket", str(tmp_path / "none.sock"), "--log-level", "warning"),
    )
    try:
        text = serve_banner(doors)
        assert f"sheepshead doors for the server on {tmp_path / 'none.sock'}" in text
        assert "SSH door on port" in text and "listening on" not in text
        assert "no server answers there yet" in text
        assert (db.parent / "ssh_host_ed25519_key").exists()
        assert not db.exists()  # the doors open no database
        doors.send_signal(signal.SIGTERM)
        out, err = doors.communicate(timeout=30)
        assert doors.returncode == 0 and "doors stopped" in out, err
    finally:
        if doors.poll() is None:
            doors.kill()
            doors.wait()


def test_a_child_waits_for_a_server_that_is_down() -> None:
    assert doctest.testmod(door_child).failed == 0


def test_a_child_started_while_the_server_restarts_waits_for_its_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "server.sock")
    said: list[str] = []
    listener = socket.socket(socket.AF_UNIX)

    def restart() -> None:  # the server is back half a second later
        time.sleep(0.5)
        listener.bind(path)
        listener.listen()

    back = threading.Thread(target=restart)
    back.start()
    try:
        assert wait_for_server(path, 30.0, said.append)
        assert said == [WAITING]  # once, however many dials
        said.clear()
        assert wait_for_server(path, 30.0, said.append) and said == []  # up: not a word
    finally:
        back.join()
        listener.close()
    assert not wait_for_server(str(tmp_path / "none.sock"), 0.3)


async def test_sessions_one_after_another_on_the_local_socket_each_get_an_address(
    tmp_path: Path,
) -> None:
    """Each connection through the local socket is metered as an address of its own
    (``local#N``). It was ``local#`` and the transport's ``id()``, which Python hands out again
    once a transport is freed: a new door session took over a closed one's allowances."""
    path = str(tmp_path / "run" / "server.sock")
    async with running_server() as server:
        await cli._open_local_socket(server, path)
        addresses: set[str] = set()
        for _ in range(40):
            session = Raw(*await asyncio.open_unix_connection(path))
            await session.hello("doors")
            (connection,) = [c for c in server.connections if c.address.startswith("local#")]
            addresses.add(connection.address)
            await session.close()
            deadline = time.monotonic() + 5
            while any(c.address.startswith("local#") for c in server.connections):
                assert time.monotonic() < deadline, "the session's connection stayed open"
                await asyncio.sleep(0.01)
            gc.collect()  # the freed transport's memory is free for the next one's
        assert len(addresses) == 40, sorted(addresses)


def test_keys_typed_while_a_child_waits_for_the_server_never_reach_its_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An Enter pressed while "waiting for it..." was the client's first key once the server
    was back (it joined the lobby's highlighted table; a q ended the session at once)."""
    import client.cli

    master, slave = os.openpty()
    terminal = os.fdopen(slave, "r")
    seen: list[bytes] = []

    def client_main(argv: object) -> int:  # what the client would read first
        os.set_blocking(slave, False)
        try:
            seen.append(os.read(slave, 100))
        except BlockingIOError:
            seen.append(b"")
        return 0

    def slow_server(path: str, seconds: float, say: object) -> bool:
        assert callable(say)
        say(WAITING)
        os.write(master, b"q\r")  # typed while it waits
        return True

    monkeypatch.setenv(door_child.SERVER_WAIT_ENV, "60")
    monkeypatch.setattr(door_child, "wait_for_server", slow_server)
    monkeypatch.setattr(client.cli, "main", client_main)
    monkeypatch.setattr(sys, "stdin", terminal)
    try:
        assert door_child.main(["0", "0", "join", "--socket", "/none.sock", "--name", "x"]) == 0
    finally:
        terminal.close()
        os.close(master)
    assert seen == [b""]


def test_ctrl_c_while_a_child_waits_for_the_server_ends_it_in_a_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl+C at "waiting for it (Ctrl+C leaves)..." showed the player a Python traceback."""

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setenv(door_child.SERVER_WAIT_ENV, "60")
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(time, "sleep", interrupted)
    assert door_child.main(["0", "0", "join", "--socket", "/none.sock", "--name", "x"]) == 130
    out = capsys.readouterr().out
    assert WAITING in out and door_child.GAVE_UP in out and "Traceback" not in out
