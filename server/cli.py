"""``sheepshead serve``: run a server for others to join.

By default it listens on 127.0.0.1 only; ``--host 0.0.0.0`` opens it to the network, and the
startup message then lists this machine's addresses that players can join. The database keeps
every table, seat and score, so a restart (even after a crash) picks up where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import socket
import sqlite3
import sys
from pathlib import Path

HELP = "run a server for others to join"

DEFAULT_PORT = 7453


def default_db_path() -> Path:
    """``platformdirs.user_data_dir("sheepshead")/sheepshead.db``."""
    import platformdirs

    return Path(platformdirs.user_data_dir("sheepshead")) / "sheepshead.db"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``serve``'s arguments."""
    parser.epilog = (
        "Hosting hundreds of tables? The compiled build (make compiled, then "
        "PYTHONPATH=build/compiled) takes less CPU per action: README.md, 'Many tables'."
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; "
        "0.0.0.0 lets other machines join)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"TCP port to listen on (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        help=f"SQLite database file for tables, seats and scores (default {default_db_path()})",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="how much to log on stderr (default info: one line per connection and per hand)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="how long server bots wait before acting, so people can follow (default 0.6)",
    )
    parser.add_argument(
        "--bot-think-time",
        type=_think_time,
        default=0.5,
        metavar="SECONDS",
        help="most time a thinking bot (search) spends on one decision (default 0.5)",
    )
    parser.add_argument(
        "--hand-pause",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="pause between the end of a hand and the next deal (default 2)",
    )


def _think_time(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 60 seconds")
    return value


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other machines could reach (no traffic is sent)."""
    found: list[str] = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    # Connecting a UDP socket only picks the route and source address; nothing is sent.
    # 192.0.2.1 is TEST-NET-1, reserved for documentation.
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))
        found.append(str(s.getsockname()[0]))
    out: list[str] = []
    for address in found:
        if not address.startswith("127.") and address != "0.0.0.0" and address not in out:
            out.append(address)
    return out


def code_build() -> str:
    """Which build of the server's hot path runs: ``compiled`` (mypyc, ``make compiled`` put
    first on ``PYTHONPATH``) or ``pure Python``."""
    import server.table

    return "compiled" if (server.table.__file__ or "").endswith(".so") else "pure Python"


def startup_message(host: str, port: int, db: str, build: str = "pure Python") -> str:
    """What ``serve`` prints once it listens; ``build`` is :func:`code_build`'s answer."""
    lines = [
        f"sheepshead server listening on {host}:{port}",
        f"database: {db}",
        f"server code: {build}",
    ]
    if host in ("0.0.0.0", "", "::"):
        addresses = lan_addresses()
        if addresses:
            lines.append("players join with one of:")
            lines += [f"  sheepshead join {a}:{port}" for a in addresses]
        else:
            lines.append(f"players join with: sheepshead join <this machine's address>:{port}")
        lines.append(f"on this machine: sheepshead join 127.0.0.1:{port}")
    else:
        lines.append(f"players join with: sheepshead join {host}:{port}")
    lines.append("press Ctrl+C to stop")
    return "\n".join(lines)


async def _serve(args: argparse.Namespace) -> int:
    from server.app import Server, ServerConfig

    db = Path(args.db) if args.db else default_db_path()
    config = ServerConfig(
        host=args.host,
        port=args.port,
        db_path=db,
        bot_delay=args.bot_delay,
        bot_think_time=args.bot_think_time,
        hand_pause=args.hand_pause,
    )
    server = Server(config)
    try:
        await server.start()
    except sqlite3.Error as exc:
        print(f"sheepshead serve: cannot use the database {db}: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # a database from a newer version
        print(f"sheepshead serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"sheepshead serve: cannot start on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(startup_message(args.host, server.port, str(db), code_build()), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("server stopped", flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM."""
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    if args.port < 0 or args.port > 65535:
        print("sheepshead serve: --port must be 0-65535", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 130
