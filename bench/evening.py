"""Benchmark: a club evening, compressed in time, without a stumble (figures printed, and what
went wrong listed).

Run by hand::

    nice -n 10 .venv/bin/python bench/evening.py [--minutes 3] [--bot-tables 3] [--hands 3]

A real ``sheepshead serve`` (``python -m client.cli serve``, its doors off, a database in a
temporary directory, its log in a file there) on 127.0.0.1, and at once, over TCP, all in this
one process:

- ``--bot-tables`` tables of five network bots (the bot runner's :class:`BotPlayer`, strategy
  ``heuristic``, each taking ``--bot-pace`` s a decision), each playing ``--hands``-hand matches
  and its host asking a ``rematch`` after each;
- a table of four server bots and one network bot, its host, rematching alike;
- a table of people (:class:`client.session.Session`): three sit with two server bots, think
  before each action, chat now and then; one drops mid-hand and comes back with his seat token,
  one leaves and another sits in the seat she left;
- two spectators (a bot table and the people's table), and one more person who pings (the
  victim: each round trip is timed) and asks for the standings now and then.

A third of the way in the server is stopped with SIGTERM and started again on the same port and
database; two thirds in it is killed with SIGKILL and started again. Every client must find its
seat again and every table play on. At ``--minutes`` the evening ends: no more rematches, every
client closes, the server stops, and the database is checked: every match a host saw end is in
the results and in its players' standings, every stored hand's record verifies against its
revealed seeds (``engine.fairdeal.check_record``), each match's hands are numbered without a gap,
and the cards each bot was dealt (seen at the bidding) are those its hand's record deals it: a
hand dealt twice, the second time differently, would show there.

Printed: hands and matches per table, every refusal code clients got (those a moment passing
explains are listed apart), the victim's ping p50/p99 per part of the evening, how long each
restart took until every client was back, the server's RSS, CPU seconds and database size, per
hour extrapolated, and the server log's warnings and tracebacks. Exit status 1 when something
went wrong (a stumble), else 0.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import secrets  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from collections.abc import Mapping  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from benchlib import rss_mib, summary  # noqa: E402
from bots_load import children, cpu_seconds  # noqa: E402

from client.bot_runner import ACTION_REFUSED, CLIENT_NAME, BotConfig, BotPlayer  # noqa: E402
from client.session import ServerError, Session, TokenStore  # noqa: E402
from client.strategy_spec import strategy_factory  # noqa: E402
from engine.fairdeal import SEED_BYTES, check_record  # noqa: E402
from server.storage.store import table_key  # noqa: E402

EXPECTED = frozenset(
    {"stale", "not_your_turn", "hand_over", "match_over", "connection_lost", "server_shutdown"}
)
"""Refusals of an action that only say the moment passed (PROTOCOL.md §12, step 4), that the
connection dropped under it, and the notice of a server stopping (SIGTERM): expected, listed
apart."""

WORKER_EXIT = 5.0
"""Seconds the server's bot workers have to exit once it has stopped or been killed."""

BACK_DEADLINE = 60.0
"""Seconds every client has, after a restart, to be connected and seated again."""


