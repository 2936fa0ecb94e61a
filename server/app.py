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
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from protocol import messages as m
from protocol.framing import MAX_FRAME_DEFAULT, encode
from protocol.version import PROTOCOL_VERSION
from server.connection import Connection
from server.lobby import Lobby
from server.store import Store

log = logging.getLogger("sheepshead.server")

READ_SIZE = 65536
"""Bytes asked of the socket per read."""

LINGER = 2.0
"""Seconds a closing connection may keep sending (ignored) before it is cut off."""

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
    abandon_after: float = 3600.0
    """Seconds a table with nobody connected is kept before it is closed."""
    db_synchronous: str = "NORMAL"
    """SQLite synchronous mode: NORMAL survives a killed process, FULL also a power cut."""


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
        self._handlers: set[asyncio.Task[Any]] = set()
        self._pending: list[tuple[Connection, bytes | None]] = []
        self._flush_handle: asyncio.Handle | None = None
        self._batch_start = 0.0
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
        self.store = Store(config.db_path, synchronous=config.db_synchronous)
        self.store.on_write = self._schedule_flush
        self._lobby = Lobby(config, self.store)
        self.restored = self._lobby.restore()
        self._lobby.store_seqs()
        self.store.commit()
        try:
            self._listener = await asyncio.start_server(self._accept, config.host, config.port)
        except OSError:
            self._lobby.shutdown()
            self.store.close()
            self.store = None
            raise
        sockets = self._listener.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self._sweeper = asyncio.create_task(self._sweep())
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
        if self._lobby is not None:
            self._lobby.shutdown()
        for conn in list(self.connections):
            conn.close(m.SERVER_SHUTDOWN, "The server is shutting down; reconnect later")
        self._flush()
        if self._handlers:
            _, pending = await asyncio.wait(list(self._handlers), timeout=1.0)
            for conn in list(self.connections):
                conn.writer.transport.abort()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
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
        pending = self._pending
        pending.append((conn, frame))
        if self._flush_handle is None:
            self._schedule_flush()
        elif (
            len(pending) % BATCH_CHECK == 0 and time.monotonic() - self._batch_start > BATCH_SECONDS
        ):
            self._flush()

    def queue_close(self, conn: Connection) -> None:
        """Close ``conn`` once the frames queued for it so far are written."""
        conn.close_deadline = time.monotonic() + LINGER
        self._pending.append((conn, None))
        self._schedule_flush()

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
        pending, self._pending = self._pending, []
        batches: dict[Connection, list[bytes | None]] = {}
        for conn, frame in pending:
            batches.setdefault(conn, []).append(frame)
        for conn, frames in batches.items():
            self._write(conn, frames)

    def _write(self, conn: Connection, frames: list[bytes | None]) -> None:
        transport = conn.writer.transport
        if transport.is_closing():
            return
        close = None in frames
        data = b"".join(f for f in frames if f is not None)
        try:
            if data:
                transport.write(data)
            if transport.get_write_buffer_size() > self.config.max_send_buffer:
                log.warning("conn %d %s: not reading; cut off", conn.number, conn.name)
                conn.closing = True
                transport.abort()
                return
            if close:
                if transport.can_write_eof():
                    transport.write_eof()
                else:
                    transport.close()
        except (OSError, RuntimeError) as exc:
            log.info("conn %d: write failed (%s)", conn.number, exc)
            transport.abort()

    # ------------------------------------------------------------------ connections

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            await self._serve(reader, writer)
        finally:
            if task is not None:
                self._handlers.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        config = self.config
        if self._stopping:
            writer.transport.abort()
            return
        if (
            len(self.connections) >= config.max_connections
            or self._per_address[address] >= config.max_per_address
        ):
            log.warning("refused a connection from %s: too many connections", address)
            try:
                writer.write(
                    encode(m.error(None, m.TOO_MANY_CONNECTIONS, "Too many connections; try later"))
                )
                writer.write_eof()
                await asyncio.wait_for(reader.read(READ_SIZE), 0.5)
            except (OSError, TimeoutError, RuntimeError):
                pass
            writer.transport.abort()
            return
        self._numbers += 1
        conn = Connection(self, self._numbers, reader, writer, address)
        self.connections.add(conn)
        self._per_address[address] += 1
        log.info("conn %d: opened from %s:%s", conn.number, address, _port_of(peer))
        reason = "closed by the client"
        try:
            while True:
                data = await reader.read(READ_SIZE)
                if not data:
                    break
                if conn.closing:
                    continue  # lingering: drain and ignore until the client closes
                for item in conn.decoder.feed(data):
                    conn.receive(item)
                    if conn.closing:
                        break
        except (ConnectionError, OSError) as exc:
            reason = f"connection error ({type(exc).__name__})"
        except asyncio.CancelledError:
            reason = "cancelled"
            raise
        except Exception:
            reason = "internal error"
            log.exception("conn %d: reader failed", conn.number)
        finally:
            if conn.closing and reason == "closed by the client":
                reason = "closed by the server"
            conn.lost()
            self.connections.discard(conn)
            self._per_address[address] -= 1
            if self._per_address[address] <= 0:
                del self._per_address[address]
            if not writer.transport.is_closing():
                writer.transport.close()
            log.info("conn %d %s: %s", conn.number, conn.name, reason)

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
                for conn in list(self.connections):
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
                conn.writer.transport.abort()
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


def _port_of(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) > 1:
        return str(peer[1])
    return "?"
