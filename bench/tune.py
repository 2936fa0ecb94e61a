"""Parameter search for the ``heuristic`` strategy by duplicate tournaments.

Run by hand, niced and bounded: ``nice -n 15 .venv/bin/python bench/tune.py [--deals N]
[--seed S] [--rounds R] [--minutes M] [--preset P] [--start k=v,...] [--knobs a,b,...]``.

Coordinate search over the fields of :class:`engine.bots.style.Style`: for each knob in turn it
plays ``heuristic`` with one value changed against ``heuristic`` with the current best values over
the same ``N`` duplicate deals, and keeps the change when it wins by more than one standard error
(a screening run: the winner must then be confirmed on fresh deals against ``heuristic-v1``, see
docs/bots.md). Prints every trial and, at the end, the best values as a strategy spec.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first

put_project_first(__file__)

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

STEPS: dict[str, tuple[float, ...]] = {
    "pick0": (-0.6, -0.3, 0.3, 0.6),
    "pick1": (-0.6, -0.3, 0.3, 0.6),
    "pick2": (-0.6, -0.3, 0.3, 0.6),
    "pick3": (-0.6, -0.3, 0.3, 0.6),
    "pick4": (-0.8, -0.4, 0.4, 0.8),
    "pick_void": (-0.4, 0.4),
    "pick_ace": (-0.5, 0.5),
    "pick_queen": (-0.4, 0.4),
    "pick_jack": (-0.4, 0.4),
    "pick_low": (-0.3, 0.3),
    "pick_long": (0.3, 0.6),
    "bury_void": (-3.0, 3.0),
    "bury_call": (-5.0, 5.0),
    "bury_short": (-1.5, 1.5),
    "bury_ace": (-0.4, 0.3),
    "lead_called": (-1, 1),
    "lead_short": (1.0, 3.0, -1.0),
    "picker_top": (-1, 1, 3),
    "trump_in": (-4, 6, 10),
    "trump_fail_lead": (-1, 1),
    "side_take": (4, 10, -4),
    "fight": (-5, 5),
    "schmear_unknown": (-1, 1),
    "pick_single": (-0.4, 0.4),
    "called_trump": (-1, 1),
    "leaster_take": (-4, 4, 8),
}
"""Changes tried for each knob, added to its current value (switches are kept to 0/1)."""

_SWITCHES = {"lead_called": 1, "trump_fail_lead": 1, "schmear_unknown": 1, "called_trump": 1}
"""Knobs that are switches, with their largest setting (the smallest is 0)."""


def spec(values: dict[str, Any]) -> str:
    """A ``heuristic`` strategy spec with these style values."""
    return "heuristic" + "".join(f":{k}={v}" for k, v in sorted(values.items()))


def duel(a: str, b: str, deals: int, seed: int, preset: str) -> tuple[float, float]:
    """Mean per-deal difference ``a - b`` (points per seat-hand) and its standard error.

    ``preset`` may name several presets, comma-separated: the same deals are then played under
    each and the differences averaged, so that a change is kept only for skill that holds under
    every rule set rather than for one table's stakes."""
    from botkit.tournament.play import run_tournament
    from engine.rules import RuleSet

    diffs: list[float] = []
    presets = preset.split(",")
    for name in presets:
        tallies, _ = run_tournament([a, b], deals, seed, RuleSet.from_preset(name))
        per = [x - y for x, y in zip(tallies[0].deal_means, tallies[1].deal_means, strict=True)]
        diffs = per if not diffs else [d + p for d, p in zip(diffs, per, strict=True)]
    diffs = [d / len(presets) for d in diffs]
    return statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs))


def main() -> None:
    """Parse arguments and run the coordinate search."""
    from engine.bots.style import TUNED

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="deals per trial (default 400)")
    parser.add_argument("--seed", type=int, default=1001, help="tournament seed (default 1001)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the knobs (default 2)")
    parser.add_argument("--minutes", type=float, default=30.0, help="stop after (default 30)")
    parser.add_argument(
        "--preset",
        default="wisconsin",
        help="rules preset, or several comma-separated to average over (default wisconsin)",
    )
    parser.add_argument("--start", default="", help="starting values, k=v,... (default TUNED)")
    parser.add_argument("--knobs", default=",".join(STEPS), help="knobs to tune, comma-separated")
    args = parser.parse_args()
    best: dict[str, Any] = {}
    for item in filter(None, args.start.split(",")):
        key, _, value = item.partition("=")
        best[key] = float(value) if "." in value else int(value)
    knobs = args.knobs.split(",")
    stop = time.monotonic() + args.minutes * 60
    print(f"tuning {', '.join(knobs)} over {args.deals} deals, seed {args.seed}, {args.preset}")
    for round_number in range(args.rounds):
        changed = False
        for knob in knobs:
            current = best.get(knob, getattr(TUNED, knob))
            for step in STEPS[knob]:
                if time.monotonic() > stop:
                    print("out of time")
                    print("best:", spec(best), flush=True)
                    return
                value = current + step
                if isinstance(current, float):
                    value = round(value, 3)
                if knob in _SWITCHES and not 0 <= value <= _SWITCHES[knob]:
                    continue
                if value < 0 and not knob.startswith(("lead_short", "pick_single")):
                    continue
                trial = {**best, knob: value}
                started = time.monotonic()
                mean, se = duel(spec(trial), spec(best), args.deals, args.seed, args.preset)
                keep = mean > se
                print(
                    f"round {round_number + 1} {knob}={value} (was {current}): "
                    f"{mean:+.4f} ± {se:.4f}  {'KEEP' if keep else ''}"
                    f"  [{time.monotonic() - started:.0f}s]",
                    flush=True,
                )
                if keep:
                    best = trial
                    current = value
                    changed = True
        print(f"after round {round_number + 1}: {spec(best)}", flush=True)
        if not changed:
            break
    print("best:", spec(best), flush=True)


if __name__ == "__main__":
    main()
