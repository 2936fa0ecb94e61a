"""Base classes of the client's screens: one typed way to reach the app and its model.

Textual types ``Screen.app`` as any :class:`textual.app.App`; :attr:`GameScreen.game` is the
same object typed as :class:`client.app.SheepsheadApp`, so screens call the app's methods with
their real signatures instead of through ``Any`` and ``type: ignore``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

from rich.text import Text
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen

from client.decisions import DECISION_VERBS
from client.model import Prompt, TableModel
from client.web_glyphs import clock_text

if TYPE_CHECKING:
    from client.app import SheepsheadApp

ResultType = TypeVar("ResultType")


def game_of(node: DOMNode) -> SheepsheadApp:
    """The sheepshead app a widget or screen runs in."""
    return cast("SheepsheadApp", node.app)


class GameAccess:
    """The typed app and model, for a screen of the sheepshead app (mixed in before Textual's
    screen class)."""

    @property
    def game(self) -> SheepsheadApp:
        """The app, typed."""
        return game_of(cast(DOMNode, self))

    @property
    def model(self) -> TableModel:
        """The app's table model."""
        return self.game.model


class GameScreen(GameAccess, Screen[ResultType]):
    """A full screen of the sheepshead app."""


class GameModal(GameAccess, ModalScreen[ResultType]):
    """A dialog or panel over a screen of the sheepshead app."""


CONNECTION_DOWN = frozenset({"reconnecting", "connecting", "closed"})
"""The app's connection statuses in which nothing is heard from the server."""


def turn_clock(prompt: Prompt | None, status: str, web: bool) -> str | None:
    """The turn timer as shown: ``⏱ 17s``, or ``⏱ --`` while the connection (``status``) is
    down, when the server's clock is not known here (it went on counting down, then jumped
    to the server's deadline once back); None when no timer runs for a decision of yours.
    In the browser (``web``) it reads ``time 17s`` (:func:`~client.web_glyphs.clock_text`)."""
    remaining = None if prompt is None else prompt.remaining()
    if remaining is None:
        return None
    if status in CONNECTION_DOWN:
        return clock_text("--", web)
    return clock_text(f"{int(remaining + 0.999)}s", web)


def turn_note(model: TableModel, status: str, web: bool) -> Text | None:
    """ "▶ Your turn to play: Esc goes back to the table" (and the turn timer, as
    :func:`turn_clock` shows it with the connection's ``status``, in the browser if ``web``)
    while a decision of yours waits, for a panel that covers the table's status line; None
    when nothing is yours to do."""
    prompt = model.prompt
    if prompt is None:
        return None
    verb = DECISION_VERBS.get(prompt.decision, "act")
    note = Text(f" ▶ Your turn to {verb}: Esc goes back to the table ", style="bold reverse")
    clock = turn_clock(prompt, status, web)
    if clock is not None:
        note.append(f"{clock} ")
    return note


class ShowsYourTurn(GameAccess):
    """A panel over the table (help, rules, tricks, the sheets) whose box's bottom border says
    when the table waits for you: the panel hides the table's status line at 80x24, and the
    player lost the fact that it was their turn, or that the turn came while it was open.

    Mixed in before :class:`GameModal`; the panel's outer container has the class ``box``
    (its title stays the panel's own).
    """

    def on_mount(self) -> None:
        """Keep the note in step with the turn (and its timer) while the panel is open."""
        node = cast(Screen[Any], self)
        self._turn_shown: str | None = None
        self.game.model_changed.subscribe(node, lambda _change: self._draw_turn())
        node.set_interval(0.5, self._draw_turn)
        self._draw_turn()

    def _draw_turn(self) -> None:
        boxes = cast(Screen[Any], self).query(".box")
        if not boxes:  # between a recompose's removal and its new children
            return
        note = turn_note(self.model, self.game.status, cast(Screen[Any], self).app.is_web)
        shown = None if note is None else note.plain
        if shown != self._turn_shown:
            self._turn_shown = shown
            boxes.first().border_subtitle = note
