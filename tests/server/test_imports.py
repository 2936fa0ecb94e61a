"""The server's modules import one way: entry points → app → connection → lobby → table →
the table's parts → interfaces and helpers → engine/protocol (docs/architecture.md).

Read from the source (AST), every import counts: at the top, inside a function, and under
``if TYPE_CHECKING``. A module may import one of a lower layer, never one of its own or a higher
layer (so there is no cycle either), and only the entry points import ``server.app``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"

ENTRY: set[str] = {"standings_cli", "cli", "transcript", "doors", "ssh_door", "web_door"}
"""The entry points: the command line and the doors, which start and drive a ``Server``."""

LAYERS: list[set[str]] = [
    {"standings_cli"},
    {"cli", "transcript"},
    {"doors"},
    {"ssh_door", "web_door"},
    {"door_kit", "announce"},
    {"app"},
    {"connection"},
    {"names", "hints"},
    {"lobby"},
    {"restore"},
    {"table"},
    {"turns"},
    {"presence"},
    {"states", "history", "table_config", "commitments", "standings"},
    {"seats"},
    {"hub"},
    {"config", "botpool", "passwords"},
    {"botworker", "store", "addresses"},
    {"tallies"},
]
"""Highest first. Modules of one layer do not import each other."""


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of ``server.<module>``."""
    for index, names in enumerate(LAYERS):
        if module in names:
            return index
    raise AssertionError(f"server/{module}.py is in no layer of {__name__}.LAYERS: add it")


def server_imports(path: Path) -> set[str]:
    """The ``server`` modules ``path`` imports, by their short names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "server":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("server."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("server."):
                    found.add(alias.name.split(".")[1])
    return found


def edges() -> dict[str, set[str]]:
    """Every server module and the server modules it imports."""
    return {
        path.stem: server_imports(path)
        for path in sorted(SERVER.glob("*.py"))
        if path.stem != "__init__"
    }


def backward_edges(graph: dict[str, set[str]]) -> list[str]:
    """The imports of ``graph`` that go to the importer's own layer or a higher one."""
    return [
        f"server.{module} imports server.{target}"
        for module, targets in graph.items()
        for target in sorted(targets)
        if layer_of(target) <= layer_of(module)
    ]


def test_every_server_module_imports_only_lower_layers() -> None:
    assert backward_edges(edges()) == []


def test_only_the_entry_points_import_the_server_class() -> None:
    importers = sorted(m for m, targets in edges().items() if "app" in targets and m not in ENTRY)
    assert importers == []


def test_the_walk_finds_every_kind_of_import_and_the_check_refuses_cycles_and_backward_ones() -> (
    None
):
    graph = edges()
    assert {"states", "hub", "seats"} <= graph["table"]  # at the top
    assert "app" in graph["cli"]  # inside a function
    assert "config" in graph["connection"]  # under TYPE_CHECKING
    assert backward_edges({"table": {"lobby"}}) == ["server.table imports server.lobby"]
    cycle = {"states": {"history"}, "history": {"states"}}
    assert len(backward_edges(cycle)) == 2
