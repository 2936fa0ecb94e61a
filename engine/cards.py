"""Cards, card sets, trump and fail classes, ranks and points.

A card is a small integer, ``suit * 8 + rank``, so a set of cards fits in a 32-bit mask and the
hot paths of the engine (follow suit, trick winners) are a few integer operations.

>>> card = parse_card("QC")
>>> card_code(card), card_points(card), is_trump(card)
('QC', 3, True)
>>> hand = CardSet.from_codes(["7C", "QC", "AD"])
>>> str(hand)
'QC AD 7C'
>>> len(hand), parse_card("AD") in hand
(3, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, Literal

from engine.errors import BadCardError

Card = int
"""A card: ``suit * 8 + rank`` with suits ``C S H D`` and ranks ``7 8 9 T J Q K A``."""

Mask = int
"""A set of cards as a bit mask: bit ``card`` is set when the card is in the set."""

JackOrder = Literal["seed", "clubs-first"]
"""How the jacks rank in trump (docs/rules.md, "Trump and fail")."""

SUITS: Final = "CSHD"
"""Suit letters in card order: clubs, spades, hearts, diamonds."""

RANKS: Final = "789TJQKA"
"""Rank letters in card order, lowest index first (not the playing order)."""

CLUBS: Final = 0
SPADES: Final = 1
HEARTS: Final = 2
DIAMONDS: Final = 3

FAIL_SUITS: Final = (CLUBS, SPADES, HEARTS)
"""The three fail suits; diamonds are all trump."""

ALL_CARDS: Final[Mask] = (1 << 32) - 1
"""The whole 32-card deck."""

_RANK_POINTS: Final = {"7": 0, "8": 0, "9": 0, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 11}

CARD_CODES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
"""Wire code of every card, indexed by card."""

_CODE_TO_CARD: Final[dict[str, Card]] = {code: i for i, code in enumerate(CARD_CODES)}

POINTS: Final[tuple[int, ...]] = tuple(_RANK_POINTS[code[0]] for code in CARD_CODES)
"""Card points of every card, indexed by card (A 11, T 10, K 4, Q 3, J 2, else 0)."""


def card(rank: str, suit: str) -> Card:
    """The card of a rank letter and a suit letter.

    >>> card_code(card("T", "D"))
    'TD'
    """
    return parse_card(rank + suit)


def parse_card(code: str) -> Card:
    """Parse a wire code such as ``"QC"`` or ``"TD"``; raise :class:`BadCardError` if invalid."""
    try:
        return _CODE_TO_CARD[code]
    except (KeyError, TypeError):
        raise BadCardError(f"{code!r} is not a card (expected e.g. QC, TD, 7H)") from None


def parse_card_value(value: object) -> Card:
    """:func:`parse_card` for a value read from a file or the wire, of any type (the mypyc
    build refuses a non-string passed as ``str`` with a bare TypeError)."""
    if not isinstance(value, str):
        raise BadCardError(f"{value!r} is not a card (expected e.g. QC, TD, 7H)")
    return parse_card(value)


def card_code(c: Card) -> str:
    """The wire code of a card, e.g. ``"QC"``."""
    return CARD_CODES[c]


def suit_of(c: Card) -> int:
    """The printed suit of a card (0–3 for C S H D), ignoring trump."""
    return c >> 3


def rank_of(c: Card) -> str:
    """The rank letter of a card."""
    return RANKS[c & 7]


def card_points(c: Card) -> int:
    """Card points of one card."""
    return POINTS[c]


def bit(c: Card) -> Mask:
    """The one-card mask of a card."""
    return 1 << c


def _mask(codes: Iterable[str]) -> Mask:
    m = 0
    for code in codes:
        m |= 1 << _CODE_TO_CARD[code]
    return m


QUEENS: Final[Mask] = _mask(["QC", "QS", "QH", "QD"])
JACKS: Final[Mask] = _mask(["JC", "JS", "JH", "JD"])
DIAMOND_CARDS: Final[Mask] = 0xFF << (DIAMONDS * 8)
TRUMP: Final[Mask] = QUEENS | JACKS | DIAMOND_CARDS
"""The 14 trump cards: every queen, every jack, every diamond."""

FAIL: Final[tuple[Mask, ...]] = tuple(((0xFF << (s * 8)) & ~TRUMP) for s in FAIL_SUITS)
"""The six fail cards of clubs, spades and hearts, indexed by suit."""

_SEED_TRUMP: Final = ("QC", "QS", "QH", "QD", "JS", "JC", "JH", "JD")
_CLUBS_FIRST_TRUMP: Final = ("QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD")
_DIAMOND_TRUMP: Final = ("AD", "TD", "KD", "9D", "8D", "7D")

TRUMP_ORDER: Final[dict[str, tuple[Card, ...]]] = {
    "seed": tuple(parse_card(c) for c in _SEED_TRUMP + _DIAMOND_TRUMP),
    "clubs-first": tuple(parse_card(c) for c in _CLUBS_FIRST_TRUMP + _DIAMOND_TRUMP),
}
"""Trump from highest to lowest under each jack order."""

FAIL_ORDER: Final = "ATK987"
"""Fail ranks from highest to lowest."""

FOLLOW: Final[tuple[Mask, ...]] = tuple(
    TRUMP if (1 << c) & TRUMP else FAIL[suit_of(c)] for c in range(32)
)
"""For every card, the mask of cards that follow it: all trump, or its fail suit."""

FOLLOW_CLASS: Final[tuple[int, ...]] = tuple(
    3 if (1 << c) & TRUMP else suit_of(c) for c in range(32)
)
"""For every card, its follow class as a small number: its fail suit (0-2), or 3 for trump."""


def _power_table(order: JackOrder) -> tuple[int, ...]:
    table = [0] * 32
    for c in range(32):
        if (1 << c) & TRUMP:
            table[c] = 100 - TRUMP_ORDER[order].index(c)
        else:
            table[c] = 10 - FAIL_ORDER.index(rank_of(c))
    return tuple(table)


POWER: Final[dict[str, tuple[int, ...]]] = {o: _power_table(o) for o in ("seed", "clubs-first")}
"""Trick-taking power per jack order: any trump beats any fail card; within a class, higher wins."""


def is_trump(c: Card) -> bool:
    """Whether a card is trump (every queen, jack and diamond)."""
    return bool((1 << c) & TRUMP)


def follow_class(c: Card) -> str:
    """The 'suit' a card belongs to for following: ``"trump"``, ``"clubs"``, ``"spades"``, ..."""
    if (1 << c) & TRUMP:
        return "trump"
    return ("clubs", "spades", "hearts")[suit_of(c)]


_BYTE_CARDS: Final = tuple(
    tuple(tuple(8 * k + b for b in range(8) if v >> b & 1) for v in range(256)) for k in range(4)
)
"""Per byte of a mask and its value, the cards of those bits in order."""


def cards_of(mask: Mask) -> tuple[Card, ...]:
    """The cards of a mask, lowest index first.

    >>> cards_of(CardSet.from_codes(["QC", "7C", "AD"]).mask) == (0, 5, 31)
    True
    """
    # Four table lookups: a bit loop costs about a thousand instructions a card in CPython.
    t = _BYTE_CARDS
    return t[0][mask & 255] + t[1][mask >> 8 & 255] + t[2][mask >> 16 & 255] + t[3][mask >> 24]


def cards_in(mask: Mask) -> Iterator[Card]:
    """The cards of a mask, lowest index first (:func:`cards_of`, iterated)."""
    return iter(cards_of(mask))


def mask_points(mask: Mask) -> int:
    """Total card points of a mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total


