"""Noticing that the client's terminal has gone away.

A player on a box reached over SSH may lose the connection; a tmux server may be killed under
the client. The terminal then hangs up: SIGHUP goes to the session leader, but not always on to
the client (a ``make`` or a shell with ``nohup`` set stands between them, or the signal never
comes). Every read of a hung-up terminal returns at once with nothing, and Textual's input
thread loops on such reads at full speed (Textual 8.2; upstream, Textualize/textual#6690): the
client would live on, seated and spending a whole core, until someone killed it.

So the app leaves on either sign: SIGHUP, or the terminal reporting a hang-up when polled.
"""

from __future__ import annotations

import os
import select
import sys
from typing import Final

HANGUP_EXIT_CODE: Final = 129
"""The client's exit status when its terminal went away (128 + SIGHUP, as a shell reports it)."""

CHECK_INTERVAL: Final = 1.0
"""Seconds between two looks at the terminal."""

_GONE: Final = select.POLLHUP | select.POLLERR | select.POLLNVAL if hasattr(select, "poll") else 0


def hung_up(fd: int) -> bool:
    """Whether the terminal (or pipe) open on ``fd`` has hung up: its other end is gone.

    Never blocks, and reads nothing: pending keystrokes stay for the app.

    >>> import os
    >>> reader, writer = os.pipe()
    >>> hung_up(reader)
    False
    >>> os.close(writer)
    >>> hung_up(reader)
    True
    >>> os.close(reader)
    """
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(events & _GONE for _, events in poller.poll(0))


def watched_terminal() -> int | None:
    """The descriptor of the terminal this process reads its keys from, or None when it has
    none to watch (input is not a terminal, or the platform cannot poll one)."""
    stdin = sys.__stdin__
    if stdin is None or not hasattr(select, "poll"):
        return None
    try:
        fd = stdin.fileno()
    except (OSError, ValueError):
        return None
    return fd if os.isatty(fd) else None
