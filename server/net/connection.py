"""One client connection: handshake, limits, request dispatch and the outgoing queue.

The connection reads frames, counts each against its token bucket, checks the handshake, turns
maps into typed requests (:mod:`protocol.requests`) and hands them to the lobby or its table.
Every request gets exactly one ``ok`` or ``error`` echoing its id, and that reply is queued
before any event the request caused, so a client sees ``ok`` for its ``join`` before the
``state`` that shows it seated. Nothing a client sends can raise out of here: every failure is
answered and logged, and only this connection is affected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket as sockets
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from engine.errors import SheepsheadError
from protocol import errors, requests
from protocol import events as m
from protocol.framing import FrameDecoder, FrameError, Message, encode, peek
from protocol.requests import (
    AddBot,
    ChatRequest,
    ClientSeed,
    CreateTable,
    DoorPlayer,
    DoorSeat,
    EndMatch,
    Hello,
    History,
    Join,
    Leave,
    ListTables,
    Ping,
    Pong,
    Rematch,
    RemoveBot,
    Request,
    RequestError,
    Standings,
    Start,
    TakeAction,
    Watch,
    parse_request,
    request_size_limit,
)
from protocol.text import quote
from server.net.limits import AddressAllowance, TokenBucket
from server.tables import hints
from server.tables.seats import distinct_name, is_bot_name, names_at

if TYPE_CHECKING:
    from server.config import ServerConfig
    from server.storage.standings import Players
    from server.tables.lobby import Lobby
    from server.tables.table import Table

log = logging.getLogger("sheepshead.server")


class ServerSide(Protocol):
    """What a connection needs of the server around it (:class:`server.app.Server`)."""

    config: ServerConfig
    server_name: str

    @property
    def lobby(self) -> Lobby:
        """The tables."""

    @property
    def players(self) -> Players:
        """Who is who across connections (``server.storage.standings``)."""

    def allowance(self, address: str, now: float) -> AddressAllowance:
        """The allowance of connections from ``address``."""

    def queue(self, conn: Connection, frame: bytes) -> None:
        """Queue ``frame`` for ``conn``: written at the next flush, after the commit."""

    def queue_close(self, conn: Connection) -> None:
        """Close ``conn`` once its queued frames are written."""


class Connection:
    """A client, from accept to close. Implements :class:`server.tables.hub.Peer`."""

    def __init__(
        self,
        server: ServerSide,
        number: int,
        transport: asyncio.Transport,
        address: str,
        *,
        local: bool = False,
    ) -> None:
        config = server.config
        now = server.lobby.now()
        self.server = server
        self.number = number
        self.transport = transport
        self.outbox: list[bytes] = []
        """Frames queued since the server's last flush (see ``Server.queue``)."""
        self.close_after_flush = False
        self.lost_reason: str | None = None
        self.address = address
        self.local = local
        """It came through the server's local socket (``Server.open_local_socket``), which only
        the server's user can dial: the doors' children, and the doors' own requests
        (``door_seat``, ``door_player``), which no other connection may send."""
        self.name = f"guest{number}"
        """The name shown at the table this connection is at (see :meth:`_take_name`)."""
        self.hello_name = self.name
        """The name the client said hello with."""
        self.kind = "human"
        self.client = ""
        self.identity: str | None = None
        """Who this is across connections (``server.storage.standings``): from hello's
        player_key."""
        self.told_not_counted = False
        """Told that its games are not counted (its address's new player keys ran out)."""
        self.table: Table | None = None
        self.seat: int | None = None
        self.greeted = False
        self.closing = False
        self.opened = now
        self.last_received = now
        self.pinged = False
        self.close_deadline: float | None = None
        self.decoder = FrameDecoder(max_frame=config.max_frame)
        self.bucket = TokenBucket(config.rate, config.burst, now)
        self.byte_bucket = TokenBucket(config.byte_rate, config.byte_burst, now)
        self.allowance = server.allowance(address, now)
        """The byte and password allowance this connection shares with its address."""
        self.chat_bucket = TokenBucket(config.chat_rate, config.chat_burst, now)
        self.history_bucket = TokenBucket(config.history_rate, config.history_burst, now)
        self.standings_bucket = TokenBucket(config.standings_rate, config.standings_burst, now)
        self._held: list[bytes] | None = None
        self._exempted: tuple[str, int] | None = None
        """The prompt (table id, its ``turn_seq``) whose answer passed the message rate
        uncounted (:meth:`_prompted_answer`): one answer per prompt."""

    def __repr__(self) -> str:
        return f"<Connection {self.number} {self.name!r} {self.address}>"

    # ------------------------------------------------------------------ Peer

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message (held back while a request is handled, so its reply goes first)."""
        try:
            frame = encode(message, max_frame=self.server.config.max_frame)
        except (TypeError, ValueError):
            log.exception("conn %d: cannot encode a %r message", self.number, message.get("type"))
            # A reply keeps its id, so that the client waiting on it is not left hanging.
            reply_id = message.get("id") if message.get("type") in ("ok", "error") else None
            frame = encode(
                m.error(
                    _id_of({"id": reply_id}),
                    errors.INTERNAL_ERROR,
                    "The server could not send a reply",
                )
            )
        self.send_encoded(frame)

    def send_encoded(self, frame: bytes) -> None:
        """Queue one encoded frame."""
        if self.closing:
            return
        if self._held is not None:
            self._held.append(frame)
        else:
            self.server.queue(self, frame)

    def close(
        self, code: str, message: str, *, notify: bool = True, stop_reading: bool = False
    ) -> None:
        """Send ``error {code, message}`` (unless not ``notify``) and close once written.

        ``stop_reading``: a flood is being cut off; what it still sends is not read (it would
        cost a read per 64 KiB until the linger runs out), only left in the kernel's buffer."""
        if self.closing:
            return
        if stop_reading:
            with contextlib.suppress(AttributeError, RuntimeError):  # already closing
                self.transport.pause_reading()
        self._release()
        if notify:
            self.server.queue(self, encode(m.error(None, code, message)))
        self.closing = True
        self.server.queue_close(self)
        log.info("conn %d %s: closing (%s)", self.number, self.name, code)

    def allow_chat(self) -> bool:
        """Take one token from the chat allowance."""
        return self.chat_bucket.take(self.server.lobby.now())

    def _release(self) -> None:
        held, self._held = self._held, None
        for frame in held or ():
            self.server.queue(self, frame)

    # ------------------------------------------------------------------ input

    def receive_payload(self, item: bytes | FrameError) -> None:
        """Handle one undecoded frame payload (or framing error); never raises.

        What a frame costs is metered before it is decoded: one message and its length in bytes
        from the allowances, and a frame bigger than its type allows
        (:func:`protocol.requests.request_size_limit`) is refused without being decoded.

        The checks come in the order PROTOCOL.md §9 gives their codes: a flood of messages gets
        ``rate_limited``; a frame over its type's size gets ``request_too_large`` even when it
        also overdraws the byte allowances (its bytes are still taken from them, and when that
        uses up the connection's the connection is closed, saying "bytes"); any other frame over
        the byte allowances gets ``rate_limited``.

        An answer to a prompt (:meth:`_prompted_answer`) is not counted as a message at all:
        dropping it would leave the table waiting for a move that never comes.
        """
        if self.closing:
            return
        now = self.server.lobby.now()
        self.last_received = now
        self.pinged = False
        try:
            if isinstance(item, FrameError):
                size, kind, request_id = 0, None, None
            else:
                size = len(item)
                kind, request_id = peek(item)
            decoded: Message | FrameError | None = None
            exempt = False
            if kind == "action" and isinstance(item, bytes):
                decoded, exempt = self._prompted_answer(item, size)
            within_count = exempt or self.bucket.take(now)
            within_bytes = self.byte_bucket.take(now, size)
            within_address = self.allowance.bytes.take(now, size)
            limit = request_size_limit(kind)
            oversized = size > limit
            if not within_count or not (oversized or (within_bytes and within_address)):
                if self.bucket.exhausted or self.byte_bucket.exhausted:
                    self._cut_off()
                    return
                what = "messages" if not within_count else "bytes"
                self.send(
                    m.error(
                        request_id, errors.RATE_LIMITED, f"Too many {what}; this one was dropped"
                    )
                )
                return
            if oversized:
                shown = quote(kind) if kind is not None else "request"
                self.send(
                    m.error(
                        request_id,
                        errors.REQUEST_TOO_LARGE,
                        f"A {shown} frame may have at most {limit} bytes; this one has {size}",
                    )
                )
                if self.byte_bucket.exhausted:
                    self._cut_off()
                return
            if isinstance(item, FrameError):
                self.receive(item)
                return
            self.receive(self.decoder.decode(item) if decoded is None else decoded, request_id)
        except Exception:
            log.exception("conn %d: failed to handle a frame", self.number)
            self._release()
            self.send(m.error(None, errors.INTERNAL_ERROR, "The server failed on that request"))

    def _cut_off(self) -> None:
        """Close a connection that ignored a whole burst of ``rate_limited``, saying which
        allowance it ran through."""
        what = "messages" if self.bucket.exhausted else "bytes"
        self.close(
            errors.RATE_LIMITED, f"Too many {what}; closing the connection", stop_reading=True
        )

    def _prompted_answer(self, item: bytes, size: int) -> tuple[Message | FrameError | None, bool]:
        """``item`` decoded (None when it was not worth decoding), and whether it is exempt from
        the message rate: the first ``action`` that carries the seq of the ``your_turn``
        pending for the seat this connection holds.

        Such answers are bounded by the prompts, which the table paces, not by the client: a
        bot answering at once at a table of quick server bots passes 20 messages a second, and
        an answer dropped as ``rate_limited`` was never prompted again. Every other action
        (another for the same prompt, a stale or wrong seq, one while no prompt is pending)
        counts as usual, so the exemption cannot carry a flood; its bytes are metered anyway.
        """
        table, seat = self.table, self.seat
        if (
            table is None
            or seat is None
            or size > request_size_limit("action")
            or not table.prompt_pending(self, seat)
        ):
            return None, False
        prompt = (table.id, table.turn_seq)
        if self._exempted == prompt:
            return None, False
        msg = self.decoder.decode(item)
        if isinstance(msg, FrameError) or msg.get("type") != "action":
            return msg, False
        seq = msg.get("seq")
        if type(seq) is not int or not table.turn_seq <= seq <= table.seq:
            return msg, False
        self._exempted = prompt
        return msg, True

    def receive(self, item: Message | FrameError, request_id: int | None = None) -> None:
        """Handle one decoded frame (or framing error), already metered; never raises.

        A frame that could not be decoded is refused with ``request_id``, the id read from it
        undecoded when there was one, so a client waiting on that id is answered (PROTOCOL.md
        §1)."""
        if self.closing:
            return
        try:
            if isinstance(item, FrameError):
                if item.fatal:
                    self.close(item.code, item.message, stop_reading=True)
                else:
                    self.send(m.error(request_id, item.code, item.message))
                return
            self._request(item)
        except Exception:
            log.exception("conn %d: failed to handle a message", self.number)
            self._release()
            self.send(
                m.error(_id_of(item), errors.INTERNAL_ERROR, "The server failed on that request")
            )

    def _request(self, msg: Message) -> None:
        if not self.greeted and msg.get("type") not in ("hello", "pong"):
            message = "The first message must be hello"
            self.send(m.error(_id_of(msg), errors.HANDSHAKE_REQUIRED, message))
            self.close(errors.HANDSHAKE_REQUIRED, message, notify=False)
            return
        if self.greeted and msg.get("type") == "hello":
            self.send(
                m.error(
                    _id_of(msg), errors.BAD_REQUEST, "hello was already received on this connection"
                )
            )
            return
        try:
            req = parse_request(msg)
        except RequestError as exc:
            self.send(exc.to_message())
            if exc.code == errors.VERSION_UNSUPPORTED:
                self.close(exc.code, exc.message, notify=False)
            return
        if isinstance(req, Pong):
            return
        self._held = []
        try:
            reply = self._dispatch(req)
        except RequestError as exc:
            reply = m.error(req.id, exc.code, exc.message, **exc.extra)
        except SheepsheadError as rejected:  # the engine's verdict, passed on as it is
            reply = m.error(req.id, rejected.code, rejected.message)
        except Exception:
            log.exception("conn %d: %s request failed", self.number, type(req).__name__)
            reply = m.error(req.id, errors.INTERNAL_ERROR, "The server failed on that request")
        held, self._held = self._held, None
        if reply is not None:
            self.send(reply)
        for frame in held or ():
            self.send_encoded(frame)

    def _dispatch(self, req: Request) -> m.Reply | None:
        handler = _HANDLERS.get(type(req))
        if handler is None:  # pragma: no cover - parse_request only makes handled types
            raise RequestError(errors.UNKNOWN_TYPE, "unhandled request")
        return handler(self, req)

    # ------------------------------------------------------------------ handlers

    def _hello(self, req: Hello) -> m.Welcome:
        # A second hello never gets here: _request refuses it before parsing.
        name = req.name
        if req.kind == "human" and is_bot_name(name):
            # A person called Gus is numbered as at a table ("Gus 2"), so nobody passes for a
            # server bot: refused, a club's Lena could not play at all (an SSH key whose user
            # was lena had its session closed on "'lena' is a server bot's name").
            name = distinct_name(name, ())
        self.greeted = True
        self.name = self.hello_name = name
        self.kind = req.kind
        self.client = req.client
        log.info(
            "conn %d %s: hello name=%r kind=%s client=%r resume=%s",
            self.number,
            self.address,
            req.name,
            req.kind,
            req.client,
            req.token is not None,
        )
        if req.player_key is not None:
            self.identity = self.server.players.greeted(req.player_key, name)
        found = self.server.lobby.take_back(req.token) if req.token else None
        if found is not None:
            table, seat = found
            self.name = table.seats[seat].name or req.name
            self.server.players.seated(self, table.seats[seat].token_hash)
            table.resume(self, seat)  # its snapshot is held until the welcome is queued
        elif req.token:
            self.send(m.error(None, errors.BAD_TOKEN, "That seat token is not valid; join a table"))
        return m.welcome(
            req.id,
            server=self.server.server_name,
            name=self.name,
            table=found[0].id if found else None,
            seat=found[1] if found else None,
        )

    def _list(self, req: ListTables) -> m.TableList:
        tables, truncated = self.server.lobby.list_tables(self.identity)
        return m.table_list(req.id, tables=tables, truncated=truncated)

    def _not_seated(self) -> None:
        if self.table is not None and self.seat is not None:
            raise RequestError(
                errors.ALREADY_SEATED,
                f"You sit at table {self.table.id} (seat {self.seat}); leave first",
            )

    def _stop_watching(self, unless: Table | None = None) -> None:
        # Only once the new request has passed every check: a refusal changes nothing.
        if self.table is not None and self.table is not unless:
            self.table.leave(self)

    def _create(self, req: CreateTable) -> m.TableCreated:
        self._not_seated()
        if req.password is not None:
            self._password_attempt()
        config = self.server.lobby.table_config(self, req, self.address)
        self._stop_watching()
        self._take_name(None)
        table, token = self.server.lobby.create_table(self, config, self.address)
        self.server.players.seated_with(self, token)
        return m.table_created(req.id, table=table.id, seat=0, token=token)

    def _join(self, req: Join) -> m.Joined:
        table = self.server.lobby.find(req.table)
        self._not_seated()
        if table.has_password:
            self._password_attempt()
        seat = table.check_join(req.seat, req.password, self.identity)
        self._stop_watching(unless=table)
        if seat == table.away_seat(self.identity):  # their own seat, token lost: a reconnect
            self.name = table.seats[seat].name or self.hello_name
            token = table.reclaim(self, seat)
        else:
            self._take_name(table)
            token = table.join(self, seat)
        self.server.players.seated_with(self, token)
        return m.joined(req.id, table=table.id, seat=seat, token=token, name=self.name)

    def _watch(self, req: Watch) -> m.Watching:
        table = self.server.lobby.find(req.table)
        self._not_seated()
        table.check_watch(self)  # before the password: a full table costs no scrypt check
        if table.has_password:  # spectators read the table's chat: the same password
            self._password_attempt()
            table.check_password(req.password)
        self._stop_watching(unless=table)
        self._take_name(table)
        table.watch(self)
        return m.watching(req.id, table=table.id, name=self.name)

    def _take_name(self, table: Table | None) -> None:
        """Show the hello's name at ``table``, numbered if somebody there already has it."""
        self.name = self.hello_name
        if table is not None:
            seated = (s.name for s in table.seats if s.peer is not self)
            watching = (p.name for p in table.spectators if p is not self)
            self.name = distinct_name(self.hello_name, names_at(seated, watching))

    def _password_attempt(self) -> None:
        """Take one password check from the address's allowance (each costs an scrypt hash)."""
        if not self.allowance.passwords.take(self.server.lobby.now()):
            raise RequestError(errors.RATE_LIMITED, "Too many password attempts; wait a moment")

    def _leave(self, req: Leave) -> m.OkReply:
        if self.table is None:
            raise RequestError(errors.NOT_SEATED, "You are not at a table")
        self.table.leave(self)
        return m.ok(req.id)

    def _table(self) -> Table:
        if self.table is None:
            raise RequestError(errors.NOT_SEATED, "You are not at a table")
        return self.table

    def _add_bot(self, req: AddBot) -> m.BotAdded:
        seat = self._table().add_bot(self, req.seat, req.strategy)
        return m.bot_added(req.id, seat=seat)

    def _remove_bot(self, req: RemoveBot) -> m.OkReply:
        self._table().remove_bot(self, req.seat)
        return m.ok(req.id)

    def _start(self, req: Start) -> m.OkReply:
        self._table().start(self)
        return m.ok(req.id)

    def _end(self, req: EndMatch) -> m.OkReply:
        self._table().end_match(self)
        return m.ok(req.id)

    def _action(self, req: TakeAction) -> m.OkReply:
        if self.table is None or self.seat is None:
            raise RequestError(errors.NOT_SEATED, "You are not seated at a table")
        self.table.act(self, req.seq, req.action)
        return m.ok(req.id)

    def _chat(self, req: ChatRequest) -> m.OkReply:
        self._table().chat(self, req.text)
        return m.ok(req.id)

    def _history(self, req: History) -> m.HistoryPage:
        table = self.server.lobby.find(req.table) if req.table is not None else self._table()
        if self.table is not table:
            raise RequestError(errors.NOT_SEATED, f"You neither sit at nor watch table {table.id}")
        if not self.history_bucket.take(self.server.lobby.now()):
            raise RequestError(errors.RATE_LIMITED, "Too many history requests; wait a moment")
        return m.history_page(req.id, **table.history_reply(req.start, req.match))

    def _rematch(self, req: Rematch) -> m.OkReply:
        self._table().rematch(self)
        return m.ok(req.id)

    def _client_seed(self, req: ClientSeed) -> m.OkReply:
        self._table().offer_seed(self, req.commitment, req.seed)
        return m.ok(req.id)

    def _ping(self, req: Ping) -> m.OkReply:
        return m.ok(req.id)

    def _standings(self, req: Standings) -> None:
        if not self.standings_bucket.take(self.server.lobby.now()):
            raise RequestError(errors.RATE_LIMITED, "Too many standings requests; wait a moment")
        # Answered from a task: catching up on a long history yields to the tables meanwhile.
        self.server.players.answer_standings(self, req.id, req.since)

    def _local_only(self, kind: str) -> None:
        """Refuse a request of the doors' (``kind``) on a connection that did not come through
        the local socket: it tells about other players' seats and tags their standings."""
        if not self.local:
            raise RequestError(
                errors.LOCAL_ONLY,
                f"{kind} is for the doors, on the server's local socket; not over the network",
            )

    def _door_seat(self, req: DoorSeat) -> m.DoorSeatReply:
        self._local_only("door_seat")
        return m.door_seat(req.id, seats=held_seats(self.server.lobby, req.tokens))

    def _door_player(self, req: DoorPlayer) -> m.DoorPlayerReply:
        self._local_only("door_player")
        known = self.server.players.door_player(req.player_key, req.fingerprint, req.name)
        return m.door_player(req.id, known=known)

    # ------------------------------------------------------------------ end

    def lost(self) -> None:
        """The socket is gone: let the table know (the seat stays reserved for its token)."""
        self.closing = True
        table = self.table
        if table is not None:
            try:
                table.detach(self)
            except Exception:
                log.exception("conn %d: detaching from table %s failed", self.number, table.id)


