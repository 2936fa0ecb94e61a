"""``sheepshead bot`` against the real server on 127.0.0.1 (port 0), real sockets and codec."""

from __future__ import annotations

import asyncio
import io
import random
import re
from pathlib import Path
from typing import Any

from client.bot_runner import BotConfig, run_bot
from client.cli import main
from tests.server.support import next_event, play_until, running_server, session

TIMEOUT = 30.0
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "my_strategy.py"
HAND_LINE = re.compile(r"^hand (\d+): .*; payouts \[([-\d, ]+)\]; totals \[([-\d, ]+)\]$")


def _hands_and_totals(text: str) -> tuple[list[int], list[int]]:
    hands, totals = [], []
    for line in text.splitlines():
        m = HAND_LINE.match(line)
        if m:
            hands.append(int(m[1]))
            totals = [int(x) for x in m[3].split(",")]
    return hands, totals


async def test_runner_creates_a_table_of_server_bots_and_finishes_the_match() -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out = io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy="search:samples=4:setup_samples=4",
            create=True,
            hands=2,
            server_bots="heuristic",
            seed=1,
        )
        status = await asyncio.wait_for(run_bot(config, out), TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert text.startswith("seated at table t1, seat 0 as search bot")
        hands, totals = _hands_and_totals(text)
        assert hands == [1, 2]
        assert f"match over after 2 hands: totals {totals}; this seat {totals[0]}" in text
        assert sum(totals) == 0
        assert "not legal" not in text and "refused" not in text and "failed" not in text
        assert server.store is not None
        assert [r["total"] for r in server.store.results("t1")] == totals


async def test_runner_joins_a_table_with_a_strategy_file(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        table = (await host.request("create_table", name="mixed", hands=2))["table"]
        for _ in range(3):
            await host.request("add_bot", seat=None, strategy="heuristic")
        out = io.StringIO()
        config = BotConfig("127.0.0.1", server.port, strategy=str(EXAMPLE), table=table)
        runner = asyncio.create_task(run_bot(config, out))

        def seat4(state: dict[str, Any]) -> Any:
            # A state leaves out a summary that has not changed since the last one.
            return state["info"]["seats"][4] if "info" in state else {"kind": "empty"}

        while seat4(await next_event(host, "state", timeout=TIMEOUT))["kind"] == "empty":
            pass
        await host.request("start")
        final = await play_until(host, "match_over", [], random.Random(2), timeout=TIMEOUT)
        status = await asyncio.wait_for(runner, TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert f"seated at table {table}, seat 4 as my-strategy bot" in text
        assert _hands_and_totals(text) == ([1, 2], final["totals"])
        await host.close()


async def test_runner_reports_a_missing_table() -> None:
    async with running_server() as server:
        out = io.StringIO()
        config = BotConfig("127.0.0.1", server.port, table="nope")
        assert await asyncio.wait_for(run_bot(config, out), TIMEOUT) == 2
        assert "refused by the server: no_such_table" in out.getvalue()


def test_command_line_rejects_bad_input(capsys: Any) -> None:
    assert main(["bot", "127.0.0.1:1", "--create", "--strategy", "nonsense"]) == 2
    assert "unknown strategy 'nonsense'" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:99999", "--create"]) == 2
    assert "bad port" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--table", "t1", "--strategy", "missing.py"]) == 2
    assert "no such strategy file" in capsys.readouterr().err
