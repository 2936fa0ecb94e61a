"""``search`` (level: hard): determinized Monte Carlo over the unseen cards, exact near the end.

For a card to play, the strategy deals the cards it has not seen at random, consistently with
everything public (:mod:`engine.bots.sampling`), and for every such deal scores each legal card:

- with five or more tricks left, by playing the hand out from that card with the heuristic
  policy for every seat (:meth:`engine.bots.sim.Sim.rollout`);
- with ``exact_tricks`` (default 4) or fewer left, exactly: by default (``model_endgame``) the
  best line of this seat's own cards with every other seat playing the heuristic, as in the
  rollouts (:func:`solve_model`); with ``model_endgame=False``, by alpha-beta search over the
  remaining cards with the two sides maximizing and minimizing this seat's payout (in a leaster,
  where everyone plays for themselves, all others are assumed to play against this seat).

The score is the seat's payout as the engine scores the hand, plus a tie-break of a thousandth of
a point per card point. The card with the best total over all deals is played. The budget is the
number of deals, ``samples``. A caller that also wants a time bound (the server, ``sheepshead
bot``) injects ``clock``, a function returning seconds, and ``think_time``: each decision then
takes no new deal once 40% of ``think_time`` has passed since it began, stops an exact search in
progress at 80%, and decides with what it has (the engine itself never reads a clock,
and a tournament, passing no clock, stays count-based). Picking, burying and calling use the
heuristic, with a rollout check of close choices (``setup_samples``).

>>> from engine.actions import action_from_dict
>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=5)
>>> bot = SearchStrategy(seed=1, samples=4)
>>> while not hand.is_over:
...     view = seat_view(hand, hand.turn)
...     hand.apply(action_from_dict(bot.choose(view, view["legal"]), hand.turn))
>>> sum(hand.result().payouts or [])
0
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from engine.actions import action_from_dict
from engine.bots.base import ActionMap, View, register
from engine.bots.heuristic import decide, decide_pick, mask_of, play_index
from engine.bots.knowledge import Knowledge, read_view
from engine.bots.policy import bits, bury_score, choose_play, hand_strength
from engine.bots.rollout import UNLIKELY, bidding_weight, finish
from engine.bots.sampling import (
    DEFAULT_BURN,
    DEFAULT_CARRY_BURN,
    DEFAULT_CHAIN_COUNT,
    DEFAULT_THIN,
    Chain,
    Chains,
    Sampler,
    SamplingError,
    Weigher,
)
from engine.bots.sim import Sim
from engine.bots.style import TUNED
from engine.cards import FAIL, POINTS, POWER, TRUMP, Card, Mask, parse_card
from engine.hand import Hand
from engine.tricks import legal_cards, trick_points, trick_winner

DEFAULT_SAMPLES: Final = 40
"""Deals per decision by default: the slowest decision stays well under a second on one core."""

DEFAULT_NODE_BUDGET: Final = 100_000
"""Positions the exact endgame search may visit per decision before it stops taking deals."""

MIN_EXACT_SAMPLES: Final = 8
"""The fewest deals an exact decision uses unless it reaches twice its node budget."""

DEFAULT_SETUP_SAMPLES: Final = 48
"""Deals on which each pick / bury / call choice is rolled out."""

SETUP_MARGIN: Final = 0.05
"""Points per hand a rolled-out pick, bury or call must gain to overrule the heuristic."""

MIN_DECIDED_SAMPLES: Final = 10
"""Deals before a card decision may stop early because one card is clearly best."""

DEFAULT_DECIDE_SHARE: Final = 0.25
"""Share of ``samples`` a card decision takes before it may stop early (at least
:data:`MIN_DECIDED_SAMPLES`)."""

DECIDED_SIGMAS: Final = 3.0
"""How many standard errors ahead of every other card the leader must be to stop early."""

DEFAULT_PICK_ZONE: Final = 0.0
"""Hands whose strength is this close to the heuristic's picking line get their pick rolled out;
by default none: rollouts play the picker's cards with the heuristic, not the search, so they
undervalue picking (with a zone of 2 the search passed 85 of 147 hands the heuristic picks and
played three times as many leasters), while the heuristic's line is tuned by tournaments."""

DEFAULT_EXACT_TRICKS: Final = 4
"""Tricks left at which the exact search takes over from rollouts: four with the model endgame
scored +0.097 [+0.007, +0.187] a seat-hand over three against the heuristic (seed rules, 120
deals, docs/bots.md); a minimax (``model_endgame=False``) is best kept to 3, where its node
budget holds."""

DEFAULT_MODEL_ENDGAME: Final = True
"""Whether the last ``exact_tricks`` are searched over this seat's own cards with the others
playing the heuristic (:func:`solve_model`) rather than by a minimax over perfect opponents:
against the heuristic it scored +0.063 [-0.042, +0.168] a seat-hand better (wisconsin, 120
deals, docs/bots.md) and takes about a quarter of the time."""

DEFAULT_INFO_SETS: Final = False
"""Whether the model endgame chooses this seat's later cards once per information set over
all the sampled deals (:func:`solve_info_sets`) rather than in each deal as if it saw it
(:func:`solve_model`): off, it scored -0.006 [-0.111, +0.099] a seat-hand against the
per-deal choice (wisconsin, 150 deals, docs/bots.md)."""

DEFAULT_PICK_SHIFT: Final = 0.0
"""Added to the heuristic's picking line (negative: the search picks lighter hands)."""

