"""How cards look in the terminal: ``Q♣``, ``10♦``; hearts and diamonds red where colour exists.

Suits are always printed as symbols, so the cards stay readable in a monochrome terminal or with
``NO_COLOR``; colour only adds red and black. With ``NO_COLOR`` set every card is drawn in the
terminal's default foreground: bold for emphasis, plain for a card you may not play, never a dim
or grey colour (Textual turns colours into greys there, and red on black became unreadable).

>>> card_label("TD"), card_label("QC"), card_label("7H")
('10♦', 'Q♣', '7♥')
>>> cards_label(["AS", "TH"])
'A♠ 10♥'
>>> card_label("ZZ")
'ZZ'
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Final

from rich.text import Text

SUIT_SYMBOLS: Final = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
"""The symbol shown for each suit letter of a card code."""

SUIT_NAMES: Final = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds"}
"""The name of each suit letter, for sentences."""

RED_SUITS: Final = frozenset("HD")
"""Suit letters printed in red."""

RED_STYLE: Final = "bold red"
"""Rich style of a red suit's card."""

BLACK_STYLE: Final = "bold"
"""Rich style of a black suit's card (default foreground, so it reads on any background)."""


def card_label(code: str) -> str:
    """The short label of a card code: rank (10 for T) and suit symbol; unknown codes as given."""
    if len(code) != 2 or code[1] not in SUIT_SYMBOLS:
        return code
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOLS[code[1]]


def cards_label(codes: Iterable[str]) -> str:
    """Labels of several cards separated by spaces."""
    return " ".join(card_label(c) for c in codes)


def no_color() -> bool:
    """Whether the user asked for no colour (``NO_COLOR`` set, to anything)."""
    return "NO_COLOR" in os.environ


def card_style(code: str) -> str:
    """The Rich style of a card's label."""
    if no_color():
        return BLACK_STYLE
    return RED_STYLE if code[1:] in RED_SUITS else BLACK_STYLE


def card_text(code: str, *, dim: bool = False, width: int = 0) -> Text:
    """A styled label, optionally dimmed and right-padded to ``width`` cells.

    Without colour a "dimmed" card is plain text instead (not bold), never a dim grey.
    """
    label = card_label(code)
    if no_color():
        style = "" if dim else BLACK_STYLE
    else:
        style = card_style(code) + (" dim" if dim else "")
    text = Text(label, style=style)
    if width > len(label):
        text.append(" " * (width - len(label)))
    return text


def cards_text(codes: Iterable[str], sep: str = " ") -> Text:
    """Several styled labels separated by ``sep``."""
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(sep)
        out.append_text(card_text(code))
    return out


def fail_cards_of_suit(hand: Iterable[str], suit: str) -> list[str]:
    """The cards of a fail suit in a hand: that suit's 7 8 9 T K A (queens and jacks are trump).

    Used only to explain a call to the player; which calls are legal comes from the server.
    """
    return [c for c in hand if len(c) == 2 and c[1] == suit and c[0] not in "QJ" and suit != "D"]
