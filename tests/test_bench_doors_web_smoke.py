"""The doors' attack benchmark still runs its browser scenarios (the SSH ones are in
:mod:`tests.test_bench_doors_ssh_smoke`: a file each, so two test workers share the slow runs)."""

from __future__ import annotations

import ast
import re

from tests.test_bench_smoke import report_line, run_bench

SCENARIOS = ("second tabs", "tab churn", "script GETs", "ws GETs", "big pings")
"""The browser door's scenarios of ``bench/attack_doors.py`` (``second tabs`` first: its first
tab seats a browser before the others fill the door)."""

SCENARIO_LINE = r"victim ping: p50 +[\d.]+ .* CPU-s \([\d.]+ the server alone\) in"
"""What a scenario's report line says: the victim's pings and the door's CPU."""


def doors_report(scenarios: tuple[str, ...]) -> str:
    """A third of a second of each of ``scenarios`` against one server and its doors: the
    report (a browser tab is a client process of its own: a second of tab churn cost the run
    8 CPU seconds, the four browser scenarios at a third of one 11 in all; ``second tabs``
    seats a browser first, two client processes, then asks at least once: some 2 more)."""
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


def attempts(report: str, scenario: str) -> dict[str, int]:
    """How ``scenario``'s attempts ended: the ``attempts:`` line after its line in ``report``."""
    lines = report.splitlines()
    start = lines.index(report_line(report, scenario))
    found = next((x for x in lines[start + 1 :] if x.strip().startswith("attempts: ")), None)
    assert found is not None, report
    counts = ast.literal_eval(found.split("attempts: ", 1)[1])
    assert isinstance(counts, dict), report
    return counts


def test_the_doors_attack_benchmark_reports_each_browser_scenario() -> None:
    report = doors_report(SCENARIOS)
    for scenario in SCENARIOS:
        line = report_line(report, scenario)
        assert re.search(SCENARIO_LINE, line), report
    assert "well-behaved browser at" in report, report
    assert "attempts: {" in report
    # A seated browser's second tab is asked whether to take the seat (each loop seats one).
    second = attempts(report, "second tabs")
    assert second.get("first tabs seated") == 1 and second.get("asked", 0) > 0, report
