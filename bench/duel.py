"""A duplicate tournament that prints its standing as it goes, for runs too long to wait for.

Run by hand, niced: ``nice -n 15 .venv/bin/python bench/duel.py --strategies A,B [--deals N]
[--seed S] [--preset P] [--jobs J] [--every K]``. It plays the same deals as ``sheepshead
tournament`` with the same arguments (same seeds, same seatings), and every ``K`` deals prints
the deals done, each strategy's points per seat-hand with its 95% interval and leaster rate, the
pair differences with their intervals, and the time per deal; so a run stopped early still gives
a figure with an honest interval. At the end it prints the tournament's own table.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first

put_project_first(__file__)

import argparse  # noqa: E402
import time  # noqa: E402


def main() -> None:
    """Parse arguments, play the deals, print the standing every ``--every`` deals."""
    from botkit.tournament.play import run_tournament
    from botkit.tournament.report import report
    from botkit.tournament.stats import StrategyTally, summarize
    from engine.rules import RuleSet

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", required=True, help="comma-separated strategy specs")
    parser.add_argument("--deals", type=int, default=2000, help="deals (default 2000)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    parser.add_argument("--preset", default="wisconsin", help="rules preset (default wisconsin)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--every", type=int, default=50, help="deals between reports (default 50)")
    args = parser.parse_args()
    specs = [s.strip() for s in args.strategies.split(",") if s.strip()]
    rules = RuleSet.from_preset(args.preset)
    started = time.monotonic()
    params = {"rules": rules.to_dict(), "seed": args.seed, "deals": args.deals}
    print(
        f"{' vs '.join(specs)}: {args.deals} deals, seed {args.seed}, rules {args.preset}, "
        f"jobs {args.jobs}",
        flush=True,
    )

    def standing(done: int, tallies: list[StrategyTally]) -> None:
        if done % args.every and done != args.deals:
            return
        summary = summarize(specs, tallies, params)
        elapsed = time.monotonic() - started
        parts = [f"{done} deals, {elapsed / done:.2f} s/deal, {elapsed / 60:.1f} min:"]
        for name, s in summary["strategies"].items():
            low, high = s["ci95"]
            parts.append(
                f"{name} {s['mean']:+.3f} [{_num(low)}, {_num(high)}] "
                f"leaster {s['leaster_rate']:.1%}"
            )
        for p in summary["pairs"]:
            low, high = p["ci95"]
            parts.append(f"{p['a']} - {p['b']} {p['diff']:+.3f} [{_num(low)}, {_num(high)}]")
        print("  ".join(parts), flush=True)

    tallies, _ = run_tournament(specs, args.deals, args.seed, rules, args.jobs, standing)
    params["elapsed_s"] = round(time.monotonic() - started, 1)
    report(summarize(specs, tallies, params), sys.stdout)


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


if __name__ == "__main__":
    main()
