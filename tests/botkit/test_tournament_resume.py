"""An interrupted tournament loses nothing: Ctrl+C reports the deals played whole, a progress
file survives even SIGKILL, and ``--resume`` gives the figures of one uninterrupted run.

The signal tests run ``sheepshead tournament`` as a real subprocess (SIGINT not ignored, as a
shell's background job would have it), poll its progress file for deals, then signal it.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from botkit.tournament.play import WORKER_MODULE
from botkit.tournament.report import Progress
from client.cli import main
from tests.bots.helpers import CLUSTER_SKIP, local_cluster, table_without_times, tournament_figures
from tests.server.support import ROOT, served_env

TIMEOUT = 60.0
"""Seconds any one wait may take on a busy machine before the test fails."""

STRATEGIES = "random,heuristic"

COUNTING = """
import os

class Counting:
    \"\"\"Plays the first legal action; says on disk that the deals are being played.\"\"\"

    def __init__(self, seed=None):
        with open(os.path.join(os.path.dirname(__file__), "made"), "ab") as f:
            f.write(b".")  # one byte per seat it takes: about 25 a deal

    def choose(self, view, legal):
        return legal[0]
"""


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The subprocesses a test starts: any still running at its end is killed with its group."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(TIMEOUT)


def _start(
    procs: list[subprocess.Popen[bytes]], tmp_path: Path, strategies: str, *args: str
) -> subprocess.Popen[bytes]:
    """``sheepshead tournament ARGS`` in a session of its own (so its process group can be
    signalled as a terminal's Ctrl+C does), its output in files (no pipe to fill up)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "client.cli", "tournament", "--strategies", strategies, *args],
        cwd=ROOT,
        env=served_env(),
        stdout=(tmp_path / "out.txt").open("wb"),
        stderr=(tmp_path / "err.txt").open("wb"),
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    procs.append(proc)
    return proc


def _counting(tmp_path: Path) -> str:
    """A strategy file that counts on disk the seats it is given (in ``made`` beside it)."""
    (tmp_path / "counting.py").write_text(COUNTING)
    return f"random,{tmp_path / 'counting.py'}"


def _wait_for_seats(proc: subprocess.Popen[bytes], tmp_path: Path, seats: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    made = tmp_path / "made"
    while not made.exists() or made.stat().st_size < seats:
        assert proc.poll() is None, f"the tournament ended first ({proc.returncode})"
        assert time.monotonic() < deadline, "no deals played"
        time.sleep(0.02)


def _deals_in(progress: Path) -> int:
    """Deals recorded whole in a progress file (its lines after the header)."""
    try:
        return max(0, progress.read_bytes().count(b"\n") - 1)
    except FileNotFoundError:
        return 0


def _wait_for_deals(proc: subprocess.Popen[bytes], progress: Path, deals: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    while _deals_in(progress) < deals:
        assert proc.poll() is None, f"the tournament ended first ({proc.returncode})"
        assert time.monotonic() < deadline, "no deals recorded"
        time.sleep(0.02)


def _running(marker: Path, parent: int | None = None) -> list[str]:
    """The processes whose whole command line (``ps -ww``) names ``marker``, and with
    ``parent`` the tournament workers it started (``python -m botkit.tournament.worker PID``)."""
    out = subprocess.run(
        ["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True, check=True
    )
    worker = f"-m {WORKER_MODULE} {parent}".split()
    return [
        line
        for line in out.stdout.splitlines()
        if str(marker) in line or line.split()[-3:] == worker
    ]


def test_ctrl_c_reports_the_deals_played_whole_and_writes_the_json(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    results = tmp_path / "t.json"
    strategies = _counting(tmp_path)
    proc = _start(started, tmp_path, strategies, "--deals", "100000", "--json", str(results))
    _wait_for_seats(proc, tmp_path, 25 * 5)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(TIMEOUT) == 130
    out = (tmp_path / "out.txt").read_text()
    assert "Traceback" not in (tmp_path / "err.txt").read_text()
    data = json.loads(results.read_text())
    played = data["deals_played"]
    assert data["interrupted"] is True and data["deals"] == 100000
    # Every deal counted was recorded whole, and every deal recorded is counted.
    assert played == _deals_in(tmp_path / "t.json.progress") >= 1
    assert data["hands"] == 10 * played
    assert data["strategies"]["random"]["seat_hands"] == 25 * played
    assert f"INTERRUPTED after {played} of 100000 deals" in out
    assert re.search(rf"^random - {re.escape(strategies[7:])}: ", out, re.MULTILINE)
    assert f"--resume {tmp_path / 't.json.progress'}" in out


def test_kill_9_then_resume_gives_the_uninterrupted_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[subprocess.Popen[bytes]]
) -> None:
    common = ["--seed", "3", "--deals", "120", "--quiet", "--worst", "2"]
    whole = tmp_path / "whole.json"
    assert main(["tournament", "--strategies", STRATEGIES, *common, "--json", str(whole)]) == 0
    expected = capsys.readouterr().out
    assert not Path(f"{whole}.progress").exists()  # the JSON holds it all: removed

    progress, hands = tmp_path / "run.progress", tmp_path / "hands"
    saving = ["--progress", str(progress), "--save-hands", str(hands)]
    proc = _start(started, tmp_path, STRATEGIES, *common, "--jobs", "2", *saving)
    _wait_for_deals(proc, progress, 10)
    proc.kill()
    assert proc.wait(TIMEOUT) == -signal.SIGKILL
    with progress.open("ab") as f:
        f.write(b'{"deal":7,"tallies":[{"deal_')  # as a kill in the middle of a line leaves it
    done = [json.loads(line)["deal"] for line in progress.read_bytes().splitlines()[1:-1]]
    kept = {
        path: path.stat().st_mtime_ns
        for n in done
        for path in hands.glob(f"deal{n + 1:04d}-seating*.json")
    }
    assert len(kept) == 10 * len(done)

    resumed = tmp_path / "resumed.json"
    args = ["tournament", "--strategies", STRATEGIES, *common, "--json", str(resumed)]
    assert main([*args, "--save-hands", str(hands), "--resume", str(progress)]) == 0
    printed = capsys.readouterr().out
    assert tournament_figures(json.loads(resumed.read_text())) == tournament_figures(
        json.loads(whole.read_text())
    )
    # The same table and the same worst deals, shown whole (replayed from their numbers).
    assert table_without_times(printed).startswith(table_without_times(expected))
    assert len(list(hands.glob("*.json"))) == 10 * 120
    assert {path: path.stat().st_mtime_ns for path in kept} == kept  # not written again
    # One line per deal, the torn one cut off before appending.
    deals = sorted(json.loads(line)["deal"] for line in progress.read_bytes().splitlines()[1:])
    assert deals == list(range(120))


def test_a_resume_of_another_tournament_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = tmp_path / "run.progress"
    base = ["tournament", "--strategies", STRATEGIES, "--deals", "3", "--quiet"]
    assert main([*base, "--progress", str(progress)]) == 0
    before = progress.read_bytes()
    capsys.readouterr()

    other = ["tournament", "--strategies", "heuristic,random", "--deals", "4", "--quiet"]
    assert main([*other, "--seed", "2", "--rule", "no_pick=doubler", "--resume", str(progress)])
    err = capsys.readouterr().err
    assert "another tournament's" in err
    assert "--strategies random,heuristic there, heuristic,random here" in err
    assert "--seed 1 there, 2 here" in err and "--deals 3 there, 4 here" in err
    assert "rules differ in: no_pick" in err
    # A new run does not write over the deals of another.
    assert main([*base, "--progress", str(progress)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main([*base, "--resume", str(tmp_path / "missing")]) == 2
    assert "cannot read progress file" in capsys.readouterr().err
    assert progress.read_bytes() == before


def test_a_resume_file_that_is_no_progress_file_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --resume /dev/zero read until the memory ran out; a binary file without a newline said
    # "holds no complete header: its run was stopped as it began".
    base = ["tournament", "--strategies", "heuristic,random", "--deals", "3", "--quiet"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # as /dev/zero: reading it would never end (here: never begin)
    assert main([*base, "--resume", str(fifo)]) == 2
    assert f"{fifo} is not a tournament progress file: not a regular file" in (
        capsys.readouterr().err
    )
    binary = tmp_path / "bin"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert main([*base, "--resume", str(binary)]) == 2
    assert f"{binary} is not a tournament progress file" in capsys.readouterr().err
    torn = tmp_path / "torn"
    torn.write_bytes(b'{"format":"sheepshead-tourn')  # killed while writing its header
    assert main([*base, "--resume", str(torn)]) == 2
    assert "its run was stopped as it began" in capsys.readouterr().err
    deep = tmp_path / "deep"  # nested past the JSON parser's stack: a RecursionError traceback
    deep.write_bytes(b"[" * 100_000 + b"\n")
    assert main([*base, "--resume", str(deep)]) == 2
    assert f"{deep} is not a tournament progress file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("sig", "group", "status"),
    [(signal.SIGINT, True, 130), (signal.SIGTERM, False, 128 + signal.SIGTERM)],
    ids=["ctrl-c-to-the-group", "sigterm-to-the-parent"],
)
def test_an_interrupted_run_of_two_jobs_leaves_no_process(
    tmp_path: Path,
    started: list[subprocess.Popen[bytes]],
    sig: signal.Signals,
    group: bool,
    status: int,
) -> None:
    results = tmp_path / "jobs.json"  # its path names the run, whose pid its workers
    strategies = _counting(tmp_path)
    args = ["--deals", "100000", "--jobs", "2", "--json", str(results)]
    proc = _start(started, tmp_path, strategies, *args)
    _wait_for_seats(proc, tmp_path, 25 * 5)
    assert len(_running(results, proc.pid)) == 3  # the run and its two workers
    if group:
        os.killpg(proc.pid, sig)  # a terminal's Ctrl+C reaches every process of the group
    else:
        proc.send_signal(sig)
    code = proc.wait(TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while _running(results, proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(results, proc.pid) == []
    assert code == status
    assert "Traceback" not in (tmp_path / "err.txt").read_text()
    assert json.loads(results.read_text())["interrupted"] is True


def test_a_resumed_run_counts_only_its_own_deals_for_the_rate() -> None:
    out = io.StringIO()
    progress = Progress(100, out, True, already=90)
    progress.start -= 10.0  # ten seconds into this run, five deals played in it
    progress.update(95)
    line = out.getvalue()
    assert "95/100 deals  0.50 deals/s" in line and "ETA 0:10" in line


def test_a_cluster_run_resumes_as_a_local_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed", reason=CLUSTER_SKIP)  # skip before the local run, not after
    base = ["tournament", "--strategies", STRATEGIES, "--deals", "6", "--seed", "5", "--quiet"]
    whole, progress = tmp_path / "whole.json", tmp_path / "run.progress"
    assert main([*base, "--json", str(whole), "--progress", str(progress)]) == 0
    # As if stopped after three deals (in the order a cluster gives them back: deal order).
    lines = progress.read_bytes().splitlines(keepends=True)
    progress.write_bytes(b"".join(lines[:4]))
    with local_cluster(1) as address:
        resumed = tmp_path / "resumed.json"
        there = ["--cluster", address, "--json", str(resumed)]
        assert main([*base, *there, "--resume", str(progress)]) == 0
    capsys.readouterr()
    figures = tournament_figures(json.loads(resumed.read_text()))
    assert figures.pop("cluster") == address
    assert figures == tournament_figures(json.loads(whole.read_text()))
    assert sorted(json.loads(line)["deal"] for line in progress.read_bytes().splitlines()[1:]) == [
        0, 1, 2, 3, 4, 5,
    ]  # fmt: skip
