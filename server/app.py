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
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any, cast

from protocol import messages as m
from protocol.framing import MAX_FRAME_DEFAULT, encode
from protocol.version import PROTOCOL_VERSION
from server.connection import Connection
from server.lobby import Lobby
from server.store import Store

log = logging.getLogger("sheepshead.server")

LINGER = 2.0
"""Seconds a closing connection may keep sending (ignored) before it is cut off."""

SWEEP_SLICE = 500
"""Connections the sweeper checks before it lets the event loop run again."""

RECEIVE_BUFFER = 65536
"""Bytes read from a socket at a time (one buffer serves every connection)."""

REFUSED_LINGER = 0.5
"""Seconds a refused connection has to read its error before it is cut off."""

BATCH_SECONDS = 0.005
"""Longest a queued frame waits for the rest of an event-loop pass before the batch is flushed.

Under overload one pass handles many connections' requests; without a bound, the first reply of
the pass would wait for the whole pass (and its latency grow with the load)."""

BATCH_CHECK = 32
"""Queued frames between two looks at the clock (cheaper than one look per frame)."""


@dataclass(frozen=True)
class ServerConfig:
    """Everything a server can be told; every limit has a safe default."""

    host: str = "127.0.0.1"
    """Address to listen on (``0.0.0.0``: every IPv4 interface)."""
    port: int = 7453
    """TCP port (0: any free port; ``Server.port`` tells which)."""
    db_path: str | os.PathLike[str] | None = None
    """SQLite file; None keeps everything in memory (lost at exit)."""
    bot_delay: float = 0.0
    """Seconds a server bot waits before acting, so people can follow."""
    default_bot: str | None = None
    """Strategy for bots added without one and for stand-ins (None: heuristic, else random)."""
    hand_pause: float = 2.0
    """Seconds between the end of a hand and the next deal."""
    grace: float = 60.0
    """Default seconds a disconnected player's seat waits before a bot plays it."""
    max_frame: int = MAX_FRAME_DEFAULT
    """Largest frame accepted (bigger: frame_too_large, then the connection is closed)."""
    handshake_timeout: float = 10.0
    """Seconds a new connection has to send hello."""
    ping_interval: float = 30.0
    """Seconds without any frame after which the server sends ping."""
    idle_timeout: float = 60.0
    """Seconds without any frame after which the connection is closed."""
    rate: float = 20.0
    """Messages per second a connection may send on average."""
    burst: float = 40.0
    """Messages a connection may send at once (the token bucket's size)."""
    chat_rate: float = 1.0
    """Chat lines per second a connection may send on average."""
    chat_burst: float = 5.0
    """Chat lines a connection may send at once."""
    max_connections: int = 1000
    """Connections open at once, in total."""
    max_per_address: int = 16
    """Connections open at once from one IP address."""
    max_tables: int = 500
    """Tables open at once."""
    max_send_buffer: int = 1 << 20
    """Bytes queued for a client that does not read before it is cut off."""
    bot_timeout: float = 10.0
    """Seconds a strategy may think before the first legal action is played instead."""
    bot_think_time: float = 0.5
    """Seconds a thinking bot (``search``) spends on one decision at most: past it, it stops
    sampling and decides with what it has."""
    abandon_after: float = 3600.0
    """Seconds a table with nobody connected is kept before it is closed."""
    db_synchronous: str = "NORMAL"
    """SQLite synchronous mode: NORMAL survives a killed process, FULL also a power cut."""
    gc_thresholds: tuple[int, int, int] | None = (2000, 3, 4000)
    """``gc.set_threshold`` for the process, set at start (None: leave the interpreter's).

    A pause stops every table at once and lasts about 1 µs per object the collection walks.
    With CPython's defaults (700, 10, 10) a server with 2,000 tables ran a full collection (all
    250,000 tracked objects, 90 ms) about once a second. The tables keep almost nothing per
    action that the collector tracks, so a young collection (see also ``gc_young_every``)
    walks a few thousand objects for 1-3 ms, and a full one comes after at least 4,000 middle
    ones (half an hour at two a second). That one still walks everything: closed
    connections leave reference cycles inside asyncio's transports, which only it frees. The
    objects alive at start are frozen (``gc.freeze``) so that no collection walks them."""
    gc_young_every: float | None = 0.5
    """Seconds between the collections the server runs itself (None: only the thresholds'
    own), each of the young and the middle generation; only with ``gc_thresholds``.

    CPython starts a young collection when allocations minus deallocations pass the first
    threshold. When a table deals a new hand, the old hand it frees cancels the new one it
    makes, so the count stands still while the young generation grows: at 2,000 tables, a
    wave of new hands left 80,000 objects for one 49 ms collection. On a clock, no collection
    walks more than half a second's worth. Each one takes the middle generation too, so that
    what survives goes on to the old one at once, instead of piling up in the middle one for
    a longer pause: measured with ``bench/table.py`` at 2,000 tables, the longest pause went
    from 12-13 ms (the middle one every fourth round) to 4.5-5 ms, in about the same time in
    all."""


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
        self.connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._numbers = 0
        self._listener: asyncio.Server | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._collector: asyncio.Task[None] | None = None
        self._dirty: list[Connection] = []
        """Connections with frames queued since the last flush, in the order they got them."""
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
        self._lobby = Lobby(config, self.store)
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

    async def stop(self) -> None:
        """Clean shutdown: tell every client, stop the tables, flush and close the database."""
        if self._stopping:
            return
        self._stopping = True
        log.info("shutting down (%d connection(s))", len(self.connections))
        if self._listener is not None:
            self._listener.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._collector is not None:
            self._collector.cancel()
        if self._lobby is not None:
            self._lobby.shutdown()
        for conn in list(self.connections):
            conn.close(m.SERVER_SHUTDOWN, "The server is shutting down; reconnect later")
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

    def _opened(self, transport: asyncio.Transport) -> Connection | None:
        """A new TCP connection: a :class:`Connection`, or None when it is refused."""
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        config = self.config
        if self._stopping:
            transport.abort()
            return None
        if (
            len(self.connections) >= config.max_connections
            or self._per_address[address] >= config.max_per_address
        ):
            log.warning("refused a connection from %s: too many connections", address)
            try:
                transport.write(
                    encode(m.error(None, m.TOO_MANY_CONNECTIONS, "Too many connections; try later"))
                )
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
        conn = Connection(self, self._numbers, transport, address)
        self.connections.add(conn)
        self._per_address[address] += 1
        log.info("conn %d: opened from %s:%s", conn.number, address, _port_of(peer))
        return conn

    def _too_slow(self, conn: Connection) -> None:
        """``conn`` has more than ``max_send_buffer`` bytes waiting: it is not reading."""
        if conn.closing and conn.transport.is_closing():
            return
        log.warning("conn %d %s: not reading; cut off", conn.number, conn.name)
        conn.closing = True
        conn.transport.abort()

    def _received(self, conn: Connection, data: bytes | memoryview) -> None:
        if conn.closing:
            return  # lingering: drain and ignore until the client closes
        try:
            for item in conn.decoder.feed(data):
                conn.receive(item)
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
        tick = max(
            0.05,
            min(
                1.0, config.handshake_timeout / 4, config.ping_interval / 4, config.idle_timeout / 8
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
                        # Let the tables run between slices: ten thousand checks in one go
                        # would hold every table up for 10-15 ms once a tick.
                        await asyncio.sleep(0)
                        now = time.monotonic()
                    for conn in everyone[start : start + SWEEP_SLICE]:
                        self._check(conn, now)
                if now - last_lobby_sweep > 10.0:
                    last_lobby_sweep = now
                    self.lobby.sweep()
            except Exception:
                log.exception("sweeper failed")

    def _check(self, conn: Connection, now: float) -> None:
        config = self.config
        if conn.closing:
            if conn.close_deadline is not None and now > conn.close_deadline:
                conn.transport.abort()
            return
        if not conn.greeted and now - conn.opened > config.handshake_timeout:
            conn.close(m.HANDSHAKE_TIMEOUT, "No hello arrived in time")
            return
        idle = now - conn.last_received
        if idle > config.idle_timeout:
            conn.close(m.IDLE_TIMEOUT, "Nothing received for too long")
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

    __slots__ = ("conn", "server")

    def __init__(self, server: Server) -> None:
        self.server = server
        self.conn: Connection | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Register the connection (or refuse it)."""
        self.conn = self.server._opened(cast(asyncio.Transport, transport))

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
        if conn is not None:
            self.server._closed(conn, exc)


def _port_of(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) > 1:
        return str(peer[1])
    return "?"
