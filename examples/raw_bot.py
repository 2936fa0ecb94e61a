"""A complete sheepshead bot in one file: the standard library plus ``msgpack``, nothing else.

It is written from PROTOCOL.md alone, as documentation by example for bot authors in any language:
frames, hello, creating or joining a table, and answering every prompt with a random legal action.

    python examples/raw_bot.py --create --hands 3            # a new table with four server bots
    python examples/raw_bot.py --table t7 127.0.0.1 7453     # take a free seat at table t7

It prints one line per hand and the final totals, and exits 0 when the match is over.
"""

from __future__ import annotations

import argparse
import random
import socket
import struct
import sys
from typing import Any

import msgpack


class RawBot:
    """One connection to the server, spoken in raw frames."""

    def __init__(self, host: str, port: int) -> None:
        # The server pings us after 30 s of silence from our side, so two minutes without a
        # single frame means it is gone.
        self.sock = socket.create_connection((host, port), timeout=120)
        self.next_id = 0
        self.action_ids: set[int] = set()  # ids of our action requests, to spot their errors
        self.finished = False

    # PROTOCOL.md §1: a frame is a 4-byte big-endian length, then one msgpack map.
    def send(self, message: dict[str, Any]) -> None:
        """Write one message as one frame."""
        body = msgpack.packb(message, use_bin_type=True)
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def recv(self) -> dict[str, Any]:
        """Read one whole frame and decode it (the socket may deliver it in pieces)."""
        (length,) = struct.unpack(">I", self._exactly(4))
        message: dict[str, Any] = msgpack.unpackb(self._exactly(length), raw=False)
        return message

    def _exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            try:
                chunk = self.sock.recv(count - len(data))
            except TimeoutError:
                sys.exit("no word from the server for two minutes")
            if not chunk:
                sys.exit("the server closed the connection")
            data += chunk
        return data

    # §2: a request carries an id; the server answers it with exactly one ok/error (welcome for
    # hello). Events may come before that reply, so handle them while we wait: never drop one.
    def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """Send a request and return its reply; a refusal ends the program."""
        self.next_id += 1
        self.send({"type": type, "id": self.next_id, **fields})
        while True:
            message = self.recv()
            if message.get("id") == self.next_id and message["type"] in ("ok", "error", "welcome"):
                if message["type"] == "error":
                    sys.exit(f"{type} refused: {message['code']}: {message['message']}")
                return message
            self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        """React to one message that is not the reply we are waiting for."""
        kind = message["type"]
        if kind == "your_turn":
            # §4, §5: answer with any element of legal, verbatim, quoting the prompt's seq.
            # No reply is awaited here: the accepted action shows up as a state event.
            self.next_id += 1
            self.action_ids.add(self.next_id)
            choice = random.choice(message["legal"])
            action = {"type": "action", "id": self.next_id, "seq": message["seq"], "action": choice}
            self.send(action)
        elif kind == "hand_over":
            result = message["result"]  # §7.1; hands are numbered from 0 on the wire
            print(
                f"hand {message['hand'] + 1}: {result['outcome_text']}; "
                f"payouts {result['payouts']}; totals {message['totals']}",
                flush=True,
            )
        elif kind == "match_over":
            print(
                f"match over after {message['hands']} hands: totals {message['totals']}", flush=True
            )
            self.finished = True
        elif kind == "ping":
            self.send({"type": "pong"})  # §9: any frame keeps us alive; pong is the polite one
        elif kind == "error":
            # A refused action is harmless: `stale` means a newer prompt is on its way.
            if message.get("id") in self.action_ids and message["code"] == "stale":
                return
            print(f"server error: {message['code']}: {message['message']}", file=sys.stderr)
        elif kind == "notice" and message["code"] in ("table_closed", "replaced"):
            sys.exit(f"stopped: {message['text']}")
        # ok replies to our actions, state, chat and other notices need nothing from a random bot.

    def play(self) -> None:
        """Handle messages until the match is over."""
        while not self.finished:
            self.handle(self.recv())


def main() -> int:
    """Read the command line and play."""
    parser = argparse.ArgumentParser(description="A random sheepshead bot speaking raw frames.")
    parser.add_argument("host", nargs="?", default="127.0.0.1", help="server address")
    parser.add_argument("port", nargs="?", type=int, default=7453, help="server port")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", help="join this table (first free seat)")
    where.add_argument("--create", action="store_true", help="create a table with 4 server bots")
    parser.add_argument("--hands", type=int, default=3, help="hands to play with --create")
    parser.add_argument(
        "--preset",
        default=None,
        help="rules preset with --create, e.g. tavern (cracking and blitzing); "
        "default: the server's",
    )
    parser.add_argument("--name", default="Raw bot", help="display name")
    args = parser.parse_args()
    try:
        run(args)
    except OSError as exc:  # refused, reset, unreachable...
        sys.exit(f"connection to {args.host}:{args.port} failed: {exc}")
    return 0


def run(args: argparse.Namespace) -> None:
    """Connect, sit down, play the match."""
    bot = RawBot(args.host, args.port)
    # §3: hello must be the first frame. kind "bot" tells people a program plays this seat.
    welcome = bot.request("hello", version=1, client="raw_bot/1", kind="bot", name=args.name)
    print(f"connected to {welcome['server']} as {welcome['name']}")
    if args.create:
        # We are seated at seat 0 and are the host; only the host may add bots and start.
        table: dict[str, Any] = {"name": f"{welcome['name']}'s table", "hands": args.hands}
        if args.preset is not None:
            table["preset"] = args.preset
        reply = bot.request("create_table", **table)
        for _ in range(4):
            bot.request("add_bot", seat=None, strategy=None)  # first free seat, server's default
        bot.request("start")
    else:
        reply = bot.request("join", table=args.table, seat=None)
    # reply["token"] would take the seat back after a dropped connection (hello with token);
    # this simple bot just stops if the connection drops.
    print(f"seated at table {reply['table']}, seat {reply['seat']}", flush=True)
    bot.play()
    bot.request("leave")  # stand up politely; closing the socket would do too


if __name__ == "__main__":
    sys.exit(main())
