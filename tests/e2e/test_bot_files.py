"""Strategy files as server bots (client/bot_files.py): ``sheepshead serve --bot-file`` and
``sheepshead play --bots FILE.py`` register them, and the server's bot worker processes play
them."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from client import bot_files
from client import play as play_command
from client.cli import main
from engine.bots.base import STRATEGIES
from server.app import Server
from tests.client.test_e2e import local_game
from tests.e2e.test_bot_pool import bot_match
from tests.server.support import raw_play, running_server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "my_strategy.py")


@pytest.fixture(autouse=True)
def _forget_files(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The registrations and the variable the workers read are this process's: undone after.
    monkeypatch.setenv(bot_files.ENVIRONMENT, "")
    yield
    for name in bot_files._REGISTERED.values():
        STRATEGIES.pop(name, None)
    bot_files._REGISTERED.clear()


async def test_a_strategy_file_plays_as_server_bots_in_the_worker_processes() -> None:
    names = bot_files.register_files([EXAMPLE])
    assert names == ["my-strategy"]
    async with running_server(bot_workers=1, bot_modules=(bot_files.MODULE,)) as server:
        pool = server.lobby.bots
        host = await bot_match(server, ["my-strategy"] * 4)
        over = await asyncio.wait_for(raw_play(host), 60)
        assert over["hands"] == 1 and sum(over["totals"]) == 0
        assert pool.decisions >= 4 * 6
        assert pool.failures == {"timeout": 0, "died": 0, "raised": 0}
        await host.close()


def test_serve_takes_bot_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[tuple[str, ...], bool]] = []

    async def start_then_stop(self: Server) -> None:
        seen.append((self.config.bot_modules, "my-strategy" in STRATEGIES))
        raise RuntimeError("stopped by the test")

    monkeypatch.setattr(Server, "start", start_then_stop)
    db = str(tmp_path / "s.db")
    args = ["serve", "--port", "0", "--db", db, "--log-level", "error"]
    assert main([*args, "--bot-file", EXAMPLE]) == 1
    assert seen == [((bot_files.MODULE,), True)]
    assert main([*args, "--bot-file", str(tmp_path / "missing.py")]) == 2
    assert "--bot-file: no such strategy file" in capsys.readouterr().err
    assert main([*args, "--bot-file", "heuristic"]) == 2
    assert "not a .py file" in capsys.readouterr().err


async def test_play_seats_four_bots_of_a_strategy_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))
    args = argparse.Namespace(
        bots=EXAMPLE,
        preset="wisconsin",
        hands=1,
        bot_delay=0.0,
        memory=True,
        new=False,
    )
    bad = argparse.Namespace(**{**vars(args), "bots": str(tmp_path / "missing.py")})
    assert "no such strategy file" in (play_command.resolve_bots(bad) or "")
    assert play_command.resolve_bots(args) is None
    assert args.bots == "my-strategy" and args.bot_modules == (bot_files.MODULE,)
    async with local_game(args) as (server, _session):
        (table,) = server.lobby.tables.values()
        assert [s.strategy_name for s in table.seats][1:] == ["my-strategy"] * 4
        assert server.config.bot_modules == (bot_files.MODULE,)
