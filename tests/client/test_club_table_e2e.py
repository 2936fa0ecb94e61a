"""Issue 18 end to end: the client against the real server over real sockets, by key presses.

The score sheet after a client and after a server restart, rematch at the same table, the chat
and log lines after a reconnect, the server's trick pause seen on the screen, Enter Enter at a
hand result, and watching a password table. Each test starts a :class:`server.app.Server` on
127.0.0.1 port 0; what is waited for is a model or screen condition with a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from pathlib import Path
from typing import Any

import pytest

import client.app
from client.app import SheepsheadApp
from client.screens.dialogs import PasswordDialog
from client.screens.info import TricksScreen
from client.screens.lobby import LobbyScreen
from client.screens.result import MatchOverScreen, ResultScreen, ScoreSheetScreen
from client.screens.table import TableScreen
from client.session import Session
from client.widgets.cards import card_label
from client.widgets.table import LastTrickBox, TrickView, tag_name
from server.app import Server
from tests.client.conftest import server_config
from tests.client.test_e2e import Player, seated_with_bots, session_for, wait_for
from tests.client.test_screens import screen_text
from tests.server.support import drive, next_event, play_until, session


def reconnects_held(session: Session) -> asyncio.Event:
    """Hold ``session``'s reconnects until the returned event is set (to make something happen
    at the table while it is away)."""
    gate = asyncio.Event()
    reopen = session._open

    async def gated() -> Any:
        await gate.wait()
        return await reopen()

    session._open = gated  # type: ignore[method-assign]
    return gate


def history_held(session: Session) -> asyncio.Event:
    """Hold ``session``'s ``history`` requests until the returned event is set (to have the
    answer come after what happens meanwhile)."""
    gate = asyncio.Event()
    ask = session.history

    async def gated(*args: Any, **fields: Any) -> Any:
        await gate.wait()
        return await ask(*args, **fields)

    session.history = gated  # type: ignore[method-assign]
    return gate


def reveal_noted(app: SheepsheadApp) -> asyncio.Event:
    """An event set once ``app`` has handled a ``seeds_revealed``."""
    revealed = asyncio.Event()
    handle = app.handle_message

    def handled(msg: Any) -> Any:
        change = handle(msg)
        if msg.get("type") == "seeds_revealed":
            revealed.set()
        return change

    app.handle_message = handled  # type: ignore[method-assign]
    return revealed


def cut_off(server: Server, name: str) -> None:
    """Drop the connections of the player ``name`` as a pulled cable does."""
    for conn in list(server.connections):
        if conn.name == name:
            conn.transport.abort()


SIZE = (80, 24)


async def play_hands(pilot: Any, count: int, timeout: float = 60) -> list[dict[str, Any]]:
    """Play by keys until ``count`` hand results were shown; return their results."""
    player = Player(pilot)
    await player.until(lambda: len(player.results) >= count, timeout=timeout)
    return player.results[:count]


async def to_the_standings(pilot: Any) -> Player:
    """Play the match out, then open the standings: the last hand's result shows first, and
    Enter replaces it with them (it may be past already when the match ended quickly). The
    player that played it is returned, to play on."""
    app: Any = pilot.app
    player = Player(pilot)
    await player.until(lambda: app.model.match_over is not None, timeout=60)
    await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen | MatchOverScreen))
    if isinstance(app.screen, ResultScreen):
        await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen))
    return player


async def free_seat_4(pilot: Any) -> None:
    """The host's - at the standings: seat 4's bot leaves, the table screen is back."""
    app: Any = pilot.app
    await pilot.press("minus")
    await wait_for(pilot, lambda: app.model.seats[4].is_empty)
    await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))


def sheet_rows(app: Any) -> dict[int, list[str]]:
    """The score sheet on screen: hand number → each seat's ``payout =total`` cell."""
    rows: dict[int, list[str]] = {}
    for line in screen_text(app).splitlines():
        number = re.search(r"│ (\d+) ", line)
        cells = re.findall(r"[+-]?\d+ =[+-]\d+", line)
        if number and len(cells) == 5:
            rows[int(number.group(1))] = cells
    return rows


def assert_sheet_matches(app: Any, results: list[dict[str, Any]]) -> None:
    """Every finished hand has its row, with the payouts and running totals of ``hand_over``."""
    rows = sheet_rows(app)
    assert sorted(rows) == list(range(1, len(results) + 1)), screen_text(app)
    totals = [0] * 5
    for number, result in enumerate(results, start=1):
        for seat, pay in enumerate(result["payouts"]):
            totals[seat] += pay
            assert rows[number][seat] == f"{pay:+d} ={totals[seat]:+d}", (number, seat, rows)


