"""The tournament's Python API as docs/bots.md ("The tournament from Python") shows it."""

from __future__ import annotations

from pathlib import Path

from botkit.tournament.play import run_tournament
from botkit.tournament.stats import summarize
from engine.rules import RuleSet


def test_save_dir_is_made_when_missing(tmp_path: Path) -> None:
    # The command line made the directory; a training loop calling run_tournament got a
    # FileNotFoundError from deep in the deal's play instead.
    folder = tmp_path / "records" / "run1"
    specs = ["random", "heuristic"]
    tallies, _ = run_tournament(
        specs, deals=1, seed=1, rules=RuleSet.from_preset("wisconsin"), save_dir=str(folder)
    )
    summary = summarize(specs, tallies, {"seed": 1})
    assert summary["deals_played"] == 1
    assert len(list(folder.glob("*.json"))) == 5 * len(specs)  # every hand of the deal
