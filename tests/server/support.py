"""Helpers for the server tests: a running server, raw protocol clients, sessions, leak checks,
and a peer for tables driven without sockets."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from client.session import ServerError, Session, TokenStore
from engine.cards import CARD_CODES
from engine.rules import RuleSet
from protocol.framing import FrameDecoder, FrameError, encode
from server.app import Server, ServerConfig
from server.tables.hub import Peer
from server.tables.lobby import Lobby
from server.tables.table import Table
from server.tables.table_config import TableConfig

TIMEOUT = 5.0
"""Seconds any single wait in a test may take before it fails."""

ROOT = Path(__file__).resolve().parents[2]

BUILD = "compiled" if os.environ.get("SHEEPSHEAD_EXPECT_COMPILED") == "1" else "pure Python"
"""The server code a ``sheepshead serve`` subprocess must say it runs (its banner's ``server
code``): ``make compiled-test`` runs the tests on the compiled build, and a served process is
under test there too."""


def served_env() -> dict[str, str]:
    """The environment of a ``python -m client.cli`` subprocess: this one's, with the checkout
    on ``PYTHONPATH`` behind what is there already (``make compiled-test`` puts the compiled
    build first). PYTHONSAFEPATH: ``python -m`` would otherwise put its working directory, the
    checkout, before them all."""
    paths = [p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONSAFEPATH": "1"}


def start_serve(*args: str) -> subprocess.Popen[str]:
    """``sheepshead serve ARGS`` in a subprocess (:func:`served_env`), its stdout and stderr
    piped as text; read its banner with :func:`serve_banner`."""
    return subprocess.Popen(
        [sys.executable, "-m", "client.cli", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=served_env(),
    )


def serve_banner(process: subprocess.Popen[str], seconds: float = 60) -> str:
    """What :func:`start_serve`'s ``process`` printed up to its "press Ctrl+C" line; the test
    fails with its stderr if it ends first, or with what it printed if that takes longer than
    ``seconds`` (checked between lines)."""
    assert process.stdout is not None
    text = ""
    deadline = time.monotonic() + seconds
    while "press Ctrl+C" not in text:
        assert time.monotonic() < deadline, text
        line = process.stdout.readline()
        assert line, process.stderr.read() if process.stderr else text
        text += line
    return text


CARD_SET = frozenset(CARD_CODES)


@functools.cache
def events_source() -> ModuleType:
    """``protocol.events`` run from its source file: the message types to check against (on a
    compiled build, a TypedDict of the compiled module keeps none of its keys)."""
    name = "tests_protocol_events_source"
    path = Path(__file__).resolve().parents[2] / "protocol" / "events.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # get_type_hints looks the module up by name
    spec.loader.exec_module(module)
    return module


@contextlib.asynccontextmanager
async def running_server(**overrides: Any) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1, port 0, in-memory database unless ``db_path`` is given."""
    # seed_wait 0: raw test clients send no client seeds, so the deal does not wait for them
    # (tests/e2e/test_fair_deals.py waits for real ones).
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "hand_pause": 0.0,
        "trick_pause": 0.0,
        "seed_wait": 0.0,
        "bot_workers": 1,  # the real pool, one process whatever the machine
    }
    settings.update(overrides)
    server = Server(ServerConfig(**settings))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def disk_config(db: Path, **overrides: Any) -> ServerConfig:
    """A fast test server's configuration on the database file ``db``: a server made from it
    again after a stop restores what the first one left."""
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "db_path": db,
        "hand_pause": 0.0,
        "trick_pause": 0.0,
        "default_bot": "random",
        "bot_workers": 1,
    }
    settings.update(overrides)
    return ServerConfig(**settings)


