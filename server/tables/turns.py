"""Who moves when at a table: the turn timer, the trick pause before a lead, and the moves of
server bots and stand-ins (their strategies run in the bot pool, ``server.bots.pool``)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from engine.actions import Action, action_from_dict
from engine.bots import strategy_names
from engine.match import Match
from engine.view import seat_view
from server.tables.hub import Hub, Peer
from server.tables.presence import Presence
from server.tables.seats import SeatState, TableState
from server.tables.table_config import TableConfig

log = logging.getLogger("sheepshead.server")

COMMITTING: Final = frozenset({"pick", "alone", "blitz", "crack", "recrack"})
"""The action kinds that commit a person to more than the game asks of them: the turn timer
takes one of these for them only when nothing else is legal (the dealer made to pick under
``no_pick: forced-pick``; a picker with no card to call must go alone)."""

TIMED_OUT_WORDS: Final = {
    "pass": "passed for them",
    "pick": "picked for them, as the rules require",
    "bury": "a bot buried for them",
    "call": "a bot called a partner for them",
    "unknown": "a bot called a partner for them",
    "alone": "went alone for them: no card to call",
    "no_crack": "no crack for them",
    "no_recrack": "no re-crack for them",
    "play": "a bot played for them",
}
"""What the turn timer did for a person, by the kind of action taken: the notice's words after
"Time ran out for NAME; ", each with "for them" once, which the person's own client reads as
"for you" (``client.model``); never a :data:`COMMITTING` one by choice."""


def timed_out_choices(legal: Sequence[Action]) -> tuple[Action, ...]:
    """The actions the turn timer may take for a person whose time ran out: the least
    committal legal ones (pass, no crack, no re-crack, a bury and not a blitz, a call and not
    alone, any card), or every legal action when only committing ones are legal.

    >>> from engine.actions import Pass, Pick, Crack, NoCrack, Alone, Call
    >>> timed_out_choices((Pick(1), Pass(1))), timed_out_choices((Pick(4),))
    ((Pass(seat=1),), (Pick(seat=4),))
    >>> timed_out_choices((Crack(2), Crack(2, "red"), NoCrack(2)))
    (NoCrack(seat=2),)
    >>> timed_out_choices((Call(0, 6), Alone(0)))
    (Call(seat=0, card=6),)
    """
    allowed = tuple(a for a in legal if a.kind not in COMMITTING)
    return allowed or tuple(legal)


def timed_out_notice(name: str | None, action: Action) -> str:
    """The ``timer_expired`` notice's text: whose time ran out and what was done for them.

    >>> from engine.actions import Pass
    >>> timed_out_notice("ann", Pass(0))
    'Time ran out for ann; passed for them'
    """
    return f"Time ran out for {name}; {TIMED_OUT_WORDS.get(action.kind, 'a bot moved for them')}"


class TurnsTable(Protocol):
    """What :class:`TurnClock` needs of its table (:class:`server.tables.table.Table`)."""

    id: str
    hub: Hub[Any]
    config: TableConfig
    state: TableState
    seats: list[SeatState]
    spectators: set[Peer]
    match: Match | None
    presence: Presence

    def prompt(self, seat: int) -> bytes | None:
        """The encoded ``your_turn`` for ``seat`` (None: nothing to prompt)."""

    def apply_action(self, action: Action, made_by: str | None = None) -> None:
        """Apply, store and send an action (``made_by``: who made it for the seat's person,
        :data:`server.tables.ledger.MADE_BY`); raises if it is illegal."""

    def notice(
        self,
        code: str,
        text: str,
        seat: int | None = None,
        action: Mapping[str, Any] | None = None,
    ) -> None:
        """Tell everyone at the table (``action``: the move made for ``seat``, as each
        recipient may see it)."""


class TurnClock:
    """Who moves when at a table (a part of :class:`server.tables.table.Table`): the turn timer,
    the trick pause before a lead, and the moves of server bots and stand-ins."""

    def __init__(self, table: TurnsTable) -> None:
        self.table = table
        self._turn_task: asyncio.Task[None] | None = None
        self._turn_key: tuple[int, int, str] | None = None
        self._deadline_key: tuple[int, int] | None = None
        self._deadline: float | None = None
        self._restart_key: tuple[int, int] | None = None
        """The decision whose clock started while its person was away by a restart: it starts
        again, whole, when they are back."""
        self._lead_hand = -1
        self._lead_actions = -1
        self._lead_at = 0.0
        """The decision a trick pause comes before (hand number and actions in it; ints, not a
        tuple kept per trick) and when the pause ends."""
        self._lead_timer: asyncio.TimerHandle | None = None
        """Prompts the leader of a person's seat when the trick pause ends."""
        self._pause_over_callback = self._pause_over
        self._timer_context = contextvars.copy_context()
        """The timer's callback and context, made once: a bound method and a context copied
        per trick would be two more objects for the garbage collector to walk each time."""

    def pause_before_lead(self, hand: int, actions: int, until: float) -> None:
        """A trick just ended and another follows: the next lead (decision ``actions`` of hand
        ``hand``) waits until ``until`` so that people see the trick."""
        self._lead_hand = hand
        self._lead_actions = actions
        self._lead_at = until
        self._cancel_lead_timer()

    def new_match(self) -> None:
        """Forget the last match's decision: decisions are keyed (hand, actions), and the keys of
        the last match's would match this one's."""
        self.cancel()
        self._end_pause()
        self._deadline_key = None
        self._deadline = None

    def deadline(self) -> float | None:
        """When the turn timer runs out for the current decision (None: no timer runs)."""
        if self._deadline is not None and self._deadline_key == self._key():
            return self._deadline
        return None

    def stop(self) -> None:
        """Stop every timer and move of the table's turns (its match is over or it closes)."""
        self.cancel()
        self._cancel_lead_timer()

    def wait_left(self) -> float:
        """Seconds left of the trick pause before the current decision (0: none)."""
        match = self.table.match
        if (
            match is None
            or self._lead_hand != match.number
            or self._lead_actions != len(match.hand.actions)
        ):
            return 0.0
        return max(0.0, self._lead_at - self.table.hub.now())

    def _end_pause(self) -> None:
        self._lead_hand = -1
        self._lead_actions = -1

    def _cancel_lead_timer(self) -> None:
        if self._lead_timer is not None:
            self._lead_timer.cancel()
            self._lead_timer = None

    def _pause_over(self) -> None:
        """The trick pause before a person's lead ended: prompt them, then wait as usual."""
        self._lead_timer = None
        try:
            match = self.table.match
            if (
                self.table.state != "playing"
                or match is None
                or self._lead_hand != match.number
                or self._lead_actions != len(match.hand.actions)
            ):
                return  # the pause was already over: the leader acted, or a bot led
            self._end_pause()  # (the loop may run a timer a hair early)
            if match.hand.is_over:
                return
            seat = match.hand.turn
            assert seat is not None
            peer = self.table.seats[seat].peer
            prompt = self.table.prompt(seat)
            if peer is not None and prompt is not None:
                peer.send_encoded(prompt)
            self.schedule()
        except Exception:
            log.exception("table %s: the end of a trick pause failed", self.table.id)

    def _key(self) -> tuple[int, int]:
        match = self.table.match
        assert match is not None
        return (match.number, len(match.hand.actions))

    def update_deadline(self) -> None:
        """Start the turn timer when a new decision begins (re-prompts keep the deadline), or
        when somebody is back at a table that nobody was at when it began: a restored table's
        decision starts its clock when the first person or spectator comes back, not at the
        restore (the restart dropped everyone; before, a person back later than their timer
        was prompted with deadline 0 and the timer moved for them at once). A person the
        restart dropped, to act, gets one more timer's length to come back in, and their whole
        time again once back."""
        timer = self.table.config.turn_timer
        match = self.table.match
        if timer is None or self.table.state != "playing" or match is None or match.hand.is_over:
            return
        key = self._key()
        # Nothing moves while nobody is there: nor does the clock start (asked only when a
        # clock would start, not at every state of a decision).
        if self._deadline_key != key and self._attended():
            self._deadline_key = key
            self._deadline = self.table.hub.now() + self.wait_left() + timer
            if self._away_by_restart():
                # The restart, not they, is why they are away: one more timer's length to come
                # back in, and their whole time once back (below). The table waits no longer
                # than that: a timer table keeps moving for whoever does not return.
                self._deadline += timer
                self._restart_key = key
        elif self._restart_key == key and not self._away_by_restart():
            self._restart_key = None
            self._deadline = self.table.hub.now() + self.wait_left() + timer
            self._turn_key = None  # the timer's task, made for the deadline before, is replaced

    def _attended(self) -> bool:
        return bool(self.table.spectators) or any(s.peer is not None for s in self.table.seats)

    def _away_by_restart(self) -> bool:
        # The person to act was connected when the server went down and is not back yet.
        match = self.table.match
        assert match is not None and match.hand.turn is not None
        return self.table.seats[match.hand.turn].away_by_restart

    def schedule(self) -> None:
        """Make sure the right thing happens for the seat to act (bot move, timer, nothing)."""
        match = self.table.match
        if self.table.state != "playing" or match is None or match.hand.is_over:
            self.cancel()
            return
        seat = match.hand.turn
        assert seat is not None
        key = self._key()
        timer = self.table.config.turn_timer
        self.update_deadline()
        if not self._attended():
            self.cancel()
            return
        s = self.table.seats[seat]
        mode: str
        delay: float
        wait = self.wait_left()
        if s.kind == "bot" or self.table.presence.standin_active(seat):
            # A stand-in for an absent person commits them to nothing they did not choose
            # (as the turn timer does); an emptied seat's stand-in plays its strategy.
            mode = "standin" if s.kind == "human" else "bot"
            delay = max(self.table.hub.config.bot_delay, wait)
        elif wait > 0:
            # The prompt goes out when the pause ends: a timer, not a task (fewer objects for
            # the garbage collector, once per trick at every table).
            self.cancel()
            if self._lead_timer is None:
                loop = asyncio.get_running_loop()
                self._lead_timer = loop.call_later(
                    wait, self._pause_over_callback, context=self._timer_context
                )
            return
        elif timer is not None and self._deadline is not None:
            mode, delay = "timer", max(0.0, self._deadline - self.table.hub.now())
        else:
            self.cancel()
            return
        full_key = (*key, mode)
        task = self._turn_task
        if self._turn_key == full_key and task is not None and not task.done():
            return
        self.cancel()
        self._turn_key = full_key
        self._turn_task = asyncio.create_task(self._bot_turn(key, seat, mode, delay))

    def cancel(self) -> None:
        """Cancel the pending move or turn timer (a trick pause's prompt stays)."""
        if self._turn_task is not None:
            self._turn_task.cancel()
        self._turn_task = None
        self._turn_key = None

    def _strategy_for(self, seat: int) -> str:
        """The strategy that plays ``seat``: its bot's, else (a stand-in) the default one."""
        s = self.table.seats[seat]
        name = s.strategy_name if s.kind == "bot" else None
        if name is None or name not in strategy_names():
            return self.table.hub.default_bot()  # e.g. a restored bot whose strategy is gone
        return name

    async def _bot_turn(self, key: tuple[int, int], seat: int, mode: str, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            match = self.table.match
            if self.table.state != "playing" or match is None or self._key() != key:
                return
            self._end_pause()  # the sleep may end a hair before the pause does
            hand = match.hand
            view = seat_view(hand, seat)
            if mode in ("timer", "standin"):
                action = await self._timed_out_action(seat, view)
            else:
                action = await self._choose(seat, view)
            if self.table.state != "playing" or self._key() != key:
                return  # somebody else moved meanwhile (the player came back and acted)
            self._turn_task = None
            self._turn_key = None
            if mode == "timer":
                self._tell_timed_out(seat, action)
            self.table.apply_action(action, self._made_by(seat, mode))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bot move for seat %d failed", self.table.id, seat)
            self._fallback_move(key, seat, self._made_by(seat, mode))

    def _tell_timed_out(self, seat: int, action: Action) -> None:
        """Tell the table the turn timer ran out for ``seat`` and takes ``action`` for it
        (``timer_expired``, before the move's state, which it names)."""
        text = timed_out_notice(self.table.seats[seat].name, action)
        self.table.notice("timer_expired", text, seat, action.to_dict())

    def _made_by(self, seat: int, mode: str) -> str | None:
        """Who a move of ``mode`` at ``seat`` is made by for the seat's person, as the hand's
        record tells it (``made_for``, so the coach's review judges none as theirs): the turn
        timer, or a stand-in (an absent person's, or an emptied seat's); None for a server
        bot's own seat."""
        if mode == "timer":
            return "timer"
        if mode == "standin" or self.table.seats[seat].kind == "empty":
            return "standin"
        return None

    def _fallback_move(self, key: tuple[int, int], seat: int, made_by: str | None) -> None:
        """Keep the table moving after an unexpected failure: the first of the least committal
        legal actions (:func:`timed_out_choices`: it may be a person's seat whose time ran out,
        who is not to be made the picker), told as a ``timer_expired`` notice when it is the
        turn timer's (``made_by``), as the timer's own moves are."""
        match = self.table.match
        if self.table.state != "playing" or match is None or self._key() != key:
            return
        try:
            self._turn_task = None
            self._turn_key = None
            action = timed_out_choices(match.hand.legal_actions())[0]
            if made_by == "timer":
                # Told as the timer's every move is: the record marks it the timer's, and the
                # person whose time ran out learns why a move was made for them.
                try:
                    self._tell_timed_out(seat, action)
                except Exception:  # the table moves on untold rather than stay stuck
                    log.exception(
                        "table %s: the timer's notice for seat %d failed", self.table.id, seat
                    )
            self.table.apply_action(action, made_by)
        except Exception:
            log.exception("table %s: seat %d is stuck", self.table.id, seat)

    async def _timed_out_action(self, seat: int, view: dict[str, Any]) -> Action:
        """What the turn timer, or an absent person's stand-in, takes for a person
        (:func:`timed_out_choices`): the one least
        committal action, or the strategy's choice among several (a bury, a call, a card)."""
        match = self.table.match
        assert match is not None
        allowed = timed_out_choices(match.hand.legal_actions())
        if len(allowed) == 1:
            return allowed[0]
        # The strategy sees only the allowed actions (a strategy chooses among the legal list
        # it is given, whatever its view's): a blitz or going alone is not among them.
        narrowed = {**view, "legal": [a.to_dict() for a in allowed]}
        action = await self._choose(seat, narrowed)
        # A strategy that ignores its list still commits nobody: the first allowed action.
        return action if action in allowed else allowed[0]

    async def _choose(self, seat: int, view: dict[str, Any]) -> Action:
        """The strategy's choice, made in a bot worker within the decision budget
        (``server.bots.pool``); the first legal action if it misbehaves."""
        match = self.table.match
        assert match is not None
        hand = match.hand
        legal = view["legal"]
        strategy = self._strategy_for(seat)
        try:
            # A fresh seed per decision: the worker builds the strategy afresh each time.
            choice = await self.table.hub.bots.choose(
                strategy,
                view,
                legal,
                seed=secrets.randbits(32),
                think_time=self.table.hub.config.bot_think_time,
            )
            action = action_from_dict(choice, seat)
            hand.verify(action)
            return action
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning(
                "table %s: strategy %r at seat %d failed (%s: %s); playing the first legal action",
                self.table.id,
                strategy,
                seat,
                type(exc).__name__,
                exc,
            )
            return hand.legal_actions()[0]
