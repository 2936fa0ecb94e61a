"""The ``hint`` request over real sockets: the coach answers the seat to act, in a bot worker,
and nobody else; asking changes nothing at the table."""

from __future__ import annotations

import asyncio
from typing import Any

from protocol.framing import encode
from server.app import Server
from tests.server.support import Raw, raw_bot_table, raw_play, running_server


async def _next_turn(players: list[Raw]) -> tuple[Raw, dict[str, Any]]:
    """The player whose ``your_turn`` comes first, and that prompt."""
    waits = {asyncio.create_task(p.expect("your_turn")): p for p in players}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    task = done.pop()
    return waits[task], task.result()


def _table_state(server: Server, table_id: str) -> tuple[int, int, int]:
    table = server.lobby.tables[table_id]
    assert table.match is not None
    return table.seq, table.turn_seq, len(table.match.hand.actions)


async def test_the_seat_to_act_gets_two_ranked_legal_choices_and_nobody_else_does() -> None:
    async with running_server() as server:
        ann, bob = await Raw.open(server.port), await Raw.open(server.port)
        await ann.hello("Ann")
        await bob.hello("Bob")
        created = await raw_bot_table(ann, bots=3, hints=True, hands=2)
        table_id = created["table"]
        assert server.lobby.tables[table_id].summary()["hints"] is True
        assert (await bob.request("join", table=table_id))["type"] == "ok"
        assert (await ann.request("start"))["type"] == "ok"
        asked = 0
        kinds = set()
        while asked < 4:
            player, prompt = await _next_turn([ann, bob])
            other = bob if player is ann else ann
            before = _table_state(server, table_id)
            refused = await other.request("hint")
            assert refused["type"] == "error" and refused["code"] == "not_your_turn", refused
            reply = await player.request("hint")
            assert reply["type"] == "ok", reply
            candidates = reply["candidates"]
            assert 1 <= len(candidates) <= 2
            for c in candidates:
                assert c["action"] in prompt["legal"]  # the wire's legal maps: no seat field
            if len(candidates) == 2:
                kinds.add(prompt["legal"][0]["action"])
                assert reply["deals"] > 0
                assert candidates[0]["value"] >= candidates[1]["value"]
            assert _table_state(server, table_id) == before  # asking changed nothing
            asked += 1
            # One hint at a time per connection: two in one segment, the second is refused.
            first = player.ids + 1
            player.ids += 2
            await player.send_bytes(
                encode({"type": "hint", "id": first}) + encode({"type": "hint", "id": first + 1})
            )
            assert (await player.expect_reply(first + 1))["code"] == "rate_limited"
            assert (await player.expect_reply(first))["type"] == "ok"
            answer = {"type": "action", "seq": prompt["seq"], "action": prompt["legal"][0]}
            await player.send(answer)
        assert kinds
        await ann.close()
        await bob.close()


async def test_a_bot_connection_and_a_table_without_hints_are_refused() -> None:
    async with running_server() as server:
        bot = await Raw.open(server.port)
        welcome = await bot.request("hello", version=1, client="test/1", kind="bot", name="Robo")
        assert welcome["type"] == "welcome", welcome
        await raw_bot_table(bot, bots=4, hints=True)
        await bot.request("start")
        await bot.expect("your_turn")
        reply = await bot.request("hint")
        assert reply["type"] == "error" and reply["code"] == "not_allowed", reply
        await bot.close()

        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        created = await raw_bot_table(ann, bots=4)
        assert server.lobby.tables[created["table"]].summary()["hints"] is False
        early = await ann.request("hint")
        assert early["type"] == "error" and early["code"] == "hints_off", early
        await ann.request("start")
        await ann.expect("your_turn")
        reply = await ann.request("hint")
        assert reply["type"] == "error" and reply["code"] == "hints_off", reply
        bad = await ann.request("create_table", hints="yes")
        assert bad["type"] == "error" and bad["code"] == "bad_request", bad
        await ann.close()

        nobody = await Raw.open(server.port)
        await nobody.hello("Cy")
        reply = await nobody.request("hint")
        assert reply["type"] == "error" and reply["code"] == "not_seated", reply
        await nobody.close()


async def test_a_hint_before_the_start_is_not_started() -> None:
    async with running_server() as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        await raw_bot_table(ann, bots=4, hints=True)
        reply = await ann.request("hint")
        assert reply["type"] == "error" and reply["code"] == "not_started", reply
        await ann.close()


async def test_a_review_values_each_decision_of_the_seat_in_a_finished_hand() -> None:
    async with running_server() as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann")
        await raw_bot_table(ann, bots=4, hints=True, hands=1)
        early = await ann.request("review")
        assert early["type"] == "error" and early["code"] == "bad_request", early
        await ann.request("start")
        log: list[dict[str, Any]] = []
        await raw_play(ann, log=log)
        sent = [m["legal"][0] for m in log if m["type"] == "your_turn"]
        reply = await ann.request("review")
        assert reply["type"] == "ok" and reply["hand"] == 0, reply
        rows = reply["decisions"]
        assert rows  # six cards to play at least, some with a choice
        for row in rows:
            assert row["action"] in sent
            assert row["trick"] is None or 1 <= row["trick"] <= 6
            if row["cost"] is not None:
                assert row["cost"] >= 0 and row["deals"] > 0
                assert row["best_value"] >= row["value"] - 1e-9
        assert any(row["trick"] is not None for row in rows)
        again = await ann.request("review", hand=0)
        assert again["type"] == "ok" and len(again["decisions"]) == len(rows)
        missing = await ann.request("review", hand=1)
        assert missing["type"] == "error" and missing["code"] == "bad_request", missing
        await ann.close()

        bob = await Raw.open(server.port)
        await bob.hello("Bob")
        await raw_bot_table(bob, bots=4, hands=1)
        await bob.request("start")
        await raw_play(bob)
        refused = await bob.request("review")
        assert refused["type"] == "error" and refused["code"] == "hints_off", refused
        await bob.close()
