"""Players the server remembers, and the standings across every finished match.

A player is an *identity*, not a name: the SHA-256 of the player key a client sends in ``hello``
(the key itself is never stored), the same for a player of the SSH door (whose key the door
keeps per SSH key fingerprint, and records the fingerprint as the label), or ``bot:<strategy>``
for a server bot. The store keeps which identity holds each seat token, and which identity sat
at each seat of each finished hand (``hand_seats``); the standings add those hands up.

A match is a table's match number (0, then +1 per ``rematch`` at the table). Every match that
has ended counts, whatever its table did since (kept ``over``, ``closed``, or on to a rematch):
played to the end or ended early, it counts the hands it finished. A match has ended once its
result rows are stored (the server writes them as it ends the match, in the same commit); a
match that ended without a finished hand stores nothing and counts nothing.

The figures are kept as they happen: each finished hand adds to a per-match tally of each
identity that played it (``match_tallies``), and a match that ends adds its tallies to each
identity's running totals (``player_totals``), so no request adds up the whole history. The
queries that read them are the store's (:class:`server.storage.store.Reader`); the same ones
serve the ``standings`` request and ``sheepshead standings --db PATH``, which reads the database
of a running server read-only. This module makes rows of them and fits a reply to its frame.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from protocol import errors
from protocol import events as m
from protocol.framing import MAX_FRAME_DEFAULT, pack
from protocol.requests import SINCE_TONIGHT, since_moment
from server.storage.store import Reader, StandingRow, hash_token
from server.storage.tallies import (
    BOT_PREFIX,
    Figures,
)

if TYPE_CHECKING:
    from server.storage.store import Store

log = logging.getLogger("sheepshead.server")

MAX_ROWS: Final = 500
"""Most players a ``standings`` reply lists (the best totals), fewer when they would not fit
one frame."""

REPLY_MARGIN: Final = 256
"""Bytes of a ``standings`` reply's frame kept for its other fields (its ``since``, the map)."""

NOT_COUNTED: Final = "not_counted"
"""The ``notice`` code that tells a player past its address's allowance of new player keys
that its games are not counted (``Players.seated``)."""

TONIGHT_HOURS: Final = 12.0
"""``tonight`` goes back this many hours at most (less when the server started since)."""

EVENING_GAP_HOURS: Final = 3.0
"""A server started less than this after a match ended goes on with that match's evening: a
restart mid-evening (a crash, an update) does not start ``tonight`` again."""


def evening_start(
    started: float | None, ends: Sequence[float], gap: float = EVENING_GAP_HOURS * 3600
) -> float | None:
    """Where ``tonight`` begins for a server that ``started`` (None: not known) on a database
    whose matches ended at ``ends``: back over every match that ended within ``gap`` seconds
    of the evening's start so far (so a restart keeps the evening's standings).

    >>> evening_start(10_000.0, [9_000.0, 8_000.0, 1_000.0], gap=2_000.0)
    8000.0
    >>> evening_start(10_000.0, [], gap=2_000.0), evening_start(None, [9_000.0])
    (10000.0, None)
    """
    if started is None:
        return None
    begin = started
    for end in sorted(ends, reverse=True):
        if end >= begin:
            continue
        if begin - end > gap:
            break
        begin = end
    return begin


def evening_of(reader: Reader, started: float | None, now: float) -> float | None:
    """Where ``tonight`` begins for a server that ``started`` on ``reader``'s database, at
    wall-clock ``now``: :func:`evening_start` over the matches that ended in the last
    :data:`TONIGHT_HOURS` (the server at its start, and ``sheepshead standings --tonight``)."""
    return evening_start(started, reader.match_ends_since(now - TONIGHT_HOURS * 3600))


def identity_of(player_key: str) -> str:
    """The identity a player key stands for: its SHA-256, in hex (what the server stores)."""
    return hashlib.sha256(player_key.encode("utf-8")).hexdigest()


