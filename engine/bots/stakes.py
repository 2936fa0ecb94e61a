"""The stakes decisions of docs/rules.md, "Cracking and blitzing" for the built-in bots: blitz,
crack, re-crack.

Rules of thumb, on bit masks so that rollouts can use them without building views:

- blitz whenever allowed (the picker shows a queen pair: its side is strong anyway);
- crack with a strong defending hand: trump length and high trumps, a little lighter when
  sitting behind the picker (playing after it, so able to overtrump); show a queen pair with
  the crack when holding one;
- re-crack when the picker's own hand (after burying) is clearly strong.

>>> from engine.cards import parse_card
>>> strong = sum(1 << parse_card(c) for c in ("QC", "QH", "JS", "9D", "7D", "AH"))
>>> wants_to_crack(strong, seat=4, picker=1)
True
>>> weak = sum(1 << parse_card(c) for c in ("QD", "7D", "AH", "TH", "9S", "8C"))
>>> wants_to_crack(weak, seat=4, picker=1)
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine.bots.policy import hand_strength
from engine.cards import TRUMP, Card, Mask, parse_card

_QUEENS: Final = tuple(parse_card(c) for c in ("QC", "QS", "QH", "QD"))
_JACKS: Final = tuple(parse_card(c) for c in ("JC", "JS", "JH", "JD"))
_HIGH_POINTS: Final = tuple(parse_card(c) for c in ("AD", "TD"))

CRACK_LINE: Final = 8.0
"""Defending trump weight needed to crack (four trumps with two queens and a jack reach it)."""

BEHIND_PICKER_BONUS: Final = 0.5
"""Added for a defender who plays after the picker on the picker's leads."""

RECRACK_LINE: Final = 10.5
"""The picker's six-card hand strength (:func:`engine.bots.policy.hand_strength`) to re-crack."""

STAKES_KINDS: Final = frozenset({"blitz", "crack", "no_crack", "recrack", "no_recrack"})
"""The action kinds of docs/rules.md, "Cracking and blitzing"."""


def _weight(c: Card) -> float:
    if c in _QUEENS:
        return 3.0 if c == _QUEENS[0] else 2.6
    if c in _JACKS:
        return 2.0
    if c in _HIGH_POINTS:
        return 1.4
    return 1.0


def defending_strength(hand: Mask, seat: int, picker: int) -> float:
    """How strong ``hand`` is against the picker: weighted trumps plus the seat bonus."""
    score = 0.0
    trumps = hand & TRUMP
    while trumps:
        low = trumps & -trumps
        score += _weight(low.bit_length() - 1)
        trumps ^= low
    if (seat - picker) % 5 >= 3:
        score += BEHIND_PICKER_BONUS
    return score


def wants_to_crack(hand: Mask, seat: int, picker: int) -> bool:
    """Whether a defender holding ``hand`` cracks: four trumps or more and enough weight."""
    return (hand & TRUMP).bit_count() >= 4 and defending_strength(hand, seat, picker) >= CRACK_LINE


def wants_to_recrack(hand: Mask) -> bool:
    """Whether the cracked picker, holding ``hand`` after burying, re-cracks."""
    return hand_strength(hand) >= RECRACK_LINE


def choose_stakes(
    hand: Mask, seat: int, picker: int, legal: Sequence[Mapping[str, Any]]
) -> int | None:
    """Index in ``legal`` of the stakes decision to take, or None when ``legal`` holds none
    (a bury without a blitz open, a call, a card): the caller decides those."""
    kinds = [a.get("action") for a in legal]
    if "blitz" in kinds:
        return kinds.index("blitz")
    if "recrack" in kinds:
        return kinds.index("recrack" if wants_to_recrack(hand) else "no_recrack")
    if "no_crack" in kinds:
        if "crack" not in kinds or not wants_to_crack(hand, seat, picker):
            return kinds.index("no_crack")
        shown = [i for i, a in enumerate(legal) if a.get("action") == "crack" and a.get("blitz")]
        return shown[0] if shown else kinds.index("crack")
    return None


__all__ = ["STAKES_KINDS", "choose_stakes", "wants_to_crack", "wants_to_recrack"]
