"""The observation vector: its layout, the reference encoder and the environment's fast path.

:func:`encode_view` is the reference: it builds a seat's vector from its view map
(:func:`engine.view.seat_view`, or the ``view`` of a ``state`` message), so it can show no more
than the seat may see, and a bot playing over the network can use a trained policy.
:class:`Tracker` is the fast path the environment (:mod:`botkit.env`) uses: every seat's vector
kept up to date action by action from the engine's state. ``tests/botkit/test_encode.py``
checks the two equal for every seat after every action of many random hands under every preset.
:func:`legal_mask` is likewise the reference ``action_mask``, built from the engine's legal
actions; :class:`botkit.cache.MaskCache` is the fast one.

Seats are *relative*: 0 is the observing seat, 1 the seat to its left, and so on. The layout,
by offset (:data:`OBSERVATION_LAYOUT`):

=======  =====  ===========================================================================
offset   size   content (1.0 = yes)
=======  =====  ===========================================================================
0        32     my hand
32       32     the blind: as picker once picked; everyone's once the hand is over
64       32     the bury: as picker once buried; everyone's once the hand is over
96       32     the unknown card laid face down (picker, or everyone once over)
128      32     the called card
160      160    cards played in finished tricks, 32 per relative seat that played them
320      160    the current trick's cards, 32 per relative seat
480      5      phase: pick, bury, call, play, done
485      5      dealer (relative seat)
490      5      picker (relative seat; all zero before a pick, in a leaster or doubler)
495      5      partner, when this seat knows it (it is the partner, or the called card fell)
500      5      the seats that passed
505      5      leader of the current trick
510      5      the seat to act (all zero once over)
515      5      card points taken in tricks, / 120, per relative seat
520      5      tricks won, / 6, per relative seat
525      4      alone, unknown card called, leaster, doubler
529      1      stakes: log2(multiplier) / 10, at most 1
530      9      rules: jack_order clubs-first; partner jack-of-diamonds; no_pick leaster,
                doubler, forced-pick; unknown_card; no_trick_partner_exempt;
                double_on_the_bump; leaster_needs_trick
539      2      phase, continued: crack, recrack (the phase field above is then all zero)
541      2      the picker blitzed the black queens, the red queens
543      5      the seat that cracked (relative)
548      2      the cracker showed the black queens, the red queens
550      1      the picker re-cracked
551      1      the hand's stakes so far (the view's ``stakes``: the multiplier doubled per
                blitz, crack, shown pair and re-crack): log2 / 10, at most 1
552      3      rules: blitzing; cracking; crack_by defenders
=======  =====  ===========================================================================

New fields are appended; :data:`OBSERVATION_SIZE` is the total (555 today; the first 539 are
the layout before cracking and blitzing, unchanged).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from botkit.extras import missing_extra

try:
    import numpy as np
    import numpy.typing as npt
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise missing_extra("botkit.encode", "rl", missing) from None

from botkit.actions import ACTION_COUNT, QUEEN_PAIR_NUMBER, action_index
from engine.actions import NUM_SEATS, Action
from engine.cards import Mask, parse_card
from engine.hand import Hand
from engine.rules import RuleSet

__all__ = [
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "Mask8",
    "Tracker",
    "Vector",
    "encode_view",
    "legal_mask",
]

OBSERVATION_LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("hand", 32),
    ("blind", 32),
    ("buried", 32),
    ("under", 32),
    ("called", 32),
    ("played", 160),
    ("trick", 160),
    ("phase", 5),
    ("dealer", 5),
    ("picker", 5),
    ("partner", 5),
    ("passed", 5),
    ("leader", 5),
    ("turn", 5),
    ("trick_points", 5),
    ("tricks_won", 5),
    ("flags", 4),
    ("stakes", 1),
    ("rules", 9),
    ("crack_phase", 2),
    ("blitzes", 2),
    ("cracker", 5),
    ("crack_pair", 2),
    ("recrack", 1),
    ("hand_stakes", 1),
    ("house_rules", 3),
)
"""Each observation field's name and size, in order (see the module doc)."""

