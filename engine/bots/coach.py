"""The coach: the search's estimate of each choice of one decision, for a person learning.

:func:`hint` takes what one seat sees (its view from :func:`engine.view.seat_view` and its
legal list) and scores the choices the way ``search`` (:mod:`engine.bots.search`) does: it deals
the unseen cards at random, consistently with everything public and with the bidding, and for
each deal values every candidate by the seat's payout when the hand is played out from it
(rollouts with the heuristic for every seat; exactly, by alpha-beta, in the last
``exact_tricks`` tricks; picks, burials and calls are rolled out). The answer is the two best
candidates with their mean payout over the deals, the number of deals, and for the second the
standard error of the difference (every candidate is valued on the same deals, so the error of
the difference is that of the per-deal differences: far smaller than the spread of a payout).
Cards that play alike (:func:`engine.bots.search.equivalent_cards`) are named together.

Within the sampling error the coach keeps to standard play: when the heuristic's choice (the
rules of thumb: defenders lead the called suit, not trump; the picker's side leads trump; ...)
is within :data:`CONVENTION_SE` standard errors of the best mean, it is named first. The
rollouts' small edges against convention (a defender's trump lead valued ~0.1 point above
the called suit's, at under two errors) are noise a learner should not be taught.

Pure and deterministic given ``seed``; a caller that wants a time bound (the server's bot
workers) passes ``clock`` and ``think_time``: no new deal is begun after ``think_time``.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=5)
>>> view = seat_view(hand, hand.turn)
>>> advice = hint(view, view["legal"], seed=1, samples=4)
>>> advice["deals"], len(advice["candidates"])
(4, 2)
>>> advice["candidates"][0]["action"] in view["legal"]
True
>>> advice["candidates"][1]["se"] >= 0
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from engine.actions import Action, action_from_dict
from engine.bots.base import ActionMap, View, action_key
from engine.bots.heuristic import HeuristicStrategy, mask_of, play_index
from engine.bots.knowledge import Knowledge, read_view
from engine.bots.policy import bury_score
from engine.bots.rollout import bidding_weight, finish
from engine.bots.sampling import Sampler, SamplingError
from engine.bots.search import (
    BIDDING_TRIES,
    DEFAULT_NODE_BUDGET,
    DEFAULT_SAMPLES,
    NodeBudgetExceeded,
    NodeCount,
    equivalent_cards,
    score_candidates,
)
from engine.bots.sim import Sim
from engine.cards import parse_card
from engine.hand import Hand

DEFAULT_EXACT_TRICKS: Final = 3
"""Tricks left at which card play is valued exactly (as ``search`` does)."""

BURY_OPTIONS: Final = 5
"""Burials rolled out: the heuristic's best few (as ``search`` does)."""

SHOWN: Final = 2
"""Candidates in the answer: the best and the next best."""

CONVENTION_SE: Final = 2.5
"""Standard errors within which the heuristic's (standard play's) choice is named first. More
than two: the best of several candidates is compared with it, and the largest of five noisy
differences passes two errors one time in nine when all are alike (2.5: one in thirty). At 40
deals, seed 38's defender saw K♣ lead 2.1 errors ahead of the called suit's K♠; at 300 deals
the two were level."""


