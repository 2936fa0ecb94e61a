"""The lobby: every open table by id, seat tokens, creating and finding tables, restoring them.

The lobby is the :class:`~server.tables.hub.Hub` the tables talk to: it hands them the
configuration, the store, the clock and the token index (sha256 of each seat token -> table and
seat).
"""

from __future__ import annotations

import importlib
import logging
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.bots import strategy_names
from engine.errors import RuleOptionError
from engine.rules import DEFAULT_PRESET, RuleSet
from protocol import errors
from protocol.framing import pack
from protocol.requests import CreateTable, RequestError
from server.bots.pool import BotPool, default_size
from server.storage.store import hash_token
from server.tables.hub import Meter, MeterFactory, Peer
from server.tables.table import Table
from server.tables.table_config import TableConfig, hash_password

if TYPE_CHECKING:
    from server.config import ServerConfig
    from server.storage.store import Store

log = logging.getLogger("sheepshead.server")

MATCH_END_ADDRESSES = 1024
"""Addresses with a match-end allowance kept before the full ones are looked for and dropped
(also at each sweep)."""

LIST_BUDGET = 60_000
"""Bytes of table summaries a ``list_tables`` reply may carry (it must fit one frame)."""

YOURS_BYTES = 24
"""At most what ``yours`` adds to a packed summary (19 bytes, and 2 more for a map header
that outgrows 15 entries), counted against :data:`LIST_BUDGET` without packing it."""


@dataclass(frozen=True)
class Listing:
    """The cached ``list_tables`` answer: shared by every asker until a summary changes."""

    summaries: list[dict[str, Any]]
    """The table summaries, waiting tables first."""
    truncated: bool
    """Whether the list was cut to fit a frame."""
    ends: list[int]
    """``ends[i]``: the packed bytes of ``summaries[: i + 1]``, so that making room in the
    reply for an asker's own tables is a bisection, not a walk over the list."""
    seated: dict[str, dict[int, Table]]
    """Player identity -> index in :attr:`summaries` -> the table there where that identity
    sat at a person's seat when the listing was built: where to look for an asker's own seats,
    so that finding them costs a lookup, not a walk over every listed seat. Candidates only
    (each is checked again when asked: not every loss of a seat changes its summary); a seat
    gets its identity only with a change of the table's summary (``join``: its kind and name),
    or with :meth:`Lobby.summary_changed` (``Table.resume``), either of which builds the
    listing again."""
    seated_cut: dict[str, list[Table]]
    """As :attr:`seated`, for the tables the cut left out: an asker's own are put back in its
    reply (:meth:`Lobby.list_tables`)."""
    cut_summaries: dict[str, tuple[dict[str, Any], int]] = field(default_factory=dict)
    """Table id -> the summary of a table the cut left out and its packed bytes, built when
    an asker's own first needs it and kept for the next asks (as long as the listing)."""

    def cut_summary(self, table: Table) -> tuple[dict[str, Any], int]:
        """The summary of ``table`` (one the cut left out) and its packed bytes."""
        found = self.cut_summaries.get(table.id)
        if found is None:
            summary = table.summary()
            found = self.cut_summaries[table.id] = (summary, len(pack(summary)))
        return found


