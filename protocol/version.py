"""Wire-protocol version constants.

The client announces the protocol version it speaks when it connects; the server
accepts the connection only if that version is in :data:`SUPPORTED_VERSIONS`.
Bump :data:`PROTOCOL_VERSION` whenever a message is changed in a way that an
older peer could misread.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PROTOCOL_VERSION", "SUPPORTED_VERSIONS"]

PROTOCOL_VERSION: Final = 1
"""The protocol version this code base speaks (and announces to its peer)."""

SUPPORTED_VERSIONS: Final = frozenset({PROTOCOL_VERSION})
"""Every protocol version a peer may announce and still be accepted."""
