"""Benchmark: what hostile clients do to everybody else (issue 19), figures printed.

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack.py                      # this checkout's server
    .venv/bin/python bench/attack.py --source /tmp/old    # another tree (a checkout before the
                                                          # limits, for the "before" figures)
    .venv/bin/python bench/attack.py --seconds 5 --attackers 2

A real ``sheepshead serve`` runs from ``--source`` in its own process, on a database in a
temporary directory; everything talks to it over loopback with the real protocol, so any two
versions of the server compare. A victim (from 127.0.0.3) sits at a table of its own and sends
``ping`` every 60 ms; its round trips, and the server's CPU over the window (from
``/proc/<pid>/stat``), are what each scenario reports:

- ``quiet``: nobody attacks (the baseline).
- ``big frames``: ``--attackers`` processes (from 127.0.0.2) send the issue's frames as fast as
  the server reads them: 64 KiB of 65,000 empty lists, and a chat of ``" a" * 32700``; cut off,
  they reconnect and go on.
- ``within limits``: the same attackers send the costliest requests each type's size limit lets
  through: a 4 KiB ``create_table`` of empty lists (decoded in full, then refused), and a 2 KiB
  chat of 800 combining marks (cleaned, then refused: the sender sits nowhere).
- ``table flood``: ``connect → hello → create_table → disconnect``, 500 times, from 127.0.0.5;
  then whether another address can still open a table and whether the victim's table is still
  in ``list_tables``.
- ``running tables`` (issue 27; alone with ``--only running``): for ``--seconds``, from two
  addresses in turn (127.0.0.7 and .8), ``connect → hello → create_table → add_bot ×4 → start →
  remove_bot ×4 → disconnect``, which leaves a running table with no bots counted against the
  address and nobody connected; then how many tables that made, how long the 500-table cap
  lasts at that pace, and whether a newcomer from another address can still open a table.
- ``chat`` (alone with ``--only chat``): ``--chat-tables`` tables (from 127.0.2.x, three
  to an address: ``max_waiting_per_address``), each with its creator and four watchers, every
  one saying the longest line (200 four-byte characters) at the chat limit (``chat_rate``, one
  a second per connection) for ``--seconds``: the lines the server took a second, its CPU, and
  what the database file and its ``chat_lines`` rows grew by, in each half of the window (the
  second half: once each table's last 50 lines are stored, every line replaces one), as MB an
  hour at that pace.
- ``spectators`` (alone with ``--only spectators``): a table from 127.0.3.1 with four bots,
  playing (its host gone, a stand-in in its seat after a grace of 0), and ``--watchers``
  connections (from 127.0.3.x, 25 to an address) asking to watch it: how many got in and what
  the rest were told (past ``max_spectators_per_table``, ``too_many_spectators``). Then, each
  for ``--seconds``: the spectators silent (the states of the hands in play sent to each);
  every spectator saying the longest chat line at the chat limit (one a second each: a line
  goes out to every spectator); ``connect → hello → watch → disconnect`` loops from four
  addresses (127.0.4.x) at the full table, every watch refused; the same once one spectator
  has left, each loop taking the freed place and giving it back with ``leave``. The victim's
  pings and the server's CPU for each, and the listing's spectator count at the end.
- ``notices`` (alone with ``--only notices``): ``--notice-tables`` playing tables (a host from
  127.0.3.x, eight to an address: ``max_running_per_address``, who started a match with four
  server bots and took them off again, so four seats are empty and stand-ins play them), and at
  each four connections (from 127.0.4.x, 24 to an address) that each ``join`` an empty seat and
  ``leave`` it, one request after the other just under the message limit (``rate``, 20 a
  second; ``--message-rate`` 19, as a loop exactly at it stays refused after any lag): every
  join and leave at a playing table tells the table a notice (``joined``, ``left``), which the
  table keeps among its last lines. Printed as for ``chat``: the notices a second, the server's
  CPU, the victim's ping, and what the database and its ``chat_lines`` rows grew by once each
  table's last 50 lines are stored.
- ``takeback`` (alone with ``--only takeback``): ``--takeback-loops`` players, each from an
  address of its own (127.0.5.x), each holding the seat of a playing table it opened with
  four server bots, take their seat back in a loop under a new name each time: ``connect →
  hello {token, player_key, name} → disconnect``, as fast as the address's new connections are
  let in (``connection_rate``, 5 a second after a burst of 30). Each takeback is a
  ``reconnected`` notice to the table and a ``name_kept`` notice to the player (the seat keeps
  its name, PROTOCOL.md §10), each drop a ``disconnected`` one. Printed: the takebacks a
  second, the ``name_kept`` notices received, the refusals, the server's CPU, the victim's ping
  and what the database grew by.
- ``timer`` (alone with ``--only timer``; last, as it restarts the server): the turn timer
  pressed from one address as hard as its limits let it (127.0.8.1): ``--timer-tables`` tables
  (8, ``max_running_per_address``) at the shortest turn timer the server takes (``--timer``,
  0.1 s), a grace of 0, open-ended, each host a person seated and never moving (the timer
  moves for it at each of its turns) who started a match with four server bots and took them
  off again (stand-ins play the empty seats); at each table a connect-sit-leave loop (from
  127.0.8.2: ``connect → hello → join → sit --sit-hold s, never moving → leave → disconnect``,
  so a seat goes from a stand-in to the timer and back) and ``--timer-watchers`` spectators
  (50, ``max_spectators_per_table``; from 127.0.9.x, 25 to an address) receiving every
  notice; names, the table's included, the longest of four-byte characters. Measured first
  quiet, then pressed for ``--seconds``: the victim's ping, the moves at a table of server
  bots that a victim watches (127.0.0.9; the time from the state before a move to the state
  that shows it, pauses left out), the server's CPU (and with its bot workers) and memory,
  what the database (its pages in use, by table, and its ``actions`` rows) and the log (at
  ``--log-level info``, its lines by what they say) grew by, as an hour at that pace, and the
  ``timer_expired`` notices told and delivered a second. Then the server is killed (SIGKILL)
  while everything presses, started again on the same database, and ``--back-after`` s later
  (a client's reconnect backoff) half of the hosts take their seats back with their tokens,
  the rest stay away (stand-ins), and the same is measured again: which tables came back
  playing, which did not move again, whether the timer moves again for every host that came
  back, and whether the first prompt back had the whole timer (not a clock that ran while
  nobody was at the table). ``--serve-arg=--trick-pause=0
  --serve-arg=--hand-pause=0``: the same on a server without pauses (its host's choice).
- ``all at once``: every attack together, with a mob from sixteen more addresses (127.0.1.x):
  the attackers' frames of both kinds, the table flood, slowloris connections (a frame's length,
  then a byte a second), idle connections, connect-and-leave churn, clients that ask for the
  lobby at their full rate and never read, a chat flood at the mob's own table, and hellos with
  names made of invisible characters and lookalikes of the server bots' names (what each name
  became is printed). Then the server's memory, and whether a newcomer is still served.

``--only`` is repeatable: ``--only notices --only takeback`` runs those two against one server,
in the order of :data:`ONLY` whatever the order given.

The target (issue 19): with two attackers doing the worst they can under the limits, the victim's
ping p99 stays under 20 ms. On a shared machine the figures are noisy; run it under ``nice`` and
more than once.
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
import re  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import struct  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import msgpack  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VICTIM_ADDRESS = "127.0.0.3"
ATTACKER_ADDRESS = "127.0.0.2"
OTHER_ADDRESS = "127.0.0.4"
FLOOD_ADDRESS = "127.0.0.5"
PING_EVERY = 0.06
"""Seconds between two of the victim's pings (within the 20 messages a second)."""


def frame(message: dict[str, Any]) -> bytes:
    """One frame, packed with plain msgpack (no project code: any server version compares)."""
    payload = msgpack.packb(message, use_bin_type=True)
    return struct.pack(">I", len(payload)) + payload


HELLO = {"type": "hello", "id": 1, "version": 1, "client": "bench-attack/1", "kind": "human"}

ATTACKS: dict[str, list[bytes]] = {
    "big frames": [
        frame({"type": "ping", "id": 2, "x": [[]] * 65000}),
        frame({"type": "chat", "id": 3, "text": " a" * 32700}),
    ],
    "within limits": [
        frame({"type": "create_table", "id": 2, "options": [[]] * 4000}),
        frame({"type": "chat", "id": 3, "text": "a" + "\u0301" * 799}),
    ],
}


# ---------------------------------------------------------------------------- the server


