"""Benchmark: search rollouts per second of the trick simulator (``engine.bots.sim``).

Run by hand: ``.venv/bin/python bench/sim.py [--seconds S] [--positions N] [--rules PRESET]``.
Takes ``N`` play-phase positions (random legal bidding, first lead) and plays each out with
``Sim.rollout`` (the heuristic policy for every seat) from a fresh copy, as the search does per
sample. Prints a line ending in ``N rollouts/s``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

# Running this file puts bench/ first on sys.path, where bench/engine.py would shadow the
# engine package; take it off so `import engine` finds the real one.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

from engine.bots.sim import Sim  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.rules import RuleSet  # noqa: E402


def positions(rules: RuleSet, count: int, seed: int) -> list[Sim]:
    """``count`` simulators at the start of trick play (hands that reach it)."""
    rng = random.Random(seed)
    sims: list[Sim] = []
    n = 0
    while len(sims) < count:
        hand = Hand.from_seed(rules, n % 5, seed + n)
        n += 1
        while hand.phase not in ("play", "done"):
            hand.apply(rng.choice(hand.legal_actions()))
        if hand.phase == "play":
            sims.append(Sim.from_hand(hand))
    return sims


def main() -> None:
    """Parse arguments, run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to run (default 3)")
    parser.add_argument("--positions", type=int, default=200, help="positions (default 200)")
    parser.add_argument("--rules", default="wisconsin", help="rules preset (default wisconsin)")
    args = parser.parse_args()
    sims = positions(RuleSet.from_preset(args.rules), args.positions, 1)
    for sim in sims[:20]:  # warm-up
        sim.copy().rollout()
    rollouts = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for sim in sims:
            sim.copy().rollout()
        rollouts += len(sims)
    elapsed = time.perf_counter() - start
    print(f"{rollouts} rollouts in {elapsed:.2f} s")
    print(
        f"simulator ({args.rules} rules, heuristic rollouts): {rollouts / elapsed:,.0f} rollouts/s"
    )


if __name__ == "__main__":
    main()
