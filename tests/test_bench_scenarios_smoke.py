"""The rest of the attack benchmarks' scenarios and the storage benchmarks still run, each at its
smallest (a file of its own, so that a test worker runs it beside the other smoke files)."""

from __future__ import annotations

import re

from tests.test_bench_smoke import report_line, run_bench


def _number(pattern: str, line: str) -> float:
    """The number ``pattern``'s first group finds in ``line``."""
    found = re.search(pattern, line)
    assert found is not None, f"no {pattern!r} in {line!r}"
    return float(found.group(1).replace(",", ""))


def test_the_attack_benchmarks_notices_takeback_and_spectators_report_their_figures() -> None:
    # One server for the three (--only is repeatable): a third of a second each, one table of
    # join/leave loops, one takeback player; the spectators' 51, one past the limit, which is
    # what the scenario is about.
    report = run_bench(
        "attack.py",
        *("--only", "notices", "--only", "takeback", "--only", "spectators"),
        *("--seconds", "0.3", "--notice-tables", "1", "--takeback-loops", "1"),
    )
    notices = report_line(report, "notices ")
    told = _number(r": (\d+) notices told \(\d+/s\)", notices)
    assert told > 0 and "'joined':" in notices and "'left':" in notices, report
    # Every table keeps its last 50 lines: the join/leave notices filled the one table's ring.
    rows = _number(r"MB filled \((\d+) chat_lines rows\)", report_line(report, "database "))
    assert 0 < rows <= 50, report

    takeback = report_line(report, "takeback ")
    taken = _number(r": (\d+) takebacks \(", takeback)
    # Each takeback under a new name is told the seat kept its name (PROTOCOL.md §10).
    assert taken > 0 and f"'name_kept': {taken:.0f}" in takeback, report

    line = report_line(report, "spectators ")
    assert "51 asked to watch" in line and "refused {'too_many_spectators': 1}" in line, report
    assert "listed spectators 50" in line, report
    silent = report_line(report, "silent, table playing")
    assert _number(r"per spectator a second: ([\d.]+) states", silent) > 0, report
    chatting = report_line(report, "all chatting")
    assert _number(r"([\d.]+) chat lines", chatting) > 0, report
    lines = report.splitlines()
    full = lines.index(report_line(report, "watch loop, table full"))
    assert "'too_many_spectators':" in lines[full + 1], report  # the loops' line
    free = lines.index(report_line(report, "watch/leave, one free"))
    assert "'ok':" in lines[free + 1], report
    assert "server alive True" in report_line(report, "afterwards:"), report


def test_the_coach_hint_attack_reports_bot_moves_pings_and_the_hints() -> None:
    report = run_bench(
        "attack_coach.py", "--hint-tables", "1", "--seconds", "0.3", "--strategy", "random"
    )
    assert "1 attackers at tables with hints" in report, report
    moves = 0
    for window in ("before", "during", "after"):
        line = report_line(report, window)
        # A loaded machine may make no bot move in a 0.3 s window (then "nan", n=0).
        assert re.search(r"bot move: p50 +([\d.]+|nan) +p99 +([\d.]+|nan)", line), report
        moves += int(_number(r"\(n=(\d+)\)", line))
    assert moves > 0, report
    for line in report.splitlines():
        if line.strip().startswith("ping:"):
            assert re.search(r"server CPU +\d+%, bot workers +\d+%", line), report
    hints = report_line(report, "hints:")
    assert _number(r"'ok': (\d+)", hints) > 0, report
    assert re.search(r"answered in p50 +[\d.]+", hints), report


def test_the_upgrade_start_benchmark_times_each_schemas_first_start() -> None:
    report = run_bench("upgrade_start.py", "--hands", "20", "--distinct", "5", "--old")
    assert "filled: 20 hands" in report, report
    for label in ("current", "schema 13", "schema 7"):
        line = report_line(report, f"{label}:")
        assert re.search(r": [\d.]+ s from start to listening", line), report


def test_the_line_ring_benchmark_keeps_each_tables_last_lines() -> None:
    report = run_bench("line_ring.py", "--tables", "2", "--lines", "400", "--every", "200")
    for lines in ("200", "400"):
        line = report_line(report, f"{lines} lines:")
        # Each table's ring holds its last 50 lines, however many it was sent.
        assert re.search(r": 100 rows, [\d,]+ pages \(\d+ free\), [\d.]+ MB; [\d.]+ µs", line)
    assert re.search(r"the file once closed: [\d.]+ MB", report), report


def test_the_evening_benchmark_restarts_the_server_twice_without_a_stumble() -> None:
    # A nine-second evening at a fast pace: the server-bot table (its host a network bot) and
    # the people's table, a SIGTERM and a SIGKILL restart; it exits 1 on any stumble. Some
    # 2.5 CPU-s, most of it three server starts.
    report = run_bench(
        "evening.py",
        *("--minutes", "0.15", "--bot-tables", "0", "--bot-pace", "0.03", "--bot-delay", "0.03"),
        *("--hand-pause", "0", "--trick-pause", "0", "--think", "0.03"),
    )
    for how in ("SIGTERM", "SIGKILL"):
        line = report_line(report, f"{how}:")
        assert re.search(r"every client back [\d.]+ s after the stop", line), report
    assert _number(r"in all (\d+) hands", report_line(report, "in all")) > 0, report
    assert "lost 0" in report_line(report, "matches over:"), report
    assert "FAILS" not in report_line(report, "stored hands:"), report
    assert report.rstrip().endswith("a whole evening without a stumble"), report
