"""Bringing a table back after a restart: its stored seats, match and history replayed through
the engine (:func:`restore_table`), then its timers started again (:func:`resume_after_restore`)."""

from __future__ import annotations

import asyncio
import logging

from engine.actions import NUM_SEATS, action_from_dict
from engine.match import Match
from server.storage.store import TableRow
from server.tables.commitments import Commitment, DealSeeds
from server.tables.hub import Hub
from server.tables.table import Table
from server.tables.table_config import TableConfig

log = logging.getLogger("sheepshead.server")


def restore_table(hub: Hub[Table], row: TableRow) -> Table:
    """Rebuild a stored unfinished table: replay its actions through the engine."""
    table = Table(hub, row.id, TableConfig.from_dict(row.config))
    now = hub.now()
    for seat_row in row.seats:
        if not 0 <= seat_row.seat < NUM_SEATS:
            continue
        s = table.seats[seat_row.seat]
        s.kind = "bot" if seat_row.kind == "bot" else "human"
        s.name = seat_row.name
        s.strategy_name = seat_row.strategy
        s.remote_kind = seat_row.remote_kind
        s.token_hash = seat_row.token_hash
        s.added_by = seat_row.added_by if s.kind == "bot" else None
        if s.kind != "bot":
            s.disconnected_at = now
            if s.token_hash:
                hub.tokens[s.token_hash] = (table, seat_row.seat)
    table.host_seat = row.host_seat
    table.match_number = row.match_number
    if row.state == "over":
        table.finished_at = row.finished
    if row.state == "playing" or (row.state == "over" and row.seed is not None):
        if row.seed is None:
            raise ValueError("a playing table without a seed")
        stored = hub.store.deal_seeds(row.id)
        if stored:
            table.deal_seeds = DealSeeds([Commitment.from_dict(c) for c in stored])
        match = Match(
            table.config.rules,
            seed=row.seed,
            hand_limit=table.config.hands,
            first_dealer=row.first_dealer,
            keep_history=False,
            deal_seed=table.deal_seeds.seed_for if table.deal_seeds else None,
        )
        table.match = match
        for number, data in row.actions:
            while match.number < number:
                match.next_hand()
            match.apply(action_from_dict(data))
            table.last = data
            if match.hand.is_over:
                table._record_hand(match.number)  # history, as it was before the restart
        while row.dealt is not None and match.number < row.dealt and not match.is_over:
            match.next_hand()  # dealt (and shown) before the crash, no action yet
            table.last = None
        if row.state == "over" and not match.is_over:
            match.end()  # the host ended it early
        table.state = "over" if row.state == "over" else "playing"
        table.stored_actions = len(row.actions)
        if match.totals != row.totals:
            log.warning(
                "table %s: replayed totals %s differ from stored %s",
                row.id,
                match.totals,
                row.totals,
            )
    elif row.state == "over":
        table.state = "over"
    table.seq = row.seq
    table.turn_seq = row.seq + 1
    return table


def resume_after_restore(table: Table) -> None:
    """Start timers after a restart: grace for absent players, the next hand, the bots."""
    match = table.match
    if table.state == "over":
        ended = table.hub.wall() - (table.finished_at or 0.0)
        table._start_over_timer(table.hub.config.over_table_ttl - ended)
        if not table._maybe_close():
            table._publish_state()
        return
    if table.state == "playing" and match is not None:
        table._start_absent_graces()
        if match.hand.is_over:
            if match.is_over:
                table._finish_match()
                return
            table._next_hand_task = asyncio.create_task(table._deal_next(match.number))
    table._publish_state(new_turn=True)