DEFAULT_PLAY_MISMATCH: Final = 1.0
"""Weight a sampled deal keeps per card another seat played that the heuristic with its cards
would not have (:meth:`engine.bots.sampling.Sampler.sim`); by default 1, no play inference:
with :data:`engine.bots.sampling.PLAY_MISMATCH` (0.25) the deals put about 29% more cards in
the right hands, yet the search did not score better against the heuristic and took twice
the time (docs/bots.md, "search")."""

DEFAULT_DEFENDER_MISMATCH: Final = 1.0
"""The ``play_mismatch`` of a defender's card decisions only (the smaller of the two applies):
the search gains least of the true-deal ceiling as a defender, who does not know its partners.
By default 1, no inference: 0.25 scored -0.047 [-0.094, +0.001] a seat-hand against the default,
its defenders' share -0.067 [-0.092, -0.043] (seed, 300 deals, 3-way; docs/bots.md, "search",
"Issue 30: the ceiling of card play")."""

INFER_BURY_SEATS: Final = ("off", "partner", "all")
"""The values of ``infer_bury``: which seats' deals give the picker the heuristic's bury."""

DEFAULT_INFER_BURY: Final = "off"
"""Whose deals, when another seat picked, give the picker the bury the heuristic would make of
its eight cards (:class:`engine.bots.sampling.Sampler`'s ``bury``) rather than any two unseen
cards: ``"off"`` nobody's, ``"partner"`` only a seat that knows it is the picker's partner,
``"all"`` (or ``True``) every non-picker's. Random burials put a trump a deal in the bury, which
a picker hardly ever buries. Off: though the deals then hold the picker's cards where they are,
``"all"`` scored -0.009 [-0.068, +0.050] a seat-hand against the default, the defenders' share
-0.046 [-0.076, -0.016] (seed, 200 deals, 3-way; docs/bots.md, "Issue 30: the ceiling of card
play"); ``"partner"``, whose share gained under both presets, -0.045 [-0.104, +0.014] (seed)
and +0.054 [-0.020, +0.128] (wisconsin)."""

DEFAULT_PLAY_TRUST: Final = 1.0
"""With play inference (``play_mismatch`` below 1), the chance a deal's weight gives each
other seat of playing as the heuristic (:meth:`engine.bots.sampling.Sampler.sim`'s ``trust``):
below 1, a seat's cards weigh a deal at most down to ``1 - play_trust``, so a seat that plays
otherwise (a search) cannot push the real deal out. At 0.5 it placed the cards worse than
``play_fallback=weighted`` (the search seats mostly agree with the heuristic, and those cards
are worth reading); not screened, so 1."""

PLAY_FALLBACKS: Final = ("stretch", "weighted")
"""The values of ``play_fallback``."""

DEFAULT_PLAY_FALLBACK: Final = "stretch"
"""With play inference, the deal used when none of the ``tries`` draws was kept: ``stretch``
the one that fitted the longest stretch of play before a miss, ``weighted`` one of them drawn
in proportion to its whole weight (every card replayed). At tournament tables, where the other
search seats play otherwise than the heuristic, the stretch fallback served 42-78% of the deals;
``weighted`` placed the cards better (a defender's deals named the true partner 68% of the time
late in the hand under ``seed``, against 52%) yet scored -0.034 [-0.116, +0.047] a seat-hand
against the default (wisconsin, 200 deals, 3-way; docs/bots.md, "Issue 30: why play inference
placed the cards better"), so it stays off."""

SAMPLERS: Final = ("rejection", "mcmc", "chains")
"""The values of ``sampler``: how a card decision draws its deals."""

DEFAULT_SAMPLER: Final = "rejection"
"""How a card decision draws its deals: ``rejection``, fresh deals kept with their weight
(:meth:`engine.bots.sampling.Sampler.sim`, with ``play_mismatch`` and its fallbacks), or
``mcmc``, a Markov chain over deals (:class:`engine.bots.sampling.Chain`, weighted by the bidding
and by ``chain_mismatch``), carried on from the seat's previous card decision of the hand.
Rejection: the chain placed 27% more unseen cards in the right hands than the default, yet
scored -0.064 [-0.129, +0.000] a seat-hand against it (wisconsin, 300 deals) and -0.107
[-0.171, -0.043] (seed, 200 deals), the defenders' loss; without the play weight
(``chain_mismatch=1``, the default's target) still -0.072 [-0.137, -0.007] (seed): a chain's
successive deals are alike, fewer independent worlds (docs/bots.md, "sampling by a Markov
chain"). ``chains``: ``chain_count`` independent chains, fresh each decision, taken in turn
(:class:`engine.bots.sampling.Chains`): -0.045 [-0.133, +0.043] a seat-hand against the
default (wisconsin, 150 deals; docs/bots.md, "independent chains")."""

DEFAULT_CHAIN_MISMATCH: Final = 0.03
"""With ``sampler=mcmc``, the weight a deal keeps per card another seat played that the
heuristic with its cards would not have (per seat ``play_trust * chain_mismatch**misses +
1 - play_trust``): near 0, the chain keeps to deals in which heuristic seats played as they did
(a chain, unlike rejection, finds those late in the hand too)."""

DEFAULT_PICK_WEIGHT: Final = UNLIKELY
"""The weight a sampled deal keeps when its picker is one the heuristic would not have picked
with (:func:`engine.bots.rollout.bidding_weight`'s ``pick_weight``): 0.15 leaves a defender's
deals with 3.42 trumps in the picker's eight where it holds 3.70, 0.03 with 3.58, yet 0.03 scored
+0.003 [-0.066, +0.072] a seat-hand against 0.15 (wisconsin, 150 deals, both orders; docs/bots.md,
issue 30)."""

