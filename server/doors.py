"""What the SSH door and the browser door share: the local socket, the limits, the child.

Each door session runs the normal client, ``sheepshead join``, in a child process of the server.
The child dials the server through a Unix socket in a private temporary directory
(``Server.open_local_socket``) rather than the TCP port: every door player would otherwise be
one more connection from 127.0.0.1, and the TCP port's per-address limit would stop the
seventeenth. The doors count their own sessions per remote address instead (:class:`DoorGate`).

The child gets a small environment of its own, not the server's: its ``HOME`` and XDG
directories are the player's directory (the SSH door keeps one per key fingerprint beside the
database, so the seat tokens and the player key in it follow the key; a browser tab gets a
throwaway one).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Final

from protocol.messages import NAME_MAX

if TYPE_CHECKING:
    from server.app import Server
    from server.config import ServerConfig
    from server.ssh_door import SSHDoor
    from server.web_door import WebDoor

log = logging.getLogger("sheepshead.doors")

DEFAULT_NAME: Final = "Player"
"""The name of a door player whose login name has nothing usable in it."""

_NAME_JUNK = re.compile(r"[^\w .-]")


def player_name(text: str) -> str:
    """A display name from an SSH login or a ``?name=`` (the server cleans it again).

    >>> player_name("ann")
    'ann'
    >>> player_name("$(rm -rf)")
    'rm -rf'
    >>> player_name("")
    'Player'
    """
    return _NAME_JUNK.sub("", text).strip()[:NAME_MAX].strip() or DEFAULT_NAME


class DoorGate:
    """Door sessions open now, per remote address and in total, against ``ServerConfig``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.per_address: Counter[str] = Counter()
        self.total = 0

    def admit(self, address: str) -> str | None:
        """Count a new session from ``address``; or the reason it is refused (not counted)."""
        if self.total >= self.config.door_sessions:
            return "The server is full; try again later."
        if self.per_address[address] >= self.config.door_sessions_per_address:
            return (
                f"Too many sessions from your address (at most "
                f"{self.config.door_sessions_per_address}); close one first."
            )
        self.per_address[address] += 1
        self.total += 1
        return None

    def release(self, address: str) -> None:
        """A session admitted from ``address`` has ended."""
        self.total -= 1
        self.per_address[address] -= 1
        if self.per_address[address] <= 0:
            del self.per_address[address]


def client_command(socket_path: str, name: str, port: int) -> list[str]:
    """The child's command line: this Python running ``sheepshead join`` on the local socket
    (``localhost:PORT`` is what the client shows, and where it files its seat tokens)."""
    return [
        sys.executable,
        "-m",
        "client.cli",
        "join",
        "--socket",
        socket_path,
        "--name",
        name,
        f"localhost:{port}",
    ]


def child_environment(home: Path, term: str = "xterm-256color") -> dict[str, str]:
    """The child's environment: the server's PATH and PYTHONPATH (so it runs the same code),
    UTF-8, the terminal type, and ``home`` as its home and XDG directories."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": term,
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if "COLORTERM" in os.environ:
        env["COLORTERM"] = os.environ["COLORTERM"]
    return env


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


class Doors:
    """The doors a server was asked to open (``--ssh``, ``--web``), started and stopped together.

    ``data_dir`` holds the SSH host key and the players' directories (``serve`` uses the
    database's directory).
    """

    def __init__(
        self,
        server: Server,
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
        self.gate = DoorGate(server.config)
        self.socket: LocalSocket | None = None
        self.ssh: SSHDoor | None = None
        self.web: WebDoor | None = None

    async def start(self, host: str) -> None:
        """Open the local socket and every door asked for (on ``host``); on failure nothing
        stays open. Raises OSError (a port in use) or ValueError (a bad ``--ssh-keys``)."""
        if self.ssh_port is None and self.web_port is None:
            return
        self.socket = LocalSocket()
        try:
            await self.socket.open(self.server)
            if self.ssh_port is not None:
                from server.ssh_door import SSHDoor

                self.ssh = SSHDoor(
                    self.server, self.data_dir, self.socket.path, self.gate, self.ssh_keys
                )
                await self.ssh.start(host, self.ssh_port)
            if self.web_port is not None:
                from server.web_door import WebDoor

                self.web = WebDoor(self.server, self.socket.path, self.gate)
                await self.web.start(host, self.web_port)
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Close every door and end every child."""
        if self.web is not None:
            await self.web.stop()
            self.web = None
        if self.ssh is not None:
            await self.ssh.stop()
            self.ssh = None
        if self.socket is not None:
            self.socket.remove()
            self.socket = None
