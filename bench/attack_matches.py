"""Benchmark: what ending matches in a loop stores, and what a standings request costs the
server once it has a long history (issue 27).

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack_matches.py [--seconds 8] [--matches 100000]
    .venv/bin/python bench/attack_matches.py --only 'crashed runs' --seconds 8
    .venv/bin/python bench/attack_matches.py --source /tmp/old   # another tree's server

A real ``sheepshead serve`` (``bench/attack.py``'s :class:`Served`) from the tree ``--source``:

- ``end/rematch``: one address, hosting three full tables (four server bots each, its cap),
  sends ``end_match`` and ``rematch`` at each as fast as the message rate allows, for
  ``--seconds``; printed: the cycles a minute, how ``end_match`` was answered, and the
  database's growth (its pages in use, read on a connection of its own) a cycle and an hour
  at that pace;
- ``create/start/end/leave``: the same three hosts open a table, seat four bots, start, end
  the match and leave, in a loop; the same figures;
- ``crashed runs``: a bot author's test runs that crash, from one address as fast as its
  limits allow (a server with no trick or hand pause: the fastest matches): :data:`AUTHORS`
  connections each create a table, seat four bots, start, play the one-hand match out and
  drop the connection without ``leave`` (the table stays over, ``over_table_ttl``, its seat
  token kept), and again, for ``--seconds``; printed: the runs and refusals, the over tables
  (and their bots) the address then holds, the server's memory and database growth per over
  table, the server's and its bot workers' CPU while those tables sit (bots at an over table
  do nothing), and what the author gets when it tries one more table of bots;
- ``standings``: a second server on a database preloaded with ``--matches`` ended matches of
  one hand each (written straight into the tree's store, 60 players and a bot), a victim at a
  table of its own pings every 60 ms while four addresses of four connections each ask for the
  standings once a second (the allowance): the victim's ping, the standings' reply times, the
  server's CPU and memory.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

from attack import (  # noqa: E402
    Decoder,
    Served,
    Victim,
    attack_arguments,
    frame,
    server_rss_mb,
    used_bytes,
    victim_at_own_table,
)

LOOP_ADDRESS = "127.0.3.1"
ASKER_NET = "127.0.5."
TABLES = 3
"""Full tables one address can have at once: four server bots each, twelve in all (the
per-address cap)."""
MESSAGE_GAP = 1 / 18
"""Seconds between two requests of a looping host: under the message rate limit (20/s)."""
ASKERS = 4
"""Asking addresses (and connections per address) in the standings scenario."""
AUTHOR_ADDRESS = "127.0.6.1"
OBSERVER_ADDRESS = "127.0.6.2"
AUTHORS = 10
"""Connections of the crashing bot author: more than ``max_running_per_address`` (8), so the
address is always at whatever bounds it."""
RETRY = 2.0
"""Seconds an author's connection waits after a refusal (10 of them: 5 new connections a
second, the address's ``connection_rate``)."""
SCENARIOS = ("end/rematch", "create/start/end/leave", "crashed runs", "standings")

PRELOAD = """
import json, random, sqlite3, sys
try:
    from server.storage.store import Store
except ImportError:  # a checkout from before the server's subpackages
    from server.store import Store
path, count = sys.argv[1], int(sys.argv[2])
Store(path).close()  # the schema, then rows written straight into it
db = sqlite3.connect(path)
rng = random.Random(1)
tables = max(1, count // 5)
db.executemany("INSERT INTO tables (id, config, state, created, finished) VALUES (?, '{}',"
               " 'closed', 0, 0)", [(t + 1,) for t in range(tables)])
hands, seats, results = [], [], []
for n in range(count):
    table, match, finished = n % tables + 1, n // tables, 1e9 + n
    payouts = [rng.choice([-2, -1, 1, 2]) for _ in range(4)]
    payouts.append(-sum(payouts))
    hands.append((table, match, 0, "{}", json.dumps(payouts), finished))
    for seat in range(5):
        who = "bot:random" if seat == 4 else "p%d" % rng.randrange(60)
        seats.append((table, match, 0, seat, who, who))
        results.append((table, match, seat, who, "human", payouts[seat], 1, finished))
db.executemany("INSERT INTO hands VALUES (?, ?, ?, ?, ?, ?)", hands)
db.executemany("INSERT INTO hand_seats VALUES (?, ?, ?, ?, ?, ?)", seats)
db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)", results)
try:
    from server.storage.store import backfill  # a tree that keeps the standings as matches end
except ImportError:
    try:
        from server.storage.tallies import backfill  # the same, before its SQL moved to the store
    except ImportError:
        try:
            from server.tallies import backfill  # the same, before the server's subpackages
        except ImportError:
            backfill = None
if backfill is not None:
    backfill(db)
db.commit()
db.close()
"""


