"""Scoring of a hand (docs/rules.md, "Scoring a picked hand" and "When everybody passes") with
a breakdown a client can display.

>>> from engine.rules import RuleSet
>>> stake_for(RuleSet(), picker_side_points=91, picker_side_tricks=5)
('schneider', 2)
>>> stake_for(RuleSet(), picker_side_points=60, picker_side_tricks=3)
('lost', 1)
>>> payouts_for_picked(RuleSet(), picker=0, partner=1, outcome="won", stake=1, multiplier=1)
(2, 1, -1, -1, -1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

from engine.cards import CARD_CODES, Card
from engine.rules import RuleSet

Outcome = Literal[
    "won",
    "schneider",
    "all_tricks",
    "lost",
    "schneidered",
    "no_tricks",
    "leaster_won",
    "leaster_tie",
    "doubler",
    "unfinished",
]
"""How a hand ended, from the picker's side (or the leaster / doubler)."""

WIN_THRESHOLD: Final = 61
"""The picker's side wins with 61 or more card points; 60 loses."""

OUTCOME_TEXT: Final[dict[str, str]] = {
    "won": "picker's side won",
    "schneider": "picker's side won schneider (91+)",
    "all_tricks": "picker's side took every trick",
    "lost": "picker's side lost",
    "schneidered": "picker's side lost schneidered (30 or less)",
    "no_tricks": "picker's side took no trick",
    "leaster_won": "leaster won",
    "leaster_tie": "leaster tied: nobody scores",
    "doubler": "all passed: doubler, next hand doubled",
    "unfinished": "hand in progress",
}
"""A short sentence per outcome for result panels."""


