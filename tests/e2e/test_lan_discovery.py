"""LAN discovery over real multicast: a server announces in one network namespace and
``sheepshead servers`` finds it from another, across a veth link made for the test.

Loopback carries no multicast here, so the test makes two namespaces of its own (root only, and
only where the kernel allows it; otherwise it is skipped and says why) and deletes them after.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.server.support import BUILD, served_env

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Lan:
    """Two namespaces joined by a veth link: the server's side and the browser's side."""

    server_ns: str
    client_ns: str
    server_ip: str


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)


@pytest.fixture
def lan() -> Iterator[Lan]:
    if sys.platform != "linux":
        pytest.skip("network namespaces are Linux only")
    if shutil.which("ip") is None:
        pytest.skip("iproute2 (`ip`) is not installed: apt-get install -y iproute2")
    if os.geteuid() != 0:
        pytest.skip("making network namespaces needs root")
    tag = f"{os.getpid() % 100000}"
    a, b = f"shs{tag}a", f"shs{tag}b"
    made: list[str] = []
    try:
        for ns in (a, b):
            done = _ip("netns", "add", ns)
            if done.returncode != 0:
                pytest.skip(f"network namespaces are not permitted here: {done.stderr.strip()}")
            made.append(ns)
        steps = [
            ("link", "add", f"{a}v", "type", "veth", "peer", "name", f"{b}v"),
            ("link", "set", f"{a}v", "netns", a),
            ("link", "set", f"{b}v", "netns", b),
            ("-n", a, "addr", "add", "10.231.0.1/24", "dev", f"{a}v"),
            ("-n", b, "addr", "add", "10.231.0.2/24", "dev", f"{b}v"),
            ("-n", a, "link", "set", "lo", "up"),
            ("-n", b, "link", "set", "lo", "up"),
            ("-n", a, "link", "set", f"{a}v", "up"),
            ("-n", b, "link", "set", f"{b}v", "up"),
        ]
        for step in steps:
            done = _ip(*step)
            if done.returncode != 0:
                pytest.skip(f"cannot set up the veth link ({' '.join(step)}): {done.stderr}")
        yield Lan(a, b, "10.231.0.1")
    finally:
        _ip("link", "del", f"{a}v")  # only left behind if moving it into a namespace failed
        for ns in made:
            _ip("netns", "del", ns)


def _in(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "client.cli", *args]


@pytest.fixture
async def procs() -> AsyncIterator[list[asyncio.subprocess.Process]]:
    started: list[asyncio.subprocess.Process] = []
    yield started
    for proc in started:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def serve(
    procs: list[asyncio.subprocess.Process], ns: str, *args: str, expect: str
) -> tuple[str, int]:
    """Start ``sheepshead serve`` in ``ns``; its output up to the line holding ``expect``."""
    proc = await asyncio.create_subprocess_exec(
        *_in(ns, "serve", "--port", "0", "--log-level", "warning", *args),
        cwd=ROOT,
        env=served_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    procs.append(proc)
    assert proc.stdout is not None
    text = ""
    while expect not in text:
        line = await asyncio.wait_for(proc.stdout.readline(), 20)
        assert line, f"the server exited: {text}"
        text += line.decode()
    assert f"server code: {BUILD}" in text, text
    port = int(text.split("listening on ", 1)[1].split()[0].rsplit(":", 1)[1])
    return text, port


async def servers_json(ns: str) -> list[dict[str, Any]]:
    proc = await asyncio.create_subprocess_exec(
        *_in(ns, "servers", "--json"), cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    found: list[dict[str, Any]] = json.loads(out)
    assert proc.returncode == (0 if found else 1)
    return found


async def test_servers_finds_an_announced_server_across_the_link(
    lan: Lan, procs: list[asyncio.subprocess.Process], tmp_path: Path
) -> None:
    text, port = await serve(
        procs,
        lan.server_ns,
        "--host",
        lan.server_ip,
        "--db",
        str(tmp_path / "a.db"),
        "--name",
        "Den of Sheep",
        expect="announced on the LAN",
    )
    assert "'Den of Sheep'" in text
    # Two servers that must not be seen: told not to, and bound to loopback only.
    quiet, _ = await serve(
        procs,
        lan.server_ns,
        "--host",
        lan.server_ip,
        "--no-announce",
        "--db",
        str(tmp_path / "b.db"),
        "--name",
        "Hidden",
        expect="Ctrl+C",
    )
    local, _ = await serve(
        procs,
        lan.server_ns,
        "--host",
        "127.0.0.1",
        "--db",
        str(tmp_path / "c.db"),
        "--name",
        "Local",
        expect="Ctrl+C",
    )
    assert "announced" not in quiet and "announced" not in local

    found = await servers_json(lan.client_ns)
    assert found == [
        {
            "name": "Den of Sheep",
            "address": lan.server_ip,
            "port": port,
            "tables": 0,
            "players": 0,
            "version": 1,
        }
    ]

    # A player opens a table from the other side: the announcement follows within seconds.
    player = await asyncio.create_subprocess_exec(
        "ip",
        "netns",
        "exec",
        lan.client_ns,
        sys.executable,
        "-c",
        "import asyncio\n"
        "from client.session import Session\n"
        "async def main():\n"
        f"    s = Session({lan.server_ip!r}, {port}, name='Ann')\n"
        "    await s.connect()\n"
        "    await s.request('create_table', name='t', preset='seed', options={}, hands=1,"
        " password=None)\n"
        "    print('seated', flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    procs.append(player)
    assert player.stdout is not None
    assert b"seated" in await asyncio.wait_for(player.stdout.readline(), 20)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while True:
        found = await servers_json(lan.client_ns)
        if found and found[0]["tables"] == 1 and found[0]["players"] == 1:
            break
        assert loop.time() < deadline, f"the announcement was not refreshed: {found}"


async def test_a_server_on_every_interface_is_found_on_a_lan_with_no_default_route(
    lan: Lan, procs: list[asyncio.subprocess.Process], tmp_path: Path
) -> None:
    """The README's LAN-party command, ``serve --host 0.0.0.0``, on a switch with no uplink:
    the namespace has no default route and this machine's name resolves to loopback, so only
    the interfaces themselves tell its address."""
    routes = subprocess.run(
        ["ip", "-n", lan.server_ns, "route", "show", "default"], capture_output=True, text=True
    )
    assert routes.stdout.strip() == "", "the test's LAN must have no default route"
    text, port = await serve(
        procs,
        lan.server_ns,
        "--host",
        "0.0.0.0",
        "--db",
        str(tmp_path / "a.db"),
        "--name",
        "Party",
        expect="Ctrl+C",
    )
    assert "announced on the LAN as 'Party'" in text, text
    assert f"sheepshead join {lan.server_ip}:{port}" in text, text
    found = await servers_json(lan.client_ns)
    assert [(s["name"], s["address"], s["port"]) for s in found] == [("Party", lan.server_ip, port)]
