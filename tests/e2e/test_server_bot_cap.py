"""``max_bots_per_address`` counts the server bots of tables that play or wait to play: those
at a table whose match is over (kept ``over_table_ttl`` for a rematch) cost no CPU and do not
count, until a ``rematch`` brings them back, which is checked then. Real server, real sockets."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.app import Server
from tests.server.support import Raw, disk_config, raw_bot_table, raw_play, running_server

CAP = 5
"""One full table of four bots, and one bot more."""


async def crashed_run(port: int, name: str) -> dict[str, Any]:
    """A bot author's test run: a table with four bots, a one-hand match played out, and the
    connection dropped without ``leave`` (the table stays over, its seat token kept); returns
    the ``create_table`` ok (table, token)."""
    host = await Raw.open(port)
    await host.hello(name)
    created = await raw_bot_table(host, name=name, hands=1)
    assert (await host.request("start"))["type"] == "ok"
    over = await asyncio.wait_for(raw_play(host), 30)
    assert over["hands"] == 1
    await host.close()
    return created


async def table_summary(raw: Raw, table: str) -> dict[str, Any]:
    """The lobby's summary of ``table``."""
    listed = (await raw.request("list_tables"))["tables"]
    [summary] = [t for t in listed if t["id"] == table]
    return summary


def bots(summary: dict[str, Any]) -> int:
    """Server bots seated at a summarized table."""
    return sum(s["kind"] == "bot" for s in summary["seats"])


async def refused_rematch_changes_nothing(host: Raw, table: str) -> None:
    """``rematch`` at the over ``table`` is refused with ``too_many_bots`` and leaves it as it
    was: over, its four bots seated."""
    refused = await host.request("rematch")
    assert (refused["type"], refused["code"]) == ("error", "too_many_bots"), refused
    assert str(CAP) in refused["message"] and "removing a bot" in refused["message"]
    summary = await table_summary(host, table)
    assert summary["state"] == "over" and bots(summary) == 4


async def test_bots_at_a_table_whose_match_is_over_do_not_count() -> None:
    """Nor do their tables count as playing (``max_running_per_address``, here 1): an address
    whose matches are over starts another table; they count as open
    (``max_open_per_address``), and a rematch would play again, so it is checked."""
    caps = {"max_bots_per_address": CAP, "max_running_per_address": 1, "max_open_per_address": 4}
    async with running_server(**caps) as server:
        first = await crashed_run(server.port, "Run1")
        # Its bots were refused while Run1's counted; before, so was its table (Run1's counted
        # as running, over as it was).
        await crashed_run(server.port, "Run2")
        host = await Raw.open(server.port)
        await host.hello("Run3")
        created = await raw_bot_table(host, name="Run3", hands=1)
        summary = await table_summary(host, created["table"])
        assert summary["state"] == "waiting" and bots(summary) == 4
        # Waiting tables count: four here and one more is the cap.
        other = await Raw.open(server.port)
        await other.hello("Other")
        await other.request("create_table", name="other", hands=1)
        assert (await other.request("add_bot", strategy="random"))["type"] == "ok"
        refused = await other.request("add_bot", strategy="random")
        assert (refused["type"], refused["code"]) == ("error", "too_many_bots")
        assert "over" in refused["message"]  # says what frees a place
        # At the limit of tables playing, with two over: this one is the one playing.
        assert (await host.request("start"))["type"] == "ok"
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=first["token"])
        refused = await ann.request("rematch")
        assert refused.get("code") == "too_many_tables" and "playing" in refused["message"]
        assert (await table_summary(ann, first["table"]))["state"] == "over"
        # No table plays now, but four are open, three of them over.
        assert (await host.request("end_match"))["type"] == "ok"
        late = await Raw.open(server.port)
        await late.hello("Late")
        refused = await late.request("create_table", name="late", hands=1)
        assert refused.get("code") == "too_many_tables" and "4 tables open" in refused["message"]
        for raw in (host, other, ann, late):
            await raw.close()


async def test_a_rematch_past_the_cap_is_refused_and_changes_nothing() -> None:
    async with running_server(max_bots_per_address=CAP) as server:
        first = await crashed_run(server.port, "Ann")
        other = await Raw.open(server.port)
        await other.hello("Other")
        second = await raw_bot_table(other, name="second", hands=1)
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=first["token"])
        await refused_rematch_changes_nothing(ann, first["table"])
        # Bots removed from the waiting table free their places: the rematch goes ahead.
        for seat in (2, 3, 4):
            assert (await other.request("remove_bot", seat=seat))["type"] == "ok"
        assert (await ann.request_keeping("rematch"))["type"] == "ok"
        await ann.expect("notice", code="rematch")
        state = await ann.expect("state")
        assert state["info"]["state"] == "playing"
        # Now they count again: the waiting table may not take its bots back.
        refused = await other.request("add_bot", strategy="random")
        assert (refused["type"], refused["code"]) == ("error", "too_many_bots")
        assert (await table_summary(other, second["table"]))["state"] == "waiting"
        for raw in (ann, other):
            await raw.close()


async def test_a_restored_over_tables_rematch_is_checked_too(tmp_path: Path) -> None:
    """The bots' address is stored with them: after a restart the over table's bots still do
    not count, and its rematch is checked as any other."""
    db = tmp_path / "cap.db"
    server = Server(disk_config(db, max_bots_per_address=CAP, seed_wait=0.0))
    await server.start()
    try:
        first = await crashed_run(server.port, "Ann")
    finally:
        await server.stop()

    again = Server(disk_config(db, max_bots_per_address=CAP, seed_wait=0.0))
    await again.start()
    try:
        other = await Raw.open(again.port)
        await other.hello("Other")
        await raw_bot_table(other, name="after", hands=1)  # the restored over table's do not count
        ann = await Raw.open(again.port)
        await ann.hello("Ann", token=first["token"])
        await refused_rematch_changes_nothing(ann, first["table"])
        assert (await other.request("leave"))["type"] == "ok"  # its table closes, bots and all
        assert (await ann.request_keeping("rematch"))["type"] == "ok"
        for raw in (ann, other):
            await raw.close()
    finally:
        await again.stop()
