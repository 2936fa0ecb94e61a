"""examples/rl_search.py, determinized search on the environment, in a tiny version."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl_search.py"


def test_the_search_example_plays_hands(capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(EXAMPLE))["main"]
    means = main(["--hands", "2", "--worlds", "2", "--seed", "3"])
    assert set(means) == {"search", "random"}
    assert "determinized search (2 worlds)" in capsys.readouterr().out