async def assert_sheet_after_restart(pilot: Any, results: list[dict[str, Any]]) -> None:
    """Back at the table with the history of ``results``, k shows them all on the score sheet."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
    await wait_for(pilot, lambda: len(app.model.history) >= len(results))
    await pilot.press("k")
    await wait_for(pilot, lambda: isinstance(app.screen, ScoreSheetScreen))
    await pilot.pause()
    assert_sheet_matches(app, results)


async def test_the_score_sheet_after_a_client_restart_has_every_hand(
    server: Server, tmp_path: Path
) -> None:
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=5)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        results = await play_hands(pilot, 2)
    await session.close()  # a crash: no leave, the token stays in the store

    again = await session_for(server, tmp_path)
    app = SheepsheadApp(again, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await assert_sheet_after_restart(pilot, results)
    await again.close()


async def test_the_score_sheet_after_a_server_restart_is_rebuilt_from_the_store(
    tmp_path: Path,
) -> None:
    db = tmp_path / "club.db"
    first = Server(server_config(db_path=db))
    await first.start()
    port = first.port
    try:
        session = await session_for(first, tmp_path)
        table = await seated_with_bots(session, hands=5)
        app = SheepsheadApp(session, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            results = await play_hands(pilot, 2)
        await session.close()
    finally:
        await first.stop()

    second = Server(server_config(db_path=db, port=port))  # the token store is kept per host:port
    await second.start()
    try:
        again = await session_for(second, tmp_path)
        assert again.table == table
        app = SheepsheadApp(again, mode="join")
        async with app.run_test(size=SIZE) as pilot:
            await assert_sheet_after_restart(pilot, results)
        await again.close()
    finally:
        await second.stop()


@pytest.mark.every_frame
async def test_rematch_at_the_same_table_from_the_match_over_panel(
    server: Server, tmp_path: Path
) -> None:
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        player = await to_the_standings(pilot)
        seats = [(s.name, s.kind) for s in app.model.seats]
        assert any(app.model.totals)
        assert "n rematch" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.model.rematches == 1 and app.model.view is not None)
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert not any(
            isinstance(s, MatchOverScreen | ResultScreen | ScoreSheetScreen)
            for s in app.screen_stack
        )
        assert app.model.table == table and app.model.my_seat == 0
        assert [(s.name, s.kind) for s in app.model.seats] == seats
        assert app.model.totals == [0] * 5 and app.model.history == []
        assert app.model.match_over is None and app.model.table_state == "playing"
        assert server.lobby.tables[table].state == "playing"
        # The new match plays, and its sheet has only its own hand.
        await player.until(lambda: app.model.match_over is not None, timeout=60)
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        shown = [s for s in app.screen_stack if isinstance(s, ResultScreen)]
        assert len(shown) == 1  # the new hand's result, alone: the standings follow it
        assert not any(isinstance(s, MatchOverScreen) for s in app.screen_stack)
        results = [shown[0].hand.result]
        assert app.model.totals == results[0]["payouts"]
        assert [h.result["payouts"] for h in app.model.history] == [results[0]["payouts"]]
    await session.close()


async def test_the_log_says_the_rematch_once(server: Server, tmp_path: Path) -> None:
    # It said "You started a new match at this table" (the notice) and then "── A new match
    # at this table" (the model's own line for the new match).
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await to_the_standings(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.model.rematches == 1 and app.model.view is not None)
        # The history asked again after the rematch is in: it brings the notice too.
        await wait_for(pilot, lambda: app.model.match == 1)
        await pilot.pause()
        said = [e.text for e in app.model.log if "new match" in e.text]
        assert said == ["You started a new match at this table"], said
        assert screen_text(app).count("at this table") == 1, screen_text(app)  # lines wrap
    await session.close()


async def test_chat_and_log_lines_come_back_once_after_a_restart_and_a_reconnect(
    server: Server, tmp_path: Path
) -> None:
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=None)
    watcher = await session_for(server, tmp_path / "eve", name="Eve")
    await watcher.request("watch", table=table, password=None)
    await session.request("chat", text="hello club")
    await watcher.request("chat", text="hi from the rail")
    await session.close()  # a crash: the token stays in the store

    again = await session_for(server, tmp_path)
    app = SheepsheadApp(again, mode="join")

    def counts() -> tuple[int, int]:
        texts = [e.text for e in app.model.log]
        return (
            sum("hello club" in t for t in texts),
            sum("hi from the rail" in t for t in texts),
        )

    async with app.run_test(size=SIZE) as pilot:
        statuses: list[str] = []
        app.watch(app, "status", lambda new: statuses.append(new), init=False)
        await wait_for(pilot, lambda: counts() == (1, 1))
        await wait_for(pilot, lambda: "Ann: hello club" in screen_text(app))
        rail = next(e.text for e in app.model.log if "hi from the rail" in e.text)
        assert "Eve" in rail and "watching" in rail  # a spectator's line is marked
        cut_off(server, "Ann")
        await wait_for(pilot, lambda: "reconnecting" in statuses, timeout=5)
        await wait_for(pilot, lambda: app.status == "connected")
        await watcher.request("chat", text="after the drop")
        await wait_for(pilot, lambda: any("after the drop" in e.text for e in app.model.log))
        await pilot.pause(0.3)  # the history asked again after the reconnect has come in
        assert counts() == (1, 1)
    await again.close()
    await watcher.close()


async def test_after_a_reconnect_the_earlier_lines_come_before_you_are_back(
    server: Server, tmp_path: Path
) -> None:
    # Eve chatted while Ann's connection was down: the log said "You are back", then
    # "── Earlier at this table", Eve's line and "── Now", the earlier line after the later.
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=None)
    watcher = await session_for(server, tmp_path / "eve", name="Eve")
    await watcher.request("watch", table=table, password=None)
    app = SheepsheadApp(session, mode="join")
    gate = reconnects_held(session)  # the reconnect waits until Eve has spoken
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        await session.request("remove_bot", seat=4)  # a stand-in plays it
        # No race with the bots here: hand 1 waits at Ann's first prompt (her app does not
        # play, and while she is away her seat keeps the table's 60 s grace, no stand-in).
        seat = server.lobby.tables[table].seats[0]
        cut_off(server, "Ann")
        await wait_for(pilot, lambda: app.status == "reconnecting" and seat.peer is None)
        await watcher.request("chat", text="while you were away")
        gate.set()
        await wait_for(pilot, lambda: any("while you were away" in e.text for e in app.model.log))
        await pilot.pause()
        texts = [e.text for e in app.model.log]
        back = max(i for i, t in enumerate(texts) if t == "You are back")
        away = next(i for i, t in enumerate(texts) if "while you were away" in t)
        assert texts.index("── Earlier at this table") < away < texts.index("── Now") < back, (
            "\n".join(texts)
        )
        # In time order: said while the connection was down, before "Reconnected" (and the
        # lines of the snapshot that came with it), not after them.
        dropped = texts.index("Connection lost: reconnecting…")
        assert dropped < texts.index("── Earlier at this table")
        assert texts.index("── Now") < texts.index("Reconnected"), "\n".join(texts)
        shown = screen_text(app)
        assert shown.index("while you were away") < shown.index("You are back"), shown
    await session.close()
    await watcher.close()


async def test_the_finished_trick_stays_for_the_servers_trick_pause(tmp_path: Path) -> None:
    pause = 0.6
    srv = Server(server_config(trick_pause=pause))
    await srv.start()
    try:
        session = await session_for(srv, tmp_path)
        await seated_with_bots(session, hands=None)
        app = SheepsheadApp(session, mode="join")
        loop = asyncio.get_running_loop()
        states: list[tuple[float, int, int]] = []  # (when, tricks done, cards in the trick)
        handle = app.handle_message

        def recording(msg: Any) -> Any:
            view = msg.get("view") if msg.get("type") == "state" else None
            if view:
                cards = (view.get("trick") or {}).get("cards") or []
                states.append((loop.time(), len(view.get("tricks") or []), len(cards)))
            return handle(msg)

        app.handle_message = recording  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            player = Player(pilot)
            await player.until(lambda: any(done == 1 for _, done, _ in states), timeout=30)
            # The fifth card is down: the trick and who took it stay in the centre.
            title = str(app.screen.query_one(TrickView).border_title)
            assert "take" in title, title
            shown = screen_text(app)
            done = app.model.view["tricks"][0]  # type: ignore[index]
            for card in done["cards"]:
                assert card_label(card) in shown, (card, shown)
            await player.until(lambda: any(d == 1 and n for _, d, n in states), timeout=30)
            completed = next(t for t, d, n in states if d == 1 and n == 0)
            led = next(t for t, d, n in states if d == 1 and n)
            assert led - completed >= pause - 0.1, (completed, led)
        await session.close()
    finally:
        await srv.stop()


async def test_enter_enter_at_a_hand_result_plays_nothing(server: Server, tmp_path: Path) -> None:
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=None)
    app = SheepsheadApp(session, mode="join")
    acts: list[Any] = []
    act = session.act

    async def counted(action: Any, **fields: Any) -> Any:
        acts.append(action)
        return await act(action, **fields)

    session.act = counted  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        player = Player(pilot)
        for _ in range(5):  # until a result is up while the next hand waits for us
            while not isinstance(app.screen, ResultScreen):
                await player.step()
            if app.model.prompt is not None:
                break
            await pilot.press("enter")
        assert isinstance(app.screen, ResultScreen)
        sent = len(acts)
        await pilot.press("enter", "enter")
        await pilot.pause(0.3)
        assert isinstance(app.screen, TableScreen)
        assert len(acts) == sent, acts[sent:]
    await session.close()


# ---------------------------------------------------------------------- a password table


async def password_table(
    server: Server, tmp_path: Path, password: str
) -> tuple[Session, str, Session]:
    """Host's table club with ``password``, four bots and the match started, and Eve, who is
    to watch it: (host, table, watcher)."""
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host, hands=None, name="club", password=password)
    watcher = await session_for(server, tmp_path / "eve", name="Eve")
    return host, table, watcher


async def test_the_lobby_asks_for_the_password_before_watching_and_again_when_wrong(
    server: Server, tmp_path: Path
) -> None:
    host, table, watcher = await password_table(server, tmp_path, "club night")
    app = SheepsheadApp(watcher, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.tables)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, PasswordDialog))
        assert "Password for club" in screen_text(app)
        assert not server.lobby.tables[table].spectators  # nothing was tried without it
        await pilot.press(*"wrong", "enter")
        await wait_for(
            pilot, lambda: any("Wrong password" in (n.title or "") for n in app._notifications)
        )
        assert any("not the password of club" in n.message for n in app._notifications)
        await wait_for(pilot, lambda: isinstance(app.screen, PasswordDialog))  # asked again
        await pilot.press(*"club night", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        assert app.model.table == table and app.model.my_seat is None
        assert server.lobby.tables[table].spectators
    await watcher.close()
    await host.close()


async def test_watch_table_asks_for_the_password_and_esc_leaves_the_lobby(
    server: Server, tmp_path: Path
) -> None:
    """``sheepshead watch HOST --table ID`` of a password table."""
    host, table, watcher = await password_table(server, tmp_path, "secret")
    app = SheepsheadApp(watcher, mode="watch", watch_table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, PasswordDialog))
        # Named as the lobby shows it ("Password for table t1:" named the id).
        await wait_for(pilot, lambda: "Password for club:" in screen_text(app))
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors == []  # the first refusal is a question, not an error
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("enter")  # watch mode: Enter watches the highlighted table
        await wait_for(pilot, lambda: isinstance(app.screen, PasswordDialog))
        await pilot.press(*"secret", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.view)
        assert app.model.table == table and app.model.my_seat is None
    await watcher.close()
    await host.close()


async def test_too_many_password_tries_say_to_wait(tmp_path: Path) -> None:
    srv = Server(server_config(password_burst=2, password_rate=0.01))
    await srv.start()
    try:
        # The host's password is the first try.
        host, table, watcher = await password_table(srv, tmp_path, "secret")
        app = SheepsheadApp(watcher, mode="watch", watch_table=table)
        async with app.run_test(size=SIZE) as pilot:

            def told() -> bool:
                return any(n.title == "Too many tries" for n in app._notifications)

            for _ in range(5):  # wrong guesses until the address's allowance is spent
                await wait_for(pilot, lambda: told() or isinstance(app.screen, PasswordDialog))
                if told():
                    break
                await pilot.press(*"guess", "enter")
                await pilot.pause(0.1)
            await wait_for(pilot, told)
            note = next(n.message for n in app._notifications if n.title == "Too many tries")
            assert "Wait a few seconds" in note and "password" in note
            assert isinstance(app.screen, LobbyScreen)  # not asked again
            assert not srv.lobby.tables[table].spectators
        await watcher.close()
        await host.close()
    finally:
        await srv.stop()


async def test_a_watcher_whose_place_was_taken_while_away_is_told_and_shown_the_lobby(
    tmp_path: Path,
) -> None:
    """The reconnect's watch was refused (too_many_spectators: Bob watched meanwhile) and
    nothing was said: the screen went on showing the table it no longer heard from."""
    srv = Server(server_config(max_spectators_per_table=1))
    await srv.start()
    try:
        host = await session_for(srv, tmp_path, name="Host")
        created = await host.request("create_table", name="club", preset="seed", options={})
        table = created["table"]
        watcher = await session_for(srv, tmp_path / "eve", name="Eve")
        app = SheepsheadApp(watcher, mode="watch", watch_table=table)
        gate = reconnects_held(watcher)  # Bob takes the one place while Eve is away
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and app.model.info)
            cut_off(srv, "Eve")
            await wait_for(pilot, lambda: app.status == "reconnecting")
            bob = await session_for(srv, tmp_path / "bob", name="Bob")
            await bob.request("watch", table=table)
            gate.set()
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen), timeout=5)

            def told() -> list[str]:
                return [n.message for n in app._notifications if n.title == "Back in the lobby"]

            # Polled: on a loaded machine the lobby was once up before the notice was given.
            await wait_for(pilot, lambda: bool(told()), timeout=5)
            assert told() == [
                "You could not watch club again after the reconnect. Nobody more can watch "
                "club: it has as many watchers as the server allows. Try again when one of "
                "them leaves. You are back in the lobby."
            ]
            assert app.model.table is None and watcher.table is None
            lobby = app.screen
            await wait_for(pilot, lambda: [t.get("id") for t in lobby.tables] == [table])
            await wait_for(pilot, lambda: "You could not watch club" in screen_text(app))
            assert "Sheepshead lobby" in screen_text(app)
        await bob.close()
        await watcher.close()
        await host.close()
    finally:
        await srv.stop()


async def events_until(session: Session, timeout: float = 5, **fields: Any) -> list[dict[str, Any]]:
    """``session``'s events up to the first with these ``fields`` (AssertionError after
    ``timeout`` seconds without one)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen: list[dict[str, Any]] = []
    while not seen or any(seen[-1].get(k) != v for k, v in fields.items()):
        left = deadline - loop.time()
        assert left > 0, f"no {fields} in {[m.get('type') for m in seen]}"
        with contextlib.suppress(TimeoutError):
            seen.append(dict(await asyncio.wait_for(session.events.get(), left)))
    return seen