def hint(
    view: View,
    legal: Sequence[ActionMap],
    *,
    seed: int | None = None,
    samples: int = DEFAULT_SAMPLES,
    clock: Callable[[], float] | None = None,
    think_time: float | None = None,
    played: ActionMap | None = None,
) -> dict[str, Any]:
    """The best two of ``legal`` for the seat of ``view`` and their mean payouts.

    Returns ``{"deals": n, "candidates": [{"action": map, "value": mean}, ...]}``, best first:
    at most :data:`SHOWN` candidates, one when only one action is legal or all the legal cards
    play alike (then ``deals`` is 0 and ``value`` None: there is nothing to compare). Every
    candidate after the best has ``se``: the standard error of the best's mean minus its own
    over the deals (None below two deals). A card candidate whose equivalents are legal too
    has ``alike``: those cards' actions (it stands for them). With ``played`` (one of ``legal``:
    the action the seat took, for a review after the hand) the answer also has ``"played":
    {"action", "value", "se"}``, valued on the same deals (``se`` as above: its difference
    from the best, 0.0 when it is the best or one alike).
    """
    if not legal:
        raise ValueError("there is no legal action to advise on")
    chosen = None if played is None else find_action(legal, played)
    if played is not None and chosen is None:
        raise ValueError(f"{dict(played)!r} is not one of the legal actions")
    if len(legal) == 1:
        answer: dict[str, Any] = {
            "deals": 0,
            "candidates": [{"action": dict(legal[0]), "value": None}],
        }
        if chosen is not None:
            answer["played"] = {"action": dict(legal[0]), "value": None}
        return answer
    rng = random.Random(seed)
    ends_at = None if clock is None or think_time is None else clock() + think_time

    def out_of_time() -> bool:
        return ends_at is not None and clock is not None and clock() >= ends_at

    k = read_view(view)
    alike: dict[int, list[int]] = {}
    if legal[0].get("action") == "play":
        indices, values, mine, alike = _play_values(k, legal, rng, samples, out_of_time, chosen)
    else:
        indices, values, mine = _setup_values(k, legal, rng, samples, out_of_time, chosen)
    deals = min((len(v) for v in values), default=0)
    means = [round(sum(v[:deals]) / deals, 3) if deals else None for v in values]
    order = sorted(range(len(indices)), key=lambda j: -(means[j] or 0.0))
    usual = _usual(view, legal, indices, alike)
    if usual is not None and usual != order[0] and deals:
        top = order[0]
        se = difference_error(values[top][:deals], values[usual][:deals])
        gap = (means[top] or 0.0) - (means[usual] or 0.0)
        if se is not None and gap <= CONVENTION_SE * se:
            order.remove(usual)
            order.insert(0, usual)
    best = order[0]

    def candidate(j: int) -> dict[str, Any]:
        out: dict[str, Any] = {"action": dict(legal[indices[j]]), "value": means[j]}
        if j != best:
            out["se"] = difference_error(values[best][:deals], values[j][:deals])
        if alike.get(indices[j]):
            out["alike"] = [dict(legal[i]) for i in alike[indices[j]]]
        return out

    answer = {"deals": deals, "candidates": [candidate(j) for j in order[:SHOWN]]}
    if chosen is not None:
        se = 0.0 if mine == best else difference_error(values[best][:deals], values[mine][:deals])
        answer["played"] = {"action": dict(legal[chosen]), "value": means[mine], "se": se}
    return answer


def _usual(
    view: View, legal: Sequence[ActionMap], indices: list[int], alike: dict[int, list[int]]
) -> int | None:
    """The position in ``indices`` of the heuristic's choice (standard play), or of the card
    that stands for it; None when it is not among them (a burial the coach did not value)."""
    choice = find_action(legal, HeuristicStrategy(seed=0).choose(view, legal))
    if choice is None:
        return None
    for j, i in enumerate(indices):
        if i == choice or choice in alike.get(i, ()):
            return j
    return None


def difference_error(first: Sequence[float], second: Sequence[float]) -> float | None:
    """The standard error of ``mean(first) - mean(second)`` when both were valued on the same
    deals (paired: the error of the mean of the per-deal differences), rounded to 0.001; None
    below two deals.

    >>> difference_error([1.0, 3.0, 2.0], [0.0, 2.0, 2.0])
    0.333
    """
    n = min(len(first), len(second))
    if n < 2:
        return None
    diffs = [a - b for a, b in zip(first[:n], second[:n], strict=True)]
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return round(math.sqrt(variance / n), 3)


def find_action(legal: Sequence[ActionMap], action: ActionMap) -> int | None:
    """The index in ``legal`` of ``action`` (its ``seat`` aside; bury cards in any order)."""
    wanted = action_key(action)
    return next((i for i, a in enumerate(legal) if action_key(a) == wanted), None)


class _Stop(Exception):
    """No more deals: the exact search ran out of its budget after some deals were in."""


