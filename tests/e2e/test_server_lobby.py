"""The lobby against the real server: tables, passwords, seats, the host, bots, chat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from client.session import ServerError, Session
from engine.bots import strategy_names
from tests.e2e.test_server_tables import poll
from tests.server.support import Raw, drain, next_event, running_server, session

A_KEY = "the-player-key-of-player-a"
E_KEY = "the-player-key-of-player-e"


async def refused(s: Session, type: str, code: str, **fields: object) -> ServerError:
    """Send a request that must be refused with ``code``."""
    with pytest.raises(ServerError) as exc:
        await s.request(type, **fields)
    assert exc.value.code == code, exc.value
    return exc.value


async def test_a_full_lobby_flow(tmp_path: Path) -> None:
    async with running_server(password_burst=40.0) as server:  # many tries from one address
        keys = {"A": A_KEY, "E": E_KEY}
        host, *others = [
            session(server, n, tmp_path, player_key=keys.get(n))
            for n in ["Host", "A", "B", "C", "D", "E"]
        ]
        for s in [host, *others]:
            await s.connect()

        await refused(host, "create_table", "bad_rules", name="x", preset="nonsense")
        await refused(host, "create_table", "bad_rules", name="x", options={"cracking": "yes"})
        await refused(host, "create_table", "bad_rules", name="x", options={"crackling": True})
        await refused(host, "create_table", "bad_rules", name="x", options={"jack_order": 3})
        error = await refused(host, "create_table", "bad_request", name="x", hands="two")
        assert "'hands'" in error.message
        error = await refused(host, "create_table", "bad_request", turn_timer=-1)
        assert "'turn_timer'" in error.message

        reply = await host.request(
            "create_table",
            name="Friday \x1b[31mnight",
            preset="wisconsin",
            options={"leaster_needs_trick": False},
            hands=3,
            password="sesame",
            turn_timer=None,
        )
        table, token = reply["table"], reply["token"]
        assert reply["seat"] == 0 and len(token) >= 32
        state = await next_event(host, "state")
        assert state["info"]["host"] == "Host" and state["view"] is None

        [summary] = (await others[0].request("list_tables"))["tables"]
        assert summary["id"] == table and summary["name"] == "Friday night"
        assert summary["password"] is True and summary["state"] == "waiting"
        assert summary["rules"] == {"preset": "wisconsin", "leaster_needs_trick": False}
        assert summary["hands"] == 3 and summary["seats"][0]["name"] == "Host"
        flat = repr(summary)
        assert "sesame" not in flat and token not in flat  # no secrets in the lobby

        await refused(others[0], "join", "bad_password", table=table, password="open up")
        await refused(others[0], "join", "bad_password", table=table)
        await refused(others[0], "join", "no_such_table", table="t999", password="sesame")
        await refused(others[0], "join", "seat_taken", table=table, seat=0, password="sesame")
        error = await refused(others[0], "join", "bad_request", table=table, seat=7)
        assert "'seat'" in error.message
        seated = await others[0].request("join", table=table, seat=3, password="sesame")
        assert seated["seat"] == 3 and seated["token"] != token
        await refused(others[0], "join", "already_seated", table=table, password="sesame")
        await refused(others[0], "create_table", "already_seated", name="second")

        # The lobby tells a player key which listed table holds its seat (that key only): A's
        # key on another device (no seat token there) sees seat 3, connected; nobody else
        # does, keyless or with a key of their own.
        twin = session(server, "A twin", tmp_path, player_key=A_KEY)
        await twin.connect()
        [summary] = (await twin.request("list_tables"))["tables"]
        assert summary["yours"] == {"seat": 3, "away": False}
        for s in (host, others[3], others[4]):
            [summary] = (await s.request("list_tables"))["tables"]
            assert "yours" not in summary
        # A's connection drops: the seat is kept for its token, and its key sees it away; Enter
        # in the lobby (join, no seat) takes it back under A's name. The twin plays A from here.
        await others[0].close()
        await poll(lambda: server.lobby.tables[table].seats[3].peer is None, "A gone")
        [summary] = (await twin.request("list_tables"))["tables"]
        assert summary["yours"] == {"seat": 3, "away": True}
        [summary] = (await others[4].request("list_tables"))["tables"]
        assert "yours" not in summary
        back = await twin.request("join", table=table, seat=None, password="sesame")
        assert (back["seat"], back["name"]) == (3, "A")
        others[0] = twin

        # Only the host runs the table.
        for type, fields in [
            ("add_bot", {}),
            ("remove_bot", {"seat": 1}),
            ("start", {}),
            ("end_match", {}),
        ]:
            await refused(others[0], type, "not_host", **fields)
        await refused(others[1], "start", "not_seated")
        await refused(host, "start", "not_enough_players")
        error = await refused(host, "add_bot", "bad_request", strategy="grandmaster")
        assert all(name in error.message for name in strategy_names())
        await refused(host, "remove_bot", "not_a_bot", seat=3)
        await refused(host, "add_bot", "seat_taken", seat=3)

        bot = await host.request("add_bot", seat=4, strategy="random")
        assert bot["seat"] == 4
        await host.request("remove_bot", seat=4)
        await host.request("add_bot", seat=4, strategy="random")
        for s in others[1:3]:
            await s.request("join", table=table, password="sesame")
        await refused(others[3], "join", "table_full", table=table, password="sesame")
        [summary] = (await others[3].request("list_tables"))["tables"]
        kinds = [(x["kind"], x["name"]) for x in summary["seats"]]
        assert kinds[0] == ("human", "Host") and kinds[3] == ("human", "A")
        assert kinds[4][0] == "bot" and summary["seats"][4]["strategy"] == "random"

        # A spectator can watch and chat, but not act.
        # Watching a password table needs the password too (spectators read its chat).
        await refused(others[3], "watch", "bad_password", table=table)
        await refused(others[3], "watch", "bad_password", table=table, password="nope")
        await others[3].request("watch", table=table, password="sesame")
        snapshot = await next_event(others[3], "state")
        assert snapshot["seat"] is None and snapshot["info"]["spectators"] == 1
        await refused(others[3], "start", "not_host")
        await refused(others[3], "action", "not_seated", seq=1, action={"action": "pass"})

        # Chat arrives cleaned, with the sender's name and seat, at everyone at the table.
        for s in [host, *others]:
            drain(s)
        await others[0].request("chat", text="hi\x1b]0;pwned\x07 \u202eall\t\tof you")
        for s in [host, others[1], others[3]]:
            line = await next_event(s, "chat")
            assert line == {
                "type": "chat",
                "table": table,
                "from": "A",
                "seat": 3,
                "text": "hi all of you",
                "spectator": False,
            }
        # A spectator's line says so, with no seat.
        await others[3].request("chat", text="just watching")
        line = await next_event(host, "chat")
        assert (line["seat"], line["spectator"], line["text"]) == (None, True, "just watching")
        await refused(others[0], "chat", "bad_request", text="x" * 201)
        await refused(others[0], "chat", "bad_request", text="\x1b[2J\x07")
        codes = []
        for _ in range(10):
            try:
                await others[0].request("chat", text="spam")
            except ServerError as exc:
                codes.append(exc.code)
        assert codes and set(codes) == {"rate_limited"}

        # Leaving before the start frees the seat; the host leaving hands the table on.
        await others[1].request("leave")
        assert others[1].table is None
        state = await next_event(host, "state")
        assert state["info"]["seats"][1]["kind"] == "empty"
        await host.request("leave")
        notice = await next_event(others[0], "notice", code="host")
        assert notice["seat"] == 2  # the lowest seated player: C
        state = await next_event(others[0], "state")
        assert state["info"]["host"] == "C" and state["info"]["host_seat"] == 2
        new_host = others[2]
        await host.request("join", table=table, password="sesame")
        await refused(host, "add_bot", "not_host")
        await new_host.request("add_bot")
        await new_host.request("start")
        await refused(new_host, "start", "already_started")
        await refused(host, "join", "already_seated", table=table, password="sesame")
        await new_host.request("end_match")
        over = await next_event(host, "match_over")
        assert over["hands"] == 0 and over["totals"] == [0, 0, 0, 0, 0]
        await refused(new_host, "end_match", "match_over")
        for s in [host, *others]:
            await s.close()


async def test_one_player_and_four_server_bots_play_to_the_end(tmp_path: Path) -> None:
    async with running_server() as server:
        me = session(server, "Solo", tmp_path)
        await me.connect()
        reply = await me.request("create_table", name="solo", hands=2)
        for _ in range(4):
            await me.request("add_bot")  # the default strategy
        [summary] = (await me.request("list_tables"))["tables"]
        strategies = {x["strategy"] for x in summary["seats"][1:]}
        assert strategies == {"heuristic" if "heuristic" in strategy_names() else "random"}
        await me.request("start")

        async def play() -> dict[str, object]:
            while True:
                msg = await me.events.get()
                if msg["type"] == "your_turn":
                    await me.act(msg["legal"][-1], seq=msg["seq"])
                elif msg["type"] == "match_over":
                    return msg

        over = await asyncio.wait_for(play(), 30)
        assert over["hands"] == 2 and sum(over["totals"]) == 0  # type: ignore[arg-type]
        assert server.store is not None
        assert len(server.store.hand_records(reply["table"])) == 2
        await me.close()


async def test_open_ended_match_runs_until_the_host_ends_it(tmp_path: Path) -> None:
    async with running_server() as server:
        me = session(server, "Host", tmp_path)
        await me.connect()
        await me.request("create_table", name="open", hands=None)
        for _ in range(4):
            await me.request("add_bot", strategy="random")
        await me.request("start")
        hands = 0
        while hands < 3:
            msg = await asyncio.wait_for(me.events.get(), 10)
            if msg["type"] == "your_turn":
                await me.act(msg["legal"][0], seq=msg["seq"])
            elif msg["type"] == "hand_over":
                hands += 1
        await me.request("end_match")
        over = await next_event(me, "match_over")
        assert over["hands"] >= 3 and sum(over["totals"]) == 0
        await me.close()


async def test_a_refused_request_leaves_a_spectator_watching(tmp_path: Path) -> None:
    async with running_server() as server:
        host, fan = session(server, "Host", tmp_path), session(server, "Fan", tmp_path)
        for s in (host, fan):
            await s.connect()
        first = (await host.request("create_table", name="open"))["table"]
        await host.request("leave")  # closes it: nobody is seated
        await refused(fan, "watch", "no_such_table", table=first)
        open_table = (await host.request("create_table", name="watched"))["table"]
        other = session(server, "Other", tmp_path)
        await other.connect()
        locked = (await other.request("create_table", name="locked", password="pw"))["table"]
        await fan.request("watch", table=open_table)
        await refused(fan, "join", "bad_password", table=locked, password="nope")
        await refused(fan, "create_table", "bad_rules", name="x", preset="nope")
        tables = {t["id"]: t for t in (await fan.request("list_tables"))["tables"]}
        assert tables[open_table]["spectators"] == 1 and fan.table == open_table
        joined = await fan.request("join", table=locked, password="pw")  # now it moves
        tables = {t["id"]: t for t in (await fan.request("list_tables"))["tables"]}
        assert tables[open_table]["spectators"] == 0 and joined["table"] == locked
        for s in (host, fan, other):
            await s.close()


async def test_a_tables_spectators_are_capped_and_a_leave_frees_a_place() -> None:
    async with running_server(max_spectators_per_table=2) as server:
        host, other_host = await Raw.open(server.port), await Raw.open(server.port)
        await host.hello("Host")
        await other_host.hello("Elsewhere")
        busy = (await host.request("create_table", name="busy"))["table"]
        calm = (await other_host.request("create_table", name="calm"))["table"]
        fans = [await Raw.open(server.port) for _ in range(4)]
        for n, fan in enumerate(fans):
            await fan.hello(f"Fan {n}")
        await fans[3].request("watch", table=calm)
        for fan in fans[:2]:  # the host's seat is no spectator: two watch
            assert (await fan.request("watch", table=busy))["type"] == "ok"
        assert (await fans[0].request("watch", table=busy))["type"] == "ok"  # its own place
        for late in fans[2:]:
            reply = await late.request("watch", table=busy)
            assert reply["code"] == "too_many_spectators" and "2 spectators" in reply["message"]
        # The refusal changed nothing: the third still watches its table, which goes on.
        await other_host.request("chat", text="still here")
        assert (await fans[3].expect("chat"))["text"] == "still here"
        listed = {t["id"]: t for t in (await host.request("list_tables"))["tables"]}
        assert (listed[busy]["spectators"], listed[calm]["spectators"]) == (2, 1)
        assert (await fans[0].request("leave"))["type"] == "ok"
        assert (await fans[2].request("watch", table=busy))["type"] == "ok"  # the freed place
        await fans[1].close()  # a dropped spectator frees its place as soon as it is noticed
        table = server.lobby.find(busy)
        await poll(lambda: len(table.spectators) == 1, "the dropped spectator's place")
        assert (await fans[3].request("watch", table=busy))["type"] == "ok"
        for raw in (host, other_host, fans[0], fans[2], fans[3]):
            await raw.close()
