"""``sheepshead serve``: run a server for others to join.

By default it listens on 127.0.0.1 only; ``--host 0.0.0.0`` opens it to the network, and the
startup message then lists this machine's addresses that players can join. The database keeps
every table, seat and score, so a restart (even after a crash) picks up where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import math
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from client.settings import seconds_argument

if TYPE_CHECKING:
    from server.app import Server
    from server.config import ServerConfig
    from server.doors.host import Doors, RemoteServer
    from server.net.announce import Announcer

HELP = "run a server for others to join"

DEFAULT_PORT = 7453

BOT_DELAY_MAX: Final = 10.0
"""The longest ``--bot-delay`` (seconds), as ``play --bot-delay``: a bot slower than that
reads as a stuck table."""
HAND_PAUSE_MAX: Final = 60.0
"""The longest ``--hand-pause`` (seconds): ``--hand-pause 1e9`` started a server whose first
hand never ended."""
TRICK_PAUSE_MAX: Final = 30.0
"""The longest ``--trick-pause`` (seconds), the most a client's own ``--trick-pause`` takes."""


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
        "--sync",
        default="normal",
        choices=["normal", "full"],
        help="how hard every commit is pushed to the disk (SQLite synchronous): normal "
        "(default) survives the server being killed; full also survives a power cut or an "
        "operating system crash, at the price of an fsync per commit",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="how much to log on stderr (default info: one line per connection and per hand)",
    )
    parser.add_argument(
        "--bot-delay",
        type=seconds_argument(BOT_DELAY_MAX),
        default=0.6,
        metavar="SECONDS",
        help="how long server bots wait before acting, so people can follow (default 0.6; "
        f"0-{BOT_DELAY_MAX:g})",
    )
    parser.add_argument(
        "--name",
        default=None,
        help="the name this server announces on the LAN (default: this machine's host name)",
    )
    parser.add_argument(
        "--no-announce",
        action="store_true",
        help="do not announce this server on the LAN with mDNS (a server on 127.0.0.1 never does)",
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
        type=seconds_argument(HAND_PAUSE_MAX),
        default=2.0,
        metavar="SECONDS",
        help=f"pause between the end of a hand and the next deal (default 2; 0-{HAND_PAUSE_MAX:g})",
    )
    parser.add_argument(
        "--trick-pause",
        type=seconds_argument(TRICK_PAUSE_MAX),
        default=1.5,
        metavar="SECONDS",
        help="pause after a trick's last card before the next lead, so people see the trick"
        f" (default 1.5; 0 for bot-only servers; at most {TRICK_PAUSE_MAX:g})",
    )
    parser.add_argument(
        "--ssh",
        type=int,
        metavar="PORT",
        default=None,
        help="also open the SSH door on this port: players need only `ssh -p PORT NAME@HOST` "
        "(their SSH key is who they are; 0 picks a free port)",
    )
    parser.add_argument(
        "--ssh-keys",
        metavar="FILE",
        default=None,
        help="let only the keys of this authorized_keys file through the SSH door",
    )
    parser.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        default=None,
        help="also open the browser door on this port: players open http://HOST:PORT/ "
        "(no internet needed; 0 picks a free port)",
    )
    parser.add_argument(
        "--local-socket",
        metavar="PATH",
        default=None,
        help="also listen on this Unix socket (only this user may dial it; its directory is "
        "made 0700 if missing), for doors run in a process of their own: --server-socket",
    )
    parser.add_argument(
        "--server-socket",
        metavar="PATH",
        default=None,
        help="run only the doors (--ssh, --web; no game server here) for the server that "
        "listens on this Unix socket (serve --local-socket PATH): their players stay connected "
        "while that server restarts, and take their seats back once it is up. Give it the "
        "server's --db (the doors keep their host key and players' homes beside it), --port "
        "and --limit options",
    )
    parser.add_argument(
        "--bot-file",
        action="append",
        default=[],
        metavar="FILE",
        help="a strategy file (PATH.py[:key=value...], docs/bots.md) or an executable program "
        "(./mybot.js; docs/bots.md, 'A bot in any language') that server bots may play, under "
        "its strategy's name (repeatable)",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=None,
        metavar="N",
        help="processes in which server bots think (default: the core count minus one, at "
        "least 1; 0 runs them in a thread of the server, which slows every table while one "
        "thinks)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        type=parse_limit,
        metavar="NAME=VALUE",
        help="set one of the server's limits (repeatable): NAME is any numeric field of "
        "ServerConfig (server/config.py documents each and its default; README.md, 'Limits'), "
        "e.g. a club evening whose players all share one address: --limit "
        "door_sessions_per_address=24 --limit door_start_burst=30 --limit max_per_address=48; "
        "an unknown NAME lists them all",
    )


