"""Client tests run with the turn bell off and no trick pause unless a test sets them; the
end-to-end ones share a fast real server (``server``, or :func:`server_config` for their own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import client.app
from client.settings import ClientSettings
from server.app import Server, ServerConfig

QUIET = ClientSettings(bell=False, trick_pause=0.0)
"""The settings of an app in a test that gives none: silent, and no wait after a trick."""


@pytest.fixture(autouse=True)
def quiet_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No bell in tests (the issue's rule) and no trick pause, unless a test passes its own."""
    monkeypatch.setattr(client.app, "DEFAULT_SETTINGS", QUIET)


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
