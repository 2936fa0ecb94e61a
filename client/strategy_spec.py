"""Strategy specs: ``NAME_OR_PATH[:key=value...]``, the one way a strategy is named everywhere
(``sheepshead bot``, ``play --bots``, ``serve --bot-file``, tournaments, the training
environment's opponents).

The target is a registered strategy (``random``, ``heuristic``, ``search``, ...), a Python file
defining a class with ``choose(view, legal)``, or any other path: an outside program
(:mod:`client.program_strategy`). Options after it are keyword options (docs/bots.md).

>>> parse_spec("search:samples=20:model_endgame=false")
('search', {'samples': 20, 'model_endgame': False})
>>> is_path("my_bot.py"), is_path("./mybot.js"), is_path("heuristic")
(True, True, False)
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.bots.base import Strategy, make_strategy, strategy_names


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
    """Whether a strategy target names a file (a Python file, or an outside program: any other
    path) rather than a registered strategy."""
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

    A path not ending in ``.py`` is an outside program (:mod:`client.program_strategy`),
    started at its first decision. With ``think_time``, a registered strategy that thinks for
    long (``search``) stops each decision after that many seconds on this process's clock;
    without it (tournaments) its effort is a count. Raises :class:`StrategyLoadError` for an
    unknown name, a bad file or bad options.
    """
    target, options = parse_spec(spec)
    if is_path(target) and not target.endswith(".py"):
        from client.program_strategy import program_factory

        try:
            return program_factory(target, spec.split(":")[1:])
        except ValueError as exc:
            raise StrategyLoadError(str(exc)) from exc
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
        raise StrategyLoadError(
            f"unknown strategy {target!r} (choose from {choices}, a .py file, or a program by its "
            f"path: ./{target} if it is a program here)"
        )

    clock = time.monotonic if think_time is not None else None

    def build(seed: int | None) -> Strategy:
        try:
            return make_strategy(target, seed=seed, clock=clock, think_time=think_time, **options)
        except TypeError as exc:
            raise StrategyLoadError(f"{target}: bad option: {exc}") from exc

    build(None)
    return build


def strategy_label(strategy: object, spec: str) -> str:
    """What to call a strategy in displays: its ``name``, else its spec's name or file stem."""
    name = getattr(strategy, "name", None)
    if isinstance(name, str) and name.strip():
        return name.strip()
    return Path(parse_spec(spec)[0]).stem