class Served:
    """``sheepshead serve`` from a source tree, in its own process (``extra``: more options;
    the ports of the doors it opens are read off its banner)."""

    def __init__(
        self, source: Path, db: Path, extra: Sequence[str] = (), log: Path | None = None
    ) -> None:
        self.db = db
        self.source = source
        self.extra = tuple(extra)
        self.log = log
        """Where the server's stderr goes, appended to (None: this process's stderr)."""
        self._start()

    def _start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(self.source)}
        stderr = None if self.log is None else self.log.open("ab")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "serve",
                "--port",
                "0",
                "--db",
                str(self.db),
                "--bot-delay",
                "0",
                "--log-level",
                "error",
                *self.extra,
            ],
            cwd=self.source,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        if stderr is not None:
            stderr.close()  # the child has its own copy
        banner = ""
        assert self.proc.stdout is not None
        while "Ctrl+C" not in banner:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("attack: the server exited before listening")
            banner += line
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", banner)
        # Only the doors (``serve --server-socket``) listen on no game port: 0.
        assert found or "--server-socket" in self.extra, banner
        self.port = int(found.group(1)) if found else 0
        web = re.search(r"browser door on port (\d+)", banner)
        ssh = re.search(r"ssh -p (\d+)", banner)
        self.web_port = int(web.group(1)) if web else None
        self.ssh_port = int(ssh.group(1)) if ssh else None

    def kill_and_restart(self) -> float:
        """SIGKILL the server (a crash: nothing flushed, nothing closed), then start it again on
        the same database with the same options; the seconds until it listens again (its port
        is new: ``port``)."""
        self.proc.kill()
        self.proc.wait(10)
        begin = time.monotonic()
        self._start()
        return time.monotonic() - begin

    def cpu_seconds(self, children: bool = False) -> float:
        """User plus system CPU time the server has used so far (with ``children``: also its
        child processes that have ended, such as the doors' clients)."""
        with open(f"/proc/{self.proc.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        used = sum(int(f) for f in fields[11 : 15 if children else 13])
        return used / os.sysconf("SC_CLK_TCK")

    def cpu_with_workers(self) -> float:
        """:meth:`cpu_seconds` plus the CPU time its live child processes (the bot workers,
        which make the turn timer's and the stand-ins' moves) have used so far."""
        used = self.cpu_seconds()
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        for child in children.read_text().split():
            with contextlib.suppress(OSError):  # a worker that just ended
                fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
                used += sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")
        return used

    def stop(self, patience: float = 60.0) -> None:
        """SIGTERM, then wait up to ``patience`` seconds, then SIGKILL with a word on stderr.
        A server with its doors takes up to some 7 s by design (each browser tab's client gets
        ``STOP_WAIT`` to quit, server/doors/web.py) and, on a machine under load, longer: the
        10 s this waited once ended a web doors smoke run with a traceback, the server still
        stopping."""
        self.proc.terminate()
        try:
            self.proc.wait(patience)
        except subprocess.TimeoutExpired:
            print(
                f"server did not stop within {patience:.0f} s of SIGTERM: killed", file=sys.stderr
            )
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------------- attackers


def attacker(port: int, frames: list[bytes], seconds: float, number: int, delay: float) -> None:
    """Send ``frames`` round and round as fast as the server reads them, reconnecting ``delay``
    seconds after being cut off; reads and drops whatever comes back (a client that does not
    read is cut off)."""
    os.nice(19)  # the attackers' own CPU must not be what slows the server down
    deadline = time.monotonic() + seconds
    hello = frame({**HELLO, "name": f"attacker{number}"})
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=1, source_address=(ATTACKER_ADDRESS, 0)
            ) as sock:
                sock.setblocking(False)
                pending = hello
                turn = 0
                while time.monotonic() < deadline:
                    try:
                        while sock.recv(1 << 16):
                            pass
                        else:
                            break  # closed by the server
                    except BlockingIOError:
                        pass
                    if not pending:
                        pending = frames[turn % len(frames)]
                        turn += 1
                    try:
                        sent = sock.send(pending)
                        pending = pending[sent:]
                    except BlockingIOError:
                        time.sleep(0.0005)
        except OSError:
            pass
        time.sleep(delay)


def flood(port: int, count: int, address: str = FLOOD_ADDRESS) -> tuple[Counter[str], float]:
    """The table flood from ``address``: how each attempt ended (``ok`` or the error code),
    and the seconds."""
    outcomes: Counter[str] = Counter()
    start = time.monotonic()
    for i in range(count):
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(address, 0)
            ) as sock:
                sock.sendall(frame({**HELLO, "name": f"flood{i}"}))
                sock.sendall(frame({"type": "create_table", "id": 2, "name": f"flood {i}"}))
                replies = read_replies(sock, 2)
        except OSError as exc:
            outcomes[type(exc).__name__] += 1
            continue
        answer = next((m for m in replies if m.get("id") == 2), None)
        if answer is None:
            codes = [m.get("code") for m in replies if m.get("type") == "error"]
            outcomes[str(codes[0]) if codes else "no reply"] += 1
        else:
            outcomes[str(answer.get("code", "ok"))] += 1
    return outcomes, time.monotonic() - start


RUNNING_ADDRESSES = ("127.0.0.7", "127.0.0.8")
"""Where the running-table loop comes from (two addresses, as in issue 27)."""

MAX_TABLES = 500
"""The server's default cap of open tables (``ServerConfig.max_tables``)."""


def running_tables(port: int, seconds: float) -> tuple[Counter[str], int, float]:
    """The running-table loop (the module doc) for ``seconds``: how each round ended (``ok``:
    a table started and left running, else the first refusal's code), the rounds, the seconds.

    Every request of a round is sent at once and the round ends with the last reply."""
    outcomes: Counter[str] = Counter()
    rounds = 0
    start = time.monotonic()
    requests = [
        {"type": "create_table", "id": 2, "name": "left running"},
        *({"type": "add_bot", "id": 3 + n, "strategy": "random"} for n in range(4)),
        {"type": "start", "id": 7},
        *({"type": "remove_bot", "id": 8 + n, "seat": 1 + n} for n in range(4)),
    ]
    payload = b"".join(frame(r) for r in requests)
    while time.monotonic() - start < seconds:
        address = RUNNING_ADDRESSES[rounds % len(RUNNING_ADDRESSES)]
        rounds += 1
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(address, 0)
            ) as sock:
                # A bot's hello: the deal does not wait for a person's client seed (PROTOCOL.md
                # §13), so the bots are removed from a match that has begun.
                hello = {**HELLO, "kind": "bot", "name": f"looper{rounds}"}
                sock.sendall(frame(hello) + payload)
                replies = {m.get("id"): m for m in read_replies(sock, 11)}
        except OSError as exc:
            outcomes[type(exc).__name__] += 1
            time.sleep(0.05)
            continue
        refused = [
            str(replies[i].get("code"))
            for i in (None, 1, 2, 7)
            if replies.get(i, {}).get("type") == "error"
        ]
        outcomes[refused[0] if refused else "ok" if 7 in replies else "no reply"] += 1
        if refused:
            time.sleep(0.01)  # refused: a real looper would not spin on it
    return outcomes, rounds, time.monotonic() - start


async def running_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """The running-table loop, then a newcomer from another address (the module doc)."""
    outcomes, rounds, took = await asyncio.to_thread(running_tables, served.port, args.seconds)
    made = outcomes["ok"]
    listing = await victim.request("list_tables")
    newcomer = await Victim.open(served.port, "127.0.0.9")
    await newcomer.request("hello", version=1, name="Newcomer")
    created = await newcomer.request("create_table", name="a newcomer's")
    await newcomer.close()
    if outcomes["too_many_tables"] or not made:
        fills = "never: the loop is refused too_many_tables"
    else:
        fills = f"in {MAX_TABLES / (made / took):.0f} s at this pace"
    print(
        f"  running tables {rounds} rounds from {len(RUNNING_ADDRESSES)} addresses in {took:.1f} s:"
        f" {dict(outcomes)}; {made} tables left running ({made / took:.1f}/s: the"
        f" {MAX_TABLES}-table cap fills {fills}); {len(listing['tables'])} tables listed"
        f" (truncated {listing['truncated']}); a newcomer from another address creates:"
        f" {created.get('code', 'ok')}"
    )


def read_replies(sock: socket.socket, last_id: int) -> list[dict[str, Any]]:
    """Read until the reply with ``last_id`` arrived."""
    unpacker = Decoder()
    got: list[dict[str, Any]] = []
    while not any(m.get("id") == last_id for m in got):
        data = sock.recv(1 << 16)
        if not data:
            break
        got.extend(unpacker.feed(data))
    return got


class Decoder:
    """Length-prefixed msgpack frames out of a byte stream."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Every message ``data`` completed."""
        self.buffer += data
        out = []
        while len(self.buffer) >= 4:
            (length,) = struct.unpack(">I", self.buffer[:4])
            if len(self.buffer) < 4 + length:
                break
            out.append(msgpack.unpackb(self.buffer[4 : 4 + length], raw=False))
            self.buffer = self.buffer[4 + length :]
        return out


MOB_SECONDS = 13.0
"""The mob stays at least this long: past the 10 s a hello may take, so the idle and slowloris
connections meet the handshake timeout."""

MOB_NET = "127.0.1."
"""The mob's addresses: 127.0.1.1 to 127.0.1.16, a few connections each (16 is the cap)."""

NAMES = {
    "zero-width spaces": "\u200b\u200b\u200b",
    "word joiner, BOM, soft hyphen": "\u2060\ufeff\u00ad",
    "tag characters": "\U000e0041\U000e0042",
    "hangul fillers": "\u3164\u3164",
    "Lena with a zero-width space": "Le\u200bna",
    "LENA": "LENA",
    "fullwidth Ｓven": "\uff33ven",
    "Gus, 40 combining marks": "Gus" + "\u0301" * 40,
    "right-to-left override": "\u202eevil",
    "a 10,000-character name": "x" * 10_000,
}
"""Names a hostile client says hello with: the label printed, the name sent."""


