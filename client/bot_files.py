"""Strategy files as server bots: ``sheepshead play --bots FILE.py`` and
``sheepshead serve --bot-file FILE.py``.

Server bots think in worker processes that learn strategies only by importing the modules of
``ServerConfig.bot_modules``. :func:`register_files` checks each file spec (a path with optional
``:key=value`` options, as ``sheepshead bot`` and tournaments take it), registers it under its
strategy's ``name``, and lists the specs in the environment variable :data:`ENVIRONMENT`; the
workers inherit the environment, and this module, named in ``bot_modules`` (:data:`MODULE`),
registers the same files when a worker imports it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final

from client.strategy_spec import StrategyLoadError, is_path, parse_spec, strategy_factory
from client.strategy_spec import strategy_label as _label
from engine.bots.base import Strategy, register, strategy_names

__all__ = ["ENVIRONMENT", "MODULE", "register_files"]

ENVIRONMENT: Final = "SHEEPSHEAD_BOT_FILES"
"""The environment variable listing the registered file specs, one a line."""

MODULE: Final = __name__
"""The module to list in ``ServerConfig.bot_modules`` once files are registered."""

_REGISTERED: dict[str, str] = {}
"""Spec -> the name it was registered under (this process)."""


def _register(spec: str) -> str:
    if spec in _REGISTERED:
        return _REGISTERED[spec]
    build = strategy_factory(spec)
    name = _label(build(None), spec)
    if name in strategy_names():
        raise StrategyLoadError(
            f"{parse_spec(spec)[0]}: its name {name!r} is already a strategy's: give the class "
            "another `name`"
        )

    def factory(seed: int | None = None, **options: object) -> Strategy:
        del options  # a file's options are the spec's
        return build(seed)

    register(name, f"strategy file {parse_spec(spec)[0]}")(factory)
    _REGISTERED[spec] = name
    return name


def register_files(specs: Sequence[str]) -> list[str]:
    """Register each strategy file spec; return the names they are registered under.

    Paths are made absolute (the workers may start elsewhere). Raises
    :class:`~client.strategy_spec.StrategyLoadError` for a spec that is no file, a file that is no
    strategy, or a name already taken by another strategy.
    """
    absolute = []
    for spec in specs:
        target, _, options = spec.partition(":")
        if not is_path(target):
            raise StrategyLoadError(f"{target!r} is not a .py file")
        absolute.append(os.path.abspath(target) + (":" + options if options else ""))
    names = [_register(spec) for spec in absolute]
    listed = [s for s in os.environ.get(ENVIRONMENT, "").splitlines() if s]
    os.environ[ENVIRONMENT] = "\n".join(dict.fromkeys([*listed, *absolute]))
    return names


def _register_listed() -> None:
    """In a bot worker: register the files the server listed."""
    for spec in os.environ.get(ENVIRONMENT, "").splitlines():
        if spec and spec not in _REGISTERED:
            _register(spec)


_register_listed()
