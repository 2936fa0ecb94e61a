"""Benchmark: how long each bot strategy takes per decision.

Run by hand: ``.venv/bin/python bench/bots.py [--hands N] [--strategies a,b,...] [--seed S]``.
Each strategy plays every seat of ``N`` hands in turn (the other four seats are ``heuristic``),
and every decision it makes with more than one legal action is timed on this process's clock.
Prints, per strategy and per kind of decision, the count, mean, p99 and max in milliseconds.
"""

from __future__ import annotations

import os
import sys

# Running this file puts bench/ first on sys.path, where bench/engine.py would shadow the
# engine package; take it off so `import engine` finds the real one.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import time  # noqa: E402

from engine.actions import action_from_dict  # noqa: E402
from engine.bots import make_strategy  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from engine.view import seat_view  # noqa: E402


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_strategy(name: str, hands: int, seed: int, rules: RuleSet) -> dict[str, list[float]]:
    """Decision times (seconds) of ``name`` by decision kind, over ``hands`` hands."""
    times: dict[str, list[float]] = {}
    filler = make_strategy("heuristic")
    for n in range(hands):
        seat_of_bot = n % 5
        bot = make_strategy(name, seed=seed + n)
        hand = Hand.from_seed(rules, (n // 5) % 5, seed * 100_003 + n)
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            legal = view["legal"]
            if seat == seat_of_bot:
                start = time.perf_counter()
                choice = bot.choose(view, legal)
                spent = time.perf_counter() - start
                if len(legal) > 1:
                    kind = (
                        view["phase"]
                        if view["phase"] != "play"
                        else f"trick {len(hand.tricks) + 1}"
                    )
                    times.setdefault(kind, []).append(spent)
            else:
                choice = filler.choose(view, legal)
            hand.apply(action_from_dict(choice, seat))
    return times


def main() -> None:
    """Parse arguments, time the strategies and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50, help="hands per strategy (default 50)")
    parser.add_argument(
        "--strategies",
        default="random,heuristic,search",
        help="comma-separated strategy names (default random,heuristic,search)",
    )
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument("--rules", default="seed", help="rules preset (default seed)")
    args = parser.parse_args()
    rules = RuleSet.from_preset(args.rules)
    print(
        f"{'strategy':<12} {'decision':<9} {'count':>6} {'mean ms':>9} {'p99 ms':>9} {'max ms':>9}"
    )
    for name in args.strategies.split(","):
        times = time_strategy(name, args.hands, args.seed, rules)
        every = [t for ts in times.values() for t in ts]
        rows = [(kind, times[kind]) for kind in sorted(times)] + [("all", every)]
        for kind, ts in rows:
            if not ts:
                continue
            print(
                f"{name:<12} {kind:<9} {len(ts):>6} {sum(ts) / len(ts) * 1000:>9.2f} "
                f"{_percentile(ts, 0.99) * 1000:>9.2f} {max(ts) * 1000:>9.2f}"
            )


if __name__ == "__main__":
    main()
