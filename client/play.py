"""``sheepshead play``: a whole local game in one command.

Starts a server inside this process (on 127.0.0.1, any free port, with a database under the user
data directory), connects to it like any client, creates a table, seats four bots, starts the
match and opens the table screen. Quitting the client stops the server.

Nothing is lost when the client quits or crashes mid-match: the database keeps the table and the
seat token is kept in the data directory, so the next ``sheepshead play`` takes the seat back and
the match goes on (``--new`` ends it and starts another).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from typing import Any

from client import config, settings
from protocol.requests import HANDS_MAX

HELP = "play a local game: you and four bots, server embedded"

BOT_DELAY = 0.6
"""Seconds each bot waits before acting, so you can follow the play."""

HAND_PAUSE = 2.5
"""Seconds between a hand's end and the next deal (the result panel stays until you close it)."""


def _hands(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value <= HANDS_MAX:
        raise argparse.ArgumentTypeError(f"must be from 1 to {HANDS_MAX}, or 0 (no limit)")
    return value


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``play``'s arguments."""
    config.add_name_argument(parser)
    from engine.bots import strategy_names

    parser.add_argument(
        "--bots",
        metavar="STRATEGY|FILE",
        default=None,
        help="the strategy of the four bots: "
        + ", ".join(strategy_names())
        + ", a strategy file (PATH.py[:key=value...]) or an outside program (./PROGRAM[:key=value"
        "...]; docs/bots.md, 'A bot in any language') (default: the server's default)",
    )
    from engine.rules import DEFAULT_PRESET, PRESET_TITLES, presets_help

    parser.add_argument(
        "--preset", choices=tuple(PRESET_TITLES), default=DEFAULT_PRESET, help=presets_help()
    )
    parser.add_argument(
        "--hands",
        type=_hands,
        default=10,
        metavar="N",
        help=f"hands in the match, 1 to {HANDS_MAX} (default 10; 0 plays until you quit)",
    )
    parser.add_argument(
        "--bot-delay",
        type=settings.seconds_argument(10),
        default=BOT_DELAY,
        metavar="SECONDS",
        help=f"how long each bot waits before acting (default {BOT_DELAY})",
    )
    parser.add_argument(
        "--memory",
        action="store_true",
        help="keep the game in memory only, leaving any unfinished match on disk for the next "
        "run (default: a database in the user data directory)",
    )
    parser.add_argument(
        "--new",
        action="store_true",
        help="end an unfinished local match instead of resuming it, and start a new one",
    )
    settings.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Start the embedded server and the client; stop both when the client quits."""
    name = config.name_or_status(args.name)
    if isinstance(name, int):
        return name
    error = resolve_bots(args)
    if error is not None:
        print(f"sheepshead: {error}", file=sys.stderr)
        return 2
    # The embedded server logs to stderr, which the full-screen client owns: keep it quiet.
    logging.getLogger("server").setLevel(logging.WARNING)
    return asyncio.run(_main(args, name))


def resolve_bots(args: argparse.Namespace) -> str | None:
    """Check ``--bots``; a strategy file is registered (here and, through ``bot_modules``, in
    the bot workers) and ``args.bots`` becomes its name. Sets ``args.bot_modules``; returns an
    error message, or None."""
    args.bot_modules = ()
    if args.bots is None:
        return None
    from client.strategy_spec import StrategyLoadError, is_path
    from engine.bots import strategy_names

    if is_path(args.bots.partition(":")[0]):
        from client.bot_files import MODULE, register_files

        try:
            args.bots = register_files([args.bots])[0]
        except StrategyLoadError as exc:
            return f"--bots: {exc}"
        args.bot_modules = (MODULE,)
    names = strategy_names()
    if args.bots not in names:
        return (
            f"unknown bot strategy {args.bots!r} (choose from {', '.join(names)}, a .py file, or "
            "a program by its path, e.g. ./mybot.js)"
        )
    return None


LOCAL_HOST = "127.0.0.1"

FIRST_STATE_WAIT = 3.0
"""Seconds to wait for the snapshot of a table taken back, to see whether its match is over."""


async def _match_is_over(session: Any) -> bool:
    """Whether the table the session was seated at again has finished its match.

    Reads the snapshot the server sends after the hello; every event read is put back in
    order for the app.
    """
    held: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FIRST_STATE_WAIT
    state = None
    try:
        while state is None:
            msg = await asyncio.wait_for(session.events.get(), max(0.0, deadline - loop.time()))
            held.append(msg)
            if msg.get("type") == "state":
                state = msg
    except TimeoutError:
        pass
    while not session.events.empty():
        held.append(session.events.get_nowait())
    for msg in held:
        session.events.put_nowait(msg)
    info = (state or {}).get("info") or {}
    return info.get("state") == "over"


def _drop_events(session: Any) -> None:
    """Forget the events of the table being left (and a bad_token error about it)."""
    while not session.events.empty():
        session.events.get_nowait()


def _carry_token(store: Any, name: str, server_key: str) -> str | None:
    """Move ``name``'s token from an earlier local server (another port) to this one's key."""
    token = None
    for key, names in store.load().items():
        if key.startswith(LOCAL_HOST + ":") and name in names:
            token = token or names[name]
            if key != server_key:
                store.remove(key, name)
    if token is not None:
        store.put(server_key, name, token)
    return token


async def start_local(args: argparse.Namespace, name: str) -> tuple[Any, Any, str | None]:
    """Start the server and a session seated at a started match with four bots.

    An unfinished match of an earlier run is resumed (its seat token is kept in the data
    directory); with ``--new`` it is ended first. Returns (server, session, error).
    """
    from client.session import ServerError, Session, TokenStore
    from server.app import Server, ServerConfig
    from server.storage.store import DatabaseInUse

    db_path = None if args.memory else config.local_db_path()
    server = Server(
        ServerConfig(
            host=LOCAL_HOST,
            port=0,
            db_path=db_path,
            bot_delay=args.bot_delay,
            hand_pause=HAND_PAUSE,
            default_bot=args.bots,
            bot_modules=getattr(args, "bot_modules", ()),
        )
    )
    try:
        await server.start()
    except DatabaseInUse as exc:
        return (
            None,
            None,
            f"another `sheepshead play` is running{exc.by}, with the match kept in {exc.path}."
            " Finish or quit that one first, or play this one with --memory.",
        )
    except Exception as exc:
        return None, None, f"cannot start the local server: {exc}"
    # A game in memory has no seat to take back, and must not replace the token of an
    # unfinished match on disk with its own: that match could not be resumed after it.
    store = None if args.memory else TokenStore(config.data_dir() / "local-tokens.json")
    if store is not None:
        _carry_token(store, name, f"{LOCAL_HOST}:{server.port}")
    session = Session(
        LOCAL_HOST,
        server.port,
        name=name,
        kind="human",
        client_name=config.CLIENT_NAME,
        token_store=store,
        reconnect=True,
    )
    try:
        await session.connect()
        finished = session.table is not None and await _match_is_over(session)
        if session.table is not None and not args.new and not finished:
            return server, session, None  # the seat of an unfinished match, taken back
        # A finished match (its table "over", or its token no longer valid: older servers)
        # is left quietly and a new one begins: nothing of it is worth a red error.
        _drop_events(session)
        if session.table is not None:
            with contextlib.suppress(ServerError):
                await session.request("end_match")
            with contextlib.suppress(ServerError):
                await session.request("leave")
        await session.request(
            "create_table",
            name=f"{name}'s table"[:32],
            preset=args.preset,
            options={},
            hands=args.hands or None,
            password=None,
            turn_timer=None,
            hints=True,  # the coach (PROTOCOL.md §4, hint): play is where people learn
        )
        bot: dict[str, Any] = {} if args.bots is None else {"strategy": args.bots}
        for _ in range(4):
            await session.request("add_bot", seat=None, **bot)
        await session.request("start")
    except (ServerError, OSError) as exc:
        await session.close()
        await server.stop()
        return None, None, f"cannot set up the local table: {exc}"
    return server, session, None


async def _main(args: argparse.Namespace, name: str) -> int:
    from client.app import SheepsheadApp

    server, session, error = await start_local(args, name)
    if error is not None:
        print(f"sheepshead: {error}", file=sys.stderr)
        return 1
    resumed = session.welcome is not None and session.welcome.get("table") is not None
    intro = None
    if resumed and not args.new:
        intro = "Welcome back: your unfinished match goes on (--new starts another)."
    app = SheepsheadApp(
        session,
        mode="play",
        bot_strategy=args.bots,
        intro=intro,
        settings=settings.from_arguments(args),
    )
    try:
        await app.run_async()
    finally:
        await session.close()
        await server.stop()
    return app.return_code or 0
