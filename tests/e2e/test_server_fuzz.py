"""Seeded fuzzing over real sockets: requests of every type with fields of every msgpack type.

Each request must get at most one reply, carrying its id; every error must be a documented code
and none ``internal_error`` (which would mean the server failed on the request or on echoing a
value back); and afterwards the server and the fuzzed table still work. The first message of a
connection is fuzzed on connections of its own (anything but a good ``hello`` closes them, as
PROTOCOL.md §2 says); the rest on a connection seated at a running table. The generator is
seeded, so a failure names the request that caused it and reruns the same way.
"""

from __future__ import annotations

import random
from typing import Any, Final

import pytest

from engine.cards import CARD_CODES
from protocol import errors, requests
from tests.server.support import Raw, running_server

REQUESTS = 700
FIELDS = (
    "name", "table", "seat", "action", "card", "cards", "options", "preset", "rules", "text",
    "hands", "password", "turn_timer", "start", "since", "strategy", "seq", "version", "client",
    "kind", "token", "seed", "hints", "player_key", "pair", "blitz", "under", "count",
)  # fmt: skip
ODD_TEXTS = (
    "",
    "a" * 300,
    "\u200b\u2060\ufeff",
    "e\u0301\u0301\u0301\u0301",
    "\U000e0041\U000e0042",
    "Sven",
    "QC",
    "wisconsin",
    "ﬀ" * 50,
)


def odd_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any msgpack type: the edges of each, and some plausible ones."""
    pick = rng.randrange(12 if depth < 3 else 8)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice((True, False))
    if pick == 2:
        return rng.choice((0, 1, -1, 4, 99, 2**31, 2**63 - 1, -(2**63), 2**64 - 1))
    if pick == 3:
        return rng.choice((0.5, -0.0, 1e308, float("inf"), float("nan")))
    if pick == 4:
        return rng.choice(ODD_TEXTS)
    if pick == 5:
        return rng.choice(CARD_CODES)
    if pick == 6:
        return rng.randbytes(rng.randrange(0, 40))
    if pick == 7:
        return "x" * rng.randrange(0, 2000)
    if pick in (8, 9):
        return [odd_value(rng, depth + 1) for _ in range(rng.randrange(0, 6))]
    keys = [rng.choice((*FIELDS, 1, -5, True, None)) for _ in range(rng.randrange(0, 5))]
    return {k: odd_value(rng, depth + 1) for k in keys}


def odd_request(rng: random.Random, number: int, kind: Any = None) -> dict[str, Any]:
    """A request of a known type (now and then an unknown one) with random fields."""
    if kind is None:
        kind = rng.choice(sorted(requests.REQUEST_TYPES)) if rng.random() < 0.93 else odd_value(rng)
    msg: dict[str, Any] = {"type": kind, "id": number}
    for field in rng.sample(FIELDS, rng.randrange(0, 5)):
        msg[field] = odd_value(rng)
    return msg


async def fuzz(
    raw: Raw, rng: random.Random, first_id: int, count: int
) -> tuple[list[dict[str, Any]], dict[int, Any]]:
    """Send ``count`` odd requests, then a ping; returns everything received until its reply,
    and the type of each request sent, by id."""
    kinds: dict[int, Any] = {}
    for number in range(first_id, first_id + count):
        msg = odd_request(rng, number)
        kinds[number] = msg["type"]
        await raw.send(msg)
    last = first_id + count
    await raw.send({"type": "ping", "id": last})
    received = []
    while True:
        msg = await raw.recv()
        received.append(msg)
        if msg.get("id") == last and msg.get("type") in ("ok", "error"):
            return received, kinds


# The coach's requests may fail on time: PROTOCOL.md lists internal_error for them (a hint
# that runs over the bot budget on a loaded machine).
MAY_FAIL: Final = frozenset({"hint", "review"})


def check_replies(
    received: list[dict[str, Any]],
    first_id: int,
    count: int,
    kinds: dict[int, Any],
    final_ping: bool = True,
) -> None:
    """At most one reply per request, each with its request's id and a documented code."""
    replied: dict[int, dict[str, Any]] = {}
    for msg in received:
        if msg.get("type") not in ("ok", "error", "welcome"):
            continue
        request_id = msg.get("id")
        assert isinstance(request_id, int), msg  # every reply keeps its request's id
        assert first_id <= request_id <= first_id + count, msg
        assert request_id not in replied, (msg, replied[request_id])
        replied[request_id] = msg
        if msg["type"] == "error":
            kind = kinds.get(request_id)
            if not (isinstance(kind, str) and kind in MAY_FAIL):
                assert msg["code"] != errors.INTERNAL_ERROR, msg
            assert msg["code"] in errors.ERROR_CODES, msg
    if final_ping:
        assert replied[first_id + count]["type"] == "ok"


