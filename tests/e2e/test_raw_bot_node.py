"""examples/raw_bot.mjs, the Node.js bot written from PROTOCOL.md alone (its msgpack codec by hand),
plays real matches against the real server on 127.0.0.1, port 0, and takes its seat back with its
token when the server restarts under it. Skipped where ``node`` is not installed."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import pytest

from server.app import Server
from tests.server.support import disk_config, running_server

NODE = shutil.which("node")
RAW_BOT = Path(__file__).resolve().parents[2] / "examples" / "raw_bot.mjs"
TIMEOUT = 15.0
RESULT = re.compile(
    r"^match over at (t\d+): (\d+) hands, seat (\d), score [-+]\d+, place \d of 5, "
    r"totals (\[[-\d,]+\]), (\d+) decisions, (\d+) reconnects$"
)

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


async def start_bot(port: int, *args: str) -> asyncio.subprocess.Process:
    """``node examples/raw_bot.mjs --port PORT ARGS``, its stdout and stderr piped."""
    assert NODE is not None
    return await asyncio.create_subprocess_exec(
        NODE,
        str(RAW_BOT),
        "--port",
        str(port),
        "--timeout",
        str(TIMEOUT),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def result(out: bytes, err: bytes) -> re.Match[str]:
    """The bot's one stdout line, parsed; fails with everything it printed."""
    text = out.decode()
    lines = text.splitlines()
    match = RESULT.match(lines[0]) if len(lines) == 1 else None
    assert match, text + err.decode()[-4000:]
    return match


async def test_node_bot_creates_a_table_fills_it_and_plays_the_match() -> None:
    async with running_server(bot_delay=0.0, default_bot="random") as server:
        bot = await start_bot(server.port, "--hands", "2")
        out, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
        assert bot.returncode == 0, out + err
        line = result(out, err)
        table, hands, totals = line[1], int(line[2]), json.loads(line[4])
        assert hands == 2 and line[3] == "0" and int(line[5]) > 0
        # What the bot printed is what the server stored.
        assert server.store is not None
        assert len(server.store.hand_records(table)) == 2
        assert [r["total"] for r in server.store.results(table)] == totals


async def test_node_bot_takes_its_seat_back_after_a_server_restart(tmp_path: Path) -> None:
    # The bot prints every frame with --verbose: once it has answered a prompt, the server stops
    # (its clients get server_shutdown) and a new one on the same port and database restores the
    # table. The bot says hello with its token and plays the match out: one reconnect.
    config = disk_config(tmp_path / "db.sqlite", bot_delay=0.02)
    server = Server(config)
    await server.start()
    bot = await start_bot(server.port, "--hands", "1", "--verbose")
    assert bot.stderr is not None
    seen = b""
    try:
        while b'> {"type":"action"' not in seen:
            line = await asyncio.wait_for(bot.stderr.readline(), TIMEOUT)
            assert line, seen.decode()[-4000:]
            seen += line
        port = server.port
        await server.stop()
        server = Server(disk_config(tmp_path / "db.sqlite", bot_delay=0.02, port=port))
        await server.start()
        out, err = await asyncio.wait_for(bot.communicate(), TIMEOUT)
        err = seen + err
        assert bot.returncode == 0, out + err
        line = result(out, err)
        assert line[2] == "1" and line[6] == "1", line[0]
        assert b'"code":"server_shutdown"' in err
        assert re.search(rb'"type":"hello".*"token":"', err), err.decode()[-4000:]
        assert server.store is not None
        assert [r["total"] for r in server.store.results(line[1])] == json.loads(line[4])
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
        await server.stop()
