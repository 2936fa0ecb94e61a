"""Calling a partner and the called-suit play constraints (docs/rules.md, "4. Choosing a
partner")."""

from __future__ import annotations

from typing import Any

from engine import Alone, Call, Hand, Unknown, card_code, parse_card
from tests.engine.helpers import (
    CALLED_ACE_BLIND,
    CALLED_ACE_HANDS,
    UNKNOWN_CARD_BLIND,
    UNKNOWN_CARD_HANDS,
    act,
    held,
    legal_cards,
    new_hand,
    play_trick,
    rejected,
)


def calls(hand: Hand) -> set[str]:
    """The picker's legal decisions as words: ``call AC``, ``alone``, ``unknown AC 7D``."""
    out = set()
    for a in hand.legal_actions():
        if isinstance(a, Call):
            out.add(f"call {card_code(a.card)}")
        elif isinstance(a, Unknown):
            out.add(f"unknown {card_code(a.card)} {card_code(a.under)}")
        elif isinstance(a, Alone):
            out.add("alone")
    assert len(out) == len(hand.legal_actions())
    return out


# ---------------------------------------------------------------- the call itself

# Seat 1 (left of dealer 0) picks at once in these deals.


def picked(hands: list[str], blind: str, bury: str, **options: Any) -> Hand:
    hand = new_hand(hands, blind, dealer=0, **options)
    return act(hand, "pick", f"bury {bury}")


CALL_HANDS = [
    "TC 9C KS 9S 8S 8H",
    "AC 7C 7S 8C QC QS",  # seat 1 picks: aces of clubs; the blind brings AS and 7H
    "KC TS TH KH 9H QH",
    "JS JC JH JD AD TD",
    "KD 9D 8D 7D QD AH",
]
CALL_BLIND = "AS 7H"


def test_call_needs_a_hold_card_and_an_ace_not_held_or_buried() -> None:
    # Picker holds AC 7C 8C 7S QC QS + AS 7H; buries AS and 8C.
    hand = picked(CALL_HANDS, CALL_BLIND, "AS 8C")
    assert held(hand, 1) == {"AC", "7C", "7S", "QC", "QS", "7H"}
    # AC is in hand, AS is buried (though 7S could hold it): only the heart ace is callable.
    assert calls(hand) == {"call AH", "alone"}
    rejected(hand, "call AC", "illegal_call", "You cannot call AC: you have it")
    rejected(hand, "call AS", "illegal_call", "You cannot call AS: you have it")
    rejected(hand, "call TC", "illegal_call")
    rejected(hand, "call QD", "illegal_call")
    act(hand, "call AH")
    assert hand.called == parse_card("AH") and hand.partner == 4 and not hand.alone


def test_hold_card_must_stay_in_hand_after_burying() -> None:
    # Burying the only spade and the only heart leaves clubs (AC held) and trump: no call.
    hand = picked(CALL_HANDS, CALL_BLIND, "7S 7H")
    assert held(hand, 1) == {"AC", "7C", "8C", "QC", "QS", "AS"}
    # Spades: AS is now in hand. Hearts: no card left to hold.
    assert calls(hand) == {"alone"}
    rejected(hand, "call AH", "illegal_call", "You need a hearts card in your hand (the hold card)")


def test_ten_is_called_when_the_picker_holds_all_three_fail_aces() -> None:
    hands = list(CALL_HANDS)
    hands[1], hands[4] = "AC 7C 7S 8C QC AH", "KD 9D 8D 7D QD QS"
    hand = picked(hands, CALL_BLIND, "AS 8C")  # AS buried still counts as held
    assert held(hand, 1) == {"AC", "7C", "7S", "QC", "AH", "7H"}
    assert calls(hand) == {"call TC", "call TS", "call TH", "alone"}
    rejected(hand, "call AS", "illegal_call")
    act(hand, "call TS")
    assert hand.partner == 2


def test_ten_needs_a_hold_card_too() -> None:
    hands = list(CALL_HANDS)
    hands[1], hands[4] = "AC 7C 7S 8C QC AH", "KD 9D 8D 7D QD QS"
    hand = picked(hands, CALL_BLIND, "AS 7S")  # no spade left in hand
    assert calls(hand) == {"call TC", "call TH", "alone"}
    rejected(hand, "call TS", "illegal_call")


