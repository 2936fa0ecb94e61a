"""The server bounds its thinking bots by the clock: ``ServerConfig.bot_think_time`` reaches the
strategy of every bot seat, together with a clock."""

from __future__ import annotations

import argparse
import time
from typing import Any

import pytest

from client.cli import main
from engine.bots.search import SearchStrategy
from server import cli
from server.app import ServerConfig
from server.bots.worker import strategy_for
from tests.server.support import Raw, raw_bot_table, raw_play, running_server


def test_a_bot_worker_gives_thinking_strategies_the_clock_and_the_think_time() -> None:
    request = {"strategy": "search", "seed": 1, "think_time": 0.05}
    strategy = strategy_for(request)
    assert isinstance(strategy, SearchStrategy)
    assert strategy.clock is time.monotonic
    assert strategy.think_time == 0.05
    # Without a think time (a count-bounded run) no clock goes in.
    assert strategy_for({"strategy": "search", "seed": 1}).clock is None


async def test_the_table_asks_its_bots_with_the_configured_think_time() -> None:
    asked: list[float | None] = []
    async with running_server(bot_think_time=0.05, default_bot="random") as server:
        pool = server.lobby.bots
        choose = pool.choose

        async def recording(*args: Any, **kwargs: Any) -> Any:
            asked.append(kwargs.get("think_time"))
            return await choose(*args, **kwargs)

        pool.choose = recording  # type: ignore[method-assign]
        s = await Raw.open(server.port)
        await s.hello("Ann")
        await raw_bot_table(s)
        await s.request("start")
        await raw_play(s)  # one hand: the bots decide through the pool
        await s.close()
    assert set(asked) == {0.05}
    assert ServerConfig().bot_think_time == 0.5


def test_serve_and_bot_take_the_think_time(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    cli.configure(parser, "serve")
    assert parser.parse_args([]).bot_think_time == 0.5
    assert parser.parse_args(["--bot-think-time", "0.25"]).bot_think_time == 0.25
    for bad in ("0", "-1", "soon", "61"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--bot-think-time", bad])
    assert "--bot-think-time" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bot", "--help"])
    assert "--think-time" in capsys.readouterr().out
    assert main(["bot", "127.0.0.1:1", "--create", "--think-time", "0"]) == 2
    assert "--think-time" in capsys.readouterr().err
