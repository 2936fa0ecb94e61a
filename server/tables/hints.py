"""The coach at the table: the ``hint`` request (PROTOCOL.md §4).

A person at a table created with ``hints`` on asks, on their turn, which choice is best. The
server takes exactly that seat's view (:func:`engine.view.seat_view` of the asking seat, nothing
more), and has a bot worker (:meth:`server.bots.pool.BotPool.hint`) run the coach
(:mod:`engine.bots.coach`) on it: never on the event loop, within the pool's budget and
:data:`HINT_THINK_TIME`. The ``ok`` reply, sent when the answer is in, carries the best two
choices with their mean payouts over the deals sampled. Asking changes nothing at the table.

Only the seat to act may ask, for its current prompt; a bot connection (``hello.kind`` "bot",
which is how tournaments and bot programs connect) may not.

One hint or review at a time per seat, not per connection: another while one is being worked
out for the same connection is refused with ``busy``. A seat's request whose connection has
closed, was replaced by a reconnect with the seat token, or left the seat is cancelled: its
queued coach work is dropped, never worked out, and a new request for the seat is taken. At
most ``ServerConfig.max_coach_requests`` are worked out at once over the server (more:
``busy``). The bot workers serve the coach only when no bot decision waits
(:mod:`server.bots.pool`).

``review`` is the same after a hand: for each decision the asking seat made in a finished hand
of the match, the coach values what was done and the best choice, on that seat's view at the
time, one decision after the other in the bot workers (so that other tables' bots are served
in between), within :data:`REVIEW_THINK_TIME` each. The moves a stand-in or the turn timer
made for the seat's person (the record's ``made_for``) are not theirs: the reply names them
apart, unjudged; so are the moves made at the seat before its person took it over during the
hand (``before``: an earlier holder's, or the stand-in's that played for them), and a hand
played at the seat before its person sat down is not reviewed at all, whatever name it was
played under (told by their player key, else by when they sat down: :func:`_played_by_holder`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import msgpack

from engine.actions import action_from_dict
from engine.record import RecordError, hand_from_record
from engine.view import seat_view
from protocol import errors, requests
from protocol import events as m
from protocol.requests import RequestError
from server.bots.pool import BotError, CoachDropped
from server.tables.hub import Peer
from server.tables.ledger import RECORD_MADE_FOR

if TYPE_CHECKING:
    from server.tables.table import Table

log = logging.getLogger("sheepshead.server")

HINT_THINK_TIME: Final = 1.0
"""Seconds the coach may sample deals for one hint (and at most half the pool's budget)."""

REVIEW_THINK_TIME: Final = 0.4
"""Seconds the coach may sample deals for each decision of a review."""


@dataclass(eq=False)
class _Asking:
    """One seat's hint or review being worked out."""

    peer: Peer
    table: Table
    seat: int
    task: asyncio.Task[None] | None = None

    def wanted(self) -> bool:
        """Whether the asker still waits for the answer: its connection is open and still
        sits in the seat (a reconnect with the seat token replaces it; leaving ends it)."""
        peer = self.peer
        return (
            not getattr(peer, "closing", False)
            and peer.table is self.table
            and peer.seat == self.seat
        )


_asking: dict[tuple[int, int], _Asking] = {}
"""The hints and reviews being worked out, by ``(id(table), seat)``: one per seat."""

_tasks: set[asyncio.Task[None]] = set()
"""Their tasks, cancelled ones too until they end (kept so that none is collected mid-way)."""


def ask(peer: Peer, req: requests.Hint) -> None:
    """Check a ``hint`` request and start working it out; the reply follows when it is in.

    Raises :class:`RequestError` (answered at once) when the request is refused."""
    table, seat = _check(peer)
    match = table.match
    assert match is not None
    view = seat_view(match.hand, seat)
    legal = [m.without_seat(a) for a in view["legal"]]
    seq = table.seq
    asking = _Asking(peer, table, seat)
    work = partial(_answer, asking, req.id, view, legal, seq)
    _start(asking, req.id, "hint", work)


def _check_coach(peer: Peer) -> tuple[Table, int]:
    """The table and the asking seat, if the coach may answer them at all."""
    table, seat = peer.table, peer.seat
    if table is None or seat is None:
        raise RequestError(errors.NOT_SEATED, "You are not seated at a table")
    if peer.kind == "bot":
        raise RequestError(errors.NOT_ALLOWED, "Hints are for people; a bot connection plays alone")
    if not table.config.hints:
        raise RequestError(errors.HINTS_OFF, "This table was created without hints")
    _forget_unwanted()
    if (id(table), seat) in _asking:
        raise RequestError(errors.BUSY, "Your last hint or review is still being worked out")
    if len(_asking) >= table.hub.config.max_coach_requests:
        raise RequestError(errors.BUSY, "The coach is busy; ask again in a moment")
    return table, seat


def _forget_unwanted() -> None:
    """Cancel the requests nobody waits for any more (their seat may ask again at once)."""
    for key, asking in list(_asking.items()):
        if not asking.wanted():
            del _asking[key]
            if asking.task is not None:
                asking.task.cancel()


def _check(peer: Peer) -> tuple[Table, int]:
    """The table and the asking seat, or the refusal (PROTOCOL.md §4, ``hint``)."""
    table, seat = _check_coach(peer)
    if table.state == "waiting" or table.match is None:
        raise RequestError(errors.NOT_STARTED, "The match has not started")
    if table.state != "playing":
        raise RequestError(errors.MATCH_OVER, "The match is over")
    hand = table.match.hand
    if hand.is_over:
        raise RequestError(errors.HAND_OVER, "The hand is over; the next one is being dealt")
    if hand.turn != seat:
        raise RequestError(errors.NOT_YOUR_TURN, "A hint is for your own turn; wait for it")
    return table, seat


Work = Callable[[], Awaitable[m.OkReply]]
"""The coach's work for one request: it returns the ``ok`` reply."""


def _start(asking: _Asking, request_id: int, what: str, work: Work) -> None:
    """Work out a ``hint`` or ``review`` reply in the background and send it when it is in.

    One at a time per seat (``_asking``, checked by :func:`_check_coach`); a failure of the
    coach is logged and answered with ``internal_error`` under the request's id (PROTOCOL.md
    §4)."""
    key = (id(asking.table), asking.seat)
    _asking[key] = asking
    task = asyncio.get_running_loop().create_task(_reply(asking, request_id, what, work))
    asking.task = task
    _tasks.add(task)

    def done(_: asyncio.Task[None]) -> None:
        _tasks.discard(task)
        if _asking.get(key) is asking:
            del _asking[key]

    task.add_done_callback(done)


_FAILED: Final = {
    "hint": "The coach could not work out a hint",
    "review": "The coach could not review that hand",
}
"""What the asker is told when the coach fails, by request type."""


async def _reply(asking: _Asking, request_id: int, what: str, work: Work) -> None:
    reply: m.Reply
    try:
        reply = await work()
    except CoachDropped:
        return  # the asker is gone: nobody to answer
    except (BotError, KeyError, TypeError, ValueError) as exc:
        log.warning(
            "table %s: a %s failed (%s: %s)", asking.table.id, what, type(exc).__name__, exc
        )
        reply = m.error(request_id, errors.INTERNAL_ERROR, _FAILED[what])
    if asking.wanted():
        asking.peer.send(reply)


async def _answer(
    asking: _Asking,
    request_id: int,
    view: dict[str, Any],
    legal: list[m.ActionMap],
    seq: int,
) -> m.HintReply:
    """The ``ok`` reply to a hint: the coach's best choices on ``view``."""
    pool = asking.table.hub.bots
    think_time = min(HINT_THINK_TIME, pool.budget / 2)
    advice = await pool.hint(
        view, legal, seed=secrets.randbits(32), think_time=think_time, wanted=asking.wanted
    )
    candidates = [_candidate(c) for c in advice["candidates"]]
    return m.hint_reply(request_id, seq=seq, deals=int(advice["deals"]), candidates=candidates)


def _candidate(c: Mapping[str, Any]) -> dict[str, Any]:
    """One candidate of the coach's answer as the ``hint`` reply carries it (PROTOCOL.md §4)."""
    out: dict[str, Any] = {"action": dict(c["action"]), "value": c["value"]}
    if "se" in c:
        out["se"] = c["se"]
    if c.get("alike"):
        out["alike"] = [dict(a) for a in c["alike"]]
    return out


def review(peer: Peer, req: requests.Review) -> None:
    """Check a ``review`` request and start working it out; the reply follows when it is in."""
    table, seat = _check_coach(peer)
    finished = len(table.history)
    if not finished:
        raise RequestError(errors.BAD_REQUEST, "No hand of this match has finished yet")
    number = finished - 1 if req.hand is None else req.hand
    if number >= finished:
        raise RequestError(
            errors.BAD_REQUEST,
            f"field 'hand': hands 0 to {finished - 1} of this match are finished",
        )
    entry = msgpack.unpackb(table.history[number], raw=False)
    played = _played_under(entry, seat)
    if not _played_by_holder(table, seat, number, played):
        if not played:
            by = "somebody else"
        elif played == table.seats[seat].name:
            by = f"another player named {played}"
        else:
            by = played
        raise RequestError(
            errors.BAD_REQUEST,
            f"Hand {number} was played at your seat by {by}, before you sat down: "
            "there is no move of yours in it to review",
        )
    try:
        decisions, made_for = seat_decisions(entry["record"], seat)
    except (RecordError, KeyError, TypeError) as exc:
        raise RequestError(errors.INTERNAL_ERROR, f"The hand cannot be replayed ({exc})") from None
    asking = _Asking(peer, table, seat)
    work = partial(_review, asking, req.id, number, decisions, made_for)
    _start(asking, req.id, "review", work)


def _played_by_holder(table: Table, seat: int, number: int, played: str) -> bool:
    """Whether finished hand ``number`` of the current match was played at ``seat`` by its
    holder now (its last holder in the hand: earlier moves are told apart as ``before``),
    decided by who they are, never by a name another can sit down under.

    By the player key when both are known: the seat's holder's identity and the one the hand
    was counted for (the same person also after leaving the seat and taking it again). Else by
    the holding: the hands that finished since the holder sat down (:attr:`SeatState.since`)
    are theirs, the ones before another holder's. A seat restored from a row stored before
    that was kept: by the name ``played`` under, as before."""
    holder = table.seats[seat]
    if holder.identity is not None:
        counted = table.ledger.hand_identity(table.match_number, number, seat)
        if counted is not None:
            return counted == holder.identity
    if holder.since is not None:
        since_match, since_hand = holder.since
        return since_match < table.match_number or number >= since_hand
    return not played or played == holder.name


def _played_under(entry: Mapping[str, Any], seat: int) -> str:
    """The name ``seat`` played the hand of the history ``entry`` under (its last holder in
    the hand; empty: not known)."""
    names = entry.get("names")
    name = names[seat] if isinstance(names, list) and 0 <= seat < len(names) else None
    return name if isinstance(name, str) else ""


def made_for_places(record: Mapping[str, Any]) -> dict[int, str]:
    """Who made each action of ``record`` that its seat's last holder did not make (its place
    in the record's ``actions``, from 0 -> ``standin``, ``timer`` or ``before``): the record's
    ``made_for`` (docs/hand-record.md), anything else in it passed over; a place listed twice
    is told by the later kind of :data:`RECORD_MADE_FOR` (``before`` over a stand-in's).

    >>> made_for_places({"made_for": {"standin": [3, 8], "timer": [1], "ghost": [2]}})
    {3: 'standin', 8: 'standin', 1: 'timer'}
    >>> made_for_places({"made_for": {"standin": [3, 8], "before": [0, 3]}})
    {3: 'before', 8: 'standin', 0: 'before'}
    """
    given = record.get("made_for")
    if not isinstance(given, Mapping):
        return {}
    places: dict[int, str] = {}
    for by in RECORD_MADE_FOR:
        listed = given.get(by)
        if isinstance(listed, list):
            places.update((place, by) for place in listed if isinstance(place, int))
    return places


def seat_decisions(
    record: Mapping[str, Any], seat: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each choice ``seat`` made in the hand of ``record`` (a decision with one legal action
    is no choice: left out): the seat's view before it (from :func:`engine.view.seat_view`, so
    nothing the seat could not see then), the legal actions, what it did, the trick (1-6,
    None before the play) and its place ``n`` in the record's actions; and, apart, each
    action a stand-in or the turn timer made for the seat's person, or made there before they
    took the seat over (:func:`made_for_places`), which is not theirs to be judged on: its
    ``n``, ``trick``, ``action`` and ``by``."""
    hand = hand_from_record(record, stop_at=0)
    made_for = made_for_places(record)
    own, made = [], []
    for n, data in enumerate(record.get("actions") or []):
        if hand.turn == seat:
            trick = len(hand.tricks) + 1 if hand.phase == "play" else None
            if n in made_for:
                made.append(
                    {"n": n, "trick": trick, "action": m.without_seat(data), "by": made_for[n]}
                )
            elif len(hand.legal_actions()) >= 2:
                view = seat_view(hand, seat)
                own.append(
                    {
                        "view": view,
                        "legal": [m.without_seat(a) for a in view["legal"]],
                        "played": m.without_seat(data),
                        "trick": trick,
                        "n": n,
                    }
                )
        hand.apply(action_from_dict(data))
    return own, made


async def _review(
    asking: _Asking,
    request_id: int,
    number: int,
    decisions: list[dict[str, Any]],
    made_for: list[dict[str, Any]],
) -> m.ReviewReply:
    """The ``ok`` reply to a review: each decision valued against the coach's best, one after
    the other in the bot workers (each dropped unworked once the asker is gone); the actions
    made for the asker (``made_for``) only told, not valued."""
    pool = asking.table.hub.bots
    think_time = min(REVIEW_THINK_TIME, pool.budget / 2)
    rows = []
    for d in decisions:
        advice = await pool.hint(
            d["view"],
            d["legal"],
            seed=secrets.randbits(32),
            think_time=think_time,
            played=d["played"],
            wanted=asking.wanted,
        )
        best, mine = advice["candidates"][0], advice["played"]
        cost = None
        if best["value"] is not None and mine["value"] is not None:
            cost = round(max(0.0, best["value"] - mine["value"]), 3)
        rows.append(
            {
                "n": d["n"],
                "trick": d["trick"],
                "action": mine["action"],
                "value": mine["value"],
                "best": best["action"],
                "best_value": best["value"],
                "cost": cost,
                "se": mine.get("se"),
                "deals": int(advice["deals"]),
            }
        )
    return m.review_reply(request_id, hand=number, decisions=rows, made_for=made_for)
