"""examples/raw_bot.mjs, the Node.js bot written from PROTOCOL.md alone (its msgpack codec by hand),
plays real matches against the real server on 127.0.0.1, port 0, takes its seat back with its
token when the server restarts under it, and ends cleanly when the match ended while it was away.
Skipped where ``node`` is not installed."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

import pytest

from server.app import Server
from tests.server.support import Raw, disk_config, running_server

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
        final = result(out, err)
        table, hands, totals = final[1], int(final[2]), json.loads(final[4])
        assert hands == 2 and final[3] == "0" and int(final[5]) > 0
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
        final = result(out, err)
        assert final[2] == "1" and final[6] == "1", final[0]
        assert b'"code":"server_shutdown"' in err
        assert re.search(rb'"type":"hello".*"token":"', err), err.decode()[-4000:]
        assert server.store is not None
        assert [r["total"] for r in server.store.results(final[1])] == json.loads(final[4])
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
        await server.stop()


async def test_node_bot_back_after_its_match_ended_reads_the_end_from_the_snapshot() -> None:
    # The bot opens a one-hand table with one seat for a player and no grace (a stand-in plays an
    # absent seat at once), drops its connection after its first decision and dials again
    # three seconds later. The match ends meanwhile: no match_over is sent again, and the bot
    # must read the end from its snapshot's summary (state "over", PROTOCOL.md §12 step 5).
    async with running_server(bot_delay=0.0, default_bot="random") as server:
        bot = await start_bot(
            server.port,
            *("--hands", "1", "--open", "1", "--grace", "0", "--verbose"),
            *("--drop-after", "1", "--away", "3"),  # the match ends well within it, loaded or not
        )
        assert bot.stderr is not None
        seen = b""
        while b"waits for 1 player" not in seen:
            line = await asyncio.wait_for(bot.stderr.readline(), TIMEOUT)
            assert line, seen.decode()[-4000:]
            seen += line
        output = asyncio.create_task(bot.communicate())  # keep reading: a full pipe blocks node
        player = await Raw.open(server.port)
        await player.hello("Py")
        joined = await player.request("join", table="t1")
        assert joined["type"] == "ok", joined
        while (msg := await player.recv()).get("type") != "match_over":
            if msg["type"] == "your_turn":
                await player.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
            elif msg["type"] == "error":
                # A prompt re-sent when the bot's connection dropped crossed our answer.
                assert msg["code"] in ("stale", "not_your_turn"), msg
        out, err = await asyncio.wait_for(output, TIMEOUT)
        err = seen + err
        assert bot.returncode == 0, out + err
        final = result(out, err)
        assert final[2] == "1" and final[5] == "1" and final[6] == "1", final[0]
        assert json.loads(final[4]) == msg["totals"]
        assert b'"type":"match_over"' not in err, "the bot came back before the match ended"
        await player.close()
