"""Benchmark: the rings of each table's last lines (``chat_lines``) stay the same size on disk.

Every chat line and notice a table sends is stored in a ring of ``LINES_KEPT`` rows per table
(``Store.save_line``: line n replaces line n - 50). This fills ``--tables`` tables' rings with
``--lines`` lines at random tables, committed every 100 as the server's batches would be: half
of them the costliest chat line (200 four-byte characters under a 24-character name of them),
half the costliest notice (``left`` under that name), or only notices with ``--notices-only``.
Every 50,000 lines (``--every``) it prints the rows, the database's pages (free ones too), its
size and the CPU a line so far. Run by hand::

    .venv/bin/python bench/line_ring.py [--tables 500] [--lines 300000] [--notices-only]
        [--every 50000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

from server.storage.store import LineRow, Store  # noqa: E402
from server.tables.history import LINES_KEPT  # noqa: E402

NAME = "\U0001f600" * 24
"""The longest name, of four-byte characters."""


def main() -> None:
    """Parse the arguments, fill the rings, print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500, help="tables (max_tables: 500)")
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--notices-only", action="store_true")
    parser.add_argument("--every", type=int, default=50_000, help="lines between two reports")
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lines.db"
        store = Store(path, checkpoint_interval=None)
        tables = [store.create_table({"name": "t"}, created=0.0) for _ in range(args.tables)]
        store.commit()
        said = dict.fromkeys(tables, 0)
        start = time.process_time()
        for i in range(1, args.lines + 1):
            table = rng.choice(tables)
            if args.notices_only or rng.random() < 0.5:
                row = LineRow(said[table], "", 4, f"{NAME} left; a bot plays seat 4", "left")
            else:
                row = LineRow(said[table], NAME, 0, "\U0001f600" * 200)
            store.save_line(table, LINES_KEPT, row)
            said[table] += 1
            if i % 100 == 0:
                store.commit()
            if i % args.every == 0:
                db = store._db
                rows = db.execute("SELECT count(*) FROM chat_lines").fetchone()[0]
                pages = db.execute("PRAGMA page_count").fetchone()[0]
                free = db.execute("PRAGMA freelist_count").fetchone()[0]
                size = pages * db.execute("PRAGMA page_size").fetchone()[0]
                cpu = (time.process_time() - start) / i * 1e6
                print(
                    f"{i:>9,} lines: {rows:,} rows, {pages:,} pages ({free} free),"
                    f" {size / 1e6:.2f} MB; {cpu:.1f} µs of CPU a line"
                )
        store.close()
        print(f"the file once closed: {os.path.getsize(path) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
