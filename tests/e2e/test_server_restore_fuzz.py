"""Random sequences of create, start, act, end_match, rematch and restart against a real
``sheepshead serve`` process: after every restart (``kill -9`` and SIGTERM in turn) every table,
match number, hand history and seat token is exactly as it was before it."""

from __future__ import annotations

import asyncio
import itertools
import os
import sqlite3
from collections.abc import Callable
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
start, act, end_match, rematch, leave (the second person, if any), restart, or step: whichever
of start (seating a bot first where somebody left), act and rematch applies."""

OPS = st.lists(
    st.tuples(
        # "step" moves a table on (start, act or rematch), so most cases reach a rematch.
        st.sampled_from(
            ["create", "step", "step", "step", "step", "end_match", "leave", "restart"]
        ),
        st.integers(0, MAX_TABLES - 1),
        st.integers(0, 12),
    ),
    min_size=1,
    max_size=9,
)


class Person:
    """One person at a table: the seat's token and one connection, kept open until the server
    stops, with the table as that connection last saw it."""

    def __init__(self, table: str, seat: int, token: str) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.raw: Raw | None = None
        self.state: dict[str, Any] = {}
        """The latest ``state`` (its ``info`` only what changed, after the first)."""
        self.table_state = ""
        """waiting, playing or over."""

    async def connect(self, port: int) -> dict[str, Any]:
        """Take the seat back with its token on a new connection (it replaces the last one);
        returns the snapshot that follows the welcome."""
        if self.raw is not None:
            await self.raw.close()
        self.raw = await Raw.open(port)
        welcome = await self.raw.hello(f"P{self.seat}", token=self.token)
        assert (welcome["table"], welcome["seat"]) == (self.table, self.seat), welcome
        self.state = {}
        await self.read_until(lambda: bool(self.state))
        return self.state

    async def read_until(self, done: Callable[[], bool]) -> None:
        """Read until ``done()`` holds (at once if it does), answering commitments with a
        fresh client seed (so the deal does not wait for it)."""
        assert self.raw is not None
        while not done():
            msg = await self.raw.recv(timeout=15)
            if msg["type"] == "commitment":
                seed = os.urandom(32).hex()
                await self.raw.send(
                    {"type": "client_seed", "commitment": msg["commitment"], "seed": seed}
                )
            assert msg["type"] != "error", msg
            if msg["type"] == "state":
                self.state = msg
                self.table_state = (msg.get("info") or {}).get("state", self.table_state)

    async def request(self, type: str, refusals: tuple[str, ...] = (), **fields: Any) -> bool:
        """Send a request; whether it succeeded (it may be refused only with a code of
        ``refusals``). It is sent again after a moment while the connection's message
        allowance is spent: these people act as fast as the server answers."""
        assert self.raw is not None
        while True:
            reply = await self.raw.request_keeping(type, **fields)
            if reply.get("code") != "rate_limited":
                assert reply["type"] == "ok" or reply.get("code") in refusals, reply
                return reply["type"] == "ok"
            await asyncio.sleep(1 / 20)  # the allowance gains a message every 1/rate s


class People:
    """The people at one table by seat: the host at 0 and, at some tables, a second person at
    4 (server bots hold the other seats)."""

    def __init__(self, host: Person) -> None:
        self.table = host.table
        self.by_seat = {0: host}
        self.full = True
        """Whether a match can start (seat 4 is empty once its person has left)."""
        self.gone: list[str] = []
        """Tokens of people who left: not valid, before a restart or after."""
        self.left_over = False
        """Somebody left once the match was over: the rematch empties the seat."""

    def settled(self, person: Person, after: int, *, starting: bool = False) -> bool:
        """Whether ``person`` has seen a state past seq ``after`` in which nothing will happen
        until a person does something: waiting (unless ``starting``: a match begins once the
        seeds are in), over, or a person's turn (otherwise a bot's move or the next deal may
        still be under way)."""
        view = person.state.get("view")
        return person.state["seq"] > after and (
            person.table_state == "over"
            or (person.table_state == "waiting" and not starting)
            or bool(view and view["turn"] in self.by_seat)
        )

    async def settle(self, after: int = -1, *, starting: bool = False) -> None:
        """Wait until every person has seen the table settle past seq ``after`` (all read at
        once: each answers the commitment it is sent, and the deal waits for all of them)."""
        await asyncio.gather(
            *(
                person.read_until(
                    lambda p=person: self.settled(p, after, starting=starting)  # type: ignore[misc]
                )
                for person in self.by_seat.values()
            )
        )

    async def act(self, count: int) -> None:
        """Play ``count`` actions (fewer if the match ends), each the first legal one of
        whichever person's turn it is."""
        for _ in range(count):
            host = self.by_seat[0]
            if host.table_state != "playing":
                return
            person = self.by_seat[host.state["view"]["turn"]]
            seq = person.state["seq"]
            action = person.state["view"]["legal"][0]
            assert person.raw is not None
            await person.request("action", seq=seq, action=action)
            # Read on to the state that shows this action: one published after ``seq`` but
            # before it (another person's reconnect) still has the turn here, and acting on it
            # again was refused (not_your_turn) on a loaded machine.
            await person.read_until(
                lambda p=person, sent=seq, done=action: (  # type: ignore[misc]
                    p.state["seq"] > sent
                    and all(
                        (p.state.get("last") or {}).get(k) == done.get(k)
                        for k in ("seat", "action", "card")
                    )
                )
            )
            await self.settle(person.state["seq"] - 1)


