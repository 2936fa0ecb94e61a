"""Noticing that the client's terminal has gone away.

A player on a box reached over SSH may lose the connection; a tmux server may be killed under
the client. The terminal then hangs up: SIGHUP goes to the session leader, but not always on to
the client (a ``make`` or a shell with ``nohup`` set stands between them, or the signal never
comes). Every read of a hung-up terminal returns at once with nothing, and Textual's input
thread loops on such reads at full speed (Textual 8.2; upstream, Textualize/textual#6690): the
client would live on, seated and spending a whole core, until someone killed it.

So the app leaves on either sign: SIGHUP, or the terminal reporting a hang-up when polled. Two
more things stand in the way of leaving, and :class:`HangupSafeDriver` removes them: the kernel
sends SIGCONT along with SIGHUP, on which Textual takes the screen again (as after Ctrl+Z) with a
new writer thread; and a writer thread dies on its first write to the dead terminal, after
which Textual's bounded queue of writes fills and its shutdown blocks for ever.
"""

from __future__ import annotations

import os
import select
import sys
from typing import Any, Final, TextIO

from textual.driver import Driver

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


class TerminalOutput:
    """The terminal as Textual's writer thread sees it: once a write fails (the terminal hung
    up), this and every later write is dropped instead of raising, so the thread lives on to
    be stopped."""

    def __init__(self, file: TextIO) -> None:
        self._file = file
        self.failed = False
        """Whether a write has failed: nothing is written any more."""

    def write(self, text: str) -> int:
        """Write ``text``, or drop it once the terminal is gone."""
        if not self.failed:
            try:
                self._file.write(text)
            except OSError:
                self.failed = True
        return len(text)

    def flush(self) -> None:
        """Flush, or do nothing once the terminal is gone."""
        if not self.failed:
            try:
                self._file.flush()
            except OSError:
                self.failed = True

    def fileno(self) -> int:
        """The terminal's descriptor."""
        return self._file.fileno()


if sys.platform != "win32":  # Textual's Unix driver imports termios
    from textual.drivers.linux_driver import LinuxDriver

    class HangupSafeDriver(LinuxDriver):
        """Textual's driver for Unix terminals, made to let the app leave a terminal that hung up
        (see the module's text). It uses two private names of Textual 8.2's driver, ``_file`` and
        ``_sigcont_application``; the tests in tests/client/test_terminal.py fail if they change.
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            assert self._file is not None
            # The writer thread writes to whatever _file is when application mode starts.
            self._file = TerminalOutput(self._file)  # type: ignore[assignment]

        def _sigcont_application(self, *args: Any) -> None:
            # A SIGCONT that comes with a hang-up is no resume after Ctrl+Z: there is no screen.
            if hung_up(self.fileno):
                return
            super()._sigcont_application(*args)


def can_suspend() -> bool:
    """Whether Ctrl+Z can stop this process for a shell to bring it back (``fg``): on a Unix
    terminal, run as a job of a shell with job control (a process group of its own, beside the
    shell's). A process in its session leader's group (started by tmux or a terminal with the
    command itself, not from a shell; a door's child, which leads a session of its own) has no
    shell to come back to: the SSH door's child stopped for good there, the player's session
    frozen on a blank screen until it was dropped; the browser door's driver
    (``TEXTUAL_DRIVER``) cannot suspend at all."""
    if sys.platform == "win32" or os.environ.get("TEXTUAL_DRIVER"):
        return False
    try:
        return os.getpgrp() != os.getsid(0)
    except OSError:
        return False


def driver_class() -> type[Driver] | None:
    """:class:`HangupSafeDriver` where Textual would use its Unix driver, else None (Textual's
    own choice)."""
    if sys.platform == "win32" or os.environ.get("TEXTUAL_DRIVER"):
        return None
    return HangupSafeDriver
