"""``sheepshead bot``: play a seat over the network with a bot strategy.

The strategy is a registered name (``random``, ``heuristic``, ``search``, ...) or the path of a
Python file defining a class with ``choose(view, legal)`` (see docs/bots.md). Either may carry
keyword options: ``search:samples=20`` or ``my_bot.py:aggression=2``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.bots.base import Strategy, make_strategy, strategy_names

HELP = "play a seat over the network with a bot strategy"


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


def strategy_factory(spec: str) -> Callable[[int | None], Strategy]:
    """A function building a fresh strategy from ``spec`` with a given seed.

    Raises :class:`StrategyLoadError` for an unknown name, a bad file or bad options.
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

    def build(seed: int | None) -> Strategy:
        try:
            return make_strategy(target, seed=seed, **options)
        except TypeError as exc:
            raise StrategyLoadError(f"{target}: bad option: {exc}") from exc

    build(None)
    return build


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``bot``'s arguments."""
    del command
    parser.add_argument("server", metavar="HOST[:PORT]", help="server to connect to")


def run(args: argparse.Namespace) -> int:
    """Not yet available."""
    del args
    print("sheepshead bot: not available yet", file=sys.stderr)
    return 2
