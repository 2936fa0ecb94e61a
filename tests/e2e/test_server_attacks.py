"""What one hostile client tried against the real server, each as a regression test over sockets.

Issue 19's holes: a table flood exhausting the table quota, frames that cost far more to decode
than the message limit meters, a second server on the same database through another path, an
echoed value too big for its reply, and a deal forgotten by a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import socket
import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol.framing import encode
from server.app import Server, ServerConfig
from server.tables import lobby as lobby_module
from tests.e2e.test_server_crash import Served, serve_and_fail
from tests.server.support import Raw, next_event, running_server, session


async def raw_from(port: int, source: str) -> Raw:
    """A bare client whose connection comes from ``source`` (another loopback address)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    return Raw(reader, writer)


async def create_and_vanish(port: int, name: str, source: str = "127.0.0.1") -> dict[str, Any]:
    """connect, hello, create_table, disconnect: the flood's one step; returns the reply."""
    raw = await raw_from(port, source)
    await raw.hello(name)
    reply = await raw.request("create_table", name=f"{name}'s flood")
    await raw.close()
    return reply


def raw_frame(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


# ---------------------------------------------------------------------------- 1. table quota


async def test_a_table_flood_from_one_address_stops_at_its_waiting_cap() -> None:
    async with running_server() as server:
        replies = [await create_and_vanish(server.port, f"f{i}") for i in range(20)]
        codes = [r.get("code", "ok") for r in replies]
        cap = server.config.max_waiting_per_address
        assert codes == ["ok"] * cap + ["too_many_tables"] * (20 - cap)
        assert "Your address" in replies[-1]["message"] and replies[-1]["id"] is not None
        assert len(server.lobby.tables) == cap
        # Somebody else (another address) is not affected.
        other = await raw_from(server.port, "127.0.0.2")
        await other.hello("Other")
        assert (await other.request("create_table", name="mine"))["type"] == "ok"
        await other.close()


async def test_a_table_that_never_started_closes_once_nobody_is_at_it() -> None:
    async with running_server(waiting_expiry=0.3) as server:
        vanished = (await create_and_vanish(server.port, "Gone"))["table"]
        host = await Raw.open(server.port)
        await host.hello("Stays")
        kept = (await host.request("create_table", name="kept"))["table"]
        watcher = await Raw.open(server.port)
        await watcher.hello("Watcher")
        watched = (await create_and_vanish(server.port, "Watched"))["table"]
        await watcher.request("watch", table=watched)
        await asyncio.sleep(1.5)
        listed = {t["id"] for t in (await host.request("list_tables"))["tables"]}
        assert vanished not in listed and vanished not in server.lobby.tables
        assert kept in listed and watched in listed  # somebody is at those
        await host.close()
        await watcher.close()


async def test_a_table_that_never_started_leaves_nothing_in_the_database() -> None:
    """Tables made and left in a loop (three at a time per address, each closed a minute
    later) added rows for good: the table, its seats and their links to players. A table
    that never started is deleted when it closes; everything else is kept."""
    async with running_server(waiting_expiry=0.3) as server:
        store = server.store
        assert store is not None

        def rows(sql: str) -> int:
            return int(store._db.execute(sql).fetchone()[0])

        before = [rows(f"SELECT count(*) FROM {t}") for t in ("tables", "seats", "seat_identities")]
        raw = await Raw.open(server.port)
        await raw.hello("Keyed", player_key="a-key-of-twenty-characters")
        table = (await raw.request("create_table", name="left"))["table"]
        assert rows("SELECT count(*) FROM seat_identities") == before[2] + 1
        await raw.close()
        for _ in range(100):
            if table not in server.lobby.tables:
                break
            await asyncio.sleep(0.05)
        assert table not in server.lobby.tables
        after = [rows(f"SELECT count(*) FROM {t}") for t in ("tables", "seats", "seat_identities")]
        assert after == before


async def test_a_restored_table_that_never_started_closes_too(tmp_path: Path) -> None:
    db = tmp_path / "flood.db"
    async with running_server(db_path=db) as server:
        table = (await create_and_vanish(server.port, "Before"))["table"]
    server = Server(ServerConfig(host="127.0.0.1", port=0, db_path=db, waiting_expiry=0.3))
    await server.start()
    try:
        assert table in server.lobby.tables  # back after the restart ...
        await asyncio.sleep(1.5)
        assert table not in server.lobby.tables  # ... for as long as an unrestored one
    finally:
        await server.stop()
    server = Server(ServerConfig(host="127.0.0.1", port=0, db_path=db))
    await server.start()
    try:
        assert server.restored == 0  # closed for good, not brought back with a fresh hour
    finally:
        await server.stop()


async def test_empty_waiting_tables_never_push_a_table_with_people_out_of_the_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lobby_module, "LIST_BUDGET", 4000)  # room for a few summaries
    async with running_server(max_waiting_per_address=100) as server:
        for i in range(12):
            await create_and_vanish(server.port, f"e{i}")
        host = await Raw.open(server.port)
        await host.hello("Real")
        real = (await host.request("create_table", name="real people"))["table"]
        reply = await host.request("list_tables")
        ids = [t["id"] for t in reply["tables"]]
        assert reply["truncated"] is True and real in ids
        assert ids == sorted(ids)  # still in the usual order (all are waiting)
        await host.close()


