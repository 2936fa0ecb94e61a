"""Benchmark: the coach asked for on every reconnect, and another table's bots meanwhile.

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack_coach.py [--seconds 5] [--strategy search]
    .venv/bin/python bench/attack_coach.py --source /tmp/old   # another tree's server

A real ``sheepshead serve`` (``bench/attack.py``'s :class:`Served`, one bot worker, no pause
after a trick or a hand) with two tables:

- the victim's, from its own address: the victim and four ``--strategy`` server bots play an
  open-ended match; the victim answers each of its turns at once, so the time between two
  ``state`` events that its own action did not cause is one bot move (its decision plus its
  wait for the bot worker);
- the attacker's, with hints on: it plays a hand against four random bots, then from
  ``--addresses`` addresses at once reconnects with its seat token as fast as each address's
  connection rate allows (a burst of 30, then 5 a second) and asks ``review`` on every new
  connection (issue 27's attack).

It prints the victim's bot move times (p50 / p99 / max) before, during and just after the
attack, and how the attacker's reviews were answered.

``--hint-tables N`` runs the ``hint`` attack instead: N tables with hints, three from each
address (its 12 server bots: four at each), each of whose attacker, once its turn has come,
never acts and asks ``hint`` again the moment the last one is answered (one per seat is the
limit; ``max_coach_requests`` 64 over the server: past 64 tables some get ``busy``). Beside the
victim's bot moves it prints a second victim's ping and the server's CPU, its bot workers'
apart, before, during and after.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import secrets  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

from attack import (  # noqa: E402
    ATTACKER_ADDRESS,
    VICTIM_ADDRESS,
    Decoder,
    Served,
    Victim,
    attack_arguments,
    frame,
    victim_at_own_table,
)

ANSWER_DELAY = 0.06
"""Seconds the victim waits before each of its actions (under the message rate limit, which a
victim answering at once would pass against fast bots with the tables' pauses off)."""
RECONNECT_WAIT = 0.2
"""Seconds the attacker waits after a refused connection (the per-address rate is 5 a second,
bursts of 30: it reconnects as fast as that allows)."""


class BotTable:
    """The victim at a table with four server bots, playing; records each bot move's time."""

    def __init__(self, victim: Victim) -> None:
        self.victim = victim
        self.moves: list[tuple[float, float]] = []
        """(when it ended, seconds it took) for each bot move."""
        self.errors: Counter[str] = Counter()
        """Errors the victim got (none expected)."""
        self._task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, port: int, strategy: str) -> BotTable:
        """Seat the victim and four bots, start the match and begin playing."""
        victim = await Victim.open(port, VICTIM_ADDRESS)
        await victim.request("hello", version=1, client="bench-coach/1", name="Victim")
        await victim.request("create_table", name="the victim's table", hands=None)
        for _ in range(4):
            await victim.request("add_bot", seat=None, strategy=strategy)
        # Not request(): it would drop the commitment event that comes before the reply.
        victim.writer.write(frame({"type": "start", "id": 0}))
        table = cls(victim)
        table._task = asyncio.get_running_loop().create_task(table._play())
        return table

    async def _play(self) -> None:
        victim = self.victim
        decoder = Decoder()
        victim.decoder = decoder
        last = time.monotonic()
        mine = False
        while True:
            data = await victim.reader.read(1 << 16)
            if not data:
                return
            for msg in decoder.feed(data):
                kind = msg.get("type")
                if kind == "error":
                    self.errors[str(msg.get("code"))] += 1
                elif kind == "commitment":
                    victim.writer.write(
                        frame(
                            {
                                "type": "client_seed",
                                "id": 0,
                                "commitment": msg["commitment"],
                                "seed": secrets.token_hex(32),
                            }
                        )
                    )
                elif kind == "state":
                    now = time.monotonic()
                    if not mine:
                        self.moves.append((now, now - last))
                    last, mine = now, False
                elif kind == "your_turn":
                    mine = True
                    await asyncio.sleep(ANSWER_DELAY)
                    victim.writer.write(
                        frame(
                            {
                                "type": "action",
                                "id": 0,
                                "seq": msg["seq"],
                                "action": msg["legal"][0],
                            }
                        )
                    )

    def between(self, start: float, end: float) -> list[float]:
        """Bot move times, in ms, of the moves that ended between ``start`` and ``end``."""
        return [took * 1000 for when, took in self.moves if start <= when < end]

    async def close(self) -> None:
        """Stop playing and close."""
        if self._task is not None:
            self._task.cancel()
        await self.victim.close()


