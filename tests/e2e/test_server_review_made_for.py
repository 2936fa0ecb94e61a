"""The coach's review judges a person only on their own decisions: the moves a stand-in made
while they were away, or the turn timer when their time ran out, are named apart
(``made_for``, PROTOCOL.md §4), not valued as theirs.

At a club evening bob's review said "Pass: as good as any" and "Trick 2: ..." of moves the
stand-in had made for him while his connection was down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.actions import action_from_dict
from engine.record import hand_from_record
from server.app import Server
from tests.e2e.test_server_tables import poll
from tests.server.support import (
    Raw,
    disk_config,
    raw_bot_table,
    raw_play,
    running_server,
)


def _choices(record: dict[str, Any], seat: int) -> list[int]:
    """The places in ``record``'s actions where ``seat`` had a choice (two legal actions or
    more), from the engine's replay."""
    hand = hand_from_record(record, stop_at=0)
    places = []
    for n, data in enumerate(record["actions"]):
        if hand.turn == seat and len(hand.legal_actions()) >= 2:
            places.append(n)
        hand.apply(action_from_dict(data))
    return places


def _check_review(
    review: dict[str, Any], record: dict[str, Any], made_for: list[int], by: str
) -> None:
    """``review`` of the hand of ``record`` judges seat 0's own decisions with a choice, each
    once, and names the moves ``by`` made for it at ``made_for`` apart, in order, unjudged."""
    assert review["type"] == "ok", review
    own = [n for n in _choices(record, 0) if n not in made_for]
    assert [row.get("n") for row in review["decisions"]] == own
    told = review.get("made_for") or []
    assert [(row["n"], row["by"]) for row in told] == [(n, by) for n in made_for]
    for row in told:
        assert "value" not in row and "cost" not in row
        done = {k: v for k, v in record["actions"][row["n"]].items() if k != "seat"}
        assert row["action"] == done  # the wire's action map: no seat


async def _last_record(raw: Raw) -> dict[str, Any]:
    """The record of the table's last finished hand, as ``history`` sends it."""
    reply = await raw.request("history")
    assert reply["type"] == "ok", reply
    return dict(reply["hands"][-1]["record"])


def _seat_actions(server: Server, table_id: str, seat: int) -> list[int]:
    """The places of ``seat``'s actions so far in the hand in play at ``table_id``."""
    match = server.lobby.tables[table_id].match
    assert match is not None
    return [n for n, a in enumerate(match.hand.actions) if a.seat == seat]


def _seat_actions_in(record: dict[str, Any], seat: int) -> list[int]:
    """The places of ``seat``'s actions in ``record``."""
    return [n for n, a in enumerate(record["actions"]) if a["seat"] == seat]


async def test_a_review_names_the_stand_ins_moves_apart_and_judges_only_the_persons() -> None:
    # A bot delay paces the stand-in, so that Ann is back before the hand is over.
    async with running_server(bot_delay=0.02) as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        created = await raw_bot_table(ann, bots=4, hints=True, hands=1, grace=0)
        table_id = created["table"]
        watcher = await Raw.open(server.port)  # the table stays attended while Ann is away
        await watcher.hello("Watcher")
        assert (await watcher.request("watch", table=table_id))["type"] == "ok"
        assert (await ann.request("start"))["type"] == "ok"
        await ann.close()  # gone before her first move; grace 0: a stand-in plays for her
        await watcher.expect("notice", code="standin", seat=0)
        await poll(lambda: len(_seat_actions(server, table_id, 0)) >= 3, "three stand-in moves")
        back = await Raw.open(server.port)
        assert (await back.hello("Ann", token=created["token"]))["seat"] == 0
        # From here on every move of seat 0 is hers: her return stopped the stand-in.
        stood_in = _seat_actions(server, table_id, 0)
        await raw_play(back)
        record = await _last_record(back)
        assert record["made_for"] == {"standin": stood_in}, record.get("made_for")
        # Her own decisions with a choice, each judged; the stand-in's only named.
        _check_review(await back.request("review"), record, stood_in, "standin")
        await back.close()
        await watcher.close()


async def _leave_to_the_timer(raw: Raw) -> None:
    """Let ``raw``'s next prompt run out: the turn timer moves for them."""
    await raw.expect("your_turn")
    await raw.expect("notice", code="timer_expired", seat=0)


async def test_a_review_names_the_turn_timers_moves_apart_also_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "timer.db"
    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    try:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        created = await raw_bot_table(ann, bots=4, hints=True, hands=2, turn_timer=0.1)
        assert (await ann.request("start"))["type"] == "ok"
        # Her first prompt of each hand is left to the timer; she answers the others herself
        # (a loaded machine may let the timer take another: each timer_expired notice counts).
        await _leave_to_the_timer(ann)
        log: list[dict[str, Any]] = []
        await raw_play(ann, stop="hand_over", log=log)
        timed = 1 + sum(m["type"] == "notice" and m["code"] == "timer_expired" for m in log)
        first = await _last_record(ann)
        places = first["made_for"]["timer"]
        assert len(places) == timed and set(first["made_for"]) == {"timer"}
        assert places[0] == _seat_actions_in(first, 0)[0]  # her first move was the timer's
        _check_review(await ann.request("review", hand=0), first, places, "timer")
        await _leave_to_the_timer(ann)  # in the second hand, then the server restarts
        table = server.lobby.tables[created["table"]]
        assert table.match is not None
        timed_out = len(table.match.hand.actions) - 1
        await ann.close()
    finally:
        await server.stop()
    server = Server(disk_config(db, seed_wait=0.0))
    await server.start()
    try:
        back = await Raw.open(server.port)
        await back.hello("Ann", token=created["token"])
        state = await back.expect("state")
        assert "by" not in (state["last"] or {})  # the stored row's field stays in the store
        assert (await _last_record(back))["made_for"] == first["made_for"]
        await raw_play(back)
        second = await _last_record(back)
        assert timed_out in second["made_for"]["timer"]
        _check_review(
            await back.request("review", hand=1), second, second["made_for"]["timer"], "timer"
        )
        await back.close()
    finally:
        await server.stop()