async def full_table(host: Victim) -> None:
    """``host`` opens a table with four server bots (not started)."""
    await paced(host, "create_table", name="loop", hands=3)
    for _ in range(4):
        await paced(host, "add_bot", seat=None, strategy="random")


async def paced(host: Victim, type: str, **fields: object) -> dict[str, object]:
    """A request, then a pause that keeps the connection under the message rate limit."""
    start = time.monotonic()
    reply = await host.request(type, **fields)
    await asyncio.sleep(max(0.0, MESSAGE_GAP - (time.monotonic() - start)))
    return reply


async def looper(port: int, number: int, seconds: float, cycle: str) -> Counter[str]:
    """One host from :data:`LOOP_ADDRESS` running ``cycle`` for ``seconds``; the replies to
    its ``end_match`` (or ``start``, when that is refused) counted."""
    host = await Victim.open(port, LOOP_ADDRESS)
    # As a bot: no deal waits for its client seed (PROTOCOL.md §13).
    await host.request(
        "hello", version=1, client="bench-matches/1", kind="bot", name=f"Looper{number}"
    )
    ended: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    if cycle == "end/rematch":
        await full_table(host)
        await paced(host, "start")
    while time.monotonic() < deadline:
        if cycle != "end/rematch":
            await full_table(host)
            started = await paced(host, "start")
            if started.get("type") == "error":
                ended[f"start {started.get('code')}"] += 1
                await paced(host, "leave")
                continue
        reply = await paced(host, "end_match")
        ended[str(reply.get("code", "ok"))] += 1
        await paced(host, "rematch" if cycle == "end/rematch" else "leave")
    await host.request("leave")
    await host.close()
    return ended


async def loops(served: Served, db: Path, seconds: float, cycle: str) -> None:
    """:data:`TABLES` hosts from one address run ``cycle``; what the database grew by."""
    await asyncio.sleep(0.5)  # the last scenario's writes are committed
    before = used_bytes(db)
    start = time.monotonic()
    counts = await asyncio.gather(*(looper(served.port, n, seconds, cycle) for n in range(TABLES)))
    took = time.monotonic() - start
    await asyncio.sleep(0.5)
    ended: Counter[str] = Counter()
    for one in counts:
        ended.update(one)
    report(cycle, ended, took, used_bytes(db) - before)


def report(name: str, ended: Counter[str], took: float, grew: int) -> None:
    """Matches ended a minute, bytes a cycle, growth an hour at that pace."""
    cycles = sum(ended.values())
    per_hour = grew / took * 3600
    print(
        f"  {name:<22} {cycles / took * 60:8.0f} cycles/min ({dict(ended)}); database"
        f" +{grew:,} B, {grew / max(cycles, 1):,.0f} B a cycle, {per_hour / 1e6:,.1f} MB an hour"
    )


async def crashing_run(port: int, number: int) -> str:
    """One crashed test run from :data:`AUTHOR_ADDRESS`: ``over`` when its match was played
    out (the connection then dropped), else the refusal that stopped it."""
    try:
        host = await Victim.open(port, AUTHOR_ADDRESS)
    except OSError:
        return "connect refused"
    try:
        # As a bot: no deal waits for its client seed (PROTOCOL.md §13).
        hello = await host.request(
            "hello", version=1, client="bench-matches/1", kind="bot", name=f"Author{number}"
        )
        if hello.get("type") != "welcome":
            return f"hello {hello.get('code')}"
        created = await paced(host, "create_table", name=f"run{number}", hands=1)
        if created.get("type") == "error":
            return f"create_table {created.get('code')}"
        for _ in range(4):
            added = await paced(host, "add_bot", seat=None, strategy="random")
            if added.get("type") == "error":
                return f"add_bot {added.get('code')}"
        return await play_out(host)
    except (ConnectionError, TimeoutError):
        return "cut off"
    finally:
        await host.close()  # no leave: a crash


async def play_out(host: Victim) -> str:
    """``start``, then the host's first legal action at each ``your_turn`` until
    ``match_over`` (read here: ``Victim.request`` would skip a prompt that overtakes it)."""
    host.ids += 1
    start = host.ids
    host.writer.write(frame({"type": "start", "id": start}))
    while True:
        while not host.inbox:
            data = await asyncio.wait_for(host.reader.read(1 << 16), 30)
            if not data:
                raise ConnectionError("the server closed the author's connection")
            host.inbox.extend(host.decoder.feed(data))
        msg = host.inbox.pop(0)
        if msg.get("type") == "match_over":
            return "over"
        if msg.get("type") == "error" and msg.get("id") == start:
            return f"start {msg.get('code')}"
        if msg.get("type") == "your_turn":
            host.ids += 1
            action = {"type": "action", "id": host.ids, "seq": msg["seq"]}
            host.writer.write(frame({**action, "action": msg["legal"][0]}))