async def played_hand(port: int) -> str:
    """The attacker plays one hand at a table with hints against four random bots; returns
    its seat token."""
    host = await Victim.open(port, ATTACKER_ADDRESS)
    await host.request("hello", version=1, client="bench-coach/1", name="Coached")
    created = await host.request("create_table", name="coached", hands=2, hints=True)
    for _ in range(4):
        await host.request("add_bot", seat=None, strategy="random")
    host.writer.write(frame({"type": "start", "id": 0}))
    decoder = Decoder()
    while True:
        data = await asyncio.wait_for(host.reader.read(1 << 16), 60)
        if not data:
            raise SystemExit("attack_coach: the server closed the attacker's connection")
        for msg in decoder.feed(data):
            if msg.get("type") == "commitment":
                host.writer.write(
                    frame(
                        {
                            "type": "client_seed",
                            "id": 0,
                            "commitment": msg["commitment"],
                            "seed": secrets.token_hex(32),
                        }
                    )
                )
            elif msg.get("type") == "your_turn":
                action = {"type": "action", "id": 0, "seq": msg["seq"], "action": msg["legal"][0]}
                host.writer.write(frame(action))
            elif msg.get("type") == "hand_over":
                await host.close()  # the second hand stays unfinished: the table plays on
                return str(created["token"])


async def attack(port: int, token: str, seconds: float, addresses: int) -> Counter[str]:
    """From ``addresses`` addresses at once, reconnect with ``token`` and ask ``review`` on
    each new connection for ``seconds``; returns how the reviews were answered (the replaced
    connections' are never answered)."""
    counts = await asyncio.gather(
        *(
            attack_from(port, token, seconds, ATTACKER_ADDRESS if n == 0 else f"127.0.5.{n}")
            for n in range(addresses)
        )
    )
    return sum(counts, Counter())


async def attack_from(port: int, token: str, seconds: float, address: str) -> Counter[str]:
    """One address's part of :func:`attack`."""
    answers: Counter[str] = Counter()
    connections: list[Victim] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = await Victim.open(port, address)
            welcome = await conn.request(
                "hello", version=1, client="bench-coach/1", name="Coached", token=token
            )
        except (ConnectionError, OSError, TimeoutError):
            answers["connect refused"] += 1
            await asyncio.sleep(RECONNECT_WAIT)
            continue
        if welcome.get("type") != "welcome":
            answers[f"hello {welcome.get('code')}"] += 1
            await conn.close()
            await asyncio.sleep(RECONNECT_WAIT)
            continue
        conn.ids += 1
        conn.writer.write(frame({"type": "review", "id": conn.ids}))
        connections.append(conn)
        answers["asked"] += 1
    for conn in connections:
        for msg in conn.inbox + conn.decoder.feed(await _drain(conn)):
            if msg.get("id") == conn.ids:
                answers[str(msg.get("code", msg["type"]))] += 1
        await conn.close()
    return answers


async def _drain(conn: Victim) -> bytes:
    try:
        return await asyncio.wait_for(conn.reader.read(1 << 20), 0.05)
    except (TimeoutError, ConnectionError, OSError):
        return b""


HINT_NET = "127.0.6."
"""The hint attack's addresses, one per three tables."""


class HintAsker:
    """An attacker alone with four random bots at a table with hints: once its turn has come
    it never acts, and asks ``hint`` again as soon as each is answered."""

    def __init__(self, conn: Victim) -> None:
        self.conn = conn
        self.answers: Counter[str] = Counter()
        """How its hints were answered, by reply type or error code."""
        self.latencies: list[float] = []
        """Seconds from each hint to its ``ok``."""
        self.stop = 0.0
        """When to stop asking (monotonic; 0: not yet started)."""
        self.my_turn = asyncio.Event()

    @classmethod
    async def seat(cls, port: int, number: int) -> HintAsker:
        """Table ``number``: open it from its address with four random bots and start it."""
        conn = await Victim.open(port, f"{HINT_NET}{number // 3 + 1}")
        await conn.request("hello", version=1, client="bench-coach/1", name=f"Asker{number}")
        created = await conn.request("create_table", name=f"hints {number}", hands=None, hints=True)
        if created.get("type") != "ok":
            raise SystemExit(f"attack_coach: table {number} refused: {created}")
        for _ in range(4):
            added = await conn.request("add_bot", seat=None, strategy="random")
            if added.get("type") != "ok":
                raise SystemExit(f"attack_coach: a bot at table {number} refused: {added}")
        conn.writer.write(frame({"type": "start", "id": 0}))
        return cls(conn)

    async def run(self) -> None:
        """Answer the commitment, wait for the turn, then ask hints until :attr:`stop`."""
        conn = self.conn
        asked_at = 0.0
        while True:
            data = await conn.reader.read(1 << 16)
            if not data:
                return
            for msg in conn.decoder.feed(data):
                kind = msg.get("type")
                if kind == "commitment":
                    seed = {"commitment": msg["commitment"], "seed": secrets.token_hex(32)}
                    conn.writer.write(frame({"type": "client_seed", "id": 0, **seed}))
                elif kind == "your_turn":
                    self.my_turn.set()
                elif kind in ("ok", "error") and msg.get("id") == conn.ids and asked_at:
                    self.answers[str(msg.get("code", kind))] += 1
                    if kind == "ok":
                        self.latencies.append(time.monotonic() - asked_at)
                    asked_at = 0.0
            if self.my_turn.is_set() and not asked_at and time.monotonic() < self.stop:
                conn.ids += 1
                conn.writer.write(frame({"type": "hint", "id": conn.ids}))
                asked_at = time.monotonic()
            if self.stop and time.monotonic() >= self.stop and not asked_at:
                return


