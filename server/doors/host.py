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
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from server.doors.kit import DoorGate

if TYPE_CHECKING:
    from server.app import Server
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
        self.gate = DoorGate(server.config, server.allowance)
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
                with warnings.catch_warnings():
                    # asyncssh names cryptography's DSA types, which cryptography deprecates:
                    # ten lines of warnings on every start, about a key type the door never
                    # offers (its host key is ed25519).
                    warnings.filterwarnings("ignore", message="DSA is deprecated")
                    from server.doors.ssh import SSHDoor

                self.ssh = SSHDoor(
                    self.server, self.data_dir, self.socket.path, self.gate, self.ssh_keys
                )
                await self.ssh.start(host, self.ssh_port)
            if self.web_port is not None:
                from server.doors.web import WebDoor

                self.web = WebDoor(self.server, self.socket.path, self.gate, self.data_dir)
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
