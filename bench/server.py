"""Benchmark: the real server, in its own process, under load from real protocol clients.

Run by hand (figures are printed, nothing is asserted)::

    .venv/bin/python bench/server.py --mode closed [--tables 20] [--seconds 20]
    .venv/bin/python bench/server.py --mode human [--tables 2000] [--seconds 20]
    .venv/bin/python bench/server.py ... --db memory         # default: a temp file on disk
    .venv/bin/python bench/server.py ... --timers            # where the server's time goes
    .venv/bin/python bench/server.py ... --profile out.prof  # cProfile the server's window
    .venv/bin/python bench/server.py ... --compiled          # the build of `make compiled`

The server runs in a child process pinned to one core (``--server-core``, default 0) with its
limits raised for the load; the load generators run in other processes (``--workers``, pinned to
``--client-cores``, default 1) and speak the real protocol over loopback in plain msgpack on
lightweight asyncio protocols, one socket per seat, five seats per table, every match
open-ended. A ``state`` is read only as far as its ``seq`` (msgpack skips the rest), so the load
generators stay cheaper than the server they load. They must: with one load generator on one
core, a closed loop is only as fast as the slower side, and a load generator that falls behind
makes the server flush smaller batches, which cost the load generator more receives per
action (with the project's compiled codec in the load generator, a run settled at 3,500
actions/s, load generator at 97%, against 7,700 with plain msgpack a minute later). Every seat
answers its ``your_turn`` with a random legal action:

- ``closed``: at once, so each table runs as fast as the round trip allows. Measures actions/s
  accepted by the server and the latency from sending an action to receiving the ``state`` with
  the new seq, at the acting seat and at the other four.
- ``human``: after ``--pace`` seconds on average (uniform 0.5-1.5 x pace), so each table acts about
  once per pace. Measures the same latency and the server's resident memory per table. Each
  table first plays a random 0-40 actions at once (``SPREAD_ACTIONS``), so the window sees
  tables in every phase of a hand, hand ends and new deals included.

The load generators switch their garbage collector off once the matches have started, since
its pauses would stall their timestamps; the server keeps its own, and the pauses of both are
printed.

Targets (one server core): closed >= 5,000 actions/s with p99 action->broadcast < 50 ms; human
p99 < 10 ms and <= 50 KB per table.
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
import atexit  # noqa: E402
import cProfile  # noqa: E402
import dataclasses  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import logging  # noqa: E402
import multiprocessing as mp  # noqa: E402
import pstats  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from array import array  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from multiprocessing.connection import Connection as Pipe  # noqa: E402
from typing import Any  # noqa: E402

import msgpack  # noqa: E402
from benchlib import (  # noqa: E402
    answer,
    gc_summary,
    gc_timer,
    percentile,
    pin,
    raise_nofile,
    server_build,
    summary,
)

HEADER_SIZE = 4
"""The length prefix of every frame (PROTOCOL.md)."""


def encode(message: dict[str, Any]) -> bytes:
    """``message`` as one frame. The load generators speak plain msgpack, as
    ``examples/raw_bot.py`` does, not the project's codec: the load they put on the server is
    then the same whichever build of it is measured (``--compiled`` or not)."""
    body = msgpack.packb(message, use_bin_type=True)
    return len(body).to_bytes(HEADER_SIZE, "big") + body


SPREAD_ACTIONS = 40
"""Human mode: each table first plays a random 0 to this many actions at once, so that the
tables are spread over every phase of a hand (a hand is 33-40 actions) when the window opens.
Started together and paced alike, they would otherwise all be in the same phase: no hand would
end, and no new one be dealt, inside a window shorter than a hand (35 s and more at 1 action/s),
though dealing, burying and settling a hand are the heaviest states the server sends."""

SPREAD_TIMEOUT = 300.0
"""Seconds the spread may take before the load generator gives up (it takes about 10 s at
2,000 tables)."""

SETUP_CONCURRENCY = 25
"""Tables a load generator sets up at once (the server's listen backlog is 100)."""


# ---------------------------------------------------------------------------- process helpers


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` in KiB (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU seconds used so far by ``pid``."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def runqueue_seconds(pid: int) -> float:
    """Seconds ``pid`` has spent runnable but waiting for a CPU (/proc/<pid>/schedstat)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def steal_seconds(core: int) -> float:
    """Seconds the hypervisor has kept ``core`` from this machine so far (``steal`` in
    /proc/stat): time the guest wanted the core and the host ran something else."""
    try:
        with open("/proc/stat") as f:
            for line in f:
                if line.startswith(f"cpu{core} "):
                    return int(line.split()[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        pass
    return float("nan")


# ---------------------------------------------------------------------------- the server process


TIMED = (
    "server.net.connection|server.connection:Connection.receive",
    "protocol.framing:FrameDecoder.feed",
    "server.tables.table|server.table:Table.act",
    "engine.match:Match.apply",
    "server.storage.store|server.store:Store.add_action",
    "server.tables.table|server.table:Table._publish_state|Table._changed",
    "server.tables.table|server.table:Table.summary",
    "server.tables.table|server.table:send_states",
    "server.tables.states|server.states:ViewParts.shared_fields",
    "server.tables.states|server.states:private_fields",
    "server.tables.states|server.states:encode",
    "server.tables.table|server.table:Table._prompt",
    "server.app:Server._flush",
    "server.storage.store|server.store:Store.commit",
    "server.tables.lobby|server.lobby:Lobby.store_seqs",
    "server.app:Server._write",
)
"""Server functions ``--timers`` wraps: ``module:attribute`` (a class method or a name the module
uses; ``new|old:attribute`` tries the module ``new``, then ``old``, and ``module:new|old`` the
attribute ``new``, then ``old``, for checkouts from before the server's subpackages). Names the
server no longer has are skipped and reported."""


class Timers:
    """Wall time and calls spent in a few server functions (inclusive of what they call).

    cProfile charges a cost to every call and so overweights many small functions; this wraps a
    dozen chosen ones with two clock reads each (well under 1 us), which barely disturbs them.
    """

    def __init__(self, targets: tuple[str, ...] = TIMED) -> None:
        import importlib

        self.spent: dict[str, list[float]] = {}
        self.missing: list[str] = []
        for target in targets:
            module_names, path = target.split(":")
            owner: Any = None
            for module_name in module_names.split("|"):
                try:
                    owner = importlib.import_module(module_name)
                    break
                except ImportError:
                    continue
            found = None
            for attribute in path.split("|"):
                *outer, name = attribute.split(".")
                holder = owner
                for part in outer:
                    holder = getattr(holder, part, None)
                if holder is not None and callable(getattr(holder, name, None)):
                    found = holder, name, attribute
                    break
            if found is None:
                self.missing.append(target)
                continue
            self._wrap(*found)

    def _wrap(self, owner: Any, name: str, label: str) -> None:
        function = getattr(owner, name)
        acc = self.spent[label] = [0.0, 0]
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                acc[0] += clock() - start
                acc[1] += 1

        setattr(owner, name, timed)

    def reset(self) -> None:
        """Start counting afresh (the window opens)."""
        for acc in self.spent.values():
            acc[0] = acc[1] = 0

    def report(self) -> dict[str, tuple[float, int]]:
        """label -> (seconds, calls)."""
        return {label: (acc[0], int(acc[1])) for label, acc in self.spent.items()}


def server_process(
    pipe: Pipe, config: dict[str, Any], cores: set[int], nofile: int, timed: bool
) -> None:
    """Run the real Server until told to stop; commands arrive on ``pipe``."""
    from server.app import Server, ServerConfig

    pinned = pin(cores)
    limit = raise_nofile(nofile)
    logging.basicConfig(level=logging.WARNING, format="server: %(levelname)s %(message)s")
    profiler: cProfile.Profile | None = None
    timers = Timers() if timed else None
    stats: dict[str, Any] = {}

    gc_pauses: list[tuple[int, float]] = []
    gc_pause_timer = gc_timer(gc_pauses)

    async def run() -> None:
        nonlocal profiler
        # Only the options this checkout knows (an older one, measured for "before", has fewer).
        known = {f.name for f in dataclasses.fields(ServerConfig)}
        server = Server(ServerConfig(**{k: v for k, v in config.items() if k in known}))
        await server.start()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def commits() -> int:
            return server.store.commits if server.store else 0

        def command() -> None:
            nonlocal profiler
            what, arg = pipe.recv()
            if what == "go":  # the window opens
                gc.callbacks.append(gc_pause_timer)
                stats["commits"] = -commits()
                if timers is not None:
                    timers.reset()
                if arg is not None:
                    profiler = cProfile.Profile()
                    profiler.enable()
            elif what == "end":  # the window closes
                gc.callbacks.remove(gc_pause_timer)
                stats["gc"] = gc_pauses
                stats["commits"] += commits()
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(arg)
                if timers is not None:
                    stats["timers"] = timers.report()
                    stats["untimed"] = timers.missing
            elif what == "stop":
                stop.set()

        loop.add_reader(pipe.fileno(), command)
        pipe.send(("ready", {"port": server.port, "pinned": pinned, "nofile": limit}))
        await stop.wait()
        loop.remove_reader(pipe.fileno())
        await server.stop()

    asyncio.run(run())
    pipe.send(("stopped", stats))


# ---------------------------------------------------------------------------- the load generator


@dataclass
class Stats:
    """What one load generator measured during the window."""

    self_ms: array[float] = field(default_factory=lambda: array("d"))
    others_ms: array[float] = field(default_factory=lambda: array("d"))
    accepted: int = 0
    states: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    window: float = 0.0
    cpu: float = 0.0


_STATE_START = msgpack.packb("type") + msgpack.packb("state")
"""The first entry of a packed ``state`` map, right after its one-byte map header."""


def state_seq(body: bytes) -> int | None:
    """The ``seq`` of a packed ``state`` map. msgpack's streaming unpacker skips every other
    field without building it: a full decode of each state cost the load generator about as
    much CPU per action as the server spends, which capped the closed loop near the server's own
    rate."""
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(body))
    unpacker.feed(body)
    for _ in range(unpacker.read_map_header()):
        if unpacker.unpack() == "seq":
            value = unpacker.unpack()
            return value if type(value) is int else None
        unpacker.skip()
    return None


class Seat(asyncio.Protocol):
    """One seat's connection: frames in, requests and actions out.

    Frames are split by the protocol's length header; a ``state`` is read only as far as its
    ``seq`` (:func:`state_seq`), every other message is decoded whole.
    """

    def __init__(self, table: TableLoad, number: int) -> None:
        self.table = table
        self.number = number
        self.pending = bytearray()
        self.transport: asyncio.Transport | None = None
        self.ids = 0
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.actions: set[int] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport."""
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        """Fail whatever still waits for a reply."""
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("connection lost"))
        self.table.gen.disconnects += 0 if self.table.gen.closing else 1

    def data_received(self, data: bytes) -> None:
        """Split off every complete frame and hand it on."""
        pending = self.pending
        pending += data
        end = len(pending)
        offset = 0
        while end - offset >= HEADER_SIZE:
            start = offset + HEADER_SIZE
            stop = start + int.from_bytes(pending[offset:start], "big")
            if stop > end:
                break
            if pending.startswith(_STATE_START, start + 1):
                self.table.on_state(self, state_seq(bytes(pending[start:stop])))
            else:
                try:
                    msg = msgpack.unpackb(pending[start:stop], raw=False)
                except ValueError:
                    self.table.gen.stats.errors["frame:bad_frame"] += 1
                else:
                    if type(msg) is dict:
                        self.receive(msg)
                    else:
                        self.table.gen.stats.errors["frame:not_a_map"] += 1
            offset = stop
        del pending[:offset]

    def send(self, msg: dict[str, Any]) -> int:
        """Send a request with a fresh id; returns the id."""
        self.ids += 1
        msg["id"] = self.ids
        assert self.transport is not None
        self.transport.write(encode(msg))
        return self.ids

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send a setup request and wait for its reply (an error reply raises)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.send({"type": type, **fields})] = future
        reply = await future
        if reply["type"] == "error":
            raise RuntimeError(f"{type}: {reply['code']}: {reply['message']}")
        return reply

    def receive(self, msg: dict[str, Any]) -> None:
        """One message from the server."""
        kind = msg.get("type")
        if kind == "state":
            self.table.on_state(self, msg.get("seq"))
        elif kind == "your_turn":
            self.table.on_turn(self, msg)
        elif kind in ("ok", "error", "welcome"):
            ident = msg.get("id")
            future = self.waiting.pop(ident, None) if isinstance(ident, int) else None
            if future is not None:
                if not future.done():
                    future.set_result(msg)
            elif ident in self.actions:
                self.actions.discard(ident)
                if kind == "ok":
                    self.table.gen.on_accepted()
                else:
                    self.table.gen.stats.errors[str(msg.get("code"))] += 1
            elif kind == "error":
                self.table.gen.stats.errors[str(msg.get("code"))] += 1
        elif kind == "ping":
            assert self.transport is not None
            self.transport.write(encode({"type": "pong"}))


class TableLoad:
    """Five seats at one table, and the one action in flight there."""

    def __init__(self, gen: Generator, number: int) -> None:
        self.gen = gen
        self.number = number
        self.rng = random.Random(gen.seed * 100_003 + number)
        self.seats: list[Seat] = []
        # seq of the state an action should produce -> (when it was sent, who sent it). In the
        # closed loop the next seat may act before the last seat has read the previous state,
        # so more than one action can be awaiting its broadcasts.
        self.flying: dict[int, tuple[float, Seat]] = {}
        self.timer: asyncio.TimerHandle | None = None
        self.spread = self.rng.randrange(SPREAD_ACTIONS + 1) if gen.pace > 0 else 0
        """Actions this table still plays at once before it takes the human pace."""

    def on_turn(self, seat: Seat, prompt: dict[str, Any]) -> None:
        """Answer the prompt at once (closed, or while spreading) or after a human-like pause."""
        if self.spread:
            self.spread -= 1
            if not self.spread:
                self.gen.spread_done()
            self.act(seat, prompt)
        elif self.gen.pace <= 0:
            self.act(seat, prompt)
        else:
            if self.timer is not None:
                self.timer.cancel()
            delay = self.gen.pace * self.rng.uniform(0.5, 1.5)
            self.timer = self.gen.loop.call_later(delay, self.act, seat, prompt)

    def act(self, seat: Seat, prompt: dict[str, Any]) -> None:
        """Send a random legal action quoting the prompt's seq."""
        self.timer = None
        if self.gen.closing or seat.transport is None or seat.transport.is_closing():
            return
        choice = self.rng.choice(prompt["legal"])
        seq = prompt["seq"] + 1  # nothing else changes these tables meanwhile
        self.flying[seq] = (time.perf_counter(), seat)
        self.flying.pop(seq - 10, None)  # a broadcast that never came must not pile up
        seat.actions.add(seat.send({"type": "action", "seq": prompt["seq"], "action": choice}))

    def on_state(self, seat: Seat, seq: int | None) -> None:
        """Time the broadcast that shows the action in flight (the state with ``seq``)."""
        flying = self.flying.get(seq) if seq is not None else None
        if flying is None or not self.gen.measuring:
            return
        sent_at, actor = flying
        stats = self.gen.stats
        stats.states += 1
        elapsed = (time.perf_counter() - sent_at) * 1000.0
        (stats.self_ms if seat is actor else stats.others_ms).append(elapsed)


class Generator:
    """One load-generator process: its share of the tables and what it measured."""

    def __init__(self, port: int, tables: range, pace: float, seed: int) -> None:
        self.port = port
        self.tables = tables
        self.pace = pace
        self.seed = seed
        self.loop = asyncio.get_running_loop()
        self.stats = Stats()
        self.measuring = False
        self.closing = False
        self.disconnects = 0
        self.loads: list[TableLoad] = []
        self.spreading = 0
        """Tables still playing their spread actions (see SPREAD_ACTIONS)."""
        self.spread_over = asyncio.Event()

    def spread_done(self) -> None:
        """One more table has played its spread actions."""
        self.spreading -= 1
        if self.spreading <= 0:
            self.spread_over.set()

    def on_accepted(self) -> None:
        """An action got its ok."""
        if self.measuring:
            self.stats.accepted += 1

    async def open_seat(self, table: TableLoad, number: int) -> Seat:
        """Dial and say hello."""
        _, seat = await self.loop.create_connection(
            lambda: Seat(table, number), "127.0.0.1", self.port
        )
        await seat.request(
            "hello", version=1, client="bench/1", kind="bot", name=f"b{table.number}.{number}"
        )
        return seat

    async def setup(self, number: int) -> None:
        """Open a table for an open-ended match and seat five clients at it."""
        table = TableLoad(self, number)
        self.loads.append(table)
        table.seats = list(await asyncio.gather(*(self.open_seat(table, i) for i in range(5))))
        host = table.seats[0]
        reply = await host.request("create_table", name=f"bench {number}", hands=None)
        await asyncio.gather(
            *(table.seats[i].request("join", table=reply["table"], seat=i) for i in range(1, 5))
        )

    async def setup_all(self) -> float:
        """Set every table up, a few at a time; returns the seconds it took."""
        start = time.perf_counter()
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def one(number: int) -> None:
            async with gate:
                await self.setup(number)

        await asyncio.gather(*(one(n) for n in self.tables))
        return time.perf_counter() - start

    async def start_all(self) -> None:
        """Start every table's match (the hosts are seat 0); in human mode, return once every
        table has played its spread actions."""
        gate = asyncio.Semaphore(SETUP_CONCURRENCY * 4)
        self.spreading = sum(1 for t in self.loads if t.spread)
        if not self.spreading:
            self.spread_over.set()

        async def one(table: TableLoad) -> None:
            async with gate:
                await table.seats[0].request("start")

        await asyncio.gather(*(one(t) for t in self.loads))
        try:
            await asyncio.wait_for(self.spread_over.wait(), SPREAD_TIMEOUT)
        except TimeoutError:
            raise RuntimeError(
                f"{self.spreading} table(s) had not played their spread actions "
                f"after {SPREAD_TIMEOUT:g} s"
            ) from None

    async def measure(self, seconds: float) -> None:
        """Record everything for ``seconds``."""
        cpu = os.times()
        start = time.perf_counter()
        self.measuring = True
        await asyncio.sleep(seconds)
        self.measuring = False
        self.stats.window = time.perf_counter() - start
        after = os.times()
        self.stats.cpu = (after.user - cpu.user) + (after.system - cpu.system)

    def close(self) -> None:
        """Drop every connection."""
        self.closing = True
        for table in self.loads:
            if table.timer is not None:
                table.timer.cancel()
            for seat in table.seats:
                if seat.transport is not None:
                    seat.transport.abort()


def worker_process(
    pipe: Pipe,
    port: int,
    tables: range,
    pace: float,
    seed: int,
    cores: set[int],
    nofile: int,
) -> None:
    """A load generator: set up ``tables``, then measure when told to."""
    pinned = pin(cores)
    raise_nofile(nofile)

    async def run() -> None:
        gen = Generator(port, tables, pace, seed)
        inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        gen.loop.add_reader(pipe.fileno(), lambda: inbox.put_nowait(pipe.recv()))
        try:
            took = await gen.setup_all()
        except Exception as exc:
            pipe.send(("failed", f"{type(exc).__name__}: {exc}"))
            gen.close()
            return
        pipe.send(("ready", {"setup": took, "pinned": pinned}))
        what, _ = await inbox.get()
        if what == "start":
            await gen.start_all()
            # The collector would stop this process for tens of ms at a time, and every
            # timestamp it takes meanwhile with it: a latency no server caused (real players are
            # 10,000 processes, not two). Nothing here needs it for a window of seconds.
            gc.collect()
            gc.freeze()
            gc.disable()
            pipe.send(("started", None))
            what, seconds = await inbox.get()
        if what == "go":
            pauses: list[tuple[int, float]] = []
            timer = gc_timer(pauses)
            gc.callbacks.append(timer)
            await gen.measure(seconds)
            gc.callbacks.remove(timer)
            s = gen.stats
            pipe.send(
                (
                    "result",
                    {
                        "self_ms": s.self_ms.tobytes(),
                        "others_ms": s.others_ms.tobytes(),
                        "accepted": s.accepted,
                        "states": s.states,
                        "errors": dict(s.errors),
                        "window": s.window,
                        "cpu": s.cpu,
                        "disconnects": gen.disconnects,
                        "gc": pauses,
                    },
                )
            )
            await inbox.get()  # "exit"
        gen.close()
        await asyncio.sleep(0.1)

    asyncio.run(run())


# ---------------------------------------------------------------------------- the conductor


def verdict(ok: bool) -> str:
    """MET or NOT MET."""
    return "MET" if ok else "NOT MET"


def main() -> int:
    """Parse arguments, run the benchmark, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode", choices=["closed", "human"], default="closed", help="load shape (default closed)"
    )
    parser.add_argument(
        "--tables", type=int, default=None, help="tables (default 20 closed, 2000 human)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="measurement window (20)")
    parser.add_argument(
        "--warmup", type=float, default=None, help="seconds before measuring (2 closed, 5 human)"
    )
    parser.add_argument(
        "--db",
        choices=["disk", "memory"],
        default="disk",
        help="disk: a temp SQLite file (default)",
    )
    parser.add_argument("--workers", type=int, default=1, help="load-generator processes (1)")
    parser.add_argument(
        "--pace", type=float, default=1.0, help="human mode: seconds per action per table (1)"
    )
    parser.add_argument(
        "--hand-pause", type=float, default=0.0, help="server pause between hands, s (0)"
    )
    parser.add_argument("--server-core", type=int, default=0, help="core for the server (0)")
    parser.add_argument(
        "--client-cores", default="1", help="cores for the load generators, comma-separated (1)"
    )
    parser.add_argument(
        "--profile",
        metavar="PATH",
        help="cProfile the server during the window (slow; overweights many small calls)",
    )
    parser.add_argument(
        "--timers",
        action="store_true",
        help="time a dozen server functions during the window (cheap; see TIMED)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="random seed for the seats' choices (1)"
    )
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="measure the mypyc build in build/compiled (make compiled), not the checkout",
    )
    args = parser.parse_args()
    build = server_build(args.compiled)

    human = args.mode == "human"
    tables = args.tables if args.tables is not None else (2000 if human else 20)
    # One by default: load generators sharing a core preempt each other mid-callback (16 ms
    # slices were seen), and the wait lands in the timestamps as server latency.
    workers = max(1, min(args.workers, tables))
    pace = args.pace if human else 0.0
    if args.warmup is None:
        args.warmup = 5.0 if human else 2.0
    connections = tables * 5
    nofile = connections + 512
    client_cores = {int(c) for c in args.client_cores.split(",") if c.strip()}
    have = raise_nofile(nofile)
    if have < nofile:
        print(f"warning: open-file limit is {have}, the run needs about {nofile}")

    tmp = tempfile.mkdtemp(prefix="sheepshead-bench-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # however the run ends
    db_path = os.path.join(tmp, "bench.db") if args.db == "disk" else None
    config = {
        "host": "127.0.0.1",
        "port": 0,
        "db_path": db_path,
        "bot_delay": 0.0,
        "hand_pause": args.hand_pause,
        "trick_pause": 0.0,  # a benchmark measures the server, not the people's pause
        "max_connections": connections + 100,
        "max_per_address": connections + 100,
        "max_tables": tables + 10,
        "rate": 1e6,  # a closed-loop seat sends far more than a person's 20 messages/s
        "burst": 1e6,
        # Every seat of the load comes from 127.0.0.1: the per-address limits are lifted too.
        "connection_rate": 1e6,
        "connection_burst": 1e6,
        "max_waiting_per_address": tables + 10,
        "max_running_per_address": tables + 10,
        "max_open_per_address": tables + 10,
        "byte_rate": 1e9,
        "byte_burst": 1e9,
        "address_byte_rate": 1e9,
        "address_byte_burst": 1e9,
        "ping_interval": 3600.0,
        "idle_timeout": 7200.0,
    }
    ctx = mp.get_context("fork")
    load_before = os.getloadavg()

    server_end, child_end = ctx.Pipe()
    server = ctx.Process(
        target=server_process,
        args=(child_end, config, {args.server_core}, nofile, args.timers),
        daemon=True,
    )
    server.start()
    child_end.close()  # the child's copy is the last: its exit then ends our reads with EOF
    assert server.pid is not None
    what, info = answer(server_end, "the server")
    assert what == "ready", what
    port = info["port"]
    time.sleep(0.3)  # let the fresh process settle before the baseline
    rss_before = rss_kib(server.pid)

    shares = [range(w, tables, workers) for w in range(workers)]
    gens: list[tuple[mp.process.BaseProcess, Pipe]] = []
    for w, share in enumerate(shares):
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(
            target=worker_process,
            args=(theirs, port, share, pace, args.seed + w, client_cores, nofile),
            daemon=True,
        )
        proc.start()
        theirs.close()
        gens.append((proc, mine))

    print(
        f"bench/server.py: mode {args.mode}, {tables} tables, {connections} connections, "
        f"{workers} load generator(s), database {'on disk: ' + db_path if db_path else 'in memory'}"
    )
    print(f"server pid {server.pid} pinned to {info['pinned']}; open-file limit {info['nofile']}")
    print("setting up tables...", flush=True)
    failed = False
    setup_times = []
    for gen_proc, pipe in gens:
        what, detail = answer(pipe, f"load generator {gen_proc.pid}")
        if what != "ready":
            print(f"load generator {gen_proc.pid} failed during setup: {detail}")
            failed = True
        else:
            setup_times.append(detail["setup"])
    if failed:
        server_end.send(("stop", None))
        for gen_proc, _ in gens:
            gen_proc.kill()
        return 1
    time.sleep(0.5)
    rss_setup = rss_kib(server.pid)
    spreading = (
        f" (each table plays 0-{SPREAD_ACTIONS} actions at once first, spreading the tables "
        "over a hand)"
        if human
        else ""
    )
    print(f"seated in {max(setup_times):.1f} s; starting the matches{spreading}...", flush=True)
    for _, pipe in gens:
        pipe.send(("start", None))
    for gen_proc, pipe in gens:
        answer(pipe, f"load generator {gen_proc.pid}")
    print(f"started; warming up {args.warmup:g} s...", flush=True)
    time.sleep(args.warmup)

    profile_path = os.path.abspath(args.profile) if args.profile else None
    server_end.send(("go", profile_path))
    cpu_before = cpu_seconds(server.pid)
    waited_before = runqueue_seconds(server.pid)
    stolen_before = steal_seconds(args.server_core)
    started = time.perf_counter()
    for _, pipe in gens:
        pipe.send(("go", args.seconds))
    results = [answer(pipe, f"load generator {proc.pid}")[1] for proc, pipe in gens]
    wall = time.perf_counter() - started
    server_end.send(("end", profile_path))
    cpu_after = cpu_seconds(server.pid)
    server_user = cpu_after[0] - cpu_before[0]
    server_cpu = server_user + cpu_after[1] - cpu_before[1]
    server_waited = runqueue_seconds(server.pid) - waited_before
    server_stolen = steal_seconds(args.server_core) - stolen_before
    rss_end = rss_kib(server.pid)
    load_after = os.getloadavg()
    for _, pipe in gens:
        pipe.send(("exit", None))
    server_end.send(("stop", None))
    stopped = answer(server_end, "the server")
    server_stats = stopped[1] if stopped[0] == "stopped" else {}
    for gen_proc, _ in gens:
        gen_proc.join(5)
    server.join(10)

    self_ms: list[float] = []
    others_ms: list[float] = []
    errors: Counter[str] = Counter()
    accepted = 0
    gen_cpu: list[float] = []
    disconnects = 0
    window = max(r["window"] for r in results)
    for r in results:
        self_ms.extend(array("d", r["self_ms"]))
        others_ms.extend(array("d", r["others_ms"]))
        errors.update(r["errors"])
        accepted += r["accepted"]
        gen_cpu.append(r["cpu"] / r["window"])
        disconnects += r["disconnects"]
    rate = accepted / window
    every = self_ms + others_ms
    worst_p99 = max(percentile(sorted(self_ms), 0.99), percentile(sorted(others_ms), 0.99))

    print()
    print("=" * 78)
    print(f"mode {args.mode}: {tables} tables x 5 client seats, window {window:.1f} s")
    print(
        f"config: db {'disk (' + db_path + ')' if db_path else 'memory'}, hand_pause "
        f"{args.hand_pause:g} s, pace {pace:g} s/action/table, {workers} load generator(s) on "
        f"cores {sorted(client_cores)}, server on core {args.server_core}"
    )
    print(f"server build: {build}")
    shown = ("max_connections", "max_per_address", "max_tables", "rate", "burst", "ping_interval")
    print("server config: " + ", ".join(f"{k}={config[k]:g}" for k in shown) + " (rest default)")
    cores = os.cpu_count()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} ({cores} cores)")
    print(f"actions accepted:      {accepted:,} = {rate:,.0f} actions/s")
    print(f"action -> own state:   {summary(self_ms)}")
    print(f"action -> 4 others:    {summary(others_ms)}")
    print(f"action -> any seat:    {summary(every)}")
    print(
        f"server CPU: {server_cpu / wall * 100:.0f}% of one core "
        f"({server_user / max(server_cpu, 1e-9) * 100:.0f}% of it user, the rest kernel); "
        f"{server_cpu / max(accepted, 1) * 1e6:.0f} us per action; "
        f"{server_stats.get('commits', 0) / wall:,.0f} commits/s"
    )
    print(
        f"  runnable but waiting for its core {server_waited / wall * 100:.0f}% of the time "
        "(other processes on the machine)"
    )
    print(
        f"  taken by the hypervisor (steal on core {args.server_core}) "
        f"{server_stolen / wall * 100:.1f}% of the time"
    )
    print(f"  garbage collector: {gc_summary(server_stats.get('gc', []))}")
    if accepted:
        print(f"  i.e. at most ~{accepted / server_cpu:,.0f} actions/s with a whole core to itself")
    print("load generator CPU: " + ", ".join(f"{c * 100:.0f}%" for c in gen_cpu) + " of a core")
    for number, r in enumerate(results):
        print(f"  load generator {number + 1} garbage collector: {gc_summary(r.get('gc', []))}")
    if max(gen_cpu) > 0.9:
        print(
            "  note: a load generator was nearly saturated; latencies include its queueing "
            "(try --workers or more --client-cores)"
        )
    rss_note = (
        f"server RSS: {rss_before / 1024:.1f} MiB idle, {rss_setup / 1024:.1f} MiB with every "
        f"table seated (not started), {rss_end / 1024:.1f} MiB at the end"
    )
    print(rss_note)
    per_table_setup = (rss_setup - rss_before) / tables
    per_table_end = (rss_end - rss_before) / tables
    print(
        f"memory per table: {per_table_setup:.1f} KiB seated, "
        f"{per_table_end:.1f} KiB = {per_table_end * 1.024:.1f} kB at the end"
    )
    if errors:
        print(f"errors: {dict(errors)}")
    if disconnects:
        print(f"connections lost during the run: {disconnects}")
    print("-" * 78)
    if human:
        print(f"target p99 action->broadcast < 10 ms:        {verdict(worst_p99 < 10)}")
        print(
            f"target <= 50 KB server memory per table:     {verdict(per_table_end * 1.024 <= 50)}"
        )
        expected = tables / pace
        if rate < 0.9 * expected:
            print(f"  note: {rate:,.0f} actions/s is below the intended ~{expected:,.0f}/s")
    else:
        print(f"target >= 5,000 actions/s:                   {verdict(rate >= 5000)}")
        print(f"target p99 action->broadcast < 50 ms:        {verdict(worst_p99 < 50)}")
    print("=" * 78)

    if profile_path:
        out = io.StringIO()
        stats = pstats.Stats(profile_path, stream=out)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
        print(f"\nserver profile ({profile_path}; figures above are slowed by profiling):")
        print(out.getvalue())
    if "timers" in server_stats:
        print(f"\nserver time per accepted action, inclusive (window {wall:.1f} s):")
        print("       us/action  % of window  calls/action  function")
        for label, (spent, calls) in server_stats["timers"].items():
            print(
                f"    {spent / max(accepted, 1) * 1e6:12.1f} {spent / wall * 100:12.1f} "
                f"{calls / max(accepted, 1):13.2f}  {label}"
            )
        if server_stats.get("untimed"):
            print(f"    (not found in this server: {', '.join(server_stats['untimed'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
