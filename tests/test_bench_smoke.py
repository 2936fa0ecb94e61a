"""The benchmarks still run: a second of each against the real server (bench/ is run by hand, so a
break there would otherwise go unnoticed until someone needs the numbers)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _accepted(report: str) -> int:
    found = re.search(r"actions accepted:\s+([\d,]+)", report)
    assert found is not None, report
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize(
    "args",
    [
        ("--mode", "closed", "--tables", "2", "--seconds", "1", "--warmup", "0.5"),
        ("--mode", "human", "--tables", "10", "--seconds", "1", "--warmup", "0.5", "--pace", "0.2"),
    ],
    ids=["closed", "human"],
)
def test_the_server_benchmark_plays_and_reports(args: tuple[str, ...]) -> None:
    report = _run("server.py", *args)
    accepted = _accepted(report)
    assert accepted > 10
    assert "errors:" not in report  # every action was accepted, every frame decoded
    timed = re.search(r"action -> any seat:.*\(n=([\d,]+)\)", report)
    assert timed is not None, report
    # Each action's state was timed at (nearly) all five seats: the states were read.
    assert int(timed.group(1).replace(",", "")) >= 4 * accepted


def test_the_floor_benchmark_plays_and_reports() -> None:
    report = _run("floor.py", "--tables", "2", "--seconds", "1")
    assert re.search(r"actions: [\d,]+ = [\d,]+ actions/s", report)
