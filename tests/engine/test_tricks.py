"""Trick winners under both jack orders, and following suit with trump as a suit (docs/rules.md,
"Trump and fail" and "5. Playing the tricks").

Trick tests play the first trick of a leaster (dealer 0, so seat 1 leads): no call constraints
apply, only following suit. The other cards are dealt so that every card of the trick is legal.
"""

from __future__ import annotations

import pytest

from engine import Hand, Play, parse_card
from engine.cards import FOLLOW, TRUMP, card_code
from tests.engine.helpers import act, legal_cards, new_hand, play_trick, rejected

SLOTS: list[int | str] = [0, 1, 2, 3, 4, "blind"]


def deal_for_trick(row: str) -> tuple[list[str], str]:
    """Hands and blind in which seat 1 can lead ``row``'s trick (cards in seat order 0–4).

    A seat whose card does not follow the lead must be void in the led suit, so the remaining
    cards of the led suit go only to seats that follow it (and the blind).
    """
    cards = [parse_card(c) for c in row.split()]
    follow = FOLLOW[cards[1]]
    hands: dict[int | str, list[int]] = {s: [cards[s]] for s in range(5)}
    hands["blind"] = []
    size: dict[int | str, int] = {s: 6 for s in range(5)}
    size["blind"] = 2
    rest = [c for c in range(32) if c not in cards]
    may_hold_led: list[int | str] = [s for s in range(5) if (1 << cards[s]) & follow]
    may_hold_led.append("blind")
    led = [c for c in rest if (1 << c) & follow]
    other = [c for c in rest if not (1 << c) & follow]
    for c in led:
        slot = next(s for s in may_hold_led if len(hands[s]) < size[s])
        hands[slot].append(c)
    for c in other:
        slot = next(s for s in SLOTS if len(hands[s]) < size[s])
        hands[slot].append(c)
    return (
        [" ".join(card_code(c) for c in hands[s]) for s in range(5)],
        " ".join(card_code(c) for c in hands["blind"]),
    )


def first_trick(row: str, jack_order: str = "seed") -> Hand:
    """A leaster whose first trick (seat order 0–4 in ``row``) has been played."""
    hands, blind = deal_for_trick(row)
    hand = new_hand(hands, blind, dealer=0, jack_order=jack_order)
    act(hand, *["pass"] * 5)
    play_trick(hand, row)
    return hand


def winner(row: str, jack_order: str = "seed") -> str:
    """The card that wins a trick given in seat order, seat 1 leading."""
    trick = first_trick(row, jack_order).tricks[0]
    return card_code(trick.cards[trick.seats.index(trick.winner)])


# Rows list the card of seats 0, 1, 2, 3, 4; seat 1 leads.


@pytest.mark.parametrize(
    ("row", "seed_winner", "clubs_first_winner"),
    [
        # The two black jacks: the seed text ranks JS over JC, the standard rules JC over JS.
        ("8D 7D JC JS 9D", "JS", "JC"),
        ("JS 7D JC 8D 9D", "JS", "JC"),
        # Below the black jacks the order is the same: JH over JD over every diamond.
        ("JH 7D JD AD TD", "JH", "JH"),
        ("JD 7D AD TD KD", "JD", "JD"),
        # Any queen beats every jack; QC QS QH QD.
        ("JS 7D JC QD 9D", "QD", "QD"),
        ("QD 7D QH JS JC", "QH", "QH"),
        ("QS 7D QH QD JS", "QS", "QS"),
        ("QS 7D QC QD JC", "QC", "QC"),
        # The diamonds: AD TD KD 9D 8D 7D, ten above king.
        ("KD 7D TD 8D 9D", "TD", "TD"),
        ("KD 7D 9D 8D AD", "AD", "AD"),
    ],
)
def test_trump_order_under_both_jack_orders(
    row: str, seed_winner: str, clubs_first_winner: str
) -> None:
    assert winner(row, "seed") == seed_winner
    assert winner(row, "clubs-first") == clubs_first_winner


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        # Fail ranks A T K 9 8 7: the ten beats the king.
        ("KC 7C TC 9C 8C", "TC"),
        ("9S 7S 8S AS TS", "AS"),
        ("9H 8H 7H KH TH", "TH"),
        # The lowest trump beats the fail ace of the led suit.
        ("AC 7C TC 7D KC", "7D"),
        ("AH 8H 7D TH KH", "7D"),
        # The queen of diamonds is trump, not a diamond of lower rank.
        ("QD 7D AD TD KD", "QD"),
        # Off-suit discards never win, however high: hearts led, seats 0, 2 and 3 are void in
        # hearts and hold no trump; the only heart is the 7 led.
        ("AC 7H AS TC TS", "7H"),
        ("AC 7H AS 8H TS", "8H"),
        # A fail card of another suit does not win even when it outranks the led card.
        ("AS 7C 8C AH 9C", "9C"),
    ],
)
def test_fail_tricks_and_trumping(row: str, expected: str) -> None:
    assert winner(row) == expected
    assert winner(row, "clubs-first") == expected


def test_trick_records_leader_cards_winner_and_points() -> None:
    hand = first_trick("AC 7C TC 7D KC")
    (trick,) = hand.tricks
    assert trick.leader == 1
    assert [card_code(c) for c in trick.cards] == ["7C", "TC", "7D", "KC", "AC"]
    assert trick.seats == (1, 2, 3, 4, 0)
    assert trick.winner == 3
    assert trick.points == 11 + 10 + 4
    assert hand.taken[3] == 25 and hand.tricks_won[3] == 1
    # The winner leads the next trick.
    assert hand.leader == hand.turn == 3


