"""Benchmark: the memory each player of the SSH door and of the browser door costs the host.

Run by hand: ``.venv/bin/python bench/doors.py [--players N]``. It starts ``sheepshead serve
--ssh 0 --web 0`` on 127.0.0.1 (a throwaway database), opens N SSH sessions with a pty
(asyncssh's client) and waits until each shows the lobby, measures, closes them, then does the
same with N browser tabs (websockets to the browser door). For each door it prints, per
connected player:

- the client child's RSS (resident memory, shared pages counted in full) and PSS (shared pages
  divided among the processes sharing them: what one more player adds, near enough);
- how much the server process itself grew (its RSS after the sessions minus before).

Figures are in MB; memory is not timing, but it depends on the Python and Textual versions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_ANSI = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
START = 90.0


def _kb(path: str, field: str) -> int:
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss_mb(pid: int) -> float:
    """Resident set size of ``pid`` in MB."""
    return _kb(f"/proc/{pid}/status", "VmRSS") / 1024


def pss_mb(pid: int) -> float:
    """Proportional set size of ``pid`` in MB."""
    return _kb(f"/proc/{pid}/smaps_rollup", "Pss") / 1024


def children(pid: int) -> list[int]:
    """The child processes of ``pid``."""
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
            found += [int(p) for p in f.read().split()]
    return found


async def shows_lobby(read: Any) -> None:
    """Read terminal output until the lobby's title shows."""
    data = b""
    while b"Sheepshead lobby" not in _ANSI.sub(b"", data):
        chunk = await read()
        if not chunk:
            raise RuntimeError("the session ended before the lobby showed")
        data += chunk


async def ssh_players(port: int, players: int) -> list[Any]:
    """``players`` SSH sessions at the lobby (each with its own key)."""
    import asyncssh

    opened: list[Any] = []
    for n in range(players):
        conn = await asyncssh.connect(
            "127.0.0.1",
            port,
            username=f"bench{n}",
            client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
            known_hosts=None,
            agent_path=None,
        )
        process = await conn.create_process(
            term_type="xterm-256color", term_size=(80, 24), encoding=None
        )
        opened.append((conn, process))
        await asyncio.wait_for(shows_lobby(lambda p=process: p.stdout.read(65536)), START)
    return opened


async def web_players(port: int, players: int, http: Any) -> list[Any]:
    """``players`` browser tabs (websockets) at the lobby."""
    import aiohttp

    opened: list[Any] = []
    for n in range(players):
        ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws/bench{n}?width=80&height=24")
        opened.append(ws)

        async def read(ws: Any = ws) -> bytes:
            message = await ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                return bytes(message.data)
            if message.type == aiohttp.WSMsgType.TEXT:
                return b" "
            return b""

        await asyncio.wait_for(shows_lobby(read), START)
    return opened


def report(door: str, server_pid: int, before: float, kids: list[int]) -> None:
    """Print one door's figures."""
    rss = [rss_mb(p) for p in kids]
    pss = [pss_mb(p) for p in kids]
    grew = (rss_mb(server_pid) - before) / max(1, len(kids))
    drivers = set()
    for pid in kids:
        with open(f"/proc/{pid}/environ", "rb") as f:
            web = b"TEXTUAL_DRIVER=textual.drivers.web_driver" in f.read()
        drivers.add("web driver" if web else "terminal on a pty")
    print(
        f"{door:<8} players {len(kids):>2}  child RSS mean {statistics.mean(rss):6.1f} MB "
        f"(max {max(rss):6.1f})  child PSS mean {statistics.mean(pss):6.1f} MB  "
        f"server +{grew:5.2f} MB per player  ({', '.join(sorted(drivers))}; pids {kids})"
    )


async def main(players: int) -> int:
    import aiohttp

    with tempfile.TemporaryDirectory(prefix="sheepshead-bench-doors-") as tmp:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "serve",
                "--port",
                "0",
                "--ssh",
                "0",
                "--web",
                "0",
                "--db",
                os.path.join(tmp, "s.db"),
                "--log-level",
                "warning",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            text = ""
            while "press Ctrl+C" not in text:
                line = server.stdout.readline()
                if not line:
                    raise SystemExit("the server did not start")
                text += line
            ssh_port = int(re.search(r"SSH door on port (\d+)", text).group(1))  # type: ignore[union-attr]
            web_port = int(re.search(r"browser door on port (\d+)", text).group(1))  # type: ignore[union-attr]
            print(f"server pid {server.pid}, RSS {rss_mb(server.pid):.1f} MB at start")
            before = rss_mb(server.pid)
            sessions = await ssh_players(ssh_port, players)
            await asyncio.sleep(1.0)
            report("ssh", server.pid, before, children(server.pid))
            for conn, process in sessions:
                process.close()
                conn.close()
            while children(server.pid):
                await asyncio.sleep(0.1)
            before = rss_mb(server.pid)
            async with aiohttp.ClientSession() as http:
                tabs = await web_players(web_port, players, http)
                await asyncio.sleep(1.0)
                report("browser", server.pid, before, children(server.pid))
                for ws in tabs:
                    await ws.close()
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(15)
            if server.poll() is None:
                server.kill()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, help="sessions per door (default 4)")
    sys.exit(asyncio.run(main(parser.parse_args().players)))
