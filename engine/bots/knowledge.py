"""What a seat knows about a hand, read from its view into bit masks.

:func:`read_view` turns the wire map of :func:`engine.view.seat_view` into a :class:`Knowledge`:
the seat's cards, every card played and by whom, who is known to be on which side, which classes
(trump or a fail suit) each seat has shown it lacks, and where the unseen cards may be. Both
strategies start from it; nothing here looks beyond the view, so a bot cannot cheat.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=3)
>>> k = read_view(seat_view(hand, 1))
>>> k.seat, k.phase, k.hand.bit_count(), k.unseen.bit_count()
(1, 'pick', 6, 26)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots.policy import NO_CARD, Situation
from engine.bots.style import TUNED, Style
from engine.cards import ALL_CARDS, FAIL, FOLLOW, POWER, TRUMP, Card, Mask, parse_card
from engine.rules import RuleSet

JD = parse_card("JD")


def codes_mask(codes: Sequence[str] | None) -> Mask:
    """The mask of a list of card codes (an absent list is empty)."""
    m = 0
    for code in codes or ():
        m |= 1 << parse_card(code)
    return m


@dataclass(slots=True)
class PlayedTrick:
    """A trick as a seat saw it: who led, the cards in play order, the winner (None: current)."""

    leader: int
    cards: list[Card]
    winner: int | None


@dataclass(slots=True)
class Knowledge:
    """One seat's picture of a hand (see the module docstring)."""

    seat: int
    rules: RuleSet
    phase: str
    dealer: int
    multiplier: int
    hand: Mask
    hand_sizes: list[int]
    passes: list[int]
    picker: int | None
    leaster: bool
    alone: bool
    called: Card | None
    partner: int | None
    """The partner's seat when this seat knows it (itself, or after the called card is played)."""
    blind: Mask | None
    buried: Mask | None
    under: Card | None
    """The face-down unknown card when known (the picker's own, or once it has been played)."""
    unknown_call: bool
    tricks: list[PlayedTrick]
    trick: PlayedTrick
    trick_points: list[int]
    played: Mask = 0
    played_by: list[Mask] = field(default_factory=lambda: [0] * 5)
    void_in: list[Mask] = field(default_factory=lambda: [0] * 5)
    """Per seat, the follow classes (trump / a fail suit) it has shown it cannot follow."""
    under_voids: Mask = 0
    """In an unknown-card hand whose face-down card is still hidden, the follow classes the
    picker has shown it lacks apart from that card (which may not follow suit): it holds at
    most one card of them, and that one is the unknown card. Once the card is known these are
    plain voids (:attr:`void_in`)."""
    called_led: bool = False
    called_led_at: int | None = None
    turn: int | None = None
    blitzes: list[tuple[int, str]] = field(default_factory=list)
    """The picker's blitzes (seat, pair), in order (docs/rules.md, "Cracking and blitzing")."""
    cracker: int | None = None
    crack_blitz: str | None = None
    """The queen pair the cracker showed, if any."""
    recracked: bool = False

    @property
    def power(self) -> tuple[int, ...]:
        """Trick-taking power of each card under this table's jack order."""
        return POWER[self.rules.jack_order]

    @property
    def jd_mode(self) -> bool:
        """Whether the partner is the holder of the jack of diamonds."""
        return self.rules.partner == "jack-of-diamonds"

    @property
    def unseen(self) -> Mask:
        """Cards this seat has not seen: in other hands, or the unknown bury / blind."""
        known = self.hand | self.played
        if self.buried is not None:
            known |= self.buried
        if self.blind is not None and self.seat == self.picker:
            known |= self.blind
        return ALL_CARDS & ~known

    @property
    def defending(self) -> bool:
        """Whether this seat plays against a picker: not a leaster, not the picker, not the
        partner (who knows itself from the start)."""
        return (
            not self.leaster
            and self.picker is not None
            and self.seat != self.picker
            and self.partner != self.seat
        )

    @property
    def trick_number(self) -> int:
        """Index (0-5) of the trick being played."""
        return len(self.tricks)

    def friends_and_foes(self) -> tuple[int, int]:
        """Seat bit sets of the seats known to be on my side and on the other side."""
        me = self.seat
        everyone = 0b11111
        if self.leaster or self.picker is None:
            return 1 << me, everyone & ~(1 << me)
        picker = self.picker
        partner = self.partner
        if me == picker:
            if self.alone:
                return 1 << me, everyone & ~(1 << me)
            if partner is not None:
                friends = (1 << me) | (1 << partner)
                return friends, everyone & ~friends
            return 1 << me, 0
        if partner == me:
            friends = (1 << me) | (1 << picker)
            return friends, everyone & ~friends
        foes = 1 << picker
        if partner is not None:
            foes |= 1 << partner
        if self.alone or partner is not None or self.called is None:
            return everyone & ~foes, foes
        return 1 << me, foes

    def situation(self, legal: Mask, style: Style = TUNED) -> Situation:
        """The :class:`Situation` for choosing a card among ``legal`` in ``style``."""
        friends, foes = self.friends_and_foes()
        return Situation(
            seat=self.seat,
            hand=self.hand,
            legal=legal,
            power=self.power,
            leader=self.trick.leader,
            trick=list(self.trick.cards),
            picker=-1 if self.picker is None else self.picker,
            leaster=self.leaster,
            friends=friends,
            foes=foes,
            called=NO_CARD if self.called is None else self.called,
            called_led=self.called_led,
            unseen=self.unseen,
            trick_number=self.trick_number,
            under=NO_CARD if self.under is None else self.under,
            void_in=self.void_in,
            taken=self.trick_points,
            style=style,
        )


