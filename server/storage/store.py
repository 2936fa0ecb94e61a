"""Durable state in one SQLite file (stdlib sqlite3, WAL): tables, seats, actions, hands, results.

What is stored is enough to rebuild every unfinished match after a crash: the table's
configuration, the match seed and first dealer, every accepted action in order (the engine
replays them), the seat occupants with their token hashes, and the running totals. Finished hands
are kept as ``sheepshead-hand/1`` records with explicit hands, and each finished match leaves one
result row per seat.

Writes accumulate in an open transaction; :meth:`Store.commit` ends it. The server commits once
per event-loop batch, before anything that batch produced is sent (see ``server.app``), so a
client never sees an action that a crash could take back.

>>> store = Store(None)
>>> table_id = store.create_table({"name": "t"}, created=0.0)
>>> store.add_action(table_id, 0, 0, {"seat": 1, "action": "pass"})
>>> store.commit()
>>> [row.id for row in store.load_open_tables()] == [table_id]
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from server.storage.tallies import (
    BOT_PREFIX,
    TALLY_FIGURES,
    Figures,
    HandFacts,
    HandKey,
    bot_identity,
    canonical_strategy,
    hand_facts,
    replay,
)

try:
    import fcntl
except ImportError:  # Windows: no lock (see _DatabaseLock)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("sheepshead.server")

SCHEMA_VERSION: Final = 18
"""1: the first layout. 2: ``actions.seq``, the table's seq once the action was applied.
3: ``actions`` is an append-only log without an index, and ``tables.first_action`` says where
a match's actions start in it. 4: ``match_number`` (0, then +1 per rematch at the table) on
``tables``, ``hands`` and ``results``, so a rematch keeps the earlier matches' rows;
and ``tables.dealt``, the number of the hand last dealt.
5: ``match_number`` in the key of ``hand_seats`` too (the standings count each match).
6: ``seats.added_by``, the address of the host who seated a server bot (so
``max_bots_per_address`` holds after a restart).
7: ``actions.match_number``, the match each action belongs to: a table's actions are numbered
from 0 again in each match, so the restore's one scan of the log keeps only the current match's
(rows of older versions have none, and are told apart by ``tables.first_action``).
8: ``match_tallies`` and ``player_totals``, the standings kept as matches end (a standings
request no longer adds up every result); filled from the stored hands on upgrade.
9: ``actions.table_id`` no longer names ``tables(id)`` as its parent: deleting a ``tables`` row
made SQLite look for child actions, and with no index on the log that is a scan of all of it
(see :meth:`Store.forget_table`).
10: ``tables.created_by``, the address of the connection that created the table (so the caps of
tables per address, ``max_waiting_per_address`` and ``max_running_per_address``, hold after a
restart).
11: ``seats_left``, who held each seat emptied during the hand in play (a stand-in finishes the
hand for them, and it is stored as theirs), so a restart in that hand no longer forgets them
(created on open like the rest: an older database gains it empty, as no hand of it was in play
with a seat known to be freed).
12: ``seat_holders``, who held a seat taken over by a newcomer during the hand in play and when
(the hand's action count), so the state's seat summaries keep naming them after a restart
(created on open: an older database gains it empty).
13: ``chat_lines``, each table's last chat lines (as many as the ``history`` reply carries), so
a client coming back after a restart is sent them again (created on open: an older database
gains it empty, its tables' chat having been kept in memory only).
14: ``chat_lines.code``: the ring keeps a table's notices too (joined, left, host, ...), among
its chat lines and in one order with them, so after a restart the ``history`` reply's lines
still say who left or became host (``code`` is the notice's, NULL for a chat line: an older
database's rows, all chat, are kept as they are).
15: ``seats.away``, whether the seat's player was last told away (``disconnected``, a
``standin``) rather than back, so a restart knows who was away before it whatever the table
said since; before, the ring of ``chat_lines`` was all that said it, and a drop older than its
last 50 lines was forgotten.
16: ``seats.away`` is filled at the upgrade for the rows an older server stored (NULL under
schema 15, the column missing before it) from the ring, as the restore judged them before
(:data:`AWAY_CODES`, :data:`HERE_CODES`), so the restore reads it alone.
17: ``tables.starting``, set (1) in the transaction that accepts a ``start`` or a full table's
``rematch`` and cleared when its first hand is dealt (or the start is cancelled): the deal waits
for the people's client seeds (PROTOCOL.md section 13), and a restart in that wait starts the
match again instead of leaving the table waiting for a second ``start`` (an older database's
rows have NULL: not starting, as an older server restored them).
18: ``seats.since_match`` and ``seats.since_hand``, when the seat's holder sat down (the
table's match number and how many of its hands had finished), so the coach's ``review`` tells
a hand played at the seat before them from their own by the holding, not by its name, after a
restart too (an older database's rows have NULL: not known, judged by the name as before)."""

AWAY_CODES: Final = frozenset({"disconnected", "standin"})
"""Notices after which a seat's player is away (until one of :data:`HERE_CODES`): what
``seats.away`` records, and what the upgrade reads in the ring for rows stored before it."""

HERE_CODES: Final = frozenset({"reconnected", "left", "joined"})
"""Notices after which a seat's player is no longer away: back, or gone for good, or another
player took the seat."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    config TEXT NOT NULL,              -- JSON: name, rules, hands, password hash, timers
    state TEXT NOT NULL DEFAULT 'waiting',  -- waiting | playing | over | closed
    seq INTEGER NOT NULL DEFAULT 0,
    host_seat INTEGER,
    seed INTEGER,
    first_dealer INTEGER,
    totals TEXT NOT NULL DEFAULT '[0,0,0,0,0]',
    created REAL NOT NULL,
    finished REAL,
    first_action INTEGER,              -- rowid in actions where this match's actions start
    match_number INTEGER NOT NULL DEFAULT 0, -- the current match: 0, then +1 per rematch
    dealt INTEGER,                     -- number of the hand last dealt (it may have no action)
    created_by TEXT,                   -- the creating connection's address (NULL: not known)
    starting INTEGER                   -- 1: a start was accepted, its first hand not yet dealt
);
CREATE TABLE IF NOT EXISTS seats (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,                -- human | bot (a server bot) ; a missing row is empty
    name TEXT NOT NULL,
    strategy TEXT,
    remote_kind TEXT,                  -- human | bot: what the client said it is
    token_hash TEXT,
    added_by TEXT,                     -- a server bot: the address of the host who seated it
    away INTEGER,                      -- 1: its player was last told away, else 0
    since_match INTEGER,               -- when its holder sat down: the table's match number
    since_hand INTEGER,                -- and how many of that match's hands had finished
    PRIMARY KEY (table_id, seat)
);
CREATE UNIQUE INDEX IF NOT EXISTS seats_token ON seats(token_hash);
-- Who last held each seat emptied during the hand in play, until that hand is stored or the
-- next is dealt: the hand is stored and counted as theirs though a stand-in finished it.
CREATE TABLE IF NOT EXISTS seats_left (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,                -- human | bot, as in seats
    name TEXT NOT NULL,
    strategy TEXT,                     -- a server bot's
    identity TEXT,                     -- as hand_seats.identity (NULL: not counted)
    PRIMARY KEY (table_id, seat)
);
-- Who held a seat before the newcomer who took it over during the hand in play, and until when
-- (PROTOCOL.md section 6.1, the seat summary's before); forgotten with seats_left.
CREATE TABLE IF NOT EXISTS seat_holders (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    until INTEGER NOT NULL,            -- the hand's actions made when the next holder sat down
    name TEXT NOT NULL,
    PRIMARY KEY (table_id, seat, until)
);
-- A table's last chat lines and notices, for the history reply's lines after a restart: a ring
-- of as many slots as that reply keeps (server.tables.history.LINES_KEPT), line n in slot
-- n % that, so each line said replaces the one that many lines older; deleted when the table
-- closes.
CREATE TABLE IF NOT EXISTS chat_lines (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    slot INTEGER NOT NULL,
    n INTEGER NOT NULL,                -- the table's lines numbered 0, 1, ...: their order
    sender TEXT NOT NULL,              -- the name a chat line was said under ('' for a notice)
    seat INTEGER,                      -- chat: NULL for a spectator's; a notice: its seat, if any
    text TEXT NOT NULL,
    code TEXT,                         -- a notice's code (NULL: a chat line)
    PRIMARY KEY (table_id, slot)
);
-- Every accepted action, appended in order. No index: an index on (table_id, n) puts each
-- table's inserts in a page of its own, several times the cost of an append (docs/performance.md,
-- "Storage"). Rows are never deleted, so rowids only grow and tables.first_action bounds the
-- scan that restores the unfinished matches. No foreign key either: with one, every deleted
-- tables row (each table that never started) was a scan of the whole log, looking for its
-- actions.
CREATE TABLE IF NOT EXISTS actions (
    table_id INTEGER NOT NULL,         -- tables.id (not declared: see above)
    n INTEGER NOT NULL,                -- 0, 1, ... per match of the table
    hand INTEGER NOT NULL,
    action TEXT NOT NULL,              -- JSON: the record map with its seat
    seq INTEGER,                       -- the table's seq once it was applied
    match_number INTEGER               -- the table's match (NULL: stored before schema 7)
);
CREATE TABLE IF NOT EXISTS hands (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    match_number INTEGER NOT NULL DEFAULT 0,
    number INTEGER NOT NULL,
    record TEXT NOT NULL,              -- JSON: sheepshead-hand/1 with explicit hands
    payouts TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (table_id, match_number, number)
);
-- Commit-reveal deal seeds of a match (PROTOCOL.md section 13), JSON: a list of commitments.
-- Created on open like the rest, so a database of an earlier version gains it unchanged.
CREATE TABLE IF NOT EXISTS deal_seeds (
    table_id INTEGER PRIMARY KEY REFERENCES tables(id),
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    match_number INTEGER NOT NULL DEFAULT 0,
    seat INTEGER NOT NULL,
    name TEXT,
    kind TEXT NOT NULL,
    total INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (table_id, match_number, seat)
);
"""

_PLAYERS_SCHEMA: Final = """
-- Players the server remembers (server.storage.standings). New tables only: a database without them
-- gets them on open, and an older server ignores them.
CREATE TABLE IF NOT EXISTS identities (
    identity TEXT PRIMARY KEY,         -- sha256 of a player key (never the key itself)
    kind TEXT NOT NULL,                -- key | ssh (the key is kept by the SSH door)
    label TEXT,                        -- ssh: the SSH key's SHA256 fingerprint
    name TEXT,                         -- the last name it used
    seen REAL
);
CREATE TABLE IF NOT EXISTS seat_identities (
    token_hash TEXT PRIMARY KEY,       -- a seat token's hash (seats.token_hash)
    identity TEXT NOT NULL
);
-- Who sat where in each finished hand: an identity, 'bot:<strategy>' for a server bot, or
-- NULL for a client that sent no player key.
CREATE TABLE IF NOT EXISTS hand_seats (
    table_id INTEGER NOT NULL,
    match_number INTEGER NOT NULL DEFAULT 0,
    number INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    identity TEXT,
    name TEXT,
    PRIMARY KEY (table_id, match_number, number, seat)
);
-- The standings, kept as hands and matches end (server.storage.standings): one row per identity per
-- match, added to at each of its finished hands; ``finished`` is set when the match ends
-- (NULL: still in play, not counted yet).
CREATE TABLE IF NOT EXISTS match_tallies (
    table_id INTEGER NOT NULL,
    match_number INTEGER NOT NULL,
    identity TEXT NOT NULL,
    hands INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    picks INTEGER NOT NULL DEFAULT 0,
    picker_wins INTEGER NOT NULL DEFAULT 0,
    schneiders INTEGER NOT NULL DEFAULT 0,
    leasters_won INTEGER NOT NULL DEFAULT 0,
    name TEXT,                         -- its seat's name in the last hand it played here
    finished REAL,
    PRIMARY KEY (table_id, match_number, identity)
);
CREATE INDEX IF NOT EXISTS match_tallies_finished ON match_tallies(finished);
-- Every identity's figures over every ended match: what an all-time standings reads.
CREATE TABLE IF NOT EXISTS player_totals (
    identity TEXT PRIMARY KEY,
    matches INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    total INTEGER NOT NULL,
    picks INTEGER NOT NULL,
    picker_wins INTEGER NOT NULL,
    schneiders INTEGER NOT NULL,
    leasters_won INTEGER NOT NULL,
    name TEXT,                         -- its seat's name in the last match that ended
    last REAL                          -- when that match ended
);
"""

_ACTIONS_REFERENCE: Final = re.compile(r"\s+REFERENCES\s+tables\s*\(\s*id\s*\)", re.IGNORECASE)
"""The foreign key that schemas 1 to 8 declared on ``actions.table_id`` (schema 9 drops it)."""

CHECKPOINT_INTERVAL: Final = 0.1
"""Seconds between two passive checkpoints by the store's checkpoint thread."""


class _Checkpointer:
    """A daemon thread that copies the write-ahead log back into the database, off the loop.

    SQLite does that copy (a checkpoint) inside whichever commit takes the log past 1,000
    pages, and with thousands of tables the pages are scattered: a stall of the event loop.
    Passive checkpoints from a connection of this thread's own never block the writer and leave
    that commit little to copy, so it only restarts the log (the figures, and why ten a second:
    docs/performance.md, "Storage").
    """

    def __init__(self, path: str, interval: float) -> None:
        self._path = path
        self._interval = interval
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            db = sqlite3.connect(self._path, isolation_level=None)
        except sqlite3.Error:
            log.exception("checkpoint thread: cannot open %s", self._path)
            return
        try:
            while not self._stopped.wait(self._interval):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as exc:  # busy or locked: the next round tries again
                    log.debug("checkpoint skipped: %s", exc)
        finally:
            db.close()

    def stop(self) -> None:
        """End the thread (after a checkpoint in progress)."""
        self._stopped.set()
        self._thread.join()


@functools.lru_cache(maxsize=4096)  # every action is stored under its table's key
def table_key(table_id: str) -> int:
    """The database key of a table id such as ``"t12"`` (ValueError for anything else)."""
    if not table_id.startswith("t") or not table_id[1:].isdigit() or len(table_id) > 20:
        raise ValueError(f"not a table id: {table_id!r}")
    return int(table_id[1:])


@dataclass
class SeatRow:
    """One stored seat occupant."""

    seat: int
    kind: str
    name: str
    strategy: str | None
    remote_kind: str | None
    token_hash: str | None
    added_by: str | None = None
    """A server bot's host's address, so a restart keeps it under ``max_bots_per_address``."""
    away: bool = False
    """As stored: whether its player was last told away (:meth:`Store.save_away`). A seat
    saved anew is not away."""
    since: tuple[int, int] | None = None
    """When its holder sat down: the table's match number and how many of that match's hands
    had finished (None: not known, a row stored before schema 18)."""


@dataclass
class LeftRow:
    """Who last held a seat emptied during the hand in play (``seats_left``)."""

    seat: int
    kind: str
    name: str
    strategy: str | None
    identity: str | None
    """Who the standings count the hand for, as :meth:`Store.seat_player` named them."""


@dataclass
class LineRow:
    """One stored line of a table (``chat_lines``): a chat line, or a notice (``code``)."""

    n: int
    """The table's number for it (0, 1, ...: the order they were said in)."""
    sender: str
    """The name a chat line was said under ('' for a notice)."""
    seat: int | None
    """A chat line's sender's seat (None: a spectator's line); a notice's seat (None: none)."""
    text: str
    code: str | None = None
    """A notice's code (None: a chat line)."""


@dataclass
class TableRow:
    """One stored unfinished table, with its seats and its actions in order."""

    id: str
    config: dict[str, Any]
    state: str
    seq: int
    host_seat: int | None
    seed: int | None
    first_dealer: int | None
    totals: list[int]
    seats: list[SeatRow] = field(default_factory=list)
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """The current match's actions of its last hand with any (hand number, action): the
    restore replays them alone, the hands before it are stored (``hands``)."""
    actions_before: int = 0
    """The current match's actions before those in :attr:`actions` (of its finished hands)."""
    match_number: int = 0
    """The table's current match (0, then +1 per rematch)."""
    finished: float | None = None
    """When its last match ended (wall clock), for an ``over`` table."""
    dealt: int | None = None
    """The number of the hand last dealt (None: the first, or stored before schema 4)."""
    created_by: str | None = None
    """The address of the connection that created it (None: not known, or before schema 10)."""
    starting: bool = False
    """Whether a ``start`` (or ``rematch``) was accepted and its first hand not yet dealt: the
    restore starts the match again (schema 17)."""
    left: list[LeftRow] = field(default_factory=list)
    """Who held each seat emptied during the hand in play (schema 11)."""
    holders: list[tuple[int, int, str]] = field(default_factory=list)
    """(seat, until, name) of each earlier holder of a seat taken over during the hand in
    play, in order (schema 12)."""
    lines: list[LineRow] = field(default_factory=list)
    """Its last chat lines (schema 13) and notices (schema 14), oldest first."""


class DatabaseInUse(RuntimeError):
    """Another server (another process, or another store in this one) has the database open.

    Two servers on one database would both restore its unfinished matches and both append
    actions to them, so the second one is refused.
    """

    def __init__(self, path: str, holder: int | None) -> None:
        self.path = path
        self.holder = holder
        """The process id of the holder, when it could be told."""
        self.by = f" (process {holder})" if holder is not None else ""
        """`` (process N)`` naming the holder, or nothing, for messages."""
        super().__init__(f"the database {path} is in use by another sheepshead server{self.by}")


_LOCKED_HERE: set[tuple[int, int]] = set()
"""Device and inode of every database file a store of this process holds the lock on."""


class _DatabaseLock:
    """An exclusive ``flock`` on the database file itself, held while the store is open.

    The lock belongs to the file, not to the path it was opened by, so a second server is
    refused whichever path it takes: a symbolic link, a hard link, a relative path. The kernel
    releases it when the process ends however it ends, so a ``kill -9`` leaves no stale lock.
    ``flock`` locks and the POSIX locks SQLite takes do not interact; other programs can still
    read the database (the sqlite3 shell, a backup). The holder is named from ``/proc/locks``
    where there is one (Linux). Without ``fcntl`` (Windows) there is no lock.

    A second store of the same process is refused before the file is opened again: closing a
    descriptor of the file would drop the POSIX locks that the first store's SQLite holds.
    """

    def __init__(self, path: str) -> None:
        self.fd: int | None = None
        self.key: tuple[int, int] | None = None
        if fcntl is None:
            return
        with contextlib.suppress(OSError):
            if _file_key(os.stat(path)) in _LOCKED_HERE:
                raise DatabaseInUse(path, os.getpid())
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            key = _file_key(os.fstat(fd))
            if key in _LOCKED_HERE:  # created meanwhile by another store of this process
                raise DatabaseInUse(path, os.getpid())
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatabaseInUse(path, _flock_holder(key)) from None
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        self.key = key
        _LOCKED_HERE.add(key)

    def release(self) -> None:
        """Let the next server have the database."""
        if self.fd is not None:
            os.close(self.fd)  # closing the last descriptor releases the flock
            self.fd = None
        if self.key is not None:
            _LOCKED_HERE.discard(self.key)
            self.key = None


def _file_key(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _flock_holder(key: tuple[int, int]) -> int | None:
    """The process holding a ``flock`` on the file with this device and inode, from
    ``/proc/locks`` (None where it cannot be told)."""
    dev, ino = key
    wanted = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 4711 fe:00:2147955 0 EOF"
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted:
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        pass
    return None


class Store:
    """The server's SQLite database; ``path`` None keeps it in memory (tests, throwaway servers).

    A database file is open in one store at a time: a second one raises :class:`DatabaseInUse`.
    A store in memory may start as a copy of the database ``copy_of`` reads, brought to the
    current schema by the same upgrade (for reading a database an older server left, which is
    not written: ``sheepshead standings``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        *,
        synchronous: str = "NORMAL",
        checkpoint_interval: float | None = CHECKPOINT_INTERVAL,
        copy_of: Reader | None = None,
    ) -> None:
        if copy_of is not None and path is not None:
            raise ValueError("only a store in memory starts as a copy")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError("synchronous must be OFF, NORMAL, FULL or EXTRA")
        if path is None:
            target = ":memory:"
        else:
            target = os.fspath(path)
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self.path = None if path is None else target
        self._lock = None if path is None else _DatabaseLock(target)
        with contextlib.ExitStack() as undo:  # a store that fails to open lets the file go
            if self._lock is not None:
                undo.callback(self._lock.release)
            self._db = sqlite3.connect(target, isolation_level="DEFERRED", check_same_thread=False)
            undo.callback(self._db.close)
            if copy_of is not None:
                copy_of._db.backup(self._db)
            self._prepare(target, synchronous, checkpoint_interval)
            undo.pop_all()

    def _prepare(self, target: str, synchronous: str, checkpoint_interval: float | None) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: a commit survives the process being killed (the OS has the pages); FULL
        # also survives a power cut, at the cost of an fsync per commit.
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.execute("PRAGMA foreign_keys=ON")
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RuntimeError(
                f"database {target} was written by a newer version (schema {version})"
            )
        self._db.executescript(_SCHEMA)
        self._db.executescript(_PLAYERS_SCHEMA)
        if version < SCHEMA_VERSION:
            self._upgrade(version)
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        self._db.commit()
        self.commits = 0
        self._actions: list[tuple[int, int, int, str, int | None, int]] = []
        """Action rows not yet inserted: they go in with one executemany just before a commit."""
        self.on_write: Callable[[], None] | None = None
        """Called after every write (the server schedules its group commit with it)."""
        self._checkpointer: _Checkpointer | None = None
        if self.path is not None and checkpoint_interval is not None:
            self._checkpointer = _Checkpointer(self.path, checkpoint_interval)

    def _upgrade(self, version: int) -> None:
        """Bring a database of schema ``version`` (older than this one's) to the current
        layout, keeping every row.

        Each step looks at the layout itself, so it does nothing where its change is already
        there: an upgrade costs what the database lacks. The one step that grows with the
        history, filling the standings from the stored hands, runs only for a database older
        than the standings' own layout (:data:`STANDINGS_SCHEMA`): a newer one keeps its rows
        as they are (the figures: docs/performance.md, "Storage")."""
        db = self._db
        columns = {row[1] for row in db.execute("PRAGMA table_info(actions)")}
        if "seq" not in columns:  # schema 1
            db.execute("ALTER TABLE actions ADD COLUMN seq INTEGER")
        table_columns = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
        if "first_action" not in table_columns:
            db.execute("ALTER TABLE tables ADD COLUMN first_action INTEGER")
        if "dealt" not in table_columns:  # schemas 1 to 3
            db.execute("ALTER TABLE tables ADD COLUMN dealt INTEGER")
        if "created_by" not in table_columns:  # schemas 1 to 9
            db.execute("ALTER TABLE tables ADD COLUMN created_by TEXT")
        if "starting" not in table_columns:  # schemas 1 to 16
            db.execute("ALTER TABLE tables ADD COLUMN starting INTEGER")
        indexed = db.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions'"
        ).fetchone()[0]
        if indexed:  # schemas 1 and 2 keyed actions by (table_id, n): rewrite it as a log
            db.execute("ALTER TABLE actions RENAME TO actions_keyed")
            db.executescript(_SCHEMA)
            db.execute(
                "INSERT INTO actions (table_id, n, hand, action, seq)"
                " SELECT table_id, n, hand, action, seq FROM actions_keyed ORDER BY table_id, n"
            )
            db.execute("DROP TABLE actions_keyed")
        if "match_number" not in {row[1] for row in db.execute("PRAGMA table_info(actions)")}:
            # Schemas 1 to 6: their rows keep NULL, the restore bounds them by first_action.
            db.execute("ALTER TABLE actions ADD COLUMN match_number INTEGER")
        self._upgrade_to_matches()
        if "code" not in {row[1] for row in db.execute("PRAGMA table_info(chat_lines)")}:
            db.execute("ALTER TABLE chat_lines ADD COLUMN code TEXT")  # schema 13: all chat lines
        seat_columns = {row[1] for row in db.execute("PRAGMA table_info(seats)")}
        if "added_by" not in seat_columns:
            db.execute("ALTER TABLE seats ADD COLUMN added_by TEXT")  # schemas 1 to 5
        if "away" not in seat_columns:  # schemas 1 to 14
            db.execute("ALTER TABLE seats ADD COLUMN away INTEGER")
        if "since_match" not in seat_columns:  # schemas 1 to 17: NULL, not known
            db.execute("ALTER TABLE seats ADD COLUMN since_match INTEGER")
            db.execute("ALTER TABLE seats ADD COLUMN since_hand INTEGER")
        self._fill_away()  # schemas 1 to 15
        self._unreference_actions()  # schemas 1 to 8
        if version < STANDINGS_SCHEMA:  # schemas 1 to 7 kept no standings (0: a new file)
            backfill(db)

    def _fill_away(self) -> None:
        """Schemas 1 to 15 -> 16: each seat row with no ``away`` (stored before schema 15) gets
        it from the table's ring of lines, as the restore once judged it: away if the seat's
        last notice of :data:`AWAY_CODES` or :data:`HERE_CODES` is of the first (a drop older
        than the ring's 50 lines is not known: not away). Only those rows are read (a few per
        table kept), each by a lookup in its table's ring (its key's prefix)."""
        told = sorted(AWAY_CODES | HERE_CODES)
        marks = ", ".join("?" for _ in told)
        away = ", ".join("?" for _ in AWAY_CODES)
        self._db.execute(
            "UPDATE seats SET away = coalesce("
            f" (SELECT code IN ({away}) FROM chat_lines AS line"
            "   WHERE line.table_id = seats.table_id AND line.seat = seats.seat"
            f"   AND line.code IN ({marks}) ORDER BY line.n DESC LIMIT 1), 0)"
            " WHERE away IS NULL",
            (*sorted(AWAY_CODES), *told),
        )

    def _unreference_actions(self) -> None:
        """Schemas 1 to 8 -> 9: drop the foreign key of ``actions.table_id``, in place.

        Removing a foreign key changes nothing stored, so SQLite's documented way applies
        (https://sqlite.org/lang_altertable.html, "otherwise"): the table's ``CREATE`` text is
        edited with ``writable_schema``, whatever the log's size, instead of copying it."""
        db = self._db
        found = db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
        ).fetchone()
        if found is None:
            return
        sql = _ACTIONS_REFERENCE.sub("", found[0])
        if sql == found[0]:
            return
        version = db.execute("PRAGMA schema_version").fetchone()[0]
        db.execute("PRAGMA writable_schema=ON")
        try:
            db.execute(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'actions'",
                (sql,),
            )
            db.execute(f"PRAGMA schema_version={int(version) + 1}")
        finally:
            # RESET: OFF, and this connection reloads the schema it parsed before the edit.
            # With OFF alone it kept planning from the old text (every delete of a ``tables``
            # row scanning the log, until a restart) unless a later statement happened to
            # reload it, as the standings' rebuild that once ran on every upgrade did.
            db.execute("PRAGMA writable_schema=RESET")

    def _upgrade_to_matches(self) -> None:
        """Schemas 3 and 4 -> 5: a match number on tables, hands, results and hand_seats (the
        old rows: match 0)."""
        db = self._db
        if "match_number" not in {row[1] for row in db.execute("PRAGMA table_info(tables)")}:
            db.execute("ALTER TABLE tables ADD COLUMN match_number INTEGER NOT NULL DEFAULT 0")
        for name, columns, schema in (
            ("hands", "table_id, number, record, payouts, finished", _SCHEMA),
            ("results", "table_id, seat, name, kind, total, hands, finished", _SCHEMA),
            ("hand_seats", "table_id, number, seat, identity, name", _PLAYERS_SCHEMA),
        ):
            if "match_number" in {row[1] for row in db.execute(f"PRAGMA table_info({name})")}:
                continue
            # The primary key gains the match number: SQLite can only rebuild the table for that.
            db.execute(f"ALTER TABLE {name} RENAME TO {name}_v3")
            db.executescript(schema)
            db.execute(f"INSERT INTO {name} ({columns}) SELECT {columns} FROM {name}_v3")
            db.execute(f"DROP TABLE {name}_v3")

    def _write(self, sql: str, params: Iterable[Any] = ()) -> sqlite3.Cursor:
        cur = self._db.execute(sql, tuple(params))
        if self.on_write is not None:
            self.on_write()
        return cur

    # ------------------------------------------------------------------ transactions

    @property
    def dirty(self) -> bool:
        """Whether writes are waiting for :meth:`commit`."""
        return bool(self._actions) or self._db.in_transaction

    def _insert_actions(self) -> None:
        if self._actions:
            rows, self._actions = self._actions, []
            self._db.executemany(
                "INSERT INTO actions (table_id, n, hand, action, seq, match_number)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    def commit(self) -> None:
        """Make every write so far durable."""
        self._insert_actions()
        if self._db.in_transaction:
            self._db.commit()
            self.commits += 1

    def close(self) -> None:
        """Commit and close the database (and let another server open it)."""
        try:
            self.commit()
            if self._checkpointer is not None:
                self._checkpointer.stop()
                self._checkpointer = None
            self._db.close()
        finally:
            if self._lock is not None:
                self._lock.release()

    # ------------------------------------------------------------------ writes

    def create_table(
        self, config: Mapping[str, Any], *, created: float, created_by: str | None = None
    ) -> str:
        """Store a new table's configuration, and the address of the connection that created
        it (``created_by``, None: none); returns its id (``"t<n>"``)."""
        cur = self._write(
            "INSERT INTO tables (config, created, created_by) VALUES (?, ?, ?)",
            (json_text(config), created, created_by),
        )
        assert cur.lastrowid is not None
        return f"t{cur.lastrowid}"

    def update_table(self, table_id: str, **fields: Any) -> None:
        """Change some of a table's columns: state, seq, host_seat, seed, first_dealer, totals,
        finished, match_number, dealt, starting."""
        allowed = {
            "state",
            "seq",
            "host_seat",
            "seed",
            "first_dealer",
            "totals",
            "finished",
            "match_number",
            "dealt",
            "starting",
        }
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown table columns {sorted(unknown)}")
        if "totals" in fields:
            fields["totals"] = json_text(fields["totals"])
        columns = ", ".join(f"{name} = ?" for name in fields)
        if fields.get("state") == "playing":
            # Every action of the match will be appended after the log's current end, and the
            # queued ones (the last match's, perhaps, ended in this batch) before it.
            self._insert_actions()
            columns += ", first_action = (SELECT coalesce(max(rowid), 0) + 1 FROM actions)"
        self._write(
            f"UPDATE tables SET {columns} WHERE id = ?", (*fields.values(), table_key(table_id))
        )

    def forget_table(self, table_id: str, *, keep_row: bool = False) -> None:
        """Delete a table that never finished a hand: its seats, its seeds, their links to
        players and (unless ``keep_row``) its row; it has no hands or results.

        ``keep_row`` for a table that started: the actions of its abandoned hands stay in the
        log, which is never rewritten, and refer to the row. (The log declares no foreign key,
        schema 9: deleting a row is a lookup by its key, where SQLite once scanned the whole
        log for the row's actions, on the event loop.)"""
        key = table_key(table_id)
        self._write(
            "DELETE FROM seat_identities WHERE token_hash IN"
            " (SELECT token_hash FROM seats WHERE table_id = ? AND token_hash IS NOT NULL)",
            (key,),
        )
        self._write("DELETE FROM seats WHERE table_id = ?", (key,))
        self._write("DELETE FROM seats_left WHERE table_id = ?", (key,))
        self._write("DELETE FROM seat_holders WHERE table_id = ?", (key,))
        self._write("DELETE FROM deal_seeds WHERE table_id = ?", (key,))
        if not keep_row:
            self._write("DELETE FROM tables WHERE id = ?", (key,))

    def update_seqs(self, seqs: Iterable[tuple[str, int]]) -> None:
        """Store the seq of several tables, ``(table_id, seq)`` each, in one statement."""
        rows = [(seq, table_key(table_id)) for table_id, seq in seqs]
        if rows:
            self._db.executemany("UPDATE tables SET seq = ? WHERE id = ?", rows)
            if self.on_write is not None:
                self.on_write()

    def save_seat(self, table_id: str, seat: int, row: SeatRow | None) -> None:
        """Store who sits at ``seat`` (None: the seat is empty), not away: a seat is saved when
        someone takes it, takes it back or leaves it, never while its player is away."""
        key = table_key(table_id)
        self._write("DELETE FROM seats WHERE table_id = ? AND seat = ?", (key, seat))
        if row is not None:
            self._write(
                "INSERT INTO seats (table_id, seat, kind, name, strategy, remote_kind, token_hash,"
                " added_by, away, since_match, since_hand)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
                (
                    key,
                    seat,
                    row.kind,
                    row.name,
                    row.strategy,
                    row.remote_kind,
                    row.token_hash,
                    row.added_by,
                    *(row.since or (None, None)),
                ),
            )

    def save_away(self, table_id: str, seat: int, away: bool) -> None:
        """Store that the player at ``seat`` was told ``away`` (dropped, or played by a
        stand-in) or back: one update of the seat's row (none if the seat is empty)."""
        self._write(
            "UPDATE seats SET away = ? WHERE table_id = ? AND seat = ?",
            (int(away), table_key(table_id), seat),
        )

    def save_left(self, table_id: str, row: LeftRow) -> None:
        """Store who last held ``row.seat``, emptied during the hand in play (replacing whoever
        held it before them in that hand)."""
        self._write(
            "INSERT OR REPLACE INTO seats_left (table_id, seat, kind, name, strategy, identity)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (table_key(table_id), row.seat, row.kind, row.name, row.strategy, row.identity),
        )

    def save_holder(self, table_id: str, seat: int, until: int, name: str) -> None:
        """Store that ``name`` held ``seat`` in the hand in play until a newcomer took it over
        after the hand's first ``until`` actions."""
        self._write(
            "INSERT OR REPLACE INTO seat_holders (table_id, seat, until, name) VALUES (?, ?, ?, ?)",
            (table_key(table_id), seat, until, name),
        )

    def forget_left(self, table_id: str) -> None:
        """Forget who held the seats emptied or taken over during the table's last hand (it is
        stored, or over without being played out)."""
        key = table_key(table_id)
        self._write("DELETE FROM seats_left WHERE table_id = ?", (key,))
        self._write("DELETE FROM seat_holders WHERE table_id = ?", (key,))

    def save_line(self, table_id: str, kept: int, row: LineRow) -> None:
        """Store the table's line ``row.n`` (chat or notice), replacing its line
        ``row.n - kept`` (the store keeps a table's last ``kept`` lines: one statement a line,
        whatever the count)."""
        self._write(
            "INSERT OR REPLACE INTO chat_lines (table_id, slot, n, sender, seat, text, code)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (table_key(table_id), row.n % kept, row.n, row.sender, row.seat, row.text, row.code),
        )

    def forget_lines(self, table_id: str) -> None:
        """Delete the table's stored lines (it closed: nobody is sent them again)."""
        self._write("DELETE FROM chat_lines WHERE table_id = ?", (table_key(table_id),))

    def add_action(
        self,
        table_id: str,
        n: int,
        hand: int,
        action: Mapping[str, Any] | str,
        *,
        seq: int | None = None,
        match: int = 0,
    ) -> None:
        """Store accepted action number ``n`` (0, 1, ... per match) of hand number ``hand`` of
        the table's match ``match``.

        ``action`` is the record map, or its JSON already encoded; ``seq`` is the table's seq
        once the action was applied, so the common change (an action) needs no update of the
        table row for its seq. The row is queued and inserted with the others of the batch by
        :meth:`commit` (one executemany instead of a statement per action); reads insert it
        first.
        """
        text = action if isinstance(action, str) else json_text(action)
        self._actions.append((table_key(table_id), n, hand, text, seq, match))
        if self.on_write is not None:
            self.on_write()

    def save_hand(
        self,
        table_id: str,
        number: int,
        record: Mapping[str, Any],
        payouts: Iterable[int],
        *,
        finished: float,
        match: int = 0,
        facts: HandFacts | None = None,
        left: Mapping[int, tuple[str | None, str]] | None = None,
    ) -> None:
        """Store a finished hand's record (hand ``number`` of match ``match`` at the table),
        who played it, and add it to its players' tallies of the match.

        ``facts``: what the standings count of it (picker, leaster, points), as the table knows
        them; None replays ``record`` for them. ``left``: who last held each seat emptied during
        the hand (:meth:`seat_player`), named for a seat that nobody holds now."""
        key = table_key(table_id)
        payout_list = [int(p) for p in payouts]
        again = self._db.execute(
            "SELECT 1 FROM hands WHERE table_id = ? AND match_number = ? AND number = ?",
            (key, match, number),
        ).fetchone()
        self._write(
            "INSERT OR REPLACE INTO hands"
            " (table_id, match_number, number, record, payouts, finished)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (key, match, number, json_text(record), json_text(payout_list), finished),
        )
        # Who played it (the standings count it for them): who holds each seat now, else who
        # held it last during the hand (a stand-in finished it for them).
        played = self._seat_players(key)
        held = {seat for seat, _, _ in played}
        played += [(seat, *who) for seat, who in (left or {}).items() if seat not in held]
        self._db.executemany(
            "INSERT OR REPLACE INTO hand_seats"
            " (table_id, match_number, number, seat, identity, name) VALUES (?, ?, ?, ?, ?, ?)",
            [(key, match, number, *row) for row in played],
        )
        if again is None:  # a hand stored a second time is counted once
            if facts is None:
                facts = hand_facts(record, payout_list)
            self._tally_hand(key, match, played, facts)

    def seat_player(self, table_id: str, seat: int) -> tuple[str | None, str] | None:
        """Who plays ``seat`` of the table now, as :meth:`save_hand` counts a hand for them:
        identity and name (None: the seat is empty)."""
        found = self._seat_players(table_key(table_id), seat)
        return (found[0][1], found[0][2]) if found else None

    def _seat_players(self, key: int, seat: int | None = None) -> list[tuple[int, str | None, str]]:
        """Seat, identity and name of who plays each held seat of table ``key`` (or only
        ``seat``): a person's identity (None: not counted), or a server bot's strategy (an alias
        such as easy as the strategy it names, so each strategy has one row in the
        standings)."""
        only = "" if seat is None else " AND s.seat = ?"
        return [
            (at, identity or bot_identity(kind, strategy), name)
            for at, kind, strategy, name, identity in self._db.execute(
                "SELECT s.seat, s.kind, s.strategy, s.name, si.identity FROM seats s"
                " LEFT JOIN seat_identities si ON si.token_hash = s.token_hash"
                f" WHERE s.table_id = ?{only}",
                (key,) if seat is None else (key, seat),
            )
        ]

    def _tally_hand(
        self, key: int, match: int, played: list[tuple[int, str | None, str]], facts: HandFacts
    ) -> None:
        """Add one finished hand to the ``match_tallies`` row of each identity that played it
        (``played``: seat, identity, name)."""
        rows = []
        for seat, identity, name in played:
            if identity is None:
                continue
            figures = Figures()
            figures.add(seat, facts)
            rows.append(
                (key, match, identity, *(getattr(figures, f) for f in TALLY_FIGURES), name or None)
            )
        if rows:
            added = ", ".join(f"{f} = {f} + excluded.{f}" for f in TALLY_FIGURES)
            self._db.executemany(
                f"INSERT INTO match_tallies (table_id, match_number, identity,"
                f" {', '.join(TALLY_FIGURES)}, name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (table_id, match_number, identity) DO UPDATE SET {added},"
                " name = coalesce(excluded.name, match_tallies.name)",
                rows,
            )

    def save_deal_seeds(self, table_id: str, commitments: list[dict[str, Any]]) -> None:
        """Store a match's commit–reveal seeds (``server.tables.commitments``), replacing the
        last."""
        self._write(
            "INSERT OR REPLACE INTO deal_seeds (table_id, data) VALUES (?, ?)",
            (table_key(table_id), json_text(commitments)),
        )

    def reveal_deal_seeds(self, table_id: str, commitments: Iterable[Mapping[str, Any]]) -> None:
        """Add each revealed server seed to the ``fair`` map of the hand records it dealt, and
        the match's first seed as ``match_server_seed`` to those that name it as their
        ``match_commitment`` (hands dealt with a newcomer's commitment, PROTOCOL.md §13), so a
        stored record is the one ``history`` showed and verifies on its own, dealer and all."""
        key = table_key(table_id)
        for entry in commitments:
            self._write(
                "UPDATE hands SET record = json_set(record, '$.fair.server_seed', ?)"
                " WHERE table_id = ? AND number BETWEEN ? AND ?"
                " AND json_extract(record, '$.fair.commitment') = ?",
                (
                    entry["server_seed"],
                    key,
                    entry["first_hand"],
                    entry["last_hand"],
                    entry["commitment"],
                ),
            )
            if entry["first_hand"] == 0:  # the match's first commitment
                self._write(
                    "UPDATE hands SET record = json_set(record, '$.fair.match_server_seed', ?)"
                    " WHERE table_id = ? AND number > ?"
                    " AND json_extract(record, '$.fair.match_commitment') = ?",
                    (entry["server_seed"], key, entry["last_hand"], entry["commitment"]),
                )

    def deal_seeds(self, table_id: str) -> list[dict[str, Any]]:
        """The stored commit–reveal seeds of a table's match (empty: none)."""
        row = self._db.execute(
            "SELECT data FROM deal_seeds WHERE table_id = ?", (table_key(table_id),)
        ).fetchone()
        return [] if row is None else list(json.loads(row[0]))

    def save_results(
        self,
        table_id: str,
        rows: Iterable[tuple[int, str | None, str, int]],
        *,
        hands: int,
        finished: float,
        match: int = 0,
    ) -> None:
        """Store a finished match's result per seat: (seat, name, kind, total), and add its
        players' tallies to their standings. A match that finished no hand stores nothing:
        there is nothing in it to count (and ending matches in a loop must not grow the
        database)."""
        if hands <= 0:
            return
        key = table_key(table_id)
        ended_before = self._db.execute(
            "SELECT 1 FROM results WHERE table_id = ? AND match_number = ?", (key, match)
        ).fetchone()
        for seat, name, kind, total in rows:
            self._write(
                "INSERT OR REPLACE INTO results"
                " (table_id, match_number, seat, name, kind, total, hands, finished)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, match, seat, name, kind, total, hands, finished),
            )
        if ended_before is None:
            self._add_to_standings(key, match, finished)

    def _add_to_standings(self, key: int, match: int, finished: float) -> None:
        """The match has ended: its tallies count from now on, and go into ``player_totals``."""
        self._write(
            "UPDATE match_tallies SET finished = ? WHERE table_id = ? AND match_number = ?",
            (finished, key, match),
        )
        added = ", ".join(f"{f} = player_totals.{f} + excluded.{f}" for f in TALLY_FIGURES)
        self._write(
            f"INSERT INTO player_totals (identity, matches, {', '.join(TALLY_FIGURES)}, name,"
            f" last) SELECT identity, 1, {', '.join(TALLY_FIGURES)}, name, finished"
            " FROM match_tallies WHERE table_id = ? AND match_number = ? AND true"
            f" ON CONFLICT (identity) DO UPDATE SET matches = player_totals.matches + 1, {added},"
            " name = CASE WHEN excluded.last >= coalesce(player_totals.last, excluded.last)"
            " THEN coalesce(excluded.name, player_totals.name) ELSE player_totals.name END,"
            " last = max(coalesce(player_totals.last, excluded.last), excluded.last)",
            (key, match),
        )

    def has_hands(self, table_id: str) -> bool:
        """Whether any match at the table finished a hand (stored in ``hands``)."""
        found = self._db.execute(
            "SELECT 1 FROM hands WHERE table_id = ? LIMIT 1", (table_key(table_id),)
        ).fetchone()
        return found is not None

    def note_identity(
        self,
        identity: str,
        kind: str,
        *,
        label: str | None = None,
        name: str | None = None,
        seen: float | None = None,
    ) -> None:
        """Remember a player identity (see ``server.storage.standings``); an ``ssh`` one
        stays ssh."""
        self._write(
            "INSERT INTO identities (identity, kind, label, name, seen) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(identity) DO UPDATE SET"
            " kind = CASE WHEN identities.kind = 'ssh' THEN 'ssh' ELSE excluded.kind END,"
            " label = coalesce(excluded.label, identities.label),"
            " name = coalesce(excluded.name, identities.name),"
            " seen = coalesce(excluded.seen, identities.seen)",
            (identity, kind, label, name, seen),
        )

    def knows_identity(self, identity: str) -> bool:
        """Whether ``identity`` has its row in ``identities``."""
        found = self._db.execute(
            "SELECT 1 FROM identities WHERE identity = ?", (identity,)
        ).fetchone()
        return found is not None

    def rename_identity(self, identity: str, name: str, *, seen: float) -> None:
        """A known identity's name and last sighting are now these (an unknown one is not
        added: :meth:`note_identity` does that)."""
        self._write(
            "UPDATE identities SET name = ?, seen = ? WHERE identity = ?", (name, seen, identity)
        )

    def link_seat(self, token_hash: str, identity: str) -> None:
        """Say that the seat holding the token with this hash is played by ``identity``."""
        self._write(
            "INSERT OR REPLACE INTO seat_identities (token_hash, identity) VALUES (?, ?)",
            (token_hash, identity),
        )

    def unlink_seat(self, token_hash: str) -> None:
        """Forget which identity the seat token with this hash stood for (it is gone)."""
        self._write("DELETE FROM seat_identities WHERE token_hash = ?", (token_hash,))

    # ------------------------------------------------------------------ reads

    @property
    def reads(self) -> Reader:
        """The standings' queries on the store's own connection (it sees every write, committed
        or not): for a store kept in memory, which no other connection sees."""
        return Reader(self._db)

    def reader(self) -> Reader | None:
        """The standings' queries on a new read-only connection to the database file, for reads
        in another thread; None for a store kept in memory. It sees what has been committed."""
        if self.path is None:
            return None
        return Reader.open(self.path)

    def load_open_tables(
        self, over_since: float | None = None, *, last_hand: bool = False
    ) -> list[TableRow]:
        """Every table that is waiting or playing, with seats and actions, oldest first; with
        ``over_since``, also those whose match ended (``over``) at that wall-clock time or later,
        with the actions of that last match. ``last_hand``: only the actions of each match's
        last hand with any (a restore's: the hands before are stored), else all of them."""
        self._insert_actions()
        out = []
        rows = self._db.execute(
            "SELECT id, config, state, seq, host_seat, seed, first_dealer, totals, first_action,"
            " match_number, finished, dealt, created_by, starting FROM tables"
            " WHERE state IN ('waiting', 'playing') OR (state = 'over' AND finished >= ?)"
            " ORDER BY id",
            (float("inf") if over_since is None else over_since,),
        ).fetchall()
        by_key: dict[int, TableRow] = {}
        loaded: dict[int, TableRow] = {}
        firsts: dict[int, int] = {}
        start: int | None = None
        for row in rows:
            key, config, state, seq, host_seat, seed, first_dealer, totals, first = row[:9]
            table = TableRow(
                f"t{key}",
                json.loads(config),
                state,
                seq,
                host_seat,
                seed,
                first_dealer,
                json.loads(totals),
                match_number=row[9],
                finished=row[10],
                dealt=row[11],
                created_by=row[12],
                starting=bool(row[13]),
            )
            for seat_row in self._db.execute(
                "SELECT seat, kind, name, strategy, remote_kind, token_hash, added_by, away,"
                " since_match, since_hand FROM seats WHERE table_id = ? ORDER BY seat",
                (key,),
            ):
                seat, kind, name, strategy, remote_kind, token_hash, added_by, away = seat_row[:8]
                since_match, since_hand = seat_row[8:]
                table.seats.append(
                    SeatRow(
                        seat,
                        kind,
                        name,
                        strategy,
                        remote_kind,
                        token_hash,
                        added_by,
                        bool(away),
                        None if since_match is None else (since_match, since_hand or 0),
                    )
                )
            out.append(table)
            loaded[key] = table
            if state == "playing" or (state == "over" and seed is not None):
                by_key[key] = table
                first = first or 0  # upgraded from schema 2: from the start of the log
                firsts[key] = first
                start = first if start is None else min(start, first)
        # A few rows at most (a hand in play with a seat freed): read at once, not per table.
        for key, *left in self._db.execute(
            "SELECT table_id, seat, kind, name, strategy, identity FROM seats_left"
            " ORDER BY table_id, seat"
        ):
            if key in loaded:
                loaded[key].left.append(LeftRow(*left))
        for key, seat, until, name in self._db.execute(
            "SELECT table_id, seat, until, name FROM seat_holders ORDER BY table_id, seat, until"
        ):
            if key in loaded:
                loaded[key].holders.append((seat, until, name))
        stale: set[int] = set()
        for key, *line in self._db.execute(
            "SELECT table_id, n, sender, seat, text, code FROM chat_lines ORDER BY table_id, n"
        ):
            if key in loaded:
                loaded[key].lines.append(LineRow(*line))
            else:
                stale.add(key)
        for key in stale:
            # A table not restored (its match ended more than over_table_ttl ago, and it was
            # not closed before the stop): nobody comes back to it to be sent its lines.
            self._db.execute("DELETE FROM chat_lines WHERE table_id = ?", (key,))
        if start is not None:
            for key in self._load_actions(by_key, firsts, start, last_hand=last_hand):
                log.error("table t%d: a stored action is missing", key)
                out.remove(by_key[key])
        return out

    def _load_actions(
        self,
        by_key: dict[int, TableRow],
        firsts: dict[int, int],
        start: int,
        *,
        last_hand: bool,
    ) -> list[int]:
        """Load into each of ``by_key``'s tables (by key) the actions of its current match
        (``TableRow.actions``), with ``last_hand`` only those of its last hand with any,
        counting those before (``actions_before``); ``firsts``: the rowid of each match's first
        action, ``start`` the least of them. Returns the tables whose actions cannot be
        replayed, one being missing (they are left in the database, unloaded).

        One pass backwards over the log, from its end to where the last of these hands began
        (with ``last_hand``): a restore costs the hand in play, not the match's finished hands
        (stored in ``hands``).
        It passes the other tables' actions of the same time, and the earlier matches of
        tables rematched since, numbered from 0 like the current one: only the current match's
        actions are kept (by their match number; those stored before schema 7 have none, but
        none of them is past first_action)."""
        open_keys = set(by_key)
        # Tables by where their match began, latest last: done once the pass is before it.
        by_first = sorted(firsts, key=firsts.__getitem__)
        hands: dict[int, int] = {}  # each table's last hand with an action
        expected: dict[int, int] = {}  # each table's n of the action before those kept
        kept: dict[int, list[tuple[int, str]]] = {key: [] for key in by_key}
        broken: list[int] = []
        bounded: set[int] = set()  # tables whose action before the kept ones was seen
        cursor = self._db.execute(
            "SELECT rowid, table_id, n, hand, action, seq, match_number FROM actions"
            " WHERE rowid >= ? ORDER BY rowid DESC",
            (start,),
        )
        try:
            for rowid, key, n, hand, action, action_seq, action_match in cursor:
                while by_first and firsts[by_first[-1]] > rowid:
                    open_keys.discard(by_first.pop())  # its match has no earlier action
                if not open_keys:
                    break
                if key not in open_keys:
                    continue
                table = by_key[key]
                if action_match is not None and action_match != table.match_number:
                    continue
                if key not in hands:  # the match's last action
                    hands[key] = hand
                    expected[key] = n
                    if action_seq is not None and action_seq > table.seq:
                        table.seq = action_seq
                if n != expected[key]:
                    broken.append(key)
                    open_keys.discard(key)
                elif last_hand and hand != hands[key]:
                    open_keys.discard(key)  # an earlier hand's: counted (n), not kept
                    bounded.add(key)
                else:
                    kept[key].append((hand, action))
                    expected[key] = n - 1
        finally:
            cursor.close()
        for key, table in by_key.items():
            if key in broken:
                continue
            if expected.get(key, -1) >= 0 and key not in bounded:
                broken.append(key)  # its first actions are not in the log
                continue
            table.actions_before = expected.get(key, -1) + 1
            table.actions = [(hand, json.loads(action)) for hand, action in reversed(kept[key])]
        return broken

    def hand_identity(self, table_id: str, match: int, number: int, seat: int) -> str | None:
        """Who the standings counted hand ``number`` of match ``match`` for at ``seat``, as
        :meth:`save_hand` stored it: a person's identity, a server bot's ``bot:`` one (None: a
        person without a counted key, or not known). One lookup by the rows' key."""
        found = self._db.execute(
            "SELECT identity FROM hand_seats WHERE table_id = ? AND match_number = ?"
            " AND number = ? AND seat = ?",
            (table_key(table_id), match, number, seat),
        ).fetchone()
        return found[0] if found else None

    def hand_names(self, table_id: str, match: int, number: int) -> list[str] | None:
        """The seats' names when hand ``number`` of match ``match`` finished (None: not known;
        an empty seat's name is empty)."""
        rows = self._db.execute(
            "SELECT seat, name FROM hand_seats WHERE table_id = ? AND match_number = ?"
            " AND number = ?",
            (table_key(table_id), match, number),
        ).fetchall()
        if not rows:
            return None
        names = [""] * 5
        for seat, name in rows:
            if 0 <= seat < len(names):
                names[seat] = name or ""
        return names

    def hand_extras(
        self, table_id: str, match: int, number: int
    ) -> tuple[list[str | None] | None, dict[str, Any] | None]:
        """Two parts of the stored record of hand ``number`` of match ``match``, in one read:
        its ``strategies`` (each seat's server bot strategy or None; None when the record has
        none) and its ``made_for`` map as stored (``{}`` when the record has none). Both None
        when the hand is not stored."""
        row = self._db.execute(
            "SELECT json_extract(record, '$.strategies'), json_extract(record, '$.made_for')"
            " FROM hands WHERE table_id = ? AND match_number = ? AND number = ?",
            (table_key(table_id), match, number),
        ).fetchone()
        if row is None:
            return None, None
        strategies = json.loads(row[0]) if isinstance(row[0], str) else None
        if isinstance(strategies, list) and len(strategies) == 5:
            seats = [name if isinstance(name, str) else None for name in strategies]
        else:
            seats = None
        made_for = json.loads(row[1]) if isinstance(row[1], str) else None
        return seats, made_for if isinstance(made_for, dict) else {}

    def hand_records(self, table_id: str, match: int | None = None) -> list[dict[str, Any]]:
        """The finished hands of a table's match ``match`` (None: its latest), in order."""
        key = table_key(table_id)
        return [
            json.loads(record)
            for (record,) in self._db.execute(
                "SELECT record FROM hands WHERE table_id = ? AND match_number = coalesce(?,"
                " (SELECT max(match_number) FROM hands WHERE table_id = ?)) ORDER BY number",
                (key, match, key),
            )
        ]

    def match_hands(
        self, table_id: str, match: int, start: int
    ) -> Generator[tuple[int, str, str], None, None]:
        """Each stored hand of match ``match`` at the table from hand ``start`` on, in order:
        its number, record JSON and payouts JSON. Read as the caller takes them (a ``history``
        page stops when its frame is full), along the ``hands`` primary key."""
        cur = self._db.execute(
            "SELECT number, record, payouts FROM hands WHERE table_id = ? AND match_number = ?"
            " AND number >= ? ORDER BY number",
            (table_key(table_id), match, start),
        )
        try:
            while rows := cur.fetchmany(16):
                yield from rows
        finally:
            cur.close()

    def match_totals_before(self, table_id: str, match: int, number: int) -> list[int]:
        """Each seat's sum of the payouts of match ``match``'s hands before hand ``number``:
        the running totals a ``history`` page from ``number`` starts from (one scan of the
        match's earlier rows, in SQLite)."""
        sums = ", ".join(f"coalesce(sum(json_extract(payouts, '$[{i}]')), 0)" for i in range(5))
        row = self._db.execute(
            f"SELECT {sums} FROM hands WHERE table_id = ? AND match_number = ? AND number < ?",
            (table_key(table_id), match, number),
        ).fetchone()
        return [int(total) for total in row]

    def revealed_seed(self, table_id: str, match: int, commitment: str) -> str | None:
        """The server seed revealed for ``commitment`` in the stored records of match
        ``match`` (None: none of its records has it)."""
        row = self._db.execute(
            "SELECT json_extract(record, '$.fair.server_seed') FROM hands WHERE table_id = ?"
            " AND match_number = ? AND json_extract(record, '$.fair.commitment') = ?"
            " AND json_extract(record, '$.fair.server_seed') IS NOT NULL LIMIT 1",
            (table_key(table_id), match, commitment),
        ).fetchone()
        return row[0] if row is not None and isinstance(row[0], str) else None

    def results(self, table_id: str, match: int | None = None) -> list[dict[str, Any]]:
        """The stored result rows of a table's finished match ``match`` (None: its latest),
        by seat."""
        key = table_key(table_id)
        cur = self._db.execute(
            "SELECT seat, name, kind, total, hands FROM results WHERE table_id = ?"
            " AND match_number = coalesce(?,"
            " (SELECT max(match_number) FROM results WHERE table_id = ?)) ORDER BY seat",
            (key, match, key),
        )
        return [{"seat": s, "name": n, "kind": k, "total": t, "hands": h} for s, n, k, t, h in cur]


BACKFILL_PROGRESS_EVERY: Final = 5.0
"""Seconds between two progress lines of :func:`backfill` in the server's log (the lines say
why a server's first start on an old database with a long history takes a while)."""


def backfill(db: sqlite3.Connection) -> None:
    """Fill ``match_tallies`` and ``player_totals`` from the hands a database of schema 7 or
    older stored (run once, by its upgrade): every hand someone remembered played is replayed
    once (about half a millisecond a hand), and the matches whose results are stored count.

    The log says how many hands it replays, then how many it has done of them every
    :data:`BACKFILL_PROGRESS_EVERY` seconds, and when it is done."""
    db.execute("DELETE FROM match_tallies")
    db.execute("DELETE FROM player_totals")
    # Read off the hand_seats key (not the hands, whose records are most of the file).
    total = db.execute(
        "SELECT count(*) FROM (SELECT DISTINCT table_id, match_number, number FROM hand_seats"
        " WHERE identity IS NOT NULL)"
    ).fetchone()[0]
    if total:
        log.info("rebuilding the standings: replaying %d stored hands", total)
    started = last_line = time.monotonic()
    done = 0
    tallies: dict[tuple[int, int, str], list[Any]] = {}
    facts: HandFacts | None = None
    current: HandKey | None = None
    rows = db.execute(
        "SELECT hs.table_id, hs.match_number, hs.number, hs.seat, hs.identity, hs.name,"
        " h.record, h.payouts FROM hand_seats hs JOIN hands h ON h.table_id = hs.table_id"
        " AND h.match_number = hs.match_number AND h.number = hs.number"
        " WHERE hs.identity IS NOT NULL"
        " ORDER BY hs.table_id, hs.match_number, hs.number, hs.seat"
    )
    for table, match, number, seat, identity, name, record, payouts in rows:
        if identity.startswith(BOT_PREFIX):  # counted as its strategy from schema 8 on
            identity = BOT_PREFIX + canonical_strategy(identity[len(BOT_PREFIX) :])
        if current != (table, match, number) or facts is None:
            current = (table, match, number)
            facts = replay(record, payouts)
            done += 1
            if time.monotonic() - last_line >= BACKFILL_PROGRESS_EVERY:
                last_line = time.monotonic()
                log.info("rebuilding the standings: %d of %d hands replayed", done, total)
        figures = Figures()
        figures.add(seat, facts)
        row = tallies.setdefault((table, match, identity), [0] * len(TALLY_FIGURES) + [None])
        for i, name_of in enumerate(TALLY_FIGURES):
            row[i] += getattr(figures, name_of)
        if name:
            row[-1] = name
    db.executemany(
        f"INSERT INTO match_tallies (table_id, match_number, identity, {', '.join(TALLY_FIGURES)},"
        " name) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(*key, *row) for key, row in tallies.items()],
    )
    ended = db.execute(
        "SELECT table_id, match_number, max(finished) FROM results"
        " GROUP BY table_id, match_number ORDER BY max(finished), table_id, match_number"
    ).fetchall()
    for table, match, finished in ended:
        db.execute(
            "UPDATE match_tallies SET finished = ? WHERE table_id = ? AND match_number = ?",
            (finished or 0.0, table, match),
        )
    sums = ", ".join(f"sum({f})" for f in TALLY_FIGURES)
    db.execute(
        f"INSERT INTO player_totals (identity, matches, {', '.join(TALLY_FIGURES)}, name, last)"
        f" SELECT identity, count(*), {sums}, name, max(finished) FROM match_tallies"
        " WHERE finished IS NOT NULL GROUP BY identity"
    )
    if total:
        log.info(
            "rebuilding the standings: %d of %d hands replayed, done in %.1f s",
            done,
            total,
            time.monotonic() - started,
        )


@dataclass
class StandingRow:
    """One identity's stored figures over the matches a standings query counts, and what the
    database knows of who it is."""

    identity: str
    kind: str | None
    """``identities.kind`` (None: an identity the server never noted, such as a bot)."""
    label: str | None
    """``identities.label``: an SSH key's fingerprint."""
    known_name: str | None
    """``identities.name``: the name it used last."""
    seat_name: str | None
    """Its seat's name in the last match counted."""
    figures: Figures


STANDINGS_SCHEMA: Final = 8
"""The first schema with the standings tables :class:`Reader` reads (``match_tallies``,
``player_totals``, ``identities``), unchanged since: a database of this schema or newer is read
as it is. A schema that changes them raises this."""


def missing_tables(exc: sqlite3.OperationalError) -> bool:
    """Whether a query failed on a database from before the standings were kept (opened
    read-only, so not upgraded)."""
    return "no such table" in str(exc)


class Reader:
    """The standings' read-only queries, on one connection (the store's, or one of its own from
    :meth:`open`): the SQL that reads ``player_totals`` and ``match_tallies`` lives here, next to
    the schema that defines them.

    A database with no standings tables (from before they were kept, opened read-only so not
    upgraded) has no rows to give.
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Reader:
        """A reader on a new read-only connection to the database file at ``path``, usable
        from any one thread at a time (sqlite3.Error if it cannot be opened)."""
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        return cls(sqlite3.connect(uri, uri=True, check_same_thread=False))

    def close(self) -> None:
        """Close the connection (only a reader from :meth:`open` owns it)."""
        self._db.close()

    def schema_version(self) -> int:
        """The database's schema version (0: none, such as a new or foreign file)."""
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def totals(self) -> list[StandingRow]:
        """Every identity's running totals over every ended match (a row per identity)."""
        return self._rows(
            f"SELECT p.identity, i.kind, i.label, i.name, p.name, p.matches,"
            f" {', '.join('p.' + f for f in TALLY_FIGURES)}"
            " FROM player_totals p LEFT JOIN identities i ON i.identity = p.identity"
        )

    def tallies_since(self, since: float) -> list[StandingRow]:
        """Every identity's figures over the matches ended at ``since`` (epoch seconds) or later:
        read through the index on when each ended, so the cost grows with the matches asked for,
        not with the whole history."""
        # A bare column next to max(): SQLite takes it from the row with the latest end.
        return self._rows(
            f"SELECT t.identity, i.kind, i.label, i.name, t.name, count(*),"
            f" {', '.join(f'sum(t.{f})' for f in TALLY_FIGURES)}, max(t.finished)"
            " FROM match_tallies t LEFT JOIN identities i ON i.identity = t.identity"
            " WHERE t.finished >= ? GROUP BY t.identity",
            (since,),
        )

    def match_ends_since(self, since: float) -> list[float]:
        """When each match ended at ``since`` (epoch seconds) or later, the latest first (read
        through the index on when each ended; none without the standings tables)."""
        try:
            cur = self._db.execute(
                "SELECT DISTINCT finished FROM match_tallies WHERE finished >= ?"
                " ORDER BY finished DESC",
                (since,),
            )
        except sqlite3.OperationalError:
            return []
        return [float(row[0]) for row in cur]

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[StandingRow]:
        try:
            cur = self._db.execute(sql, params)
            found = cur.fetchall()
        except sqlite3.OperationalError as exc:
            if missing_tables(exc):
                return []
            raise
        rows = []
        for identity, kind, label, known_name, seat_name, matches, *values in found:
            figures = Figures(matches=matches)
            for name, value in zip(TALLY_FIGURES, values, strict=False):
                setattr(figures, name, value)
            rows.append(StandingRow(identity, kind, label, known_name, seat_name, figures))
        return rows


# One encoder for every write: json.dumps with options builds a new JSONEncoder per call.
json_text: Final[Callable[[Any], str]] = json.JSONEncoder(separators=(",", ":")).encode
"""How the store writes a JSON column (for callers that encode ahead, see ``add_action``)."""


def hash_token(token: str) -> str:
    """The stored form of a seat token (tokens themselves are never stored or broadcast)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
