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
import shutil
import sqlite3
import sys
from collections.abc import Sequence
from datetime import datetime, time
from pathlib import Path
from time import time as time_now
from typing import Final

from protocol.requests import parse_date
from protocol.text import cut, told_apart
from server.storage.standings import (
    TONIGHT_HOURS,
    PlayerStanding,
    compute,
    evening_of,
    tonight_header,
)
from server.storage.standings import tonight_window as evening_window
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
        " it started longer ago or none is running; the table's header says which: from when"
        " to when, local time, and why",
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


NAME_COLUMN: Final = 24
"""The player column's widest (a display name's longest)."""

HEADINGS: Final = ("#", "player", "kind", "matches", "hands", "total", "per hand")
HEADINGS_RATES: Final = ("picks", "won", "schn.", "leasters")


def _line(cells: Sequence[str], names: int) -> str:
    """One line of the table: ``cells`` in the order of the headings, the player's ``names``
    columns wide."""
    rank, player, kind, matches, hands, total, per, picks, won, schn, leasters = cells
    return (
        f"{rank:>3}  {player:<{names}} {kind:<4} {matches:>7} {hands:>6} {total:>6} {per:>8}"
        f" {picks:>5} {won:>4} {schn:>5} {leasters:>8}"
    )


def table_text(rows: list[PlayerStanding], width: int | None = None) -> str:
    """The standings as a text table for people: the player column as wide as the longest
    name, and within ``width`` columns (a terminal's) with names cut short ("…") to fit. A
    name two players go by is followed by the start of each one's tag, as in the lobby's
    standings (:func:`protocol.text.told_apart`; a bot's row is told apart by its kind).

    At a fixed 24 columns for the names every line was 94 characters: an 80-column terminal
    wrapped each row onto two lines. Two SSH keys both named bob were two rows alike.
    """
    players = [row.player for row in rows]
    tags = ["" if row.kind == "bot" else row.tag for row in rows]
    longest = max((len(name) for name in told_apart(players, tags)), default=0)
    names = max(len("player"), min(NAME_COLUMN, longest))
    if width is not None:
        rest = len(_line((*HEADINGS, *HEADINGS_RATES), 0)) - len("player")
        names = max(len("player"), min(names, width - 1 - rest))
    shown = told_apart(players, tags, width=names)
    lines = [_line((*HEADINGS, *HEADINGS_RATES), names)]
    for rank, (row, player) in enumerate(zip(rows, shown, strict=True), 1):
        cells = (
            str(rank),
            cut(player, names),
            row.kind,
            str(row.matches),
            str(row.hands),
            f"{row.total:+}",
            f"{row.per_hand:+.2f}",
            f"{row.pick_rate:.0%}",
            f"{row.picker_win_rate:.0%}",
            str(row.schneiders),
            str(row.leasters_won),
        )
        lines.append(_line(cells, names))
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


def tonight_window(reader: Reader, started: float | None, now: float) -> tuple[float, str]:
    """Where ``--tonight`` begins at wall-clock ``now`` (epoch seconds), as the server counts
    it, for a server that ``started`` (None: none found) on ``reader``'s database, and why,
    for people (the words the lobby's standings show too:
    :func:`server.storage.standings.tonight_window`)."""
    return evening_window(started, evening_of(reader, started, now), now)


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
    if args.min_hands < 0:
        print(
            f"sheepshead standings: --min-hands must be 0 or more, not {args.min_hands}",
            file=sys.stderr,
        )
        return 2
    path = Path(args.db) if args.db else default_db_path()
    if path.is_dir():  # said "no database at /srv/sheepshead", as if the folder were empty
        print(
            f"sheepshead standings: --db {path} is a directory: give the server's database "
            f"file (serve --db), e.g. {path / 'sheepshead.db'}",
            file=sys.stderr,
        )
        return 2
    if not path.is_file():
        print(f"sheepshead standings: no database at {path}", file=sys.stderr)
        return 1
    if path.stat().st_size == 0:  # SQLite reads an empty file as an empty database
        print(f"sheepshead standings: {path} is empty: no server's database", file=sys.stderr)
        return 1
    started = server_started(path) if args.tonight else None
    header: str | None = None
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
                now = time_now()
                since, why = tonight_window(reader, started, now)
                header = tonight_header(since, why, now)
            rows = compute(reader, since)
    except sqlite3.Error as exc:
        print(f"sheepshead standings: cannot read {path}: {exc}", file=sys.stderr)
        return 1
    counted = len(rows)
    if args.by == "per-hand":
        rows = [r for r in rows if r.hands >= args.min_hands]
        rows.sort(key=lambda r: (-r.per_hand, -r.hands, r.player))
    if args.json:
        print(json.dumps([r.to_wire() for r in rows], ensure_ascii=False))
        return 0
    if header is not None:
        print(header)
    if not rows and counted:  # said "no finished matches ... yet" with matches counted
        print(
            f"no player has {args.min_hands} hands yet ({counted} with fewer): --min-hands N "
            "lists those with N or more"
        )
    elif not rows and args.since is not None:
        print(f"no finished matches with remembered players since {' '.join(args.since)}")
    elif not rows:
        print("no finished matches with remembered players yet")
    else:
        # Within the terminal's width (a pipe or a file gets the names whole).
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        print(table_text(rows, width))
    return 0
