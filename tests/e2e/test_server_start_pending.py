"""An accepted ``start`` or ``rematch`` never sits pending: it deals, or the table is told
``start_cancelled`` and its host starts again (PROTOCOL.md §4 notes, §13).

Seen once in seven runs of the evening benchmark's smoke (``bench/evening.py``): after a
restart, Cy left the people's over table, its host's ``rematch`` came 20 ms later (the table
waiting, a seat empty), Dee sat there 2 s later, and the table never dealt: the bench's host
started a waiting table again only when told ``start_cancelled`` or on a reconnection's
snapshot, not when a table that waited for a seat filled. On the server's side, a seat emptied
while the first deal waited for the people's seeds kept the start pending until the end of the
wait: whoever sat there meanwhile got no commitment, the host's ``start`` on the table full
again got ``already_started``, and a person who disconnected in the wait held the deal until
``seed_wait`` ran out. Real server on 127.0.0.1, real sockets and codec."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from protocol.framing import encode
from tests.server.support import ROOT, TIMEOUT, Raw, raw_bot_table, raw_play, running_server

SEED_WAIT = 30.0
"""Long past any wait of a test (:data:`TIMEOUT`): a deal that waits it out fails the test."""


async def seed(raw: Raw, commitment: str) -> None:
    """``raw`` answers ``commitment`` with a client seed, as the client does at once."""
    reply = await raw.request_keeping(
        "client_seed", commitment=commitment, seed=os.urandom(32).hex()
    )
    assert reply["type"] == "ok", reply


async def until_state(raw: Raw, state: str) -> dict[str, Any]:
    """The first ``state`` event whose table summary is ``state`` (waiting, playing, over)."""
    while True:
        msg = await raw.expect("state")
        if (msg.get("info") or {}).get("state") == state:
            return msg


async def people_at_a_table(port: int, names: list[str], bots: int) -> tuple[list[Raw], str]:
    """``names`` greeted and seated in order (the first hosts), then ``bots`` random bots."""
    raws = []
    table = ""
    for name in names:
        raw = await Raw.open(port)
        await raw.hello(name)
        if not raws:
            table = str((await raw_bot_table(raw, bots=0, hands=1))["table"])
        else:
            assert (await raw.request("join", table=table))["type"] == "ok"
        raws.append(raw)
    for _ in range(bots):
        assert (await raws[0].request("add_bot", strategy="random"))["type"] == "ok"
    return raws, table


async def test_a_seat_emptied_in_a_rematchs_seed_wait_cancels_it_and_a_new_start_deals() -> None:
    async with running_server(seed_wait=SEED_WAIT, default_bot="random") as server:
        (ann, bob, cy), table = await people_at_a_table(server.port, ["Ann", "Bob", "Cy"], 2)
        assert (await ann.request("start"))["type"] == "ok"
        commitment = (await ann.expect("commitment"))["commitment"]
        for raw in (ann, bob, cy):
            await seed(raw, commitment)
        await until_state(ann, "playing")
        assert (await ann.request_keeping("end_match"))["type"] == "ok"
        await until_state(ann, "over")
        await cy.close()  # Cy's connection drops; the over table keeps her seat for her token

        # The rematch: every seat is held, so it starts as a start would, its first deal
        # waiting for the seeds of Ann and Bob (connected), which they do not send yet.
        assert (await ann.request_keeping("rematch"))["type"] == "ok"
        rematch = (await ann.expect("commitment"))["commitment"]
        assert (await bob.request("leave"))["type"] == "ok"
        await bob.close()
        # At once, not when the wait ends (before: 30 s later, and only if nobody sat there).
        notice = await ann.expect("notice", code="start_cancelled")
        assert notice["table"] == table
        # Told to everyone at the table: "start again" read as an order to those who cannot.
        assert notice["text"] == "A seat emptied before the deal: the host starts the match again"
        waiting = await until_state(ann, "waiting")
        assert waiting["info"]["seats"][1]["kind"] == "empty"
        late = await ann.request_keeping("client_seed", commitment=rematch, seed="00" * 32)
        assert late["code"] == "stale"  # the cancelled start's commitment collects no more

        # Dee sits in Bob's seat: the host starts the table, full again (before:
        # already_started, the old start still waiting without Dee's seed).
        dee = await Raw.open(server.port)
        await dee.hello("Dee")
        assert (await dee.request("join", table=table, seat=1))["type"] == "ok"
        assert (await ann.request_keeping("start"))["type"] == "ok"
        fresh = (await ann.expect("commitment"))["commitment"]
        assert fresh != rematch
        assert (await dee.expect("commitment"))["commitment"] == fresh
        for raw in (ann, dee):
            await seed(raw, fresh)  # Cy is away: her seed is not waited for
        dealt = await until_state(dee, "playing")
        assert dealt["hand"] == 0 and dealt["info"]["seats"][1]["name"] == "Dee"
        for raw in (ann, dee):
            await raw.close()


async def test_a_seat_emptied_as_a_seed_comes_in_ends_the_wait_for_the_seeds() -> None:
    """Ann took a rematch as Bob left: the table was told "A seat emptied before the deal;
    start again" twice, and stored it twice (a newcomer's log read it twice too). A seed came
    in the same turn of the event loop as the leave: the wait for the seeds, woken by the seed
    and cancelled by the leave at once, went on (Python 3.11's ``asyncio.wait_for`` returns
    then instead of raising), waited for the seeds of a start called off, and at its end
    called it off a second time (or, the seats full again by then, dealt a hand nobody
    started)."""
    async with running_server(seed_wait=SEED_WAIT, default_bot="random") as server:
        (ann, bob), _ = await people_at_a_table(server.port, ["Ann", "Bob"], 3)
        assert (await ann.request("start"))["type"] == "ok"
        commitment = (await ann.expect("commitment"))["commitment"]
        for raw in (ann, bob):
            await seed(raw, commitment)
        await until_state(ann, "playing")
        assert (await ann.request_keeping("end_match"))["type"] == "ok"
        await until_state(ann, "over")
        assert (await ann.request_keeping("rematch"))["type"] == "ok"
        rematch = (await ann.expect("commitment"))["commitment"]
        # Bob's seed and his leave in one write: read in one turn of the server's loop.
        seed_frame = {"type": "client_seed", "id": 901, "commitment": rematch, "seed": "11" * 32}
        await bob.send_bytes(encode(seed_frame) + encode({"type": "leave", "id": 902}))
        assert (await bob.expect_reply(901))["type"] == "ok"
        assert (await bob.expect_reply(902))["type"] == "ok"
        await ann.expect("notice", code="start_cancelled")

        def waiting_for_seeds() -> list[asyncio.Task[Any]]:
            return [
                task
                for task in asyncio.all_tasks()
                if "_deal_first_hand_when_seeded" in repr(task.get_coro())
            ]

        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while waiting_for_seeds() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        assert not waiting_for_seeds()  # before: still waiting, SEED_WAIT (30 s) in all
        for raw in (ann, bob):
            await raw.close()


async def test_a_person_who_disconnects_in_the_seed_wait_no_longer_holds_the_deal() -> None:
    async with running_server(seed_wait=SEED_WAIT, default_bot="random") as server:
        (ann, bob), _ = await people_at_a_table(server.port, ["Ann", "Bob"], 3)
        assert (await ann.request("start"))["type"] == "ok"
        commitment = (await ann.expect("commitment"))["commitment"]
        await seed(ann, commitment)
        await bob.close()  # his seed never comes; the seat stays his, for his token
        # Dealt at once (before: when seed_wait ran out, nobody left to wait for).
        dealt = await until_state(ann, "playing")
        assert dealt["hand"] == 0
        await ann.close()


@pytest.fixture
def evening(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``bench/evening.py``, loaded as a module (it puts the project first on ``sys.path``)."""
    name = "bench_evening"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "evening.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # its dataclasses look their module up
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec.loader.exec_module(module)
    return module


