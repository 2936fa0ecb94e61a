"""``sheepshead join HOST[:PORT]`` opens a server's lobby; ``sheepshead watch`` spectates.

Without an address, both look for servers on the LAN for two seconds (``client.discover``) and
show what answered in a picker (``client.screens.servers``).

The seat token of every table you join is kept in your config directory (``TokenStore``), so
running the same ``join`` after a crash or a dropped SSH session takes your seat back.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
        nargs="?",
        default=None,
        help=f"the server to connect to (default port {config.DEFAULT_PORT}); without it, "
        "look for servers on this network and choose one",
    )
    config.add_name_argument(parser)
    parser.add_argument(
        "--socket",
        metavar="PATH",
        default=None,
        help="dial this Unix socket of the server instead of HOST:PORT (the server's SSH and "
        "browser doors start the client this way)",
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
    name = config.name_or_status(args.name)
    if isinstance(name, int):
        return name
    if args.address is None:
        picked = pick_server()
        if isinstance(picked, int):
            return picked
        host, port = picked
    else:
        try:
            host, port = config.parse_address(args.address)
        except config.AddressError as exc:
            print(f"sheepshead: {exc}", file=sys.stderr)
            return 2
    command = getattr(args, "command", "join")
    table = getattr(args, "table", None) if command == "watch" else None
    mode = "watch" if command == "watch" else "join"
    return asyncio.run(
        _main(
            host,
            port,
            name,
            mode,
            table,
            settings.from_arguments(args),
            local_socket=getattr(args, "socket", None),
        )
    )


def pick_server() -> tuple[str, int] | int:
    """Browse the LAN and let the user choose: the server's address, or an exit status."""
    from client.discover import BROWSE_SECONDS, NONE_FOUND, browse

    print(f"looking for sheepshead servers on this network ({BROWSE_SECONDS:g} s)...", flush=True)
    try:
        servers = asyncio.run(browse())
    except OSError as exc:
        return fail(f"cannot look for servers here ({exc}); give the address: join HOST[:PORT]")
    if not servers:
        return fail(NONE_FOUND)
    from client.screens.servers import PickerApp

    chosen = PickerApp(servers).run()
    if chosen is None:
        return 0
    return chosen.address, chosen.port


async def connect(
    host: str, port: int, name: str, local_socket: str | None = None
) -> tuple[Session | None, str | None]:
    """A connected session, or None and the reason it could not connect."""
    from client.session import ConnectionLost, ServerError, Session, TokenStore

    session: Session = Session(
        host,
        port,
        name=name,
        kind="human",
        client_name=config.CLIENT_NAME,
        token_store=TokenStore.default(),
        reconnect=True,
        player_key=config.player_key(),
        local_socket=local_socket,
    )
    try:
        await asyncio.wait_for(session.connect(), 15)
    except ConnectionLost as exc:  # before ServerError: it is one, but no refusal
        await session.close()
        return None, f"cannot reach {config.format_address(host, port)}: {connect_failure(exc)}"
    except ServerError as exc:
        await session.close()
        where = config.format_address(host, port)
        return None, f"{where} refused the connection: {exc.in_words()}"
    except (OSError, TimeoutError) as exc:
        await session.close()
        return None, f"cannot reach {config.format_address(host, port)}: {connect_failure(exc)}"
    return session, None


def connect_failure(exc: BaseException) -> str:
    """Why a connection failed, in words (``join``, ``watch`` and ``bot`` say it alike)."""
    if isinstance(exc, socket.gaierror):
        return "no such host (check the name)"
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        return "connection refused (is `sheepshead serve` running there, on that port?)"
    from client.session import ConnectionLost

    if isinstance(exc, ConnectionLost):  # an answer that is no server's hello (HTTP, say)
        return "what answers there is not a sheepshead server (the wrong port?)"
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
    local_socket: str | None = None,
) -> int:
    from client.app import SheepsheadApp
    from client.session import DOOR_LOBBY_ONLY_ENV

    session, error = await connect(host, port, name, local_socket)
    if session is None:
        return fail(error or "cannot connect")
    app = SheepsheadApp(
        session,
        mode="watch" if mode == "watch" else "join",
        watch_table=table,
        settings=client_settings,
        door=local_socket is not None,  # only the server's doors dial its Unix socket
        take_back=os.environ.get(DOOR_LOBBY_ONLY_ENV) != "1",
    )
    try:
        await app.run_async()
    finally:
        await session.close()
    return app.return_code or 0
