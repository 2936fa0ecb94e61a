"""Trick play: legal cards, playing a card, trick winners; the one rule core that the engine and
the search simulator share.

:class:`~engine.hand.Hand` (which validates every action and explains refusals) and
:class:`~engine.bots.sim.Sim` (which plays tens of thousands of unvalidated cards per search
decision) each keep their trick play in a :class:`TrickPlay` and ask this module which cards the
seat to act may play (:func:`legal_cards`) and to play one (:func:`advance`), so the two cannot
drift apart. Everything here is plain integers: cards, masks and seats, with :data:`NO_CARD` /
:data:`NO_SEAT` (-1) for "none"; a trick's cards are a list (so that the mypyc build indexes it
directly).

The rules are docs/rules.md, "4. Choosing a partner" (the called-suit constraints and the
unknown card) and "5. Playing the tricks" (follow suit; the highest trump wins, else the highest
card of the led suit).

>>> from engine.cards import parse_card
>>> strength = TRICK_STRENGTH["seed"]
>>> trick = [parse_card(c) for c in ("AC", "TC", "7D", "KC", "QH")]
>>> trick_winner(trick, strength, NO_CARD)  # QH is the highest trump
4
>>> hands = [parse_mask("TC 8D"), parse_mask("AC 7C QS 9H"), 0, 0, 0]
>>> t = TrickPlay(hands, strength, 0, [0] * 5, [0] * 5)
>>> t.start(picker=0, partner=2, called=parse_card("AH"), under=NO_CARD)
>>> advance(t, 0, parse_card("TC"))  # seat 0 leads: the trick is open, nobody has won it
-1
>>> legal_cards(t) == parse_mask("AC 7C")  # seat 1 must follow clubs
True
"""

from __future__ import annotations

from typing import Final

from engine import errors
from engine.cards import (
    FAIL,
    FOLLOW,
    FOLLOW_CLASS,
    POINTS,
    POWER,
    TRUMP,
    Card,
    Mask,
    card_code,
    parse_card,
    suit_of,
)

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

CARD_BITS: Final = tuple(1 << c for c in range(32))
"""Every card's one-card mask, indexed by card (a lookup allocates no integer)."""

NEXT_SEAT: Final = (1, 2, 3, 4, 0)
"""The seat on the left of each seat."""

FAIL_SUIT_NAMES: Final = ("clubs", "spades", "hearts")
"""Names of the fail suits clubs, spades, hearts, indexed by suit."""

_NOBODY_RULED: Final = (False,) * 5

_FOLLOWS: Final = tuple(
    tuple(FOLLOW_CLASS[c] == FOLLOW_CLASS[lead] for c in range(32)) for lead in range(32)
)
"""Per lead card, per card: whether the card follows the lead (one lookup where comparing the
two follow classes was two and a compare)."""


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