async def test_a_seat_the_reconnect_did_not_get_back_is_said_as_table_lost(
    server: Server, tmp_path: Path
) -> None:
    """The table closed while Ann was away: the welcome took no seat back and the server's
    bad_token came as a bare error, which the table screen showed over the closed table."""
    session = await session_for(server, tmp_path)
    created = await session.request("create_table", name="club", preset="seed", options={})
    table = created["table"]
    gate = reconnects_held(session)
    cut_off(server, "Ann")
    await events_until(session, type="connection", status="reconnecting")
    server.lobby.tables[table].close("Nobody came back to the table")
    gate.set()
    seen = await events_until(session, type="table_lost")
    assert seen[-1] == {
        "type": "table_lost",
        "table": table,
        "seat": 0,
        "code": "bad_token",
        "message": "That seat token is not valid; join a table",
    }
    assert not [m for m in seen if m.get("type") == "error"], seen  # said once, as table_lost
    assert session.table is None and session.token is None
    await session.close()


async def test_a_watcher_of_a_password_table_watches_it_again_after_a_drop(
    server: Server, tmp_path: Path
) -> None:
    """The reconnect's watch went without the password and was refused (bad_password)."""
    host, table, watcher = await password_table(server, tmp_path, "club night")
    await watcher.request("watch", table=table, password="club night")
    spectators = server.lobby.tables[table].spectators
    cut_off(server, "Eve")
    await events_until(watcher, type="connection", status="reconnecting")
    seen = await events_until(watcher, type="state")  # watching again: the snapshot
    assert watcher.table == table and any(p.name == "Eve" for p in spectators)
    assert not [m for m in seen if m.get("type") in ("table_lost", "error")], seen
    await watcher.close()
    await host.close()


