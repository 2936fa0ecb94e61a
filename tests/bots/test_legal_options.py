"""Property: under any preset with every option drawn at random, each strategy's answer is
one of the legal actions it was given (thousands of hands; a file of its own, so that the test
workers share the slow cases with :mod:`tests.bots.test_legal`)."""

from __future__ import annotations

import random

import pytest

from engine.bots import make_strategy
from engine.hand import Hand
from engine.rules import OPTION_NAMES, PRESETS_OPTIONS, RuleSet, option_choices
from tests.bots.test_legal import play_checked


def _random_rules(rng: random.Random) -> RuleSet:
    """Any preset with every option drawn at random: over many hands, every combination."""
    preset = rng.choice(list(PRESETS_OPTIONS))
    return RuleSet.from_preset(
        preset, **{name: rng.choice(option_choices(name)) for name in OPTION_NAMES}
    )


@pytest.mark.parametrize(
    ("name", "options", "hands", "own_seats"),
    [
        ("random", {}, 1000, 5),
        ("heuristic", {}, 1000, 5),
        ("heuristic-v1", {}, 1000, 5),
        # A tiny budget keeps thousands of decisions within seconds; the code paths are the
        # default's (sampling, setup rollouts, rollouts, the exact endgame).
        ("search", {"samples": 1, "setup_samples": 1}, 500, 2),
    ],
)
def test_every_strategy_answers_legally_under_every_preset_and_option(
    name: str, options: dict[str, int], hands: int, own_seats: int
) -> None:
    rng = random.Random(name)
    bot = make_strategy(name, seed=7, **options)
    others = [make_strategy("heuristic"), make_strategy("random", seed=3)]
    seen: set[tuple[object, ...]] = set()
    decisions = 0
    for n in range(hands):
        rules = _random_rules(rng)
        seen.add((*rules.options().values(), rules.preset))
        first = n % 5
        bots = [
            bot if (s - first) % 5 < own_seats and rng.random() < 0.9 else rng.choice(others)
            for s in range(5)
        ]
        decisions += play_checked(Hand.from_seed(rules, n % 5, rng.getrandbits(64)), bots, rng)
    assert decisions > hands * 20
    assert len(seen) > min(hands // 10, 100)  # many different rule combinations were played
