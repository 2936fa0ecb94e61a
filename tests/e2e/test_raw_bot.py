"""examples/raw_bot.py, the standard-library bot written from PROTOCOL.md, plays real matches.

The bot runs as a separate program (``sys.executable``) against the real server on 127.0.0.1,
port 0, so the example keeps working as the protocol documentation it claims to be.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from pathlib import Path
from typing import Any

from tests.server.support import next_event, play_until, running_server, session

RAW_BOT = Path(__file__).resolve().parents[2] / "examples" / "raw_bot.py"
TIMEOUT = 15.0
HAND_LINE = re.compile(r"^hand (\d+): .*; payouts \[([-\d, ]+)\]; totals \[([-\d, ]+)\]$")
FINAL_LINE = re.compile(r"^match over after (\d+) hands: totals \[([-\d, ]+)\]$")


def ints(text: str) -> list[int]:
    """``"1, -2, 3"`` as a list of ints."""
    return [int(x) for x in text.split(",")]


async def run_raw_bot(*args: str) -> tuple[asyncio.subprocess.Process, asyncio.Task[bytes]]:
    """Start the raw bot; returns the process and a task collecting its stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(RAW_BOT),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None

    async def collect() -> bytes:
        out, err = await proc.communicate()
        return out + b"\n--- stderr ---\n" + err

    return proc, asyncio.create_task(collect())


def check_output(text: str, hands: int) -> list[int]:
    """The bot reported ``hands`` hands whose payouts add up to final totals summing to zero."""
    lines = text.split("\n--- stderr ---\n")[0].splitlines()
    hand_lines = [m for m in map(HAND_LINE.match, lines) if m]
    finals = [m for m in map(FINAL_LINE.match, lines) if m]
    assert [int(m[1]) for m in hand_lines] == list(range(1, hands + 1)), text
    assert len(finals) == 1, text
    assert int(finals[0][1]) == hands
    totals = ints(finals[0][2])
    assert len(totals) == 5 and sum(totals) == 0
    running = [0] * 5
    for m in hand_lines:
        running = [a + b for a, b in zip(running, ints(m[2]), strict=True)]
        assert ints(m[3]) == running
    assert running == totals
    return totals


async def test_raw_bot_creates_a_table_and_plays_the_match() -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        proc, output = await run_raw_bot("--create", "--hands", "2", "127.0.0.1", str(server.port))
        text = (await asyncio.wait_for(output, TIMEOUT)).decode()
        assert proc.returncode == 0, text
        totals = check_output(text, hands=2)
        seated = re.search(r"^seated at table (\S+), seat 0$", text, re.MULTILINE)
        assert seated, text
        # What the bot printed is what the server stored.
        assert server.store is not None
        assert len(server.store.hand_records(seated[1])) == 2
        assert [r["total"] for r in server.store.results(seated[1])] == totals
        assert "server error" not in text


async def test_raw_bot_plays_a_whole_match_with_cracking_and_blitzing() -> None:
    # The tavern preset (docs/rules.md, "Cracking and blitzing"): the bot answers blitz, crack and
    # re-crack prompts from the legal lists alone. Random bots pass often, so enough hands reach a
    # crack round. With no bot delay a dozen hands take well under a second: lift the per-connection
    # rate limit, which a bot at a person's pace never meets.
    fast = {"rate": 1000.0, "burst": 1000.0}
    async with running_server(
        bot_delay=0.0, hand_pause=0.0, default_bot="random", **fast
    ) as server:
        proc, output = await run_raw_bot(
            "--create", "--hands", "12", "--preset", "tavern", "127.0.0.1", str(server.port)
        )
        text = (await asyncio.wait_for(output, 4 * TIMEOUT)).decode()
        assert proc.returncode == 0, text
        totals = check_output(text, hands=12)
        seated = re.search(r"^seated at table (\S+), seat 0$", text, re.MULTILINE)
        assert seated, text
        assert server.store is not None
        records = server.store.hand_records(seated[1])
        assert all(r["rules"] == {"preset": "tavern"} for r in records)
        kinds = {a["action"] for r in records for a in r["actions"]}
        assert "no_crack" in kinds or "crack" in kinds, kinds
        assert [r["total"] for r in server.store.results(seated[1])] == totals


async def test_raw_bot_joins_a_table_a_session_host_opened(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        created = await host.request("create_table", name="mixed", hands=2)
        table = created["table"]
        for _ in range(3):
            await host.request("add_bot", seat=None, strategy="random")
        proc, output = await run_raw_bot("--table", table, "127.0.0.1", str(server.port))

        # The raw bot takes the last free seat; the host sees it arrive, then starts.
        def seat4(state: dict[str, Any]) -> Any:
            # A state leaves out a summary that has not changed since the last one.
            return state["info"]["seats"][4] if "info" in state else {"kind": "empty"}

        while True:
            state = await next_event(host, "state", timeout=TIMEOUT)
            if seat4(state)["kind"] != "empty":
                break
        assert seat4(state) == {**seat4(state), "name": "Raw bot", "kind": "bot", "remote": True}
        await host.request("start")
        final = await play_until(host, "match_over", [], random.Random(1), timeout=TIMEOUT)

        text = (await asyncio.wait_for(output, TIMEOUT)).decode()
        assert proc.returncode == 0, text
        assert f"seated at table {table}, seat 4" in text
        assert check_output(text, hands=2) == final["totals"]
        await host.close()


async def test_raw_bot_takes_over_a_seat_in_a_running_match(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        table = (await host.request("create_table", name="running", hands=2))["table"]
        for _ in range(4):
            await host.request("add_bot", seat=None, strategy="random")
        await host.request("start")
        # Seat 2 is emptied mid-match (a stand-in plays it) and the raw bot takes it over. The
        # host does not act until then, so the first hand cannot finish without the raw bot.
        await host.request("remove_bot", seat=2)
        proc, output = await run_raw_bot("--table", table, "127.0.0.1", str(server.port))
        while True:
            state = await next_event(host, "state", timeout=TIMEOUT)
            if "info" in state and state["info"]["seats"][2]["remote"]:
                break
        assert state["hand"] == 0 and state["info"]["state"] == "playing"
        final = await play_until(host, "match_over", [], random.Random(2), timeout=TIMEOUT)

        text = (await asyncio.wait_for(output, TIMEOUT)).decode()
        assert proc.returncode == 0, text
        assert f"seated at table {table}, seat 2" in text
        assert check_output(text, hands=2) == final["totals"]
        await host.close()