async def test_a_client_restarted_mid_match_verifies_the_deals_without_a_false_alarm(
    server: Server, tmp_path: Path
) -> None:
    """It said "hand 1 does not verify: its commitment was never published" in red: the
    commitment went out before this client started, and a taken-back seat is not sent it."""
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=2)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await play_hands(pilot, 1)
    await session.close()

    again = await session_for(server, tmp_path)
    app = SheepsheadApp(again, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        player = Player(pilot)
        await player.until(lambda: app.model.match_over is not None, timeout=60)

        def verdict() -> str | None:
            return next((e.text for e in app.model.log if e.text.startswith("Deals: ")), None)

        await wait_for(pilot, lambda: verdict() is not None)
        said = verdict() or ""
        assert said.startswith("Deals: all 2 deals verified"), said
        assert "hand 1 was published before this client came" in said
        assert not [n for n in app._notifications if n.severity == "error"]
    await again.close()


@pytest.mark.parametrize("history", ["late", "never"])
async def test_a_client_away_while_a_new_commitment_locks_verifies_without_a_false_alarm(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, history: str
) -> None:
    """Ann's connection dropped in hand 1; Dee sat down meanwhile, so hand 2 was dealt from a
    new commitment sent while Ann was away (a reconnect is sent only one still collecting
    seeds). Back in hand 2, the same app must not call that commitment never published.

    Hand 1 ended while Ann was away: its record comes with the history asked for on the
    reconnect, here answered only after the reveal (as on a loaded machine), or (``never``)
    not at all. The check waited for it (it checked no hand and said nothing), and says why a
    hand could not be checked when the history does not come in time."""
    monkeypatch.setattr(client.app, "HISTORY_WAIT", 0.2)
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=2, grace=0.0)  # a stand-in plays for Ann
    app = SheepsheadApp(session, mode="join")
    gate = reconnects_held(session)  # the reconnect waits until hand 2 is dealt
    dee = await session_for(server, tmp_path / "dee", name="Dee")
    revealed = reveal_noted(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        await session.request("remove_bot", seat=4)  # a stand-in plays it until Dee comes
        # Hand 1 cannot be played out before Dee sits (the race of the rematch test below):
        # it waits at Ann's first prompt while she is connected, then nobody is at the table
        # (no seated connection, no spectator), which plays no bot move; once Dee sits it
        # waits at her turn until she is driven.
        seat = server.lobby.tables[table].seats[0]
        cut_off(server, "Ann")
        await wait_for(pilot, lambda: app.status == "reconnecting" and seat.peer is None)
        history_gate = history_held(session)
        await dee.request("join", table=table, seat=4)
        new = await next_event(dee, "commitment")
        await dee.request("client_seed", commitment=new["commitment"], seed="ab" * 32)
        await drive([dee], 0, lambda *_: (dee.last_state or {}).get("hand") == 1)
        gate.set()
        await wait_for(pilot, lambda: app.status == "connected" and app.model.hand_number == 2)
        # The host ends the match in hand 2 (played out, it only takes longer): the reveal
        # covers hand 2's commitment, unseen here, and the finished hand 1 is checked.
        await session.request("end_match")
        await wait_for(pilot, lambda: revealed.is_set())
        if history == "late":
            assert not app.model.history  # hand 1's record is still to come
            history_gate.set()

        def verdict() -> str | None:
            return next((e.text for e in app.model.log if e.text.startswith("Deals: ")), None)

        await wait_for(pilot, lambda: verdict() is not None)
        said = verdict() or ""
        assert new["commitment"] not in app.deals.seen  # locked while Ann was away
        if history == "late":
            assert said.startswith("Deals: the deal verified"), said
        else:
            assert said.startswith(
                "Deals: hand 1 cannot be checked (0 of 1 deals verified): the server's history"
                " had not come 0.2 s after the reveal"
            ), said
        assert "hand 2 was published while this client was away" in said, said
        assert [e.text for e in app.model.log].count(said) == 1
        assert not [n for n in app._notifications if n.severity == "error"]
    await dee.close()
    await session.close()


async def test_after_the_match_the_host_frees_a_bots_seat_for_a_latecomer(
    server: Server, tmp_path: Path
) -> None:
    # A friend arriving after the first match found the table full ("table_full") and the
    # host's - did nothing once the match was over: the rematch kept both bots.
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await to_the_standings(pilot)
        assert "- frees a bot's seat" in screen_text(app)
        await free_seat_4(pilot)
        seats = server.lobby.tables[table].seats
        await wait_for(pilot, lambda: seats[4].kind == "empty")
        dee = await session_for(server, tmp_path / "dee", name="Dee")
        await dee.request("join", table=table, seat=None)
        await wait_for(pilot, lambda: app.model.seats[4].name == "Dee")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.model.rematches == 1 and app.model.view is not None)
        assert app.model.table_state == "playing"
        assert [s.kind for s in seats] == ["human", "bot", "bot", "bot", "human"]
        await dee.close()
    await session.close()


