"""``sheepshead tournament``: the duplicate seating scheme and a small real run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from botkit.tournament.play import plays_per_deal, seat_assignments
from client.cli import main
from engine.record import replay_record


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_every_strategy_holds_every_seat_equally_often(k: int) -> None:
    plays = seat_assignments(k)
    # Five times for two strategies; ten for more, whose seatings are also played reflected.
    times = 5 if k == 2 else 10
    assert len(plays) == plays_per_deal(k) == times * k
    for strategy in range(k):
        for seat in range(5):
            assert sum(p[seat] == strategy for p in plays) == times


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
    assert data["deals_played"] == 4 and data["hands"] == 4 * 30
    stats = data["strategies"]
    assert list(stats) == ["heuristic", "random", "search:samples=2:setup_samples=2"]
    assert sum(s["total_payout"] for s in stats.values()) == 0  # every hand is zero-sum
    for name, s in stats.items():
        assert s["seat_hands"] == 4 * 50
        assert s["mean"] == pytest.approx(s["total_payout"] / s["seat_hands"])
        low, high = s["ci95"]
        assert low <= s["mean"] <= high
        assert 0 <= s["pick_rate"] <= 1 and s["picks"] == round(s["pick_rate"] * 200)
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
    assert main(["tournament", "--strategies", "a.py,b.py,random", "--worst", "2"]) == 2
    assert "--worst compares two strategies" in capsys.readouterr().err
    assert main(["tournament", "--strategies", "random,heuristic", "--deal", "0"]) == 2
    assert "--deal counts from 1" in capsys.readouterr().err


def test_more_deals_or_jobs_than_the_machine_holds_are_refused(
    capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --deals 99999999999 made every deal up front (some 470 B each) and filled the memory
    # without a word; --jobs 1000 started as many interpreters (some 26 MB each).
    from botkit.tournament import cli as tournament_cli

    def no_jobs(*args: Any, **kwargs: Any) -> list[Any]:
        raise AssertionError("the tournament started")

    monkeypatch.setattr(tournament_cli, "make_jobs", no_jobs)
    monkeypatch.setattr(tournament_cli, "jobs_max", lambda: 8, raising=False)
    base = ["tournament", "--strategies", "random,heuristic", "--quiet"]
    assert main([*base, "--deals", "1000001"]) == 2
    assert "--deals must be from 1 to 1,000,000" in capsys.readouterr().err
    assert main([*base, "--deals", "2", "--jobs", "9"]) == 2
    assert "--jobs 9 is more than 8, 4 per core here" in capsys.readouterr().err


def test_results_that_could_not_be_written_are_refused_before_the_first_deal(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --json into a missing folder played every deal, then said "cannot write"; a file as
    # --save-hands said "[Errno 17] File exists".
    from botkit.tournament import cli as tournament_cli

    def no_jobs(*args: Any, **kwargs: Any) -> list[Any]:
        raise AssertionError("the tournament started")

    monkeypatch.setattr(tournament_cli, "make_jobs", no_jobs)
    base = ["tournament", "--strategies", "random,heuristic", "--deals", "1", "--quiet"]
    missing = tmp_path / "no" / "r.json"
    assert main([*base, "--json", str(missing), "--progress", str(tmp_path / "p")]) == 2
    assert f"--json {missing}: its folder {missing.parent} does not exist" in (
        capsys.readouterr().err
    )
    assert main([*base, "--json", str(tmp_path)]) == 2
    assert "is a directory: give a file name" in capsys.readouterr().err
    a_file = tmp_path / "f"
    a_file.write_text("")
    assert main([*base, "--save-hands", str(a_file)]) == 2
    assert f"--save-hands {a_file} is a file: give a directory" in capsys.readouterr().err


def test_results_cut_short_while_written_leave_no_half_file(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from botkit.tournament import cli as tournament_cli

    def full_disk(summary: Any, f: Any, **kwargs: Any) -> None:
        f.write('{"strategies": ')
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tournament_cli.json, "dump", full_disk)
    results = tmp_path / "r.json"
    base = ["tournament", "--strategies", "random,heuristic", "--deals", "1", "--quiet"]
    assert main([*base, "--json", str(results)]) == 1
    assert f"cannot write {results}: No space left on device" in capsys.readouterr().err
    # No half of r.json (open "w" left '{"strategies": '); the progress file stays, to resume.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json.progress"]


WIRE_FORM = '''
class WireForm:
    """Answers as a network bot would: the legal map without its seat, bury cards reversed."""

    name = "wire-form"

    def __init__(self, seed=None):
        pass

    def choose(self, view, legal):
        choice = {k: v for k, v in legal[-1].items() if k != "seat"}
        if "cards" in choice:
            choice["cards"] = list(reversed(choice["cards"]))
        return choice
'''

FAILING = """
class Failing:
    name = "failing"

    def __init__(self, seed=None):
        self.calls = 0

    def choose(self, view, legal):
        self.calls += 1
        if self.calls % 5 == 0:
            raise RuntimeError("every fifth decision")
        return legal[0]
