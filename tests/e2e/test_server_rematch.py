"""Over tables: a rematch at the same table, seats and tokens kept, joins taken, and the table
closing ``over_table_ttl`` after its match ended. Real server, real sockets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.app import Server
from tests.server.support import Raw, disk_config, raw_bot_table, raw_play, running_server


async def two_people_and_three_bots(port: int, **create: Any) -> tuple[Raw, Raw, dict[str, Any]]:
    """Ann (host, seat 0), Bob (seat 1) and three random bots; returns Ann, Bob and Bob's join."""
    ann = await Raw.open(port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=0, **create)
    bob = await Raw.open(port)
    await bob.hello("Bob")
    joined = await bob.request("join", table=created["table"], seat=1)
    assert joined["type"] == "ok", joined
    for _ in range(3):
        assert (await ann.request("add_bot", strategy="random"))["type"] == "ok"
    return ann, bob, joined


async def play_match(ann: Raw, bob: Raw) -> dict[str, Any]:
    """Both play the match out; returns Ann's match_over."""
    over, _ = await asyncio.gather(raw_play(ann), raw_play(bob))
    return over


async def test_the_host_starts_a_rematch_with_the_same_seats() -> None:
    async with running_server(default_bot="random") as server:
        ann, bob, joined = await two_people_and_three_bots(server.port, hands=1)
        assert (await ann.request("rematch"))["code"] == "not_over"
        assert (await bob.request("rematch"))["code"] == "not_host"
        await ann.send({"type": "start"})
        first = await play_match(ann, bob)
        assert (await bob.request("rematch"))["code"] == "not_host"
        snapshot = (await ann.request("history"))["hands"]
        assert len(snapshot) == 1 and snapshot[0]["totals"] == first["totals"]

        reply = await ann.request("rematch")
        assert reply == {"type": "ok", "id": reply["id"]}
        for raw in (ann, bob):
            notice = await raw.expect("notice", code="rematch")
            assert notice["table"] == joined["table"]
            assert notice["seat"] == 0  # the host's, so the host's client says "You started"
            state = await raw.expect("state")
            info = state.get("info")
            assert info is not None and info["state"] == "playing", state
            assert info["hands_played"] == 0 and state["totals"] == [0] * 5
            assert state["hand"] == 0 and state["view"]["phase"] == "pick"
            assert [s["name"] for s in info["seats"]] == ["Ann", "Bob", "Sven", "Inga", "Gus"]
            assert info["rules"] == {"preset": "wisconsin"}  # no preset asked: the standard game
        # The new match is on: Ann's first prompt may come before these replies.
        history = await ann.request_keeping("history")
        assert (history["match"], history["hands"]) == (1, [])
        assert (await ann.request_keeping("rematch"))["code"] == "not_over"
        second = await play_match(ann, bob)
        assert second["hands"] == 1
        assert server.store is not None
        table = history["table"]
        assert [r["total"] for r in server.store.results(table, 0)] == first["totals"]
        assert [r["total"] for r in server.store.results(table, 1)] == second["totals"]
        assert (
            len(server.store.hand_records(table, 0)) == len(server.store.hand_records(table)) == 1
        )
        await ann.close()
        await bob.close()


async def test_an_over_table_takes_its_players_back_and_seats_newcomers() -> None:
    async with running_server(default_bot="random") as server:
        ann, bob, joined = await two_people_and_three_bots(server.port, hands=1)
        await ann.send({"type": "start"})
        await play_match(ann, bob)
        await bob.close()
        bob = await Raw.open(server.port)
        welcome = await bob.hello("Bob", token=joined["token"])
        assert (welcome["table"], welcome["seat"]) == (joined["table"], 1)
        snapshot = await bob.recv()  # right after the welcome: a bad token's error comes here
        assert snapshot["type"] == "state" and snapshot["info"]["state"] == "over", snapshot
        assert snapshot["seat"] == 1

        # Bob stands up; Cara takes the seat he left, and the rematch starts at once.
        assert (await bob.request("leave"))["type"] == "ok"
        cara = await Raw.open(server.port)
        await cara.hello("Cara")
        took = await cara.request("join", table=joined["table"])
        assert (took["type"], took["seat"]) == ("ok", 1)
        assert (await ann.request("rematch"))["type"] == "ok"
        notice = await cara.expect("notice", code="rematch")
        assert notice["table"] == joined["table"]
        started = await cara.expect("state")
        assert started["info"]["state"] == "playing"
        assert started["info"]["seats"][1]["name"] == "Cara"
        for raw in (ann, bob, cara):
            await raw.close()


