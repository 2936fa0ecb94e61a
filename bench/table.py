"""Benchmark: the server's own work per action, in one process, with no sockets.

``bench/server.py`` measures the whole server through the kernel, and its figures move with
everything else on the machine (its socket writes alone are a third of them). This one drives
the real :class:`server.app.Server` (lobby, tables, engine, SQLite store with its checkpoint
thread) through in-memory transports: each action is one encoded ``action`` frame handed to the
server as a read would hand it, then one flush (the commit, then the writes), as at human pace
where a loop pass carries one or two actions: the frame is handed over, then the event loop runs
one pass (the flush the server scheduled, and whatever else fell due, such as the next deal).
Only that is timed; choosing the action and reading the replies happen outside the clock.

``--tables 2000`` with a random table per action is the human-pace shape: each action finds its
table's objects cold in the caches. ``--tables 20`` is the closed loop's.

Run it by hand; it prints its figures and asserts nothing about them::

    .venv/bin/python bench/table.py --tables 2000 --actions 40000
    .venv/bin/python bench/table.py --compiled    # the build of `make compiled`
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import shutil
import sys
import tempfile
import time
from typing import Any

# bench/ is first on sys.path when this file runs as a script (and put there when a test
# loads it by path); benchlib then puts the project's packages ahead of bench/'s scripts.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

from benchlib import gc_summary, gc_timer, percentile, pin, server_build  # noqa: E402

from protocol.framing import FrameDecoder, encode  # noqa: E402
from server.app import Server, ServerConfig  # noqa: E402

try:
    from server.net.connection import Connection
except ImportError:  # a checkout from before the server's subpackages
    from server.connection import Connection  # type: ignore[no-redef]


class MemoryTransport:
    """The transport a :class:`Connection` writes to: it keeps the bytes until they are read."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.written: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000 + self.number) if name == "peername" else default

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0  # everything written is taken at once

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.closing = True

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class Client:
    """One seat's end: sends frames straight into the server and reads what it wrote back."""

    def __init__(self, server: Server, number: int) -> None:
        self.server = server
        self.transport = MemoryTransport(number)
        conn = server._opened(self.transport)  # type: ignore[arg-type]
        assert conn is not None, "the server refused a connection"
        self.conn: Connection = conn
        self.decoder = FrameDecoder()
        self.ids = 0
        self.prompt: dict[str, Any] | None = None
        self.errors: list[str] = []
        """The codes of the error replies this seat got (a timed action must not be one)."""

    def frame(self, msg: dict[str, Any]) -> bytes:
        """``msg`` with a fresh id, encoded."""
        self.ids += 1
        return encode({**msg, "id": self.ids})

    def deliver(self, data: bytes) -> None:
        """Hand the server ``data`` as one read would."""
        self.server._received(self.conn, memoryview(data))

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a setup request, flush, and return its reply (an error raises)."""
        self.deliver(self.frame(msg))
        self.server._flush()
        for reply in self.read():
            if reply.get("id") == self.ids and reply["type"] in ("ok", "error", "welcome"):
                if reply["type"] == "error":
                    raise RuntimeError(f"{msg['type']}: {reply['code']}: {reply['message']}")
                return reply
        raise RuntimeError(f"{msg['type']}: no reply")

    def read(self) -> list[dict[str, Any]]:
        """Every message written to this seat since the last read; remembers the last prompt."""
        out: list[dict[str, Any]] = []
        written, self.transport.written = self.transport.written, []
        for chunk in written:
            out.extend(self.decoder.feed(chunk))
        for msg in out:
            kind = msg.get("type")
            if kind == "your_turn":
                self.prompt = msg
            elif kind == "error":
                self.errors.append(str(msg.get("code")))
        return out


def setup(server: Server, tables: int) -> list[list[Client]]:
    """``tables`` tables of five seated clients, each match started."""
    out: list[list[Client]] = []
    for number in range(tables):
        seats = [Client(server, number * 5 + i) for i in range(5)]
        for i, seat in enumerate(seats):
            seat.request(
                {"type": "hello", "version": 1, "client": "bench/1", "kind": "bot"}
                | {"name": f"b{number}.{i}"}
            )
        table = seats[0].request({"type": "create_table", "name": f"bench {number}"})["table"]
        for i in range(1, 5):
            seats[i].request({"type": "join", "table": table, "seat": i})
        seats[0].request({"type": "start"})
        out.append(seats)
    return out


def act(seats: list[Client], rng: random.Random) -> tuple[Client, bytes] | None:
    """The seat to act at this table and its random legal action, encoded (None: no prompt)."""
    for seat in seats:
        seat.read()
    for seat in seats:
        prompt = seat.prompt
        if prompt is not None:
            seat.prompt = None
            choice = rng.choice(prompt["legal"])
            return seat, seat.frame({"type": "action", "seq": prompt["seq"], "action": choice})
    return None


def run(args: argparse.Namespace, db_path: str | None) -> None:
    """Set up, warm up, then time ``args.actions`` actions."""

    async def main() -> None:
        config = ServerConfig(
            host="127.0.0.1",
            port=0,
            db_path=db_path,
            bot_delay=0.0,
            hand_pause=0.0,
            trick_pause=0.0,
            max_connections=args.tables * 5 + 100,
            max_per_address=args.tables * 5 + 100,
            max_tables=args.tables + 10,
            rate=1e6,
            burst=1e6,
            connection_rate=1e6,  # every seat comes from 127.0.0.1
            connection_burst=1e6,
            max_waiting_per_address=args.tables + 10,
            max_running_per_address=args.tables + 10,
            max_open_per_address=args.tables + 10,
            byte_rate=1e9,
            byte_burst=1e9,
            address_byte_rate=1e9,
            address_byte_burst=1e9,
            ping_interval=3600.0,
            idle_timeout=7200.0,
        )
        server = Server(config)
        await server.start()
        try:
            started = time.perf_counter()
            tables = setup(server, args.tables)
            took = time.perf_counter() - started
            print(f"{args.tables} tables seated and started in {took:.1f} s")
            rng = random.Random(args.seed)
            step = await measure(server, tables, rng, args.warmup, None)
            print(f"warmed up with {step[0]:,} actions")
            pauses: list[tuple[int, float]] = []
            collections = gc_timer(pauses)
            gc.callbacks.append(collections)
            try:
                timed = await measure(server, tables, rng, args.actions, args.profile)
            finally:
                gc.callbacks.remove(collections)
            for seats in tables:
                for seat in seats:
                    seat.read()
            errors = [code for seats in tables for seat in seats for code in seat.errors]
            report(timed, pauses)
            if errors:
                print(f"errors: {len(errors):,} ({', '.join(sorted(set(errors)))})")
        finally:
            await server.stop()

    asyncio.run(main())


async def measure(
    server: Server,
    tables: list[list[Client]],
    rng: random.Random,
    actions: int,
    profile: str | None,
) -> tuple[int, list[float], float, float]:
    """Play ``actions`` actions at random tables; (count, µs each, wall s, CPU s) of the timed
    calls (the CPU time includes the checkpoint thread's)."""
    clock = time.perf_counter
    cpu = time.process_time
    times: list[float] = []
    wall = cpu_spent = 0.0
    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
    done = 0
    misses = 0
    while done < actions:
        seats = rng.choice(tables)
        step = act(seats, rng)
        if step is None:
            misses += 1
            await asyncio.sleep(0)  # a finished hand: the next deal is a loop callback
            if misses > 10 * len(tables):
                codes = sorted({code for seats in tables for seat in seats for code in seat.errors})
                raise RuntimeError(f"no table has a prompt: the matches stopped (errors: {codes})")
            continue
        misses = 0
        seat, data = step
        if profiler is not None:
            profiler.enable()
        c0 = cpu()
        t0 = clock()
        seat.deliver(data)
        await asyncio.sleep(0)  # one loop pass: the flush, then anything else due
        t1 = clock()
        c1 = cpu()
        if profiler is not None:
            profiler.disable()
        times.append((t1 - t0) * 1e6)
        wall += t1 - t0
        cpu_spent += c1 - c0
        done += 1
    if profiler is not None and profile is not None:
        profiler.dump_stats(profile)
    return done, times, wall, cpu_spent


def report(timed: tuple[int, list[float], float, float], pauses: list[tuple[int, float]]) -> None:
    """Print the figures."""
    count, times, wall, cpu_spent = timed
    ordered = sorted(times)
    print(f"actions timed: {count:,}")
    print(
        f"server work per action: mean {wall / count * 1e6:6.1f} us  "
        f"p50 {percentile(ordered, 0.5):6.1f}  p90 {percentile(ordered, 0.9):6.1f}  "
        f"p99 {percentile(ordered, 0.99):7.1f}  max {ordered[-1]:8.1f} us"
    )
    print(f"CPU per action (all threads): {cpu_spent / count * 1e6:6.1f} us")
    print(f"garbage collector: {gc_summary(pauses)}")


def main() -> int:
    """Parse the options and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2000, help="tables (2000)")
    parser.add_argument("--actions", type=int, default=40_000, help="actions timed (40,000)")
    parser.add_argument("--warmup", type=int, default=20_000, help="actions before (20,000)")
    parser.add_argument("--db", choices=("disk", "memory"), default="disk", help="disk (default)")
    parser.add_argument("--core", type=int, default=0, help="core to pin to (0)")
    parser.add_argument("--profile", metavar="PATH", help="cProfile the timed calls to PATH")
    parser.add_argument("--seed", type=int, default=1, help="random seed (1)")
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="measure the mypyc build in build/compiled (make compiled), not the checkout",
    )
    args = parser.parse_args()
    if args.tables < 1 or args.actions < 1 or args.warmup < 0:
        parser.error("--tables and --actions must be positive, --warmup not negative")
    print(f"bench/table.py: pinned to {pin({args.core})}; server {server_build(args.compiled)}")
    tmp = tempfile.mkdtemp(prefix="sheepshead-bench-")
    try:
        db_path = os.path.join(tmp, "bench.db") if args.db == "disk" else None
        run(args, db_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