async def mob(port: int, seconds: float) -> dict[str, Any]:
    """Every kind of misbehaviour at once from the mob's addresses, for ``seconds``; what the
    server made of it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    outcomes: dict[str, Any] = {"names": {}}
    counts: Counter[str] = Counter()
    outcomes["counts"] = counts

    async def connect(host: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            return await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(f"{MOB_NET}{host}", 0)
            )
        except OSError:
            counts["connect refused"] += 1
            return None

    async def closed_by_server(reader: asyncio.StreamReader) -> bool:
        """Whether the server closed the connection (what it sent first is read and dropped)."""
        try:
            while await asyncio.wait_for(reader.read(1 << 16), 0.05):
                pass
        except TimeoutError:
            return False
        except OSError:
            pass
        return True

    async def slowloris(host: int) -> None:
        opened = await connect(host)
        if opened is None:
            return
        reader, writer = opened
        writer.write(struct.pack(">I", 900))
        while loop.time() < deadline:
            await asyncio.sleep(1.0)
            if await closed_by_server(reader):
                counts["slowloris cut off"] += 1
                return
            writer.write(b"\x80")
        counts["slowloris still open"] += 1
        writer.close()

    async def idle(host: int) -> None:
        opened = await connect(host)
        if opened is None:
            return
        await asyncio.sleep(max(0.0, deadline - loop.time()))
        counts["idle still open" if not await closed_by_server(opened[0]) else "idle cut off"] += 1
        opened[1].close()

    async def churn(host: int) -> None:
        while loop.time() < deadline:
            opened = await connect(host)
            if opened is not None:
                opened[1].close()
                counts["churn connects"] += 1
            await asyncio.sleep(0.001)

    async def non_reader(host: int, number: int) -> None:
        opened = await connect(host)
        if opened is None:
            return
        reader, writer = opened
        writer.write(frame({**HELLO, "name": f"deaf{number}"}))
        ask = frame({"type": "list_tables", "id": 2})
        while loop.time() < deadline:
            writer.write(ask)
            await asyncio.sleep(0.05)
            if writer.transport.is_closing() or reader.at_eof():
                break
        counts["non-readers cut off" if await closed_by_server(reader) else "non-readers open"] += 1
        writer.close()

    async def chatter(host: int) -> None:
        opened = await connect(host)
        if opened is None:
            return
        reader, writer = opened
        writer.write(frame({**HELLO, "name": "chatter"}))
        writer.write(frame({"type": "create_table", "id": 2, "name": "mob"}))
        line = frame({"type": "chat", "id": 3, "text": "spam " * 39})
        decoder = Decoder()
        while loop.time() < deadline:
            writer.write(line)
            try:
                data = await asyncio.wait_for(reader.read(1 << 16), 0.02)
            except TimeoutError:
                continue
            if not data:
                counts["chatter cut off"] += 1
                return
            for msg in decoder.feed(data):
                if msg.get("type") == "error":
                    counts[f"chat {msg.get('code')}"] += 1
        writer.close()

    async def names() -> None:
        for label, name in NAMES.items():
            opened = await connect(16)
            if opened is None:
                continue
            reader, writer = opened
            writer.write(frame({**HELLO, "name": name}))
            decoder = Decoder()
            said = "no reply"
            while loop.time() < deadline:
                data = await asyncio.wait_for(reader.read(1 << 16), 5)
                replies = decoder.feed(data)
                if not data or replies:
                    first = replies[0] if replies else {}
                    said = repr(first["name"]) if "name" in first else str(first.get("code"))
                    break
            outcomes["names"][label] = said
            writer.close()
            await asyncio.sleep(0.2)

    jobs = [names(), churn(9), chatter(12)]
    jobs += [slowloris(host) for host in (1, 2, 3, 4) for _ in range(12)]
    jobs += [idle(host) for host in (5, 6, 7, 8) for _ in range(12)]
    jobs += [non_reader(host, host * 10 + n) for host in (10, 11) for n in range(6)]
    await asyncio.gather(*jobs, return_exceptions=True)
    return outcomes


def mob_process(port: int, seconds: float, results: Any) -> None:
    """:func:`mob` in a process of its own, at low priority; its outcomes into ``results``."""
    os.nice(19)
    results.put(asyncio.run(mob(port, seconds)))


def server_rss_mb(pid: int) -> float:
    """The server's resident memory, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------------------- the victim


class Victim:
    """A client at a table of its own, from its own address."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = Decoder()
        self.inbox: list[dict[str, Any]] = []
        self.ids = 0
        self._beat: asyncio.Task[None] | None = None

    def keep_alive(self, every: float = 20.0) -> None:
        """Send a ``pong`` (a frame the server answers with nothing: PROTOCOL.md, `pong`) every
        ``every`` seconds: the server closes a connection after ``idle_timeout`` (60 s) without
        a frame, and a victim waits that long between its windows when a loaded machine sets
        up the next scenario slowly (the browser doors' smoke run beside ``stress-ng --cpu 2``
        ended in "the server closed the victim's connection")."""

        async def beat() -> None:
            while True:
                await asyncio.sleep(every)
                self.writer.write(frame({"type": "pong"}))

        self._beat = asyncio.create_task(beat())

    @classmethod
    async def open(cls, port: int, address: str) -> Victim:
        """Connect from ``address``."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
        return cls(reader, writer)

    async def request(
        self, type: str, skipped: list[dict[str, Any]] | None = None, **fields: Any
    ) -> dict[str, Any]:
        """Send a request, return its reply; the events before it go into ``skipped`` (when
        given)."""
        self.ids += 1
        wanted = self.ids
        self.writer.write(frame({"type": type, "id": wanted, **fields}))
        while True:
            while not self.inbox:
                data = await asyncio.wait_for(self.reader.read(1 << 16), 30)
                if not data:
                    raise ConnectionError("the server closed the victim's connection")
                self.inbox.extend(self.decoder.feed(data))
            msg = self.inbox.pop(0)
            if msg.get("id") == wanted and msg.get("type") in ("ok", "error", "welcome"):
                return msg
            if skipped is not None:
                skipped.append(msg)

    async def batches(self) -> AsyncIterator[list[dict[str, Any]]]:
        """What the server sends from now on, a read's messages at a time (first those read
        with the replies to earlier requests, which :meth:`request` kept); ends when the
        server closes the connection."""
        pending, self.inbox = self.inbox, []
        while True:
            if pending:
                yield pending
            data = await self.reader.read(1 << 16)
            if not data:
                return
            pending = self.decoder.feed(data)

    async def pings(self, seconds: float) -> list[float]:
        """Round trips of a ping every :data:`PING_EVERY` for ``seconds``, in ms."""
        loop = asyncio.get_running_loop()
        times = []
        deadline = loop.time() + seconds
        while loop.time() < deadline:
            start = loop.time()
            await self.request("ping")
            times.append((loop.time() - start) * 1000)
            await asyncio.sleep(PING_EVERY)
        return times

    async def close(self) -> None:
        """Close the socket."""
        if self._beat is not None:
            self._beat.cancel()
        self.writer.close()


async def victim_at_own_table(port: int) -> tuple[Victim, str]:
    """The victim, from :data:`VICTIM_ADDRESS`, at a table of its own (returned too)."""
    victim = await Victim.open(port, VICTIM_ADDRESS)
    await victim.request("hello", version=1, client="bench-attack/1", name="Victim")
    table = (await victim.request("create_table", name="the victim's table"))["table"]
    victim.keep_alive()
    return victim, str(table)


def attack_arguments(doc: str, seconds: float) -> argparse.ArgumentParser:
    """The options of every attack benchmark: ``--source`` and ``--seconds`` (per scenario)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--source", default=str(ROOT), help="project tree whose server runs")
    parser.add_argument("--seconds", type=float, default=seconds, help="window per scenario")
    return parser


async def measure(served: Served, victim: Victim, name: str, args: argparse.Namespace) -> None:
    """One scenario: the victim's pings and the server's CPU while it runs."""
    workers = []
    if name in ATTACKS:
        context = multiprocessing.get_context("spawn")
        workers = [
            context.Process(
                target=attacker,
                args=(served.port, ATTACKS[name], args.seconds + 1.0, n, args.reconnect_delay),
                daemon=True,
            )
            for n in range(args.attackers)
        ]
        for worker in workers:
            worker.start()
        await asyncio.sleep(1.0)  # the attackers are up and sending
    cpu = served.cpu_seconds()
    start = time.monotonic()
    times = await victim.pings(args.seconds)
    used = (served.cpu_seconds() - cpu) / (time.monotonic() - start)
    for worker in workers:
        worker.join(10)
    print(
        f"  {name:<14} victim ping: {benchlib.summary(times)}   server CPU {used:5.0%}"
        f"   server memory {server_rss_mb(served.proc.pid):.0f} MB"
    )


CHAT_NET = "127.0.2."
"""The chat scenario's addresses, one per three tables."""

LINES_KEPT = 50
"""The chat lines a table keeps for ``history`` (``server.tables.history.LINES_KEPT``)."""

CHAT_LINE = "\U0001f600" * 200
"""The costliest chat line to store: the longest (``CHAT_MAX``), of four-byte characters."""


def disk_bytes(db: Path) -> tuple[int, int]:
    """The database file's size and its write-ahead log's."""
    wal = db.with_name(db.name + "-wal")
    return db.stat().st_size, wal.stat().st_size if wal.exists() else 0