# Seat 1 picks: after burying the blind's two fail cards, 7D 7H, every card it holds is trump,
# so no call is legal.
NO_CALL_HANDS = [
    "AC TC KC 9C 8C 7C",
    "QC QS QH QD JS JC",
    "AS TS KS 9S 8S 7S",
    "AH TH KH 9H 8H JD",
    "JH AD TD KD 9D 8D",
]


def test_no_call_possible_leaves_only_alone() -> None:
    hand = picked(NO_CALL_HANDS, "7D 7H", "7D 7H")
    assert calls(hand) == {"alone"}
    rejected(hand, "call AC", "illegal_call")
    rejected(hand, "unknown AC JC", "illegal_call")
    act(hand, "alone")
    assert hand.alone and hand.partner is None and hand.phase == "play"


def test_unknown_card_offered_only_when_no_call_is_legal() -> None:
    hand = picked(NO_CALL_HANDS, "7D 7H", "7D 7H", unknown_card=True)
    trumps = ["QC", "QS", "QH", "QD", "JS", "JC"]
    expected = {"alone"} | {f"unknown {ace} {u}" for ace in ("AC", "AS", "AH") for u in trumps}
    assert calls(hand) == expected
    # With an ordinary call available, the unknown card is not.
    hand = picked(CALL_HANDS, CALL_BLIND, "AS 8C", unknown_card=True)
    assert calls(hand) == {"call AH", "alone"}
    rejected(hand, "unknown AH QC", "illegal_call")


def test_all_aces_and_all_tens_held_leaves_only_alone_even_with_unknown_card() -> None:
    hands = [
        "KC 9C 8C 7C QS QH",
        "AC TC AS TS AH QC",
        "KS 9S 8S 7S QD JS",
        "KH 9H 8H 7H JC JH",
        "JD AD TD KD 9D 8D",
    ]
    hand = picked(hands, "TH 7D", "QC 7D", unknown_card=True)
    assert calls(hand) == {"alone"}


def test_alone_is_always_legal() -> None:
    hand = picked(CALL_HANDS, CALL_BLIND, "AS 8C")
    act(hand, "alone")
    assert hand.alone and hand.called is None and hand.partner is None


# ---------------------------------------------------------------- jack of diamonds

JD_HANDS = [
    "AC TC KC 9C 8C 7C",
    "QC QS 7S 8S AH 7H",
    "AS TS KS 9S QH QD",
    "TH KH 9H 8H JS JC",
    "JH JD AD TD KD 9D",
]


def test_jack_of_diamonds_partner() -> None:
    hand = picked(JD_HANDS, "8D 7D", "8D 7D", partner="jack-of-diamonds")
    assert calls(hand) == {"call JD", "alone"}
    rejected(
        hand, "call AC", "illegal_call", "Under the jack-of-diamonds rule you can only call JD"
    )
    act(hand, "call JD")
    assert hand.partner == 4 and not hand.partner_revealed
    play_trick(hand, "7C AH 9S 8H JD")
    assert hand.partner_revealed


def test_picker_holding_jack_of_diamonds_goes_alone() -> None:
    hands = list(JD_HANDS)
    hands[1], hands[4] = "QC QS 7S 8S JD 7H", "JH AH AD TD KD 9D"
    hand = picked(hands, "8D 7D", "8D 7D", partner="jack-of-diamonds")
    assert calls(hand) == {"alone"}
    rejected(hand, "call JD", "illegal_call", "You hold the jack of diamonds: you must go alone")


def test_picker_burying_jack_of_diamonds_goes_alone() -> None:
    hands = list(JD_HANDS)
    hands[1], hands[4] = "QC QS 7S 8S JD 7H", "JH AH AD TD KD 9D"
    hand = picked(hands, "8D 7D", "JD 7D", partner="jack-of-diamonds")
    assert calls(hand) == {"alone"}


# ---------------------------------------------------------------- called-suit constraints


def called_ac() -> Hand:
    hand = new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0)
    act(hand, "pass", "pick", "bury 7S 8S")
    assert calls(hand) == {"call AC", "alone"}
    rejected(hand, "call AS", "illegal_call")  # both spades went into the bury
    return act(hand, "call AC")