async def test_the_host_leaving_an_over_table_hands_the_rematch_on() -> None:
    # Ann, the host, went home after the match: Bob, Cat and Dan could not start another
    # match at the table (not_host), and nobody could; they had to make a new table.
    async with running_server(default_bot="random") as server:
        ann, bob, joined = await two_people_and_three_bots(server.port, hands=1)
        await ann.send({"type": "start"})
        await play_match(ann, bob)
        assert (await bob.request("rematch"))["code"] == "not_host"
        assert (await ann.request("leave"))["type"] == "ok"
        notice = await bob.expect("notice", code="host")
        assert notice["seat"] == 1 and notice["table"] == joined["table"]
        state = await bob.expect("state")
        assert state["info"]["host_seat"] == 1 and state["info"]["host"] == "Bob"
        assert (await bob.request("rematch"))["type"] == "ok"  # Ann's seat waits for somebody
        assert (await bob.request("add_bot", strategy="random"))["seat"] == 0
        assert (await bob.request_keeping("start"))["type"] == "ok"
        await ann.close()
        await bob.close()


async def test_a_rematch_without_a_full_table_waits_for_start() -> None:
    async with running_server(default_bot="random") as server:
        ann, bob, _ = await two_people_and_three_bots(server.port, hands=1)
        assert (await ann.request("start"))["type"] == "ok"
        assert (await bob.request("leave"))["type"] == "ok"  # a stand-in plays his seat
        await raw_play(ann)
        assert (await ann.request("rematch"))["type"] == "ok"
        state = await ann.expect("state")
        assert state["info"]["state"] == "waiting" and state["view"] is None
        assert [s["kind"] for s in state["info"]["seats"]] == [
            "human",
            "empty",
            "bot",
            "bot",
            "bot",
        ]
        assert (await ann.request("start"))["code"] == "not_enough_players"
        assert (await ann.request("add_bot", strategy="random"))["seat"] == 1
        assert (await ann.request("start"))["type"] == "ok"
        await raw_play(ann)
        await ann.close()
        await bob.close()


async def test_an_over_table_closes_after_its_time_and_leaves_the_listing() -> None:
    async with running_server(default_bot="random", over_table_ttl=0.5) as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        created = await raw_bot_table(ann, hands=1)
        await ann.send({"type": "start"})
        await raw_play(ann)
        listed = (await ann.request("list_tables"))["tables"]
        assert [(t["id"], t["state"]) for t in listed] == [(created["table"], "over")]
        closed = await ann.expect("notice", code="table_closed")
        assert closed["table"] == created["table"]
        assert (await ann.request("list_tables"))["tables"] == []
        again = await Raw.open(server.port)
        await again.hello("Ann", token=created["token"])
        assert (await again.expect("error"))["code"] == "bad_token"
        await ann.close()
        await again.close()


async def test_a_restored_over_table_keeps_its_seats_then_closes_in_time(tmp_path: Path) -> None:
    db = tmp_path / "over.db"
    server = Server(disk_config(db))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, hands=2)
    await ann.send({"type": "start"})
    over = await raw_play(ann)
    await ann.close()
    await server.stop()

    server = Server(disk_config(db, over_table_ttl=3.0))
    await server.start()
    assert server.restored == 1
    ann = await Raw.open(server.port)
    welcome = await ann.hello("Ann", token=created["token"])
    assert welcome["table"] == created["table"]
    snapshot = await ann.expect("state")
    assert snapshot["info"]["state"] == "over" and snapshot["totals"] == over["totals"]
    history = await ann.request("history")
    assert [e["hand"] for e in history["hands"]] == [0, 1]
    assert history["hands"][-1]["totals"] == over["totals"]
    await ann.expect("notice", code="table_closed")  # three seconds after the match ended
    await ann.close()
    await server.stop()

    server = Server(disk_config(db))
    await server.start()
    assert server.restored == 0  # it closed; nothing comes back
    await server.stop()