class Trick(NamedTuple):
    """A finished trick: who led, the cards in play order, who won it and its card points.

    A named tuple rather than a frozen dataclass: a hand records six, and a frozen dataclass
    sets each field through ``object.__setattr__``, which cost about 7,500 instructions a trick
    against 3,000 (bench/engine.py; docs/performance.md).
    """

    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int

    @property
    def seats(self) -> tuple[int, ...]:
        """The seat that played each card, in play order."""
        return tuple((self.leader + i) % 5 for i in range(len(self.cards)))

    def to_dict(self) -> dict[str, Any]:
        """The replay/wire map: ``leader``, ``cards`` (codes), ``winner``, ``points``."""
        return {
            "leader": self.leader,
            "cards": [CARD_CODES[c] for c in self.cards],
            "winner": self.winner,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class HandResult:
    """A hand's outcome; ``to_dict`` is exactly the ``sheepshead replay --json`` line."""

    complete: bool
    picker: int | None
    partner: int | None
    called: Card | None
    alone: bool
    leaster: bool
    doubler: bool
    tricks: tuple[Trick, ...]
    points: tuple[int, ...]
    picker_side_points: int | None
    payouts: tuple[int, ...] | None
    multiplier: int
    outcome: Outcome
    stake: int
    bumped: bool
    leaster_winner: int | None
    stakes: int = 1
    """The final multiplier: ``multiplier`` times 2 per doubling of docs/rules.md, "Cracking and
    blitzing"."""
    blitzes: tuple[tuple[int, str], ...] = ()
    """The picker's blitzes: (seat, pair) in order."""
    crack: tuple[int, str | None] | None = None
    """The crack: (seat, the pair shown or None), or None when nobody cracked."""
    recrack: bool = False

    @property
    def defender_points(self) -> int | None:
        """Card points of the side against the picker (None in a leaster or doubler)."""
        if self.picker_side_points is None:
            return None
        return sum(self.points) - self.picker_side_points

    def to_dict(self) -> dict[str, Any]:
        """The replay JSON of docs/hand-record.md, field for field."""
        return {
            "complete": self.complete,
            "picker": self.picker,
            "partner": self.partner,
            "called": None if self.called is None else CARD_CODES[self.called],
            "alone": self.alone,
            "leaster": self.leaster,
            "doubler": self.doubler,
            "tricks": [t.to_dict() for t in self.tricks],
            "points": list(self.points),
            "picker_side_points": self.picker_side_points,
            "payouts": None if self.payouts is None else list(self.payouts),
            "blitzes": [{"seat": seat, "pair": pair} for seat, pair in self.blitzes],
            "crack": (
                None if self.crack is None else {"seat": self.crack[0], "blitz": self.crack[1]}
            ),
            "recrack": self.recrack,
            "stakes": self.stakes,
        }

    def doublings(self) -> list[dict[str, Any]]:
        """Each thing that multiplied this hand's payouts, in order, with its ``factor``.

        ``kind`` is ``doubler`` (the carry-over of thrown-in hands), ``blitz`` (``seat``,
        ``pair``), ``crack`` (``seat``; ``pair`` when queens were shown, factor 4), ``recrack``
        (``seat``: the picker) or ``bump`` (a losing picker's side pays double).
        """
        out: list[dict[str, Any]] = []
        if self.multiplier > 1:
            out.append({"kind": "doubler", "seat": None, "pair": None, "factor": self.multiplier})
        for seat, pair in self.blitzes:
            out.append({"kind": "blitz", "seat": seat, "pair": pair, "factor": 2})
        if self.crack is not None:
            seat, shown = self.crack
            factor = 2 if shown is None else 4
            out.append({"kind": "crack", "seat": seat, "pair": shown, "factor": factor})
            if self.recrack:
                out.append({"kind": "recrack", "seat": self.picker, "pair": None, "factor": 2})
        if self.bumped:
            out.append({"kind": "bump", "seat": None, "pair": None, "factor": 2})
        return out

    def breakdown(self) -> dict[str, Any]:
        """What a result panel shows: the replay fields plus outcome, stake and multipliers."""
        data = self.to_dict()
        data.update(
            outcome=self.outcome,
            outcome_text=OUTCOME_TEXT[self.outcome],
            stake=self.stake,
            multiplier=self.multiplier,
            bumped=self.bumped,
            defender_points=self.defender_points,
            leaster_winner=self.leaster_winner,
            doublings=self.doublings(),
        )
        return data


def stake_for(
    rules: RuleSet, picker_side_points: int, picker_side_tricks: int
) -> tuple[Outcome, int]:
    """The outcome and base stake ``m`` of a picked hand (docs/rules.md, "Scoring a picked hand"'s
    table)."""
    del rules  # the table is the same under every option; kept for symmetry with payouts
    if picker_side_tricks == 6:
        return "all_tricks", 3
    if picker_side_tricks == 0:
        return "no_tricks", 3
    if picker_side_points >= WIN_THRESHOLD:
        if 120 - picker_side_points < 30:
            return "schneider", 2
        return "won", 1
    if picker_side_points < 31:
        return "schneidered", 2
    return "lost", 1


def payouts_for_picked(
    rules: RuleSet,
    picker: int,
    partner: int | None,
    outcome: Outcome,
    stake: int,
    multiplier: int,
) -> tuple[int, ...]:
    """Per-seat payouts of a picked hand; they always sum to zero."""
    won = outcome in ("won", "schneider", "all_tricks")
    sign = 1 if won else -1
    factor = multiplier * (2 if not won and rules.double_on_the_bump else 1)
    pay = [-sign * stake * factor] * 5
    if partner is None:
        pay[picker] = 4 * sign * stake * factor
    elif outcome == "no_tricks" and rules.no_trick_partner_exempt:
        pay[partner] = 0
        pay[picker] = -3 * stake * factor
    else:
        pay[partner] = sign * stake * factor
        pay[picker] = 2 * sign * stake * factor
    return tuple(pay)


def leaster_payouts(
    rules: RuleSet, points: tuple[int, ...], tricks_won: tuple[int, ...], multiplier: int
) -> tuple[int | None, tuple[int, ...]]:
    """The leaster winner (None on a tie or when nobody qualifies) and the payouts."""
    eligible = [s for s in range(5) if tricks_won[s] > 0 or not rules.leaster_needs_trick]
    if not eligible:
        return None, (0,) * 5
    low = min(points[s] for s in eligible)
    lowest = [s for s in eligible if points[s] == low]
    if len(lowest) > 1:
        return None, (0,) * 5
    winner = lowest[0]
    pay = [-multiplier] * 5
    pay[winner] = 4 * multiplier
    return winner, tuple(pay)


def score_hand(
    *,
    rules: RuleSet,
    complete: bool,
    picker: int | None,
    partner: int | None,
    called: Card | None,
    alone: bool,
    leaster: bool,
    doubler: bool,
    tricks: tuple[Trick, ...],
    taken: tuple[int, ...],
    tricks_won: tuple[int, ...],
    buried_points: int,
    blind_points: int,
    multiplier: int,
    blitzes: tuple[tuple[int, str], ...] = (),
    crack: tuple[int, str | None] | None = None,
    recrack: bool = False,
) -> HandResult:
    """Score a hand from its facts; ``taken`` counts trick points only (no bury, no blind).

    ``multiplier`` is the doubler carry-over; the blitzes, the crack (with any pair shown) and
    the re-crack each double it again into the hand's ``stakes`` (docs/rules.md, "Cracking and
    blitzing").
    """
    doublings = len(blitzes) + recrack
    if crack is not None:
        doublings += 1 if crack[1] is None else 2
    stakes = multiplier << doublings
    points = list(taken)
    if picker is not None:
        points[picker] += buried_points
    if leaster and complete and tricks:
        points[tricks[-1].winner] += blind_points

    def build(
        outcome: Outcome,
        side: int | None,
        payouts: tuple[int, ...] | None,
        stake: int = 0,
        bumped: bool = False,
        winner: int | None = None,
    ) -> HandResult:
        return HandResult(
            complete=complete,
            picker=picker,
            partner=partner,
            called=called,
            alone=alone,
            leaster=leaster,
            doubler=doubler,
            tricks=tricks,
            points=tuple(points),
            picker_side_points=side,
            payouts=payouts,
            multiplier=multiplier,
            outcome=outcome,
            stake=stake,
            bumped=bumped,
            leaster_winner=winner,
            stakes=stakes,
            blitzes=blitzes,
            crack=crack,
            recrack=recrack,
        )

    if doubler:
        return build("doubler", None, (0,) * 5)
    if leaster:
        if not complete:
            return build("unfinished", None, None)
        winner, pay = leaster_payouts(rules, tuple(points), tricks_won, multiplier)
        outcome: Outcome = "leaster_won" if winner is not None else "leaster_tie"
        return build(outcome, None, pay, stake=1, winner=winner)
    if picker is None:
        return build("unfinished", None, None)
    side = points[picker] + (points[partner] if partner is not None else 0)
    if not complete:
        return build("unfinished", side, None)
    side_tricks = tricks_won[picker] + (tricks_won[partner] if partner is not None else 0)
    outcome, stake = stake_for(rules, side, side_tricks)
    pay = payouts_for_picked(rules, picker, partner, outcome, stake, stakes)
    won = outcome in ("won", "schneider", "all_tricks")
    return build(outcome, side, pay, stake=stake, bumped=not won and rules.double_on_the_bump)
