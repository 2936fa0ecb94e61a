"""Small builders so every engine test can state its deal and its actions in card codes."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pytest

from engine import (
    Action,
    Alone,
    Blitz,
    Bury,
    Call,
    Crack,
    Deal,
    Hand,
    IllegalActionError,
    NoCrack,
    NoRecrack,
    Pass,
    Pick,
    Play,
    Recrack,
    RuleSet,
    Unknown,
    card_code,
    export_record,
    parse_card,
    seat_view,
)
from engine.cards import cards_in
from engine.hand import _HAND_FIELDS

CALLED_ACE_HANDS = (
    "JH AD 8C TS KS 9S",
    "AH TH KH 9H 8H 7H",
    "QC QS QH 7C 7S 8S",
    "AC TC QD JD 8D 7D",
    "TD JS JC KC 9C AS",
)
"""The deal several engine tests play (with :data:`CALLED_ACE_BLIND`, dealer 0): seat 1 holds
only hearts and passes, seat 2 picks, buries 7S 8S and calls AC (then holds QC QS QH KD 9D 7C:
7C is its hold card); seat 3 is the partner with AC TC; seat 4 holds KC 9C, seat 0 8C."""

CALLED_ACE_BLIND = "KD 9D"
"""The blind of :data:`CALLED_ACE_HANDS`."""

UNKNOWN_CARD_HANDS = (
    "AC TC KC 9C 8C 7C",
    "QC QS QH QD JS JC",
    "AS TS KS 8S 7S 7D",
    "AH TH KH 9H 8H 7H",
    "JH JD KD 9D 8D 9S",
)
"""The unknown-card deal several engine tests play (with :data:`UNKNOWN_CARD_BLIND`): seat 1
picks with six trumps, buries AD TD and calls AC with JC face down; seat 0 holds every club,
so seat 0 is the partner."""

UNKNOWN_CARD_BLIND = "AD TD"
"""The blind of :data:`UNKNOWN_CARD_HANDS`."""


def rules(preset: str = "seed", **options: Any) -> RuleSet:
    """A preset's rules with some options changed."""
    return RuleSet.from_preset(preset, **options)


def rule_variants() -> list[RuleSet]:
    """Rule sets that between them reach every phase and kind of hand."""
    return [
        rules("seed"),
        rules("wisconsin"),
        rules("seed", unknown_card=True, no_pick="doubler"),
        rules("seed", no_pick="leaster"),
    ]


def random_states(variants: Sequence[RuleSet], deals: int, seed: int) -> Iterator[tuple[int, Hand]]:
    """Every state of ``deals`` hands played at random, the rules cycling through
    ``variants``: ``(index of the rules, hand)``. The hand is played on in place once the
    caller asks for the next state."""
    rng = random.Random(seed)
    for deal in range(deals):
        index = deal % len(variants)
        hand = Hand.from_seed(variants[index], dealer=deal % 5, seed=deal)
        while True:
            yield index, hand
            if hand.is_over:
                break
            hand.apply(rng.choice(hand.legal_actions()))


def new_hand(
    hands: Sequence[str],
    blind: str,
    *,
    dealer: int = 0,
    multiplier: int = 1,
    preset: str = "seed",
    **options: Any,
) -> Hand:
    """A hand from five space-separated six-card strings (seats 0–4) and a two-card blind."""
    deal = Deal.from_codes([h.split() for h in hands], blind.split())
    return Hand(rules(preset, **options), dealer, deal, multiplier)


def action(hand: Hand, word: str) -> Action:
    """The action of the seat to act written as a word: ``pass``, ``pick``, ``bury 7S 8S``,
    ``call AC``, ``alone``, ``unknown AC 7D``, ``blitz red``, ``crack``, ``crack black``,
    ``no_crack``, ``recrack``, ``no_recrack`` or a card code to play."""
    seat = hand.turn
    assert seat is not None, "the hand is over"
    parts = word.split()
    kind = parts[0]
    if kind == "pass":
        return Pass(seat)
    if kind == "pick":
        return Pick(seat)
    if kind == "alone":
        return Alone(seat)
    if kind == "bury":
        return Bury(seat, (parse_card(parts[1]), parse_card(parts[2])))
    if kind == "call":
        return Call(seat, parse_card(parts[1]))
    if kind == "unknown":
        return Unknown(seat, parse_card(parts[1]), parse_card(parts[2]))
    if kind == "blitz":
        return Blitz(seat, "black" if parts[1] == "black" else "red")
    if kind == "crack":
        pair = parts[1] if len(parts) > 1 else None
        return Crack(seat, None if pair is None else "black" if pair == "black" else "red")
    if kind == "no_crack":
        return NoCrack(seat)
    if kind == "recrack":
        return Recrack(seat)
    if kind == "no_recrack":
        return NoRecrack(seat)
    return Play(seat, parse_card(kind))