def test_picker_keeps_the_last_card_of_the_called_suit() -> None:
    hand = called_ac()
    act(hand, "AH")
    # Hearts led, the picker is void: any card except the hold card 7C.
    assert legal_cards(hand) == {"QC", "QS", "QH", "KD", "9D"}
    rejected(hand, "7C", "hold_card_required")


def test_picker_may_lead_the_hold_card() -> None:
    hand = called_ac()
    act(hand, "AH", "QC", "7D", "JS", "JH")  # the picker wins with QC and leads
    assert hand.tricks[0].winner == 2 and hand.turn == 2
    assert legal_cards(hand) == {"QS", "QH", "KD", "9D", "7C"}
    act(hand, "7C")  # leading it leads the called suit
    assert hand.called_led_at == 1
    # Seat 3, the partner, must now play the called ace (TC also follows but is refused).
    assert legal_cards(hand) == {"AC"}
    rejected(hand, "TC", "called_card_required", "The called suit is led: you must play AC")
    act(hand, "AC")
    assert hand.partner_revealed


def test_partner_must_play_the_called_card_when_the_suit_is_first_led() -> None:
    hand = called_ac()
    act(hand, "AH", "9D", "7D", "JS", "JH")  # seat 4 wins with JS and leads a club
    assert hand.tricks[0].winner == 4
    act(hand, "KC", "8C")
    act(hand, "7H")  # seat 1 has no club
    # The picker must follow with its hold card; the suit has been led.
    assert legal_cards(hand) == {"7C"}
    act(hand, "7C")
    assert legal_cards(hand) == {"AC"}
    rejected(hand, "TC", "called_card_required")
    act(hand, "AC")
    assert hand.tricks[1].winner == 3


def test_partner_may_not_throw_the_called_card_on_another_suit() -> None:
    hand = called_ac()
    act(hand, "AH", "QC")
    # Seat 3 is void in hearts: anything but AC (TC, a club, is fine).
    assert legal_cards(hand) == {"TC", "QD", "JD", "8D", "7D"}
    rejected(
        hand,
        "AC",
        "called_card_held",
        "You may not throw AC on another suit before the called suit is led",
    )


def test_partner_leads_the_called_suit_only_with_the_called_card() -> None:
    hand = called_ac()
    act(hand, "AH", "9D", "QD", "JS", "JH")  # seat 3 wins with QD and leads
    assert hand.tricks[0].winner == 3
    assert legal_cards(hand) == {"AC", "JD", "8D", "7D"}
    rejected(
        hand,
        "TC",
        "called_suit_restricted",
        "Until the called suit is led you may lead it only with AC",
    )
    act(hand, "AC")
    assert hand.called_led_at == 1 and hand.partner_revealed


def test_constraints_end_once_the_called_suit_has_been_led() -> None:
    hand = called_ac()
    # Trick 1: seat 3 wins and leads AC; trick 2 leads clubs, so the called suit is out.
    act(hand, "AH", "9D", "QD", "JS", "JH")
    act(hand, "AC", "KC", "8C", "7H", "7C")
    assert hand.tricks[1].winner == 3
    # Seat 3 may now lead TC, any card.
    assert legal_cards(hand) == {"TC", "JD", "8D", "7D"}


def test_picker_with_two_cards_of_the_called_suit_may_throw_one() -> None:
    hands = list(CALLED_ACE_HANDS)
    # The picker holds 7C and 8C, seat 0 gets 7S instead of 8C.
    hands[0], hands[2] = "JH AD 7S TS KS 9S", "QC QS QH 7C 8C 8S"
    hand = new_hand(hands, CALLED_ACE_BLIND, dealer=0)
    act(hand, "pass", "pick", "bury QH 8S", "call AC", "AH")
    assert legal_cards(hand) == {"QC", "QS", "KD", "9D", "7C", "8C"}
    act(hand, "8C")
    # Now 7C is the last club: it is held back on the next off-suit trick.
    act(hand, "7D", "JS", "JH")
    assert hand.tricks[0].winner == 4
    act(hand, "AS", "7S", "7H")  # spades led: the picker is void but must keep 7C
    assert legal_cards(hand) == {"QC", "QS", "KD", "9D"}
    rejected(hand, "7C", "hold_card_required")


