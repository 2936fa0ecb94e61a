"""The training loop with the PettingZoo environment (botkit/env.py), nothing learned yet.

Every seat plays a random legal action (the observation's ``action_mask``); at the end of each
hand every seat gets its payout as its reward. Swap ``choose`` for your policy and learn from the
``(observation, action, reward)`` triples it sees. Needs the extra::

    pip install -e '.[rl]'             # in a checkout of sheepshead (it is not on PyPI)
    python examples/rl_random.py --hands 1000 --seed 1
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from botkit.env import env


def choose(observation: dict[str, Any], rng: np.random.Generator) -> int:
    """A random legal action index: your policy goes here."""
    legal = np.flatnonzero(observation["action_mask"])
    return int(rng.choice(legal))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Play ``--hands`` hands of random self-play; print and return the totals per seat."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices")
    args = parser.parse_args(argv)
    game = env()  # the checked environment: raw_env() is faster once your loop works
    rng = np.random.default_rng(args.seed)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    decisions = 0
    started = time.perf_counter()
    game.reset(seed=args.seed)
    for number in range(args.hands):
        if number:
            game.reset()  # the next deal from the same seeded sequence
        for agent in game.agent_iter():
            observation, reward, terminated, truncated, _info = game.last()
            if terminated or truncated:
                totals[agent] += reward  # the hand is over: reward is this seat's payout
                game.step(None)
                continue
            game.step(choose(observation, rng))
            decisions += 1
    elapsed = time.perf_counter() - started
    print(f"{args.hands} hands, {decisions} decisions in {elapsed:.2f} s")
    for agent, total in totals.items():
        print(f"{agent}: {total:+.0f} points, {total / args.hands:+.3f} per hand")
    print(f"sum of rewards: {sum(totals.values()):+.0f} (every hand is zero-sum)")
    return {"hands": args.hands, "decisions": decisions, "totals": totals}


if __name__ == "__main__":
    main()
