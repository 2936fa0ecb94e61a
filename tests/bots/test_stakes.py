"""The bots' answers to blitzing, cracking and re-cracking (docs/rules.md, "Cracking and
blitzing")."""

from __future__ import annotations

from typing import Any

import pytest

from botkit.tournament.play import run_tournament
from engine.bots import make_strategy
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from tests.bots.helpers import scripted

TAVERN = RuleSet.from_preset("tavern")

# Dealer 4; seat 1 picks with the black queens; seat 2 holds AC; seat 4 the red queens.
HANDS = (
    "AH TH KH 9H 8H 7H",
    "QC QS JC JS AD TD",
    "AC TC 9C 8D 7D JH",
    "AS TS KS 9S 8S 7S",
    "QH QD 9D 8C KC JD",
)
BLIND = "KD 7C"
CALLED: list[dict[str, object]] = [
    {"seat": 0, "action": "pass"},
    {"seat": 1, "action": "pick"},
    {"seat": 1, "action": "bury", "cards": ["TD", "KD"]},
    {"seat": 1, "action": "call", "card": "AC"},
]


def answer(name: str, hand: Hand) -> dict[str, Any]:
    view = seat_view(hand, hand.turn)
    choice = make_strategy(name, seed=1, samples=4, setup_samples=8) if name == "search" else None
    bot = choice or make_strategy(name, seed=1)
    return dict(bot.choose(view, view["legal"]))


@pytest.mark.parametrize("name", ["heuristic", "search"])
def test_the_picker_blitzes_whenever_it_may(name: str) -> None:
    hand = scripted(HANDS, BLIND, CALLED[:2], rules=TAVERN)
    assert answer(name, hand) == {"seat": 1, "action": "blitz", "pair": "black"}


@pytest.mark.parametrize("name", ["heuristic", "search"])
def test_a_strong_defender_cracks_showing_its_queens_and_a_weak_one_does_not(name: str) -> None:
    hand = scripted(HANDS, BLIND, CALLED, rules=TAVERN)
    assert answer(name, hand) == {"seat": 2, "action": "no_crack"}  # the partner: its only answer
    hand.apply(hand.legal_actions()[-1])
    assert answer(name, hand) == {"seat": 3, "action": "no_crack"}  # no trump at all
    hand.apply(hand.legal_actions()[-1])
    # QH QD JD 9D: four trumps, three of them high, sitting behind the picker.
    assert answer("heuristic", hand) == {"seat": 4, "action": "crack", "blitz": "red"}


def test_the_picker_recracks_a_strong_hand_only() -> None:
    cracked = [*CALLED, {"seat": 2, "action": "no_crack"}, {"seat": 3, "action": "crack"}]
    hand = scripted(HANDS, BLIND, cracked, rules=TAVERN)
    # QC QS JC JS AD and a club: a strong picker re-cracks.
    assert answer("heuristic", hand) == {"seat": 1, "action": "recrack"}
    weak = (
        "AH TH KH 9H 8H 7H",
        "QD 7D 8D 9C AS JH",
        "AC TC 9D TD KD QC",
        "QS TS KS 9S 8S 7S",
        "QH JS JC 8C KC JD",
    )
    weak_hand = scripted(
        weak,
        "7C AD",
        [
            {"seat": 0, "action": "pass"},
            {"seat": 1, "action": "pick"},
            {"seat": 1, "action": "bury", "cards": ["AS", "9C"]},
            {"seat": 1, "action": "alone"},
            {"seat": 2, "action": "crack"},
        ],
        rules=TAVERN,
    )
    assert answer("heuristic", weak_hand) == {"seat": 1, "action": "no_recrack"}


def test_heuristic_beats_random_with_cracking_and_blitzing() -> None:
    rules = RuleSet.from_preset("tavern", crack_by="defenders")
    (heuristic, random_), _ = run_tournament(["heuristic", "random"], 30, 3, rules)
    assert heuristic.seat_hands == random_.seat_hands == 30 * 25
    assert heuristic.payout + random_.payout == 0
    assert heuristic.payout > 0.5 * heuristic.seat_hands  # +7 a hand over 300 deals