def chat_rows(db: Path) -> str:
    """How many ``chat_lines`` rows the database holds (read-only, beside the server)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        try:
            return str(conn.execute("SELECT count(*) FROM chat_lines").fetchone()[0])
        except sqlite3.OperationalError:
            return "no chat_lines table"


def used_bytes(db: Path) -> int:
    """Bytes of the database's pages in use (committed, WAL included), on a connection of its
    own."""
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    return int((pages - free) * size)


def bytes_by_table(db: Path) -> Counter[str]:
    """Bytes of the database's pages by the table or index they belong to (SQLite's ``dbstat``,
    read-only, beside the server)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        query = "SELECT name, sum(pgsize) FROM dbstat GROUP BY name"
        return Counter({str(name): int(size) for name, size in conn.execute(query)})


def row_count(db: Path, table: str) -> int:
    """How many rows the database's ``table`` holds (read-only, beside the server; -1: no such
    table in that tree's schema)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        try:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        except sqlite3.OperationalError:
            return -1


def growth(
    db: Path,
    before: tuple[int, int],
    filled: tuple[int, int],
    rows_filled: str,
    after: tuple[int, int],
    took: float,
) -> str:
    """The line of what the database file (sizes by :func:`disk_bytes`) and its ``chat_lines``
    rows grew by: ``before`` the scenario, once every table's ring was ``filled``, and ``after``
    the ``took`` seconds measured."""
    return (
        f"    database {before[0] / 1e6:.2f} MB → {filled[0] / 1e6:.2f} MB filled"
        f" ({rows_filled} chat_lines rows) → {after[0] / 1e6:.2f} MB"
        f" ({chat_rows(db)} rows): {(after[0] - filled[0]) / 1e3:+.0f} kB once filled"
        f" ({(after[0] - filled[0]) / took * 3600 / 1e6:.2f} MB an hour if that went on);"
        f" write-ahead log {after[1] / 1e6:.2f} MB"
    )


async def chat_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """Every connection of ``--chat-tables`` tables chatting at its limit (the module doc)."""
    loop = asyncio.get_running_loop()
    counts: Counter[str] = Counter()
    people: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    for t in range(args.chat_tables):
        address = f"{CHAT_NET}{1 + t // 3}"
        host = await Victim.open(served.port, address)
        await host.request("hello", version=1, name="\U0001f600" * 24)
        table = (await host.request("create_table", name=f"chat {t}"))["table"]
        people.append((host.reader, host.writer))
        for w in range(4):
            watcher = await Victim.open(served.port, address)
            await watcher.request("hello", version=1, name=f"watcher {t}.{w}")
            reply = await watcher.request("watch", table=table)
            assert reply["type"] == "ok", reply
            people.append((watcher.reader, watcher.writer))
    line = frame({"type": "chat", "id": 9, "text": CHAT_LINE})

    async def chatter(
        number: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        decoder = Decoder()
        next_line = loop.time() + number / len(people) / args.chat_rate  # spread over a second
        while loop.time() < deadline:
            if loop.time() >= next_line:
                writer.write(line)
                next_line += 1.0 / args.chat_rate
            try:
                wait = min(next_line, deadline) - loop.time()
                data = await asyncio.wait_for(reader.read(1 << 16), wait)
            except TimeoutError:
                continue
            if not data:
                counts["cut off"] += 1
                return
            for msg in decoder.feed(data):
                if msg.get("id") == 9:
                    counts["said" if msg["type"] == "ok" else str(msg.get("code"))] += 1

    # Each table's last 50 lines are stored after this long at five lines a second; then every
    # line replaces one: the window measured.
    fill = LINES_KEPT / (5 * args.chat_rate) + 1.0
    deadline = loop.time() + fill + args.seconds
    before = disk_bytes(served.db)
    chatting = asyncio.gather(*(chatter(i, r, w) for i, (r, w) in enumerate(people)))
    await asyncio.sleep(fill)
    filled = disk_bytes(served.db)
    rows_filled = chat_rows(served.db)
    said_filling = counts["said"]
    cpu = served.cpu_seconds()
    start = time.monotonic()
    pings = asyncio.create_task(victim.pings(args.seconds))
    await chatting
    took = time.monotonic() - start
    used = (served.cpu_seconds() - cpu) / took
    times = await pings
    after = disk_bytes(served.db)
    for _, writer in people:
        writer.close()
    said = counts.pop("said", 0) - said_filling
    print(
        f"  chat           {len(people)} connections at {args.chat_tables} tables, each a"
        f" {len(CHAT_LINE.encode())}-byte line every {1 / args.chat_rate:g} s; {fill:.0f} s to"
        f" fill, then {took:.1f} s measured: {said} said ({said / took:.0f}/s), refused"
        f" {dict(counts)}; server CPU {used:5.0%}; victim ping {benchlib.summary(times)}"
    )
    print(growth(served.db, before, filled, rows_filled, after, took))


NOTICE_HOSTS = "127.0.3."
"""The notice scenario's hosts' addresses, one per eight tables."""

NOTICE_LOOPERS = "127.0.4."
"""The notice scenario's join/leave loops' addresses, 24 connections (six tables) to one."""


async def join_leave_loops(
    port: int, jobs: list[tuple[int, str, int]], rate: float, window: tuple[float, float]
) -> dict[str, int]:
    """A connection per ``(number, table, seat)`` of ``jobs`` (its number tells its address),
    each joining that seat and leaving it again, one request every ``1 / rate`` s, until
    ``window`` ends (``time.monotonic`` instants, shared by every process on the machine); how
    the replies within the window went (``joined``, ``left``, an error code) and the
    connections cut off."""
    counts: Counter[str] = Counter()
    every = 1.0 / rate
    begin, deadline = window

    async def join_leave(number: int, table: str, seat: int) -> None:
        looper = await Victim.open(port, f"{NOTICE_LOOPERS}{1 + number // 24}")
        # The longest name of four-byte characters: the costliest notice to store.
        await looper.request("hello", version=1, name="\U0001f600" * 24)
        join = frame({"type": "join", "id": 2, "table": table, "seat": seat})
        leave = frame({"type": "leave", "id": 3})
        decoder = Decoder()
        next_send = time.monotonic() + (number % 97) / 97 * every  # spread over one interval
        sent = 0
        while (now := time.monotonic()) < deadline:
            if now >= next_send:
                looper.writer.write(leave if sent % 2 else join)
                sent += 1
                next_send = max(next_send + every, now)  # behind: no burst to catch up
            try:
                wait = max(0.0, min(next_send, deadline) - time.monotonic())
                data = await asyncio.wait_for(looper.reader.read(1 << 16), wait)
            except TimeoutError:
                continue
            if not data:
                counts["cut off"] += 1
                return
            counted = time.monotonic() >= begin
            for msg in decoder.feed(data):
                if counted and msg.get("id") in (2, 3) and msg["type"] in ("ok", "error"):
                    ok = msg["type"] == "ok"
                    counts[("joined" if msg["id"] == 2 else "left") if ok else msg["code"]] += 1
        await looper.close()

    await asyncio.gather(*(join_leave(*job) for job in jobs))
    return dict(counts)


def join_leave_process(
    port: int,
    jobs: list[tuple[int, str, int]],
    rate: float,
    window: tuple[float, float],
    results: Any,
) -> None:
    """:func:`join_leave_loops` in a process of its own; its counts into ``results``."""
    results.put(asyncio.run(join_leave_loops(port, jobs, rate, window)))


async def stand_in_table(host: Victim, **create: Any) -> dict[str, Any]:
    """``host`` opens a table (``create``: the ``create_table`` fields), starts a match with four
    server bots and takes them off again: stand-ins play the four empty seats, and the
    address's bots count is back where it was. Returns the ``create_table`` reply."""
    made = await host.request("create_table", **create)
    assert made["type"] == "ok", made
    for _ in range(4):
        await host.request("add_bot", strategy="random")
    started = await host.request("start")
    assert started["type"] == "ok", started
    for seat in range(1, 5):
        removed = await host.request("remove_bot", seat=seat)
        assert removed["type"] == "ok", removed
    return made


