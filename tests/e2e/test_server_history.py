"""The ``history`` request: the finished hands of the current match, paged, with the last lines.

Real server, real sockets, the real codec; the restart test uses a database file.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import msgpack
import pytest

from client.session import ServerError
from engine.record import replay_record
from server.app import Server
from server.tables import history as history_module
from server.tables.history import LINES_KEPT
from tests.server.support import (
    Raw,
    disk_config,
    raw_bot_table,
    raw_play,
    running_server,
    session,
)

ENTRY_KEYS = {
    "hand",
    "names",
    "record",
    "payouts",
    "totals",
    "picker",
    "partner",
    "alone",
    "leaster",
    "doubler",
    "picker_side_points",
    "outcome",
}


def check_entries(entries: list[dict[str, Any]], overs: list[dict[str, Any]]) -> None:
    """Each entry is the hand the table showed in its hand_over, and its record replays to it."""
    assert [e["hand"] for e in entries] == [o["hand"] for o in overs]
    for entry, over in zip(entries, overs, strict=True):
        assert set(entry) == ENTRY_KEYS
        result = over["result"]
        assert entry["totals"] == over["totals"]
        assert entry["payouts"] == result["payouts"]
        for key in ("picker", "partner", "alone", "leaster", "doubler", "picker_side_points"):
            assert entry[key] == result[key], key
        assert entry["outcome"] == result["outcome"]
        assert entry["record"]["format"] == "sheepshead-hand/1"
        replayed = replay_record(entry["record"])
        assert replayed["payouts"] == result["payouts"]
        assert replayed["tricks"] == result["tricks"]


async def test_a_player_and_a_watcher_get_the_finished_hands_and_the_last_lines() -> None:
    async with running_server(default_bot="random") as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        table = (await raw_bot_table(ann, hands=3))["table"]
        watcher = await Raw.open(server.port)
        await watcher.hello("Wes")
        assert (await watcher.request("watch", table=table))["type"] == "ok"
        assert (await watcher.request("chat", text="good luck"))["type"] == "ok"
        assert (await ann.request("chat", text="thanks"))["type"] == "ok"
        early = await ann.request("history")
        assert early == {
            "type": "ok",
            "id": early["id"],
            "table": table,
            "match": 0,
            "hands": [],
            "next": None,
            "lines": [
                {
                    "type": "chat",
                    "table": table,
                    "from": "Wes",
                    "seat": None,
                    "text": "good luck",
                    "spectator": True,
                },
                {
                    "type": "chat",
                    "table": table,
                    "from": "Ann",
                    "seat": 0,
                    "text": "thanks",
                    "spectator": False,
                },
            ],
        }
        await ann.send({"type": "start"})
        log: list[dict[str, Any]] = []
        await raw_play(ann, "match_over", log)
        overs = [m for m in log if m["type"] == "hand_over"]
        assert len(overs) == 3

        mine = await ann.request("history")
        theirs = await watcher.request("history", table=table)
        assert mine["hands"] == theirs["hands"] and mine["next"] is None
        check_entries(mine["hands"], overs)
        assert [line["text"] for line in mine["lines"]] == ["good luck", "thanks"]
        later = await watcher.request("history", start=2)
        assert later["hands"] == mine["hands"][2:] and "lines" not in later
        past_the_end = await watcher.request("history", start=7)
        assert (past_the_end["hands"], past_the_end["next"]) == ([], None)

        # Only the people at the table may ask.
        stranger = await Raw.open(server.port)
        await stranger.hello("Sam")
        refused = await stranger.request("history", table=table)
        assert refused["code"] == "not_seated"
        assert (await stranger.request("history"))["code"] == "not_seated"
        assert (await stranger.request("history", table="t999"))["code"] == "no_such_table"
        assert (await stranger.request("history", start=-1))["code"] == "bad_request"
        for c in (ann, watcher, stranger):
            await c.close()


async def test_a_long_match_comes_in_pages_that_each_fit_a_frame() -> None:
    """A small frame limit makes a dozen hands take several pages; together they are the
    whole match, in order, with no hand twice."""
    max_frame = 8192
    fast = {"rate": 1e6, "burst": 1e6}  # a client playing at machine speed
    async with running_server(default_bot="random", max_frame=max_frame, **fast) as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        await raw_bot_table(ann, hands=12)
        await ann.send({"type": "start"})
        log: list[dict[str, Any]] = []
        await raw_play(ann, "match_over", log)
        overs = [m for m in log if m["type"] == "hand_over"]
        entries: list[dict[str, Any]] = []
        start: int | None = 0
        pages = 0
        while start is not None:
            request_id = await ann.send({"type": "history", "start": start})
            reply = await ann.expect_reply(request_id)
            pages += 1
            assert reply["type"] == "ok" and reply["hands"], reply
            assert reply["hands"][0]["hand"] == start
            entries.extend(reply["hands"])
            start = reply["next"]
        assert pages >= 3
        check_entries(entries, overs)
        await ann.close()


async def test_the_client_pages_through_a_long_match_past_the_history_allowance(
    tmp_path: Path,
) -> None:
    """More pages than the server answers at once (``history_burst``): the client asks for a
    refused page again a moment later and still gets the whole match."""
    fast = {"rate": 1e6, "burst": 1e6, "history_burst": 1.0, "history_rate": 5.0}
    async with running_server(default_bot="random", max_frame=8192, **fast) as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        table = (await raw_bot_table(ann, hands=12))["table"]
        await ann.send({"type": "start"})
        log: list[dict[str, Any]] = []
        await raw_play(ann, "match_over", log)
        watcher = session(server, "Wes", tmp_path)
        await watcher.connect()
        await watcher.request("watch", table=table)
        refused = 0
        original = watcher.request

        async def counting(type: str, **fields: Any) -> dict[str, Any]:
            nonlocal refused
            try:
                return await original(type, **fields)
            except ServerError as exc:
                refused += exc.code == "rate_limited"
                raise

        watcher.request = counting  # type: ignore[method-assign]
        reply = await watcher.history()
        assert reply is not None
        assert refused >= 1  # the allowance was spent, and the client waited it out
        check_entries(reply["hands"], [m for m in log if m["type"] == "hand_over"])
        await watcher.close()
        await ann.close()


async def test_history_and_its_lines_survive_a_restart_and_a_reconnect(tmp_path: Path) -> None:
    """The finished hands, and the last lines (notices among the chat, in order), come back to
    a client that reconnects, and after a restart on the same database."""
    db = tmp_path / "history.db"
    server = Server(disk_config(db))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, hands=4)
    bob_seat = await ann.request("remove_bot", seat=4)
    assert bob_seat["type"] == "ok"
    bob = await Raw.open(server.port)
    await bob.hello("Bob")
    joined = await bob.request("join", table=created["table"])
    assert joined["seat"] == 4
    await ann.send({"type": "start"})
    bob_playing = asyncio.create_task(raw_play(bob, "match_over"))
    log: list[dict[str, Any]] = []
    await raw_play(ann, "hand_over", log)
    await raw_play(ann, "hand_over", log)
    before = await ann.request("history")
    assert [e["hand"] for e in before["hands"]] == [0, 1]
    # Each record names the server bots' strategies; after the restart too (from the store).
    bots = [None, "random", "random", "random", None]
    assert [e["record"]["strategies"] for e in before["hands"]] == [bots, bots]
    # Bob drops out and comes back with his token: the lines tell what happened meanwhile.
    bob_playing.cancel()
    await bob.close()
    await ann.expect("notice", code="disconnected")
    await ann.request("chat", text="where is Bob?")
    bob = await Raw.open(server.port)
    welcome = await bob.hello("Bob", token=joined["token"])
    assert welcome["seat"] == 4
    lines = (await bob.request("history"))["lines"]
    assert [(line["type"], line.get("code"), line["seat"]) for line in lines[-3:]] == [
        ("notice", "disconnected", 4),
        ("chat", None, 0),
        ("notice", "reconnected", 4),
    ]
    assert lines[-2]["text"] == "where is Bob?"
    await server.stop()
    await ann.close()
    await bob.close()

    server = Server(disk_config(db))
    await server.start()
    assert server.restored == 1
    ann = await Raw.open(server.port)
    welcome = await ann.hello("Ann", token=created["token"])
    assert welcome["table"] == created["table"]
    after = await ann.request("history")
    assert after["hands"] == before["hands"] and after["match"] == 0
    # The lines from before the restart, notices and chat, as they were sent (stored). Before:
    # the chat line alone, the notices lost. Ann's return is no line: she was connected when
    # the server went down, as everyone was (each restart added an "Ann is back", and two
    # restarts read "Ann is back", "Ann is back" with no drop between).
    assert after["lines"] == lines
    check_entries(after["hands"], [m for m in log if m["type"] == "hand_over"])
    await ann.close()
    await server.stop()


async def test_a_drop_older_than_the_stored_lines_is_still_told_back_after_a_restart(
    tmp_path: Path,
) -> None:
    """Bob drops, then more lines are said than the table stores (its ring of LINES_KEPT);
    after a restart his return is news, told as it was before the restart. Before, only the
    stored lines said who was away: his drop had left them, so he counted as connected when
    the server went down, and his return went untold."""
    db = tmp_path / "away.db"
    fast = {"seed_wait": 0.0, "rate": 500.0, "burst": 500.0}
    server = Server(disk_config(db, chat_rate=500.0, chat_burst=500.0, **fast))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, bots=3)
    bob = await Raw.open(server.port)
    await bob.hello("Bob")
    joined = await bob.request("join", table=created["table"])
    assert joined["seat"] == 4
    assert (await ann.request("start"))["type"] == "ok"
    await bob.close()
    await ann.expect("notice", code="disconnected", seat=4)
    for n in range(LINES_KEPT):
        assert (await ann.request("chat", text=f"line {n}"))["type"] == "ok"
    lines = (await ann.request("history"))["lines"]
    assert all(line.get("code") != "disconnected" for line in lines)  # out of the ring
    await server.stop()
    await ann.close()

    server = Server(disk_config(db, **fast))
    await server.start()
    try:
        assert server.restored == 1
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=created["token"])
        bob = await Raw.open(server.port)
        await bob.hello("Bob", token=joined["token"])
        told = [
            (line.get("code"), line["seat"]) for line in (await ann.request("history"))["lines"]
        ]
        assert told[-1] == ("reconnected", 4), told  # Bob's return; Ann's is no news
        assert ("reconnected", 0) not in told
    finally:
        await server.stop()
    await ann.close()
    await bob.close()
    with contextlib.closing(sqlite3.connect(db)) as stored:  # back: not away any more
        assert stored.execute("SELECT seat, away FROM seats WHERE kind = 'human'").fetchall() == [
            (0, 0),
            (4, 0),
        ]


async def test_past_hands_keep_the_names_of_who_played_them() -> None:
    """Issue 28: Bob plays a match and leaves; Carl takes his seat at the over table. The
    history still names Bob for those hands (the seat's newcomer is not credited with them),
    while the table summary shows Carl there now; so does a history rebuilt by the client."""
    from rich.table import Table

    from client.model import TableModel
    from client.screens.lobby import _is_full
    from client.screens.result import score_sheet_parts

    async with running_server() as server:
        ann = await Raw.open(server.port)
        bob = await Raw.open(server.port)
        carl = await Raw.open(server.port)
        try:
            await ann.hello("Ann")
            await bob.hello("Bob")
            await carl.hello("Carl")
            table = (await raw_bot_table(ann, bots=3, hands=2))["table"]
            seat = (await bob.request("join", table=table))["seat"]
            await ann.send({"type": "start"})
            await asyncio.gather(raw_play(ann), raw_play(bob))
            assert (await bob.request("leave"))["type"] == "ok"
            # The lobby shows Bob's seat as left, free to take (it counted it taken: Enter
            # watched the table, and a player told to leave and join again was locked out).
            before = await carl.request("list_tables")
            joined = await carl.request("join", table=table, seat=seat)
            assert joined["type"] == "ok", joined
            reply = await ann.request("history")
            listing = await carl.request("list_tables")
        finally:
            for raw in (ann, bob, carl):
                await raw.close()
    assert [entry["names"][seat] for entry in reply["hands"]] == ["Bob", "Bob"]
    (left,) = [t for t in before["tables"] if t["id"] == table]
    assert left["seats"][seat]["name"] == "Bob" and left["seats"][seat].get("left") is True
    assert not _is_full(left) and "left" not in left["seats"][0]  # Ann's: still hers
    (summary,) = [t for t in listing["tables"] if t["id"] == table]
    assert summary["seats"][seat]["name"] == "Carl" and summary["host"] == "Ann"
    assert "left" not in summary["seats"][seat]
    model = TableModel()
    model.apply({"type": "state", "table": table, "seq": 1, "info": summary, "view": None})
    model.apply_history(reply)
    assert [hand.names[seat] for hand in model.history] == ["Bob", "Bob"]
    # The score sheet names this hand's picker as who played it, not who sits there now.
    hand = model.history[0]
    hand.result = {**hand.result, "picker": seat, "partner": None, "alone": True}
    _, rows = score_sheet_parts([hand], [s.name for s in model.seats], None)
    # One hand: one block of rows, then the line that Carl sat down since (the header names
    # him over Bob's rows).
    table, since = rows.renderables
    assert isinstance(table, Table)
    assert str(since).startswith(f"Carl takes seat {seat} (Bob left on "), str(since)
    assert [str(cell) for cell in table.columns[1].cells] == ["Bob alone"]


async def test_hand_records_name_each_server_bots_strategy_as_the_seats_show_it() -> None:
    """A record the server stores or sends (``history``) carries ``strategies``: each server
    bot's strategy, as every seat's summary shows it, and null for a person and for a remote
    bot (its strategy is its own: no message tells it)."""
    async with running_server(default_bot="random") as server:
        ann = await Raw.open(server.port)
        robo = await Raw.open(server.port)
        try:
            await ann.hello("Ann")
            hello = {"version": 1, "client": "test/1", "kind": "bot", "name": "Robo"}
            assert (await robo.request("hello", **hello))["type"] == "welcome"
            table = (await raw_bot_table(ann, bots=0, hands=2))["table"]
            for strategy in ("random", "easy", "heuristic"):
                assert (await ann.request("add_bot", strategy=strategy))["type"] == "ok"
            assert (await robo.request("join", table=table))["seat"] == 4
            await ann.send({"type": "start"})
            await asyncio.gather(raw_play(ann), raw_play(robo))
            reply = await robo.request("history")
            listing = await robo.request("list_tables")
        finally:
            for raw in (ann, robo):
                await raw.close()
        assert server.store is not None
        stored = server.store.hand_records(table)
    # "easy" is the random strategy: named as such, as at any other table (it was "easy").
    strategies = [None, "random", "random", "heuristic", None]
    (summary,) = [t for t in listing["tables"] if t["id"] == table]
    assert [s["strategy"] for s in summary["seats"]] == strategies  # public to every seat
    assert [e["record"]["strategies"] for e in reply["hands"]] == [strategies] * 2
    assert [r["strategies"] for r in stored] == [strategies] * 2
    assert all(replay_record(r)["complete"] for r in stored)


async def all_pages(raw: Raw, **fields: Any) -> dict[str, Any]:
    """Every page of a ``history`` request from hand 0, joined: the first page's reply with
    all the hands (each page starts where the last said, and is ok)."""
    first = await raw.request("history", **fields)
    assert first["type"] == "ok", first
    hands = list(first["hands"])
    following = first["next"]
    while following is not None:
        page = await raw.request("history", **fields, start=following)
        assert page["type"] == "ok" and page["hands"][0]["hand"] == following, page
        assert page["match"] == first["match"] and "lines" not in page
        hands += page["hands"]
        following = page["next"]
    return {**first, "hands": hands, "next": None}


async def test_an_earlier_match_comes_as_it_came_while_it_was_the_tables(tmp_path: Path) -> None:
    """``history`` with ``match``: after a rematch, and after a restart, the first match's
    hands come as they came while it was the table's current match (records with the seeds
    revealed, the match's first seed too where a newcomer's commitment dealt the hand, names,
    totals, results), in pages; only to the people at the table; an unknown match is refused."""
    db = tmp_path / "history.db"
    fast = {"rate": 1e6, "burst": 1e6, "history_burst": 1e6, "seed_wait": 0.0}
    # An earlier match's page is rebuilt hand by hand from the store: it holds at most
    # history_earlier_hands (a frame of 64 KiB would hold 4 here).
    fast["history_earlier_hands"] = 3
    server = Server(disk_config(db, max_frame=65536, **fast))
    await server.start()
    ann, bob, wes, sam = [await Raw.open(server.port) for _ in range(4)]
    await ann.hello("Ann")
    await bob.hello("Bob")
    await wes.hello("Wes")
    await sam.hello("Sam")
    created = await raw_bot_table(ann, hands=4)
    table = created["table"]
    assert (await wes.request("watch", table=table))["type"] == "ok"
    await ann.send({"type": "start"})
    log: list[dict[str, Any]] = []
    await raw_play(ann, "hand_over", log)
    # Bob takes over seat 4 in the match: the hands after it are dealt with his commitment.
    assert (await ann.request_keeping("remove_bot", seat=4))["type"] == "ok"
    joined = await bob.request("join", table=table, seat=4)
    assert joined["type"] == "ok", joined
    bob_playing = asyncio.create_task(raw_play(bob, "match_over"))
    await raw_play(ann, "match_over", log)
    await bob_playing
    before = await all_pages(ann)
    assert before["match"] == 0 and len(before["hands"]) == 4
    check_entries(before["hands"], [m for m in log if m["type"] == "hand_over"])
    fair = [entry["record"]["fair"] for entry in before["hands"]]
    assert all("server_seed" in f for f in fair)
    assert any("match_server_seed" in f for f in fair), fair  # the case is covered

    assert (await ann.request("rematch"))["type"] == "ok"
    current = await ann.request("history")
    assert current["match"] == 1 and current["hands"] == []
    for raw, fields in ((ann, {}), (bob, {}), (wes, {"table": table})):
        earlier = await all_pages(raw, match=0, **fields)
        assert earlier["hands"] == before["hands"], raw
        assert earlier["match"] == 0 and earlier["table"] == table and "lines" not in earlier
    again = await ann.request("history", match=1)
    assert (again["match"], again["hands"], again["lines"]) == (1, [], current["lines"])
    page = await ann.request("history", match=0)
    assert (len(page["hands"]), page["next"]) == (3, 3)
    later = await ann.request("history", match=0, start=3)
    assert later["hands"] == before["hands"][3:] and later["next"] is None
    beyond = await ann.request("history", match=0, start=9)
    assert (beyond["hands"], beyond["next"]) == ([], None)

    # Who may ask stays who may ask for the current match; bad match numbers are refused.
    assert (await sam.request("history", table=table, match=0))["code"] == "not_seated"
    assert (await sam.request("history", match=0))["code"] == "not_seated"
    for bad in (2, 3, 1 << 40, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, -1, -(1 << 63), "0", 0.0):
        refused = await ann.request("history", match=bad)
        assert refused["code"] == "bad_request" and "'match'" in refused["message"], bad
    await server.stop()
    for raw in (ann, bob, wes, sam):
        await raw.close()
    # The records as a server that stored no match_server_seed left them: history still adds
    # it from the match's first hand.
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        stripped = conn.execute(
            "UPDATE hands SET record = json_remove(record, '$.fair.match_server_seed')"
            " WHERE json_extract(record, '$.fair.match_server_seed') IS NOT NULL"
        ).rowcount
    assert stripped > 0

    server = Server(disk_config(db, max_frame=65536, **fast))
    await server.start()
    assert server.restored == 1
    ann = await Raw.open(server.port)
    welcome = await ann.hello("Ann", token=created["token"])
    assert welcome["table"] == table
    after = await all_pages(ann, match=0)
    assert after["hands"] == before["hands"] and after["match"] == 0
    assert (await ann.request("history", match=2))["code"] == "bad_request"
    await ann.close()
    await server.stop()


async def test_a_long_match_keeps_only_its_last_hands_and_reads_the_rest_from_the_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A match longer than the hands a table keeps (``HANDS_KEPT``, 3 here): the table keeps
    only the last 3 in memory, and the older ones come from the store as they came while kept:
    the ``history`` pages from hand 0 (the whole match, each entry the hand_over it was), the
    coach's review of hand 0, and the kept hands' entries as the store rebuilds them."""
    monkeypatch.setattr(history_module, "HANDS_KEPT", 3)
    fast = {"rate": 1e6, "burst": 1e6, "history_burst": 1e6, "seed_wait": 0.0}
    async with running_server(default_bot="random", **fast) as server:  # a store in memory
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        created = await raw_bot_table(ann, hands=10, hints=True)
        table = server.lobby.tables[created["table"]]
        await ann.send({"type": "start"})
        log: list[dict[str, Any]] = []
        await raw_play(ann, "hand_over", log)
        first = await ann.request_keeping("history")
        review_kept = await ann.request_keeping("review", hand=0)
        assert review_kept["type"] == "ok", review_kept
        await raw_play(ann, "match_over", log)
        overs = [m for m in log if m["type"] == "hand_over"]
        assert len(overs) == 10
        assert (table.history.kept, table.history.stored, len(table.history)) == (3, 7, 10)
        whole = await all_pages(ann)
        check_entries(whole["hands"], overs)
        assert whole["lines"] == first["lines"][: len(whole["lines"])]
        # Hand 0 as it came while kept (its seeds are revealed now that the match is over).
        then, now = first["hands"][0], whole["hands"][0]
        assert then["record"].pop("fair") != now["record"].pop("fair")
        assert then == now
        review = await ann.request("review", hand=0)
        assert review["type"] == "ok", review

        def judged(reply: dict[str, Any]) -> list[Any]:
            """What a review judged: each decision's place and action (its values are the
            coach's sampling, which varies from one review to the next)."""
            return [(row["n"], row["action"]) for row in reply["decisions"]] + [
                reply.get("made_for")
            ]

        assert judged(review) == judged(review_kept) and review["decisions"]
        # The kept hands, read from the store, are the entries kept.
        stored = [msgpack.unpackb(e, raw=False) for _, e in table._stored_entries(0, 7)]
        kept = [msgpack.unpackb(e, raw=False) for _, e in table.history.entries(7)]
        for entry in stored:
            entry["record"].pop("fair")
        assert stored == kept
        page = await ann.request("history", start=7)
        assert [h["hand"] for h in page["hands"]] == [7, 8, 9] and page["next"] is None
        await ann.close()
