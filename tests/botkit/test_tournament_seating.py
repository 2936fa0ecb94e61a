"""The duplicate seatings favour no strategy by its place in ``--strategies``.

Three strategies or more also play every seating reflected (docs/bots.md, "The duplicate
format"): before that the cyclic order ``0 -> 1 -> 2`` sat the first strategy right after the
third in four places of five. Two strategies' seatings never changed, and a progress file
written with the old seatings of three is refused rather than mixed with new deals.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from botkit.tournament.play import plays_per_deal, run_tournament, seat_assignments
from client.cli import main
from engine.rules import RuleSet
from tests.test_bench_smoke import ROOT, run_bench

TWO_WAY = [
    [0, 1, 0, 1, 0],
    [1, 0, 1, 0, 0],
    [0, 1, 0, 0, 1],
    [1, 0, 0, 1, 0],
    [0, 0, 1, 0, 1],
    [1, 0, 1, 0, 1],
    [0, 1, 0, 1, 1],
    [1, 0, 1, 1, 0],
    [0, 1, 1, 0, 1],
    [1, 1, 0, 1, 0],
]
"""The ten plays of two strategies, as every recorded two-way figure was played."""


def test_two_strategies_keep_their_ten_plays() -> None:
    assert seat_assignments(2) == TWO_WAY
    assert plays_per_deal(2) == 10


@pytest.mark.parametrize(("a", "b"), [(0, 1), (0, 2), (1, 2)])
def test_three_strategies_seatings_do_not_change_when_two_swap_places_in_the_list(
    a: int, b: int
) -> None:
    swap = {a: b, b: a}
    plays = Counter(tuple(p) for p in seat_assignments(3))
    swapped = Counter(tuple(swap.get(i, i) for i in p) for p in seat_assignments(3))
    assert swapped == plays


@pytest.mark.parametrize("k", [3, 4, 5])
def test_each_strategy_has_each_other_on_its_left_as_often_as_on_its_right(k: int) -> None:
    # Seat s + 1 plays right after seat s.
    after = Counter((p[s], p[(s + 1) % 5]) for p in seat_assignments(k) for s in range(5))
    for i in range(k):
        for j in range(k):
            assert after[i, j] == after[j, i], (i, j)


def test_two_identical_strategies_of_three_tie_exactly() -> None:
    # heuristic and heuristic-v1 play alike whatever their seeds: the two heuristics differ in
    # nothing but their place in the list, so their figures must be equal to the point.
    rules = RuleSet.from_preset("wisconsin")
    # (Seed 5: its two deals are not played alike by the three; the old seatings gave the two
    # heuristics +18 and -6.)
    tallies, _ = run_tournament(["heuristic", "heuristic", "heuristic-v1"], 2, 5, rules)
    first, second, third = tallies
    assert (first.payout, second.payout, third.payout) == (12, 12, -24)
    assert first.deal_means == second.deal_means
    assert (first.picks, first.picker_wins) == (second.picks, second.picker_wins)
    assert first.seat_hands == second.seat_hands == third.seat_hands == 2 * 50


def test_the_ceiling_credits_two_identical_strategies_of_three_nothing_in_any_role() -> None:
    # bench/ceiling.py compares each seat with the seating where the two are swapped: the
    # same hand, the two bots exchanged, so nothing is left to credit to any role.
    report = run_bench(
        "ceiling.py", "--strategies", "heuristic,heuristic,heuristic-v1", "--deals", "3"
    )
    assert "heuristic - heuristic: +0.000, 95% CI [+0.000, +0.000]" in report, report
    credits = re.findall(r"^  (\w+) +[\d.]+%  ([+-][\d.]+) (\[.*?\])", report, re.MULTILINE)
    assert len(credits) >= 3, report
    for role, credit, interval in credits:
        assert (credit, interval) == ("+0.000", "[+0.000, +0.000]"), role


def _old_seating(progress: Path) -> None:
    # The header as a run before the reflected seatings wrote it: no "seating".
    head, *rest = progress.read_text().splitlines(keepends=True)
    fields = json.loads(head)
    del fields["seating"]
    progress.write_text(json.dumps(fields) + "\n" + "".join(rest))


def test_a_progress_file_of_the_old_three_way_seatings_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = tmp_path / "run.progress"
    base = ["tournament", "--strategies", "random,heuristic,heuristic-v1", "--quiet"]
    assert main([*base, "--deals", "1", "--progress", str(progress)]) == 0
    _old_seating(progress)
    before = progress.read_bytes()
    capsys.readouterr()
    assert main([*base, "--deals", "1", "--resume", str(progress)]) == 2
    err = capsys.readouterr().err
    assert "seating version 1, this run's is 2" in err and "start the tournament again" in err
    assert progress.read_bytes() == before


def test_a_progress_file_of_two_strategies_from_before_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = tmp_path / "run.progress"
    whole = tmp_path / "whole.json"
    resumed = tmp_path / "resumed.json"
    base = ["tournament", "--strategies", "random,heuristic", "--quiet", "--deals", "2"]
    assert main([*base, "--json", str(whole)]) == 0
    # The first deal of the two played "before": its header without a seating version.
    assert main([*base[:-1], "1", "--progress", str(progress)]) == 0
    head, line = progress.read_text().splitlines(keepends=True)
    fields = json.loads(head)
    del fields["seating"]
    fields["deals"] = 2
    progress.write_text(json.dumps(fields) + "\n" + line)
    assert main([*base, "--json", str(resumed), "--resume", str(progress)]) == 0
    capsys.readouterr()
    one, two = json.loads(whole.read_text()), json.loads(resumed.read_text())
    for name, figures in one["strategies"].items():
        assert two["strategies"][name]["total_payout"] == figures["total_payout"]
        assert two["strategies"][name]["seat_hands"] == figures["seat_hands"]


def test_the_ceiling_credits_a_difference_half_to_each_plays_role(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two searches that play alike got about +0.03 as the partner and -0.04 as defenders
    (the total 0): a random choice (a call, the draws) gave a seat another role in the
    swapped play, and the whole difference went to the first play's role. Half to each play's
    role credits alike bots nothing in any role."""
    name = "bench_ceiling"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "ceiling.py")
    assert spec is not None and spec.loader is not None
    ceiling = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, ceiling)
    monkeypatch.setattr(sys, "path", list(sys.path))  # it puts the project first
    spec.loader.exec_module(ceiling)

    def hand(partner: int, payouts: list[int]) -> SimpleNamespace:
        return SimpleNamespace(leaster=False, picker=4, partner=partner, payouts=payouts)

    seats = [0, 1, 2, 0, 1]
    # Seat 0 is the partner in the first play and a defender in the swapped one, and the
    # other way round in a second pair: alike bots, mirrored outcomes.
    partner_first = (hand(0, [2, -2, -2, -2, 4]), seats, hand(1, [-2, 2, -2, -2, 4]))
    defender_first = (hand(1, [-2, 2, -2, -2, 4]), seats, hand(0, [2, -2, -2, -2, 4]))
    credit = ceiling.role_credit([partner_first, defender_first])
    assert credit["partner"] == credit["defender"] == 0, credit
    assert sum(ceiling.role_credit([partner_first]).values()) == 4  # the whole difference
