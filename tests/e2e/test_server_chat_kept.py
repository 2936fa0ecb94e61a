"""A table's chat survives a restart: each line is stored as it is said (``chat_lines``, with
the table's notices since schema 14), so a client that comes back after ``kill -9`` or a clean
stop is sent it again in ``history``'s ``lines`` (the client's "Earlier at this table"). The
store keeps only the lines that reply can carry (``LINES_KEPT``, the table's bound in memory)
and forgets them with the table. Real server on 127.0.0.1, real sockets and codec."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from server.app import Server
from server.storage.store import LineRow, SeatRow, Store, table_key
from server.tables.history import LINES_KEPT
from tests.e2e.test_server_crash import Served
from tests.server.support import Raw, disk_config, raw_bot_table


async def say(raw: Raw, texts: list[str]) -> None:
    """``raw`` says each of ``texts`` at its table, each line answered before the next."""
    for text in texts:
        reply = await raw.request("chat", text=text)
        assert reply["type"] == "ok", reply


async def chat_heard(raw: Raw) -> list[str]:
    """The chat lines of ``raw``'s table that ``history`` sends (a joiner's "Earlier at this
    table"), oldest first."""
    reply = await raw.request("history")
    assert reply["type"] == "ok", reply
    return [line["text"] for line in reply["lines"] if line["type"] == "chat"]


def stored_chat(server: Server, table: str) -> list[str]:
    """The texts of ``table``'s stored chat lines, oldest first."""
    store = server.store
    assert isinstance(store, Store)
    rows = store._db.execute(
        "SELECT text FROM chat_lines WHERE table_id = ? ORDER BY n", (table_key(table),)
    )
    return [text for (text,) in rows]


async def test_chat_said_before_a_kill_9_is_sent_again_after_the_restart(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    served = await Served.start(db)
    ann = await Raw.open(served.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=1, hands=None)
    lines = ["anyone for a game?", "the bot is quiet"]
    await say(ann, lines)  # each answered: committed before the answer left
    await served.kill()
    assert served.proc.stdout is not None
    await served.proc.stdout.read()  # to its end: the pipe closes with this test's loop
    await ann.close()

    server = Server(disk_config(db))
    await server.start()
    try:
        ann = await Raw.open(server.port)
        assert (await ann.hello("Ann", token=created["token"]))["table"] == created["table"]
        assert await chat_heard(ann) == lines  # before: []
        await ann.close()
    finally:
        await server.stop()


async def test_the_store_keeps_the_lines_a_history_carries_and_forgets_them_with_the_table(
    tmp_path: Path,
) -> None:
    """Past the bound the oldest stored line is replaced; after a clean restart the table goes
    on numbering its lines after the restored ones; closing the table deletes them all."""
    db = tmp_path / "chat.db"
    server = Server(disk_config(db, chat_burst=LINES_KEPT + 10, burst=LINES_KEPT + 20))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=1, hands=None)
    table = created["table"]
    lines = [f"line {i}" for i in range(LINES_KEPT + 3)]
    await say(ann, lines)
    assert stored_chat(server, table) == lines[-LINES_KEPT:]
    heard = await chat_heard(ann)
    assert heard == lines[-LINES_KEPT:]
    await ann.close()
    await server.stop()

    server = Server(disk_config(db, chat_burst=LINES_KEPT + 10, burst=LINES_KEPT + 20))
    await server.start()
    try:
        ann = await Raw.open(server.port)
        assert (await ann.hello("Ann", token=created["token"]))["table"] == table
        assert await chat_heard(ann) == heard  # before the fix: []
        await say(ann, ["after the restart"])
        assert stored_chat(server, table) == [*lines[-LINES_KEPT + 1 :], "after the restart"]
        assert (await ann.request("leave"))["type"] == "ok"  # the table closes
        assert table not in server.lobby.tables
        assert stored_chat(server, table) == []
        await ann.close()
    finally:
        await server.stop()


def aged_database(db: Path, script: str, *lines: LineRow, seats: Sequence[SeatRow] = ()) -> str:
    """A database at ``db`` with one table (its id returned), ``lines`` and ``seats`` stored,
    then made an older schema's by ``script``."""
    store = Store(db)
    table = store.create_table({"name": "t"}, created=0.0)
    for line in lines:
        store.save_line(table, LINES_KEPT, line)
    for seat in seats:
        store.save_seat(table, seat.seat, seat)
    store.close()
    with sqlite3.connect(db) as old:
        old.executescript(script)
    return table