class SetupFailed(Exception):
    """The evening could not be set up (the server did not start, a seat was refused)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the server keeps it across its restarts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (and is no zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@dataclass
class Life:
    """One run of the server process, from its start to its stop or kill."""

    pid: int
    started: float
    rss_start: float = float("nan")
    rss_end: float = float("nan")
    cpu: float = 0.0
    end: str = ""
    workers: list[int] = field(default_factory=list)


class ServerProcess:
    """``sheepshead serve`` on a fixed port and database, started again after each stop."""

    def __init__(self, tmp: Path, port: int, args: argparse.Namespace) -> None:
        self.tmp = tmp
        self.port = port
        self.db = tmp / "evening.db"
        self.log = tmp / "server.log"
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        self.lives: list[Life] = []

    def command(self) -> list[str]:
        """The serve command: the doors off (no --ssh, --web; no LAN announce), the people's
        paces shortened so an evening's hands fit in minutes, and the per-address limits of a
        club whose players share one address (README.md, "Limits")."""
        a = self.args
        return [
            *(sys.executable, "-m", "client.cli", "serve", "--port", str(self.port)),
            *("--db", str(self.db), "--log-level", "info", "--no-announce"),
            *("--bot-delay", str(a.bot_delay), "--hand-pause", str(a.hand_pause)),
            *("--trick-pause", str(a.trick_pause), "--bot-workers", "1"),
            *("--limit", "max_per_address=48"),
        ]

    async def start(self) -> float:
        """Start the server; the seconds until it listens."""
        began = time.monotonic()
        out = open(self.tmp / "server.out", "ab")  # noqa: SIM115 - the child keeps it
        log = open(self.log, "ab")  # noqa: SIM115
        mark = (self.tmp / "server.out").stat().st_size
        root = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen(
            self.command(),
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdout=out,
            stderr=log,
        )
        out.close()
        log.close()
        deadline = began + 60
        while True:
            with open(self.tmp / "server.out", "rb") as f:
                f.seek(mark)
                if b"Ctrl+C" in f.read():
                    break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SetupFailed(f"the server did not start; its log: {self.log}")
            await asyncio.sleep(0.05)
        took = time.monotonic() - began
        life = Life(self.proc.pid, time.monotonic())
        self.lives.append(life)
        return took

    def settled(self) -> None:
        """Note the server's RSS once its clients are back (the start of its life's figures)."""
        life = self.lives[-1]
        life.rss_start = rss_mib(life.pid)

    async def stop(self, how: signal.Signals) -> float:
        """Stop the server with ``how``; the seconds until it has exited."""
        assert self.proc is not None
        life = self.lives[-1]
        life.rss_end = rss_mib(life.pid)
        life.workers = children(life.pid)
        life.cpu = cpu_seconds(life.pid) + sum(cpu_seconds(w) for w in life.workers)
        life.end = how.name
        began = time.monotonic()
        self.proc.send_signal(how)
        while self.proc.poll() is None:
            if time.monotonic() - began > 60:
                self.proc.kill()
            await asyncio.sleep(0.05)
        life.end += f" (exit {self.proc.returncode})"
        return time.monotonic() - began


@dataclass
class Evening:
    """What every client saw, and the evening's clock."""

    host: str
    port: int
    ending: bool = False
    refused: Counter[str] = field(default_factory=Counter)
    """Refusals and errors clients got, as ``who-kind: code``."""
    passed: Counter[str] = field(default_factory=Counter)
    """Refusals and notices the evening explains (:data:`EXPECTED`)."""
    said: list[str] = field(default_factory=list)
    """Lines the bot runners said that tell of trouble."""
    matches_over: set[tuple[str, int]] = field(default_factory=set)
    """(table, match) of every match whose end a host saw."""
    match_of: dict[str, int] = field(default_factory=dict)
    """Each table's current match number (0, then +1 per rematch)."""
    dealt: dict[tuple[str, int, int, int], set[tuple[str, ...]]] = field(
        default_factory=lambda: defaultdict(set)
    )
    """(table, match, hand, seat): the 6 cards seen in the bidding (sorted)."""
    seated: dict[str, tuple[Session, str, int]] = field(default_factory=dict)
    """Name -> (session, table, seat) of every client that must be seated."""
    watchers: list[tuple[Session, str]] = field(default_factory=list)
    states_after: Counter[str] = field(default_factory=Counter)
    """States each watcher got since the last restart."""
    keys: dict[str, str] = field(default_factory=dict)
    """Network bot name -> its player key (the standings count it)."""
    sat_through: dict[str, str] = field(default_factory=dict)
    """Network bot name -> the table it sat at all evening."""
    pings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    part: str = "first part"
    setting_up: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by a host from ``create_table`` to ``start``: a table waiting to start counts
    against the address's ``max_waiting_per_address`` (3), and the club shares one address."""
    standings_asked: int = 0
    started_again: int = 0
    """``start`` sent again by the people's host to a table found waiting (PROTOCOL.md §4)."""
    problems: list[str] = field(default_factory=list)

    def refuse(self, who: str, code: str) -> None:
        """Count a refusal or error ``code`` a client of kind ``who`` got."""
        (self.passed if code in EXPECTED else self.refused)[f"{who}: {code}"] += 1

    def note_state(self, session: Session, msg: Mapping[str, Any]) -> None:
        """Keep the dealt hand a state shows in the bidding (each seat's 6 cards then)."""
        view = msg.get("view")
        hand = msg.get("hand")
        table = session.table
        if not isinstance(view, Mapping) or not isinstance(hand, int) or table is None:
            return
        cards = view.get("hand")
        seat = session.seat
        bidding = view.get("phase") == "pick" and isinstance(cards, list) and len(cards) == 6
        if bidding and seat is not None and table in self.match_of:
            key = (table, self.match_of[table], hand, seat)
            self.dealt[key].add(tuple(sorted(cards)))  # type: ignore[arg-type]