def _sampled_values(
    k: Knowledge,
    rng: random.Random,
    samples: int,
    out_of_time: Callable[[], bool],
    width: int,
    score: Callable[[Hand], list[float]],
) -> list[list[float]]:
    """``score`` of each of ``width`` candidates on up to ``samples`` deals of the unseen cards
    that fit the view and the bidding (fewer when time runs out or deals are hard to find)."""
    values: list[list[float]] = [[] for _ in range(width)]
    try:
        sampler = Sampler(k)
    except SamplingError:
        return values
    done = tries = 0
    while done < samples and tries < 2 * samples and not out_of_time():
        tries += 1
        try:
            hand = sampler.hand(rng, bidding_weight, BIDDING_TRIES)
        except SamplingError:
            continue
        try:
            scores = score(hand)
        except _Stop:
            break
        for i, v in enumerate(scores):
            values[i].append(v)
        done += 1
    return values


def _play_values(
    k: Knowledge,
    legal: Sequence[ActionMap],
    rng: random.Random,
    samples: int,
    out_of_time: Callable[[], bool],
    chosen: int | None = None,
) -> tuple[list[int], list[list[float]], int, dict[int, list[int]]]:
    """Card play: each distinct legal card (one of equivalent cards) valued per deal; also the
    position of ``chosen``'s card (or its equivalent) among them, and for each valued card's
    index in ``legal`` the indices of the other legal cards that play alike."""
    index = play_index(legal)
    rep = equivalent_cards(k, mask_of(index))
    cards = sorted(set(rep.values()))
    indices = [index[c] for c in cards]
    alike = {
        index[head]: [index[c] for c in sorted(rep) if rep[c] == head and c != head]
        for head in cards
    }
    mine = 0 if chosen is None else cards.index(rep[parse_card(legal[chosen]["card"])])
    if len(cards) == 1:
        return indices, [[]], mine, alike
    left = 6 - k.trick_number
    exact = left <= (min(DEFAULT_EXACT_TRICKS, 2) if k.leaster else DEFAULT_EXACT_TRICKS)
    count = NodeCount(limit=2 * DEFAULT_NODE_BUDGET, out_of_time=out_of_time)
    scored = 0

    def score(hand: Hand) -> list[float]:
        nonlocal exact, scored
        sim = Sim.from_hand(hand)
        try:
            values = score_candidates(sim, k.seat, cards, exact, count)
        except NodeBudgetExceeded:
            if scored or out_of_time():
                raise _Stop from None
            exact = False  # even one deal is too big to solve exactly: roll out instead
            # From the deal as drawn: the abandoned search left its simulator mid-play.
            values = score_candidates(Sim.from_hand(hand), k.seat, cards, exact)
        scored += 1
        return values

    values = _sampled_values(k, rng, samples, out_of_time, len(cards), score)
    return indices, values, mine, alike


def _setup_values(
    k: Knowledge,
    legal: Sequence[ActionMap],
    rng: random.Random,
    samples: int,
    out_of_time: Callable[[], bool],
    chosen: int | None = None,
) -> tuple[list[int], list[list[float]], int]:
    """Pick, pass, bury, call and the rest: each candidate rolled out per deal (``chosen``
    always among them); also the position of ``chosen`` among them."""
    candidates = list(range(len(legal)))
    kind = legal[0].get("action")
    if kind == "bury":
        scores = {
            i: bury_score(
                k.hand,
                (1 << parse_card(a["cards"][0])) | (1 << parse_card(a["cards"][1])),
                k.jd_mode,
            )
            for i, a in enumerate(legal)
            if a.get("action") == "bury"
        }
        buries = sorted(scores, key=lambda i: -scores[i])[:BURY_OPTIONS]
        candidates = [i for i in candidates if i not in scores or i in buries]
    unknown = [i for i in candidates if legal[i].get("action") == "unknown"]
    if len(unknown) > 1:  # they differ only in the card laid face down: keep one
        candidates = [i for i in candidates if i not in unknown[1:]]
    if chosen is not None and chosen not in candidates:
        candidates.append(chosen)
    mine = 0 if chosen is None else candidates.index(chosen)
    actions: list[Action] = [action_from_dict(legal[i], k.seat) for i in candidates]

    def score(hand: Hand) -> list[float]:
        values = []
        for action in actions:
            branch = hand.copy()
            branch.apply(action)
            values.append(float(finish(branch)[k.seat]))
        return values

    return candidates, _sampled_values(k, rng, samples, out_of_time, len(actions), score), mine
