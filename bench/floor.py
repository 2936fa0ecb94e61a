"""Benchmark: the floor under ``bench/server.py`` on this machine, measured now.

A bare asyncio server plays the same load shape: tables of five connections over loopback, each
action applied to the engine and answered with one frame written to all five seats (the action,
whose turn it is and the legal actions; ``--views`` adds the public view). It has no
protocol layer (no handshake, requests, replies, limits or validation), no store, no per-seat
views and no summaries: only what no Sheepshead server can avoid. Run by hand::

    .venv/bin/python bench/floor.py [--tables 20] [--seconds 10]
    .venv/bin/python bench/floor.py --pace 1 --tables 2000 [--seconds 20]   # human pace

With ``--pace``, each seat answers after 0.5-1.5 x pace seconds instead of at once, as in
``bench/server.py --mode human``, and the latency from an action to each seat's next frame is
measured too: the floor's own tail at the same load, on the same machine, at the same time.

The issue that set the server's targets measured this kind of server at about 17,000 actions/s
on one core of its machine. What it does here says how fast this machine is today; the ratio of
``bench/server.py --mode closed`` to it is what the server's own layers cost, and holds across
machines far better than either figure alone (a shared VM's speed drifts by a quarter within an
hour). The server runs pinned to ``--server-core``, the load generator to ``--client-core``.
"""

from __future__ import annotations

import os
import sys

# bench/ is first on sys.path when this file runs as a script (and put there when a test
# loads it by path); benchlib then puts the project's packages ahead of bench/'s scripts.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import functools  # noqa: E402
import multiprocessing as mp  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from multiprocessing.connection import Connection as Pipe  # noqa: E402
from typing import Any  # noqa: E402

from benchlib import answer, pin, raise_nofile, summary  # noqa: E402

from engine.actions import action_from_dict  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from engine.view import public_view  # noqa: E402
from protocol.framing import FrameDecoder, encode  # noqa: E402

SEATS = 5


def cpu_seconds() -> float:
    """User plus system CPU seconds this process has used."""
    times = os.times()
    return times.user + times.system


class FloorTable:
    """One match and its five connections, seated in the order they said ``sit``."""

    def __init__(self, views: bool) -> None:
        self.views = views
        self.match = Match(RuleSet(), seed=random.randrange(1 << 62), hand_limit=None)
        self.seats: list[asyncio.Transport | None] = [None] * SEATS
        self.seq = 0

    def broadcast(self, last: dict[str, Any] | None) -> None:
        """One frame to all five seats: the last action, whose turn and its legal actions (and
        with ``--views``, the public view)."""
        hand = self.match.hand
        if hand.is_over:
            self.match.next_hand()
            hand = self.match.hand
        self.seq += 1
        message: dict[str, Any] = {
            "type": "state",
            "seq": self.seq,
            "last": last,
            "turn": hand.turn,
            "legal": [a.to_dict() for a in hand.legal_actions()],
        }
        if self.views:
            message["view"] = public_view(hand)
        frame = encode(message)
        for transport in self.seats:
            assert transport is not None
            transport.write(frame)


class _Stream(asyncio.Protocol):
    """A connection that keeps its transport."""

    transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport


class FloorConnection(_Stream):
    """A seat: ``{"sit": table, "seat": n}`` once, then actions."""

    def __init__(self, tables: dict[int, FloorTable], views: bool) -> None:
        self.tables = tables
        self.views = views
        self.decoder = FrameDecoder()
        self.table: FloorTable | None = None

    def data_received(self, data: bytes) -> None:
        for message in self.decoder.feed(data):
            if not isinstance(message, dict):
                continue
            if "sit" in message:
                assert self.transport is not None
                self.table = self.tables.setdefault(message["sit"], FloorTable(self.views))
                self.table.seats[message["seat"]] = self.transport
                if None not in self.table.seats:
                    self.table.broadcast(None)
            elif self.table is not None:
                self.table.match.apply(action_from_dict(message["action"]))
                self.table.broadcast(message["action"])


def server_process(pipe: Pipe, core: int, views: bool) -> None:
    """Serve until told to stop; report this process's CPU seconds between go and end."""
    pin({core})

    async def run() -> None:
        tables: dict[int, FloorTable] = {}
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: FloorConnection(tables, views), "127.0.0.1", 0)
        pipe.send(server.sockets[0].getsockname()[1])
        inbox: asyncio.Queue[str] = asyncio.Queue()
        loop.add_reader(pipe.fileno(), lambda: inbox.put_nowait(pipe.recv()))
        await inbox.get()  # go
        start = cpu_seconds()
        await inbox.get()  # end
        pipe.send(cpu_seconds() - start)
        server.close()

    asyncio.run(run())


class LoadTable:
    """What a table's five load-generator seats share: the last action's send time and the
    ``seq`` of the frame it answered, so that each seat can time the frame that follows it."""

    def __init__(self) -> None:
        self.answered = -1
        self.sent_at = 0.0


class Load:
    """One load generator's shared state: the action count, the pace and the latency samples."""

    def __init__(self, pace: float | None) -> None:
        self.actions = 0
        self.pace = pace
        self.rng = random.Random(1)
        self.timing = False
        """Whether latencies are being recorded (inside the window, and only with a pace)."""
        self.latencies: list[float] = []


