"""A worker process of a tournament's ``--jobs``: ``python -m botkit.tournament.worker PARENT``.

:func:`botkit.tournament.play.start_pool` starts it, ``PARENT`` being its own process id. A
fresh interpreter rather than a fork or a spawn of the caller: it needs no main module to
import again (a notebook, a test runner, an embedding program have none) and no fork of a
process that may run other threads.

Its stdin brings frames (:func:`botkit.tournament.play.send_frame`: a 4-byte length, then a
pickle): first ``{"specs": [...]}``, the strategies to load, then one
:class:`~botkit.tournament.play.Job` per deal. Its stdout takes ``("ready", pid, problems)``
once the strategies are loaded (``problems``: the specs it could not load, each with why), then
per deal ``("ok", DealResult)`` or ``("error", exception, traceback)``. It exits at the end of
its stdin, or with its parent (:func:`botkit.tournament.play.work`). It stays an interpreted
module: it is the entry point of a process.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    """Serve deals on stdin and stdout for the process ``argv[0]``; returns the exit status."""
    parent = int(argv[0])
    # The frames keep descriptors of their own, which no program a strategy starts inherits;
    # fd 0 becomes /dev/null and fd 1 the stderr, so a strategy that reads or prints cannot
    # take a frame's bytes or add its own.
    reader, writer = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    from botkit.tournament.play import work

    work(reader, writer, parent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
