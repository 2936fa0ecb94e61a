"""The trick pause: after a trick's fifth card the next lead waits ``trick_pause`` seconds.

Real server, real sockets. The bounds are generous (the pause minus a little for the time the
trick's ``state`` itself took to arrive), never a tight timing.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.server.support import Raw, raw_bot_table, running_server

PAUSE = 0.3
SLACK = 0.05
"""How much earlier than the pause a lead may be seen: the trick's state can reach the client
a moment after the server sent it."""


def trick_ended(msg: dict[str, Any]) -> bool:
    """A ``state`` right after the fifth card of a trick that is not the hand's last."""
    view = msg.get("view")
    return (
        msg["type"] == "state"
        and view is not None
        and view["phase"] == "play"
        and not view["trick"]["cards"]
        and 0 < len(view["tricks"]) < 6
        and msg["last"] is not None
        and msg["last"]["action"] == "play"
    )


async def test_people_are_prompted_to_lead_only_after_the_pause() -> None:
    """Five people: each trick's winner gets its your_turn at least the pause after the trick's
    state, with the whole turn timer still to run."""
    async with running_server(trick_pause=PAUSE) as server:
        clients = [await Raw.open(server.port) for _ in range(5)]
        for i, c in enumerate(clients):
            await c.hello(f"P{i}")
        created = await clients[0].request("create_table", name="pause", hands=1, turn_timer=2.0)
        table = created["table"]
        for c in clients[1:]:
            assert (await c.request("join", table=table))["type"] == "ok"
        seen: list[tuple[float, int, dict[str, Any]]] = []
        done = asyncio.Event()

        async def read(seat: int) -> None:
            while not done.is_set():
                msg = await clients[seat].recv(timeout=10)
                seen.append((time.monotonic(), seat, msg))
                if msg["type"] == "your_turn":
                    action = {"type": "action", "seq": msg["seq"], "action": msg["legal"][0]}
                    await clients[seat].send(action)
                if msg["type"] == "match_over":
                    done.set()

        readers = [asyncio.create_task(read(seat)) for seat in range(5)]
        await clients[0].send({"type": "start"})  # its ok is read by seat 0's reader
        await asyncio.wait_for(done.wait(), 30)
        for r in readers:
            r.cancel()
        ends = [(t, msg) for t, seat, msg in seen if seat == 0 and trick_ended(msg)]
        assert len(ends) == 5  # tricks one to five; the sixth ends the hand
        for t_end, end in ends:
            leader = end["view"]["turn"]
            [(t_prompt, prompt)] = [
                (t, msg)
                for t, seat, msg in seen
                if seat == leader and msg["type"] == "your_turn" and msg["seq"] == end["seq"]
            ]
            assert t_prompt - t_end >= PAUSE - SLACK, (t_prompt - t_end, prompt)
            assert prompt["decision"] == "play"
            assert prompt["deadline"] > 1.9  # the turn timer starts when the pause ends
        for c in clients:
            await c.close()


async def test_bots_lead_only_after_the_pause_and_the_summary_says_how_long() -> None:
    async with running_server(trick_pause=PAUSE, default_bot="random") as server:
        raw = await Raw.open(server.port)
        await raw.hello("Ann")
        await raw_bot_table(raw, hands=None)
        assert (await raw.request("start"))["type"] == "ok"
        seen: list[tuple[float, dict[str, Any]]] = []
        bot_leads = 0
        info: dict[str, Any] = {}
        while bot_leads < 2:  # a random deal may let Ann take every trick: go on to the next
            assert len(seen) < 2000, "no bot won a trick in many hands"
            msg = await raw.recv()
            seen.append((time.monotonic(), msg))
            info = msg.get("info", info)
            if msg["type"] == "your_turn":
                await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
            if msg["type"] != "state" or len(seen) < 2:
                continue
            t_before, before = seen[-2]
            if trick_ended(before) and before["view"]["turn"] != 0:
                # The bot's lead is the next state; it came the pause after the trick's.
                assert msg["seq"] == before["seq"] + 1 and msg["last"]["action"] == "play"
                assert msg["last"]["seat"] == before["view"]["turn"]
                assert seen[-1][0] - t_before >= PAUSE - SLACK, seen[-1][0] - t_before
                bot_leads += 1
        assert info["trick_pause"] == PAUSE
        await raw.request("end_match")
        await raw.close()


async def test_the_leader_may_act_during_the_pause() -> None:
    """An action quoting the finished trick's seq is accepted before the leader's your_turn."""
    async with running_server(trick_pause=30.0) as server:
        clients = [await Raw.open(server.port) for _ in range(5)]
        for i, c in enumerate(clients):
            await c.hello(f"L{i}")
        table = (await clients[0].request("create_table", name="early", hands=1))["table"]
        for c in clients[1:]:
            await c.request("join", table=table)
        early: dict[str, Any] = {}
        answered = asyncio.Event()
        prompted_early = []

        async def read(seat: int) -> None:
            client = clients[seat]
            while True:
                msg = await client.recv(timeout=10)
                if msg["type"] == "your_turn":
                    if early and msg["seq"] == early["seq"]:
                        prompted_early.append(msg)
                    await client.send(
                        {"type": "action", "seq": msg["seq"], "action": msg["legal"][0]}
                    )
                elif trick_ended(msg) and msg["view"]["turn"] == seat and not early:
                    early["seq"] = msg["seq"]
                    action = dict(msg["view"]["legal"][0])
                    del action["seat"]
                    early["id"] = await client.send(
                        {"type": "action", "seq": msg["seq"], "action": action}
                    )
                    early["seat"] = seat
                elif msg["type"] in ("ok", "error") and early.get("seat") == seat:
                    # Ids are per connection: only the leader's own reply counts.
                    early["reply"] = msg if msg["id"] == early["id"] else early.get("reply")
                    if msg["id"] == early["id"]:
                        answered.set()

        readers = [asyncio.create_task(read(seat)) for seat in range(5)]
        await clients[0].send({"type": "start"})
        await asyncio.wait_for(answered.wait(), 20)
        for r in readers:
            r.cancel()
        assert early["reply"]["type"] == "ok", early["reply"]
        assert prompted_early == []  # the prompt had not been sent: the pause was on
        for c in clients:
            await c.close()
