"""Five real clients play a whole match against the real server; a spectator watches.

Everything goes over real sockets with the real codec. Each client answers its prompts with a
random legal action; afterwards every message each client received is checked for cards it had
no right to see.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from engine.record import replay_record
from tests.server.support import (
    check_no_leak,
    full_table,
    next_event,
    play_until,
    running_server,
    session,
)


async def test_five_clients_play_a_match_and_nobody_sees_hidden_cards(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"P{i}", tmp_path) for i in range(5)]
        table = await full_table(players, hands=2)
        watcher = session(server, "Watcher", tmp_path)
        await watcher.connect()
        await watcher.request("watch", table=table)
        snapshot = await next_event(watcher, "state")
        assert snapshot["seat"] is None and snapshot["info"]["spectators"] == 1

        logs: list[list[dict[str, Any]]] = [[] for _ in range(5)]
        watched: list[dict[str, Any]] = []
        plays = [
            asyncio.create_task(play_until(p, "match_over", logs[i], random.Random(i)))
            for i, p in enumerate(players)
        ]
        watching = asyncio.create_task(play_until(watcher, "match_over", watched, random.Random(9)))
        await players[0].request("start")
        finals = await asyncio.gather(*plays, watching)

        totals = finals[0]["totals"]
        assert all(f["totals"] == totals for f in finals)
        assert sum(totals) == 0
        assert finals[0]["hands"] == 2

        # Every client saw both hands end with the same result and reveal.
        overs = [[m for m in log if m["type"] == "hand_over"] for log in [*logs, watched]]
        assert all(len(o) == 2 for o in overs)
        for number in range(2):
            first = overs[0][number]
            assert all(o[number]["result"] == first["result"] for o in overs)
            assert all(o[number]["reveal"] == first["reveal"] for o in overs)
        assert [sum(o["result"]["payouts"]) for o in overs[0]] == [0, 0]

        # Nobody (spectator included) was sent a card they may not see.
        for seat in range(5):
            assert check_no_leak(logs[seat], seat) > 10
        assert check_no_leak(watched, None) > 10

        # Prompts go only to the seat that must act, and list exactly that seat's options.
        for seat, log in enumerate(logs):
            states = {m["seq"]: m for m in log if m["type"] == "state"}
            for prompt in (m for m in log if m["type"] == "your_turn"):
                view = states[prompt["seq"]]["view"]
                assert view["turn"] == seat
                assert prompt["decision"] == view["phase"]
                assert prompt["legal"] == [
                    {k: v for k, v in a.items() if k != "seat"} for a in view["legal"]
                ]
        assert not any(m["type"] == "your_turn" for m in watched)

        # The stored records replay to the results everyone was shown.
        records = server.store.hand_records(table) if server.store else []
        assert len(records) == 2
        for record, over in zip(records, overs[0], strict=True):
            replayed = replay_record(record)
            assert replayed["payouts"] == over["result"]["payouts"]
            assert replayed["tricks"] == over["result"]["tricks"]
        results = server.store.results(table) if server.store else []
        assert [r["total"] for r in results] == totals
        assert [r["name"] for r in results] == [f"P{i}" for i in range(5)]

        for s in [*players, watcher]:
            await s.close()


async def test_seq_increases_by_one_per_state_and_views_match_the_seat(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"S{i}", tmp_path) for i in range(5)]
        options = {"unknown_card": True, "no_pick": "doubler"}
        await full_table(players, hands=2, preset="wisconsin", options=options)
        logs: list[list[dict[str, Any]]] = [[] for _ in range(5)]
        plays = [
            asyncio.create_task(play_until(p, "match_over", logs[i], random.Random(10 + i)))
            for i, p in enumerate(players)
        ]
        await players[0].request("start")
        await asyncio.gather(*plays)
        for seat, log in enumerate(logs):
            seqs = [m["seq"] for m in log if m["type"] == "state"]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
            info: dict[str, Any] | None = None
            for m in log:
                if m["type"] == "state":
                    info = m.get("info", info)  # left out while unchanged
                if m["type"] == "state" and m["view"] is not None:
                    assert m["view"]["seat"] == seat
                    assert len(m["view"]["hand"]) == m["view"]["hand_sizes"][seat]
                    assert info is not None
                    assert info["rules"] == {"preset": "wisconsin", **options}
            check_no_leak(log, seat)
        for s in players:
            await s.close()


async def test_a_tavern_match_cracks_over_real_sockets_and_leaks_nothing(tmp_path: Path) -> None:
    # docs/rules.md, "Cracking and blitzing" at a real table: the crack round and blitzes travel as
    # prompts, states and records, every seat sees the stakes, and nobody is sent a card it may not
    # see.
    async with running_server() as server:
        players = [session(server, f"T{i}", tmp_path) for i in range(5)]
        table = await full_table(
            players, preset="tavern", options={"crack_by": "defenders"}, hands=4
        )
        logs: list[list[dict[str, Any]]] = [[] for _ in range(5)]
        plays = [
            asyncio.create_task(play_until(p, "match_over", logs[i], random.Random(20 + i)))
            for i, p in enumerate(players)
        ]
        await players[0].request("start")
        finals = await asyncio.gather(*plays)
        assert sum(finals[0]["totals"]) == 0
        for seat in range(5):
            check_no_leak(logs[seat], seat)
        prompts = [m for log in logs for m in log if m["type"] == "your_turn"]
        decisions = {m["decision"] for m in prompts}
        assert "crack" in decisions
        for m in prompts:
            kinds = {a["action"] for a in m["legal"]}
            if m["decision"] == "crack":
                assert kinds <= {"crack", "no_crack"} and "no_crack" in kinds
            if m["decision"] == "recrack":
                assert kinds == {"recrack", "no_recrack"}
        records = server.store.hand_records(table) if server.store else []
        overs = [m for m in logs[0] if m["type"] == "hand_over"]
        assert len(records) == len(overs) == 4
        for record, over in zip(records, overs, strict=True):
            replayed = replay_record(record)
            assert replayed["payouts"] == over["result"]["payouts"]
            assert replayed["stakes"] == over["result"]["stakes"]
            assert replayed["crack"] == over["result"]["crack"]
        # Every seat's final view shows the stakes the result was paid at.
        for log in logs:
            done = [m["view"] for m in log if m["type"] == "state" and m.get("view")]
            done = [v for v in done if v["phase"] == "done"]
            assert done and all(v["stakes"] == v["result"]["stakes"] for v in done)
        for p in players:
            await p.close()
