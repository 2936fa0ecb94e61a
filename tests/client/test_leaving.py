"""Leaving a table is never one stray key: Esc asks first at every stage, and an Esc
meant for the chat box (typed in it or right after it closed) closes only the chat box."""

from __future__ import annotations

from pathlib import Path

from client.app import SheepsheadApp
from client.model import TableModel
from client.screens.dialogs import ChatDialog, ConfirmDialog
from client.screens.lobby import LobbyScreen
from client.screens.table import TableScreen, leave_question
from server.app import Server
from tests.client.test_e2e import SIZE, seated_with_bots, session_for, wait_for


async def test_esc_after_chatting_at_a_waiting_table_keeps_the_seat(
    server: Server, tmp_path: Path
) -> None:
    """t, a line, Enter, Esc put the player in the lobby with the seat freed, and the host's
    + gave it to a bot."""
    host = await session_for(server, tmp_path, name="Host")
    table = str((await host.request("create_table", name="club", preset="seed"))["table"])
    guest = await session_for(server, tmp_path, name="Guy")
    await guest.request("join", table=table, seat=None)
    seats = server.lobby.tables[table].seats
    app = SheepsheadApp(guest, mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and bool(app.model.seats))
        seat = app.model.my_seat
        assert seat is not None and app.model.table_state == "waiting"
        await pilot.press("t", *"hello all", "enter", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await wait_for(pilot, lambda: any("hello all" in e.text for e in app.model.log))
        assert isinstance(app.screen, TableScreen)  # no question, no lobby: the Esc was chat's
        assert seats[seat].peer is not None
        await pilot.press("escape")  # now it is the table's: it asks
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog) and "has not started" in dialog.question
        await pilot.press("escape")  # no
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert seats[seat].peer is not None and app.model.my_seat == seat
        # Esc in the chat box closes the box, and the Esc right after it is still the box's.
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatDialog))
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen) and seats[seat].peer is not None
        await pilot.press("escape", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: seats[seat].peer is None)
        # The host's rematch as the player left: its notice, sent before the server took the
        # leave, popped up over the lobby about a table the player was no longer at.
        told = len(app._notifications)
        rematch = "Host started a new match at this table"
        app.handle_message(
            {"type": "notice", "table": table, "code": "rematch", "text": rematch, "seat": 0}
        )
        await pilot.pause()
        assert len(app._notifications) == told, [n.message for n in app._notifications]
        assert not any(rematch in e.text for e in app.model.log)
    await guest.close()
    await host.close()


async def test_a_watcher_is_asked_before_being_sent_to_the_lobby(
    server: Server, tmp_path: Path
) -> None:
    host = await session_for(server, tmp_path, name="Host")
    table = await seated_with_bots(host)
    watcher = await session_for(server, tmp_path, name="Eve")
    app = SheepsheadApp(watcher, mode="watch", watch_table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and bool(app.model.view))
        await pilot.press("t", *"nice", "enter", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "Stop watching" in app.screen.question  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert server.lobby.tables[table].spectators
        await pilot.press("escape", "y")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: not server.lobby.tables[table].spectators)
    await watcher.close()
    await host.close()


def _model(state: str, *, seat: int | None, others: bool, over: bool = False) -> TableModel:
    model = TableModel()
    model.reset("t1")
    kinds = ["human", "human" if others else "bot", "bot", "empty", "empty"]
    model.info = {
        "id": "t1",
        "state": state,
        "seats": [{"name": f"P{i}", "kind": k} for i, k in enumerate(kinds)],
    }
    model.seat = seat
    if over:
        model.match_over = {"type": "match_over"}
    return model


def test_every_stage_of_a_table_asks_before_leaving() -> None:
    questions = [
        leave_question(_model("waiting", seat=0, others=True)),
        leave_question(_model("waiting", seat=0, others=False)),
        leave_question(_model("playing", seat=0, others=True)),
        leave_question(_model("playing", seat=0, others=False)),
        leave_question(_model("over", seat=0, others=True, over=True)),
        leave_question(_model("playing", seat=None, others=True)),
    ]
    assert all(questions), questions
    assert len(set(questions)) == len(questions)  # each says what leaving costs there
    assert leave_question(TableModel()) is None  # no table: nothing to lose, nothing asked


async def test_who_leaves_a_running_match_may_sit_in_the_seat_again(
    server: Server, tmp_path: Path
) -> None:
    """Esc's question mid-match said the seat could not be taken back; the server frees it
    (a bot plays it meanwhile), so the player who left sat in it again from the lobby."""
    host = await session_for(server, tmp_path, name="Host", tokens="host.json")
    table = str((await host.request("create_table", name="club", preset="seed"))["table"])
    guest = await session_for(server, tmp_path, name="Guy", tokens="guy.json")
    seat = int((await guest.request("join", table=table, seat=None))["seat"])
    for _ in range(3):
        await host.request("add_bot", seat=None, strategy="random")
    await host.request("start")
    question = leave_question(_model("playing", seat=0, others=True))
    assert question is not None and "cannot" not in question, question
    await guest.request("leave")
    assert server.lobby.tables[table].seats[seat].kind == "empty"
    await guest.request("join", table=table, seat=seat)  # what the question now says
    assert server.lobby.tables[table].seats[seat].name == "Guy"
    await guest.close()
    await host.close()
