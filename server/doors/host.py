"""The doors a server opens (:class:`Doors`) and the local socket their children dial.

Each door session runs the normal client, ``sheepshead join``, in a child process of the server.
The child dials the server through a Unix socket in a private temporary directory
(``Server.open_local_socket``) rather than the TCP port: every door player would otherwise be
one more connection from 127.0.0.1, and the TCP port's per-address limit would stop the
seventeenth. The doors count their own sessions per remote address instead
(``server.doors.kit.DoorGate``).

The child gets a small environment of its own, not the server's
(``server.doors.kit.child_environment``): its ``HOME`` and XDG directories are the player's
directory (the SSH door keeps one per key fingerprint beside the database, so the seat tokens
and the player key in it follow the key; a browser tab gets a throwaway one, holding the
player key derived from the browser's cookie: ``server.doors.web``).

``serve --local-socket PATH`` has the server listen on a socket the host names, and
``serve --server-socket PATH`` runs only the doors, in a process of their own whose children
dial it (:class:`RemoteServer`): when the server restarts (an upgrade, a crash), the doors and
their sessions stay; each child's client dials again with backoff, as any network client
does, and takes its seat back with its token once the server is back. What the doors need to
know of the server's tables and players (is a seat a second window would take connected; tag an
SSH player with their key's fingerprint), a :class:`RemoteServer` asks over that socket
(:func:`ask_server`, the local-only requests of PROTOCOL.md §15), where a server in this process
answers directly: both doors behave the same in both.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from protocol.framing import FrameDecoder, FrameError, encode
from protocol.requests import DOOR_TOKENS_MAX
from protocol.version import PROTOCOL_VERSION
from server.doors.kit import DoorGate, DoorServer
from server.net.limits import AddressAllowance

if TYPE_CHECKING:
    from protocol.events import HeldSeat
    from server.app import Server
    from server.config import ServerConfig
    from server.doors.ssh import SSHDoor
    from server.doors.web import WebDoor

log = logging.getLogger("sheepshead.doors")


class LocalSocket:
    """The Unix socket the doors' children dial: in a fresh private temporary directory (its
    path must stay short: at most 107 bytes)."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="sheepshead-doors-")
        self.path = os.path.join(self.directory, "server.sock")

    async def open(self, server: Server) -> None:
        """Have ``server`` listen on it."""
        await server.open_local_socket(self.path)

    def remove(self) -> None:
        """Delete the socket and its directory."""
        shutil.rmtree(self.directory, ignore_errors=True)


SERVER_WAIT: Final = 60.0
"""Seconds a session started while the server in another process is down (restarting) waits
for it before its client starts (``server.doors.child.wait_for_server``)."""

FORGET_EVERY: Final = 10.0
"""Seconds between two sweeps of a :class:`RemoteServer`'s allowances (the server's own lobby
sweep forgets its allowances at most this far apart too)."""


ASK_TIMEOUT: Final = 2.0
"""Seconds a :class:`RemoteServer` waits for the server's answer to a question of the doors
(connect, hello and the reply): past it, or with the server down, the doors go on as if the
answer were "nothing" (the new window takes the seat; the player is not tagged)."""

_HELLO: Final = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": "doors"}
_ASK_ID: Final = 2


async def ask_server(
    socket_path: str, request: Mapping[str, Any], timeout: float = ASK_TIMEOUT
) -> dict[str, Any] | None:
    """``request`` (a map without ``id``) sent to the server on its local socket
    ``socket_path`` on a connection of its own (hello, the request, close), and its ``ok``
    reply; None when the server is down, refuses it (the error is logged) or does not answer
    within ``timeout`` seconds. A connection per question: the questions come at the rate
    sessions start (``door_start_rate_total``), and one that lives no longer than its
    question has no state to keep across a server restart."""
    kind = request.get("type")
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_unix_connection(socket_path)
            writer.write(encode(_HELLO) + encode({**request, "id": _ASK_ID}))
            decoder = FrameDecoder()
            while data := await reader.read(65536):
                for item in decoder.feed(data):
                    if isinstance(item, FrameError):
                        raise ConnectionError(item.message)
                    if item.get("id") != _ASK_ID or item.get("type") not in ("ok", "error"):
                        continue
                    if item["type"] == "ok":
                        return item
                    log.warning("the server refused the doors' %s: %s", kind, item.get("code"))
                    return None
            raise ConnectionError("the server closed the connection")
    except (OSError, TimeoutError) as exc:
        log.info("the server on %s did not answer the doors' %s (%r)", socket_path, kind, exc)
        return None
    finally:
        if writer is not None:
            writer.close()


def _held_seat(held: object) -> HeldSeat | None:
    """One entry of a ``door_seat`` reply's ``seats``, if it is one (another shape: None)."""
    if not isinstance(held, dict):
        return None
    table, name, seat, pid = (held.get(k) for k in ("table", "name", "seat", "pid"))
    if type(table) is not str or type(name) is not str or type(seat) is not int:
        return None
    return {"table": table, "name": name, "seat": seat, "pid": pid if type(pid) is int else None}


