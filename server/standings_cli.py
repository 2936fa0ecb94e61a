"""``sheepshead standings --db PATH``: the standings of a server's players, for its host.

Reads the database read-only, so it works while the server runs (the server holds the
database's lock, not a lock on reading it), and on a database an older server left, which it
never writes: from schema 8 on its standings tables are read as they are; an older one has
none (the upgrade makes them from its stored hands), so the server's upgrade runs on a copy of
it in memory.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sqlite3
import sys
from datetime import datetime, time
from pathlib import Path
from time import time as time_now

from protocol.requests import SINCE_TONIGHT, parse_date
from server.storage.standings import (
    TONIGHT_HOURS,
    PlayerStanding,
    compute,
    evening_of,
    since_timestamp,
)
from server.storage.store import STANDINGS_SCHEMA, Reader, Store, _flock_holder

HELP = "standings of the players of a server's finished matches"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add the arguments of ``standings``."""
    from server.cli import default_db_path

    parser.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        help=f"the server's SQLite database (default {default_db_path()})",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON list of rows (the fields of PROTOCOL.md)"
    )
    when = parser.add_mutually_exclusive_group()
    when.add_argument(
        "--since",
        metavar="WHEN",
        nargs="+",
        default=None,
        help="only matches that ended at or after WHEN, local time: a day (YYYY-MM-DD, from its"
        " start), a time today (HH:MM, e.g. 18:00) or both (YYYY-MM-DD HH:MM)",
    )
    when.add_argument(
        "--tonight",
        action="store_true",
        help="only matches that ended since the server using the database started (or the"
        f" evening it went on with after a restart), or in the last {TONIGHT_HOURS:g} hours when"
        " it started longer ago or none is running",
    )
    parser.add_argument(
        "--by",
        choices=["total", "per-hand"],
        default="total",
        help="rank by total payout (default) or by payout per hand",
    )
    parser.add_argument(
        "--min-hands",
        type=int,
        default=10,
        metavar="N",
        help="with --by per-hand: only players with at least N hands (default 10)",
    )


def table_text(rows: list[PlayerStanding]) -> str:
    """The standings as a text table for people."""
    head = (
        f"{'#':>3}  {'player':<24} {'kind':<4} {'matches':>7} {'hands':>6} {'total':>6} "
        f"{'per hand':>8} {'picks':>6} {'won':>6} {'schn.':>5} {'leasters':>8}"
    )
    lines = [head]
    for rank, row in enumerate(rows, 1):
        lines.append(
            f"{rank:>3}  {row.player:<24} {row.kind:<4} {row.matches:>7} {row.hands:>6} "
            f"{row.total:>+6} {row.per_hand:>+8.2f} {row.pick_rate:>6.0%} "
            f"{row.picker_win_rate:>6.0%} {row.schneiders:>5} {row.leasters_won:>8}"
        )
    return "\n".join(lines)


def parse_since(text: str, now: datetime | None = None) -> float:
    """Epoch seconds of ``--since``: ``YYYY-MM-DD``, ``HH:MM`` (today) or ``YYYY-MM-DD HH:MM``,
    local time (ValueError for anything else).

    >>> now = datetime(2026, 12, 5, 23, 0)
    >>> parse_since("18:00", now) == datetime(2026, 12, 5, 18, 0).timestamp()
    True
    >>> parse_since("2026-12-04 18:30", now) == datetime(2026, 12, 4, 18, 30).timestamp()
    True
    >>> parse_since("2026-12-04", now) == datetime(2026, 12, 4).timestamp()
    True
    """
    today = (now or datetime.now()).date()
    parts = text.split()
    day = today
    if parts and len(parts[0]) == 10:
        day = parse_date(parts.pop(0))
    if len(parts) > 1 or (not parts and len(text.split()) != 1):
        raise ValueError(f"not a time: {text!r}")
    clock = time.min
    if parts:
        if not re.fullmatch(r"\d\d?:\d\d", parts[0]):
            raise ValueError(f"not a time: {text!r}")
        clock = time.fromisoformat(parts[0].zfill(5))
    return datetime.combine(day, clock).timestamp()


def server_started(path: Path) -> float | None:
    """When the server holding the database at ``path`` started (epoch seconds), where that
    can be told (Linux: the holder of its lock, from ``/proc``); None otherwise."""
    try:
        stat = path.stat()
        holder = _flock_holder((stat.st_dev, stat.st_ino))
        if holder is None:
            return None
        with open(f"/proc/{holder}/stat") as proc:
            ticks = int(proc.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as system:
            boot = next(int(line.split()[1]) for line in system if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def run(args: argparse.Namespace) -> int:
    """Print the standings."""
    from server.cli import default_db_path

    since: float | None = None
    if args.since is not None:
        text = " ".join(args.since)
        try:
            since = parse_since(text)
        except ValueError:
            print(
                f"sheepshead standings: --since {text!r}: expected YYYY-MM-DD, HH:MM or"
                " YYYY-MM-DD HH:MM",
                file=sys.stderr,
            )
            return 2
    path = Path(args.db) if args.db else default_db_path()
    if not path.is_file():
        print(f"sheepshead standings: no database at {path}", file=sys.stderr)
        return 1
    started = server_started(path) if args.tonight else None
    try:
        with contextlib.ExitStack() as opened:
            reader = Reader.open(path)
            opened.callback(reader.close)
            if 0 < reader.schema_version() < STANDINGS_SCHEMA:
                # Older than the kept standings: the server's upgrade makes them from the stored
                # hands, here on a copy in memory (the file stays as its server may still use it).
                copy = Store(None, copy_of=reader)
                opened.callback(copy.close)
                reader = copy.reads
            if args.tonight:
                # As the server counts it: a restart mid-evening goes on with the evening.
                since = since_timestamp(
                    SINCE_TONIGHT, started=evening_of(reader, started, time_now())
                )
            rows = compute(reader, since)
    except sqlite3.Error as exc:
        print(f"sheepshead standings: cannot read {path}: {exc}", file=sys.stderr)
        return 1
    if args.by == "per-hand":
        rows = [r for r in rows if r.hands >= args.min_hands]
        rows.sort(key=lambda r: (-r.per_hand, -r.hands, r.player))
    if args.json:
        print(json.dumps([r.to_wire() for r in rows], ensure_ascii=False))
    elif not rows:
        print("no finished matches with remembered players yet")
    else:
        print(table_text(rows))
    return 0
