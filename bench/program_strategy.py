"""Benchmark: decisions per second through an outside program (client/program_strategy.py)
against the same logic as a Python strategy file, for docs/bots.md ("A bot in any language").

Run by hand: ``nice -n 10 .venv/bin/python bench/program_strategy.py [--seconds S] [--node]``.
The strategy answers the first legal action (the cost measured is the line protocol's, not the
strategy's): as a Python file called in-process, as a Python program, and with ``--node`` as a
JavaScript program (when ``node`` is installed). Each is asked the decisions of random hands
for about ``S`` seconds (default 3, so the whole run stays well under 15 s); prints decisions per
second, the mean microseconds per decision, and the program's start (its first decision).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first

put_project_first(__file__)

import argparse  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

PYTHON_FILE = """
class First:
    def choose(self, view, legal):
        return legal[0]
"""

PYTHON_PROGRAM = """
import sys
for line in sys.stdin:
    print(0, flush=True)
"""

NODE_PROGRAM = """#!/usr/bin/env node
require("readline").createInterface({ input: process.stdin }).on("line", () => console.log(0));
"""


def decisions(count: int, seed: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """``count`` (view, legal) pairs from random hands: what a tournament asks."""
    from engine.actions import action_from_dict
    from engine.hand import Hand
    from engine.rules import RuleSet
    from engine.view import seat_view

    rng = random.Random(seed)
    rules = RuleSet.from_preset("wisconsin")
    found: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    while len(found) < count:
        hand = Hand.from_seed(rules, rng.randrange(5), rng.randrange(1 << 30))
        while not hand.is_over and len(found) < count:
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            found.append((view, view["legal"]))
            hand.apply(action_from_dict(rng.choice(view["legal"]), seat))
    return found


def measure(spec: str, asked: list[Any], seconds: float) -> tuple[int, float, float]:
    """Decisions made, seconds spent (after the first) and the first decision's seconds."""
    from client.strategy_call import decide
    from client.strategy_spec import strategy_factory

    strategy = strategy_factory(spec)(None)
    start = time.perf_counter()
    first = decide(strategy, *asked[0])
    assert not first.fell_back, first.error
    started = time.perf_counter() - start
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for view, legal in asked:
            assert not decide(strategy, view, legal).fell_back
        done += len(asked)
    return done, time.perf_counter() - start, started


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per strategy (default 3)")
    parser.add_argument("--node", action="store_true", help="also a JavaScript program")
    args = parser.parse_args()
    seconds = min(max(args.seconds, 0.2), 4.0)
    asked = decisions(500, 1)
    with tempfile.TemporaryDirectory() as folder:
        python_file = Path(folder) / "first.py"
        python_file.write_text(PYTHON_FILE, encoding="utf-8")
        program = Path(folder) / "first"
        program.write_text(f"#!{sys.executable}\n{PYTHON_PROGRAM}", encoding="utf-8")
        program.chmod(0o755)
        cases = [("Python file, in-process", str(python_file)), ("Python program", str(program))]
        if args.node and shutil.which("node"):
            script = Path(folder) / "first.js"
            script.write_text(NODE_PROGRAM, encoding="utf-8")
            script.chmod(0o755)
            cases.append(("JavaScript program (node)", str(script)))
        print(f"{'strategy':28} {'decisions/s':>12} {'us/decision':>12} {'first (start)':>14}")
        for label, spec in cases:
            done, spent, first = measure(spec, asked, seconds)
            print(
                f"{label:28} {done / spent:12,.0f} {spent / done * 1e6:12.1f} "
                f"{first * 1e3:11.1f} ms"
            )
        from client.program_strategy import close_programs

        close_programs()


if __name__ == "__main__":
    main()
