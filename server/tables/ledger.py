"""What one table writes to the store and reads back from it (:class:`TableLedger`, a part of
:class:`server.tables.table.Table`).

The table tells its ledger what happened (an action, a deal, a finished hand, a match's end, a
seat taken or left, the table closed) and the ledger writes it into the store's open transaction.
The server commits that transaction before any message of the batch leaves (``server.app``), so
the table tells the ledger first and shows the change after: what people see is stored.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any, Final

from engine.actions import NUM_SEATS
from server.storage.store import LeftRow, LineRow, SeatRow, Store, json_text
from server.storage.tallies import HandFacts
from server.tables.seats import SeatKind, SeatState, TableState

Holder = tuple[str, int]
"""An earlier holder of a seat in the hand in play: their name, and how many of the hand's
actions were made when the next holder sat down."""

MADE_BY: Final = ("standin", "timer")
"""Who made an action for a person, not they: a stand-in bot while they were away (or while
their seat stood empty), or the turn timer when their time ran out (docs/hand-record.md,
``made_for``)."""

BEFORE: Final = "before"
"""The record's ``made_for`` kind of the moves made at a seat before its last holder took it
over during the hand (by an earlier holder, or the stand-in that played for them): not the
last holder's, whatever their names (docs/hand-record.md)."""

RECORD_MADE_FOR: Final = (*MADE_BY, BEFORE)
"""Every kind of a record's ``made_for``, in the order a place listed under two is told by the
last (a stand-in's move before a takeover is, to the seat's last holder, one made before)."""


