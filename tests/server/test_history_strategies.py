"""A server bot's strategy is named alike at every table: an alias (``easy``) as the strategy it
stands for (``random``), in the seat summary, the hand records and ``history``, also for a table
an older server stored with the alias (real server on 127.0.0.1, restarted on its database)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.record import replay_record
from server.app import Server
from tests.server.support import Raw, disk_config, raw_bot_table, raw_play

RANDOM = [None, "random", "random", "random", "random"]


async def test_a_table_stored_with_an_alias_names_the_strategy_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "alias.db"
    server = Server(disk_config(db))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=0, hands=2)
    for _ in range(4):
        assert (await ann.request("add_bot", strategy="easy"))["type"] == "ok"
    await ann.send({"type": "start"})
    await raw_play(ann, "hand_over")
    first = await ann.request("history")
    assert [s["strategy"] for s in (await ann.request("list_tables"))["tables"][0]["seats"]] == (
        RANDOM
    )
    assert first["hands"][0]["record"]["strategies"] == RANDOM  # it was "easy"
    await server.stop()
    await ann.close()

    # As an older server left it: the alias in the seat rows and the stored record.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE seats SET strategy = 'easy' WHERE strategy IS NOT NULL")
        conn.execute("UPDATE hands SET record = replace(record, '\"random\"', '\"easy\"')")
        (stored,) = conn.execute("SELECT record FROM hands").fetchone()
    assert '"easy"' in stored
    conn.close()

    server = Server(disk_config(db))
    await server.start()
    ann = await Raw.open(server.port)
    welcome = await ann.hello("Ann", token=created["token"])
    assert welcome["table"] == created["table"]
    await raw_play(ann, "match_over")
    after = await ann.request("history")
    listing = await ann.request("list_tables")
    await ann.close()
    await server.stop()
    assert [s["strategy"] for s in listing["tables"][0]["seats"]] == RANDOM
    assert [e["record"]["strategies"] for e in after["hands"]] == [RANDOM, RANDOM]
    assert all(replay_record(e["record"])["complete"] for e in after["hands"])