# ---------------------------------------------------------------------------- 2. cost limits


async def test_frames_bigger_than_their_type_allows_are_dropped_undecoded() -> None:
    async with running_server(byte_burst=1e6, address_byte_burst=1e6) as server:  # see below
        raw = await Raw.open(server.port)
        await raw.hello()
        empty_lists = msgpack.packb({"type": "ping", "id": 7, "pad": [[]] * 3000})
        await raw.send_bytes(raw_frame(empty_lists))
        reply = await raw.expect_reply(7)
        assert reply["code"] == "request_too_large" and "512" in reply["message"]
        chat = {"type": "chat", "id": 8, "text": " a" * 1100}
        await raw.send_bytes(encode(chat))
        assert (await raw.expect_reply(8))["code"] == "request_too_large"
        # The 64 KiB frame of 65,000 empty lists: refused by its type, id kept.
        worst = msgpack.packb({"type": "create_table", "id": 9, "options": [[]] * 65000})
        assert len(worst) < 65536
        await raw.send_bytes(raw_frame(worst))
        assert (await raw.expect_reply(9))["code"] == "request_too_large"
        assert (await raw.request("ping"))["type"] == "ok"  # the connection goes on
        await raw.close()


async def test_chat_length_is_checked_before_cleaning() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.request("create_table")
        reply = await raw.request("chat", text=" a" * 450)  # 900 characters, 1 KiB frame
        assert reply["code"] == "bad_request" and "200" in reply["message"]
        assert (await raw.request("chat", text="hello"))["type"] == "ok"
        await raw.close()


async def test_request_bytes_are_metered_not_only_messages() -> None:
    async with running_server(byte_rate=100.0, byte_burst=5000.0) as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        padded = {"type": "ping", "pad": "x" * 400}  # about 420 bytes, well within 20 a second
        replies = [await raw.request(**padded) for _ in range(14)]
        codes = [r.get("code", "ok") for r in replies]
        assert codes[:10] == ["ok"] * 10 and codes[-1] == "rate_limited"
        assert replies[-1]["id"] == raw.ids  # the dropped request's own id
        assert "bytes" in replies[-1]["message"]
        for _ in range(12):  # another full burst of excess: closed, with id nil
            await raw.send(padded)
        closing = [m for m in await raw.closed() if m.get("id") is None]
        assert [(m["type"], m["code"]) for m in closing] == [("error", "rate_limited")]


async def test_reconnecting_does_not_refill_an_addresss_byte_allowance() -> None:
    async with running_server(address_byte_rate=10.0, address_byte_burst=3000.0) as server:
        padded = {"type": "ping", "pad": "x" * 400}
        first = await Raw.open(server.port)
        await first.hello()
        for _ in range(8):
            await first.request(**padded)
        await first.close()
        second = await Raw.open(server.port)
        # As big as a ping: what the first connection left of the allowance is not enough (a
        # refused request costs nothing, so a small one could still pass).
        reply = await second.request("hello", version=1, name="again", pad="x" * 400)
        assert reply["code"] == "rate_limited" and reply["id"] == second.ids
        assert (await second.request(**padded))["code"] == "rate_limited"  # dropped, not closed
        elsewhere = await raw_from(server.port, "127.0.0.2")
        await elsewhere.hello("Elsewhere")  # another address: its own allowance
        await second.close()
        await elsewhere.close()


