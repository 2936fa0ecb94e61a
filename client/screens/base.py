"""Base classes of the client's screens: one typed way to reach the app and its model.

Textual types ``Screen.app`` as any :class:`textual.app.App`; :attr:`GameScreen.game` is the
same object typed as :class:`client.app.SheepsheadApp`, so screens call the app's methods with
their real signatures instead of through ``Any`` and ``type: ignore``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen

from client.model import TableModel

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
