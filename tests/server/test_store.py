"""The SQLite store (server/storage/store.py): what is written comes back after reopening the
file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from server.storage.store import SCHEMA_VERSION, DatabaseInUse, SeatRow, Store, table_key


def test_open_tables_come_back_with_seats_and_actions_in_order(tmp_path: Path) -> None:
    path = tmp_path / "db" / "s.db"
    store = Store(path)
    first = store.create_table({"name": "one", "rules": {"preset": "seed"}}, created=1.0)
    second = store.create_table({"name": "two"}, created=2.0)
    closed = store.create_table({"name": "gone"}, created=3.0)
    store.update_table(
        first, state="playing", seed=42, first_dealer=3, seq=7, totals=[1, -1, 0, 0, 0]
    )
    store.update_table(closed, state="closed")
    store.save_seat(first, 0, SeatRow(-1, "human", "Ann", None, "human", "ab" * 32))
    store.save_seat(first, 2, SeatRow(-1, "bot", "Random bot 2", "random", None, None))
    store.save_seat(
        first, 2, SeatRow(-1, "bot", "Heuristic bot 2", "heuristic", None, None, "127.0.0.7")
    )
    store.save_seat(first, 4, SeatRow(-1, "human", "Bo", None, "bot", "cd" * 32))
    store.save_seat(first, 4, None)
    for n, kind in enumerate(["pass", "pass", "pick"]):
        store.add_action(first, n, 0, {"seat": n + 1, "action": kind})
    store.add_action(first, 3, 1, {"seat": 2, "action": "pass"})
    store.commit()
    store.close()

    again = Store(path)
    rows = again.load_open_tables()
    assert [r.id for r in rows] == [first, second]
    row = rows[0]
    assert (row.state, row.seed, row.first_dealer, row.seq) == ("playing", 42, 3, 7)
    assert row.totals == [1, -1, 0, 0, 0] and row.config["name"] == "one"
    assert [(s.seat, s.name, s.strategy, s.added_by) for s in row.seats] == [
        (0, "Ann", None, None),
        (2, "Heuristic bot 2", "heuristic", "127.0.0.7"),
    ]
    assert [(hand, a["action"]) for hand, a in row.actions] == [
        (0, "pass"),
        (0, "pass"),
        (0, "pick"),
        (1, "pass"),
    ]
    again.close()


def test_uncommitted_writes_are_not_durable(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    table = store.create_table({"name": "t"}, created=0.0)
    store.commit()
    store.add_action(table, 0, 0, {"seat": 1, "action": "pass"})
    assert store.dirty
    other = sqlite3.connect(path)  # another reader sees only what was committed
    assert other.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
    store.commit()
    assert other.execute("SELECT COUNT(*) FROM actions").fetchone() == (1,)
    other.close()
    store.close()


def test_queued_actions_go_in_with_one_commit_and_reads_see_them(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    table = store.create_table({"name": "t"}, created=0.0)
    store.update_table(table, state="playing")
    store.commit()
    writes = []
    store.on_write = lambda: writes.append(1)
    for n in range(3):
        store.add_action(table, n, 0, {"seat": n, "action": "pass"})
    assert len(writes) == 3 and store.dirty  # each write still schedules the group commit
    # A read of this connection sees the queued rows (they are inserted first), still uncommitted.
    assert [a["seat"] for _, a in store.load_open_tables()[0].actions] == [0, 1, 2]
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
    store.add_action(table, 3, 0, {"seat": 3, "action": "pick"})
    store.commit()
    assert not store.dirty and store.commits == 2
    assert other.execute("SELECT n, action FROM actions ORDER BY n").fetchall()[2:] == [
        (2, '{"seat":2,"action":"pass"}'),
        (3, '{"seat":3,"action":"pick"}'),
    ]
    other.close()
    store.close()


def test_update_seqs_stores_several_tables_at_once() -> None:
    store = Store(None)
    one = store.create_table({"name": "one"}, created=0.0)
    two = store.create_table({"name": "two"}, created=0.0)
    store.commit()
    store.update_seqs([(one, 5), (two, 9)])
    store.update_seqs([])
    assert store.dirty
    store.commit()
    assert [(row.id, row.seq) for row in store.load_open_tables()] == [(one, 5), (two, 9)]
    with pytest.raises(ValueError):
        store.update_seqs([("x1", 1)])


def test_hands_results_and_bad_input(tmp_path: Path) -> None:
    store = Store(None)
    table = store.create_table({"name": "t"}, created=0.0)
    store.save_hand(table, 0, {"format": "sheepshead-hand/1"}, [1, -1, 0, 0, 0], finished=1.0)
    store.save_results(table, [(0, "Ann", "human", 3), (1, None, "empty", -3)], hands=1, finished=2)
    assert store.hand_records(table) == [{"format": "sheepshead-hand/1"}]
    assert [r["total"] for r in store.results(table)] == [3, -3]
    with pytest.raises(ValueError):
        store.update_table(table, password="x")
    with pytest.raises(ValueError):
        table_key("t1; DROP TABLE tables")
    with pytest.raises(ValueError):
        Store(None, synchronous="sometimes")
    store.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(RuntimeError, match="newer"):
        Store(path)
    with pytest.raises(RuntimeError, match="newer"):  # the refused store let the file go
        Store(path)


def test_an_action_stored_with_its_seq_moves_the_restored_seq(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    table = store.create_table({"name": "t"}, created=0.0)
    store.update_table(table, state="playing", seed=1, first_dealer=0, seq=9)
    store.add_action(table, 0, 0, {"seat": 1, "action": "pass"}, seq=12)
    store.add_action(table, 1, 0, '{"seat":2,"action":"pass"}', seq=13)  # encoded ahead
    store.commit()
    store.close()
    again = Store(path)
    (row,) = again.load_open_tables()
    assert row.seq == 13 and [a for _, a in row.actions][1] == {"seat": 2, "action": "pass"}
    again.close()


def test_a_schema_1_database_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, config TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'waiting', seq INTEGER NOT NULL DEFAULT 0,
            host_seat INTEGER, seed INTEGER, first_dealer INTEGER,
            totals TEXT NOT NULL DEFAULT '[0,0,0,0,0]', created REAL NOT NULL, finished REAL);
        CREATE TABLE actions (table_id INTEGER NOT NULL REFERENCES tables(id),
            n INTEGER NOT NULL, hand INTEGER NOT NULL, action TEXT NOT NULL,
            PRIMARY KEY (table_id, n));
        INSERT INTO tables (config, state, seq, seed, first_dealer, created)
            VALUES ('{"name": "old"}', 'playing', 5, 3, 0, 0.0);
        INSERT INTO actions VALUES (1, 0, 0, '{"seat": 1, "action": "pass"}');
        PRAGMA user_version=1;
        """
    )
    conn.commit()
    conn.close()
    store = Store(path)
    (row,) = store.load_open_tables()
    assert row.seq == 5 and row.actions == [(0, {"seat": 1, "action": "pass"})]
    store.add_action(row.id, 1, 0, {"seat": 2, "action": "pass"}, seq=6)
    store.commit()
    assert store.load_open_tables()[0].seq == 6
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_schema_3_database_keeps_its_hands_and_results_as_match_0(tmp_path: Path) -> None:
    """Schema 4 puts a match number in the keys of hands and results (a rematch adds rows)."""
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE tables (id INTEGER PRIMARY KEY AUTOINCREMENT, config TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'waiting', seq INTEGER NOT NULL DEFAULT 0,
            host_seat INTEGER, seed INTEGER, first_dealer INTEGER,
            totals TEXT NOT NULL DEFAULT '[0,0,0,0,0]', created REAL NOT NULL, finished REAL,
            first_action INTEGER);
        CREATE TABLE hands (table_id INTEGER NOT NULL REFERENCES tables(id),
            number INTEGER NOT NULL, record TEXT NOT NULL, payouts TEXT NOT NULL,
            finished REAL NOT NULL, PRIMARY KEY (table_id, number));
        CREATE TABLE results (table_id INTEGER NOT NULL REFERENCES tables(id),
            seat INTEGER NOT NULL, name TEXT, kind TEXT NOT NULL, total INTEGER NOT NULL,
            hands INTEGER NOT NULL, finished REAL NOT NULL, PRIMARY KEY (table_id, seat));
        INSERT INTO tables (config, state, created) VALUES ('{"name": "old"}', 'over', 0.0);
        INSERT INTO hands VALUES (1, 0, '{"hand": "old"}', '[2,-2,0,0,0]', 1.0);
        INSERT INTO results VALUES (1, 0, 'Ann', 'human', 2, 1, 1.0);
        PRAGMA user_version=3;
        """
    )
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.hand_records("t1") == store.hand_records("t1", 0) == [{"hand": "old"}]
    store.save_hand("t1", 0, {"hand": "new"}, [0] * 5, finished=2.0, match=1)
    store.save_results("t1", [(0, "Ann", "human", -1)], hands=1, finished=2.0, match=1)
    store.update_table("t1", match_number=1)
    assert store.hand_records("t1", 0) == [{"hand": "old"}]
    assert store.hand_records("t1") == [{"hand": "new"}]  # the latest match
    assert [r["total"] for r in store.results("t1", 0)] == [2]
    assert [r["total"] for r in store.results("t1")] == [-1]
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_schema_4_database_keeps_its_hand_seats_as_match_0(tmp_path: Path) -> None:
    """Schema 5 puts the match number in the key of hand_seats (who played each hand)."""
    path = tmp_path / "v4.db"
    Store(path).close()  # the current layout, then hand_seats as schema 4 had it
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE hand_seats;
        CREATE TABLE hand_seats (table_id INTEGER NOT NULL, number INTEGER NOT NULL,
            seat INTEGER NOT NULL, identity TEXT, name TEXT, PRIMARY KEY (table_id, number, seat));
        INSERT INTO tables (config, state, created) VALUES ('{"name": "old"}', 'over', 0.0);
        INSERT INTO hand_seats VALUES (1, 0, 0, 'ann-id', 'Ann');
        PRAGMA user_version=4;
        """
    )
    conn.commit()
    conn.close()
    store = Store(path)
    store.save_seat("t1", 0, SeatRow(0, "bot", "Sven", "random", None, None))
    store.save_hand("t1", 0, {"hand": "new"}, [0] * 5, finished=2.0, match=1)
    store.commit()
    rows = store._db.execute(
        "SELECT match_number, number, seat, identity, name FROM hand_seats ORDER BY match_number"
    ).fetchall()
    assert rows == [(0, 0, 0, "ann-id", "Ann"), (1, 0, 0, "bot:random", "Sven")]
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_schema_5_database_keeps_its_seats_and_learns_who_seated_each_bot(
    tmp_path: Path,
) -> None:
    """Schema 6 stores the address that seated each server bot (max_bots_per_address holds
    across a restart); seats stored before it have none."""
    path = tmp_path / "v5.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE seats;
        CREATE TABLE seats (table_id INTEGER NOT NULL REFERENCES tables(id), seat INTEGER NOT NULL,
            kind TEXT NOT NULL, name TEXT NOT NULL, strategy TEXT, remote_kind TEXT,
            token_hash TEXT, PRIMARY KEY (table_id, seat));
        INSERT INTO tables (config, state, created) VALUES ('{"name": "old"}', 'waiting', 0.0);
        INSERT INTO seats VALUES (1, 1, 'bot', 'Lena', 'random', NULL, NULL);
        PRAGMA user_version=5;
        """
    )
    conn.commit()
    conn.close()
    store = Store(path)
    store.save_seat("t1", 2, SeatRow(2, "bot", "Sven", "random", None, None, "127.0.0.9"))
    store.commit()
    [table] = store.load_open_tables()
    assert [(s.seat, s.name, s.added_by) for s in table.seats] == [
        (1, "Lena", None),
        (2, "Sven", "127.0.0.9"),
    ]
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_the_checkpoint_thread_copies_the_log_back_between_commits(tmp_path: Path) -> None:
    import shutil
    import time

    path = tmp_path / "s.db"
    store = Store(path, checkpoint_interval=0.01)
    table = store.create_table({"name": "t"}, created=0.0)
    for n in range(50):
        store.add_action(table, n, 0, {"seat": n % 5, "action": "pass"}, seq=n + 1)
        store.commit()
    # The database file alone (without its log) holds them once the thread has copied them;
    # 50 small commits are far below the 1,000 pages at which SQLite would do it itself.
    deadline = time.monotonic() + 5.0
    count = 0
    while count < 50 and time.monotonic() < deadline:
        time.sleep(0.02)
        copy = tmp_path / f"copy-{time.monotonic_ns()}.db"
        shutil.copyfile(path, copy)
        try:
            count = sqlite3.connect(copy).execute("SELECT count(*) FROM actions").fetchone()[0]
        except sqlite3.DatabaseError:  # copied in the middle of a checkpoint: try again
            count = 0
    assert count == 50
    store.close()
    assert not (tmp_path / "s.db-wal").exists()  # the last connection folded it in and removed it


def test_a_match_whose_log_has_a_gap_is_left_out_of_the_restore(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = Store(path)
    broken = store.create_table({"name": "broken"}, created=0.0)
    fine = store.create_table({"name": "fine"}, created=0.0)
    for table in (broken, fine):
        store.update_table(table, state="playing", seed=1, first_dealer=0)
    store.add_action(broken, 0, 0, {"seat": 1, "action": "pass"})
    store.add_action(broken, 2, 0, {"seat": 3, "action": "pass"})  # number 1 never stored
    store.add_action(fine, 0, 0, {"seat": 1, "action": "pass"})
    store.commit()
    assert [row.id for row in store.load_open_tables()] == [fine]
    store.close()


def test_a_database_is_open_in_one_store_at_a_time(tmp_path: Path) -> None:
    """A second server on the same file would restore the same matches and append to them."""
    path = tmp_path / "s.db"
    store = Store(path)
    with pytest.raises(DatabaseInUse) as refused:
        Store(path)
    assert refused.value.holder == os.getpid() and str(path) in str(refused.value)
    reader = sqlite3.connect(path)  # other programs may still read it
    assert reader.execute("SELECT count(*) FROM tables").fetchone() == (0,)
    reader.close()
    store.close()
    again = Store(path)  # closed: free again
    again.close()


@pytest.mark.parametrize("how", ["symlink", "hard link", "relative"])
def test_the_lock_is_on_the_file_not_on_the_path(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two paths to one database are one database: the second store is refused either way."""
    path = tmp_path / "s.db"
    store = Store(path)
    other = tmp_path / "other.db"
    if how == "symlink":
        other.symlink_to(path)
    elif how == "hard link":
        os.link(path, other)
    else:
        monkeypatch.chdir(tmp_path)
        other = Path("s.db")
    with pytest.raises(DatabaseInUse) as refused:
        Store(other)
    assert refused.value.holder == os.getpid() and str(other) in str(refused.value)
    store.close()
    Store(other).close()  # free again once the first one closed