async def test_new_connections_are_metered_per_address() -> None:
    async with running_server(connection_rate=0.5, connection_burst=3.0) as server:
        for _ in range(3):
            raw = await Raw.open(server.port)
            await raw.hello()
            await raw.close()
        refused = await Raw.open(server.port)
        seen = await refused.closed()
        assert [(m["code"], m["id"]) for m in seen] == [("too_many_connections", None)]
        elsewhere = await raw_from(server.port, "127.0.0.2")
        await elsewhere.hello("Elsewhere")
        await elsewhere.close()


async def test_two_clients_sending_big_frames_are_cut_off_while_another_table_is_answered() -> None:
    """What the limits do, not how fast: both attackers are cut off before their 200 frames
    (12 MB) are through, and every ping of a player at another table is answered meanwhile.
    The ping's latency under this attack is bench/attack.py's to show."""
    async with running_server() as server:
        victim = await Raw.open(server.port)
        await victim.hello("Victim")
        await victim.request("create_table", name="victim")

        async def attack(n: int) -> tuple[int, bool]:
            raw = await Raw.open(server.port, source=f"127.0.0.{n + 2}")
            await raw.hello(f"attacker{n}")
            frame = raw_frame(msgpack.packb({"type": "ping", "id": 1, "x": [[]] * 60000}))
            sent = 0
            try:
                for _ in range(200):
                    raw.writer.write(frame)
                    await raw.writer.drain()
                    sent += 1
            except ConnectionError:
                pass
            # Cut off: the server closes its side, and reading reaches the end of the stream.
            cut_off = False
            with contextlib.suppress(ConnectionError):
                while await asyncio.wait_for(raw.reader.read(65536), 20):
                    pass
                cut_off = True
            if not cut_off:
                cut_off = raw.reader.at_eof() or raw.writer.is_closing()
            await raw.close()
            return sent, cut_off

        attackers = [asyncio.create_task(attack(n)) for n in range(2)]
        answered = 0
        for _ in range(50):
            answered += (await victim.request("ping"))["type"] == "ok"
            await asyncio.sleep(0.05)  # well within the victim's own 20 messages a second
        results = await asyncio.gather(*attackers)
        assert answered == 50
        assert all(cut_off for _, cut_off in results), results
        await victim.close()


# ---------------------------------------------------------------------------- 3. the lock


@pytest.mark.parametrize("how", ["symlink", "hard link"])
async def test_a_second_server_through_another_path_is_refused(tmp_path: Path, how: str) -> None:
    db = tmp_path / "real.db"
    first = await Served.start(db)
    try:
        other = tmp_path / "elsewhere" / "other.db"
        other.parent.mkdir()
        if how == "symlink":
            other.symlink_to(db)
        else:
            os.link(db, other)
        returncode, message = await serve_and_fail(other)
        assert returncode == 1, message
        assert "in use by another sheepshead server" in message
        assert f"(process {first.proc.pid})" in message and str(other) in message
    finally:
        await first.kill()


# ---------------------------------------------------------------------------- 4. echoes


async def test_an_echoed_value_never_costs_a_reply_its_id() -> None:
    # Byte allowances that let 17 kB through: the size limit is what this one is about.
    async with running_server(byte_burst=1e5, address_byte_burst=1e5) as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        # The request: now too big for its type, and the reply still says which it was.
        await raw.send({"type": "create_table", "id": 101, "options": {"no_pick": "\x01" * 17000}})
        reply = await raw.expect_reply(101)
        assert reply["code"] == "request_too_large"
        # Within the limit, the real error comes back, quoting a short cleaned prefix.
        await raw.send({"type": "create_table", "id": 102, "options": {"no_pick": "\x01" * 3000}})
        reply = await raw.expect_reply(102)
        assert reply["code"] == "bad_rules" and len(reply["message"]) <= 200
        assert reply["message"].isprintable()
        await raw.send({"type": "create_table", "id": 103, "options": {"x" * 3000: 1}})
        reply = await raw.expect_reply(103)
        assert reply["code"] == "bad_rules" and len(reply["message"]) <= 200
        await raw.send({"type": "fly" + "\x1b[2J" * 100, "id": 104})
        reply = await raw.expect_reply(104)
        assert reply["code"] == "unknown_type" and "\x1b" not in reply["message"]
        await raw.close()


