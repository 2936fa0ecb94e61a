"""Every engine error code, and that a rejected action changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from engine import (
    Action,
    Alone,
    BadCardError,
    BadRecordError,
    Bury,
    Call,
    Hand,
    IllegalActionError,
    Pass,
    Pick,
    Play,
    Unknown,
    action_from_dict,
    parse_card,
)
from engine.errors import SheepsheadError
from tests.engine.helpers import (
    CALLED_ACE_BLIND,
    CALLED_ACE_HANDS,
    UNKNOWN_CARD_BLIND,
    UNKNOWN_CARD_HANDS,
    act,
    assert_rejected,
    new_hand,
    rejected,
    snapshot,
)

C = parse_card


def fresh(**options: Any) -> Hand:
    return new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0, **options)


def in_play() -> Hand:
    return act(fresh(), "pass", "pick", "bury 7S 8S", "call AC")


def test_not_your_turn() -> None:
    hand = fresh()
    assert_rejected(hand, Pass(2), "not_your_turn", "It is seat 1's turn, not yours")
    hand = in_play()
    assert_rejected(hand, Play(2, C("QC")), "not_your_turn")


@pytest.mark.parametrize(
    ("setup", "bad", "message"),
    [
        ((), Play(1, C("AH")), "Now is the time to pick or pass"),
        ((), Bury(1, (C("AH"), C("TH"))), "Now is the time to pick or pass"),
        ((), Alone(1), "Now is the time to pick or pass"),
        (("pass", "pick"), Pick(2), "Now is the time to bury two cards"),
        (("pass", "pick"), Alone(2), "Now is the time to bury two cards"),
        (("pass", "pick", "bury 7S 8S"), Pass(2), "Now is the time to call a partner or go alone"),
        (("pass", "pick", "bury 7S 8S"), Play(2, C("QC")), None),
        (("pass", "pick", "bury 7S 8S", "call AC"), Alone(1), "Now is the time to play a card"),
        (("pass", "pick", "bury 7S 8S", "call AC"), Call(1, C("AH")), None),
    ],
)
def test_illegal_action_for_the_phase(
    setup: tuple[str, ...], bad: Pick | Pass | Bury | Alone | Play | Call, message: str | None
) -> None:
    hand = act(fresh(), *setup)
    assert_rejected(hand, bad, "illegal_action", message)


def test_illegal_card() -> None:
    hand = in_play()
    assert_rejected(hand, Play(1, C("QC")), "illegal_card", "You do not hold QC")
    hand = act(fresh(), "pass", "pick")
    assert_rejected(hand, Bury(2, (C("QC"), C("AH"))), "illegal_card", "You do not hold AH")


def test_must_follow_suit_trump() -> None:
    hand = in_play()
    act(hand, "AH", "9D", "QD", "JS", "JH")  # seat 3 wins and leads trump
    act(hand, "JD")
    # Seat 4 holds TD and JC (trump) besides two clubs and a spade.
    rejected(hand, "AS", "must_follow_suit", "You must follow trump")
    rejected(hand, "KC", "must_follow_suit", "You must follow trump")


def test_called_suit_codes() -> None:
    hand = in_play()
    act(hand, "AH")
    rejected(hand, "7C", "hold_card_required")
    act(hand, "QC")
    rejected(hand, "AC", "called_card_held")
    hand = in_play()
    act(hand, "AH", "9D", "QD", "JS", "JH")
    rejected(hand, "TC", "called_suit_restricted")
    hand = in_play()
    act(hand, "AH", "9D", "7D", "JS", "JH", "KC", "8C", "7H", "7C")
    rejected(hand, "TC", "called_card_required")


def test_illegal_call_and_illegal_bury() -> None:
    hand = act(fresh(), "pass", "pick")
    assert_rejected(hand, Bury(2, (C("QC"), C("QC"))), "illegal_bury", "Bury two different cards")
    act(hand, "bury 7S 8S")
    rejected(hand, "call AS", "illegal_call")
    rejected(hand, "call AH", "illegal_call")
    assert_rejected(hand, Unknown(2, C("AH"), C("QC")), "illegal_call")


def test_unknown_card_codes() -> None:
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=4, unknown_card=True)
    act(hand, "pass", "pick", "bury AD TD", "unknown AC JC")
    act(hand, "AC")
    rejected(hand, "QC", "unknown_card_required")
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=0, unknown_card=True)
    act(hand, "pick", "bury AD TD", "unknown AC JC")
    rejected(hand, "JC", "unknown_card_held")


def test_must_pick() -> None:
    hand = fresh(no_pick="forced-pick")
    act(hand, "pass", "pass", "pass", "pass")
    rejected(hand, "pass", "must_pick")


def test_hand_over() -> None:
    hand = fresh(no_pick="doubler")
    act(hand, *["pass"] * 5)
    for bad in (Pass(1), Pick(0), Play(3, C("AC")), Alone(2)):
        assert_rejected(hand, bad, "hand_over", "The hand is over")


def test_error_classes_and_codes() -> None:
    with pytest.raises(BadCardError) as info:
        parse_card("1C")
    assert info.value.code == "bad_card" and isinstance(info.value, SheepsheadError)
    with pytest.raises(BadCardError):
        parse_card("qc")
    with pytest.raises(BadCardError):
        action_from_dict({"seat": 1, "action": "play", "card": "ZZ"})
    with pytest.raises(BadCardError):
        action_from_dict({"seat": 1, "action": "play", "card": 5})
    with pytest.raises(BadRecordError) as rec:
        action_from_dict({"seat": 7, "action": "pass"})
    assert rec.value.code == "bad_record"
    with pytest.raises(BadRecordError):
        action_from_dict({"seat": True, "action": "pass"})
    with pytest.raises(BadRecordError):
        action_from_dict({"seat": 1, "action": "fold"})
    with pytest.raises(BadRecordError):
        action_from_dict({"seat": 1, "action": "bury", "cards": ["7S"]})
    assert IllegalActionError("x").code == "illegal_action"


def test_action_wire_forms_round_trip() -> None:
    actions: list[Action] = [
        Pick(1),
        Pass(2),
        Bury(3, (C("7S"), C("8S"))),
        Call(4, C("AC")),
        Alone(0),
        Unknown(1, C("AH"), C("QC")),
        Play(2, C("TD")),
    ]
    for a in actions:
        assert action_from_dict(a.to_dict()) == a
    # The wire's seat comes from the connection: ``seat`` overrides the map's.
    assert action_from_dict({"action": "pass"}, seat=3) == Pass(3)
    assert action_from_dict({"seat": 1, "action": "pass"}, seat=3) == Pass(3)


def test_every_rejection_leaves_the_hand_unchanged_during_a_whole_hand() -> None:
    # Try every card for the seat to act (and for the next seat) before each legal play.
    hand = in_play()
    while not hand.is_over:
        seat = hand.turn
        assert seat is not None
        before = snapshot(hand)
        legal = set(hand.legal_actions())
        for s in (seat, (seat + 1) % 5):
            for c in range(32):
                a = Play(s, c)
                if a in legal:
                    continue
                with pytest.raises(IllegalActionError):
                    hand.apply(a)
        assert snapshot(hand) == before
        hand.apply(hand.legal_actions()[-1])
