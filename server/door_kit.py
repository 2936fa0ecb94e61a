"""What the SSH door and the browser door share: the session limits (:class:`DoorGate`), the
player's name, and the child process's command line and environment (see ``server.doors``)."""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Final

from protocol.messages import NAME_MAX

if TYPE_CHECKING:
    from server.config import ServerConfig

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
