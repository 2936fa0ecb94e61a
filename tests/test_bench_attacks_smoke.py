"""The attack benchmarks still run: a second of each against the real server (a file of its own,
so that the test workers share the slow smoke runs with :mod:`tests.test_bench_smoke`)."""

from __future__ import annotations

import re

import pytest

from tests.test_bench_smoke import report_line, run_bench


def test_the_costly_requests_benchmark_plays_a_match_and_reports_each_request() -> None:
    report = run_bench(
        "attack_requests.py", "--seconds", "1", "--hands", "1", "--tables", "3", "--matches", "2"
    )
    assert "2 1-hand matches played and 3 tables opened" in report
    for request in ("history", "history-match", "standings", "list_tables"):
        line = report_line(report, request)
        assert re.search(r"victim ping: p50 +[\d.]+ +p99 +[\d.]+", line), report
    assert "'ok':" in report


def test_the_coach_attack_benchmark_reports_bot_moves_before_during_and_after() -> None:
    report = run_bench("attack_coach.py", "--seconds", "1", "--strategy", "random")
    for window in ("before", "during", "after"):
        line = report_line(report, window)
        assert re.search(r"bot move: p50 +[\d.]+ +p99 +[\d.]+", line), report
    assert "'asked':" in report


def test_the_running_table_loop_of_the_attack_benchmark_reports_its_figures() -> None:
    report = run_bench("attack.py", "--only", "running", "--seconds", "1")
    assert re.search(r"running tables \d+ rounds from 2 addresses in [\d.]+ s: \{", report), report
    assert "a newcomer from another address creates: ok" in report, report


def test_the_match_ends_benchmark_reports_the_loops_and_the_standings() -> None:
    report = run_bench("attack_matches.py", "--seconds", "1", "--matches", "200")
    for scenario in ("end/rematch", "create/start/end/leave"):
        line = report_line(report, scenario)
        assert re.search(r"cycles/min .* MB an hour", line), report
    assert re.search(r"played out in [\d.]+ s", report_line(report, "crashed runs")), report
    line = report_line(report, "standings ")
    assert re.search(r"victim ping: p50 +[\d.]+ .* server memory \d+ MB", line), report
    assert "standings replies (" in report


def test_the_new_keys_benchmark_stores_a_row_per_counted_join_across_a_restart() -> None:
    report = run_bench("attack_keys.py", "--seconds", "1")
    rows = []
    for run in ("new keys", "after a restart"):
        line = report_line(report, run)
        found = re.search(r"'join ok': (\d+).*identities rows \+(\d+);", line)
        assert found, report
        joins, stored = int(found[1]), int(found[2])
        # Within the burst every join that got through is a new key remembered.
        assert 0 < stored == joins, report
        rows.append(stored)
    assert f"identities rows in all: {sum(rows)}" in report, report


def test_the_mdns_flood_benchmark_reports_its_figures() -> None:
    import os
    import shutil

    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("bench/attack_mdns.py makes network namespaces: root and iproute2 only")
    report = run_bench("attack_mdns.py", "--seconds", "1")
    assert "announced on the LAN" in report, report
    for name in ("quiet", "query flood"):
        line = report_line(report, name)
        assert re.search(r"victim ping: p50 +[\d.]+ .* server CPU +\d+%", line), report
