"""``sheepshead replay`` of a tournament's saved record names each seat's strategy; the
tournament's Python API (docs/bots.md, "The tournament from Python") as documented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from botkit.tournament.play import run_tournament
from botkit.tournament.stats import summarize
from client.cli import main
from engine.rules import RuleSet


def test_replay_shows_the_strategy_of_each_seat(tmp_path: Path, capsys: Any) -> None:
    specs = ["heuristic", "random"]
    tallies, _ = run_tournament(
        specs, 1, 5, RuleSet.from_preset("wisconsin"), save_dir=str(tmp_path)
    )
    summary = summarize(specs, tallies, {"seed": 5})
    assert summary["hands"] == 10 and summary["pairs"][0]["a"] == "heuristic"
    path = tmp_path / "deal0001-seating00.json"
    record = json.loads(path.read_text())
    assert main(["replay", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "Tournament seed 5, deal 1, seating 0" in printed
    for seat, name in enumerate(record["strategies"]):
        assert f"  seat {seat} ({name}): " in printed
    # A record without strategies (a table's) is shown as before.
    del record["strategies"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(record))
    assert main(["replay", str(plain)]) == 0
    printed = capsys.readouterr().out
    assert "  seat 0: " in printed and "(heuristic)" not in printed
