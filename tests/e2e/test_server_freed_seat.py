"""A seat freed during a hand (the host's ``remove_bot``, a player's ``leave``): a stand-in bot
finishes the hand, which is stored, counted and served as played by whoever held the seat last
during it (the bot, the person), also after a restart; a newcomer who took the seat over and
finished the hand is named for it. Real server on 127.0.0.1, real sockets and codec."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.app import Server
from server.storage.standings import identity_of
from server.storage.store import table_key
from tests.server.support import Raw, disk_config, raw_bot_table, running_server
from tests.server.test_standings import ANN_KEY, BOB_KEY, standings

CARL_KEY = "carl-" + "c" * 40


async def play_on(raw: Raw, log: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Answer every ``your_turn`` with its first legal action until ``match_over``.

    The seat changes under test send the player to act its prompt again with each new state,
    so an answer to a prompt already answered gets ``stale`` or ``not_your_turn``: passed over."""
    while True:
        msg = await raw.recv()
        if log is not None:
            log.append(msg)
        if msg["type"] == "match_over":
            return msg
        if msg["type"] == "error":
            assert msg["code"] in ("stale", "not_your_turn"), msg
        if msg["type"] == "your_turn":
            await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})


async def until_seat_moved(raw: Raw, seat: int) -> None:
    """Answer ``raw``'s prompts until a state shows a move of ``seat`` in the hand."""
    while True:
        msg = await raw.recv()
        if msg["type"] == "your_turn":
            await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
        view = msg.get("view") if msg["type"] == "state" else None
        if not view:
            continue
        played = [(t["leader"] + i) % 5 for t in view["tricks"] for i in range(len(t["cards"]))]
        played += [c["seat"] for c in view["trick"]["cards"]]
        if seat in view["passes"] or view["picker"] == seat or seat in played:
            return


async def standing_rows(port: int) -> dict[str, dict[str, Any]]:
    """The ``standings`` reply's rows by player."""
    reply = await standings(port)
    assert reply["type"] == "ok", reply
    return {row["player"]: row for row in reply["players"]}


def played_by(server: Server, table: str) -> list[tuple[str | None, str | None]]:
    """Hand 0's ``hand_seats`` rows (identity, name) by seat; (None, None): no row."""
    assert server.store is not None
    rows = dict.fromkeys(range(5), (None, None))
    for seat, identity, name in server.store._db.execute(
        "SELECT seat, identity, name FROM hand_seats WHERE table_id = ? AND number = 0",
        (table_key(table),),
    ):
        rows[seat] = (identity, name)
    return list(rows.values())


async def test_a_bot_freed_mid_hand_is_named_for_that_hand_also_after_a_restart(
    tmp_path: Path,
) -> None:
    """The server restarts in the hand, after the seat was freed: who held it is stored with
    the table (``seats_left``), so the hand is still named and counted for them; and again
    once the hand is stored, its history is the same. Another seat, freed after it moved, is
    taken over by Carl: its summary names who held it before and until where (``before``),
    also after the restart (``seat_holders``)."""
    db = tmp_path / "freed.db"
    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann", player_key=ANN_KEY)
    created = await raw_bot_table(ann, bots=0, hands=1)
    table = created["table"]
    for strategy in ("heuristic", "random", "random", "random"):
        assert (await ann.request("add_bot", strategy=strategy))["type"] == "ok"
    await ann.send({"type": "start"})
    await ann.expect("your_turn")  # the hand waits for Ann: it is not over
    freed = await ann.request_keeping("remove_bot", seat=1)
    assert freed["type"] == "ok", freed
    await until_seat_moved(ann, 2)
    assert (await ann.request_keeping("remove_bot", seat=2))["type"] == "ok"
    carl = await Raw.open(server.port)
    await carl.hello("Carl", player_key=CARL_KEY)
    carl_seat = await carl.request("join", table=table, seat=2)
    assert carl_seat["type"] == "ok", carl_seat
    snapshot = await carl.expect("state")
    view = snapshot["view"]
    # Sven's moves (and the stand-in's after him) are all the seat's so far, as Carl's view
    # counts them: its decisions, and the cards played.
    decisions = len(view["passes"]) + (view["picker"] is not None)
    decisions += 2 if view["phase"] not in ("pick", "bury") else 0  # bury, call or alone
    cards = 5 * len(view["tricks"]) + len(view["trick"]["cards"])
    held = {"name": "Sven", "decisions": decisions, "cards": cards}
    assert snapshot["info"]["seats"][2]["before"] == [held]
    assert "before" not in snapshot["info"]["seats"][1]  # emptied, not taken over
    await ann.close()
    await carl.close()
    await server.stop()  # in the hand: before, who held seat 1 was forgotten here

    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    ann = await Raw.open(server.port)
    assert (await ann.hello("Ann", token=created["token"]))["table"] == table
    carl = await Raw.open(server.port)
    assert (await carl.hello("Carl", token=carl_seat["token"]))["table"] == table
    restored = await carl.expect("state")
    assert restored["info"]["seats"][2]["before"] == [held]  # stored: kept across the restart
    log: list[dict[str, Any]] = []
    await asyncio.gather(play_on(ann, log), play_on(carl))
    await carl.close()
    before = await ann.request("history")
    (hand_over,) = [msg for msg in log if msg["type"] == "hand_over"]
    # What everyone at the table sees of the seat now: empty, a stand-in played it on.
    states = [msg for msg in log if msg["type"] == "state" and msg.get("info")]
    seat_infos = [s for msg in states for s in msg["info"].get("seats", []) if s["seat"] == 1]
    assert seat_infos[0]["kind"] == "empty" and seat_infos[0]["standin"] is True
    assert "names" not in hand_over  # the hand_over names nobody; history does
    (entry,) = before["hands"]
    assert entry["names"] == ["Ann", "Lena", "Carl", "Inga", "Gus"]
    assert entry["record"]["strategies"] == [None, "heuristic", None, "random", "random"]
    assert played_by(server, table)[1] == ("bot:heuristic", "Lena")
    rows = await standing_rows(server.port)
    assert rows["heuristic"]["hands"] == 1
    assert rows["heuristic"]["total"] == hand_over["result"]["payouts"][1]
    assert server.store is not None  # stored, the hand's freed seats are forgotten
    assert server.store._db.execute("SELECT count(*) FROM seats_left").fetchone() == (0,)
    assert server.store._db.execute("SELECT count(*) FROM seat_holders").fetchone() == (0,)
    await ann.close()
    await server.stop()

    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    try:
        ann = await Raw.open(server.port)
        welcome = await ann.hello("Ann", token=created["token"])
        assert welcome["table"] == table
        after = await ann.request("history")
        await ann.close()
        assert after["hands"] == before["hands"]
    finally:
        await server.stop()


