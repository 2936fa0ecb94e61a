"""Playing against the real server: refused actions, stale prompts, reconnecting with a token."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from client.session import ServerError, Session, TokenStore
from protocol.errors import ENGINE_ERROR_CODES
from tests.server.support import (
    Raw,
    drain,
    drive,
    full_table,
    next_event,
    running_server,
    session,
    wait_turn,
)


async def no_state_after(s: Session, seq: int, seconds: float) -> None:
    """Fail if ``s`` hears of a state newer than ``seq`` within ``seconds``."""
    await asyncio.sleep(seconds)
    assert s.last_state is not None and s.last_state["seq"] == seq


async def test_refused_actions_change_nothing(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"E{i}", tmp_path) for i in range(5)]
        await full_table(players, hands=1)
        await players[0].request("start")
        seat, prompt = await wait_turn(players, 0)
        actor, other = players[seat], players[(seat + 1) % 5]
        assert prompt["decision"] == "pick"

        with pytest.raises(ServerError) as exc:  # out of turn
            await other.request("action", seq=prompt["seq"], action={"action": "pass"})
        assert exc.value.code == "not_your_turn"
        with pytest.raises(ServerError) as exc:  # for another seat
            await other.request(
                "action", seq=prompt["seq"], action={"action": "pass", "seat": seat}
            )
        assert exc.value.code == "not_your_turn"
        with pytest.raises(ServerError) as exc:
            await actor.request(
                "action", seq=prompt["seq"], action={"action": "pass", "seat": (seat + 1) % 5}
            )
        assert exc.value.code == "not_your_turn"
        with pytest.raises(ServerError) as exc:  # an old seq
            await actor.request("action", seq=prompt["seq"] - 1, action={"action": "pass"})
        assert exc.value.code == "stale"
        with pytest.raises(ServerError) as exc:  # a seq from the future
            await actor.request("action", seq=prompt["seq"] + 5, action={"action": "pass"})
        assert exc.value.code == "stale"
        with pytest.raises(ServerError) as exc:  # the wrong kind of action for the phase
            await actor.request(
                "action", seq=prompt["seq"], action={"action": "play", "card": "QC"}
            )
        assert exc.value.code == "illegal_action"
        with pytest.raises(ServerError) as exc:
            await actor.request(
                "action", seq=prompt["seq"], action={"action": "play", "card": "ZZ"}
            )
        assert exc.value.code == "bad_card"
        with pytest.raises(ServerError) as exc:
            await actor.request("action", seq=prompt["seq"], action={"action": "dance"})
        assert exc.value.code == "bad_request" and "action" in exc.value.message
        with pytest.raises(ServerError) as exc:
            await actor.request("action", seq=prompt["seq"])
        assert exc.value.code == "bad_request" and "'action'" in exc.value.message
        # None of that changed anything anyone could see.
        await no_state_after(other, prompt["seq"], 0.1)

        # Picking keeps the turn (the picker buries next): the pick's seq is then stale.
        assert {"action": "pick"} in prompt["legal"]
        await actor.act({"action": "pick"})
        _, bury = await wait_turn(players, prompt["seq"])
        assert bury["seq"] == prompt["seq"] + 1 and bury["decision"] == "bury"
        with pytest.raises(ServerError) as exc:
            await actor.request("action", seq=prompt["seq"], action=bury["legal"][0])
        assert exc.value.code == "stale"

        # Into trick play: a card you do not hold, then a card that breaks a rule.
        seat, prompt = await drive(
            players, prompt["seq"], lambda s, p, v: p["decision"] == "play" and v["trick"]["cards"]
        )
        view = players[seat].last_state["view"]  # type: ignore[index]
        legal = {a["card"] for a in prompt["legal"]}
        foreign = next(c for t in view["trick"]["cards"] for c in [t["card"]])
        with pytest.raises(ServerError) as exc:
            await players[seat].act({"action": "play", "card": foreign})
        assert exc.value.code == "illegal_card"
        illegal = [c for c in view["hand"] if c not in legal]
        if illegal:
            with pytest.raises(ServerError) as exc:
                await players[seat].act({"action": "play", "card": illegal[0]})
            assert exc.value.code in ENGINE_ERROR_CODES
            assert exc.value.code not in ("illegal_card", "not_your_turn")
        before = players[seat].last_state["seq"]  # type: ignore[index]
        await players[seat].act(prompt["legal"][0])
        _, after = await wait_turn(players, prompt["seq"])
        assert after["seq"] == before + 1  # the refusals did not move seq
        for p in players:
            await p.close()


async def test_reconnect_mid_trick_with_token_and_continue(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"R{i}", tmp_path) for i in range(5)]
        table = await full_table(players, hands=1)
        await players[0].request("start")
        seat, prompt = await drive(
            players, 0, lambda s, p, v: p["decision"] == "play" and len(v["trick"]["cards"]) == 2
        )
        victim = players[seat]
        before = victim.last_state
        assert before is not None
        watcher = players[(seat + 1) % 5]

        for p in players:
            drain(p)
        victim._writer.transport.abort()  # type: ignore[union-attr]  # the cable is pulled
        notice = await next_event(watcher, "notice", code="disconnected")
        assert notice["seat"] == seat
        gone = await next_event(watcher, "state")
        assert gone["info"]["seats"][seat]["connected"] is False
        with pytest.raises(ServerError) as exc:  # the others cannot act for the absent seat
            await watcher.request("action", seq=gone["seq"], action=prompt["legal"][0])
        assert exc.value.code == "not_your_turn"

        await next_event(victim, "connection", status="connected")
        snapshot = await next_event(victim, "state")
        again = await next_event(victim, "your_turn")
        assert snapshot["view"]["hand"] == before["view"]["hand"]
        assert snapshot["view"]["trick"] == before["view"]["trick"]
        assert again["legal"] == prompt["legal"] and again["seq"] == snapshot["seq"]
        assert victim.table == table and victim.seat == seat
        await next_event(watcher, "notice", code="reconnected")

        # The new prompt answers fine, and the hand plays to its end.
        await victim.act(again["legal"][0])
        finish = asyncio.create_task(drive(players, again["seq"], lambda s, p, v: False))
        over = await next_event(players[0], "match_over", timeout=10)
        finish.cancel()
        assert sum(over["totals"]) == 0
        for p in players:
            await p.close()


async def test_a_restarted_client_takes_its_seat_back_and_the_old_one_is_replaced(
    tmp_path: Path,
) -> None:
    async with running_server() as server:
        players = [session(server, f"N{i}", tmp_path) for i in range(5)]
        table = await full_table(players, hands=1)
        old = players[2]
        fresh = Session(
            "127.0.0.1",
            server.port,
            name="N2",
            token_store=TokenStore(tmp_path / "tokens-N2.json"),
            reconnect=False,
        )
        welcome = await fresh.connect()
        assert (welcome["table"], welcome["seat"]) == (table, 2)
        snapshot = await next_event(fresh, "state")
        assert snapshot["seat"] == 2 and snapshot["info"]["seats"][2]["connected"]
        replaced = await next_event(old, "notice", code="replaced")
        assert replaced["seat"] == 2 and "another window" in replaced["text"]
        # The old client says where its seat went, and goes on in the lobby (it closed, and a
        # window the player had open sat dead at a table it no longer heard from) without
        # the token, which is the newer client's now: it does not fight back.
        lost = await next_event(old, "table_lost", code="replaced")
        assert (lost["table"], lost["seat"]) == (table, 2)
        await next_event(old, "connection", status="connected")
        assert old.table is None and old.token is None
        assert "tables" in await old.request("list_tables")
        assert server.lobby.tables[table].seats[2].peer is not None
        assert fresh.status == "connected" and fresh.seat == 2
        assert old.token_store is not None
        assert old.token_store.get(old.server_key, "N2") is not None  # left to the other
        for p in [*players, fresh]:
            await p.close()


async def test_wrong_token_gets_bad_token(tmp_path: Path) -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        welcome = await raw.hello("Mallory", token="not-a-real-token")
        assert welcome["table"] is None and welcome["seat"] is None
        error = await raw.expect("error")
        assert error["code"] == "bad_token" and error["id"] is None
        await raw.close()

        store = TokenStore(tmp_path / "tokens.json")
        store.put(f"127.0.0.1:{server.port}", "Eve", "stale-token")
        s = Session("127.0.0.1", server.port, name="Eve", token_store=store)
        await s.connect()
        error = await next_event(s, "error")
        assert error["code"] == "bad_token"
        assert s.table is None and store.get(f"127.0.0.1:{server.port}", "Eve") is None
        await s.close()


async def test_two_clients_of_one_name_and_config_keep_each_others_seat(tmp_path: Path) -> None:
    """Two terminals of one player (one config directory, so one token file, and one name),
    one in the lobby and one seated. The lobby one's reconnect sent the token the other had
    filed and took its seat over; and a leave in one deleted the token the other had filed, so
    that one, restarted, was at no table (with no player key, locked out of its seat)."""
    async with running_server() as server:
        lobby, seated = session(server, "Ann", tmp_path), session(server, "Ann", tmp_path)
        await lobby.connect()
        await seated.connect()
        second = (await seated.request("create_table", name="second"))["table"]
        holder = server.lobby.tables[second].seats[0].peer
        (dropped,) = (c for c in server.connections if c.table is None)
        dropped.transport.abort()
        await next_event(lobby, "connection", status="reconnecting")
        await next_event(lobby, "connection", status="connected")
        assert lobby.table is None, "the lobby window's reconnect took the other's seat"
        assert server.lobby.tables[second].seats[0].peer is holder
        assert seated.table == second

        first = (await lobby.request("create_table", name="first"))["table"]
        assert (await seated.request("leave"))["type"] == "ok"
        await lobby.close()  # a crash: its token stays in the store
        restarted = session(server, "Ann", tmp_path)
        welcome = await restarted.connect()
        assert welcome["table"] == first, "a leave at the other table forgot this one's token"
        for s in (restarted, seated):
            await s.close()


async def test_refused_crack_round_actions_change_nothing(tmp_path: Path) -> None:
    async with running_server() as server:
        players = [session(server, f"C{i}", tmp_path) for i in range(5)]
        await full_table(players, preset="tavern", options={"crack_by": "defenders"}, hands=1)
        await players[0].request("start")
        seat, prompt = await drive(players, 0, lambda s, p, v: p["decision"] == "crack")
        actor, other = players[seat], players[(seat + 1) % 5]
        view = actor.last_state["view"]  # type: ignore[index]
        assert view["phase"] == "crack" and view["stakes"] == 1 and view["crack"] is None
        assert {"action": "no_crack"} in prompt["legal"]
        refusals = [
            ({"action": "crack", "blitz": "green"}, "bad_request"),
            ({"action": "blitz"}, "bad_request"),
            ({"action": "blitz", "pair": "red"}, "illegal_action"),
            ({"action": "recrack"}, "illegal_action"),
            ({"action": "no_recrack"}, "illegal_action"),
        ]
        if prompt["legal"] == [{"action": "no_crack"}]:  # the partner: it may not crack
            refusals.append(({"action": "crack"}, "illegal_action"))
        for action, code in refusals:
            with pytest.raises(ServerError) as exc:
                await actor.request("action", seq=prompt["seq"], action=action)
            assert exc.value.code == code, action
        await no_state_after(other, prompt["seq"], 0.1)
