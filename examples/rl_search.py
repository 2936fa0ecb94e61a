"""Determinized search on the environment: one seat against four ``heuristic`` bots.

At each of its decisions the seat deals the cards it has not seen again ``--worlds`` times
(``env.determinize``: one world of its information set each, consistent with everything it
saw), tries every legal action in every world (``clone``), finishes the hand with random
actions of its own (the opponents keep playing inside ``step``) and takes the action with the
best mean payout: flat Monte Carlo over determinizations, the simplest ISMCTS. It prints the
seat's mean payout beside the same hands played by a random seat. Needs the extra::

    pip install -e '.[rl]'             # in a checkout of sheepshead (it is not on PyPI)
    python examples/rl_search.py --hands 20 --worlds 8 --seed 1
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from botkit.env import SheepsheadEnv, raw_env

AGENT = "seat_0"


def rollout(world: SheepsheadEnv, rng: random.Random) -> float:
    """Play the hand out with random actions of the agent; its payout."""
    while world.hand.turn is not None:
        world.step(rng.choice(world.legal_actions()))
    return float(world.rewards[AGENT])


def search(game: SheepsheadEnv, worlds: int, rng: random.Random) -> int:
    """The legal action with the best mean payout over ``worlds`` determinizations."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    totals = dict.fromkeys(legal, 0.0)
    for _ in range(worlds):
        world = game.determinize(AGENT, rng)  # the hidden cards dealt again
        for action in legal:
            branch = world.clone()
            branch.step(action)
            totals[action] += rollout(branch, rng)
    return max(legal, key=totals.__getitem__)


def play(hands: int, seed: int, choose: Any) -> float:
    """The agent's mean payout over ``hands`` seeded hands, choosing with ``choose(game)``."""
    game = raw_env(opponents={seat: "heuristic" for seat in range(1, 5)})
    game.reset(seed=seed)
    total = 0.0
    for number in range(hands):
        if number:
            game.reset()
        while game.hand.turn is not None:
            game.step(choose(game))
        total += game.rewards[AGENT]
    return total / hands


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Play ``--hands`` hands with the search and with a random seat; print both means."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20, help="hands to play (default 20)")
    parser.add_argument("--worlds", type=int, default=8, help="determinizations a decision")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    searched = play(args.hands, args.seed, lambda game: search(game, args.worlds, rng))
    randomly = play(args.hands, args.seed, lambda game: rng.choice(game.legal_actions()))
    print(f"{args.hands} hands against four heuristic bots, the same deals:")
    print(f"determinized search ({args.worlds} worlds): {searched:+.3f} per hand")
    print(f"random legal actions: {randomly:+.3f} per hand")
    return {"search": searched, "random": randomly}


if __name__ == "__main__":
    main()