def since_timestamp(
    since: str | None, *, started: float | None = None, now: float | None = None
) -> float | None:
    """Epoch seconds a ``standings`` ``since`` stands for (ValueError if it is none of these):
    a ``YYYY-MM-DD`` date is the start of that day (UTC), an ISO time with its offset is that
    moment, and ``tonight`` is the later of ``started`` (when the server started, None: not
    known) and :data:`TONIGHT_HOURS` before ``now``. None stays None.

    >>> since_timestamp("1970-01-02"), since_timestamp("1970-01-01T01:00+01:00")
    (86400.0, 0.0)
    >>> since_timestamp("tonight", started=50_000.0, now=100_000.0)
    56800.0
    """
    if since is None:
        return None
    if since == SINCE_TONIGHT:
        clock = time.time() if now is None else now
        window = clock - TONIGHT_HOURS * 3600
        return window if started is None else max(started, window)
    moment = since_moment(since)
    assert moment is not None
    return moment.timestamp()


def tonight_window(started: float | None, begin: float | None, now: float) -> tuple[float, str]:
    """Where ``tonight`` begins at wall-clock ``now`` (epoch seconds) for a server that
    ``started`` then (None: none found), whose evening begins at ``begin``
    (:func:`evening_of`), and why, for people: since it started; the evening it went on with
    (a restart less than :data:`EVENING_GAP_HOURS` after a match ended); or the last
    :data:`TONIGHT_HOURS` hours (it started longer ago, or none was found). The words of
    ``sheepshead standings --tonight`` and of the ``standings`` reply's ``tonight``."""
    since = since_timestamp(SINCE_TONIGHT, started=begin, now=now)
    assert since is not None  # tonight is always a time
    hours = f"the last {TONIGHT_HOURS:g} hours"
    if started is None or begin is None:
        return since, f"{hours}: no server running on this database was found"
    when = local_time(started, now)
    if since > begin:
        return since, f"{hours}: the server started longer ago, at {when}"
    if begin < started:
        return since, f"the evening the server went on with when it restarted at {when}"
    return since, f"since the server on this database started, at {when}"


def tonight_header(since: float, why: str, now: float, zone: str = "local time") -> str:
    """The two lines that say which matches ``tonight`` counts: those that ended from
    ``since`` to ``now``, in ``zone`` (this machine's local time, as the words call it), and
    ``why`` it is that window (:func:`tonight_window`); each within 80 columns."""
    window = f"from {local_time(since, now)} to {local_time(now, now)}"
    return f"tonight: matches that ended {window} ({zone}),\n  {why}"


def _iso(moment: float) -> str:
    """``moment`` (epoch seconds) as an ISO time with this machine's offset, to the second."""
    return datetime.fromtimestamp(moment).astimezone().isoformat(timespec="seconds")


def local_time(moment: float, now: float) -> str:
    """``moment`` in local time: ``19:02`` on ``now``'s day, else with its day
    (``2026-12-05 19:02``)."""
    at = datetime.fromtimestamp(moment)
    same_day = at.date() == datetime.fromtimestamp(now).date()
    return at.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M")


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


def _tag(identity: str, kind: str, label: str | None) -> str:
    if kind == "bot":
        return identity[len(BOT_PREFIX) :]
    if kind == "ssh" and label:
        return label[:19]  # "SHA256:" and 12 characters of the fingerprint
    return identity[:8]


def _standing(row: StandingRow) -> PlayerStanding:
    """A stored row as a standing. Its who: a bot is its strategy, a person the name the
    identities table has, else the name its seat had in the last match counted."""
    is_bot = row.identity.startswith(BOT_PREFIX)
    kind = "bot" if is_bot else (row.kind or "key")
    shown = row.identity[len(BOT_PREFIX) :] if is_bot else (row.known_name or row.seat_name)
    standing = PlayerStanding(
        player=shown or "?", kind=kind, tag=_tag(row.identity, kind, row.label)
    )
    standing.merge(row.figures)
    return standing


