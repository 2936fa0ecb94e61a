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
- ``tabs held``: each loop (all from 127.0.0.10, one address) opens tabs and holds every
  one until the end, reading their screens; a refused one (503 before, a close with code 1013
  and its reason now) waits a second before the next try: how many one address holds at the
  peak, and their memory (the children's at the end);
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
  by how long the server held them after the ``q``;
- ``keyless logins``: an SSH login that offers no key, each loop from an address of its own
  (127.0.0.20 and up, so that each has the connection allowance of an address): the door
  offers keyboard-interactive once, to say how to make a key; the loop answers its challenge
  with an empty answer, or with :data:`LONG_ANSWER` characters (near asyncssh's 256 KiB packet
  limit), and every other login then asks for keyboard-interactive again and tries a password
  in the same connection, before it is refused and leaves; the attempts count each refusal
  by its answer, what the door said, and whether anything was let in or offered twice;
- ``unlisted keys``: the same, offering a key that ``--ssh-keys`` does not list (from
  127.0.0.30 and up), against a server of its own started with an ``authorized_keys`` file
  (and a victim of its own): the door says the key is not listed;
- ``keyless restart``: ``keyless logins`` against a server of its own on a fixed SSH port,
  stopped (SIGTERM) half-way through and started again on the same port and database: how
  long the stop and the start took with the logins in flight, and how the attempts ended
  (no victim: the game port changes);
- ``second windows``: each loop's key (from 127.0.0.(50 + n)) sits at a table of its own
  through a first session (its client creates the table), then opens second sessions of the
  same key one after the other, each left at the question the door asks a key's second
  window whose seat is connected elsewhere ("take the seat here?"; meanwhile the door asks the
  first session for a keepalive), as fast as the door starts sessions for the address; the
  attempts count the questions asked, the sessions that started a client instead, and the
  refusals, by what the door wrote on stderr (``refused: the address's starts`` and the like,
  :data:`STARTS_REFUSED`: expected at this pace; ``exited N unasked`` is any other end, a
  player locked out) (its first session takes a second or two to seat, from the window's start: each
  loop opens one second session at least, past the window if need be);
- ``second tabs``: each loop's browser (a cookie of its own, from 127.0.0.(60 + n)) sits at a
  table of its own through a first tab (its client creates the table), reloads it (the new tab
  takes the seat back, unasked: the browser's kept seat token is filed then), then opens second
  tabs with the same cookie one after the other, each read until the door's question ("take
  the seat here?"; meanwhile the door pings the seated tab) and closed at once, as fast as the
  door starts tabs for the address; the attempts count the questions asked, the tabs that
  started a client instead, and the refusals (1013); one second tab at least, as
  ``second windows``;
- ``doors restart``: the doors in a process of their own (``serve --server-socket``) for a
  server on a Unix socket (``serve --local-socket``); a player seated through an SSH session
  (from 127.0.0.70); ``--loops`` loops of SSH visits (a fresh key each, from 127.0.0.(80 + n):
  connect, wait for the lobby, ``q``, leave) and as many of ``tab churn``; half-way the
  server is killed (SIGKILL) and started again :data:`DOWN` seconds later on the same
  database and socket: how long
  the seated player's session took to say ``connected`` again (the same SSH session, its
  seat back), the doors process's memory and CPU, its children left, and the attempts;
- ``doors windows``: ``second windows`` and then ``second tabs`` against the doors in a process
  of their own (as ``doors restart``), which ask the server over its socket whether the seat a
  second window would take is connected (``door_seat``, PROTOCOL.md §15: one connection on the
  socket per question): the questions asked, the CPU of the server and, apart, of the doors
  process with its children, and the victim's ping on the server;
- ``login requests``: an SSH connection with no key (each loop from 127.0.0.(40 + n)) keeps
  100 password requests in flight, one more sent for each refusal, until the door closes it
  (then another): each refused request costs the door its receiving and its refusal.

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
import logging  # noqa: E402
import multiprocessing  # noqa: E402
import socket  # noqa: E402
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
    "tabs held",
    "ssh churn",
    "script GETs",
    "ws GETs",
    "big pings",
    "resize flood",
    "huge pty",
    "slow quitters",
    "keyless logins",
    "unlisted keys",
    "keyless restart",
    "login requests",
    "second windows",
    "second tabs",
    "doors restart",
    "doors windows",
)
SSH_SCENARIOS = (
    "second windows",
    "ssh churn",
    "resize flood",
    "huge pty",
    "slow quitters",
    "keyless logins",
    "unlisted keys",
    "login requests",
)
ADDRESSES = {
    "resize flood": "127.0.0.6",
    "huge pty": "127.0.0.7",
    "slow quitters": "127.0.0.8",
    "tabs held": "127.0.0.10",
}
"""Scenarios that attack from an address of their own: the earlier ones use up the start
allowance of :data:`ATTACKER_ADDRESS`."""
WELL_BEHAVED_ADDRESS = "127.0.0.9"
"""Where the well-behaved browser of ``ws GETs`` opens its tabs from."""
BIG_PING = 3_700_000
"""Characters in a ``big pings`` message."""
LONG_ANSWER = 250_000
"""Characters in the long answer of ``keyless logins`` to keyboard-interactive: as long as
asyncssh's largest packet (256 KiB) lets it be."""
SECOND_WINDOWS_ADDRESS = 50
"""``second windows`` loop ``n`` sits and opens its second windows from 127.0.0.(50 + n)."""
ASKED = b"take the seat here"
"""What the door's question (``server.doors.ssh.ANOTHER_WINDOW``) says, plain on the terminal."""
SECOND_TABS_ADDRESS = 60
"""``second tabs`` loop ``n`` sits and opens its second tabs from 127.0.0.(60 + n)."""
LOBBY = b"create"
"""What the lobby's hint says whether or not it lists tables ("c creates one", "press c to
create one"): the lobby is up. The victim's table is listed, so "No tables yet" never shows
(waiting for it cost each first session its 30 s timeout)."""
KEYLESS_ADDRESS = 20
"""``keyless logins`` loop ``n`` attacks from 127.0.0.(20 + n); ``unlisted keys`` from
127.0.0.(30 + n)."""


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
                async with http.ws_connect(
                    f"http://127.0.0.1:{port}/ws/churn?width=80&height=24"
                ) as tab:
                    refused = await _refused_within(tab, 0.1)
                    ended["refused 1013" if refused else "tab opened"] += 1
                    if refused:
                        await asyncio.sleep(0.01)
            except aiohttp.WSServerHandshakeError as exc:
                ended[f"refused {exc.status}"] += 1
                await asyncio.sleep(0.01)
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1
                await asyncio.sleep(0.01)