class RemoteServer:
    """The server the doors let players into when it runs in another process
    (``serve --server-socket PATH``): its Unix socket, and the doors' own share of what they
    use of a :class:`server.app.Server` (:class:`server.doors.kit.DoorServer`). The limits are
    ``config``, built from the same options as ``serve``'s; the per-address allowances (door
    starts, SSH connections, web requests) are this process's own, forgotten as the server
    forgets its (:meth:`forget_allowances`). ``port`` only names the server in the players'
    seat token files (``localhost:PORT``): the same as ``serve --port`` keeps the tokens a
    player's home already holds."""

    def __init__(self, config: ServerConfig, socket_path: str, port: int) -> None:
        self.config = config
        self.socket_path = socket_path
        self.port = port
        self.ask_timeout = ASK_TIMEOUT
        """Seconds a question to the server may take (:func:`ask_server`)."""
        self._allowances: dict[str, AddressAllowance] = {}
        self._refused = 0
        self._refusal_logged = -1.0

    async def held_seats(self, tokens: Sequence[str]) -> list[HeldSeat | None]:
        """Asked of the server (``door_seat``; see :class:`server.doors.kit.DoorServer`)."""
        held: list[HeldSeat | None] = [None] * len(tokens)
        if not tokens:
            return held
        asked = {"type": "door_seat", "tokens": list(tokens[:DOOR_TOKENS_MAX])}
        reply = await ask_server(self.socket_path, asked, self.ask_timeout)
        seats = reply.get("seats") if reply is not None else None
        if isinstance(seats, list):
            for number, seat in enumerate(seats[: len(asked["tokens"])]):
                held[number] = _held_seat(seat)
        return held

    async def door_player(self, player_key: str, fingerprint: str, name: str) -> bool:
        """Told to the server (``door_player``; see :class:`server.doors.kit.DoorServer`)."""
        told = {"type": "door_player", "player_key": player_key}
        told |= {"fingerprint": fingerprint, "name": name}
        reply = await ask_server(self.socket_path, told, self.ask_timeout)
        return reply is not None and reply.get("known") is True

    def allowance(self, address: str, now: float) -> AddressAllowance:
        """The allowance of ``address`` at these doors (made full on first use)."""
        found = self._allowances.get(address)
        if found is None:
            found = self._allowances[address] = AddressAllowance(self.config, now)
        return found

    def forget_allowances(self, now: float, in_use: Container[str]) -> None:
        """Drop the allowances of addresses not ``in_use`` (no door session open) that owe
        nothing: a refill would give them the same."""
        for address, allowance in list(self._allowances.items()):
            if address not in in_use and allowance.full(now):
                del self._allowances[address]

    def log_refusal(self, address: str, why: str = "too many connections") -> None:
        """Log refusals, at most one line a second, with the count (as the server does)."""
        self._refused += 1
        now = time.monotonic()
        if now - self._refusal_logged >= 1.0:
            log.warning("refused %d (the last from %s): %s", self._refused, address, why)
            self._refused = 0
            self._refusal_logged = now


class Doors:
    """The doors a server was asked to open (``--ssh``, ``--web``), started and stopped together.

    ``server`` is the running server in this process (its children dial a private socket it
    opens), or a :class:`RemoteServer` (they dial that server's socket). ``data_dir`` holds
    the SSH host key and the players' directories (``serve`` uses the database's directory).
    """

    def __init__(
        self,
        server: Server | RemoteServer,
        data_dir: Path,
        *,
        ssh_port: int | None = None,
        ssh_keys: Path | None = None,
        web_port: int | None = None,
    ) -> None:
        self.server = server
        self.data_dir = data_dir
        self.ssh_port = ssh_port
        self.ssh_keys = ssh_keys
        self.web_port = web_port
        self.gate = DoorGate(server.config, server.allowance)
        self.socket: LocalSocket | None = None
        self.ssh: SSHDoor | None = None
        self.web: WebDoor | None = None
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self, host: str) -> None:
        """Open the local socket and every door asked for (on ``host``); on failure nothing
        stays open. Raises OSError (a port in use) or ValueError (a bad ``--ssh-keys``)."""
        if self.ssh_port is None and self.web_port is None:
            return
        server: DoorServer = self.server
        wait = 0.0
        try:
            if isinstance(self.server, RemoteServer):
                socket_path = self.server.socket_path
                wait = SERVER_WAIT
                self._sweeper = asyncio.create_task(self._forget(self.server))
            else:
                self.socket = LocalSocket()
                await self.socket.open(self.server)
                socket_path = self.socket.path
            if self.ssh_port is not None:
                with warnings.catch_warnings():
                    # asyncssh names cryptography's DSA types, which cryptography deprecates:
                    # ten lines of warnings on every start, about a key type the door never
                    # offers (its host key is ed25519).
                    warnings.filterwarnings("ignore", message="DSA is deprecated")
                    from server.doors.ssh import SSHDoor

                self.ssh = SSHDoor(
                    server, self.data_dir, socket_path, self.gate, self.ssh_keys, wait
                )
                await self.ssh.start(host, self.ssh_port)
            if self.web_port is not None:
                from server.doors.web import WebDoor

                self.web = WebDoor(server, socket_path, self.gate, self.data_dir, wait)
                await self.web.start(host, self.web_port)
        except BaseException:
            await self.stop()
            raise

    async def _forget(self, server: RemoteServer) -> None:
        """Forget idle addresses' allowances now and then (the server's sweep does it for the
        doors in its process)."""
        while True:
            await asyncio.sleep(FORGET_EVERY)
            server.forget_allowances(time.monotonic(), self.gate.per_address)

    async def stop(self) -> None:
        """Close every door and end every child."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        if self.web is not None:
            await self.web.stop()
            self.web = None
        if self.ssh is not None:
            await self.ssh.stop()
            self.ssh = None
        if self.socket is not None:
            self.socket.remove()
            self.socket = None
