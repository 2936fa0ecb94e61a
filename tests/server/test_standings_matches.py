"""The standings count each match of a table once it has ended: both matches of a ``rematch``
(asked while the table is over, back in play, and after), and a match whose table closed
``over_table_ttl`` later. Real server, real sockets; ``sheepshead standings`` on the database
gives the same rows."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from client.session import Session
from server.app import Server
from server.storage.standings import compute
from server.storage.store import SeatRow, Store
from tests.server.standings_reference import MATCHES_PER_QUERY
from tests.server.support import next_event, play_until, running_server, session
from tests.server.test_standings import ANN_KEY, BOB_KEY, Tally, standings

# Three clients here answer every prompt at once, faster than a person: the per-connection
# message limit is not what these tests are about.
FAST_PLAYERS: dict[str, float] = {"rate": 200.0, "burst": 400.0}


async def play_out(
    players: list[Session], match: str, seats: dict[int, str], tally: Tally, seed: int
) -> None:
    """Everyone plays random legal moves until each has seen ``match_over``; the hands the
    first player saw end are counted in ``tally`` under ``match``."""
    rng = random.Random(seed)
    logs: dict[Session, list[dict[str, Any]]] = {p: [] for p in players}
    await asyncio.gather(*(play_until(p, "match_over", logs[p], rng) for p in players))
    for message in logs[players[0]]:
        if message["type"] == "hand_over":
            tally.count(match, seats, message)


def cli_rows(db: Path) -> list[dict[str, Any]]:
    """``sheepshead standings --db DB --json`` (it reads the database while the server runs)."""
    out = subprocess.run(
        [sys.executable, "-m", "client.cli", "standings", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    rows: list[dict[str, Any]] = json.loads(out)
    return rows


def check_rows(rows: dict[str, dict[str, Any]], tally: Tally) -> None:
    for name, who in (("Ann", "ann"), ("Bob", "bob")):
        row = rows[name]
        assert row["matches"] == len(tally.matches[who]), (name, row)
        assert row["hands"] == tally.hands[who], (name, row)
        assert row["total"] == tally.total[who], (name, row)
        assert row["picks"] == tally.picks[who], (name, row)


def table_state(server: Server, table: str) -> str:
    assert server.store is not None
    (state,) = server.store._db.execute(
        "SELECT state FROM tables WHERE id = ?", (int(table[1:]),)
    ).fetchone()
    return str(state)


async def test_both_matches_of_a_rematch_count_once_each(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with running_server(db_path=db, **FAST_PLAYERS, over_table_ttl=60.0) as server:
        ann = session(server, "Ann", tmp_path, player_key=ANN_KEY)
        bob = session(server, "Bob", tmp_path, player_key=BOB_KEY)
        for s in (ann, bob):
            await s.connect()
        tally = Tally()
        try:
            created = await ann.request(
                "create_table", name="m", preset="seed", options={}, hands=2
            )
            table = str(created["table"])
            seats = {0: "ann", (await bob.request("join", table=table))["seat"]: "bob"}
            for _ in range(3):
                await ann.request("add_bot", strategy="random")
            await ann.request("start")
            await play_out([ann, bob], f"{table}/0", seats, tally, seed=3)
            assert table_state(server, table) == "over"
            # Asked while the table is over: the first match is tallied (and kept).
            first = {r["player"]: r for r in (await standings(server.port))["players"]}
            check_rows(first, tally)
            assert first["Ann"]["matches"] == 1 and first["Ann"]["hands"] == 2

            await ann.request("rematch")  # five seats filled: the second match starts at once
            await next_event(ann, "notice", code="rematch")
            assert table_state(server, table) == "playing"
            # Back in play: the first match still counts, once; the second not yet.
            playing = {r["player"]: r for r in (await standings(server.port))["players"]}
            assert playing == first

            await play_out([ann, bob], f"{table}/1", seats, tally, seed=4)
            reply = await standings(server.port)
        finally:
            for s in (ann, bob):
                await s.close()
        rows = {row["player"]: row for row in reply["players"]}
        assert set(rows) == {"Ann", "Bob", "random"}
        check_rows(rows, tally)
        assert rows["Ann"]["matches"] == rows["Bob"]["matches"] == 2
        assert rows["Ann"]["hands"] == rows["Bob"]["hands"] == 4
        assert rows["random"]["matches"] == 2 and rows["random"]["hands"] == 4 * 3
        # Counted from scratch by the host's command: the same rows.
        assert cli_rows(db) == reply["players"]


async def test_a_match_counts_after_its_table_closes(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with running_server(db_path=db, **FAST_PLAYERS, over_table_ttl=0.3) as server:
        ann = session(server, "Ann", tmp_path, player_key=ANN_KEY)
        await ann.connect()
        tally = Tally()
        try:
            created = await ann.request(
                "create_table", name="m", preset="seed", options={}, hands=1
            )
            table = str(created["table"])
            for _ in range(4):
                await ann.request("add_bot", strategy="random")
            await ann.request("start")
            await play_out([ann], table, {0: "ann"}, tally, seed=5)
            # Nobody asked before it closed: the match is first tallied from a closed table.
            await next_event(ann, "notice", code="table_closed")
            assert table_state(server, table) == "closed"
            reply = await standings(server.port)
        finally:
            await ann.close()
        rows = {row["player"]: row for row in reply["players"]}
        assert set(rows) == {"Ann", "random"}
        assert rows["Ann"]["matches"] == 1 and rows["Ann"]["hands"] == tally.hands["ann"] == 1
        assert rows["Ann"]["total"] == tally.total["ann"]
        assert rows["random"]["matches"] == 1 and rows["random"]["hands"] == 4
        assert cli_rows(db) == reply["players"]


def test_more_matches_than_one_query_names_count_each_once() -> None:
    """The tally asks for matches in batches of MATCHES_PER_QUERY: none is lost or doubled."""
    store = Store(None)
    count = MATCHES_PER_QUERY + 3
    for n in range(count):
        table = store.create_table({"name": "t"}, created=0.0)
        store.save_seat(table, 2, SeatRow(2, "bot", "Sven", "random", None, None))
        for match in (0, 1):  # a rematch: the table's second match
            store.save_hand(table, 0, {}, [0, 0, n, 0, 0], finished=1.0, match=match)
            store.save_results(table, [(2, "Sven", "bot", n)], hands=1, finished=1.0, match=match)
    store.commit()
    (row,) = compute(store.reads)
    assert (row.player, row.matches, row.hands) == ("random", 2 * count, 2 * count)
    assert row.total == 2 * sum(range(count))
    store.close()
