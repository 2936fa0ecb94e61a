"""Random sequences of create, start, act, end_match, rematch and restart against a real
``sheepshead serve`` process: after every restart (``kill -9`` and SIGTERM in turn) every table,
match number, hand history and seat token is exactly as it was before it."""

from __future__ import annotations

import asyncio
import itertools
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from tests.e2e.test_server_crash import Served
from tests.e2e.test_server_restore import comparable
from tests.server.support import Raw, raw_bot_table

MAX_TABLES = 3
"""Tables per case (an address may have three that have not started)."""

RESTARTS = itertools.count()
"""Every restart of the run, so kills and SIGTERMs alternate over all the cases."""

CASES: list[int] = []
"""One entry per case run (the test reports how many)."""

Op = tuple[str, int, int]
"""(what, which table (modulo how many there are), a number: hands or actions). What: create,
start, act, end_match, rematch, restart, or step: whichever of start, act and rematch applies."""

OPS = st.lists(
    st.tuples(
        # "step" moves a table on (start, act or rematch), so most cases reach a rematch.
        st.sampled_from(["create", "step", "step", "step", "step", "end_match", "restart"]),
        st.integers(0, MAX_TABLES - 1),
        st.integers(0, 12),
    ),
    min_size=1,
    max_size=9,
)


@dataclass
class Seat:
    """The host of one table (seat 0; four server bots hold the others)."""

    table: str
    token: str


async def answer(raw: Raw, msg: dict[str, Any]) -> None:
    """Give a commitment a fresh client seed (so the deal does not wait for it)."""
    if msg["type"] == "commitment":
        seed = os.urandom(32).hex()
        await raw.send({"type": "client_seed", "commitment": msg["commitment"], "seed": seed})


def settled(state: dict[str, Any], table_state: str) -> bool:
    """Whether nothing will happen at the table until its host does something: waiting, over,
    or the host's turn (a bot's move or the next deal may still be under way otherwise)."""
    view = state.get("view")
    return table_state in ("waiting", "over") or bool(
        view and view.get("turn") == 0 and view.get("legal")
    )


async def resume(port: int, seat: Seat) -> tuple[Raw, dict[str, Any]]:
    """Take the host's seat back on a new connection; returns it and the first settled state
    (answering commitments meanwhile, acting for nobody)."""
    raw = await Raw.open(port)
    welcome = await raw.hello("Host", token=seat.token)
    assert welcome["table"] == seat.table, welcome
    table_state = ""
    while True:
        msg = await raw.recv(timeout=15)
        assert msg["type"] != "error", msg
        await answer(raw, msg)
        if msg["type"] == "state":
            table_state = (msg.get("info") or {}).get("state", table_state)
            if settled(msg, table_state):
                return raw, msg


async def act(raw: Raw, count: int) -> None:
    """Play the host's first legal action ``count`` times (fewer if the match ends), then wait
    until the table settles again."""
    acted = -1  # the seq last answered
    table_state = "playing"
    while True:
        msg = await raw.recv(timeout=15)
        await answer(raw, msg)
        if msg["type"] == "error":
            assert msg["code"] in ("stale", "not_your_turn"), msg
        elif msg["type"] == "state":
            table_state = (msg.get("info") or {}).get("state", table_state)
            if table_state == "over":
                return
        elif msg["type"] == "your_turn" and msg["seq"] > acted:
            if count == 0:
                return
            await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
            acted = msg["seq"]
            count -= 1


async def apply(port: int, seats: list[Seat], op: Op) -> None:
    """Carry out one operation (one that does not apply to the table it names is skipped)."""
    what, which, number = op
    if what == "create":
        if len(seats) == MAX_TABLES:
            return
        raw = await Raw.open(port)
        await raw.hello("Host")
        hands = (1, 2, None)[number % 3]
        created = await raw_bot_table(raw, hands=hands)
        seats.append(Seat(created["table"], created["token"]))
        await raw.close()
        return
    if not seats:
        return
    raw, state = await resume(port, seats[which % len(seats)])
    try:
        table_state = state["info"]["state"]
        if what == "step":
            what = {"waiting": "start", "playing": "act", "over": "rematch"}[table_state]
        if what == "start" and table_state == "waiting":
            assert (await raw.request_keeping("start"))["type"] == "ok"
            await act(raw, 0)
        elif what == "act" and table_state == "playing":
            await act(raw, number)
        elif what == "end_match" and table_state == "playing":
            assert (await raw.request_keeping("end_match"))["type"] == "ok"
            await act(raw, 0)
        elif what == "rematch" and table_state == "over":
            assert (await raw.request_keeping("rematch"))["type"] == "ok"
            await act(raw, 0)  # a full table: the new match starts at once
    finally:
        await raw.close()


