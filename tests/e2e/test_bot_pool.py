"""Server bots think in worker processes (server.bots.pool): whole matches, a strategy that hangs,
raises or takes its process down, a worker killed from outside, and the bots-per-address cap."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from server.app import Server
from tests.server.odd_strategies import MARK_VARIABLE, MODULE
from tests.server.support import Raw, disk_config, raw_bot_table, raw_play, running_server


async def bot_match(server: Server, strategies: list[str], hands: int = 1) -> Raw:
    """A host over a real socket with four server bots of ``strategies``; the match started."""
    host = await Raw.open(server.port)
    await host.hello("Host")
    reply = await host.request("create_table", name="pool", hands=hands)
    assert reply["type"] == "ok", reply
    for strategy in strategies:
        added = await host.request("add_bot", strategy=strategy)
        assert added["type"] == "ok", added
    started = await host.request("start")
    assert started["type"] == "ok", started
    return host


async def test_the_pool_plays_whole_matches() -> None:
    async with running_server(bot_workers=1) as server:
        pool = server.lobby.bots
        host = await bot_match(server, ["heuristic", "heuristic", "random", "search"], hands=2)
        over = await asyncio.wait_for(raw_play(host), 60)
        assert over["hands"] == 2 and sum(over["totals"]) == 0
        pids = pool.worker_pids()
        assert len(pids) == 1 and os.getpid() not in pids  # they thought in another process
        assert pool.decisions >= 2 * 4 * 6  # each bot plays six cards a hand, at least
        assert pool.failures == {"timeout": 0, "died": 0, "raised": 0}
        await host.close()
    assert pool.worker_pids() == []  # stopping the server stopped its worker


async def test_a_hanging_strategy_is_cut_off_at_the_budget() -> None:
    async with running_server(bot_workers=1, bot_timeout=0.5, bot_modules=(MODULE,)) as server:
        pool = server.lobby.bots
        host = await bot_match(server, ["odd_hangs", "random", "random", "random"])
        started = time.monotonic()
        # raw_play waits at most 5 s for each message: the table never stalls that long.
        over = await asyncio.wait_for(raw_play(host), 30)
        assert over["hands"] == 1 and sum(over["totals"]) == 0
        assert pool.failures["timeout"] >= 1 and pool.failures["died"] == 0
        assert time.monotonic() - started >= 0.5 * pool.failures["timeout"]
        assert len(pool.worker_pids()) == 1  # the hung worker was replaced
        await host.close()


async def test_a_raising_strategy_or_a_dying_worker_does_not_stop_the_table() -> None:
    async with running_server(bot_workers=1, bot_modules=(MODULE,)) as server:
        pool = server.lobby.bots
        host = await bot_match(server, ["odd_raises", "odd_exits", "random", "odd_raises"])
        over = await asyncio.wait_for(raw_play(host), 30)
        assert over["hands"] == 1 and sum(over["totals"]) == 0
        assert pool.failures["raised"] >= 2 and pool.failures["died"] >= 1
        assert pool.failures["timeout"] == 0
        # After the match, the table still answers and a new worker serves the next bots.
        assert (await host.request("ping"))["type"] == "ok"
        await host.close()


async def test_a_killed_worker_is_replaced_and_the_table_moves_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "thinking"
    monkeypatch.setenv(MARK_VARIABLE, str(mark))  # the workers inherit it
    async with running_server(bot_workers=1, bot_timeout=60, bot_modules=(MODULE,)) as server:
        pool = server.lobby.bots
        host = await bot_match(server, ["odd_sleeps", "random", "random", "random"])
        playing = asyncio.create_task(raw_play(host))
        for _ in range(200):
            if mark.exists() and mark.read_text():
                break
            await asyncio.sleep(0.05)
        thinking = int(mark.read_text())
        assert thinking in pool.worker_pids()
        os.kill(thinking, signal.SIGKILL)
        killed = time.monotonic()
        # Far sooner than the 60 s budget: the death is noticed, not waited out.
        over = await asyncio.wait_for(playing, 20)
        assert time.monotonic() - killed < 20
        assert over["hands"] == 1
        assert pool.failures == {"timeout": 0, "died": 1, "raised": 0}
        assert thinking not in pool.worker_pids()
        await host.close()


async def test_server_bots_per_address_are_capped() -> None:
    async with running_server(max_bots_per_address=5) as server:
        first = await Raw.open(server.port)
        await first.hello("First")
        await raw_bot_table(first, name="one")
        second = await Raw.open(server.port)  # another connection from the same address
        await second.hello("Second")
        await second.request("create_table", name="two", hands=1)
        assert (await second.request("add_bot", strategy="random"))["type"] == "ok"
        refused = await second.request("add_bot", strategy="random")
        assert refused["type"] == "error" and refused["code"] == "too_many_bots"
        assert refused["id"] == second.ids and "5" in refused["message"]
        summary = (await second.request("list_tables"))["tables"]
        assert sorted(sum(s["kind"] == "bot" for s in t["seats"]) for t in summary) == [1, 4]
        # A bot taken out frees a place; another address has its own allowance.
        assert (await first.request("remove_bot", seat=4))["type"] == "ok"
        assert (await second.request("add_bot", strategy="random"))["type"] == "ok"
        other = await Raw.open(server.port, source="127.0.0.2")
        await other.hello("Elsewhere")
        await raw_bot_table(other, name="three")
        for raw in (first, second, other):
            await raw.close()


async def test_the_bot_cap_still_counts_a_restored_tables_bots(tmp_path: Path) -> None:
    """The address that seated a server bot is stored with it, so a restart does not hand
    that address a fresh allowance of bots."""
    db = tmp_path / "bots.db"
    server = Server(disk_config(db, max_bots_per_address=5))
    await server.start()
    host = await Raw.open(server.port, source="127.0.0.7")
    await host.hello("Host")
    await raw_bot_table(host, name="before")
    await host.close()
    await server.stop()

    again = Server(disk_config(db, max_bots_per_address=5))
    await again.start()
    try:
        listed = await Raw.open(again.port, source="127.0.0.8")
        await listed.hello("Look")
        [table] = (await listed.request("list_tables"))["tables"]
        assert sum(s["kind"] == "bot" for s in table["seats"]) == 4  # restored
        host = await Raw.open(again.port, source="127.0.0.7")
        await host.hello("Host")
        await host.request("create_table", name="after", hands=1)
        assert (await host.request("add_bot", strategy="random"))["type"] == "ok"
        refused = await host.request("add_bot", strategy="random")
        assert (refused["type"], refused["code"]) == ("error", "too_many_bots")
        for raw in (listed, host):
            await raw.close()
    finally:
        await again.stop()