class PacedBot(BotPlayer):
    """The bot runner's player, taking ``pace`` seconds a decision (a club's bots are not a
    closed loop) and telling the evening what it sees."""

    def __init__(self, evening: Evening, session: Session, pace: float, fresh: bool) -> None:
        config = BotConfig(host=evening.host, port=evening.port, strategy="heuristic")
        super().__init__(session, strategy_factory("heuristic")(None), self.hear, config)
        self.evening = evening
        self.pace = pace
        self.fresh = fresh
        """For a match the host has asked for: an over table before its first state is the
        last match's."""

    def hear(self, text: str) -> None:
        """What the runner says: trouble is kept (hands, matches and checked deals are not)."""
        fine = ("hand ", "match over", "deals:", "back at", "seated at", "all seats")
        verified = re.fullmatch(r"match \d+ deals: all \d+ deals verified", text) is not None
        trouble = not text.startswith(fine) or "FAIL" in text or "not" in text.split(":", 1)[0]
        if trouble and not verified:
            self.evening.said.append(f"{self.session.name}: {text}")
        if text.startswith(ACTION_REFUSED):  # "...: MESSAGE (CODE)"
            self.evening.refuse("bot action", text.rpartition("(")[2].rstrip(")"))

    def _decide(self, view: Mapping[str, Any], legal: list[Any]) -> Any:
        time.sleep(self.pace)  # in the runner's worker thread, as a thinking strategy would
        return super()._decide(view, legal)

    async def play(self) -> int:
        """Play on, the evening noting each state on the way."""
        queue = self.session.events
        original_get = queue.get
        began = False  # a state of this player's match came
        snapshot = False  # the next state is a reconnection's snapshot

        async def get() -> Any:
            nonlocal began, snapshot
            while True:
                msg = await original_get()
                kind = msg.get("type")
                if kind == "connection" and msg.get("status") == "connected":
                    snapshot = True
                elif kind == "state":
                    self.evening.note_state(self.session, msg)
                    over = (msg.get("info") or {}).get("state") == "over"
                    if over and not began and (self.fresh or not snapshot):
                        # Queued behind the last match's end (a reconnection's snapshot too,
                        # once the host has asked for the rematch this player is for): the last
                        # match's end, not this one's. (The runner's player ends its match at
                        # such a state and drains the queue: the new match's deal and prompts
                        # with it.)
                        continue
                    began = began or not over
                    snapshot = False
                elif kind == "error" and msg.get("id") is None:
                    self.evening.refuse("bot event", str(msg.get("code")))
                return msg

        queue.get = get  # type: ignore[method-assign]
        try:
            return await super().play()
        finally:
            queue.get = original_get  # type: ignore[method-assign]


async def connect(evening: Evening, name: str, kind: str, **options: Any) -> Session:
    """A connected session, dialled again while the server restarts (a refused hello:
    :class:`SetupFailed`)."""
    session = Session(evening.host, evening.port, name=name, kind=kind, **options)  # type: ignore[arg-type]
    for _ in range(100):
        try:
            await session.connect()
            return session
        except ServerError as exc:
            raise SetupFailed(f"{name}'s hello refused: {exc.code}: {exc.message}") from exc
        except (OSError, TimeoutError):
            await asyncio.sleep(0.5)  # the server is starting again
    raise SetupFailed(f"{name} found no server to connect to")


async def request(
    evening: Evening, who: str, session: Session, type: str, **fields: Any
) -> Mapping[str, Any] | None:
    """A request whose refusal is counted (None), never raised; a dropped connection is waited
    out (the request is sent again once it is back)."""
    for _ in range(100):
        try:
            return await session.request(type, **fields)
        except ServerError as exc:
            if exc.code != "connection_lost" and not isinstance(exc, ConnectionError):
                evening.refuse(f"{who} {type}", exc.code)
                return None
        except TimeoutError:
            evening.refuse(f"{who} {type}", "timeout")
            return None
        await asyncio.sleep(0.5)
    evening.refuse(f"{who} {type}", "never_back")
    return None


async def rematch(evening: Evening, host: Session, table: str) -> bool:
    """The host reads the result a second, then asks for a rematch (unless the evening is
    ending); whether it was taken. The match number moves on first: the new deal may reach
    the other seats before the host's reply."""
    await asyncio.sleep(1.0)
    if evening.ending:
        return False
    evening.match_of[table] += 1
    if await request(evening, "host", host, "rematch") is None:
        evening.match_of[table] -= 1
        return False
    return True


async def bot_table(
    evening: Evening, number: int, server_bots: int, hands: int, pace: float
) -> None:
    """A table of network bots (``5 - server_bots``) and server bots, playing matches and
    rematching until the evening ends."""
    sessions = []
    for seat in range(5 - server_bots):
        name = f"net{number}.{seat}"
        key = evening.keys[name] = secrets.token_urlsafe(24)
        sessions.append(
            await connect(evening, name, "bot", client_name=CLIENT_NAME, player_key=key)
        )
    host = sessions[0]
    async with evening.setting_up:
        reply = await request(
            evening,
            "host",
            host,
            "create_table",
            name=f"table {number}",
            preset="seed",
            hands=hands,
        )
        if reply is None:
            raise SetupFailed(f"table {number} could not be created: {evening.refused}")
        table = str(reply["table"])
        for other in sessions[1:]:
            if await request(evening, "bot", other, "join", table=table, seat=None) is None:
                raise SetupFailed(f"a bot could not join table {number}")
        for _ in range(server_bots):
            await request(evening, "host", host, "add_bot", seat=None, strategy="heuristic")
        for s in sessions:
            evening.seated[s.name] = (s, table, int(s.seat if s.seat is not None else -1))
            if server_bots == 0 or s is host:
                evening.sat_through[s.name] = table
        evening.match_of[table] = 0
        await request(evening, "host", host, "start")

    async def seat_loop(session: Session) -> None:
        fresh = False
        while not evening.ending:
            # A player a match, as a runner's process is (one that stayed seated for the
            # rematch): a runner's player learns its table's match when it starts.
            status = await PacedBot(evening, session, pace, fresh).play()
            if status != 0 and not evening.ending:
                evening.problems.append(f"{session.name} stopped playing ({status})")
                return
            fresh = True  # the others wait for the host's rematch
            if session is host and not evening.ending:
                evening.matches_over.add((table, evening.match_of[table]))
                fresh = await rematch(evening, host, table)

    await asyncio.gather(*(seat_loop(s) for s in sessions))


