"""Players the server remembers, and the standings across every finished match.

A player is an *identity*, not a name: the SHA-256 of the player key a client sends in ``hello``
(the key itself is never stored), the same for a player of the SSH door (whose key the door
keeps per SSH key fingerprint, and records the fingerprint as the label), or ``bot:<strategy>``
for a server bot. The store keeps which identity holds each seat token, and which identity sat
at each seat of each finished hand (``hand_seats``); the standings add those hands up.

A match is a table's match number (0, then +1 per ``rematch`` at the table). Every match that
has ended counts, whatever its table did since (kept ``over``, ``closed``, or on to a rematch):
played to the end or ended early, it counts the hands it finished. A match has ended once its
result rows are stored (the server writes them as it ends the match, in the same commit). The
same queries serve the ``standings`` request and ``sheepshead standings --db PATH``, which reads
the database of a running server read-only.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from engine.record import RecordError, replay_record
from protocol import messages as m
from protocol.messages import parse_date

if TYPE_CHECKING:
    from server.store import Store

log = logging.getLogger("sheepshead.server")

BOT_PREFIX: Final = "bot:"
"""How a server bot's identity starts; the strategy name follows."""

SCHNEIDER_HIGH: Final = 91
"""Picker's side points at or above which the defenders are schneidered (RULES.md §7)."""

SCHNEIDER_LOW: Final = 30
"""Picker's side points at or below which the picker's side is schneidered (RULES.md §7)."""

MAX_ROWS: Final = 500
"""Most players a ``standings`` reply lists (the best totals)."""

REPLAY_SLICE: Final = 20
"""Hands the server replays for the standings between two passes of its event loop."""

MATCHES_PER_QUERY: Final = 400
"""Matches named in one query (two parameters each, under SQLite's oldest limit of 999)."""

MatchKey = tuple[int, int]
"""A match: (table key, match number)."""

HandKey = tuple[int, int, int]
"""A finished hand: (table key, match number, hand number)."""


def identity_of(player_key: str) -> str:
    """The identity a player key stands for: its SHA-256, in hex (what the server stores)."""
    return hashlib.sha256(player_key.encode("utf-8")).hexdigest()


def since_timestamp(since: str | None) -> float | None:
    """Seconds since the epoch at the start (UTC) of a ``YYYY-MM-DD`` date; None stays None."""
    if since is None:
        return None
    day = parse_date(since)
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


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
    """Hands its side won with the other side schneidered (RULES.md §7)."""
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


@dataclass
class PlayerStanding(Figures):
    """One identity's figures across the finished matches counted, and who it is."""

    player: str = "?"
    """The name it used last (a bot: its strategy)."""
    kind: str = "key"
    """``key`` (a client's player key), ``ssh`` (an SSH key) or ``bot`` (a server bot)."""
    tag: str = ""
    """A short public label: the start of the identity, the SSH fingerprint or the strategy."""

    @property
    def per_hand(self) -> float:
        """Average payout per hand (0 with no hands)."""
        return self.total / self.hands if self.hands else 0.0

    @property
    def pick_rate(self) -> float:
        """Share of its hands in which it picked."""
        return self.picks / self.hands if self.hands else 0.0

    @property
    def picker_win_rate(self) -> float:
        """Share of its picks its side won."""
        return self.picker_wins / self.picks if self.picks else 0.0

    def to_wire(self) -> dict[str, Any]:
        """The row as the ``standings`` reply and ``--json`` give it (PROTOCOL.md §10.1)."""
        row: dict[str, Any] = {"player": self.player, "kind": self.kind, "tag": self.tag}
        row.update((name, getattr(self, name)) for name in _FIGURES)
        row["per_hand"] = round(self.per_hand, 3)
        row["pick_rate"] = round(self.pick_rate, 3)
        row["picker_win_rate"] = round(self.picker_win_rate, 3)
        return row


@dataclass
class MatchTally:
    """One match that has ended: its identities' figures, and the names their seats had."""

    finished: float
    figures: dict[str, Figures] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Identity -> its seat's name in the last hand it played here."""


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


def _tag(identity: str, kind: str, label: str | None) -> str:
    if kind == "bot":
        return identity[len(BOT_PREFIX) :]
    if kind == "ssh" and label:
        return label[:19]  # "SHA256:" and 12 characters of the fingerprint
    return identity[:8]


