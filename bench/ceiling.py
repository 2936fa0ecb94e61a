"""The ceiling of the search's card play: its scoring on the true deal, and where an edge lies.

Run by hand, niced::

    nice -n 10 .venv/bin/python bench/ceiling.py --strategies cheat,heuristic \\
        --deals 300 --seed 2026 --preset wisconsin

``cheat`` is the ``search`` strategy with every card decision scored on the TRUE deal instead
of sampled ones: the same :func:`engine.bots.search.score_candidates` (heuristic rollouts, the
model endgame from ``exact_tricks`` left), one deal a decision (the rollouts are deterministic),
the same pick, bury and call. It sees every hand, so it exists only here and is never
registered. Against ``heuristic`` its edge bounds what a determinized search with this model of
the other seats (each played as the heuristic) can gain by card play: the search's own edge is
the same scoring over deals guessed from the view. ``cheat:exact_tricks=6`` searches all of its
own lines against the modelled others: the best reply to that model on the true deal. Options
after ``cheat:`` are the search's (``search:OPT`` anywhere a strategy is named).

Any other strategy spec of ``sheepshead tournament`` works too (``search,heuristic``): the deals,
seatings and seeds are the tournament's (same seed, same figures), played here because the
cheat must see the engine's hand, which a tournament's strategies never do.

It prints each pair's difference per seat-hand with its 95% interval (clustered by deal, the
tournament's statistics: ``botkit.tournament.stats``), and the first two strategies'
difference split by the first one's role in the hand (picker, partner, defender, leaster):
each seat the first strategy plays is compared with the same seat of the seating where the two
are swapped (:func:`swapped_outcomes`), the difference credited half to the role the seat
played in each of the two plays (:func:`role_credit`), and the roles' shares add up to the
difference. With a ``cheat`` it also prints
how often the rollouts' model of a heuristic seat (:meth:`engine.bots.sim.Sim.situation` with
:func:`engine.bots.policy.choose_play`) plays the card that seat really played.

With ``--regret`` every card decision of the strategies other than the cheat is also scored on
the true deal as the cheat scores it, and the points the chosen card lost to the cheat's best
are summed by the seat's role and the trick: the heuristic's loss in a class of decisions is
what the cheat gains there (one decision at a time), the search's what it leaves of that.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first

put_project_first(__file__)

import argparse  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

from botkit.tournament.play import deal_seed, seat_assignments  # noqa: E402
from botkit.tournament.stats import interval  # noqa: E402
from client.strategy_spec import parse_spec, strategy_factory  # noqa: E402
from engine.actions import action_from_dict  # noqa: E402
from engine.bots.base import Strategy  # noqa: E402
from engine.bots.knowledge import Knowledge  # noqa: E402
from engine.bots.policy import bits, choose_play  # noqa: E402
from engine.bots.search import DEFAULT_EXACT_TRICKS, SearchStrategy, score_candidates  # noqa: E402
from engine.bots.sim import Sim  # noqa: E402
from engine.cards import parse_card  # noqa: E402
from engine.hand import Deal, Hand  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from engine.scoring import HandResult  # noqa: E402
from engine.view import seat_view  # noqa: E402

ROLES = ("picker", "partner", "defender", "leaster", "other")
"""A seat's part in a hand; ``other`` is a doubler (nobody picked, no leaster)."""


class CheatStrategy(SearchStrategy):
    """The search scoring its cards on the true deal, :attr:`truth` (benchmark only)."""

    name = "cheat"

    def __init__(self, **options: Any) -> None:
        # One deal is enough: on the true deal the rollouts and the endgame are deterministic.
        options.setdefault("samples", 1)
        super().__init__(**options)
        self.truth: Hand | None = None
        """The engine's hand, set by the loop before each decision."""

    def _play_sampler(self, k: Knowledge) -> Callable[[], Sim]:
        truth = self.truth
        assert truth is not None, "the loop sets the true hand before asking"
        return lambda: Sim.from_hand(truth)


