"""examples/rl_train.py, the trained baseline, in a tiny version: it trains, saves, scores itself
through the tournament's Python API, and its saved policy plays as a strategy file."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

from botkit.tournament.play import run_tournament
from client.strategy_spec import strategy_factory
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rl_train.py"


def test_the_baseline_trains_scores_itself_and_plays_as_a_strategy_file(tmp_path: Path) -> None:
    weights = tmp_path / "policy.npz"
    tiny = ["--hands", "60", "--chunk", "30", "--pg-hands", "20", "--hidden", "16"]
    tiny += ["--eval-deals", "3", "--jobs", "1", "--save", str(weights)]
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *tiny],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert re.search(r"^imitation: 60 hands, loss \d+\.\d+, agrees with heuristic", out, re.M)
    assert re.search(r"^policy gradient: 20 hands, mean payout [-+]\d", out, re.M)
    for opponent in ("random", "heuristic"):
        line = rf"^vs {opponent}: [-+]\d+\.\d+ per seat-hand; difference [-+]\d+\.\d+ \["
        assert re.search(line, out, re.M), out
    assert weights.exists()
    # The saved policy is a strategy file: it plays in a tournament as any other.
    spec = f"{EXAMPLE}:weights={weights}"
    policy = strategy_factory(spec)(None)
    hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), 0, 4)
    view = seat_view(hand, hand.turn or 0)
    assert policy.choose(view, view["legal"]) in view["legal"]
    tallies, _ = run_tournament([spec, "random"], 1, 2, RuleSet.from_preset("wisconsin"))
    assert tallies[0].seat_hands == 25 and tallies[0].fallbacks == 0