def test_an_older_database_gains_the_chat_table_empty(tmp_path: Path) -> None:
    """A schema 12 database (no ``chat_lines``) opens, its tables restored without chat."""
    db = tmp_path / "old.db"
    table = aged_database(db, "DROP TABLE chat_lines; PRAGMA user_version=12;")
    store = Store(db)
    try:
        (row,) = store.load_open_tables()
        assert row.id == table and row.lines == []
        assert store._db.execute("SELECT count(*) FROM chat_lines").fetchone() == (0,)
    finally:
        store.close()


def test_a_schema_13_database_keeps_its_chat_lines_and_stores_notices_after_them(
    tmp_path: Path,
) -> None:
    """Schema 13 stored chat only (no ``code``): its lines are kept as chat on the upgrade, and
    the ring goes on with notices numbered after them."""
    db = tmp_path / "v13.db"
    table = aged_database(
        db,
        "ALTER TABLE chat_lines DROP COLUMN code; PRAGMA user_version=13;",
        LineRow(0, "Ann", 0, "hello"),
    )
    store = Store(db)
    try:
        (row,) = store.load_open_tables()
        assert row.lines == [LineRow(0, "Ann", 0, "hello", None)]
        store.save_line(table, LINES_KEPT, LineRow(1, "", 0, "Ann is now the host", "host"))
        (row,) = store.load_open_tables()
        assert [line.code for line in row.lines] == [None, "host"]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("version", "script"),
    [(14, "ALTER TABLE seats DROP COLUMN away;"), (15, "UPDATE seats SET away = NULL;")],
)
def test_an_older_databases_seats_get_their_away_from_the_ring_at_the_upgrade(
    tmp_path: Path, version: int, script: str
) -> None:
    """Seats stored before schema 15 (no ``away``; NULL once a schema 15 server upgraded
    them) are judged away or not at the upgrade, from the notices in the table's ring: the
    restore reads ``away`` alone. Before, such a row stayed NULL and the restore judged it
    from the ring each time, a fallback of its own."""
    db = tmp_path / f"v{version}.db"
    told = [(1, "disconnected"), (2, "disconnected"), (2, "reconnected"), (3, "standin")]
    table = aged_database(
        db,
        f"{script} PRAGMA user_version={version};",
        *(LineRow(n, "", seat, f"seat {seat}", code) for n, (seat, code) in enumerate(told)),
        LineRow(len(told), "P3", 3, "a chat line is no return"),
        seats=[SeatRow(seat, "human", f"P{seat}", None, "human", f"t{seat}") for seat in range(5)],
    )
    store = Store(db)
    try:
        (row,) = store.load_open_tables()
        assert row.id == table
        assert [(seat.seat, seat.away) for seat in row.seats] == [
            (0, False),
            (1, True),
            (2, False),
            (3, True),
            (4, False),
        ]
        stored = store._db.execute("SELECT away FROM seats ORDER BY seat").fetchall()
        assert stored == [(0,), (1,), (0,), (1,), (0,)]  # before: NULL, left to the restore
    finally:
        store.close()


def test_the_chat_of_a_table_not_restored_is_deleted_at_the_restore(tmp_path: Path) -> None:
    """A table whose match ended more than ``over_table_ttl`` before the restart is not
    restored: nobody is sent its chat again, so it must not stay behind for good."""
    store = Store(tmp_path / "over.db")
    try:
        kept, gone = (store.create_table({"name": n}, created=0.0) for n in ("kept", "gone"))
        for table in (kept, gone):
            store.save_line(table, LINES_KEPT, LineRow(0, "Ann", 0, f"said at {table}"))
        store.update_table(gone, state="over", finished=0.0)
        assert [row.id for row in store.load_open_tables(over_since=100.0)] == [kept]
        rows = store._db.execute("SELECT table_id, text FROM chat_lines").fetchall()
        assert rows == [(table_key(kept), f"said at {kept}")]
    finally:
        store.close()
