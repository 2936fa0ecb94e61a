"""The server's imports run one way between its parts: the entry points → the doors → ``app``
→ ``net`` (connections, limits) → ``tables`` (the lobby, a table and its parts) → ``storage``
and ``bots`` → ``config`` → engine/protocol (docs/architecture.md).

A part is a subpackage of ``server`` or one of its top-level modules. Read from the source
(AST), every import counts: at the top, inside a function, and under ``if TYPE_CHECKING``. A
module may import one of a lower part or, within a subpackage, a module of its own part; never
one of a higher part or of another part of its own layer. No module imports itself back through
others (no cycle, inside a part either), and only the entry points import ``server.app``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"

ENTRY: set[str] = {"standings_cli", "cli", "transcript", "doors"}
"""The entry points: the command line and the doors, which start and drive a ``Server``."""

LAYERS: list[set[str]] = [
    {"standings_cli"},
    {"cli", "transcript"},
    {"doors"},
    {"app"},
    {"net"},
    {"tables"},
    {"storage", "bots"},
    {"config"},
]
"""The parts of ``server``, highest first. A part imports only its own modules and lower parts."""


def part_of(module: str) -> str:
    """The part of ``module``, a dotted name below ``server`` (``tables.table`` -> ``tables``)."""
    return module.split(".")[0]


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the part of ``server.<module>``."""
    for index, names in enumerate(LAYERS):
        if part_of(module) in names:
            return index
    raise AssertionError(f"server.{module} is in no part of {__name__}.LAYERS: add it")


def module_name(path: Path) -> str:
    """The dotted name below ``server`` of the file ``path`` (a package as its own name)."""
    parts = path.relative_to(SERVER).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def server_imports(path: Path) -> set[str]:
    """The ``server`` modules ``path`` imports, as dotted names below ``server``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "server" or node.module.startswith("server."):
                base = node.module.removeprefix("server").removeprefix(".")
                for alias in node.names:
                    # ``from server.tables import table`` names a module; ``from
                    # server.tables.table import Table`` names a thing in one.
                    name = f"{base}.{alias.name}" if base else alias.name
                    found.add(
                        name
                        if (SERVER / name.replace(".", "/")).exists()
                        or (SERVER / (name.replace(".", "/") + ".py")).exists()
                        else base
                    )
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("server."):
                    found.add(alias.name.removeprefix("server."))
    return found


def edges() -> dict[str, set[str]]:
    """Every server module (a dotted name below ``server``) and the server modules it imports."""
    return {
        module_name(path): server_imports(path)
        for path in sorted(SERVER.rglob("*.py"))
        if path != SERVER / "__init__.py"
    }


def backward_edges(graph: dict[str, set[str]]) -> list[str]:
    """The imports of ``graph`` that go to a higher part or another part of the same layer."""
    return [
        f"server.{module} imports server.{target}"
        for module, targets in graph.items()
        for target in sorted(targets)
        if part_of(target) != part_of(module) and layer_of(target) <= layer_of(module)
    ]


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """One module of each import cycle of ``graph`` (depth-first, so each cycle once)."""
    found: list[str] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                found.append(f"server.{target} imports itself through server.{module}")
            elif target not in state:
                visit(target)
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return found


def test_every_server_module_imports_only_lower_layers() -> None:
    assert backward_edges(edges()) == []


def test_no_server_module_imports_itself_back() -> None:
    assert cycles(edges()) == []


def test_only_the_entry_points_import_the_server_class() -> None:
    importers = sorted(
        m for m, targets in edges().items() if "app" in targets and part_of(m) not in ENTRY
    )
    assert importers == []


def test_the_walk_finds_every_kind_of_import_and_the_check_refuses_cycles_and_backward_ones() -> (
    None
):
    graph = edges()
    assert {"tables.states", "tables.hub", "tables.seats"} <= graph["tables.table"]  # at the top
    assert "app" in graph["cli"]  # inside a function
    assert "config" in graph["net.connection"]  # under TYPE_CHECKING
    assert "tables.hints" in graph["net.connection"]  # a module imported from its package
    assert backward_edges({"tables.table": {"net.connection"}}) == [
        "server.tables.table imports server.net.connection"
    ]
    assert backward_edges({"storage.store": {"bots.pool"}}) == [
        "server.storage.store imports server.bots.pool"
    ]
    assert backward_edges({"tables.table": {"tables.hub"}}) == []
    cycle = {"tables.states": {"tables.history"}, "tables.history": {"tables.states"}}
    assert len(cycles(cycle)) == 1
    assert cycles({"tables.states": {"tables.hub"}, "tables.hub": set()}) == []
