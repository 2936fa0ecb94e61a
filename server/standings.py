"""Players the server remembers, and the standings across every finished match.

A player is an *identity*, not a name: the SHA-256 of the player key a client sends in ``hello``
(the key itself is never stored), the same for a player of the SSH door (whose key the door
keeps per SSH key fingerprint, and records the fingerprint as the label), or ``bot:<strategy>``
for a server bot. The store keeps which identity holds each seat token, and which identity sat
at each seat of each finished hand (``hand_seats``); the standings add those hands up.

Only matches that are over count (played to the end or ended early: an ended match counts the
hands it finished). The same queries serve the ``standings`` request and
``sheepshead standings --db PATH``, which reads the database of a running server read-only.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from engine.record import RecordError, replay_record
from protocol.messages import parse_date

if TYPE_CHECKING:
    from server.store import Store

BOT_PREFIX: Final = "bot:"
"""How a server bot's identity starts; the strategy name follows."""

SCHNEIDER_HIGH: Final = 91
"""Picker's side points at or above which the defenders are schneidered (RULES.md §7)."""

SCHNEIDER_LOW: Final = 30
"""Picker's side points at or below which the picker's side is schneidered (RULES.md §7)."""

MAX_ROWS: Final = 500
"""Most players a ``standings`` reply lists (the best totals)."""


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
class PlayerStanding:
    """One identity's figures across the finished matches counted."""

    player: str
    """The name it used last."""
    kind: str
    """``key`` (a client's player key), ``ssh`` (an SSH key) or ``bot`` (a server bot)."""
    tag: str
    """A short public label: the start of the identity, the SSH fingerprint or the strategy."""
    matches: int = 0
    hands: int = 0
    total: int = 0
    picks: int = 0
    picker_wins: int = 0
    schneiders: int = 0
    """Hands its side won with the other side at 30 points or fewer (schneider)."""
    leasters_won: int = 0
    _tables: set[int] = field(default_factory=set, repr=False)

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
        """The row as the ``standings`` reply and ``--json`` give it (PROTOCOL.md)."""
        row = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        row["per_hand"] = round(self.per_hand, 3)
        row["pick_rate"] = round(self.pick_rate, 3)
        row["picker_win_rate"] = round(self.picker_win_rate, 3)
        return row

    def add(self, table: int, seat: int, facts: HandFacts) -> None:
        """Count one hand played at ``seat``."""
        self._tables.add(table)
        self.matches = len(self._tables)
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


_HANDS_QUERY: Final = """
SELECT h.table_id, h.number, h.record, h.payouts, hs.seat, hs.identity, hs.name,
       i.kind, i.label, i.name
FROM hands h
JOIN tables t ON t.id = h.table_id
JOIN hand_seats hs ON hs.table_id = h.table_id AND hs.number = h.number
LEFT JOIN identities i ON i.identity = hs.identity
WHERE t.state = 'over' AND hs.identity IS NOT NULL AND (? IS NULL OR t.finished >= ?)
ORDER BY h.table_id, h.number, hs.seat
"""


def compute(
    db: sqlite3.Connection,
    since: float | None = None,
    cache: dict[tuple[int, int], HandFacts] | None = None,
) -> list[PlayerStanding]:
    """Every identity's standing across the matches over since ``since`` (epoch seconds),
    best total first. ``cache`` keeps replayed hands between calls (a finished hand never
    changes). A database from before identities were kept has none to show."""
    try:
        rows: Iterable[tuple[Any, ...]] = db.execute(_HANDS_QUERY, (since, since)).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
    facts_of = cache if cache is not None else {}
    players: dict[str, PlayerStanding] = {}
    for table, number, record, payouts, seat, identity, seat_name, kind, label, name in rows:
        facts = facts_of.get((table, number))
        if facts is None:
            facts = hand_facts(json.loads(record), [int(p) for p in json.loads(payouts)])
            facts_of[(table, number)] = facts
        is_bot = identity.startswith(BOT_PREFIX)
        kind = "bot" if is_bot else kind or "key"
        standing = players.get(identity)
        if standing is None:
            # A bot is its strategy, whatever name its seat had; a person the name used last.
            shown = identity[len(BOT_PREFIX) :] if is_bot else name or seat_name or "?"
            standing = players[identity] = PlayerStanding(shown, kind, _tag(identity, kind, label))
        elif not name and not is_bot:
            standing.player = seat_name or standing.player  # the latest hand's name
        standing.add(table, seat, facts)
    return sorted(players.values(), key=lambda p: (-p.total, -p.hands, p.player))


class Players:
    """The running server's side of it: identities from ``hello``, seats linked to them, and
    the ``standings`` request (with a cache of replayed hands)."""

    def __init__(self, store: Store, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.wall = wall
        self._facts: dict[tuple[int, int], HandFacts] = {}

    def greeted(self, player_key: str, name: str) -> str:
        """A client said hello with ``player_key``: its identity, remembered with the name."""
        identity = identity_of(player_key)
        self.store.note_identity(identity, "key", name=name, seen=self.wall())
        return identity

    def door_player(self, player_key: str, fingerprint: str, name: str) -> str:
        """The SSH door keeps ``player_key`` for the SSH key with ``fingerprint``."""
        identity = identity_of(player_key)
        self.store.note_identity(identity, "ssh", label=fingerprint, name=name, seen=self.wall())
        return identity

    def seated(self, peer: Any, token_hash: str | None) -> None:
        """``peer`` holds the seat of this token hash: its hands count for its identity."""
        identity = getattr(peer, "identity", None)
        if identity is not None and token_hash is not None:
            self.store.link_seat(token_hash, identity)

    def seated_with(self, peer: Any, token: str) -> None:
        """Like :meth:`seated`, given the token itself."""
        from server.table import hash_token

        self.seated(peer, hash_token(token))

    def standings(self, since: str | None) -> list[dict[str, Any]]:
        """The ``standings`` reply's ``players`` (the first :data:`MAX_ROWS` by total)."""
        rows = compute(self.store.connection, since_timestamp(since), self._facts)
        return [row.to_wire() for row in rows[:MAX_ROWS]]
