"""What the SSH door and the browser door share: the session limits (:class:`DoorGate`), the
player's name, the child process's command line and environment (see ``server.doors.host``),
and the question a player's second window is asked before it takes a seat another window of
theirs has connected (:func:`another_window`, :func:`tokens_named`, :func:`wait_for_choice`;
the server tells whether that seat is connected, :meth:`DoorServer.held_seats`)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from protocol.requests import DOOR_TOKENS_MAX, NAME_MAX
from server.config import ServerConfig, host_can_raise
from server.net.limits import TokenBucket

if TYPE_CHECKING:
    from protocol.events import HeldSeat
    from server.net.limits import AddressAllowance

DEFAULT_NAME: Final = "Player"
"""The name of a door player whose login name has nothing usable in it."""

_NAME_JUNK = re.compile(r"[^\w .-]")


class DoorServer(Protocol):
    """What the doors use of the server they let players into: a running
    :class:`server.app.Server` in the same process, or a
    :class:`server.doors.host.RemoteServer` (``serve --server-socket``: the server runs in a
    process of its own, and the doors ask it over its local socket what they need to know of
    its tables and players, PROTOCOL.md §15). Both doors use these the same way in both."""

    @property
    def config(self) -> ServerConfig:
        """The limits and sizes the doors keep (``serve``'s options and ``--limit``)."""

    @property
    def port(self) -> int:
        """The port in the ``localhost:PORT`` the children show and file seat tokens under."""

    async def held_seats(self, tokens: Sequence[str]) -> list[HeldSeat | None]:
        """For each of ``tokens`` (at most :data:`protocol.requests.DOOR_TOKENS_MAX`: a
        server in another process is asked about no more), the seat it names if that seat's
        connection is up (another window of the player has it: the new window asks before it
        takes it over), with the process at the other end of that connection when it is a door
        session's client; else None. All None when the server cannot be asked (down, or too
        slow: the new window then takes the seat, as before there was a question)."""

    async def door_player(self, player_key: str, fingerprint: str, name: str) -> bool:
        """Tell the server that ``player_key`` is the SSH key with ``fingerprint``, so the
        standings tag the player with it; whether it was done (a key the server knows, a
        server that answered)."""

    def allowance(self, address: str, now: float) -> AddressAllowance:
        """The per-address allowance of ``address`` (its door starts, connections, requests)."""

    def log_refusal(self, address: str, why: str = "too many connections") -> None:
        """Log a refused connection or request (at most one line a second)."""


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


def client_command(socket_path: str, name: str, port: int, config: ServerConfig) -> list[str]:
    """The child's command line: this Python running ``sheepshead join`` on the local socket
    (``localhost:PORT`` is what the client shows, and where it files its seat tokens), through
    ``server.doors.child``, which first lowers its priority and caps its data segment as
    ``config`` says (``door_child_nice``, ``door_child_data_bytes``): both doors' children."""
    return [
        sys.executable,
        "-m",
        "server.doors.child",
        str(max(0, config.door_child_nice)),
        str(max(0, config.door_child_data_bytes)),
        "join",
        "--socket",
        socket_path,
        "--name",
        name,
        f"localhost:{port}",
    ]


def child_environment(
    home: Path, term: str = "xterm-256color", server_wait: float = 0.0
) -> dict[str, str]:
    """The child's environment: the server's PATH and PYTHONPATH (so it runs the same code),
    UTF-8, the terminal type, and ``home`` as its home and XDG directories; with
    ``server_wait``, how long it waits for a server that is down before its client starts
    (``server.doors.child.SERVER_WAIT_ENV``)."""
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
    if server_wait > 0:
        from server.doors.child import SERVER_WAIT_ENV

        env[SERVER_WAIT_ENV] = f"{server_wait:g}"
    return env


LINK_CHECK: Final = 5.0
"""Seconds the window holding a seat has to answer a keepalive (an SSH keepalive, a websocket
ping), once a new window of the same player would take that seat over, before the door counts
its link as dropped (:func:`wait_for_choice`). A link that answers is a window the player has
open."""


def another_window(window: str, leave: str) -> str:
    """The question asked of a player's new window whose client would take over, with the seat
    token it was given, a seat whose connection is up: a window the player has open would else
    lose its seat without a word. ``window`` says what the other window is (in brackets, with
    a line break if the first line would pass 78 columns), ``leave`` what ``q`` does. The text
    keeps ``{table}`` (the table's name, at most 40 characters) and ``{seat}`` to be filled in.

    >>> text = another_window("(another tab of this browser)", "close")
    >>> print(text.format(table="T", seat=2).replace("\\r", ""))
    <BLANKLINE>
    You already sit at a table, in another window (another tab of this browser):
    <BLANKLINE>
        T, seat 2
    <BLANKLINE>
      t  take the seat here (the other window goes to the lobby)
      l  open the lobby here, to watch or play elsewhere (the other window
         keeps the seat)
      q  close
    <BLANKLINE>
    """
    return (
        f"\r\nYou already sit at a table, in another window {window}:\r\n\r\n"
        "    {table}, seat {seat}\r\n\r\n"
        "  t  take the seat here (the other window goes to the lobby)\r\n"
        "  l  open the lobby here, to watch or play elsewhere (the other window\r\n"
        "     keeps the seat)\r\n"
        f"  q  {leave}\r\n"
    )


OTHER_WINDOW_GONE: Final = (
    "\r\nThe other window does not answer (its link dropped): your seat comes here.\r\n"
)
"""Said in the new window when the one holding the seat does not answer within
:data:`LINK_CHECK`: it is closed, and the seat comes without a question."""
SEAT_STAYS: Final = "\r\nNothing changed: your seat stays in the other window.\r\n"
"""Said when the player answers ``q``."""

CHOICES: Final = {b"t": "take", b"l": "lobby", b"q": "quit", b"\x03": "quit", b"\x04": "quit"}
"""The keys that answer :func:`another_window` (Ctrl+C and Ctrl+D quit too)."""


def choice_of(keys: bytes) -> str | None:
    """The answer to :func:`another_window` that ``keys`` (a keystroke or a few) give, if any:
    "take", "lobby" or "quit".

    >>> choice_of(b"T"), choice_of(b"l"), choice_of(b"\\x03"), choice_of(b"x"), choice_of(b"")
    ('take', 'lobby', 'quit', None, None)
    """
    return CHOICES.get(keys[:1].lower())


def tokens_named(stored: dict[str, dict[str, str]], name: str) -> list[str]:
    """The seat tokens a client's ``tokens.json`` (``stored``, ``TokenStore.load()``'s) keeps
    for ``name``, one per server, at most :data:`protocol.requests.DOOR_TOKENS_MAX`: a client
    takes a seat back with the token its store keeps for its name (PROTOCOL.md §10), so those
    are the ones a door asks about (:meth:`DoorServer.held_seats`).

    >>> tokens_named({"localhost:7453": {"ann": "a1", "bo": "b1"}, "h:1": {"ann": "a2"}}, "ann")
    ['a1', 'a2']
    """
    found = [token for names in stored.values() if (token := names.get(name))]
    return found[:DOOR_TOKENS_MAX]


async def wait_for_choice(
    answer: asyncio.Future[str],
    links_dropped: Awaitable[bool] | None,
    on_dropped: Callable[[], Awaitable[None]],
) -> str:
    """The player's answer to :func:`another_window` (``answer``'s result: "take", "lobby",
    "quit", or "gone" when the window ended first). Meanwhile ``links_dropped`` checks the
    other windows' links (:data:`LINK_CHECK`): when it finds them all dropped (the door had not
    noticed yet), ``on_dropped`` closes them and says so, and the seat comes here without a
    question ("take"), as it did before there was one."""
    check = asyncio.ensure_future(links_dropped) if links_dropped is not None else None
    try:
        waiting: set[asyncio.Future[Any]] = {answer} if check is None else {answer, check}
        while not answer.done():
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if check in done:
                waiting.discard(check)
                if check.result() and not answer.done():
                    await on_dropped()
                    if not answer.done():
                        answer.set_result("take")
        return answer.result()
    finally:
        if check is not None and not check.done():
            check.cancel()