# ---------------------------------------------------------------------------- 5. the deal


async def test_kill_9_right_after_a_deal_resumes_the_same_hand(tmp_path: Path) -> None:
    db = tmp_path / "deal.db"
    served = await Served.start(db)
    host = session(served.port, "Dealt", tmp_path)
    await host.connect()
    table = (await host.request("create_table", name="deal", hands=3))["table"]
    for _ in range(4):
        await host.request("add_bot", strategy="random")
    await host.request("start")

    async def play_first_hand() -> dict[str, Any]:
        while True:
            msg = await host.events.get()
            if msg["type"] == "your_turn":
                await host.act(msg["legal"][0], seq=msg["seq"])
            elif msg["type"] == "state" and msg["hand"] == 1:
                return msg

    dealt = await asyncio.wait_for(play_first_hand(), 20)
    await served.kill()  # the moment the second hand's first state arrived
    cards = dealt["view"]["hand"]
    await next_event(host, "connection", status="reconnecting")  # skips what came before

    # A long pause: were the deal not stored, the snapshot would show the first hand, done.
    served = await Served.start(db, served.port, hand_pause=30.0)
    snapshot = await next_event(host, "state", timeout=10)
    assert snapshot["table"] == table and snapshot["hand"] == 1
    assert snapshot["view"]["phase"] != "done" and snapshot["seq"] >= dealt["seq"]
    assert snapshot["view"]["hand"] == cards  # the host has not acted in this hand yet
    await host.close()
    await served.terminate()


# ---------------------------------------------------------------------------- memory


def server_transports(port: int) -> int:
    """Socket transports of the server's end of connections to ``port`` still in memory."""
    return sum(
        1
        for o in gc.get_objects()
        if isinstance(o, asyncio.Transport) and (o.get_extra_info("sockname") or ("", 0))[1] == port
    )


def connect_and_leave(port: int, count: int, source: str) -> int:
    """``count`` connections from ``source`` held open together, then closed; some say hello
    first. Plain blocking sockets: no client transport to count."""
    socks = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        if i % 2:
            sock.sendall(encode({"type": "hello", "id": 1, "version": 1, "name": f"churn{i}"}))
        socks.append(sock)
    for sock in socks:
        sock.close()
    return len(socks)


async def test_a_closed_connection_is_freed_at_once_not_at_the_next_full_collection() -> None:
    """A client that connects and is cut off thousands of times a second left each connection's
    transport in a reference cycle, for the full collection the server's settings put off for
    up to half an hour: some 5 MB a second. Refused connections (over the per-address cap)
    included, none stays once it is closed, with the collector off."""
    async with running_server(max_per_address=16) as server:
        gc.collect()
        gc.disable()
        try:
            opened = await asyncio.to_thread(connect_and_leave, server.port, 24, "127.0.0.41")
            assert opened > server.config.max_per_address  # some were refused
            # Refused ones are cut off REFUSED_LINGER (0.5 s) after their error.
            for _ in range(150):
                if not server.connections and not server_transports(server.port):
                    break
                await asyncio.sleep(0.02)
            assert not server.connections
            assert server_transports(server.port) == 0
        finally:
            gc.enable()


async def test_a_second_hello_is_refused_and_changes_nothing() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        welcome = await raw.hello("Ann")
        reply = await raw.request("hello", version=1, name="Bob")
        assert reply["type"] == "error" and reply["code"] == "bad_request"
        assert "already received" in reply["message"]
        created = await raw.request("create_table", name="t")  # still Ann, still open
        assert created["type"] == "ok"
        (conn,) = server.connections
        assert conn.name == welcome["name"] == "Ann"
        await raw.close()