DEFAULT_DISTINCT_STOP: Final = False
"""Whether the early stop (:func:`decided`) judges a card decision on its distinct deals only,
each once: a deal drawn again (late in a hand, or under a sharp weight, a fifth or more of the
draws) repeats its values and so shrinks the standard error the stop reads, stopping on fewer
worlds than it counts. The choice itself still sums every deal drawn. Off: with the default
sampler it changed no card over 150 wisconsin deals (repeats are rare before the last tricks);
with ``sampler=chains`` it scored -0.007 [-0.097, +0.083] against the default (docs/bots.md)."""

DEFAULT_PLAY_MARGIN: Final = 0.0
"""Points per hand a card must gain over the heuristic's card, on average over the deals, to be
played instead of it."""

DEFAULT_DEFENDER_MARGIN: Final = 0.0
"""The ``play_margin`` of a defender's card decisions only (the larger of the two applies): as a
defender the search takes 17% (wisconsin) and -5% (seed) of what seeing the cards would give,
though its chosen cards lose less on the true deal than the heuristic's (issue 30): a
defender's departures from the heuristic, judged on deals that do not know its partners, may be
mostly noise. Off: 0.2 scored -0.012 [-0.084, +0.060] a seat-hand against 0 (wisconsin, 150
deals, both orders; docs/bots.md, issue 30)."""

DEFAULT_THINK_TIME: Final = 0.5
"""Seconds a decision may take when the strategy is given a clock (``ServerConfig`` sets it)."""

NEW_DEAL_SHARE: Final = 0.4
"""Share of ``think_time`` after which a decision takes no new deal (the rest is for the deal
under way): at the server's 0.5 s, 200 ms, which keeps the 99th percentile of decision times
under 300 ms on a busy machine (``bench/bots.py``; at 0.5 it came to 289 ms)."""

STOP_SHARE: Final = 0.8
"""Share of ``think_time`` at which even an exact search in progress stops: the slowest
decision stays under ``think_time`` with room for a machine that is slow to give the CPU back."""

BIDDING_TRIES: Final = 20
"""Fresh deals drawn, at most, while looking for one that fits the bidding."""

_INF: Final = float("inf")


def _class_orders(jack_order: str) -> tuple[tuple[Mask, tuple[Card, ...]], ...]:
    power = POWER[jack_order]
    classes = (TRUMP, FAIL[0], FAIL[1], FAIL[2])
    return tuple((cls, tuple(sorted(bits(cls), key=lambda c: -power[c]))) for cls in classes)


_CLASS_ORDERS: Final = {order: _class_orders(order) for order in ("seed", "clubs-first")}


def distinct_moves(sim: Sim, legal: Mask, others: Mask | None = None) -> list[Card]:
    """The legal cards minus duplicates, strongest first.

    Of two cards of one class and equal points with no card between them still in play
    elsewhere (other hands, the trick), only one needs searching. ``others``, when given, is
    the cards in the other seats' hands (by default: in this deal; the info-set endgame,
    :func:`_own_turn`, passes :func:`other_hands` of all the deals it decides together, so that
    the same cards stand for the others in every deal).
    """
    if not legal & (legal - 1):
        return [(legal & -legal).bit_length() - 1]
    hands = sim.state.hands
    mover = sim.state.turn
    if others is None:
        others = other_hands((sim,), mover)
    for c in sim.state.current:
        others |= 1 << c
    blockers = others | (hands[mover] & ~legal) | sim.special_mask()
    special = sim.special_mask()
    out = []
    for cls, order in _CLASS_ORDERS[sim.rules.jack_order]:
        if not legal & cls:
            continue
        open_run = False
        run_points = -1
        for c in order:
            bit = 1 << c
            if legal & bit and not bit & special:
                if not open_run or POINTS[c] != run_points:
                    out.append(c)
                    open_run = True
                    run_points = POINTS[c]
            elif blockers & bit:
                open_run = False
                if legal & bit:
                    out.append(c)
    return out


def other_hands(worlds: Iterable[Sim], seat: int) -> Mask:
    """The cards in the hands of every seat but ``seat``, over all of ``worlds``."""
    others = 0
    for sim in worlds:
        hands = sim.state.hands
        for s in range(5):
            if s != seat:
                others |= hands[s]
    return others


class NodeBudgetExceeded(Exception):
    """An exact search visited more positions than its :class:`NodeCount` allows, or ran out of
    time."""


CLOCK_EVERY: Final = 256
"""Positions an exact search visits between two looks at its time limit (about 10 ms at the
25,000 positions a second the search visits on a busy machine)."""


class NodeCount:
    """Counts the positions an exact search visits.

    Past ``limit`` positions, or once ``out_of_time()`` (asked every :data:`CLOCK_EVERY`
    positions) returns True, the search raises :class:`NodeBudgetExceeded`.
    """

    __slots__ = ("limit", "next_look", "nodes", "out_of_time")

    def __init__(
        self, limit: float = float("inf"), out_of_time: Callable[[], bool] | None = None
    ) -> None:
        self.nodes = 0
        self.limit = limit
        self.out_of_time = out_of_time
        self.next_look = CLOCK_EVERY if out_of_time is not None else _INF

    def visit(self) -> None:
        """Count one position; raise :class:`NodeBudgetExceeded` past the budget."""
        self.nodes += 1
        if self.nodes > self.limit:
            raise NodeBudgetExceeded
        if self.nodes >= self.next_look:
            self.next_look += CLOCK_EVERY
            assert self.out_of_time is not None
            if self.out_of_time():
                raise NodeBudgetExceeded