async def first_message(port: int, msg: dict[str, Any]) -> list[dict[str, Any]]:
    """Send ``msg`` as a new connection's first request; returns what came back until its
    reply (a refused hello leaves the connection open for another), or until the server closed
    the connection."""
    raw = await Raw.open(port)
    await raw.send(msg)
    received = []
    try:
        while True:
            received.append(await raw.recv())
            reply = received[-1]
            if reply.get("type") in ("ok", "error", "welcome") and reply.get("id") == msg["id"]:
                break
    except EOFError:
        pass
    await raw.close()
    return received


async def deals_a_new_table(port: int, source: str, **bot: Any) -> tuple[Raw, dict[str, Any]]:
    """The server still plays: a newcomer from ``source`` creates a table, seats four server
    bots (``bot``: their ``add_bot`` fields) and starts it. Returns the newcomer's connection
    and the state that brought it its first hand."""
    fresh = await Raw.open(port, source=source)
    await fresh.hello("After")
    assert (await fresh.request("create_table", name="after"))["type"] == "ok"
    for _ in range(4):
        assert (await fresh.request("add_bot", **bot))["type"] == "ok"
    assert (await fresh.request("start"))["type"] == "ok"
    while True:  # the first deal reaches the new player's seat
        state = await fresh.expect("state", timeout=10)
        if state.get("view") and state["view"].get("hand"):
            return fresh, state


@pytest.mark.parametrize("seed", [20261201, 2, 3])
async def test_odd_requests_get_documented_errors_and_break_nothing(seed: int) -> None:
    rng = random.Random(seed)
    # Generous allowances: this is about what each request does, not about the rate limits.
    limits = {"rate": 10_000.0, "burst": 10_000.0, "byte_rate": 1e7, "byte_burst": 1e7}
    limits |= {"address_byte_rate": 1e7, "address_byte_burst": 1e7, "chat_rate": 1e4}
    limits |= {"chat_burst": 1e4, "password_rate": 1e4, "password_burst": 1e4}
    limits |= {"connection_rate": 1e4, "connection_burst": 1e4}
    async with running_server(bot_delay=0.0, **limits) as server:
        assert server.port
        # A connection's first message: hello half the time, with odd fields.
        for number in range(1, 81):
            msg = odd_request(rng, number, "hello" if number % 2 else None)
            if msg["type"] == "pong":  # the answer to the server's ping: no reply (§8)
                continue
            received = await first_message(server.port, msg)
            assert received, msg  # a reply always comes before any close
            check_replies(received, number, 0, {number: msg["type"]}, final_ping=False)
        # Seated at a running table, where actions, hints and reviews mean something.
        host = await Raw.open(server.port)
        await host.hello("Fuzz")
        created = await host.request("create_table", name="fuzzed", hints=True)
        assert created["type"] == "ok", created
        for _ in range(4):
            assert (await host.request("add_bot"))["type"] == "ok"
        assert (await host.request("start"))["type"] == "ok"
        received, kinds = await fuzz(host, rng, 1000, REQUESTS)
        check_replies(received, 1000, REQUESTS, kinds)
        # The server still works: for the fuzzing connection (whatever it did to its table:
        # left it, ended the match...) and for anyone else, who can still play.
        assert (await host.request("ping"))["type"] == "ok"
        assert (await host.request("list_tables"))["type"] == "ok"
        fresh, state = await deals_a_new_table(server.port, "127.0.0.2")
        assert len(state["view"]["hand"]) == 6
        for raw in (host, fresh):
            await raw.close()
