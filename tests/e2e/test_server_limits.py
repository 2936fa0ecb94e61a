"""Bad input, limits and misbehaving bots: the server answers, closes when it must, never falls."""

from __future__ import annotations

import asyncio
import queue
import socket
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest

from client.session import ServerError
from engine.bots import STRATEGIES, register
from protocol.framing import encode
from tests.server.support import Raw, next_event, running_server, session


def raw_frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


async def test_garbage_frames_are_answered_and_the_connection_goes_on() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.send_bytes(raw_frame(b"\xc1"))
        await raw.send_bytes(raw_frame(msgpack.packb([1, 2, 3])))
        await raw.send_bytes(raw_frame(msgpack.packb({1: "x"})))
        await raw.send_bytes(raw_frame(b""))
        codes = [(await raw.expect("error"))["code"] for _ in range(4)]
        assert codes == ["bad_frame", "not_a_map", "bad_key", "bad_frame"]
        reply = await raw.request("hello", version=1, client="t", kind="human")
        assert reply["code"] == "bad_request" and "'name'" in reply["message"]
        await raw.hello("Still here")
        reply = await raw.request("fly", to="moon")
        assert reply["code"] == "unknown_type" and reply["id"] == raw.ids
        reply = await raw.request("join", table=["t1"])
        assert reply["code"] == "bad_request" and "'table'" in reply["message"]
        reply = await raw.request("hello", version=1, client="t", kind="human", name="Again")
        assert reply["code"] == "bad_request"
        reply = await raw.request("hello", version=99, name="Again")
        assert reply["code"] == "bad_request"  # not version_unsupported: no reason to close
        assert (await raw.request("ping"))["type"] == "ok"
        assert (await raw.request("list_tables"))["tables"] == []
        await raw.close()


async def test_oversized_frame_is_refused_and_the_connection_closed() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.send_bytes(struct.pack(">I", 70_000) + b"\x80" * 100)
        seen = await raw.closed()
        assert [m["code"] for m in seen if m["type"] == "error"] == ["frame_too_large"]


async def test_handshake_rules() -> None:
    async with running_server(handshake_timeout=0.3) as server:
        raw = await Raw.open(server.port)
        await raw.send({"type": "list_tables"})
        seen = await raw.closed()
        assert [m["code"] for m in seen] == ["handshake_required"]

        raw = await Raw.open(server.port)
        await raw.send({"type": "hello", "version": 99, "name": "Future", "client": "x"})
        seen = await raw.closed()
        assert seen[0]["code"] == "version_unsupported" and seen[0]["supported"] == [1]
        assert seen[0]["id"] == raw.ids and len(seen) == 1

        raw = await Raw.open(server.port)
        started = time.monotonic()
        seen = await raw.closed()
        assert [m["code"] for m in seen] == ["handshake_timeout"]
        assert time.monotonic() - started < 2.0


async def test_floods_are_rate_limited_then_cut_off() -> None:
    async with running_server(rate=5.0, burst=5.0) as server:
        raw = await Raw.open(server.port)
        await raw.send_bytes(b"".join(encode({"type": "ping", "id": i}) for i in range(40)))
        seen = await raw.closed()
        kinds = [m.get("code", m["type"]) for m in seen]
        assert kinds[:1] == ["ok"] or kinds[0] == "handshake_required"
        # ping before hello ends the handshake; flood a greeted connection instead.
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.send_bytes(b"".join(encode({"type": "ping", "id": i}) for i in range(40)))
        seen = await raw.closed()
        kinds = [m.get("code", m["type"]) for m in seen]
        assert kinds.count("ok") <= 5 and "rate_limited" in kinds
        assert seen[-1]["code"] == "rate_limited" and seen[-1]["id"] is None
        assert len(seen) < 20  # cut off long before the 40th message


UNMETERED: dict[str, Any] = {
    "rate": 1e6,
    "burst": 1e6,
    "byte_rate": 1e9,
    "byte_burst": 1e9,
    "address_byte_rate": 1e9,
    "address_byte_burst": 1e9,
    "max_waiting_per_address": 12,
}
"""Limits out of the way of a test that fills a send buffer with ``list_tables`` answers."""


async def twelve_hosts(port: int) -> list[Raw]:
    """Twelve clients, each host of a waiting table, so that a listing is some 4 kB."""
    hosts = [await Raw.open(port) for _ in range(12)]
    for number, host in enumerate(hosts):
        await host.hello(f"Host {number}")
        await host.request("create_table", name=f"A table with a long name {number}")
    return hosts


