"""The actions a seat can take, as small frozen values with a wire form.

Every action names its seat. ``to_dict`` / ``action_from_dict`` give the map used in hand records
(docs/hand-record.md) and on the wire.

>>> Play(1, parse_card("QC")).to_dict()
{'seat': 1, 'action': 'play', 'card': 'QC'}
>>> action_from_dict({"seat": 2, "action": "bury", "cards": ["7H", "8S"]})
Bury(seat=2, cards=(16, 9))
>>> action_from_dict({"seat": 4, "action": "crack", "blitz": "red"})
Crack(seat=4, blitz='red')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from engine.cards import Card, card_code, parse_card
from engine.errors import BadCardError, BadRecordError

Seat = int
"""A seat number 0–4, clockwise; the seat left of ``s`` is ``(s + 1) % 5``."""

NUM_SEATS: Final = 5


@dataclass(frozen=True, slots=True)
class Pick:
    """Take the blind."""

    seat: Seat
    kind = "pick"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "pick"}


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline the blind."""

    seat: Seat
    kind = "pass"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "pass"}


@dataclass(frozen=True, slots=True)
class Bury:
    """The picker lays two cards face down; they count for the picker."""

    seat: Seat
    cards: tuple[Card, Card]
    kind = "bury"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "bury", "cards": [card_code(c) for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Call:
    """The picker calls a card (a fail ace or ten, or JD); its holder is the secret partner."""

    seat: Seat
    card: Card
    kind = "call"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "call", "card": card_code(self.card)}


@dataclass(frozen=True, slots=True)
class Alone:
    """The picker plays alone against the other four."""

    seat: Seat
    kind = "alone"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "alone"}


@dataclass(frozen=True, slots=True)
class Unknown:
    """Call ``card`` (an ace of a suit the picker lacks) and lay ``under`` face down for it."""

    seat: Seat
    card: Card
    under: Card
    kind = "unknown"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {
            "seat": self.seat,
            "action": "unknown",
            "card": card_code(self.card),
            "under": card_code(self.under),
        }


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the current trick."""

    seat: Seat
    card: Card
    kind = "play"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "play", "card": card_code(self.card)}


Pair = Literal["black", "red"]
"""A queen pair (docs/rules.md, "Cracking and blitzing"): ``black`` is QC+QS, ``red`` is QH+QD."""

PAIRS: Final[tuple[Pair, Pair]] = ("black", "red")
"""Both queen pairs, black first."""


@dataclass(frozen=True, slots=True)
class Blitz:
    """The picker shows a queen pair before burying: the stakes double (docs/rules.md, "Cracking and
    blitzing")."""

    seat: Seat
    pair: Pair
    kind = "blitz"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "blitz", "pair": self.pair}


@dataclass(frozen=True, slots=True)
class Crack:
    """A defender doubles the stakes; with ``blitz`` it shows that queen pair and doubles again."""

    seat: Seat
    blitz: Pair | None = None
    kind = "crack"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action (``blitz`` only when a pair is shown)."""
        if self.blitz is None:
            return {"seat": self.seat, "action": "crack"}
        return {"seat": self.seat, "action": "crack", "blitz": self.blitz}


@dataclass(frozen=True, slots=True)
class NoCrack:
    """A seat asked in the crack round lets the stakes stand."""

    seat: Seat
    kind = "no_crack"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "no_crack"}


@dataclass(frozen=True, slots=True)
class Recrack:
    """The cracked picker doubles the stakes once more."""

    seat: Seat
    kind = "recrack"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "recrack"}


@dataclass(frozen=True, slots=True)
class NoRecrack:
    """The cracked picker lets the crack stand."""

    seat: Seat
    kind = "no_recrack"

    def to_dict(self) -> dict[str, Any]:
        """The record/wire map of this action."""
        return {"seat": self.seat, "action": "no_recrack"}


Action = (
    Pick
    | Pass
    | Bury
    | Call
    | Alone
    | Unknown
    | Play
    | Blitz
    | Crack
    | NoCrack
    | Recrack
    | NoRecrack
)
"""Any action."""

ACTION_KINDS: Final = (
    "pick",
    "pass",
    "bury",
    "call",
    "alone",
    "unknown",
    "play",
    "blitz",
    "crack",
    "no_crack",
    "recrack",
    "no_recrack",
)
"""Every action's ``action`` name on the wire."""


def _card_field(data: Mapping[str, Any], key: str) -> Card:
    value = data.get(key)
    if not isinstance(value, str):
        raise BadCardError(f"action field {key!r} must be a card code")
    return parse_card(value)


PLAYS: Final = tuple(tuple(Play(seat, card) for card in range(32)) for seat in range(NUM_SEATS))
"""``PLAYS[seat][card]``: one shared :class:`Play` per seat and card (actions are values)."""
PASSES: Final = tuple(Pass(seat) for seat in range(NUM_SEATS))
"""One shared :class:`Pass` per seat."""
PICKS: Final = tuple(Pick(seat) for seat in range(NUM_SEATS))
"""One shared :class:`Pick` per seat."""
ALONES: Final = tuple(Alone(seat) for seat in range(NUM_SEATS))
"""One shared :class:`Alone` per seat."""
CALLS: Final = tuple(tuple(Call(seat, card) for card in range(32)) for seat in range(NUM_SEATS))
"""``CALLS[seat][card]``: one shared :class:`Call` per seat and card."""
BLITZES: Final = tuple({pair: Blitz(seat, pair) for pair in PAIRS} for seat in range(NUM_SEATS))
"""``BLITZES[seat][pair]``: one shared :class:`Blitz` per seat and pair."""
CRACKS: Final = tuple(
    {pair: Crack(seat, pair) for pair in (None, *PAIRS)} for seat in range(NUM_SEATS)
)
"""``CRACKS[seat][pair]``: one shared :class:`Crack` per seat and shown pair (None: plain)."""
NO_CRACKS: Final = tuple(NoCrack(seat) for seat in range(NUM_SEATS))
"""One shared :class:`NoCrack` per seat."""
RECRACKS: Final = tuple(Recrack(seat) for seat in range(NUM_SEATS))
"""One shared :class:`Recrack` per seat."""
NO_RECRACKS: Final = tuple(NoRecrack(seat) for seat in range(NUM_SEATS))
"""One shared :class:`NoRecrack` per seat."""


