"""The standings as the server first added them up, kept for the tests only: every request
went over every stored result (``GROUP BY``) and replayed the hands. The server now keeps them
as matches end (``server.storage.standings``); the tests check that both give the same rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from server.storage.standings import PlayerStanding, _tag
from server.storage.store import missing_tables
from server.storage.tallies import BOT_PREFIX, Figures, HandFacts, replay

MATCHES_PER_QUERY: Final = 400
"""Matches named in one query (two parameters each, under SQLite's oldest limit of 999)."""

MatchKey = tuple[int, int]
HandKey = tuple[int, int, int]


@dataclass
class MatchTally:
    """One match that has ended: its identities' figures, and the names their seats had."""

    finished: float
    figures: dict[str, Figures] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Identity -> its seat's name in the last hand it played here."""


def matches_over(db: sqlite3.Connection) -> list[tuple[MatchKey, float]]:
    """Every match that has ended: ((table key, match number), finished), in that order.

    Its result rows say it ended (``_finish_match`` writes them whether the match was played
    out, ended by the host or ended by everyone leaving); the table's state does not, as an
    ended match's table is ``over``, then ``closed`` or back in play for a rematch.
    """
    return [
        ((table, number), finished or 0.0)
        for table, number, finished in db.execute(
            "SELECT table_id, match_number, max(finished) FROM results"
            " GROUP BY table_id, match_number ORDER BY table_id, match_number"
        )
    ]


def _rows_of_matches(
    matches: Sequence[MatchKey], table: str, alias: str
) -> tuple[str, tuple[int, ...]]:
    """A ``FROM`` clause: the rows of ``table`` (as ``alias``) that belong to ``matches``, and
    its parameters. As a join SQLite searches the table's key once per match, where
    ``(table_id, match_number) IN (VALUES ...)`` scans the whole table."""
    marks = ",".join(["(?, ?)"] * len(matches))
    clause = (
        f"(VALUES {marks}) AS m JOIN {table} {alias}"
        f" ON {alias}.table_id = m.column1 AND {alias}.match_number = m.column2"
    )
    return clause, tuple(value for match in matches for value in match)


def _batches(matches: Sequence[MatchKey]) -> Iterable[Sequence[MatchKey]]:
    for start in range(0, len(matches), MATCHES_PER_QUERY):
        yield matches[start : start + MATCHES_PER_QUERY]


def unreplayed_hands(
    db: sqlite3.Connection, matches: Sequence[MatchKey], known: Mapping[HandKey, HandFacts]
) -> list[tuple[HandKey, str, str]]:
    """The hands of ``matches`` someone remembered played and ``known`` lacks: ((table, match,
    number), record JSON, payouts JSON) each."""
    out = []
    for batch in _batches(matches):
        rows_of, params = _rows_of_matches(batch, "hands", "h")
        rows = db.execute(
            "SELECT h.table_id, h.match_number, h.number, h.record, h.payouts"
            f" FROM {rows_of} WHERE EXISTS (SELECT 1 FROM hand_seats hs WHERE"
            " hs.table_id = h.table_id AND hs.match_number = h.match_number"
            " AND hs.number = h.number AND hs.identity IS NOT NULL)",
            params,
        )
        out += [((t, g, n), r, p) for t, g, n, r, p in rows if (t, g, n) not in known]
    return out


def tally_matches(
    db: sqlite3.Connection,
    matches: Sequence[tuple[MatchKey, float]],
    facts: dict[HandKey, HandFacts],
) -> dict[MatchKey, MatchTally]:
    """The tallies of ``matches`` (from :func:`matches_over`); hands missing from ``facts``
    are replayed (and added to it)."""
    out = {key: MatchTally(finished) for key, finished in matches}
    keys = [key for key, _ in matches]
    for hand_key, record, payouts in unreplayed_hands(db, keys, facts):
        facts[hand_key] = replay(record, payouts)
    for batch in _batches(keys):
        rows_of, params = _rows_of_matches(batch, "hand_seats", "hs")
        rows = db.execute(
            "SELECT hs.table_id, hs.match_number, hs.number, hs.seat, hs.identity, hs.name"
            f" FROM {rows_of} WHERE hs.identity IS NOT NULL"
            " ORDER BY hs.table_id, hs.match_number, hs.number, hs.seat",
            params,
        )
        for table, match, number, seat, identity, name in rows:
            hand = facts.get((table, match, number))
            if hand is None:  # a hand_seats row without its hand: nothing to count
                continue
            tally = out[table, match]
            tally.figures.setdefault(identity, Figures(matches=1)).add(seat, hand)
            if name:
                tally.names[identity] = name
    return out


def combine(tallies: Iterable[MatchTally], db: sqlite3.Connection) -> list[PlayerStanding]:
    """Add the tallies up per identity, with the names and kinds the database knows; best
    total first."""
    known = {
        identity: (kind, label, name)
        for identity, kind, label, name in db.execute(
            "SELECT identity, kind, label, name FROM identities"
        )
    }
    players: dict[str, PlayerStanding] = {}
    named: set[str] = set()  # bots, and people whose last name the identities table has
    for tally in sorted(tallies, key=lambda t: t.finished):
        for identity, figures in tally.figures.items():
            standing = players.get(identity)
            if standing is None:
                kind, label, name = known.get(identity, ("key", None, None))
                is_bot = identity.startswith(BOT_PREFIX)
                kind = "bot" if is_bot else kind
                # A bot is its strategy, whatever name its seat had; a person the name used last.
                shown = identity[len(BOT_PREFIX) :] if is_bot else name
                standing = players[identity] = PlayerStanding(
                    player=shown or "?", kind=kind, tag=_tag(identity, kind, label)
                )
                if is_bot or name:
                    named.add(identity)
            standing.merge(figures)
            if identity not in named and identity in tally.names:
                standing.player = tally.names[identity]
    return sorted(players.values(), key=lambda p: (-p.total, -p.hands, p.player))


def compute(db: sqlite3.Connection, since: float | None = None) -> list[PlayerStanding]:
    """Every identity's standing across the matches ended since ``since`` (epoch seconds), best
    total first (what ``sheepshead standings`` prints). A database from before identities were
    kept has none to show."""
    try:
        matches = [(k, f) for k, f in matches_over(db) if since is None or f >= since]
        return combine(tally_matches(db, matches, {}).values(), db)
    except sqlite3.OperationalError as exc:
        if missing_tables(exc):
            return []
        raise
