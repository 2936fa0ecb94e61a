"""Which addresses the per-address limits count as one (server/net/limits.py)."""

from __future__ import annotations

import ast
import asyncio
import doctest
import socket
from pathlib import Path

import pytest

import server.net.limits
from server.net.limits import client_address
from tests.server.support import Raw, running_server


def test_the_examples_hold() -> None:
    # Read from the source and run against the module imported, so that they hold for the
    # compiled build too (whose functions keep no docstrings for doctest to find).
    path = Path(__file__).resolve().parents[2] / "server" / "net" / "limits.py"
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef):
            text = ast.get_docstring(node)
            if text and ">>>" in text:
                name = getattr(node, "name", "limits")
                globs = dict(vars(server.net.limits))
                runner.run(parser.get_doctest(text, globs, name, str(path), 0))
    result = runner.summarize(verbose=False)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.parametrize(
    ("peer", "counted"),
    [
        (("203.0.113.9", 1), "203.0.113.9"),
        (("2001:db8:aa:bb::1", 1, 0, 0), "2001:db8:aa:bb::/64"),
        (("2001:db8:aa:bb:ffff:ffff:ffff:ffff", 1, 0, 0), "2001:db8:aa:bb::/64"),
        (("2001:db8:aa:bc::1", 1, 0, 0), "2001:db8:aa:bc::/64"),
        (("fe80::1%eth0", 1, 0, 2), "fe80::/64"),
        (("::ffff:203.0.113.9", 1, 0, 0), "203.0.113.9"),
        (("::1", 1, 0, 0), "::1"),
        (("not an address", 1), "not an address"),
        ((), "?"),
        ("127.0.0.1", "127.0.0.1"),
        ("", "?"),
        (None, "?"),
    ],
)
def test_an_ipv6_host_counts_as_its_slash_64(peer: object, counted: str) -> None:
    assert client_address(peer) == counted


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
async def test_a_server_on_ipv6_meters_its_clients_by_address() -> None:
    async with running_server(host="::1", max_per_address=2) as server:
        assert server.port
        clients = []
        for _ in range(2):
            reader, writer = await asyncio.open_connection("::1", server.port)
            raw = Raw(reader, writer)
            await raw.hello()
            clients.append(raw)
        reader, writer = await asyncio.open_connection("::1", server.port)
        third = Raw(reader, writer)
        refused = await third.recv()
        assert refused["code"] == "too_many_connections"
        for raw in [*clients, third]:
            await raw.close()


def test_asking_faster_than_an_addresss_allowance_does_not_keep_it_empty() -> None:
    """A client retrying its connection 20 times a second, past the address's allowance of 5
    new connections a second: the refusals cost nothing, so the address still gets its 5 a
    second (before, each refusal threw away the part it had refilled: none, for as long as it
    asked, and so for everyone behind the same address)."""
    from server.config import ServerConfig
    from server.net.limits import AddressAllowance

    config = ServerConfig()
    connections = AddressAllowance(config, 0.0).connections
    assert sum(connections.take(0.0) for _ in range(100)) == config.connection_burst
    asked = [connections.take(step / 20) for step in range(1, 20 * 10 + 1)]  # 10 s at 20/s
    assert sum(asked) == pytest.approx(config.connection_rate * 10, abs=1)


async def test_connections_refused_past_the_allowance_do_not_lock_the_address_out() -> None:
    async with running_server(connection_rate=20.0, connection_burst=2.0) as server:
        accepted = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        # Retry at once after every refusal; ten connections must still get through.
        while accepted < 10:
            assert loop.time() < deadline, f"locked out after {accepted} connections"
            raw = await Raw.open(server.port, source="127.0.0.9")
            try:
                reply = await raw.request("hello", version=1, kind="human", name="Retry")
                accepted += reply["type"] == "welcome"
            except EOFError:
                pass  # refused: too_many_connections, then closed
            await raw.close()
