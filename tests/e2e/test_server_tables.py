"""Issues 27 and 28 over real sockets: abandoned running tables, prompted actions under the
message rate, the order of the frame limits, and one player key in two seats of a table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgpack

from server.app import Server
from server.storage.standings import identity_of
from tests.e2e.test_server_attacks import create_and_vanish, raw_frame, raw_from
from tests.server.support import (
    TIMEOUT,
    Raw,
    disk_config,
    raw_bot_table,
    raw_play,
    running_server,
)


async def poll(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    """Wait until ``condition()`` holds, failing after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def start_and_abandon(port: int, source: str, **create: Any) -> dict[str, Any]:
    """The issue's loop step: create, four bots, start, remove the bots (so that they no longer
    count against the address), disconnect. Returns the create_table reply (an error when it
    was refused; then nothing else is tried)."""
    raw = await raw_from(port, source)
    await raw.hello("looper")
    reply = await raw.request("create_table", name="abandoned", **create)
    if reply["type"] == "ok":
        for _ in range(4):
            assert (await raw.request("add_bot", strategy="random"))["type"] == "ok"
        started = await raw.request("start")
        if started["type"] != "ok":
            reply = started
        else:
            for seat in range(1, 5):
                assert (await raw.request("remove_bot", seat=seat))["type"] == "ok"
    await raw.close()
    return reply


# ---------------------------------------------------------------------------- abandoned tables


async def test_a_running_table_nobody_is_connected_to_closes_after_its_grace() -> None:
    async with running_server(waiting_expiry=0.2) as server:
        reply = await start_and_abandon(server.port, "127.0.0.1", grace=0.3)
        table = reply["table"]
        assert server.lobby.tables[table].state == "playing"
        await poll(lambda: table not in server.lobby.tables, "the abandoned table to close")
        assert server.store is not None
        # Closed as an ended match is: one that finished no hand stores no results (the
        # standings count nothing for it).
        assert server.store.results(table) == []
        assert server.lobby.bots_seated_by("127.0.0.1") == 0


async def test_a_running_table_with_somebody_connected_stays() -> None:
    async with running_server(waiting_expiry=0.2) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Stays")
        table = (await raw_bot_table(raw, hands=None, grace=0.2))["table"]
        assert (await raw.request("start"))["type"] == "ok"
        watcher = await Raw.open(server.port)
        await watcher.hello("Watcher")
        assert (await watcher.request("watch", table=table))["type"] == "ok"
        await raw.close()  # the host is away; somebody still watches
        await asyncio.sleep(1.0)  # several sweeps, well past the grace
        assert server.lobby.tables[table].state == "playing"
        await watcher.close()
        await poll(lambda: table not in server.lobby.tables, "the table to close")


async def test_a_host_alone_at_a_waiting_table_who_drops_keeps_it_and_a_leave_frees_it() -> None:
    """A club evening's host reloaded their browser tab (the door's client ends: a dropped
    connection, not a ``leave``) at a table not yet started, alone at it, and was reported to
    find the table gone. A drop keeps the seat and the table for the token until
    ``waiting_expiry`` (tests/e2e/test_server_attacks.py closes one nobody comes back to);
    an explicit ``leave`` of the last person closes it at once."""
    async with running_server() as server:  # the default expiry: the reconnect is well within
        host = await Raw.open(server.port)
        await host.hello("Host")
        created = await host.request("create_table", name="waiting")
        table = created["table"]
        await host.close()
        await poll(lambda: server.lobby.tables[table].seats[0].peer is None, "the host gone")
        server.lobby.sweep()  # a sweep meanwhile closes nothing: the expiry has not run out
        back = await Raw.open(server.port)
        welcome = await back.hello("Host", token=created["token"])
        assert (welcome["table"], welcome["seat"], welcome["name"]) == (table, 0, "Host")
        state = await back.expect("state")
        (seat,) = [s for s in state["info"]["seats"] if s["kind"] == "human"]
        assert (seat["seat"], seat["connected"], state["info"]["host"]) == (0, True, "Host")
        assert server.lobby.tables[table].state == "waiting"
        assert (await back.request("leave"))["type"] == "ok"
        assert table not in server.lobby.tables  # left, not dropped: nothing to wait for
        await back.close()