def factory(spec: str) -> Callable[[int | None], Strategy]:
    """A builder of ``spec`` by seed: ``cheat[:OPT=V...]`` or any tournament spec."""
    target, options = parse_spec(spec)
    if target == "cheat":
        CheatStrategy(**options)  # bad options fail now, not in the middle of a deal
        return lambda seed: CheatStrategy(seed=seed, **options)
    return strategy_factory(spec)


def role(result: HandResult, seat: int) -> str:
    """``seat``'s part in the finished hand (one of :data:`ROLES`)."""
    if result.leaster:
        return "leaster"
    if result.picker is None:
        return "other"
    if seat == result.picker:
        return "picker"
    return "partner" if seat == result.partner else "defender"


class Totals:
    """What the deals add up to: per-deal means, per-deal role shares, model agreement."""

    def __init__(self, k: int) -> None:
        self.means: list[list[float]] = [[] for _ in range(k)]
        self.shares: dict[str, list[float]] = {r: [] for r in ROLES}
        """Per deal, the first strategy's difference from the second credited to each role."""
        self.counts: dict[str, int] = dict.fromkeys(ROLES, 0)
        """Seat-hands of the first strategy in each role."""
        self.agree = 0
        self.asked = 0
        self.regret: dict[tuple[int, str, int], list[float]] = {}
        """Per (strategy, role, trick): [card decisions with a choice, of them not the best
        card on the true deal, points lost to the best card]."""


def sim_role(sim: Sim, seat: int) -> str:
    """``seat``'s part in the hand being played (the partner is the holder of the called card)."""
    if sim.leaster:
        return "leaster"
    if seat == sim.picker:
        return "picker"
    return "partner" if seat == sim.partner else "defender"


def judge(hand: Hand, seat: int, chosen: str, totals: Totals, who: int) -> None:
    """Score every legal card of ``seat`` as the cheat does (on the true deal, the others
    played as the heuristic, the model endgame from the search's ``exact_tricks``) and add how
    much ``chosen`` lost to the best to ``totals.regret``."""
    legal = hand.legal_play_mask()
    if not legal & (legal - 1):
        return
    sim = Sim.from_hand(hand)
    cards = bits(legal)
    exact = 6 - sim.state.ntricks <= DEFAULT_EXACT_TRICKS
    scores = score_candidates(sim, seat, cards, exact, None, True)
    lost = max(scores) - scores[cards.index(parse_card(chosen))]
    key = (who, sim_role(sim, seat), sim.state.ntricks + 1)
    entry = totals.regret.setdefault(key, [0, 0, 0.0])
    entry[0] += 1
    # Values carry a thousandth of a point per card point: below a tenth, the same payout.
    entry[1] += lost >= 0.1
    entry[2] += lost


