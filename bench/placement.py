"""How well each way of sampling deals puts the unseen cards in the hands that hold them.

Run by hand, niced::

    nice -n 10 .venv/bin/python bench/placement.py --hands 60 --table heuristic

Plays ``--hands`` hands (the rule variants of the tests, one seed a hand) with ``heuristic`` at
every seat (``--table heuristic``, where the rollouts' model of the other seats is exact) or
with two ``search`` seats among three heuristics (``--table mixed``, as at a tournament's
tables, where it is not). At every card decision with a choice after the first trick, each
seat's decisions in order (so a Markov chain is carried from one to the next as the search
carries it), every sampler draws ``--draws`` deals, and the unseen cards each deal puts in the
hand that really holds them are counted. Prints, per sampler, the share of the other seats'
cards in the right hands (tricks 2-3 and 4-6 apart), for a seat that does not know who holds
the called card the share of deals that give it to the seat that does, and the CPU time a
decision's draws took:

- ``rejection``: the search's default (:meth:`engine.bots.sampling.Sampler.sim`, voids and
  the bidding, no play inference);
- ``rejection:0.25``, ``rejection:0.25:weighted``: with ``play_mismatch=0.25`` (20 draws, the
  stretch or the weighted fallback);
- ``mcmc:M``: :class:`engine.bots.sampling.Chain` with ``chain_mismatch`` M, burn-in and
  thinning as the search's defaults, carried from the seat's previous decision;
- ``chains:M``: :class:`engine.bots.sampling.Chains` (``sampler=chains``) with ``chain_mismatch``
  M: eight independent chains a decision, fresh from the default's deals, taken in turn.

Issue 30, docs/bots.md ("search", "Sampling by a Markov chain").
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first

put_project_first(__file__)

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402


def decisions(hands: int, table: str) -> list[list[object]]:
    """Per seat and hand, the hands (engine copies) at that seat's card decisions in order."""
    from engine.actions import action_from_dict
    from engine.bots.heuristic import HeuristicStrategy
    from engine.bots.search import SearchStrategy
    from engine.hand import Hand
    from engine.view import seat_view
    from tests.bots.helpers import VARIANTS

    heuristic = HeuristicStrategy()
    search = SearchStrategy(seed=1)
    out: list[list[object]] = []
    for n in range(hands):
        hand = Hand.from_seed(VARIANTS[n % len(VARIANTS)], n % 5, 500 + n)
        searchers = {n % 5, (n + 2) % 5} if table == "mixed" else set()
        per: dict[int, list[object]] = {}
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            if hand.phase == "play" and hand.tricks and len(view["legal"]) > 1:
                per.setdefault(seat, []).append(hand.copy())
            bot = search if seat in searchers else heuristic
            hand.apply(action_from_dict(bot.choose(view, view["legal"]), seat))
        out += list(per.values())
    return out


def measure(
    sequences: list[list[object]], sampler: str, draws: int
) -> tuple[float, float, float, float]:
    """The share of the other seats' cards in the right hands (all, tricks 2-3, 4-6) and the
    CPU milliseconds a decision's draws took, for ``sampler`` (see the module)."""
    from engine.bots.knowledge import read_view
    from engine.bots.rollout import bidding_weight
    from engine.bots.sampling import DEFAULT_BURN, DEFAULT_CARRY_BURN, Chain, Chains, Sampler
    from engine.bots.sim import Sim
    from engine.hand import Hand
    from engine.view import seat_view

    kind, *rest = sampler.split(":")
    mismatch = float(rest[0]) if rest else 1.0
    fallback = rest[1] if len(rest) > 1 else "stretch"
    rng = random.Random(5)
    right = [0, 0]
    total = [0, 0]
    count = 0
    named = [0, 0]
    start = time.process_time()
    for sequence in sequences:
        chain: Chain | None = None
        for hand in sequence:
            assert isinstance(hand, Hand) and hand.turn is not None
            k = read_view(seat_view(hand, hand.turn))
            s = Sampler(k)
            draw: Callable[[], Sim]
            if kind == "mcmc":
                carried = chain.carried(s, rng) if chain is not None else None
                burn = DEFAULT_CARRY_BURN if carried is not None else DEFAULT_BURN
                chain = Chain(s, rng, bidding_weight, mismatch, start=carried, burn=burn)
                draw = chain.draw
            elif kind == "chains":
                draw = Chains(s, rng, bidding_weight, mismatch).draw
            else:

                def draw(s: Sampler = s) -> Sim:
                    return s.sim(rng, bidding_weight, 20, mismatch, 1.0, fallback)

            late = int(len(hand.tricks) >= 3)
            called = k.called
            guess = called is not None and k.partner is None and hand.partner is not None
            for _ in range(draws):
                sim = draw()
                if guess and called is not None and hand.partner is not None:
                    named[0] += sim.state.hands[hand.partner] >> called & 1
                    named[1] += 1
                for o in range(5):
                    if o != k.seat:
                        right[late] += (sim.state.hands[o] & hand.hands[o]).bit_count()
                        total[late] += hand.hands[o].bit_count()
            count += 1
    spent = (time.process_time() - start) / max(1, count) * 1000
    partner = named[0] / max(1, named[1])
    return sum(right) / sum(total), right[0] / total[0], right[1] / total[1], partner, spent


def main() -> None:
    """Parse the options, sample, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--table", choices=("heuristic", "mixed"), default="heuristic")
    parser.add_argument("--draws", type=int, default=8, help="deals drawn a decision")
    parser.add_argument(
        "--samplers",
        default="rejection,rejection:0.25,rejection:0.25:weighted,mcmc:0.25,mcmc:0.03,chains:0.03",
    )
    args = parser.parse_args()
    sequences = decisions(args.hands, args.table)
    print(
        f"{args.table} table, {args.hands} hands: {sum(map(len, sequences))} card decisions, "
        f"{args.draws} deals each"
    )
    print(f"{'sampler':26} {'right':>7} {'tr 2-3':>7} {'tr 4-6':>7} {'partner':>7} {'ms/dec':>7}")
    for sampler in args.samplers.split(","):
        share, early, late, partner, ms = measure(sequences, sampler, args.draws)
        print(
            f"{sampler:26} {share:7.3f} {early:7.3f} {late:7.3f} {partner:7.3f} {ms:7.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
