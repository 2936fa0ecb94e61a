"""Benchmark: requests that cost the server more than a message, asked for at the full rate.

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack_requests.py [--seconds 8] [--hands 20] [--tables 120]
        [--matches 3] [--only history-match] [--keyed]
    .venv/bin/python bench/attack_requests.py --source /tmp/old   # another tree's server
    .venv/bin/python bench/attack_requests.py --only door_seat --only door_player --local

A real ``sheepshead serve`` (``bench/attack.py``'s :class:`Served`, with no pause after a
trick or a hand: a tree from before ``--trick-pause`` cannot run here) first gets a history:
a host plays ``--matches`` matches (a rematch after each) of ``--hands`` hands against four
random server bots, and ``--tables`` waiting tables are opened from as many addresses as the
per-address cap needs. A victim at a table of its own pings every 60 ms. Then, one scenario
at a time, two addresses (127.0.2.1 and .2) of 16 connections each, every one watching the
played table, ask for the same request 20 times a second (the message rate limit):

- ``history``: the played table's current match's hands, up to a frame (PROTOCOL.md §4);
- ``history-match``: ``history`` with ``match``, every earlier match of the played table in
  turn, from hand 0 (the fullest page: each hand rebuilt from the store and replayed) and from
  its last hand (the longest scan of the match's payouts for the running totals), one after
  the other (a server from before ``match`` ignores it and answers the current match);
- ``standings``: every finished match the server has stored, added up;
- ``list_tables``: the lobby, up to a frame;
- ``door_seat``, ``door_player``: the doors' local-only requests (PROTOCOL.md §15) over TCP,
  the largest each may be (24 tokens of 128 characters; a 128-character key, a fingerprint and
  a 96-character name), each refused with ``local_only``.

``--local``: the server also listens on a Unix socket (``serve --local-socket``), and the
scenarios ``door_seat`` and ``door_player`` are run there too, as the doors send them and as
fast as the socket lets anybody: :data:`LOCAL_ASKERS` processes (the server's user), each in a
loop of connect, hello, the request, its reply, close (the doors' :func:`ask_server`; a
connection through the socket has no per-address allowance). ``door_seat`` carries 23
unknown tokens and, last, the seat token of a player seated over TCP (the costliest lookup: a
hash per token), ``door_player`` that player's key (known: an ``UPDATE`` of its row each time).
The database's size (with its write-ahead log) is printed before and after.

``--keyed``: every asker says hello with a player key of its own (PROTOCOL.md, "Identity"), so
an answer built for its asker (``list_tables``'s ``yours``) is built; without it they are
keyless, as a browser door tab without a player cookie.

Each prints the victim's ping, the server's CPU, and how the requests were answered.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import multiprocessing  # noqa: E402
import socket  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from attack import (  # noqa: E402
    HELLO,
    Decoder,
    Served,
    Victim,
    attack_arguments,
    frame,
    victim_at_own_table,
)

HOST_ADDRESS = "127.0.0.7"
ASKER_NET = "127.0.2."
CONNECTIONS = 16
"""Connections per asking address: the per-address cap."""
ASKS_PER_SECOND = 20.0
"""Requests per second per connection: the message rate limit."""
REQUESTS = ("history", "history-match", "standings", "list_tables", "door_seat", "door_player")
LOCAL_ASKERS = 4
"""Processes asking on the local socket with ``--local`` (each one connection at a time)."""
HOLDER_KEY = "bench-holder-key-" + "k" * 111
"""The player key of the player seated for ``--local`` (128 characters, the most)."""
FINGERPRINT = "SHA256:" + "f" * 43
"""An SSH key's fingerprint in ``door_player``."""
ANSWER_DELAY = 0.06
"""Seconds the host waits before each of its actions (under the message rate limit, which a
host answering at once would pass with the tables' pauses off)."""