_OFFSET: Final = {
    name: sum(size for _, size in OBSERVATION_LAYOUT[:i])
    for i, (name, _) in enumerate(OBSERVATION_LAYOUT)
}
OBSERVATION_SIZE: Final = sum(size for _, size in OBSERVATION_LAYOUT)
"""The length of the observation vector (555 today; new fields are appended)."""

HAND_AT: Final = _OFFSET["hand"]
BLIND_AT: Final = _OFFSET["blind"]
BURIED_AT: Final = _OFFSET["buried"]
UNDER_AT: Final = _OFFSET["under"]
CALLED_AT: Final = _OFFSET["called"]
PLAYED_AT: Final = _OFFSET["played"]
TRICK_AT: Final = _OFFSET["trick"]
PHASE_AT: Final = _OFFSET["phase"]
DEALER_AT: Final = _OFFSET["dealer"]
PICKER_AT: Final = _OFFSET["picker"]
PARTNER_AT: Final = _OFFSET["partner"]
PASSED_AT: Final = _OFFSET["passed"]
LEADER_AT: Final = _OFFSET["leader"]
TURN_AT: Final = _OFFSET["turn"]
POINTS_AT: Final = _OFFSET["trick_points"]
WON_AT: Final = _OFFSET["tricks_won"]
FLAGS_AT: Final = _OFFSET["flags"]
STAKES_AT: Final = _OFFSET["stakes"]
RULES_AT: Final = _OFFSET["rules"]
CRACK_PHASE_AT: Final = _OFFSET["crack_phase"]
BLITZES_AT: Final = _OFFSET["blitzes"]
CRACKER_AT: Final = _OFFSET["cracker"]
CRACK_PAIR_AT: Final = _OFFSET["crack_pair"]
RECRACK_AT: Final = _OFFSET["recrack"]
HAND_STAKES_AT: Final = _OFFSET["hand_stakes"]
HOUSE_RULES_AT: Final = _OFFSET["house_rules"]

_PHASE_SLOT: Final = {
    "pick": PHASE_AT,
    "bury": PHASE_AT + 1,
    "call": PHASE_AT + 2,
    "play": PHASE_AT + 3,
    "done": PHASE_AT + 4,
    "crack": CRACK_PHASE_AT,
    "recrack": CRACK_PHASE_AT + 1,
}
"""Where each phase's bit is (the crack phases came later: a field of their own)."""

Vector = npt.NDArray[np.float32]
"""An observation vector: :data:`OBSERVATION_SIZE` floats."""
Mask8 = npt.NDArray[np.int8]
"""An ``action_mask``: :data:`~botkit.actions.ACTION_COUNT` bytes, 1 = legal."""


def _stakes(multiplier: int) -> float:
    return min(1.0, math.log2(max(1, multiplier)) / 10)


def _rules_bits(rules: RuleSet) -> list[float]:
    """The ``rules`` field, then the ``house_rules`` field."""
    return [
        float(rules.jack_order == "clubs-first"),
        float(rules.partner == "jack-of-diamonds"),
        float(rules.no_pick == "leaster"),
        float(rules.no_pick == "doubler"),
        float(rules.no_pick == "forced-pick"),
        float(rules.unknown_card),
        float(rules.no_trick_partner_exempt),
        float(rules.double_on_the_bump),
        float(rules.leaster_needs_trick),
        float(rules.blitzing),
        float(rules.cracking),
        float(rules.crack_by == "defenders"),
    ]


def _put_rules(out: npt.NDArray[np.float32], rules: RuleSet) -> None:
    """Both rules fields, in a vector or (broadcast) in every row."""
    bits = _rules_bits(rules)
    out[..., RULES_AT : RULES_AT + 9] = bits[:9]
    out[..., HOUSE_RULES_AT : HOUSE_RULES_AT + 3] = bits[9:]


