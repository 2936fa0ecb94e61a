"""What the standings count of a finished hand, and who a seat's server bot counts as: the
part of ``server.storage.standings`` that the store needs as it keeps the standings (so the store,
below the standings, imports only this). No SQL: the store reads and writes the tables."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from engine.bots.base import STRATEGIES, strategy_names
from engine.record import RecordError, replay_record

HandKey = tuple[int, int, int]
"""A finished hand: (table key, match number, hand number)."""

BOT_PREFIX: Final = "bot:"
"""How a server bot's identity starts; the strategy name follows."""

SCHNEIDER_HIGH: Final = 91
"""Picker's side points at or above which the defenders are schneidered (docs/rules.md, "Scoring a
picked hand")."""

SCHNEIDER_LOW: Final = 30
"""Picker's side points at or below which the picker's side is schneidered (docs/rules.md, "Scoring
a picked hand")."""

TALLY_FIGURES: Final = ("hands", "total", "picks", "picker_wins", "schneiders", "leasters_won")
"""The figures a ``match_tallies`` row adds up per hand (``player_totals`` adds ``matches``)."""


@functools.lru_cache(maxsize=256)
def canonical_strategy(name: str) -> str:
    """The strategy a registered name stands for: an alias (``easy``, ``medium``, ``hard``)
    is the strategy first registered with the same factory; any other name is itself.

    >>> canonical_strategy("easy"), canonical_strategy("medium"), canonical_strategy("random")
    ('random', 'heuristic', 'random')
    """
    strategy_names()  # the built-in strategies are registered
    found = STRATEGIES.get(name)
    if found is None:
        return name
    return next((other for other, (f, _) in STRATEGIES.items() if f is found[0]), name)


def canonical_spec(spec: str) -> str:
    """A server bot's strategy as the table shows and records it: a level alias as the strategy
    it stands for (``easy`` is ``random``, ``medium`` ``heuristic``, ``hard`` ``search``;
    ``engine.bots``), any options after the name kept as given (``hard:samples=20`` is
    ``search:samples=20``).

    >>> canonical_spec("easy"), canonical_spec("hard:samples=20"), canonical_spec("mine")
    ('random', 'search:samples=20', 'mine')
    """
    name, sep, options = spec.partition(":")
    return canonical_strategy(name) + sep + options


def bot_identity(kind: str, strategy: str | None) -> str | None:
    """The identity of a seat's server bot (``bot:<strategy>``, an alias as its strategy), or
    None for a seat that is not one."""
    if kind != "bot":
        return None
    return BOT_PREFIX + canonical_strategy(strategy or "bot")


@dataclass
class HandFacts:
    """What the standings need from one finished hand."""

    picker: int | None
    leaster: bool
    picker_side_points: int | None
    payouts: list[int]


@dataclass
class Figures:
    """What the standings add up for one identity (over one match, or over many)."""

    matches: int = 0
    hands: int = 0
    total: int = 0
    picks: int = 0
    picker_wins: int = 0
    schneiders: int = 0
    """Hands its side won with the other side schneidered (docs/rules.md, "Scoring a picked
    hand")."""
    leasters_won: int = 0

    def add(self, seat: int, facts: HandFacts) -> None:
        """Count one hand played at ``seat``."""
        self.hands += 1
        payout = facts.payouts[seat] if seat < len(facts.payouts) else 0
        self.total += payout
        if facts.leaster:
            self.leasters_won += payout > 0
            return
        if facts.picker == seat:
            self.picks += 1
            self.picker_wins += payout > 0
        points = facts.picker_side_points
        if payout > 0 and points is not None and not SCHNEIDER_LOW < points < SCHNEIDER_HIGH:
            self.schneiders += 1

    def merge(self, other: Figures) -> None:
        """Add ``other``'s figures to these."""
        for name in _FIGURES:
            setattr(self, name, getattr(self, name) + getattr(other, name))


_FIGURES: Final = tuple(f.name for f in fields(Figures))


def hand_facts(record: Mapping[str, Any], payouts: list[int]) -> HandFacts:
    """Replay a stored hand record for what the standings count."""
    try:
        outcome = replay_record(record)
    except RecordError:
        return HandFacts(None, False, None, payouts)
    return HandFacts(
        outcome.get("picker"),
        bool(outcome.get("leaster")),
        outcome.get("picker_side_points"),
        payouts,
    )


def replay(record: str, payouts: str) -> HandFacts:
    """:func:`hand_facts` of a stored hand's JSON columns."""
    return hand_facts(json.loads(record), [int(p) for p in json.loads(payouts)])