async def author(port: int, number: int, deadline: float) -> Counter[str]:
    """One of the author's connections running crashed runs until ``deadline``."""
    runs: Counter[str] = Counter()
    while time.monotonic() < deadline:
        outcome = await crashing_run(port, number)
        runs[outcome] += 1
        if outcome != "over":
            await asyncio.sleep(RETRY)
    return runs


def server_and_workers_cpu(served: Served) -> float:
    """CPU seconds of the server and its live child processes (the bot workers)."""
    used = served.cpu_seconds()
    tick = os.sysconf("SC_CLK_TCK")
    pid = served.proc.pid
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            pids = children.read().split()
    except OSError:
        pids = []
    for child in pids:
        try:
            with open(f"/proc/{child}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used += (int(fields[11]) + int(fields[12])) / tick
    return used


async def idle_cpu(served: Served, seconds: float) -> float:
    """The server's and its workers' CPU share over ``seconds`` of waiting."""
    cpu, start = server_and_workers_cpu(served), time.monotonic()
    await asyncio.sleep(seconds)
    return (server_and_workers_cpu(served) - cpu) / (time.monotonic() - start)


async def over_tables(port: int) -> tuple[int, int, int]:
    """Open tables, those whose match is over, and the server bots seated at those."""
    observer = await Victim.open(port, OBSERVER_ADDRESS)
    await observer.request("hello", version=1, client="bench-matches/1", name="Observer")
    tables = (await observer.request("list_tables"))["tables"]
    await observer.close()
    over = [t for t in tables if t["state"] == "over"]
    bots = sum(s["kind"] == "bot" and not s["remote"] for t in over for s in t["seats"])
    return len(tables), len(over), bots


async def crashed_runs(source: Path, tmp: Path, seconds: float) -> None:
    """A bot author's crashed test runs from one address at the rate its limits allow."""
    db = tmp / "crashes.db"
    served = Served(source, db, ["--trick-pause", "0", "--hand-pause", "0"])
    window = min(4.0, max(1.0, seconds / 2))
    try:
        # A first match from elsewhere, left (its table closes): the engine and the bot
        # workers are warm before memory is read.
        warm = await Victim.open(served.port, OBSERVER_ADDRESS)
        await warm.request("hello", version=1, client="bench-matches/1", kind="bot", name="W")
        await full_table(warm)
        await play_out(warm)
        await warm.request("leave")
        await warm.close()
        await asyncio.sleep(0.5)
        quiet = await idle_cpu(served, window)
        rss, grew = server_rss_mb(served.proc.pid), used_bytes(db)
        deadline = time.monotonic() + seconds
        start = time.monotonic()
        counts = await asyncio.gather(*(author(served.port, n, deadline) for n in range(AUTHORS)))
        took = time.monotonic() - start
        runs: Counter[str] = Counter()
        for one in counts:
            runs.update(one)
        await asyncio.sleep(0.5)  # the last disconnects are seen, the last writes committed
        tables, over, bots = await over_tables(served.port)
        rss = server_rss_mb(served.proc.pid) - rss
        grew = used_bytes(db) - grew
        sitting = await idle_cpu(served, window)
        one_more = await crashing_run(served.port, AUTHORS)
        print(
            f"  {'crashed runs':<22} {runs['over']} played out in {took:.1f} s, refused:"
            f" {dict((k, v) for k, v in runs.items() if k != 'over')}"
        )
        print(
            f"  {'':<22} held at once: {over} over tables ({tables} open), {bots} bots at them;"
            f" one more run: {one_more}"
        )
        print(
            f"  {'':<22} server memory +{rss:.1f} MB ({rss * 1024 / max(over, 1):,.0f} KiB an"
            f" over table), database +{grew:,} B ({grew / max(runs['over'], 1):,.0f} B a run)"
        )
        print(
            f"  {'':<22} CPU (server + bot workers) quiet {quiet:5.1%}, with them sitting"
            f" {sitting:5.1%} ({window:g} s each)"
        )
    finally:
        stop(served)


def asker(port: int, address: str, seconds: float) -> list[float]:
    """:data:`ASKERS` connections from ``address``, each asking for the standings once a
    second; the reply times in ms."""
    return asyncio.run(_ask(port, address, seconds))


async def _ask(port: int, address: str, seconds: float) -> list[float]:
    askers = [await Victim.open(port, address) for _ in range(ASKERS)]
    for n, one in enumerate(askers):
        await one.request("hello", version=1, client="bench-matches/1", name=f"asker{n}")
    times: list[float] = []

    async def ask(one: Victim) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = time.monotonic()
            try:
                reply = await one.request("standings")
            except TimeoutError:  # Victim.request gives up after 30 s
                times.append(30_000.0)
                return
            assert reply["type"] == "ok", reply
            took = time.monotonic() - start
            times.append(took * 1000)
            await asyncio.sleep(max(0.0, 1.0 - took))

    await asyncio.gather(*(ask(one) for one in askers))
    for one in askers:
        await one.close()
    return times


async def first_standings(port: int) -> None:
    """One standings request, however long it takes."""
    one = await Victim.open(port, f"{ASKER_NET}99")
    await one.request("hello", version=1, client="bench-matches/1", name="first")
    one.ids += 1
    one.writer.write(frame({"type": "standings", "id": one.ids}))
    decoder = Decoder()
    while True:
        data = await one.reader.read(1 << 16)
        if not data or any(msg.get("id") == one.ids for msg in decoder.feed(data)):
            break
    await one.close()


async def standings_cost(source: Path, tmp: Path, matches: int, seconds: float) -> None:
    """The standings asked for by 16 connections at their allowance, ``matches`` stored."""
    db = tmp / "history.db"
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(source)}
    subprocess.run(
        [sys.executable, "-c", PRELOAD, str(db), str(matches)], cwd=source, env=env, check=True
    )
    served = Served(source, db)
    try:
        victim, _ = await victim_at_own_table(served.port)
        print(
            f"  standings: {matches:,} ended matches preloaded and the server up in"
            f" {time.monotonic() - started:.1f} s; {ASKERS} addresses x {ASKERS} connections"
            " x 1 standings/s"
        )
        quiet = await victim.pings(2.0)
        print(f"  {'quiet':<22} victim ping: {benchlib.summary(quiet)}")
        # The first request may catch up on the whole history (a tree that tallies matches as
        # it is asked): timed apart, and waited for, so the window below is the steady state.
        first = time.monotonic()
        await asyncio.wait_for(first_standings(served.port), 600)
        print(f"  {'first standings':<22} {(time.monotonic() - first) * 1000:,.0f} ms")
        cpu = served.cpu_seconds()
        start = time.monotonic()
        jobs = [
            asyncio.to_thread(asker, served.port, f"{ASKER_NET}{n + 1}", seconds)
            for n in range(ASKERS)
        ]
        pings, *answered = await asyncio.gather(victim.pings(seconds), *jobs)
        used = (served.cpu_seconds() - cpu) / (time.monotonic() - start)
        replies = [t for batch in answered for t in batch]
        print(
            f"  {'standings':<22} victim ping: {benchlib.summary(pings)}   server CPU"
            f" {used:5.0%}   server memory {server_rss_mb(served.proc.pid):.0f} MB"
        )
        print(f"  {'':<22} standings replies ({len(replies)}): {benchlib.summary(replies)}")
        await victim.close()
    finally:
        stop(served)