async def test_a_person_who_leaves_mid_hand_is_named_and_counted_for_that_hand() -> None:
    async with running_server(default_bot="random") as server:
        ann = await Raw.open(server.port)
        bob = await Raw.open(server.port)
        try:
            await ann.hello("Ann", player_key=ANN_KEY)
            await bob.hello("Bob", player_key=BOB_KEY)
            table = (await raw_bot_table(ann, bots=3, hands=1))["table"]
            assert (await bob.request("join", table=table))["seat"] == 4
            assert (await ann.request_keeping("start"))["type"] == "ok"  # dealt
            # The hand cannot end without Ann: Bob leaves it in play.
            left = await bob.request("leave")
            assert left["type"] == "ok", left
            log: list[dict[str, Any]] = []
            await play_on(ann, log)
            reply = await ann.request("history")
        finally:
            await ann.close()
            await bob.close()
        (hand_over,) = [msg for msg in log if msg["type"] == "hand_over"]
        (entry,) = reply["hands"]
        assert entry["names"] == ["Ann", "Lena", "Sven", "Inga", "Bob"]
        assert entry["record"]["strategies"] == [None, "random", "random", "random", None]
        assert played_by(server, table)[4] == (identity_of(BOB_KEY), "Bob")
        rows = await standing_rows(server.port)
        assert rows["Bob"]["hands"] == 1
        assert rows["Bob"]["total"] == hand_over["result"]["payouts"][4]


async def test_a_newcomer_who_takes_a_freed_seat_over_mid_hand_is_named_for_it() -> None:
    """Unchanged by the fix: who finished the hand in the seat is named for it, not who left."""
    async with running_server(default_bot="random") as server:
        ann, bob, carl = [await Raw.open(server.port) for _ in range(3)]
        try:
            await ann.hello("Ann", player_key=ANN_KEY)
            await bob.hello("Bob", player_key=BOB_KEY)
            await carl.hello("Carl", player_key=CARL_KEY)
            table = (await raw_bot_table(ann, bots=3, hands=1))["table"]
            assert (await bob.request("join", table=table))["seat"] == 4
            assert (await ann.request_keeping("start"))["type"] == "ok"  # dealt
            assert (await bob.request("leave"))["type"] == "ok"  # the hand waits for Ann
            turn = await ann.expect("your_turn")  # still: Carl takes the seat over in play
            joined = await carl.request("join", table=table, seat=4)
            assert joined["type"] == "ok", joined
            ann.inbox.insert(0, turn)
            await asyncio.gather(play_on(ann), play_on(carl))
            reply = await ann.request("history")
        finally:
            for raw in (ann, bob, carl):
                await raw.close()
        (entry,) = reply["hands"]
        assert entry["names"] == ["Ann", "Lena", "Sven", "Inga", "Carl"]
        assert played_by(server, table)[4] == (identity_of(CARL_KEY), "Carl")
        rows = await standing_rows(server.port)
        assert rows["Carl"]["hands"] == 1 and "Bob" not in rows
