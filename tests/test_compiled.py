"""The compiled build (``make compiled``, setup.py): what it compiles, and that it is what runs.

``make test`` runs the server's tests twice: as plain Python, then on the mypyc build with
``SHEEPSHEAD_EXPECT_COMPILED=1`` (``make compiled-test``), where the last test here checks that
the compiled modules are the ones imported.
"""

from __future__ import annotations

import ast
import importlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def compiled_modules() -> list[str]:
    """The files setup.py compiles, read from its ``COMPILED_MODULES`` list."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return [str(path) for path in value]
    raise AssertionError("setup.py has no COMPILED_MODULES list")


def test_the_compiled_modules_exist_and_hold_the_hot_path() -> None:
    modules = compiled_modules()
    for path in modules:
        assert (ROOT / path).is_file(), path
    for hot in ("engine/hand.py", "protocol/framing.py", "server/tables/table.py", "server/app.py"):
        assert hot in modules


def test_no_except_name_is_bound_to_two_exception_types() -> None:
    """mypyc types an ``except ... as name`` variable by its first handler in the function, so
    ``except ValueError as exc`` then ``except TypeError as exc`` raises a TypeError in the
    compiled build when the second one catches (found when the lobby's bad-rules reply did).
    A later handler may name a subclass of the first one's type."""
    clashes = []
    for path in compiled_modules():
        tree = ast.parse((ROOT / path).read_text())
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            handlers = sorted(
                (node.lineno, node.name, ast.unparse(node.type))
                for node in ast.walk(func)
                if isinstance(node, ast.ExceptHandler) and node.name and node.type is not None
            )
            first: dict[str, str] = {}
            for _, name, kind in handlers:
                base = first.setdefault(name, kind)
                if kind != base and not _engine_subclass(kind, base):
                    clashes.append(f"{path}:{func.lineno} {func.name}: {name} is {base}, {kind}")
    assert clashes == []


def _engine_subclass(kind: str, base: str) -> bool:
    """Whether ``kind`` is a subclass of ``base``, both named in :mod:`engine.errors` (other
    names are not looked up, so any other pair counts as a clash)."""
    from engine import errors

    sub, sup = getattr(errors, kind, None), getattr(errors, base, None)
    return isinstance(sub, type) and isinstance(sup, type) and issubclass(sub, sup)


@pytest.mark.skipif(
    os.environ.get("SHEEPSHEAD_EXPECT_COMPILED") != "1",
    reason="only on the compiled build (make compiled-test)",
)
def test_the_compiled_build_is_what_runs() -> None:
    for path in compiled_modules():
        name = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        module = importlib.import_module(name)
        assert module.__file__ is not None
        assert module.__file__.endswith(".so"), f"{name} was imported from {module.__file__}"


def test_a_hand_copies_and_the_copy_plays_on_alone() -> None:
    """Searching bots and the coach copy hands (``Hand.copy``): it must work on the compiled
    engine too, where ``Hand.__new__(Hand)`` runs ``__init__`` without its arguments."""
    from engine.hand import Hand
    from engine.rules import RuleSet

    hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), dealer=0, seed=11)
    for _ in range(8):
        hand.apply(hand.legal_actions()[0])
    copy = hand.copy()
    before = hand.actions.copy()
    while not copy.is_over:
        copy.apply(copy.legal_actions()[-1])
    assert hand.actions == before and not hand.is_over
    assert copy.result() is not None
