"""What both doors share: the examples in ``server/door_kit.py`` (names, the session gate)."""

from __future__ import annotations

import doctest

import server.door_kit
from server.app import Server
from server.config import ServerConfig


def test_the_examples_hold() -> None:
    result = doctest.testmod(server.door_kit)
    assert result.attempted >= 8 and result.failed == 0


def test_the_doors_allowances_are_forgotten_once_refilled_as_the_servers_are() -> None:
    """The doors meter new sessions and HTTP requests in the server's per-address allowance,
    so a flood from many addresses leaves nothing behind once each has refilled."""
    app = Server(ServerConfig(door_start_rate=1.0, web_request_rate=1.0))
    flood = [f"2001:db8:{n:x}::" for n in range(1500)]
    for address in flood:
        allowance = app.allowance(address, 0.0)
        assert allowance.door_starts.take(0.0) and allowance.web_requests.take(0.0)
    app._forget_allowances(0.5)
    assert len(app._allowances) == 1500  # each still drawing
    app._forget_allowances(100.0)
    assert not app._allowances
