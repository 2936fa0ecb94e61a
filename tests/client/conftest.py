"""Client tests run with the turn bell off and no trick pause unless a test sets them; the
end-to-end ones share a fast real server (``server``, or :func:`server_config` for their own).
The screen is drawn when a test reads it, not at every frame, unless the test is marked
``every_frame``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual._context import visible_screen_stack
from textual.screen import Screen

import client.app
from client.settings import ClientSettings
from server.app import Server, ServerConfig

QUIET = ClientSettings(bell=False, trick_pause=0.0)
"""The settings of an app in a test that gives none: silent, and no wait after a trick."""


@pytest.fixture(autouse=True)
def quiet_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No bell in tests (the issue's rule) and no trick pause, unless a test passes its own."""
    monkeypatch.setattr(client.app, "DEFAULT_SETTINGS", QUIET)


_draw_frame = Screen._compositor_refresh


def _refresh_without_frame(self: Screen[Any]) -> None:
    """The top screen's frame is not drawn (its regions no longer wait to be); what the
    frame would have set for a later drawing (the screens showing through a dialog) is set.
    Anything else, Textual's own refresh."""
    app = self.app
    if self is app.screen and not app.is_inline:
        visible_screen_stack.set(app._background_screens)
        self._compositor._dirty_regions.clear()
        self._dirty_widgets.clear()
        app._update_mouse_over(self)
    else:
        _draw_frame(self)


@pytest.fixture(autouse=True)
def frames_only_when_read(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``run_test`` Textual draws every frame for a terminal that is not there and throws
    it away: a third of the client tests' CPU (45 to 30 CPU-s for tests/client/test_screens.py
    and test_club_table.py). Each test still draws the whole screen whenever it reads it
    (``screen_text``, snapshots), with every widget's own rendering; tests marked
    ``every_frame`` (a whole match played through the client) draw every frame as a terminal
    would, so a frame that cannot be drawn still fails a test."""
    if request.node.get_closest_marker("every_frame") is None:
        monkeypatch.setattr(Screen, "_compositor_refresh", _refresh_without_frame)


def server_config(**changes: Any) -> ServerConfig:
    """A real server on 127.0.0.1, any free port, whose bots act at once with no pause between
    hands or after a trick; ``changes`` replace any of that or add options."""
    # seed_wait 0.5: most tests start the match before the app (which sends the seed) runs.
    fields: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "bot_delay": 0,
        "hand_pause": 0,
        "trick_pause": 0,
        "seed_wait": 0.5,
    }
    fields.update(changes)
    return ServerConfig(**fields)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """A started server of :func:`server_config`, stopped after the test."""
    srv = Server(server_config())
    await srv.start()
    yield srv
    await srv.stop()