async def played_table(port: int, hands: int, matches: int = 1) -> str:
    """A host plays ``matches`` matches of ``hands`` hands against four random server bots
    (a rematch after each but the last), taking the first legal action at each turn; returns
    the table (the host stays seated)."""
    host = await Victim.open(port, HOST_ADDRESS)
    # A bot client: the deal of each rematch waits for no seed of its (PROTOCOL.md §13), where
    # a person's would hold it the server's seed_wait (3 s) a match.
    await host.request("hello", version=1, client="bench-attack/1", name="Host", kind="bot")
    table = str((await host.request("create_table", name="played", hands=hands))["table"])
    for _ in range(4):
        await host.request("add_bot", seat=None, strategy="random")
    await host.request("start")
    while True:
        # What came with the replies above first (a bot client's first your_turn can come in
        # the same read as start's ok), then on through the same decoder.
        if not host.inbox:
            data = await asyncio.wait_for(host.reader.read(1 << 16), 60)
            if not data:
                raise SystemExit("attack_requests: the server closed the host's connection")
            host.inbox.extend(host.decoder.feed(data))
        pending, host.inbox = host.inbox, []
        for msg in pending:
            if msg.get("type") == "your_turn":
                await asyncio.sleep(ANSWER_DELAY)
                host.ids += 1
                host.writer.write(
                    frame(
                        {
                            "type": "action",
                            "id": host.ids,
                            "seq": msg["seq"],
                            "action": msg["legal"][0],
                        }
                    )
                )
            elif msg.get("type") == "match_over":
                matches -= 1
                if matches <= 0:
                    return table
                host.ids += 1
                host.writer.write(frame({"type": "rematch", "id": host.ids}))


async def open_tables(port: int, count: int) -> list[Victim]:
    """``count`` waiting tables, three per address (the cap), their hosts kept connected."""
    hosts = []
    for number in range(count):
        host = await Victim.open(port, f"127.0.4.{number // 3 + 1}")
        await host.request("hello", version=1, client="bench-attack/1", name=f"Host {number}")
        await host.request("create_table", name=f"A table with a long name, number {number}")
        hosts.append(host)
    return hosts


def door_request(request: str, token: str = "") -> dict[str, Any]:
    """The largest ``door_seat`` (unknown tokens, then ``token``) or ``door_player`` (the
    seated player's key) there may be."""
    if request == "door_seat":
        tokens = [f"{n:02}" * 64 for n in range(23)] + [token or "x" * 128]
        return {"type": "door_seat", "id": 3, "tokens": tokens}
    name = "\u00e9" * 96  # cut to 24 after cleaning, as a hello's
    fields = {"player_key": HOLDER_KEY, "fingerprint": FINGERPRINT, "name": name}
    return {"type": "door_player", "id": 3, **fields}


def asks(request: str, matches: int, hands: int) -> list[bytes]:
    """The frames an asker sends in turn for the scenario ``request``."""
    if request.startswith("door_"):
        return [frame(door_request(request))]
    if request != "history-match":
        return [frame({"type": request, "id": 3})]
    return [
        frame({"type": "history", "id": 3, "match": match, "start": start})
        for match in range(matches - 1)
        for start in (0, hands - 1)
    ]