@dataclass
class Person:
    """A person at the people's table: thinks, chats, may drop and come back or leave."""

    evening: Evening
    name: str
    store: TokenStore
    think: float
    rng: random.Random
    session: Session | None = None
    gone: bool = False
    snapshot_due: bool = False
    """The session has just connected again: the next state is its snapshot."""
    info: Mapping[str, Any] = field(default_factory=dict)
    """The table's summary, from the last state that carried one."""
    restart_due: bool = False
    """The host was told ``start_cancelled``: it starts the match again once the table is full."""
    played: bool = False
    """A state of a table playing has come: a waiting table seen from then on waits for its
    host (the states queued from before the first start are of the table being set up)."""
    short: bool = False
    """Since it played, the table was seen waiting with a seat empty (a rematch taken with a
    seat left, or a start cancelled): no start is pending there (PROTOCOL.md §4 notes), and the
    host starts it once it is full."""
    fresh: bool = False
    """The host's rematch was taken and no state of the new match has come: an over snapshot
    now is the last match's (queued before the reply)."""
    last_chat: float = 0.0

    async def sit(self, table: str | None, create: Mapping[str, Any] | None = None) -> str:
        """Connect and take a seat (``create``: create the table instead); the table."""
        self.session = await connect(self.evening, self.name, "human", token_store=self.store)
        if create:
            reply = await request(self.evening, "person", self.session, "create_table", **create)
        else:
            reply = await request(
                self.evening, "person", self.session, "join", table=table, seat=None
            )
        if reply is None:
            raise SetupFailed(f"{self.name} found no seat")
        table = str(reply["table"])
        self.evening.seated[self.name] = (self.session, table, int(reply["seat"]))
        return table

    async def play(self, host: bool) -> None:
        """Answer prompts after thinking, chat now and then, rematch as the host."""
        while not self.gone and not self.evening.ending and self.session is not None:
            session = self.session
            try:
                msg = await asyncio.wait_for(session.events.get(), 1.0)
            except TimeoutError:
                continue
            kind = msg.get("type")
            snapshot = kind == "state" and self.snapshot_due
            if kind == "state":
                self.evening.note_state(session, msg)
                self.snapshot_due = False
            elif kind == "connection" and msg.get("status") == "connected":
                self.snapshot_due = True
            elif kind == "commitment" and isinstance(msg.get("commitment"), str):
                # As the client does (PROTOCOL.md §13): a seed at once, so the deal need not
                # wait out seed_wait for it.
                seed = secrets.token_bytes(SEED_BYTES).hex()
                quoted = msg["commitment"]
                await request(
                    self.evening, "person", session, "client_seed", commitment=quoted, seed=seed
                )
            elif kind == "notice" and msg.get("code") == "start_cancelled":
                self.restart_due = True  # a seat emptied before the deal: start again when full
            if kind == "state" and isinstance(msg.get("info"), dict):
                self.info = msg["info"]  # a state without one leaves it as it was
                self.fresh = self.fresh and self.info.get("state") == "over"
            info = self.info
            full = all(seat.get("kind") != "empty" for seat in info.get("seats") or [{}])
            self.played = self.played or info.get("state") == "playing"
            if info.get("state") == "waiting" and not full and self.played:
                self.short = True
            waiting = info.get("state") == "waiting" and full
            if host and waiting and (self.restart_due or self.short or snapshot):
                # As a person would: the table waits, full again (a rematch taken with a seat
                # left, a start cancelled when a seat emptied, or a start the server took and
                # then lost, killed before the first deal); start it again.
                self.restart_due = self.short = False
                self.evening.started_again += 1
                await request(self.evening, "host", session, "start")
            if kind == "your_turn":
                await asyncio.sleep(self.think * self.rng.uniform(0.3, 1.2))
                turn = session.last_turn
                if turn is None or turn is not msg or self.gone:
                    continue  # a newer prompt is queued, or moved on meanwhile
                legal = turn.get("legal") or []
                if legal:
                    try:
                        await session.act(self.rng.choice(legal), seq=turn.get("seq"))
                    except ServerError as exc:
                        self.evening.refuse("person action", exc.code)
                    except TimeoutError:
                        self.evening.refuse("person action", "timeout")
                if self.rng.random() < 0.08 and time.monotonic() - self.last_chat > 5:
                    self.last_chat = time.monotonic()  # a person's chat, under its rate limit
                    await request(self.evening, "person", session, "chat", text="nice one")
            # A match_over, or the snapshot of a table found over on coming back (its
            # match_over went while the server restarted); not an over state queued behind it.
            over = kind == "match_over" or (
                snapshot and not self.fresh and (msg.get("info") or {}).get("state") == "over"
            )
            table = session.table
            if over and host and table is not None:
                if (table, self.evening.match_of[table]) not in self.evening.matches_over:
                    self.evening.matches_over.add((table, self.evening.match_of[table]))
                    self.fresh = await rematch(self.evening, session, table)
            elif kind == "error" and msg.get("id") is None:
                self.evening.refuse("person event", str(msg.get("code")))
            elif kind == "table_lost":
                self.evening.problems.append(f"{self.name} lost the seat: {msg}")

    async def drop_and_return(self, away: float) -> str:
        """The connection drops (a laptop lid closed), the client starts again ``away`` s later
        and takes the seat back with the stored token; what happened."""
        assert self.session is not None
        _, table, seat = self.evening.seated[self.name]
        old = self.session
        self.evening.seated.pop(self.name)
        old.reconnect = False
        await old._drop_connection()  # no leave: a dropped connection
        await old.close()
        await asyncio.sleep(away)
        self.session = await connect(self.evening, self.name, "human", token_store=self.store)
        back = (self.session.table, self.session.seat)
        self.evening.seated[self.name] = (self.session, table, seat)
        if back != (table, seat):
            self.evening.problems.append(f"{self.name} came back to {back}, not {(table, seat)}")
            return f"{self.name} came back to {back}, not to {table} seat {seat}"
        return f"{self.name} dropped and took seat {seat} back {away:g} s later"

    async def leave(self) -> None:
        """Leave the table for good."""
        assert self.session is not None
        self.gone = True
        self.evening.seated.pop(self.name)
        await request(self.evening, "person", self.session, "leave")
        await self.session.close()


