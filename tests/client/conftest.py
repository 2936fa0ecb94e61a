"""Client tests run with the turn bell off and no trick pause unless a test sets them."""

from __future__ import annotations

import pytest

import client.app
from client.settings import ClientSettings

QUIET = ClientSettings(bell=False, trick_pause=0.0)
"""The settings of an app in a test that gives none: silent, and no wait after a trick."""


@pytest.fixture(autouse=True)
def quiet_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """No bell in tests (the issue's rule) and no trick pause, unless a test passes its own."""
    monkeypatch.setattr(client.app, "DEFAULT_SETTINGS", QUIET)
