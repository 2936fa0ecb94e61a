"""The project's documents stand on their own: no reference to the rule and record texts kept
outside it (the team's RULES.md and HAND_RECORD.md), and every relative link leads to a file
in the project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "PROTOCOL.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_a_document_names_no_file_outside_the_project(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    outside = re.findall(r"(?<![\w/-])(?:RULES|HAND_RECORD)\.md", text)
    assert not outside, f"{document.name} sends readers to {sorted(set(outside))}"
    for target in LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (document.parent / target).resolve().exists(), f"{document.name}: {target}"


PACKAGES = ("engine", "protocol", "server", "client", "botkit", "tests", "bench", "examples")
PYTHON_FILES = sorted(
    path
    for package in PACKAGES
    for path in (ROOT / package).rglob("*.py")
    if path.name != "test_docs_self_contained.py"
)


@pytest.mark.parametrize("source", PYTHON_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_code_names_no_document_outside_the_project(source: Path) -> None:
    """Docstrings and comments point to docs/rules.md and docs/hand-record.md by heading, never
    to the rule and record texts kept outside the project (nor to an ARCHITECTURE.md)."""
    text = source.read_text(encoding="utf-8")
    outside = re.findall(r"(?<![\w/-])(?:RULES|HAND_RECORD|ARCHITECTURE)\.md", text)
    assert not outside, f"{source.relative_to(ROOT)} names {sorted(set(outside))}"
