"""Seeded fuzzing of a table's life by three players at once, over real sockets.

Where tests/e2e/test_server_fuzz.py sends malformed requests, this one sends well-formed ones
in any order from three connections at the same table: joining and leaving seats, watching,
adding and removing bots, starting, ending and rematching, answering prompts (and answering
them late), chatting and asking for the history, with the replies and events of the others
arriving in between; when the table closes (its last person left), one of them creates the
next. Every reply must carry its id and a documented code (never ``internal_error``); at every
check the listing must show each table's five seats holding each person at most once; and
afterwards the server still deals a new table.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import pytest

from protocol import errors
from tests.e2e.test_server_fuzz import MAY_FAIL, deals_a_new_table
from tests.server.support import Raw, running_server

STEPS = 400


class Player:
    """A connection that remembers its last prompt and never waits for a reply in line."""

    def __init__(self, raw: Raw, name: str, tables: list[str]) -> None:
        self.raw = raw
        self.name = name
        self.tables = tables
        """The tables created so far, shared by the players: the last is where they meet."""
        self.seated = False
        self.prompt: dict[str, Any] | None = None
        self.sent: dict[int, str] = {}
        self.replies: dict[int, dict[str, Any]] = {}

    async def send(self, kind: str, **fields: Any) -> None:
        request_id = await self.raw.send({"type": kind, **fields})
        self.sent[request_id] = kind

    def take(self, msg: dict[str, Any]) -> None:
        """Record what arrived: a reply by its id, the newest prompt."""
        if msg.get("type") in ("ok", "error", "welcome"):
            request_id = msg.get("id")
            assert isinstance(request_id, int) and request_id in self.sent, msg
            assert request_id not in self.replies, (msg, self.replies[request_id])
            self.replies[request_id] = msg
            kind = self.sent[request_id]
            if msg["type"] == "ok" and kind in ("join", "create_table"):
                self.seated = True
                if kind == "create_table":
                    self.tables.append(msg["table"])
            elif msg["type"] == "ok" and kind == "leave":
                self.seated = False
                self.prompt = None
            if msg["type"] == "error":
                assert msg["code"] in errors.ERROR_CODES, msg
                if kind not in MAY_FAIL:
                    assert msg["code"] != errors.INTERNAL_ERROR, (kind, msg)
        elif msg.get("type") == "your_turn":
            self.prompt = msg

    async def drain(self) -> None:
        """Take whatever has arrived by now, without waiting for more."""
        with contextlib.suppress(TimeoutError):
            while True:
                self.take(await self.raw.recv(timeout=0.001))

    async def settle(self) -> None:
        """Wait until every request sent so far has its reply."""
        while len(self.replies) < len(self.sent):
            self.take(await self.raw.recv(timeout=10))


async def random_move(player: Player, rng: random.Random) -> None:
    """One well-formed request, chosen at random (a seat first, mostly, when it has none)."""
    table = player.tables[-1]
    if not player.seated and rng.random() < 0.6:
        if rng.random() < 0.2:
            await player.send("create_table", name=f"fuzzed {len(player.tables)}", hands=2)
        elif rng.random() < 0.8:
            await player.send(
                "join", table=table, **({"seat": rng.randrange(5)} if rng.random() < 0.5 else {})
            )
        else:
            await player.send("watch", table=table)
        return
    roll = rng.random()
    if player.prompt is not None and roll < 0.45:
        prompt = player.prompt
        if rng.random() < 0.8:
            player.prompt = None  # answered; an old one is sometimes answered again
        await player.send("action", seq=prompt["seq"], action=rng.choice(prompt["legal"]))
        return
    kind = rng.choice(
        [
            "join", "watch", "leave", "add_bot", "add_bot", "add_bot", "remove_bot", "start",
            "start", "start", "end_match", "rematch", "chat", "history", "list_tables", "hint",
        ]
    )  # fmt: skip
    fields: dict[str, Any] = {}
    if kind in ("join", "watch"):
        fields["table"] = table
        if kind == "join" and rng.random() < 0.5:
            fields["seat"] = rng.randrange(5)
    elif kind == "add_bot":
        fields["strategy"] = "random"
        if rng.random() < 0.3:
            fields["seat"] = rng.randrange(5)
    elif kind == "remove_bot":
        fields["seat"] = rng.randrange(5)
    elif kind == "chat":
        fields["text"] = rng.choice(["hi", "gg", "nice trick"])
    await player.send(kind, **fields)


async def check_listing(lister: Player) -> None:
    """Every table's seats hold each name at most once, and it has five of them."""
    await lister.send("list_tables")
    await lister.settle()
    reply = lister.replies[max(lister.replies)]
    assert reply["type"] == "ok", reply
    for listed in reply["tables"]:
        seats = listed["seats"]
        assert len(seats) == 5
        humans = [s["name"] for s in seats if s["kind"] == "human"]
        assert len(humans) == len(set(humans)), seats


@pytest.mark.parametrize("seed", [7, 8])
async def test_three_players_doing_anything_in_any_order_break_nothing(seed: int) -> None:
    rng = random.Random(seed)
    limits = {"rate": 1e4, "burst": 1e4, "chat_rate": 1e4, "chat_burst": 1e4}
    async with running_server(bot_delay=0.0, **limits) as server:
        assert server.port
        tables: list[str] = []
        players = []
        for number, name in enumerate(("Ann", "Bob", "Cy")):
            raw = await Raw.open(server.port, source=f"127.0.0.{number + 2}")
            await raw.hello(name)
            players.append(Player(raw, name, tables))
        host = players[0]
        await host.send("create_table", name="fuzzed", hands=2, hints=True)
        await host.settle()
        lister = Player(await Raw.open(server.port, source="127.0.0.9"), "Lister", tables)
        await lister.raw.hello("Lister")
        for step in range(STEPS):
            player = rng.choice(players)
            await random_move(player, rng)
            for each in players:
                await each.drain()
            if step % 25 == 0:
                await asyncio.sleep(0.01)  # let the bots and the timers move too
                await check_listing(lister)
        for each in players:
            await each.settle()
        await check_listing(lister)
        # The server still plays: a new table from a new address reaches its first deal.
        fresh, _ = await deals_a_new_table(server.port, "127.0.0.20", strategy="random")
        for raw in [*(p.raw for p in players), lister.raw, fresh]:
            await raw.close()