def act(hand: Hand, *words: str) -> Hand:
    """Apply actions (see :func:`action`) in order, each by the seat whose turn it is."""
    for word in words:
        hand.apply(action(hand, word))
    return hand


def play_trick(hand: Hand, row: str) -> None:
    """Play one trick given as five cards in SEAT order 0–4 (not play order)."""
    cards = row.split()
    assert len(cards) == 5
    for _ in range(5):
        seat = hand.turn
        assert seat is not None
        hand.apply(Play(seat, parse_card(cards[seat])))


def play_tricks(hand: Hand, rows: Iterable[str]) -> Hand:
    """Play several tricks, each a row of five cards in seat order."""
    for row in rows:
        play_trick(hand, row)
    return hand


def scripted_hand(
    tricks: Sequence[str],
    *,
    picker: int | None,
    bury: str = "",
    call: str | None = None,
    blind: str | None = None,
    dealer: int = 0,
    multiplier: int = 1,
    preset: str = "seed",
    **options: Any,
) -> Hand:
    """A whole hand from its six tricks.

    ``tricks`` are six rows of five cards in seat order; each seat is dealt exactly the cards it
    plays. With a ``picker``, the seats from the dealer's left pass until the picker picks, and
    the blind is what the picker buries (``bury``); ``call`` is ``"call AC"``, ``"alone"`` or
    ``"unknown AC 7D"``. With ``picker=None`` everybody passes (leaster) and ``blind`` is given.
    """
    rows = [row.split() for row in tricks]
    hands = [" ".join(row[s] for row in rows) for s in range(5)]
    hand = new_hand(
        hands,
        bury if picker is not None else (blind or ""),
        dealer=dealer,
        multiplier=multiplier,
        preset=preset,
        **options,
    )
    if picker is None:
        act(hand, *["pass"] * 5)
    else:
        while hand.turn != picker:
            act(hand, "pass")
        act(hand, "pick", f"bury {bury}")
        assert call is not None
        act(hand, call)
    return play_tricks(hand, tricks)


def codes(cards: Iterable[Action] | Iterable[int]) -> set[str]:
    """Card codes of plays (or of bare cards)."""
    out: set[str] = set()
    for item in cards:
        if isinstance(item, int):
            out.add(card_code(item))
        elif isinstance(item, Play):
            out.add(card_code(item.card))
    return out


def legal_cards(hand: Hand) -> set[str]:
    """The codes of the cards the seat to act may play."""
    return codes(a for a in hand.legal_actions() if isinstance(a, Play))


def held(hand: Hand, seat: int) -> set[str]:
    """The codes of the cards a seat holds now."""
    return {card_code(c) for c in cards_in(hand.hands[seat])}


def snapshot(hand: Hand) -> dict[str, Any]:
    """Everything observable about a hand, to show that a rejected action changed nothing."""
    state = {
        name: getattr(hand, name)
        for name in _HAND_FIELDS  # Hand's slots: a class compiled by mypyc has no __slots__
        if not name.startswith("_") and name != "power"
    }
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in state.items()}
    return {
        "state": state,
        "record": export_record(hand),
        "views": [seat_view(hand, s) for s in (0, 1, 2, 3, 4, None)],
        "result": hand.result().to_dict(),
        "legal": hand.legal_actions(),
    }


def assert_rejected(hand: Hand, act_: Action, code: str, message: str | None = None) -> None:
    """``act_`` is refused with ``code`` (and ``message``), and the hand is unchanged."""
    before = snapshot(hand)
    assert not hand.can(act_)
    with pytest.raises(IllegalActionError) as info:
        hand.verify(act_)
    assert info.value.code == code, info.value.message
    with pytest.raises(IllegalActionError) as info:
        hand.apply(act_)
    assert info.value.code == code, info.value.message
    if message is not None:
        assert info.value.message == message
    assert snapshot(hand) == before


def rejected(hand: Hand, word: str, code: str, message: str | None = None) -> None:
    """Like :func:`assert_rejected` for an action written as a word for the seat to act."""
    assert_rejected(hand, action(hand, word), code, message)
