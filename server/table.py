"""One table: five seats, an engine Match, bots, timers, and what everyone at the table is sent.

Every change goes the same way: the engine validates it (an illegal action raises and changes
nothing), the store records it in the open transaction, the table's ``seq`` goes up by one, and
each seat is sent a ``state`` built from :func:`engine.view.seat_view` for that seat only
(spectators get the public view). The server commits the transaction before any of those
messages leaves (see ``server.app``).

Who plays a seat's turn:

- a server bot: after ``bot_delay``, its strategy (off the event loop, in a thread);
- a connected player: they answer the ``your_turn`` prompt; with a turn timer, a stand-in bot
  moves for them when it runs out;
- an absent player: nothing happens during the table's grace period, then a stand-in bot plays
  the seat until they come back; a seat left during a match is played by a stand-in too.

Nothing at all moves while nobody is connected to the table, so an abandoned table does not burn
the server's time.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from engine.actions import NUM_SEATS, Action, action_from_dict
from engine.bots import Strategy, make_strategy, strategy_names
from engine.errors import BadRecordError, SheepsheadError
from engine.match import Match
from engine.rules import RuleSet, wire_map
from engine.view import (
    OUTCOME_PART,
    PRIVATE_KEYS,
    SHARED_PARTS,
    legal_maps,
    private_fields,
    private_keys,
    release_views,
    seat_view,
    shared_part,
    shared_part_keys,
)
from protocol import messages as m
from protocol.framing import encode, frame, pack
from protocol.messages import RequestError
from protocol.prepack import (
    PackedMap,
    map_header,
    pack_fields,
    pack_map_body,
)
from server.store import SeatRow, TableRow, json_text

if TYPE_CHECKING:
    from server.app import ServerConfig
    from server.store import Store

log = logging.getLogger("sheepshead.server")

TableState = Literal["waiting", "playing", "over", "closed"]
"""waiting for players, a match being played, the match over, the table gone."""

SeatKind = Literal["empty", "human", "bot"]
"""Who sits in a seat: nobody, a client (person or network bot), a server bot."""

TOKEN_BYTES: Final = 24


BOT_NAMES: Final = ("Ole", "Lena", "Sven", "Inga", "Gus")
"""The names server bots take, by seat."""


class Peer(Protocol):
    """What a table needs of a client connection."""

    name: str
    kind: str
    table: Table | None
    seat: int | None

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message for this client."""

    def send_encoded(self, frame: bytes) -> None:
        """Queue one already-encoded frame for this client."""

    def close(self, code: str, message: str) -> None:
        """Send an error with ``code`` and close the connection."""

    def allow_chat(self) -> bool:
        """Take one token from the connection's chat allowance."""


class Hub(Protocol):
    """What a table needs of the server around it."""

    config: ServerConfig
    store: Store
    tokens: dict[str, tuple[Table, int]]

    def now(self) -> float:
        """Monotonic seconds."""

    def wall(self) -> float:
        """Wall-clock seconds since the epoch."""

    def default_bot(self) -> str:
        """The strategy name used when none is given and for stand-ins."""

    def table_closed(self, table: Table) -> None:
        """Forget a table that closed."""

    def summary_changed(self) -> None:
        """A table's summary changed (the lobby listing must be rebuilt)."""

    def seq_changed(self, table: Table) -> None:
        """``table.seq`` moved: store it with the next commit."""


_INFO_KEY: Final = pack("info")
_SEAT_KEY: Final = pack("seat")
_VIEW_KEY: Final = pack("view")
_LAST_KEY: Final = pack("last")
_LEGAL_KEY: Final = pack("legal")
_NO_LEGAL: Final = _LEGAL_KEY + pack([])
_NIL: Final = pack(None)
_VIEW_HEADER: Final = map_header(sum(map(len, SHARED_PARTS)) + len(PRIVATE_KEYS))
_SEAT_VIEW: Final[dict[int | None, bytes]] = {
    seat: _SEAT_KEY + pack(seat) + _VIEW_KEY for seat in (*range(NUM_SEATS), None)
}
"""The packed ``seat`` entry and the ``view`` key of each recipient's state."""


@functools.lru_cache(maxsize=4096)
def _record_of(action: Action) -> tuple[dict[str, Any], str]:
    """``action.to_dict()`` (read-only) and its stored JSON, memoised: actions are values, and
    there are only a few hundred different ones, which every table plays over and over."""
    record = action.to_dict()
    return record, json_text(record)