async def test_started_tables_are_capped_per_address() -> None:
    async with running_server(max_running_per_address=3) as server:
        replies = [await start_and_abandon(server.port, "127.0.0.1", grace=3600) for _ in range(6)]
        codes = [r.get("code", "ok") for r in replies]
        assert codes == ["ok"] * 3 + ["too_many_tables"] * 3
        assert "playing" in replies[-1]["message"]
        # Somebody from another address is not affected.
        other = await raw_from(server.port, "127.0.0.2")
        await other.hello("Other")
        assert (await other.request("create_table", name="mine"))["type"] == "ok"
        await other.close()


async def test_the_caps_of_tables_per_address_hold_across_a_restart(tmp_path: Path) -> None:
    """The address that created each table is stored with it: before, a restart forgot it, and
    an address at its cap of started or of waiting tables could create as many again next to
    its restored ones."""
    db = tmp_path / "caps.db"
    caps = {"max_running_per_address": 1, "max_waiting_per_address": 1, "seed_wait": 0.0}
    server = Server(disk_config(db, **caps))
    await server.start()
    try:
        assert (await start_and_abandon(server.port, "127.0.0.5", grace=3600))["type"] == "ok"
        assert (await create_and_vanish(server.port, "Plays", "127.0.0.5"))["code"] == (
            "too_many_tables"
        )
        assert (await create_and_vanish(server.port, "Waits", "127.0.0.7"))["type"] == "ok"
        assert (await create_and_vanish(server.port, "Waits", "127.0.0.7"))["code"] == (
            "too_many_tables"
        )
    finally:
        await server.stop()

    again = Server(disk_config(db, **caps))
    await again.start()
    try:
        states = sorted(table.state for table in again.lobby.tables.values())
        assert states == ["playing", "waiting"]  # both restored
        running = await create_and_vanish(again.port, "Plays", "127.0.0.5")
        assert running.get("code") == "too_many_tables" and "playing" in running["message"]
        waiting = await create_and_vanish(again.port, "Waits", "127.0.0.7")
        assert waiting.get("code") == "too_many_tables" and "waiting" in waiting["message"]
        assert (await create_and_vanish(again.port, "Other", "127.0.0.6"))["type"] == "ok"
    finally:
        await again.stop()


async def test_start_is_refused_past_the_cap_of_started_tables() -> None:
    async with running_server(max_running_per_address=1) as server:
        first, second = await Raw.open(server.port), await Raw.open(server.port)
        await first.hello("First")
        await second.hello("Second")
        await raw_bot_table(first, bots=4, hands=None)
        await raw_bot_table(second, bots=4, hands=None)
        assert (await first.request("start"))["type"] == "ok"
        refused = await second.request("start")
        assert refused["code"] == "too_many_tables"
        assert second.inbox == [] or all(m["type"] != "your_turn" for m in second.inbox)
        await first.close()
        await second.close()


# ---------------------------------------------------------------------------- prompted actions


async def test_a_bot_answering_every_prompt_at_once_plays_a_long_match_to_the_end() -> None:
    """The README's bot-only server (no delays): a bot that answers each ``your_turn`` at once
    passes 20 messages a second within a few hands; its dropped answer froze the table."""
    quick = {"bot_delay": 0.0, "trick_pause": 0.0, "hand_pause": 0.0, "default_bot": "random"}
    async with running_server(**quick) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Quick")
        await raw_bot_table(raw, hands=30)
        assert (await raw.request_keeping("start"))["type"] == "ok"
        over = await raw_play(raw)  # fails on any error but stale, and on a silent table
        assert over["hands"] == 30
        await raw.close()


async def prompted(raw: Raw) -> dict[str, Any]:
    """A greeted ``raw`` at a started table of four random bots; its first ``your_turn``."""
    await raw_bot_table(raw, hands=None)
    assert (await raw.request_keeping("start"))["type"] == "ok"
    return await raw.expect("your_turn")