def _missing_tables(exc: sqlite3.OperationalError) -> bool:
    """A database from before identities were kept (opened read-only, so not upgraded)."""
    return "no such table" in str(exc)


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


def replay(record: str, payouts: str) -> HandFacts:
    """:func:`hand_facts` of a stored hand's JSON columns."""
    return hand_facts(json.loads(record), [int(p) for p in json.loads(payouts)])


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
        if _missing_tables(exc):
            return []
        raise


class Players:
    """The running server's side of it: identities from ``hello``, seats linked to them, and
    the ``standings`` request.

    A match that has ended never changes, so its tally is made once and kept (by table and match
    number); a request adds up the kept tallies and makes only those of matches ended since the
    last one, replaying :data:`REPLAY_SLICE` hands at a time between passes of the event loop
    (replaying takes about half a millisecond a hand), so a server with a long history does not
    stall its tables while it catches up.
    """

    def __init__(self, store: Store, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.wall = wall
        self._facts: dict[HandKey, HandFacts] = {}
        self._tallies: dict[MatchKey, MatchTally] = {}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def greeted(self, player_key: str, name: str) -> str:
        """A client said hello with ``player_key``: its identity, whose name is now ``name``
        if the server knows it already.

        A new identity is stored only once it takes a seat (:meth:`seated`): a loop of hellos
        with new keys costs connections, and must not grow the database."""
        identity = identity_of(player_key)
        self.store.rename_identity(identity, name, seen=self.wall())
        return identity

    def door_player(self, player_key: str, fingerprint: str, name: str) -> str:
        """The SSH door keeps ``player_key`` for the SSH key with ``fingerprint``."""
        identity = identity_of(player_key)
        self.store.note_identity(identity, "ssh", label=fingerprint, name=name, seen=self.wall())
        return identity

    def seated(self, peer: Any, token_hash: str | None) -> None:
        """``peer`` holds the seat of this token hash: its hands count for its identity, which
        is remembered with the name it said hello with."""
        identity = getattr(peer, "identity", None)
        if identity is not None and token_hash is not None:
            name = getattr(peer, "hello_name", None)
            self.store.note_identity(identity, "key", name=name, seen=self.wall())
            self.store.link_seat(token_hash, identity)

    def seated_with(self, peer: Any, token: str) -> None:
        """Like :meth:`seated`, given the token itself."""
        from server.seats import hash_token

        self.seated(peer, hash_token(token))

    def answer_standings(self, peer: Any, request_id: int, since: str | None) -> None:
        """Send ``peer`` the ``ok`` reply to its ``standings`` request once it is ready (an
        ``internal_error`` if it fails)."""
        task = asyncio.get_running_loop().create_task(self._answer(peer, request_id, since))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, peer: Any, request_id: int, since: str | None) -> None:
        try:
            players = await self.standings(since)
        except Exception:
            log.exception("standings failed")
            peer.send(m.error(request_id, m.INTERNAL_ERROR, "The server could not add it up"))
            return
        peer.send(m.ok(request_id, since=since, players=players))

    async def standings(self, since: str | None) -> list[dict[str, Any]]:
        """The ``standings`` reply's ``players`` (the first :data:`MAX_ROWS` by total)."""
        async with self._lock:
            db = self.store.connection
            over = matches_over(db)
            new = [(key, finished) for key, finished in over if key not in self._tallies]
            if new:
                hands = unreplayed_hands(db, [key for key, _ in new], self._facts)
                for start in range(0, len(hands), REPLAY_SLICE):
                    await asyncio.sleep(0)
                    for key, record, payouts in hands[start : start + REPLAY_SLICE]:
                        self._facts[key] = replay(record, payouts)
                db = self.store.connection
                self._tallies.update(tally_matches(db, new, self._facts))
                self._facts.clear()  # counted now: those hands are not needed again
            start_at = since_timestamp(since)
            chosen = [
                self._tallies[key]
                for key, finished in over
                if key in self._tallies and (start_at is None or finished >= start_at)
            ]
            rows = combine(chosen, db)
        return [row.to_wire() for row in rows[:MAX_ROWS]]
