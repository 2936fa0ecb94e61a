"""What the SSH door and the browser door share: the session limits (:class:`DoorGate`), the
player's name, and the child process's command line and environment (see ``server.doors.host``)."""

from __future__ import annotations

import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from protocol.requests import NAME_MAX
from server.config import ServerConfig, host_can_raise
from server.net.limits import TokenBucket

if TYPE_CHECKING:
    from server.net.limits import AddressAllowance

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


def available(bucket: TokenBucket, now: float) -> float:
    """The tokens ``bucket`` holds at ``now`` (what a take would start from), without taking."""
    return min(bucket.burst, bucket.tokens + (now - bucket.last) * bucket.rate)


def take_without_debt(bucket: TokenBucket, now: float, amount: float = 1.0) -> bool:
    """Take ``amount`` from a bucket that may go into debt only if it is there, or refuse
    without touching it: the pool of every address's starts lends only to an address's first
    ``door_start_share`` starts, and any later start must find a whole token in it.

    >>> pool = TokenBucket(0.2, 1.0, 0.0, max_debt=2.0)
    >>> take_without_debt(pool, 0.0), take_without_debt(pool, 1.0), pool.take(1.0)
    (True, False, False)
    >>> round(pool.tokens, 1)  # the plain take went into debt; the refusal above did not
    -0.8
    """
    if available(bucket, now) < amount:
        return False
    return bucket.take(now, amount)


class DoorGate:
    """Door sessions open now, per remote address and in total, and how fast new ones start,
    against ``ServerConfig``. ``allowance`` is the server's per-address allowance
    (:meth:`server.app.Server.allowance`), whose ``door_starts`` meter each address.

    The server-wide pool (``door_start_rate_total``) bounds what every address together may
    start; but an address's first ``door_start_share`` starts (while its own bucket holds more
    than ``door_start_burst - door_start_share``) are its share, admitted even when the pool is
    empty, down to a debt of one more pool's worth (``door_start_burst_total``) that the other
    addresses' starts then wait out. A few addresses starting sessions as fast as their own
    allowance lets them keep the pool empty; they cannot keep anybody else from starting a
    first session, since a flooding address has spent its own share long ago.
    """

    def __init__(
        self,
        config: ServerConfig,
        allowance: Callable[[str, float], AddressAllowance],
        now: float | None = None,
    ) -> None:
        self.config = config
        self.allowance = allowance
        self.per_address: Counter[str] = Counter()
        self.total = 0
        self.all_starts = TokenBucket(
            config.door_start_rate_total,
            config.door_start_burst_total,
            time.monotonic() if now is None else now,
            max_debt=config.door_start_burst_total,
        )
        """Everyone's new sessions together (``door_start_rate_total``); the shares may take
        it into debt (see the class docstring)."""

    def admit(self, address: str, now: float | None = None) -> str | None:
        """Count a new session from ``address`` and spend one of its starts (a browser tab,
        which starts its client at once); or the reason it is refused (not counted, nothing
        spent).

        >>> from server.config import ServerConfig
        >>> from server.net.limits import AddressAllowance
        >>> config = ServerConfig(door_start_burst=2)
        >>> allowances = {}
        >>> def allowance(address, now):
        ...     return allowances.setdefault(address, AddressAllowance(config, now))
        >>> gate = DoorGate(config, allowance, now=0.0)
        >>> gate.admit("192.0.2.7", now=0.0), gate.admit("192.0.2.7", now=0.0)
        (None, None)
        >>> gate.release("192.0.2.7"); gate.release("192.0.2.7")
        >>> print(gate.admit("192.0.2.7", now=1.0))  # doctest: +NORMALIZE_WHITESPACE
        Too many new sessions from your address: wait a few seconds.
        The host can allow more: serve --limit door_start_burst=N
        >>> gate.admit("192.0.2.7", now=6.0) is None  # one start every 5 s on average
        True
        """
        refusal = self._no_place(address)
        if refusal is None:
            refusal = self.start(address, now)
        if refusal is None:
            self._enter(address)
        return refusal

    def enter(self, address: str) -> str | None:
        """Count a new connection from ``address`` (an SSH connection, before it has logged
        in) against the open sessions, spending no start: :meth:`start` spends one once it
        starts a game. A bare connect, a port scan or a login that never opens a session must
        not use up the starts of the players at that address. Returns the reason it is
        refused (not counted)."""
        refusal = self._no_place(address)
        if refusal is None:
            self._enter(address)
        return refusal

    def _no_place(self, address: str) -> str | None:
        config = self.config
        if self.total >= config.door_sessions:
            return (
                f"The server is full ({config.door_sessions} sessions): try again later. "
                + host_can_raise("door_sessions")
            )
        if self.per_address[address] >= config.door_sessions_per_address:
            return (
                f"Too many sessions from your address ({config.door_sessions_per_address} open). "
                + host_can_raise("door_sessions_per_address")
            )
        return None

    def _enter(self, address: str) -> None:
        self.per_address[address] += 1
        self.total += 1

    def start(self, address: str, now: float | None = None) -> str | None:
        """Spend one of ``address``'s starts (its own allowance, ``door_start_rate``, and the
        server-wide pool, see the class docstring) for a session that starts its client now;
        or the reason it may not (nothing spent)."""
        config = self.config
        now = time.monotonic() if now is None else now
        starts = self.allowance(address, now).door_starts
        own = available(starts, now)
        if own < 1.0:
            return "Too many new sessions from your address: wait a few seconds. " + host_can_raise(
                "door_start_burst"
            )
        busy = "The server is starting many sessions: wait a few seconds. " + host_can_raise(
            "door_start_burst_total"
        )
        share = min(config.door_start_share, starts.burst)
        pool = self.all_starts
        if own > starts.burst - share:  # its share: the pool may go into debt for it
            if available(pool, now) - 1.0 < pool.floor:
                return busy
            pool.take(now)
        elif not take_without_debt(pool, now):
            return busy
        starts.take(now)
        return None

    def release(self, address: str, *, refund: bool = False) -> None:
        """A session admitted from ``address`` has ended; with ``refund``, it never started
        (the websocket upgrade failed after all), and its start is given back."""
        self.total -= 1
        self.per_address[address] -= 1
        if self.per_address[address] <= 0:
            del self.per_address[address]
        if refund:
            self.allowance(address, time.monotonic()).door_starts.refund()
            self.all_starts.refund()


def client_command(
    socket_path: str,
    name: str,
    port: int,
    *,
    nice: int = ServerConfig.door_child_nice,
    data_bytes: int = ServerConfig.door_child_data_bytes,
) -> list[str]:
    """The child's command line: this Python running ``sheepshead join`` on the local socket
    (``localhost:PORT`` is what the client shows, and where it files its seat tokens), through
    ``server.doors.child``, which first lowers its priority by ``nice`` and caps its data
    segment at ``data_bytes`` (``ServerConfig.door_child_nice``, ``door_child_data_bytes``)."""
    return [
        sys.executable,
        "-m",
        "server.doors.child",
        str(max(0, nice)),
        str(max(0, data_bytes)),
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
