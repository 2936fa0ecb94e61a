"""Benchmark: the floor under ``bench/server.py`` on this machine, measured now.

A bare asyncio server plays the same load shape: tables of five connections over loopback, each
action applied to the engine and answered with one frame written to all five seats (the action,
whose turn it is and the legal actions; ``--views`` adds the public view). It has no
protocol layer (no handshake, requests, replies, limits or validation), no store, no per-seat
views and no summaries: only what no Sheepshead server can avoid. Run by hand::

    .venv/bin/python bench/floor.py [--tables 20] [--seconds 10]

The issue that set the server's targets measured this kind of server at about 17,000 actions/s
on one core of its machine. What it does here says how fast this machine is today; the ratio of
``bench/server.py --mode closed`` to it is what the server's own layers cost, and holds across
machines far better than either figure alone (a shared VM's speed drifts by a quarter within an
hour). The server runs pinned to ``--server-core``, the load generator to ``--client-core``.
"""

from __future__ import annotations

import os
import sys

# Running this file puts bench/ first on sys.path, where bench/engine.py would shadow the engine.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import functools  # noqa: E402
import multiprocessing as mp  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from multiprocessing.connection import Connection as Pipe  # noqa: E402
from typing import Any  # noqa: E402

from engine.actions import action_from_dict  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.rules import RuleSet  # noqa: E402
from engine.view import public_view  # noqa: E402
from protocol.framing import FrameDecoder, encode  # noqa: E402

SEATS = 5


def pin(core: int) -> None:
    """Pin this process to ``core`` when the machine has it."""
    if core in os.sched_getaffinity(0):
        os.sched_setaffinity(0, {core})


def cpu_seconds() -> float:
    """User plus system CPU seconds this process has used."""
    times = os.times()
    return times.user + times.system


class FloorTable:
    """One match and its five connections, seated in the order they said ``sit``."""

    def __init__(self, views: bool) -> None:
        self.views = views
        self.match = Match(RuleSet(), seed=random.randrange(1 << 62), hand_limit=None)
        self.seats: list[asyncio.Transport] = []
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
            transport.write(frame)


class _Stream(asyncio.Protocol):
    """A connection that keeps its transport."""

    transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport


class FloorConnection(_Stream):
    """A seat: ``{"sit": table}`` once, then actions."""

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
                self.table.seats.append(self.transport)
                if len(self.table.seats) == SEATS:
                    self.table.broadcast(None)
            elif self.table is not None:
                self.table.match.apply(action_from_dict(message["action"]))
                self.table.broadcast(message["action"])


def server_process(pipe: Pipe, core: int, views: bool) -> None:
    """Serve until told to stop; report this process's CPU seconds between go and end."""
    pin(core)

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


class Seat(_Stream):
    """A load-generator seat: answers every state that names it with a random legal action."""

    def __init__(self, number: int, counter: list[int], rng: random.Random) -> None:
        self.number = number
        self.counter = counter
        self.rng = rng
        self.decoder = FrameDecoder(trusted=True)

    def data_received(self, data: bytes) -> None:
        for message in self.decoder.feed(data):
            if isinstance(message, dict) and message.get("turn") == self.number:
                assert self.transport is not None
                action = self.rng.choice(message["legal"])
                self.transport.write(encode({"action": action}))
                self.counter[0] += 1


def load_process(pipe: Pipe, port: int, tables: int, seconds: float, core: int) -> None:
    """Seat ``tables`` tables, warm up, then count actions for ``seconds``."""
    pin(core)

    async def run() -> None:
        loop = asyncio.get_running_loop()
        counter = [0]
        rng = random.Random(1)
        for table in range(tables):
            for seat in range(SEATS):
                transport, _ = await loop.create_connection(
                    functools.partial(Seat, seat, counter, rng), "127.0.0.1", port
                )
                transport.write(encode({"sit": table}))
                await asyncio.sleep(0.001)  # sit in seat order
        await asyncio.sleep(2.0)  # warm up
        pipe.send("go")
        before, start, cpu = counter[0], time.perf_counter(), cpu_seconds()
        await asyncio.sleep(seconds)
        pipe.send((counter[0] - before, time.perf_counter() - start, cpu_seconds() - cpu))

    asyncio.run(run())


def answer(pipe: Pipe, who: str) -> Any:
    """The next message from a child process; one that died ends the run instead of hanging it."""
    try:
        return pipe.recv()
    except EOFError:
        raise SystemExit(f"floor: {who} exited early (its traceback, if any, is above)") from None


def main() -> None:
    """Parse the options, run the floor server and its load, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20, help="tables (default 20)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window (10)")
    parser.add_argument(
        "--views", action="store_true", help="send the public view in every frame too"
    )
    parser.add_argument("--server-core", type=int, default=0, help="core for the server (0)")
    parser.add_argument("--client-core", type=int, default=1, help="core for the load (1)")
    args = parser.parse_args()

    ctx = mp.get_context("fork")
    server_end, server_child = ctx.Pipe()
    server = ctx.Process(target=server_process, args=(server_child, args.server_core, args.views))
    server.start()
    server_child.close()  # the child's copy is the last: its exit then ends our reads with EOF
    port = answer(server_end, "the server")
    load_end, load_child = ctx.Pipe()
    load = ctx.Process(
        target=load_process, args=(load_child, port, args.tables, args.seconds, args.client_core)
    )
    load.start()
    load_child.close()
    if answer(load_end, "the load generator") != "go":
        raise SystemExit("the load generator failed")
    server_end.send("go")
    actions, window, load_cpu = answer(load_end, "the load generator")
    server_end.send("end")
    server_cpu: float = answer(server_end, "the server")
    load.join()
    server.join()
    rate = actions / window
    if not actions:
        raise SystemExit("no actions were played")
    shape = "with the public view" if args.views else "last action and legal list only"
    print(f"floor: {args.tables} tables x {SEATS} seats ({shape}), window {window:.1f} s")
    print(f"actions: {actions:,} = {rate:,.0f} actions/s")
    print(
        f"server CPU: {server_cpu / window:.0%} of one core; {server_cpu / actions * 1e6:.0f} us "
        f"per action; i.e. at most ~{actions / server_cpu:,.0f} actions/s with a whole core"
    )
    print(f"load generator CPU: {load_cpu / window:.0%} of a core (near 100%: it set the pace)")


if __name__ == "__main__":
    main()