OWN_OPTIONS = {
    "port": "--port",
    "bot_delay": "--bot-delay",
    "bot_think_time": "--bot-think-time",
    "hand_pause": "--hand-pause",
    "trick_pause": "--trick-pause",
}
"""Numeric ``ServerConfig`` fields that ``serve`` sets with an option of their own, not with
``--limit``."""


def limit_names() -> dict[str, type]:
    """The ``ServerConfig`` fields ``--limit`` may set: every one that is a plain ``int`` or
    ``float`` (the limits, paces and sizes), but those with an option of their own
    (:data:`OWN_OPTIONS`); name -> its type."""
    from server.config import ServerConfig

    # The annotation is a string in the source, the class itself in the mypyc build.
    kinds: dict[object, type] = {"int": int, "float": float, int: int, float: float}
    return {
        field.name: kinds[field.type]
        for field in dataclasses.fields(ServerConfig)
        if field.type in kinds and field.name not in OWN_OPTIONS
    }


def parse_limit(text: str) -> tuple[str, int | float]:
    """``--limit NAME=VALUE``: the field's name and its value, or ``ArgumentTypeError`` saying
    what is wrong (an unknown name lists the valid ones).

    >>> parse_limit("door_sessions_per_address=20")
    ('door_sessions_per_address', 20)
    >>> parse_limit("door_start_rate=0.5")
    ('door_start_rate', 0.5)
    """
    name, equals, value = text.partition("=")
    name = name.strip().replace("-", "_")
    names = limit_names()
    if not equals:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    if name in OWN_OPTIONS:
        raise argparse.ArgumentTypeError(f"{name} has an option of its own: {OWN_OPTIONS[name]}")
    if name not in names:
        raise argparse.ArgumentTypeError(
            f"no limit named {name!r}; the names (server/config.py documents each): "
            + ", ".join(sorted(names))
        )
    kind = names[name]
    try:
        number = kind(value.strip())
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{name} must be {what}, not {value!r}") from None
    if not 0 <= number < math.inf:
        raise argparse.ArgumentTypeError(f"{name} must be 0 or more (and finite), not {value!r}")
    return name, number


