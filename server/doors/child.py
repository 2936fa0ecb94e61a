"""What a door's child process runs: ``python -m server.doors.child NICE DATA_BYTES ARGS...``
lowers its own priority by ``NICE``, caps its data segment at ``DATA_BYTES`` (0: no cap), then
runs ``sheepshead ARGS...`` in the same process.

Both doors start their children through it (``server.doors.kit.client_command``): the browser
door's child is started by textual-serve from a command line, where no ``preexec_fn`` can be
passed. It imports nothing but the standard library before the client, so it costs no start
time of its own.
"""

from __future__ import annotations

import hashlib
import os
import resource
import sys
from typing import Any, Final

SEAT_TOKEN_ENV: Final = "SHEEPSHEAD_DOOR_SEAT_TOKEN"
"""Set by the SSH door: the SHA-256 (hex) of the seat token its home held for the player's name
when the door checked whether another window holds that seat (empty: none). See
:func:`only_checked_tokens`."""


def token_digest(token: str) -> str:
    """What :data:`SEAT_TOKEN_ENV` holds for ``token`` (the token itself stays out of the
    environment)."""
    return hashlib.sha256(token.encode()).hexdigest()


def only_checked_tokens(checked: str) -> None:
    """Have this process's client take a seat back only with the token the door checked
    (its digest ``checked``, or none when empty) or one it filed itself. The client reads its
    seat token a second or so after the door looked (its start-up): another window of the key
    that sat down in between filed a token the door never asked about, and the client took
    that window's seat over without a question. Now such a token is not offered, and the
    client opens the lobby (the other window keeps its seat)."""
    from client.session import TokenStore

    filed: set[str] = set()
    get, put = TokenStore.get, TokenStore.put

    def checked_get(store: TokenStore, server: str, name: str) -> str | None:
        token = get(store, server, name)
        if token is None or token in filed or token_digest(token) == checked:
            return token
        return None

    def recorded_put(store: TokenStore, server: str, name: str, token: str) -> None:
        filed.add(token)
        put(store, server, name, token)

    patched: Any = TokenStore
    patched.get, patched.put = checked_get, recorded_put


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
    checked = os.environ.get(SEAT_TOKEN_ENV)
    if checked is not None:
        only_checked_tokens(checked)
    from client.cli import main as client_main

    sys.argv = ["sheepshead", *argv[2:]]
    return client_main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
