"""Every dialog fits an 80x24 terminal with its buttons and its input on screen (a dialog whose
buttons are cut off leaves a first-time host stuck), and says its keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList

from client.app import SheepsheadApp
from client.model import TableModel
from client.screens.dialogs import (
    BuryDialog,
    CallDialog,
    ChatDialog,
    ConfirmDialog,
    CreateTableDialog,
    PasswordDialog,
)
from client.screens.table import leave_question
from tests.client.test_screens import screen_text

SIZES = [(80, 24), (80, 40), (120, 40)]

HAND = ["QC", "QS", "JD", "AD", "10H", "KS", "9C", "7H"]


def _chat_model() -> TableModel:
    model = TableModel()
    for n in range(12):  # more than it shows, each as long as a chat line may be
        model.note("chat", f"Player{n}: " + "a long line of chat " * 10)
    return model


def _long_question() -> str:
    model = TableModel()
    model.reset("t1")
    model.info = {"state": "playing", "seats": [{"name": "Ann", "kind": "human"}]}
    model.seat = 0
    question = leave_question(model)
    assert question is not None
    return question


DIALOGS: dict[str, Callable[[], Screen[Any]]] = {
    "create": lambda: CreateTableDialog("Ann's table"),
    "bury": lambda: BuryDialog(
        HAND,
        [
            {"action": "bury", "cards": ["9C", "7H"]},
            {"action": "bury", "cards": ["KS", "7H"]},
            {"action": "blitz", "pair": "black"},
        ],
        blind=["9C", "7H"],
        hints=True,  # a Tavern table with the coach: four buttons, Later Esc the last
    ),
    "call": lambda: CallDialog(
        HAND,
        [
            {"action": "call", "card": "AC"},
            {"action": "call", "card": "AS"},
            {"action": "call", "card": "AH"},
            {"action": "unknown", "card": "AC", "under": "7H"},
            {"action": "alone"},
        ],
    ),
    "chat": lambda: ChatDialog(_chat_model()),
    "confirm": lambda: ConfirmDialog(_long_question()),
    "password": lambda: PasswordDialog("a table with a long name"),
}


def _visible(widget: Widget, screen: Screen[Any]) -> None:
    """On screen, whole, and not scrolled out of its container."""
    region = widget.region
    assert region.area > 0, f"{widget!r} has no room"
    assert screen.region.contains_region(region), f"{widget!r} at {region} is off the screen"
    assert widget in screen._compositor.visible_widgets, f"{widget!r} is scrolled out"
    for ancestor in widget.ancestors:
        if isinstance(ancestor, Widget) and ancestor is not screen:
            assert ancestor.region.contains_region(region), (
                f"{widget!r} at {region} is cut by {ancestor!r} at {ancestor.region}"
            )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_dialog_fits_with_its_buttons_on_screen(size: tuple[int, int]) -> None:
    # One app a size, each dialog opened over the table and closed again in turn (an app a
    # dialog and size cost 18 app runs, some 9 CPU seconds of the test run).
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for name, make in DIALOGS.items():
            dialog = make()
            app.push_screen(dialog)
            await pilot.pause()
            await pilot.pause()
            assert app.screen is dialog, name
            controls = list(dialog.query(Button)) + list(dialog.query(Input))
            controls += list(dialog.query(OptionList))
            assert controls, f"{name}: a dialog answers by a button, an input or a list"
            for widget in controls:
                if widget.display:
                    _visible(widget, dialog)
            box = dialog.query_one(".box")
            assert dialog.region.contains_region(box.region), f"{name}\n{screen_text(app)}"
            if name == "password":  # it named no key: a wrong password's pop-up said Esc
                assert "Esc gives up" in screen_text(app), screen_text(app)
            app.pop_screen()
            await pilot.pause()
            assert app.screen is not dialog, name


async def test_the_create_dialog_says_its_keys() -> None:
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(CreateTableDialog("Ann's table"))
        await pilot.pause()
        text = screen_text(app)
        assert "Ctrl+S" in text and "Esc" in text, text