async def test_the_last_trick_names_the_player_of_a_seat_the_host_freed(
    server: Server, tmp_path: Path
) -> None:
    # At match over the host's - freed a bot's seat: the last trick box tagged its card "—"
    # and l's tricks named its column and its trick "(empty)", where the log said "Gus".
    session = await session_for(server, tmp_path)
    await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await to_the_standings(pilot)
        gone = app.model.seats[4].name
        card = next(
            code
            for i, code in enumerate(app.model.last_trick["cards"])  # type: ignore[index]
            if (app.model.last_trick["leader"] + i) % 5 == 4  # type: ignore[index]
        )
        await free_seat_4(pilot)
        await pilot.pause()
        box = str(app.screen.query_one(LastTrickBox).render())
        assert f"{tag_name(gone)} {card_label(card)}" in box, box
        assert "—" not in box, box
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, TricksScreen))
        await pilot.pause()
        shown = screen_text(app)
        assert f"{gone} {card_label(card)}" in shown, shown
        assert "(empty)" not in shown, shown
    await session.close()


async def test_after_the_match_the_hosts_plus_says_how_a_freed_seat_is_filled(
    server: Server, tmp_path: Path
) -> None:
    # The host freed a bot's seat at match over and pressed + to put one back: nothing
    # happened, not a word (the key was off once the match was over).
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await to_the_standings(pilot)
        await free_seat_4(pilot)
        seats = server.lobby.tables[table].seats
        await wait_for(pilot, lambda: seats[4].kind == "empty")
        await pilot.press("plus")
        await wait_for(pilot, lambda: any(n.title == "No bot added" for n in app._notifications))
        said = next(n.message for n in app._notifications if n.title == "No bot added")
        assert "n starts the rematch" in said and "+ seats a bot" in said, said
        assert seats[4].kind == "empty"
        # As it says: n, then + seats a bot, and g starts the new match.
        await pilot.press("n")
        await wait_for(pilot, lambda: app.model.rematches == 1)
        await wait_for(pilot, lambda: app.model.table_state == "waiting")
        await pilot.press("plus")
        await wait_for(pilot, lambda: app.model.seats[4].is_bot)
        await pilot.press("g")
        await wait_for(pilot, lambda: app.model.table_state == "playing")
    await session.close()


