"""``sheepshead bot`` against the real server on 127.0.0.1 (port 0), real sockets and codec."""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
from pathlib import Path
from typing import Any

from client.bot_runner import EXIT_FELL_BACK, BotConfig, run_bot
from client.cli import main
from engine.record import replay_record
from engine.rules import RuleSet
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


FAILING_STRATEGY = """
class Failing:
    name = "failing"

    def __init__(self, seed=None):
        self.calls = 0

    def choose(self, view, legal):
        self.calls += 1
        if self.calls == 2:
            raise KeyError("no such thing")
        return {k: v for k, v in legal[0].items() if k != "seat"}
"""


async def test_a_failing_strategy_is_reported_with_its_line_and_exits_3(tmp_path: Path) -> None:
    strategy = tmp_path / "failing.py"
    strategy.write_text(FAILING_STRATEGY)
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out = io.StringIO()
        config = BotConfig(
            "127.0.0.1", server.port, strategy=str(strategy), create=True, hands=1, verbose=True
        )
        status = await asyncio.wait_for(run_bot(config, out), TIMEOUT)
    text = out.getvalue()
    assert status == EXIT_FELL_BACK, text
    assert f"strategy failed at {strategy}:11: KeyError: 'no such thing'; playing " in text
    assert "the strategy failed in 1 decision; the first legal action was played" in text
    decisions = re.findall(
        r"^decision (\d+): phase (\w+); hand ([\w ]*); legal (.*); chose (.*)$", text, re.M
    )
    assert [int(d[0]) for d in decisions] == list(range(1, len(decisions) + 1))
    assert len(decisions) >= 6 and all(d[4] in d[3].split(", ") for d in decisions)


def _sorted_bury(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**a, "cards": sorted(a["cards"])} if "cards" in a else a for a in actions]


async def test_saved_hands_replay_as_the_server_recorded_them(tmp_path: Path) -> None:
    saved = tmp_path / "hands"
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out = io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy="random",
            create=True,
            hands=2,
            preset="wisconsin",
            options={"no_pick": "doubler"},
            save_hands=str(saved),
        )
        assert await asyncio.wait_for(run_bot(config, out), TIMEOUT) == 0, out.getvalue()
        assert server.store is not None
        stored = server.store.hand_records("t1")
    files = sorted(saved.iterdir())
    assert [f.name for f in files] == ["t1-hand0001.json", "t1-hand0002.json"]
    for path, server_record in zip(files, stored, strict=True):
        record = json.loads(path.read_text())
        # Another seat's bury is filled in from the reveal, in display order.
        assert _sorted_bury(record["actions"]) == _sorted_bury(server_record["actions"])
        ours, theirs = record["deal"], server_record["deal"]
        assert [set(h) for h in ours["hands"]] == [set(h) for h in theirs["hands"]]
        assert set(ours["blind"]) == set(theirs["blind"])
        assert RuleSet.from_dict(record["rules"]) == RuleSet.from_dict(server_record["rules"])
        assert RuleSet.from_dict(record["rules"]).no_pick == "doubler"
        assert replay_record(record)["payouts"] == record["payouts"]
        assert record["players"][0] == "random bot"


async def test_create_with_two_seats_left_for_other_bots_and_start(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        host_out, guest_out, guest2_out = io.StringIO(), io.StringIO(), io.StringIO()
        host = BotConfig(
            "127.0.0.1", server.port, strategy="heuristic", name="host", create=True,
            hands=1, bots=2, start=True, turn_timer=30.0,
        )  # fmt: skip
        host_task = asyncio.create_task(run_bot(host, host_out))
        while "waiting for 2 more players" not in host_out.getvalue():
            await asyncio.sleep(0.02)
        assert "--table t1" in host_out.getvalue()
        guests = [
            asyncio.create_task(
                run_bot(BotConfig("127.0.0.1", server.port, "random", name=f"g{i}", table="t1"), o)
            )
            for i, o in enumerate((guest_out, guest2_out))
        ]
        statuses = await asyncio.wait_for(asyncio.gather(host_task, *guests), TIMEOUT)
        assert server.store is not None
        results = server.store.results("t1")
    assert statuses == [0, 0, 0], host_out.getvalue()
    assert "all seats taken: match started" in host_out.getvalue()
    # The host's bot at seat 0, two server bots, then the two bots that joined.
    assert results[0]["name"] == "host"
    assert sorted(r["name"] for r in results[3:]) == ["g0", "g1"]
    assert sum(r["kind"] == "bot" for r in results) == 2


def test_command_line_checks_the_create_options(capsys: Any) -> None:
    assert main(["bot", "127.0.0.1:1", "--create", "--bots", "5"]) == 2
    assert "--bots must be from 0 to 4" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--bots", "2"]) == 2
    assert "add --start" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--table", "t1", "--rule", "no_pick=doubler"]) == 2
    assert "--rule only applies with --create" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--rule", "no_pick=never"]) == 2
    assert "no_pick" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--turn-timer", "0"]) == 2
    assert "--turn-timer" in capsys.readouterr().err
