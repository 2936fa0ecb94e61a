"""A table that has had a rematch comes back whole after ``sheepshead serve`` is killed with
SIGKILL or stopped with SIGTERM: the host's seat token resumes its seat, in the same hand at the
same trick (the previous match's actions must not look like a gap in the log)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from server.app import Server
from server.storage.store import Store, TableRow
from tests.e2e.test_server_crash import Served
from tests.server.support import Raw, disk_config, raw_bot_table


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """What a seat's snapshot must keep across a restart: all but the seq (a restart moves it
    on) and who is connected right now."""
    info = dict(state.get("info") or {})
    info["seats"] = [{k: v for k, v in s.items() if k != "connected"} for s in info["seats"]]
    return {**{k: v for k, v in state.items() if k != "seq"}, "info": info}


async def play(raw: Raw, done: Any) -> dict[str, Any]:
    """Answer commitments with a fresh client seed and prompts with their first legal action
    until ``done(msg)``; returns that message."""
    while True:
        msg = await raw.recv(timeout=15)
        if done(msg):
            return msg
        if msg["type"] == "commitment":
            await raw.send(
                {
                    "type": "client_seed",
                    "commitment": msg["commitment"],
                    "seed": os.urandom(32).hex(),
                }
            )
        elif msg["type"] == "your_turn":
            await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
        elif msg["type"] == "error":
            assert msg["code"] == "stale", msg


async def snapshot(port: int, token: str) -> dict[str, Any]:
    """The state a new connection gets with the seat token ``token``."""
    raw = await Raw.open(port)
    try:
        await raw.hello("Again", token=token)
        state = await raw.recv(timeout=15)  # right after the welcome: a bad token's error
        assert state["type"] == "state", state
        return state
    finally:
        await raw.close()


@pytest.mark.parametrize("stop", ["kill", "terminate"])
async def test_a_rematched_table_survives_a_restart(tmp_path: Path, stop: str) -> None:
    db = tmp_path / "rematch.db"
    served = await Served.start(db, trick_pause=0.0)
    # An older table whose match began first: the restore's scan of the log starts at its
    # first action, before every action of Ann's table.
    bob = await Raw.open(served.port)
    await bob.hello("Bob")
    older = await raw_bot_table(bob, hands=None)
    await bob.send({"type": "start"})
    await play(bob, lambda msg: msg["type"] == "your_turn")
    ann = await Raw.open(served.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, hands=None)
    await ann.send({"type": "start"})
    await play(ann, lambda msg: msg["type"] == "hand_over" and msg["hand"] == 1)
    assert (await ann.request("end_match"))["type"] == "ok"
    assert (await ann.request("rematch"))["type"] == "ok"
    turns = 0

    def third_turn(msg: dict[str, Any]) -> bool:
        nonlocal turns
        turns += msg["type"] == "your_turn"
        return turns == 3

    prompt = await play(ann, third_turn)  # match 1 is well under way
    await ann.close()
    await bob.close()
    before = await snapshot(served.port, created["token"])
    bob_before = await snapshot(served.port, older["token"])
    assert before["info"]["state"] == "playing" and before["seq"] >= prompt["seq"]

    if stop == "kill":
        await served.kill()
    else:
        await served.terminate()
    served = await Served.start(db, served.port, trick_pause=0.0)
    try:
        after = await snapshot(served.port, created["token"])
        assert comparable(after) == comparable(before)
        assert comparable(await snapshot(served.port, older["token"])) == comparable(bob_before)
        history = await Raw.open(served.port)
        await history.hello("Ann", token=created["token"])
        reply = await history.request("history")
        assert reply["match"] == 1
        await history.close()
    finally:
        await served.kill()


async def history(raw: Raw, start: int = 0) -> list[dict[str, Any]]:
    """Every finished hand of the current match from ``start`` on, page after page."""
    hands: list[dict[str, Any]] = []
    while True:
        reply = await raw.request("history", start=start)
        assert reply["type"] == "ok", reply
        hands += reply["hands"]
        if reply["next"] is None:
            return hands
        start = reply["next"]


async def test_a_long_match_is_restored_from_its_stored_hands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An open-ended match restored after some finished hands is what it was before the stop
    (the seat's snapshot, the match's totals, hand number, dealer and stakes, the history of
    every finished hand), and the restore replayed the hand in play alone: the hands before
    it come from the store, so a restart costs the same after 10 hands or 10,000."""
    db = tmp_path / "long.db"
    server = Server(disk_config(db))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, hands=None)
    await ann.send({"type": "start"})
    finished = False
    turns = 0

    def second_turn_after_hand_9(msg: dict[str, Any]) -> bool:
        nonlocal finished, turns
        finished = finished or (msg["type"] == "hand_over" and msg["hand"] == 9)
        turns += finished and msg["type"] == "your_turn"
        return turns == 2

    await play(ann, second_turn_after_hand_9)
    live = server.lobby.tables[created["table"]].match
    assert live is not None and live.number > 9 and live.hand.actions
    kept = (live.number, live.dealer, live.multiplier, list(live.totals), live.hands_played)
    in_play = len(live.hand.actions)
    hands = await history(ann)
    assert [hand["hand"] for hand in hands] == list(range(live.number))
    await ann.close()
    before = await snapshot(server.port, created["token"])
    await server.stop()

    # The actions the restore read back to replay (counted at the store, which the compiled
    # build leaves in Python: a patched Match.apply is not what compiled callers call).
    applied = 0
    load = Store.load_open_tables

    def counted(store: Store, *args: Any, **kwargs: Any) -> list[TableRow]:
        nonlocal applied
        rows = load(store, *args, **kwargs)
        applied += sum(len(row.actions) for row in rows)
        return rows

    monkeypatch.setattr(Store, "load_open_tables", counted)
    server = Server(disk_config(db))
    await server.start()
    monkeypatch.undo()
    try:
        assert server.restored == 1
        assert applied == in_play  # the hand in play, not the match's every action
        match = server.lobby.tables[created["table"]].match
        assert match is not None and len(match.hand.actions) == in_play
        assert (
            match.number,
            match.dealer,
            match.multiplier,
            match.totals,
            match.hands_played,
        ) == kept
        assert comparable(await snapshot(server.port, created["token"])) == comparable(before)
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=created["token"])
        assert await history(ann) == hands  # read from the store, a page at a time
        assert await history(ann, 3) == hands[3:]
        await ann.close()
        ann = await Raw.open(server.port)  # prompted again (the request passed the prompt over)
        await ann.hello("Ann", token=created["token"])
        over = await play(ann, lambda msg: msg["type"] == "hand_over")
        assert over["hand"] == kept[0]  # the hand in play goes on
        after = await history(ann)
        assert after[:-1] == hands and after[-1]["hand"] == kept[0]
        await ann.close()
    finally:
        await server.stop()
