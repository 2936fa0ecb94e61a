"""The create-table dialog's fields, set by keyboard the way a person does: Tab to a field,
type over it, Backspace, Ctrl+A. A number that is not taken is said at its field with its
range (it was dropped in silence, or refused at the server), and the number typed is the
number sent."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Input, Static

from client.app import SheepsheadApp
from client.screens.dialogs import CreateTableDialog
from client.screens.lobby import LobbyScreen
from tests.client.test_e2e import SIZE, wait_for
from tests.client.test_screens import screen_text

TO_HANDS = ["tab", "tab"]
TO_TIMER = ["tab", "tab", "tab"]


async def _dialog(app: SheepsheadApp, pilot: Any, keys: list[str]) -> CreateTableDialog:
    """Open the dialog from the lobby with c and press ``keys`` in it."""
    await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(app.screen, CreateTableDialog))
    dialog = app.screen
    assert isinstance(dialog, CreateTableDialog)
    await wait_for(pilot, lambda: dialog.focused is dialog.query_one("#f-name"))
    await pilot.press(*keys)
    return dialog


def _created(app: SheepsheadApp) -> list[dict[str, Any]]:
    return [m for m in app.outbox if m["type"] == "create_table"]


@pytest.mark.parametrize(
    ("keys", "hands"),
    [
        (["ctrl+a", "3"], 3),  # Ctrl+A selects it all (it went to the start: 310)
        (["backspace", "1"], 1),
        (["home", "3"], 310),  # at the start, a digit goes in front: editing, as asked
        (["end", "backspace", "backspace", "1", "2"], 12),
    ],
)
async def test_the_hands_typed_are_the_hands_sent(keys: list[str], hands: int) -> None:
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        await _dialog(app, pilot, [*TO_HANDS, *keys, "enter"])
        await wait_for(pilot, lambda: bool(_created(app)))
        assert _created(app)[0]["hands"] == hands


NOT_TAKEN = [
    ([*TO_HANDS, "x"], "f-hands", "from 1 to 1000"),  # a letter: the bell alone, before
    ([*TO_HANDS, "minus"], "f-hands", "from 1 to 1000"),
    ([*TO_HANDS, *"0"], "f-hands", "from 1 to 1000"),
    ([*TO_HANDS, *"2000"], "f-hands", "from 1 to 1000"),  # the server refused it
    ([*TO_HANDS, *"99999"], "f-hands", "from 1 to 1000"),  # the 5th 9 went in silence
    ([*TO_TIMER, *"3"], "f-timer", "from 5 to 86400"),
    ([*TO_TIMER, *"999999"], "f-timer", "from 5 to 86400"),
]
"""Keys typed into a new dialog, the field they leave with a number it does not take, and
what its line says."""


async def test_a_number_not_taken_is_said_at_its_field() -> None:
    # One app: the dialog opened afresh for each case and cancelled with Esc (an app a case
    # was seven app runs).
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        for keys, field, said in NOT_TAKEN:
            dialog = await _dialog(app, pilot, keys)
            line = dialog.query_one(f"#{field}-error", Static)
            case = f"{keys}: {line.render()}"
            assert line.display and said in str(line.render()), case
            assert line.region.y == dialog.query_one(f"#{field}", Input).region.y + 1, case
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        assert not _created(app)
        # A refused key's line goes once the field is left as it takes it: "abc" over an
        # emptied Hands field left "Hands: a whole number ..." in red under an empty field
        # (which is allowed: no limit) while the host went on to the password.
        dialog = await _dialog(app, pilot, [*TO_HANDS, "ctrl+a", "backspace", *"abc"])
        line = dialog.query_one("#f-hands-error", Static)
        assert line.display
        await pilot.press("tab")
        await pilot.pause()
        assert not line.display, line.render()
        await pilot.press("shift+tab", "x", "tab")  # left as refused, but the text is taken
        await pilot.pause()
        assert not line.display, line.render()
        await pilot.press("shift+tab", *"0", "tab")  # a number it does not take: still said
        await pilot.pause()
        assert line.display and "from 1 to 1000" in str(line.render())
        await pilot.press("escape")


async def test_a_turn_timer_under_5_s_is_refused_with_the_reason() -> None:
    # The server takes 0.1 s; the dialog said only "from 5 to 86400", as if that were the
    # server's rule. It is the dialog's, for people: the line says why, and the whole of it
    # is on screen at 80x24.
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _dialog(app, pilot, [*TO_TIMER, "3"])
        await pilot.pause()
        line = dialog.query_one("#f-timer-error", Static)
        said = str(line.render())
        assert "from 5 to 86400, or empty for none." in said, said
        assert "Under 5 s a person has no time to read the table and choose" in said, said
        # Every line of it is shown (the grid's rows were one line: "or empty for" was all).
        wrapped = Text(said).wrap(app.console, line.region.width)
        assert len(wrapped) > 1 and line.region.height == len(wrapped), line.region
        shown = screen_text(app)
        assert all(str(part).strip() in shown for part in wrapped), shown
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog and not _created(app)


async def test_a_number_out_of_range_is_not_sent_and_keeps_its_field() -> None:
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _dialog(app, pilot, [*TO_HANDS, *"2000", "tab", "ctrl+s"])
        await pilot.pause()
        assert app.screen is dialog and not _created(app)
        hands = dialog.query_one("#f-hands", Input)
        assert dialog.focused is hands
        await pilot.press("5", "0", "enter")  # over the 2000, selected again: sent as typed
        await wait_for(pilot, lambda: bool(_created(app)))
        assert _created(app)[0]["hands"] == 50


async def test_the_message_goes_once_the_number_is_in_range() -> None:
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _dialog(app, pilot, [*TO_TIMER, "3"])
        line = dialog.query_one("#f-timer-error", Static)
        assert line.display
        await pilot.press("0")
        assert not line.display


async def test_a_click_on_a_fields_name_focuses_the_field() -> None:
    # Clicking "Hands" did nothing: only the field itself took a click.
    app = SheepsheadApp(mode="join")
    async with app.run_test(size=SIZE) as pilot:
        dialog = await _dialog(app, pilot, [])
        for field in ("f-hands", "f-timer", "f-preset", "f-name"):
            await pilot.click(f"#label-{field}")
            await wait_for(pilot, lambda f=field: dialog.focused is dialog.query_one(f"#{f}"))
