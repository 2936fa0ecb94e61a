"""Benchmark: random self-play hands per second through the training environment (botkit/env.py)
against the bare engine, in the same run.

Run by hand (needs the extra: ``pip install -e '.[rl]'``)::

    .venv/bin/python bench/rl.py [--seconds S] [--rules PRESET] [--source TREE]

Both loops play random legal hands. The engine loop is ``bench/engine.py``'s: the public,
validating ``Hand`` API, a uniform choice among ``legal_actions()``. The environment loop is a
training loop as PettingZoo documents it, on the unwrapped environment: ``agent_iter``,
``last()`` (which builds the observation vector and the action mask at every decision), a
uniform choice among the environment's ``legal_actions()``, ``step``, and ``step(None)`` for
each seat once the hand is over. Two more loops show where the rest goes: the same with the
choice read off the mask with numpy (what a policy that only has the mask pays), and the same
without any observation (PettingZoo's protocol alone); the three share one environment through
every round, as a training run keeps one (its mask cache stays warm). The loops run in
alternating rounds; it prints the best round of each, the ratio and the median ratio of the
rounds. The last lines are what a researcher's loop pays: the mask read with numpy, through
``raw_env()`` and through ``env()`` (PettingZoo's checking wrappers, what the examples use),
and what the policy's numpy read alone costs (over stored masks), as a share of an engine hand.
``--source TREE`` measures another checkout (a worktree of the base, for "before" figures).
Rates are per second of this process's CPU time, so neighbours on a shared machine slow the
figures less (they still do, through caches: compare figures of one run only).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

from benchlib import put_project_first, random_hands

# bench/ is first on sys.path, where bench/engine.py would shadow the engine package.
put_project_first(__file__)
if "--source" in sys.argv[1:-1]:  # another tree's packages first (before/after figures)
    sys.path.insert(0, os.path.abspath(sys.argv[sys.argv.index("--source") + 1]))


def engine_hands(rules: object, seconds: float) -> float:
    """Random hands per second through the bare engine (``bench/engine.py``'s loop)."""
    hands = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        random_hands(rules, 100, hands)
        hands += 100
    return hands / (time.process_time() - start)


def new_env(rules: object, *, wrapped: bool = False) -> Any:
    """An environment under ``rules`` (``env()`` with ``wrapped``, else ``raw_env()``), seeded:
    the loops share one through every round, as a training run keeps one (its mask cache stays
    warm)."""
    from botkit.env import env, raw_env

    game = (env if wrapped else raw_env)(rules)
    game.reset(seed=1)
    return game


def env_hands(
    game: Any, seconds: float, *, mask_policy: bool = False, observe: bool = True
) -> float:
    """Random hands per second through the unwrapped environment ``game``: the observation and
    the mask are built at every decision (none with ``observe`` False); the choice is among
    ``legal_actions()`` as the engine loop's is among the engine's, or, with ``mask_policy``,
    read off the mask with numpy."""
    import numpy as np

    rng = random.Random(1)
    choice, randrange = rng.choice, rng.randrange
    as_bool = np.bool_
    hands = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(100):
            game.reset()
            for _agent in game.agent_iter():
                obs, _reward, terminated, truncated, _info = game.last(observe)
                if terminated or truncated:
                    game.step(None)
                    continue
                if mask_policy:
                    # The mask holds 0 and 1: as booleans, nonzero lists the legal indices.
                    legal = obs["action_mask"].view(as_bool).nonzero()[0]
                    game.step(legal.item(randrange(legal.size)))
                else:
                    game.step(choice(game.legal_actions()))
            hands += 1
    return hands / (time.process_time() - start)


def policy_read_share(game: Any, seconds: float) -> float:
    """CPU seconds per hand of the numpy-mask policy's reading alone (``view``, ``nonzero``,
    a random index, ``item``), over the masks of random hands' decisions: what the
    researcher's loop pays whatever the environment does."""
    import numpy as np

    rng = random.Random(2)
    masks = []
    hands = 200
    for _ in range(hands):
        game.reset()
        for _agent in game.agent_iter():
            obs, _reward, terminated, truncated, _info = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            masks.append(obs["action_mask"])
            game.step(rng.choice(game.legal_actions()))
    randrange, as_bool = rng.randrange, np.bool_
    reads = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for mask in masks:
            legal = mask.view(as_bool).nonzero()[0]
            legal.item(randrange(legal.size))
        reads += 1
    return (time.process_time() - start) / (reads * hands)


def main() -> None:
    """Parse arguments, run the loops in alternating rounds and print the best of each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="seconds in all, per loop (default 10)"
    )
    parser.add_argument(
        "--rounds", type=int, default=10, help="alternating rounds per loop (default 10)"
    )
    parser.add_argument(
        "--rules", default="wisconsin", help="rules preset (default wisconsin, the environment's)"
    )
    parser.add_argument("--source", help="measure this checkout's code instead (a path)")
    args = parser.parse_args()
    from engine import RuleSet

    rules = RuleSet.from_preset(args.rules)
    game = new_env(rules)
    wrapped = new_env(rules, wrapped=True)
    engine_hands(rules, 0.3)  # warm-up
    env_hands(game, 0.3)
    env_hands(wrapped, 0.3, mask_policy=True)
    # Alternating rounds, so a neighbour's load on a shared machine hits both loops alike; the
    # best round of each is the figure least disturbed by it.
    bare, through_env, with_numpy, floor, checked = [], [], [], [], []
    share = args.seconds / args.rounds
    for _ in range(args.rounds):
        bare.append(engine_hands(rules, share))
        through_env.append(env_hands(game, share))
        with_numpy.append(env_hands(game, share / 2, mask_policy=True))
        floor.append(env_hands(game, share / 2, observe=False))
        checked.append(env_hands(wrapped, share / 2, mask_policy=True))
    reading = min(policy_read_share(game, share / 4) for _ in range(args.rounds))
    best_bare, best_env = max(bare), max(through_env)
    median_ratio = statistics.median(e / b for e, b in zip(through_env, bare, strict=True))
    print(f"bare engine ({args.rules} rules, random legal actions): {best_bare:,.0f} hands/s")
    print(f"environment, unwrapped (observation + mask every step): {best_env:,.0f} hands/s")
    print(
        f"ratio environment / engine: {best_env / best_bare:.2f} (best rounds), "
        f"{median_ratio:.2f} (median of {args.rounds} paired rounds)"
    )
    print(
        f"the same, the random choice read off the mask with numpy: {max(with_numpy):,.0f} "
        f"hands/s, {max(with_numpy) / best_bare:.2f} of the engine"
    )
    print(
        f"the same loop without observations (PettingZoo's protocol alone): "
        f"{max(floor):,.0f} hands/s, {max(floor) / best_bare:.2f} of the engine"
    )
    print(
        f"researcher's loop (mask read with numpy), raw_env(): {max(with_numpy):,.0f} hands/s, "
        f"{max(with_numpy) / best_bare:.2f} of the engine"
    )
    print(
        f"researcher's loop (mask read with numpy), env(): {max(checked):,.0f} hands/s, "
        f"{max(checked) / best_bare:.2f} of the engine"
    )
    print(
        f"of which the policy's numpy read alone: {reading * 1e6:.0f} µs a hand, "
        f"{reading * best_bare:.2f} of an engine hand's time (a loop at 0.5 of the engine has "
        f"{2 - reading * best_bare:.2f} of it left for the engine and the environment)"
    )


if __name__ == "__main__":
    main()
