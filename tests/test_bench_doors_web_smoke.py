"""The doors' attack benchmark still runs its browser scenarios (the SSH ones are in
:mod:`tests.test_bench_doors_ssh_smoke`: a file each, so two test workers share the slow runs)."""

from __future__ import annotations

import re

from tests.test_bench_smoke import report_line, run_bench

SCENARIOS = ("tab churn", "script GETs", "ws GETs", "big pings")
"""The browser door's scenarios of ``bench/attack_doors.py``."""

SCENARIO_LINE = r"victim ping: p50 +[\d.]+ .* CPU-s \([\d.]+ the server alone\) in"
"""What a scenario's report line says: the victim's pings and the door's CPU."""


def doors_report(scenarios: tuple[str, ...]) -> str:
    """A third of a second of each of ``scenarios`` against one server and its doors: the
    report (a browser tab is a client process of its own: a second of tab churn cost the run
    8 CPU seconds, the four browser scenarios at a third of one 11 in all)."""
    return run_bench(
        "attack_doors.py",
        "--seconds",
        "0.3",
        "--loops",
        "1",
        "--settle",
        "0.2",
        "--scenarios",
        ",".join(scenarios),
        timeout=240,
    )


def test_the_doors_attack_benchmark_reports_each_browser_scenario() -> None:
    report = doors_report(SCENARIOS)
    for scenario in SCENARIOS:
        line = report_line(report, scenario)
        assert re.search(SCENARIO_LINE, line), report
    assert "well-behaved browser at" in report, report
    assert "attempts: {" in report