def encode_view(view: Mapping[str, Any]) -> Vector:
    """The observation vector of a seat's view map (:func:`engine.view.seat_view`, or the
    ``view`` of a ``state`` message). The environment builds the same vector from the engine's
    state directly, which is faster.

    >>> from engine.view import seat_view
    >>> hand = Hand.from_seed(RuleSet(), 0, 1)
    >>> vector = encode_view(seat_view(hand, 1))
    >>> vector.shape, int(vector[:32].sum()), float(vector[PHASE_AT])
    ((555,), 6, 1.0)
    """
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    me = int(view["seat"])

    def rel(seat: int) -> int:
        return (seat - me) % NUM_SEATS

    def cards(at: int, codes: Sequence[str] | None) -> None:
        for code in codes or ():
            out[at + parse_card(code)] = 1.0

    def seat_bit(at: int, seat: int | None) -> None:
        if seat is not None:
            out[at + rel(seat)] = 1.0

    cards(HAND_AT, view.get("hand"))
    cards(BLIND_AT, view.get("blind"))
    cards(BURIED_AT, view.get("buried"))
    if view.get("under") is not None:
        cards(UNDER_AT, [view["under"]])
    if view.get("called") is not None:
        cards(CALLED_AT, [view["called"]])
    for trick in view.get("tricks") or ():
        leader = int(trick["leader"])
        for i, code in enumerate(trick["cards"]):
            out[PLAYED_AT + 32 * rel(leader + i) + parse_card(code)] = 1.0
    trick = view.get("trick") or {}
    for played in trick.get("cards") or ():
        out[TRICK_AT + 32 * rel(int(played["seat"])) + parse_card(played["card"])] = 1.0
    out[_PHASE_SLOT[str(view["phase"])]] = 1.0
    seat_bit(DEALER_AT, view.get("dealer"))
    seat_bit(PICKER_AT, view.get("picker"))
    seat_bit(PARTNER_AT, view.get("partner"))
    for seat in view.get("passes") or ():
        seat_bit(PASSED_AT, seat)
    if view["phase"] == "play":
        seat_bit(LEADER_AT, trick.get("leader"))
    seat_bit(TURN_AT, view.get("turn"))
    for seat, points in enumerate(view.get("trick_points") or ()):
        out[POINTS_AT + rel(seat)] = points / 120
    for seat, won in enumerate(view.get("tricks_won") or ()):
        out[WON_AT + rel(seat)] = won / 6
    for i, flag in enumerate(("alone", "unknown", "leaster", "doubler")):
        out[FLAGS_AT + i] = float(bool(view.get(flag)))
    multiplier = int(view.get("multiplier") or 1)
    out[STAKES_AT] = _stakes(multiplier)
    _put_rules(out, RuleSet.from_dict(view.get("rules") or {}))
    for blitz in view.get("blitzes") or ():
        out[BLITZES_AT + QUEEN_PAIR_NUMBER[blitz["pair"]]] = 1.0
    crack = view.get("crack")
    if crack is not None:
        seat_bit(CRACKER_AT, crack["seat"])
        if crack.get("blitz") is not None:
            out[CRACK_PAIR_AT + QUEEN_PAIR_NUMBER[crack["blitz"]]] = 1.0
    out[RECRACK_AT] = float(bool(view.get("recrack")))
    out[HAND_STAKES_AT] = _stakes(int(view.get("stakes") or multiplier))
    return out


def legal_mask(hand: Hand) -> Mask8:
    """The ``action_mask`` of the seat to act: 1 at the index of every legal action of the
    engine's (the reference; the environment reads :class:`botkit.cache.MaskCache`'s)."""
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    for action in hand.legal_actions():
        mask[action_index(action)] = 1
    return mask


# ------------------------------------------------------------------------------ the fast path

_FLOAT_BYTES: Final = tuple(
    row.tobytes()
    for row in np.unpackbits(
        np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
    ).astype(np.float32)
)
"""One byte of a card mask -> its eight bits as float32 bytes (joined, four make a vector)."""


