"""A digest of random hands through the public API: every legal list in order, every refusal of a
held card the rules forbid, every action and every result.

The speed work on the engine (issue 30) rewrites how the legal lists are built and how a card is
played; the digest was recorded on the code before it, so any change of behaviour shows here,
even one no other test states (the order of the legal plays, the wording of a refusal).
"""

from __future__ import annotations

import hashlib
import random

from engine import Hand, IllegalActionError, RuleSet
from engine.actions import PLAYS
from engine.cards import cards_in

CONFIGS = (
    ("seed", {}),
    ("wisconsin", {}),
    ("tavern", {}),
    ("seed", {"unknown_card": True}),
    ("seed", {"partner": "jack-of-diamonds", "no_pick": "forced-pick"}),
    ("tavern", {"crack_by": "defenders", "no_pick": "doubler"}),
)

DIGEST = "71849dfd3d61d03bb6d81e1640517814463095c5636ab39ea821f840354786de"
"""Recorded at f3a8920, before the speed work: 60 hands of each of the rule sets above."""


def _digest(hands: int) -> str:
    h = hashlib.sha256()

    def feed(value: object) -> None:
        h.update(repr(value).encode())

    for preset, options in CONFIGS:
        rules = RuleSet.from_preset(preset, **options)
        rng = random.Random(2030)
        for n in range(hands):
            hand = Hand.from_seed(rules, n % 5, 7_000 + n, multiplier=1 + n % 2)
            while not hand.is_over:
                legal = hand.legal_actions()
                feed([a.to_dict() for a in legal])
                seat = hand.turn
                assert seat is not None
                if hand.phase == "play":
                    for c in cards_in(hand.hands[seat] & ~hand.legal_play_mask()):
                        try:
                            hand.apply(PLAYS[seat][c])
                        except IllegalActionError as e:
                            feed((c, e.code, str(e)))
                hand.apply(rng.choice(legal))
            r = hand.result()
            feed((r.picker, r.partner, r.stakes, r.points, r.payouts))
            feed([tuple(t) for t in r.tricks])
    return h.hexdigest()


def test_random_hands_match_the_digest_recorded_before_the_speed_work() -> None:
    assert _digest(60) == DIGEST
