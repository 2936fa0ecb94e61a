"""One table: five seats, an engine Match, bots, timers, and what everyone at the table is sent.

Every change goes the same way: the engine validates it (an illegal action raises and changes
nothing), the table's ledger (``server.tables.ledger``) records it in the store's open
transaction, the table's ``seq`` goes up by one, and each seat is sent a ``state`` built from
:func:`engine.view.seat_view` for that seat only (spectators get the public view). The server
commits the transaction before any of those messages leaves (see ``server.app``).

Who plays a seat's turn:

- a server bot: after ``bot_delay``, its strategy (in a bot worker process, ``server.bots.pool``);
- a connected player: they answer the ``your_turn`` prompt; with a turn timer, a stand-in bot
  moves for them when it runs out;
- an absent player: nothing happens during the table's grace period, then a stand-in bot plays
  the seat until they come back; a seat left during a match is played by a stand-in too.

Nothing at all moves while nobody is connected to the table, so an abandoned table does not burn
the server's time; once its grace period has passed the lobby's sweep closes it, its match ended
(``Lobby.sweep``).

After the fifth card of a trick that is not the hand's last, the next leader is prompted (and a
bot leads) only ``trick_pause`` seconds later, so people see the finished trick. When the match
is over the table stays, with its seats and tokens, until the host starts a rematch
(:meth:`Table.rematch`) or ``over_table_ttl`` runs out. :meth:`Table.history_reply` answers the
``history`` request from the finished hands of the current match, kept packed, and those of an
earlier match of the table from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import secrets
from collections import Counter, deque
from collections.abc import Generator, Mapping, Sequence
from typing import Any

from engine.actions import NUM_SEATS, Action, action_from_dict
from engine.bots import strategy_names
from engine.errors import BadRecordError
from engine.match import Match
from engine.record import hand_from_record
from engine.rules import wire_map
from engine.view import OUTCOME_PART, legal_maps, shared_part
from protocol import errors
from protocol import events as m
from protocol.framing import encode, frame, pack
from protocol.requests import NAME_MAX, RequestError
from protocol.text import name_key
from server.config import host_can_raise
from server.storage.store import TableRow, hash_token, json_text
from server.storage.tallies import HandFacts, canonical_spec
from server.tables.commitments import SeedCeremony
from server.tables.history import (
    LINES_KEPT,
    MatchHistory,
    away_told,
    history_entry,
    history_reply,
    stored_entry,
)
from server.tables.hub import Hub, Peer
from server.tables.ledger import BEFORE, Holder, TableLedger
from server.tables.presence import Presence
from server.tables.seats import BOT_NAMES, TOKEN_BYTES, SeatState, TableState
from server.tables.states import ViewParts, public_action, send_states
from server.tables.table_config import TableConfig, password_matches
from server.tables.turns import TurnClock

log = logging.getLogger("sheepshead.server")

_MATCH_ENDS_REFUSED = (
    "Hosts from your address have ended too many matches early lately; wait a minute"
)
_BOT_PLACE_FREED = (
    "removing a bot, or a match ending, frees a place (bots at a table whose match is over "
    "do not count)"
)


MOVED_AWAY = (
    "Your seat moved to another window or device of yours: a newer connection took it over"
    " with its seat token"
)
"""The ``replaced`` notice's and error's text, to the connection that had the seat."""
NAME_KEPT = "name_kept"
"""The notice code that tells a player back at their seat under another name that the seat
keeps its name (:meth:`Table._tell_name_kept`)."""


def _shown_as(asked: str, shown: str) -> bool:
    """Whether ``shown`` is how a table shows the name ``asked``: the same up to case, width
    and look-alikes (:func:`protocol.text.name_key`), or that name numbered
    (:func:`server.tables.seats.distinct_name`: "Ann 2")."""
    if name_key(asked) == name_key(shown):
        return True
    base, _, number = shown.rpartition(" ")
    if not (base and number.isdigit() and number.isascii() and int(number) >= 2):
        return False
    return name_key(asked[: NAME_MAX - len(number) - 1].rstrip()) == name_key(base)


_UNSHOWN: frozenset[str] = frozenset({"no_crack", "no_recrack"})
"""The decisions no seat view shows (PROTOCOL.md §7): not counted in a seat summary's
``before``, which counts as a client reading its view can."""


@functools.lru_cache(maxsize=4096)
def _record_of(action: Action) -> tuple[dict[str, Any], str]:
    """``action.to_dict()`` (read-only) and its stored JSON, memoised: actions are values, and
    there are only a few hundred different ones, which every table plays over and over."""
    record = action.to_dict()
    return record, json_text(record)


class Table:
    """A table in the lobby: seats, spectators, host, the match and its timers.

    Made of parts, each with the interface it needs of the table spelled out: :attr:`turns`
    (:class:`~server.tables.turns.TurnClock`: the turn timer, trick pauses and bot moves),
    :attr:`presence` (:class:`~server.tables.presence.Presence`: the grace periods and
    stand-ins of absent players), :attr:`seeds` (:class:`~server.tables.commitments.SeedCeremony`:
    the fair deal's seeds) and :attr:`ledger` (:class:`~server.tables.ledger.TableLedger`:
    everything the table stores, told what happened; the table never calls the store)."""

    def __init__(self, hub: Hub[Table], table_id: str, config: TableConfig) -> None:
        self.hub = hub
        self.id = table_id
        self.config = config
        self.state: TableState = "waiting"
        self.seats = [SeatState() for _ in range(NUM_SEATS)]
        self.host_seat: int | None = None
        self.match: Match | None = None
        self.seq = 0
        self.turn_seq = 0
        self.last: dict[str, Any] | None = None
        self.spectators: set[Peer] = set()
        self.last_activity = hub.now()
        self._next_hand_task: asyncio.Task[None] | None = None
        self._starting: asyncio.Task[None] | None = None
        """The first deal waiting for the players' client seeds."""
        self._start_accepted = False
        """Restored: a ``start`` or ``rematch`` was accepted before the restart and its first
        hand not dealt; :meth:`start_after_restore` starts the match again."""
        self.stopped = False
        self._summary_cache: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self._info_sent: dict[Peer, dict[str, Any]] = {}
        """The summary each attached connection was last sent (``info`` is left out if same)."""
        self._left: dict[int, SeatState] = {}
        """Each seat emptied during the current hand, as it was last held (a stand-in finished
        the hand for its bot or person, who is named for it); cleared at each deal."""
        self._holders: dict[int, list[Holder]] = {}
        """Each seat taken over by a newcomer during the current hand: who held it before, in
        order, each with the hand's action count when the next holder sat down (the seat
        summary's ``before``, PROTOCOL.md §6.1); cleared at each deal."""
        self._view_parts = ViewParts()
        """The view parts kept between changes: the deal's and the auction's
        (``server.tables.states``)."""
        self.match_number = 0
        """The current match at this table: 0, then +1 per rematch."""
        self._known_totals: dict[int, list[int]] = {}
        """The current match's running totals before a hand, by its number, as the last read of
        its stored hands left them (:meth:`_stored_entries`' ``known``)."""
        self.history = MatchHistory(read=self._current_entries)
        """Each finished hand of the current match, packed as its ``history`` entry (bytes, so
        the garbage collector never walks them), the last ``HANDS_KEPT`` kept in memory; the
        older ones, and a restored table's hands finished before the restart, are read from
        the store when asked for."""
        self.lines: deque[bytes] = deque(maxlen=LINES_KEPT)
        """The last chat and notice events, packed as they were sent (restored: the stored ones
        from before the restart)."""
        self.finished_at: float | None = None
        """Wall-clock time the last match ended (while the table is ``over``)."""
        self._over_timer: asyncio.TimerHandle | None = None
        self.presence = Presence(self)
        """The grace periods and stand-ins of absent players."""
        self.turns = TurnClock(self)
        """Who moves when: the turn timer, the trick pause, bots' and stand-ins' moves."""
        self.ledger = TableLedger(hub.store, table_id)
        """What the table writes to the store and reads back from it."""
        self.seeds = SeedCeremony(self)
        """The fair deal's seeds: commitments, client seeds, reveal (PROTOCOL.md §13)."""

    # ------------------------------------------------------------------ after a restart

    @classmethod
    def restore(cls, hub: Hub[Table], row: TableRow) -> Table:
        """A stored table brought back after a restart: its seats, and its match as its stored
        hands left it before its last hand with any action, that hand replayed through the
        engine (which checks every action again); the history of the hands before that one is
        read from the store when asked for, so a restore costs the same however many hands the
        match has played. Its timers start with :meth:`start_after_restore`, once every table
        is back."""
        table = cls(hub, row.id, TableConfig.from_dict(row.config))
        now = hub.now()
        for seat_row in row.seats:
            if not 0 <= seat_row.seat < NUM_SEATS:
                continue
            s = table.seats[seat_row.seat] = SeatState.restored(seat_row, now)
            if s.kind != "bot" and s.token_hash:
                hub.tokens[s.token_hash] = (table, seat_row.seat)
                s.identity = table.ledger.seat_identity(seat_row.seat)
        table.host_seat = row.host_seat
        table.match_number = row.match_number
        table._start_accepted = row.state == "waiting" and row.starting
        if row.state == "over":
            table.finished_at = row.finished
        if row.state == "playing" or (row.state == "over" and row.seed is not None):
            if row.seed is None:
                raise ValueError("a playing table without a seed")
            deal_seeds = table.seeds.restore(table.ledger.deal_seeds())
            match = Match(
                table.config.rules,
                seed=row.seed,
                hand_limit=table.config.hands,
                first_dealer=row.first_dealer,
                keep_history=False,
                deal_seed=deal_seeds.seed_for if deal_seeds is not None else None,
            )
            table.match = match
            first = row.actions[0][0] if row.actions else 0
            if first > 0:
                table._resume(match, first, row.totals)
            for number, data in row.actions:
                while match.number < number:
                    match.next_hand()
                match.apply(action_from_dict(data))
                table.ledger.action_replayed(number, len(match.hand.actions) - 1, data)
                data.pop("by", None)  # the stored row's own field, not the action's
                table.last = data
                if match.hand.is_over:
                    table.remember_hand(match.number)  # history, as it was before the restart
            while row.dealt is not None and match.number < row.dealt and not match.is_over:
                match.next_hand()  # dealt (and shown) before the crash, no action yet
                table.last = None
            if row.state == "over" and not match.is_over:
                match.end()  # the host ended it early
            table.state = "over" if row.state == "over" else "playing"
            table.ledger.actions_replayed(row.actions_before + len(row.actions))
            if match.totals != row.totals:
                log.warning(
                    "table %s: replayed totals %s differ from stored %s",
                    row.id,
                    match.totals,
                    row.totals,
                )
        elif row.state == "over":
            table.state = "over"
        # Who held the seats emptied during the hand in play: it is still theirs (stored).
        table._left = table.ledger.left_restored(row.left)
        table._holders = table.ledger.holders_restored(row.holders)
        # Everyone was dropped by the restart: only a return of who was away before it is news.
        away = {seat_row.seat for seat_row in row.seats if seat_row.away}
        for seat, s in enumerate(table.seats):
            s.away_by_restart = s.kind == "human" and seat not in away
        for line in table.ledger.lines_restored(row.lines, LINES_KEPT):
            said = (
                m.chat(
                    table=table.id,
                    sender=line.sender,
                    seat=line.seat,
                    text=line.text,
                    spectator=line.seat is None,
                )
                if line.code is None
                else m.notice(table=table.id, code=line.code, text=line.text, seat=line.seat)
            )
            table.lines.append(pack(said))  # the last lines, as sent before the restart
        table.seq = row.seq
        table.turn_seq = row.seq + 1
        return table

    def _resume(self, match: Match, number: int, totals: Sequence[int]) -> None:
        """Restore ``match`` to the deal of its hand ``number`` from its stored hands: the one
        before it (its stakes, for a doubler), and the stored running ``totals``, less hand
        ``number``'s payouts if it is stored too (it finished: it is replayed)."""
        with contextlib.closing(self.ledger.match_hands(self.match_number, number - 1)) as rows:
            stored = list(itertools.islice(rows, 2))
        if not stored or stored[0][0] != number - 1:
            raise ValueError(f"hand {number - 1} of match {self.match_number} is not stored")
        before = list(totals)
        if len(stored) > 1 and stored[1][0] == number:
            payouts = json.loads(stored[1][2])
            before = [total - int(pay) for total, pay in zip(before, payouts, strict=False)]
        match.resume(number, before, hand_from_record(json.loads(stored[0][1])))
        self.history.restored(number)
        self._known_totals.clear()  # totals before a hand of it, the one after the last read
        self._known_totals[number] = before

    def start_after_restore(self) -> None:
        """Start a restored table's timers: grace for absent players, the next hand, the bots."""
        match = self.match
        if self.state == "over":
            ended = self.hub.wall() - (self.finished_at or 0.0)
            self._start_over_timer(self.hub.config.over_table_ttl - ended)
            if not self._maybe_close():
                self.publish_state()
            return
        if self.state == "playing" and match is not None:
            self.presence.start_absent_graces()
            if match.hand.is_over:
                if match.is_over:
                    self._finish_match()
                    return
                self._next_hand_task = asyncio.create_task(self._deal_next(match.number))
        if self._start_accepted:
            # The start was acknowledged before the restart: it stands (a new commitment, as
            # on a fresh start; nobody is connected yet, so the deal follows at once).
            self._start_accepted = False
            if all(s.kind != "empty" for s in self.seats):
                self._new_match()
                return
            self._cancel_start()
        self.publish_state(new_turn=True)

    # ------------------------------------------------------------------ summary

    @property
    def has_password(self) -> bool:
        """Whether joining needs a password."""
        return self.config.password_hash is not None

    def summary(self) -> dict[str, Any]:
        """The table summary of PROTOCOL.md §6.1 (no secrets: no tokens, no password)."""
        host = self.seats[self.host_seat].name if self.host_seat is not None else None
        strategies = self.seat_strategies()
        before = self._before_summaries()
        return {
            "id": self.id,
            "name": self.config.name,
            "host": host,
            "host_seat": self.host_seat,
            "rules": wire_map(self.config.rules),
            "hands": self.config.hands,
            "hands_played": self.match.hands_played if self.match else 0,
            "state": self.state,
            "password": self.has_password,
            "turn_timer": self.config.turn_timer,
            "grace": self.config.grace,
            "hints": self.config.hints,
            "trick_pause": self.hub.config.trick_pause,
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "kind": "bot" if s.remote_kind == "bot" else s.kind,
                    "connected": s.kind == "bot" or s.peer is not None,
                    "strategy": strategies[i],
                    "remote": s.kind == "human",
                    "standin": self.presence.standin_active(i),
                    **({"before": before[i]} if i in before else {}),
                    # A seat its player left once the match was over: the name stays with the
                    # final totals, and a join may take it (the lobby counted it taken).
                    **({"left": True} if s.kind == "human" and self._free(i) else {}),
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": len(self.spectators),
        }

    def _before_summaries(self) -> dict[int, list[dict[str, Any]]]:
        """The seat summaries' ``before`` (PROTOCOL.md §6.1): for each seat taken over during
        the hand in play, who held it before and where in the hand each handed over, counted
        as a view can count it (the decisions it shows, and the cards played)."""
        match = self.match
        if not self._holders or match is None:
            return {}
        actions = match.hand.actions
        out: dict[int, list[dict[str, Any]]] = {}
        for seat, holders in self._holders.items():
            out[seat] = []
            for name, until in holders:
                done = actions[:until]
                cards = sum(1 for a in done if a.kind == "play")
                hidden = sum(1 for a in done if a.kind in _UNSHOWN)
                out[seat].append(
                    {"name": name, "decisions": len(done) - cards - hidden, "cards": cards}
                )
        return out

    def seat_strategies(self, seats: Sequence[SeatState] | None = None) -> list[str | None]:
        """Each seat's strategy as its seat summary shows it (§6.1): a server bot's, by the
        name of the strategy it is (:func:`canonical_spec`: ``easy`` is ``random``), else None
        (a person, a stand-in, a remote bot), so a hand record tells no more than the table
        and two tables name one strategy alike. ``seats``: these instead of the table's."""
        # Named once, where a seat gets its bot: add_bot and a restored seat.
        return [
            (s.strategy_name or None) if s.kind == "bot" else None
            for s in (self.seats if seats is None else seats)
        ]

    @property
    def totals(self) -> list[int]:
        """Running scores per seat."""
        return list(self.match.totals) if self.match else [0] * NUM_SEATS

    def peers(self) -> list[Peer]:
        """Every connection attached to the table (seated and watching)."""
        return [peer for peer, _ in self._recipients()]

    # ------------------------------------------------------------------ lobby requests

    def check_password(self, password: str | None) -> None:
        """Raise ``bad_password`` unless ``password`` opens this table."""
        stored = self.config.password_hash
        if stored is None:
            return
        if password is None or not password_matches(password, stored, self.config.password_salt):
            raise RequestError(errors.BAD_PASSWORD, "This table needs the right password")

    def check_join(
        self, seat: int | None, password: str | None, identity: str | None = None
    ) -> int:
        """The seat a join would take (first free when ``seat`` is None); raises if it cannot.

        ``identity``: the joining player's (from hello's ``player_key``); a player holds at
        most one seat of a table (``already_seated``), since the standings count each seat's
        hands for its identity and two seats of one player would play as partners in secret.
        A seat of theirs that is away (its connection gone, kept for its token) is the seat
        the join takes (:meth:`away_seat`, :meth:`reclaim`: a player who lost the token takes
        it back with their key); one whose connection is up is not: a key is every device's
        of its player, and only the seat's token takes over a connected seat (``replaced``)."""
        self.check_password(password)
        held = self.held_seat(identity)
        if held is not None:
            away = self.seats[held].peer is None
            if away and seat in (None, held):
                return held
            how = (
                f"join seat {held} to take it back"
                if away
                else "it is connected; its seat token takes it over"
            )
            raise RequestError(
                errors.ALREADY_SEATED,
                f"Your player key already holds seat {held} at this table: {how}",
            )
        if seat is None:
            free = [i for i in range(NUM_SEATS) if self._free(i)]
            if not free:
                raise RequestError(errors.TABLE_FULL, "Every seat at this table is taken")
            return free[0]
        if not self._free(seat):
            raise RequestError(errors.SEAT_TAKEN, f"Seat {seat} is taken")
        return seat

    def _free(self, seat: int) -> bool:
        """Whether a join may take ``seat``: empty, or, once the match is over, left by its
        player (the name stays shown with the final totals until somebody sits there)."""
        s = self.seats[seat]
        if s.kind == "empty":
            return True
        return (
            self.state == "over" and s.kind == "human" and s.token_hash is None and s.peer is None
        )

    def join(self, peer: Peer, seat: int) -> str:
        """Seat ``peer`` at ``seat`` (checked with :meth:`check_join`); returns its token."""
        self._note_takeover(seat)
        token = self._seat_peer(peer, seat)
        if self.state == "playing":
            self.notice("joined", f"{peer.name} took seat {seat}", seat)
            self._publish_commitment()  # a new seat's seed counts from the next hand
        self.publish_state()
        return token

    def held_seat(self, identity: str | None) -> int | None:
        """The seat of this table that ``identity`` holds, connected or away (its connection
        gone, the seat kept for its token), or None. Keyless players (None) hold none."""
        if identity is None:
            return None
        for i, s in enumerate(self.seats):
            held = s.peer is not None or s.token_hash is not None
            if s.identity == identity and s.kind == "human" and held:
                return i
        return None

    def away_seat(self, identity: str | None) -> int | None:
        """The seat of this table that ``identity`` holds while its connection is gone (kept
        for its token: the player is away), or None. Keyless players (None) hold none."""
        if identity is None:
            return None
        for i, s in enumerate(self.seats):
            away = s.peer is None and s.token_hash is not None
            if s.kind == "human" and away and s.identity == identity:
                return i
        return None

    def reclaim(self, peer: Peer, seat: int) -> str:
        """``peer``'s player key holds ``seat``, away (:meth:`away_seat`): seat it there again
        as a reconnect would (same seat, name and score; the stand-in stops; the table is told
        ``reconnected``). Returns the seat's new token: the one the player lost stops working,
        so a seat keeps one token."""
        s = self.seats[seat]
        self.spectators.discard(peer)
        self._forget_token(s)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        s.token_hash = hash_token(token)
        self.hub.tokens[s.token_hash] = (self, seat)
        self.ledger.seat_changed(seat, s)
        log.info("table %s: %s takes seat %d back with their player key", self.id, s.name, seat)
        self.resume(peer, seat)
        return token

    def _note_takeover(self, seat: int) -> None:
        """A newcomer is about to sit at ``seat``: if the seat was emptied during the hand in
        play and moved since its last holder came (its earlier holder, then the stand-in that
        played for them), remember who that was and until when (:attr:`_holders`)."""
        match = self.match
        held = self._left.get(seat)
        if self.state != "playing" or match is None or match.hand.is_over or held is None:
            return
        actions = match.hand.actions
        holders = self._holders.setdefault(seat, [])
        since = holders[-1][1] if holders else 0
        if not any(a.seat == seat for a in actions[since:]):
            if not holders:
                del self._holders[seat]
            return  # no move of theirs to tell apart from the newcomer's
        name = held.name or ""
        holders.append((name, len(actions)))
        self.ledger.seat_taken_over(seat, name, len(actions))

    def _seat_peer(self, peer: Peer, seat: int) -> str:
        self.spectators.discard(peer)
        self._info_sent.pop(peer, None)  # its first state is a snapshot, summary and all
        token = secrets.token_urlsafe(TOKEN_BYTES)
        s = self.seats[seat]
        self.presence.cancel_grace(s)
        s.kind = "human"
        s.name = peer.name
        s.strategy_name = None
        s.remote_kind = peer.kind
        s.token_hash = hash_token(token)
        s.peer = peer
        s.disconnected_at = None
        s.standin = False
        s.added_by = None
        s.identity = getattr(peer, "identity", None)
        s.since = (self.match_number, len(self.history))  # a new holding: see hand_played_by
        self.hub.tokens[s.token_hash] = (self, seat)
        peer.table = self
        peer.seat = seat
        if self.host_seat is None:
            self.host_seat = seat
            self.ledger.host_changed(seat)
        self.ledger.seat_changed(seat, s)
        self.last_activity = self.hub.now()
        log.info("table %s: %s sits at seat %d", self.id, peer.name, seat)
        return token

    def check_watch(self, peer: Peer) -> None:
        """Raise ``too_many_spectators`` if ``peer`` may not start watching: the table has
        ``max_spectators_per_table`` spectators already (seats are not spectators; ``peer``
        watching it already keeps its place)."""
        limit = self.hub.config.max_spectators_per_table
        if peer not in self.spectators and len(self.spectators) >= limit:
            raise RequestError(
                errors.TOO_MANY_SPECTATORS,
                f"Table {self.id} has {limit} spectators, as many as this server allows; try "
                "again when one leaves. " + host_can_raise("max_spectators_per_table"),
            )

    def watch(self, peer: Peer) -> None:
        """Add ``peer`` as a spectator and send the public snapshot."""
        self.spectators.add(peer)
        self.hub.summary_changed()
        peer.table = self
        peer.seat = None
        self.last_activity = self.hub.now()
        self._info_sent.pop(peer, None)  # a snapshot: the summary too
        self._send_states([(peer, None)])
        self.turns.schedule()

    def leave(self, peer: Peer) -> None:
        """``peer`` stands up (or stops watching)."""
        seat = self._unlink(peer)
        if seat is None:
            self._drop_spectator(peer)
            return
        s = self.seats[seat]
        name = s.name
        s.peer = None
        if self.state == "over":
            self._forget_token(s)
            self.presence.cancel_grace(s)
            s.disconnected_at = self.hub.now()
            self.ledger.seat_changed(seat, s)
            if self.host_seat == seat:
                # The seat stays shown with the final totals, but its player is gone: the
                # host's keys (the rematch) go to who stays, or nobody at the table could
                # start another match there.
                self._pass_host(seat)
            if not self._maybe_close():
                self.publish_state()
            return
        self._vacate(seat)  # first: the token tells whose the hand in play is (standings)
        self._forget_token(s)
        log.info("table %s: %s left seat %d", self.id, name, seat)
        playing = self.state == "playing"
        if playing:
            self.notice("left", f"{name} left; a bot plays seat {seat}", seat)
        if not self._maybe_close():
            self.publish_state()
        elif playing:  # leaving ended the match, as end_match would have: it counts as one
            self.hub.match_end_allowed(peer.address, take=True)

    def _unlink(self, peer: Peer) -> int | None:
        """Detach ``peer`` from the table; the seat it held, or None (it was watching)."""
        self._info_sent.pop(peer, None)
        seat = peer.seat
        peer.table = None
        peer.seat = None
        if seat is None or self.seats[seat].peer is not peer:
            return None
        return seat

    def _drop_spectator(self, peer: Peer) -> None:
        self.spectators.discard(peer)
        self.hub.summary_changed()
        self.last_activity = self.hub.now()  # the grace of an unattended table counts from here
        self._maybe_close()

    def _vacate(self, seat: int) -> None:
        s = self.seats[seat]
        match = self.match
        in_hand = self.state == "playing" and match is not None and not match.hand.is_over
        if in_hand and s.kind != "empty":  # a stand-in finishes the hand for them: it is theirs
            self._left[seat] = s
            self.ledger.seat_left(seat, s)
        self.seats[seat] = SeatState()
        self.presence.cancel_grace(s)
        self.ledger.seat_changed(seat, self.seats[seat])
        if self.host_seat == seat:
            self._pass_host(seat)
        if self._starting is not None:
            self._abandon_start()
        self.seeds.recheck()  # a next hand's deal no longer waits for this seat's seed

    def _pass_host(self, seat: int) -> None:
        """The host left ``seat``: the first other seat a person holds is the host (told to
        the table), or nobody."""
        humans = [
            i
            for i, x in enumerate(self.seats)
            if i != seat and x.kind == "human" and (x.peer is not None or x.token_hash is not None)
        ]
        self.host_seat = humans[0] if humans else None
        self.ledger.host_changed(self.host_seat)
        if self.host_seat is not None:
            new_host = self.seats[self.host_seat].name
            self.notice("host", f"{new_host} is now the host", self.host_seat)

    def _abandon_start(self) -> None:
        """A seat emptied while the first deal waited for the people's client seeds: the
        start is off at once, told ``start_cancelled``, not when the wait ends. So a table
        waiting with a seat empty never has a start pending: whoever sits there next finds a
        table its host starts again (``start`` taken, not ``already_started``), and sends a
        seed for that start's own commitment; before, the old start dealt at the end of the
        wait, the newcomer's seed drawn, and only if the seat had filled again by then."""
        if self._starting is not None:
            self._starting.cancel()
            self._starting = None
        self.seeds.cancel()
        self._cancel_start()

    def _cancel_start(self) -> None:
        """An accepted start will not deal (a seat emptied before it, before or across a
        restart): stored so a restart does not start it again, and told to the table, in
        words for everyone at it: "start again" read as an order to players who cannot start."""
        self.ledger.start_cancelled()
        self.notice(
            "start_cancelled", "A seat emptied before the deal: the host starts the match again"
        )

    def _require_host(self, peer: Peer) -> None:
        if peer.table is not self or peer.seat is None or peer.seat != self.host_seat:
            raise RequestError(errors.NOT_HOST, "Only the table's host may do that")

    def add_bot(self, peer: Peer, seat: int | None, strategy: str | None) -> int:
        """Host: seat a server bot; returns its seat."""
        self._require_host(peer)
        if self.state == "over":
            raise RequestError(errors.MATCH_OVER, "The match at this table is over")
        name = strategy or self.hub.default_bot()
        choices = strategy_names()
        if name not in choices:
            raise RequestError(
                errors.BAD_REQUEST,
                f"field 'strategy': unknown bot strategy {name!r} (choose from "
                f"{', '.join(choices)})",
            )
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not free:
                raise RequestError(errors.TABLE_FULL, "Every seat at this table is taken")
            seat = free[0]
        elif self.seats[seat].kind != "empty":
            raise RequestError(errors.SEAT_TAKEN, f"Seat {seat} is taken")
        limit = self.hub.config.max_bots_per_address
        if self.hub.bots_seated_by(peer.address) >= limit:
            raise RequestError(
                errors.TOO_MANY_BOTS,
                f"Hosts from your address have {limit} server bots at tables that play or wait "
                f"to play, as many as this server allows; {_BOT_PLACE_FREED}",
            )
        s = self.seats[seat]
        self.presence.cancel_grace(s)
        s.kind = "bot"
        s.strategy_name = canonical_spec(name)
        s.name = BOT_NAMES[seat]  # short, distinct per seat (five fit an 80-column table)
        s.added_by = peer.address
        self.hub.bots.warm()
        self.ledger.seat_changed(seat, s)
        self.publish_state()
        return seat

    def remove_bot(self, peer: Peer, seat: int) -> None:
        """Host: take a server bot out of its seat."""
        self._require_host(peer)
        if self.seats[seat].kind != "bot":
            raise RequestError(errors.NOT_A_BOT, f"Seat {seat} is not held by a server bot")
        self._vacate(seat)
        self.publish_state()

    def start(self, peer: Peer) -> None:
        """Host: deal the first hand of the match."""
        self._require_host(peer)
        if self.state == "over":
            raise RequestError(errors.MATCH_OVER, "The match at this table is over")
        if self.state != "waiting":
            raise RequestError(errors.ALREADY_STARTED, "The match has already started")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        if empty:
            raise RequestError(
                errors.NOT_ENOUGH_PLAYERS,
                f"A match needs five players or bots; seat(s) {', '.join(map(str, empty))} empty",
            )
        if self._starting is not None:
            raise RequestError(
                errors.ALREADY_STARTED, "The match is starting (waiting for the players' seeds)"
            )
        self.hub.may_start(self)
        if not self.hub.match_end_allowed(peer.address, take=False):
            raise RequestError(errors.RATE_LIMITED, _MATCH_ENDS_REFUSED)
        self._new_match()

    def _new_match(self) -> None:
        """Begin a new match: the one place a match begins (``start`` and a full table's
        ``rematch``). Each match gets its own commitment (PROTOCOL.md §13); the first hand is
        dealt once the connected players' seeds are in, or at once without people."""
        self.seeds.new_match()
        self._publish_commitment()
        if self.seeds.seed_seats() and self.hub.config.seed_wait > 0:
            self.ledger.start_accepted()  # stored with the ``ok``: a restart keeps the start
            self._starting = asyncio.create_task(self._deal_first_hand_when_seeded())
        else:
            self._deal_first_hand()

    async def _deal_first_hand_when_seeded(self) -> None:
        """Deal the first hand once every person's client seed is in (or the wait is over)."""
        try:
            await self.seeds.wait_for_seeds()
            self._starting = None
            if self.state != "waiting":
                return
            if any(s.kind == "empty" for s in self.seats):
                self._abandon_start()  # not reached: an emptied seat abandons it at once
                return
            self._deal_first_hand()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: starting the match failed", self.id)

    def _deal_first_hand(self) -> None:
        """Deal the first hand of the match with the commitment published when the match began."""
        deal_seeds = self.seeds.deal_seeds
        assert deal_seeds is not None
        self.seeds.lock(0)
        seed = secrets.randbits(62)
        self.match = Match(
            self.config.rules,
            seed=seed,
            hand_limit=self.config.hands,
            keep_history=False,
            first_dealer=deal_seeds.first_dealer(),
            deal_seed=deal_seeds.seed_for,
        )
        self.state = "playing"
        self._left.clear()
        self._holders.clear()
        self.turns.new_match()
        self.ledger.match_started(seed=seed, first_dealer=self.match.first_dealer)
        log.info(
            "table %s: match %d started (hands=%s)", self.id, self.match_number, self.config.hands
        )
        self.last = None
        self.presence.start_absent_graces()
        self.publish_state(new_turn=True)

    def rematch(self, peer: Peer) -> None:
        """Host, once the match is over: a new match with the same seats, totals from zero.

        Bots and players (connected or not, with their tokens) keep their seats; a seat whose
        player left is emptied. A full table starts at once, else it waits for ``start``.
        """
        self._require_host(peer)
        if self.state != "over":
            raise RequestError(errors.NOT_OVER, "The match at this table is not over yet")
        if not self.hub.match_end_allowed(peer.address, take=False):
            raise RequestError(errors.RATE_LIMITED, _MATCH_ENDS_REFUSED)
        self.hub.may_start(self)  # an over table is not counted as playing: it would be again
        self._check_bots_may_play(peer)
        self._cancel_over_timer()
        for i in range(NUM_SEATS):
            s = self.seats[i]
            if s.kind == "human" and s.token_hash is None and s.peer is None:
                self._vacate(i)
        self.match_number += 1
        self.match = None
        self.history.clear()
        self._known_totals.clear()
        self.last = None
        self.finished_at = None
        self.state = "waiting"
        self.ledger.rematch(self.match_number)
        log.info("table %s: rematch (match %d)", self.id, self.match_number)
        self.notice("rematch", f"{peer.name} started a new match at this table", self.host_seat)
        if all(s.kind != "empty" for s in self.seats):
            self._new_match()
        else:
            self.publish_state()

    def _check_bots_may_play(self, peer: Peer) -> None:
        """Raise ``too_many_bots`` when this over table's server bots, brought back to play by
        a rematch, would give an address that seated them more than ``max_bots_per_address``
        at tables that play or wait to play (while the match is over they do not count: they
        cost nothing, ``Lobby.bots_seated_by``). A restored table's bots have their address
        stored with them."""
        limit = self.hub.config.max_bots_per_address
        here = Counter(s.added_by for s in self.seats if s.kind == "bot" and s.added_by)
        for address, count in here.items():
            seated = self.hub.bots_seated_by(address)
            if seated + count > limit:
                whose = (
                    "your address" if address == peer.address else "the address that seated them"
                )
                raise RequestError(
                    errors.TOO_MANY_BOTS,
                    f"A rematch would give hosts from {whose} {seated + count} server bots at "
                    f"tables that play or wait to play ({count} here); this server allows "
                    f"{limit}: {_BOT_PLACE_FREED}",
                )

    def history_reply(self, start: int, match: int | None = None) -> dict[str, Any]:
        """The ``ok`` fields answering ``history`` (``server.tables.history``): of the current
        match (``match`` None or its number), or of an earlier match of this table, rebuilt
        from the store (``bad_request`` for a match the table never had)."""
        history = self.history
        if match is None or match == self.match_number:
            return history_reply(
                table=self.id,
                match=self.match_number,
                hands_played=history.entries(start),
                # A page of hands finished before a restart reads and replays each from the
                # store, as an earlier match's: as few as one of those (config).
                max_hands=self._earlier_page_hands() if start < history.stored else None,
                lines=self.lines,
                start=start,
                max_frame=self.hub.config.max_frame,
                fair=self._fair_map,
            )
        if not 0 <= match < self.match_number:
            raise RequestError(
                errors.BAD_REQUEST,
                f"field 'match': table {self.id} has no match {match} (its matches are 0 to "
                f"{self.match_number})",
            )
        with contextlib.closing(self._stored_entries(match, start)) as entries:
            return history_reply(
                table=self.id,
                match=match,
                hands_played=entries,
                lines=None,
                start=start,
                max_frame=self.hub.config.max_frame,
                max_hands=self._earlier_page_hands(),
            )

    def _earlier_page_hands(self) -> int:
        """Hands a ``history`` page read from the store holds at most (config:
        ``history_earlier_hands``)."""
        return max(1, self.hub.config.history_earlier_hands)

    def _current_entries(self, start: int) -> Generator[tuple[int, bytes], None, None]:
        """The current match's stored ``history`` entries from hand ``start`` on, as
        :attr:`history` reads those it does not keep (:meth:`_stored_entries`)."""
        return self._stored_entries(self.match_number, start, known=self._known_totals)

    def _stored_entries(
        self, match: int, start: int, known: dict[int, list[int]] | None = None
    ) -> Generator[tuple[int, bytes], None, None]:
        """The ``history`` entries of the earlier match ``match`` from hand ``start`` on, built
        from the store as they are taken: each record as stored (the seeds were revealed when
        that match ended), its strategies named as :meth:`remember_hand` names them, the
        match's first server seed added where the record names only its commitment (as the
        current match's ``fair`` map has it once revealed), the names stored with the hand.

        ``known`` (the current match's, :meth:`_resume`): the running totals before a hand,
        by its number; left holding those before the last entry taken (a page takes one past
        its end), so the next page, from there, does not add up every hand before it again."""
        totals = (known or {}).get(start)
        if totals is None:
            totals = self.ledger.match_totals_before(match, start) if start else [0] * NUM_SEATS
        seeds: dict[str, str | None] = {}
        for number, record_text, payouts_text in self.ledger.match_hands(match, start):
            record = json.loads(record_text)
            payouts = [int(p) for p in json.loads(payouts_text)]
            before = totals
            totals = [total + pay for total, pay in zip(totals, payouts, strict=False)]
            stored = record.get("strategies")
            if isinstance(stored, list):
                # A record stored before aliases were named as their strategy says "easy".
                record["strategies"] = [
                    canonical_spec(n) if isinstance(n, str) and n else None for n in stored
                ]
            fair = record.get("fair")
            # Only records stored before the store added match_server_seed at the reveal
            # (Store.reveal_deal_seeds) lack it; theirs is read from the match's first hand.
            # (The current match's are not revealed yet, or the reply sets its fair maps.)
            if isinstance(fair, dict) and "match_server_seed" not in fair and known is None:
                first = fair.get("match_commitment")
                if isinstance(first, str):
                    if first not in seeds:
                        seeds[first] = self.ledger.revealed_seed(match, first)
                    if seeds[first] is not None:
                        fair["match_server_seed"] = seeds[first]
            names = self.ledger.hand_names(match, number) or [s.name or "" for s in self.seats]
            if known is not None:  # a page reads one hand past it: the next one starts there
                known.clear()
                known[number] = before
            yield number, stored_entry(number, record, payouts, names, totals)

    def _fair_map(self, number: int) -> dict[str, Any] | None:
        """Hand ``number``'s ``fair`` map as its stored record has it, with the server seed once
        the match is over (the seeds are revealed then); None for a match dealt without one."""
        return self.seeds.fair(number, revealed=self.state == "over")

    # ------------------------------------------------------------------ commit–reveal seeds

    def offer_seed(self, peer: Peer, quoted: str, seed: bytes) -> None:
        """A seated client's seed for the pending commitment ``quoted`` (PROTOCOL.md §13)."""
        if peer.table is not self or peer.seat is None:
            raise RequestError(errors.NOT_SEATED, "You are not seated at this table")
        self.seeds.offer(peer.seat, quoted, seed)

    def _publish_commitment(self) -> None:
        """Draw a new server seed and send its commitment to everyone at the table."""
        message = self.seeds.commit()
        if message is not None:
            self._broadcast(message)

    def _reveal_seeds(self) -> None:
        """The match is over: publish every server seed (and add it to the stored records)."""
        match = self.match
        message = self.seeds.reveal(match.number + 1) if match is not None else None
        if message is not None:
            self._broadcast(message)

    def end_match(self, peer: Peer) -> None:
        """Host: end the match now (an unfinished hand is abandoned)."""
        self._require_host(peer)
        if self.state == "waiting":
            raise RequestError(errors.NOT_STARTED, "The match has not started")
        if self.state != "playing" or self.match is None:
            raise RequestError(errors.MATCH_OVER, "The match is already over")
        if not self.hub.match_end_allowed(peer.address, take=True):
            raise RequestError(errors.RATE_LIMITED, _MATCH_ENDS_REFUSED)
        self.match.end()
        self._finish_match()

    def chat(self, peer: Peer, text: str) -> None:
        """Pass a (cleaned) chat line to everyone at the table."""
        if not peer.allow_chat():
            raise RequestError(errors.RATE_LIMITED, "You are chatting too fast; wait a moment")
        seat = peer.seat if peer.table is self else None
        # Stored before it is shown (as every change), so a restart sends it again to whoever
        # comes back (history's lines).
        self.ledger.chat_said(peer.name, seat, text, kept=LINES_KEPT)
        message = m.chat(
            table=self.id, sender=peer.name, seat=seat, text=text, spectator=seat is None
        )
        self._broadcast(message, keep=True)

    # ------------------------------------------------------------------ connections

    def resume(self, peer: Peer, seat: int) -> None:
        """A seat token came back: attach ``peer`` to its seat and send the snapshot."""
        s = self.seats[seat]
        old = s.peer
        self._info_sent.pop(peer, None)
        if old is not None and old is not peer:
            self._info_sent.pop(old, None)
            old.table = None
            old.seat = None
            old.send(m.notice(table=self.id, code=errors.REPLACED, text=MOVED_AWAY, seat=seat))
            old.close(errors.REPLACED, MOVED_AWAY)
        was_away = s.disconnected_at is not None
        self.presence.cancel_grace(s)
        s.peer = peer
        s.disconnected_at = None
        s.standin = False
        if s.identity is None:  # a restored seat not linked to a key: known from here on
            s.identity = getattr(peer, "identity", None)
            if s.identity is not None:  # maybe with no change of the summary: a takeover
                self.hub.summary_changed()  # the listing knows which seats are whose
        peer.table = self
        peer.seat = seat
        self.last_activity = self.hub.now()
        log.info("table %s: %s is back at seat %d", self.id, s.name, seat)
        # Cleared before the state goes out: the turn clock of a person the restart dropped
        # starts as that state is published (TurnClock.update_deadline).
        by_restart, s.away_by_restart = s.away_by_restart, False
        # The snapshot first: PROTOCOL.md §3, the welcome is followed by a state.
        self.publish_state()
        if was_away and self.state == "playing" and not by_restart:
            self.notice("reconnected", f"{s.name} is back", seat)
        pending = self.seeds.pending_message()
        if pending is not None:
            peer.send(pending)
        self._tell_name_kept(peer, seat)

    def _tell_name_kept(self, peer: Peer, seat: int) -> None:
        """Tell ``peer``, back at ``seat`` under another name than the seat's (a hello's name
        that differs), that the seat keeps its name: ``notice {code: "name_kept"}``, to it
        alone. The seat's name is fixed while its player holds it, for the score sheet, the
        stored hands and the standings to name one player one way through the match, and for
        nobody at the table to see a seat change its name in the middle of a hand."""
        asked = getattr(peer, "hello_name", None)
        kept = self.seats[seat].name
        if not isinstance(asked, str) or not kept or _shown_as(asked, kept):
            return
        text = (
            f"You are back at seat {seat} as {kept}, not {asked}: a seat keeps its name for the"
            " match, so the score sheet and everybody at the table see one name throughout. To"
            f" play as {asked}, leave the seat once the match is over and join again."
        )
        peer.send(m.notice(table=self.id, code=NAME_KEPT, text=text, seat=seat))

    def detach(self, peer: Peer) -> None:
        """The connection of ``peer`` is gone (not a leave: the seat is kept for its token)."""
        seat = self._unlink(peer)
        if self.stopped:  # server shutdown: the stored state must stay as it is
            return
        if seat is None:
            self._drop_spectator(peer)
            return
        s = self.seats[seat]
        s.peer = None
        s.disconnected_at = self.hub.now()
        self.last_activity = self.hub.now()
        self.seeds.recheck()  # a deal waiting for seeds no longer waits for theirs
        if self.state == "over":
            if not self._maybe_close():
                self.publish_state()
            return
        if self.state == "playing":
            grace = self.config.grace
            self.notice(
                "disconnected",
                f"{s.name} disconnected; a bot plays for them after {grace:g} s",
                seat,
            )
            self.presence.start_grace(seat)
        self.publish_state()

    # ------------------------------------------------------------------ playing

    def act(self, peer: Peer, seq: int, data: Mapping[str, Any]) -> None:
        """A player's answer to ``your_turn``: checked for seat, turn and seq, then the engine."""
        seat = peer.seat
        if peer.table is not self or seat is None:
            raise RequestError(errors.NOT_SEATED, "You are not seated at this table")
        if self.state == "waiting" or self.match is None:
            raise RequestError(errors.NOT_STARTED, "The match has not started")
        if self.state != "playing":
            raise RequestError(errors.MATCH_OVER, "The match is over")
        claimed = data.get("seat", seat)
        if claimed != seat:
            raise RequestError(
                errors.NOT_YOUR_TURN, f"You sit at seat {seat}; you cannot act for another"
            )
        hand = self.match.hand
        if hand.is_over:
            raise RequestError(errors.HAND_OVER, "The hand is over; the next one is being dealt")
        if hand.turn != seat:
            raise RequestError(errors.NOT_YOUR_TURN, f"It is seat {hand.turn}'s turn, not yours")
        if not self.turn_seq <= seq <= self.seq:
            raise RequestError(
                errors.STALE, f"seq {seq} does not answer the current prompt (seq {self.seq})"
            )
        try:
            action = action_from_dict(data, seat)
        except BadRecordError as exc:
            raise RequestError(errors.BAD_REQUEST, f"field 'action': {exc.message}") from None
        self.apply_action(action)

    def prompt_pending(self, peer: Peer, seat: int) -> bool:
        """Whether ``peer`` holds ``seat`` and a ``your_turn`` for it is waiting for an answer
        (its seq runs from ``turn_seq`` to ``seq``)."""
        match = self.match
        if self.state != "playing" or match is None or self.seats[seat].peer is not peer:
            return False
        hand = match.hand
        return not hand.is_over and hand.turn == seat and self.turns.wait_left() <= 0

    def apply_action(self, action: Action, made_by: str | None = None) -> None:
        """Apply an action through the engine, store it, tell everyone. Raises if illegal.

        ``made_by``: who made it for the seat's person (the turn timer, a stand-in), as the
        hand's record tells it (:meth:`TableLedger.made_for`); None: the seat's own choice."""
        match = self.match
        assert match is not None
        number = match.number
        match.apply(action)  # raises SheepsheadError and changes nothing if illegal
        record, text = _record_of(action)
        # Stored with the seq of the state it produces: no table-row update for the seq.
        self.ledger.record_action(
            number,
            text,
            seq=self.seq + 1,
            match=self.match_number,
            index=len(match.hand.actions) - 1,
            made_by=made_by,
        )
        self.last = record
        hand = match.hand
        pause = self.hub.config.trick_pause
        if pause > 0 and hand.phase == "play" and hand.tricks and not hand.current:
            # A trick just ended and another follows: let people see it before the next lead.
            self.turns.pause_before_lead(number, len(hand.actions), self.hub.now() + pause)
        if hand.is_over:
            result = hand.result()
            payouts = list(result.payouts or ())
            # Who played it: who holds each seat, else who held it last during the hand.
            played = [
                self._left.get(i, s) if s.kind == "empty" else s for i, s in enumerate(self.seats)
            ]
            strategies = self.seat_strategies(played)
            record = {**match.records[-1], "strategies": strategies}
            made_for = self._made_for(number)
            if made_for:
                record["made_for"] = made_for
            if self.seeds.deal_seeds is not None:
                fair = self.seeds.deal_seeds.fair(number, revealed=False)
                record = {**record, "fair": fair}
            self.remember_hand(number, [s.name or "" for s in played], strategies, made_for)
            facts = HandFacts(result.picker, result.leaster, result.picker_side_points, payouts)
            self.ledger.hand_finished(
                number,
                record,
                payouts,
                facts=facts,
                totals=match.totals,
                finished=self.hub.wall(),
                match=self.match_number,
            )
            log.info(
                "table %s: hand %d over: %s payouts %s totals %s",
                self.id,
                number,
                result.outcome,
                payouts,
                match.totals,
            )
        self.publish_state(new_turn=True, action_stored=True)
        if hand.is_over:
            # The one view part it shows, not a whole spectator's view built again.
            outcome = shared_part(hand, OUTCOME_PART)
            message = m.hand_over(
                table=self.id,
                seq=self.seq,
                hand=number,
                result=outcome["result"],
                reveal=outcome["reveal"],
                totals=self.totals,
            )
            self._broadcast(message)
            if match.is_over:
                self._finish_match()
            else:
                self._next_hand_task = asyncio.create_task(self._deal_next(number))

    def remember_hand(
        self,
        number: int,
        names: list[str] | None = None,
        strategies: list[str | None] | None = None,
        made_for: dict[str, list[int]] | None = None,
    ) -> None:
        """Keep the ``history`` entry of hand ``number``, which has just ended, with the names
        of who played it, their strategies (:meth:`seat_strategies`) and the moves not theirs
        (:meth:`_made_for`): ``names``, ``strategies`` and ``made_for``, else (a restored
        table) those stored with the hand, so a seat taken over later does not take its past
        hands along."""
        match = self.match
        assert match is not None
        if names is None:
            names = self.ledger.hand_names(self.match_number, number)
            if names is None:
                names = [s.name or "" for s in self.seats]
            stored, made_for = self.ledger.stored_hand(self.match_number, number)
            # A record stored before aliases were named as their strategy says "easy".
            strategies = (
                None if stored is None else [canonical_spec(n) if n else None for n in stored]
            )
        if made_for is None:  # not stored: as the stored actions tell it
            made_for = self.ledger.made_for(number)
        self.history.append(history_entry(match, number, names, strategies, made_for))

    def _made_for(self, number: int) -> dict[str, list[int]]:
        """The record's ``made_for`` of hand ``number``, just ended (docs/hand-record.md): the
        moves a stand-in or the turn timer made for a person (:meth:`TableLedger.made_for`),
        and ``before`` (:data:`BEFORE`), each move made at a seat taken over during the hand
        before its last holder sat down (:attr:`_holders`), which the coach's review is not
        to judge as theirs, whoever made it: an earlier holder's name may be theirs too."""
        made_for = self.ledger.made_for(number)
        match = self.match
        if not self._holders or match is None:
            return made_for
        taken = {seat: held[-1][1] for seat, held in self._holders.items() if held}
        before = [n for n, action in enumerate(match.hand.actions) if n < taken.get(action.seat, 0)]
        if before:
            made_for[BEFORE] = before
        return made_for

    async def _deal_next(self, finished: int) -> None:
        try:
            await asyncio.sleep(self.hub.config.hand_pause)
            match = self.match
            if self.state != "playing" or match is None or match.number != finished:
                return
            if self.seeds.deal_seeds is not None and self.seeds.deal_seeds.pending is not None:
                await self.seeds.wait_for_seeds()
                if self.state != "playing" or match.number != finished:
                    return
                self.seeds.lock(finished + 1)
            match.next_hand()
            self._left.clear()
            self._holders.clear()
            self.ledger.hand_dealt(match.number)  # stored before it is shown
            self.last = None
            log.info("table %s: hand %d dealt (dealer %d)", self.id, match.number, match.dealer)
            self.publish_state(new_turn=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: dealing the next hand failed", self.id)

    def _cancel_tasks(self) -> None:
        """Stop everything that would move the table on: its turns, a first deal waiting for the
        players' seeds, the next hand's deal."""
        self.turns.stop()
        if self._starting is not None:
            self._starting.cancel()
            self._starting = None
        if self._next_hand_task is not None:
            self._next_hand_task.cancel()
            self._next_hand_task = None

    def _finish_match(self) -> None:
        match = self.match
        assert match is not None
        self._cancel_tasks()
        for s in self.seats:
            self.presence.cancel_grace(s)
        self.finished_at = self._store_match_end()
        self._start_over_timer(self.hub.config.over_table_ttl)
        log.info(
            "table %s: match over after %d hands, totals %s",
            self.id,
            match.hands_played,
            match.totals,
        )
        self.publish_state()
        self._broadcast(
            m.match_over(table=self.id, seq=self.seq, totals=match.totals, hands=match.hands_played)
        )
        self._reveal_seeds()
        self._maybe_close()

    # ------------------------------------------------------------------ broadcasting

    def publish_state(self, *, new_turn: bool = False, action_stored: bool = False) -> None:
        """Make a new state of the table known, the one way every change ends.

        Its ``seq`` goes up by one (and ``turn_seq`` with it when ``new_turn``: a new decision,
        whose prompt carries that seq); the lobby hears of it (the summary, when that changed;
        the seq, stored with the batch's commit, unless ``action_stored``: an action is stored
        with the seq of the state it produces); everyone at the table is sent their state, the
        seat to act its prompt; and the next move is scheduled (a bot's move, the turn timer or
        the trick pause).
        """
        self.seq += 1
        if new_turn:
            self.turn_seq = self.seq
        info = self._current_summary()  # tells the lobby if the summary changed
        if not action_stored:
            self.hub.seq_changed(self)  # stored once per group commit, not once per change
        self.turns.update_deadline()
        self._send_states(self._recipients(), info)
        self.turns.schedule()

    def _recipients(self) -> list[tuple[Peer, int | None]]:
        """Every attached connection with its seat (None: watching)."""
        out: list[tuple[Peer, int | None]] = [
            (s.peer, i) for i, s in enumerate(self.seats) if s.peer is not None
        ]
        if self.spectators:  # most tables have none; a generator costs even when empty
            out.extend((p, None) for p in self.spectators)
        return out

    def _send_states(
        self, recipients: list[tuple[Peer, int | None]], info: dict[str, Any] | None = None
    ) -> None:
        """Send each recipient the current ``state`` built for its seat, then the prompt
        (``server.tables.states``)."""
        if not recipients:
            return
        send_states(
            recipients,
            table=self.id,
            seq=self.seq,
            totals=self.totals,
            match=self.match,
            last=self.last,
            info=self._current_summary() if info is None else info,
            info_sent=self._info_sent,
            max_frame=self.hub.config.max_frame,
            prompt=self.prompt,
            parts=self._view_parts,
        )

    def _current_summary(self) -> dict[str, Any]:
        """:meth:`summary`; built again only when something it shows has changed, and then
        the lobby is told, so its cached listing survives the many changes that leave every
        summary as it was (an action). Treat as read-only.

        The key holds every changing input of the summary (the configuration is frozen), so a
        stale summary cannot be sent or listed.
        """
        match = self.match
        key = (
            self.state,
            self.host_seat,
            match.hands_played if match is not None else 0,
            len(self.spectators),
            *[
                (s.kind, s.name, s.remote_kind, s.strategy_name, s.peer is None, s.standin)
                for s in self.seats
            ],
            # Empty at nearly every table; the holders' counts are fixed once handed over.
            *[(seat, len(held)) for seat, held in self._holders.items()],
        )
        cached = self._summary_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        summary = self.summary()
        self._summary_cache = (key, summary)
        self.hub.summary_changed()
        return summary

    def prompt(self, seat: int, legal: list[dict[str, Any]] | None = None) -> bytes | None:
        """The encoded ``your_turn`` for ``seat``, or None when it is not that seat's turn.

        ``legal``: the hand's :func:`legal_maps` as they stand, if already built.
        """
        match = self.match
        if self.state != "playing" or match is None:
            return None
        hand = match.hand
        if hand.is_over or hand.turn != seat or self.turns.wait_left() > 0:
            return None
        deadline = self.turns.deadline()
        if deadline is not None:
            deadline = round(max(0.0, deadline - self.hub.now()), 3)
        return encode(
            m.your_turn(
                table=self.id,
                seq=self.seq,
                decision=hand.phase,
                legal=legal_maps(hand) if legal is None else legal,
                deadline=deadline,
            )
        )

    def _broadcast(
        self, message: Mapping[str, Any], *, keep: bool = False, skip: Peer | None = None
    ) -> None:
        """Send ``message`` to everyone at the table but ``skip`` (who is sent a copy of its
        own); ``keep``: also keep it for ``history``."""
        body = pack(message)
        if keep:
            self.lines.append(body)
        encoded = frame(body, max_frame=self.hub.config.max_frame)
        for p in self.peers():
            if p is not skip:
                p.send_encoded(encoded)

    def notice(
        self,
        code: str,
        text: str,
        seat: int | None = None,
        action: Mapping[str, Any] | None = None,
    ) -> None:
        """Tell everyone at the table (a ``notice``, kept among the last lines for ``history``,
        and stored with them before it is shown, as chat is, so a restart keeps it).

        ``action`` (the turn timer's move for ``seat``, a record map) goes with it as each
        recipient may see it (:func:`public_action`: the seat's own bury names its cards, no
        one else's copy does); the line kept for ``history`` has none, as the stored line,
        so a restart's ``history`` says the same."""
        self.ledger.notice_told(code, text, seat, kept=LINES_KEPT)
        if seat is not None and (away := away_told(code)) is not None:
            self.ledger.seat_away(seat, away)  # kept with the seat, whatever the ring's length
        message = m.notice(table=self.id, code=code, text=text, seat=seat)
        if action is None:
            self._broadcast(message, keep=True)
            return
        self.lines.append(pack(message))
        public = m.notice(
            table=self.id, code=code, text=text, seat=seat, action=public_action(action, None)
        )
        own = public_action(action, seat)
        # The seat may see more of its move than anyone else (its bury's cards): its own copy.
        owner = None if seat is None or own == public["action"] else self.seats[seat].peer
        self._broadcast(public, skip=owner)
        if owner is not None:
            owner.send(m.notice(table=self.id, code=code, text=text, seat=seat, action=own))

    # ------------------------------------------------------------------ closing

    def _forget_token(self, s: SeatState) -> None:
        if s.token_hash is not None:
            self.hub.tokens.pop(s.token_hash, None)
            self.ledger.token_forgotten(s.token_hash)
            s.token_hash = None

    def _maybe_close(self) -> bool:
        """Close the table when nobody can come back to it; returns whether it closed."""
        humans = [s for s in self.seats if s.kind == "human"]
        if self.state == "over":
            # Until over_table_ttl runs out, a player with a token may come back.
            if self.spectators or any(
                s.peer is not None or s.token_hash is not None for s in humans
            ):
                return False
        elif humans:
            return False
        self.close("Everyone has left the table")
        return True

    def close(self, reason: str) -> None:
        """Close the table: end a running match, detach everyone, forget it."""
        if self.state == "closed":
            return
        if self.state == "playing" and self.match is not None:
            self.match.end()
            self._store_match_end()
            self._reveal_seeds()
        self._cancel_tasks()
        self._cancel_over_timer()
        for s in self.seats:
            self.presence.cancel_grace(s)
            self._forget_token(s)
        self.ledger.closed(self.state, match=self.match_number, finished=self.hub.wall())
        self.state = "closed"
        for p in self.peers():
            p.send(m.notice(table=self.id, code="table_closed", text=reason))
            p.table = None
            p.seat = None
        for s in self.seats:
            s.peer = None
        self.spectators.clear()
        self._info_sent.clear()
        log.info("table %s closed: %s", self.id, reason)
        self.hub.table_closed(self)

    def _store_match_end(self) -> float:
        """The match is over (played out, ended, or its table closing): the table's state and
        the stored end and results; returns when it ended (wall clock)."""
        match = self.match
        assert match is not None
        now = self.hub.wall()
        self.state = "over"
        self.ledger.match_ended(
            self.seats,
            match.totals,
            hands=match.hands_played,
            finished=now,
            match=self.match_number,
        )
        return now

    def _start_over_timer(self, delay: float) -> None:
        """Close the table ``delay`` seconds from now unless a rematch comes first."""
        self._cancel_over_timer()
        loop = asyncio.get_running_loop()
        self._over_timer = loop.call_later(max(0.0, delay), self._over_expired)

    def _cancel_over_timer(self) -> None:
        if self._over_timer is not None:
            self._over_timer.cancel()
            self._over_timer = None

    def _over_expired(self) -> None:
        self._over_timer = None
        try:
            if self.state == "over":
                self.close("The match is over and nobody started a new one")
        except Exception:
            log.exception("table %s: closing after the match failed", self.id)

    def shutdown(self) -> None:
        """Stop timers and tasks (server shutdown); the stored state stays for the next start."""
        self.stopped = True
        self._cancel_tasks()
        self._cancel_over_timer()
        for s in self.seats:
            self.presence.cancel_grace(s)
