"""Benchmark: hostile clients at the doors (SSH and browser), and what they cost everybody else.

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack_doors.py [--seconds 12] [--loops 4]
    .venv/bin/python bench/attack_doors.py --source /tmp/old   # another tree's server

A real ``sheepshead serve --ssh 0 --web 0`` (``bench/attack.py``'s :class:`Served`) runs on a
throwaway database. A victim at a table of its own, from 127.0.0.3, pings every 60 ms. Then,
one scenario at a time, ``--loops`` loops in one attacking process (at low priority, from
127.0.0.2) do one thing over and over:

- ``tab churn``: open a browser tab's websocket (each starts a client process on the server's
  machine), hold it 0.1 s, close it;
- ``ssh churn``: an SSH connection with a key, closed at once (each costs a key exchange);
- ``script GETs``: ask for the page's 300 kB script on a kept-alive connection;
- ``ws GETs``: four plain GETs a second of ``/ws/x`` (no websocket upgrade), each loop from its
  own address (127.0.0.2, .3, .4, .5 for four loops), while two well-behaved browsers, one
  from 127.0.0.9 and one from the first loop's address, each open a tab every 2 s and wait for
  its first screen: their welcomes out of their tries are printed;
- ``big pings``: each loop (from its own address) opens a tab and sends 3.7 MB ``ping``
  messages on it, opening another when the server closes it;
- ``resize flood``: an SSH session with a pty (from 127.0.0.6) sends window changes as fast as
  it can (``change_terminal_size`` in a loop), and opens another when it is closed;
- ``huge pty``: an SSH session asks for a 65535x65535 pty (from 127.0.0.7) and holds it;
- ``slow quitters``: an SSH session with a 200x60 pty and a 1 KiB receive window (from
  127.0.0.8) stops reading, quits the client with ``q``, then takes its queued output at 512
  bytes a second (a slow link): the door waits for output that moves (up to 60 s after the
  exit, ``CLOSE_AFTER_EXIT_MAX``), so each session holds a slot that long; a new one when
  closed. Run it with ``--seconds 75`` to see the whole hold; the attempts count the sessions
  by how long the server held them after the ``q``.

Each prints the victim's ping, the CPU the server and its ended children used over the
window (and the server's alone), the server's resident memory before and after, its children's
at the end, and how the attempts ended. ``--scenarios`` picks some (names, or one
comma-separated list, e.g. ``"resize flood,huge pty"``).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import multiprocessing  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Awaitable, Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from attack import (  # noqa: E402
    ATTACKER_ADDRESS,
    Served,
    Victim,
    attack_arguments,
    server_rss_mb,
    victim_at_own_table,
)

SCENARIOS = (
    "tab churn",
    "ssh churn",
    "script GETs",
    "ws GETs",
    "big pings",
    "resize flood",
    "huge pty",
    "slow quitters",
)
SSH_SCENARIOS = ("ssh churn", "resize flood", "huge pty", "slow quitters")
ADDRESSES = {"resize flood": "127.0.0.6", "huge pty": "127.0.0.7", "slow quitters": "127.0.0.8"}
"""Scenarios that attack from an address of their own: the earlier ones use up the start
allowance of :data:`ATTACKER_ADDRESS`."""
WELL_BEHAVED_ADDRESS = "127.0.0.9"
"""Where the well-behaved browser of ``ws GETs`` opens its tabs from."""
BIG_PING = 3_700_000
"""Characters in a ``big pings`` message."""


def loop_address(number: int) -> str:
    """The address of attacking loop ``number`` in the scenarios that spread over addresses."""
    return f"127.0.0.{2 + number}"


SETTLE = 3.0
"""Seconds after a scenario for the door's children to end, so that their CPU is counted
(``--settle``; the smoke test, which reads no figure, waits less)."""


async def tab_churn(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Open a tab's websocket, hold it 0.1 s, close it; again until ``deadline``."""
    import aiohttp

    connector = aiohttp.TCPConnector(local_addr=(ATTACKER_ADDRESS, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as http:
        while time.monotonic() < deadline:
            try:
                async with http.ws_connect(f"http://127.0.0.1:{port}/ws/churn?width=80&height=24"):
                    ended["tab opened"] += 1
                    await asyncio.sleep(0.1)
            except aiohttp.WSServerHandshakeError as exc:
                ended[f"refused {exc.status}"] += 1
                await asyncio.sleep(0.01)
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1
                await asyncio.sleep(0.01)


async def ssh_churn(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Connect over SSH with a key and close at once; again until ``deadline``."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    while time.monotonic() < deadline:
        try:
            async with asyncssh.connect(
                "127.0.0.1",
                port,
                username="churn",
                client_keys=[key],
                known_hosts=None,
                agent_path=None,
                local_addr=(ATTACKER_ADDRESS, 0),
                login_timeout=5,
            ):
                ended["logged in"] += 1
        except (asyncssh.Error, OSError, TimeoutError) as exc:
            ended[type(exc).__name__] += 1


async def script_gets(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Ask for the page's script on a kept-alive connection until ``deadline``."""
    import aiohttp

    connector = aiohttp.TCPConnector(local_addr=(ATTACKER_ADDRESS, 0), limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        while time.monotonic() < deadline:
            try:
                async with http.get(f"http://127.0.0.1:{port}/static/js/textual.js") as reply:
                    await reply.read()
                    ended[f"HTTP {reply.status}"] += 1
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1


async def ws_gets(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """A plain GET of the websocket's address, from this loop's address, until ``deadline``."""
    import aiohttp

    connector = aiohttp.TCPConnector(local_addr=(loop_address(number), 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        while time.monotonic() < deadline:
            try:
                async with http.get(f"http://127.0.0.1:{port}/ws/x?width=80&height=24") as reply:
                    await reply.read()
                    ended[f"HTTP {reply.status}"] += 1
                await asyncio.sleep(0.25)
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1
                await asyncio.sleep(0.01)


async def big_pings(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Open a tab from this loop's address and send it 3.7 MB pings until ``deadline``."""
    import aiohttp

    message = '["ping", "' + "x" * BIG_PING + '"]'
    connector = aiohttp.TCPConnector(local_addr=(loop_address(number), 0))
    async with aiohttp.ClientSession(connector=connector) as http:
        while time.monotonic() < deadline:
            try:
                async with http.ws_connect(
                    f"http://127.0.0.1:{port}/ws/big?width=80&height=24", max_msg_size=0
                ) as tab:
                    ended["tab opened"] += 1
                    reader = asyncio.create_task(_discard(tab, ended))
                    try:
                        while time.monotonic() < deadline and not tab.closed:
                            await asyncio.wait_for(
                                tab.send_str(message), max(0.1, deadline - time.monotonic())
                            )
                            ended["ping sent"] += 1
                            await asyncio.sleep(0.05)
                    finally:
                        reader.cancel()
                    if tab.close_code is not None:
                        ended[f"closed {tab.close_code}"] += 1
            except aiohttp.WSServerHandshakeError as exc:
                ended[f"refused {exc.status}"] += 1
                await asyncio.sleep(0.5)
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1
                await asyncio.sleep(0.1)


async def _discard(tab: Any, ended: Counter[str]) -> None:
    """Read a tab's messages (its screens, the pongs) and drop them."""
    async for message in tab:
        if message.type.name == "TEXT" and message.data.startswith('["pong"'):
            ended["pong"] += 1


async def well_behaved_tabs(port: int, seconds: float, address: str) -> tuple[int, int]:
    """Open a tab every 2 s from ``address`` and wait for its first screen (up to 5 s);
    (welcomes, tries)."""
    import aiohttp

    welcomes = tries = 0
    deadline = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(local_addr=(address, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as http:
        while time.monotonic() < deadline:
            tries += 1
            began = time.monotonic()
            try:
                async with http.ws_connect(
                    f"http://127.0.0.1:{port}/ws/Guest?width=80&height=24"
                ) as tab:
                    message = await tab.receive(timeout=5)
                    welcomes += message.type == aiohttp.WSMsgType.BINARY
            except (aiohttp.ClientError, OSError, TimeoutError):
                pass
            await asyncio.sleep(max(0.0, 2.0 - (time.monotonic() - began)))
    return welcomes, tries


async def _pty_session(port: int, address: str, size: tuple[int, int], **channel: int) -> Any:
    """An SSH connection with a key and a session with a pty of ``size`` (its first output
    read: the child is running); ``channel`` sets asyncssh's ``window`` and ``max_pktsize``."""
    import asyncssh

    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username="flood",
        client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
        known_hosts=None,
        agent_path=None,
        local_addr=(address, 0),
        login_timeout=5,
    )
    process = await conn.create_process(term_type="xterm", term_size=size, encoding=None, **channel)
    await asyncio.wait_for(process.stdout.read(1), 30)
    return conn, process


async def resize_flood(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Window changes as fast as the connection takes them; a new session when closed."""
    import asyncssh

    while time.monotonic() < deadline:
        try:
            conn, process = await _pty_session(port, ADDRESSES["resize flood"], (80, 24))
            ended["sessions"] += 1
            n = 0
            while time.monotonic() < deadline and not process.channel.is_closing():
                process.change_terminal_size(80 + n % 40, 24 + n % 10)
                n += 1
                ended["window changes"] += 1
                if n % 100 == 0:
                    await asyncio.sleep(0)
            if process.channel.is_closing():
                ended["closed by the server"] += 1
            conn.close()
        except (asyncssh.Error, OSError, TimeoutError) as exc:
            ended[type(exc).__name__] += 1
            await asyncio.sleep(0.1)


async def huge_pty(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """A session with a 65535x65535 pty, held until ``deadline``."""
    import asyncssh

    try:
        conn, process = await _pty_session(port, ADDRESSES["huge pty"], (65535, 65535))
        ended["sessions"] += 1
        while time.monotonic() < deadline and not process.channel.is_closing():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.stdout.read(65536), 0.2)
        conn.close()
    except (asyncssh.Error, OSError, TimeoutError) as exc:
        ended[type(exc).__name__] += 1


async def slow_quitters(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Quit at once, then take the queued output at 512 bytes a second; again when closed."""
    import asyncssh

    while time.monotonic() < deadline:
        try:
            conn, process = await _pty_session(
                port, ADDRESSES["slow quitters"], (200, 60), window=1024, max_pktsize=512
            )
            ended["sessions"] += 1
            await asyncio.sleep(2.0)  # the lobby is drawn, and queued behind the small window
            process.stdin.write(b"q")
            quit_at = time.monotonic()
            while time.monotonic() < deadline and not process.channel.is_closing():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.stdout.read(512), 1.0)
                await asyncio.sleep(1.0)
            if process.channel.is_closing():
                held = time.monotonic() - quit_at
                ended[f"closed {int(held // 10) * 10}-{int(held // 10) * 10 + 10} s after q"] += 1
            conn.close()
        except (asyncssh.Error, OSError, TimeoutError) as exc:
            ended[type(exc).__name__] += 1
            await asyncio.sleep(0.5)


LOOPS: dict[str, Callable[[int, float, Counter[str], int], Awaitable[None]]] = {
    "tab churn": tab_churn,
    "ssh churn": ssh_churn,
    "script GETs": script_gets,
    "ws GETs": ws_gets,
    "big pings": big_pings,
    "resize flood": resize_flood,
    "huge pty": huge_pty,
    "slow quitters": slow_quitters,
}


def attacker(scenario: str, port: int, seconds: float, loops: int, out: Any) -> None:
    """``loops`` of ``scenario`` at once for ``seconds``; how the attempts ended, into ``out``."""
    os.nice(19)  # the attacker's own CPU must not be what slows the server down
    ended: Counter[str] = Counter()

    async def go() -> None:
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(LOOPS[scenario](port, deadline, ended, n) for n in range(loops)))

    asyncio.run(go())
    out.put(dict(ended))


def children_rss_mb(pid: int) -> float:
    """The resident memory of ``pid``'s child processes (and theirs), in MB."""
    total = 0
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            continue
        for kid in kids:
            pending.append(kid)
            with contextlib.suppress(OSError), open(f"/proc/{kid}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return total / 1e6


async def measure(served: Served, victim: Victim, scenario: str, args: argparse.Namespace) -> None:
    """One scenario: the victim's pings, and the CPU of the server and its ended children."""
    port = served.ssh_port if scenario in SSH_SCENARIOS else served.web_port
    assert port is not None
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(
        target=attacker, args=(scenario, port, args.seconds + 1.0, args.loops, out), daemon=True
    )
    worker.start()
    rss_before = server_rss_mb(served.proc.pid)
    await asyncio.sleep(1.0)
    cpu = served.cpu_seconds(children=True)
    own_cpu = served.cpu_seconds()
    start = time.monotonic()
    if scenario == "ws GETs":
        browsers = (WELL_BEHAVED_ADDRESS, loop_address(0))
        times, *welcomed = await asyncio.gather(
            victim.pings(args.seconds),
            *(well_behaved_tabs(port, args.seconds, address) for address in browsers),
        )
    else:
        times = await victim.pings(args.seconds)
    children_rss = children_rss_mb(served.proc.pid)
    ended = await asyncio.to_thread(out.get, True, 60)
    rss_after = server_rss_mb(served.proc.pid)
    worker.join(10)
    await asyncio.sleep(args.settle)
    used = served.cpu_seconds(children=True) - cpu
    own = served.cpu_seconds() - own_cpu
    window = time.monotonic() - start
    print(
        f"  {scenario:<12} victim ping: {benchlib.summary(times)}   server and its clients:"
        f" {used:.1f} CPU-s ({own:.1f} the server alone) in {window:.0f} s;"
        f" RSS {rss_before:.0f} -> {rss_after:.0f} MB, children's at the end {children_rss:.0f} MB"
    )
    if scenario == "ws GETs":
        for address, (welcomes, tries) in zip(browsers, welcomed, strict=True):
            print(
                f"               well-behaved browser at {address}: {welcomes} of {tries} welcomed"
            )
    print(f"               attempts: {dict(sorted(ended.items()))}")


async def run(args: argparse.Namespace) -> None:
    """Every scenario against one server."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.source).resolve()
        served = Served(source, Path(tmp) / "doors.db", ["--ssh", "0", "--web", "0"])
        try:
            if served.web_port is None or served.ssh_port is None:
                raise SystemExit("attack_doors: that server opened no SSH or browser door")
            victim, _ = await victim_at_own_table(served.port)
            print(
                f"server from {args.source}: game port {served.port}, SSH {served.ssh_port},"
                f" browser {served.web_port}; {args.loops} loops per scenario"
            )
            times = await victim.pings(args.seconds / 2)
            print(f"  {'quiet':<12} victim ping: {benchlib.summary(times)}")
            for scenario in args.scenarios:
                await measure(served, victim, scenario, args)
            await victim.close()
        finally:
            served.stop()


def main() -> None:
    """Parse the arguments and run."""
    parser = attack_arguments(__doc__, seconds=12.0)
    parser.add_argument("--loops", type=int, default=4, help="attacking loops per scenario")
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE,
        help="seconds after each scenario for the door's children to end (their CPU counted)",
    )
    parser.add_argument(
        "--scenarios",
        nargs="+",
        default=list(SCENARIOS),
        metavar="SCENARIO",
        help=f"which to run (default all: {', '.join(SCENARIOS)})",
    )
    args = parser.parse_args()
    args.scenarios = [name.strip() for given in args.scenarios for name in given.split(",")]
    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"no scenario {unknown[0]!r} (choose from: {', '.join(SCENARIOS)})")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
