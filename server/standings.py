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
    """One match that is over: its identities' figures, and the names their seats had."""

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


def matches_over(db: sqlite3.Connection) -> list[tuple[int, float]]:
    """Every match that is over: (table key, finished), oldest first."""
    return [
        (key, finished or 0.0)
        for key, finished in db.execute(
            "SELECT id, finished FROM tables WHERE state = 'over' ORDER BY id"
        )
    ]


def unreplayed_hands(
    db: sqlite3.Connection, tables: Sequence[int], known: Mapping[tuple[int, int], HandFacts]
) -> list[tuple[tuple[int, int], str, str]]:
    """The hands of ``tables`` someone remembered played and ``known`` lacks: ((table,
    number), record JSON, payouts JSON) each."""
    marks = ",".join("?" * len(tables))
    rows = db.execute(
        "SELECT h.table_id, h.number, h.record, h.payouts FROM hands h"
        f" WHERE h.table_id IN ({marks}) AND EXISTS (SELECT 1 FROM hand_seats hs WHERE"
        " hs.table_id = h.table_id AND hs.number = h.number AND hs.identity IS NOT NULL)",
        tuple(tables),
    )
    return [((t, n), r, p) for t, n, r, p in rows if (t, n) not in known]


def replay(record: str, payouts: str) -> HandFacts:
    """:func:`hand_facts` of a stored hand's JSON columns."""
    return hand_facts(json.loads(record), [int(p) for p in json.loads(payouts)])


def tally_matches(
    db: sqlite3.Connection,
    matches: Sequence[tuple[int, float]],
    facts: dict[tuple[int, int], HandFacts],
) -> dict[int, MatchTally]:
    """The tallies of ``matches`` (from :func:`matches_over`); hands missing from ``facts``
    are replayed (and added to it)."""
    out = {key: MatchTally(finished) for key, finished in matches}
    if not matches:
        return out
    marks = ",".join("?" * len(matches))
    for key, record, payouts in unreplayed_hands(db, [k for k, _ in matches], facts):
        facts[key] = replay(record, payouts)
    rows = db.execute(
        "SELECT table_id, number, seat, identity, name FROM hand_seats"
        f" WHERE table_id IN ({marks}) AND identity IS NOT NULL ORDER BY table_id, number, seat",
        tuple(k for k, _ in matches),
    )
    for table, number, seat, identity, name in rows:
        hand = facts.get((table, number))
        if hand is None:  # a hand_seats row without its hand: nothing to count
            continue
        tally = out[table]
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
    """Every identity's standing across the matches over since ``since`` (epoch seconds), best
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

    A match that is over never changes, so its tally is made once and kept; a request adds up
    the kept tallies and makes only those of matches over since the last one, replaying
    :data:`REPLAY_SLICE` hands at a time between passes of the event loop (replaying takes
    about half a millisecond a hand), so a server with a long history does not stall its
    tables while it catches up.
    """

    def __init__(self, store: Store, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.wall = wall
        self._facts: dict[tuple[int, int], HandFacts] = {}
        self._tallies: dict[int, MatchTally] = {}
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

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
