"""Presence at a table: a seated player who is away keeps the seat for the table's grace
period, then a stand-in bot plays it until they come back."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from server.tables.seats import SeatState, TableState
from server.tables.table_config import TableConfig

log = logging.getLogger("sheepshead.server")


class PresenceTable(Protocol):
    """What :class:`Presence` needs of its table (:class:`server.tables.table.Table`)."""

    id: str
    config: TableConfig
    state: TableState
    seats: list[SeatState]

    def notice(self, code: str, text: str, seat: int | None = None) -> None:
        """Tell everyone at the table."""

    def publish_state(self, *, new_turn: bool = False, action_stored: bool = False) -> None:
        """Make a new state of the table known."""


class Presence:
    """The grace periods of a table's absent players and the stand-ins that follow them (a
    part of :class:`server.tables.table.Table`)."""

    def __init__(self, table: PresenceTable) -> None:
        self.table = table

    def start_grace(self, seat: int) -> None:
        """``seat``'s player has gone: a stand-in takes the seat once the grace period is over
        (unless they are back by then)."""
        s = self.table.seats[seat]
        self.cancel_grace(s)
        loop = asyncio.get_running_loop()
        s.grace_timer = loop.call_later(self.table.config.grace, self._grace_over, seat)

    def start_absent_graces(self) -> None:
        """Start the grace period of every seated person who is away (a match begins or is
        restored)."""
        for i, s in enumerate(self.table.seats):
            if s.kind == "human" and s.peer is None:
                self.start_grace(i)

    def cancel_grace(self, s: SeatState) -> None:
        """Stop the grace period of seat ``s``, if one is running."""
        if s.grace_timer is not None:
            s.grace_timer.cancel()
            s.grace_timer = None

    def _grace_over(self, seat: int) -> None:
        table = self.table
        try:
            s = table.seats[seat]
            s.grace_timer = None
            if s.kind != "human" or s.peer is not None or table.state != "playing":
                return
            s.standin = True
            s.away_by_restart = False  # a bot played for them meanwhile: their return is news
            table.notice("standin", f"A bot is playing for {s.name} until they return", seat)
            table.publish_state()
        except Exception:
            log.exception("table %s: grace timer failed", table.id)

    def standin_active(self, seat: int) -> bool:
        """Whether a stand-in bot plays ``seat`` now (an empty seat in a match, or an absent
        player's once their grace period is over)."""
        table = self.table
        s = table.seats[seat]
        if table.state != "playing":
            return False
        return s.kind == "empty" or (s.kind == "human" and s.peer is None and s.standin)