async def notice_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """Join/leave loops at ``--notice-tables`` playing tables, at the message limit (the module
    doc): the loops run in two processes of their own, so the victim's pings here are not
    held up by them."""
    hosts: list[Victim] = []
    jobs: list[tuple[int, str, int]] = []
    for t in range(args.notice_tables):
        host = await Victim.open(served.port, f"{NOTICE_HOSTS}{1 + t // 8}")
        # A bot's hello: the deal does not wait for a person's client seed (PROTOCOL.md §13).
        await host.request("hello", version=1, kind="bot", name=f"host {t}")
        table = (await stand_in_table(host, name=f"notices {t}", hands=None))["table"]
        hosts.append(host)
        first = len(jobs)
        jobs += [(first + i, str(table), 1 + i) for i in range(4)]
    # Every table's last 50 lines are stored within a second or two (four loops, each a notice
    # a request); then every notice replaces one: the window measured.
    fill = max(2.0, 3 * LINES_KEPT / (4 * args.message_rate))
    begin = time.monotonic() + 1.0 + fill  # a second for the loops to connect
    window = (begin, begin + args.seconds)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    halves = [jobs[: len(jobs) // 2], jobs[len(jobs) // 2 :]]
    workers = [
        context.Process(
            target=join_leave_process,
            args=(served.port, half, args.message_rate, window, results),
            daemon=True,
        )
        for half in halves
    ]
    before = disk_bytes(served.db)
    for worker in workers:
        worker.start()
    await asyncio.sleep(begin - time.monotonic())
    filled = disk_bytes(served.db)
    rows_filled = chat_rows(served.db)
    cpu = served.cpu_seconds()
    start = time.monotonic()
    times = await victim.pings(args.seconds)
    took = time.monotonic() - start
    used = (served.cpu_seconds() - cpu) / took
    after = disk_bytes(served.db)
    counts: Counter[str] = Counter()
    for _ in workers:
        counts.update(await asyncio.to_thread(results.get, True, 60))
    for worker in workers:
        worker.join(10)
    for host in hosts:
        await host.close()
    told = counts["joined"] + counts["left"]
    print(
        f"  notices        {len(jobs)} connections at {args.notice_tables} playing tables,"
        f" each a join or leave every {1 / args.message_rate:g} s; {fill:.1f} s to fill, then"
        f" {took:.1f} s measured: {told} notices told ({told / took:.0f}/s), replies"
        f" {dict(counts)}; server CPU {used:5.0%}; victim ping {benchlib.summary(times)}"
    )
    print(growth(served.db, before, filled, rows_filled, after, took))


TAKEBACK_NET = "127.0.5."
"""The takeback scenario's players, one address each (127.0.5.1 and up)."""


def takeback_loop(port: int, number: int, seconds: float, results: Any) -> None:
    """One player of the takeback scenario (the module doc), in a process of its own: its
    counts into ``results``."""
    os.nice(19)  # the attacker's own CPU must not be what slows the server down

    async def go() -> dict[str, int]:
        counts: Counter[str] = Counter()
        address = f"{TAKEBACK_NET}{1 + number}"
        key = f"takeback-player-key-{number:04d}-0123456789"
        player = await Victim.open(port, address)
        await player.request("hello", version=1, name="Ann", player_key=key)
        made = await player.request("create_table", name=f"takeback {number}", hands=None)
        for _ in range(4):
            await player.request("add_bot", strategy="random")
        await player.request("start")
        token = made["token"]
        await player.close()
        deadline = time.monotonic() + seconds
        loops = 0
        while time.monotonic() < deadline:
            loops += 1
            try:
                person = await Victim.open(port, address)
                # A new name each time, the longest of four-byte characters (the costliest
                # notice text): what a rename loop would send.
                name = f"{loops:05d}" + "\U0001f600" * 19
                welcome = await person.request(
                    "hello", version=1, name=name, player_key=key, token=token
                )
                if welcome.get("type") != "welcome":
                    counts[str(welcome.get("code"))] += 1
                    await person.close()
                    await asyncio.sleep(0.05)
                    continue
                counts["taken back" if welcome.get("seat") == 0 else "not seated"] += 1
                # The name_kept notice comes after the snapshot: a ping's reply follows it.
                events: list[dict[str, Any]] = []
                await person.request("ping", skipped=events)
                counts["name_kept"] += sum(msg.get("code") == "name_kept" for msg in events)
                await person.close()
            except ConnectionError:  # the server closed it: past the address's connection_rate
                counts["closed (connection_rate)"] += 1
                await asyncio.sleep(0.05)
            except (OSError, TimeoutError) as exc:
                counts[type(exc).__name__] += 1
                await asyncio.sleep(0.05)
        return dict(counts)

    results.put(asyncio.run(go()))


async def takeback_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """Takeback loops under new names (the module doc), each in a process of its own."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    workers = [
        context.Process(
            target=takeback_loop,
            args=(served.port, n, args.seconds + 2.0, results),
            daemon=True,
        )
        for n in range(args.takeback_loops)
    ]
    before = disk_bytes(served.db)
    for worker in workers:
        worker.start()
    await asyncio.sleep(2.0)  # the tables are open and playing
    cpu = served.cpu_seconds()
    start = time.monotonic()
    times = await victim.pings(args.seconds)
    took = time.monotonic() - start
    used = (served.cpu_seconds() - cpu) / took
    counts: Counter[str] = Counter()
    for _ in workers:
        counts.update(await asyncio.to_thread(results.get, True, 60))
    for worker in workers:
        worker.join(10)
    after = disk_bytes(served.db)
    taken = counts["taken back"]
    print(
        f"  takeback       {args.takeback_loops} players, each from its own address, taking"
        f" their seat back under a new name in a loop for about {args.seconds + 2.0:g} s:"
        f" {taken} takebacks ({taken / (args.seconds + 2.0):.1f}/s), {dict(counts)};"
        f" server CPU {used:5.0%} (over the {took:.1f} s measured); victim ping"
        f" {benchlib.summary(times)}; database {before[0] / 1e6:.2f} MB →"
        f" {after[0] / 1e6:.2f} MB, write-ahead log {after[1] / 1e6:.2f} MB; {chat_rows(served.db)}"
        " chat_lines rows"
    )


SPECTATOR_NET = "127.0.3."
"""The spectators scenario's table and watchers: 127.0.3.1 hosts, watchers 25 to an address
(``max_per_address`` 32, ``connection_burst`` 30)."""

CHURN_NET = "127.0.4."
"""The connect-watch-leave loops' addresses, 127.0.4.1 to .4."""


class Watcher:
    """A connection watching the spectators scenario's table: reads everything it is sent and
    counts it by type (``chat`` lines heard, ``state`` frames, its own chat's replies)."""

    def __init__(self, person: Victim, counts: Counter[str]) -> None:
        self.person = person
        self.counts = counts
        self.reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        reader = self.person.reader
        decoder = self.person.decoder
        for msg in self.person.inbox:
            self.counts[str(msg.get("type"))] += 1
        while data := await reader.read(1 << 16):
            for msg in decoder.feed(data):
                kind = str(msg.get("type"))
                if msg.get("id") == 9:  # the reply to one of its chat lines
                    kind = "said" if kind == "ok" else str(msg.get("code"))
                self.counts[kind] += 1
        self.counts["cut off"] += 1

    def say(self, line: bytes) -> None:
        """Send ``line`` (a chat frame with id 9)."""
        self.person.writer.write(line)

    async def close(self) -> None:
        """Stop reading and close the socket."""
        self.reading.cancel()
        await self.person.close()


def watch_churn(port: int, table: str, seconds: float, leave: bool) -> tuple[Counter[str], int]:
    """``connect → hello → watch [→ leave] → disconnect`` from four addresses in turn for
    ``seconds``: how each watch ended (``ok`` or its code) and the loops."""
    outcomes: Counter[str] = Counter()
    loops = 0
    deadline = time.monotonic() + seconds
    requests = [{"type": "watch", "id": 2, "table": table}]
    if leave:
        requests.append({"type": "leave", "id": 3})
    while time.monotonic() < deadline:
        address = f"{CHURN_NET}{1 + loops % 4}"
        loops += 1
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(address, 0)
            ) as sock:
                hello = {**HELLO, "name": f"churn{loops}"}
                sock.sendall(b"".join(frame(m) for m in [hello, *requests]))
                replies = {m.get("id"): m for m in read_replies(sock, len(requests) + 1)}
        except OSError as exc:
            outcomes[type(exc).__name__] += 1
            continue
        answer = replies.get(2) or replies.get(1) or replies.get(None) or {"code": "no reply"}
        outcomes[str(answer.get("code", "ok"))] += 1
        if answer.get("code") == "too_many_connections":
            time.sleep(0.05)  # refused at the door: a real looper would not spin on it
    return outcomes, loops


async def spectators_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """One table filled with spectators, then one more; silent, chatting, churning (the
    module doc)."""
    host = await Victim.open(served.port, f"{SPECTATOR_NET}1")
    # A bot's hello: the deal waits for no client seed (PROTOCOL.md §13).
    await host.request("hello", version=1, name="Host", kind="bot")
    table = str((await host.request("create_table", name="popular", hands=1000, grace=0))["table"])
    for _ in range(4):
        await host.request("add_bot", strategy="random")
    await host.request("start")
    counts: Counter[str] = Counter()
    watchers: list[Watcher] = []
    refused: Counter[str] = Counter()
    start = time.monotonic()
    for n in range(args.watchers):
        person = await Victim.open(served.port, f"{SPECTATOR_NET}{2 + n // 25}")
        await person.request("hello", version=1, name=f"watcher {n}")
        reply = await person.request("watch", table=table)
        if reply["type"] == "ok":
            watchers.append(Watcher(person, counts))
        else:
            refused[str(reply.get("code"))] += 1
            await person.close()
    filled = time.monotonic() - start
    await host.close()  # a stand-in plays its seat at once (grace 0) while anybody watches
    listing = await victim.request("list_tables")
    watching = next(t["spectators"] for t in listing["tables"] if t["id"] == table)
    print(
        f"  spectators     {args.watchers} asked to watch one table in {filled:.1f} s:"
        f" {len(watchers)} watch, refused {dict(refused)}; listed spectators {watching}"
    )

    async def window(name: str, detail: str = "") -> None:
        cpu = served.cpu_seconds()
        began = time.monotonic()
        before = counts.copy()
        times = await victim.pings(args.seconds)
        took = time.monotonic() - began
        used = (served.cpu_seconds() - cpu) / took
        per = {k: (counts[k] - before[k]) / took / max(len(watchers), 1) for k in counts}
        print(
            f"    {name:<22} victim ping: {benchlib.summary(times)}   server CPU {used:5.0%};"
            f" per spectator a second: {per.get('state', 0):.1f} states,"
            f" {per.get('chat', 0):.1f} chat lines{detail}"
        )

    await window("silent, table playing")
    line = frame({"type": "chat", "id": 9, "text": CHAT_LINE})
    loop = asyncio.get_running_loop()

    async def chatter(number: int, watcher: Watcher, until: float) -> None:
        await asyncio.sleep(number / len(watchers) / args.chat_rate)  # spread over a second
        while loop.time() < until:
            watcher.say(line)
            await asyncio.sleep(1.0 / args.chat_rate)

    said = counts["said"]
    chatting = [
        asyncio.create_task(chatter(i, w, loop.time() + args.seconds + 1.0))
        for i, w in enumerate(watchers)
    ]
    await asyncio.sleep(0.5)
    await window("all chatting")
    await asyncio.gather(*chatting)
    print(
        f"      {counts['said'] - said} lines taken, refused"
        f" { ({k: v for k, v in counts.items() if k == 'rate_limited'}) };"
        f" {len(CHAT_LINE.encode())}-byte lines, each sent to {len(watchers)} spectators"
    )
    for leave, name in ((False, "watch loop, table full"), (True, "watch/leave, one free")):
        if leave and watchers:
            await watchers.pop().close()  # one place free for the loops to take and give back
        churning = asyncio.create_task(
            asyncio.to_thread(watch_churn, served.port, table, args.seconds + 0.5, leave)
        )
        await asyncio.sleep(0.25)
        await window(name)
        outcomes, loops = await churning
        print(f"      {loops} loops ({loops / (args.seconds + 0.5):.0f}/s): {dict(outcomes)}")
    deadline = loop.time() + 5
    while True:  # the last loop's place comes back once the server has seen it go
        listing = await victim.request("list_tables")
        watching = next((t["spectators"] for t in listing["tables"] if t["id"] == table), None)
        if watching == len(watchers) or loop.time() > deadline:
            break
        await asyncio.sleep(0.05)
    print(
        f"    afterwards: listed spectators {watching} ({len(watchers)} still watching);"
        f" cut off {counts['cut off']}; server alive {served.proc.poll() is None}"
    )
    for watcher in watchers:
        await watcher.close()


TIMER_HOSTS = "127.0.8.1"
"""The timer scenario's hosts: one a table, each seated and never moving (8 tables,
``max_running_per_address``)."""

TIMER_LOOPS = "127.0.8.2"
"""The timer scenario's connect-sit-leave loops, one a table."""

TIMER_WATCHERS = "127.0.9."
"""The timer scenario's spectators, 25 to an address (``connection_burst`` 30)."""

BOT_VICTIM_ADDRESS = "127.0.0.9"
"""The victim of the timer scenario whose table is played by server bots."""

TIMER_NAME = "\U0001f600" * 24
"""The longest name of four-byte characters: the costliest ``timer_expired`` text."""


class BotTableVictim:
    """A victim from :data:`BOT_VICTIM_ADDRESS` watching a table of its own played by server
    bots (open-ended): four bots, and a stand-in in its host's seat (the host started the
    match and dropped its connection, grace 0; a person's seat, so the table stays open while
    somebody watches, and none of the victim's answers are held up by its message rate). It
    times every move: from the ``state`` before it to the ``state`` that shows it, left out
    when a pause comes between (after a trick's last card, ``trick_pause``, and between hands,
    ``hand_pause``)."""

    def __init__(self, person: Victim, table: str) -> None:
        self.person = person
        self.table = table
        self.moves: list[tuple[float, float]] = []
        """(when, ms) of every move timed."""
        self.reading = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int) -> BotTableVictim:
        """The table made, its four bots seated (the server's default strategy), started, and
        its host gone; the victim watching it."""
        host = await Victim.open(port, BOT_VICTIM_ADDRESS)
        # A bot's hello: the deal waits for no client seed (PROTOCOL.md §13).
        await host.request("hello", version=1, kind="bot", name="BotVictim")
        made = await host.request("create_table", name="the victim's bots", hands=None, grace=0)
        for _ in range(4):
            await host.request("add_bot")
        started = await host.request("start")
        assert started["type"] == "ok", started
        victim = await cls.back(port, str(made["table"]))
        await host.close()
        return victim

    @classmethod
    async def back(cls, port: int, table: str) -> BotTableVictim:
        """The victim watching ``table`` (again, after a restart)."""
        person = await Victim.open(port, BOT_VICTIM_ADDRESS)
        await person.request("hello", version=1, name="BotVictim watching")
        watched = await person.request("watch", table=table)
        assert watched["type"] == "ok", watched
        person.keep_alive()
        return cls(person, table)

    async def _read(self) -> None:
        before: dict[str, Any] | None = None  # the view of the last state
        at = 0.0
        async for batch in self.person.batches():
            now = time.monotonic()
            for msg in batch:
                if msg.get("type") == "state":
                    view, last = msg.get("view"), msg.get("last")
                    if (
                        before is not None
                        and view is not None
                        and last is not None
                        and before["phase"] != "done"
                        and not (before["phase"] == "play" and not before["trick"]["cards"])
                    ):
                        self.moves.append((now, (now - at) * 1000))
                    before, at = view, now

    def since(self, begin: float) -> list[float]:
        """The moves timed since ``begin`` (``time.monotonic``), in ms."""
        return [ms for when, ms in self.moves if when >= begin]

    async def close(self) -> None:
        """Stop reading and close the socket."""
        self.reading.cancel()
        await self.person.close()


