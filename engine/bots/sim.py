"""A fast, unvalidated copy of the trick-play phase, for search rollouts and endgame solving.

:class:`Sim` is built from an engine :class:`~engine.hand.Hand` in the play phase and plays cards
with make/unmake (no action objects, no validation, no copying), which is what a search that
plays tens of thousands of cards per decision needs. Its legal cards and trick winners come from
:mod:`engine.tricks`, the rule core the engine plays by too, and its payouts from
:mod:`engine.scoring`; tests check it against the engine card for card.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=2)
>>> while hand.phase != "play":
...     hand.apply(hand.legal_actions()[0])
>>> sim = Sim.from_hand(hand)
>>> sim.legal_mask() == hand.legal_play_mask()
True
"""

from __future__ import annotations

from typing import Final

from engine.bots.policy import NO_CARD, Situation, choose_play
from engine.cards import ALL_CARDS, FOLLOW, POINTS, POWER, Card, Mask, mask_points
from engine.hand import Hand
from engine.rules import RuleSet
from engine.scoring import leaster_payouts, payouts_for_picked, stake_for
from engine.tricks import legal_cards, trick_winner

_EVERYONE: Final = 0b11111


class Sim:
    """The play phase of one fully known deal (see the module docstring)."""

    __slots__ = (
        "alone",
        "blind_points",
        "buried_points",
        "called",
        "called_led_at",
        "called_mask",
        "current",
        "hands",
        "leader",
        "leaster",
        "multiplier",
        "ntricks",
        "partner",
        "picker",
        "played",
        "power",
        "revealed",
        "rules",
        "strength",
        "taken",
        "turn",
        "under",
        "undo",
        "void_in",
        "won",
    )

    alone: bool
    blind_points: int
    buried_points: int
    called: Card
    called_led_at: int
    called_mask: Mask
    current: list[Card]
    hands: list[Mask]
    leader: int
    leaster: bool
    multiplier: int
    ntricks: int
    partner: int
    picker: int
    played: Mask
    power: tuple[int, ...]
    revealed: bool
    rules: RuleSet
    strength: tuple[tuple[int, ...], ...]
    taken: list[int]
    turn: int
    under: Card
    undo: list[tuple[int, int, int, bool, int, tuple[Card, ...] | None, int]]
    void_in: list[Mask]
    won: list[int]

    @classmethod
    def from_hand(cls, hand: Hand) -> Sim:
        """A simulator at the state of ``hand``, which must be in the play phase."""
        if hand.phase != "play" or hand.turn is None:
            raise ValueError("a simulator starts in the play phase")
        sim = cls.__new__(cls)
        sim.rules = hand.rules
        sim.power = POWER[hand.rules.jack_order]
        sim.strength = hand.strength
        sim.hands = list(hand.hands)
        sim.current = list(hand.current)
        sim.leader = hand.leader
        sim.turn = hand.turn
        sim.ntricks = len(hand.tricks)
        sim.taken = list(hand.taken)
        sim.won = list(hand.tricks_won)
        sim.called = NO_CARD if hand.called is None else hand.called
        sim.called_mask = hand.called_suit_mask()
        sim.called_led_at = -1 if hand.called_led_at is None else hand.called_led_at
        sim.partner = -1 if hand.partner is None else hand.partner
        sim.revealed = hand.partner_revealed
        sim.picker = -1 if hand.picker is None else hand.picker
        sim.under = NO_CARD if hand.under is None else hand.under
        sim.leaster = hand.leaster
        sim.alone = hand.alone
        sim.multiplier = hand.stakes  # the doubler carry-over with every crack and blitz
        sim.buried_points = mask_points(hand.buried)
        sim.blind_points = mask_points(hand.blind)
        played = 0
        for t in hand.tricks:
            for c in t.cards:
                played |= 1 << c
        for c in hand.current:
            played |= 1 << c
        sim.played = played
        sim.void_in = [0] * 5
        for t in hand.tricks:
            sim._note_voids(t.leader, t.cards)
        if hand.current:
            sim._note_voids(hand.leader, hand.current)
        sim.undo = []
        return sim

    def _note_voids(self, leader: int, cards: tuple[Card, ...] | list[Card]) -> None:
        lead_class = FOLLOW[cards[0]]
        for i in range(1, len(cards)):
            c = cards[i]
            if not (1 << c) & lead_class and c != self.under:
                self.void_in[(leader + i) % 5] |= lead_class

    @property
    def is_over(self) -> bool:
        """Whether all six tricks are played."""
        return self.ntricks == 6

    def legal_mask(self) -> Mask:
        """The cards the seat to act may play (:func:`engine.tricks.legal_cards`, as the engine)."""
        seat = self.turn
        return legal_cards(
            self.hands[seat],
            seat,
            self.current,
            self.ntricks,
            self.picker,
            self.partner,
            self.called,
            self.called_led_at,
            self.under,
        )

    def play(self, c: Card) -> None:
        """Play ``c`` for the seat to act (no validation); :meth:`unplay` takes it back."""
        seat = self.turn
        self.hands[seat] ^= 1 << c
        self.played |= 1 << c
        current = self.current
        old_led = self.called_led_at
        old_revealed = self.revealed
        if not current and old_led < 0 and (1 << c) & self.called_mask:
            self.called_led_at = self.ntricks
        current.append(c)
        if c == self.called:
            self.revealed = True
        if len(current) < 5:
            self.turn = (seat + 1) % 5
            self.undo.append((seat, c, old_led, old_revealed, self.leader, None, 0))
            return
        winner = self._winner()
        points = (
            POINTS[current[0]]
            + POINTS[current[1]]
            + POINTS[current[2]]
            + POINTS[current[3]]
            + POINTS[current[4]]
        )
        self.taken[winner] += points
        self.won[winner] += 1
        self.undo.append((seat, c, old_led, old_revealed, self.leader, tuple(current), winner))
        self.current = []
        self.leader = self.turn = winner
        self.ntricks += 1

    def unplay(self) -> None:
        """Take back the last :meth:`play`."""
        seat, c, old_led, old_revealed, leader, trick, winner = self.undo.pop()
        self.hands[seat] |= 1 << c
        self.played &= ~(1 << c)
        self.called_led_at = old_led
        self.revealed = old_revealed
        self.leader = leader
        self.turn = seat
        if trick is None:
            self.current.pop()
            return
        points = 0
        for x in trick:
            points += POINTS[x]
        self.taken[winner] -= points
        self.won[winner] -= 1
        self.ntricks -= 1
        self.current = list(trick[:-1])

    def _winner(self) -> int:
        return (self.leader + trick_winner(self.current, self.strength, self.under)) % 5

    def played_out_mask_for(self, seat: int) -> Mask:
        """Cards still in play that ``seat`` does not hold: other hands and the current trick."""
        m = 0
        hands = self.hands
        for s in range(5):
            if s != seat:
                m |= hands[s]
        for c in self.current:
            m |= 1 << c
        return m

    def special_mask(self) -> Mask:
        """Cards with rules of their own (the called card, the unknown card)."""
        m = 0
        if self.called >= 0:
            m |= 1 << self.called
        if self.under >= 0:
            m |= 1 << self.under
        return m

    # ------------------------------------------------------------------ outcome

    def side_of(self, seat: int) -> int:
        """1 for the picker's side, 0 for the defenders (in a leaster every seat is its own)."""
        return int(seat == self.picker or seat == self.partner)

    def payouts(self) -> tuple[int, ...]:
        """Every seat's payout of the finished hand, as :mod:`engine.scoring` computes it."""
        rules: RuleSet = self.rules
        if self.leaster:
            points = list(self.taken)
            last_winner = self.leader
            points[last_winner] += self.blind_points
            _, pay = leaster_payouts(rules, tuple(points), tuple(self.won), self.multiplier)
            return pay
        picker = self.picker
        partner = self.partner if self.partner >= 0 else None
        side = self.taken[picker] + self.buried_points
        tricks = self.won[picker]
        if partner is not None:
            side += self.taken[partner]
            tricks += self.won[partner]
        outcome, stake = stake_for(rules, side, tricks)
        return payouts_for_picked(rules, picker, partner, outcome, stake, self.multiplier)

    def side_totals(self) -> tuple[int, int, int]:
        """The picker's side card points (bury included) and tricks so far, and points left."""
        picker = self.picker
        partner = self.partner
        side = self.taken[picker] + self.buried_points
        tricks = self.won[picker]
        if partner >= 0:
            side += self.taken[partner]
            tricks += self.won[partner]
        left = 120 - self.buried_points - sum(self.taken)
        return side, tricks, left

    def picked_payout(self, seat: int, side_points: int, side_tricks: int) -> int:
        """The payout of ``seat`` if the picker's side ends with these points and tricks."""
        partner = self.partner if self.partner >= 0 else None
        outcome, stake = stake_for(self.rules, side_points, side_tricks)
        pay = payouts_for_picked(self.rules, self.picker, partner, outcome, stake, self.multiplier)
        return pay[seat]

    def value(self, seat: int) -> float:
        """The payout of ``seat`` plus a small tie-break for card points (the hand is over)."""
        pay = self.payouts()[seat]
        if self.leaster:
            return pay - self.taken[seat] * 0.001
        side = self.side_of(seat)
        mine = 0
        for s in range(5):
            if self.side_of(s) == side:
                mine += self.taken[s]
        return pay + mine * 0.001

    # ------------------------------------------------------------------ rollout policy

    def situation(self, legal: Mask) -> Situation:
        """What the seat to act knows, for the heuristic rollout policy (``legal``: its legal
        cards, which the caller has already worked out).

        The seat knows its own cards, everything played, and the sides as a player would:
        the partner knows itself, everyone knows the partner once the called card is out.
        """
        seat = self.turn
        hand = self.hands[seat]
        picker = self.picker
        partner = self.partner
        if self.leaster or picker < 0:
            friends = 1 << seat
            foes = _EVERYONE & ~friends
        elif seat == picker:
            if partner < 0:
                friends, foes = 1 << seat, _EVERYONE & ~(1 << seat)
            elif self.revealed:
                friends = (1 << seat) | (1 << partner)
                foes = _EVERYONE & ~friends
            else:
                friends, foes = 1 << seat, 0
        elif seat == partner:
            friends = (1 << seat) | (1 << picker)
            foes = _EVERYONE & ~friends
        else:
            foes = 1 << picker
            if partner >= 0 and self.revealed:
                foes |= 1 << partner
                friends = _EVERYONE & ~foes
            elif partner < 0:
                friends = _EVERYONE & ~foes
            else:
                friends = 1 << seat
        return Situation(
            seat=seat,
            hand=hand,
            legal=legal,
            power=self.power,
            leader=self.leader,
            trick=self.current,
            picker=picker,
            leaster=self.leaster,
            friends=friends,
            foes=foes,
            called=self.called,
            called_led=self.called_led_at >= 0,
            unseen=ALL_CARDS & ~(self.played | hand),
            trick_number=self.ntricks,
            under=self.under if self.under >= 0 and not hand >> self.under & 1 else NO_CARD,
            void_in=self.void_in,
            taken=self.taken,
        )

    def rollout(self, log: list[tuple[int, Card]] | None = None) -> None:
        """Play the hand out with the heuristic policy for every seat (no undo).

        ``log``, when given, receives every ``(seat, card)`` played.
        """
        hands = self.hands
        strength = self.strength
        while self.ntricks < 6:
            legal = self.legal_mask()
            seat = self.turn
            current = self.current
            if legal & (legal - 1):
                c = choose_play(self.situation(legal))
            else:
                c = (legal & -legal).bit_length() - 1
            if current and not (1 << c) & FOLLOW[current[0]] and c != self.under:
                self.void_in[seat] |= FOLLOW[current[0]]
            if log is not None:
                log.append((seat, c))
            # play() without the undo record
            hands[seat] ^= 1 << c
            self.played |= 1 << c
            if not current and self.called_led_at < 0 and (1 << c) & self.called_mask:
                self.called_led_at = self.ntricks
            current.append(c)
            if c == self.called:
                self.revealed = True
            if len(current) < 5:
                self.turn = (seat + 1) % 5
                continue
            winner = (self.leader + trick_winner(current, strength, self.under)) % 5
            points = (
                POINTS[current[0]]
                + POINTS[current[1]]
                + POINTS[current[2]]
                + POINTS[current[3]]
                + POINTS[current[4]]
            )
            self.taken[winner] += points
            self.won[winner] += 1
            self.current = []
            self.leader = self.turn = winner
            self.ntricks += 1

    def copy(self) -> Sim:
        """An independent copy (the undo history is not kept)."""
        other = Sim.__new__(Sim)
        for name in Sim.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = self.hands.copy()
        other.current = self.current.copy()
        other.taken = self.taken.copy()
        other.won = self.won.copy()
        other.void_in = self.void_in.copy()
        other.undo = []
        return other