async def test_an_answer_to_a_prompt_passes_an_empty_message_allowance_once() -> None:
    async with running_server(rate=0.5, burst=10.0, default_bot="random") as server:
        raw = await Raw.open(server.port)
        await raw.hello("Spent")
        prompt = await prompted(raw)
        for _ in range(12):  # the allowance is used up (the last two are dropped)
            await raw.send({"type": "ping"})
        answer = {"seq": prompt["seq"], "action": prompt["legal"][0]}
        assert (await raw.request_keeping("action", **answer))["type"] == "ok"
        # The same answer again is no answer to a pending prompt: it counts, and is dropped.
        assert (await raw.request_keeping("action", **answer))["code"] == "rate_limited"
        await raw.close()


async def test_actions_that_answer_no_prompt_still_count_and_a_flood_of_them_is_cut_off() -> None:
    async with running_server(default_bot="random") as server:
        raw = await Raw.open(server.port)
        await raw.hello("Flooder")
        prompt = await prompted(raw)
        answer = {"type": "action", "seq": prompt["seq"], "action": prompt["legal"][0]}
        for _ in range(100):  # one answer, then 99 stale copies: more than two bursts
            await raw.send(answer)
        seen = await raw.closed()
        errors = [(m["id"], m["code"]) for m in seen if m["type"] == "error"]
        assert (None, "rate_limited") in errors
        assert any(code == "rate_limited" and id is not None for id, code in errors)


# ---------------------------------------------------------------------------- frame limits


async def test_a_frame_over_its_types_size_gets_request_too_large_past_the_byte_budget() -> None:
    async with running_server() as server:  # 16 KiB of request bytes at once
        raw = await Raw.open(server.port)
        await raw.hello()
        over_budget = msgpack.packb({"type": "ping", "id": 50, "pad": "x" * 20000})
        await raw.send_bytes(raw_frame(over_budget))
        reply = await raw.expect_reply(50)
        assert reply["code"] == "request_too_large" and "512" in reply["message"]
        await asyncio.sleep(1.0)  # the byte allowance refills a little
        # Twice the budget: still the documented code first, then the close says why.
        await raw.send_bytes(raw_frame(msgpack.packb({"id": 51, "type": "ping", "p": "x" * 40000})))
        seen = await raw.closed()
        errors = [m for m in seen if m["type"] == "error"]
        assert [(m["id"], m["code"]) for m in errors] == [
            (51, "request_too_large"),
            (None, "rate_limited"),
        ]
        assert "bytes" in errors[-1]["message"]


# ---------------------------------------------------------------------------- one key, one seat

KEY = "the-same-key-of-twenty-characters"


async def test_one_player_key_cannot_hold_two_seats_of_a_table() -> None:
    async with running_server() as server:
        host = await Raw.open(server.port)
        await host.hello("Host", player_key=KEY)
        created = await host.request("create_table", name="one key")
        table = created["table"]
        twin = await Raw.open(server.port)
        await twin.hello("Twin", player_key=KEY)
        refused = await twin.request("join", table=table)
        assert refused["code"] == "already_seated" and "seat 0" in refused["message"]
        assert [s["kind"] for s in server.lobby.tables[table].summary()["seats"]].count(
            "human"
        ) == 1  # the refusal changed nothing
        # Another key, and no key at all, may sit.
        other = await Raw.open(server.port)
        await other.hello("Other", player_key="another-key-of-twenty-chars")
        assert (await other.request("join", table=table))["type"] == "ok"
        keyless = await Raw.open(server.port)
        await keyless.hello("Keyless")
        assert (await keyless.request("join", table=table))["type"] == "ok"
        # The seat is the key's while its token is good, connected or not: away, a join takes
        # that seat back (no other), as the host, under a new token ...
        await host.close()
        await poll(lambda: server.lobby.tables[table].seats[0].peer is None, "the host gone")
        refused = await twin.request("join", table=table, seat=3)
        assert refused["code"] == "already_seated" and "join seat 0" in refused["message"]
        joined = await twin.request("join", table=table)
        assert (joined["seat"], joined["name"]) == (0, "Host")
        assert server.lobby.tables[table].host_seat == 0
        # ... so the old token is no longer good.
        back = await Raw.open(server.port)
        welcome = await back.hello("Host", player_key=KEY, token=created["token"])
        assert welcome["table"] is None
        assert (await back.request("join", table=table))["code"] == "already_seated"
        # Once it has left, the key may sit again.
        assert (await twin.request("leave"))["type"] == "ok"
        assert (await back.request("join", table=table))["type"] == "ok"
        for raw in (twin, other, keyless, back):
            await raw.close()


