"""What a door's child process runs: ``python -m server.doors.child NICE DATA_BYTES ARGS...``
lowers its own priority by ``NICE``, caps its data segment at ``DATA_BYTES`` (0: no cap), then
runs ``sheepshead ARGS...`` in the same process.

Both doors start their children through it (``server.doors.kit.client_command``): the browser
door's child is started by textual-serve from a command line, where no ``preexec_fn`` can be
passed. It imports nothing but the standard library before the client, so it costs no start
time of its own.
"""

from __future__ import annotations

import os
import resource
import sys


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


def main(argv: list[str]) -> int:
    """Apply the limits in ``argv[0:2]``, then run the client with the rest."""
    try:
        nice, data_bytes = int(argv[0]), int(argv[1])
    except (IndexError, ValueError):
        print("usage: python -m server.doors.child NICE DATA_BYTES ARGS...", file=sys.stderr)
        return 2
    lower_limits(nice, data_bytes)
    from client.cli import main as client_main

    sys.argv = ["sheepshead", *argv[2:]]
    return client_main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
