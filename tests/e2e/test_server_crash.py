"""``sheepshead serve`` is killed with SIGKILL mid-hand and restarted on the same database.

Nothing may be lost: the table, the seats and the hand in progress come back, the players'
sessions reconnect by themselves with their tokens, and the hand finishes exactly as an
uninterrupted replay of the same seed and the same choices does.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sqlite3
import sys
from pathlib import Path

from engine.fairdeal import check_record
from engine.match import Match
from engine.record import export_record
from engine.rules import RuleSet
from server.app import Server, ServerConfig
from server.tables.commitments import Commitment, DealSeeds
from tests.server.support import (
    BUILD,
    Raw,
    drive,
    full_table,
    next_event,
    served_env,
    session,
)

ROOT = Path(__file__).resolve().parents[2]


class Served:
    """A ``sheepshead serve`` subprocess."""

    def __init__(self, proc: asyncio.subprocess.Process, port: int, banner: str) -> None:
        self.proc = proc
        self.port = port
        self.banner = banner

    @classmethod
    async def start(
        cls,
        db: Path,
        port: int = 0,
        hand_pause: float = 0.0,
        trick_pause: float | None = None,
        extra: tuple[str, ...] = (),
    ) -> Served:
        """Start it on ``db`` (``trick_pause`` None: the server's default; ``extra``: more
        options) and wait for its banner."""
        pauses = [] if trick_pause is None else ["--trick-pause", str(trick_pause)]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            str(db),
            "--bot-delay",
            "0",
            "--hand-pause",
            str(hand_pause),
            *pauses,
            *extra,
            "--log-level",
            "warning",
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
            env=served_env(),
        )
        assert proc.stdout is not None
        banner = ""
        while "Ctrl+C" not in banner:
            line = await asyncio.wait_for(proc.stdout.readline(), 15)
            assert line, "the server exited before listening"
            banner += line.decode()
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", banner)
        assert found, banner
        assert f"server code: {BUILD}" in banner, banner
        return cls(proc, int(found.group(1)), banner)

    async def kill(self) -> None:
        """SIGKILL: no clean shutdown, no flush, nothing."""
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def terminate(self) -> str:
        """SIGTERM: the clean shutdown; returns the rest of stdout."""
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.stdout is not None
        rest = await asyncio.wait_for(self.proc.stdout.read(), 10)
        await asyncio.wait_for(self.proc.wait(), 10)
        return rest.decode()


async def serve_and_fail(db: Path) -> tuple[int | None, str]:
    """``sheepshead serve`` on ``db`` when it must not start: its exit code and stderr."""
    refused = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        "serve",
        "--port",
        "0",
        "--db",
        str(db),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=served_env(),
    )
    _, err = await asyncio.wait_for(refused.communicate(), 30)
    return refused.returncode, err.decode()


def stored_match(db: Path, table: str) -> tuple[int, int, DealSeeds]:
    with sqlite3.connect(db) as conn:
        seed, dealer = conn.execute(
            "SELECT seed, first_dealer FROM tables WHERE id = ?", (int(table[1:]),)
        ).fetchone()
        (seeds,) = conn.execute(
            "SELECT data FROM deal_seeds WHERE table_id = ?", (int(table[1:]),)
        ).fetchone()
    deal_seeds = DealSeeds([Commitment.from_dict(c) for c in json.loads(seeds)])
    return int(seed), int(dealer), deal_seeds


async def test_kill_9_mid_hand_then_restart_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    served = await Served.start(db)
    assert f"database: {db}" in served.banner
    port = served.port

    players = [session(port, f"K{i}", tmp_path) for i in range(5)]
    table = await full_table(players, hands=1)
    await players[0].request("start")
    _, prompt = await drive(
        players, 0, lambda s, p, v: len(v["tricks"]) >= 1 and len(v["trick"]["cards"]) == 2
    )
    before = [p.last_state for p in players]
    assert all(b is not None for b in before)
    for p in players:
        while not p.events.empty():
            p.events.get_nowait()

    await served.kill()
    for p in players:
        await next_event(p, "connection", status="reconnecting")

    served = await Served.start(db, port)
    for i, p in enumerate(players):
        snapshot = await next_event(p, "state", timeout=10)
        assert p.status == "connected" and p.seat == i
        old = before[i]["view"]  # type: ignore[index]
        assert snapshot["view"]["hand"] == old["hand"]
        assert snapshot["view"]["tricks"] == old["tricks"]
        assert snapshot["view"]["trick"] == old["trick"]
        assert snapshot["totals"] == [0] * 5 and snapshot["seq"] > prompt["seq"]

    finish = asyncio.create_task(drive(players, prompt["seq"], lambda s, p, v: False))
    over = await next_event(players[0], "hand_over", timeout=10)
    final = await next_event(players[0], "match_over", timeout=10)
    finish.cancel()

    # The same seed and the same choices, uninterrupted, in the engine alone.
    seed, dealer, deal_seeds = stored_match(db, table)
    match = Match(
        RuleSet(), seed=seed, hand_limit=1, first_dealer=dealer, deal_seed=deal_seeds.seed_for
    )
    while not match.hand.is_over:
        match.apply(match.hand.legal_actions()[0])
    assert over["result"] == match.hand.result().breakdown()
    assert final["totals"] == match.totals
    with sqlite3.connect(db) as conn:
        (record,) = conn.execute("SELECT record FROM hands").fetchone()
        totals = [t for (t,) in conn.execute("SELECT total FROM results ORDER BY seat")]
    stored = json.loads(record)
    assert check_record(stored).ok  # the commit-reveal seeds came through the restart
    del stored["fair"]
    assert stored.pop("strategies") == [None] * 5  # five people: no server bot's strategy
    assert stored == export_record(match.hand)
    assert totals == match.totals

    for p in players:
        await p.close()
    rest = await served.terminate()
    assert served.proc.returncode == 0 and "server stopped" in rest


async def test_clean_restart_brings_back_waiting_and_playing_tables(tmp_path: Path) -> None:
    db = tmp_path / "clean.db"
    server = Server(ServerConfig(port=0, db_path=db, hand_pause=0.0))
    await server.start()
    host = session(server, "Host", tmp_path, reconnect=False)
    await host.connect()
    playing = await host.request("create_table", name="playing", hands=2, password="pw")
    for _ in range(4):
        await host.request("add_bot", strategy="random")
    await host.request("start")
    while True:  # finish hand 0, then stop at the first prompt of hand 1
        msg = await asyncio.wait_for(host.events.get(), 10)
        if msg["type"] == "hand_over":
            totals = msg["totals"]
        if msg["type"] == "your_turn":
            if host.last_state and host.last_state["hand"] == 1:
                break
            await host.act(msg["legal"][0], seq=msg["seq"])
    other = session(server, "Other", tmp_path, reconnect=False)
    await other.connect()
    waiting = await other.request("create_table", name="waiting", hands=None)
    await other.request("add_bot", seat=3, strategy="random")
    await server.stop()
    await host.close()
    await other.close()

    server = Server(ServerConfig(port=0, db_path=db, hand_pause=0.0))
    await server.start()
    assert server.restored == 2
    raw = await Raw.open(server.port)
    welcome = await raw.hello("Host", token=playing["token"])
    assert (welcome["table"], welcome["seat"]) == (playing["table"], 0)
    snapshot = await raw.expect("state")
    prompt = await raw.expect("your_turn")
    assert snapshot["hand"] == 1 and snapshot["totals"] == totals
    assert snapshot["info"]["password"] is True and snapshot["info"]["hands_played"] == 1
    assert prompt["seq"] == snapshot["seq"]
    reply = await raw.request("action", seq=prompt["seq"], action=prompt["legal"][0])
    assert reply["type"] == "ok"
    tables = (await raw.request("list_tables"))["tables"]
    [info] = [t for t in tables if t["id"] == waiting["table"]]
    assert info["state"] == "waiting" and info["host"] == "Other"
    assert [s["kind"] for s in info["seats"]] == ["human", "empty", "empty", "bot", "empty"]
    assert info["seats"][0]["connected"] is False
    await raw.close()
    await server.stop()


async def test_a_second_server_on_the_same_database_is_refused_until_the_first_dies(
    tmp_path: Path,
) -> None:
    """Both would restore the same matches and append to them. A killed server holds
    nothing: the kernel drops its lock."""
    db = tmp_path / "one.db"
    first = await Served.start(db)
    try:
        returncode, message = await serve_and_fail(db)
        assert returncode == 1
        assert "in use by another sheepshead server" in message, message
        assert f"(process {first.proc.pid})" in message and str(db) in message
    finally:
        await first.kill()
    again = await Served.start(db)
    await again.terminate()
