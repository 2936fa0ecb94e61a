"""Engine-built server messages for client tests and the client benchmark.

:class:`EngineTable` runs a real :class:`engine.hand.Hand` and wraps ``seat_view`` into the
``state`` / ``your_turn`` / ``hand_over`` messages of PROTOCOL.md, built with the server's own
builders (:mod:`protocol.events`), so screens can be driven with deterministic, rule-correct
states without a server (snapshot tests need no clock or network) and the feed cannot drift from
what the server sends. :class:`FakeSession` stands in for :class:`client.session.Session` where
a Pilot test needs a request answered (``history``, ``rematch``) that the server on this branch
may not know yet. :func:`at_the_bury` opens the app where you picked, the bury dialog up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from textual.pilot import Pilot
from textual.screen import Screen

from client.app import SheepsheadApp
from client.screens.dialogs import BuryDialog, CallDialog
from client.session import ServerError
from engine.actions import action_from_dict
from engine.hand import Hand
from engine.record import export_record
from engine.rules import RuleSet
from engine.view import seat_view
from protocol import events as messages

NAMES = ("Ann", "Bob", "Cal", "Dee", "Eve")


class EngineTable:
    """A table of one hand, seen from ``me``, producing wire messages."""

    def __init__(
        self,
        *,
        seed: int = 1,
        dealer: int = 4,
        me: int | None = 0,
        rules: RuleSet | None = None,
        names: Sequence[str] = NAMES,
        bots: Sequence[int] = (1, 2, 3, 4),
        hands_limit: int | None = 10,
        table: str = "t1",
        hints: bool = False,
    ) -> None:
        self.rules = rules or RuleSet()
        self.hand = Hand.from_seed(self.rules, dealer=dealer, seed=seed)
        self.me = me
        self.names = list(names)
        self.bots = set(bots)
        self.hands_limit = hands_limit
        self.table = table
        self.hints = hints
        """The summary's ``hints``: the coach is on at this table."""
        self.seq = 0
        self.totals = [0] * 5
        self.hands_played = 0
        self.offline: set[int] = set()
        self.standins: set[int] = set()
        """Seats (offline) a stand-in bot plays for their absent player."""
        self.left: set[int] = set()
        """Seats whose player left once the match was over (the summary's ``left``)."""
        self.empty: set[int] = set()
        """Seats freed since (the host removed the bot): the summary shows nobody there."""
        self.state = "playing"
        """The table's state in the summary: ``waiting``, ``playing`` or ``over``."""
        self.finished: list[dict[str, Any]] = []
        """The history entries of the hands finished at this table (see :meth:`history`)."""

    def info(self) -> dict[str, Any]:
        """The table summary (PROTOCOL.md §6.1), with every field the server's has."""
        return {
            "id": self.table,
            "name": "Kitchen table",
            "host": self.names[0],
            "host_seat": 0,
            "rules": self.rules.to_dict(),
            "hands": self.hands_limit,
            "hands_played": self.hands_played,
            "state": self.state,
            "password": False,
            "turn_timer": None,
            "hints": self.hints,
            "grace": 60.0,
            "trick_pause": 1.5,
            "seats": [
                {
                    "seat": s,
                    "name": self.names[s],
                    "kind": "bot" if s in self.bots else "human",
                    "connected": s not in self.offline,
                    "strategy": "random" if s in self.bots else None,
                    "remote": s not in self.bots,
                    "standin": s in self.standins,
                    "left": s in self.left,
                }
                if s not in self.empty
                else {
                    "seat": s,
                    "name": None,
                    "kind": "empty",
                    "connected": False,
                    # As the server's: a stand-in plays an empty seat while a match is on.
                    "standin": self.state == "playing",
                }
                for s in range(5)
            ],
            "spectators": 0,
        }

    def messages(self, last: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The messages the seat gets for the current state."""
        hand = self.hand
        out: list[dict[str, Any]] = [
            messages.state(
                table=self.table,
                seq=self.seq,
                seat=self.me,
                info=self.info(),
                view=seat_view(hand, self.me),
                last=last,
                totals=self.totals,
                hand=self.hands_played - (1 if hand.is_over else 0),
            )
        ]
        if hand.is_over:
            out.append(
                messages.hand_over(
                    table=self.table,
                    seq=self.seq,
                    hand=self.hands_played - 1,
                    result=hand.result().breakdown(),
                    reveal=seat_view(hand, self.me)["reveal"],
                    totals=self.totals,
                )
            )
        elif self.me is not None and hand.turn == self.me:
            out.append(
                messages.your_turn(
                    table=self.table,
                    seq=self.seq,
                    decision=str(hand.phase),
                    legal=[a.to_dict() for a in hand.legal_actions()],
                    deadline=None,
                )
            )
        return out

    def match_over(self) -> dict[str, Any]:
        """The ``match_over`` event after the hands played so far."""
        self.state = "over"
        return messages.match_over(
            table=self.table, seq=self.seq, totals=self.totals, hands=self.hands_played
        )

    def next_hand(self, *, seed: int) -> list[dict[str, Any]]:
        """Deal the next hand (the dealer moves on) and return its first messages."""
        self.hand = Hand.from_seed(self.rules, dealer=(self.hand.dealer + 1) % 5, seed=seed)
        self.seq += 1
        return self.messages()

    def play_out(self) -> list[dict[str, Any]]:
        """Every seat plays its first legal action until the hand is over."""
        return self.advance(until_me=False)

    def history(self, *, match: int = 0, lines: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """The ``ok`` reply to ``history`` for the hands finished so far."""
        return dict(
            messages.history_page(
                1,
                table=self.table,
                match=match,
                hands=list(self.finished),
                next=None,
                lines=list(lines),
            )
        )

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply an action (wire map, for the seat whose turn it is) and return the messages."""
        seat = self.hand.turn
        assert seat is not None
        act = action_from_dict(action, seat=seat)
        self.hand.apply(act)
        self.seq += 1
        if self.hand.is_over:
            result = self.hand.result()
            payouts = result.payouts or (0,) * 5
            self.totals = [t + p for t, p in zip(self.totals, payouts, strict=True)]
            self.finished.append(
                {
                    "hand": self.hands_played,
                    "record": export_record(self.hand),
                    "payouts": list(payouts),
                    "totals": list(self.totals),
                    "picker": result.picker,
                    "partner": result.partner,
                    "alone": result.alone,
                    "leaster": result.leaster,
                    "doubler": result.doubler,
                    "picker_side_points": result.picker_side_points,
                    "outcome": result.outcome,
                }
            )
            self.hands_played += 1
        last = act.to_dict()
        if last["action"] == "bury" and seat != self.me:
            last.pop("cards")
        return self.messages(last)

    def advance(
        self,
        choose: Callable[[Hand], dict[str, Any]] | None = None,
        *,
        until_me: bool = True,
    ) -> list[dict[str, Any]]:
        """Let the other seats act (first legal action by default) until it is ``me``'s turn."""
        out: list[dict[str, Any]] = []
        pick = choose or (lambda h: h.legal_actions()[0].to_dict())
        while not self.hand.is_over and (not until_me or self.hand.turn != self.me):
            out += self.apply(pick(self.hand))
        return out


def picked(seed: int = 1, *, hints: bool = False) -> tuple[EngineTable, list[dict[str, Any]]]:
    """You (seat 0, first to speak) pick; the bury decision is yours. The table, and its
    messages from the deal on."""
    table = EngineTable(seed=seed, dealer=4, me=0, hints=hints)
    out = table.messages() + table.apply({"action": "pick"})
    return table, out


def buried(seed: int = 1, *, hints: bool = False) -> tuple[EngineTable, list[dict[str, Any]]]:
    """As :func:`picked`, and you buried (the last burial offered): the call is yours. The
    table, and its messages from the deal on."""
    table, out = picked(seed, hints=hints)
    out += table.apply(table.hand.legal_actions()[-1].to_dict())
    return table, out


@asynccontextmanager
async def _at_dialog(
    dialog: type[Screen[Any]],
    messages: list[dict[str, Any]],
    table: EngineTable,
    session: FakeSession | None,
    size: tuple[int, int],
) -> AsyncIterator[tuple[SheepsheadApp, Pilot[Any], EngineTable]]:
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=size) as pilot:
        for msg in messages:
            app.handle_message(msg)
        await pilot.pause()
        assert isinstance(app.screen, dialog)
        yield app, pilot, table


