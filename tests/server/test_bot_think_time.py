"""The server bounds its thinking bots by the clock: ``ServerConfig.bot_think_time`` reaches the
strategy of every bot seat, together with a clock."""

from __future__ import annotations

import argparse
import time

import pytest

from client.cli import main
from engine.bots.search import SearchStrategy
from server import cli
from server.app import ServerConfig
from server.lobby import Lobby
from server.store import Store
from tests.server.support import Sink, seated_table


def test_server_bots_get_the_clock_and_the_configured_think_time() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, default_bot="search", bot_think_time=0.05)
    lobby = Lobby(config, Store(None))
    table = seated_table(lobby, [Sink(f"p{i}") for i in range(5)])
    strategy = table._strategy_for(1)
    assert isinstance(strategy, SearchStrategy)
    assert strategy.clock is time.monotonic
    assert strategy.think_time == 0.05


def test_the_default_think_time_is_half_a_second() -> None:
    assert ServerConfig().bot_think_time == 0.5
    lobby = Lobby(ServerConfig(host="127.0.0.1", port=0, default_bot="hard"), Store(None))
    table = seated_table(lobby, [Sink(f"p{i}") for i in range(5)])
    strategy = table._strategy_for(2)
    assert isinstance(strategy, SearchStrategy) and strategy.think_time == 0.5


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
