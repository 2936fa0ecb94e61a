"""The turn timer takes the least committal legal action for a person whose time ran out, and
its notice says what it did (PROTOCOL.md §6, ``timer_expired``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from client.session import ServerError
from engine.bots import STRATEGIES, register
from server.app import Server
from server.tables import turns
from tests.server.support import (
    Raw,
    disk_config,
    next_event,
    raw_bot_table,
    running_server,
    session,
)

COMMITTING = ("pick", "blitz", "alone", "crack", "recrack")
"""The actions that commit a player to more than the game asks (docs/rules.md)."""

WORDS = {
    "pass": "passed for them",
    "pick": "picked for them",
    "bury": "buried for them",
    "call": "called a partner for them",
    "unknown": "called a partner for them",
    "alone": "went alone for them",
    "no_crack": "no crack for them",
    "no_recrack": "no re-crack for them",
    "play": "a bot played for them",
}
"""What the notice says was done, by the action taken."""


def _boldest(legal: Sequence[Any]) -> Any:
    return next((a for a in legal if a.get("action") in COMMITTING), legal[0])


class Bold:
    """Takes the most committal action it is offered: picks, blitzes, goes alone, cracks."""

    name = "timer_bold"

    def __init__(self, *, seed: int | None = None) -> None:
        del seed

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """The first committing action, else the first legal one."""
        return _boldest(legal)


class Stubborn(Bold):
    """Never picks unless made to, and is bold otherwise: the blind comes round to every seat,
    the dealer must pick (``forced-pick``), and a picker is cracked."""

    name = "timer_stubborn"

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """Pass when it may, else the boldest action."""
        return next((a for a in legal if a.get("action") == "pass"), None) or _boldest(legal)


@pytest.fixture
def bold_strategies() -> Iterator[None]:
    """Register both strategies in this process (the server runs them, ``bot_workers`` 0)."""
    register(Bold.name, "the boldest action")(Bold)
    register(Stubborn.name, "passes, else the boldest action")(Stubborn)
    try:
        yield
    finally:
        for name in (Bold.name, Stubborn.name):
            STRATEGIES.pop(name, None)


async def test_the_timer_passes_declines_and_calls_for_a_person_rather_than_commit_them(
    bold_strategies: None, tmp_path: Path
) -> None:
    # The strategy the timer asks is the boldest there is: left to it, the sleeper would pick,
    # blitz, go alone and crack. Four bots that pass bring the blind round to the sleeper
    # every hand; the dealer must pick; any defender may crack, and the bots do.
    async with running_server(bot_workers=0, default_bot=Bold.name) as server:
        me = session(server, "Sleepy", tmp_path)
        await me.connect()
        options = {"no_pick": "forced-pick", "crack_by": "defenders"}
        await me.request(
            "create_table", name="timed", preset="tavern", options=options, hands=None,
            turn_timer=0.1,
        )  # fmt: skip
        for _ in range(4):
            await me.request("add_bot", strategy=Stubborn.name)
        await me.request("start")
        seen: dict[str, str] = {}  # action taken by the timer -> the notice's text
        dealt: set[int] = set()  # the dealers of the hands played (the sleeper's seat is 0)
        legal: list[dict[str, Any]] = []
        said: str | None = None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        # Until the sleeper has dealt (the forced pick, a bury, a call and a re-crack offer)
        # and sat left of the dealer (the first asked whether to crack).
        while not ({0, 4} <= dealt and "no_recrack" in seen and "no_crack" in seen):
            msg = await asyncio.wait_for(me.events.get(), deadline - loop.time())
            assert msg.get("hand", 0) < 8, f"hands went by without the decisions: {sorted(seen)}"
            if msg["type"] == "your_turn":
                if msg["legal"][0]["action"] == "play":  # cards: answered, not what is tested
                    with contextlib.suppress(ServerError):  # stale: the timer was quicker
                        await me.act(msg["legal"][0], seq=msg["seq"])
                else:
                    legal = msg["legal"]
            elif msg["type"] == "notice" and msg["code"] == "timer_expired":
                assert msg["seat"] == 0
                said = msg["text"]
            elif msg["type"] == "state" and msg["view"] is not None:
                dealt.add(msg["view"]["dealer"])
                last = msg["last"]
                if said is None or last is None or last["seat"] != 0:
                    continue
                kind = last["action"]
                offered = {a["action"] for a in legal}
                assert kind not in COMMITTING or offered <= set(COMMITTING), (kind, offered)
                assert said.startswith("Time ran out for Sleepy; ") and WORDS[kind] in said
                seen[kind] = said
                said = None
        await me.request("end_match")
        await me.close()
    assert {"pass", "pick", "bury", "no_crack", "no_recrack"} <= seen.keys()
    assert seen["pass"] == "Time ran out for Sleepy; passed for them"
    assert {"call", "unknown", "alone"} & seen.keys()


async def test_an_absent_persons_stand_in_passes_rather_than_pick_for_them(
    bold_strategies: None, tmp_path: Path
) -> None:
    # The stand-in's strategy (the server's default bot) is the boldest there is; the bots and
    # the host pass, so the blind comes round to the absent person every hand. Left to its
    # strategy the stand-in would pick for someone who never saw the hand.
    async with running_server(bot_workers=0, default_bot=Bold.name) as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        reply = await host.request("create_table", name="away", hands=None, grace=0.05)
        for _ in range(3):
            await host.request("add_bot", strategy=Stubborn.name)
        away = session(server, "Away", tmp_path)
        await away.connect()
        seat = (await away.request("join", table=reply["table"]))["seat"]
        await host.request("start")
        await away.close()
        bids: dict[int, str] = {}  # hand -> what the stand-in did at the pick
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while len(bids) < 3:
            msg = await asyncio.wait_for(host.events.get(), deadline - loop.time())
            if msg["type"] == "your_turn":
                legal = msg["legal"]
                answer = next((a for a in legal if a["action"] == "pass"), legal[0])
                with contextlib.suppress(ServerError):
                    await host.act(answer, seq=msg["seq"])
            elif msg["type"] == "state" and msg["view"] is not None and msg["last"] is not None:
                last = msg["last"]
                if last["seat"] == seat and last["action"] in ("pass", "pick"):
                    bids[msg["hand"]] = last["action"]
        await host.request("end_match")
        await host.close()
    assert set(bids.values()) == {"pass"}, bids


async def test_the_timer_notice_names_its_move_and_only_the_seat_sees_the_cards_it_buried(
    bold_strategies: None, tmp_path: Path
) -> None:
    # Pia picks whenever the blind comes to her (the bots pass) and then lets her time run
    # out at the bury; Oto, the other person at the table, never answers: the timer passes
    # for him. Each notice carries the move as its reader may see it, as a state's last does.
    async with running_server(bot_workers=0, default_bot=Bold.name) as server:
        pia = session(server, "Pia", tmp_path)
        oto = session(server, "Oto", tmp_path)
        await pia.connect()
        await oto.connect()
        reply = await pia.request("create_table", name="timed", hands=None, turn_timer=0.3)
        await oto.request("join", table=reply["table"])
        for _ in range(3):
            await pia.request("add_bot", strategy=Stubborn.name)
        await pia.request("start")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        buried: dict[str, Any] | None = None  # Pia's copy of her timed-out bury's notice
        while buried is None:
            msg = await asyncio.wait_for(pia.events.get(), deadline - loop.time())
            if msg["type"] == "your_turn" and msg["legal"][0]["action"] in ("pick", "pass"):
                with contextlib.suppress(ServerError):  # stale: the timer was quicker
                    await pia.act({"action": "pick"}, seq=msg["seq"])
            elif msg["type"] == "notice" and msg["code"] == "timer_expired" and msg["seat"] == 0:
                buried = msg if msg["action"]["action"] == "bury" else None
        await pia.request("end_match")
        # Oto's copies, up to the bury's: his own passes, and Pia's bury without its cards.
        told: list[dict[str, Any]] = []
        while not told or told[-1]["seat"] != 0:
            told.append(await next_event(oto, "notice", code="timer_expired"))
        await pia.close()
        await oto.close()
    assert buried["text"] == "Time ran out for Pia; a bot buried for them"
    assert buried["action"]["seat"] == 0 and len(buried["action"]["cards"]) == 2
    assert told[-1]["action"] == {"seat": 0, "action": "bury"}, told[-1]
    assert told[-1]["text"] == buried["text"]
    # Any of Oto's own before it (he may speak before Pia): his pass, as his state shows it.
    assert all(t["action"] == {"seat": 1, "action": "pass"} for t in told[:-1]), told


async def test_a_timer_move_that_falls_back_after_a_failure_is_told_all_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every move the server makes fails before it is chosen (the seat's view cannot be built),
    # so each falls back to the first least committal action: Sol's, when her time runs out,
    # is still the timer's (the record says so) and is told as the timer's moves are.
    def broken_view(hand: Any, seat: int) -> Any:
        raise RuntimeError("no view today")

    monkeypatch.setattr(turns, "seat_view", broken_view)
    async with running_server(bot_workers=0) as server:
        sol = session(server, "Sol", tmp_path)
        await sol.connect()
        await sol.request("create_table", name="timed", hands=None, turn_timer=0.1)
        for _ in range(4):
            await sol.request("add_bot")
        await sol.request("start")
        told: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:  # until the state of the first move made at Sol's seat (seat 0)
            msg = await asyncio.wait_for(sol.events.get(), deadline - loop.time())
            if msg["type"] == "notice" and msg["code"] == "timer_expired":
                told.append(msg)
            elif msg["type"] == "state" and (msg.get("last") or {}).get("seat") == 0:
                last = msg["last"]
                break
        await sol.request("end_match")
        await sol.close()
    assert last["action"] == "pass"  # the least committal: never a pick she did not choose
    assert [(t["seat"], t["text"], t["action"]) for t in told] == [
        (0, "Time ran out for Sol; passed for them", last)
    ]


async def test_after_a_restart_the_turn_timer_waits_for_somebody_to_be_back(
    tmp_path: Path,
) -> None:
    # Ann's turn when the server stops; it comes back on the same database, and she is back
    # later than her turn timer: the clock of her decision starts when she is, as a spectator
    # or a returning player starts it (before, it started at the restore with nobody there,
    # and her prompt came with deadline 0, the timer moving for her at once).
    timer = 0.6
    db = tmp_path / "timer.db"
    server = Server(disk_config(db, seed_wait=0.0, bot_workers=0))
    await server.start()
    ann = await Raw.open(server.port)
    await ann.hello("Ann")
    created = await raw_bot_table(ann, hands=None, turn_timer=timer)
    await ann.send({"type": "start"})
    await ann.expect("your_turn")
    await server.stop()  # within her time: no timer move for her is stored
    await ann.close()
    server = Server(disk_config(db, seed_wait=0.0, bot_workers=0))
    await server.start()
    try:
        await asyncio.sleep(timer * 1.5)  # the time that passes before anybody is back
        ann = await Raw.open(server.port)
        await ann.hello("Ann", token=created["token"])
        prompt = await ann.expect("your_turn")
        assert prompt["deadline"] > timer / 2, prompt  # before the fix: 0.0
        told = await ann.expect("notice", code="timer_expired")  # and her timer still runs
        assert told["seat"] == 0
        await ann.close()
    finally:
        await server.stop()


@pytest.mark.parametrize("back", [True, False], ids=["back later", "never back"])
async def test_after_a_restart_a_persons_clock_waits_for_them_not_for_the_first_back(
    tmp_path: Path, back: bool
) -> None:
    # Ann and Bob sit with three bots; the server stops on one of their turns. After the
    # restart the other one is back at once, and the one to act only later than the timer (an
    # SSH player typing the command again): they get their whole time once back, not what the
    # clock started by the first back left them (before: a decision the timer had already
    # taken). One who never comes back holds the table one more timer's length, no longer.
    timer = 0.6
    db = tmp_path / "timer.db"
    server = Server(disk_config(db, seed_wait=0.0, bot_workers=0))
    await server.start()
    ann, bob = await Raw.open(server.port), await Raw.open(server.port)
    await ann.hello("Ann")
    await bob.hello("Bob")
    created = await raw_bot_table(ann, bots=3, hands=None, turn_timer=timer)
    joined = await bob.request("join", table=created["table"])
    assert joined["type"] == "ok", joined
    tokens = {"Ann": created["token"], "Bob": joined["token"]}
    await ann.send({"type": "start"})
    waits = {
        asyncio.ensure_future(raw.expect("your_turn")): name
        for raw, name in ((ann, "Ann"), (bob, "Bob"))
    }
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    first = next(iter(done))
    to_act, prompt = waits[first], first.result()
    other = "Bob" if to_act == "Ann" else "Ann"
    await server.stop()  # within the turn's time: no timer move is stored
    await ann.close()
    await bob.close()
    server = Server(disk_config(db, seed_wait=0.0, bot_workers=0))
    await server.start()
    try:
        back_first = await Raw.open(server.port)
        await back_first.hello(other, token=tokens[other])
        await back_first.expect("state")
        if not back:
            told = await back_first.expect("notice", code="timer_expired")
            assert told["text"].startswith(f"Time ran out for {to_act};"), told
            await back_first.close()
            return
        await asyncio.sleep(timer * 1.5)  # the time the one to act takes to come back
        back_late = await Raw.open(server.port)
        await back_late.hello(to_act, token=tokens[to_act])
        again = await back_late.expect("your_turn")
        assert again["legal"] == prompt["legal"], again  # the same decision, not a later one
        assert again["deadline"] > timer / 2, again  # before the fix: 0.0
        await back_late.close()
        await back_first.close()
    finally:
        await server.stop()