@asynccontextmanager
async def at_the_bury(
    seed: int = 1,
    *,
    hints: bool = False,
    table: EngineTable | None = None,
    session: FakeSession | None = None,
    size: tuple[int, int] = (80, 24),
) -> AsyncIterator[tuple[SheepsheadApp, Pilot[Any], EngineTable]]:
    """A running app (on ``session``, else none) whose player picked: the bury dialog is open.

    It is fed :func:`picked`'s messages of ``seed`` and ``hints``, or, given a ``table`` whose
    bury is the player's, that table's messages now. Yields the app, its pilot and the table.
    """
    if table is None:
        table, messages = picked(seed, hints=hints)
    else:
        messages = table.messages()
    async with _at_dialog(BuryDialog, messages, table, session, size) as running:
        yield running


@asynccontextmanager
async def at_the_call(
    seed: int = 1,
    *,
    hints: bool = False,
    session: FakeSession | None = None,
    size: tuple[int, int] = (80, 24),
) -> AsyncIterator[tuple[SheepsheadApp, Pilot[Any], EngineTable]]:
    """A running app (on ``session``, else none) whose player picked and buried
    (:func:`buried`): the call dialog is open. Yields the app, its pilot and the table."""
    table, messages = buried(seed, hints=hints)
    async with _at_dialog(CallDialog, messages, table, session, size) as running:
        yield running


class FakeSession:
    """Enough of :class:`client.session.Session` for the app: events, requests, actions.

    ``replies`` maps a request type to its ``ok`` reply, or to a ServerError to raise (an
    ``unknown_type`` one plays an older server). Every request and action is kept in ``sent``.
    """

    def __init__(self, replies: dict[str, Any] | None = None, name: str = "Ann") -> None:
        self.host = "127.0.0.1"
        self.port = 7453
        self.name = name
        self.status = "connected"
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.replies = dict(replies or {})
        self.sent: list[dict[str, Any]] = []

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Answer from :attr:`replies` (an empty ``ok`` when none is set)."""
        self.sent.append({"type": type, **fields})
        reply = self.replies.get(type, {"type": "ok"})
        if isinstance(reply, ServerError):
            raise reply
        return dict(reply)

    async def history(self, table: str | None = None) -> dict[str, Any] | None:
        """As :meth:`client.session.Session.history`: None for an older server."""
        try:
            return await self.request("history", **({} if table is None else {"table": table}))
        except ServerError as exc:
            if exc.code == "unknown_type":
                return None
            raise

    async def act(self, action: dict[str, Any], *, seq: int | None = None) -> dict[str, Any]:
        """Keep the action with the seq it quotes."""
        self.sent.append({"type": "action", "seq": seq, "action": dict(action)})
        return {"type": "ok"}

    async def close(self) -> None:
        """Nothing to close."""
        self.status = "closed"


def unknown_type(request: str) -> ServerError:
    """The refusal of a server that does not know ``request``."""
    return ServerError("unknown_type", f"unknown message type {request!r}")
