"""The doors' attack benchmark still runs its SSH scenarios (a file of its own, beside
:mod:`tests.test_bench_doors_web_smoke`, so that two test workers share the slow runs)."""

from __future__ import annotations

import re

from tests.test_bench_doors_web_smoke import SCENARIO_LINE, attempts, doors_report
from tests.test_bench_smoke import report_line

SCENARIOS = (
    "second windows",
    "ssh churn",
    "resize flood",
    "huge pty",
    "slow quitters",
    "keyless logins",
)
"""The SSH door's scenarios of ``bench/attack_doors.py`` (``second windows`` first: its first
session seats a key before the slow quitters hold the door's slots)."""


def test_the_doors_attack_benchmark_reports_each_ssh_scenario() -> None:
    report = doors_report(SCENARIOS)
    for scenario in SCENARIOS:
        line = report_line(report, scenario)
        assert re.search(SCENARIO_LINE, line), report
    assert "attempts: {" in report
    # A seated key's second window is asked whether to take the seat (each loop seats one).
    second = attempts(report, "second windows")
    assert second.get("first sessions seated") == 1 and second.get("asked", 0) > 0, report
    # What ``keyless logins`` counts when the door lets a keyless login in, or offers
    # keyboard-interactive a second time in one connection.
    assert "LOGGED IN" not in report, report
    assert "KEYBOARD-INTERACTIVE" not in report, report