async def create(port: int, number: int) -> People:
    """A table with ``(1, 2, None)[number % 3]`` hands, full: four server bots, or three and a
    second person when ``number`` is odd."""
    raw = await Raw.open(port)
    await raw.hello("P0")
    second = number % 2 == 1
    created = await raw_bot_table(raw, bots=3 if second else 4, hands=(1, 2, None)[number % 3])
    host = Person(created["table"], 0, created["token"])
    host.raw = raw
    people = People(host)
    if second:
        other = await Raw.open(port)
        await other.hello("P4")
        joined = await other.request("join", table=people.table, seat=4)
        assert joined["type"] == "ok", joined
        people.by_seat[4] = Person(people.table, 4, joined["token"])
        people.by_seat[4].raw = other
    for person in people.by_seat.values():
        # Each connection's snapshot: its replies skipped what came before them.
        await person.connect(port)
    return people


async def apply(port: int, tables: list[People], op: Op) -> None:
    """Carry out one operation (one that does not apply to the table it names is skipped)."""
    what, which, number = op
    if what == "create":
        if len(tables) < MAX_TABLES:
            tables.append(await create(port, number))
        return
    if not tables:
        return
    people = tables[which % len(tables)]
    host = people.by_seat[0]
    table_state = host.table_state
    if what == "step":
        what = {"waiting": "start", "playing": "act", "over": "rematch"}[table_state]
    seq = host.state["seq"]
    if what == "act" and table_state == "playing":
        await people.act(number)
    elif what == "leave" and 4 in people.by_seat:
        person = people.by_seat.pop(4)
        await person.request("leave")
        assert person.raw is not None
        await person.raw.close()
        people.gone.append(person.token)
        if table_state == "over":
            people.left_over = True
        else:
            people.full = False
        await people.settle(seq)
    elif what == "start" and table_state == "waiting":
        if not people.full:
            refusals = ("too_many_bots",)  # other tables' bots: it stays waiting
            people.full = await host.request("add_bot", refusals, seat=4, strategy="random")
            await people.settle(seq)
            seq = host.state["seq"]
        if people.full:
            await host.request("start")
            await people.settle(seq, starting=True)
    elif (what, table_state) in (("end_match", "playing"), ("rematch", "over")):
        await host.request(what)
        if what == "rematch" and people.left_over:
            people.full = people.left_over = False
        await people.settle(seq, starting=what == "rematch" and people.full)


async def everything(port: int, tables: list[People], db: Path) -> dict[Any, Any]:
    """What must survive a restart: the snapshot and history each seat token gets on a new
    connection, the listing, and the stored hands and results of every match."""
    seen: dict[Any, Any] = {}
    for people in tables:
        snapshots = {seat: await person.connect(port) for seat, person in people.by_seat.items()}
        await people.settle()
        for seat, person in people.by_seat.items():
            assert person.raw is not None
            # Every page: where hands are read back from the database (after a restart) a
            # reply carries a few of them and `next` (PROTOCOL.md §4, `history`).
            history = await person.raw.request_keeping("history")
            assert history["type"] == "ok", history
            hands = list(history["hands"])
            while history.get("next") is not None:
                history = await person.raw.request_keeping("history", start=history["next"])
                assert history["type"] == "ok", history
                hands += history["hands"]
            state = comparable(snapshots[seat])
            seen[people.table, seat] = (state, history["match"], hands)
        for token in people.gone:
            raw = await Raw.open(port)
            welcome = await raw.hello("Gone", token=token)
            seen[token] = (welcome["table"], welcome["seat"], (await raw.recv())["code"])
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


async def restart(served: Served, db: Path, tables: list[People]) -> Served:
    """Stop the server, by ``kill -9`` and by SIGTERM in turn, and start it again on ``db``.
    On SIGTERM the people's connections read to the end and close, as a client does (the
    server gives them a second to)."""
    if next(RESTARTS) % 2 == 0:
        await served.kill()
    else:
        ends = [p.raw.closed() for t in tables for p in t.by_seat.values() if p.raw is not None]
        await asyncio.gather(served.terminate(), *ends)
    return await Served.start(db, trick_pause=0.0)


async def run(ops: list[Op], db: Path) -> None:
    """A server on ``db``, a first table, the operations, and a restart at the end."""
    tables: list[People] = []
    served = await Served.start(db, trick_pause=0.0)
    try:
        for op in [("create", 0, 2), *ops, ("restart", 0, 0)]:
            if op[0] != "restart":
                await apply(served.port, tables, op)
                continue
            before = await everything(served.port, tables, db)
            served = await restart(served, db, tables)
            after = await everything(served.port, tables, db)
            assert after == before, op
    finally:
        for people in tables:
            for person in people.by_seat.values():
                if person.raw is not None:
                    await person.raw.close()
        await served.kill()


@settings(
    max_examples=10,
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
# A second person leaves mid-match (a stand-in plays on); the rematch waits for a bot in that
# seat, across a restart, and the left person's token stays invalid.
@example(
    ops=[
        *[("create", 0, 1), ("step", 1, 0), ("step", 1, 9), ("leave", 1, 0), ("step", 1, 12)],
        *[("end_match", 1, 0), ("restart", 0, 0), ("step", 1, 0), ("restart", 0, 0)],
        ("step", 1, 0),
    ]
)
@given(ops=OPS)
def test_every_table_comes_back_after_any_restart(tmp_path: Path, ops: list[Op]) -> None:
    """Every restart of a case, ``kill -9`` or SIGTERM, leaves each seat token's state and
    history, the listing and the stored hands and results as they were."""
    CASES.append(1)
    db = tmp_path / f"fuzz-{len(CASES)}.db"
    asyncio.run(run(ops, db))
