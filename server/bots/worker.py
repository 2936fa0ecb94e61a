"""A bot worker process: decisions in on stdin, chosen actions out on stdout.

:class:`server.bots.pool.BotPool` starts it as ``python -m server.bots.worker [module ...]`` (each
module is imported first, so that its ``register`` calls add strategies). It stays an
interpreted module (not in setup.py's COMPILED_MODULES): it is the entry point of a process.

Both directions are frames of the wire protocol's shape (a 4-byte big-endian length, then one
msgpack map):

- out, once, when the strategies are imported: ``{"ready": pid}``;
- in, one decision: ``{"id", "strategy", "seed", "view", "legal", "think_time"}``;
- out, its answer: ``{"id", "action": map}``, or ``{"id", "error": "Type: message"}`` when the
  strategy raised (the worker carries on);
- in, a coach's hint (:mod:`engine.bots.coach`): the same map with ``"hint": true`` (no
  ``strategy``; with ``played``, the action taken, for a review); out, ``{"id", "action": map}``
  where the map is the coach's answer.

Each decision builds its strategy afresh from ``strategy`` and ``seed``: the built-in strategies
keep nothing between decisions but their random generator, so a fresh seed per decision is as
good as one generator per seat, and any worker can take any table's decision (a killed worker
loses nothing). The worker runs at a lower priority than the server (``WORKER_NICE``), exits at
the end of its input, and exits on its own when the server process is gone.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, BinaryIO

import msgpack

from engine.bots.base import Strategy
from protocol.framing import HEADER_SIZE, encode

WORKER_NICE = 5
"""Added to the worker's nice value: when the cores are busy, the event loop that answers every
client goes first, and bot thinking takes what is left."""

MAX_MESSAGE = 1 << 20
"""Largest frame either side sends (a view and its legal list are a few KiB)."""

ORPHAN_CHECK = 1.0
"""Seconds between two looks at whether the server is still there."""


def decide(request: Mapping[str, Any]) -> dict[str, Any]:
    """The strategy's choice for one decision request (raises whatever the strategy raises);
    for a hint request (``"hint": true``), the coach's answer instead."""
    if request.get("hint"):
        return hint(request)
    strategy = strategy_for(request)
    return dict(strategy.choose(request["view"], request["legal"]))


def hint(request: Mapping[str, Any]) -> dict[str, Any]:
    """The coach's two best choices for a hint request's view, within its ``think_time``."""
    from engine.bots.coach import hint as coach_hint

    think_time = request.get("think_time")
    return coach_hint(
        request["view"],
        request["legal"],
        seed=request.get("seed"),
        clock=None if think_time is None else time.monotonic,
        think_time=None if think_time is None else float(think_time),
        played=request.get("played"),
    )


def strategy_for(request: Mapping[str, Any]) -> Strategy:
    """The strategy a decision request names, built afresh with its seed; a thinking one
    (search) gets the worker's clock and the request's ``think_time``: a soft limit inside
    the strategy, which stops sampling and answers with what it has. The pool's hard budget
    (the worker is killed) is the backstop for every strategy."""
    from engine.bots import make_strategy

    think_time = request.get("think_time")
    return make_strategy(
        str(request["strategy"]),
        seed=request.get("seed"),
        clock=None if think_time is None else time.monotonic,
        think_time=None if think_time is None else float(think_time),
    )


def _read(stream: BinaryIO, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _watch_parent(parent: int) -> None:
    # A strategy that never returns never reads stdin again, so the end of input cannot stop
    # it: when the server is gone (killed), the worker goes too.
    while True:
        time.sleep(ORPHAN_CHECK)
        if os.getppid() != parent:
            os._exit(0)


def serve(modules: list[str]) -> int:
    """Answer decisions until stdin ends; returns the exit status."""
    # stdout carries frames: whatever a strategy prints goes to stderr instead.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    # Ctrl-C at the server's terminal reaches its whole process group: the server stops the
    # workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    import engine.bots  # noqa: F401  (registers the built-in strategies)

    for module in modules:
        importlib.import_module(module)
    out.write(encode({"ready": os.getpid()}, max_frame=MAX_MESSAGE))
    out.flush()
    while True:
        header = _read(stdin, HEADER_SIZE)
        if header is None:
            return 0
        body = _read(stdin, int.from_bytes(header, "big"))
        if body is None:
            return 0
        request = msgpack.unpackb(body, raw=False)
        reply: dict[str, Any] = {"id": request.get("id")}
        try:
            reply["action"] = decide(request)
            frame = encode(reply, max_frame=MAX_MESSAGE)
        except Exception as exc:
            reply.pop("action", None)
            reply["error"] = f"{type(exc).__name__}: {exc}"[:500]
            frame = encode(reply, max_frame=MAX_MESSAGE)
        out.write(frame)
        out.flush()


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
