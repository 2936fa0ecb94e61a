"""The authoritative asyncio server: listening, connection limits, the outbox, shutdown.

Embedding it::

    server = Server(ServerConfig(host="127.0.0.1", port=0, db_path=None))
    await server.start()      # binds; server.port is the real port; unfinished tables are back
    ...
    await server.stop()       # notifies clients (server_shutdown), flushes the store

Outgoing messages are not written as they are produced: they go to an outbox that is flushed
once per event-loop iteration, and the flush commits the database first. That is the group
commit that makes every action durable before anybody hears of it, at the price of one commit
per batch rather than one per message.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import logging
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, cast

from protocol import errors
from protocol import events as m
from protocol.framing import encode
from protocol.version import PROTOCOL_VERSION
from server.config import ServerConfig as ServerConfig  # re-exported: embedders import it here
from server.config import host_can_raise
from server.net.connection import Connection, held_seats
from server.net.limits import AddressAllowance, address_meter, client_address
from server.storage.standings import Players
from server.storage.store import Store
from server.tables.lobby import Lobby

log = logging.getLogger("sheepshead.server")

LINGER = 2.0
"""Seconds a closing connection may keep sending (ignored) before it is cut off."""

SWEEP_SLICE = 500
"""Connections the sweeper checks before it lets the event loop run again."""

RECEIVE_BUFFER = 65536
"""Bytes read from a socket at a time (one buffer serves every connection)."""

LOCAL = "local"
"""The address of connections through the doors' Unix socket (``Server.open_local_socket``)."""

BACKLOG = 64 * 1024
"""Unsent bytes after a write past which a connection is counted against
``ServerConfig.max_send_buffers_total`` (below it, the kernel's buffer is still taking
everything)."""

REFUSED_LINGER = 0.5
"""Seconds a refused connection has to read its error before it is cut off."""

BATCH_SECONDS = 0.005
"""Longest a queued frame waits for the rest of an event-loop pass before the batch is flushed.

Under overload one pass handles many connections' requests; without a bound, the first reply of
the pass would wait for the whole pass (and its latency grow with the load)."""

BATCH_CHECK = 32
"""Queued frames between two looks at the clock (cheaper than one look per frame)."""


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sheepshead")
    except Exception:  # running from a source tree without metadata
        return "0"