class TimerHost:
    """A host of the timer scenario: seated at its table, never moving; it reads all it is
    sent and counts the table's ``state`` frames and ``timer_expired`` notices (by seat)."""

    def __init__(self, person: Victim, table: str, token: str, timer: float) -> None:
        self.person = person
        self.table = table
        self.token = token
        self.timer = timer
        self.counts: Counter[str] = Counter()
        person.keep_alive()
        self.reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for batch in self.person.batches():
            for msg in batch:
                kind = str(msg.get("type"))
                if kind == "notice" and msg.get("code") == "timer_expired":
                    kind = "timer_expired own" if msg.get("seat") == 0 else "timer_expired"
                elif kind == "your_turn" and not self.counts[kind]:
                    # The first prompt back at the seat comes with the whole timer (a later
                    # one may repeat a decision's prompt, with what is left; a trick pause's
                    # end may come a few ms late): under half, and the clock ran while nobody
                    # was at the table.
                    short = msg.get("deadline", 0) < self.timer / 2
                    self.counts["first your_turn short of its time"] += short
                self.counts[kind] += 1
        self.counts["cut off"] += 1

    async def close(self) -> None:
        """Stop reading and close the socket."""
        self.reading.cancel()
        await self.person.close()


async def timer_table(port: int, number: int, timer: float) -> TimerHost:
    """A table of the timer scenario from :data:`TIMER_HOSTS`: the host (a client program,
    seated as a person is: the turn timer moves for it, never a stand-in while it is connected)
    opens it with ``timer`` (the shortest the server takes, 0.1 s), open-ended, a grace of 0,
    the longest table name, and leaves stand-ins in the four other seats
    (:func:`stand_in_table`)."""
    person = await Victim.open(port, TIMER_HOSTS)
    # A bot's hello (a program that never answers): the deal waits for no client seed, which
    # would hold each table among the address's waiting ones (3) for seed_wait.
    await person.request("hello", version=1, kind="bot", name=f"{number}" + TIMER_NAME[1:])
    made = await stand_in_table(
        person, name=TIMER_NAME[:20] * 2, hands=None, turn_timer=timer, grace=0
    )
    return TimerHost(person, str(made["table"]), str(made["token"]), timer)


def timer_watchers(
    port: int, jobs: list[tuple[str, str]], window: tuple[float, float, float], results: Any
) -> None:
    """Spectators (``(address, table)`` each), in a process of their own: each watches its
    table and reads everything until ``window``'s last instant, counting per table the
    ``state`` frames and ``timer_expired`` notices received between its first two (by their
    bytes: no decoding, so the reading costs this process little); the counts into
    ``results``."""
    os.nice(19)
    begin, end, until = window

    async def go() -> dict[str, int]:
        counts: Counter[str] = Counter()

        async def one(address: str, table: str) -> None:
            try:
                person = await Victim.open(port, address)
                await person.request("hello", version=1, name=TIMER_NAME)
                reply = await person.request("watch", table=table)
            except (OSError, ConnectionError, TimeoutError) as exc:
                counts[f"watch {type(exc).__name__}"] += 1
                return
            if reply["type"] != "ok":
                counts[f"watch {reply.get('code')}"] += 1
                await person.close()
                return
            counts["watching"] += 1
            counts[f"{table} watching"] += 1
            tail = b""
            pong = time.monotonic() + 20  # idle_timeout: a frame now and then
            while (left := until - time.monotonic()) > 0:
                try:
                    data = await asyncio.wait_for(person.reader.read(1 << 16), min(left, 5))
                except TimeoutError:
                    continue
                except OSError:  # reset: the kill after the window
                    data = b""
                if not data:
                    counts["cut off"] += time.monotonic() < end  # not by the kill after it
                    return
                if begin <= time.monotonic() < end:
                    chunk = tail + data  # a word cut between two reads is counted once
                    counts[f"{table} timer_expired"] += chunk.count(b"timer_expired")
                    counts[f"{table} state"] += chunk.count(b"\xa4type\xa5state")
                    counts["bytes"] += len(data)
                    tail = data[-12:]
                if time.monotonic() >= pong:
                    person.writer.write(frame({"type": "pong"}))
                    pong += 20
            await person.close()

        await asyncio.gather(*(one(address, table) for address, table in jobs))
        return dict(counts)

    results.put(asyncio.run(go()))