def test_a_rematched_table_comes_back_with_its_current_match_alone(tmp_path: Path) -> None:
    """Issue 27: each match numbers its actions from 0; the scan from an older table's first
    action passes the earlier match's and must not take them for a gap."""
    path = tmp_path / "s.db"
    store = Store(path)
    older = store.create_table({"name": "older"}, created=0.0)
    table = store.create_table({"name": "rematched"}, created=0.0)
    store.update_table(older, state="playing", seed=1, first_dealer=0)
    store.add_action(older, 0, 0, {"seat": 1, "action": "pass"})
    store.update_table(table, state="playing", seed=2, first_dealer=0)
    for n in range(3):
        store.add_action(table, n, 0, {"seat": n + 1, "action": "pass"})
    store.commit()
    store.update_table(table, state="over", finished=1.0)
    store.update_table(table, state="waiting", match_number=1)
    # The last match's final action still queued when the next one starts (the same batch).
    store.add_action(table, 3, 0, {"seat": 4, "action": "pass"})
    store.update_table(table, state="playing", seed=3, first_dealer=1)
    store.add_action(table, 0, 0, {"seat": 2, "action": "pick"}, match=1)
    store.add_action(older, 1, 0, {"seat": 2, "action": "pass"})
    store.commit()
    db = store._db
    # first_action is where the new match starts: after the queued row of the last one.
    (first,) = db.execute("SELECT first_action FROM tables WHERE id = ?", (table_key(table),))
    assert db.execute(
        "SELECT n, match_number FROM actions WHERE table_id = ? AND rowid >= ?",
        (table_key(table), first[0]),
    ).fetchall() == [(0, 1)]
    store.close()

    again = Store(path)
    rows = {row.id: row for row in again.load_open_tables()}
    assert [a["action"] for _, a in rows[older].actions] == ["pass", "pass"]
    assert rows[table].match_number == 1
    assert [(a["seat"], a["action"]) for _, a in rows[table].actions] == [(2, "pick")]
    again.close()


