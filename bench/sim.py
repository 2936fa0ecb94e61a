"""Benchmark: search rollouts per second of the trick simulator (``engine.bots.sim``).

Run by hand: ``.venv/bin/python bench/sim.py [--rollouts N] [--rules PRESET]``. Plays ``N``
rollouts (``Sim.rollout``, the heuristic policy for every seat, from a fresh copy, as the search
does per sample) from the first trick of 50 fixed deals bid by the heuristic; the same figure as
``bench/bots.py`` prints beside its decision times. Prints a line ending in ``N rollouts/s``.
"""

from __future__ import annotations

import argparse

from benchlib import put_project_first, simulator_speed

# bench/ is first on sys.path, where bench/engine.py would shadow the engine package.
put_project_first(__file__)

from engine.rules import RuleSet  # noqa: E402


def main() -> None:
    """Parse arguments, run the benchmark and print the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rollouts", type=int, default=20000, help="rollouts to time (default 20000)"
    )
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument("--rules", default="wisconsin", help="rules preset (default wisconsin)")
    args = parser.parse_args()
    rules = RuleSet.from_preset(args.rules)
    simulator_speed(rules, 200, args.seed)  # warm-up
    speed = simulator_speed(rules, args.rollouts, args.seed)
    print(f"simulator ({args.rules} rules, heuristic rollouts): {speed:,.0f} rollouts/s")


if __name__ == "__main__":
    main()