def timer_sit_loops(
    port: int, tables: list[str], hold: float, window: tuple[float, float, float], results: Any
) -> None:
    """Connect-sit-leave loops from :data:`TIMER_LOOPS`, one a table, in a process of their
    own: ``connect → hello → join (a free seat) → sit hold s, never moving → leave →
    disconnect``, again until ``window``'s last instant, so a seat goes from a stand-in to
    the turn timer and back; the outcomes between its first two instants, and the
    ``timer_expired`` notices for the loops' own seats, into ``results``."""
    os.nice(19)
    begin, end, until = window

    async def go() -> dict[str, int]:
        counts: Counter[str] = Counter()

        async def loop(number: int, table: str) -> None:
            await asyncio.sleep(number * hold / len(tables))  # spread over one hold
            while time.monotonic() < until:
                counted = begin <= time.monotonic() < end
                try:
                    person = await Victim.open(port, TIMER_LOOPS)
                    await person.request("hello", version=1, name=TIMER_NAME)
                    reply = await person.request("join", table=table)
                    if reply["type"] != "ok":
                        counts[f"join {reply.get('code')}"] += counted
                        await person.close()
                        await asyncio.sleep(hold)
                        continue
                    await asyncio.sleep(hold)  # seated, never moving: the timer moves for it
                    events: list[dict[str, Any]] = []
                    await person.request("leave", skipped=events)
                    await person.close()
                    counts["sat"] += counted
                    counts["timer moved for a loop"] += counted * sum(
                        e.get("code") == "timer_expired" and e.get("seat") == reply["seat"]
                        for e in events
                    )
                except (OSError, TimeoutError) as exc:  # closed or refused: the kill, else a limit
                    counts[f"loop {type(exc).__name__}"] += time.monotonic() < end
                    await asyncio.sleep(0.2)

        await asyncio.gather(*(loop(n, t) for n, t in enumerate(tables)))
        return dict(counts)

    results.put(asyncio.run(go()))


class TimerWindow:
    """One measured window of the timer scenario: the server's CPU (with its bot workers),
    memory, database, log and the notices, from :meth:`begin` to :meth:`end`."""

    def __init__(self, served: Served) -> None:
        self.served = served

    def begin(self) -> None:
        """Take the starting figures."""
        served = self.served
        self.cpu = served.cpu_seconds()
        self.cpu_all = served.cpu_with_workers()
        self.started = time.monotonic()
        self.db = used_bytes(served.db)
        self.actions = row_count(served.db, "actions")
        self.tables = bytes_by_table(served.db)
        self.log = served.log.stat().st_size if served.log is not None else 0

    def end(self) -> str:
        """The window's figures, as a line."""
        served = self.served
        took = time.monotonic() - self.started
        self.took = took
        cpu = (served.cpu_seconds() - self.cpu) / took
        cpu_all = (served.cpu_with_workers() - self.cpu_all) / took
        grew = used_bytes(served.db) - self.db
        actions = row_count(served.db, "actions") - self.actions
        grown = bytes_by_table(served.db)
        grown.subtract(self.tables)
        logged = (served.log.stat().st_size if served.log is not None else 0) - self.log
        hour = 3600 / took
        shapes: Counter[str] = Counter()
        if served.log is not None:  # the log's lines of the window, by what they say
            with served.log.open("rb") as log:
                log.seek(self.log)
                for line in log.read(max(0, logged)).decode(errors="replace").splitlines():
                    said = line.split(": ", 1)[-1]  # past the time and the table
                    shapes[re.sub(r"\S*\d\S*|\S*[^\x00-\x7f]\S*", "#", said)[:48]] += 1
        return (
            f"server CPU {cpu:5.0%} (with its bot workers {cpu_all:5.0%}), memory"
            f" {server_rss_mb(served.proc.pid):.0f} MB; database {grew / 1e3:+.0f} kB"
            f" ({grew * hour / 1e6:.1f} MB an hour; by table and index"
            f" {[(k, f'{v / 1e3:+.0f} kB') for k, v in grown.most_common(4)]}), {actions} actions"
            f" ({actions * hour:,.0f} an hour); log {logged / 1e3:+.1f} kB"
            f" ({logged * hour / 1e6:.2f} MB an hour at --log-level info; most of it"
            f" {shapes.most_common(4)})"
        )


async def one_more_timer_table(port: int, timer: float) -> str:
    """What the hosts' address gets when it starts one more table of bots than it may run:
    the refusal's code (``ok``: none)."""
    person = await Victim.open(port, TIMER_HOSTS)
    try:
        await person.request("hello", version=1, kind="bot", name="one more")
        made = await person.request("create_table", name="one more", turn_timer=timer)
        for _ in range(4):
            await person.request("add_bot", strategy="random")
        started = await person.request("start")
        await person.request("leave")
        return str(made.get("code") or started.get("code") or "ok")
    finally:
        await person.close()


