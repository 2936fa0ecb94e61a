"""OpenSpiel's IS-MCTS in one seat of ``python_sheepshead`` against four ``heuristic`` bots.

The seat is OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``: UCT over
information sets, keyed on the information-state string, each simulation in a world dealt again
by the game's ``resample_from_infostate``, leaves valued by a random rollout); the other four
are the project's ``heuristic`` strategy wrapped as OpenSpiel bots
(:class:`botkit.openspiel.StrategyBot`); OpenSpiel's ``evaluate_bots`` plays each hand. Every
deal is played twice, by the search and by OpenSpiel's uniform random bot in the same seat,
with the same opponents: the deals are the training environment's (``botkit.env``,
``reset(seed=SEED)``), so the figures compare with ``examples/rl_search.py``'s. It prints each
player's mean payout per hand with a 95% interval, the paired difference and the time
(wall clock and this process's CPU). Needs
the extra::

    pip install -e '.[openspiel]'         # in a checkout of sheepshead (it is not on PyPI)
    python examples/openspiel_ismcts.py --hands 60 --simulations 200 --seed 1

OpenSpiel's C++ ``pyspiel.ISMCTSBot`` does not run on Python games: in open_spiel 2.0.2 it
ends the process with a segmentation fault on its first step, with OpenSpiel's own
``python_kuhn_poker`` too, so the Python bot is the one here.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts
from open_spiel.python.bots import uniform_random

from botkit.openspiel import SheepsheadState, StrategyBot, dealt_state, env_deals, resample

OPPONENT = "heuristic"


def interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval (normal)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


class SearchBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's Python IS-MCTS bot with the two calls ``evaluate_bots`` makes of every bot,
    which it lacks (OpenSpiel's base class raises): it searches afresh at every decision, so
    neither has anything to do."""

    def restart_at(self, state: Any) -> None:
        """A new hand: nothing kept from the last one."""

    def inform_action(self, state: Any, player: int, action: int) -> None:
        """Another player's action: the next search starts from the state itself."""


def ismcts_bot(game: Any, simulations: int, seed: int) -> Any:
    """OpenSpiel's Python IS-MCTS bot, seeded: its choices, rollouts and worlds."""
    bot = SearchBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
        uct_c=8.0,  # a payout's scale: a few points a hand, ±24 at most under wisconsin
        max_simulations=simulations,
        random_state=np.random.RandomState(seed + 1),
    )
    worlds = random.Random(seed + 2)
    # The bot's own resampler draws from an unseeded sampler: this one keeps a run repeatable.
    bot.set_resampler(lambda state, player: resample(state, player, worlds))
    return bot


def play(
    game: Any,
    deals: Sequence[tuple[int, int]],
    seat: int,
    make_bot: Callable[[], Any],
    seed: int,
) -> list[float]:
    """The seat's payout in each deal, ``make_bot()`` in the seat, ``heuristic`` elsewhere."""
    bot = make_bot()
    others = {s: StrategyBot(OPPONENT, seed=seed * 10 + s) for s in range(5) if s != seat}
    bots = [bot if s == seat else others[s] for s in range(5)]
    payouts = []
    for deal_seed, dealer in deals:
        state: SheepsheadState = dealt_state(game, deal_seed, dealer)
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
        payouts.append(float(returns[seat]))
    return payouts


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Play ``--hands`` deals with IS-MCTS and with a random bot in ``--seat``; print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60, help="deals to play (default 60)")
    parser.add_argument(
        "--simulations", type=int, default=200, help="IS-MCTS simulations a decision (200)"
    )
    parser.add_argument("--seat", type=int, default=0, help="the searching seat (0-4)")
    parser.add_argument("--rules", default="wisconsin", help="rules preset (wisconsin)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices (1)")
    args = parser.parse_args(argv)
    game = pyspiel.load_game("python_sheepshead", {"rules": args.rules})
    deals = env_deals(args.seed, args.hands)
    start, cpu = time.perf_counter(), time.process_time()
    searched = play(
        game, deals, args.seat, lambda: ismcts_bot(game, args.simulations, args.seed), args.seed
    )
    search_time, search_cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    randomly = play(
        game,
        deals,
        args.seat,
        lambda: uniform_random.UniformRandomBot(args.seat, np.random.RandomState(args.seed)),
        args.seed,
    )
    random_time = time.perf_counter() - start
    diff = [a - b for a, b in zip(searched, randomly, strict=True)]
    (s_mean, s_ci), (r_mean, r_ci), (d_mean, d_ci) = map(interval, (searched, randomly, diff))
    print(f"{args.hands} deals, seat {args.seat} against four {OPPONENT} bots, the same deals:")
    print(
        f"IS-MCTS ({args.simulations} simulations):  {s_mean:+.2f} ± {s_ci:.2f} per hand "
        f"({search_time:.1f} s, {search_cpu:.1f} s of CPU)"
    )
    print(
        f"uniform random:                {r_mean:+.2f} ± {r_ci:.2f} per hand ({random_time:.1f} s)"
    )
    print(f"difference (paired):           {d_mean:+.2f} ± {d_ci:.2f} per hand (95%)")
    return {"ismcts": s_mean, "random": r_mean, "difference": d_mean, "seconds": search_time}


if __name__ == "__main__":
    main()
