"""Legal cards and trick winners: the one rule core that the engine and the search simulator share.

:class:`~engine.hand.Hand` (which validates every action and explains refusals) and
:class:`~engine.bots.sim.Sim` (which plays tens of thousands of unvalidated cards per search
decision) both ask this module which cards the seat to act may play and who wins a trick, so the
two cannot drift apart. Everything here is plain integers: cards, masks and seats, with
:data:`NO_CARD` / :data:`NO_SEAT` (-1) for "none", which both callers can pass without allocating;
a trick's cards are the caller's own list (typed as a list so that the mypyc build indexes it
directly).

The rules are RULES.md §5 (the called-suit constraints and the unknown card) and §6 (follow suit;
the highest trump wins, else the highest card of the led suit).

>>> from engine.cards import parse_card
>>> strength = TRICK_STRENGTH["seed"]
>>> trick = [parse_card(c) for c in ("AC", "TC", "7D", "KC", "QH")]
>>> trick_winner(trick, strength, NO_CARD)  # QH is the highest trump
4
>>> hand = parse_mask("AC 7C QS 9H")
>>> legal = legal_cards(hand, 1, [parse_card("TC")], 0, 0, 2, parse_card("AH"), -1, NO_CARD)
>>> legal == parse_mask("AC 7C")
True
"""

from __future__ import annotations

from typing import Final

from engine import errors
from engine.cards import FAIL, FOLLOW, POWER, TRUMP, Card, Mask, card_code, parse_card, suit_of

NO_CARD: Final = -1
"""No card: nothing called, or no unknown card."""

NO_SEAT: Final = -1
"""No seat: no picker (a leaster) or no partner (alone, or the partner not yet known)."""

LAST_TRICK: Final = 5
"""Index of the sixth and last trick, where the called-suit constraints no longer apply."""

JD: Final = parse_card("JD")

FOLLOW_ONLY: Final = 0
"""A :func:`play_rule` answer: nothing narrows the cards beyond following suit."""
UNKNOWN_CARD_REQUIRED: Final = 1
"""The called suit is led for the first time: the picker must play the face-down unknown card."""
HOLD_CARD_REQUIRED: Final = 2
"""The picker may not throw the last card of the called suit (the hold card) on another suit."""
CALLED_CARD_REQUIRED: Final = 3
"""The called suit is led for the first time: the partner must play the called card."""
CALLED_SUIT_RESTRICTED: Final = 4
"""The partner may lead the called suit only with the called card until that suit is led."""
CALLED_CARD_HELD: Final = 5
"""The partner may not throw the called card on another suit until the called suit is led."""

RULE_CODES: Final = (
    "",
    errors.UNKNOWN_CARD_REQUIRED,
    errors.HOLD_CARD_REQUIRED,
    errors.CALLED_CARD_REQUIRED,
    errors.CALLED_SUIT_RESTRICTED,
    errors.CALLED_CARD_HELD,
)
"""The stable error code of a card refused by each :func:`play_rule` answer (PROTOCOL.md)."""

FAIL_SUIT_NAMES: Final = ("clubs", "spades", "hearts")
"""Names of the fail suits clubs, spades, hearts, indexed by suit."""


def parse_mask(codes: str) -> Mask:
    """The mask of space-separated card codes (for examples and tests).

    >>> parse_mask("QC 7D") == (1 << parse_card("QC")) | (1 << parse_card("7D"))
    True
    """
    m = 0
    for code in codes.split():
        m |= 1 << parse_card(code)
    return m


def called_suit_mask(called: Card) -> Mask:
    """The fail suit of the called card (0 when nothing, or JD, was called)."""
    if called < 0 or called == JD:
        return 0
    return FAIL[suit_of(called)]


def legal_cards(
    hand: Mask,
    seat: int,
    current: list[Card],
    trick_number: int,
    picker: int,
    partner: int,
    called: Card,
    called_led_at: int,
    under: Card,
) -> Mask:
    """The cards ``seat`` may play from ``hand`` on the trick ``current`` (cards so far).

    ``partner`` is the seat holding the called card (:data:`NO_SEAT` if none), ``called_led_at``
    the trick in which the called suit was first led (-1: not yet), ``under`` the picker's
    face-down unknown card (:data:`NO_CARD` if none). Same answer as :func:`play_rule`, whose
    common case this is without the explanation.
    """
    if (
        called < 0
        or called == JD
        or trick_number == LAST_TRICK
        or (seat != picker and seat != partner)
    ):
        # No called-suit constraint can apply: follow suit if possible.
        if current:
            return hand & FOLLOW[current[0]] or hand
        return hand
    return play_rule(
        hand, seat, current, trick_number, picker, partner, called, called_led_at, under
    )[0]