async def test_the_evenings_host_starts_its_table_when_a_left_seat_fills_after_a_rematch(
    evening: ModuleType, tmp_path: Path
) -> None:
    """The evening's hang: Cy leaves the over table before the host's rematch, which therefore
    waits for a seat; Dee sits there; the bench's host (its :class:`Person`) starts the table."""
    async with running_server(default_bot="random") as server:
        night = evening.Evening("127.0.0.1", server.port)
        store = evening.TokenStore(tmp_path / "tokens.json")
        ann = evening.Person(night, "Ann", store, 0.0, random.Random(1))
        table = await ann.sit(None, create={"name": "people", "preset": "seed", "hands": 1})
        assert ann.session is not None
        cy = await Raw.open(server.port)
        await cy.hello("Cy")
        assert (await cy.request("join", table=table, seat=1))["type"] == "ok"
        for _ in range(3):
            await ann.session.request("add_bot", seat=None, strategy="random")
        night.match_of[table] = 0
        await ann.session.request("start")
        host = asyncio.create_task(ann.play(True))
        try:
            await raw_play(cy)  # to the match's end
            # Within the second the host reads the result before its rematch.
            assert (await cy.request("leave"))["type"] == "ok"
            await cy.close()
            dee = await Raw.open(server.port)
            await dee.hello("Dee")
            assert (await dee.request("watch", table=table))["type"] == "ok"
            # The host's rematch finds the table a seat short: it waits, Cy's seat empty...
            waiting = await until_state(dee, "waiting")
            assert waiting["info"]["seats"][1]["kind"] == "empty"
            assert (await dee.request("join", table=table, seat=1))["type"] == "ok"
            # ...and Dee, sitting there, fills it: the host starts it again (before: never).
            await until_state(dee, "playing")
            assert night.started_again == 1
            assert not night.refused, night.refused
            await dee.close()
        finally:
            night.ending = True  # its loop ends within a second (as at the evening's end)
            await asyncio.wait_for(host, TIMEOUT)
            await ann.session.close()