class Server:
    """A sheepshead server; see the module docstring."""

    def __init__(self, config: ServerConfig | None = None, **overrides: Any) -> None:
        base = config or ServerConfig()
        if overrides:
            known = {f.name for f in fields(ServerConfig)}
            unknown = set(overrides) - known
            if unknown:
                raise TypeError(f"unknown ServerConfig fields: {', '.join(sorted(unknown))}")
            base = ServerConfig(
                **{**{f.name: getattr(base, f.name) for f in fields(base)}, **overrides}
            )
        self.config = base
        self.server_name = f"sheepshead/{_version()}"
        self.host = base.host
        self.port = base.port
        self.store: Store | None = None
        self._lobby: Lobby | None = None
        self._players: Players | None = None
        self.connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._allowances: dict[str, AddressAllowance] = {}
        self._local_numbers = itertools.count(1)
        """Numbers the doors' sessions (:meth:`_opened`): an ``id()`` of the transport is
        reused once it is freed, and a new session then inherited a closed one's allowances."""
        self._refused = 0
        self._refusal_logged = -1.0
        self._numbers = 0
        self._listener: asyncio.Server | None = None
        self._local_listeners: list[asyncio.AbstractServer] = []
        self._sweeper: asyncio.Task[None] | None = None
        self._collector: asyncio.Task[None] | None = None
        self._dirty: list[Connection] = []
        """Connections with frames queued since the last flush, in the order they got them."""
        self._backlogged: set[Connection] = set()
        """Connections that had more than :data:`BACKLOG` bytes unsent after a write (the
        sweep adds them up against ``max_send_buffers_total``)."""
        self._queued = 0
        self._flush_handle: asyncio.Handle | None = None
        self._batch_start = 0.0
        self._all_closed: asyncio.Event | None = None
        self._receive_buffer = memoryview(bytearray(RECEIVE_BUFFER))
        self._stopping = False
        self.restored = 0

    @property
    def lobby(self) -> Lobby:
        """The tables (available once started)."""
        if self._lobby is None:
            raise RuntimeError("the server has not been started")
        return self._lobby

    @property
    def players(self) -> Players:
        """Identities and standings (available once started)."""
        if self._players is None:
            raise RuntimeError("the server has not been started")
        return self._players

    async def held_seats(self, tokens: Sequence[str]) -> list[m.HeldSeat | None]:
        """For the doors in this process (``server.doors.kit.DoorServer``): for each of
        ``tokens``, the seat it names if its connection is up (what ``door_seat`` answers the
        doors of another process)."""
        return held_seats(self.lobby, tokens)

    async def door_player(self, player_key: str, fingerprint: str, name: str) -> bool:
        """For the SSH door in this process: tag a known ``player_key`` with the SSH key's
        ``fingerprint`` (what ``door_player`` does for the doors of another process)."""
        return self.players.door_player(player_key, fingerprint, name)

    @property
    def db_path(self) -> str | None:
        """The database file (None: in memory)."""
        return None if self.config.db_path is None else os.fspath(self.config.db_path)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Open the database, restore unfinished tables, and start listening."""
        config = self.config
        if config.gc_thresholds is not None:
            gc.collect()
            gc.freeze()
            gc.set_threshold(*config.gc_thresholds)
        self.store = Store(config.db_path, synchronous=config.db_synchronous)
        self.store.on_write = self._schedule_flush
        self._lobby = Lobby(config, self.store, meter=address_meter)
        self._players = Players(self.store, max_frame=config.max_frame)
        self.restored = self._lobby.restore()
        self._lobby.store_seqs()
        self.store.commit()
        try:
            loop = asyncio.get_running_loop()
            self._listener = await loop.create_server(
                lambda: _ServerProtocol(self), config.host, config.port
            )
        except OSError:
            self._lobby.shutdown()
            self.store.close()
            self.store = None
            raise
        sockets = self._listener.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._sweeper = asyncio.create_task(self._sweep())
        if config.gc_thresholds is not None and config.gc_young_every is not None:
            self._collector = asyncio.create_task(self._collect(config.gc_young_every))
        log.info(
            "listening on %s:%d (protocol %d, database %s, %d table(s) restored)",
            config.host,
            self.port,
            PROTOCOL_VERSION,
            self.db_path or ":memory:",
            self.restored,
        )

    async def open_local_socket(self, path: str) -> None:
        """Also listen on the Unix socket ``path``: the SSH and browser doors start their
        clients on it, so that their players are not all counted as one local address.

        The socket is only for this server's user (0600): whoever dials it is a door session,
        which no per-address limit of the TCP port meters. It is made so (the umask), not
        changed after: another user could otherwise connect between the bind and a chmod.
        A stale socket left at ``path`` (a server that was killed) is replaced."""
        loop = asyncio.get_running_loop()
        umask = os.umask(0o177)
        try:
            listener = await loop.create_unix_server(
                lambda: _ServerProtocol(self, local=True), path
            )
        finally:
            os.umask(umask)
        os.chmod(path, 0o600)
        self._local_listeners.append(listener)

    async def stop(self) -> None:
        """Clean shutdown: tell every client, stop the tables, flush and close the database."""
        if self._stopping:
            return
        self._stopping = True
        log.info("shutting down (%d connection(s))", len(self.connections))
        if self._listener is not None:
            self._listener.close()
        for listener in self._local_listeners:
            listener.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._collector is not None:
            self._collector.cancel()
        if self._lobby is not None:
            self._lobby.shutdown()
            await self._lobby.bots.close()
        for conn in list(self.connections):
            conn.close(errors.SERVER_SHUTDOWN, "The server is shutting down; reconnect later")
        self._flush()
        if self.connections:
            # Give clients a moment to read the notice and close their end, then cut the rest.
            self._all_closed = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_closed.wait(), 1.0)
            for conn in list(self.connections):
                conn.transport.abort()
            await asyncio.sleep(0)  # let connection_lost run for the aborted ones
        if self._listener is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._listener.wait_closed(), 1.0)
        if self._players is not None:
            self._players.close()
        if self.store is not None:
            self._flush()
            self.store.close()
            self.store = None
        log.info("stopped")

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ outbox

    def queue(self, conn: Connection, frame: bytes) -> None:
        """Queue a frame for ``conn``; it is written after the next commit.

        That is at the end of this event-loop pass, or sooner once the batch is
        :data:`BATCH_SECONDS` old: the flush commits every write made so far, so whatever was
        queued is still durable before it is sent.
        """
        self._enlist(conn)
        conn.outbox.append(frame)
        self._queued += 1
        if self._flush_handle is None:
            self._schedule_flush()
        elif (
            self._queued % BATCH_CHECK == 0 and time.monotonic() - self._batch_start > BATCH_SECONDS
        ):
            self._flush()

    def queue_close(self, conn: Connection) -> None:
        """Close ``conn`` once the frames queued for it so far are written."""
        conn.close_deadline = time.monotonic() + LINGER
        self._enlist(conn)
        conn.close_after_flush = True
        self._schedule_flush()

    def _enlist(self, conn: Connection) -> None:
        """Put ``conn`` in the next flush's batch, once."""
        if not conn.outbox and not conn.close_after_flush:
            self._dirty.append(conn)

    def _schedule_flush(self) -> None:
        if self._flush_handle is None:
            self._batch_start = time.monotonic()
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self.store is not None:
            try:
                if self._lobby is not None:
                    self._lobby.store_seqs()
                self.store.commit()
            except Exception:
                log.exception("database commit failed")
        dirty, self._dirty = self._dirty, []
        self._queued = 0
        for conn in dirty:
            # The same list again: a new one per connection per flush would live until that
            # connection's next flush, long enough for the garbage collector to promote it.
            frames = conn.outbox
            self._write(conn, frames)
            frames.clear()

    def _write(self, conn: Connection, frames: list[bytes]) -> None:
        transport = conn.transport
        if transport.is_closing():
            return
        try:
            # A single frame is passed on as it is, uncopied. Past max_send_buffer unsent bytes
            # the transport calls pause_writing, which cuts the connection off (_too_slow).
            transport.write(b"".join(frames))
            if transport.get_write_buffer_size() > BACKLOG:
                self._backlogged.add(conn)
            if conn.close_after_flush:
                conn.close_after_flush = False
                if transport.can_write_eof():
                    transport.write_eof()
                else:
                    transport.close()
        except (OSError, RuntimeError) as exc:
            log.info("conn %d: write failed (%s)", conn.number, exc)
            transport.abort()

    # ------------------------------------------------------------------ connections

    def allowance(self, address: str, now: float) -> AddressAllowance:
        """The byte and password allowance of ``address`` (shared by its connections)."""
        found = self._allowances.get(address)
        if found is None:
            found = self._allowances[address] = AddressAllowance(self.config, now)
        return found

    def _forget_allowances(self, now: float) -> None:
        """Drop the allowances of addresses with no connection left and nothing owed."""
        for address, allowance in list(self._allowances.items()):
            if address not in self._per_address and allowance.full(now):
                del self._allowances[address]

    def _opened(self, transport: asyncio.Transport, local: bool = False) -> Connection | None:
        """A new connection: a :class:`Connection`, or None when it is refused.

        ``local``: it came through the doors' Unix socket (:meth:`open_local_socket`), whose
        sessions the doors count per address themselves.
        """
        # Every door session comes from the one Unix socket: each gets an address of its own,
        # so the per-address allowances meter a session, not all door players together (the
        # doors limit sessions per remote address themselves).
        peer = transport.get_extra_info("peername")
        address = f"{LOCAL}#{next(self._local_numbers)}" if local else client_address(peer)
        config = self.config
        if self._stopping:
            transport.abort()
            return None
        refusal = None
        if len(self.connections) >= config.max_connections:
            refusal = f"The server has too many connections ({config.max_connections}): try later. "
            refusal += host_can_raise("max_connections")
        elif not local and self._per_address[address] >= config.max_per_address:
            refusal = f"Too many connections from your address ({config.max_per_address} open). "
            refusal += host_can_raise("max_per_address")
        elif not local and not self.allowance(address, time.monotonic()).connections.take(
            time.monotonic()
        ):
            refusal = "Too many new connections from your address: wait a few seconds. "
            refusal += host_can_raise("connection_burst")
        if refusal is not None:
            self.log_refusal(address)
            try:
                # Nothing it sends is read: a refused client costs no more than its accept.
                transport.pause_reading()
                transport.write(encode(m.error(None, errors.TOO_MANY_CONNECTIONS, refusal)))
                # Half-close and let the client read the error; cut it off if it lingers.
                if transport.can_write_eof():
                    transport.write_eof()
                asyncio.get_running_loop().call_later(REFUSED_LINGER, transport.abort)
            except (OSError, RuntimeError):
                transport.abort()
            return None
        self._numbers += 1
        # The transport tells the protocol (pause_writing) once more than this is waiting to
        # be sent: a client that does not read is cut off then, not checked after every write.
        transport.set_write_buffer_limits(high=config.max_send_buffer)
        conn = Connection(self, self._numbers, transport, address, local=local)
        self.connections.add(conn)
        self._per_address[address] += 1
        log.info("conn %d: opened from %s:%s", conn.number, address, _port_of(peer))
        return conn

    def log_refusal(self, address: str, why: str = "too many connections") -> None:
        """Log refused connections (the doors' too), at most one line a second: a flood of
        them would otherwise cost a write to the log each."""
        self._refused += 1
        now = time.monotonic()
        if now - self._refusal_logged >= 1.0:
            log.warning(
                "refused %d connection(s) (the last from %s): %s", self._refused, address, why
            )
            self._refused = 0
            self._refusal_logged = now

    def _too_slow(self, conn: Connection, why: str = "not reading") -> None:
        """``conn`` has more than ``max_send_buffer`` bytes waiting (or, with ``why``, the
        deaf connections together too many): it is cut off, with no message (it would not be
        read)."""
        if conn.closing and conn.transport.is_closing():
            return
        log.warning("conn %d %s: %s; cut off", conn.number, conn.name, why)
        conn.closing = True
        conn.transport.abort()

    def _received(self, conn: Connection, data: bytes | memoryview) -> None:
        if conn.closing:
            return  # lingering: drain and ignore until the client closes
        try:
            for item in conn.decoder.split(data):
                conn.receive_payload(item)
                if conn.closing:
                    break
        except Exception:
            log.exception("conn %d: reader failed", conn.number)
            conn.lost_reason = "internal error"
            conn.transport.abort()

    def _closed(self, conn: Connection, exc: Exception | None) -> None:
        reason = conn.lost_reason
        if reason is None:
            if exc is not None:
                reason = f"connection error ({type(exc).__name__})"
            elif conn.closing:
                reason = "closed by the server"
            else:
                reason = "closed by the client"
        try:
            conn.lost()
        finally:
            self.connections.discard(conn)
            self._backlogged.discard(conn)
            address = conn.address
            self._per_address[address] -= 1
            if self._per_address[address] <= 0:
                del self._per_address[address]
            log.info("conn %d %s: %s", conn.number, conn.name, reason)
            if not self.connections and self._all_closed is not None:
                self._all_closed.set()

    async def _collect(self, every: float) -> None:
        """Young and middle collections on a clock (see ``ServerConfig.gc_young_every``)."""
        while True:
            await asyncio.sleep(every)
            gc.collect(1)

    async def _sweep(self) -> None:
        config = self.config
        lobby_every = min(10.0, max(0.05, config.waiting_expiry / 4))
        tick = max(
            0.05,
            min(
                1.0,
                config.handshake_timeout / 4,
                config.ping_interval / 4,
                config.idle_timeout / 8,
                lobby_every,
            ),
        )
        last_lobby_sweep = time.monotonic()
        while True:
            await asyncio.sleep(tick)
            try:
                now = time.monotonic()
                everyone = list(self.connections)
                for start in range(0, len(everyone), SWEEP_SLICE):
                    if start:
                        # Let the tables run between slices: every connection's check in one go
                        # would hold every table up once a tick (docs/performance.md).
                        await asyncio.sleep(0)
                        now = time.monotonic()
                    for conn in everyone[start : start + SWEEP_SLICE]:
                        self._check(conn, now)
                if self._backlogged:
                    self._cut_backlogs()
                if now - last_lobby_sweep > lobby_every:
                    last_lobby_sweep = now
                    self.lobby.sweep()
                    self._forget_allowances(now)
            except Exception:
                log.exception("sweeper failed")

    def _cut_backlogs(self) -> None:
        """Cut off the connections with the most unsent bytes while all of them together hold
        more than ``max_send_buffers_total``."""
        queued = {
            conn: conn.transport.get_write_buffer_size()
            for conn in self._backlogged
            if not conn.transport.is_closing()
        }
        self._backlogged = {conn for conn, size in queued.items() if size > BACKLOG}
        total = sum(queued.values())
        for conn in sorted(self._backlogged, key=queued.__getitem__, reverse=True):
            if total <= self.config.max_send_buffers_total:
                break
            why = f"{queued[conn]} bytes unsent while all clients' come to {total}"
            total -= queued[conn]
            self._backlogged.discard(conn)
            self._too_slow(conn, why)

    def _check(self, conn: Connection, now: float) -> None:
        config = self.config
        if conn.closing:
            if conn.close_deadline is not None and now > conn.close_deadline:
                conn.transport.abort()
            return
        if not conn.greeted and now - conn.opened > config.handshake_timeout:
            conn.close(errors.HANDSHAKE_TIMEOUT, "No hello arrived in time")
            return
        idle = now - conn.last_received
        if idle > config.idle_timeout:
            conn.close(errors.IDLE_TIMEOUT, "Nothing received for too long")
        elif idle > config.ping_interval and not conn.pinged:
            conn.pinged = True
            conn.send(m.ping())


