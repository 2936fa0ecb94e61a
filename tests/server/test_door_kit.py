"""What both doors share: the examples in ``server/doors/kit.py`` (names, the session gate)."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import server.doors.kit
from server.app import Server
from server.config import ServerConfig
from server.doors.kit import DoorGate


def test_the_examples_hold() -> None:
    result = doctest.testmod(server.doors.kit)
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
    """Both doors start their children through ``server.doors.child``: a tab's client too runs
    10 nice levels down with a 512 MB data cap (the SSH door's: tests/server/test_ssh_door.py)."""
    import aiohttp

    from tests.server.test_ssh_door import START, data_limit, nice_value, until
    from tests.server.test_web_door import web_door

    config = ServerConfig()
    # The web door tests' own fixture runs tabs un-niced: the default asked for here.
    door = web_door(tmp_path, door_child_nice=config.door_child_nice)
    async with door as (_, doors, base), aiohttp.ClientSession() as http:
        assert doors.web is not None
        base_nice = os.nice(0)
        ws = await http.ws_connect(f"{base}/ws/Ann?width=80&height=24")
        await until(lambda: any(s._process for s in doors.web.services), timeout=START)  # type: ignore[union-attr]
        (service,) = doors.web.services
        assert service._process is not None
        pid = service._process.pid
        # The child lowers its priority, then caps its data: wait for both, in that order.
        await until(lambda: nice_value(pid) == min(19, base_nice + config.door_child_nice))
        await until(lambda: data_limit(pid) == str(config.door_child_data_bytes))
        await ws.close()


def _gate(**overrides: float) -> tuple[DoorGate, Server]:
    app = Server(ServerConfig(**overrides))  # type: ignore[arg-type]
    return DoorGate(app.config, app.allowance, now=0.0), app


def _flood(
    gate: DoorGate, addresses: list[str], start: float, seconds: float, every: float = 0.25
) -> int:
    """Each address asks for a session every ``every`` seconds (each admitted one ends at
    once); how many were admitted."""
    admitted = 0
    for tick in range(round(seconds / every)):
        now = start + tick * every
        for address in addresses:
            if gate.admit(address, now) is None:
                admitted += 1
                gate.release(address)
    return admitted


def test_an_address_starts_its_first_sessions_while_others_keep_the_pool_empty() -> None:
    """A dozen addresses each starting sessions as fast as its own allowance lets it (one
    every 5 s, past its burst) keep the server-wide pool empty: nobody else could start one.
    An address's first starts are its share, pool or not."""
    gate, _ = _gate()
    flooders = [f"192.0.2.{n}" for n in range(1, 13)]
    _flood(gate, flooders, 0.0, 2.0)
    _flood(gate, flooders, 5.0, 65.0, every=5.0)  # the last round at 65 s
    assert gate.admit("198.51.100.7", 65.0) is None
    assert gate.admit("198.51.100.7", 65.0) is None
    assert gate.admit("198.51.100.8", 65.0) is None
    assert gate.admit("192.0.2.1", 65.0) is not None  # the flooders have spent their shares


def test_the_shares_cannot_take_the_pool_deeper_than_one_more_burst() -> None:
    gate, _ = _gate(door_start_burst_total=4.0, door_start_rate_total=0.01)
    admitted = [gate.admit(f"192.0.2.{n}", 0.0) is None for n in range(1, 20)]
    assert admitted.count(True) == 8  # the pool's 4, and 4 more of debt
    assert "--limit door_start_burst_total=N" in (gate.admit("198.51.100.7", 0.0) or "")


def test_an_address_asking_often_still_refills_at_its_rate() -> None:
    """A refused start left the bucket's clock moved and its part-token dropped: one address
    asking four times a second (0.25 s x 0.2/s = 0.05 tokens) kept its address's allowance
    empty for as long as it asked, and everyone at that address with it."""
    gate, _ = _gate(door_start_burst=8.0)
    address = "192.0.2.1"
    assert _flood(gate, [address], 0.0, 2.0) == 8  # the burst
    assert _flood(gate, [address], 2.0, 60.0) == 12  # then one every 5 s


def test_a_venues_players_start_their_games_at_once_and_reload() -> None:
    """A club evening behind one address: two tables and two watchers start their games in
    the same second, and four of them reload (a tab) or come back (a dropped laptop) within
    the minute, while the rest still play. At the old defaults (8 starts at once, 4 sessions
    open) the fifth was refused. One address still holds only its part of the server's
    sessions, however many it asks for."""
    gate, _ = _gate()
    venue = "203.0.113.5"
    assert [gate.admit(venue, 0.0) for _ in range(12)] == [None] * 12
    for second in (10.0, 20.0, 30.0, 40.0):
        gate.release(venue)
        assert gate.admit(venue, second) is None
    assert gate.per_address[venue] == 12
    for _ in range(100):
        gate.admit(venue, 60.0)
    assert gate.per_address[venue] == gate.config.door_sessions_per_address
    assert gate.config.door_sessions_per_address * 5 < gate.config.door_sessions
    assert gate.admit("198.51.100.7", 60.0) is None  # and the next address gets in


def test_every_refusal_says_which_limit_the_host_can_raise_and_fits_a_close_reason() -> None:
    """A refused player was told only "close one first": nothing said the host could let more
    in, or how. A browser tab hears it as its websocket's close reason: 123 bytes at most."""
    gate, _ = _gate(door_sessions=99999, door_sessions_per_address=9999)
    gate.total = 99999
    full = gate.admit("192.0.2.1", 0.0)
    gate.total = 0
    gate.per_address["192.0.2.1"] = 9999
    crowded = gate.admit("192.0.2.1", 0.0)
    gate, _ = _gate(door_start_burst=1.0, door_start_rate=0.001)
    assert gate.admit("192.0.2.1", 0.0) is None
    too_fast = gate.admit("192.0.2.1", 0.0)
    gate, _ = _gate(door_start_burst_total=1.0, door_start_rate_total=0.001, door_start_share=0.0)
    assert gate.admit("192.0.2.1", 0.0) is None
    busy = gate.admit("192.0.2.2", 0.0)
    refusals = {
        "door_sessions": full,
        "door_sessions_per_address": crowded,
        "door_start_burst": too_fast,
        "door_start_burst_total": busy,
    }
    for limit, refusal in refusals.items():
        assert refusal is not None and f"serve --limit {limit}=N" in refusal, limit
        assert len(refusal.encode()) <= 123, refusal
