"""A seat at a table: who sits in it (:class:`SeatState`), the names server bots take, and the
size of the seat tokens that let a player come back to it (their stored form is the store's
:func:`~server.storage.store.hash_token`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Final, Literal

from server.storage.store import SeatRow
from server.tables.hub import Peer

TableState = Literal["waiting", "playing", "over", "closed"]
"""A table's state: waiting for players, a match being played, the match over, the table
gone."""

SeatKind = Literal["empty", "human", "bot"]
"""Who sits in a seat: nobody, a client (person or network bot), a server bot."""

TOKEN_BYTES: Final = 24


BOT_NAMES: Final = ("Ole", "Lena", "Sven", "Inga", "Gus")
"""The names server bots take, by seat."""


@dataclass
class SeatState:
    """One seat's occupant and the table's bookkeeping about it."""

    kind: SeatKind = "empty"
    name: str | None = None
    strategy_name: str | None = None
    remote_kind: str | None = None
    token_hash: str | None = None
    peer: Peer | None = None
    disconnected_at: float | None = None
    standin: bool = False
    added_by: str | None = None
    """The address of the host who seated this server bot (for ``max_bots_per_address``)."""
    identity: str | None = None
    """The player identity (``server.storage.standings``) of the connection that took or took back
    this seat, for refusing one player key a second seat at the table (this run only)."""
    grace_timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def row(self) -> SeatRow | None:
        """The stored form (None for an empty seat)."""
        if self.kind == "empty" or self.name is None:
            return None
        return SeatRow(
            -1,
            self.kind,
            self.name,
            self.strategy_name,
            self.remote_kind,
            self.token_hash,
            self.added_by,
        )