def asker(
    port: int,
    table: str,
    request: str,
    seconds: float,
    address: str,
    out: Any,
    shape: tuple[int, int] = (1, 1),
    keyed: bool = False,
) -> None:
    """:data:`CONNECTIONS` connections from ``address``, each watching ``table`` and asking
    for ``request`` :data:`ASKS_PER_SECOND` times a second (``shape``: the table's matches
    and hands a match, for :func:`asks`; ``keyed``: each with a player key of its own); how
    the answers came, into ``out``."""
    os.nice(19)  # the askers' own CPU must not be what slows the server down
    answers: Counter[str] = Counter()
    socks, decoders = [], []
    for number in range(CONNECTIONS):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
        hello: dict[str, Any] = {**HELLO, "name": f"asker{number}"}
        if keyed:
            hello["player_key"] = f"bench-asker-key-{address}-{number}"
        sock.sendall(frame(hello))
        sock.sendall(frame({"type": "watch", "id": 2, "table": table}))
        sock.setblocking(False)
        socks.append(sock)
        decoders.append(Decoder())
    frames = asks(request, *shape)
    turn = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        turn += 1
        ask = frames[turn % len(frames)]
        for sock, decoder in zip(socks, decoders, strict=True):
            try:
                while data := sock.recv(1 << 16):
                    for msg in decoder.feed(data):
                        if msg.get("id") == 3:
                            answers[str(msg.get("code", msg["type"]))] += 1
            except (BlockingIOError, OSError):
                pass
            try:
                sock.send(ask)
            except OSError:
                answers["send failed"] += 1
        time.sleep(1 / ASKS_PER_SECOND)
    for sock in socks:
        sock.close()
    out.put(dict(answers))


async def run_askers(
    served: Served, victim: Victim, workers: list[Any], out: Any, seconds: float
) -> tuple[list[float], float, Counter[str]]:
    """Start the asking ``workers`` and, once they ask, ping for ``seconds``: the victim's
    ping times, the server's CPU share meanwhile, and the answers the workers counted (each
    puts its counts into ``out``)."""
    for worker in workers:
        worker.start()
    await asyncio.sleep(1.0)  # connected and asking
    cpu = served.cpu_seconds()
    start = time.monotonic()
    times = await victim.pings(seconds)
    used = (served.cpu_seconds() - cpu) / (time.monotonic() - start)
    answers: Counter[str] = Counter()
    for _ in workers:
        answers.update(await asyncio.to_thread(out.get, True, 60))
    for worker in workers:
        worker.join(10)
    return times, used, answers


def local_asker(path: str, ask: bytes, seconds: float, out: Any) -> None:
    """Connect, hello, ``ask``, its reply, close, on the Unix socket ``path``, again and again
    for ``seconds``; how the answers came, into ``out``."""
    os.nice(19)
    answers: Counter[str] = Counter()
    hello = frame({**HELLO, "name": "doors"})
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(5)
                sock.connect(path)
                sock.sendall(hello + ask)
                decoder = Decoder()
                answered = False
                while not answered:
                    data = sock.recv(1 << 16)
                    if not data:
                        answers["closed unanswered"] += 1
                        break
                    for msg in decoder.feed(data):
                        if msg.get("id") == 3:
                            answers[str(msg.get("code", msg["type"]))] += 1
                            answered = True
        except OSError as exc:
            answers[type(exc).__name__] += 1
    out.put(dict(answers))


def db_mb(db: Path) -> float:
    """The database's size with its write-ahead log, in MB."""
    paths = [db, db.with_name(db.name + "-wal")]
    return sum(path.stat().st_size for path in paths if path.exists()) / 1e6


