"""``sheepshead bot``: play a seat over the network with a bot strategy.

The strategy is a registered name (``random``, ``heuristic``, ``search``, ...) or the path of a
Python file defining a class with ``choose(view, legal)`` (see docs/bots.md). Either may carry
keyword options: ``search:samples=20`` or ``my_bot.py:aggression=2``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import inspect
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from client.config import DEFAULT_PORT, AddressError, parse_address
from engine.bots.base import Strategy, make_strategy, strategy_names

HELP = "play a seat over the network with a bot strategy"

CLIENT_NAME: Final = "sheepshead-bot/0.1"
"""What the bot runner calls itself in ``hello``."""


class StrategyLoadError(Exception):
    """A strategy spec that names no strategy, or a file that cannot be used as one."""


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME_OR_PATH[:key=value...]`` into the target and its keyword options."""
    target, *rest = spec.split(":")
    if not target:
        raise StrategyLoadError(f"empty strategy in {spec!r}")
    options: dict[str, Any] = {}
    for item in rest:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise StrategyLoadError(f"strategy option {item!r} must look like key=value")
        options[key] = _value(value)
    return target, options


def is_path(target: str) -> bool:
    """Whether a strategy target names a Python file rather than a registered strategy."""
    return target.endswith(".py") or "/" in target or "\\" in target


def load_file_class(path: str) -> type:
    """The strategy class defined in a Python file: the first class with a ``choose`` method."""
    file = Path(path)
    if not file.is_file():
        raise StrategyLoadError(f"no such strategy file: {path}")
    name = f"sheepshead_user_strategy_{abs(hash(str(file.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise StrategyLoadError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise StrategyLoadError(f"{path}: {type(exc).__name__}: {exc}") from exc
    for obj in vars(module).values():
        if (
            inspect.isclass(obj)
            and obj.__module__ == name
            and callable(getattr(obj, "choose", None))
        ):
            return obj
    raise StrategyLoadError(f"{path} defines no class with a choose(view, legal) method")


def strategy_factory(
    spec: str, think_time: float | None = None
) -> Callable[[int | None], Strategy]:
    """A function building a fresh strategy from ``spec`` with a given seed.

    With ``think_time``, a registered strategy that thinks for long (``search``) stops each
    decision after that many seconds on this process's clock; without it (tournaments) its
    effort is a count. Raises :class:`StrategyLoadError` for an unknown name, a bad file or
    bad options.
    """
    target, options = parse_spec(spec)
    if is_path(target):
        cls = load_file_class(target)
        params = inspect.signature(cls).parameters
        takes_seed = "seed" in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
        )

        def build_file(seed: int | None) -> Strategy:
            kwargs = dict(options)
            if takes_seed:
                kwargs["seed"] = seed
            try:
                bot = cls(**kwargs)
            except TypeError as exc:
                raise StrategyLoadError(f"{target}: {exc}") from exc
            if not hasattr(bot, "name"):
                bot.name = Path(target).stem
            return bot  # type: ignore[no-any-return]

        build_file(None)  # fail now, not in the middle of a game
        return build_file
    if target not in strategy_names():
        choices = ", ".join(strategy_names())
        raise StrategyLoadError(f"unknown strategy {target!r} (choose from {choices}, or a .py)")

    clock = time.monotonic if think_time is not None else None

    def build(seed: int | None) -> Strategy:
        try:
            return make_strategy(target, seed=seed, clock=clock, think_time=think_time, **options)
        except TypeError as exc:
            raise StrategyLoadError(f"{target}: bad option: {exc}") from exc

    build(None)
    return build


@dataclass
class BotConfig:
    """What ``sheepshead bot`` was asked to do."""

    host: str
    port: int
    strategy: str = "heuristic"
    name: str | None = None
    table: str | None = None
    create: bool = False
    hands: int | None = 3
    password: str | None = None
    preset: str = "seed"
    server_bots: str | None = None
    seed: int | None = None
    tokens: str | None = None
    think_time: float = 0.5


async def run_bot(config: BotConfig, out: TextIO | None = None) -> int:
    """Connect, sit down, play until the match is over; the exit status.

    0: the match ended; 1: the connection or the table went away; 2: refused (bad table,
    password, strategy...). Decisions run in a worker thread so a slow strategy never stalls
    the connection (pings, reconnects).
    """
    from client.session import ServerError, Session, TokenStore

    out = out or sys.stdout
    factory = strategy_factory(config.strategy, config.think_time)
    strategy = factory(config.seed)
    name = config.name or f"{Path(parse_spec(config.strategy)[0]).stem} bot"[:24]
    session = Session(
        config.host,
        config.port,
        name=name,
        kind="bot",
        client_name=CLIENT_NAME,
        token_store=TokenStore(config.tokens) if config.tokens else None,
    )

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    try:
        welcome = await session.connect()
    except (OSError, TimeoutError) as exc:
        say(f"cannot connect to {config.host}:{config.port}: {exc}")
        return 1
    except ServerError as exc:
        say(f"refused by the server: {exc.code}: {exc.message}")
        return 2
    try:
        if session.table is None:
            try:
                if config.create:
                    reply = await session.request(
                        "create_table",
                        name=f"{session.name}'s table",
                        preset=config.preset,
                        hands=config.hands,
                        password=config.password,
                    )
                    for _ in range(4):
                        await session.request("add_bot", seat=None, strategy=config.server_bots)
                    await session.request("start")
                else:
                    reply = await session.request(
                        "join", table=config.table, seat=None, password=config.password
                    )
            except ServerError as exc:
                say(f"refused by the server: {exc.code}: {exc.message}")
                return 2
            say(f"seated at table {reply['table']}, seat {reply['seat']} as {welcome['name']}")
        else:
            say(f"back at table {session.table}, seat {session.seat} as {welcome['name']}")
        return await _play(session, strategy, say)
    finally:
        if session.status == "connected" and session.table is not None:
            with contextlib.suppress(ServerError, OSError, TimeoutError):
                await session.request("leave")
        await session.close()