def worker_cpu_seconds(served: Served) -> float:
    """User plus system CPU of the server's running child processes (its bot workers)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == served.proc.pid:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


async def hint_attack(served: Served, args: argparse.Namespace) -> None:
    """The ``hint`` attack of ``--hint-tables`` tables, with the victims measured."""
    table = await BotTable.start(served.port, args.strategy)
    pinger, _ = await victim_at_own_table(served.port)
    askers = [await HintAsker.seat(served.port, n) for n in range(args.hint_tables)]
    runs = [asyncio.create_task(a.run()) for a in askers]
    await asyncio.wait_for(asyncio.gather(*(a.my_turn.wait() for a in askers)), 60)
    print(
        f"server from {args.source} on port {served.port} (one bot worker): the victim plays"
        f" with four {args.strategy} bots; {args.hint_tables} attackers at tables with hints"
        f" from {(args.hint_tables + 2) // 3} addresses ask hint on their turn, again as soon"
        " as answered"
    )
    for name in ("before", "during", "after"):
        if name == "during":
            stop = time.monotonic() + args.seconds
            for a in askers:
                a.stop = stop
                a.conn.ids += 1  # the pong wakes the asker's loop, which then asks
                a.conn.writer.write(frame({"type": "ping", "id": a.conn.ids}))
        start, cpu, workers = time.monotonic(), served.cpu_seconds(), worker_cpu_seconds(served)
        pings = await pinger.pings(args.seconds)
        end = time.monotonic()
        took = end - start
        print(
            f"  {name:<7} bot move: {benchlib.summary(table.between(start, end))}\n"
            f"          ping:     {benchlib.summary(pings)}   server CPU"
            f" {(served.cpu_seconds() - cpu) / took:5.0%}, bot workers"
            f" {(worker_cpu_seconds(served) - workers) / took:5.0%}"
        )
        if name == "during":
            # The hints asked last wait in the coach's queue: "after" runs while they finish.
            asyncio.get_running_loop().call_later(args.seconds, lambda: [r.cancel() for r in runs])
    await asyncio.gather(*runs, return_exceptions=True)
    answers = sum((a.answers for a in askers), Counter())
    answers["unanswered"] = sum(1 for r in runs if r.cancelled())
    latencies = [t * 1000 for a in askers for t in a.latencies]
    print(f"  hints: {dict(sorted(answers.items()))}; answered in {benchlib.summary(latencies)}")
    if table.errors:
        print(f"  the victim's errors: {dict(table.errors)}")
    await table.close()
    await pinger.close()
    for a in askers:
        await a.conn.close()


async def run(args: argparse.Namespace) -> None:
    """The two tables, then the figures before, during and after the attack."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.source).resolve()
        options = ["--hand-pause", "0", "--trick-pause", "0", "--bot-workers", "1"]
        served = Served(source, Path(tmp) / "coach.db", options)
        try:
            if args.hint_tables:
                await hint_attack(served, args)
                return
            token = await played_hand(served.port)
            table = await BotTable.start(served.port, args.strategy)
            print(
                f"server from {args.source} on port {served.port}: the victim plays with four"
                f" {args.strategy} bots (one bot worker); the attacker reconnects from"
                f" {args.addresses} addresses as fast as allowed and asks review each time"
            )
            quiet = time.monotonic()
            await asyncio.sleep(args.seconds)
            attacked = time.monotonic()
            answers = await attack(served.port, token, args.seconds, args.addresses)
            after = time.monotonic()
            await asyncio.sleep(args.seconds)
            end = time.monotonic()
            for name, start, stop in (
                ("before", quiet, attacked),
                ("during", attacked, after),
                ("after", after, end),
            ):
                print(f"  {name:<7} bot move: {benchlib.summary(table.between(start, stop))}")
            print(f"  reviews: {dict(sorted(answers.items()))}")
            if table.errors:
                print(f"  the victim's errors: {dict(table.errors)}")
            await table.close()
        finally:
            served.stop()


def main() -> None:
    """Parse the arguments and run."""
    parser = attack_arguments(__doc__, seconds=4.0)
    parser.add_argument("--strategy", default="search", help="the victim's bots' strategy")
    parser.add_argument("--addresses", type=int, default=4, help="the attacker's addresses")
    parser.add_argument(
        "--hint-tables", type=int, default=0, help="run the hint attack with this many tables"
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
