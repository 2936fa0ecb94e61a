"""The coach's review judges a person only on their own decisions: the moves a stand-in made
while they were away, or the turn timer when their time ran out, are named apart
(``made_for``, PROTOCOL.md §4), not valued as theirs; so are the moves made at a seat before
a newcomer took it over during the hand (``before``), and a hand the seat played before they
sat down is not reviewed for them at all.

At a club evening bob's review said "Pass: as good as any" and "Trick 2: ..." of moves the
stand-in had made for him while his connection was down."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.actions import action_from_dict
from engine.record import hand_from_record
from server.app import Server
from tests.e2e.test_server_freed_seat import play_on
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
    review: dict[str, Any], record: dict[str, Any], made_for: list[int], by: str, seat: int = 0
) -> None:
    """``review`` of the hand of ``record`` judges ``seat``'s own decisions with a choice, each
    once, and names the moves ``by`` made for it at ``made_for`` apart, in order, unjudged."""
    assert review["type"] == "ok", review
    own = [n for n in _choices(record, seat) if n not in made_for]
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


BOB_KEY = "bob-player-key-0001"
"""Bob's player key, where he sends one."""


@pytest.mark.parametrize(
    ("newcomer", "keys", "hand_0_theirs"),
    [
        ("Carl", (None, None), False),
        # Before, a newcomer under the name Bob played hand 0 under was judged on Bob's moves.
        ("Bob", (None, None), False),
        ("Bob", (BOB_KEY, "another-player-key-02"), False),
        ("Bob", (BOB_KEY, BOB_KEY), True),  # Bob himself, back with his key: his own hand
    ],
    ids=["another-name", "same-name", "same-name-other-key", "same-key"],
)
async def test_a_newcomers_review_judges_none_of_the_earlier_holders_moves(
    tmp_path: Path, newcomer: str, keys: tuple[str | None, str | None], hand_0_theirs: bool
) -> None:
    """Bob plays hand 0 and the first move of his seat in hand 1, then leaves; a stand-in
    plays his emptied seat until a newcomer takes it over. The newcomer's review of hand 1
    names Bob's move and the stand-in's apart (``before``) and judges only their own; hand 0
    is not theirs to review, also under Bob's name, unless they are Bob (his player key).
    All of it holds after a restart (the history is then built from the stored records)."""
    db = tmp_path / "takeover.db"
    bob_key, newcomer_key = ({"player_key": key} if key else {} for key in keys)
    # A bot delay paces the stand-in, so that Carl sits down before the hand is over.
    async with running_server(db_path=db, default_bot="random", bot_delay=0.02) as server:
        ann, bob, carl = [await Raw.open(server.port) for _ in range(3)]
        await ann.hello("Ann")
        await bob.hello("Bob", **bob_key)
        await carl.hello(newcomer, **newcomer_key)
        table_id = (await raw_bot_table(ann, bots=3, hints=True, hands=2))["table"]
        assert (await bob.request("join", table=table_id))["seat"] == 4
        assert (await ann.request_keeping("start"))["type"] == "ok"
        hosting = asyncio.create_task(play_on(ann))
        await raw_play(bob, stop="hand_over")  # hand 0 is all Bob's
        # Hand 1: Bob's moves up to his first choice (two legal actions or more), then he
        # leaves (the dealer's pick may be forced: no choice, judged for nobody).
        moved = 0
        while True:
            turn = await bob.expect("your_turn")
            await bob.send({"type": "action", "seq": turn["seq"], "action": turn["legal"][0]})
            moved += 1
            if len(turn["legal"]) >= 2:
                break
        await poll(lambda: len(_seat_actions(server, table_id, 4)) >= moved, "Bob's choice")
        assert (await bob.request("leave"))["type"] == "ok"
        await poll(lambda: len(_seat_actions(server, table_id, 4)) > moved, "a stand-in's move")
        joined = await carl.request_keeping("join", table=table_id, seat=4)
        assert joined["type"] == "ok", joined
        taken = _seat_actions(server, table_id, 4)  # none of them Carl's
        await asyncio.gather(play_on(carl), hosting)
        record = await _last_record(carl)
        assert record["made_for"]["before"] == taken
        assert record["made_for"]["standin"] == taken[moved:]  # the stand-in's, as it was told
        _check_review(await carl.request("review", hand=1), record, taken, "before", seat=4)
        hand_0 = await carl.request("review", hand=0)
        if hand_0_theirs:
            assert hand_0["type"] == "ok" and hand_0["decisions"], hand_0
        else:
            assert hand_0["type"] == "error" and hand_0["code"] == "bad_request", hand_0
            assert "Bob" in hand_0["message"]
        for raw in (ann, bob, carl):
            await raw.close()
    async with running_server(db_path=db, default_bot="random") as server:
        back = await Raw.open(server.port)
        welcome = await back.hello(newcomer, token=joined["token"], **newcomer_key)
        assert welcome["seat"] == 4
        assert (await _last_record(back))["made_for"] == record["made_for"]
        _check_review(await back.request("review", hand=1), record, taken, "before", seat=4)
        again = await back.request("review", hand=0)
        assert again["type"] == ("ok" if hand_0_theirs else "error"), again
        await back.close()