async def deaf_client(port: int, name: str) -> Raw:
    """A client with a small receive window, so that what is sent to it backs up in the
    server, not in this socket."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    client = Raw(*await asyncio.open_connection(sock=sock))
    await client.hello(name)
    return client


async def test_a_client_that_does_not_read_is_cut_off(caplog: pytest.LogCaptureFixture) -> None:
    async with running_server(max_send_buffer=65_536, **UNMETERED) as server:
        hosts = await twelve_hosts(server.port)
        deaf = await deaf_client(server.port, "Deaf")
        # Each answer lists twelve tables (4 kB); none is read. The kernel takes the first few
        # MB (its send buffer grows to 4 MB), the server's own buffer the next 64 kB.
        deaf.writer.write(encode({"type": "list_tables", "id": 1}) * 3000)
        deadline = time.monotonic() + 10
        while "Deaf: not reading; cut off" not in caplog.text and time.monotonic() < deadline:
            assert (await hosts[0].request("ping"))["type"] == "ok"  # everyone else goes on
            await asyncio.sleep(0.05)
        assert "Deaf: not reading; cut off" in caplog.text
        assert not any(c.name == "Deaf" for c in server.connections)
        deaf.writer.transport.abort()
        for host in hosts:
            assert (await host.request("ping"))["type"] == "ok"
            await host.close()


async def test_too_many_connections_from_one_address() -> None:
    async with running_server(max_per_address=2) as server:
        first, second = await Raw.open(server.port), await Raw.open(server.port)
        await first.hello("one")
        await second.hello("two")
        third = await Raw.open(server.port)
        seen = await third.closed()
        assert [m["code"] for m in seen] == ["too_many_connections"]
        await first.close()
        deadline = time.monotonic() + 10  # the server notices the close on its own loop turn
        while len(server.connections) > 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        fourth = await Raw.open(server.port)
        await fourth.hello("four")  # a freed slot can be used again
        for raw in (second, fourth):
            await raw.close()


async def test_idle_connections_are_pinged_then_closed() -> None:
    async with running_server(ping_interval=0.2, idle_timeout=0.6) as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        ping = await raw.recv(timeout=2)
        assert ping == {"type": "ping"}
        await raw.send_bytes(encode({"type": "pong"}))
        assert await raw.recv(timeout=2) == {"type": "ping"}  # the pong kept it open
        seen = await raw.closed()
        assert [m.get("code") for m in seen] == ["idle_timeout"]


async def test_server_shutdown_is_announced(tmp_path: Path) -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        stopping = asyncio.create_task(server.stop())
        seen = await raw.closed()
        await stopping
        assert [m.get("code") for m in seen] == ["server_shutdown"]


@dataclass
class SlowDecision:
    """One decision of the ``slow`` strategy: it thinks until ``released`` (20 s at most),
    then sets ``done``."""

    released: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)


SLOW_DECISIONS: queue.Queue[SlowDecision] = queue.Queue()
"""Each decision the ``slow`` strategy starts, in order."""
SLOW_RELEASE_ALL = threading.Event()
"""Once set, the ``slow`` strategy decides at once."""


@pytest.fixture
def odd_strategies() -> Iterator[None]:
    """Register strategies that raise, cheat, or think slowly; remove them afterwards."""

    class Raises:
        name = "raises"

        def __init__(self, *, seed: int | None = None) -> None:
            pass

        def choose(self, view: Any, legal: Sequence[Any]) -> Any:
            raise RuntimeError("this bot is broken")

    class Cheats:
        name = "cheats"

        def __init__(self, *, seed: int | None = None) -> None:
            pass

        def choose(self, view: Any, legal: Sequence[Any]) -> Any:
            return {"action": "play", "card": "QC", "seat": (view["seat"] + 1) % 5}

    class Slow:
        name = "slow"

        def __init__(self, *, seed: int | None = None) -> None:
            pass

        def choose(self, view: Any, legal: Sequence[Any]) -> Any:
            decision = SlowDecision()
            if not SLOW_RELEASE_ALL.is_set():
                SLOW_DECISIONS.put(decision)
                decision.released.wait(20)
            decision.done.set()
            return legal[0]

    register("raises", "raises every time")(Raises)
    register("cheats", "returns an illegal action")(Cheats)
    register("slow", "thinks until released")(Slow)
    SLOW_RELEASE_ALL.clear()
    try:
        yield
    finally:
        for name in ("raises", "cheats", "slow"):
            STRATEGIES.pop(name, None)


async def answer_prompts(s: Any) -> dict[str, Any]:
    """Answer every prompt with the first legal action; returns the match_over."""
    while True:
        msg = await s.events.get()
        if msg["type"] == "your_turn":
            try:
                await s.act(msg["legal"][0], seq=msg["seq"])
            except ServerError as exc:
                assert exc.code == "stale", exc  # a re-prompt overtook this one
        elif msg["type"] == "match_over":
            return dict(msg)


async def test_broken_strategies_do_not_stop_the_table(
    odd_strategies: None, tmp_path: Path
) -> None:
    # Strategies registered in this process run in a thread of the server (bot_workers 0);
    # tests/e2e/test_bot_pool.py has the same cases in worker processes.
    async with running_server(bot_workers=0) as server:
        me = session(server, "Human", tmp_path)
        await me.connect()
        await me.request("create_table", name="odd", hands=1)
        for strategy in ("raises", "cheats", "raises", "cheats"):
            await me.request("add_bot", strategy=strategy)
        await me.request("start")
        over = await asyncio.wait_for(answer_prompts(me), 10)
        assert sum(over["totals"]) == 0 and over["hands"] == 1
        await me.close()


async def test_a_slow_strategy_does_not_freeze_other_tables(
    odd_strategies: None, tmp_path: Path
) -> None:
    # Strategies registered in this process run in a thread of the server (bot_workers 0);
    # tests/e2e/test_bot_pool.py has the same cases in worker processes.
    async with running_server(bot_workers=0) as server:
        me = session(server, "Patient", tmp_path)
        await me.connect()
        await me.request("create_table", name="slow", hands=None)
        for _ in range(4):
            await me.request("add_bot", strategy="slow")
        await me.request("start")
        answering = asyncio.create_task(answer_prompts(me))
        other = await Raw.open(server.port)
        await other.hello("Elsewhere")
        # Structure, not timing: while a bot is in the middle of a decision, another table's
        # ping is answered. Thinking on the event loop would hold the answer until the bot is
        # released, and the wait below would time out.
        for _ in range(3):
            decision = await asyncio.to_thread(SLOW_DECISIONS.get, timeout=30)
            reply = await asyncio.wait_for(other.request("ping"), 30)
            assert reply["type"] == "ok" and not decision.done.is_set()
            decision.released.set()
        SLOW_RELEASE_ALL.set()
        while not SLOW_DECISIONS.empty():
            SLOW_DECISIONS.get().released.set()
        answering.cancel()
        await me.request("end_match")
        await other.close()
        await me.close()


async def test_turn_timer_lets_a_bot_move_and_says_so(tmp_path: Path) -> None:
    async with running_server() as server:
        me = session(server, "Sleepy", tmp_path)
        await me.connect()
        await me.request("create_table", name="timed", hands=None, turn_timer=0.3)
        for _ in range(4):
            await me.request("add_bot", strategy="random")
        await me.request("start")
        prompt = await next_event(me, "your_turn", timeout=5)
        assert 0 < prompt["deadline"] <= 0.3
        notice = await next_event(me, "notice", code="timer_expired", timeout=5)
        assert notice["seat"] == 0
        moved = await next_event(me, "state")
        assert moved["last"]["seat"] == 0 and moved["seq"] > prompt["seq"]
        await me.request("end_match")
        await me.close()


async def test_absent_player_is_replaced_after_grace_and_comes_back(tmp_path: Path) -> None:
    async with running_server() as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        reply = await host.request("create_table", name="grace", hands=None, grace=0.2)
        table = reply["table"]
        away = await Raw.open(server.port)
        await away.hello("Away")
        joined = await away.request("join", table=table, seat=1)
        for _ in range(3):
            await host.request("add_bot", strategy="random")
        await host.request("start")
        answering = asyncio.create_task(answer_prompts(host))
        await away.close()
        # answer_prompts consumes host events; watch with a spectator instead.
        watcher = session(server, "Watcher", tmp_path)
        await watcher.connect()
        await watcher.request("watch", table=table)
        notice = await next_event(watcher, "notice", code="standin", timeout=5)
        assert notice["seat"] == 1
        info = None
        while True:  # the stand-in plays for seat 1
            state = await next_event(watcher, "state", timeout=5)
            info = state.get("info", info)  # left out while unchanged
            if state["last"] and state["last"]["seat"] == 1:
                break
        assert info is not None and info["seats"][1]["standin"] is True
        back = await Raw.open(server.port)
        welcome = await back.hello("Away", token=joined["token"])
        assert (welcome["table"], welcome["seat"]) == (table, 1)
        snapshot = await back.expect("state")
        assert snapshot["seat"] == 1 and snapshot["info"]["seats"][1]["standin"] is False
        await next_event(watcher, "notice", code="reconnected")
        answering.cancel()
        await host.request("end_match")
        await back.close()
        for s in (host, watcher):
            await s.close()


async def test_a_seat_left_mid_match_is_played_by_a_bot_and_can_be_taken(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"L{i}", tmp_path) for i in range(2)]
        for s in players:
            await s.connect()
        reply = await players[0].request("create_table", name="leaving", hands=None)
        await players[1].request("join", table=reply["table"], seat=4)
        for _ in range(3):
            await players[0].request("add_bot", strategy="random")
        await players[0].request("start")
        answering = asyncio.create_task(answer_prompts(players[0]))
        await players[1].request("leave")
        newcomer = session(server, "Late", tmp_path)
        await newcomer.connect()
        [summary] = (await newcomer.request("list_tables"))["tables"]
        assert summary["seats"][4]["kind"] == "empty" and summary["seats"][4]["standin"]
        joined = await newcomer.request("join", table=reply["table"])
        assert joined["seat"] == 4
        state = await next_event(newcomer, "state")
        assert state["seat"] == 4 and len(state["view"]["hand"]) > 0
        answering.cancel()
        await players[0].request("end_match")
        for s in (*players, newcomer):
            await s.close()


async def test_clients_that_do_not_read_are_cut_off_when_all_of_them_hold_too_much(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each deaf client stays under its own ``max_send_buffer``, but together they pass
    ``max_send_buffers_total``: the one with the most queued goes first, and everyone else
    goes on."""
    async with running_server(
        max_send_buffer=1 << 24, max_send_buffers_total=600_000, **UNMETERED
    ) as server:
        hosts = await twelve_hosts(server.port)
        deaf: list[Raw] = []
        for number, asks in enumerate((1500, 3000)):
            client = await deaf_client(server.port, f"Deaf {number}")
            # Each answer lists twelve tables (4 kB); none is read: after the kernel's few MB,
            # the first backs up some 2 MB in the server, the second some 8 MB.
            client.writer.write(encode({"type": "list_tables", "id": 1}) * asks)
            deaf.append(client)

        def names() -> set[str]:
            return {c.name for c in server.connections}

        deadline = time.monotonic() + 15
        while "Deaf 1" in names() and time.monotonic() < deadline:
            assert (await hosts[0].request("ping"))["type"] == "ok"  # everyone else goes on
            await asyncio.sleep(0.05)
        assert "Deaf 1" not in names()
        cuts = [r.getMessage() for r in caplog.records if "all clients' come to" in r.getMessage()]
        assert cuts and "Deaf 1" in cuts[0], cuts
        for client in deaf:
            client.writer.transport.abort()
        for host in hosts:
            assert (await host.request("ping"))["type"] == "ok"
            await host.close()


async def test_history_requests_have_their_own_allowance() -> None:
    """Each ``history`` unpacks and packs up to a frame of hands: a spectator asking for it at
    the full message rate cost the server a quarter of a core. Past ``history_burst`` it gets
    ``rate_limited`` with the request's id; its other requests go on."""
    async with running_server(history_burst=3.0, history_rate=0.01) as server:
        host = await Raw.open(server.port)
        await host.hello("Host")
        table = (await host.request("create_table", name="t"))["table"]
        replies = [await host.request("history", table=table) for _ in range(4)]
        assert [r["type"] for r in replies] == ["ok", "ok", "ok", "error"]
        assert replies[-1]["code"] == "rate_limited" and replies[-1]["id"] is not None
        assert (await host.request("ping"))["type"] == "ok"
        await host.close()


async def test_standings_requests_have_their_own_allowance() -> None:
    """Each ``standings`` adds up every finished match the server has stored."""
    async with running_server(standings_burst=2.0, standings_rate=0.01) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Asker")
        replies = [await raw.request("standings") for _ in range(3)]
        assert [r.get("code", r["type"]) for r in replies] == ["ok", "ok", "rate_limited"]
        assert (await raw.request("ping"))["type"] == "ok"
        await raw.close()
