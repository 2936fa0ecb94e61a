"""Rule sets and random hands the training environment's tests share."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine.actions import Action
from engine.hand import Hand
from engine.rules import PRESETS_OPTIONS, RuleSet

VARIANTS = [
    *(RuleSet.from_preset(preset) for preset in PRESETS_OPTIONS),
    RuleSet(unknown_card=True, no_pick="doubler"),
    RuleSet(partner="jack-of-diamonds", no_pick="forced-pick"),
    RuleSet(cracking=True, blitzing=True, crack_by="defenders", unknown_card=True),
]
"""Every preset, and rule sets that reach the options the presets leave off."""


def random_hands(deals: int, seed: int = 11) -> Iterator[Iterator[tuple[Hand, Action | None]]]:
    """``deals`` hands played by random legal actions, cycling through :data:`VARIANTS`: for each,
    its states in order, each with the action that led to it (None for the deal)."""
    rng = random.Random(seed)
    for n in range(deals):
        yield _play(Hand.from_seed(VARIANTS[n % len(VARIANTS)], n % 5, 1000 + n), rng)


def _play(hand: Hand, rng: random.Random) -> Iterator[tuple[Hand, Action | None]]:
    action: Action | None = None
    while True:
        yield hand, action
        if hand.is_over:
            return
        legal = hand.legal_actions()
        # A blitz is one choice among some thirty buries: taken half the time it is open, so
        # the blitzed states are checked too.
        blitzes = [a for a in legal if a.kind == "blitz"]
        action = rng.choice(blitzes if blitzes and rng.random() < 0.5 else legal)
        hand.apply(action)