async def people_table(
    evening: Evening, args: argparse.Namespace, tmp: Path, log: list[str]
) -> None:
    """Three people and two server bots; a drop and return, a leave and another who sits."""
    rng = random.Random(args.seed)
    store = TokenStore(tmp / "tokens.json")

    def person(name: str) -> Person:
        return Person(evening, name, store, args.think, random.Random(rng.random()))

    ann, bob, cy, dee = person("Ann"), person("Bob"), person("Cy"), person("Dee")
    async with evening.setting_up:
        table = await ann.sit(None, create={"name": "the people", "preset": "seed", "hands": 4})
        await bob.sit(table)
        await cy.sit(table)
        assert ann.session is not None
        for _ in range(2):
            await request(evening, "host", ann.session, "add_bot", seat=None, strategy="heuristic")
        evening.match_of[table] = 0
        await request(evening, "host", ann.session, "start")
    tasks = [asyncio.create_task(p.play(p is ann)) for p in (ann, bob, cy)]
    span = args.minutes * 60
    await asyncio.sleep(span * 0.15)
    await asyncio.sleep(0)
    tasks[1].cancel()
    log.append(await bob.drop_and_return(3.0))
    tasks[1] = asyncio.create_task(bob.play(False))
    await asyncio.sleep(span * 0.4)
    await cy.leave()
    log.append("Cy left the people's table")
    await asyncio.sleep(2.0)
    await dee.sit(table)
    log.append(f"Dee sat in the seat Cy left (seat {evening.seated['Dee'][2]})")
    tasks.append(asyncio.create_task(dee.play(False)))
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, Exception):
            evening.problems.append(f"a person's task failed: {result!r}")


async def watcher(evening: Evening, name: str, table: str) -> None:
    """A spectator of ``table`` all evening: states counted since the last restart."""
    session = await connect(evening, name, "human")
    if await request(evening, "watcher", session, "watch", table=table) is None:
        evening.problems.append(f"{name} could not watch {table}")
        return
    evening.watchers.append((session, table))
    while not evening.ending:
        try:
            msg = await asyncio.wait_for(session.events.get(), 1.0)
        except TimeoutError:
            continue
        if msg.get("type") == "state":
            evening.states_after[name] += 1
        elif msg.get("type") == "table_lost":
            evening.problems.append(f"{name} stopped watching: {msg}")
        elif msg.get("type") == "error" and msg.get("id") is None:
            evening.refuse("watcher event", str(msg.get("code")))