def _trick(data: Mapping[str, Any], finished: bool) -> PlayedTrick:
    if finished:
        cards = [parse_card(c) for c in data["cards"]]
        return PlayedTrick(int(data["leader"]), cards, int(data["winner"]))
    cards = [parse_card(entry["card"]) for entry in data.get("cards", [])]
    return PlayedTrick(int(data["leader"]), cards, None)


def read_view(view: Mapping[str, Any]) -> Knowledge:
    """Read a seat view (as built by :func:`engine.view.seat_view` or received on the wire)."""
    seat = view["seat"]
    if not isinstance(seat, int):
        raise ValueError("a strategy needs a seat's view, not a spectator's")
    rules = RuleSet.from_dict(view.get("rules") or {})
    called_code = view.get("called")
    under_code = view.get("under")
    k = Knowledge(
        seat=seat,
        rules=rules,
        phase=str(view["phase"]),
        dealer=int(view["dealer"]),
        multiplier=int(view.get("multiplier") or 1),
        hand=codes_mask(view.get("hand")),
        hand_sizes=[int(n) for n in view["hand_sizes"]],
        passes=[int(s) for s in view.get("passes") or []],
        picker=view.get("picker"),
        leaster=bool(view.get("leaster")),
        alone=bool(view.get("alone")),
        called=None if called_code is None else parse_card(called_code),
        partner=view.get("partner"),
        blind=None if view.get("blind") is None else codes_mask(view["blind"]),
        buried=None if view.get("buried") is None else codes_mask(view["buried"]),
        under=None if under_code is None else parse_card(under_code),
        unknown_call=bool(view.get("unknown")),
        tricks=[_trick(t, True) for t in view.get("tricks") or []],
        trick=_trick(view.get("trick") or {"leader": 0, "cards": []}, False),
        trick_points=[int(p) for p in view.get("trick_points") or [0] * 5],
    )
    _read_stakes(k, view)
    _infer(k)
    return k


def _read_stakes(k: Knowledge, view: Mapping[str, Any]) -> None:
    """The turn and docs/rules.md, "Cracking and blitzing"'s public facts: blitzes, the crack, the
    re-crack."""
    turn = view.get("turn")
    k.turn = turn if isinstance(turn, int) else None
    k.blitzes = [(int(b["seat"]), str(b["pair"])) for b in view.get("blitzes") or []]
    crack = view.get("crack")
    if isinstance(crack, Mapping):
        k.cracker = int(crack["seat"])
        k.crack_blitz = None if crack.get("blitz") is None else str(crack["blitz"])
    k.recracked = bool(view.get("recrack"))


def _infer(k: Knowledge) -> None:
    """Fill in played cards, who played them, voids, and the unknown card once played."""
    called_suit = 0
    if k.called is not None and k.called != JD:
        called_suit = FAIL[k.called >> 3]
    for number, trick in enumerate([*k.tricks, k.trick]):
        if not trick.cards:
            continue
        lead_class = FOLLOW[trick.cards[0]]
        called_led_here = False
        if called_suit and not k.called_led and (1 << trick.cards[0]) & called_suit:
            k.called_led = True
            k.called_led_at = number
            called_led_here = True
        for i, c in enumerate(trick.cards):
            s = (trick.leader + i) % 5
            k.played |= 1 << c
            k.played_by[s] |= 1 << c
            if i == 0:
                continue
            if k.unknown_call and s == k.picker:
                # The face-down card is played when the called suit is first led (or as the
                # last card): that card shows no void, and it is the unknown card. Any other
                # card off the led class shows a void, except for a face-down card still held,
                # which may not follow suit.
                if called_led_here and k.under is None:
                    k.under = c
                elif c != k.under and not (1 << c) & lead_class:
                    k.under_voids |= lead_class
                continue
            if not (1 << c) & lead_class:
                k.void_in[s] |= lead_class
    if k.called is not None and k.partner is None and k.played >> k.called & 1:
        for s in range(5):
            if k.played_by[s] >> k.called & 1:
                k.partner = s
    # Whoever holds the called card is the partner and knows it.
    if k.called is not None and k.hand >> k.called & 1 and k.seat != k.picker:
        k.partner = k.seat
    if k.under_voids and k.picker is not None and k.under is not None:
        k.void_in[k.picker] |= k.under_voids
        k.under_voids = 0
    k.void_in = [v & (TRUMP | FAIL[0] | FAIL[1] | FAIL[2]) for v in k.void_in]
    k.under_voids &= TRUMP | FAIL[0] | FAIL[1] | FAIL[2]