def _pair_field(data: Mapping[str, Any], key: str, optional: bool) -> Pair | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if value == "black":
        return "black"
    if value == "red":
        return "red"
    raise BadRecordError(f"action field {key!r} must be 'black' or 'red'")


_PAIR_KEYS: Final = tuple((a, b) for a in range(32) for b in range(a + 1, 32))

BURIES: Final[tuple[dict[tuple[Card, Card], Bury], ...]] = tuple(
    {pair: Bury(seat, pair) for pair in _PAIR_KEYS} for seat in range(NUM_SEATS)
)
"""``BURIES[seat][(a, b)]`` with ``a < b``: the one shared :class:`Bury` of those two cards.

Made at import, about 2,500 of them (a quarter of a megabyte): a long-running server makes
them all within its first few hundred hands anyway, and made on first use each cost about
10,000 instructions plus the garbage collector's promotions, some 60,000 instructions a hand
over a process's first 300 hands (bench/engine.py). Shared because a picker's legal actions
are 28 of them, held for as long as a person takes to choose: long enough for the garbage
collector to walk each one, and, made anew per hand, to promote them and walk them again.
A picker's choices are ``map(BURIES[seat].__getitem__, combinations(cards, 2))``.
"""


def shared_bury(seat: Seat, first: Card, second: Card) -> Bury:
    """The one shared :class:`Bury` of ``seat`` laying ``first`` and ``second``, in that order.

    >>> shared_bury(2, 9, 16) is shared_bury(2, 9, 16) is BURIES[2][9, 16]
    True
    """
    if 0 <= seat < NUM_SEATS:
        bury = BURIES[seat].get((first, second))
        if bury is not None:
            return bury
    return _unordered_bury(seat, first, second)


@functools.cache
def _unordered_bury(seat: Seat, first: Card, second: Card) -> Bury:
    """A bury the table does not hold (cards out of order, or the same card twice), shared as
    the table's are; only an action map names these."""
    return Bury(seat, (first, second))


def _bury_row(seat: Seat, a: Card) -> tuple[Bury, ...]:
    table = BURIES[seat]
    return tuple(
        table[a, b] if a < b else table[b, a] if b < a else _unordered_bury(seat, a, a)
        for b in range(32)
    )


BURY_ROWS: Final = tuple(tuple(_bury_row(s, a) for a in range(32)) for s in range(NUM_SEATS))
"""``BURY_ROWS[seat][a][b]``: the shared :class:`Bury` of cards ``a`` and ``b`` in card order
(``BURIES[seat][a, b]`` for ``a < b``), whichever is named first; a picker's 28 choices are 28
lookups of these rows (``engine.hand``), where a pair tuple hashed into :data:`BURIES` costs
about a thousand instructions in CPython."""


def action_from_dict(data: Mapping[str, Any], seat: Seat | None = None) -> Action:
    """Parse a record/wire action map; ``seat`` overrides or supplies the map's ``seat``.

    Raises :class:`BadRecordError` for a malformed map and :class:`BadCardError` for a bad card.
    """
    # The exact-type test first: an ABC's isinstance is slow, and a decoded map is a dict.
    if type(data) is not dict and not isinstance(data, Mapping):
        raise BadRecordError("an action must be a map")
    # An object until checked: the mypyc build would refuse a non-int in a Seat variable with
    # a bare TypeError.
    given: object = data.get("seat") if seat is None else seat
    if not isinstance(given, int) or isinstance(given, bool) or not 0 <= given < NUM_SEATS:
        raise BadRecordError("an action's seat must be 0-4")
    seat = given
    kind = data.get("action")
    # The shared instances: a hand keeps every action it applied, and one object per
    # (seat, card) spares a long-running server a few thousand objects per table.
    if kind == "play":
        return PLAYS[seat][_card_field(data, "card")]
    if kind == "pass":
        return PASSES[seat]
    if kind == "pick":
        return PICKS[seat]
    if kind == "bury":
        cards = data.get("cards")
        if not isinstance(cards, list | tuple) or len(cards) != 2:
            raise BadRecordError("bury needs exactly two cards")
        if not all(isinstance(c, str) for c in cards):
            raise BadCardError("bury cards must be card codes")
        return shared_bury(seat, parse_card(cards[0]), parse_card(cards[1]))
    if kind == "call":
        return CALLS[seat][_card_field(data, "card")]
    if kind == "alone":
        return ALONES[seat]
    if kind == "unknown":
        return Unknown(seat, _card_field(data, "card"), _card_field(data, "under"))
    if kind == "no_crack":
        return NO_CRACKS[seat]
    if kind == "crack":
        return CRACKS[seat][_pair_field(data, "blitz", True)]
    if kind == "blitz":
        pair = _pair_field(data, "pair", False)
        assert pair is not None
        return BLITZES[seat][pair]
    if kind == "recrack":
        return RECRACKS[seat]
    if kind == "no_recrack":
        return NO_RECRACKS[seat]
    raise BadRecordError(f"unknown action {kind!r} (expected one of {', '.join(ACTION_KINDS)})")