def stop(served: Served) -> None:
    """Stop the server; kill it if it is too busy to stop."""
    try:
        served.stop()
    except subprocess.TimeoutExpired:
        served.proc.kill()
        served.proc.wait(10)


async def run(args: argparse.Namespace) -> None:
    """Both loops against one server, the crashed runs against another, then the standings
    against a preloaded one (``--only``: those named)."""
    source = Path(args.source).resolve()
    chosen = args.only or SCENARIOS
    print(f"server from {args.source}")
    cycles = [c for c in ("end/rematch", "create/start/end/leave") if c in chosen]
    with tempfile.TemporaryDirectory() as tmp:
        if cycles:
            db = Path(tmp) / "loops.db"
            served = Served(source, db)
            try:
                for cycle in cycles:
                    await loops(served, db, args.seconds, cycle)
            finally:
                served.stop()
        if "crashed runs" in chosen:
            await crashed_runs(source, Path(tmp), args.seconds)
        if "standings" in chosen:
            await standings_cost(source, Path(tmp), args.matches, args.seconds)


def main() -> None:
    """Parse the arguments and run."""
    parser = attack_arguments(__doc__, seconds=8.0)
    parser.add_argument(
        "--matches", type=int, default=100_000, help="ended matches preloaded for standings"
    )
    parser.add_argument(
        "--only", action="append", choices=SCENARIOS, help="run this scenario (repeatable)"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