async def victim(evening: Evening, interval: float, standings_every: float) -> None:
    """One more person: pings (timed; the ping in flight when a restart cuts it is not) and
    asks for tonight's standings now and then."""
    session = await connect(evening, "Victim", "human")
    last_standings = time.monotonic()
    while not evening.ending:
        sent = time.perf_counter()
        try:
            await session.request("ping")
            evening.pings[evening.part].append((time.perf_counter() - sent) * 1000)
        except ServerError as exc:
            if exc.code != "connection_lost" and not isinstance(exc, ConnectionError):
                evening.refuse("victim ping", exc.code)
        except TimeoutError:
            evening.refuse("victim ping", "timeout")
        if time.monotonic() - last_standings > standings_every and session.status == "connected":
            last_standings = time.monotonic()
            if await request(evening, "victim", session, "standings", since="tonight"):
                evening.standings_asked += 1
        await asyncio.sleep(interval)
    await session.close()


async def everyone_back(evening: Evening, since: float) -> float:
    """Wait until every seated client is connected at its seat and every spectator watches
    again; the seconds since ``since`` (a problem noted past :data:`BACK_DEADLINE`)."""
    while True:
        missing = [
            name
            for name, (s, table, seat) in evening.seated.items()
            if s.status != "connected" or s.table != table or s.seat != seat
        ] + [
            f"watcher of {table}"
            for s, table in evening.watchers
            if s.status != "connected" or s.table != table
        ]
        if not missing:
            return time.monotonic() - since
        if time.monotonic() - since > BACK_DEADLINE:
            evening.problems.append(f"not back {BACK_DEADLINE:g} s after the restart: {missing}")
            return float("nan")
        await asyncio.sleep(0.1)


def hands_by_table(db: Path) -> dict[int, int]:
    """Finished hands stored per table key (read-only, while the server runs)."""
    uri = db.resolve().as_uri() + "?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        return dict(conn.execute("SELECT table_id, count(*) FROM hands GROUP BY table_id"))


async def tables_play_on(
    evening: Evening, db: Path, before: dict[int, int], tables: list[str]
) -> None:
    """After a restart: every table stores a new hand within a deadline (a problem if not)."""
    deadline = time.monotonic() + 120
    waiting = {table_key(t) for t in tables}
    while waiting and time.monotonic() < deadline and not evening.ending:
        now = hands_by_table(db)
        waiting = {k for k in waiting if now.get(k, 0) <= before.get(k, 0)}
        await asyncio.sleep(1.0)
    if waiting and not evening.ending:
        evening.problems.append(f"tables {sorted(waiting)} finished no hand after a restart")


def check_database(db: Path, evening: Evening) -> list[str]:
    """The end-of-evening checks on the stored records; lines to print (problems noted)."""
    lines: list[str] = []
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    rows = conn.execute("SELECT table_id, match_number, number, record FROM hands").fetchall()
    numbers: dict[tuple[int, int], list[int]] = defaultdict(list)
    verdicts: Counter[str] = Counter()
    deals: dict[tuple[int, int, int], list[list[str]]] = {}
    for table, match, number, text in rows:
        numbers[(table, match)].append(number)
        record = json.loads(text)
        deals[(table, match, number)] = record["deal"]["hands"]
        verdict = check_record(record)
        if verdict.ok:
            verdicts["verified"] += 1
        elif verdict.incomplete and (f"t{table}", match) not in evening.matches_over:
            verdicts["seeds not revealed yet (match unfinished)"] += 1
        else:
            verdicts[f"FAILS: {verdict.reason}"] += 1
            evening.problems.append(f"table {table} match {match} hand {number}: {verdict.reason}")
    for (table, match), got in sorted(numbers.items()):
        if sorted(got) != list(range(len(got))):
            evening.problems.append(f"table {table} match {match}: hands numbered {sorted(got)}")
    lines.append(f"stored hands: {len(rows)}; records {dict(verdicts)}")
    twice = 0
    for (table, match, number, seat), seen in evening.dealt.items():
        stored = deals.get((table_key(table), match, number))
        if stored is None:
            continue  # the hand was not finished when the evening ended
        if len(seen) > 1 or tuple(sorted(stored[seat])) not in seen:
            twice += 1
            evening.problems.append(
                f"{table} match {match} hand {number} seat {seat}: dealt {sorted(seen)}, "
                f"stored {stored[seat]}"
            )
    lines.append(
        f"deals seen in the bidding: {len(evening.dealt)} (table, match, hand, seat); "
        f"{twice} differ from the stored deal"
    )
    results = set(conn.execute("SELECT DISTINCT table_id, match_number FROM results"))
    tallied = set(
        conn.execute(
            "SELECT DISTINCT table_id, match_number FROM match_tallies WHERE finished IS NOT NULL"
        )
    )
    lost = [(t, m) for t, m in evening.matches_over if (table_key(t), m) not in results & tallied]
    for t, m in lost:
        evening.problems.append(f"{t} match {m} ended but is not in the results and standings")
    lines.append(
        f"matches over: {len(evening.matches_over)} seen by their hosts, {len(results)} in the "
        f"results, {len(tallied)} counted in the standings; lost {len(lost)}"
    )
    totals = dict(
        conn.execute(
            "SELECT i.name, p.matches FROM player_totals p JOIN identities i USING (identity)"
        )
    )
    wrong = []
    for name, table in evening.sat_through.items():
        want = sum(1 for t, _ in evening.matches_over if t == table)
        if totals.get(name, 0) != want:
            wrong.append(f"{name} {totals.get(name, 0)} (ended at its table: {want})")
    if wrong:
        evening.problems.append(f"standings count other matches: {', '.join(wrong)}")
    lines.append(
        f"standings of the {len(evening.sat_through)} bots seated all evening: "
        f"{len(evening.sat_through) - len(wrong)} count exactly the matches of their table"
    )
    conn.close()
    return lines