def _seat_cells(at: int) -> tuple[tuple[int, ...], ...]:
    """For a seat block at ``at``: ``[p]``, the flat indices, in the tracker's five rows, of
    ``p``'s entry in every observer's relative block."""
    return tuple(
        tuple(s * OBSERVATION_SIZE + at + (p - s) % NUM_SEATS for s in range(NUM_SEATS))
        for p in range(NUM_SEATS)
    )


def _card_cells(at: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For a card plane per seat at ``at``: ``[p][c]``, the flat indices of ``p``'s card ``c``
    in every observer's relative plane."""
    return tuple(
        tuple(
            tuple(
                s * OBSERVATION_SIZE + at + 32 * ((p - s) % NUM_SEATS) + c for s in range(NUM_SEATS)
            )
            for c in range(32)
        )
        for p in range(NUM_SEATS)
    )


_PLAYED_PLANES: Final = _card_cells(PLAYED_AT)
_PLAYED_CELLS: Final = tuple(
    tuple(_PLAYED_PLANES[(leader + i) % NUM_SEATS] for i in range(NUM_SEATS))
    for leader in range(NUM_SEATS)
)
"""``[leader][i][c]``: the flat indices of card ``c`` as the ``i``-th of a trick ``leader``
led, in every observer's finished-tricks plane."""
_DEALER_CELLS: Final = _seat_cells(DEALER_AT)
_PASSED_CELLS: Final = _seat_cells(PASSED_AT)
_PICKER_CELLS: Final = _seat_cells(PICKER_AT)
_PARTNER_CELLS: Final = _seat_cells(PARTNER_AT)
_CRACKER_CELLS: Final = _seat_cells(CRACKER_AT)
_LEADER_CELLS: Final = _seat_cells(LEADER_AT)
_POINTS_CELLS: Final = _seat_cells(POINTS_AT)
_WON_CELLS: Final = _seat_cells(WON_AT)
_TRICK_CELLS: Final = _card_cells(TRICK_AT)
_LATER_CELLS: Final = tuple(
    tuple(
        tuple(
            tuple(_TRICK_CELLS[p][c][(p + i) % NUM_SEATS] for i in range(1, NUM_SEATS - k))
            for c in range(32)
        )
        for p in range(NUM_SEATS)
    )
    for k in range(NUM_SEATS)
)
"""``[k][p][c]``: where ``p`` playing ``c`` as the trick's card number ``k`` (0 leads) shows in
the current-trick planes of the seats still to play in the trick (the rows kept current)."""
_TRICK_BLOCK: Final = slice(TRICK_AT, TRICK_AT + 32 * NUM_SEATS)
_HAND_BYTES: Final = tuple(4 * (seat * OBSERVATION_SIZE + HAND_AT) for seat in range(NUM_SEATS))
"""Where each seat's hand entries start in the tracker's rows, in bytes."""
_TURN_SLOT: Final = tuple(
    tuple(TURN_AT + (turn - me) % NUM_SEATS for turn in range(NUM_SEATS)) for me in range(NUM_SEATS)
)
"""``[me][turn]``: where the seat to act is marked in ``me``'s observation."""


def _template(rules: RuleSet, multiplier: int) -> npt.NDArray[np.float32]:
    """Five rows as every hand under these rules and multiplier starts: the pick phase, the
    stakes and the rules (the cards and the dealer are the deal's)."""
    rows = np.zeros((NUM_SEATS, OBSERVATION_SIZE), dtype=np.float32)
    rows[:, _PHASE_SLOT["pick"]] = 1.0
    rows[:, TURN_AT] = 1.0  # each row as its own seat sees itself to act (see Tracker)
    rows[:, STAKES_AT] = rows[:, HAND_STAKES_AT] = _stakes(multiplier)
    _put_rules(rows, rules)
    return rows


def _template_gaps(rules: RuleSet, multiplier: int, dealer: int) -> tuple[bytes, ...]:
    """The template's rows with the dealer marked, as bytes, cut around the five hands: entry
    ``s`` is what follows seat ``s``'s 32 hand entries up to the next seat's (the hand is a row's
    first field)."""
    rows = _template(rules, multiplier)
    rows.reshape(-1)[list(_DEALER_CELLS[dealer])] = 1.0
    raw = rows.tobytes()
    ends = [*_HAND_BYTES[1:], len(raw)]
    return tuple(raw[at + 128 : end] for at, end in zip(_HAND_BYTES, ends, strict=True))


assert HAND_AT == 0  # _template_gaps and Tracker.start rely on it


class Tracker:
    """Every seat's observation, kept up to date action by action (the fast path).

    One per environment, for hands under one rule set (the ``rules`` of the hand it is made
    with). Tell it every action applied to its hand: :meth:`played` after a card,
    :meth:`auctioned` after any other action; :meth:`start` tracks a new hand.

    ``rows[s]`` is seat ``s``'s observation as if ``s`` were the seat to act: the seat to act
    changes at every action, and the observer is usually that seat, so only the copy of any
    other observer needs that field corrected. In trick play a card shows at once only in the
    rows of the seats still to play in the trick (the next ones to act): the row of a seat that
    has played in it lacks the trick's later cards until :meth:`observe` adds them, or the
    trick ends (its cards then move to every row's finished tricks). That saves 15 of a trick's
    25 stores.

    Changes are single-float stores through a memoryview of the rows (``cells``: a store there
    costs a third of a numpy item assignment, and every change is a few entries): a card played
    is six (its bit out of the player's hand, into every current-trick plane), a finished trick
    some fifty (its cards into every finished-tricks plane, the winner's points and tricks, the
    leader) and a fill of the current-trick planes; the auction's actions a handful each.
    """

    __slots__ = (
        "called",
        "cells",
        "hand",
        "in_trick",
        "phase",
        "raw",
        "rows",
        "rules",
        "seat_rows",
        "templates",
        "trick_block",
    )

    def __init__(self, hand: Hand) -> None:
        rows = self.rows = np.zeros((NUM_SEATS, OBSERVATION_SIZE), dtype=np.float32)
        self.cells: Any = rows.reshape(-1).data  # a memoryview of format 'f': stores take floats
        self.seat_rows = list(rows)  # one view per seat, made once
        self.raw: Any = self.cells.cast("B")  # the same memory as bytes: a hand is one slice
        self.trick_block = rows[:, _TRICK_BLOCK]
        self.rules = hand.rules
        self.templates: dict[tuple[int, int], tuple[bytes, ...]] = {}
        """The template's bytes between the hands (:func:`_template_gaps`) by multiplier and
        dealer: at most a few dozen, so never emptied."""
        self.start(hand)

    def start(self, hand: Hand) -> None:
        """Track a new hand, under the same rules (the rows are reused: every observation
        handed out is a copy).

        The new rows are one join of the hands and the template's bytes between them, stored
        at once."""
        key = (hand.multiplier, hand.dealer)
        gaps = self.templates.get(key)
        if gaps is None:
            gaps = self.templates[key] = _template_gaps(self.rules, *key)
        self.hand = hand
        self.phase = "pick"
        self.called = -1
        # Cards played in the trick so far: the fifth closes it (cheaper to count than to ask
        # the hand at every card).
        self.in_trick = 0
        f = _FLOAT_BYTES
        h0, h1, h2, h3, h4 = hand.hands
        g0, g1, g2, g3, g4 = gaps
        self.raw[:] = b"".join(
            (
                f[h0 & 255], f[h0 >> 8 & 255], f[h0 >> 16 & 255], f[h0 >> 24], g0,
                f[h1 & 255], f[h1 >> 8 & 255], f[h1 >> 16 & 255], f[h1 >> 24], g1,
                f[h2 & 255], f[h2 >> 8 & 255], f[h2 >> 16 & 255], f[h2 >> 24], g2,
                f[h3 & 255], f[h3 >> 8 & 255], f[h3 >> 16 & 255], f[h3 >> 24], g3,
                f[h4 & 255], f[h4 >> 8 & 255], f[h4 >> 16 & 255], f[h4 >> 24], g4,
            )
        )  # fmt: skip

    def copy(self, hand: Hand) -> Tracker:
        """An independent tracker of ``hand``, a copy of the tracked hand (for a clone of the
        environment): the rows copied, the templates shared (they never change)."""
        other = Tracker.__new__(Tracker)
        rows = other.rows = self.rows.copy()
        other.cells = rows.reshape(-1).data
        other.seat_rows = list(rows)
        other.raw = other.cells.cast("B")
        other.trick_block = rows[:, _TRICK_BLOCK]
        other.rules = self.rules
        other.templates = self.templates
        other.hand = hand
        other.phase = self.phase
        other.called = self.called
        other.in_trick = self.in_trick
        return other

    def observe(self, me: int) -> Vector:
        """Seat ``me``'s observation (a new array)."""
        count = self.in_trick
        if count:  # mid-trick: the trick's cards, which me's row may lack (see the class doc)
            cells = self.cells
            for play in self.hand.actions[-count:]:
                cells[_TRICK_CELLS[play.seat][play.card][me]] = 1.0  # type: ignore[union-attr]
        out: Vector = self.seat_rows[me].copy()
        turn = self.hand.turn
        if turn != me:
            out[TURN_AT] = 0.0
            if turn is not None:
                out[_TURN_SLOT[me][turn]] = 1.0
        return out

    def played(self, seat: int, card: int) -> None:
        """After ``seat`` played ``card`` (most actions: thirty a hand): the hand's bit out,
        the card into the current-trick plane of the seats still to play in the trick, then the
        trick and the called card's consequences."""
        cells = self.cells
        cells[seat * OBSERVATION_SIZE + card] = 0.0  # HAND_AT is 0
        count = self.in_trick
        later = _LATER_CELLS[count][seat][card]
        # Unrolled by the card's number in the trick: chained stores cost half a loop's.
        if count == 0:
            a, b, c, d = later
            cells[a] = cells[b] = cells[c] = cells[d] = 1.0
            self.in_trick = 1
        elif count == 1:
            a, b, c = later
            cells[a] = cells[b] = cells[c] = 1.0
            self.in_trick = 2
        elif count == 2:
            a, b = later
            cells[a] = cells[b] = 1.0
            self.in_trick = 3
        elif count == 3:
            cells[later[0]] = 1.0
            self.in_trick = 4
        else:  # the fifth card closes the trick
            self.in_trick = 0
            self.trick_done()
        if card == self.called:
            self.called_fell()

    def called_fell(self) -> None:
        """The called card was played: everyone knows the partner now."""
        partner = self.hand.partner
        if partner is not None:
            self.seat_mark(_PARTNER_CELLS[partner])

    def trick_done(self) -> None:
        """A trick is complete: its cards move from the current trick to the finished ones."""
        hand = self.hand
        trick = hand.tricks[-1]
        leader = trick.leader
        self.trick_block.fill(0.0)
        cells = self.cells
        c0, c1, c2, c3, c4 = trick.cards
        plane = _PLAYED_CELLS[leader]
        # Unrolled stores: a third of the cost of one put of the 25 indices.
        a, b, c, d, e = plane[0][c0]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[1][c1]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[2][c2]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[3][c3]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[4][c4]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        winner = trick.winner
        share = hand.taken[winner] / 120
        a, b, c, d, e = _POINTS_CELLS[winner]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = share
        share = hand.tricks_won[winner] / 6
        a, b, c, d, e = _WON_CELLS[winner]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = share
        if winner != leader or hand.phase == "done":
            a, b, c, d, e = _LEADER_CELLS[leader]
            cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 0.0
            if hand.phase == "done":
                self.phase_changed()
            else:
                a, b, c, d, e = _LEADER_CELLS[winner]
                cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0

    def column(self, at: int, value: float) -> None:
        """Set entry ``at`` of every row (a fact the same for every seat)."""
        cells = self.cells
        size = OBSERVATION_SIZE
        cells[at] = cells[at + size] = cells[at + 2 * size] = value
        cells[at + 3 * size] = cells[at + 4 * size] = value

    def seat_mark(self, cells_of_seat: tuple[int, ...], value: float = 1.0) -> None:
        """Set a seat's entry in every row's relative block (a ``_*_CELLS[seat]`` tuple)."""
        cells = self.cells
        for i in cells_of_seat:
            cells[i] = value

    def cards(self, at: int, mask: Mask, value: float) -> None:
        """Set the entries of the cards of ``mask`` from flat index ``at``."""
        cells = self.cells
        while mask:
            low = mask & -mask
            cells[at + low.bit_length() - 1] = value
            mask ^= low

    def auctioned(self, action: Action) -> None:
        """After any action but a card played: the auction's, the blitzes and the crack's.

        Each changes a few entries: single stores, cheaper than numpy's slicing for so few."""
        hand = self.hand
        seat = action.seat
        kind = action.kind
        row = seat * OBSERVATION_SIZE
        if kind == "pass":
            self.seat_mark(_PASSED_CELLS[seat])
            if hand.leaster:
                self.column(FLAGS_AT + 2, 1.0)
            if hand.doubler:
                self.column(FLAGS_AT + 3, 1.0)
        elif kind == "pick":
            self.seat_mark(_PICKER_CELLS[seat])
            self.cards(row + HAND_AT, hand.blind, 1.0)
            self.cards(row + BLIND_AT, hand.blind, 1.0)
        elif kind == "bury":
            self.cards(row + HAND_AT, hand.buried, 0.0)
            self.cards(row + BURIED_AT, hand.buried, 1.0)
        elif kind in ("call", "alone", "unknown"):  # the picker's side is settled
            if hand.called is not None:
                self.called = hand.called
                self.column(CALLED_AT + hand.called, 1.0)
            if hand.under is not None:
                self.cells[row + UNDER_AT + hand.under] = 1.0
                self.column(FLAGS_AT + 1, 1.0)
            if hand.partner is not None:
                # The partner knows: relative seat 0 of its own row.
                self.cells[hand.partner * OBSERVATION_SIZE + PARTNER_AT] = 1.0
            if hand.alone:
                self.column(FLAGS_AT, 1.0)
        elif kind == "blitz":
            self.column(BLITZES_AT + QUEEN_PAIR_NUMBER[action.pair], 1.0)  # type: ignore[union-attr]
        elif kind == "crack":
            self.seat_mark(_CRACKER_CELLS[seat])
            if hand.crack_blitz is not None:
                self.column(CRACK_PAIR_AT + QUEEN_PAIR_NUMBER[hand.crack_blitz], 1.0)
        elif kind == "recrack":
            self.column(RECRACK_AT, 1.0)
        if kind in ("blitz", "crack", "recrack"):
            self.column(HAND_STAKES_AT, _stakes(hand.stakes))
        if hand.phase != self.phase:
            self.phase_changed()

    def phase_changed(self) -> None:
        """The phase bit moves; trick play marks its leader; the end reveals."""
        hand = self.hand
        self.column(_PHASE_SLOT[self.phase], 0.0)
        phase = self.phase = hand.phase
        self.column(_PHASE_SLOT[phase], 1.0)
        if phase == "play":
            self.seat_mark(_LEADER_CELLS[hand.leader])
        elif phase == "done":
            self.reveal()

    def reveal(self) -> None:
        """The hand is over: blind, bury, unknown card and partner are everyone's, and nobody
        is to act."""
        hand = self.hand
        self.column(TURN_AT, 0.0)
        for at, mask in ((BLIND_AT, hand.blind), (BURIED_AT, hand.buried)):
            while mask:
                low = mask & -mask
                self.column(at + low.bit_length() - 1, 1.0)
                mask ^= low
        if hand.under is not None:
            self.column(UNDER_AT + hand.under, 1.0)
        self.rows[:, PARTNER_AT : PARTNER_AT + 5] = 0.0
        if hand.partner is not None:
            self.seat_mark(_PARTNER_CELLS[hand.partner])