async def test_mid_match_the_hosts_minus_opens_a_bots_seat_to_a_latecomer(
    server: Server, tmp_path: Path
) -> None:
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=3)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.model.view is not None)
        # The host's turn: every seat before it in the auction has moved (seat 4 unless it
        # deals), so Gus's moves are there to name.
        await wait_for(pilot, lambda: app.model.prompt is not None)
        await pilot.press("minus")
        seats = server.lobby.tables[table].seats
        await wait_for(pilot, lambda: seats[4].kind == "empty")
        dee = await session_for(server, tmp_path / "dee", name="Dee")
        reply = await dee.request("join", table=table, seat=None)
        assert reply["seat"] == 4
        await wait_for(pilot, lambda: app.model.seats[4].name == "Dee")
    # Dee's log of the hand so far: seat 4's moves were the bot's, not hers ("You pass"),
    # and the server names it (the seat summary's before): Gus, not "Seat 4 (before you)".
    dee_app = SheepsheadApp(dee, mode="join")
    async with dee_app.run_test(size=SIZE) as pilot:
        model = dee_app.model
        await wait_for(pilot, lambda: model.view is not None)
        lines = [e.text for e in model.log if e.kind == "event"]  # not "You took seat 4"
        assert not [line for line in lines if line.startswith("You ") or ": You " in line], lines
        assert not [line for line in lines if "before you" in line], lines
        view = model.view or {}
        if 4 in view.get("passes", []):
            assert "Gus passes" in lines, lines
            assert [holder[0] for holder in model.seats[4].before] == ["Gus"]
        if view.get("picker") == 4:
            assert "Gus picks" in lines, lines
    await dee.close()
    await session.close()


