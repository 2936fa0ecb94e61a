"""The heuristic's card play toward the scoring lines (``Style.lines``; docs/rules.md, "Scoring a
picked hand"), each on a position played to its fifth trick."""

from __future__ import annotations

from engine.bots.heuristic import HeuristicStrategy
from engine.view import seat_view
from tests.bots.helpers import card_chosen, picked, play, scripted


def _plays(seats_cards: str) -> list[dict[str, object]]:
    """Plays from "seat:card seat:card ..."."""
    return [play(int(p[0]), p[2:]) for p in seats_cards.split()]


def test_a_defender_takes_the_trick_that_carries_the_defenders_to_a_line() -> None:
    deal = (
        "KC AC 9S JS AS 8H",
        "TC QS KS JH QH AD",
        "8S TS 9H KH 8D JD",
        "7C 8C JC 7S 7H 9D",
        "QC TH AH 7D QD KD",
    )
    plays = _plays(
        "0:JS 1:JH 2:8D 3:9D 4:KD 0:AC 1:9C 2:JD 3:7C 4:AH 2:9H 3:7H 4:TH 0:8H 1:AD "
        "1:QH 2:8S 3:JC 4:7D 0:AS 1:QS 2:KH 3:7S"
    )
    hand = scripted(deal, "9C TD", [*picked(1, "TC KS", "AC"), *plays])
    assert hand.turn == 4 and hand.trick_number == 4 and hand.partner == 0
    view = seat_view(hand, 4)
    # The defenders (seats 2, 3, 4) have 24 points and the picker's queen of spades holds a
    # trick of 7: the queen of clubs takes it to 34, past the picker's schneider line, and the
    # queen of diamonds is then the best trump left to take the last trick (the defenders win
    # the hand, 61 to 59). Weighing raw points, 7 is not worth a queen: the queen of diamonds
    # goes under the queen of spades and the picker's side makes 73.
    assert card_chosen(HeuristicStrategy(lines=1), view) == "QC"
    assert card_chosen(HeuristicStrategy(lines=0), view) == "QD"


def test_the_picker_takes_the_trick_that_puts_the_win_out_of_the_defenders_reach() -> None:
    deal = (
        "9C 7S TH QH 9D JD",
        "7C AC JS 7H TD AD",
        "TC 9S QS JH AH QD",
        "JC KC 8S TS 7D 8D",
        "8C QC KS AS 8H 9H",
    )
    plays = _plays(
        "0:7S 1:TD 2:9S 3:TS 4:AS 1:AC 2:KD 3:KC 4:8C 0:9C 2:QD 3:7D 4:QC 0:9D 1:JS "
        "4:8H 0:TH 1:7H 2:KH 3:8S 0:JD 1:AD"
    )
    hand = scripted(deal, "KH KD", [*picked(2, "TC AH", "AS"), *plays])
    assert hand.turn == 2 and hand.trick_number == 4 and hand.partner == 4
    view = seat_view(hand, 2)
    # The defenders (seats 0, 1, 3) have 45 and 13 lie on the trick; the picker knows its
    # bury, so it knows only 14 more points are out: winning this trick keeps the defenders
    # under 60 whatever the last trick holds. The queen of spades (the best trump left) makes
    # sure of it; the jack of hearts, spent as a card that may lose, falls to the jack of
    # clubs behind it and the picker's side ends on 58.
    assert card_chosen(HeuristicStrategy(lines=1), view) == "QS"
    assert card_chosen(HeuristicStrategy(lines=0), view) == "JH"