def play_deal(
    number: int,
    seed: int,
    rules: RuleSet,
    builders: list[Callable[[int | None], Strategy]],
    totals: Totals,
    regret: bool = False,
) -> None:
    """Play every seating of one deal as the tournament does, adding to ``totals``."""
    k = len(builders)
    cards_seed = deal_seed(seed, number)
    dealer = number % 5
    deal = Deal.from_seed(dealer, cards_seed)
    plays = seat_assignments(k)
    sums = [0] * k
    outcomes: list[tuple[HandResult, list[int]]] = []
    for play, seats in enumerate(plays):
        # The tournament's seeds (botkit.tournament.play.play_deal): the same bots' draws.
        bots = [builders[seats[s]](cards_seed % (1 << 62) + 7919 * play + s) for s in range(5)]
        cheats = any(isinstance(b, CheatStrategy) for b in bots)
        hand = Hand(rules, dealer, deal)
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            bot = bots[seat]
            if isinstance(bot, CheatStrategy):
                bot.truth = hand
            view = seat_view(hand, seat)
            action = bot.choose(view, view["legal"])
            if regret and action.get("action") == "play" and not isinstance(bot, CheatStrategy):
                judge(hand, seat, action["card"], totals, seats[seat])
            if cheats and not isinstance(bot, CheatStrategy) and action.get("action") == "play":
                legal = hand.legal_play_mask()
                if legal & (legal - 1):
                    model = choose_play(Sim.from_hand(hand).situation(legal))
                    totals.asked += 1
                    totals.agree += model == parse_card(action["card"])
            hand.apply(action_from_dict(action, seat))
        result = hand.result()
        assert result.payouts is not None
        for s in range(5):
            sums[seats[s]] += result.payouts[s]
        outcomes.append((result, seats))
    per = 5 * len(plays) // k  # seat-hands of each strategy in the deal
    for i in range(k):
        totals.means[i].append(sums[i] / per)
    pairs = zip(outcomes, swapped_outcomes(outcomes), strict=True)
    credit = role_credit([(mine, seats, theirs) for (mine, seats), (theirs, _) in pairs])
    for mine, seats in outcomes:
        for s in range(5):
            if seats[s] == 0:
                totals.counts[role(mine, s)] += 1
    for r in ROLES:
        totals.shares[r].append(credit[r] / per)


def role_credit(pairs: list[tuple[HandResult, list[int], HandResult]]) -> dict[str, float]:
    """The first strategy's difference at each of its seats (its payout in a play less the
    seat's in the play with the two swapped), by role: half to the role the seat played in
    each of the two plays, the whole where both are the same.

    All of it went to the role of the first strategy's play: where a random choice (a
    search's call, its draws) gives the seat another role in the swapped play, a seat that
    was the partner there (its side mostly wins) was compared with one that was mostly a
    defender, and the reverse, so two searches that play alike were credited about +0.03 as
    the partner and −0.04 as defenders (the total right). Half to each role is even between
    the two plays, so alike bots get 0 in every role on average; the roles still add up to
    the difference.
    """
    credit = dict.fromkeys(ROLES, 0.0)
    for mine, seats, theirs in pairs:
        assert mine.payouts is not None and theirs.payouts is not None
        for s in range(5):
            if seats[s] != 0:
                continue
            difference = mine.payouts[s] - theirs.payouts[s]
            credit[role(mine, s)] += difference / 2
            credit[role(theirs, s)] += difference / 2
    return credit


def swapped_outcomes(
    outcomes: list[tuple[HandResult, list[int]]],
) -> list[tuple[HandResult, list[int]]]:
    """For each play of a deal, the play its first strategy's seats are compared with.

    The seating with the first two strategies swapped where the deal has it (two strategies:
    the other label shift of the same rotation; three: every permutation is played), so two
    bots that play alike are credited exactly 0 in every role. Four and five strategies lack
    it: there, the neighbouring label shift of the same rotation that gives the second
    strategy every seat of the first (the next shift among the ``5k`` shifted rotations, the
    one before among their reflections, where the labels run the other way).
    """
    k = 1 + max(max(seats) for _, seats in outcomes)
    index = {tuple(seats): i for i, (_, seats) in enumerate(outcomes)}
    found = []
    for i, (_, seats) in enumerate(outcomes):
        j = index.get(tuple({0: 1, 1: 0}.get(label, label) for label in seats))
        if j is None:
            group, rest = divmod(i, 5 * k)
            step = 5 if group == 0 else -5
            j = group * 5 * k + (rest + step) % (5 * k)
        found.append(outcomes[j])
    return found


def show(low: float, high: float) -> str:
    """An interval as ``[+a, +b]``."""
    return f"[{low:+.3f}, {high:+.3f}]"


