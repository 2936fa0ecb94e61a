"""What a sheepshead server announces on the LAN (PROTOCOL.md §14): DNS-SD service type and TXT.

>>> txt_record("Den", 2, 7)
{'v': '1', 'name': 'Den', 'tables': '2', 'players': '7'}
"""

from __future__ import annotations

from typing import Final

from protocol.version import PROTOCOL_VERSION

SERVICE_TYPE: Final = "_sheepshead._tcp.local."
"""The DNS-SD service type every sheepshead server registers."""


def txt_record(name: str, tables: int, players: int) -> dict[str, str]:
    """The TXT record: ``v`` protocol version, ``name``, ``tables`` open, ``players`` seated."""
    return {
        "v": str(PROTOCOL_VERSION),
        "name": name,
        "tables": str(tables),
        "players": str(players),
    }