"""


def _tournament(tmp_path: Path, capsys: Any, strategies: str, *extra: str) -> tuple[dict, str]:
    path = tmp_path / "out.json"
    args = ["tournament", "--strategies", strategies, "--seed", "3", "--quiet"]
    assert main([*args, "--json", str(path), *extra]) == 0
    return json.loads(path.read_text()), capsys.readouterr().out


def test_wire_form_answers_are_accepted_and_a_failing_strategy_falls_back(
    tmp_path: Path, capsys: Any
) -> None:
    wire = tmp_path / "wire_form.py"
    wire.write_text(WIRE_FORM)
    failing = tmp_path / "failing.py"
    failing.write_text(FAILING)
    data, printed = _tournament(tmp_path, capsys, f"{wire},{failing}", "--deals", "2")
    stats = data["strategies"]
    assert stats[str(wire)]["fallbacks"] == 0 and stats[str(wire)]["name"] == "wire-form"
    failed = stats[str(failing)]
    assert 0 < failed["fallbacks"] <= failed["decisions"] // 5  # each seat counts its own
    assert len(failed["failures"]) == 5
    first = failed["failures"][0]
    assert re.match(rf"deal 1, seating \d+, seat \d: {re.escape(str(failing))} failed at ", first)
    assert f"{failing}:11: RuntimeError: every fifth decision" in first  # the raising line
    assert f"{failing} (failing)" in printed  # the name beside the file
    assert f"{failing}: failed in {failed['fallbacks']} of {failed['decisions']}" in printed


def test_a_strategy_may_play_itself_under_two_labels(tmp_path: Path, capsys: Any) -> None:
    data, printed = _tournament(tmp_path, capsys, "random,random", "--deals", "2")
    assert list(data["strategies"]) == ["random", "random#2"]
    assert data["strategies"]["random#2"]["name"] == "random"
    assert "random - random#2:" in printed


def test_saved_hands_replay_and_one_deal_reruns_the_same(tmp_path: Path, capsys: Any) -> None:
    full = tmp_path / "full"
    _tournament(tmp_path, capsys, "heuristic,random", "--deals", "3", "--save-hands", str(full))
    files = sorted(full.iterdir())
    assert [f.name for f in files][:2] == ["deal0001-seating00.json", "deal0001-seating01.json"]
    assert len(files) == 3 * 10
    for path in files:
        record = json.loads(path.read_text())
        assert replay_record(record)["payouts"] == record["payouts"]
        assert sorted(set(record["strategies"])) == ["heuristic", "random"]
        assert record["tournament"]["deal"] == int(path.name[4:8])
    one = tmp_path / "one"
    data, _ = _tournament(
        tmp_path,
        capsys,
        "heuristic,random",
        "--deals",
        "3",
        "--deal",
        "2",
        "--save-hands",
        str(one),
    )
    assert data["deals_played"] == 1 and data["deal"] == 2
    rerun = sorted(one.iterdir())
    assert [f.name for f in rerun] == [f.name for f in files if f.name.startswith("deal0002")]
    for path in rerun:
        assert path.read_text() == (full / path.name).read_text()


def test_worst_shows_both_seatings_side_by_side(tmp_path: Path, capsys: Any) -> None:
    saved = tmp_path / "hands"
    _, printed = _tournament(
        tmp_path, capsys, "heuristic,random", "--deals", "6", "--worst", "3",
        "--save-hands", str(saved),
    )  # fmt: skip
    heads = re.findall(
        r"^=== deal (\d+), rotation (\d): heuristic ([-+]\d+) over both", printed, re.M
    )
    assert len(heads) == 3 and len({deal for deal, _, _ in heads}) == 3
    scores = [int(s) for _, _, s in heads]
    assert scores == sorted(scores)
    # Each score is what heuristic won over the two mirrored seatings, from the saved records.
    for deal, rotation, score in heads:
        won = 0
        for seating in (int(rotation), 5 + int(rotation)):
            record = json.loads(
                (saved / f"deal{int(deal):04d}-seating{seating:02d}.json").read_text()
            )
            won += sum(
                pay for pay, who in zip(record["payouts"], record["strategies"], strict=True)
                if who == "heuristic"
            )  # fmt: skip
        assert won == int(score)
    assert "--deal" in printed and "| seating" in printed