def query(
    reader: Reader, since: float | None = None, limit: int | None = None
) -> list[PlayerStanding]:
    """Every identity's standing across the matches ended since ``since`` (epoch seconds; None:
    all), best total first, the first ``limit`` (None: all).

    Without ``since`` it reads the running totals (a row per player); with it, the tallies of
    the matches ended since then, so its cost grows with the matches asked for, not with the
    server's whole history. A database from before the standings were kept has none."""
    stored = reader.totals() if since is None else reader.tallies_since(since)
    rows = [_standing(row) for row in stored]
    rows.sort(key=lambda p: (-p.total, -p.hands, p.player))
    return rows if limit is None else rows[:limit]


def compute(reader: Reader, since: float | None = None) -> list[PlayerStanding]:
    """Every identity's standing across the matches ended since ``since`` (epoch seconds), best
    total first (what ``sheepshead standings`` prints)."""
    return query(reader, since)


class Players:
    """The running server's side of it: identities from ``hello``, seats linked to them, and
    the ``standings`` request.

    The store keeps the standings as matches end (``player_totals``, ``match_tallies``), so a
    request only reads them; it does so in a thread of its own, on a read-only connection of
    its own, so the event loop only hands the request over and sends the reply, whatever the
    server's history (a store in memory has no second connection: it reads on the loop).
    """

    def __init__(
        self,
        store: Store,
        wall: Callable[[], float] = time.time,
        max_frame: int = MAX_FRAME_DEFAULT,
    ) -> None:
        self.store = store
        self.wall = wall
        self.max_frame = max_frame
        """The largest frame the server sends: a reply lists the rows that fit it."""
        now = wall()
        self.launched = now
        """When this server started (wall clock): what ``tonight``'s words say it began."""
        self.started = evening_of(store.reads, now, now)
        """When the server started (wall clock), or the evening it goes on with after a restart
        (:func:`evening_start`): where ``since: "tonight"`` begins at most."""
        self._executor: ThreadPoolExecutor | None = None
        self._reader: Reader | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def greeted(self, player_key: str, name: str) -> str:
        """A client said hello with ``player_key``: its identity, whose name is now ``name``
        if the server knows it already.

        A new identity is stored only once it takes a seat (:meth:`seated`): a loop of hellos
        with new keys costs connections, and must not grow the database."""
        identity = identity_of(player_key)
        self.store.rename_identity(identity, name, seen=self.wall())
        return identity

    def door_player(self, player_key: str, fingerprint: str, name: str) -> bool:
        """The SSH door keeps ``player_key`` for the SSH key with ``fingerprint``: the
        standings tag it with the fingerprint. Only a key the server knows (it took a seat:
        :meth:`seated` stored it) is tagged, so this stores no new row; returns whether it
        was known."""
        identity = identity_of(player_key)
        if not self.store.knows_identity(identity):
            return False
        self.store.note_identity(identity, "ssh", label=fingerprint, name=name, seen=self.wall())
        return True

    def seated(self, peer: Any, token_hash: str | None) -> None:
        """``peer`` holds the seat of this token hash: its hands count for its identity, which
        is remembered with the name it said hello with.

        An identity the server does not know yet takes one from the allowance of new ones of
        ``peer``'s address (``ServerConfig.new_identity_rate``, ``peer.allowance``), since its
        row is kept for good: a fresh key per connection, each sitting down, grew the database
        without bound. Past it the peer plays on, but its seat counts for nobody (as a client
        without a key) and it is told so once (``notice {code: "not_counted"}``)."""
        identity = getattr(peer, "identity", None)
        if identity is None or token_hash is None:
            return
        allowance = getattr(peer, "allowance", None)
        if (
            allowance is not None
            and not self.store.knows_identity(identity)
            and not allowance.identities.take(time.monotonic())
        ):
            self._not_counted(peer)
            return
        name = getattr(peer, "hello_name", None)
        self.store.note_identity(identity, "key", name=name, seen=self.wall())
        self.store.link_seat(token_hash, identity)

    def _not_counted(self, peer: Any) -> None:
        """Tell ``peer`` (once) that its games are not counted, and log it (batched)."""
        if getattr(peer, "told_not_counted", False):
            return
        peer.told_not_counted = True
        server = getattr(peer, "server", None)
        if server is not None:  # one log line a second at most, with the count
            server.log_refusal(getattr(peer, "address", "?"), "too many new player keys")
        peer.send(
            m.notice(
                table=None,
                code=NOT_COUNTED,
                text="Too many new players from your address just now: your games here are"
                " not counted in the standings",
            )
        )

    def seated_with(self, peer: Any, token: str) -> None:
        """Like :meth:`seated`, given the token itself."""
        self.seated(peer, hash_token(token))

    def answer_standings(self, peer: Any, request_id: int, since: str | None) -> None:
        """Send ``peer`` the ``ok`` reply to its ``standings`` request once it is ready (an
        ``internal_error`` if it fails)."""
        task = asyncio.get_running_loop().create_task(self._answer(peer, request_id, since))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, peer: Any, request_id: int, since: str | None) -> None:
        now = self.wall()
        try:
            players = await self.standings(since, now)
        except Exception:
            log.exception("standings failed")
            peer.send(m.error(request_id, errors.INTERNAL_ERROR, "The server could not add it up"))
            return
        window = self.tonight(now) if since == SINCE_TONIGHT else None
        peer.send(m.standings_reply(request_id, since=since, players=players, tonight=window))

    def tonight(self, now: float) -> m.TonightWindow:
        """The reply's ``tonight`` at wall-clock ``now``: the window ``since: "tonight"``
        counts and why, in the words of ``sheepshead standings --tonight`` (PROTOCOL.md
        §10.1), its times in the server's."""
        start, why = tonight_window(self.launched, self.started, now)
        return {
            "start": _iso(start),
            "end": _iso(now),
            "text": tonight_header(start, why, now, zone="server time"),
        }

    def since_seconds(self, since: str | None, now: float | None = None) -> float | None:
        """Epoch seconds a request's ``since`` stands for at wall-clock ``now`` (None: the
        server's clock now) (PROTOCOL.md §10.1; None: all)."""
        return since_timestamp(since, started=self.started, now=self.wall() if now is None else now)

    async def standings(self, since: str | None, now: float | None = None) -> list[dict[str, Any]]:
        """The ``standings`` reply's ``players`` (the first :data:`MAX_ROWS` by total) at
        wall-clock ``now`` (None: the server's clock now)."""
        start_at = self.since_seconds(since, now)
        if self.store.path is None:
            return self._wire(query(self.store.reads, start_at, MAX_ROWS))
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="standings")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._read, start_at)

    def _read(self, since: float | None) -> list[dict[str, Any]]:
        """In the standings thread: the rows, from its own read-only connection, as the reply
        carries them."""
        if self._reader is None:
            self._reader = self.store.reader()
        assert self._reader is not None
        return self._wire(query(self._reader, since, MAX_ROWS))

    def _wire(self, rows: list[PlayerStanding]) -> list[dict[str, Any]]:
        """The rows as the reply carries them, the best first, as many as fit its frame (a
        row is some 170 bytes: 500 of them would not fit the default 64 KiB)."""
        budget = self.max_frame - REPLY_MARGIN
        out = []
        for row in rows:
            wire = row.to_wire()
            budget -= len(pack(wire))
            if budget < 0:
                break
            out.append(wire)
        return out

    def close(self) -> None:
        """Stop the standings thread and close its connection (the server is stopping)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.submit(self._close_reader)
            executor.shutdown(wait=True)

    def _close_reader(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
