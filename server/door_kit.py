"""What the SSH door and the browser door share: the session limits (:class:`DoorGate`), the
player's name, and the child process's command line and environment (see ``server.doors``)."""

from __future__ import annotations

import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Final

from protocol.messages import NAME_MAX
from server.connection import TokenBucket

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


FORGET_AT: Final = 1024
"""Addresses an :class:`AddressMeter` remembers before it forgets the ones with a full
allowance (a flood from many addresses cannot grow its table for good)."""


class AddressMeter:
    """An allowance per remote address: ``rate`` a second on average, ``burst`` at once.

    >>> meter = AddressMeter(rate=1.0, burst=2.0)
    >>> [meter.take("192.0.2.7", now=0.0) for _ in range(3)]
    [True, True, False]
    >>> meter.take("192.0.2.7", now=1.0), meter.take("198.51.100.1", now=1.0)
    (True, True)
    """

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}
        self._forget_at = FORGET_AT

    def take(self, address: str, now: float) -> bool:
        """Spend one from ``address``'s allowance; False when it has none left."""
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self._forget_at:
                self.buckets = {a: b for a, b in self.buckets.items() if not b.full(now)}
                # Many addresses all still drawing: look again only once there are twice as
                # many, so that each new one does not cost a pass over all of them.
                self._forget_at = max(FORGET_AT, 2 * len(self.buckets))
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, now, max_debt=0.0)
        return bucket.take(now)

    def refund(self, address: str) -> None:
        """Give back the one just taken for something that did not happen after all."""
        bucket = self.buckets.get(address)
        if bucket is not None:
            bucket.refund()


class DoorGate:
    """Door sessions open now, per remote address and in total, and how fast new ones start,
    against ``ServerConfig``."""

    def __init__(self, config: ServerConfig, now: float | None = None) -> None:
        self.config = config
        self.per_address: Counter[str] = Counter()
        self.total = 0
        self.starts = AddressMeter(config.door_start_rate, config.door_start_burst)
        """Each address's allowance of new sessions (``door_start_rate``)."""
        self.all_starts = TokenBucket(
            config.door_start_rate_total,
            config.door_start_burst_total,
            time.monotonic() if now is None else now,
            max_debt=0.0,
        )
        """Everyone's together (``door_start_rate_total``)."""

    def admit(self, address: str, now: float | None = None) -> str | None:
        """Count a new session from ``address``; or the reason it is refused (not counted).

        >>> from server.config import ServerConfig
        >>> gate = DoorGate(ServerConfig(door_start_burst=2), now=0.0)
        >>> gate.admit("192.0.2.7", now=0.0), gate.admit("192.0.2.7", now=0.0)
        (None, None)
        >>> gate.release("192.0.2.7"); gate.release("192.0.2.7")
        >>> gate.admit("192.0.2.7", now=1.0)
        'Too many new sessions from your address: wait a few seconds and try again.'
        >>> gate.admit("192.0.2.7", now=6.0) is None  # one start every 5 s on average
        True
        """
        config = self.config
        now = time.monotonic() if now is None else now
        if self.total >= config.door_sessions:
            return "The server is full; try again later."
        if self.per_address[address] >= config.door_sessions_per_address:
            return (
                f"Too many sessions from your address (at most "
                f"{config.door_sessions_per_address}); close one first."
            )
        if not self.starts.take(address, now):
            return "Too many new sessions from your address: wait a few seconds and try again."
        if not self.all_starts.take(now):
            self.starts.refund(address)
            return "The server is starting many sessions just now: try again in a few seconds."
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
