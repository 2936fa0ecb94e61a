"""The connection's dispatch covers every request the protocol's registry parses."""

from __future__ import annotations

from protocol.requests import REQUEST_KINDS, Pong
from server.net.connection import _HANDLERS


def test_every_registered_request_but_pong_has_a_handler() -> None:
    """A request type added to the registry without a handler fails here, not on the wire
    (pong is answered by nobody: the connection drops it before dispatch)."""
    registered = {kind.cls for kind in REQUEST_KINDS}
    assert set(_HANDLERS) == registered - {Pong}