# Follow-suit deal: seat 1 leads (dealer 0) unless a test deals with another dealer.
FOLLOW_HANDS = [
    "JC JS 7C 8C 9C TC",  # seat 0: two trumps, four clubs
    "7D AS TS KS 9S 8S",  # seat 1: one diamond, five spades
    "QH AH TH KH 9H 8H",  # seat 2: the queen of hearts and five hearts
    "AC KC 7S 7H AD TD",  # seat 3
    "QC QS QD JH JD KD",  # seat 4: trump only (JH among them)
]
FOLLOW_BLIND = "9D 8D"


def leaster(dealer: int = 0) -> Hand:
    hand = new_hand(FOLLOW_HANDS, FOLLOW_BLIND, dealer=dealer)
    return act(hand, *["pass"] * 5)


def test_queen_of_hearts_follows_a_diamond_lead() -> None:
    hand = leaster()
    act(hand, "7D")
    # Seat 2's only trump is QH: trump is one suit, so QH must follow the diamond.
    assert hand.turn == 2
    assert legal_cards(hand) == {"QH"}
    rejected(hand, "AH", "must_follow_suit", "You must follow trump")
    act(hand, "QH")
    assert legal_cards(hand) == {"AD", "TD"}  # seat 3: its two trumps, not its fail cards
    act(hand, "TD")
    assert legal_cards(hand) == {"QC", "QS", "QD", "JH", "JD", "KD"}
    act(hand, "JH")
    assert legal_cards(hand) == {"JC", "JS"}  # seat 0: jacks are trump, not clubs
    rejected(hand, "7C", "must_follow_suit", "You must follow trump")


def test_trump_is_not_a_fail_suit_when_hearts_are_led() -> None:
    hand = leaster(dealer=2)  # seat 3 leads
    act(hand, "7H")
    # Seat 4 holds JH and QD but no fail heart: it cannot follow and may play anything.
    assert hand.turn == 4
    assert legal_cards(hand) == {"QC", "QS", "QD", "JH", "JD", "KD"}
    act(hand, "JH")
    assert legal_cards(hand) == {"JC", "JS", "7C", "8C", "9C", "TC"}  # seat 0: void in hearts
    act(hand, "TC")
    act(hand, "AS")
    # Seat 2 holds five hearts and QH: QH is trump, so only the fail hearts follow.
    assert legal_cards(hand) == {"AH", "TH", "KH", "9H", "8H"}
    rejected(hand, "QH", "must_follow_suit", "You must follow hearts")
    act(hand, "8H")
    # JH trumped the heart lead.
    assert hand.tricks[0].winner == 4


def test_fail_lead_must_be_followed_in_its_suit() -> None:
    hand = leaster(dealer=4)  # seat 0 leads
    act(hand, "7C")
    assert legal_cards(hand) == {"7D", "AS", "TS", "KS", "9S", "8S"}  # seat 1: void in clubs
    act(hand, "AS")
    assert legal_cards(hand) == set(FOLLOW_HANDS[2].split())  # seat 2: void in clubs
    act(hand, "QH")
    assert legal_cards(hand) == {"AC", "KC"}
    rejected(hand, "7S", "must_follow_suit", "You must follow clubs")
    rejected(hand, "AD", "must_follow_suit", "You must follow clubs")


def test_a_lead_may_be_any_card_held() -> None:
    hand = leaster()
    assert legal_cards(hand) == set(FOLLOW_HANDS[1].split())
    rejected(hand, "QC", "illegal_card")


def test_follow_masks_match_the_trump_definition() -> None:
    # FOLLOW is the engine's table for following: 14 trumps, three fail suits of six.
    trumps = {card_code(c) for c in range(32) if (1 << c) & TRUMP}
    queens_jacks = {"QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"}
    assert trumps == queens_jacks | {"AD", "TD", "KD", "9D", "8D", "7D"}
    for c in range(32):
        followers = {card_code(d) for d in range(32) if (1 << d) & FOLLOW[c]}
        if card_code(c) in trumps:
            assert followers == trumps
        else:
            suit = card_code(c)[1]
            assert followers == {r + suit for r in "ATK987"}


def test_each_play_is_checked_against_the_seat_to_act() -> None:
    hand = leaster()
    assert not hand.can(Play(2, parse_card("QH")))
    assert hand.can(Play(1, parse_card("7D")))


def test_the_legal_plays_are_those_of_the_seat_to_act_however_they_were_asked_for() -> None:
    # In trick play apply clears only the legal mask, and the plays kept beside it go stale with
    # it; the mask asked for alone (legal_play_mask) must not bring back the last seat's plays.
    import random

    from engine import IllegalActionError, Pass, RuleSet
    from engine.actions import PLAYS
    from engine.cards import cards_of

    rng = random.Random(4)
    for n in range(40):
        hand = Hand.from_seed(RuleSet(), n % 5, n)
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            if hand.phase == "play" and rng.random() < 0.3:
                mask = hand.legal_play_mask()
                legal = hand.legal_actions()
                assert legal == tuple(PLAYS[seat][c] for c in cards_of(mask))
            else:
                legal = hand.legal_actions()
            if hand.phase == "play":
                assert all(type(a) is Play and a.seat == seat for a in legal)
                assert hand.legal_actions() is legal
                with pytest.raises(IllegalActionError) as refused:
                    hand.apply(Pass(seat))
                assert refused.value.code == "illegal_action"
            hand.apply(rng.choice(legal))