def solve(
    sim: Sim,
    seat: int,
    team: int,
    alpha: float = -_INF,
    beta: float = _INF,
    count: NodeCount | None = None,
) -> float:
    """Exact payout of ``seat`` with both sides playing perfectly from here (alpha-beta).

    ``team`` is the seat bit set playing for ``seat`` (the others play against it): the
    picker's side as a team, or in a leaster ``seat`` alone against all (a paranoid search).
    """
    if count is not None:
        count.visit()
    if sim.state.ntricks == 6:
        return sim.payouts()[seat]
    if not sim.state.current and not sim.leaster:
        # Both sides have a trick: only the point thresholds matter, and the payout is
        # monotone in the side's points, so the two extremes bound the value.
        side, tricks, left = sim.side_totals()
        if 0 < tricks < sim.state.ntricks:
            low = sim.picked_payout(seat, side, tricks)
            high = sim.picked_payout(seat, side + left, tricks + 1)
            if low == high:
                return low
            if low > high:
                low, high = high, low
            if high <= alpha:
                return high
            if low >= beta:
                return low
    moves = distinct_moves(sim, sim.legal_mask())
    if team >> sim.state.turn & 1:
        best = -_INF
        for c in moves:
            sim.play(c)
            v = solve(sim, seat, team, alpha, beta, count)
            sim.unplay()
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best
    best = _INF
    for c in moves:
        sim.play(c)
        v = solve(sim, seat, team, alpha, beta, count)
        sim.unplay()
        if v < best:
            best = v
            if v < beta:
                beta = v
                if alpha >= beta:
                    break
    return best


def solve_model(sim: Sim, seat: int, count: NodeCount | None = None) -> float:
    """Best value (:meth:`Sim.value`) for ``seat`` over its own plays from here, every other
    seat playing the heuristic (:func:`choose_play`, with its own knowledge) in this deal.

    The other seats' play is predicted rather than assumed perfect: against seats that play
    like the rollouts this finds the line that works against them, which a minimax over
    perfect opponents (:func:`solve`) gives up for lines that only perfect play would beat.
    """
    if count is not None:
        count.visit()
    played = sim.play_others(seat)
    if sim.state.ntricks == 6:
        value = sim.value(seat)
    else:
        value = -_INF
        for c in distinct_moves(sim, sim.legal_mask()):
            sim.play(c)
            v = solve_model(sim, seat, count)
            sim.unplay()
            if v > value:
                value = v
    for _ in range(played):
        sim.unplay()
    return value


def _others_play(worlds: Sequence[Sim], seat: int, count: NodeCount | None) -> float:
    """The summed value for ``seat`` over ``worlds`` (all just after one of its cards, all
    alike to its eyes): every other seat plays the heuristic up to ``seat``'s next turn, and
    the deals are split by what ``seat`` then sees of the position (:func:`seen_key`), each
    part decided by :func:`_own_turn` on its own."""
    groups: dict[tuple[object, ...], list[Sim]] = {}
    played = []
    for sim in worlds:
        if count is not None:
            count.visit()
        played.append(sim.play_others(seat))
        groups.setdefault(seen_key(sim), []).append(sim)
    total = 0.0
    for group in groups.values():
        total += _own_turn(group, seat, count)
    for sim, n in zip(worlds, played, strict=True):
        for _ in range(n):
            sim.unplay()
    return total


def seen_key(sim: Sim) -> tuple[object, ...]:
    """What the seat to act sees of the position that its choice of card turns on: its legal
    cards; in a trick under way, who is winning it, its points and which of those cards
    would take it over; every seat's tricks and card points so far; the partner once known.

    Not which cards the others played: in deals drawn at random the heuristic's answers
    differ from deal to deal, so grouping by them leaves one deal per group, and each deal's
    later cards chosen as if it were seen (0 of 33 cards' values changed three tricks from
    the end, 1 of 40 at four, over 20 deals: docs/bots.md)."""
    t = sim.state
    if t.ntricks == 6:
        return ()
    legal = legal_cards(t)
    cur = t.current
    if cur:
        row = t.strength[cur[0]]
        i = trick_winner(cur, t.strength, t.under)
        top = row[cur[i]]
        over = 0
        for c in bits(legal):
            if row[c] > top and c != t.under:
                over |= 1 << c
        trick: tuple[int, ...] = ((t.leader + i) % 5, trick_points(cur), over)
    else:
        trick = ()
    return (legal, trick, tuple(t.taken), tuple(t.won), t.partner if t.revealed else -1)


def _own_turn(worlds: Sequence[Sim], seat: int, count: NodeCount | None) -> float:
    """The summed value for ``seat`` over ``worlds``, deals it cannot tell apart, at its turn
    (or at the end of the hand): one card for all of them, the best over their sum."""
    first = worlds[0]
    if first.state.ntricks == 6:
        return sum(sim.value(seat) for sim in worlds)
    moves = distinct_moves(first, first.legal_mask(), other_hands(worlds, seat))
    best = -_INF
    for c in moves:
        for sim in worlds:
            sim.play(c)
        v = _others_play(worlds, seat, count)
        for sim in worlds:
            sim.unplay()
        if v > best:
            best = v
    return best


