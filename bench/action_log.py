"""Benchmark: what the action log costs on disk, per action and per hour.

Random matches at several tables store their actions through ``Store.add_action`` as the server
does (a commit every 500 actions, each with its seq and match number), then the file's growth is
divided by the number of actions. Every accepted action is one row, kept for good (the log is
append-only, docs/architecture.md), so this figure times the action rate is how fast the
database grows. Run by hand::

    .venv/bin/python bench/action_log.py [--actions 100000] [--tables 20] [--rate 6300]

``--rate`` is the actions per second the hourly figure is given at (6,300: about the server's
ceiling on one core, ``bench/server.py --mode closed`` in docs/performance.md).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import random  # noqa: E402
import sqlite3  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from engine.match import Match  # noqa: E402
from engine.rules import RuleSet  # noqa: E402

try:
    from server.storage.store import Store
    from server.tables.table import _record_of
except ImportError:  # a checkout from before the server's subpackages
    from server.store import Store  # type: ignore[no-redef]
    from server.table import _record_of  # type: ignore[no-redef]


def measure(actions: int, tables: int, seed: int = 1) -> tuple[float, float]:
    """Store ``actions`` random matches' actions at ``tables`` tables; returns (bytes on disk
    per action, seconds of ``add_action`` and commit per action)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.db"
        store = Store(path, checkpoint_interval=None)
        ids = [store.create_table({"name": "t"}, created=0.0) for _ in range(tables)]
        for table in ids:
            store.update_table(table, state="playing", seed=1, first_dealer=0)
        store.commit()
        with contextlib.closing(sqlite3.connect(path)) as other:  # the store's is idle
            other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        empty = path.stat().st_size
        matches = {t: Match(RuleSet(), seed=rng.randrange(2**62), hand_limit=None) for t in ids}
        counts = dict.fromkeys(ids, 0)
        spent = 0.0
        for n in range(1, actions + 1):
            table = rng.choice(ids)
            match = matches[table]
            if match.hand.is_over:
                match.next_hand()
            action = rng.choice(match.hand.legal_actions())
            number = match.number
            match.apply(action)
            _, text = _record_of(action)
            started = time.perf_counter()
            store.add_action(table, counts[table], number, text, seq=n, match=n % 3)
            if n % 500 == 0:
                store.commit()
            spent += time.perf_counter() - started
            counts[table] += 1
        store.close()  # the last connection folds the write-ahead log into the file
        return (path.stat().st_size - empty) / actions, spent / actions


def main() -> None:
    """Print the bytes per action and the growth per hour at ``--rate``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rate", type=float, default=6300.0, help="actions per second")
    args = parser.parse_args()
    per_action, seconds = measure(args.actions, args.tables)
    hourly = per_action * args.rate * 3600
    print(f"actions stored: {args.actions:,} at {args.tables} tables")
    print(f"on disk per action: {per_action:.1f} bytes")
    print(f"store time per action: {seconds * 1e6:.1f} us (add_action and commit)")
    print(f"growth per hour at {args.rate:,.0f} actions/s: {hourly / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()
