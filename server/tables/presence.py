"""Presence at a table: a seated player who is away keeps the seat for the table's grace
period, then a stand-in bot plays it until they come back."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from server.tables.hub import Hub
from server.tables.seats import SeatState, TableState
from server.tables.table_config import TableConfig

log = logging.getLogger("sheepshead.server")


class TablePresence:
    """The grace periods of a :class:`server.tables.table.Table` (its base class)."""

    id: str
    hub: Hub[Any]
    config: TableConfig
    state: TableState
    seats: list[SeatState]

    def _notice(self, code: str, text: str, seat: int | None = None) -> None:
        """Tell everyone at the table (:class:`server.tables.table.Table`)."""
        raise NotImplementedError

    def _publish_state(self, *, new_turn: bool = False, action_stored: bool = False) -> None:
        """One state change (:class:`server.tables.table.Table`)."""
        raise NotImplementedError

    def _start_grace(self, seat: int) -> None:
        s = self.seats[seat]
        self._cancel_grace(s)
        loop = asyncio.get_running_loop()
        s.grace_timer = loop.call_later(self.config.grace, self._grace_over, seat)

    def _start_absent_graces(self) -> None:
        """Start the grace period of every seated person who is away (a match begins or is
        restored)."""
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.peer is None:
                self._start_grace(i)

    def _cancel_grace(self, s: SeatState) -> None:
        if s.grace_timer is not None:
            s.grace_timer.cancel()
            s.grace_timer = None

    def _grace_over(self, seat: int) -> None:
        try:
            s = self.seats[seat]
            s.grace_timer = None
            if s.kind != "human" or s.peer is not None or self.state != "playing":
                return
            s.standin = True
            self._notice("standin", f"A bot is playing for {s.name} until they return", seat)
            self._publish_state()
        except Exception:
            log.exception("table %s: grace timer failed", self.id)

    def _standin_active(self, seat: int) -> bool:
        s = self.seats[seat]
        if self.state != "playing":
            return False
        return s.kind == "empty" or (s.kind == "human" and s.peer is None and s.standin)
