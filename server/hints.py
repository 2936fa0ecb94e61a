"""The coach at the table: the ``hint`` request (PROTOCOL.md §4).

A person at a table created with ``hints`` on asks, on their turn, which choice is best. The
server takes exactly that seat's view (:func:`engine.view.seat_view` of the asking seat, nothing
more), and has a bot worker (:meth:`server.botpool.BotPool.hint`) run the coach
(:mod:`engine.bots.coach`) on it: never on the event loop, within the pool's budget and
:data:`HINT_THINK_TIME`. The ``ok`` reply, sent when the answer is in, carries the best two
choices with their mean payouts over the deals sampled. Asking changes nothing at the table.

Only the seat to act may ask, for its current prompt, one hint at a time per connection; a bot
connection (``hello.kind`` "bot", which is how tournaments and bot programs connect) may not.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING, Any, Final

from engine.view import seat_view
from protocol import messages as m
from protocol.messages import RequestError
from server.botpool import BotError

if TYPE_CHECKING:
    from server.connection import Connection
    from server.table import Table

log = logging.getLogger("sheepshead.server")

HINT_THINK_TIME: Final = 1.0
"""Seconds the coach may sample deals for one hint (and at most half the pool's budget)."""

_busy: set[Connection] = set()
"""Connections with a hint being worked out (one at a time each)."""

_tasks: set[asyncio.Task[None]] = set()
"""The hints being worked out (kept so that they are not collected mid-way)."""


def ask(peer: Connection, req: m.Hint) -> None:
    """Check a ``hint`` request and start working it out; the reply follows when it is in.

    Raises :class:`RequestError` (answered at once) when the request is refused."""
    table, seat = _check(peer)
    match = table.match
    assert match is not None
    view = seat_view(match.hand, seat)
    legal = [m.without_seat(a) for a in view["legal"]]
    seq = table.seq
    _busy.add(peer)
    task = asyncio.get_running_loop().create_task(_answer(peer, table, req.id, view, legal, seq))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


def _check(peer: Connection) -> tuple[Table, int]:
    """The table and the asking seat, or the refusal (PROTOCOL.md §4, ``hint``)."""
    table, seat = peer.table, peer.seat
    if table is None or seat is None:
        raise RequestError(m.NOT_SEATED, "You are not seated at a table")
    if peer.kind == "bot":
        raise RequestError(m.NOT_ALLOWED, "Hints are for people; a bot connection plays alone")
    if not table.config.hints:
        raise RequestError(m.HINTS_OFF, "This table was created without hints")
    if table.state == "waiting" or table.match is None:
        raise RequestError(m.NOT_STARTED, "The match has not started")
    if table.state != "playing":
        raise RequestError(m.MATCH_OVER, "The match is over")
    hand = table.match.hand
    if hand.is_over:
        raise RequestError(m.HAND_OVER, "The hand is over; the next one is being dealt")
    if hand.turn != seat:
        raise RequestError(m.NOT_YOUR_TURN, "A hint is for your own turn; wait for it")
    if peer in _busy:
        raise RequestError(m.RATE_LIMITED, "Your last hint is still being worked out")
    return table, seat


async def _answer(
    peer: Connection,
    table: Table,
    request_id: int,
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    seq: int,
) -> None:
    pool = table.hub.bots
    think_time = min(HINT_THINK_TIME, pool.budget / 2)
    try:
        advice = await pool.hint(view, legal, seed=secrets.randbits(32), think_time=think_time)
        candidates = [
            {"action": dict(c["action"]), "value": c["value"]} for c in advice["candidates"]
        ]
        reply = m.ok(request_id, seq=seq, deals=int(advice["deals"]), candidates=candidates)
    except asyncio.CancelledError:
        raise
    except (BotError, KeyError, TypeError, ValueError) as exc:
        log.warning("table %s: a hint failed (%s: %s)", table.id, type(exc).__name__, exc)
        reply = m.error(request_id, m.INTERNAL_ERROR, "The coach could not work out a hint")
    finally:
        _busy.discard(peer)
    peer.send(reply)
