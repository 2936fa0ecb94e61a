"""Benchmark: how long a server's first start takes on an older database with a long history.

A new server version brings the database to its schema on open (``Store._upgrade``), before
it listens. This fills a database with ``--hands`` stored hands (through this tree's store:
``--hands // 10`` tables of one ten-hand match each, four of 60 players and a server bot at
each, the hands' records taken round from ``--distinct`` random hands played by the engine,
the standings kept as a server keeps them), makes copies of it as an older server would have
left it, and times ``sheepshead serve`` from the tree ``--source`` on each copy, from the start
of its process to its banner (``bench/attack.py``'s :class:`Served`):

- ``current``: the same schema (no upgrade: the interpreter's start and the restore);
- ``schema 13``: the last schema before this one, whose standings tables are the same;
- ``schema 7`` (with ``--old``): from before the standings were kept, which they are filled in
  from every stored hand (about half a millisecond a hand).

The server logs at info on stderr, so the progress lines of a long rebuild show. Run by hand::

    .venv/bin/python bench/upgrade_start.py [--hands 20000] [--old] [--source TREE]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sqlite3  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from attack import Served  # noqa: E402

from engine.match import Match  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from server.storage.store import SeatRow, Store  # noqa: E402
from server.storage.tallies import HandFacts  # noqa: E402

HANDS_A_MATCH = 10
PLAYERS = 60


def played_hands(count: int, seed: int) -> list[tuple[dict[str, object], list[int], HandFacts]]:
    """``count`` random hands played through the engine: record, payouts and what the
    standings count of each."""
    rng = random.Random(seed)
    rules = RuleSet.from_preset("seed")
    hands: list[tuple[dict[str, object], list[int], HandFacts]] = []
    while len(hands) < count:
        match = Match(rules, seed=rng.randrange(2**30), hand_limit=None, keep_history=False)
        hand = match.hand
        while not hand.is_over:
            match.apply(rng.choice(hand.legal_actions()))
        result = match.results[-1]
        payouts = list(result.payouts or ())
        facts = HandFacts(result.picker, result.leaster, result.picker_side_points, payouts)
        hands.append((match.records[-1], payouts, facts))
    return hands


def fill(path: Path, hands: int, distinct: int) -> None:
    """A database of the current schema with ``hands`` stored hands and their standings."""
    rng = random.Random(1)
    played = played_hands(distinct, 2)
    store = Store(path, checkpoint_interval=None)
    stored = 0
    while stored < hands:
        table = store.create_table({"name": f"t{stored}"}, created=0.0)
        for seat in range(4):
            player = rng.randrange(PLAYERS)
            token = f"token-{table}-{seat}"
            store.save_seat(table, seat, SeatRow(seat, "human", f"P{player}", None, "human", token))
            store.link_seat(token, f"player-{player}")
        store.save_seat(table, 4, SeatRow(4, "bot", "Bot", "heuristic", None, None))
        totals = [0] * 5
        number = 0
        while number < HANDS_A_MATCH and stored < hands:
            record, payouts, facts = played[stored % len(played)]
            finished = 1e9 + stored
            store.save_hand(table, number, record, payouts, finished=finished, facts=facts)
            totals = [a + b for a, b in zip(totals, payouts, strict=True)]
            number += 1
            stored += 1
        rows = [(seat, f"S{seat}", "human", totals[seat]) for seat in range(5)]
        store.save_results(table, rows, hands=number, finished=1e9 + stored)
        store.update_table(table, state="closed")
        if stored % 5000 < HANDS_A_MATCH:
            store.commit()
    store.close()


def older_copy(source: Path, target: Path, version: int) -> None:
    """A copy of the database ``source`` as a server of schema ``version`` (7 or 13) left it."""
    shutil.copy(source, target)
    with sqlite3.connect(target) as db:
        db.execute("ALTER TABLE chat_lines DROP COLUMN code")  # schema 14's column
        db.execute("ALTER TABLE seats DROP COLUMN away")  # schema 15's, filled at the upgrade
        if version < 8:  # before the standings were kept
            db.executescript("DROP TABLE match_tallies; DROP TABLE player_totals;")
        db.execute(f"PRAGMA user_version={version}")
    db.close()


def timed_start(source: Path, db: Path) -> float:
    """Seconds from starting ``sheepshead serve`` (tree ``source``) on ``db`` to its banner."""
    start = time.perf_counter()
    served = Served(source, db, ["--log-level", "info", "--no-announce"])
    took = time.perf_counter() - start
    served.stop()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--distinct", type=int, default=200, help="distinct hands played")
    parser.add_argument("--old", action="store_true", help="also time a schema 7 copy")
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        filled = Path(tmp) / "filled.db"
        started = time.perf_counter()
        fill(filled, args.hands, args.distinct)
        print(
            f"filled: {args.hands:,} hands, {filled.stat().st_size / 1e6:.1f} MB,"
            f" in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        print(f"server from {args.source}", flush=True)
        versions = [None, 13, *([7] if args.old else [])]
        for version in versions:
            db = Path(tmp) / f"v{version}.db"
            if version is None:
                shutil.copy(filled, db)
            else:
                older_copy(filled, db, version)
            took = timed_start(args.source, db)
            label = "current" if version is None else f"schema {version}"
            print(f"{label}: {took:.2f} s from start to listening", flush=True)


if __name__ == "__main__":
    main()