async def everything(port: int, seats: list[Seat], db: Path) -> dict[str, Any]:
    """What must survive a restart: each seat token's settled state and history, the listing,
    and the stored hands and results of every match."""
    seen: dict[str, Any] = {}
    for seat in seats:
        raw, state = await resume(port, seat)
        history = await raw.request_keeping("history")
        assert history["type"] == "ok", history
        seen[seat.table] = (comparable(state), history["match"], history["hands"])
        await raw.close()
    raw = await Raw.open(port)
    await raw.hello("Lister")
    listing = (await raw.request("list_tables"))["tables"]
    await raw.close()
    for entry in listing:
        for s in entry.get("seats", ()):
            s.pop("connected", None)
    seen["listing"] = sorted(listing, key=lambda t: t["id"])
    with sqlite3.connect(db) as conn:
        seen["hands"] = conn.execute(
            "SELECT table_id, match_number, number, record, payouts FROM hands"
            " ORDER BY table_id, match_number, number"
        ).fetchall()
        seen["results"] = conn.execute(
            "SELECT table_id, match_number, seat, total, hands FROM results"
            " ORDER BY table_id, match_number, seat"
        ).fetchall()
    conn.close()
    return seen


async def restart(served: Served, db: Path) -> Served:
    """Stop the server, by ``kill -9`` and by SIGTERM in turn, and start it again on ``db``."""
    if next(RESTARTS) % 2 == 0:
        await served.kill()
    else:
        await served.terminate()
    return await Served.start(db, trick_pause=0.0)


async def run(ops: list[Op], db: Path) -> None:
    """A server on ``db``, a first table, the operations, and a restart at the end."""
    seats: list[Seat] = []
    served = await Served.start(db, trick_pause=0.0)
    try:
        for op in [("create", 0, 2), *ops, ("restart", 0, 0)]:
            if op[0] != "restart":
                await apply(served.port, seats, op)
                continue
            before = await everything(served.port, seats, db)
            served = await restart(served, db)
            after = await everything(served.port, seats, db)
            assert after == before, op
    finally:
        await served.kill()


@settings(
    max_examples=12,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each step starts a process
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Issue 27: a rematch at a table younger than another one still playing.
@example(
    ops=[
        *[("start", 0, 0), ("create", 0, 2), ("start", 1, 0), ("act", 1, 9)],
        *[("end_match", 1, 0), ("rematch", 1, 0), ("act", 1, 3)],
    ]
)
# A match over with no rematch (t2); a match just dealt (t3); both across two restarts.
@example(
    ops=[
        *[("start", 0, 0), ("act", 0, 2), ("create", 0, 0), ("start", 1, 0), ("act", 1, 12)],
        *[("act", 1, 12), ("create", 0, 1), ("start", 2, 0), ("restart", 0, 0), ("act", 0, 1)],
    ]
)
# A rematch's second match over too, and a rematch that ran on past a restart.
@example(
    ops=[
        *[("start", 0, 0), ("end_match", 0, 0), ("rematch", 0, 0), ("restart", 0, 0)],
        *[("act", 0, 5), ("end_match", 0, 0), ("restart", 0, 0), ("rematch", 0, 0), ("act", 0, 2)],
    ]
)
@given(ops=OPS)
def test_every_table_comes_back_after_any_restart(tmp_path: Path, ops: list[Op]) -> None:
    """Every restart of a case, ``kill -9`` or SIGTERM, leaves each seat token's state and
    history, the listing and the stored hands and results as they were."""
    CASES.append(1)
    db = tmp_path / f"fuzz-{len(CASES)}.db"
    asyncio.run(run(ops, db))
