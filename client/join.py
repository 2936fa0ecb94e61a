"""``sheepshead join HOST[:PORT]`` opens a server's lobby; ``sheepshead watch`` spectates.

The seat token of every table you join is kept in your config directory (``TokenStore``), so
running the same ``join`` after a crash or a dropped SSH session takes your seat back.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from typing import TYPE_CHECKING

from client import config, settings

if TYPE_CHECKING:
    from client.session import Session

HELP = "connect to a server and open the lobby"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add the arguments of ``join`` or ``watch``."""
    parser.add_argument(
        "address",
        metavar="HOST[:PORT]",
        help=f"the server to connect to (default port {config.DEFAULT_PORT})",
    )
    parser.add_argument(
        "--name",
        default=None,
        help=f"your display name, at most {config.MAX_NAME} characters (default: your login)",
    )
    settings.add_arguments(parser)
    if command == "watch":
        parser.add_argument(
            "--table",
            metavar="ID",
            default=None,
            help="the id of the table to watch (default: choose it in the lobby)",
        )


def fail(message: str) -> int:
    """Print an error for people (never a traceback) and return the exit status."""
    print(f"sheepshead: {message}", file=sys.stderr)
    return 1


def run(args: argparse.Namespace) -> int:
    """Connect, then run the client until the user quits."""
    try:
        host, port = config.parse_address(args.address)
    except config.AddressError as exc:
        print(f"sheepshead: {exc}", file=sys.stderr)
        return 2
    name = (args.name or config.default_name()).strip()
    if not name or len(name) > config.MAX_NAME:
        print(f"sheepshead: --name must be 1 to {config.MAX_NAME} characters", file=sys.stderr)
        return 2
    command = getattr(args, "command", "join")
    table = getattr(args, "table", None) if command == "watch" else None
    mode = "watch" if command == "watch" else "join"
    return asyncio.run(_main(host, port, name, mode, table, settings.from_arguments(args)))


async def connect(host: str, port: int, name: str) -> tuple[Session | None, str | None]:
    """A connected session, or None and the reason it could not connect."""
    from client.session import ServerError, Session, TokenStore

    session: Session = Session(
        host,
        port,
        name=name,
        kind="human",
        client_name=config.CLIENT_NAME,
        token_store=TokenStore.default(),
        reconnect=True,
    )
    try:
        await asyncio.wait_for(session.connect(), 15)
    except ServerError as exc:
        await session.close()
        return None, f"{host}:{port} refused the connection: {exc.message} ({exc.code})"
    except (OSError, TimeoutError) as exc:
        await session.close()
        return None, f"cannot reach {host}:{port}: {_reason(exc)}"
    return session, None


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in words."""
    if isinstance(exc, socket.gaierror):
        return "no such host (check the name)"
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        return "connection refused (is `sheepshead serve` running there, on that port?)"
    if isinstance(exc, TimeoutError):
        return "no answer (a firewall, or the wrong address?)"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


async def _main(
    host: str,
    port: int,
    name: str,
    mode: str,
    table: str | None,
    client_settings: settings.ClientSettings | None = None,
) -> int:
    from client.app import SheepsheadApp

    session, error = await connect(host, port, name)
    if session is None:
        return fail(error or "cannot connect")
    app = SheepsheadApp(
        session,
        mode="watch" if mode == "watch" else "join",
        watch_table=table,
        settings=client_settings,
    )
    try:
        await app.run_async()
    finally:
        await session.close()
    return app.return_code or 0