def _think_time(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 60 seconds")
    return value


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other machines could reach, one per interface that has
    one: every interface's own address, read from the interfaces themselves (``ifaddr``, which
    zeroconf uses too), so a LAN with no uplink (a switch at a party, no default route, a host
    name that resolves to 127.0.1.1) still has its addresses. Loopback is left out."""
    import ifaddr

    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # an IPv6 address: the announcement is IPv4 only
            try:
                address = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            if address.is_loopback or address.is_unspecified or str(address) in out:
                continue
            out.append(str(address))
    return out


def code_build() -> str:
    """Which build of the server's hot path runs: ``compiled`` (mypyc, ``make compiled`` put
    first on ``PYTHONPATH``) or ``pure Python``."""
    import server.tables.table

    return "compiled" if (server.tables.table.__file__ or "").endswith(".so") else "pure Python"


def door_lines(
    host: str, ssh_port: int | None, fingerprint: str | None, web_port: int | None
) -> list[str]:
    """What ``serve`` prints about its open doors (after :func:`startup_message`'s lines)."""
    public = host in ("0.0.0.0", "", "::")
    hosts = (lan_addresses() or ["<this machine's address>"]) if public else [host]
    lines: list[str] = []
    if ssh_port is not None:
        lines.append(f"SSH door on port {ssh_port}; players connect with one of:")
        lines += [f"  ssh -p {ssh_port} NAME@{h}" for h in hosts]
        lines.append(f"  (host key fingerprint {fingerprint})")
    if web_port is not None:
        lines.append(f"browser door on port {web_port}; players open one of:")
        lines += [f"  http://{h}:{web_port}/" for h in hosts]
    return lines


def _open_door_lines(host: str, doors: Doors) -> list[str]:
    """:func:`door_lines` for the doors ``doors`` opened on ``host``."""
    return door_lines(
        host,
        doors.ssh.port if doors.ssh else None,
        doors.ssh.fingerprint if doors.ssh else None,
        doors.web.port if doors.web else None,
    )


async def _open_doors(
    args: argparse.Namespace, server: Server | RemoteServer, data_dir: Path
) -> Doors:
    """Open the doors ``--ssh``, ``--ssh-keys`` and ``--web`` ask for, for ``server`` (this
    process's, or the one ``--server-socket`` names), with their files in ``data_dir``: the
    one reading of those options for ``serve`` and ``serve --server-socket``. Raises OSError
    or ValueError as :meth:`server.doors.host.Doors.start` does (nothing stays open)."""
    from server.doors.host import Doors

    doors = Doors(
        server,
        data_dir,
        ssh_port=args.ssh,
        ssh_keys=Path(args.ssh_keys) if args.ssh_keys else None,
        web_port=args.web,
    )
    await doors.start(args.host)
    return doors


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


def server_config(args: argparse.Namespace, db: Path) -> ServerConfig:
    """The configuration ``serve``'s options ask for, on the database ``db`` (each
    ``--limit`` over its field's default; the last one given for a name wins)."""
    from server.config import ServerConfig

    return ServerConfig(
        host=args.host,
        port=args.port,
        db_path=db,
        bot_delay=args.bot_delay,
        bot_think_time=args.bot_think_time,
        hand_pause=args.hand_pause,
        trick_pause=args.trick_pause,
        db_synchronous=args.sync.upper(),
        bot_workers=args.bot_workers,
        bot_modules=args.bot_modules,
        **dict(args.limit),
    )


async def _serve(args: argparse.Namespace) -> int:
    from server.app import Server

    db = Path(args.db) if args.db else default_db_path()
    server = Server(server_config(args, db))
    try:
        await server.start()
    except sqlite3.Error as exc:
        print(f"sheepshead serve: cannot use the database {db}: {exc}", file=sys.stderr)
        return 1
    except RuntimeError as exc:  # a database from a newer version
        print(f"sheepshead serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"sheepshead serve: {start_failure(exc, args.host, args.port, db)}", file=sys.stderr)
        return 1
    if args.local_socket:
        try:
            await _open_local_socket(server, args.local_socket)
        except OSError as exc:
            await server.stop()
            print(f"sheepshead serve: cannot listen on {args.local_socket}: {exc}", file=sys.stderr)
            return 1
    try:
        doors = await _open_doors(args, server, db.parent)
    except (OSError, ValueError) as exc:
        await server.stop()
        print(
            f"sheepshead serve: cannot open the doors: {doors_failure(exc, args)}", file=sys.stderr
        )
        return 1
    message = startup_message(args.host, server.port, str(db), code_build()).splitlines()
    message[-1:-1] = _open_door_lines(args.host, doors)
    if args.local_socket:
        message[-1:-1] = [f"doors of their own dial: {args.local_socket}"]
    message[-1:-1] = _limit_lines(args)
    announcer, announced = await _announce(args, server)
    if announced:
        message[-1:-1] = [announced]
    try:
        await _until_stopped(message)
    finally:
        if announcer is not None:
            await announcer.stop()
        await doors.stop()
        await server.stop()
    print("server stopped", flush=True)
    return 0


def start_failure(exc: OSError, host: str, port: int, db: Path) -> str:
    """Why ``serve`` could not start, in words: the database's file or folder (an OSError
    naming a file), or the address (the port in use, an address not this machine's).

    >>> import errno
    >>> print(start_failure(OSError(errno.EADDRINUSE, "in use"), "127.0.0.1", 7453, Path("s")))
    cannot listen on 127.0.0.1:7453: the port is in use (another server? --port N, or 0: any)
    >>> start_failure(PermissionError(13, "Permission denied", "/srv"), "::", 1, Path("/srv/s.db"))
    'cannot use the database /srv/s.db: Permission denied: /srv'
    """
    if exc.filename is not None:  # opening the database or making its folder, not the bind
        return f"cannot use the database {db}: {exc.strerror}: {exc.filename}"
    return f"cannot listen on {host}:{port}: {bind_failure(exc, host)}"


def doors_failure(exc: OSError | ValueError, args: argparse.Namespace) -> str:
    """Why the doors did not open, in words: an ``--ssh-keys`` file that holds no key (said
    "No valid entries found", naming no file), or a port (said "[Errno 98] error while
    attempting to bind on address ...", naming neither door)."""
    if isinstance(exc, ValueError):
        if args.ssh_keys and isinstance(exc.__cause__, OSError):  # the file, not its keys
            return f"--ssh-keys {args.ssh_keys}: {exc.__cause__.strerror or exc.__cause__}"
        if args.ssh_keys:
            return (
                f"--ssh-keys {args.ssh_keys}: {exc} (an authorized_keys file: one public key "
                "a line, as ~/.ssh/authorized_keys)"
            )
        return str(exc)
    if exc.filename is not None:
        return f"{exc.strerror}: {exc.filename}"
    doors = [f"{name} {port}" for name, port in (("--ssh", args.ssh), ("--web", args.web))]
    given = [door for door, port in zip(doors, (args.ssh, args.web), strict=True) if port]
    option = given[0].split()[0] if len(given) == 1 else "--ssh/--web"
    return f"{' and '.join(given) or 'the doors'}: {bind_failure(exc, args.host, option)}"


def bind_failure(exc: OSError, host: str, option: str = "--port") -> str:
    """Why listening on ``host`` failed, in words (the game's port and the doors' alike);
    ``option`` is the one that takes another port.

    >>> import errno
    >>> bind_failure(OSError(errno.EADDRINUSE, "in use"), "127.0.0.1", "--ssh")
    'the port is in use (another server? --ssh N, or 0: any)'
    """
    import errno
    import socket

    if exc.errno == errno.EADDRINUSE:
        return f"the port is in use (another server? {option} N, or 0: any)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine (--host 0.0.0.0 listens on all)"
    if exc.errno == errno.EACCES:
        return "permission denied (ports below 1024 need root: take one above)"
    if isinstance(exc, socket.gaierror):
        return f"no such host {host!r} (--host takes an address of this machine)"
    return str(exc.strerror or exc)


def _limit_lines(args: argparse.Namespace) -> list[str]:
    """The start-up message's line naming the ``--limit`` options given, if any."""
    if not args.limit:
        return []
    chosen = ", ".join(f"{name}={value}" for name, value in dict(args.limit).items())
    return [f"limits set: {chosen}"]


async def _until_stopped(message: list[str]) -> None:
    """Print ``message`` and wait for SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    # Only now "press Ctrl+C": a Ctrl+C right after the message stops the server cleanly.
    print("\n".join(message), flush=True)
    await stop.wait()


SOCKET_PATH_MAX = 107
"""The longest path a Unix socket may have (bytes; ``sun_path`` holds 108 with its NUL)."""


def _answers(path: str) -> bool:
    """Whether a server listens on the Unix socket ``path`` now."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


async def _open_local_socket(server: Server, path: str) -> None:
    """``serve --local-socket PATH``: listen there too, in a directory made 0700 if it is
    missing; refused (OSError) while another server listens there (a stale socket, left by
    a killed server, is replaced)."""
    import errno

    directory = Path(path).parent
    if not directory.exists():
        directory.mkdir(parents=True, mode=0o700)
    if _answers(path):
        raise OSError(errno.EADDRINUSE, "another server listens there")
    await server.open_local_socket(os.fspath(path))


async def _serve_doors(args: argparse.Namespace) -> int:
    """``serve --server-socket PATH --ssh/--web PORT``: only the doors, for the server on
    ``PATH`` (see ``server.doors.host``)."""
    from server.doors.host import RemoteServer

    db = Path(args.db) if args.db else default_db_path()
    config = server_config(args, db)
    remote = RemoteServer(config, args.server_socket, args.port or DEFAULT_PORT)
    try:
        doors = await _open_doors(args, remote, db.parent)
    except (OSError, ValueError) as exc:
        print(
            f"sheepshead serve: cannot open the doors: {doors_failure(exc, args)}", file=sys.stderr
        )
        return 1
    message = [
        f"sheepshead doors for the server on {args.server_socket}",
        f"data directory: {db.parent}",
        *_open_door_lines(args.host, doors),
        *_limit_lines(args),
    ]
    if not _answers(args.server_socket):
        message.append(
            "no server answers there yet: each session waits for it (up to a minute before "
            "it starts, and however long while it is open)"
        )
    message.append("press Ctrl+C to stop")
    try:
        await _until_stopped(message)
    finally:
        await doors.stop()
    print("doors stopped", flush=True)
    return 0


async def _announce(
    args: argparse.Namespace, server: Server
) -> tuple[Announcer | None, str | None]:
    """Announce the server on the LAN (server.net.announce) unless it is loopback-only or told not
    to: the announcer and the line saying how it went, for the start-up message (a failure is
    reported there and the server goes on without it)."""
    from server.net.announce import Announcer, default_name, lobby_counts, should_announce

    if args.no_announce or not should_announce(args.host):
        return None, None
    addresses = lan_addresses() if args.host in ("", "0.0.0.0", "::") else [args.host]
    if not addresses:
        return None, "not announced on the LAN: this machine has no network address"
    name = (args.name or default_name()).strip() or default_name()
    announcer = Announcer(name, server.port, addresses, lambda: lobby_counts(server.lobby))
    try:
        await announcer.start()
    except Exception as exc:  # no multicast, no interface: the server itself still runs
        await announcer.stop()
        return None, f"not announced on the LAN: {exc}"
    return announcer, f"announced on the LAN as {name!r} (find it with: sheepshead servers)"


def run(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM."""
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    # asyncssh logs every step of every SSH login at info: only its warnings are worth a line.
    logging.getLogger("asyncssh").setLevel(max(logging.WARNING, logging.getLogger().level))
    for option, value in (("--port", args.port), ("--ssh", args.ssh), ("--web", args.web)):
        if value is not None and not 0 <= value <= 65535:
            print(f"sheepshead serve: {option} must be 0-65535", file=sys.stderr)
            return 2
    if args.ssh_keys and args.ssh is None:
        print("sheepshead serve: --ssh-keys needs --ssh PORT", file=sys.stderr)
        return 2
    for option, path in (
        ("--local-socket", args.local_socket),
        ("--server-socket", args.server_socket),
    ):
        if path is not None and not 0 < len(os.fsencode(path)) <= SOCKET_PATH_MAX:
            print(
                f"sheepshead serve: {option} must be a path of 1-{SOCKET_PATH_MAX} bytes",
                file=sys.stderr,
            )
            return 2
    if args.db is not None and (not args.db.strip() or Path(args.db).is_dir()):
        what = "is empty" if not args.db.strip() else f"{args.db} is a directory"
        print(
            f"sheepshead serve: --db {what}: give the database's file, e.g. "
            f"{Path(args.db.strip() or '.') / 'sheepshead.db'} (default {default_db_path()})",
            file=sys.stderr,
        )
        return 2
    if args.name is not None:
        from protocol.text import clean_name

        if not clean_name(args.name).strip():
            print(
                f"sheepshead serve: --name {args.name!r} shows nothing: give a name people can "
                "read, or leave --name out for this machine's host name",
                file=sys.stderr,
            )
            return 2
    if args.bot_workers is not None and not 0 <= args.bot_workers <= 64:
        print("sheepshead serve: --bot-workers must be 0-64", file=sys.stderr)
        return 2
    args.bot_modules = ()
    if args.server_socket is not None:
        if args.local_socket is not None:
            print(
                "sheepshead serve: --server-socket runs only the doors: no --local-socket",
                file=sys.stderr,
            )
            return 2
        if args.ssh is None and args.web is None:
            print(
                "sheepshead serve: --server-socket needs --ssh PORT or --web PORT", file=sys.stderr
            )
            return 2
        try:
            return asyncio.run(_serve_doors(args))
        except KeyboardInterrupt:
            return 130
    if args.bot_file:
        from client.bot_files import MODULE, register_files
        from client.strategy_spec import StrategyLoadError

        try:
            names = register_files(args.bot_file)
        except StrategyLoadError as exc:
            print(f"sheepshead serve: --bot-file: {exc}", file=sys.stderr)
            return 2
        args.bot_modules = (MODULE,)
        logging.getLogger("server").info("strategy files: %s", ", ".join(names))
    try:
        return asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return 130