def hash_token(token: str) -> str:
    """The stored form of a seat token (tokens themselves are never stored or broadcast)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def hash_password(password: str, salt: str) -> str:
    """The stored form of a table password."""
    return hashlib.sha256(f"{salt}:{password}".encode("utf-8", "surrogatepass")).hexdigest()


def public_action(action: Mapping[str, Any] | None, viewer: int | None) -> dict[str, Any] | None:
    """What ``viewer`` may see of an action: the face-down cards only if it was their own.

    A bury names the two buried cards and an unknown-card call names the face-down card; other
    seats and spectators learn only that the action happened.
    """
    if action is None:
        return None
    if viewer is not None and action.get("seat") == viewer:
        return dict(action)
    kind = action.get("action")
    if kind == "bury":
        return {"seat": action.get("seat"), "action": "bury"}
    if kind == "unknown":
        return {k: v for k, v in action.items() if k != "under"}
    return dict(action)


def fail(code: str, message: str) -> RequestError:
    """A refusal; the connection fills in the request id."""
    return RequestError(code, message)


@dataclass
class Seat:
    """One seat's occupant and the table's bookkeeping about it."""

    kind: SeatKind = "empty"
    name: str | None = None
    strategy_name: str | None = None
    remote_kind: str | None = None
    token_hash: str | None = None
    peer: Peer | None = None
    disconnected_at: float | None = None
    standin: bool = False
    strategy: Strategy | None = None
    grace_timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def row(self) -> SeatRow | None:
        """The stored form (None for an empty seat)."""
        if self.kind == "empty" or self.name is None:
            return None
        return SeatRow(
            -1, self.kind, self.name, self.strategy_name, self.remote_kind, self.token_hash
        )


@dataclass(frozen=True)
class TableConfig:
    """What the creator chose; stored as JSON with the table."""

    name: str
    rules: RuleSet
    hands: int | None
    password_salt: str | None
    password_hash: str | None
    turn_timer: float | None
    grace: float

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON form."""
        return {
            "name": self.name,
            "rules": self.rules.to_dict(),
            "hands": self.hands,
            "password_salt": self.password_salt,
            "password_hash": self.password_hash,
            "turn_timer": self.turn_timer,
            "grace": self.grace,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableConfig:
        """Read the stored JSON form back."""
        return cls(
            name=str(data["name"]),
            rules=RuleSet.from_dict(data.get("rules", {})),
            hands=data.get("hands"),
            password_salt=data.get("password_salt"),
            password_hash=data.get("password_hash"),
            turn_timer=data.get("turn_timer"),
            grace=float(data.get("grace", 60.0)),
        )


class Table:
    """A table in the lobby: seats, spectators, host, the match and its timers."""

    def __init__(self, hub: Hub, table_id: str, config: TableConfig) -> None:
        self.hub = hub
        self.id = table_id
        self.config = config
        self.state: TableState = "waiting"
        self.seats = [Seat() for _ in range(NUM_SEATS)]
        self.host_seat: int | None = None
        self.match: Match | None = None
        self.seq = 0
        self.turn_seq = 0
        self.last: dict[str, Any] | None = None
        self.spectators: set[Peer] = set()
        self.last_activity = hub.now()
        self._turn_task: asyncio.Task[None] | None = None
        self._turn_key: tuple[int, int, str] | None = None
        self._deadline_key: tuple[int, int] | None = None
        self._deadline: float | None = None
        self._next_hand_task: asyncio.Task[None] | None = None
        self.stopped = False
        self.stored_actions = 0
        """How many actions of this table are in the store (the next one's number)."""
        self._summary_cache: tuple[tuple[Any, ...], PackedMap] | None = None
        # The caches below hold only ints and bytes, kept in place: a tuple or object stored per
        # action would live until the table's next action, long enough at a person's pace for the
        # garbage collector to walk it (at 2,000 tables, tens of thousands of them per pass).
        self._view_head = b""
        """The packed head of the current view: map header and public fields."""
        self._view_head_hand = -1
        """Which hand ``_view_head`` shows."""
        self._part_keys: list[int] = [-1] * len(SHARED_PARTS)
        self._part_packed: list[bytes] = [b""] * len(SHARED_PARTS)
        """Per part of the shared view (``engine.view.SHARED_PARTS``): its key and its packed
        fields, as of ``_view_head``."""
        self._private_keys: list[int] = [-1] * NUM_SEATS
        self._private_packed: list[bytes] = [b""] * NUM_SEATS
        """Per seat: its key (``engine.view.private_keys``) and packed private fields (all but
        ``legal``) as of its last state."""
        self._info_sent: dict[Peer, PackedMap] = {}
        """The summary each attached connection was last sent (``info`` is left out if same)."""

    # ------------------------------------------------------------------ summary

    @property
    def has_password(self) -> bool:
        """Whether joining needs a password."""
        return self.config.password_hash is not None

    def summary(self) -> dict[str, Any]:
        """The table summary of PROTOCOL.md §6.1 (no secrets: no tokens, no password)."""
        host = self.seats[self.host_seat].name if self.host_seat is not None else None
        return {
            "id": self.id,
            "name": self.config.name,
            "host": host,
            "host_seat": self.host_seat,
            "rules": wire_map(self.config.rules),
            "hands": self.config.hands,
            "hands_played": self.match.hands_played if self.match else 0,
            "state": self.state,
            "password": self.has_password,
            "turn_timer": self.config.turn_timer,
            "grace": self.config.grace,
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "kind": "bot" if s.remote_kind == "bot" else s.kind,
                    "connected": s.kind == "bot" or s.peer is not None,
                    "strategy": s.strategy_name if s.kind == "bot" else None,
                    "remote": s.kind == "human",
                    "standin": self._standin_active(i),
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": len(self.spectators),
        }

    @property
    def totals(self) -> list[int]:
        """Running scores per seat."""
        return list(self.match.totals) if self.match else [0] * NUM_SEATS

    def peers(self) -> list[Peer]:
        """Every connection attached to the table (seated and watching)."""
        return [peer for peer, _ in self._recipients()]

    # ------------------------------------------------------------------ lobby requests

    def check_password(self, password: str | None) -> None:
        """Raise ``bad_password`` unless ``password`` opens this table."""
        if self.config.password_hash is None:
            return
        assert self.config.password_salt is not None
        given = hash_password(password or "", self.config.password_salt)
        if password is None or not hmac.compare_digest(given, self.config.password_hash):
            raise fail(m.BAD_PASSWORD, "This table needs the right password")

    def check_join(self, seat: int | None, password: str | None) -> int:
        """The seat a join would take (first free when ``seat`` is None); raises if it cannot."""
        if self.state == "over":
            raise fail(m.MATCH_OVER, "The match at this table is over")
        self.check_password(password)
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise fail(m.TABLE_FULL, "Every seat at this table is taken")
            return free[0]
        if self.seats[seat].kind != "empty":
            raise fail(m.SEAT_TAKEN, f"Seat {seat} is taken")
        return seat

    def join(self, peer: Peer, seat: int) -> str:
        """Seat ``peer`` at ``seat`` (checked with :meth:`check_join`); returns its token."""
        token = self._seat_peer(peer, seat)
        if self.state == "playing":
            self._notice("joined", f"{peer.name} took seat {seat}", seat)
        self._changed()
        return token

    def _seat_peer(self, peer: Peer, seat: int) -> str:
        self.spectators.discard(peer)
        self._info_sent.pop(peer, None)  # its first state is a snapshot, summary and all
        token = secrets.token_urlsafe(TOKEN_BYTES)
        s = self.seats[seat]
        self._cancel_grace(s)
        s.kind = "human"
        s.name = peer.name
        s.strategy_name = None
        s.remote_kind = peer.kind
        s.token_hash = hash_token(token)
        s.peer = peer
        s.disconnected_at = None
        s.standin = False
        s.strategy = None
        self.hub.tokens[s.token_hash] = (self, seat)
        peer.table = self
        peer.seat = seat
        if self.host_seat is None:
            self.host_seat = seat
            self.hub.store.update_table(self.id, host_seat=seat)
        self._save_seat(seat)
        self.last_activity = self.hub.now()
        log.info("table %s: %s sits at seat %d", self.id, peer.name, seat)
        return token

    def watch(self, peer: Peer) -> None:
        """Add ``peer`` as a spectator and send the public snapshot."""
        self.spectators.add(peer)
        self.hub.summary_changed()
        peer.table = self
        peer.seat = None
        self.last_activity = self.hub.now()
        self._info_sent.pop(peer, None)  # a snapshot: the summary too
        self._send_states([(peer, None)])
        self._schedule()

    def leave(self, peer: Peer) -> None:
        """``peer`` stands up (or stops watching)."""
        seat = self._unlink(peer)
        if seat is None:
            self._drop_spectator(peer)
            return
        s = self.seats[seat]
        name = s.name
        self._forget_token(s)
        self._cancel_grace(s)
        s.peer = None
        if self.state == "over":
            s.disconnected_at = self.hub.now()
            self._save_seat(seat)
            self._maybe_close()
            return
        self._vacate(seat)
        log.info("table %s: %s left seat %d", self.id, name, seat)
        if self.state == "playing":
            self._notice("left", f"{name} left; a bot plays seat {seat}", seat)
        if not self._maybe_close():
            self._changed()

    def _unlink(self, peer: Peer) -> int | None:
        """Detach ``peer`` from the table; the seat it held, or None (it was watching)."""
        self._info_sent.pop(peer, None)
        seat = peer.seat
        peer.table = None
        peer.seat = None
        if seat is None or self.seats[seat].peer is not peer:
            return None
        return seat

    def _drop_spectator(self, peer: Peer) -> None:
        self.spectators.discard(peer)
        self.hub.summary_changed()
        self._maybe_close()

    def _vacate(self, seat: int) -> None:
        s = self.seats[seat]
        self.seats[seat] = Seat()
        if s.grace_timer is not None:
            s.grace_timer.cancel()
        self._save_seat(seat)
        if self.host_seat == seat:
            humans = [i for i, x in enumerate(self.seats) if x.kind == "human"]
            self.host_seat = humans[0] if humans else None
            self.hub.store.update_table(self.id, host_seat=self.host_seat)
            if self.host_seat is not None:
                new_host = self.seats[self.host_seat].name
                self._notice("host", f"{new_host} is now the host", self.host_seat)

    def _require_host(self, peer: Peer) -> None:
        if peer.table is not self or peer.seat is None or peer.seat != self.host_seat:
            raise fail(m.NOT_HOST, "Only the table's host may do that")

    def add_bot(self, peer: Peer, seat: int | None, strategy: str | None) -> int:
        """Host: seat a server bot; returns its seat."""
        self._require_host(peer)
        if self.state == "over":
            raise fail(m.MATCH_OVER, "The match at this table is over")
        name = strategy or self.hub.default_bot()
        choices = strategy_names()
        if name not in choices:
            raise fail(
                m.BAD_REQUEST,
                f"field 'strategy': unknown bot strategy {name!r} (choose from "
                f"{', '.join(choices)})",
            )
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise fail(m.TABLE_FULL, "Every seat at this table is taken")
            seat = free[0]
        elif self.seats[seat].kind != "empty":
            raise fail(m.SEAT_TAKEN, f"Seat {seat} is taken")
        s = self.seats[seat]
        self._cancel_grace(s)
        s.kind = "bot"
        s.strategy_name = name
        s.name = self._bot_name(name, seat)
        s.strategy = self._new_strategy(name)
        self._save_seat(seat)
        self._changed()
        return seat

    def _bot_name(self, strategy: str, seat: int) -> str:
        # Short, distinct per seat, so five names fit an 80-column table; the summary's
        # ``kind`` and ``strategy`` fields say it is a bot and which one.
        del strategy
        return BOT_NAMES[seat]

    def remove_bot(self, peer: Peer, seat: int) -> None:
        """Host: take a server bot out of its seat."""
        self._require_host(peer)
        if self.seats[seat].kind != "bot":
            raise fail(m.NOT_A_BOT, f"Seat {seat} is not held by a server bot")
        self._vacate(seat)
        self._changed()

    def start(self, peer: Peer) -> None:
        """Host: deal the first hand of the match."""
        self._require_host(peer)
        if self.state != "waiting":
            raise fail(m.ALREADY_STARTED, "The match has already started")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        if empty:
            raise fail(
                m.NOT_ENOUGH_PLAYERS,
                f"A match needs five players or bots; seat(s) {', '.join(map(str, empty))} empty",
            )
        seed = secrets.randbits(62)
        self.match = Match(
            self.config.rules, seed=seed, hand_limit=self.config.hands, keep_history=False
        )
        self.state = "playing"
        self.hub.store.update_table(
            self.id, state="playing", seed=seed, first_dealer=self.match.first_dealer
        )
        log.info("table %s: match started (hands=%s)", self.id, self.config.hands)
        self.last = None
        self._changed(turn=True)

    def end_match(self, peer: Peer) -> None:
        """Host: end the match now (an unfinished hand is abandoned)."""
        self._require_host(peer)
        if self.state == "waiting":
            raise fail(m.NOT_STARTED, "The match has not started")
        if self.state != "playing" or self.match is None:
            raise fail(m.MATCH_OVER, "The match is already over")
        self.match.end()
        self._finish_match()

    def chat(self, peer: Peer, text: str) -> None:
        """Pass a (cleaned) chat line to everyone at the table."""
        if not peer.allow_chat():
            raise fail(m.RATE_LIMITED, "You are chatting too fast; wait a moment")
        message = m.chat(table=self.id, sender=peer.name, seat=peer.seat, text=text)
        frame = encode(message)
        for p in self.peers():
            p.send_encoded(frame)

    # ------------------------------------------------------------------ connections

    def resume(self, peer: Peer, seat: int) -> None:
        """A seat token came back: attach ``peer`` to its seat and send the snapshot."""
        s = self.seats[seat]
        old = s.peer
        self._info_sent.pop(peer, None)
        if old is not None and old is not peer:
            self._info_sent.pop(old, None)
            old.table = None
            old.seat = None
            old.send(
                m.notice(
                    table=self.id,
                    code=m.REPLACED,
                    text="A newer connection took over your seat",
                    seat=seat,
                )
            )
            old.close(m.REPLACED, "A newer connection took over this seat")
        was_away = s.disconnected_at is not None
        self._cancel_grace(s)
        s.peer = peer
        s.disconnected_at = None
        s.standin = False
        peer.table = self
        peer.seat = seat
        self.last_activity = self.hub.now()
        log.info("table %s: %s is back at seat %d", self.id, s.name, seat)
        if was_away and self.state == "playing":
            self._notice("reconnected", f"{s.name} is back", seat)
        self._changed()

    def detach(self, peer: Peer) -> None:
        """The connection of ``peer`` is gone (not a leave: the seat is kept for its token)."""
        seat = self._unlink(peer)
        if self.stopped:  # server shutdown: the stored state must stay as it is
            return
        if seat is None:
            self._drop_spectator(peer)
            return
        s = self.seats[seat]
        s.peer = None
        s.disconnected_at = self.hub.now()
        self.last_activity = self.hub.now()
        if self.state == "over":
            self._maybe_close()
            return
        if self.state == "playing":
            grace = self.config.grace
            self._notice(
                "disconnected",
                f"{s.name} disconnected; a bot plays for them after {grace:g} s",
                seat,
            )
            self._start_grace(seat)
        self._changed()

    def _start_grace(self, seat: int) -> None:
        s = self.seats[seat]
        self._cancel_grace(s)
        loop = asyncio.get_running_loop()
        s.grace_timer = loop.call_later(self.config.grace, self._grace_over, seat)

    def _cancel_grace(self, s: Seat) -> None:
        if s.grace_timer is not None:
            s.grace_timer.cancel()
            s.grace_timer = None

    def _grace_over(self, seat: int) -> None:
        try:
            s = self.seats[seat]
            s.grace_timer = None
            if s.kind != "human" or s.peer is not None or self.state != "playing":
                return
            s.standin = True
            self._notice("standin", f"A bot is playing for {s.name} until they return", seat)
            self._changed()
        except Exception:
            log.exception("table %s: grace timer failed", self.id)

    def _standin_active(self, seat: int) -> bool:
        s = self.seats[seat]
        if self.state != "playing":
            return False
        return s.kind == "empty" or (s.kind == "human" and s.peer is None and s.standin)

    # ------------------------------------------------------------------ playing

    def act(self, peer: Peer, seq: int, data: Mapping[str, Any]) -> None:
        """A player's answer to ``your_turn``: checked for seat, turn and seq, then the engine."""
        seat = peer.seat
        if peer.table is not self or seat is None:
            raise fail(m.NOT_SEATED, "You are not seated at this table")
        if self.state == "waiting" or self.match is None:
            raise fail(m.NOT_STARTED, "The match has not started")
        if self.state != "playing":
            raise fail(m.MATCH_OVER, "The match is over")
        claimed = data.get("seat", seat)
        if claimed != seat:
            raise fail(m.NOT_YOUR_TURN, f"You sit at seat {seat}; you cannot act for another")
        hand = self.match.hand
        if hand.is_over:
            raise fail(m.HAND_OVER, "The hand is over; the next one is being dealt")
        if hand.turn != seat:
            raise fail(m.NOT_YOUR_TURN, f"It is seat {hand.turn}'s turn, not yours")
        if not self.turn_seq <= seq <= self.seq:
            raise fail(m.STALE, f"seq {seq} does not answer the current prompt (seq {self.seq})")
        try:
            action = action_from_dict(data, seat)
        except BadRecordError as exc:
            raise fail(m.BAD_REQUEST, f"field 'action': {exc.message}") from None
        self._apply(seat, action)

    def _apply(self, seat: int, action: Action) -> None:
        """Apply an action through the engine, store it, tell everyone. Raises if illegal."""
        match = self.match
        assert match is not None
        number = match.number
        match.apply(action)  # raises SheepsheadError and changes nothing if illegal
        record, text = _record_of(action)
        store = self.hub.store
        # Stored with the seq of the state it produces: no table-row update for the seq.
        store.add_action(self.id, self.stored_actions, number, text, seq=self.seq + 1)
        self.stored_actions += 1
        self.last = record
        hand = match.hand
        if hand.is_over:
            result = hand.result()
            payouts = list(result.payouts or ())
            store.save_hand(self.id, number, match.records[-1], payouts, finished=self.hub.wall())
            store.update_table(self.id, totals=match.totals)
            log.info(
                "table %s: hand %d over: %s payouts %s totals %s",
                self.id,
                number,
                result.outcome,
                payouts,
                match.totals,
            )
        self._changed(turn=True, seq_stored=True)
        if hand.is_over:
            # The one view part it shows, not a whole spectator's view built again.
            outcome = shared_part(hand, OUTCOME_PART)
            message = m.hand_over(
                table=self.id,
                seq=self.seq,
                hand=number,
                result=outcome["result"],
                reveal=outcome["reveal"],
                totals=self.totals,
            )
            self._broadcast(message)
            if match.is_over:
                self._finish_match()
            else:
                self._next_hand_task = asyncio.create_task(self._deal_next(number))

    async def _deal_next(self, finished: int) -> None:
        try:
            await asyncio.sleep(self.hub.config.hand_pause)
            match = self.match
            if self.state != "playing" or match is None or match.number != finished:
                return
            match.next_hand()
            self.last = None
            log.info("table %s: hand %d dealt (dealer %d)", self.id, match.number, match.dealer)
            self._changed(turn=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: dealing the next hand failed", self.id)

    def _finish_match(self) -> None:
        match = self.match
        assert match is not None
        self.state = "over"
        self._cancel_tasks()
        for s in self.seats:
            self._cancel_grace(s)
        now = self.hub.wall()
        store = self.hub.store
        store.update_table(self.id, state="over", finished=now, totals=match.totals)
        store.save_results(
            self.id,
            [(i, s.name, s.kind, match.totals[i]) for i, s in enumerate(self.seats)],
            hands=match.hands_played,
            finished=now,
        )
        log.info(
            "table %s: match over after %d hands, totals %s",
            self.id,
            match.hands_played,
            match.totals,
        )
        self._changed()
        self._broadcast(
            m.match_over(table=self.id, seq=self.seq, totals=match.totals, hands=match.hands_played)
        )
        self._maybe_close()

    # ------------------------------------------------------------------ broadcasting

    def _changed(self, *, turn: bool = False, seq_stored: bool = False) -> None:
        """One state change: bump seq, store it, send every state, prompt, schedule the bots.

        ``seq_stored``: the change was an action, already stored with its seq.
        """
        self.seq += 1
        if turn:
            self.turn_seq = self.seq
        info = self._packed_summary()  # tells the lobby if the summary changed
        if not seq_stored:
            self.hub.seq_changed(self)  # stored once per group commit, not once per change
        self._update_deadline()
        self._send_states(self._recipients(), info)
        self._schedule()
        if self.match is not None:
            release_views(self.match.hand)

    def _recipients(self) -> list[tuple[Peer, int | None]]:
        """Every attached connection with its seat (None: watching)."""
        out: list[tuple[Peer, int | None]] = [
            (s.peer, i) for i, s in enumerate(self.seats) if s.peer is not None
        ]
        if self.spectators:  # most tables have none; a generator costs even when empty
            out.extend((p, None) for p in self.spectators)
        return out

    def _send_states(
        self, recipients: list[tuple[Peer, int | None]], info: PackedMap | None = None
    ) -> None:
        """Send each recipient the current ``state`` built for its seat, then the prompt.

        It decodes to ``m.state_shared(...)`` plus ``m.state_own(seat, seat_view(hand, seat),
        last)``, except that ``info`` is left out for a recipient that already has this very
        summary (PROTOCOL.md §4). What everyone gets alike is packed once per change, not once
        per recipient: the head, the summary, the public part of the view and the last action.
        """
        if not recipients:
            return
        match = self.match
        if info is None:
            info = self._packed_summary()
        head = pack_fields(
            {
                "type": "state",
                "table": self.id,
                "seq": self.seq,
                "totals": self.totals,
                "hand": match.number if match is not None else 0,
            }
        )
        # Map headers for the whole state: without ``info`` and with it.
        bare = map_header(head.count + 3) + head.data
        full = map_header(head.count + 4) + head.data + _INFO_KEY + info.data
        hand = match.hand if match is not None else None
        last = self.last
        last_public = _LAST_KEY + pack(public_action(last, None))
        actor = None if last is None else last.get("seat")
        view_head = _NIL
        keys: list[int] = []
        turn = None
        if hand is not None:
            view_head = self._packed_view_head()
            keys = private_keys(hand)
            if not hand.is_over:
                turn = hand.turn
        spectator = b""
        turn_legal = b""
        known_keys = self._private_keys
        known_packed = self._private_packed
        info_sent = self._info_sent
        max_frame = self.hub.config.max_frame
        for peer, seat in recipients:
            # The frame is joined once from its parts: state head (with or without ``info``),
            # then ``seat``, ``view`` (shared part, private part) and ``last``.
            if info_sent.get(peer) is info:
                state_head = bare
            else:
                info_sent[peer] = info
                state_head = full
            parts: tuple[bytes, ...]
            if hand is None:
                parts = (state_head, _SEAT_VIEW[seat], _NIL, last_public)
            elif seat is None:
                if not spectator:
                    spectator = pack_map_body(private_fields(hand, None))
                parts = (state_head, _SEAT_VIEW[None], view_head, spectator, last_public)
            else:
                # The key says everything the fields are made of (the rules are the table's),
                # so an equal key from an earlier hand is as good.
                key = keys[seat]
                if known_keys[seat] == key:
                    own = known_packed[seat]
                else:
                    fields = private_fields(hand, seat)
                    del fields["legal"]  # packed apart: the seat to act's changes every action
                    own = pack_map_body(fields)
                    known_keys[seat] = key
                    known_packed[seat] = own
                legal = _NO_LEGAL
                if seat == turn:
                    if not turn_legal:
                        turn_legal = _LEGAL_KEY + pack(legal_maps(hand))
                    legal = turn_legal
                mine = last_public
                if seat == actor:
                    mine = _LAST_KEY + pack(public_action(last, seat))
                parts = (state_head, _SEAT_VIEW[seat], view_head, own, legal, mine)
            try:
                peer.send_encoded(frame(b"".join(parts), max_frame=max_frame))
            except ValueError:  # pragma: no cover - a state is a few hundred bytes
                log.error(
                    "table %s: a state of %d bytes cannot be sent", self.id, len(b"".join(parts))
                )
                continue
            if seat is not None and seat == turn:
                prompt = self._prompt(seat)
                if prompt is not None:
                    peer.send_encoded(prompt)

    def _packed_summary(self) -> PackedMap:
        """:meth:`summary`, packed; rebuilt only when something it shows has changed, and then
        the lobby is told, so its cached listing survives the many changes that leave every
        summary as it was (an action).

        The key holds every changing input of the summary (the configuration is frozen), so a
        stale summary cannot be sent or listed.
        """
        match = self.match
        key = (
            self.state,
            self.host_seat,
            match.hands_played if match is not None else 0,
            len(self.spectators),
            *[
                (s.kind, s.name, s.remote_kind, s.strategy_name, s.peer is None, s.standin)
                for s in self.seats
            ],
        )
        cached = self._summary_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        packed = PackedMap(self.summary())
        self._summary_cache = (key, packed)
        self.hub.summary_changed()
        return packed

    def _packed_view_head(self) -> bytes:
        """The current view's map header and the fields every seat shares, packed part by part
        as the parts change; each recipient's private fields follow it."""
        match = self.match
        assert match is not None
        hand = match.hand
        part_keys = self._part_keys
        part_packed = self._part_packed
        if self._view_head_hand != match.number:
            self._view_head_hand = match.number
            part_keys[:] = [-1] * len(SHARED_PARTS)  # keys compare only within one hand
        # Only the parts whose key moved are packed again: in trick play, mostly the turn, the
        # hand sizes and the trick on the table; none when the state is the same (a join).
        moved = False
        for part, key in enumerate(shared_part_keys(hand)):
            if part_keys[part] != key:
                part_keys[part] = key
                part_packed[part] = pack_map_body(shared_part(hand, part))
                moved = True
        if moved:
            self._view_head = _VIEW_HEADER + b"".join(part_packed)
        return self._view_head

    def _prompt(self, seat: int) -> bytes | None:
        """The encoded ``your_turn`` for ``seat``, or None when it is not that seat's turn."""
        match = self.match
        if self.state != "playing" or match is None:
            return None
        hand = match.hand
        if hand.is_over or hand.turn != seat:
            return None
        deadline = None
        if self._deadline is not None and self._deadline_key == self._key():
            deadline = round(max(0.0, self._deadline - self.hub.now()), 3)
        return encode(
            m.your_turn(
                table=self.id,
                seq=self.seq,
                decision=hand.phase,
                legal=legal_maps(hand),
                deadline=deadline,
            )
        )

    def _broadcast(self, message: Mapping[str, Any]) -> None:
        frame = encode(message)
        for p in self.peers():
            p.send_encoded(frame)

    def _notice(self, code: str, text: str, seat: int | None = None) -> None:
        self._broadcast(m.notice(table=self.id, code=code, text=text, seat=seat))

    def _save_seat(self, seat: int) -> None:
        self.hub.store.save_seat(self.id, seat, self.seats[seat].row())

    # ------------------------------------------------------------------ bots and timers

    def _key(self) -> tuple[int, int]:
        match = self.match
        assert match is not None
        return (match.number, len(match.hand.actions))

    def _update_deadline(self) -> None:
        """Start the turn timer when a new decision begins (re-prompts keep the deadline)."""
        timer = self.config.turn_timer
        match = self.match
        if timer is None or self.state != "playing" or match is None or match.hand.is_over:
            return
        key = self._key()
        if self._deadline_key != key:
            self._deadline_key = key
            self._deadline = self.hub.now() + timer

    def _attended(self) -> bool:
        return bool(self.spectators) or any(s.peer is not None for s in self.seats)

    def _schedule(self) -> None:
        """Make sure the right thing happens for the seat to act (bot move, timer, nothing)."""
        match = self.match
        if self.state != "playing" or match is None or match.hand.is_over:
            self._cancel_turn()
            return
        seat = match.hand.turn
        assert seat is not None
        key = self._key()
        timer = self.config.turn_timer
        self._update_deadline()
        if not self._attended():
            self._cancel_turn()
            return
        s = self.seats[seat]
        mode: str
        delay: float
        if s.kind == "bot" or self._standin_active(seat):
            mode, delay = "bot", self.hub.config.bot_delay
        elif timer is not None and self._deadline is not None:
            mode, delay = "timer", max(0.0, self._deadline - self.hub.now())
        else:
            self._cancel_turn()
            return
        full_key = (*key, mode)
        task = self._turn_task
        if self._turn_key == full_key and task is not None and not task.done():
            return
        self._cancel_turn()
        self._turn_key = full_key
        self._turn_task = asyncio.create_task(self._bot_turn(key, seat, mode, delay))

    def _cancel_turn(self) -> None:
        if self._turn_task is not None:
            self._turn_task.cancel()
        self._turn_task = None
        self._turn_key = None

    def _cancel_tasks(self) -> None:
        self._cancel_turn()
        if self._next_hand_task is not None:
            self._next_hand_task.cancel()
            self._next_hand_task = None

    def _strategy_for(self, seat: int) -> Strategy:
        s = self.seats[seat]
        if s.strategy is None:
            s.strategy = self._new_strategy(self.hub.default_bot())
        return s.strategy

    def _new_strategy(self, name: str) -> Strategy:
        try:
            return make_strategy(
                name,
                seed=secrets.randbits(32),
                clock=time.monotonic,
                think_time=self.hub.config.bot_think_time,
            )
        except Exception:
            log.exception("table %s: cannot make strategy %r; using random", self.id, name)
            return make_strategy("random", seed=secrets.randbits(32))

    async def _bot_turn(self, key: tuple[int, int], seat: int, mode: str, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            match = self.match
            if self.state != "playing" or match is None or self._key() != key:
                return
            hand = match.hand
            view = seat_view(hand, seat)
            action = await self._choose(seat, view)
            if self.state != "playing" or self._key() != key:
                return  # somebody else moved meanwhile (the player came back and acted)
            self._turn_task = None
            self._turn_key = None
            if mode == "timer":
                name = self.seats[seat].name
                self._notice("timer_expired", f"Time ran out for {name}; a bot moved", seat)
            self._apply(seat, action)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bot move for seat %d failed", self.id, seat)
            self._fallback_move(key, seat)

    def _fallback_move(self, key: tuple[int, int], seat: int) -> None:
        """Keep the table moving after an unexpected failure: play the first legal action."""
        match = self.match
        if self.state != "playing" or match is None or self._key() != key:
            return
        try:
            self._turn_task = None
            self._turn_key = None
            self._apply(seat, match.hand.legal_actions()[0])
        except Exception:
            log.exception("table %s: seat %d is stuck", self.id, seat)

    async def _choose(self, seat: int, view: dict[str, Any]) -> Action:
        """The strategy's choice, off the event loop; the first legal action if it misbehaves."""
        match = self.match
        assert match is not None
        hand = match.hand
        legal = view["legal"]
        strategy = self._strategy_for(seat)
        try:
            choice = await asyncio.wait_for(
                asyncio.to_thread(strategy.choose, view, legal), self.hub.config.bot_timeout
            )
            action = action_from_dict(choice, seat)
            hand.verify(action)
            return action
        except asyncio.CancelledError:
            raise
        except (SheepsheadError, TimeoutError, Exception) as exc:
            log.warning(
                "table %s: strategy %r at seat %d failed (%s: %s); playing the first legal action",
                self.id,
                getattr(strategy, "name", type(strategy).__name__),
                seat,
                type(exc).__name__,
                exc,
            )
            return hand.legal_actions()[0]

    # ------------------------------------------------------------------ closing

    def _forget_token(self, s: Seat) -> None:
        if s.token_hash is not None:
            self.hub.tokens.pop(s.token_hash, None)
            s.token_hash = None

    def _maybe_close(self) -> bool:
        """Close the table when nobody can come back to it; returns whether it closed."""
        humans = [s for s in self.seats if s.kind == "human"]
        if self.state == "over":
            if any(s.peer is not None for s in humans) or self.spectators:
                return False
        elif humans:
            return False
        self.close("Everyone has left the table")
        return True

    def close(self, reason: str) -> None:
        """Close the table: end a running match, detach everyone, forget it."""
        if self.state == "closed":
            return
        if self.state == "playing" and self.match is not None:
            self.match.end()
            self._finish_match_quietly()
        self._cancel_tasks()
        for s in self.seats:
            self._cancel_grace(s)
            self._forget_token(s)
        if self.state == "waiting":
            self.hub.store.update_table(self.id, state="closed", finished=self.hub.wall())
        self.state = "closed"
        for p in self.peers():
            p.send(m.notice(table=self.id, code="table_closed", text=reason))
            p.table = None
            p.seat = None
        for s in self.seats:
            s.peer = None
        self.spectators.clear()
        self._info_sent.clear()
        log.info("table %s closed: %s", self.id, reason)
        self.hub.table_closed(self)

    def _finish_match_quietly(self) -> None:
        match = self.match
        assert match is not None
        now = self.hub.wall()
        self.state = "over"
        self.hub.store.update_table(self.id, state="over", finished=now, totals=match.totals)
        self.hub.store.save_results(
            self.id,
            [(i, s.name, s.kind, match.totals[i]) for i, s in enumerate(self.seats)],
            hands=match.hands_played,
            finished=now,
        )

    def shutdown(self) -> None:
        """Stop timers and tasks (server shutdown); the stored state stays for the next start."""
        self.stopped = True
        self._cancel_tasks()
        for s in self.seats:
            self._cancel_grace(s)

    # ------------------------------------------------------------------ restoring

    @classmethod
    def restore(cls, hub: Hub, row: TableRow) -> Table:
        """Rebuild a stored unfinished table: replay its actions through the engine."""
        table = cls(hub, row.id, TableConfig.from_dict(row.config))
        now = hub.now()
        for seat_row in row.seats:
            if not 0 <= seat_row.seat < NUM_SEATS:
                continue
            s = table.seats[seat_row.seat]
            s.kind = "bot" if seat_row.kind == "bot" else "human"
            s.name = seat_row.name
            s.strategy_name = seat_row.strategy
            s.remote_kind = seat_row.remote_kind
            s.token_hash = seat_row.token_hash
            if s.kind == "bot":
                s.strategy = table._new_strategy(seat_row.strategy or hub.default_bot())
            else:
                s.disconnected_at = now
                if s.token_hash:
                    hub.tokens[s.token_hash] = (table, seat_row.seat)
        table.host_seat = row.host_seat
        if row.state == "playing":
            if row.seed is None:
                raise ValueError("a playing table without a seed")
            match = Match(
                table.config.rules,
                seed=row.seed,
                hand_limit=table.config.hands,
                first_dealer=row.first_dealer,
                keep_history=False,
            )
            for number, data in row.actions:
                while match.number < number:
                    match.next_hand()
                match.apply(action_from_dict(data))
                table.last = data
            table.match = match
            table.state = "playing"
            table.stored_actions = len(row.actions)
            if match.totals != row.totals:
                log.warning(
                    "table %s: replayed totals %s differ from stored %s",
                    row.id,
                    match.totals,
                    row.totals,
                )
        table.seq = row.seq
        table.turn_seq = row.seq + 1
        return table

    def resume_after_restore(self) -> None:
        """Start timers after a restart: grace for absent players, the next hand, the bots."""
        match = self.match
        if self.state == "playing" and match is not None:
            for i, s in enumerate(self.seats):
                if s.kind == "human" and s.peer is None:
                    self._start_grace(i)
            if match.hand.is_over:
                if match.is_over:
                    self._finish_match()
                    return
                self._next_hand_task = asyncio.create_task(self._deal_next(match.number))
        self._changed(turn=True)