async def measure_local(
    served: Served, victim: Victim, path: str, request: str, token: str, seconds: float
) -> None:
    """``request`` asked on the local socket by :data:`LOCAL_ASKERS` connect-ask-close loops:
    the victim's pings, the server's CPU, the answers and the database's size."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    ask = frame(door_request(request, token))
    workers = [
        context.Process(target=local_asker, args=(path, ask, seconds + 1.0, out), daemon=True)
        for _ in range(LOCAL_ASKERS)
    ]
    size = db_mb(served.db)
    times, used, answers = await run_askers(served, victim, workers, out, seconds)
    label = f"{request} local"
    print(f"  {label:<12} victim ping: {benchlib.summary(times)}   server CPU {used:5.0%}")
    print(f"               answers: {dict(sorted(answers.items()))}")
    print(f"               database {size:.2f} -> {db_mb(served.db):.2f} MB (with its log)")
    total = sum(answers.values())
    if total:
        per = used * seconds / (total * seconds / (seconds + 1.0))
        print(
            f"               {total / (seconds + 1.0):.0f} asks a second; server CPU per ask"
            f" (connect, hello, request, close): {per * 1e3:.2f} ms"
        )


async def seated_holder(port: int) -> tuple[Victim, str]:
    """A player with :data:`HOLDER_KEY` seated at a table of its own (from 127.0.0.8): the
    connection, kept open, and its seat token."""
    holder = await Victim.open(port, "127.0.0.8")
    hello = {"version": 1, "client": "bench-attack/1", "name": "Holder"}
    await holder.request("hello", **hello, player_key=HOLDER_KEY)
    token = str((await holder.request("create_table", name="the holder's table"))["token"])
    holder.keep_alive()
    return holder, token


async def measure(
    served: Served,
    victim: Victim,
    table: str,
    request: str,
    seconds: float,
    shape: tuple[int, int] = (1, 1),
    keyed: bool = False,
) -> None:
    """One scenario: the victim's pings and the server's CPU while the askers ask."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    workers = [
        context.Process(
            target=asker,
            args=(
                served.port,
                table,
                request,
                seconds + 1.0,
                f"{ASKER_NET}{n}",
                out,
                shape,
                keyed,
            ),
            daemon=True,
        )
        for n in (1, 2)
    ]
    times, used, answers = await run_askers(served, victim, workers, out, seconds)
    print(f"  {request:<12} victim ping: {benchlib.summary(times)}   server CPU {used:5.0%}")
    print(f"               answers: {dict(sorted(answers.items()))}")
    if answers["ok"]:
        # The answers span the second of asking before the measure too.
        per = used * seconds / (answers["ok"] * seconds / (seconds + 1.0))
        print(f"               server CPU per answer: {per * 1e3:.2f} ms")


async def run(args: argparse.Namespace) -> None:
    """Build the history, then every scenario against one server."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.source).resolve()
        no_pauses = ["--hand-pause", "0", "--trick-pause", "0"]
        path = str(Path(tmp) / "run" / "server.sock")
        local = ["--local-socket", path] if args.local else []
        served = Served(source, Path(tmp) / "requests.db", no_pauses + local)
        try:
            started = time.monotonic()
            table = await played_table(served.port, args.hands, args.matches)
            hosts = await open_tables(served.port, args.tables)
            victim, _ = await victim_at_own_table(served.port)
            print(
                f"server from {args.source} on port {served.port}: {args.matches}"
                f" {args.hands}-hand matches played and {args.tables} tables opened in"
                f" {time.monotonic() - started:.1f} s;"
                f" 2 addresses x {CONNECTIONS} connections x {ASKS_PER_SECOND:g}/s each"
            )
            times = await victim.pings(args.seconds)
            print(f"  {'quiet':<12} victim ping: {benchlib.summary(times)}")
            for request in args.only or REQUESTS:
                shape = (args.matches, args.hands)
                await measure(served, victim, table, request, args.seconds, shape, args.keyed)
            if args.local:
                holder, token = await seated_holder(served.port)
                for request in args.only or REQUESTS:
                    if request.startswith("door_"):
                        await measure_local(served, victim, path, request, token, args.seconds)
                await holder.close()
            for host in hosts:
                await host.close()
            await victim.close()
        finally:
            served.stop()


def main() -> None:
    """Parse the arguments and run."""
    parser = attack_arguments(__doc__, seconds=8.0)
    parser.add_argument("--hands", type=int, default=20, help="hands of the played match")
    parser.add_argument("--tables", type=int, default=120, help="waiting tables opened")
    parser.add_argument(
        "--matches", type=int, default=3, help="matches played at the table (rematches + 1)"
    )
    parser.add_argument(
        "--only", action="append", choices=REQUESTS, help="run only this scenario (repeatable)"
    )
    parser.add_argument(
        "--keyed", action="store_true", help="the askers say hello with a player key each"
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="serve --local-socket too, and ask door_seat and door_player there (see above)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