def log_findings(log: Path, hours: float) -> list[str]:
    """The server log's size and its warnings, errors and tracebacks, counted, with the first
    few."""
    text = log.read_text(errors="replace")
    bad = [x for x in text.splitlines() if re.search(r"WARNING|ERROR|CRITICAL|Traceback", x)]
    kinds = Counter(re.sub(r"\d+", "N", x.split(" ", 3)[-1])[:90] for x in bad)
    size = log.stat().st_size
    lines = [
        f"server log: {len(text.splitlines())} lines, {size / 1e3:.0f} kB = "
        f"{size / 1e6 / hours:.1f} MB an hour at --log-level info; {len(bad)} "
        "warnings/errors/tracebacks"
    ]
    lines += [f"  {n} x {k}" for k, n in kinds.most_common(8)]
    return lines


async def evening_run(args: argparse.Namespace, tmp: Path) -> int:
    """The evening; the exit status."""
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(32))
    server = ServerProcess(tmp, free_port(), args)
    try:
        return await evening_of(args, server)
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


async def evening_of(args: argparse.Namespace, server: ServerProcess) -> int:
    """The evening against ``server``; the exit status."""
    tmp = server.tmp
    took = await server.start()
    evening = Evening("127.0.0.1", server.port)
    db_start = server.db.stat().st_size
    began = time.monotonic()
    events: list[str] = [f"server listening after {took:.2f} s"]
    span = args.minutes * 60
    tasks = [
        asyncio.create_task(bot_table(evening, n, 0, args.hands, args.bot_pace))
        for n in range(args.bot_tables)
    ]
    tasks.append(
        asyncio.create_task(bot_table(evening, args.bot_tables, 4, args.hands, args.bot_pace))
    )
    tasks.append(asyncio.create_task(people_table(evening, args, tmp, events)))
    while len(evening.match_of) < args.bot_tables + 2:  # every table created
        await asyncio.sleep(0.1)
        for task in tasks:
            if task.done() and task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
    tables = sorted(evening.match_of, key=table_key)
    tasks.append(asyncio.create_task(watcher(evening, "Watcher1", tables[0])))
    tasks.append(asyncio.create_task(watcher(evening, "Watcher2", tables[-1])))
    tasks.append(asyncio.create_task(victim(evening, args.ping_interval, span / 6)))
    await everyone_back(evening, time.monotonic())
    server.settled()
    restarts: list[str] = []
    for fraction, how, part in (
        (0.35, signal.SIGTERM, "after SIGTERM"),
        (0.7, signal.SIGKILL, "after SIGKILL"),
    ):
        await asyncio.sleep(max(0.0, began + span * fraction - time.monotonic()))
        before = hands_by_table(server.db)
        stopped = await server.stop(how)
        # A worker ends at the end of its input, the server's pipe: it outlives a killed
        # server by the moment it takes to read that.
        gone_by = time.monotonic() + WORKER_EXIT
        while any(alive(w) for w in server.lives[-1].workers) and time.monotonic() < gone_by:
            await asyncio.sleep(0.05)
        orphans = [w for w in server.lives[-1].workers if alive(w)]
        if orphans:
            evening.problems.append(
                f"bot workers {orphans} outlived the server by {WORKER_EXIT:g} s ({how.name})"
            )
        up = await server.start()
        evening.part = part
        evening.states_after.clear()
        back = await everyone_back(evening, time.monotonic() - up)
        server.settled()
        restarts.append(
            f"{how.name}: exited in {stopped:.2f} s, listening again {up:.2f} s later, every "
            f"client back {back:.1f} s after the stop"
        )
        await tables_play_on(evening, server.db, before, tables)
        for s, _ in evening.watchers:
            if evening.states_after[s.name] == 0 and not evening.ending:
                evening.problems.append(f"{s.name} got no state after the {how.name} restart")
    await asyncio.sleep(max(0.0, began + span - time.monotonic()))
    evening.ending = True
    elapsed = time.monotonic() - began
    hands_now = hands_by_table(server.db)
    db_end = server.db.stat().st_size
    await server.stop(signal.SIGTERM)
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            evening.problems.append(f"a client's task failed: {task.exception()!r}")
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for s, _, _ in list(evening.seated.values()):
        await s.close()
    for s, _ in evening.watchers:
        await s.close()

    report(args, server, evening, events, restarts, hands_now, elapsed, db_start, db_end)
    for line in check_database(server.db, evening) + log_findings(server.log, elapsed / 3600):
        print(line)
    if evening.said:
        print(f"bot runners said ({len(evening.said)}):")
        for line in evening.said[:12]:
            print(f"  {line}")
    print("-" * 78)
    if evening.problems:
        print(f"STUMBLES: {len(evening.problems)}")
        for problem in evening.problems:
            print(f"  {problem}")
    if evening.refused:
        print("STUMBLE: refusals the evening does not explain (see above)")
    ok = not evening.problems and not evening.refused
    print("a whole evening without a stumble" if ok else "the evening stumbled")
    return 0 if ok else 1


