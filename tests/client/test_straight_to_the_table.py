"""A table screen opened straight away (a client back at its seat after a restart, a browser
tab's reload, a seat taken back from the lobby): drawn for the window it is in, with its keys."""

from __future__ import annotations

from textual import events

from client.app import SheepsheadApp
from client.screens.table import TableScreen
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import wait_for
from tests.client.test_screens import fed, screen_text


def _top_line_ends_with_status(app: SheepsheadApp, width: int) -> bool:
    top = screen_text(app).splitlines()[0]
    return len(top) == width and top.endswith("● connected ")


async def test_the_top_bar_fits_the_window_from_the_start_and_after_a_resize() -> None:
    """The table's top bar was drawn before its layout, for 80 columns: "● connected" sat at
    column 80 of a 142-column window, and nothing drew it again on a resize."""
    table = EngineTable(seed=7, dealer=2, me=0)
    app = SheepsheadApp(FakeSession({"history": table.history()}), mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=(142, 38)) as pilot:
        await fed(pilot, table.messages()[:1])
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await wait_for(pilot, lambda: _top_line_ends_with_status(app, 142), timeout=5)
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: _top_line_ends_with_status(app, 100), timeout=5)


async def test_the_lobbys_title_fits_the_window_after_a_resize() -> None:
    """Drawn for the width it opened at, a narrower window lost "● connected"."""
    app = SheepsheadApp(FakeSession(), mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=(142, 38)) as pilot:
        await wait_for(pilot, lambda: _top_line_ends_with_status(app, 142), timeout=5)
        await pilot.resize_terminal(90, 24)
        await wait_for(pilot, lambda: _top_line_ends_with_status(app, 90), timeout=5)


async def test_a_table_opened_while_the_window_has_no_focus_shows_its_keys() -> None:
    """Textual's footer composes its keys only while the app has the focus: a table screen
    mounted while the terminal (a browser tab) had reported a blur kept an empty bottom line."""
    table = EngineTable(seed=7, dealer=2, me=0)
    app = SheepsheadApp(FakeSession({"history": table.history()}), mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        await fed(pilot, table.messages()[:1])
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await wait_for(pilot, lambda: "? Help" in screen_text(app).splitlines()[-1], timeout=5)


async def test_a_doors_lobby_title_names_no_address() -> None:
    """A door's client (SSH, browser) dials the server's Unix socket: its lobby title said
    "localhost:7453", an address that is nobody's where the player connected."""
    session = FakeSession()
    session.local_socket = "/run/sheepshead/server.sock"  # type: ignore[attr-defined]
    app = SheepsheadApp(session, mode="join")  # type: ignore[arg-type]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Sheepshead lobby" in screen_text(app), timeout=5)
        top = screen_text(app).splitlines()[0]
        assert "7453" not in top and "you are Ann" in top, top