def held_seats(lobby: Lobby, tokens: Iterable[str]) -> list[m.HeldSeat | None]:
    """For each of ``tokens``, the seat it names if that seat's connection is up (another
    window of the player has it: a door asks before a new window takes it over), with the
    process at the other end of that connection (:func:`peer_pid`); else None (an unknown
    token, a closed table, a seat that is away). The doors ask this of a server in their
    process directly, of one in another over its local socket (``door_seat``)."""
    seats: list[m.HeldSeat | None] = []
    for token in tokens:
        found = lobby.take_back(token) if token else None
        peer = found[0].seats[found[1]].peer if found is not None else None
        if found is None or peer is None:
            seats.append(None)
            continue
        table, seat = found
        pid = peer_pid(getattr(peer, "transport", None))
        seats.append({"table": table.id, "name": table.config.name, "seat": seat, "pid": pid})
    return seats


def peer_pid(transport: object) -> int | None:
    """The process at the other end of a local-socket connection's ``transport`` (its
    ``SO_PEERCRED``), or None (another kind of connection, or none)."""
    option = getattr(sockets, "SO_PEERCRED", None)
    get = getattr(transport, "get_extra_info", None)
    endpoint = get("socket") if get is not None else None
    if option is None or endpoint is None or endpoint.family != sockets.AF_UNIX:
        return None
    try:
        credentials = endpoint.getsockopt(sockets.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    pid: int = struct.unpack("3i", credentials)[0]
    return pid


def _id_of(item: object) -> int | None:
    if isinstance(item, dict):
        value = item.get("id")
        if type(value) is int:
            return value
    return None


_HANDLERS: dict[type, Callable[[Connection, Any], m.Reply | None]] = {
    Hello: Connection._hello,
    ListTables: Connection._list,
    CreateTable: Connection._create,
    Join: Connection._join,
    Watch: Connection._watch,
    Leave: Connection._leave,
    AddBot: Connection._add_bot,
    RemoveBot: Connection._remove_bot,
    Start: Connection._start,
    EndMatch: Connection._end,
    TakeAction: Connection._action,
    ChatRequest: Connection._chat,
    History: Connection._history,
    Rematch: Connection._rematch,
    ClientSeed: Connection._client_seed,
    Ping: Connection._ping,
    Standings: Connection._standings,
    requests.Hint: hints.ask,
    requests.Review: hints.review,
    DoorSeat: Connection._door_seat,
    DoorPlayer: Connection._door_player,
}
