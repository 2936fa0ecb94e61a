"""What a door's child process runs: ``python -m server.doors.child NICE DATA_BYTES ARGS...``
lowers its own priority by ``NICE``, caps its data segment at ``DATA_BYTES`` (0: no cap), then
runs ``sheepshead ARGS...`` in the same process.

Both doors start their children through it (``server.doors.kit.client_command``): the browser
door's child is started by textual-serve from a command line, where no ``preexec_fn`` can be
passed. It imports nothing but the standard library before the client, so it costs no start
time of its own.

Under doors in a process of their own (``serve --server-socket``) the server may be down when a
session starts (restarting): the child then waits for its socket (:func:`wait_for_server`, up
to :data:`SERVER_WAIT_ENV` seconds) before the client starts, whose first connect would else
fail and end the session at once.
"""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import sys
import termios
import time
from collections.abc import Callable
from typing import IO, Final

SERVER_WAIT_ENV: Final = "SHEEPSHEAD_DOOR_SERVER_WAIT"
"""Seconds a child waits for the server's socket to answer before its client starts (unset or
0: it does not look). Set by doors in a process of their own (``serve --server-socket``)."""

WAITING: Final = "The sheepshead server is restarting: waiting for it (Ctrl+C leaves)..."
"""Said on an SSH session's terminal while its child waits for the server."""

GAVE_UP: Final = "You left before the server was back."
"""Said on an SSH session's terminal when its player pressed Ctrl+C while it waited (a Python
traceback was all they saw)."""


def lower_limits(nice: int, data_bytes: int) -> None:
    """Add ``nice`` to this process's nice value and cap its data segment (``RLIMIT_DATA``:
    the heap and private anonymous mappings) at ``data_bytes`` (0: leave it). A process past
    the cap gets MemoryError from its next allocation rather than taking the machine's memory.
    """
    if nice > 0:
        os.nice(nice)
    if data_bytes > 0:
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        cap = data_bytes if hard == resource.RLIM_INFINITY else min(data_bytes, hard)
        # The hard limit too: what the child runs cannot raise it again.
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))


def wait_for_server(path: str, seconds: float, say: Callable[[str], None] | None = None) -> bool:
    """Whether the Unix socket ``path`` answers within ``seconds``: dialled at once, then at
    0.25 s doubling to 2 s; ``say`` is told :data:`WAITING` once when the first dial fails.

    >>> wait_for_server("/nonexistent/server.sock", 0.0)
    False
    """
    deadline = time.monotonic() + seconds
    delay = 0.25
    told = False
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(path)
                return True
            except OSError:
                pass
        if time.monotonic() + delay > deadline:
            return False
        if say is not None and not told:
            say(WAITING)
            told = True
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def discard_typed_ahead(stream: IO[str]) -> None:
    """Drop the keys typed on the terminal ``stream`` while the child waited (nothing when it
    is not a terminal): the client read them as its first keys, so a q pressed while waiting
    ended the session the moment the server was back, and any other key acted in the lobby."""
    with contextlib.suppress(OSError, ValueError, termios.error):  # a pipe, a closed stream
        termios.tcflush(stream.fileno(), termios.TCIFLUSH)


def main(argv: list[str]) -> int:
    """Apply the limits in ``argv[0:2]``, then run the client with the rest."""
    try:
        nice, data_bytes = int(argv[0]), int(argv[1])
    except (IndexError, ValueError):
        print("usage: python -m server.doors.child NICE DATA_BYTES ARGS...", file=sys.stderr)
        return 2
    lower_limits(nice, data_bytes)
    wait = float(os.environ.get(SERVER_WAIT_ENV) or 0)
    if wait > 0 and "--socket" in argv[2:-1]:
        # A browser tab's stdout carries textual's packets: nothing may be printed there.
        web = "TEXTUAL_DRIVER" in os.environ
        said: list[str] = []

        def say(text: str) -> None:
            said.append(text)
            print(text, flush=True)

        try:
            wait_for_server(argv[argv.index("--socket", 2) + 1], wait, None if web else say)
        except KeyboardInterrupt:
            print(f"\n{GAVE_UP}")
            return 130
        if said:
            discard_typed_ahead(sys.stdin)
    from client.cli import main as client_main

    sys.argv = ["sheepshead", *argv[2:]]
    return client_main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