def sort_key(c: Card, jack_order: JackOrder = "seed") -> tuple[int, int]:
    """Display order: trump high to low, then clubs, spades, hearts each high to low."""
    if (1 << c) & TRUMP:
        return (0, TRUMP_ORDER[jack_order].index(c))
    return (1 + suit_of(c), FAIL_ORDER.index(rank_of(c)))


def sorted_cards(cards: Iterable[Card], jack_order: JackOrder = "seed") -> list[Card]:
    """Cards in display order (see :func:`sort_key`)."""
    return sorted(cards, key=lambda c: sort_key(c, jack_order))


class CardSet:
    """An immutable set of cards backed by a 32-bit mask.

    >>> s = CardSet.from_codes(["AC", "QS"])
    >>> s | CardSet.from_codes(["7D"])
    CardSet('QS 7D AC')
    >>> [card_code(c) for c in s]
    ['AC', 'QS']
    """

    __slots__ = ("mask",)

    mask: Mask

    def __init__(self, mask: Mask = 0) -> None:
        self.mask = mask & ALL_CARDS

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> CardSet:
        """A set of the given cards."""
        m = 0
        for c in cards:
            m |= 1 << c
        return cls(m)

    @classmethod
    def from_codes(cls, codes: Iterable[str]) -> CardSet:
        """A set from wire codes; raises :class:`BadCardError` on a bad code."""
        return cls.from_cards(parse_card(code) for code in codes)

    def __iter__(self) -> Iterator[Card]:
        return cards_in(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __contains__(self, c: object) -> bool:
        return isinstance(c, int) and 0 <= c < 32 and bool(self.mask >> c & 1)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __bool__(self) -> bool:
        return bool(self.mask)

    def points(self) -> int:
        """Total card points in the set."""
        return mask_points(self.mask)

    def codes(self, jack_order: JackOrder = "seed") -> list[str]:
        """Wire codes in display order."""
        return [CARD_CODES[c] for c in sorted_cards(self, jack_order)]

    def __str__(self) -> str:
        return " ".join(self.codes())

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"


def _display_rank(order: JackOrder) -> tuple[int, ...]:
    in_order = sorted(range(32), key=lambda c: sort_key(c, order))
    return tuple(in_order.index(c) for c in range(32))


_DISPLAY_RANK: Final[dict[str, tuple[int, ...]]] = {
    order: _display_rank(order) for order in ("seed", "clubs-first")
}
"""Position of every card in display order, per jack order (indexed by card)."""


def _byte_tables(
    position: tuple[int, ...],
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[str, ...], ...], ...]]:
    """For one display order: per byte of a mask, the same cards as a mask in display
    positions (bit ``position[card]``); per byte of such a mask, its codes in order."""
    to_display = tuple(
        tuple(sum(1 << position[8 * k + b] for b in range(8) if v >> b & 1) for v in range(256))
        for k in range(4)
    )
    card_at = [0] * 32
    for card, at in enumerate(position):
        card_at[at] = card
    codes = tuple(
        tuple(
            tuple(CARD_CODES[card_at[8 * k + b]] for b in range(8) if v >> b & 1)
            for v in range(256)
        )
        for k in range(4)
    )
    return to_display, codes


_DISPLAY_TABLES: Final = {order: _byte_tables(rank) for order, rank in _DISPLAY_RANK.items()}
"""Per jack order, :func:`_byte_tables`: a mask is sorted for display with eight lookups."""


def codes_of(mask: Mask, jack_order: JackOrder = "seed") -> list[str]:
    """Wire codes of a mask in display order.

    >>> codes_of(CardSet.from_codes(["7C", "AD", "QC"]).mask)
    ['QC', 'AD', '7C']
    """
    # Move every card to the bit of its display position, then read the codes off byte by byte:
    # no sort, and a view asks for several hands on every action.
    to_display, codes = _DISPLAY_TABLES[jack_order]
    d = (
        to_display[0][mask & 255]
        | to_display[1][mask >> 8 & 255]
        | to_display[2][mask >> 16 & 255]
        | to_display[3][mask >> 24]
    )
    return [
        *codes[0][d & 255],
        *codes[1][d >> 8 & 255],
        *codes[2][d >> 16 & 255],
        *codes[3][d >> 24],
    ]
