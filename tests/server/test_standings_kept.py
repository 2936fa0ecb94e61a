"""The standings kept as matches end: they equal the old full recomputation over
random matches, a match with no finished hand stores nothing, match ends are metered per
address, older databases are filled in on upgrade, and a ``standings`` request is answered off
the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from client import cli
from engine import Hand
from engine.match import Match
from engine.rules import RuleSet
from server.storage import standings as standings_module
from server.storage import store as store_module
from server.storage.standings import PlayerStanding, compute, query
from server.storage.store import SCHEMA_VERSION, STANDINGS_SCHEMA, Reader, SeatRow, Store
from server.storage.tallies import HandFacts, replay
from tests.server import standings_reference as reference
from tests.server.support import Raw, running_server

IDENTITIES = ["ann-id", "bob-id", "cy-id", "dee-id", "bot:random", "bot:heuristic"]


def _play_hand(match: Match, rng: random.Random) -> None:
    hand: Hand = match.hand
    while not hand.is_over:
        match.apply(rng.choice(hand.legal_actions()))


def fill_random_matches(store: Store, rng: random.Random, count: int) -> list[float]:
    """``count`` random matches at random tables, with random people and bots changing seats
    between hands, each ended (or, now and then, left in play); returns when each ended."""
    rules = RuleSet.from_preset("seed")
    tables = [store.create_table({"name": f"t{n}"}, created=0.0) for n in range(4)]
    matches = {table: 0 for table in tables}
    ends = []
    for n in range(count):
        table = rng.choice(tables)
        number = matches[table]
        matches[table] += 1
        match = Match(rules, seed=rng.randrange(2**30), hand_limit=None, keep_history=False)
        hands = rng.choice([0, 1, 1, 2, 3])
        for hand_number in range(hands):
            for seat in range(5):
                if hand_number == 0 or rng.random() < 0.2:  # somebody else takes the seat
                    who = rng.choice([*IDENTITIES, None])
                    token = f"tok-{table}-{seat}-{rng.random()}"
                    if who is not None and who.startswith("bot:"):
                        row = SeatRow(seat, "bot", f"Bot{seat}", who[4:], None, None)
                    else:
                        name = rng.choice(["Ann", "Bob", "Cy", "Dee", "Eve"])
                        row = SeatRow(seat, "human", name, None, "human", token)
                        if who is not None:
                            store.link_seat(token, who)
                    store.save_seat(table, seat, row)
            _play_hand(match, rng)
            result = match.results[-1]
            payouts = list(result.payouts or ())
            facts = HandFacts(result.picker, result.leaster, result.picker_side_points, payouts)
            store.save_hand(
                table,
                hand_number,
                match.records[-1],
                payouts,
                finished=1000.0 + n,
                match=number,
                facts=facts,
            )
            if hand_number + 1 < hands:
                match.next_hand()
        if rng.random() < 0.9:
            end = 1000.5 + n
            rows = [(seat, f"S{seat}", "human", match.totals[seat]) for seat in range(5)]
            store.save_results(table, rows, hands=hands, finished=end, match=number)
            ends.append(end)
    for identity, name in (("ann-id", "Annie"), ("bob-id", None)):
        store.note_identity(identity, "key", name=name)
    store.commit()
    return ends


def wire(rows: list[PlayerStanding]) -> list[dict[str, Any]]:
    return [row.to_wire() for row in rows]


@pytest.mark.parametrize("seed", range(6))
def test_kept_standings_equal_the_full_recomputation(seed: int) -> None:
    """Property: over random matches (seats changing hands, matches with no hand, matches still
    in play), the kept standings give the rows the old query added up from every result, for
    all time and since random moments."""
    rng = random.Random(seed)
    store = Store(None)
    ends = fill_random_matches(store, rng, 40)
    db = store._db
    assert wire(query(store.reads)) == wire(reference.compute(db))
    assert wire(compute(store.reads)) == wire(reference.compute(db))
    for since in [*rng.sample(ends, 3), 0.0, 10**10]:
        assert wire(query(store.reads, since)) == wire(reference.compute(db, since)), since
    store.close()


def test_a_match_with_no_finished_hand_stores_no_rows() -> None:
    store = Store(None)
    table = store.create_table({"name": "t"}, created=0.0)
    store.save_seat(table, 0, SeatRow(0, "bot", "Sven", "random", None, None))
    before = _rows(store)
    store.save_results(table, [(s, "x", "bot", 0) for s in range(5)], hands=0, finished=1.0)
    assert _rows(store) == before
    store.close()


def _rows(store: Store) -> dict[str, int]:
    db = store._db
    names = [
        name
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith("sqlite_")
    ]
    return {name: db.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in names}


async def test_ended_and_left_matches_without_a_hand_leave_nothing_behind() -> None:
    """end_match and rematch at once, then leave: no results, tallies, seats, seeds or links to
    players are left (only the table's closed row, and the action log may keep an abandoned
    hand's first bids)."""
    async with running_server(bot_delay=30.0, seed_wait=0.0) as server:
        assert server.store is not None
        before = _rows(server.store)
        raw = await Raw.open(server.port)
        try:
            await raw.hello("Ann", player_key="ann-" + "a" * 40)
            await raw.request("create_table", name="m", preset="seed", options={}, hands=3)
            for _ in range(4):
                assert (await raw.request("add_bot", strategy="random"))["type"] == "ok"
            assert (await raw.request("start"))["type"] == "ok"
            for _ in range(3):
                assert (await raw.request("end_match"))["type"] == "ok"
                assert (await raw.request("rematch"))["type"] == "ok"
            assert (await raw.request("end_match"))["type"] == "ok"
            assert (await raw.request("leave"))["type"] == "ok"
        finally:
            await raw.close()
        server.store.commit()
        after = _rows(server.store)
    # The row of a table that started stays, closed (the abandoned hands' actions refer to
    # it); the action log is never rewritten.
    for name in ("actions", "tables"):
        after.pop(name)
        before.pop(name)
    after.pop("identities")  # Ann is remembered from her first seat, once
    before.pop("identities")
    assert after == before


async def test_match_ends_are_metered_per_address() -> None:
    """Past match_end_burst, end_match is refused (rate_limited, the match plays on), and so
    are start and rematch while the allowance is empty."""
    async with running_server(
        bot_delay=30.0, seed_wait=0.0, match_end_burst=2.0, match_end_rate=0.001
    ) as server:
        raw = await Raw.open(server.port)
        try:
            await raw.hello("Ann")
            await raw.request("create_table", name="m", preset="seed", options={}, hands=3)
            for _ in range(4):
                await raw.request("add_bot", strategy="random")
            await raw.request("start")
            assert (await raw.request("end_match"))["type"] == "ok"
            assert (await raw.request("rematch"))["type"] == "ok"
            assert (await raw.request("end_match"))["type"] == "ok"
            refused = await raw.request("rematch")
            assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
            # Another connection from the same address shares the allowance.
            other = await Raw.open(server.port)
            try:
                await other.hello("Bob")
                await other.request("create_table", name="n", preset="seed", options={}, hands=3)
                for _ in range(4):
                    await other.request("add_bot", strategy="random")
                started = await other.request("start")
                assert started["type"] == "error" and started["code"] == "rate_limited"
            finally:
                await other.close()
        finally:
            await raw.close()


def test_an_older_database_is_filled_in_on_upgrade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A schema 6 database (no kept standings) gains them on open, from its stored hands, and
    the server's log says how many hands that replays and how far it has got."""
    path = tmp_path / "v6.db"
    store = Store(path)
    fill_random_matches(store, random.Random(11), 30)
    expected = wire(reference.compute(store._db))
    hands = store._db.execute(
        "SELECT count(DISTINCT table_id || ':' || match_number || ':' || number) FROM hand_seats"
        " WHERE identity IS NOT NULL"
    ).fetchone()[0]
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE match_tallies; DROP TABLE player_totals; PRAGMA user_version=6;")
    db.commit()
    db.close()
    monkeypatch.setattr(store_module, "BACKFILL_PROGRESS_EVERY", 0.0)  # a line every hand
    with caplog.at_level(logging.INFO, logger="sheepshead.server"):
        store = Store(path)
    assert expected and wire(compute(store.reads)) == expected
    store.close()
    lines = [r.getMessage() for r in caplog.records if "standings" in r.getMessage()]
    assert hands and lines[0] == f"rebuilding the standings: replaying {hands} stored hands"
    assert lines[1] == f"rebuilding the standings: 1 of {hands} hands replayed"
    assert lines[-1].startswith(f"rebuilding the standings: {hands} of {hands} hands replayed,")


@pytest.mark.parametrize("version", [STANDINGS_SCHEMA, SCHEMA_VERSION - 1])
def test_a_database_with_kept_standings_keeps_them_without_a_replay(
    tmp_path: Path, version: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database of a schema that has the standings' layout (8 on) is upgraded without
    replaying its stored hands: its standings rows stay as they were, even one no replay would
    give. Before, every schema bump replayed every stored hand (half a millisecond a hand: 50 s
    at 100,000 hands before the server listened)."""
    path = tmp_path / f"v{version}.db"
    store = Store(path)
    fill_random_matches(store, random.Random(5), 8)
    store.close()
    standings = "SELECT * FROM match_tallies ORDER BY 1, 2, 3; SELECT * FROM player_totals"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("UPDATE player_totals SET total = total + 1000 WHERE identity = 'ann-id'")
        db.executescript(
            "ALTER TABLE chat_lines DROP COLUMN code; ALTER TABLE seats DROP COLUMN away;"
            f" PRAGMA user_version={version};"
        )
        db.commit()
        kept = [db.execute(query).fetchall() for query in standings.split(";")]
    replays: list[str] = []

    def counted(record: str, payouts: str) -> HandFacts:
        replays.append(record)
        return replay(record, payouts)

    monkeypatch.setattr(store_module, "replay", counted)
    store = Store(path)
    assert replays == []
    assert [store._db.execute(query).fetchall() for query in standings.split(";")] == kept
    assert any(row[0] == "ann-id" for row in kept[1])
    assert store.reads.schema_version() == SCHEMA_VERSION
    # Schema 15's seats.away, filled at the upgrade from the ring (no notice there: not away).
    assert {row[0] for row in store._db.execute("SELECT away FROM seats")} == {0}
    store.close()


@pytest.mark.parametrize("version", [6, SCHEMA_VERSION - 1])
def test_the_cli_reads_an_older_database_without_writing_it(
    tmp_path: Path, version: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """``sheepshead standings`` on a database an older server left gives the rows this
    version's server would, and leaves the file as it was: schema 6 kept no standings (the
    upgrade makes them, on a copy in memory); the schema before this one has them as they
    are read. Before, it refused both until a server of this version had opened them."""
    path = tmp_path / f"v{version}.db"
    store = Store(path)
    fill_random_matches(store, random.Random(11), 30)
    expected = wire(compute(store.reads))
    store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        if version < STANDINGS_SCHEMA:
            db.executescript("DROP TABLE match_tallies; DROP TABLE player_totals;")
        db.execute(f"PRAGMA user_version={version}")
        db.commit()
    written = path.read_bytes()
    assert cli.main(["standings", "--db", str(path), "--json"]) == 0
    assert expected and json.loads(capsys.readouterr().out) == expected
    assert path.read_bytes() == written


async def test_standings_are_read_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a (deliberately stalled) standings read is in progress, the server answers a
    ping: the read runs in a thread, not on the loop."""
    entered = threading.Event()
    release = threading.Event()
    real_query = standings_module.query

    def stalled(reader: Reader, *args: Any, **kwargs: Any) -> list[PlayerStanding]:
        entered.set()
        release.wait(30)
        return real_query(reader, *args, **kwargs)

    monkeypatch.setattr(standings_module, "query", stalled)
    async with running_server(db_path=tmp_path / "s.db") as server:
        raw = await Raw.open(server.port)
        try:
            await raw.hello("viewer")
            asked = await raw.send({"type": "standings"})
            await asyncio.to_thread(entered.wait, 30)
            pinged = await raw.send({"type": "ping"})
            first = await raw.recv()
            while first.get("type") not in ("ok", "error"):
                first = await raw.recv()
            assert first["type"] == "ok" and first["id"] == pinged, first
            release.set()
            reply = await raw.expect_reply(asked)
            assert reply["type"] == "ok" and reply["players"] == []
        finally:
            release.set()
            await raw.close()


def test_a_level_alias_is_counted_as_its_strategy() -> None:
    """A bot seated as ``easy`` is the ``random`` strategy in the standings, and ``medium`` is
    ``heuristic`` (PROTOCOL.md §10.1): one row per strategy, whichever name seated it."""
    store = Store(None)
    table = store.create_table({"name": "t"}, created=0.0)
    for seat, strategy in enumerate(["easy", "random", "medium", "heuristic"]):
        store.save_seat(table, seat, SeatRow(seat, "bot", f"B{seat}", strategy, None, None))
    store.save_hand(table, 0, {}, [1, 2, 3, 4, -10], finished=1.0)
    store.save_results(table, [], hands=1, finished=1.0)
    rows = {row.player: row for row in query(store.reads)}
    assert set(rows) == {"random", "heuristic"}
    assert (rows["random"].hands, rows["random"].total, rows["random"].matches) == (2, 3, 1)
    assert (rows["heuristic"].hands, rows["heuristic"].total) == (2, 7)
    store.close()


async def test_a_standings_reply_lists_as_many_rows_as_fit_its_frame() -> None:
    """With 600 remembered players the 500 best rows would not fit one 64 KiB frame: the
    reply carries the best ones that do, not an error."""
    async with running_server() as server:
        assert server.store is not None
        db = server.store._db
        db.executemany(
            "INSERT INTO player_totals VALUES (?, 10, 100, ?, 20, 10, 1, 1, ?, 1.0)",
            [(f"id-{n:04d}", 1000 - n, f"A rather long name {n:04d}") for n in range(600)],
        )
        server.store.commit()
        raw = await Raw.open(server.port)
        try:
            await raw.hello("viewer")
            reply = await raw.request("standings")
        finally:
            await raw.close()
    assert reply["type"] == "ok", reply
    players = reply["players"]
    assert 300 < len(players) < 500
    assert [row["total"] for row in players] == [1000 - n for n in range(len(players))]