class Seat(_Stream):
    """A load-generator seat: answers every state that names it with a random legal action, at
    once or after a human pause, and with a pace times each action's next frame."""

    def __init__(self, number: int, table: LoadTable, load: Load) -> None:
        self.number = number
        self.table = table
        self.load = load
        self.decoder = FrameDecoder(trusted=True)

    def data_received(self, data: bytes) -> None:
        load = self.load
        for message in self.decoder.feed(data):
            if not isinstance(message, dict):
                continue
            if load.timing and message["seq"] == self.table.answered + 1:
                load.latencies.append(time.perf_counter() - self.table.sent_at)
            if message.get("turn") == self.number:
                action = load.rng.choice(message["legal"])
                if load.pace is None:
                    self.act(message["seq"], action)
                else:
                    delay = load.pace * load.rng.uniform(0.5, 1.5)
                    asyncio.get_running_loop().call_later(delay, self.act, message["seq"], action)

    def act(self, seq: int, action: dict[str, Any]) -> None:
        """Send ``action``, the answer to the frame numbered ``seq``."""
        assert self.transport is not None
        self.table.answered = seq
        self.table.sent_at = time.perf_counter()
        self.transport.write(encode({"action": action}))
        self.load.actions += 1


def load_process(
    pipe: Pipe, port: int, tables: int, seconds: float, core: int, pace: float | None
) -> None:
    """Seat ``tables`` tables, warm up, then count actions (and with a pace, time them) for
    ``seconds``."""
    pin({core})

    async def run() -> None:
        loop = asyncio.get_running_loop()
        load = Load(pace)
        for table in range(tables):
            shared = LoadTable()
            for seat in range(SEATS):
                transport, _ = await loop.create_connection(
                    functools.partial(Seat, seat, shared, load), "127.0.0.1", port
                )
                transport.write(encode({"sit": table, "seat": seat}))
        # Paced tables start in step; a few paces spread their turns out.
        await asyncio.sleep(2.0 if pace is None else max(2.0, 5 * pace))
        pipe.send("go")
        before, start, cpu = load.actions, time.perf_counter(), cpu_seconds()
        load.timing = pace is not None
        await asyncio.sleep(seconds)
        load.timing = False
        window = time.perf_counter() - start
        pipe.send((load.actions - before, window, cpu_seconds() - cpu, load.latencies))

    asyncio.run(run())


def main() -> None:
    """Parse the options, run the floor server and its load, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20, help="tables (default 20)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window (10)")
    parser.add_argument(
        "--views", action="store_true", help="send the public view in every frame too"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=None,
        help="seconds a seat takes to act, on average (default: none, it acts at once)",
    )
    parser.add_argument("--server-core", type=int, default=0, help="core for the server (0)")
    parser.add_argument("--client-core", type=int, default=1, help="core for the load (1)")
    args = parser.parse_args()
    if args.pace is not None and args.pace <= 0:
        parser.error("--pace must be above 0")
    raise_nofile(6 * args.tables + 100)  # five sockets per table on each side; children inherit

    ctx = mp.get_context("fork")
    server_end, server_child = ctx.Pipe()
    server = ctx.Process(target=server_process, args=(server_child, args.server_core, args.views))
    server.start()
    server_child.close()  # the child's copy is the last: its exit then ends our reads with EOF
    port = answer(server_end, "the server")
    load_end, load_child = ctx.Pipe()
    load = ctx.Process(
        target=load_process,
        args=(load_child, port, args.tables, args.seconds, args.client_core, args.pace),
    )
    load.start()
    load_child.close()
    if answer(load_end, "the load generator") != "go":
        raise SystemExit("the load generator failed")
    server_end.send("go")
    actions, window, load_cpu, latencies = answer(load_end, "the load generator")
    server_end.send("end")
    server_cpu: float = answer(server_end, "the server")
    load.join()
    server.join()
    rate = actions / window
    if not actions:
        raise SystemExit("no actions were played")
    shape = "with the public view" if args.views else "last action and legal list only"
    pace = "at once" if args.pace is None else f"pace {args.pace:g} s"
    print(f"floor: {args.tables} tables x {SEATS} seats ({shape}), {pace}, window {window:.1f} s")
    print(f"actions: {actions:,} = {rate:,.0f} actions/s")
    # A short paced run on a loaded machine can show no CPU time at all (the clock's tick).
    ceiling = f"{actions / server_cpu:,.0f}" if server_cpu > 0 else "(too little CPU to tell)"
    print(
        f"server CPU: {server_cpu / window:.0%} of one core; {server_cpu / actions * 1e6:.0f} us "
        f"per action; i.e. at most ~{ceiling} actions/s with a whole core"
    )
    if args.pace is None:
        print(f"load generator CPU: {load_cpu / window:.0%} of a core (near 100%: it set the pace)")
    else:
        print(f"load generator CPU: {load_cpu / window:.0%} of a core")
        print(f"action -> any seat:    {summary([s * 1000 for s in latencies])}")


if __name__ == "__main__":
    main()