def report(
    args: argparse.Namespace,
    server: ServerProcess,
    evening: Evening,
    events: list[str],
    restarts: list[str],
    hands: dict[int, int],
    elapsed: float,
    db_start: int,
    db_end: int,
) -> None:
    """Print the evening's figures."""
    hours = elapsed / 3600
    print("=" * 78)
    print(
        f"evening of {elapsed / 60:.1f} min: {args.bot_tables} network-bot tables, 1 server-bot "
        f"table, 1 people's table, 2 spectators, 1 victim; matches of {args.hands} hands "
        f"(the people's 4), bot pace {args.bot_pace:g} s, server bot delay {args.bot_delay:g} s,"
        f" hand pause {args.hand_pause:g} s, trick pause {args.trick_pause:g} s"
    )
    for line in events + restarts:
        print(f"  {line}")
    print("per table: hands stored, matches over (seen by the host)")
    total = 0
    for table in sorted(evening.match_of, key=table_key):
        count = hands.get(table_key(table), 0)
        total += count
        over = sum(1 for t, _ in evening.matches_over if t == table)
        print(f"  {table}: {count} hands, {over} matches over")
    print(f"  in all {total} hands = {total / hours:,.0f} an hour")
    print(f"refusals clients got: {dict(evening.refused) or 'none'}")
    print(f"  expected (a moment passed, a restart): {dict(evening.passed) or 'none'}")
    for part, values in evening.pings.items():
        print(f"victim ping {part + ':':15} {summary(values)}")
    print(
        f"standings asked {evening.standings_asked} times; the people's host started a waiting "
        f"table again {evening.started_again} time(s)"
    )
    cpu = sum(life.cpu for life in server.lives)
    for number, life in enumerate(server.lives, 1):
        print(
            f"server life {number} (pid {life.pid}): RSS {life.rss_start:.1f} -> "
            f"{life.rss_end:.1f} MiB, CPU {life.cpu:.1f} s (with its bot worker), ended {life.end}"
        )
    last = server.lives[-1]
    lasted = (time.monotonic() - last.started) / 3600
    print(
        f"server CPU {cpu:.1f} s in all = {cpu / elapsed * 100:.0f}% of one core; RSS growth in "
        f"its last life {(last.rss_end - last.rss_start) / lasted:+.1f} MiB an hour"
    )
    print(
        f"database {db_start / 1e6:.2f} -> {db_end / 1e6:.2f} MB (WAL aside) = "
        f"{(db_end - db_start) / 1e6 / hours:.1f} MB an hour"
    )
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"this process (every client): CPU {own.ru_utime + own.ru_stime:.1f} s")


def main() -> int:
    """Parse the options, run the evening, print what it showed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="the evening's length (3)")
    parser.add_argument("--bot-tables", type=int, default=3, help="network-bot tables (3)")
    parser.add_argument("--hands", type=int, default=3, help="hands a bot table's match (3)")
    parser.add_argument("--bot-pace", type=float, default=0.15, help="s a network bot decides")
    parser.add_argument("--bot-delay", type=float, default=0.15, help="server bots' delay, s")
    parser.add_argument("--hand-pause", type=float, default=0.5, help="server hand pause, s")
    parser.add_argument("--trick-pause", type=float, default=0.3, help="server trick pause, s")
    parser.add_argument("--think", type=float, default=0.6, help="a person's think time, s")
    parser.add_argument("--ping-interval", type=float, default=0.5, help="victim's pings, s")
    parser.add_argument("--seed", type=int, default=1, help="the people's random seed")
    parser.add_argument("--keep", metavar="DIR", help="keep the database and log in DIR")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sheepshead-evening-"))
    try:
        return asyncio.run(evening_run(args, tmp))
    except SetupFailed as exc:
        print(f"evening: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            shutil.copytree(tmp, args.keep, dirs_exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