def solve_info_sets(
    worlds: Sequence[Sim], seat: int, cards: Sequence[Card], count: NodeCount | None = None
) -> list[float]:
    """The summed value (:meth:`Sim.value`) for ``seat`` over ``worlds`` of playing each of
    ``cards`` now, the other seats playing the heuristic, and ``seat`` playing its later cards
    as one player who does not see the deal: at each later turn it plays one card in every
    deal that looks the same to it then (:func:`seen_key`), the card best on their sum.

    :func:`solve_model` lets ``seat`` choose its later cards in each deal as if it saw that
    deal (strategy fusion), which flatters cards that keep options open; here the later
    choices are made per information set over the sampled deals, an information set being
    the deals that agree on what ``seat`` sees of the position (not on every card played:
    the others' heuristic answers differ from deal to deal, and every set would be one deal).
    Every world must be at ``seat``'s turn at the same public moment.
    """
    values = []
    for c in cards:
        for sim in worlds:
            sim.play(c)
        values.append(_others_play(worlds, seat, count))
        for sim in worlds:
            sim.unplay()
    return values


def team_of(sim: Sim, seat: int) -> int:
    """The seat bit set on ``seat``'s side in this fully known deal."""
    if sim.leaster:
        return 1 << seat
    side = sim.side_of(seat)
    team = 0
    for s in range(5):
        if sim.side_of(s) == side:
            team |= 1 << s
    return team


def score_candidates(
    sim: Sim,
    seat: int,
    cards: Sequence[Card],
    exact: bool,
    count: NodeCount | None = None,
    model: bool = False,
) -> list[float]:
    """The value for ``seat`` of playing each of ``cards`` now in this fully known deal
    (``exact`` with ``model``: the others playing the heuristic, :func:`solve_model`)."""
    values = []
    team = team_of(sim, seat)
    for c in cards:
        if exact:
            sim.play(c)
            if model:
                values.append(solve_model(sim, seat, count))
            else:
                values.append(solve(sim, seat, team, -_INF, _INF, count))
            sim.unplay()
        else:
            branch = sim.copy()
            branch.play(c)
            branch.rollout()
            values.append(branch.value(seat))
    return values