def play_rule(
    hand: Mask,
    seat: int,
    current: list[Card],
    trick_number: int,
    picker: int,
    partner: int,
    called: Card,
    called_led_at: int,
    under: Card,
) -> tuple[Mask, Mask, int]:
    """The legal cards (as :func:`legal_cards`), the cards that follow suit, and which rule
    narrowed the first to less than the second (:data:`FOLLOW_ONLY` when none did).

    "Follow suit" here leaves out a held unknown card: it is played only when the called suit is
    led, or when it is the last card.
    """
    holds_under = under >= 0 and seat == picker and bool(hand >> under & 1)
    playable = hand & ~(1 << under) if holds_under else hand
    if current:
        lead = current[0]
        base = playable & FOLLOW[lead] or playable
    else:
        lead = NO_CARD
        base = playable
    if not base:
        base = hand  # only the unknown card is left
    if called < 0 or called == JD or trick_number == LAST_TRICK:
        return base, base, FOLLOW_ONLY
    suit_mask = FAIL[suit_of(called)]
    lead_in_called = lead >= 0 and bool((1 << lead) & suit_mask)
    if holds_under:
        if lead_in_called and called_led_at == trick_number:
            return 1 << under, base, UNKNOWN_CARD_REQUIRED
        return base, base, FOLLOW_ONLY
    if seat == picker and called_led_at < 0 and current and under < 0:
        hold = hand & suit_mask
        if hold.bit_count() == 1 and base & hold and base != hold:
            return base & ~hold, base, HOLD_CARD_REQUIRED
    if seat == partner and hand >> called & 1:
        if lead_in_called:
            return 1 << called, base, CALLED_CARD_REQUIRED
        if not current:
            narrowed = base & ~(suit_mask & ~(1 << called))
            if narrowed != base and narrowed:
                return narrowed, base, CALLED_SUIT_RESTRICTED
        else:
            narrowed = base & ~(1 << called)
            if narrowed != base and narrowed:
                return narrowed, base, CALLED_CARD_HELD
    return base, base, FOLLOW_ONLY


def rule_message(rule: int, called: Card) -> str:
    """What a player is told when a card is refused by ``rule`` (a :func:`play_rule` answer)."""
    if rule == UNKNOWN_CARD_REQUIRED:
        return "The called suit is led: you must play your face-down unknown card"
    if rule == HOLD_CARD_REQUIRED:
        return (
            f"You must keep your last {FAIL_SUIT_NAMES[suit_of(called)]} (the hold card) "
            "until that suit is led"
        )
    name = card_code(called)
    if rule == CALLED_CARD_REQUIRED:
        return f"The called suit is led: you must play {name}"
    if rule == CALLED_SUIT_RESTRICTED:
        return f"Until the called suit is led you may lead it only with {name}"
    if rule == CALLED_CARD_HELD:
        return f"You may not throw {name} on another suit before the called suit is led"
    return ""


def _strength_table(power: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    rows = []
    for lead in range(32):
        follow = FOLLOW[lead]
        row = []
        for c in range(32):
            if (1 << c) & TRUMP:
                row.append(power[c] + 100)
            elif (1 << c) & follow:
                row.append(power[c])
            else:
                row.append(0)
        rows.append(tuple(row))
    return tuple(rows)


TRICK_STRENGTH: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    order: _strength_table(power) for order, power in POWER.items()
}
"""Per jack order, ``[lead card][card]``: how strongly a card contends for a trick led by the
lead card. Every trump beats every card of the led suit; a card of another fail suit is 0 and
cannot win."""


def trick_winner(cards: list[Card], strength: tuple[tuple[int, ...], ...], under: Card) -> int:
    """Index in ``cards`` of the card that wins (or, for a trick still open, is winning) it.

    ``strength`` is :data:`TRICK_STRENGTH` of the jack order. The unknown card ``under`` can
    never win (RULES.md §5): when it is led on the last trick and nobody follows its suit or
    trumps, the suit of the next card decides.
    """
    row = strength[cards[0]]
    best = 0
    best_i = 0
    for i in range(len(cards)):
        c = cards[i]
        s = row[c]
        if s > best and c != under:
            best = s
            best_i = i
    if best == 0 and len(cards) > 1:
        row = strength[cards[1]]
        for i in range(1, len(cards)):
            c = cards[i]
            s = row[c]
            if s > best:
                best = s
                best_i = i
    return best_i