class Lobby:
    """All tables of one server."""

    def __init__(
        self, config: ServerConfig, store: Store, meter: MeterFactory | None = None
    ) -> None:
        """``meter`` makes the per-address allowances of matches ended early (None: they are
        not metered)."""
        self.config = config
        self._meter = meter
        self.store = store
        self.tables: dict[str, Table] = {}
        self.tokens: dict[str, tuple[Table, int]] = {}
        self._listing: Listing | None = None
        self._moved: set[Table] = set()
        self._creators: dict[str, str] = {}
        """Table id -> the IP address of the connection that created it (stored with the table,
        so a restored table still counts against its address's caps)."""
        self._match_ends: dict[str, Meter] = {}
        """IP address -> its allowance of matches ended early (forgotten once full again)."""
        for module in config.bot_modules:
            importlib.import_module(module)  # registers its strategies, as in the workers
        workers = default_size() if config.bot_workers is None else config.bot_workers
        self.bots = BotPool(workers, config.bot_timeout, modules=config.bot_modules)
        """Where the tables' server bots think (started when the first bot decides)."""

    # ------------------------------------------------------------------ Hub

    def now(self) -> float:
        """Monotonic seconds."""
        return time.monotonic()

    def wall(self) -> float:
        """Wall-clock seconds since the epoch."""
        return time.time()

    def default_bot(self) -> str:
        """The configured default strategy, else "heuristic" when registered, else "random"."""
        names = strategy_names()
        if self.config.default_bot and self.config.default_bot in names:
            return self.config.default_bot
        return "heuristic" if "heuristic" in names else "random"

    def bots_seated_by(self, address: str) -> int:
        """Server bots seated by hosts from ``address`` at the tables that play or wait to
        play (those at a table whose match is over cost nothing until a ``rematch``, which
        counts them again: ``Table.rematch``)."""
        return sum(
            1
            for table in self.tables.values()
            if table.state in ("waiting", "playing")
            for s in table.seats
            if s.kind == "bot" and s.added_by == address
        )

    def match_end_allowed(self, address: str, *, take: bool) -> bool:
        """Whether hosts from ``address`` may end a match early now; ``take``: count one."""
        if self._meter is None:
            return True
        now = self.now()
        bucket = self._match_ends.get(address)
        if bucket is None:
            if len(self._match_ends) >= MATCH_END_ADDRESSES:
                self._forget_match_ends(now)
            bucket = self._match_ends[address] = self._meter(
                self.config.match_end_rate, self.config.match_end_burst, now
            )
        allowed = bucket.take(now)
        if allowed and not take:
            bucket.refund()
        return allowed

    def _forget_match_ends(self, now: float) -> None:
        """Drop the allowances that have refilled: they say nothing an absent one does not."""
        for address, bucket in list(self._match_ends.items()):
            if bucket.full(now):
                del self._match_ends[address]

    def table_closed(self, table: Table) -> None:
        """Forget a closed table."""
        self.tables.pop(table.id, None)
        self._creators.pop(table.id, None)
        self._listing = None

    def seq_changed(self, table: Table) -> None:
        """Remember to store ``table.seq`` before the next commit."""
        self._moved.add(table)

    def store_seqs(self) -> None:
        """Write the seq of every table that moved since the last call (before a commit)."""
        if self._moved:
            moved, self._moved = self._moved, set()
            self.store.update_seqs([(table.id, table.seq) for table in moved])

    def summary_changed(self) -> None:
        """Some table's summary changed: the cached ``list_tables`` answer is out of date."""
        self._listing = None

    # ------------------------------------------------------------------ requests

    def list_tables(self, identity: str | None = None) -> tuple[list[dict[str, Any]], bool]:
        """Table summaries, waiting tables first, and whether the list was cut to fit a frame.

        ``identity``: the asker's (from hello's ``player_key``; None: keyless). The summary of
        a table where it holds a seat, connected or away, says so to this asker only:
        ``yours: {seat, away}`` (PROTOCOL.md §4), so that a player who lost the seat token
        sees which table keeps their seat (``join`` gives an away one back). Those tables are
        always in the reply: when the cut left one out (or the room the ``yours`` marks take
        pushes one out), the asker's cut tables come first and the list gives up its last
        summaries to make room. Every other summary is the cached one: the asker's part costs
        a copy of the list and of their own tables' summaries, nothing per table listed."""
        if self._listing is None:
            self._listing = self._build_listing()
        listing = self._listing
        if identity is None:
            return listing.summaries, listing.truncated
        candidates = listing.seated.get(identity)
        cut = listing.seated_cut.get(identity)
        if not candidates and not cut:
            return listing.summaries, listing.truncated
        marked: dict[int, dict[str, Any]] = {}
        for index, table in (candidates or {}).items():
            mark = _yours(table, identity)
            if mark is not None:
                marked[index] = {**listing.summaries[index], "yours": mark}
        first: list[tuple[dict[str, Any], int]] = []
        first_bytes = 0
        for table in cut or ():
            mark = _yours(table, identity)
            if mark is None:
                continue
            summary, size = listing.cut_summary(table)
            size += YOURS_BYTES
            if first and first_bytes + size > LIST_BUDGET:  # a key with seats everywhere
                break
            first.append(({**summary, "yours": mark}, size))
            first_bytes += size
        if not marked and not first:
            return listing.summaries, listing.truncated
        return self._with_own(listing, marked, first)

    @staticmethod
    def _with_own(
        listing: Listing,
        marked: dict[int, dict[str, Any]],
        first: list[tuple[dict[str, Any], int]],
    ) -> tuple[list[dict[str, Any]], bool]:
        """The reply to an asker whose own listed summaries are ``marked`` (by index) and whose
        own cut tables' summaries are ``first`` (with their packed bytes): within
        :data:`LIST_BUDGET`, the list gives up its last summaries for the room the asker's
        take, and an own summary it gives up moves to the front instead."""
        ends = listing.ends
        first_bytes = sum(size for _, size in first)
        kept = len(listing.summaries)
        while True:
            room = LIST_BUDGET - first_bytes - YOURS_BYTES * len(marked)
            if kept and ends[kept - 1] <= room:
                break
            kept = bisect_right(ends, room, hi=kept)
            pushed = sorted(i for i in marked if i >= kept)
            for i in pushed:
                size = _size(ends, i) + YOURS_BYTES
                first.append((marked.pop(i), size))
                first_bytes += size
            if not pushed:
                break
        while first_bytes > LIST_BUDGET and len(first) > 1:  # a key with seats everywhere
            first_bytes -= first.pop()[1]
        rest = listing.summaries[:kept]
        for i, summary in marked.items():
            rest[i] = summary
        truncated = listing.truncated or kept < len(listing.summaries)
        return [summary for summary, _ in first] + rest if first else rest, truncated

    def _build_listing(self) -> Listing:
        """Tables that started or have somebody at them take the frame's room first, so a flood
        of tables created and left empty can never push them out; the list keeps its order."""
        order = {"waiting": 0, "playing": 1, "over": 2}
        tables = sorted(self.tables.values(), key=lambda t: (order.get(t.state, 3), t.id))
        occupied = [t for t in tables if t.state != "waiting" or t.peers()]
        empty = [t for t in tables if t.state == "waiting" and not t.peers()]
        chosen: set[str] = set()
        summaries: dict[str, dict[str, Any]] = {}
        sizes: dict[str, int] = {}
        size = 0
        truncated = False
        for table in (*occupied, *empty):
            summary = table.summary()
            sizes[table.id] = len(pack(summary))
            size += sizes[table.id]
            if size > LIST_BUDGET:
                truncated = True
                break
            chosen.add(table.id)
            summaries[table.id] = summary
        listed = [t for t in tables if t.id in chosen]
        ends: list[int] = []
        size = 0
        seated: dict[str, dict[int, Table]] = {}
        seated_cut: dict[str, list[Table]] = {}
        for index, table in enumerate(listed):
            size += sizes[table.id]
            ends.append(size)
            for s in table.seats:
                if s.kind == "human" and s.identity is not None:
                    seated.setdefault(s.identity, {})[index] = table
        if truncated:
            for table in tables:
                if table.id in chosen:
                    continue
                for s in table.seats:
                    if s.kind == "human" and s.identity is not None:
                        seated_cut.setdefault(s.identity, []).append(table)
        return Listing([summaries[t.id] for t in listed], truncated, ends, seated, seated_cut)

    def find(self, table_id: str) -> Table:
        """The open table with that id, or ``no_such_table``."""
        table = self.tables.get(table_id)
        if table is None or table.state == "closed":
            raise RequestError(errors.NO_SUCH_TABLE, f"No open table has the id {table_id!r}")
        return table

    def table_config(self, peer: Peer, req: CreateTable, address: str | None = None) -> TableConfig:
        """Check a ``create_table`` request from ``address``; raises ``bad_rules`` /
        ``too_many_tables``."""
        if len(self.tables) >= self.config.max_tables:
            raise RequestError(errors.TOO_MANY_TABLES, "The server has as many tables as it allows")
        limit = self.config.max_waiting_per_address
        if address is not None and self.waiting_created_by(address) >= limit:
            raise RequestError(
                errors.TOO_MANY_TABLES,
                f"Your address already has {limit} tables waiting to start; start or leave one",
            )
        if address is not None:
            self._check_running(address)
            limit = self.config.max_open_per_address
            if self.open_created_by(address) >= limit:
                raise RequestError(
                    errors.TOO_MANY_TABLES,
                    f"Your address already has {limit} tables open; leave the ones whose match"
                    " is over",
                )
        try:
            rules = RuleSet.from_preset(req.preset or DEFAULT_PRESET, **req.options)
        except RuleOptionError as exc:
            raise RequestError(errors.BAD_RULES, exc.message) from None
        except TypeError as bad_option:  # an option name that is not a valid keyword
            raise RequestError(errors.BAD_RULES, f"bad rule options: {bad_option}") from None
        return TableConfig(
            name=req.name or f"{peer.name}'s table",
            rules=rules,
            hands=req.hands,
            password_salt=None,
            password_hash=hash_password(req.password) if req.password else None,
            turn_timer=req.turn_timer,
            grace=self.config.grace if req.grace is None else req.grace,
            hints=req.hints,
        )

    def waiting_created_by(self, address: str) -> int:
        """How many tables that have not started yet connections from ``address`` created."""
        return sum(
            1
            for table_id, creator in self._creators.items()
            if creator == address and self.tables[table_id].state == "waiting"
        )

    def running_created_by(self, address: str) -> int:
        """How many tables whose match is being played connections from ``address`` created
        (one whose match is over plays nothing: it counts only as open,
        :meth:`open_created_by`)."""
        return sum(
            1
            for table_id, creator in self._creators.items()
            if creator == address and self.tables[table_id].state == "playing"
        )

    def open_created_by(self, address: str) -> int:
        """How many open tables, whatever their state, connections from ``address`` created."""
        return sum(1 for creator in self._creators.values() if creator == address)

    def _check_running(self, address: str) -> None:
        limit = self.config.max_running_per_address
        if self.running_created_by(address) >= limit:
            raise RequestError(
                errors.TOO_MANY_TABLES,
                f"Your address already has {limit} tables playing a match; end or leave one",
            )

    def may_start(self, table: Table) -> None:
        """Raise ``too_many_tables`` if a match beginning at ``table`` (``start``, ``rematch``)
        would put the address that created it over ``max_running_per_address``."""
        creator = self._creators.get(table.id)
        if creator is not None and table.state != "playing":
            self._check_running(creator)

    def create_table(
        self, peer: Peer, config: TableConfig, address: str | None = None
    ) -> tuple[Table, str]:
        """Open a table with ``peer`` at seat 0 as host; returns the table and the seat token.

        ``address``: the creator's IP address, counted against ``max_waiting_per_address``."""
        table_id = self.store.create_table(
            config.to_dict(), created=self.wall(), created_by=address
        )
        table = Table(self, table_id, config)
        self.tables[table_id] = table
        if address is not None:
            self._creators[table_id] = address
        self._listing = None
        log.info("table %s created by %s: %s", table_id, peer.name, config.rules.to_dict())
        return table, table.join(peer, 0)

    def take_back(self, token: str) -> tuple[Table, int] | None:
        """The table and seat a token belongs to, if it is still valid."""
        found = self.tokens.get(hash_token(token))
        if found is None or found[0].state == "closed":
            return None
        return found

    # ------------------------------------------------------------------ lifecycle

    def restore(self) -> int:
        """Rebuild every unfinished table from the store, and those whose match ended less than
        ``over_table_ttl`` ago; returns how many came back."""
        count = 0
        over_since = self.wall() - self.config.over_table_ttl
        for row in self.store.load_open_tables(over_since=over_since, last_hand=True):
            try:
                table = Table.restore(self, row)
            except Exception:
                log.exception("table %s could not be restored; it is left in the database", row.id)
                continue
            self.tables[table.id] = table
            if row.created_by is not None:
                self._creators[table.id] = row.created_by
            count += 1
        for table in list(self.tables.values()):
            try:
                table.start_after_restore()
            except Exception:
                log.exception("table %s could not be resumed", table.id)
        return count

    def sweep(self) -> None:
        """Close tables nobody has been attached to for ``abandon_after`` seconds, tables
        that never started for ``waiting_expiry``, and tables whose match is being played for
        their grace period (restored ones too).

        A running table nobody is connected to would otherwise hold its place among
        ``max_tables``, and its server bots their place among their address's, for an hour: it
        is closed as an ended match is (its finished hands and totals stay stored)."""
        now = self.now()
        self._forget_match_ends(now)
        for table in list(self.tables.values()):
            if table.peers():
                table.last_activity = now
                continue
            idle = now - table.last_activity
            if table.state == "waiting" and idle > self.config.waiting_expiry:
                table.close("Nobody is at the table and it never started")
            elif table.state == "playing" and idle > table.config.grace:
                table.close("Nobody was connected to the table for its grace period")
            elif idle > self.config.abandon_after:
                table.close("Nobody came back to the table")

    def shutdown(self) -> None:
        """Stop every table's timers (their stored state stays for the next start)."""
        for table in self.tables.values():
            table.shutdown()


def _yours(table: Table, identity: str) -> dict[str, Any] | None:
    """A summary's ``yours`` for the asker with ``identity`` at ``table``, or None."""
    seat = table.held_seat(identity)
    if seat is None:
        return None
    return {"seat": seat, "away": table.seats[seat].peer is None}


def _size(ends: list[int], index: int) -> int:
    """The packed bytes of the listed summary at ``index`` (``ends``: :attr:`Listing.ends`)."""
    return ends[index] - (ends[index - 1] if index else 0)