async def test_who_sits_down_after_the_match_is_not_named_in_its_result(
    server: Server, tmp_path: Path
) -> None:
    # Dee took the freed seat of a bot once the match was over: her result panel and the
    # final standings said "Dee * ... -4", a match she never played.
    session = await session_for(server, tmp_path)
    table = await seated_with_bots(session, hands=1)
    app = SheepsheadApp(session, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        player = Player(pilot)
        await player.until(lambda: app.model.match_over is not None, timeout=60)
        played = [s.name for s in app.model.seats]
    await session.request("remove_bot", seat=4)
    dee = await session_for(server, tmp_path / "dee", name="Dee")
    await dee.request("join", table=table, seat=None)
    app = SheepsheadApp(dee, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen | MatchOverScreen))
        await wait_for(pilot, lambda: bool(app.model.history) and app.model.history[-1].from_server)
        await pilot.pause()
        for _ in range(2):  # the hand's result, then the standings
            text = screen_text(app)
            assert "Dee" not in text, text
            assert played[4] in text, text
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen | TableScreen))
    await dee.close()
    await session.close()


async def test_a_client_away_through_a_rematch_checks_each_match_against_its_own_seeds(
    server: Server, tmp_path: Path
) -> None:
    """Ann sat down in hand 2 of Hal's two-hand match (hand 1 came with the history), then her
    connection dropped; the match ended (its seeds revealed while she was away), Hal started
    a rematch and she was back in its first hand. The end of her old match was never seen
    here: its hand 1 stayed on the new match's score sheet, and at the new match's reveal,
    checked against the new seeds, it was said in red not to verify. Each match is checked
    against its own seeds: the old one's taken from the server's records of it."""
    hal = session(server, "Hal", tmp_path)
    await hal.connect()
    made = await hal.request(
        "create_table", name="again", preset="seed", options={}, hands=2, password=None, grace=0.0
    )
    table = str(made["table"])
    for _ in range(4):
        await hal.request("add_bot", seat=None, strategy="random")
    await hal.request("start")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while (hal.last_state or {}).get("view") is None:
        assert loop.time() < deadline, "timed out waiting until dealt"
        await asyncio.sleep(0.01)
    await hal.request("remove_bot", seat=4)  # a stand-in plays it until Ann sits down
    # Hal plays hand 1, then leaves his first prompt of hand 2 unanswered until Ann is seated:
    # the bots and the stand-in play at once, and on a loaded machine the whole of hand 2
    # was played while Ann connected, so she sat down at the match's end with both hands in
    # her history. Once she sits, hand 2 waits for her turn (her client does not play).
    await play_until(hal, "hand_over", [], random.Random(5))
    ann = await session_for(server, tmp_path)
    await ann.request("join", table=table, seat=4, password=None)
    hal_plays = asyncio.create_task(play_until(hal, "match_over", [], random.Random(6)))
    app = SheepsheadApp(ann, mode="join")
    revealed = reveal_noted(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: app.model.view is not None and len(app.model.history) == 1,
            what="Ann seated with hand 1 in her history",
        )
        gate = reconnects_held(ann)  # back only once the rematch has begun
        cut_off(server, "Ann")  # a stand-in plays her seat (grace 0)
        over = await hal_plays
        await hal.request("rematch")
        await drive([hal], over["seq"], lambda *_: True)  # Hal's first turn in the new match
        gate.set()
        await wait_for(
            pilot,
            lambda: app.status == "connected" and app.model.match == 1,
            what="Ann reconnected into the rematch (match 1)",
        )

        def verdicts() -> list[str]:
            return [e.text for e in app.model.log if e.text.startswith("Deals")]

        await hal.request("end_match")  # in the new match's first hand: its seeds revealed
        await wait_for(pilot, lambda: revealed.is_set(), what="the new match's seeds revealed")
        await wait_for(
            pilot, lambda: isinstance(app.screen, MatchOverScreen), what="the match-over panel"
        )
        await pilot.pause()
        assert not [n for n in app._notifications if n.severity == "error"], verdicts()
        await wait_for(pilot, lambda: bool(verdicts()), what='a "Deals" verdict in the log')
        said = verdicts()
        # The old match: the hand seen here and the one played after the drop, from its
        # records; the new match: no hand ended, and its commitment, published while Ann was
        # away, is no failure.
        assert said == [
            "Deals of match 1 (it ended while this client was away): all 2 deals verified"
            " (the commitment dealing from hand 1 was published before this client came,"
            " so it was not witnessed here)"
        ], said
        assert app.model.history == [] and sheet_rows(app) == {}, screen_text(app)
        assert "Deals:" not in screen_text(app)  # the old match's verdict is not this one's
    await ann.close()
    await hal.close()


