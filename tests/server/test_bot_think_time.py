"""The server bounds its thinking bots by the clock: ``ServerConfig.bot_think_time`` reaches the
strategy of every bot seat, together with a clock."""

from __future__ import annotations

import time

from engine.bots.search import SearchStrategy
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