class _ServerProtocol(asyncio.BufferedProtocol):
    """The transport callbacks of one TCP connection, passed on to the server.

    A protocol rather than streams: bytes reach the decoder straight from the event loop's
    read callback, with no reader task to wake per message. A buffered one, reading into the
    server's one receive buffer: a plain protocol has the loop allocate (and the kernel map and
    unmap) a fresh 256 KiB buffer for every read.
    """

    __slots__ = ("conn", "local", "server", "transport")

    def __init__(self, server: Server, local: bool = False) -> None:
        self.server = server
        self.local = local
        self.conn: Connection | None = None
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Register the connection (or refuse it)."""
        self.transport = transport
        self.conn = self.server._opened(cast(asyncio.Transport, transport), self.local)

    def get_buffer(self, sizehint: int) -> memoryview:
        """The server's receive buffer (each read is handled before the next one starts)."""
        return self.server._receive_buffer

    def buffer_updated(self, nbytes: int) -> None:
        """Decode and handle whatever frames the bytes just read complete."""
        if self.conn is not None:
            self.server._received(self.conn, self.server._receive_buffer[:nbytes])

    def pause_writing(self) -> None:
        """The send buffer is over ``max_send_buffer``: the client is not reading."""
        if self.conn is not None:
            self.server._too_slow(self.conn)

    def eof_received(self) -> bool:
        """The client closed its end: close ours too."""
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """Let the table know and forget the connection."""
        conn, self.conn = self.conn, None
        transport, self.transport = self.transport, None
        try:
            if conn is not None:
                self.server._closed(conn, exc)
        finally:
            release_transport(transport)


def release_transport(transport: asyncio.BaseTransport | None) -> None:
    """Break the reference cycle a closed asyncio socket transport keeps, so that it (and its
    socket) is freed now rather than at the next full collection.

    CPython's selector transport stores a bound method of itself (``_read_ready_cb``). With the
    server's collector settings a full collection can be half an hour away, and a client that
    connects and is cut off a few thousand times a second left some 5 MB a second behind
    (``bench/attack.py``, "all at once"). The reader is gone by the time the protocol hears of
    the loss, so nothing calls the method again.
    """
    if transport is not None and getattr(transport, "_read_ready_cb", None) is not None:
        transport._read_ready_cb = None  # type: ignore[attr-defined]


def _port_of(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) > 1:
        return str(peer[1])
    return "?"
