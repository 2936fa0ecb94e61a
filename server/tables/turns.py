"""Who moves when at a table: the turn timer, the trick pause before a lead, and the moves of
server bots and stand-ins (their strategies run in the bot pool, ``server.bots.pool``)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
from collections.abc import Callable
from typing import Any

from engine.actions import Action, action_from_dict
from engine.bots import strategy_names
from engine.match import Match
from engine.view import seat_view
from server.tables.hub import Peer
from server.tables.presence import TablePresence

log = logging.getLogger("sheepshead.server")


class TableTurns(TablePresence):
    """The turns of a :class:`server.tables.table.Table` (its base class)."""

    match: Match | None
    spectators: set[Peer]
    _turn_task: asyncio.Task[None] | None
    _turn_key: tuple[int, int, str] | None
    _deadline_key: tuple[int, int] | None
    _deadline: float | None
    _next_hand_task: asyncio.Task[None] | None
    _starting: asyncio.Task[None] | None
    _lead_hand: int
    _lead_actions: int
    _lead_at: float
    _lead_timer: asyncio.TimerHandle | None
    _pause_over_callback: Callable[[], None]
    _timer_context: contextvars.Context

    def _prompt(self, seat: int) -> bytes | None:
        """The encoded ``your_turn`` for ``seat`` (:class:`server.tables.table.Table`)."""
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        """Apply, store and send an action (:class:`server.tables.table.Table`)."""
        raise NotImplementedError

    def _lead_wait(self) -> float:
        """Seconds left of the trick pause before the current decision (0: none)."""
        match = self.match
        if (
            match is None
            or self._lead_hand != match.number
            or self._lead_actions != len(match.hand.actions)
        ):
            return 0.0
        return max(0.0, self._lead_at - self.hub.now())

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
            match = self.match
            if (
                self.state != "playing"
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
            peer = self.seats[seat].peer
            prompt = self._prompt(seat)
            if peer is not None and prompt is not None:
                peer.send_encoded(prompt)
            self._schedule()
        except Exception:
            log.exception("table %s: the end of a trick pause failed", self.id)

    def _key(self) -> tuple[int, int]:
        match = self.match
        assert match is not None
        return (match.number, len(match.hand.actions))

    def _update_deadline(self) -> None:
        """Start the turn timer when a new decision begins (re-prompts keep the deadline)."""
        timer = self.config.turn_timer
        match = self.match
        if timer is None or self.state != "playing" or match is None or match.hand.is_over:
            return
        key = self._key()
        if self._deadline_key != key:
            self._deadline_key = key
            self._deadline = self.hub.now() + self._lead_wait() + timer

    def _attended(self) -> bool:
        return bool(self.spectators) or any(s.peer is not None for s in self.seats)

    def _schedule(self) -> None:
        """Make sure the right thing happens for the seat to act (bot move, timer, nothing)."""
        match = self.match
        if self.state != "playing" or match is None or match.hand.is_over:
            self._cancel_turn()
            return
        seat = match.hand.turn
        assert seat is not None
        key = self._key()
        timer = self.config.turn_timer
        self._update_deadline()
        if not self._attended():
            self._cancel_turn()
            return
        s = self.seats[seat]
        mode: str
        delay: float
        wait = self._lead_wait()
        if s.kind == "bot" or self._standin_active(seat):
            mode, delay = "bot", max(self.hub.config.bot_delay, wait)
        elif wait > 0:
            # The prompt goes out when the pause ends: a timer, not a task (fewer objects for
            # the garbage collector, once per trick at every table).
            self._cancel_turn()
            if self._lead_timer is None:
                loop = asyncio.get_running_loop()
                self._lead_timer = loop.call_later(
                    wait, self._pause_over_callback, context=self._timer_context
                )
            return
        elif timer is not None and self._deadline is not None:
            mode, delay = "timer", max(0.0, self._deadline - self.hub.now())
        else:
            self._cancel_turn()
            return
        full_key = (*key, mode)
        task = self._turn_task
        if self._turn_key == full_key and task is not None and not task.done():
            return
        self._cancel_turn()
        self._turn_key = full_key
        self._turn_task = asyncio.create_task(self._bot_turn(key, seat, mode, delay))

    def _cancel_turn(self) -> None:
        if self._turn_task is not None:
            self._turn_task.cancel()
        self._turn_task = None
        self._turn_key = None

    def _cancel_tasks(self) -> None:
        self._cancel_turn()
        self._cancel_lead_timer()
        if self._starting is not None:
            self._starting.cancel()
            self._starting = None
        if self._next_hand_task is not None:
            self._next_hand_task.cancel()
            self._next_hand_task = None

    def _strategy_for(self, seat: int) -> str:
        """The strategy that plays ``seat``: its bot's, else (a stand-in) the default one."""
        s = self.seats[seat]
        name = s.strategy_name if s.kind == "bot" else None
        if name is None or name not in strategy_names():
            return self.hub.default_bot()  # e.g. a restored bot whose strategy is gone
        return name

    async def _bot_turn(self, key: tuple[int, int], seat: int, mode: str, delay: float) -> None:
        try:
            if delay > 0:
                await asyncio.sleep(delay)
            match = self.match
            if self.state != "playing" or match is None or self._key() != key:
                return
            self._end_pause()  # the sleep may end a hair before the pause does
            hand = match.hand
            view = seat_view(hand, seat)
            action = await self._choose(seat, view)
            if self.state != "playing" or self._key() != key:
                return  # somebody else moved meanwhile (the player came back and acted)
            self._turn_task = None
            self._turn_key = None
            if mode == "timer":
                name = self.seats[seat].name
                self._notice("timer_expired", f"Time ran out for {name}; a bot moved", seat)
            self._apply(action)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bot move for seat %d failed", self.id, seat)
            self._fallback_move(key, seat)

    def _fallback_move(self, key: tuple[int, int], seat: int) -> None:
        """Keep the table moving after an unexpected failure: play the first legal action."""
        match = self.match
        if self.state != "playing" or match is None or self._key() != key:
            return
        try:
            self._turn_task = None
            self._turn_key = None
            self._apply(match.hand.legal_actions()[0])
        except Exception:
            log.exception("table %s: seat %d is stuck", self.id, seat)

    async def _choose(self, seat: int, view: dict[str, Any]) -> Action:
        """The strategy's choice, made in a bot worker within the decision budget
        (``server.bots.pool``); the first legal action if it misbehaves."""
        match = self.match
        assert match is not None
        hand = match.hand
        legal = view["legal"]
        strategy = self._strategy_for(seat)
        try:
            # A fresh seed per decision: the worker builds the strategy afresh each time.
            choice = await self.hub.bots.choose(
                strategy,
                view,
                legal,
                seed=secrets.randbits(32),
                think_time=self.hub.config.bot_think_time,
            )
            action = action_from_dict(choice, seat)
            hand.verify(action)
            return action
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning(
                "table %s: strategy %r at seat %d failed (%s: %s); playing the first legal action",
                self.id,
                strategy,
                seat,
                type(exc).__name__,
                exc,
            )
            return hand.legal_actions()[0]