async def test_a_player_key_takes_its_away_seat_back_with_join_and_no_token() -> None:
    """A player whose connection dropped comes back with their key but without the seat token
    (a new laptop, a lost tokens file): ``join`` gives them their own seat back, as a reconnect
    would. Only their key does (not their name), only while the seat is away (a connected seat
    is not taken over), and a table's password is still asked for."""
    async with running_server() as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann", player_key=KEY)
        created = await raw_bot_table(ann, password="sesame", grace=0, hands=None)
        table = created["table"]
        watcher = await Raw.open(server.port)
        await watcher.hello("Watcher")
        assert (await watcher.request("watch", table=table, password="sesame"))["type"] == "ok"
        assert (await ann.request("start"))["type"] == "ok"
        await ann.expect("your_turn", timeout=10)
        await ann.close()
        await watcher.expect("notice", code="standin", seat=0)  # grace 0: a bot plays for Ann
        seat = server.lobby.tables[table].seats[0]
        # Her name alone is no key: a keyless "Ann" finds the table full.
        keyless = await Raw.open(server.port)
        await keyless.hello("Ann")
        assert (await keyless.request("join", table=table, password="sesame"))[
            "code"
        ] == "table_full"
        # Her key without the token: the password first, then her own seat back.
        ann2 = await Raw.open(server.port)
        assert (await ann2.hello("Ann", player_key=KEY))["table"] is None
        assert (await ann2.request("join", table=table))["code"] == "bad_password"
        joined = await ann2.request("join", table=table, password="sesame")
        assert joined["type"] == "ok", joined
        assert (joined["seat"], joined["name"]) == (0, "Ann")
        assert joined["token"] != created["token"]
        await watcher.expect("notice", code="reconnected", seat=0)
        await ann2.expect("your_turn", timeout=10)  # the stand-in stopped: she is asked again
        assert seat.peer is not None and not seat.standin and seat.name == "Ann"
        # The hand in play counts for her key under the new token (the standings' link).
        assert server.store.seat_player(table, 0) == (identity_of(KEY), "Ann")
        held_by = seat.peer
        # A second connection with the key while she is connected takes nothing.
        ann3 = await Raw.open(server.port)
        await ann3.hello("Ann", player_key=KEY)
        refused = await ann3.request("join", table=table, password="sesame")
        assert refused["code"] == "already_seated" and "seat 0" in refused["message"]
        assert seat.peer is held_by
        # The lost token no longer opens the seat; the new one does.
        lost = await Raw.open(server.port)
        assert (await lost.hello("Ann", token=created["token"]))["table"] is None
        for raw in (watcher, keyless, ann2, ann3, lost):
            await raw.close()


async def test_a_player_key_takes_its_seat_back_with_join_after_a_restart(tmp_path: Path) -> None:
    """After a restart every player is away; the key that held a seat (its stored link to the
    seat's token) still takes it back without the token."""
    db = tmp_path / "reclaim.db"
    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    try:
        ann = await Raw.open(server.port)
        await ann.hello("Ann", player_key=KEY)
        created = await raw_bot_table(ann, hands=None)
        assert (await ann.request("start"))["type"] == "ok"
        await ann.expect("your_turn", timeout=10)
        await ann.close()
    finally:
        await server.stop()
    again = Server(disk_config(db, seed_wait=0.0))
    await again.start()
    try:
        other = await Raw.open(again.port)
        await other.hello("Ann", player_key="another-key-of-twenty-chars")
        assert (await other.request("join", table=created["table"]))["code"] == "table_full"
        ann2 = await Raw.open(again.port)
        await ann2.hello("Ann", player_key=KEY)
        joined = await ann2.request("join", table=created["table"])
        assert (joined.get("seat"), joined.get("name")) == (0, "Ann"), joined
        await ann2.expect("your_turn", timeout=10)
        for raw in (other, ann2):
            await raw.close()
    finally:
        await again.stop()
