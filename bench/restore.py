"""Benchmark: what a restart costs a table whose open-ended match has many finished hands.

A restarted server restores each unfinished match from the store (``Table.restore``). This
fills a database with one table playing an open-ended match (``hands: None``) of ``N`` finished
hands and a current hand half played (through this tree's store, as the table's ledger writes
them: each action's row, each finished hand's record, seats and running totals; five server
bots, the hands played by the engine's random legal moves), then, in a fresh process per
``N``, times ``Server.start()`` on it (open, restore, listen), reads the process's resident
memory before and after, and times the restored table's ``history`` pages (from hand 0 and
from the middle of the match, each with the page after it). Run by hand::

    nice -n 10 .venv/bin/python bench/restore.py [--hands 100 1000 10000]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from engine.match import Match  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from server.storage.store import SeatRow, Store  # noqa: E402
from server.storage.tallies import HandFacts  # noqa: E402
from server.tables.table_config import TableConfig  # noqa: E402


def fill(path: Path, hands: int, seed: int = 1) -> None:
    """A database with one table playing an open-ended match: ``hands`` finished hands and
    the next one dealt, half its actions made, stored as a table's ledger stores them."""
    rng = random.Random(seed)
    rules = RuleSet.from_preset("seed")
    store = Store(path, checkpoint_interval=None)
    config = TableConfig("open-ended", rules, None, None, None, None, 60.0)
    table = store.create_table(config.to_dict(), created=0.0)
    for seat in range(5):
        store.save_seat(table, seat, SeatRow(seat, "bot", f"Bot {seat}", "heuristic", None, None))
    match_seed = rng.randrange(2**30)
    match = Match(rules, seed=match_seed, hand_limit=None, keep_history=False)
    store.update_table(
        table, state="playing", seed=match_seed, first_dealer=match.first_dealer, dealt=0
    )
    n = 0
    while True:
        hand = match.hand
        playing = match.number == hands
        stop_at = 12  # the current hand: stopped mid-way (after its auction)
        while not hand.is_over and not (playing and len(hand.actions) >= stop_at):
            action = rng.choice(hand.legal_actions())
            match.apply(action)
            store.add_action(table, n, match.number, json.dumps(action.to_dict()), seq=n + 1)
            n += 1
        if playing:
            break
        result = match.results[-1]
        payouts = list(result.payouts or ())
        record = {**match.records[-1], "strategies": ["heuristic"] * 5}
        facts = HandFacts(result.picker, result.leaster, result.picker_side_points, payouts)
        store.save_hand(table, match.number, record, payouts, finished=1e9 + n, facts=facts)
        store.update_table(table, totals=match.totals)
        match.next_hand()
        store.update_table(table, dealt=match.number)
        if match.number % 1000 == 0:
            store.commit()
    store.update_table(table, seq=n)
    store.commit()
    store.close()


def _rss_kb() -> int:
    """This process's resident memory now (kB, Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _timed_start(db: Path) -> tuple[float, int, int, list[float]]:
    from server.app import Server

    before = _rss_kb()
    server = Server(db_path=str(db), host="127.0.0.1", port=0)
    start = time.perf_counter()
    await server.start()
    took = time.perf_counter() - start
    after = _rss_kb()
    if server.restored != 1:
        raise SystemExit(f"bench: {server.restored} table(s) restored, not 1")
    table = next(iter(server.lobby.tables.values()))
    pages = []
    for start in (0, len(table.history) // 2):
        begun = time.perf_counter()
        reply = table.history_reply(start)
        pages.append(time.perf_counter() - begun)
        begun = time.perf_counter()
        table.history_reply(reply["next"] or start)  # the page after it, as a client asks
        pages.append(time.perf_counter() - begun)
    await server.stop()
    return took, before, after, pages


def child(db: Path) -> None:
    """Time one ``Server.start()`` on ``db`` and print its figures as JSON (a fresh process)."""
    took, before, after, pages = asyncio.run(_timed_start(db))
    figures = {"seconds": took, "rss_before_kb": before, "rss_after_kb": after, "pages": pages}
    print(json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for hands in args.hands:
            db = Path(tmp) / f"h{hands}.db"
            started = time.perf_counter()
            fill(db, hands)
            filled = time.perf_counter() - started
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(db)],
                check=True,
                stdout=subprocess.PIPE,
                text=True,
            ).stdout
            got = json.loads(out.strip().splitlines()[-1])
            grown = (got["rss_after_kb"] - got["rss_before_kb"]) / 1024
            print(
                f"{hands:>6,} finished hands ({db.stat().st_size / 1e6:.1f} MB db, filled in"
                f" {filled:.1f} s): Server.start() {got['seconds'] * 1000:.0f} ms,"
                f" RSS +{grown:.1f} MB ({got['rss_after_kb'] / 1024:.1f} MB after); history"
                " pages from 0, its next, from the middle, its next: "
                + ", ".join(f"{page * 1000:.1f}" for page in got["pages"])
                + " ms",
                flush=True,
            )


if __name__ == "__main__":
    main()
