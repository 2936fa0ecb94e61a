"""Property: whatever the rules and whoever else sits at the table, a strategy's answer is
always one of the legal actions it was given (thousands of hands)."""

from __future__ import annotations

import random

import pytest

from engine.actions import action_from_dict
from engine.bots import make_strategy
from engine.bots.base import Strategy
from engine.hand import Hand
from engine.view import seat_view
from tests.bots.helpers import STAKES_VARIANTS, VARIANTS

ALL_VARIANTS = VARIANTS + STAKES_VARIANTS


def play_checked(hand: Hand, bots: list[Strategy], rng: random.Random) -> int:
    """Play the hand out, checking every answer; returns the number of decisions."""
    decisions = 0
    while not hand.is_over:
        seat = hand.turn
        assert seat is not None
        view = seat_view(hand, seat)
        legal = view["legal"]
        if rng.random() < 0.3:
            # The wire form (your_turn) lists the actions without their seat.
            legal = [{k: v for k, v in a.items() if k != "seat"} for a in legal]
        choice = bots[seat].choose(view, legal)
        assert choice in legal, (bots[seat].name, choice, legal)
        hand.apply(action_from_dict(choice, seat))
        decisions += 1
    assert sum(hand.result().payouts or ()) == 0
    return decisions


@pytest.mark.parametrize("variant", range(len(ALL_VARIANTS)))
def test_heuristic_and_random_always_answer_legally(variant: int) -> None:
    rules = ALL_VARIANTS[variant]
    rng = random.Random(variant)
    heuristic = make_strategy("heuristic")
    hands = 2000 // len(ALL_VARIANTS) + 1
    decisions = 0
    for n in range(hands):
        # Random seats make for odd hands (weak pickers, leasters, unknown cards) the
        # heuristic must still cope with.
        bots = [
            heuristic if rng.random() < 0.6 else make_strategy("random", seed=n) for _ in range(5)
        ]
        decisions += play_checked(Hand.from_seed(rules, n % 5, rng.getrandbits(64)), bots, rng)
    assert decisions > hands * 10


@pytest.mark.parametrize("variant", range(len(ALL_VARIANTS)))
def test_search_always_answers_legally(variant: int) -> None:
    rules = ALL_VARIANTS[variant]
    rng = random.Random(variant)
    search = make_strategy("search", seed=1, samples=2, setup_samples=2)
    heuristic = make_strategy("heuristic")
    for n in range(6):
        bots = [search if (s + n) % 2 == 0 else heuristic for s in range(5)]
        if n == 5:
            bots = [search, make_strategy("random", seed=n), search, search, search]
        play_checked(Hand.from_seed(rules, n % 5, rng.getrandbits(64)), bots, rng)