class TrickPlay:
    """The state of trick play as plain integers: what :func:`legal_cards`, :func:`play_rule`
    and :func:`advance` read and change.

    A :class:`~engine.hand.Hand` and a :class:`~engine.bots.sim.Sim` each own one, so one code
    path plays their cards. A mutable slots class rather than a frozen record: a trick advance
    changes it in place, which allocates nothing per card. ``picker``, ``partner``, ``called``,
    ``under`` and ``strength`` are fixed when play starts (:data:`NO_SEAT` / :data:`NO_CARD`
    for none); ``hands``, ``taken`` and ``won`` may be lists the owner shares.
    """

    __slots__ = (
        "called",
        "called_led_at",
        "called_mask",
        "current",
        "hands",
        "last_points",
        "last_trick",
        "leader",
        "legal",
        "ntricks",
        "partner",
        "picker",
        "played",
        "revealed",
        "ruled",
        "strength",
        "taken",
        "turn",
        "under",
        "void_in",
        "won",
    )

    hands: list[Mask]
    """Every seat's cards."""
    current: list[Card]
    """The cards of the open trick so far, from ``leader`` on."""
    leader: int
    turn: int
    ntricks: int
    """Tricks finished (the number of the open one)."""
    taken: list[int]
    """Card points each seat has taken in tricks."""
    won: list[int]
    """Tricks each seat has won."""
    last_points: int
    """The card points of the trick :func:`advance` closed last (0 before the first)."""
    last_trick: list[Card]
    """The cards of the trick :func:`advance` closed last, in play order (empty before the
    first): the list that was ``current``."""
    void_in: list[Mask]
    """Per seat, the follow classes (:data:`~engine.cards.FOLLOW` masks) it has shown it lacks by
    not following them (the unknown card shows nothing)."""
    played: Mask
    called_led_at: int
    """The trick in which the called suit was first led (-1: not yet)."""
    revealed: bool
    """Whether the called card has been played."""
    picker: int
    partner: int
    called: Card
    called_mask: Mask
    """The called card's fail suit (0: nothing, or JD, called: no called-suit rules)."""
    under: Card
    ruled: tuple[bool, ...]
    """Per seat, whether the called-suit rules can bind it: the picker and the partner when a
    fail card was called. A tuple, not a mask: :func:`legal_cards` asks it for every card, and
    indexing a tuple is cheaper in CPython than shifting and masking an int."""
    strength: tuple[tuple[int, ...], ...]
    legal: Mask
    """The cards the seat to act may play, as :func:`legal_cards` answers: set by :meth:`start`
    and kept by :func:`advance` (0 before play starts), so that a caller playing through these
    two reads it instead of asking again. Code that changes the state otherwise (a test's
    position, :meth:`engine.bots.sim.Sim.unplay`) sets it again."""

    def __init__(
        self,
        hands: list[Mask],
        strength: tuple[tuple[int, ...], ...],
        leader: int,
        taken: list[int],
        won: list[int],
    ) -> None:
        self.hands = hands
        self.strength = strength
        self.current = []
        self.leader = self.turn = leader
        self.ntricks = 0
        self.taken = taken
        self.won = won
        self.void_in = [0] * 5
        self.played = 0
        self.called_led_at = -1
        self.revealed = False
        self.last_points = 0
        self.last_trick = []
        self.picker = self.partner = NO_SEAT
        self.called = self.under = NO_CARD
        self.called_mask = 0
        self.ruled = _NOBODY_RULED
        self.legal = 0

    def start(self, picker: int, partner: int, called: Card, under: Card) -> None:
        """Set what the bidding decided: the picker, the partner (who holds the called card),
        the called card and the unknown card (:data:`NO_SEAT` / :data:`NO_CARD` for none)."""
        self.picker = picker
        self.partner = partner
        self.called = called
        # called_suit_mask(called), without the call
        self.called_mask = mask = 0 if called < 0 or called == JD else FAIL[called >> 3]
        self.under = under
        ruled = [False] * 5
        if mask:
            for seat in picker, partner:
                if seat >= 0:
                    ruled[seat] = True
        self.ruled = tuple(ruled)
        self.legal = legal_cards(self)

    def copy(self) -> TrickPlay:
        """An independent copy (fresh lists; the tuple of strengths is shared)."""
        other = TrickPlay(
            self.hands.copy(), self.strength, self.leader, self.taken.copy(), self.won.copy()
        )
        other.start(self.picker, self.partner, self.called, self.under)
        other.current = self.current.copy()
        other.turn = self.turn
        other.ntricks = self.ntricks
        other.void_in = self.void_in.copy()
        other.played = self.played
        other.called_led_at = self.called_led_at
        other.revealed = self.revealed
        other.last_points = self.last_points
        other.last_trick = self.last_trick.copy()
        other.legal = self.legal
        return other


def legal_cards(t: TrickPlay) -> Mask:
    """The cards the seat to act (``t.turn``) may play on the open trick.

    Same answer as :func:`play_rule`, whose common case this is without the explanation.
    """
    seat = t.turn
    hand = t.hands[seat]
    current = t.current
    if t.ruled[seat] and t.ntricks != LAST_TRICK:
        # The called-suit rules can narrow following suit (play_rule explains how): for the
        # partner while it holds the called card; for the picker while it holds an unknown
        # card, or, on a trick already led, until the called suit is led (the hold card).
        if seat == t.partner:
            if hand >> t.called & 1:
                return play_rule(t)[0]
        elif t.under >= 0 or (t.called_led_at < 0 and current):
            return play_rule(t)[0]
    if current:
        return hand & FOLLOW[current[0]] or hand
    return hand


