"""Benchmark: can server bots starve the server? Many tables of bots, one person pinging.

Run by hand (figures are printed, nothing is asserted)::

    nice -n 15 .venv/bin/python bench/bots_load.py [--tables 16] [--strategy search]
        [--seconds 30] [--warmup 5] [--bot-workers N] [--checkout DIR] [--db FILE]
        [--answer-delay 0.1] [--rss-every SECONDS]

The server runs in a child process (the checkout's code: ``--checkout`` runs another one, e.g.
a ``git worktree`` of an older commit, for a before/after; options its ``ServerConfig`` does not
know are left out). ``--tables`` connections from 127.0.0.1 each open an open-ended table, seat
four ``--strategy`` bots, start the match and answer their own turns with the first legal
action after ``--answer-delay`` s (a table with nobody connected does not move). One more client,
from 127.0.0.2 (another address: another player), opens a table of its own and sends ``ping``
every ``--interval`` seconds; after ``--warmup`` seconds it times
each round trip for ``--seconds`` seconds.

Printed: that client's ping latency (p50, p99, max), the server process's CPU and its bot
workers' CPU (percent of one core, from /proc), and how many actions the bot tables made per
second (the states their connections received), the hands they finished and the server's RSS
at the measure's start and end (and every ``--rss-every`` s: the growth of open-ended tables'
memory per hand). The issue's target: ping p99 under 20 ms
with 16 tables of ``search`` bots.

The per-address limits are lifted for the load (``max_per_address``, ``max_bots_per_address``):
one address stands for the many an attacker could use. The database is kept in memory unless
``--db`` names a file (the server's RSS then holds no stored hand).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from typing import Any

# bench/ is first on sys.path when this file runs as a script; benchlib then puts the project's
# packages ahead of bench/'s scripts.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

from protocol.framing import FrameDecoder, encode  # noqa: E402

LAUNCHER = """
import asyncio, dataclasses, logging, signal, sys
from server.app import Server, ServerConfig
logging.basicConfig(level=logging.ERROR)
known = {f.name for f in dataclasses.fields(ServerConfig)}
wanted = dict(
    host="127.0.0.1", port=0, db_path=sys.argv[2] or None,
    bot_delay=0.0, hand_pause=0.0, trick_pause=0.0,
    max_per_address=1000, max_bots_per_address=100000,
    bot_workers=None if sys.argv[1] == "default" else int(sys.argv[1]),
)
config = ServerConfig(**{k: v for k, v in wanted.items() if k in known})
async def main():
    server = Server(config)
    await server.start()
    print(server.port, " ".join(sorted(k for k in wanted if k not in known)), flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop()
asyncio.run(main())
"""
"""The server child: prints its port (and the options its checkout lacks), runs until SIGTERM."""


ANSWER_DELAY = 0.1
"""The default of ``--answer-delay``: seconds a bot table's connection waits before answering
its turn (under the rate limit of 20 messages a second, which a table of fast bots would
otherwise reach)."""


class Client:
    """A bare protocol client over a real socket."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = FrameDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.ids = 0
        self.states = 0
        self.hands = 0
        """``hand_over`` events received: the table's finished hands."""

    @classmethod
    async def open(cls, port: int, source: str, name: str) -> Client:
        """Connect from ``source`` and say hello as ``name``."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        client = cls(reader, writer)
        welcome = await client.request("hello", version=1, name=name, client="bench", kind="bot")
        assert welcome["type"] == "welcome", welcome
        return client

    async def recv(self) -> dict[str, Any]:
        """The next message (states are counted on the way)."""
        while not self.inbox:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.inbox.extend(self.decoder.feed(data))
        msg = self.inbox.pop(0)
        if msg.get("type") == "state":
            self.states += 1
        elif msg.get("type") == "hand_over":
            self.hands += 1
        return msg

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send a request; its reply (events before it are passed over)."""
        self.ids += 1
        self.writer.write(encode({"type": type, "id": self.ids, **fields}))
        while True:
            msg = await self.recv()
            if msg.get("id") == self.ids and msg.get("type") in ("ok", "error", "welcome"):
                return msg

    async def play(self, delay: float = ANSWER_DELAY) -> None:
        """Answer every prompt with its first legal action after ``delay`` s, until cancelled."""
        while True:
            msg = await self.recv()
            if msg.get("type") == "your_turn":
                await asyncio.sleep(delay)
                self.ids += 1
                action = msg["legal"][0]
                self.writer.write(
                    encode({"type": "action", "id": self.ids, "seq": msg["seq"], "action": action})
                )


async def bot_table(port: int, number: int, strategy: str) -> Client:
    """One connection's table: four ``strategy`` bots and the connection, playing."""
    client = await Client.open(port, "127.0.0.1", f"load{number}")
    steps: list[tuple[str, dict[str, Any]]] = [
        ("create_table", {"name": f"load {number}", "hands": None}),
        *[("add_bot", {"strategy": strategy})] * 4,
        ("start", {}),
    ]
    for kind, fields in steps:
        reply = await client.request(kind, **fields)
        if reply["type"] != "ok":
            raise SystemExit(f"bench: table {number}: {kind} refused: {reply}")
    return client


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """Every descendant process of ``pid``."""
    found: list[int] = []
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            direct = [int(p) for p in f.read().split()]
    except OSError:
        return found
    for child in direct:
        found += [child, *children(child)]
    return found


def worker_cpu(pid: int, since: dict[int, float]) -> tuple[float, dict[int, float]]:
    """CPU seconds the descendants of ``pid`` used since ``since`` (per pid), and the new map."""
    now = {child: cpu_seconds(child) for child in children(pid)}
    used = sum(seconds - since.get(child, 0.0) for child, seconds in now.items())
    # A worker that ended since (replaced) took its last seconds with it: not counted.
    return used, now


async def measure(args: argparse.Namespace, server: subprocess.Popen[str], port: int) -> None:
    clients = []
    for number in range(args.tables):
        clients.append(await bot_table(port, number, args.strategy))
    playing = [asyncio.create_task(c.play(args.answer_delay)) for c in clients]
    person = await Client.open(port, "127.0.0.2", "Person")
    reply = await person.request("create_table", name="elsewhere", hands=1)
    assert reply["type"] == "ok", reply
    print(f"{args.tables} table(s) of {args.strategy} bots playing; warming up {args.warmup:g} s")
    end_warmup = time.monotonic() + args.warmup
    while time.monotonic() < end_warmup:
        await person.request("ping")
        await asyncio.sleep(args.interval)
    states = sum(c.states for c in clients)
    hands = sum(c.hands for c in clients)
    rss = [(0.0, hands, benchlib.rss_mib(server.pid))]
    cpu = cpu_seconds(server.pid)
    _, workers = worker_cpu(server.pid, {})
    started = time.monotonic()
    pings: list[float] = []
    while time.monotonic() - started < args.seconds:
        sent = time.perf_counter()
        reply = await person.request("ping")
        pings.append((time.perf_counter() - sent) * 1000)
        assert reply["type"] == "ok", reply
        await asyncio.sleep(args.interval)
        if args.rss_every and time.monotonic() - started >= rss[-1][0] + args.rss_every:
            at = time.monotonic() - started
            rss.append((at, sum(c.hands for c in clients), benchlib.rss_mib(server.pid)))
    elapsed = time.monotonic() - started
    rss.append((elapsed, sum(c.hands for c in clients), benchlib.rss_mib(server.pid)))
    server_share = (cpu_seconds(server.pid) - cpu) / elapsed * 100
    worker_used, workers = worker_cpu(server.pid, workers)
    actions = (sum(c.states for c in clients) - states) / elapsed
    for task in playing:
        if task.done() and task.exception() is not None:
            raise SystemExit(f"bench: a bot table's connection failed: {task.exception()!r}")
        task.cancel()
    print(f"ping from another table (ms): {benchlib.summary(pings)}")
    print(
        f"CPU over {elapsed:.0f} s (% of one core): server process {server_share:.0f}%, "
        f"bot workers {worker_used / elapsed * 100:.0f}% ({len(workers)} process(es))"
    )
    print(f"bot tables: {actions:.1f} actions/s in all")
    played = rss[-1][1] - hands
    grown = rss[-1][2] - rss[0][2]
    print(
        "server RSS (MiB) by s, hands finished: "
        + ", ".join(f"{at:.0f}s {done - hands} {mib:.1f}" for at, done, mib in rss)
    )
    print(
        f"RSS {rss[0][2]:.1f} -> {rss[-1][2]:.1f} MiB over {played} hands "
        f"({grown * 1024 * 1024 / max(1, played):.0f} B a hand, "
        f"{played / elapsed * 3600:.0f} hands/h)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=16, help="tables of bots (default 16)")
    parser.add_argument(
        "--strategy", default="search", help="the bots' strategy (default search, the costliest)"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds (default 30)")
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="seconds before measuring (default 5)"
    )
    parser.add_argument(
        "--interval", type=float, default=0.07, help="seconds between two pings (default 0.07)"
    )
    parser.add_argument(
        "--bot-workers",
        default="default",
        help="the server's bot_workers (default: its own default, the cores minus one)",
    )
    parser.add_argument(
        "--checkout",
        default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        help="the project checkout whose server runs (default: this one)",
    )
    parser.add_argument(
        "--db", default="", help="the server's database file (default: kept in memory)"
    )
    parser.add_argument(
        "--answer-delay",
        type=float,
        default=ANSWER_DELAY,
        help=f"s a bot table's connection waits to answer its turn (default {ANSWER_DELAY:g})",
    )
    parser.add_argument(
        "--rss-every", type=float, default=0.0, help="s between two RSS samples (0: start, end)"
    )
    args = parser.parse_args()
    checkout = os.path.abspath(args.checkout)
    env = dict(os.environ, PYTHONPATH=checkout)
    server = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(args.bot_workers), args.db],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().split(" ", 1)
        if not line[0]:
            raise SystemExit("bench: the server did not start (its traceback is above)")
        port, missing = int(line[0]), line[1].strip() if len(line) > 1 else ""
        commit = subprocess.run(
            ["git", "-C", checkout, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(f"server: {checkout} at {commit or '?'}, pid {server.pid}, port {port}")
        if missing:
            print(f"(that server has no {missing}: left out)")
        asyncio.run(measure(args, server, port))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