async def timer_scenario(served: Served, victim: Victim, args: argparse.Namespace) -> None:
    """The turn timer pressed as hard as the limits allow (the module doc), then the server
    killed in the middle of it and started again on the same database. Last of :data:`ONLY`:
    the restart cuts every other scenario's connections (``victim`` among them)."""
    del victim  # the restart cuts it: this scenario's victims are its own, made again
    context = multiprocessing.get_context("spawn")
    bots = await BotTableVictim.open(served.port)
    pinger, _ = await victim_at_own_table(served.port)
    figures = TimerWindow(served)
    figures.begin()
    begin = time.monotonic()
    pings = await pinger.pings(min(args.seconds, 5.0))
    print(
        f"  timer          quiet: victim ping {benchlib.summary(pings)}; the victim's bots'"
        f" moves {benchlib.summary(bots.since(begin))}; {figures.end()}"
    )
    hosts = [await timer_table(served.port, n, args.timer) for n in range(args.timer_tables)]
    tables = [host.table for host in hosts]
    refused = await one_more_timer_table(served.port, args.timer)
    jobs = [
        (f"{TIMER_WATCHERS}{1 + n // 25}", table)
        for n, table in enumerate(t for t in tables for _ in range(args.timer_watchers))
    ]
    print(
        f"    {len(hosts)} tables from {TIMER_HOSTS}, turn timer {args.timer:g} s, each host"
        f" seated and never moving, 4 seats to stand-ins and one connect-sit-leave loop (sits"
        f" {args.sit_hold:g} s) from {TIMER_LOOPS}; {len(jobs)} spectators asked for"
        f" ({args.timer_watchers} a table); one more table: {refused}"
    )

    async def pressed(phase: str, kill: bool) -> dict[str, int]:
        """Spectators and loops at every table, ``--seconds`` measured after they are in;
        with ``kill``, the server is killed while they still press (the window's figures
        taken first)."""
        begin = time.monotonic() + 3.0 + len(jobs) / 100  # the spectators are in by then
        end = begin + args.seconds
        window = (begin, end, end + 3.0)  # the window's figures are taken before they stop
        results = context.Queue()
        workers = [
            context.Process(
                target=timer_watchers, args=(served.port, jobs[n::2], window, results), daemon=True
            )
            for n in range(2)
        ]
        workers.append(
            context.Process(
                target=timer_sit_loops,
                args=(served.port, tables, args.sit_hold, window, results),
                daemon=True,
            )
        )
        for worker in workers:
            worker.start()
        await asyncio.sleep(begin - time.monotonic())
        figures = TimerWindow(served)
        figures.begin()
        pings = await pinger.pings(args.seconds)
        line = figures.end()
        if kill:
            await asyncio.sleep(0.5)  # mid-hand everywhere, every loop and spectator pressing
            restarted = served.kill_and_restart()
        counts: Counter[str] = Counter()
        for _ in workers:
            counts.update(await asyncio.to_thread(results.get, True, 60))
        for worker in workers:
            worker.join(10)
        # Told at each table: what its spectators received, over how many received it.
        fired = [counts[f"{t} timer_expired"] / max(1, counts[f"{t} watching"]) for t in tables]
        delivered = sum(counts[f"{t} timer_expired"] for t in tables)
        states = [counts[f"{t} state"] for t in tables]
        loops = {k: v for k, v in counts.items() if not k.startswith(tuple(tables))}
        took = figures.took
        print(
            f"    {phase}: {counts['watching']} spectators; timer_expired notices told"
            f" {sum(fired):.0f} ({sum(fired) / took:.1f}/s, per table {min(fired, default=0):.0f}"
            f" to {max(fired, default=0):.0f} in {took:.1f} s), delivered to"
            f" spectators {delivered} ({delivered / took:,.0f}/s); states to spectators per"
            f" table {min(states, default=0)} to {max(states, default=0)};"
            f" {counts.pop('bytes', 0) / took / 1e6:.1f} MB/s to spectators; {loops}"
        )
        print(
            f"      victim ping {benchlib.summary(pings)}; the victim's bots' moves"
            f" {benchlib.summary(bots.since(begin))}"
        )
        print(f"      {line}")
        if kill:
            print(f"    SIGKILL, then the server listened again {restarted:.2f} s later")
        return counts

    await pressed("pressed", kill=True)
    # Everything reconnects to the new server: the victims, the first half of the hosts with
    # their seat tokens (their seats the timer's again); the other half stay away (grace 0:
    # stand-ins at once, while the spectators and the loops keep the tables attended).
    for person in (bots, pinger, *hosts):
        await person.close()
    # The clients come back after a backoff, as the table client's does (0.25 s, doubling).
    await asyncio.sleep(args.back_after)
    bots = await BotTableVictim.back(served.port, bots.table)
    pinger, _ = await victim_at_own_table(served.port)
    listing = await pinger.request("list_tables")
    listed = {t["id"]: t["state"] for t in listing["tables"]}
    back = []
    for host in hosts[: len(hosts) // 2]:
        person = await Victim.open(served.port, TIMER_HOSTS)
        welcome = await person.request(
            "hello", version=1, kind="bot", name="again", token=host.token
        )
        assert welcome.get("seat") == 0, welcome
        back.append(TimerHost(person, host.table, host.token, args.timer))
    print(
        f"    after the restart: {sum(listed.get(t) == 'playing' for t in tables)} of"
        f" {len(tables)} timer tables listed playing ({Counter(listed.get(t) for t in tables)});"
        f" {len(back)} hosts back at their seats by token"
    )
    hosts = back
    counts = await pressed("after the restart", kill=False)
    stuck = [t for t in tables if not counts[f"{t} state"]]
    silent = [h.table for h in hosts if not h.counts["timer_expired own"]]
    short = sum(h.counts["first your_turn short of its time"] for h in hosts)
    print(
        f"    tables that did not move after the restart: {stuck or 'none'}; hosts back whose"
        f" seat the timer never moved for: {silent or 'none'}; whose first prompt back had"
        f" less than the whole timer (a clock that ran while nobody was there): {short};"
        f" server alive {served.proc.poll() is None}"
    )
    for person in (bots, pinger, *hosts):
        await person.close()


async def run(args: argparse.Namespace) -> None:
    """Every scenario against one server."""
    with tempfile.TemporaryDirectory() as tmp:
        timer = "timer" in (args.only or ())
        served = Served(
            Path(args.source).resolve(),
            Path(tmp) / "attack.db",
            # The timer scenario measures what the log grows by at the default level.
            extra=(*(("--log-level", "info") if timer else ()), *args.serve_arg),
            log=Path(tmp) / "server.log" if timer else None,
        )
        try:
            victim, table = await victim_at_own_table(served.port)
            print(
                f"server from {args.source} on port {served.port}; pid {served.proc.pid};"
                f" {args.attackers} attackers, reconnecting after {args.reconnect_delay:g} s"
            )
            if args.only:
                for name in ONLY:  # this order: the running loop fills the server's tables
                    if name in args.only:
                        await ONLY[name](served, victim, args)
                await victim.close()
                return
            for name in ("quiet", *ATTACKS):
                await measure(served, victim, name, args)
            outcomes, took = await asyncio.to_thread(flood, served.port, args.flood)
            other = await Victim.open(served.port, OTHER_ADDRESS)
            await other.request("hello", version=1, name="Latecomer")
            reply = await other.request("create_table", name="late")
            listing = await victim.request("list_tables")
            listed = any(t["id"] == table for t in listing["tables"])
            print(
                f"  table flood    {args.flood} x connect/hello/create/disconnect in {took:.1f} s:"
                f" {dict(outcomes)}; another address creates:"
                f" {reply.get('code', 'ok')}; the victim's table listed: {listed}"
                f" ({len(listing['tables'])} listed, truncated {listing['truncated']})"
            )
            await other.close()
            await running_scenario(served, victim, args)
            await all_at_once(served, victim, table, args)
            await victim.close()
        finally:
            served.stop()


ONLY: dict[str, Callable[[Served, Victim, argparse.Namespace], Awaitable[None]]] = {
    "notices": notice_scenario,
    "takeback": takeback_scenario,
    "spectators": spectators_scenario,
    "chat": chat_scenario,
    "running": running_scenario,
    "timer": timer_scenario,
}
"""The scenarios ``--only`` runs, in the order it runs them: the spectators' watch loops spend
the connection allowance of 127.0.4.x, whence the notices' loops come, and the running-table
loop leaves its tables running (up to the server's cap), so each comes after the others; the
timer scenario kills the server and starts it again: last."""


async def all_at_once(served: Served, victim: Victim, table: str, args: argparse.Namespace) -> None:
    """The last scenario: every attack together (the module doc), then what is left."""
    rss = server_rss_mb(served.proc.pid)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    frames = [*ATTACKS["big frames"], *ATTACKS["within limits"]]
    workers = [
        context.Process(
            target=attacker,
            args=(served.port, frames, args.seconds + 1.0, n, args.reconnect_delay),
            daemon=True,
        )
        for n in range(args.attackers)
    ]
    workers.append(
        context.Process(
            target=mob_process, args=(served.port, max(args.seconds + 1.0, MOB_SECONDS), results)
        )
    )
    for worker in workers:
        worker.start()
    flooding = asyncio.create_task(
        asyncio.to_thread(flood, served.port, args.flood, f"{MOB_NET}15")
    )
    await asyncio.sleep(1.0)
    cpu = served.cpu_seconds()
    start = time.monotonic()
    times = await victim.pings(args.seconds)
    used = (served.cpu_seconds() - cpu) / (time.monotonic() - start)
    peak = server_rss_mb(served.proc.pid)
    outcomes = await asyncio.to_thread(results.get, True, 60)
    flooded, _ = await flooding
    for worker in workers:
        worker.join(10)
    print(f"  {'all at once':<14} victim ping: {benchlib.summary(times)}   server CPU {used:5.0%}")
    print(f"    table flood: {dict(flooded)}")
    print(f"    mob: {dict(sorted(outcomes['counts'].items()))}")
    for label, said in outcomes["names"].items():
        print(f"    hello as {label}: {said}")
    newcomer = await Victim.open(served.port, "127.0.0.6")
    welcome = await newcomer.request("hello", version=1, name="Newcomer")
    created = await newcomer.request("create_table", name="after the storm")
    listing = await victim.request("list_tables")
    listed = any(t["id"] == table for t in listing["tables"])
    await newcomer.close()
    print(
        f"    afterwards: server alive {served.proc.poll() is None}; memory {rss:.0f} MB before,"
        f" {peak:.0f} MB at the end of the storm; a newcomer's hello"
        f" {welcome.get('code', 'ok')}, create_table {created.get('code', 'ok')};"
        f" the victim's table listed: {listed}"
    )


def main() -> None:
    """Parse the arguments and run."""
    parser = attack_arguments(__doc__, seconds=5.0)
    parser.add_argument("--attackers", type=int, default=2, help="attacking processes")
    parser.add_argument("--flood", type=int, default=500, help="tables the flood tries")
    parser.add_argument(
        "--only",
        action="append",
        choices=tuple(ONLY),
        help="run this scenario alone (repeatable: those named, one after the other against one"
        " server; running: the running-table loop of issue 27; chat: every connection of many"
        " tables chatting at its limit, the database's growth; spectators: one table filled"
        " with spectators, chatting and churning; notices: join/leave loops at playing tables"
        " at the message limit, the database's growth; takeback: players taking their seat"
        " back under a new name in a loop; timer: tables whose seated people never move, at the"
        " shortest turn timer, full of spectators, then the server killed and started again)",
    )
    parser.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="OPTION",
        help="one more option for `sheepshead serve` (repeatable), e.g. --serve-arg=--trick-pause=0"
        " --serve-arg=--hand-pause=0: the server's pauses are its host's to set, and without them"
        " the timer scenario's tables move as fast as the turn timer lets them",
    )
    parser.add_argument(
        "--timer",
        type=float,
        default=0.1,
        help="the timer scenario's turn timer in seconds (0.1: the shortest the server takes)",
    )
    parser.add_argument(
        "--timer-tables",
        type=int,
        default=8,
        help="tables of the timer scenario, from one address (8: max_running_per_address)",
    )
    parser.add_argument(
        "--timer-watchers",
        type=int,
        default=50,
        help="spectators at each table of the timer scenario (50: max_spectators_per_table)",
    )
    parser.add_argument(
        "--back-after",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how long after the timer scenario's restart its clients come back (1: the table"
        " client's reconnect backoff, 0.25 s doubling, past a restart of some 0.3-1 s)",
    )
    parser.add_argument(
        "--sit-hold",
        type=float,
        default=1.6,
        help="seconds each connect-sit-leave loop of the timer scenario sits (1.6: 8 loops"
        " from one address then connect 5 times a second, its connection_rate)",
    )
    parser.add_argument(
        "--takeback-loops",
        type=int,
        default=4,
        help="players of the takeback scenario, each from an address of its own",
    )
    parser.add_argument(
        "--watchers",
        type=int,
        default=51,
        help="connections that ask to watch the spectators scenario's table (51: the limit,"
        " max_spectators_per_table 50, and one more)",
    )
    parser.add_argument(
        "--notice-tables",
        type=int,
        default=50,
        help="playing tables of the notice scenario, four join/leave loops each",
    )
    parser.add_argument(
        "--message-rate",
        type=float,
        default=19.0,
        help="requests a second each notice scenario loop sends (19: just under the server's"
        " rate, 20, so a moment's lag does not leave a loop refused for good)",
    )
    parser.add_argument(
        "--chat-tables",
        type=int,
        default=199,
        help="tables of the chat scenario, 5 people each (199: 995 connections, with the"
        " victim's all but 4 of max_connections, 1000)",
    )
    parser.add_argument(
        "--chat-rate",
        type=float,
        default=1.0,
        help="lines a second each chat scenario connection says (the server's chat_rate: 1)",
    )
    parser.add_argument(
        "--reconnect-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="how long a cut-off attacker waits before it connects again (default 0: at once, "
        "a connection flood on top of the frames)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