def test_last_card_is_always_playable() -> None:
    # On the last trick every seat has one card, which is always legal, called constraints
    # included: the picker's hold card and the partner's called card are both kept to the end.
    hand = called_ac()
    tricks = [
        "JH AH 9D 7D JS",  # seat 4 wins
        "AD 8H QH JD TD",  # trump led by seat 4: seat 2 wins with QH
        "TS 7H QC 8D JC",  # seat 2 wins with QC
        "KS 9H QS QD 9C",  # seat 2 wins with QS
        "9S KH KD TC KC",  # seat 2 wins with KD; the partner keeps AC back
    ]
    for row in tricks:
        play_trick(hand, row)
    assert hand.trick_number == 5 and hand.turn == 2
    assert legal_cards(hand) == {"7C"}
    act(hand, "7C")
    assert legal_cards(hand) == {"AC"}  # the partner's last card
    act(hand, "AC", "AS", "8C", "TH")
    assert hand.is_over and hand.tricks[5].winner == 3


# ---------------------------------------------------------------- the unknown card


def unknown_hand(dealer: int) -> Hand:
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=dealer, unknown_card=True)
    while hand.turn != 1:
        act(hand, "pass")
    act(hand, "pick", "bury AD TD", "unknown AC JC")
    assert hand.called == parse_card("AC") and hand.under == parse_card("JC")
    assert hand.partner == 0
    return hand


def test_unknown_card_is_played_when_the_called_suit_is_first_led_and_never_wins() -> None:
    hand = unknown_hand(dealer=4)  # seat 0, the partner, leads
    # The partner's hand is all clubs: it may lead only the called ace.
    assert legal_cards(hand) == {"AC"}
    act(hand, "AC")
    # The picker must play the face-down card now.
    assert legal_cards(hand) == {"JC"}
    rejected(hand, "QC", "unknown_card_required")
    act(hand, "JC", "7S", "7H", "9S")
    (trick,) = hand.tricks
    # JC outranks every club, yet the unknown card cannot win; its points go to the winner.
    assert trick.winner == 0
    assert trick.points == 11 + 2
    assert hand.partner_revealed


def test_unknown_card_loses_to_a_real_trump() -> None:
    hand = unknown_hand(dealer=4)
    act(hand, "AC", "JC", "7S", "7H", "8D")
    assert hand.tricks[0].winner == 4


def test_unknown_card_is_held_back_until_the_called_suit_or_the_last_trick() -> None:
    hand = unknown_hand(dealer=0)  # the picker leads
    assert legal_cards(hand) == {"QC", "QS", "QH", "QD", "JS"}
    rejected(
        hand,
        "JC",
        "unknown_card_held",
        "Your face-down unknown card is played only when the called suit is led",
    )
    play_trick(hand, "7C QC 7D 7H 8D")
    # Spades led by nobody; the picker keeps leading trump and never leads clubs.
    for row in ["8C QS 8S 8H 9D", "9C QH KS 9H KD", "KC QD TS KH JD", "TC JS AS TH JH"]:
        play_trick(hand, row)
    assert [t.winner for t in hand.tricks] == [1, 1, 1, 1, 1]
    # The last trick: the picker's only card is the unknown card, and it leads it.
    assert legal_cards(hand) == {"JC"}
    act(hand, "JC", "7S", "AH", "9S", "AC")
    last = hand.tricks[5]
    assert last.leader == 1
    assert [card_code(c) for c in last.cards] == ["JC", "7S", "AH", "9S", "AC"]
    # The unknown card cannot win although it leads as a trump. docs/rules.md is silent on who wins
    # when nobody follows it; the engine gives the trick to the highest card of the suit of
    # the first card after it (spades here), as if the unknown card had not been led.
    assert last.winner == 4
    assert last.points == 2 + 11 + 11


def test_unknown_card_under_a_fail_card_follows_on_the_called_suit_lead() -> None:
    # The face-down card may be any card of the picker's hand; it is still the one played.
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=4, unknown_card=True)
    act(hand, "pass", "pick", "bury AD TD", "unknown AS QC")
    assert hand.partner == 2
    act(hand, "AC")
    assert legal_cards(hand) == {"QS", "QH", "QD", "JS", "JC"}  # clubs led, not spades
    rejected(hand, "QC", "unknown_card_held")