async def _play(session: Any, strategy: Strategy, say: Callable[[str], None]) -> int:
    from client.session import ServerError

    while True:
        msg = await session.events.get()
        kind = msg.get("type")
        if kind == "your_turn":
            if msg is not session.last_turn or session.last_state is None:
                continue  # a newer prompt or state is queued: answer that one
            view = session.last_state.get("view")
            legal = msg.get("legal") or []
            if not view or not legal:
                continue
            action = await asyncio.to_thread(_decide, strategy, view, legal, say)
            try:
                await session.act(action)
            except ServerError as exc:
                if exc.code not in ("stale", "hand_over", "not_your_turn", "connection_lost"):
                    say(f"action refused: {exc.code}: {exc.message}")
        elif kind == "hand_over":
            result = msg.get("result") or {}
            say(
                f"hand {int(msg.get('hand', 0)) + 1}: {result.get('outcome_text', '?')}; "
                f"payouts {result.get('payouts')}; totals {msg.get('totals')}"
            )
        elif kind == "match_over":
            totals = msg.get("totals")
            mine = totals[session.seat] if totals and session.seat is not None else None
            say(f"match over after {msg.get('hands')} hands: totals {totals}; this seat {mine}")
            return 0
        elif kind == "notice" and msg.get("code") in ("table_closed", "replaced"):
            say(f"stopped: {msg.get('text')}")
            return 1
        elif kind == "connection" and msg.get("status") == "closed":
            say("connection to the server lost")
            return 1


def _decide(
    strategy: Strategy,
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """The strategy's answer, or the first legal action (with a warning) if it misbehaves."""
    try:
        choice = strategy.choose(view, legal)
    except Exception as exc:  # a user's strategy file may fail in any way: keep playing
        say(f"strategy failed ({type(exc).__name__}: {exc}); playing {legal[0]}")
        return legal[0]
    if choice not in legal:
        say(f"strategy chose {choice!r}, which is not legal; playing {legal[0]}")
        return legal[0]
    return dict(choice)


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``bot``'s arguments."""
    del command
    parser.add_argument(
        "server", metavar="HOST[:PORT]", help=f"server to connect to (default port {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--strategy",
        default="heuristic",
        metavar="NAME|PATH.py",
        help="a registered strategy (random, heuristic, search, ...) or a Python file with a "
        "class defining choose(view, legal); options as NAME:key=value (default heuristic)",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", metavar="ID", help="join this table (first free seat)")
    where.add_argument(
        "--create",
        action="store_true",
        help="create a table, fill the other four seats with server bots and start",
    )
    parser.add_argument("--name", help="display name (default: '<strategy> bot')")
    parser.add_argument(
        "--hands", type=int, default=3, metavar="N", help="hands to play with --create (default 3)"
    )
    parser.add_argument("--password", help="the table's password (join) or a new one (create)")
    parser.add_argument(
        "--preset",
        default="seed",
        choices=["seed", "wisconsin"],
        help="rules for --create (default seed)",
    )
    parser.add_argument(
        "--server-bots",
        metavar="NAME",
        help="strategy of the server bots with --create (default: the server's)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed for the strategy's random choices (default: unseeded)"
    )
    parser.add_argument(
        "--tokens",
        metavar="PATH",
        help="keep the seat token in this file, so a restarted bot takes its seat back",
    )
    parser.add_argument(
        "--think-time",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="most seconds a thinking strategy (search) spends on one decision (default 0.5)",
    )


def run(args: argparse.Namespace) -> int:
    """Play one match; 0 when it ends, 1 when the connection or table goes, 2 if refused."""
    try:
        host, port = parse_address(args.server)
    except AddressError as exc:
        print(f"sheepshead bot: {exc}", file=sys.stderr)
        return 2
    if args.hands is not None and not 1 <= args.hands <= 1000:
        print("sheepshead bot: --hands must be from 1 to 1000", file=sys.stderr)
        return 2
    if not 0 < args.think_time <= 60:
        print("sheepshead bot: --think-time must be more than 0 and at most 60", file=sys.stderr)
        return 2
    try:
        strategy_factory(args.strategy)
    except StrategyLoadError as exc:
        print(f"sheepshead bot: {exc}", file=sys.stderr)
        return 2
    config = BotConfig(
        host=host,
        port=port,
        strategy=args.strategy,
        name=args.name,
        table=args.table,
        create=args.create,
        hands=args.hands,
        password=args.password,
        preset=args.preset,
        server_bots=args.server_bots,
        seed=args.seed,
        tokens=args.tokens,
        think_time=args.think_time,
    )
    return asyncio.run(run_bot(config))
