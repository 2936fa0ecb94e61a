"""Record one client's side of a whole hand against a real server: ``python -m server.transcript``.

This is how the annotated transcript in PROTOCOL.md is made. An in-process server runs on
127.0.0.1; a bare client (asyncio streams and the real codec, nothing else) says hello, opens a
table, seats four server bots, starts a one-hand match and answers every prompt (it picks when
it may, otherwise takes the first legal action). Every frame is printed as one JSON line, ``>``
for what the client sent and ``<`` for what it received. Runs are retried until the client
picks, so the transcript shows a bury and a call.

With ``--abridge``, repeated parts are shortened so the transcript fits in a document: after the
first full ``state``, ``info`` and ``view`` keep only the fields that changed since the previous
state (``seats`` lists only the seats that changed; the server itself leaves ``info`` out when the
summary did not change), and ``legal`` lists longer than six are cut to three entries and a count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from protocol.framing import FrameDecoder, FrameError, encode
from server.app import Server, ServerConfig


async def _record() -> list[tuple[str, dict[str, Any]]]:
    server = Server(
        ServerConfig(
            port=0,
            hand_pause=0.0,
            trick_pause=0.0,
            bot_delay=0.0,
            default_bot="random",
            seed_wait=0.0,
        )
    )
    await server.start()
    lines: list[tuple[str, dict[str, Any]]] = []
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    decoder = FrameDecoder()
    inbox: list[dict[str, Any]] = []
    next_id = 0

    async def send(msg: dict[str, Any]) -> None:
        nonlocal next_id
        next_id += 1
        msg = {"type": msg.pop("type"), "id": next_id, **msg}
        lines.append((">", msg))
        writer.write(encode(msg))
        await writer.drain()

    async def recv() -> dict[str, Any]:
        while not inbox:
            data = await asyncio.wait_for(reader.read(65536), 10)
            if not data:
                raise EOFError
            for item in decoder.feed(data):
                if isinstance(item, FrameError):
                    raise RuntimeError(item)
                inbox.append(item)
        msg = inbox.pop(0)
        lines.append(("<", msg))
        return msg

    async def until(kind: str) -> dict[str, Any]:
        while True:
            msg = await recv()
            if msg["type"] == kind:
                return msg

    try:
        await send(
            {
                "type": "hello",
                "version": 1,
                "client": "transcript/1",
                "kind": "human",
                "name": "Ann",
            }
        )
        await until("welcome")
        await send(
            {
                "type": "create_table",
                "name": "Demo",
                "preset": "seed",
                "options": {},
                "hands": 1,
                "password": None,
                "turn_timer": None,
            }
        )
        await until("ok")
        await until("state")
        for _ in range(4):
            await send({"type": "add_bot", "seat": None, "strategy": "random"})
            await until("ok")
            await until("state")
        await send({"type": "start"})
        while True:
            msg = await recv()
            if msg["type"] == "match_over":
                break
            if msg["type"] == "your_turn":
                legal = msg["legal"]
                choice = {"action": "pick"} if {"action": "pick"} in legal else legal[0]
                await send({"type": "action", "seq": msg["seq"], "action": choice})
        await send({"type": "leave"})
        await until("ok")
    finally:
        writer.close()
        await server.stop()
    return lines


def _picked(lines: list[tuple[str, dict[str, Any]]]) -> bool:
    return any(d == ">" and m.get("action") == {"action": "pick"} for d, m in lines)


def _short_list(value: Any) -> Any:
    if isinstance(value, list) and len(value) > 6:
        return [*value[:3], f"... {len(value) - 3} more"]
    return value


def _changed(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in new.items():
        before = old.get(key)
        if before == value:
            continue
        if key == "seats" and isinstance(before, list):
            value = [s for s in value if s not in before]  # only the seats that changed
        out[key] = _short_list(value) if key == "legal" else value
    return out


def abridge(lines: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Shorten repeated state contents (see the module docstring)."""
    out: list[tuple[str, dict[str, Any]]] = []
    last_info: dict[str, Any] | None = None
    last_view: dict[str, Any] | None = None
    for direction, msg in lines:
        if msg.get("type") == "state":
            info, view = msg.get("info"), msg.get("view")
            short = dict(msg)
            if info is None:
                info = last_info  # the server leaves out a summary the client already has
            elif last_info is not None:
                short["info"] = _changed(info, last_info)
            if view is not None and last_view is not None:
                short["view"] = _changed(view, last_view)
            elif view is not None:
                short["view"] = {**view, "legal": _short_list(view["legal"])}
            last_info, last_view = info, view
            msg = short
        elif msg.get("type") == "your_turn":
            msg = {**msg, "legal": _short_list(msg["legal"])}
        out.append((direction, msg))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print a transcript as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abridge", action="store_true", help="shorten repeated state contents")
    parser.add_argument("--tries", type=int, default=50, help="runs to try for one where Ann picks")
    args = parser.parse_args(argv)
    lines: list[tuple[str, dict[str, Any]]] = []
    for _ in range(args.tries):
        lines = asyncio.run(_record())
        if _picked(lines):
            break
    if args.abridge:
        lines = abridge(lines)
    for direction, msg in lines:
        print(direction, json.dumps(msg, separators=(", ", ": ")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