class Sink:
    """A seated peer that drops what it is sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.kind = "bot"
        self.address = "127.0.0.1"
        self.table: Table | None = None
        self.seat: int | None = None

    def send(self, message: Mapping[str, Any]) -> None:
        pass

    def send_encoded(self, frame: bytes) -> None:
        pass

    def close(self, code: str, message: str) -> None:
        pass

    def allow_chat(self) -> bool:
        return True


def table_config(**overrides: Any) -> TableConfig:
    """A table's settings for a test: named "t", default rules, no hand limit, no password,
    no turn timer, a minute's grace; ``overrides`` set any field."""
    fields: dict[str, Any] = {
        "name": "t",
        "rules": RuleSet(),
        "hands": None,
        "password_salt": None,
        "password_hash": None,
        "turn_timer": None,
        "grace": 60.0,
    }
    return TableConfig(**{**fields, **overrides})


def seated_table(
    lobby: Lobby, peers: Sequence[Peer], *, rules: RuleSet | None = None, hands: int | None = None
) -> Table:
    """A table opened by ``peers[0]`` with the other four seated in order (not started)."""
    config = table_config(rules=rules or RuleSet(), hands=hands)
    table, _ = lobby.create_table(peers[0], config)
    for seat in range(1, 5):
        table.join(peers[seat], seat)
    return table