@register("search", "hard: Monte Carlo over the unseen cards, exact endgame")
class SearchStrategy:
    """Level hard: determinized Monte Carlo card play (see the module docstring)."""

    name = "search"
    timed = True
    """Takes ``clock`` and ``think_time`` (see :func:`engine.bots.base.make_strategy`)."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        samples: int = DEFAULT_SAMPLES,
        exact_tricks: int = DEFAULT_EXACT_TRICKS,
        node_budget: int = DEFAULT_NODE_BUDGET,
        setup_samples: int = DEFAULT_SETUP_SAMPLES,
        bury_options: int = 5,
        pick_zone: float = DEFAULT_PICK_ZONE,
        pick_shift: float = DEFAULT_PICK_SHIFT,
        infer_bidding: bool = True,
        pick_weight: float = DEFAULT_PICK_WEIGHT,
        infer_bury: bool | str = DEFAULT_INFER_BURY,
        play_mismatch: float = DEFAULT_PLAY_MISMATCH,
        defender_mismatch: float = DEFAULT_DEFENDER_MISMATCH,
        play_margin: float = DEFAULT_PLAY_MARGIN,
        distinct_stop: bool = DEFAULT_DISTINCT_STOP,
        defender_margin: float = DEFAULT_DEFENDER_MARGIN,
        play_trust: float = DEFAULT_PLAY_TRUST,
        play_fallback: str = DEFAULT_PLAY_FALLBACK,
        decide_share: float = DEFAULT_DECIDE_SHARE,
        model_endgame: bool = DEFAULT_MODEL_ENDGAME,
        info_sets: bool = DEFAULT_INFO_SETS,
        sampler: str = DEFAULT_SAMPLER,
        chain_mismatch: float = DEFAULT_CHAIN_MISMATCH,
        chain_burn: int = DEFAULT_BURN,
        chain_carry_burn: int = DEFAULT_CARRY_BURN,
        chain_thin: int = DEFAULT_THIN,
        chain_carry: bool = True,
        chain_count: int = DEFAULT_CHAIN_COUNT,
        clock: Callable[[], float] | None = None,
        think_time: float = DEFAULT_THINK_TIME,
    ) -> None:
        if samples < 0:
            raise ValueError("samples must be at least 0 (0: heuristic card play)")
        if not 0 <= play_mismatch <= 1:
            raise ValueError("play_mismatch must be between 0 and 1")
        if not 0 <= defender_mismatch <= 1:
            raise ValueError("defender_mismatch must be between 0 and 1")
        if not 0 < pick_weight <= 1:
            raise ValueError("pick_weight must be more than 0 and at most 1")
        if not 0 <= play_trust <= 1:
            raise ValueError("play_trust must be between 0 and 1")
        if play_fallback not in PLAY_FALLBACKS:
            raise ValueError(f"play_fallback must be one of {', '.join(PLAY_FALLBACKS)}")
        if think_time <= 0:
            raise ValueError("think_time must be more than 0 seconds")
        if sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}")
        if not 0 < chain_mismatch <= 1:
            raise ValueError("chain_mismatch must be more than 0 and at most 1")
        if chain_burn < 0 or chain_carry_burn < 0 or chain_thin < 1:
            raise ValueError("chain_burn and chain_carry_burn must be at least 0, chain_thin 1")
        if chain_count < 1:
            raise ValueError("chain_count must be at least 1")
        self.infer_bury = infer_bury_seats(infer_bury)
        self._rng = random.Random(seed)
        self.samples = samples
        self.exact_tricks = exact_tricks
        self.node_budget = node_budget
        self.setup_samples = setup_samples
        self.bury_options = bury_options
        self.pick_zone = pick_zone
        self.pick_shift = pick_shift
        self.infer_bidding = infer_bidding
        self.pick_weight = pick_weight
        self.play_mismatch = play_mismatch
        self.defender_mismatch = defender_mismatch
        self.play_margin = play_margin
        self.distinct_stop = distinct_stop
        self.defender_margin = defender_margin
        self.play_trust = play_trust
        self.play_fallback = play_fallback
        self.decide_share = decide_share
        self.model_endgame = model_endgame
        self.info_sets = info_sets
        self.sampler = sampler
        self.chain_mismatch = chain_mismatch
        self.chain_burn = chain_burn
        self.chain_carry_burn = chain_carry_burn
        self.chain_thin = chain_thin
        self.chain_carry = chain_carry
        self.chain_count = chain_count
        self._chains: dict[int, tuple[tuple[object, ...], Chain]] = {}
        """Per seat, the chain of its last card decision and the hand it belongs to."""
        self.clock = clock
        self.think_time = think_time
        self._ends_at = _INF
        self._last_deal_at = _INF
        self.last_samples = 0
        """Deals actually evaluated for the last card decision (for benchmarks)."""
        self.rollouts = 0
        """Hands played out by rollout so far, over all decisions (for benchmarks)."""
        self.nodes = 0
        """Positions visited by the exact search so far, over all decisions (for benchmarks)."""

    def out_of_time(self) -> bool:
        """Whether the current decision has used :data:`STOP_SHARE` of its ``think_time``
        (never without a clock)."""
        return self.clock is not None and self.clock() >= self._ends_at

    def may_start_deal(self) -> bool:
        """Whether the current decision may still begin a deal: only in the first
        :data:`NEW_DEAL_SHARE` of its ``think_time``, so that the deal in progress (an exact
        search may take a while) usually ends before the limit (always without a clock)."""
        return self.clock is None or self.clock() < self._last_deal_at

    def choose(self, view: View, legal: Sequence[ActionMap]) -> ActionMap:
        """One element of ``legal``: searched for card play, heuristic otherwise."""
        if len(legal) == 1:
            return legal[0]
        if self.clock is not None:
            now = self.clock()
            self._ends_at = now + self.think_time * STOP_SHARE
            self._last_deal_at = now + self.think_time * NEW_DEAL_SHARE
        k = read_view(view)
        kind = legal[0].get("action")
        if kind == "play":
            if not self.samples:
                return legal[decide(k, legal)]
            return legal[self._play(k, legal)]
        if kind in ("pick", "pass") and self.pick_shift:
            # The search plays its cards better than the heuristic, so a hand is worth picking
            # for it a little below the heuristic's line.
            default = decide_pick(k, legal, self.pick_shift)
        else:
            default = decide(k, legal)
        if self.setup_samples <= 0 or is_blitz_offer(legal) or kind in CRACK_ROUND:
            # The crack round follows the heuristic's rules (engine.bots.stakes): a few
            # sampled rollouts are too noisy to stake a doubling on.
            return legal[default]
        candidates = list(range(len(legal)))
        if kind in ("pick", "pass"):
            # Clear-cut hands need no rollouts: only those near the heuristic's line do.
            line = TUNED.pick_line(len(k.passes), k.rules.double_on_the_bump) + self.pick_shift
            if abs(hand_strength(k.hand) - line) >= self.pick_zone:
                return legal[default]
        if kind == "bury":
            # Rank the burials by the heuristic and roll out only the best few.
            options = [(parse_card(a["cards"][0]), parse_card(a["cards"][1])) for a in legal]
            jd_mode = k.jd_mode
            scores = [bury_score(k.hand, (1 << x) | (1 << y), jd_mode) for x, y in options]
            candidates.sort(key=lambda i: -scores[i])
            candidates = candidates[: self.bury_options]
        elif kind in ("call", "alone", "unknown"):
            # Many unknown-card choices differ only in the card laid face down: keep the
            # heuristic's favourite of those.
            unknown = [i for i in candidates if legal[i].get("action") == "unknown"]
            if len(unknown) > 1:
                keep = default if default in unknown else unknown[0]
                candidates = [i for i in candidates if i not in unknown or i == keep]
        return legal[self._setup(k, legal, candidates, default)]

    def infers_bury(self, k: Knowledge) -> bool:
        """Whether this seat's deals give another seat that picked the heuristic's bury
        (``infer_bury``: for every non-picker, or only for the partner who knows itself)."""
        if self.infer_bury == "partner":
            return k.partner == k.seat and k.picker != k.seat and not k.leaster
        return self.infer_bury == "all"

    def _sampler(self, k: Knowledge) -> Callable[[], Hand]:
        """Draws deals consistent with the view, kept by how well they fit the bidding."""
        sampler = Sampler(k, bury=self.infers_bury(k))
        rng = self._rng
        if not self.infer_bidding:
            return lambda: sampler.hand(rng)
        weigh = self._weigher()
        return lambda: sampler.hand(rng, weigh, BIDDING_TRIES)

    def _weigher(self) -> Weigher | None:
        """How a deal's bidding weighs it (None with ``infer_bidding`` off): the passes and the
        pick as :func:`bidding_weight` judges them, the pick's miss weighing ``pick_weight``."""
        if not self.infer_bidding:
            return None
        if self.pick_weight == UNLIKELY:
            return bidding_weight
        return functools.partial(bidding_weight, pick_weight=self.pick_weight)

    def _play_sampler(self, k: Knowledge) -> Callable[[], Sim]:
        """Draws play-phase deals consistent with the view, kept by how well they fit the
        bidding and the cards the other seats chose (:meth:`Sampler.sim`)."""
        sampler = Sampler(k, bury=self.infers_bury(k))
        rng = self._rng
        weigh = self._weigher()
        if self.sampler == "mcmc":
            chain = self._chain(k, sampler, weigh)
            thin = self.chain_thin
            return lambda: chain.draw(thin)
        if self.sampler == "chains":
            chains = Chains(
                sampler,
                rng,
                weigh,
                self.chain_mismatch,
                self.play_trust,
                self.chain_count,
                self.chain_burn,
            )
            thin = self.chain_thin
            return lambda: chains.draw(thin)
        mismatch = self.play_mismatch
        if k.defending:
            mismatch = min(mismatch, self.defender_mismatch)
        tries = BIDDING_TRIES if weigh is not None or mismatch < 1 else 1
        trust = self.play_trust
        fallback = self.play_fallback
        return lambda: sampler.sim(rng, weigh, tries, mismatch, trust, fallback)

    def _chain(self, k: Knowledge, sampler: Sampler, weigh: Weigher | None) -> Chain:
        """The Markov chain of deals of this card decision: the seat's chain of its previous
        decision in this hand carried on (:meth:`Chain.carried`), else a fresh one."""
        key = (k.dealer, k.hand | k.played_by[k.seat], tuple(k.passes), k.picker, k.called)
        start = None
        burn = self.chain_burn
        old = self._chains.get(k.seat)
        if self.chain_carry and old is not None and old[0] == key:
            start = old[1].carried(sampler, self._rng)
            if start is not None:
                burn = self.chain_carry_burn
        chain = Chain(sampler, self._rng, weigh, self.chain_mismatch, self.play_trust, start, burn)
        self._chains[k.seat] = (key, chain)
        return chain

    def _setup(
        self, k: Knowledge, legal: Sequence[ActionMap], candidates: list[int], default: int
    ) -> int:
        """Pick, bury or call: roll each candidate out over sampled deals with the heuristic."""
        if len(candidates) < 2:
            return default
        actions = [action_from_dict(legal[i], k.seat) for i in candidates]
        values: list[list[float]] = [[] for _ in candidates]
        done = 0
        try:
            draw = self._sampler(k)
        except SamplingError:
            return default
        for _ in range(self.setup_samples):
            if not self.may_start_deal():
                break
            try:
                hand = draw()
            except SamplingError:
                continue
            for j, action in enumerate(actions):
                branch = hand.copy()
                branch.apply(action)
                values[j].append(finish(branch)[k.seat])
            self.rollouts += len(actions)
            done += 1
            if done >= max(MIN_DECIDED_SAMPLES, self.setup_samples // 3) and decided(values):
                break
        if not done:
            return default
        totals = [sum(v) for v in values]
        best = max(range(len(candidates)), key=lambda j: totals[j])
        if default not in candidates:
            return candidates[best]
        base = totals[candidates.index(default)]
        # Rollouts are noisy: leave the heuristic's choice only for a clear gain.
        if (totals[best] - base) / done > SETUP_MARGIN:
            return candidates[best]
        return default

    def _play(self, k: Knowledge, legal: Sequence[ActionMap]) -> int:
        index = play_index(legal)
        fallback = choose_play(k.situation(mask_of(index)))
        rep = equivalent_cards(k, mask_of(index))
        cards = sorted(set(rep.values()))
        margin = self.play_margin
        if k.defending:
            margin = max(margin, self.defender_margin)
        self.last_samples = 0
        if len(cards) == 1:
            return index[fallback]
        values: list[list[float]] = [[] for _ in cards]
        # With distinct_stop, the early stop reads each distinct deal once.
        distinct: list[list[float]] = [[] for _ in cards] if self.distinct_stop else values
        seen: set[tuple[Mask, ...]] = set()
        left = 6 - k.trick_number
        # Everyone-for-themselves leaster trees prune badly: solve only the last two tricks.
        exact = left <= (
            min(self.exact_tricks, 2) if k.leaster and not self.model_endgame else self.exact_tricks
        )
        timed = self.out_of_time if self.clock is not None else None
        count = NodeCount(limit=2 * self.node_budget, out_of_time=timed)
        samples = self.samples
        done = 0
        try:
            draw = self._play_sampler(k)
        except SamplingError:
            samples = 0
        if exact and self.model_endgame and self.info_sets and samples:
            totals = self._info_sets(k, cards, draw, count)
            if totals is not None:
                return self._choice(index, fallback, rep, cards, totals, self.last_samples, margin)
            # Even a few deals are too big to search together: judge by rollouts instead.
            exact = False
            count = NodeCount(limit=2 * self.node_budget, out_of_time=timed)
        while done < samples:
            if not self.may_start_deal():
                break
            try:
                sim = draw()
            except SamplingError:
                samples -= 1
                continue
            key = deal_key(sim) if self.distinct_stop else ()
            try:
                scores = score_candidates(sim, k.seat, cards, exact, count, self.model_endgame)
            except NodeBudgetExceeded:
                if done or self.out_of_time():
                    break
                # Even one deal is too big to solve: judge this card by rollouts instead.
                exact = False
                continue
            if not exact:
                self.rollouts += len(cards)
            for i, v in enumerate(scores):
                values[i].append(v)
            if self.distinct_stop and key not in seen:
                seen.add(key)
                for i, v in enumerate(scores):
                    distinct[i].append(v)
            done += 1
            # The exact search's cost varies a lot from deal to deal: stop at the node budget
            # once enough deals are in (at twice the budget the search itself gives up).
            if exact and count.nodes > self.node_budget and done >= MIN_EXACT_SAMPLES:
                break
            if done >= max(MIN_DECIDED_SAMPLES, int(samples * self.decide_share)) and decided(
                distinct
            ):
                break
        self.last_samples = done
        self.nodes += count.nodes
        totals = [sum(v) for v in values]
        return self._choice(index, fallback, rep, cards, totals, done, margin)

    def _choice(
        self,
        index: dict[Card, int],
        fallback: Card,
        rep: dict[Card, Card],
        cards: Sequence[Card],
        totals: Sequence[float],
        done: int,
        margin: float,
    ) -> int:
        """The index in ``legal`` of the card with the best total over ``done`` deals (the
        heuristic's card ``fallback`` among cards within ``margin`` points a deal of the best,
        or with no deal)."""
        if not done:
            return index[fallback]
        best = max(totals)
        # Among (near) equals, the heuristic's card: it keeps the side's conventions, and the
        # sampled deals, each played as if every card were seen, flatter cards that need to
        # know where the others are (strategy fusion).
        if totals[cards.index(rep[fallback])] >= best - (margin + 1e-9) * done:
            return index[fallback]
        return index[cards[totals.index(best)]]

    def _info_sets(
        self,
        k: Knowledge,
        cards: Sequence[Card],
        draw: Callable[[], Sim],
        count: NodeCount,
    ) -> list[float] | None:
        """Each card's summed value over up to ``samples`` deals searched together
        (:func:`solve_info_sets`); None when even :data:`MIN_EXACT_SAMPLES` deals are over
        twice the node budget. Over it, the search is tried again on half the deals."""
        worlds: list[Sim] = []
        misses = 0
        while len(worlds) + misses < self.samples and self.may_start_deal():
            try:
                worlds.append(draw())
            except SamplingError:
                misses += 1
        while worlds:
            try:
                totals = solve_info_sets(worlds, k.seat, cards, count)
            except NodeBudgetExceeded:
                if self.out_of_time() or len(worlds) <= MIN_EXACT_SAMPLES:
                    break
                worlds = worlds[: len(worlds) // 2]
                for sim in worlds:
                    # Back to the decision: the search stopped in the middle of its lines.
                    while sim.undo:
                        sim.unplay()
                count = NodeCount(limit=2 * self.node_budget, out_of_time=count.out_of_time)
                continue
            finally:
                self.nodes += count.nodes
            self.last_samples = len(worlds)
            return totals
        self.last_samples = 0
        return None


CRACK_ROUND: Final = frozenset({"crack", "no_crack", "recrack", "no_recrack"})
"""The action kinds of the crack round and the re-crack."""


def infer_bury_seats(value: bool | str) -> str:
    """``infer_bury`` as one of :data:`INFER_BURY_SEATS` (``True``: ``"all"``, ``False``:
    ``"off"``, as a strategy spec reads ``true`` and ``off``); ValueError for anything else."""
    if value is True:
        return "all"
    if value is False:
        return "off"
    if isinstance(value, str) and value in INFER_BURY_SEATS:
        return value
    raise ValueError(f"infer_bury must be off, partner or all (true: all), not {value!r}")


def is_blitz_offer(legal: Sequence[ActionMap]) -> bool:
    """Whether ``legal`` is a bury that offers a blitz: the heuristic blitzes at once
    (:mod:`engine.bots.stakes`), and burials are rolled out only after that."""
    return legal[-1].get("action") == "blitz"


def deal_key(sim: Sim) -> tuple[Mask, ...]:
    """What tells two sampled deals of one decision apart: every seat's cards and the bury."""
    return (*sim.state.hands, sim.buried)


def decided(values: Sequence[Sequence[float]]) -> bool:
    """Whether more deals are unlikely to change the choice: the leader beats every other
    candidate by a clear margin on paired deals (or no candidate differs on any deal; with
    one deal, only then)."""
    n = len(values[0])
    if n < 2:
        return all(list(v) == list(values[0]) for v in values)
    totals = [sum(v) for v in values]
    b = totals.index(max(totals))
    best = values[b]
    for j, other in enumerate(values):
        if j == b:
            continue
        diffs = [x - y for x, y in zip(best, other, strict=True)]
        mean = sum(diffs) / n
        if mean == 0 and not any(diffs):
            continue
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean <= DECIDED_SIGMAS * math.sqrt(var / n):
            return False
    return True


def equivalent_cards(k: Knowledge, legal: Mask) -> dict[Card, Card]:
    """Each legal card mapped to a representative: cards of one class and equal points with no
    card between them that another seat may hold or that lies on the trick play the same."""
    power = k.power
    others = k.unseen
    for c in k.trick.cards:
        others |= 1 << c
    special = 0
    if k.called is not None:
        special |= 1 << k.called
    if k.under is not None:
        special |= 1 << k.under
    blockers = others | (k.hand & ~legal) | special
    rep: dict[Card, Card] = {}
    for cls, order in _CLASS_ORDERS[k.rules.jack_order]:
        if not legal & cls:
            continue
        head = -1
        for c in order:
            bit = 1 << c
            if legal & bit and not bit & special:
                if head < 0 or POINTS[c] != POINTS[head]:
                    head = c
                rep[c] = head
            elif blockers & bit:
                head = -1
                if legal & bit:
                    rep[c] = c
    del power
    return rep
