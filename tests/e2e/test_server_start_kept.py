"""An accepted ``start`` or ``rematch`` survives a restart in the wait before its first deal.

The first hand waits for the seated people's client seeds (PROTOCOL.md §13, up to
``seed_wait``); a server stopped in that wait (SIGKILL, or a clean stop) once brought the table
back waiting, and its host had to start it again: the ``ok`` was lost. The start is stored with
its ``ok`` (``tables.starting``, schema 17), and the restore starts the match again with a new
commitment. Real server on 127.0.0.1, real sockets and codec."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from server.app import Server
from server.tables.commitments import Commitment
from tests.e2e.test_server_crash import Served
from tests.server.support import Raw, disk_config, raw_bot_table


def stored(db: Path, table: str) -> tuple[str, list[str]]:
    """``table``'s stored state and the commitments of its stored deal seeds."""
    with sqlite3.connect(db) as conn:
        (state,) = conn.execute(
            "SELECT state FROM tables WHERE id = ?", (int(table[1:]),)
        ).fetchone()
        found = conn.execute(
            "SELECT data FROM deal_seeds WHERE table_id = ?", (int(table[1:]),)
        ).fetchone()
    used = [Commitment.from_dict(c) for c in json.loads(found[0])] if found else []
    return state, [c.commitment for c in used]


async def started(ann: Raw, bob: Raw, request: str) -> str:
    """Ann (the host) sends ``request``; returns the commitment it published, which Bob, a
    person seated and connected, never answers: the deal waits for him."""
    assert (await ann.request_keeping(request))["type"] == "ok"
    commitment = await ann.expect("commitment")
    assert (await bob.expect("commitment"))["commitment"] == commitment["commitment"]
    return str(commitment["commitment"])


async def seat_ann_and_bob(port: int) -> tuple[Raw, Raw, dict[str, Any]]:
    """Ann hosts a table with three server bots; Bob takes its last seat."""
    ann = await Raw.open(port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=3, hands=None)
    bob = await Raw.open(port)
    await bob.hello("Bob")
    assert (await bob.request("join", table=created["table"]))["type"] == "ok"
    return ann, bob, created


@pytest.mark.parametrize("stop", ["kill", "stop"])
async def test_an_accepted_start_deals_after_a_restart(tmp_path: Path, stop: str) -> None:
    """``kill``: ``start``, then SIGKILL of ``sheepshead serve``. ``stop``: a clean stop (the
    path SIGTERM takes) after a ``rematch``, in process (cheaper than a second subprocess)."""
    db = tmp_path / "start.db"
    if stop == "kill":
        served = await Served.start(db)
        ann, bob, created = await seat_ann_and_bob(served.port)
        sent = await started(ann, bob, "start")
        await served.kill()
        assert served.proc.stdout is not None
        await served.proc.stdout.read()  # to its end: the pipe closes with this test's loop
    else:
        server = Server(disk_config(db))
        await server.start()
        ann, bob, created = await seat_ann_and_bob(server.port)
        first = await started(ann, bob, "start")
        seed = {"type": "client_seed", "commitment": first, "seed": os.urandom(32).hex()}
        for raw in (ann, bob):
            assert (await raw.request(**seed))["type"] == "ok"
        while (await ann.expect("state")).get("info", {}).get("state") != "playing":
            pass  # the first match deals once both seeds are in
        assert (await ann.request("end_match"))["type"] == "ok"
        sent = await started(ann, bob, "rematch")
        await server.stop()
    await ann.close()
    await bob.close()
    table = created["table"]
    assert stored(db, table)[0] == "waiting"  # stopped before the deal, inside the wait

    server = Server(disk_config(db))
    await server.start()
    try:
        # Nobody is connected at the restore: the restarted match's deal follows at once.
        state, commitments = stored(db, table)
        assert state == "playing"  # before the fix: waiting, for a second start
        assert commitments and commitments[0] != sent  # a new commitment, as a fresh start's
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=created["token"])
        snapshot = await ann.expect("state")
        assert snapshot["info"]["state"] == "playing" and snapshot["hand"] == 0
        await ann.close()
    finally:
        await server.stop()
