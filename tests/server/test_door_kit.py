"""What both doors share: the examples in ``server/door_kit.py`` (names, the session gate)."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

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


async def test_a_browser_tabs_client_runs_niced_under_the_data_cap(tmp_path: Path) -> None:
    """Both doors start their children through ``server.door_child``: a tab's client too runs
    10 nice levels down with a 512 MB data cap (the SSH door's: tests/server/test_ssh_door.py)."""
    import aiohttp

    from tests.server.test_ssh_door import START, data_limit, nice_value, until
    from tests.server.test_web_door import web_door

    config = ServerConfig()
    async with web_door(tmp_path) as (_, doors, base), aiohttp.ClientSession() as http:
        assert doors.web is not None
        base_nice = os.nice(0)
        ws = await http.ws_connect(f"{base}/ws/Ann?width=80&height=24")
        await until(lambda: any(s._process for s in doors.web.services), timeout=START)  # type: ignore[union-attr]
        (service,) = doors.web.services
        assert service._process is not None
        pid = service._process.pid
        await until(lambda: nice_value(pid) == min(19, base_nice + config.door_child_nice))
        assert data_limit(pid) == str(config.door_child_data_bytes)
        await ws.close()
