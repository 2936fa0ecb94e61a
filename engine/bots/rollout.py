"""Whole-hand rollouts and bidding inference for the search strategy.

:func:`finish` plays a fully known engine hand to the end with the heuristic for every seat,
including picking, burying and calling (on bit masks, without building views), and returns the
payouts. :func:`bidding_weight` says how well a sampled deal fits the bidding that was seen: the
seats that passed should hold hands the heuristic would pass, the picker one it would pick.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> payouts = finish(Hand.from_seed(RuleSet(), dealer=2, seed=9))
>>> len(payouts), sum(payouts)
(5, 0)
"""

from __future__ import annotations

import random
from typing import Final

from engine.actions import Alone, Blitz, Bury, Call, Unknown
from engine.bots.knowledge import Knowledge
from engine.bots.policy import NO_CARD, CallOption, bits, choose_bury, choose_call, wants_to_pick
from engine.bots.sim import Sim
from engine.bots.stakes import choose_stakes
from engine.cards import Mask
from engine.hand import Hand

UNLIKELY: Final = 0.15
"""Weight of a deal in which one seat bid against the heuristic's judgement of its cards."""


def call_options(hand: Hand) -> list[CallOption]:
    """The legal partner decisions of the picker as ``(kind, card, under)`` tuples."""
    options: list[CallOption] = []
    for a in hand.legal_actions():
        if isinstance(a, Call):
            options.append(("call", a.card, NO_CARD))
        elif isinstance(a, Unknown):
            options.append(("unknown", a.card, a.under))
        elif isinstance(a, Alone):
            options.append(("alone", NO_CARD, NO_CARD))
    return options


def heuristic_setup(hand: Hand) -> None:
    """Take the hand through picking, burying and calling with the heuristic's choices."""
    jd_mode = hand.rules.partner == "jack-of-diamonds"
    bump = hand.rules.double_on_the_bump
    while hand.phase in ("pick", "bury", "call", "crack", "recrack"):
        seat = hand.turn
        assert seat is not None
        legal = hand.legal_actions()
        if hand.phase == "pick":
            if len(legal) == 1 or wants_to_pick(hand.hands[seat], len(hand.passes), bump=bump):
                hand.apply(legal[0])
            else:
                hand.apply(legal[1])
        elif hand.phase in ("crack", "recrack") or isinstance(legal[-1], Blitz):
            hand.apply(legal[stakes_choice(hand)])
        elif hand.phase == "bury":
            options = [a.cards for a in legal if isinstance(a, Bury)]
            hand.apply(legal[choose_bury(hand.hands[seat], options, jd_mode)])
        else:
            hand.apply(legal[choose_call(hand.hands[seat], call_options(hand))])


def stakes_choice(hand: Hand) -> int:
    """Index in ``hand.legal_actions()`` of the heuristic's blitz, crack or re-crack."""
    seat = hand.turn
    assert seat is not None and hand.picker is not None
    legal = hand.legal_actions()
    # Only the stakes actions need maps; a bury phase offers its blitzes after the burials.
    first = next(i for i, a in enumerate(legal) if not isinstance(a, Bury))
    maps = [a.to_dict() for a in legal[first:]]
    choice = choose_stakes(hand.hands[seat], seat, hand.picker, maps)
    assert choice is not None
    return first + choice


def finish(hand: Hand) -> tuple[int, ...]:
    """The payouts after playing ``hand`` (changed in place) out with the heuristic."""
    heuristic_setup(hand)
    if hand.is_over:
        payouts = hand.result().payouts
        assert payouts is not None
        return payouts
    sim = Sim.from_hand(hand)
    sim.rollout()
    return sim.payouts()


def bidding_weight(
    k: Knowledge, dealt: list[Mask], rng: random.Random, pick_weight: float = UNLIKELY
) -> float:
    """How plausible a deal makes the passes and the pick that were seen (0-1).

    ``dealt`` is each seat's cards as dealt, the picker's with the blind (see
    :meth:`engine.bots.sampling.Sampler.originals`). ``pick_weight``: the weight of a deal whose
    picker the heuristic would not have picked with (a pass it would have picked on keeps
    :data:`UNLIKELY`).
    """
    weight = 1.0
    bump = k.rules.double_on_the_bump
    for position, seat in enumerate(k.passes):
        if seat != k.seat and wants_to_pick(dealt[seat], position, bump=bump):
            weight *= UNLIKELY
    picker = k.picker
    if picker is not None and picker != k.seat:
        if k.rules.no_pick == "forced-pick" and len(k.passes) == 4:
            return weight
        # Which two of the picker's eight cards were the blind is unknown and any two are
        # equally likely: judge the pick on a random six.
        eight = dealt[picker]
        six = eight
        for c in rng.sample(bits(eight), 2):
            six &= ~(1 << c)
        if not wants_to_pick(six, len(k.passes), bump=bump):
            weight *= pick_weight
    return weight
