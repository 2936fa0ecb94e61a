"""One hand of Sheepshead as a state machine: deal, pick, bury, call, six tricks, result.

The hand validates everything: :meth:`Hand.legal_actions` lists exactly what the seat to act may
do, and :meth:`Hand.apply` raises :class:`~engine.errors.IllegalActionError` (with a stable code and
a message a player understands) for anything else, leaving the state unchanged.

>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=7)
>>> hand.phase, hand.turn
('pick', 1)
>>> hand.apply(Pass(2))
Traceback (most recent call last):
...
engine.errors.IllegalActionError: It is seat 1's turn, not yours
>>> while not hand.is_over:
...     hand.apply(hand.legal_actions()[0])
>>> sum(hand.result().payouts or [])
0
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import factorial
from operator import itemgetter
from typing import Final, Literal, NoReturn

from engine.actions import (
    ALONES,
    BLITZES,
    BURIES,
    BURY_ROWS,
    CALLS,
    CRACKS,
    NO_CRACKS,
    NO_RECRACKS,
    NUM_SEATS,
    PAIRS,
    PASSES,
    PICKS,
    PLAYS,
    RECRACKS,
    Action,
    Alone,
    Blitz,
    Bury,
    Call,
    Crack,
    NoCrack,
    NoRecrack,
    Pair,
    Pass,
    Pick,
    Play,
    Recrack,
    Seat,
    Unknown,
)
from engine.cards import (
    ALL_CARDS,
    CARD_CODES,
    FAIL,
    FAIL_SUITS,
    Card,
    Mask,
    card_code,
    cards_in,
    cards_of,
    follow_class,
    mask_points,
    parse_card,
    parse_card_value,
    suit_of,
)
from engine.errors import (
    HAND_OVER,
    ILLEGAL_ACTION,
    ILLEGAL_BURY,
    ILLEGAL_CALL,
    ILLEGAL_CARD,
    MUST_FOLLOW_SUIT,
    MUST_PICK,
    NOT_YOUR_TURN,
    UNKNOWN_CARD_HELD,
    IllegalActionError,
)
from engine.rules import RuleSet
from engine.scoring import HandResult, Trick, score_hand
from engine.tricks import (
    CARD_BITS,
    FAIL_SUIT_NAMES,
    JD,
    NEXT_SEAT,
    NO_CARD,
    NO_SEAT,
    RULE_CODES,
    TRICK_STRENGTH,
    TrickPlay,
    advance,
    called_suit_mask,
    play_rule,
    rule_message,
)

Phase = Literal["pick", "bury", "call", "crack", "recrack", "play", "done"]
"""Where a hand stands: picking, the picker burying (and blitzing), the picker calling, the
crack round, the picker's re-crack decision (docs/rules.md, "Cracking and blitzing"), trick play,
over."""

TRICKS_PER_HAND: Final = 6
CARDS_PER_SEAT: Final = 6

ACES: Final = tuple(parse_card("A" + s) for s in "CSH")
TENS: Final = tuple(parse_card("T" + s) for s in "CSH")
ACES_MASK: Final = sum(1 << a for a in ACES)
"""The three fail aces (a picker owning all three calls a ten)."""
_new_tuple: Final = tuple.__new__

# For each seat and byte position, the plays of the cards in every byte value: a legal-play
# tuple is then four table lookups instead of a bit loop.
_PLAY_BYTES: Final = tuple(
    tuple(
        tuple(tuple(PLAYS[s][8 * k + b] for b in range(8) if v >> b & 1) for v in range(256))
        for k in range(4)
    )
    for s in range(NUM_SEATS)
)


def _few_plays(seat: Seat) -> dict[Mask, tuple[Play, ...]]:
    plays = PLAYS[seat]
    few: dict[Mask, tuple[Play, ...]] = {}
    for a in range(32):
        few[1 << a] = (plays[a],)
        for b in range(a + 1, 32):
            few[1 << a | 1 << b] = (plays[a], plays[b])
    return few


_INTERPRETED: Final = __file__.endswith(".py")
"""Whether this module runs as Python source (False in the mypyc build, docs/performance.md)."""

# For each seat, the plays of every set of one or two cards (528 sets, about 60 kB a seat): two
# turns in three of random play have no more legal cards than that, and in the interpreter one
# dict lookup here costs much less than the four byte lookups and three joins of _PLAY_BYTES.
# Not in the mypyc build, where the byte tables' shifts are machine operations and the lookup
# would box the mask: there the dicts are empty and not asked.
_FEW_PLAYS: Final = tuple(_few_plays(s) if _INTERPRETED else {} for s in range(NUM_SEATS))
_PICK_OR_PASS: Final = tuple((PICKS[s], PASSES[s]) for s in range(NUM_SEATS))
_PICK_ONLY: Final = tuple((PICKS[s],) for s in range(NUM_SEATS))


def _burials_of_eight(
    rows: tuple[tuple[Bury, ...], ...], cards: Sequence[Card]
) -> tuple[Bury, ...]:
    """Every pair of a picker's eight cards (``cards`` in card order) as its shared
    :class:`Bury`, in the order of ``combinations(cards, 2)``: written out, each pair is two
    tuple lookups, where ``combinations`` and the dict of pairs cost about a thousand
    instructions a pair in CPython (28 of them every hand)."""
    c0, c1, c2, c3, c4, c5, c6, c7 = cards
    r0, r1, r2, r3 = rows[c0], rows[c1], rows[c2], rows[c3]
    r4, r5, r6 = rows[c4], rows[c5], rows[c6]
    return (
        r0[c1], r0[c2], r0[c3], r0[c4], r0[c5], r0[c6], r0[c7],
                r1[c2], r1[c3], r1[c4], r1[c5], r1[c6], r1[c7],
                        r2[c3], r2[c4], r2[c5], r2[c6], r2[c7],
                                r3[c4], r3[c5], r3[c6], r3[c7],
                                        r4[c5], r4[c6], r4[c7],
                                                r5[c6], r5[c7],
                                                        r6[c7],
    )  # fmt: skip


PAIR_CARDS: Final[dict[str, tuple[Card, Card]]] = {
    "black": (parse_card("QC"), parse_card("QS")),
    "red": (parse_card("QH"), parse_card("QD")),
}
"""The two queens of each queen pair (docs/rules.md, "Cracking and blitzing")."""

PAIR_MASKS: Final[dict[str, Mask]] = {
    pair: (1 << cards[0]) | (1 << cards[1]) for pair, cards in PAIR_CARDS.items()
}
"""Each queen pair as a card mask."""


def crack_seats(rules: RuleSet, dealer: Seat, picker: Seat) -> tuple[Seat, ...]:
    """The seats asked in the crack round, in the order they answer (docs/rules.md, "Cracking and
    blitzing").

    Empty when the rules have no cracking, or under ``"unoffered"`` when the dealer picked.

    >>> crack_seats(RuleSet(cracking=True), dealer=4, picker=1)
    (2, 3, 4)
    >>> crack_seats(RuleSet(cracking=True, crack_by="defenders"), dealer=4, picker=1)
    (2, 3, 4, 0)
    >>> crack_seats(RuleSet(cracking=True), dealer=4, picker=4)
    ()
    """
    if not rules.cracking:
        return ()
    count = NUM_SEATS - 1 if rules.crack_by == "defenders" else (dealer - picker) % NUM_SEATS
    return tuple((picker + i) % NUM_SEATS for i in range(1, count + 1))


_TAIL: Final = 6
"""The Fisher–Yates steps of the radices 6 down to 2 (deck positions 5 to 0) are one table
lookup (:data:`_TAIL_ORDERS`) rather than five swaps."""


def _radix_groups() -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """The Fisher–Yates radices 32, 31, ..., ``_TAIL + 1`` in runs whose product stays below
    2**30: each run's product and its steps, a step being the radix and the deck position it
    settles (the radix minus one)."""
    groups = []
    i = 32
    while i > _TAIL:
        product = 1
        steps = []
        while i > _TAIL and product * i < 1 << 30:
            product *= i
            steps.append((i, i - 1))
            i -= 1
        groups.append((product, tuple(steps)))
    return tuple(groups)


def _tail_orders() -> tuple[Callable[[list[Mask]], tuple[Mask, ...]], ...]:
    """For each of the 6! = 720 draws ``r`` of the last steps, the first six deck positions
    after them, as a getter of the positions before: the steps ``j = r % i; r //= i`` and the
    swap of positions ``i - 1`` and ``j``, for i = 6 down to 2."""
    orders: list[Callable[[list[Mask]], tuple[Mask, ...]]] = []
    for draw in range(factorial(_TAIL)):
        r = draw
        order = list(range(_TAIL))
        for i in range(_TAIL, 1, -1):
            j = r % i
            r //= i
            order[i - 1], order[j] = order[j], order[i - 1]
        orders.append(itemgetter(*order))
    return tuple(orders)


_RADIX_GROUPS: Final = _radix_groups()
_TAIL_ORDERS: Final = _tail_orders()
_TAIL_DRAWS: Final = len(_TAIL_ORDERS)


def shuffled_deck(seed: int) -> list[Card]:
    """The 32 cards in the order the seed shuffles them (Fisher–Yates driven by SHA-512).

    The 512 hashed bits cover the 2**118 orders of the deck with a bias below 2**-390, so a
    seed of 128 random bits or more makes every deal equally likely; the same seed always gives
    the same deck, which is what records and replays rely on.

    >>> shuffled_deck(1) == shuffled_deck(1), sorted(shuffled_deck(1)) == list(range(32))
    (True, True)
    """
    return [b.bit_length() - 1 for b in _shuffled_bits(seed)]


def _shuffled_bits(seed: int) -> list[Mask]:
    """:func:`shuffled_deck` as one-card masks, which a deal ORs together as they are."""
    if seed < 0:
        raise ValueError("a deal seed is a non-negative integer")
    width = max(8, (seed.bit_length() + 7) // 8)
    x = int.from_bytes(hashlib.sha512(seed.to_bytes(width, "big")).digest(), "big")
    deck = list(CARD_BITS)
    # The same draws as `x, j = divmod(x, i)` for i = 32 down to 2, but one big-number division
    # per group of radices and the rest in machine-size integers; each step's radix and position
    # come from the table (counting them down here cost a sixth of the shuffle).
    for product, steps in _RADIX_GROUPS:
        x, r = divmod(x, product)
        for i, top in steps:
            j = r % i
            r //= i
            deck[top], deck[j] = deck[j], deck[top]
    deck[:_TAIL] = _TAIL_ORDERS[x % _TAIL_DRAWS](deck)
    return deck


def _deal_bits(b: Sequence[Mask], dealer: Seat) -> Deal:
    """Deal a shuffled deck of one-card masks (docs/rules.md, "1. The deal")."""
    # Three cards to each seat from the dealer's left, two to the blind (deck positions 15 and
    # 16), then three more each: the i-th seat dealt to holds 3i..3i+2 and 17+3i..19+3i.
    dealt = (
        b[0] | b[1] | b[2] | b[17] | b[18] | b[19],
        b[3] | b[4] | b[5] | b[20] | b[21] | b[22],
        b[6] | b[7] | b[8] | b[23] | b[24] | b[25],
        b[9] | b[10] | b[11] | b[26] | b[27] | b[28],
        b[12] | b[13] | b[14] | b[29] | b[30] | b[31],
    )
    first = 4 - dealer  # seat 0 is the (4 - dealer)-th seat dealt to
    return Deal(dealt[first:] + dealt[:first], b[15] | b[16])


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards as dealt: six per seat (seat order 0–4) and the two-card blind."""

    hands: tuple[Mask, ...]
    blind: Mask

    @classmethod
    def from_seed(cls, dealer: Seat, seed: int) -> Deal:
        """Shuffle by :func:`shuffled_deck` and deal 3–2(blind)–3 from left of the dealer.

        Dealer first, then seed, as in :meth:`Hand.from_seed`.
        """
        if not 0 <= dealer < NUM_SEATS:
            raise ValueError(f"dealer must be a seat from 0 to 4, not {dealer}")
        return _deal_bits(_shuffled_bits(seed), dealer)

    @classmethod
    def from_deck(cls, deck: Sequence[Card], dealer: Seat) -> Deal:
        """Deal a shuffled deck in the order of docs/rules.md, "1. The deal"."""
        if not 0 <= dealer < NUM_SEATS:
            raise ValueError(f"dealer must be a seat from 0 to 4, not {dealer}")
        return _deal_bits([CARD_BITS[c] for c in deck], dealer)

    @classmethod
    def from_codes(cls, hands: Sequence[Sequence[object]], blind: Sequence[object]) -> Deal:
        """A deal from card codes; raises ValueError unless it is 5×6 + 2 distinct cards
        (BadCardError for a value that is no card code)."""
        masks = []
        for h in hands:
            m = 0
            for code in h:
                m |= 1 << parse_card_value(code)
            if m.bit_count() != CARDS_PER_SEAT or len(h) != CARDS_PER_SEAT:
                raise ValueError("each hand must hold six different cards")
            masks.append(m)
        b = 0
        for code in blind:
            b |= 1 << parse_card_value(code)
        if len(masks) != NUM_SEATS or b.bit_count() != 2 or len(blind) != 2:
            raise ValueError("a deal is five hands of six cards and a blind of two")
        union = b
        for m in masks:
            union |= m
        if union != ALL_CARDS:
            raise ValueError("the deal must use each of the 32 cards exactly once")
        return cls(tuple(masks), b)


# Named outside the class so that copy() can walk them in the compiled build too: mypyc cannot
# read a class's __slots__ back.
_HAND_FIELDS = (
    "_legal",
    "_result",
    "actions",
    "alone",
    "blind",
    "blitzes",
    "buried",
    "called",
    "crack_blitz",
    "crack_queue",
    "cracker",
    "deal",
    "dealer",
    "doubler",
    "hands",
    "is_over",
    "leaster",
    "multiplier",
    "partner",
    "passes",
    "phase",
    "picker",
    "play_state",
    "strength",
    "recracked",
    "rules",
    "taken",
    "tricks",
    "tricks_won",
    "turn",
    "under",
)


class Hand:
    """The state of one hand. Mutable; use :meth:`copy` to branch (bots do)."""

    __slots__ = _HAND_FIELDS

    rules: RuleSet
    dealer: Seat
    multiplier: int
    deal: Deal
    hands: list[Mask]
    blind: Mask
    phase: Phase
    turn: Seat | None
    picker: Seat | None
    passes: list[Seat]
    buried: Mask
    called: Card | None
    alone: bool
    under: Card | None
    partner: Seat | None
    blitzes: list[tuple[Seat, Pair]]
    """The picker's blitzes in order (docs/rules.md, "Cracking and blitzing")."""
    cracker: Seat | None
    """The seat that cracked, if any."""
    crack_blitz: Pair | None
    """The queen pair the cracker showed (None: a plain crack, or no crack)."""
    crack_queue: tuple[Seat, ...]
    """The seats still to answer in the crack round after the one whose turn it is."""
    recracked: bool
    leaster: bool
    doubler: bool
    play_state: TrickPlay
    """Trick play's state (:mod:`engine.tricks`); it shares the lists ``hands``, ``taken`` and
    ``tricks_won`` with the hand."""
    tricks: list[Trick]
    taken: list[int]
    tricks_won: list[int]
    actions: list[Action]
    is_over: bool
    """Whether the hand is finished (all tricks played, or a doubler): ``phase == "done"``, kept
    as a field because every caller's loop asks it before every action."""

    def __init__(self, rules: RuleSet, dealer: Seat, deal: Deal, multiplier: int = 1) -> None:
        if not 0 <= dealer < NUM_SEATS:
            raise ValueError("dealer must be a seat 0-4")
        if multiplier < 1:
            raise ValueError("multiplier must be at least 1")
        self.rules = rules
        self.strength = TRICK_STRENGTH[rules.jack_order]
        self.dealer = dealer
        self.multiplier = multiplier
        self.deal = deal
        self.hands = hands = list(deal.hands)
        self.blind = deal.blind
        self.phase = "pick"
        self.is_over = False
        self.turn = (dealer + 1) % NUM_SEATS
        self.picker = None
        self.passes = []
        self.buried = 0
        self.called = None
        self.alone = False
        self.under = None
        self.partner = None
        self.blitzes = []
        self.cracker = None
        self.crack_blitz = None
        self.crack_queue = ()
        self.recracked = False
        self.leaster = False
        self.doubler = False
        self.tricks = []
        self.taken = taken = [0] * NUM_SEATS
        self.tricks_won = won = [0] * NUM_SEATS
        self.play_state = TrickPlay(hands, self.strength, (dealer + 1) % NUM_SEATS, taken, won)
        self.actions = []
        # The legal actions once asked for, until the next action (None: not asked).
        self._legal: tuple[Action, ...] | None = None
        self._result: HandResult | None = None

    @classmethod
    def from_seed(cls, rules: RuleSet, dealer: Seat, seed: int, multiplier: int = 1) -> Hand:
        """A hand dealt by the engine's seeded shuffle."""
        return cls(rules, dealer, Deal.from_seed(dealer, seed), multiplier)

    def copy(self) -> Hand:
        """An independent copy of this state."""
        # Through __init__, not Hand.__new__: a class compiled by mypyc has no bare __new__.
        other = Hand(self.rules, self.dealer, self.deal, self.multiplier)
        for name in _HAND_FIELDS:
            setattr(other, name, getattr(self, name))
        other.play_state = play = self.play_state.copy()
        other.hands = play.hands
        other.taken = play.taken
        other.tricks_won = play.won
        other.passes = self.passes.copy()
        other.tricks = self.tricks.copy()
        other.actions = self.actions.copy()
        other.blitzes = self.blitzes.copy()
        return other

    # ------------------------------------------------------------------ queries

    @property
    def trick_number(self) -> int:
        """Index (0–5) of the trick being played."""
        return len(self.tricks)

    @property
    def current(self) -> list[Card]:
        """The cards of the trick being played, in order from ``leader`` on."""
        return self.play_state.current

    @property
    def leader(self) -> Seat:
        """The seat that leads (or led) the trick being played."""
        return self.play_state.leader

    @property
    def called_led_at(self) -> int | None:
        """The trick in which the called suit was first led (None: not yet)."""
        at = self.play_state.called_led_at
        return None if at < 0 else at

    @property
    def partner_revealed(self) -> bool:
        """Whether the called card has been played."""
        return self.play_state.revealed

    @property
    def stakes(self) -> int:
        """The hand's multiplier so far: the doubler carry-over times 2 for every blitz, the
        crack, a cracker's shown pair and the re-crack (docs/rules.md, "Cracking and blitzing"; the
        bump is not in it)."""
        doublings = len(self.blitzes) + self.recracked
        if self.cracker is not None:
            doublings += 1 if self.crack_blitz is None else 2
        return self.multiplier << doublings

    def called_suit_mask(self) -> Mask:
        """The fail suit of the called card (0 when nothing, or JD, was called)."""
        return called_suit_mask(NO_CARD if self.called is None else self.called)

    def legal_actions(self) -> tuple[Action, ...]:
        """Exactly the actions the seat to act may take now (empty once the hand is over)."""
        legal = self._legal
        if legal is None:
            play = self.play_state
            m = play.legal
            if m:  # trick play (the seat to act has a card), most of a hand's turns
                # The plays of the legal cards that the trick play keeps, one dict lookup or
                # four table lookups.
                legal = _FEW_PLAYS[play.turn].get(m) if _INTERPRETED else None
                if legal is None:
                    t = _PLAY_BYTES[play.turn]
                    legal = t[0][m & 255] + t[1][m >> 8 & 255] + t[2][m >> 16 & 255] + t[3][m >> 24]
            else:
                legal = self._compute_legal()
            self._legal = legal
        return legal

    def legal_play_mask(self) -> Mask:
        """The cards the seat to act may play, as a mask (0 outside trick play)."""
        if self.phase != "play":
            return 0
        return self.play_state.legal

    def _compute_legal(self) -> tuple[Action, ...]:
        """The legal actions outside trick play (:meth:`legal_actions` lists the plays)."""
        phase = self.phase
        seat = self.turn
        if seat is None:
            return ()
        if phase == "pick":
            # Only the last seat can be made to pick: no call for the others.
            if len(self.passes) == NUM_SEATS - 1 and self._must_pick(seat):
                return _PICK_ONLY[seat]
            return _PICK_OR_PASS[seat]
        if phase == "bury":
            cards = cards_of(self.hands[seat])
            burials: tuple[Action, ...]
            if len(cards) == CARDS_PER_SEAT + 2:
                burials = _burials_of_eight(BURY_ROWS[seat], cards)
            else:  # not in a dealt hand; the general way
                burials = tuple(map(BURIES[seat].__getitem__, combinations(cards, 2)))
            if self.rules.blitzing:
                return burials + self._legal_blitzes(seat)
            return burials
        if phase == "call":
            return self._legal_calls(seat)
        if phase == "crack":
            return self._legal_cracks(seat)
        if phase == "recrack":
            return (RECRACKS[seat], NO_RECRACKS[seat])
        return ()

    def _pairs_held(self, seat: Seat) -> tuple[Pair, ...]:
        hand = self.hands[seat]
        return tuple(p for p in PAIRS if hand & PAIR_MASKS[p] == PAIR_MASKS[p])

    def _legal_blitzes(self, seat: Seat) -> tuple[Action, ...]:
        """The picker's blitzes still open (under blitzing): each queen pair held and not yet
        shown."""
        shown = [pair for _, pair in self.blitzes]
        return tuple(BLITZES[seat][p] for p in self._pairs_held(seat) if p not in shown)

    def _legal_cracks(self, seat: Seat) -> tuple[Action, ...]:
        """``crack`` (with each pair held, when blitzing) or ``no_crack``; the partner, who
        holds the called card, has only ``no_crack``."""
        if seat == self.partner:
            return (NO_CRACKS[seat],)
        cracks: list[Action] = [CRACKS[seat][None]]
        if self.rules.blitzing:
            cracks.extend(CRACKS[seat][p] for p in self._pairs_held(seat))
        cracks.append(NO_CRACKS[seat])
        return tuple(cracks)

    def _must_pick(self, seat: Seat) -> bool:
        return (
            self.rules.no_pick == "forced-pick"
            and seat == self.dealer
            and len(self.passes) == NUM_SEATS - 1
        )

    def _legal_calls(self, seat: Seat) -> tuple[Action, ...]:
        hand = self.hands[seat]
        owned = hand | self.buried
        calls: list[Action] = []
        if self.rules.partner == "jack-of-diamonds":
            if not owned >> JD & 1:
                calls.append(CALLS[seat][JD])
            calls.append(ALONES[seat])
            return tuple(calls)
        candidates = TENS if owned & ACES_MASK == ACES_MASK else ACES
        for c in candidates:
            if not owned >> c & 1 and hand & FAIL[c >> 3]:  # c >> 3: suit_of(c), no call
                calls.append(CALLS[seat][c])
        if not calls and self.rules.unknown_card:
            for ace in ACES:
                if not owned >> ace & 1 and not hand & FAIL[suit_of(ace)]:
                    calls.extend(Unknown(seat, ace, u) for u in cards_in(hand))
        calls.append(ALONES[seat])
        return tuple(calls)

    def _compute_play_mask(self) -> tuple[Mask, Mask, str, str]:
        """Legal cards, the follow-suit-only set, and the code/message of any narrowing rule."""
        legal, base, rule = play_rule(self.play_state)
        return legal, base, RULE_CODES[rule], rule_message(rule, self.play_state.called)

    # ------------------------------------------------------------------ validation

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` unless ``action`` is legal now; change nothing."""
        phase = self.phase
        if phase == "done":
            raise IllegalActionError("The hand is over", HAND_OVER)
        if action.seat != self.turn:
            raise IllegalActionError(f"It is seat {self.turn}'s turn, not yours", NOT_YOUR_TURN)
        if phase == "play":
            # Nothing but a card is legal in trick play.
            if type(action) is not Play:
                self._raise_illegal(action)
            elif not self.play_state.legal >> action.card & 1:
                self._raise_illegal_play(action.card)
            return
        if phase == "bury" and type(action) is Bury:
            self._verify_bury(action)
            return
        # The list apply's caller has just asked for, most often: no second call to fetch it.
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        # By identity first: legal actions are shared objects, and `in` would compare each one
        # before the match with the dataclass __eq__ (two Python calls a mismatch).
        for a in legal:
            if a is action:
                return
        if action in legal:
            return
        self._raise_illegal(action)

    def can(self, action: Action) -> bool:
        """Whether ``action`` is legal now."""
        try:
            self.verify(action)
        except IllegalActionError:
            return False
        return True

    def _raise_illegal_play(self, c: Card) -> NoReturn:
        seat = self.turn
        assert seat is not None
        if not self.hands[seat] >> c & 1:
            raise IllegalActionError(f"You do not hold {card_code(c)}", ILLEGAL_CARD)
        _, base, code, message = self._compute_play_mask()
        if not base >> c & 1:
            if self.under is not None and c == self.under and seat == self.picker:
                raise IllegalActionError(
                    "Your face-down unknown card is played only when the called suit is led",
                    UNKNOWN_CARD_HELD,
                )
            led = follow_class(self.current[0])
            raise IllegalActionError(f"You must follow {led}", MUST_FOLLOW_SUIT)
        raise IllegalActionError(message, code)

    def _raise_illegal(self, action: Action) -> NoReturn:
        phase = self.phase
        kind = type(action)
        expected = {
            "pick": "pick or pass",
            "bury": "bury two cards",
            "call": "call a partner or go alone",
            "crack": "crack or not",
            "recrack": "re-crack or not",
            "play": "play a card",
        }[phase]
        if phase == "pick" and kind is Pass and self._must_pick(action.seat):
            raise IllegalActionError("Everyone passed: the dealer must pick", MUST_PICK)
        if phase == "call" and kind in (Call, Unknown):
            raise IllegalActionError(self._call_explanation(action), ILLEGAL_CALL)
        if phase == "bury" and kind is Blitz:
            assert isinstance(action, Blitz)
            raise IllegalActionError(self._blitz_explanation(action.pair), ILLEGAL_ACTION)
        if phase == "crack" and kind is Crack:
            assert isinstance(action, Crack)
            raise IllegalActionError(self._crack_explanation(action), ILLEGAL_ACTION)
        # An action of an option this table does not play says so in any phase (PROTOCOL.md
        # §8): "Now is the time to play a card" alone reads as a timing mistake.
        off = self._option_off(kind)
        if off:
            raise IllegalActionError(f"{off} (now is the time to {expected})", ILLEGAL_ACTION)
        raise IllegalActionError(f"Now is the time to {expected}", ILLEGAL_ACTION)

    def _option_off(self, kind: type) -> str:
        """Why an action of ``kind`` is never legal at this table ("" when its option is on)."""
        rules = self.rules
        if kind in (Crack, NoCrack, Recrack, NoRecrack) and not rules.cracking:
            return "Cracking is not played at this table"
        if kind is Blitz and not rules.blitzing:
            return "Blitzing is not played at this table"
        if kind is Unknown and not rules.unknown_card:
            return "The unknown card is not played at this table"
        return ""

    def _verify_bury(self, action: Bury) -> None:
        a, b = action.cards
        if a == b:
            raise IllegalActionError("Bury two different cards", ILLEGAL_BURY)
        hand = self.hands[action.seat]
        for c in (a, b):
            if not hand >> c & 1:
                raise IllegalActionError(f"You do not hold {card_code(c)}", ILLEGAL_CARD)

    def _blitz_explanation(self, pair: Pair) -> str:
        if not self.rules.blitzing:
            return "Blitzing is not played at this table"
        if any(p == pair for _, p in self.blitzes):
            return f"You have already blitzed the {pair} queens"
        return f"You do not hold both {pair} queens"

    def _crack_explanation(self, action: Crack) -> str:
        if action.seat == self.partner:
            return "You hold the called card: the partner cannot crack"
        if not self.rules.blitzing:
            return "Blitzing is not played at this table: crack without showing queens"
        return f"You do not hold both {action.blitz} queens"

    def _call_explanation(self, action: Action) -> str:
        assert isinstance(action, Call | Unknown)
        c = action.card
        if self.rules.partner == "jack-of-diamonds":
            if c != JD:
                return "Under the jack-of-diamonds rule you can only call JD"
            return "You hold the jack of diamonds: you must go alone"
        if isinstance(action, Unknown):
            if not self.rules.unknown_card:
                return "The unknown card is not played at this table"
            return "An unknown card is allowed only when no ordinary call is"
        if c not in ACES and c not in TENS:
            return "Call a fail ace (or a fail ten when you hold all three fail aces)"
        owned = self.hands[action.seat] | self.buried
        if owned >> c & 1:
            return f"You cannot call {card_code(c)}: you have it"
        if c in TENS:
            return "You may call a ten only when you hold all three fail aces"
        if not self.hands[action.seat] & FAIL[suit_of(c)]:
            return f"You need a {FAIL_SUIT_NAMES[suit_of(c)]} card in your hand (the hold card)"
        return f"You hold all three fail aces: call a ten, not {card_code(c)}"

    # ------------------------------------------------------------------ transitions

    def apply(self, action: Action) -> None:
        """Validate and apply one action; an illegal one raises and changes nothing."""
        if type(action) is Play:
            # Trick play, most of a hand's actions. The trick play's legal mask is 0 outside
            # trick play (and once the hand is over): a card of the seat to act in it needs no
            # more checks; verify() raises for anything else.
            play = self.play_state
            seat = action.seat
            card = action.card
            if not play.legal & CARD_BITS[card] or seat != play.turn:
                self.verify(action)
            self._legal = None
            self.actions.append(action)
            winner = advance(play, seat, card)
            self.turn = play.turn
            if winner >= 0:
                tricks = self.tricks
                # The last card's seat is the one before the leader. tuple.__new__ directly: a
                # named tuple's own __new__ is a Python function, one more call (about 700
                # instructions) for the same tuple.
                record = (NEXT_SEAT[seat], tuple(play.last_trick), winner, play.last_points)
                tricks.append(_new_tuple(Trick, record))
                if len(tricks) == TRICKS_PER_HAND:
                    self._finish()
            return
        kind = type(action)
        self.verify(action)  # a card played out of turn or out of trick play raises here
        self._legal = None
        self.actions.append(action)
        # Most often first; `type(action) is` narrows the action for mypy, where an isinstance
        # assert would be one more call in the interpreter.
        # The commonest transitions written out here (a Python call each otherwise).
        if kind is Pass:
            seat = action.seat
            passes = self.passes
            passes.append(seat)
            if len(passes) < NUM_SEATS:
                self.turn = NEXT_SEAT[seat]
            else:
                self._all_passed()
        elif kind is Pick:
            self.picker = seat = action.seat
            self.hands[seat] |= self.blind
            self.phase = "bury"
        elif type(action) is Bury:
            a, b = action.cards
            self.buried = buried = CARD_BITS[a] | CARD_BITS[b]
            self.hands[action.seat] &= ~buried
            self.phase = "call"
        elif type(action) is Call:
            self._call(action.card, None)
        elif kind is Alone:
            self.alone = True
            self._after_call()
        elif type(action) is Unknown:
            self._call(action.card, action.under)
        elif type(action) is Blitz:
            self.blitzes.append((action.seat, action.pair))
        elif kind is NoCrack:
            self._next_crack_seat()
        elif type(action) is Crack:
            self._crack(action.seat, action.blitz)
        elif kind is Recrack:
            self.recracked = True
            self._start_play()
        elif kind is NoRecrack:
            self._start_play()

    def _all_passed(self) -> None:
        """Every seat passed: a doubler (the next hand's stakes double) or a leaster."""
        if self.rules.no_pick == "doubler":
            self.doubler = True
            self._finish()
        else:
            self.leaster = True
            self._start_play()

    def _call(self, c: Card, under: Card | None) -> None:
        self.called = c
        self.under = under
        picker = self.picker
        bit = 1 << c
        for s, held in enumerate(self.hands):
            if held & bit and s != picker:
                self.partner = s
        self._after_call()

    def _after_call(self) -> None:
        """The crack round when the rules have one and someone qualifies, else trick play."""
        assert self.picker is not None
        if not self.rules.cracking:
            self._start_play()
            return
        seats = crack_seats(self.rules, self.dealer, self.picker)
        if not seats:
            self._start_play()
            return
        self.phase = "crack"
        self.turn = seats[0]
        self.crack_queue = seats[1:]

    def _next_crack_seat(self) -> None:
        queue = self.crack_queue
        if not queue:
            self._start_play()
            return
        self.turn = queue[0]
        self.crack_queue = queue[1:]

    def _crack(self, seat: Seat, pair: Pair | None) -> None:
        self.cracker = seat
        self.crack_blitz = pair
        self.crack_queue = ()
        self.phase = "recrack"
        self.turn = self.picker

    def _start_play(self) -> None:
        self.phase = "play"
        play = self.play_state
        self.turn = play.turn  # the seat left of the dealer, as in the bidding
        play.start(
            NO_SEAT if self.picker is None else self.picker,
            NO_SEAT if self.partner is None else self.partner,
            NO_CARD if self.called is None else self.called,
            NO_CARD if self.under is None else self.under,
        )

    def _finish(self) -> None:
        self.phase = "done"
        self.is_over = True
        self.turn = None
        self._legal = ()

    def result(self) -> HandResult:
        """The hand's outcome so far (``complete`` is False until the hand is over)."""
        if self._result is not None:
            return self._result
        result = score_hand(
            rules=self.rules,
            complete=self.phase == "done",
            picker=self.picker,
            partner=self.partner,
            called=self.called,
            alone=self.alone,
            leaster=self.leaster,
            doubler=self.doubler,
            tricks=tuple(self.tricks),
            taken=tuple(self.taken),
            tricks_won=tuple(self.tricks_won),
            buried_points=mask_points(self.buried) if self.phase not in ("pick", "bury") else 0,
            blind_points=mask_points(self.blind),
            multiplier=self.multiplier,
            blitzes=tuple(self.blitzes),
            crack=None if self.cracker is None else (self.cracker, self.crack_blitz),
            recrack=self.recracked,
        )
        if self.phase == "done":
            self._result = result
        return result

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(CARD_CODES[c] for c in cards_in(h)) for h in self.hands)
        return f"<Hand phase={self.phase} turn={self.turn} hands=[{hands}]>"


__all__ = ["FAIL_SUITS", "TRICKS_PER_HAND", "Deal", "Hand", "Phase"]
