"""``botkit`` sits on top: it imports the engine, the protocol and the client, and nothing of
ours imports it (``client/cli.py`` names ``botkit.tournament.cli`` as a subcommand's module, a
string). Only its training environment (and the OpenSpiel game on it) imports numpy, gymnasium
or PettingZoo (the ``rl`` extra), and none of it is compiled. Read from the source (AST): every
import counts."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_compiled import compiled_modules

ROOT = Path(__file__).resolve().parents[2]

RL_MODULES = {"botkit/cache.py", "botkit/encode.py", "botkit/env.py", "botkit/openspiel.py"}
"""The modules that need the ``rl`` extra (the OpenSpiel game also the ``openspiel`` one)."""


def imported(path: Path) -> set[str]:
    """The top-level names of the modules ``path`` imports, dotted in full (``botkit.env``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _importers(packages: tuple[str, ...], wanted: tuple[str, ...]) -> list[str]:
    return sorted(
        path.relative_to(ROOT).as_posix()
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if any(name.split(".")[0] in wanted for name in imported(path))
    )


def test_nothing_of_ours_imports_botkit() -> None:
    assert _importers(("engine", "protocol", "server", "client"), ("botkit",)) == []


def test_only_the_training_environment_imports_numpy_or_pettingzoo_and_none_is_compiled() -> None:
    heavy = ("numpy", "pettingzoo", "gymnasium")
    importers = _importers(("engine", "protocol", "server", "client", "botkit"), heavy)
    assert set(importers) == RL_MODULES
    # Nothing else of botkit reaches them (the tournament runs without the extra).
    rl_names = {path.removesuffix(".py").replace("/", ".") for path in RL_MODULES}
    for path in (ROOT / "botkit").rglob("*.py"):
        name = path.relative_to(ROOT).as_posix()
        if name not in RL_MODULES:
            assert not imported(path) & rl_names, name
    assert not [path for path in compiled_modules() if path.startswith("botkit/")]


def test_the_walk_sees_imports_in_functions() -> None:
    # bench/rl.py imports the environment inside a function.
    assert "botkit.env" in imported(ROOT / "bench" / "rl.py")