REFUSED = 1013
"""The close code of a tab the door refuses (``server.doors.web.REFUSED``; before, a 503)."""


async def _refused_within(tab: Any, seconds: float) -> bool:
    """Read ``tab``'s messages for ``seconds``; whether the door closed it as refused."""
    import aiohttp

    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            message = await tab.receive(timeout=left)
        except TimeoutError:
            return False
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return tab.close_code == REFUSED
    return False


async def tabs_held(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Open tabs from one address until ``deadline`` and hold them all 3 s longer; a refused
    one waits a second. ``ended["held at the peak"]``: the most open at once, over every loop."""
    import aiohttp

    connector = aiohttp.TCPConnector(local_addr=(ADDRESSES["tabs held"], 0), limit=0)
    held: list[Any] = []
    readers: list[asyncio.Task[None]] = []
    async with aiohttp.ClientSession(connector=connector) as http:
        try:
            while time.monotonic() < deadline:
                try:
                    tab = await http.ws_connect(
                        f"http://127.0.0.1:{port}/ws/held{number}?width=80&height=24"
                    )
                except aiohttp.WSServerHandshakeError as exc:
                    ended[f"refused {exc.status}"] += 1
                    await asyncio.sleep(1.0)
                    continue
                except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                    ended[type(exc).__name__] += 1
                    await asyncio.sleep(1.0)
                    continue
                if await _refused_within(tab, 0.5):
                    ended["refused 1013"] += 1
                    await asyncio.sleep(1.0)
                    continue
                held.append(tab)
                readers.append(asyncio.create_task(_discard(tab, ended)))
                ended["open"] += 1
                ended["held at the peak"] = max(ended["held at the peak"], ended["open"])
            # Held a little past the window, so that the children's memory is read with them.
            await asyncio.sleep(3.0)
        finally:
            for reader in readers:
                reader.cancel()
            for tab in held:
                await tab.close()
                ended["open"] -= 1


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


def _keyless_client() -> Any:
    """The class of a client that offers keyboard-interactive, answers the challenge with its
    ``answer``, and (``probe``) once refused asks for keyboard-interactive again and then tries
    a password in the same connection, whatever the door lists (asyncssh's client would only
    try what the door lists, so these two requests are sent as packets of their own)."""
    import asyncssh
    from asyncssh.constants import MSG_USERAUTH_FAILURE, MSG_USERAUTH_REQUEST
    from asyncssh.packet import Boolean, String

    class Keyless(asyncssh.SSHClient):
        def __init__(self, answer: str, probe: bool) -> None:
            self.answer = answer
            self.probe = probe
            self.challenges: list[str] = []
            """The instructions of each keyboard-interactive challenge the door sent."""
            self.listed: list[list[bytes]] = []
            """The methods each refusal after the first challenge listed."""
            self.probes = 0

        def connection_made(self, conn: Any) -> None:
            # The same trick as the door's own metering: a copy of the packet table on this
            # connection alone, so that a refusal can be answered with a request of ours.
            handlers = dict(conn._packet_handlers)
            original = handlers[MSG_USERAUTH_FAILURE]

            def failure(conn: Any, pkttype: int, pktid: int, packet: Any) -> Any:
                if self.challenges:
                    start = packet._idx
                    self.listed.append(list(packet.get_namelist()))
                    packet._idx = start
                if self.probe and self.challenges and self.probes < 2:
                    method, args = (
                        (b"keyboard-interactive", (String(""), String(""))),
                        (b"password", (Boolean(False), String("secret"))),
                    )[self.probes]
                    self.probes += 1
                    request = conn._get_userauth_request_packet(method, args)
                    conn.send_packet(MSG_USERAUTH_REQUEST, request[1:])
                    return None
                return original(conn, pkttype, pktid, packet)

            handlers[MSG_USERAUTH_FAILURE] = failure
            conn._packet_handlers = handlers

        def kbdint_auth_requested(self) -> str:
            return ""

        def kbdint_challenge_received(
            self, name: str, instructions: str, lang: str, prompts: Any
        ) -> list[str]:
            self.challenges.append(instructions)
            return [self.answer]  # an answer though nothing was asked: the door must not care

    return Keyless


async def keyless_logins(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Log in with no key, through keyboard-interactive, until ``deadline``."""
    await _refused_logins(port, deadline, ended, f"127.0.0.{KEYLESS_ADDRESS + number}", False)


async def unlisted_keys(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Log in with a key ``--ssh-keys`` does not list, then keyboard-interactive, until
    ``deadline``."""
    await _refused_logins(port, deadline, ended, f"127.0.0.{KEYLESS_ADDRESS + 10 + number}", True)


async def _refused_logins(
    port: int, deadline: float, ended: Counter[str], address: str, with_key: bool
) -> None:
    """Logins from ``address`` that the door must refuse, each a new connection, one after
    another: the answers and the probes (:func:`_keyless_client`) take turns."""
    import asyncssh

    keyless = _keyless_client()
    keys = [asyncssh.generate_private_key("ssh-ed25519")] if with_key else []
    attempt = 0
    while time.monotonic() < deadline:
        answer = "x" * LONG_ANSWER if attempt % 2 else ""
        probe = attempt % 4 >= 2
        attempt += 1
        client = keyless(answer, probe)
        try:
            async with asyncssh.connect(
                "127.0.0.1",
                port,
                username="keyless",
                client_factory=lambda client=client: client,
                client_keys=keys,
                known_hosts=None,
                agent_path=None,
                password=None,
                local_addr=(address, 0),
                login_timeout=5,
            ):
                ended["LOGGED IN"] += 1
        except asyncssh.PermissionDenied:
            ended[f"refused ({'long' if answer else 'empty'} answer)"] += 1
        except (asyncssh.Error, OSError, TimeoutError) as exc:
            ended[type(exc).__name__] += 1
            if isinstance(exc, ConnectionRefusedError):  # a restart: nobody listens yet
                await asyncio.sleep(0.05)
            continue
        if len(client.challenges) > 1:
            ended["KEYBOARD-INTERACTIVE OFFERED TWICE"] += 1
        if any(b"keyboard-interactive" in listed for listed in client.listed):
            ended["KEYBOARD-INTERACTIVE LISTED AFTER THE CHALLENGE"] += 1
        if client.challenges:
            said = client.challenges[0]
            told = (
                "make a key"
                if "ssh-keygen" in said
                else "not listed"
                if "public key" in said
                else said[:20]
            )
            ended[f"told: {told}"] += 1
        if client.probes == 2:
            ended["second keyboard-interactive and password refused"] += 1


async def login_requests(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Password requests, 100 in flight, on a connection without a key; a new one when the
    door closes it, until ``deadline``."""
    import asyncssh
    from asyncssh.constants import MSG_USERAUTH_FAILURE, MSG_USERAUTH_REQUEST
    from asyncssh.packet import Boolean, String

    class Asking(asyncssh.SSHClient):
        def __init__(self) -> None:
            self.lost = asyncio.Event()
            self.conn: Any = None

        def connection_made(self, conn: Any) -> None:
            self.conn = conn
            handlers = dict(conn._packet_handlers)
            request = conn._get_userauth_request_packet(
                b"password", (Boolean(False), String("secret"))
            )[1:]

            def failure(conn: Any, pkttype: int, pktid: int, packet: Any) -> None:
                ended["refused requests"] += 1
                for _ in range(1 if self.started else 100):
                    conn.send_packet(MSG_USERAUTH_REQUEST, request)
                self.started = True

            self.started = False
            handlers[MSG_USERAUTH_FAILURE] = failure
            conn._packet_handlers = handlers

        def connection_lost(self, exc: Exception | None) -> None:
            self.lost.set()

    # Requests sent after the door closed: asyncio warns once for each.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    address = f"127.0.0.{KEYLESS_ADDRESS + 20 + number}"
    while time.monotonic() < deadline:
        client = Asking()

        async def log_in(client: Any = client) -> None:
            await asyncssh.connect(
                "127.0.0.1",
                port,
                username="asking",
                client_factory=lambda: client,
                client_keys=[],
                known_hosts=None,
                agent_path=None,
                password=None,
                local_addr=(address, 0),
                login_timeout=60,
            )

        task = asyncio.create_task(log_in())
        lost = asyncio.create_task(client.lost.wait())
        await asyncio.wait({task, lost}, timeout=max(0.0, deadline - time.monotonic()))
        if lost.done():
            ended["closed by the server"] += 1
        elif task.done() and task.exception() is not None:
            ended[type(task.exception()).__name__] += 1
        if client.conn is not None:
            client.conn.abort()
        for pending in (task, lost):
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, asyncssh.Error, OSError):
                await pending


async def _read_until(process: Any, text: bytes, seconds: float) -> bool:
    """Read ``process``'s output until ``text`` shows or ``seconds`` pass; whether it showed."""
    seen = b""
    give_up = time.monotonic() + seconds
    while text not in seen and (left := give_up - time.monotonic()) > 0:
        try:
            chunk = await asyncio.wait_for(process.stdout.read(65536), left)
        except TimeoutError:
            break
        if not chunk:
            break
        seen = seen[-4096:] + chunk
    return text in seen


STARTS_REFUSED = {
    b"Too many new sessions from your address": "refused: the address's starts",
    b"The server is starting many sessions": "refused: the server's starts",
    b"Too many sessions from your address": "refused: the address's open sessions",
    b"The server is full": "refused: the server is full",
}
"""What the door's session limits (``server.doors.kit.DoorGate``) say on a refused session's
stderr, and what ``second windows`` counts it as: an expected refusal, not a player locked
out."""


async def _stderr_of(process: Any) -> bytes:
    """What an ended session wrote on its stderr (the door's refusals go there)."""
    import asyncssh

    with contextlib.suppress(TimeoutError, asyncssh.Error):
        return bytes(await asyncio.wait_for(process.stderr.read(65536), 1.0))
    return b""


def _unasked(status: int, said: bytes) -> str:
    """How ``second windows`` counts a session that ended with ``status`` unasked, having
    written ``said`` on its stderr: one of :data:`STARTS_REFUSED`, else ``exited N unasked``
    (a player locked out: the door should have asked, or let it in) with what it said.

    >>> _unasked(1, b"Too many new sessions from your address: wait a few seconds.")
    "refused: the address's starts"
    >>> _unasked(1, b"")
    'exited 1 unasked'
    """
    for text, name in STARTS_REFUSED.items():
        if text in said:
            return name
    told = said.decode(errors="replace").strip().splitlines()[:1]
    return f"exited {status} unasked" + (f" ({told[0][:60]})" if told else "")


async def second_windows(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """A key seated through a first session; then its second sessions, each left at the
    door's question, again until ``deadline`` (see the module doc)."""
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    address = f"127.0.0.{SECOND_WINDOWS_ADDRESS + number}"

    def connect() -> Any:
        return asyncssh.connect(
            "127.0.0.1",
            port,
            username=f"window{number}",
            client_keys=[key],
            known_hosts=None,
            agent_path=None,
            local_addr=(address, 0),
            login_timeout=5,
        )

    async with connect() as first:
        seated = await first.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await _read_until(seated, LOBBY, 30)
        seated.stdin.write(b"c")
        await _read_until(seated, b"New table", 10)
        seated.stdin.write(b"\r")
        await _read_until(seated, b"Waiting for players", 10)
        await asyncio.sleep(1.0)  # its seat token filed
        ended["first sessions seated"] += 1
        tried = False
        # One second window at least, past the deadline if seating took the whole window: a
        # short run (the smoke test's) still shows the question.
        while not tried or time.monotonic() < deadline:
            tried = True
            try:
                async with connect() as conn:
                    process = await conn.create_process(
                        term_type="xterm", term_size=(80, 24), encoding=None
                    )
                    if await _read_until(process, ASKED, 5):
                        ended["asked"] += 1
                        continue
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(process.wait_closed(), 1.0)
                    if process.exit_status is not None:
                        said = await _stderr_of(process)
                        ended[_unasked(process.exit_status, said)] += 1
                        await asyncio.sleep(0.5)
                    else:
                        ended["not asked"] += 1
            except (asyncssh.Error, OSError, TimeoutError) as exc:
                ended[type(exc).__name__] += 1
                await asyncio.sleep(0.5)


async def _tab_until(tab: Any, text: bytes, seconds: float) -> str:
    """Read a tab's screens until ``text`` shows ("shown"), the door closes it ("refused" for
    1013, else "closed CODE"), or ``seconds`` pass ("not shown")."""
    import aiohttp

    seen = b""
    give_up = time.monotonic() + seconds
    while (left := give_up - time.monotonic()) > 0:
        try:
            message = await tab.receive(timeout=left)
        except TimeoutError:
            break
        if message.type == aiohttp.WSMsgType.BINARY:
            seen = seen[-4096:] + message.data
            if text in seen:
                return "shown"
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return "refused" if tab.close_code == REFUSED else f"closed {tab.close_code}"
    return "not shown"


async def second_tabs(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """A browser seated through a first tab (reloaded once); then its second tabs, each
    closed at the door's question, again until ``deadline`` (see the module doc)."""
    import secrets

    import aiohttp

    address = f"127.0.0.{SECOND_TABS_ADDRESS + number}"
    url = f"http://127.0.0.1:{port}/ws/tab{number}?width=80&height=24"
    cookies = {"sheepshead_player": secrets.token_urlsafe(32)}  # server.doors.web.COOKIE
    connector = aiohttp.TCPConnector(local_addr=(address, 0), limit=0)
    async with aiohttp.ClientSession(connector=connector, cookies=cookies) as http:
        async with http.ws_connect(url) as first:
            await _tab_until(first, LOBBY, 30)
            await first.send_json(["stdin", "c"])
            await _tab_until(first, b"New table", 10)
            await first.send_json(["stdin", "\r"])
            await _tab_until(first, b"Waiting for players", 10)
            await asyncio.sleep(1.0)  # its seat token filed
        async with http.ws_connect(url) as seated:  # the reload: its token kept, the seat back
            await _tab_until(seated, b"Waiting for players", 30)
            reader = asyncio.create_task(_discard(seated, ended))  # answers the door's pings
            ended["first tabs seated"] += 1
            tried = False
            try:
                # One second tab at least, as in second_windows.
                while not tried or time.monotonic() < deadline:
                    tried = True
                    try:
                        async with http.ws_connect(url) as tab:
                            how = await _tab_until(tab, ASKED, 5)
                            ended["asked" if how == "shown" else how] += 1
                            if how != "shown":
                                await asyncio.sleep(0.5)
                    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                        ended[type(exc).__name__] += 1
                        await asyncio.sleep(0.5)
            finally:
                reader.cancel()


VISITS_ADDRESS = 80
"""``doors restart`` SSH visit loop ``n`` connects from 127.0.0.(80 + n); its seated player
from 127.0.0.70."""


async def ssh_visits(port: int, deadline: float, ended: Counter[str], number: int) -> None:
    """Connect with a fresh key, wait for the lobby, quit with ``q``, leave; again until
    ``deadline``. A session that ends before the lobby (the server down, a refused start) is
    counted by what it said."""
    import asyncssh

    address = f"127.0.0.{VISITS_ADDRESS + number}"
    while time.monotonic() < deadline:
        try:
            async with asyncssh.connect(
                "127.0.0.1",
                port,
                username=f"visit{number}",
                client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
                known_hosts=None,
                agent_path=None,
                local_addr=(address, 0),
                login_timeout=5,
            ) as conn:
                process = await conn.create_process(
                    term_type="xterm", term_size=(80, 24), encoding=None
                )
                if await _read_until(process, LOBBY, 20):
                    process.stdin.write(b"q")
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(process.wait_closed(), 10)
                    ended["lobby, then left"] += 1
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait_closed(), 5)
                said = await _stderr_of(process) + b" "
                told = [name for text, name in STARTS_REFUSED.items() if text in said]
                ended[told[0] if told else "ended before the lobby"] += 1
                await asyncio.sleep(0.5)
        except (asyncssh.Error, OSError, TimeoutError) as exc:
            ended[type(exc).__name__] += 1
            await asyncio.sleep(0.5)


LOOPS: dict[str, Callable[[int, float, Counter[str], int], Awaitable[None]]] = {
    "tab churn": tab_churn,
    "tabs held": tabs_held,
    "ssh churn": ssh_churn,
    "script GETs": script_gets,
    "ws GETs": ws_gets,
    "big pings": big_pings,
    "resize flood": resize_flood,
    "huge pty": huge_pty,
    "slow quitters": slow_quitters,
    "keyless logins": keyless_logins,
    "unlisted keys": unlisted_keys,
    "keyless restart": keyless_logins,
    "login requests": login_requests,
    "second windows": second_windows,
    "second tabs": second_tabs,
    "ssh visits": ssh_visits,
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
    """Every scenario against one server (``unlisted keys`` and ``keyless restart`` against
    servers of their own)."""
    own = ("unlisted keys", "keyless restart", "doors restart", "doors windows")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.source).resolve()
        shared = [scenario for scenario in args.scenarios if scenario not in own]
        if shared:
            served = Served(source, Path(tmp) / "doors.db", ["--ssh", "0", "--web", "0"])
            await _scenarios(served, shared, args)
        if "unlisted keys" in args.scenarios:
            import asyncssh

            listed = Path(tmp) / "authorized_keys"
            listed.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
            served = Served(
                source,
                Path(tmp) / "keys.db",
                ["--ssh", "0", "--web", "0", "--ssh-keys", str(listed)],
            )
            await _scenarios(served, ["unlisted keys"], args)
        if "keyless restart" in args.scenarios:
            await keyless_restart(source, Path(tmp) / "restart.db", args)
        if "doors restart" in args.scenarios:
            await doors_restart(source, Path(tmp), args)
        if "doors windows" in args.scenarios:
            await doors_windows(source, Path(tmp), args)


async def _scenarios(served: Served, scenarios: list[str], args: argparse.Namespace) -> None:
    """``scenarios`` against ``served`` (stopped at the end), with a victim at a table."""
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
        for scenario in scenarios:
            await measure(served, victim, scenario, args)
        await victim.close()
    finally:
        served.stop()


async def keyless_restart(source: Path, db: Path, args: argparse.Namespace) -> None:
    """``keyless logins`` against a server stopped half-way and started again on the same SSH
    port and database: how long each took, and how the attempts ended."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    extra = ["--ssh", str(port)]
    served = Served(source, db, extra)
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(
        target=attacker,
        args=("keyless restart", port, args.seconds + 1.0, args.loops, out),
        daemon=True,
    )
    worker.start()
    try:
        await asyncio.sleep(1.0 + args.seconds / 2)
        rss_before = server_rss_mb(served.proc.pid)
        began = time.monotonic()
        await asyncio.to_thread(served.stop)
        stopped = time.monotonic() - began
        served = await asyncio.to_thread(Served, source, db, extra)
        started = time.monotonic() - began - stopped
        ended = await asyncio.to_thread(out.get, True, 60)
        rss_after = server_rss_mb(served.proc.pid)
        worker.join(10)
    finally:
        served.stop()
    print(
        f"  {'keyless restart':<12} stopped in {stopped:.1f} s with the logins in flight"
        f" (RSS {rss_before:.0f} MB then), up again on SSH port {port} in {started:.1f} s"
        f" (RSS {rss_after:.0f} MB at the end)"
    )
    print(f"               attempts: {dict(sorted(ended.items()))}")


DOWN = 3.0
"""Seconds ``doors restart`` leaves the server down between its kill and its start (an
upgrade's): visits then find no server."""


class Seated:
    """A player seated through an SSH session of its own (from 127.0.0.70), its output read
    in the background."""

    def __init__(self) -> None:
        self.data = b""
        self.conn: Any = None
        self.process: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def sit(self, port: int) -> None:
        """Log in, create a table, wait for it."""
        import asyncssh

        self.conn = await asyncssh.connect(
            "127.0.0.1",
            port,
            username="seated",
            client_keys=[asyncssh.generate_private_key("ssh-ed25519")],
            known_hosts=None,
            agent_path=None,
            local_addr=(f"127.0.0.{VISITS_ADDRESS - 10}", 0),
            login_timeout=5,
        )
        self.process = await self.conn.create_process(
            term_type="xterm", term_size=(80, 24), encoding=None
        )
        self._reader = asyncio.create_task(self._read())
        await self.wait_for(LOBBY, 0, 30)
        self.process.stdin.write(b"c")
        await self.wait_for(b"New table", 0, 10)
        self.process.stdin.write(b"\r")
        await self.wait_for(b"Waiting for players", 0, 10)
        await asyncio.sleep(1.0)  # its seat token filed

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            while chunk := await self.process.stdout.read(65536):
                self.data += chunk

    async def wait_for(self, text: bytes, since: int, seconds: float) -> bool:
        """Whether ``text`` shows in the output past byte ``since`` within ``seconds``."""
        give_up = time.monotonic() + seconds
        while text not in self.data[since:]:
            if time.monotonic() > give_up:
                return False
            await asyncio.sleep(0.05)
        return True

    def close(self) -> None:
        """Leave."""
        if self._reader is not None:
            self._reader.cancel()
        if self.conn is not None:
            self.conn.abort()


async def doors_restart(source: Path, tmp: Path, args: argparse.Namespace) -> None:
    """The doors in a process of their own; the server killed and started again half-way
    through SSH visits and tab churn (see the module doc)."""
    db = tmp / "restart-doors.db"
    sock = str(tmp / "run" / "server.sock")
    served = Served(source, db, ["--local-socket", sock])
    doors = Served(source, db, ["--server-socket", sock, "--ssh", "0", "--web", "0"])
    seated = Seated()
    try:
        assert doors.ssh_port is not None and doors.web_port is not None
        await seated.sit(doors.ssh_port)
        context = multiprocessing.get_context("spawn")
        outs = [context.Queue(), context.Queue()]
        workers = [
            context.Process(
                target=attacker,
                args=(scenario, port, args.seconds + 1.0, args.loops, out),
                daemon=True,
            )
            for scenario, port, out in (
                ("ssh visits", doors.ssh_port, outs[0]),
                ("tab churn", doors.web_port, outs[1]),
            )
        ]
        rss_before = server_rss_mb(doors.proc.pid)
        cpu = doors.cpu_seconds(children=True)
        for worker in workers:
            worker.start()
        await asyncio.sleep(1.0 + args.seconds / 2)
        since = len(seated.data)
        began = time.monotonic()
        served.proc.kill()
        served.proc.wait(10)
        await asyncio.sleep(DOWN)
        served = await asyncio.to_thread(Served, source, db, ["--local-socket", sock])
        up = time.monotonic() - began
        back = await seated.wait_for(
            b"connected", since + seated.data[since:].find(b"reconnecting"), 60
        )
        reconnected = time.monotonic() - began
        ended = [await asyncio.to_thread(out.get, True, 90) for out in outs]
        for worker in workers:
            worker.join(10)
        children_rss = children_rss_mb(doors.proc.pid)
        rss_after = server_rss_mb(doors.proc.pid)
        await asyncio.sleep(args.settle)
        used = doors.cpu_seconds(children=True) - cpu
        alive = not seated.conn.is_closed()
        seated.close()
        await asyncio.sleep(args.settle)
        with open(f"/proc/{doors.proc.pid}/task/{doors.proc.pid}/children") as f:
            left = len(f.read().split())
    finally:
        seated.close()
        doors.stop()
        served.stop()
    print(
        f"  {'doors restart':<12} server killed, down {DOWN:.0f} s, up again {up:.1f} s after"
        f" the kill; the seated SSH"
        f" session {'said connected again' if back else 'never said connected'} after"
        f" {reconnected:.1f} s from the kill (its connection {'still open' if alive else 'closed'})"
    )
    print(
        f"               doors process RSS {rss_before:.0f} -> {rss_after:.0f} MB, children"
        f" {children_rss:.0f} MB at the end, CPU with its ended children {used:.1f} s;"
        f" children left after all left: {left}"
    )
    print(f"               ssh visits: {dict(sorted(ended[0].items()))}")
    print(f"               tab churn: {dict(sorted(ended[1].items()))}")


async def doors_windows(source: Path, tmp: Path, args: argparse.Namespace) -> None:
    """``second windows`` and ``second tabs`` against the doors in a process of their own (see
    the module doc)."""
    db = tmp / "windows-doors.db"
    sock = str(tmp / "windows" / "server.sock")
    served = Served(source, db, ["--local-socket", sock])
    doors = Served(source, db, ["--server-socket", sock, "--ssh", "0", "--web", "0"])
    try:
        assert doors.ssh_port is not None and doors.web_port is not None
        victim, _ = await victim_at_own_table(served.port)
        times = await victim.pings(args.seconds / 2)
        print(f"  {'quiet':<12} victim ping: {benchlib.summary(times)}")
        context = multiprocessing.get_context("spawn")
        for scenario, port in (
            ("second windows", doors.ssh_port),
            ("second tabs", doors.web_port),
        ):
            out = context.Queue()
            worker = context.Process(
                target=attacker,
                args=(scenario, port, args.seconds + 1.0, args.loops, out),
                daemon=True,
            )
            worker.start()
            await asyncio.sleep(1.0)
            server_cpu = served.cpu_seconds()
            doors_cpu = doors.cpu_seconds(children=True)
            start = time.monotonic()
            times = await victim.pings(args.seconds)
            ended = await asyncio.to_thread(out.get, True, 90)
            worker.join(10)
            await asyncio.sleep(args.settle)
            window = time.monotonic() - start
            print(
                f"  {scenario:<12} (doors process) victim ping: {benchlib.summary(times)};"
                f" in {window:.0f} s the server {served.cpu_seconds() - server_cpu:.2f} CPU-s,"
                f" the doors and their clients {doors.cpu_seconds(children=True) - doors_cpu:.1f}"
            )
            print(f"               attempts: {dict(sorted(ended.items()))}")
        await victim.close()
    finally:
        doors.stop()
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