def report(specs: list[str], totals: Totals, seconds: float) -> None:
    """Print the figures."""
    deals = len(totals.means[0])
    print(f"{deals} deals in {seconds:.0f} s")
    for i, spec in enumerate(specs):
        mean, low, high = interval(totals.means[i])
        print(f"  {spec}: {mean:+.3f} {show(low, high)} per seat-hand")
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            diffs = [a - b for a, b in zip(totals.means[i], totals.means[j], strict=True)]
            mean, low, high = interval(diffs)
            print(f"{specs[i]} - {specs[j]}: {mean:+.3f}, 95% CI {show(low, high)}")
    seat_hands = sum(totals.counts.values())
    print(f"{specs[0]} - {specs[1]} by the role of {specs[0]}'s seat (share of its seat-hands;")
    print("  credit to the difference with its 95% CI; mean difference a seat-hand in that role):")
    for r in ROLES:
        n = totals.counts[r]
        if not n:
            continue
        mean, low, high = interval(totals.shares[r])
        per_hand = mean * seat_hands / n
        print(
            f"  {r:9s} {n / seat_hands:6.1%}  {mean:+.3f} {show(low, high)}"
            f"  {per_hand:+.3f} a seat-hand"
        )
    if totals.asked:
        print(
            f"rollout model = the real card: {totals.agree / totals.asked:.1%} of "
            f"{totals.asked} card decisions with a choice at the cheat's tables"
        )
    if totals.regret:
        show_regret(specs, totals, seat_hands)


def show_regret(specs: list[str], totals: Totals, seat_hands: int) -> None:
    """Print the points each strategy's cards lost to the best card on the true deal."""
    print("card decisions with a choice, by role and trick: decisions, share not the cheat's")
    print("  best card, points lost to it a seat-hand (each strategy's own seat-hands)")
    for who, spec in enumerate(specs):
        rows = {key[1:]: v for key, v in totals.regret.items() if key[0] == who}
        if not rows:
            continue
        n = sum(v[0] for v in rows.values())
        lost = sum(v[2] for v in rows.values())
        print(f"  {spec}: {n} decisions, {lost / seat_hands:.3f} a seat-hand lost")
        for r in ROLES:
            parts = []
            for trick in range(1, 7):
                v = rows.get((r, trick))
                if v:
                    parts.append(f"t{trick} {v[0]} {v[1] / v[0]:.0%} {v[2] / seat_hands:.3f}")
            if parts:
                total = sum(v[2] for key, v in rows.items() if key[0] == r)
                print(f"    {r:9s} {total / seat_hands:.3f}: " + "; ".join(parts))


def main() -> None:
    """Parse arguments, play the deals, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategies", default="cheat,heuristic", help="comma-separated specs")
    parser.add_argument("--deals", type=int, default=5, help="deals (default 5)")
    parser.add_argument("--seed", type=int, default=2026, help="tournament seed (default 2026)")
    parser.add_argument("--preset", default="wisconsin", help="rules preset (default wisconsin)")
    parser.add_argument("--every", type=int, default=50, help="deals between progress lines")
    parser.add_argument(
        "--regret",
        action="store_true",
        help="score every card decision of the other strategies on the true deal as the cheat "
        "does, and print the points lost to its best card by role and trick",
    )
    args = parser.parse_args()
    specs = [s.strip() for s in args.strategies.split(",") if s.strip()]
    if len(specs) < 2:
        parser.error("at least two strategies")
    rules = RuleSet.from_preset(args.preset)
    builders = [factory(s) for s in specs]
    print(f"{' vs '.join(specs)}: {args.deals} deals, seed {args.seed}, rules {args.preset}")
    totals = Totals(len(specs))
    started = time.monotonic()
    for n in range(args.deals):
        play_deal(n, args.seed, rules, builders, totals, args.regret)
        if (n + 1) % args.every == 0 and n + 1 < args.deals:
            elapsed = time.monotonic() - started
            print(f"  ... {n + 1} deals, {elapsed / 60:.1f} min", file=sys.stderr, flush=True)
    report(specs, totals, time.monotonic() - started)


if __name__ == "__main__":
    main()
