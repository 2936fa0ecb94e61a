"""The heuristic's card play toward the scoring lines (``Style.lines``; docs/rules.md, "Scoring a
picked hand"), each on a position played to its fifth trick."""

from __future__ import annotations

from engine.bots.heuristic import HeuristicStrategy
from engine.view import seat_view
from tests.bots.helpers import card_chosen, picked, play, scripted


def _plays(seats_cards: str) -> list[dict[str, object]]:
    """Plays from "seat:card seat:card ..."."""
    return [play(int(p[0]), p[2:]) for p in seats_cards.split()]


def test_a_defender_takes_the_trick_that_carries_the_defenders_to_their_last_line() -> None:
    deal = (
        "7S JS 7H QH 9D KD",
        "8S QS KS 7D TD JD",
        "8C 9C JC TH KH QD",
        "QC AC 9S TS AH AD",
        "TC AS 8H 9H JH 8D",
    )
    bidding = [
        {"seat": 2, "action": "pass"},
        {"seat": 3, "action": "pass"},
        {"seat": 4, "action": "pass"},
        *picked(0, "7C KC", "AS"),
    ]
    plays = _plays(
        "2:8C 3:AC 4:TC 0:9D 1:TD 1:8S 2:JC 3:TS 4:AS 0:7S 2:KH 3:AH 4:8H 0:7H 1:KS "
        "3:9S 4:8D 0:KD 1:JD 2:TH 1:7D 2:QD"
    )
    hand = scripted(deal, "7C KC", [*bidding, *plays], dealer=1)
    assert hand.turn == 3 and hand.trick_number == 4 and hand.partner == 4
    view = seat_view(hand, 3)
    # The defenders (seats 1, 2, 3) have 89 and a fellow defender's queen of diamonds holds a
    # trick of 3 that the picker's side, still to play, may take: the queen of clubs takes it
    # over and the defenders have 90, the picker's side schneidered (here it takes no trick
    # at all). Weighing raw points, 3 are not worth the queen of clubs: the ace of diamonds
    # goes on instead, the picker's queen of hearts takes 19 and the picker's side ends on 23.
    assert card_chosen(HeuristicStrategy(lines=1), view) == "QC"
    assert card_chosen(HeuristicStrategy(lines=0), view) == "AD"


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
