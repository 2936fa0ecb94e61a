"""Benchmark: what deleting a table that never started costs, against the size of the action log.

Every table that closes without having started is deleted from the database
(``Store.forget_table``), on the event loop. The action log (``actions``) has no index; while its
``table_id`` was declared a foreign key of ``tables(id)`` (schemas 1 to 8), each such delete made
SQLite scan the whole log for the row's actions. This stores ``--actions`` actions at one
playing table, then times ``--deletes`` waiting tables created and deleted (each with its
commit), and prints the query plan of the delete. Run by hand::

    .venv/bin/python bench/table_delete.py [--actions 1000000] [--deletes 20] [--source TREE]

``--source`` imports the store of another checkout (a tree of before, for instance).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--deletes", type=int, default=20)
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [str(args.source)] + [p for p in sys.path if os.path.abspath(p or ".") != here]
    from server.storage.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "delete.db", checkpoint_interval=None)
        playing = store.create_table({"name": "long"}, created=0.0)
        store.update_table(playing, state="playing", seed=1, first_dealer=0)
        action = '{"seat":1,"action":"pass"}'
        for n in range(args.actions):
            store.add_action(playing, n, n // 34, action, seq=n + 1)
            if n % 100_000 == 99_999:
                store.commit()
        store.commit()
        times = []
        for _ in range(args.deletes):
            waiting = store.create_table({"name": "w"}, created=0.0)
            store.commit()
            start = time.perf_counter()
            store.forget_table(waiting)
            store.commit()
            times.append(time.perf_counter() - start)
        plan = store._db.execute("EXPLAIN QUERY PLAN DELETE FROM tables WHERE id = 1").fetchall()
        store.close()
    print(f"store from {args.source}")
    print(f"action log: {args.actions:,} actions")
    print(
        f"forget_table of a waiting table (with its commit), {args.deletes} deletes:"
        f" median {statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms"
    )
    print("plan of DELETE FROM tables: " + "; ".join(str(row[3]) for row in plan))


if __name__ == "__main__":
    main()
