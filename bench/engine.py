"""Benchmark: random legal hands through the public, validating engine API.

Run by hand: ``.venv/bin/python bench/engine.py [--seconds S] [--rules PRESET]``. Prints hands per
second on one core as a line ending in ``N hands/s``.

``--hands N`` plays exactly N hands (seeds 0..N-1, no warm-up, no timing loop) instead, for a
repeatable instruction count: ``perf stat -e instructions`` of ``--hands 2000`` minus that of
``--hands 0``, divided by 2000, is the engine's instructions per hand.
"""

from __future__ import annotations

import argparse
import time

from benchlib import put_project_first, random_hands

# bench/ is first on sys.path, where this very file would shadow the engine package it measures.
put_project_first(__file__)

from engine import RuleSet  # noqa: E402


def main() -> None:
    """Parse arguments, run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to run (default 3)")
    parser.add_argument("--rules", default="seed", help="rules preset (default seed)")
    parser.add_argument(
        "--hands", type=int, default=None, help="play exactly this many hands, untimed"
    )
    args = parser.parse_args()
    rules = RuleSet.from_preset(args.rules)
    if args.hands is not None:
        actions = random_hands(rules, args.hands, 0)
        print(f"{args.hands} hands, {actions} actions")
        return
    random_hands(rules, 200, 1)  # warm-up
    hands = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        actions += random_hands(rules, 1000, hands)
        hands += 1000
    elapsed = time.perf_counter() - start
    print(f"{hands} hands, {actions} actions in {elapsed:.2f} s")
    print(f"{actions / elapsed:,.0f} actions/s")
    print(f"engine ({args.rules} rules, validating API): {hands / elapsed:,.0f} hands/s")


if __name__ == "__main__":
    main()