async def test_a_client_back_after_the_match_checks_its_deals_from_the_records(
    server: Server, tmp_path: Path
) -> None:
    """Ann's client went away during the match and came back after its end: a reconnect is
    not sent ``seeds_revealed``, so the deals were never checked and the match-over panel
    had no "Deals:" line. The server's records of the match carry the seeds by then."""
    first = await session_for(server, tmp_path)
    table = await seated_with_bots(first, hands=2, grace=0.0)  # a stand-in plays for Ann
    watcher = await session_for(server, tmp_path / "eve", name="Eve")  # the table moves on
    await watcher.request("watch", table=table, password=None)
    await first.close()  # a crash: the token stays; the stand-in plays the match out
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while server.lobby.tables[table].state != "over":
        assert loop.time() < deadline, "the match did not end"
        await asyncio.sleep(0.02)

    again = await session_for(server, tmp_path)
    app = SheepsheadApp(again, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        said = "Deals: all 2 deals verified (the commitment dealing from hand 1 was published"
        await wait_for(pilot, lambda: any(e.text.startswith(said) for e in app.model.log))
        # The last hand's result shows first, the standings after it.
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("enter")  # (Esc asks to leave: the match is over)
        await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen))
        await wait_for(pilot, lambda: "Deals: all 2 deals verified" in screen_text(app))
        assert not [n for n in app._notifications if n.severity == "error"]
    await again.close()
    await watcher.close()