class Raw:
    """A bare protocol client: real socket, real codec, no session logic."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = FrameDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.ids = 0

    @classmethod
    async def open(cls, port: int, source: str | None = None) -> Raw:
        """Connect to the server (from the loopback address ``source``, e.g. 127.0.0.2)."""
        local = (source, 0) if source is not None else None
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=local)
        return cls(reader, writer)

    async def send(self, msg: dict[str, Any]) -> int:
        """Send a request, giving it an id unless it has one; returns the id."""
        if "id" not in msg:
            self.ids += 1
            msg = {**msg, "id": self.ids}
        self.writer.write(encode(msg))
        await self.writer.drain()
        return int(msg["id"]) if isinstance(msg["id"], int) else -1

    async def send_bytes(self, data: bytes) -> None:
        """Send raw bytes."""
        self.writer.write(data)
        await self.writer.drain()

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next message (fails on timeout; raises EOFError when the server closed)."""
        while not self.inbox:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                raise EOFError("the server closed the connection")
            for item in self.decoder.feed(data):
                assert not isinstance(item, FrameError), item
                self.inbox.append(item)
        return self.inbox.pop(0)

    async def expect(self, type: str, timeout: float = TIMEOUT, **match: Any) -> dict[str, Any]:
        """Skip messages until one of ``type`` whose fields equal ``match``."""
        while True:
            msg = await self.recv(timeout)
            if msg.get("type") == type and all(msg.get(k) == v for k, v in match.items()):
                return msg

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send a request and return its reply (ok or error), skipping events."""
        request_id = await self.send({"type": type, **fields})
        return await self.expect_reply(request_id)

    async def request_keeping(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send a request and return its reply; the events that came first stay queued (a
        ``your_turn`` among them must still be answered)."""
        request_id = await self.send({"type": type, **fields})
        kept: list[dict[str, Any]] = []
        while True:
            msg = await self.recv()
            if msg.get("type") in ("ok", "error") and msg.get("id") == request_id:
                self.inbox[:0] = kept
                return msg
            kept.append(msg)

    async def expect_reply(self, request_id: int) -> dict[str, Any]:
        """The ok/error/welcome answering ``request_id``."""
        while True:
            msg = await self.recv()
            if msg.get("type") in ("ok", "error", "welcome") and msg.get("id") == request_id:
                return msg

    async def hello(self, name: str = "raw", **fields: Any) -> dict[str, Any]:
        """Say hello; returns the welcome."""
        reply = await self.request(
            "hello", version=1, client="test/1", kind="human", name=name, **fields
        )
        assert reply["type"] == "welcome", reply
        return reply

    async def closed(self, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """Read until the server closes the connection; returns what came meanwhile."""
        seen: list[dict[str, Any]] = []
        with contextlib.suppress(EOFError, ConnectionError):
            while True:
                seen.append(await self.recv(timeout))
        await self.close()
        return seen

    async def close(self) -> None:
        """Close the socket."""
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


def session(server: Server | int, name: str, tmp: Path, **kwargs: Any) -> Session:
    """A session to ``server`` (or a port) with its own token file in ``tmp``."""
    options: dict[str, Any] = {"min_backoff": 0.05, "max_backoff": 0.5}
    options.update(kwargs)
    return Session(
        "127.0.0.1",
        server if isinstance(server, int) else server.port,
        name=name,
        token_store=TokenStore(tmp / f"tokens-{name}.json"),
        **options,
    )


async def next_event(
    s: Session, type: str, timeout: float = TIMEOUT, **match: Any
) -> dict[str, Any]:
    """Skip a session's events until one of ``type`` with fields equal to ``match``."""
    while True:
        msg = await asyncio.wait_for(s.events.get(), timeout)
        if msg.get("type") == type and all(msg.get(k) == v for k, v in match.items()):
            return msg


def drain(s: Session) -> list[dict[str, Any]]:
    """Take every event already queued for ``s``."""
    out = []
    while not s.events.empty():
        out.append(s.events.get_nowait())
    return out


async def full_table(sessions: list[Session], **create: Any) -> str:
    """Connect five sessions, seat them at a new table (the first is host); returns its id."""
    for s in sessions:
        if s.status != "connected":
            await s.connect()
    options: dict[str, Any] = {"name": "test", "preset": "seed", "options": {}, "hands": 1}
    options.update(create)
    reply = await sessions[0].request("create_table", **options)
    table = str(reply["table"])
    for s in sessions[1:]:
        await s.request("join", table=table, password=create.get("password"))
    return table


async def play_until(
    s: Session,
    stop: str,
    log: list[dict[str, Any]],
    rng: random.Random,
    *,
    timeout: float = 20.0,
) -> dict[str, Any]:
    """Answer every your_turn with a legal action chosen by ``rng`` until a ``stop`` event."""

    async def loop() -> dict[str, Any]:
        while True:
            msg = await s.events.get()
            log.append(msg)
            if msg["type"] == stop:
                return msg
            if msg["type"] == "your_turn":
                try:
                    await s.act(rng.choice(msg["legal"]), seq=msg["seq"])
                except ServerError as exc:
                    # A re-prompt can overtake an answer (stale), and a prompt sent again for
                    # a turn already answered (a seat's connection changed: a new seq) finds
                    # the turn moved on once the state after it is here; anything else fails.
                    moved_on = (s.last_state or {}).get("seq", -1) > msg["seq"]
                    assert exc.code == "stale" or (exc.code == "not_your_turn" and moved_on), exc

    return await asyncio.wait_for(loop(), timeout)


async def wait_turn(players: list[Session], after: int, timeout: float = 20.0) -> tuple[int, Any]:
    """The seat and prompt of the first your_turn newer than seq ``after``.

    The deadline only ends a hung test: 5 s was once too short for a bot runner's turn on a
    machine loaded far past its two cores."""

    async def poll() -> tuple[int, Any]:
        while True:
            for i, p in enumerate(players):
                turn = p.last_turn
                if turn is not None and turn["seq"] > after:
                    return i, turn
            await asyncio.sleep(0.005)

    return await asyncio.wait_for(poll(), timeout)


async def drive(players: list[Session], after: int, until: Any) -> tuple[int, Any]:
    """Play legal[0] for whoever is prompted until ``until(seat, prompt, view)`` holds."""
    while True:
        seat, prompt = await wait_turn(players, after)
        view = players[seat].last_state["view"]  # type: ignore[index]
        if until(seat, prompt, view):
            return seat, prompt
        await players[seat].act(prompt["legal"][0], seq=prompt["seq"])
        after = prompt["seq"]


# ---------------------------------------------------------------------------- leak checks


def _walk(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, (*path, i))
    elif isinstance(obj, str) and obj in CARD_SET:
        yield path, obj


def _is_call_option(msg: dict[str, Any], path: tuple[Any, ...]) -> bool:
    """A card named by a call option (an ace or ten to call), or the called card itself."""
    if "called" in path:
        return True
    if path[-1] == "card":
        node: Any = msg
        for key in path[:-1]:
            node = node[key]
        return node.get("action") in ("call", "unknown")
    return False


PAIR_CODES = {"black": ("QC", "QS"), "red": ("QH", "QD")}
"""The two queens of each queen pair."""


def check_no_leak(messages: list[dict[str, Any]], seat: int | None) -> int:
    """Fail if any message before a hand's hand_over names a card ``seat`` may not know.

    ``seat`` None checks a spectator. Allowed: the seat's own dealt cards, the blind once the
    seat picked it, every card already played face up, and call options. Returns how many
    state messages were checked.
    """
    checked = 0
    pending: list[dict[str, Any]] = []
    for msg in messages:
        if msg.get("type") == "hand_over":
            checked += _check_hand(pending, msg, seat)
            pending = []
        elif msg.get("type") in ("state", "your_turn", "notice", "chat", "error", "ok"):
            if msg.get("type") == "state" and msg.get("view") is None:
                continue
            pending.append(msg)
    return checked


def _check_hand(messages: list[dict[str, Any]], over: dict[str, Any], seat: int | None) -> int:
    reveal = over["reveal"]
    number = over["hand"]
    dealt = set(reveal["hands"][seat]) if seat is not None else set()
    blind = set(reveal["blind"])
    played: set[str] = set()
    # Queens shown by a blitz or a crack (docs/rules.md, "Cracking and blitzing"): public.
    shown: set[str] = set()
    picker: int | None = None
    checked = 0
    for msg in messages:
        if msg["type"] == "state":
            if msg["hand"] != number:
                continue
            view = msg["view"]
            assert view["seat"] == seat
            assert msg["seat"] == seat
            if view["phase"] == "done":  # the hand is over: everything is revealed
                checked += 1
                continue
            assert view["reveal"] is None and view["result"] is None, msg
            picker = view["picker"]
            for trick in view["tricks"]:
                played.update(trick["cards"])
            for blitz in view.get("blitzes") or []:
                shown.update(blitz["cards"])
            crack = view.get("crack")
            if crack is not None and crack["blitz"] is not None:
                shown.update(PAIR_CODES[crack["blitz"]])
            played.update(c["card"] for c in view["trick"]["cards"])
            own = set(view["hand"])
            if seat is None:
                assert own == set(), msg
            else:
                allowed_own = dealt | (blind if picker == seat else set())
                assert own <= allowed_own, (seat, own, allowed_own)
            if picker != seat:
                assert view["blind"] is None and view["buried"] is None, msg
                assert view["under"] is None, msg
            checked += 1
        allowed = (
            dealt | played | shown | (blind if picker is not None and picker == seat else set())
        )
        for path, card in _walk(msg):
            if card in allowed or _is_call_option(msg, path):
                continue
            raise AssertionError(f"seat {seat} was sent {card} at {path} in {msg['type']}: {msg}")
    return checked


# ---------------------------------------------------------------------------- raw tables


async def raw_bot_table(raw: Raw, bots: int = 4, **create: Any) -> dict[str, Any]:
    """``raw`` (greeted) opens a table and seats ``bots`` random server bots; returns the ok of
    its ``create_table`` (table, seat, token). The match is not started."""
    options: dict[str, Any] = {"name": "test", "hands": 1}
    options.update(create)
    reply = await raw.request("create_table", **options)
    assert reply["type"] == "ok", reply
    for _ in range(bots):
        added = await raw.request("add_bot", strategy="random")
        assert added["type"] == "ok", added
    return reply


async def raw_play(
    raw: Raw, stop: str = "match_over", log: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Answer every ``your_turn`` with its first legal action until a ``stop`` event; returns it.

    A re-prompt can overtake an answer, so ``stale`` errors are passed over; any other error
    fails."""
    while True:
        msg = await raw.recv()
        if log is not None:
            log.append(msg)
        if msg["type"] == stop:
            return msg
        if msg["type"] == "error":
            assert msg["code"] == "stale", msg
        if msg["type"] == "your_turn":
            await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
