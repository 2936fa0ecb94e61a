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
from engine.cards import ALL_CARDS, POWER, Card, Mask, mask_points
from engine.hand import Hand
from engine.rules import RuleSet
from engine.scoring import leaster_payouts, payouts_for_picked, stake_for
from engine.tricks import TrickPlay, advance, trick_points

_EVERYONE: Final = 0b11111

Undo = tuple[int, Card, int, bool, int, Mask, list[Card], Mask]
"""What :meth:`Sim.unplay` restores: the seat, its card, the trick the called suit was led in,
whether the partner was revealed, the leader, the seat's voids, the trick's card list and the
seat's legal cards. A plain tuple: the exact search makes and unmakes one per position it
visits."""


class Sim:
    """The play phase of one fully known deal (see the module docstring)."""

    __slots__ = (
        "alone",
        "blind_points",
        "buried",
        "buried_points",
        "called",
        "leaster",
        "multiplier",
        "partner",
        "picker",
        "power",
        "rules",
        "state",
        "under",
        "undo",
    )

    alone: bool
    blind_points: int
    buried: Mask
    """The picker's bury: the picker has seen it, so it is not unseen in the picker's situation."""
    buried_points: int
    called: Card
    leaster: bool
    multiplier: int
    partner: int
    picker: int
    power: tuple[int, ...]
    rules: RuleSet
    state: TrickPlay
    """The cards, the trick and what play has shown (:mod:`engine.tricks`, as the engine's)."""
    under: Card
    undo: list[Undo]

    @classmethod
    def from_hand(cls, hand: Hand) -> Sim:
        """A simulator at the state of ``hand``, which must be in the play phase."""
        if hand.phase != "play" or hand.turn is None:
            raise ValueError("a simulator starts in the play phase")
        sim = cls.__new__(cls)
        sim.rules = hand.rules
        sim.power = POWER[hand.rules.jack_order]
        sim.state = state = hand.play_state.copy()
        sim.called = state.called
        sim.partner = state.partner
        sim.picker = state.picker
        sim.under = state.under
        sim.leaster = hand.leaster
        sim.alone = hand.alone
        sim.multiplier = hand.stakes  # the doubler carry-over with every crack and blitz
        sim.buried = hand.buried or 0
        sim.buried_points = mask_points(hand.buried)
        sim.blind_points = mask_points(hand.blind)
        sim.undo = []
        return sim

    @property
    def is_over(self) -> bool:
        """Whether all six tricks are played."""
        return self.state.ntricks == 6

    def legal_mask(self) -> Mask:
        """The cards the seat to act may play (:func:`engine.tricks.legal_cards`, as the engine:
        the answer :func:`engine.tricks.advance` keeps)."""
        return self.state.legal

    def play(self, c: Card) -> None:
        """Play ``c`` for the seat to act (no validation); :meth:`unplay` takes it back."""
        t = self.state
        seat = t.turn
        self.undo.append(
            (seat, c, t.called_led_at, t.revealed, t.leader, t.void_in[seat], t.current, t.legal)
        )
        advance(t, seat, c)

    def unplay(self) -> None:
        """Take back the last :meth:`play`."""
        seat, c, called_led_at, revealed, leader, void, cards, legal = self.undo.pop()
        t = self.state
        if t.current is not cards:
            # The card closed the trick, which its winner now leads.
            winner = t.leader
            t.taken[winner] -= trick_points(cards)
            t.won[winner] -= 1
            t.ntricks -= 1
            t.current = cards
        cards.pop()
        t.hands[seat] |= 1 << c
        t.played &= ~(1 << c)
        t.called_led_at = called_led_at
        t.revealed = revealed
        t.void_in[seat] = void
        t.leader = leader
        t.turn = seat
        t.legal = legal

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
        t = self.state
        rules: RuleSet = self.rules
        if self.leaster:
            points = list(t.taken)
            last_winner = t.leader
            points[last_winner] += self.blind_points
            _, pay = leaster_payouts(rules, tuple(points), tuple(t.won), self.multiplier)
            return pay
        picker = self.picker
        partner = self.partner if self.partner >= 0 else None
        side = t.taken[picker] + self.buried_points
        tricks = t.won[picker]
        if partner is not None:
            side += t.taken[partner]
            tricks += t.won[partner]
        outcome, stake = stake_for(rules, side, tricks)
        return payouts_for_picked(rules, picker, partner, outcome, stake, self.multiplier)

    def side_totals(self) -> tuple[int, int, int]:
        """The picker's side card points (bury included) and tricks so far, and points left."""
        t = self.state
        picker = self.picker
        partner = self.partner
        side = t.taken[picker] + self.buried_points
        tricks = t.won[picker]
        if partner >= 0:
            side += t.taken[partner]
            tricks += t.won[partner]
        left = 120 - self.buried_points - sum(t.taken)
        return side, tricks, left

    def picked_payout(self, seat: int, side_points: int, side_tricks: int) -> int:
        """The payout of ``seat`` if the picker's side ends with these points and tricks."""
        partner = self.partner if self.partner >= 0 else None
        outcome, stake = stake_for(self.rules, side_points, side_tricks)
        pay = payouts_for_picked(self.rules, self.picker, partner, outcome, stake, self.multiplier)
        return pay[seat]

    def value(self, seat: int) -> float:
        """The payout of ``seat`` plus a small tie-break for card points (the hand is over)."""
        t = self.state
        pay = self.payouts()[seat]
        if self.leaster:
            return pay - t.taken[seat] * 0.001
        side = self.side_of(seat)
        mine = 0
        for s in range(5):
            if self.side_of(s) == side:
                mine += t.taken[s]
        return pay + mine * 0.001

    # ------------------------------------------------------------------ rollout policy

    def situation(self, legal: Mask) -> Situation:
        """What the seat to act knows, for the heuristic rollout policy (``legal``: its legal
        cards, which the caller has already worked out).

        The seat knows its own cards, everything played, and the sides as a player would:
        the partner knows itself, everyone knows the partner once the called card is out.
        """
        t = self.state
        seat = t.turn
        hand = t.hands[seat]
        picker = self.picker
        partner = self.partner
        if self.leaster or picker < 0:
            friends = 1 << seat
            foes = _EVERYONE & ~friends
        elif seat == picker:
            if partner < 0:
                friends, foes = 1 << seat, _EVERYONE & ~(1 << seat)
            elif t.revealed:
                friends = (1 << seat) | (1 << partner)
                foes = _EVERYONE & ~friends
            else:
                friends, foes = 1 << seat, 0
        elif seat == partner:
            friends = (1 << seat) | (1 << picker)
            foes = _EVERYONE & ~friends
        else:
            foes = 1 << picker
            if partner >= 0 and t.revealed:
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
            leader=t.leader,
            trick=t.current,
            picker=picker,
            leaster=self.leaster,
            friends=friends,
            foes=foes,
            called=self.called,
            called_led=t.called_led_at >= 0,
            unseen=ALL_CARDS & ~(t.played | hand | (self.buried if seat == picker else 0)),
            trick_number=t.ntricks,
            under=self.under if self.under >= 0 and not hand >> self.under & 1 else NO_CARD,
            void_in=t.void_in,
            taken=t.taken,
        )

    def play_others(self, seat: int) -> int:
        """Play the heuristic for every other seat up to ``seat``'s turn (or the hand's end),
        with undo; how many cards were played (as many :meth:`unplay` calls take them back)."""
        t = self.state
        played = 0
        while t.ntricks < 6 and t.turn != seat:
            legal = self.legal_mask()
            if legal & (legal - 1):
                c = choose_play(self.situation(legal))
            else:
                c = (legal & -legal).bit_length() - 1
            self.play(c)
            played += 1
        return played

    def rollout(self, log: list[tuple[int, Card]] | None = None) -> None:
        """Play the hand out with the heuristic policy for every seat (no undo).

        ``log``, when given, receives every ``(seat, card)`` played.
        """
        t = self.state
        while t.ntricks < 6:
            legal = t.legal
            seat = t.turn
            if legal & (legal - 1):
                c = choose_play(self.situation(legal))
            else:
                c = (legal & -legal).bit_length() - 1
            if log is not None:
                log.append((seat, c))
            advance(t, seat, c)

    def copy(self) -> Sim:
        """An independent copy (the undo history is not kept)."""
        other = Sim.__new__(Sim)
        for name in Sim.__slots__:
            setattr(other, name, getattr(self, name))
        other.state = self.state.copy()
        other.undo = []
        return other