def test_a_schema_6_database_restores_a_rematched_table(tmp_path: Path) -> None:
    """Schema 7 stores each action's match; the rows of a schema 6 log have none, and the
    restore keeps a rematched table's current match by its first_action."""
    path = tmp_path / "v6.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE actions;
        CREATE TABLE actions (table_id INTEGER NOT NULL REFERENCES tables(id),
            n INTEGER NOT NULL, hand INTEGER NOT NULL, action TEXT NOT NULL, seq INTEGER);
        INSERT INTO tables (config, state, seed, first_dealer, created, first_action)
            VALUES ('{"name": "older"}', 'playing', 1, 0, 0.0, 1);
        INSERT INTO actions VALUES (1, 0, 0, '{"seat":1,"action":"pass"}', 2);
        INSERT INTO actions VALUES (2, 0, 0, '{"seat":1,"action":"pass"}', 2);
        INSERT INTO actions VALUES (2, 1, 0, '{"seat":2,"action":"pass"}', 3);
        INSERT INTO tables (config, state, seed, first_dealer, created, first_action,
            match_number) VALUES ('{"name": "rematched"}', 'playing', 2, 0, 0.0, 4, 1);
        INSERT INTO actions VALUES (2, 0, 0, '{"seat":3,"action":"pick"}', 9);
        PRAGMA user_version=6;
        """
    )
    conn.commit()
    conn.close()
    store = Store(path)
    rows = {row.id: row for row in store.load_open_tables()}
    assert [a["seat"] for _, a in rows["t1"].actions] == [1]
    assert [(a["seat"], a["action"]) for _, a in rows["t2"].actions] == [(3, "pick")]
    assert rows["t2"].seq == 9
    store.add_action("t2", 1, 0, {"seat": 4, "action": "pass"}, seq=10, match=1)
    store.commit()
    assert [a["seat"] for _, a in store.load_open_tables()[1].actions] == [3, 4]
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def delete_plan(store: Store) -> list[str]:
    """What SQLite does to delete a ``tables`` row, one step a line."""
    plan = store._db.execute("EXPLAIN QUERY PLAN DELETE FROM tables WHERE id = 1").fetchall()
    return [str(row[3]) for row in plan]


def test_deleting_a_table_that_never_started_does_not_scan_the_action_log(
    tmp_path: Path,
) -> None:
    """Every table that closes without having started is deleted, on the event loop. While the
    log declared ``actions.table_id`` a foreign key of ``tables(id)`` (schemas 1 to 8), each
    delete scanned the whole log for the row's actions (about 100 ms at a million actions,
    ``bench/table_delete.py``). A new database and an upgraded one both delete by key alone,
    and the upgrade keeps the log."""
    path = tmp_path / "v8.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE actions;
        CREATE TABLE actions (table_id INTEGER NOT NULL REFERENCES tables(id),
            n INTEGER NOT NULL, hand INTEGER NOT NULL, action TEXT NOT NULL, seq INTEGER,
            match_number INTEGER);
        INSERT INTO tables (config, state, seed, first_dealer, created, first_action)
            VALUES ('{"name": "playing"}', 'playing', 1, 0, 0.0, 1);
        INSERT INTO actions VALUES (1, 0, 0, '{"seat":1,"action":"pass"}', 2, 0);
        PRAGMA user_version=8;
        """
    )
    conn.commit()
    conn.close()
    for store in (Store(None), Store(path)):
        assert not [step for step in delete_plan(store) if "actions" in step]
        assert store._db.execute("PRAGMA foreign_key_list(actions)").fetchall() == []
        waiting = store.create_table({"name": "never started"}, created=0.0)
        store.commit()
        store.forget_table(waiting)
        store.commit()
        assert store._db.execute(
            "SELECT count(*) FROM tables WHERE id = ?", (table_key(waiting),)
        ).fetchone() == (0,)
        store.close()
    upgraded = Store(path)
    assert upgraded._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    (row,) = upgraded.load_open_tables()
    assert row.actions == [(0, {"seat": 1, "action": "pass"})]
    upgraded.close()
