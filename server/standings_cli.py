"""``sheepshead standings --db PATH``: the standings of a server's players, for its host.

Reads the database read-only, so it works while the server runs (the server holds the
database's lock, not a lock on reading it).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from protocol.messages import parse_date
from server.standings import PlayerStanding, compute, since_timestamp
from server.store import SCHEMA_VERSION

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
    parser.add_argument(
        "--since",
        metavar="DATE",
        default=None,
        help="only matches finished on or after this day (UTC), YYYY-MM-DD",
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


def run(args: argparse.Namespace) -> int:
    """Print the standings."""
    from server.cli import default_db_path

    if args.since is not None:
        try:
            parse_date(args.since)
        except ValueError:
            print(
                f"sheepshead standings: --since {args.since!r}: expected YYYY-MM-DD",
                file=sys.stderr,
            )
            return 2
    path = Path(args.db) if args.db else default_db_path()
    if not path.is_file():
        print(f"sheepshead standings: no database at {path}", file=sys.stderr)
        return 1
    try:
        db = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if 0 < version < SCHEMA_VERSION:  # read-only: the server upgrades it when it opens it
                print(
                    f"sheepshead standings: {path} was last opened by an older server (schema"
                    f" {version}, this version reads {SCHEMA_VERSION}); start this version's"
                    " server on it once to upgrade it",
                    file=sys.stderr,
                )
                return 1
            rows = compute(db, since_timestamp(args.since))
        finally:
            db.close()
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