class TableLedger:
    """The stored side of one table: its row, seats, actions, hands, results and deal seeds in
    ``store`` (a part of :class:`server.tables.table.Table`). Times are the table's wall clock,
    passed in; ``match`` is the table's current match number (0, then +1 per rematch)."""

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.table_id = table_id
        self.actions = 0
        """How many actions of the current match are in the store (the next one's number)."""
        self.left: dict[int, tuple[str | None, str]] = {}
        """Who last held each seat emptied during the current hand (identity and name, as the
        store counts hands): the hand is theirs, though a stand-in finished it. Stored too
        (``seats_left``), so a restart during the hand keeps them."""
        self.holders_stored = False
        """Whether an earlier holder of a seat taken over during the current hand is stored
        (``seat_holders``, :meth:`seat_taken_over`)."""
        self.lines = 0
        """How many lines (chat and notices) the table has stored (the next one's number): the
        store keeps the last of them (``chat_lines``)."""
        self._made_for_hand = -1
        self._made_for: dict[str, list[int]] = {}
        """The actions of hand ``_made_for_hand`` (of the current match) made for a person
        (:data:`MADE_BY`: its place in the hand's actions, by who made it): its record's
        ``made_for``. Stored with each such action (its row's ``by``), so a restore during the
        hand, or after it, knows them again (:meth:`action_replayed`)."""

    # ------------------------------------------------------------------ a restore reads

    def action_replayed(self, hand: int, index: int, data: Mapping[str, Any]) -> None:
        """A restore replayed action ``index`` of hand ``hand`` from its stored ``data``:
        remember who made it for the seat's person, if anybody did (:meth:`record_action`)."""
        self._note_made_for(hand, index, data.get("by"))

    def actions_replayed(self, count: int) -> None:
        """A restored match has ``count`` stored actions (replayed): the next one follows them."""
        self.actions = count

    def left_restored(self, rows: Iterable[LeftRow]) -> dict[int, SeatState]:
        """A restored table's stored seats emptied during its hand in play: remembered again
        for storing the hand (:meth:`seat_left`); returned as who held each, for its record."""
        held: dict[int, SeatState] = {}
        for row in rows:
            if not 0 <= row.seat < NUM_SEATS:
                continue
            self.left[row.seat] = (row.identity, row.name)
            kind: SeatKind = "bot" if row.kind == "bot" else "human"
            held[row.seat] = SeatState(kind=kind, name=row.name, strategy_name=row.strategy)
        return held

    def holders_restored(self, rows: Iterable[tuple[int, int, str]]) -> dict[int, list[Holder]]:
        """A restored table's stored earlier holders of the seats taken over during its hand in
        play (:meth:`seat_taken_over`), each seat's in order."""
        held: dict[int, list[Holder]] = {}
        for seat, until, name in rows:
            if 0 <= seat < NUM_SEATS:
                held.setdefault(seat, []).append((name, until))
                self.holders_stored = True
        return held

    def lines_restored(self, rows: Sequence[LineRow], kept: int) -> list[LineRow]:
        """A restored table's stored lines, chat and notices (oldest first): the next line is
        numbered after them; returns the last ``kept`` of them."""
        if rows:
            self.lines = rows[-1].n + 1
        return list(rows[-kept:])

    def deal_seeds(self) -> list[dict[str, Any]]:
        """The current match's stored commit–reveal seeds (empty: dealt without any)."""
        return self.store.deal_seeds(self.table_id)

    def hand_names(self, match: int, number: int) -> list[str] | None:
        """The seats' names when hand ``number`` of match ``match`` finished (None: not known)."""
        return self.store.hand_names(self.table_id, match, number)

    def hand_identity(self, match: int, number: int, seat: int) -> str | None:
        """The player identity hand ``number`` of match ``match`` was counted for at ``seat``
        (None: a person without a counted key, or not known)."""
        return self.store.hand_identity(self.table_id, match, number, seat)

    def stored_hand(
        self, match: int, number: int
    ) -> tuple[list[str | None] | None, dict[str, list[int]] | None]:
        """What a restore cannot replay of hand ``number`` of match ``match`` from the actions'
        rows, read from its stored record at once: the seats' strategies (None: not known, e.g.
        a record stored before records carried them) and its ``made_for`` (None: no such
        record; the actions' ``by`` tells no :data:`BEFORE`). Read once per finished hand of a
        restored match."""
        strategies, given = self.store.hand_extras(self.table_id, match, number)
        if given is None:
            return strategies, None
        made_for = {
            by: [n for n in places if isinstance(n, int)]
            for by, places in given.items()
            if by in RECORD_MADE_FOR and isinstance(places, list)
        }
        return strategies, made_for

    def match_hands(self, match: int, start: int) -> Generator[tuple[int, str, str], None, None]:
        """Each stored hand of the table's match ``match`` from ``start`` on: number, record
        JSON, payouts JSON (read as they are taken)."""
        return self.store.match_hands(self.table_id, match, start)

    def match_totals_before(self, match: int, number: int) -> list[int]:
        """The running totals of match ``match`` before its hand ``number``."""
        return self.store.match_totals_before(self.table_id, match, number)

    def revealed_seed(self, match: int, commitment: str) -> str | None:
        """The server seed of ``commitment`` as match ``match``'s stored records reveal it."""
        return self.store.revealed_seed(self.table_id, match, commitment)

    # ------------------------------------------------------------------ seats

    def seat_changed(self, seat: int, occupant: SeatState) -> None:
        """``seat`` is now held by ``occupant`` (its stored form; an empty seat deletes it)."""
        row: SeatRow | None = occupant.row()
        self.store.save_seat(self.table_id, seat, row)

    def seat_identity(self, seat: int) -> str | None:
        """The player identity the stored token of ``seat``, a person's, is linked to (None: a
        keyless player's, or one not counted): who may take it back with ``join`` after a
        restart, as before it."""
        found = self.store.seat_player(self.table_id, seat)
        return found[0] if found else None

    def seat_away(self, seat: int, away: bool) -> None:
        """The table told that ``seat``'s player is ``away`` (dropped, or played by a stand-in)
        or back: kept with the seat's row, so a restart knows who was away before it."""
        self.store.save_away(self.table_id, seat, away)

    def seat_left(self, seat: int, occupant: SeatState) -> None:
        """``seat``, held by ``occupant``, is about to be emptied during a hand (before its token
        is forgotten, and the player it stands for with it): remember who played it, in the
        store too, to store the hand as theirs also after a restart."""
        identity, name = self.store.seat_player(self.table_id, seat) or (None, occupant.name)
        self.left[seat] = (identity, name or "")
        row = LeftRow(seat, occupant.kind, name or "", occupant.strategy_name, identity)
        self.store.save_left(self.table_id, row)

    def seat_taken_over(self, seat: int, name: str, until: int) -> None:
        """A newcomer sat down at ``seat`` during the hand, after its first ``until`` actions,
        which ``name`` made in the seat (with the stand-in that played it for them)."""
        self.holders_stored = True
        self.store.save_holder(self.table_id, seat, until, name)

    def _forget_left(self) -> None:
        """The hand the emptied seats were left in is stored or gone: forget who held them."""
        if self.left or self.holders_stored:
            self.left.clear()
            self.holders_stored = False
            self.store.forget_left(self.table_id)

    def chat_said(self, sender: str, seat: int | None, text: str, *, kept: int) -> None:
        """A chat line was said at the table (by ``sender`` at ``seat``, None: a spectator):
        stored in place of the line ``kept`` lines older, so a restart keeps the last ``kept``."""
        self._line(LineRow(self.lines, sender, seat, text), kept)

    def notice_told(self, code: str, text: str, seat: int | None, *, kept: int) -> None:
        """A notice was told at the table: stored among its chat lines, as :meth:`chat_said`."""
        self._line(LineRow(self.lines, "", seat, text, code), kept)

    def _line(self, row: LineRow, kept: int) -> None:
        self.store.save_line(self.table_id, kept, row)
        self.lines += 1

    def host_changed(self, seat: int | None) -> None:
        """The host is now the player at ``seat`` (None: nobody)."""
        self.store.update_table(self.table_id, host_seat=seat)

    def token_forgotten(self, token_hash: str) -> None:
        """A seat token is gone. Its hands already name who played them (``hand_seats``): the
        link to its player would only grow the database with every join and leave."""
        self.store.unlink_seat(token_hash)

    # ------------------------------------------------------------------ a match

    def start_accepted(self) -> None:
        """A ``start`` (or a full table's ``rematch``) was accepted, its first deal waiting for
        the people's seeds: stored with the acknowledgement, so a restart before the deal starts
        the match again (cleared by :meth:`match_started` or :meth:`start_cancelled`)."""
        self.store.update_table(self.table_id, starting=1)

    def start_cancelled(self) -> None:
        """The accepted start will not deal (a seat emptied before it): the table waits."""
        self.store.update_table(self.table_id, starting=0)

    def match_started(self, *, seed: int, first_dealer: int) -> None:
        """A match began: its deck seed and first dealer; its actions are numbered from 0."""
        self.actions = 0
        self._made_for_hand = -1  # its hands are numbered from 0 again
        self._made_for = {}
        self._forget_left()
        self.store.update_table(
            self.table_id,
            state="playing",
            seed=seed,
            first_dealer=first_dealer,
            dealt=0,  # a rematch's restore must not deal on to where the last match was
            starting=0,
        )

    def seeds_locked(self, commitments: list[dict[str, Any]]) -> None:
        """The match's commit–reveal seeds, as they are after a deal locked one
        (``server.tables.commitments``)."""
        self.store.save_deal_seeds(self.table_id, commitments)

    def hand_dealt(self, number: int) -> None:
        """Hand ``number`` has been dealt (before anyone is shown it, so a restore deals it
        again)."""
        self._forget_left()
        self.store.update_table(self.table_id, dealt=number)

    def record_action(
        self,
        hand: int,
        action: str,
        *,
        seq: int,
        match: int,
        index: int = 0,
        made_by: str | None = None,
    ) -> None:
        """Action ``index`` of hand ``hand`` was applied (``action``: its record's JSON); ``seq``:
        the table's seq once it is shown, stored with it, so an action needs no update of the
        row. ``made_by`` (one of :data:`MADE_BY`; None: whoever holds the seat chose it): who
        made it for the seat's person, stored in its row as ``by`` (ignored by the engine) and
        kept for the hand's record (:meth:`made_for`)."""
        self._note_made_for(hand, index, made_by)
        if made_by is not None:
            action = json_text({**json.loads(action), "by": made_by})
        self.store.add_action(self.table_id, self.actions, hand, action, seq=seq, match=match)
        self.actions += 1

    def _note_made_for(self, hand: int, index: int, made_by: object) -> None:
        if hand != self._made_for_hand:
            self._made_for_hand = hand
            self._made_for = {}
        if made_by in MADE_BY:
            self._made_for.setdefault(str(made_by), []).append(index)

    def made_for(self, hand: int) -> dict[str, list[int]]:
        """The actions of hand ``hand`` of the current match made for a person, by who made
        them (:data:`MADE_BY`), each a list of places in the hand's actions (from 0): the
        record's ``made_for`` (docs/hand-record.md). Empty when there are none."""
        if hand != self._made_for_hand:
            return {}
        return {by: list(places) for by, places in self._made_for.items()}

    def hand_finished(
        self,
        number: int,
        record: dict[str, Any],
        payouts: list[int],
        *,
        facts: HandFacts,
        totals: Sequence[int],
        finished: float,
        match: int,
    ) -> None:
        """Hand ``number`` is over: its record (who played it: the stored seats, and who left a
        seat emptied during it, :meth:`seat_left`) and the match's running totals."""
        self.store.save_hand(
            self.table_id,
            number,
            record,
            payouts,
            finished=finished,
            match=match,
            facts=facts,
            left=self.left,
        )
        self._forget_left()
        self.store.update_table(self.table_id, totals=totals)

    def match_ended(
        self,
        seats: Sequence[SeatState],
        totals: Sequence[int],
        *,
        hands: int,
        finished: float,
        match: int,
    ) -> None:
        """The match is over (played out, ended by the host, or its table closing) after
        ``hands`` finished hands: the table's row and each seat's result."""
        self._forget_left()  # a hand in play when it ended early is not stored
        self.store.update_table(self.table_id, state="over", finished=finished, totals=totals)
        self.store.save_results(
            self.table_id,
            [(i, s.name, s.kind, totals[i]) for i, s in enumerate(seats)],
            hands=hands,
            finished=finished,
            match=match,
        )

    def seeds_revealed(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """Every server seed of the match, published: added to the records of the hands they
        dealt."""
        self.store.reveal_deal_seeds(self.table_id, entries)

    def rematch(self, match: int) -> None:
        """A new match ``match`` waits at the table, its totals from zero."""
        self.store.update_table(
            self.table_id, state="waiting", match_number=match, totals=[0] * NUM_SEATS
        )

    # ------------------------------------------------------------------ the end

    def closed(self, state: TableState, *, match: int, finished: float) -> None:
        """The table closes in ``state`` (``waiting``, or ``over`` once a match ran): keep what
        is worth keeping, and nothing is restored from it.

        A table that never started is forgotten whole: tables made and left in a loop must not
        grow the database. One that started but finished no hand keeps only its row (the
        actions of an abandoned hand refer to it), so start, end and leave in a loop leaves
        little. Otherwise its row is marked closed, ``finished`` now unless its match ended
        before. Its lines (chat and notices) are deleted in every case: nobody is sent them
        again."""
        store = self.store
        self._forget_left()
        if self.lines:
            store.forget_lines(self.table_id)
            self.lines = 0
        if state == "waiting" and match == 0:
            store.forget_table(self.table_id)
        elif not store.has_hands(self.table_id):
            store.forget_table(self.table_id, keep_row=True)
            store.update_table(self.table_id, state="closed", finished=finished)
        elif state == "waiting":
            store.update_table(self.table_id, state="closed", finished=finished)
        elif state == "over":  # not to be restored, within over_table_ttl or not
            store.update_table(self.table_id, state="closed")