def play_rule(t: TrickPlay) -> tuple[Mask, Mask, int]:
    """The legal cards of the seat to act (as :func:`legal_cards`), the cards that follow suit,
    and which rule narrowed the first to less than the second (:data:`FOLLOW_ONLY` when none
    did).

    "Follow suit" here leaves out a held unknown card: it is played only when the called suit is
    led, or when it is the last card.
    """
    seat = t.turn
    hand = t.hands[seat]
    current = t.current
    trick_number = t.ntricks
    picker = t.picker
    under = t.under
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
    suit_mask = t.called_mask
    if not suit_mask or trick_number == LAST_TRICK:
        return base, base, FOLLOW_ONLY
    called = t.called
    lead_in_called = lead >= 0 and bool((1 << lead) & suit_mask)
    if holds_under:
        if lead_in_called and t.called_led_at == trick_number:
            return 1 << under, base, UNKNOWN_CARD_REQUIRED
        return base, base, FOLLOW_ONLY
    if seat == picker and t.called_led_at < 0 and current and under < 0:
        hold = hand & suit_mask
        if hold.bit_count() == 1 and base & hold and base != hold:
            return base & ~hold, base, HOLD_CARD_REQUIRED
    if seat == t.partner and hand >> called & 1:
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


def advance(t: TrickPlay, seat: int, card: Card) -> int:
    """Play ``card`` for ``seat`` (the seat to act; no validation) and return the seat that
    wins the trick if this card closes it, else :data:`NO_SEAT`.

    The one place a card is played, for the engine and the search simulator alike, so that what
    a card shows (a void, the called suit led, the partner revealed) is recorded the same way
    everywhere. A closed trick's cards stay in the list that was ``t.current`` (the caller may
    hold it), kept as ``t.last_trick``; ``t.current`` becomes a new list. ``t.legal`` becomes
    the next seat's legal cards.
    """
    # Subtracting and adding the bit, not xor and or: the same for a held card, not yet played,
    # and CPython has a fast path for int + and - but none for ^ or |.
    bit = CARD_BITS[card]
    hands = t.hands
    hands[seat] -= bit
    t.played += bit
    current = t.current
    if current:
        lead = current[0]
        # A table of booleans, not the masks: the trump mask, with bits 30 and 31, is a
        # two-digit int in CPython, whose operations take the generic (slow) path.
        if not _FOLLOWS[lead][card] and card != t.under:
            t.void_in[seat] |= FOLLOW[lead]
    else:
        lead = card
        if t.called_led_at < 0 and FOLLOW[card] == t.called_mask:
            t.called_led_at = t.ntricks
    current.append(card)
    if card == t.called:
        t.revealed = True
    seat = NEXT_SEAT[seat]
    if seat != t.leader:  # the trick is still open
        t.turn = seat
        # legal_cards' answer; written out for the seats the called-suit rules cannot bind
        # (most turns), where it is following suit: one Python call less a card.
        if t.ruled[seat]:
            t.legal = legal_cards(t)
        else:
            held = hands[seat]
            t.legal = held & FOLLOW[lead] or held
        return NO_SEAT
    c0, c1, c2, c3, c4 = current
    under = t.under
    if under < 0 or under not in current:
        # trick_winner's answer for a closed trick without the unknown card, written out (once
        # a trick of every hand and rollout): the highest strength wins, and the lead's own is
        # above 0.
        row = t.strength[c0]
        best = row[c0]
        i = 0
        s = row[c1]
        if s > best:
            best = s
            i = 1
        s = row[c2]
        if s > best:
            best = s
            i = 2
        s = row[c3]
        if s > best:
            best = s
            i = 3
        if row[c4] > best:
            i = 4
    else:
        i = trick_winner(current, t.strength, under)
    winner = t.leader + i
    if winner >= 5:
        winner -= 5
    t.last_points = points = POINTS[c0] + POINTS[c1] + POINTS[c2] + POINTS[c3] + POINTS[c4]
    t.taken[winner] += points
    t.won[winner] += 1
    t.last_trick = current
    t.current = []
    t.leader = t.turn = winner
    t.ntricks += 1
    t.legal = legal_cards(t) if t.ruled[winner] else hands[winner]
    return winner


def trick_points(cards: list[Card]) -> int:
    """The card points of a trick's cards."""
    points = 0
    for c in cards:
        points += POINTS[c]
    return points


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
    never win (docs/rules.md, "4. Choosing a partner"): when it is led on the last trick and nobody
    follows its suit or trumps, the suit of the next card decides.
    """
    # advance() closes a trick without the unknown card by the same rule written out.
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
