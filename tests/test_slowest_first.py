"""The list of the slowest test files, handed to the test workers first (tests/conftest.py),
names files that are there: a file renamed or moved would silently go back to the end."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SLOWEST_FIRST


def test_every_file_of_the_slowest_first_list_is_there() -> None:
    root = Path(__file__).resolve().parent.parent
    missing = [name for name in SLOWEST_FIRST if not (root / name).is_file()]
    assert not missing, f"rename or drop them in tests/conftest.py's SLOWEST_FIRST: {missing}"
    assert len(set(SLOWEST_FIRST)) == len(SLOWEST_FIRST)
