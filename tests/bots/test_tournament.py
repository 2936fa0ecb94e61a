"""``sheepshead tournament``: the duplicate seating scheme and a small real run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from client.tournament import seat_assignments


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_every_strategy_holds_every_seat_five_times_per_deal(k: int) -> None:
    plays = seat_assignments(k)
    assert len(plays) == 5 * k
    for strategy in range(k):
        for seat in range(5):
            assert sum(p[seat] == strategy for p in plays) == 5


def _run(tmp_path: Path, name: str, *extra: str) -> dict[str, Any]:
    path = tmp_path / name
    args = ["tournament", "--strategies", "heuristic,random,search:samples=2:setup_samples=2"]
    status = main([*args, "--deals", "4", "--seed", "5", "--json", str(path), "--quiet", *extra])
    assert status == 0
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_small_tournament_writes_consistent_json(tmp_path: Path, capsys: Any) -> None:
    data = _run(tmp_path, "one.json")
    printed = capsys.readouterr().out
    assert data["format"] == "sheepshead-tournament/1"
    assert data["deals_played"] == 4 and data["hands"] == 4 * 15
    stats = data["strategies"]
    assert list(stats) == ["heuristic", "random", "search:samples=2:setup_samples=2"]
    assert sum(s["total_payout"] for s in stats.values()) == 0  # every hand is zero-sum
    for name, s in stats.items():
        assert s["seat_hands"] == 4 * 25
        assert s["mean"] == pytest.approx(s["total_payout"] / s["seat_hands"])
        low, high = s["ci95"]
        assert low <= s["mean"] <= high
        assert 0 <= s["pick_rate"] <= 1 and s["picks"] == round(s["pick_rate"] * 100)
        assert s["decisions"] > 0 and 0 < s["decision_mean_s"] <= s["decision_max_s"]
        assert f"{name}  " in printed or f"{name} " in printed
    assert len(data["pairs"]) == 3
    for pair in data["pairs"]:
        diff = stats[pair["a"]]["mean"] - stats[pair["b"]]["mean"]
        assert pair["diff"] == pytest.approx(diff)
    # The same seed gives the same games, with or without worker processes.
    again = _run(tmp_path, "two.json", "--jobs", "2")
    for name in stats:
        assert again["strategies"][name]["total_payout"] == stats[name]["total_payout"]
        assert again["strategies"][name]["picks"] == stats[name]["picks"]


def test_bad_arguments_exit_2(capsys: Any) -> None:
    assert main(["tournament", "--strategies", "heuristic", "--deals", "1"]) == 2
    assert "at least two" in capsys.readouterr().err
    assert main(["tournament", "--strategies", "heuristic,nobody", "--deals", "1"]) == 2
    assert "unknown strategy 'nobody'" in capsys.readouterr().err
    assert main(["tournament", "--strategies", "heuristic,search:bogus=1", "--deals", "1"]) == 2
    assert "bad option" in capsys.readouterr().err
