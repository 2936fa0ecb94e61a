"""Benchmark: a fresh player key per connection, each taking a seat, from one address, and
what it stores (the ``identities`` rows; ``new_identity_rate`` / ``new_identity_burst``).

Run by hand (nothing is asserted)::

    .venv/bin/python bench/attack_keys.py [--seconds 10] [--source TREE]

A real ``sheepshead serve`` (``bench/attack.py``'s :class:`Served`) from ``--source``. A host
from one address opens a table; from another, a loop connects, says hello with a new player
key, joins that table, leaves and disconnects, as fast as the server lets it, for
``--seconds``, while a victim at a table of its own pings (in this process: the loop's
thread holds the interpreter lock at times, so a rare slow ping may be the bench's own).
Printed: how the joins ended, how many were told ``not_counted``, the ``identities`` rows
stored and the victim's round trips.
The server is then restarted on the same database (the allowance lives in memory) and the loop
runs again: the rows after the restart show what a restart gives back.
"""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import benchlib
from attack import (
    FLOOD_ADDRESS,
    HELLO,
    OTHER_ADDRESS,
    Decoder,
    Served,
    Victim,
    attack_arguments,
    frame,
    victim_at_own_table,
)


def key_loop(port: int, table: str, seconds: float, first: int) -> tuple[Counter[str], int]:
    """connect / hello with a new key / join ``table`` / leave / disconnect from
    :data:`FLOOD_ADDRESS` for ``seconds``: how each join ended, and the loops run."""
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    n = first
    while time.monotonic() < deadline:
        n += 1
        key = f"attack-key-{n:020d}"
        try:
            with socket.create_connection(
                ("127.0.0.1", port), timeout=5, source_address=(FLOOD_ADDRESS, 0)
            ) as sock:
                sock.sendall(frame({**HELLO, "name": f"k{n}", "player_key": key}))
                sock.sendall(frame({"type": "join", "id": 2, "table": table}))
                sock.sendall(frame({"type": "leave", "id": 3}))
                got = read_until(sock, 3)
        except OSError as exc:
            outcomes[type(exc).__name__] += 1
            continue
        join = next((m for m in got if m.get("id") == 2), None)
        outcomes["join " + (str(join.get("code", "ok")) if join else "no reply")] += 1
        if any(m.get("type") == "notice" and m.get("code") == "not_counted" for m in got):
            outcomes["told not_counted"] += 1
    return outcomes, n - first


def read_until(sock: socket.socket, last_id: int) -> list[dict[str, object]]:
    """Every message up to the reply with ``last_id`` (or the server's close)."""
    decoder = Decoder()
    got: list[dict[str, object]] = []
    while not any(m.get("id") == last_id and m.get("type") != "notice" for m in got):
        data = sock.recv(1 << 16)
        if not data:
            break
        got.extend(decoder.feed(data))
    return got


def identities(db: Path) -> int:
    """The ``identities`` rows stored (read on a connection of its own)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM identities").fetchone()[0])


async def one_run(served: Served, db: Path, seconds: float, first: int, label: str) -> int:
    """The loop against ``served`` with the victim pinging; prints a line, returns the loops."""
    victim, _ = await victim_at_own_table(served.port)
    host = await Victim.open(served.port, OTHER_ADDRESS)
    await host.request("hello", version=1, client="bench-attack/1", name="Host")
    table = str((await host.request("create_table", name="open to all"))["table"])
    before = identities(db)
    result: list[tuple[Counter[str], int]] = []
    thread = threading.Thread(
        target=lambda: result.append(key_loop(served.port, table, seconds, first))
    )
    cpu = served.cpu_seconds()
    start = time.monotonic()
    thread.start()
    times = await victim.pings(seconds)
    await asyncio.to_thread(thread.join)
    used = (served.cpu_seconds() - cpu) / (time.monotonic() - start)
    outcomes, loops = result[0]
    rows = identities(db) - before
    print(
        f"  {label}: {loops} loops in {seconds:g} s, {dict(outcomes)};"
        f" identities rows +{rows};"
        f" victim ping {benchlib.summary(times)}; server CPU {used:.0%}"
    )
    await host.close()
    await victim.close()
    return loops


async def main() -> None:
    """Run the loop, restart the server on the same database, run it again."""
    args = attack_arguments(__doc__ or "", 10.0).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "keys.db"
        served = Served(Path(args.source).resolve(), db)
        print(f"server from {args.source}, port {served.port}")
        try:
            loops = await one_run(served, db, args.seconds, 0, "new keys")
        finally:
            served.stop()
        served = Served(Path(args.source).resolve(), db)
        try:
            await one_run(served, db, args.seconds, loops, "after a restart")
        finally:
            served.stop()
        print(f"  identities rows in all: {identities(db)}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
