"""The benchmarks still run: a second of each against the real server (bench/ is run by hand, so a
break there would otherwise go unnoticed until someone needs the numbers)."""

from __future__ import annotations

import importlib.util
import multiprocessing
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_bench(script: str, *args: str, timeout: float = 120) -> str:
    """Run ``bench/SCRIPT ARGS`` to its end; its standard output (the report). A run past
    ``timeout`` fails with what it had printed (the evening's smoke once hung with nothing
    to say where)."""
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / script), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired as exc:
        said = [_text(exc.stdout)[-3000:], _text(exc.stderr)[-3000:]]
        pytest.fail(f"bench/{script} ran past {timeout} s; it printed:\n" + "\n---\n".join(said))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _text(output: str | bytes | None) -> str:
    """What a timed-out run had printed (bytes where the run was cut off mid-read)."""
    if isinstance(output, bytes):
        return output.decode("utf-8", "replace")
    return output or ""


def report_line(report: str, start: str) -> str:
    """The first line of ``report`` that starts (past its indent) with ``start``."""
    found = next((x for x in report.splitlines() if x.strip().startswith(start)), None)
    assert found is not None, f"no line starting {start!r} in:\n{report}"
    return found


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
    report = run_bench("server.py", *args)
    accepted = _accepted(report)
    assert accepted > 10
    assert "errors:" not in report  # every action was accepted, every frame decoded
    timed = re.search(r"action -> any seat:.*\(n=([\d,]+)\)", report)
    assert timed is not None, report
    # Each action's state was timed at (nearly) all five seats: the states were read.
    assert int(timed.group(1).replace(",", "")) >= 4 * accepted


def test_the_floor_benchmark_plays_and_reports() -> None:
    report = run_bench("floor.py", "--tables", "2", "--seconds", "1")
    assert re.search(r"actions: [\d,]+ = [\d,]+ actions/s", report)
    assert "action -> any seat" not in report  # timed only at a pace


def test_the_paced_floor_benchmark_times_every_seat() -> None:
    report = run_bench("floor.py", "--tables", "5", "--seconds", "1", "--pace", "0.1")
    found = re.search(r"actions: ([\d,]+) = ", report)
    assert found is not None, report
    actions = int(found.group(1).replace(",", ""))
    # 5 tables at one action per 0.1 s on average: about 50 in the window, not a closed loop's.
    assert 10 < actions < 200, report
    timed = re.search(r"action -> any seat:.*\(n=([\d,]+)\)", report)
    assert timed is not None, report
    # Each action's next frame was timed at (nearly) all five seats; the window may close on
    # one action a table whose frames were not read yet (on a loaded machine: 80 timed frames
    # for 21 actions).
    assert int(timed.group(1).replace(",", "")) >= 4 * (actions - 5)


@pytest.mark.parametrize("script", ["server.py", "floor.py"])
def test_a_child_that_dies_ends_the_run_instead_of_hanging_it(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"bench_{script[:-3]}"
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / script)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, bench)  # its dataclasses look their module up
    monkeypatch.setattr(sys, "path", list(sys.path))  # it takes bench/ off the path
    spec.loader.exec_module(bench)
    ctx = multiprocessing.get_context("fork")
    ours, theirs = ctx.Pipe()
    child = ctx.Process(target=sys.exit, args=(3,))
    child.start()
    theirs.close()  # as the conductor does: the dead child held the last copy
    child.join()
    with pytest.raises(SystemExit, match="the load generator exited early"):
        bench.answer(ours, "the load generator")


def test_the_in_process_table_benchmark_times_accepted_actions() -> None:
    report = run_bench("table.py", "--tables", "5", "--actions", "300", "--warmup", "100")
    found = re.search(r"actions timed: ([\d,]+)", report)
    assert found is not None and int(found.group(1).replace(",", "")) == 300, report
    assert re.search(r"server work per action: mean +[\d.]+ us", report), report
    assert "errors:" not in report  # every timed action was accepted


@pytest.mark.parametrize("script", ["server.py", "table.py"])
def test_compiled_without_a_compiled_build_says_so(script: str, tmp_path: Path) -> None:
    """A copy of the bench scripts in a tree with no build/compiled: --compiled must stop with
    the way out, not import bench/server.py as the server package."""
    bench = tmp_path / "bench"
    bench.mkdir()
    for name in ("benchlib.py", script):
        (bench / name).write_text((ROOT / "bench" / name).read_text())
    done = subprocess.run(
        [sys.executable, str(bench / script), "--compiled"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "there is no build/compiled: `make compiled`" in done.stderr, done.stderr[-2000:]


def test_the_bots_load_benchmark_plays_and_reports() -> None:
    report = run_bench(
        "bots_load.py", "--tables", "1", "--strategy", "random", "--seconds", "1", "--warmup", "0.5"
    )
    assert re.search(r"ping from another table \(ms\): p50 .*\(n=\d+\)", report), report
    assert re.search(r"bot workers \d+% \(1 process\(es\)\)", report), report
    moved = re.search(r"bot tables: ([\d.]+) actions/s", report)
    assert moved is not None and float(moved.group(1)) > 0, report


def test_the_bots_benchmark_times_decisions_and_counts_rollouts() -> None:
    report = run_bench(
        "bots.py", "--hands", "2", "--strategies", "heuristic,search:samples=10", "--rollouts", "20"
    )
    assert re.search(r"^search:samples=10\s+all\s+\d+", report, re.MULTILINE), report
    assert re.search(
        r"search:samples=10\s+work: \d+ rollouts \([\d,]+ per second of thinking\)", report
    )
    assert re.search(r"simulator: [\d,]+ rollouts/s", report)


def test_the_tuner_runs_a_trial_and_names_the_best() -> None:
    report = run_bench(
        "tune.py", "--deals", "3", "--rounds", "1", "--knobs", "pick4", "--minutes", "1"
    )
    assert re.search(r"round 1 pick4=[\d.]+ \(was [\d.]+\): [+-][\d.]+ ± [\d.]+", report), report
    assert re.search(r"^best: heuristic", report, re.MULTILINE), report


def test_the_action_log_benchmark_reports_bytes_per_action() -> None:
    report = run_bench("action_log.py", "--actions", "2000", "--tables", "3")
    found = re.search(r"on disk per action: ([\d.]+) bytes", report)
    assert found is not None, report
    assert 20 < float(found.group(1)) < 200  # a record of ~37 bytes and the row around it
    assert re.search(r"growth per hour at [\d,]+ actions/s: [\d,]+ MB", report)


def test_the_log_growth_benchmark_reports_bytes_per_cycle() -> None:
    report = run_bench("log_growth.py", "--cycles", "10")
    assert re.search(r"\d+ B a cycle; growth per hour from one address [\d.]+ MB", report), report


def test_the_ceiling_benchmark_splits_the_cheats_edge_by_role() -> None:
    report = run_bench(
        "ceiling.py", "--strategies", "cheat:setup_samples=0,heuristic", "--deals", "2", "--regret"
    )
    found = re.search(r"^cheat:setup_samples=0 - heuristic: ([+-][\d.]+), 95% CI", report, re.M)
    assert found is not None, report
    credits = re.findall(r"^  \w+ +[\d.]+%  ([+-][\d.]+) \[", report, re.MULTILINE)
    assert credits, report
    # The roles' credits add up to the difference (each rounded to a thousandth).
    assert abs(sum(map(float, credits)) - float(found.group(1))) <= 0.001 * (len(credits) + 1)
    assert re.search(r"rollout model = the real card: [\d.]+% of \d+ card decisions", report)
    # The cheat is never judged against itself, the heuristic is.
    assert re.search(r"^  heuristic: \d+ decisions, [\d.]+ a seat-hand lost", report, re.M)
    assert not re.search(r"^  cheat\S*: \d+ decisions", report, re.MULTILINE), report


def test_the_program_strategy_benchmark_reports_both_ways() -> None:
    report = run_bench("program_strategy.py", "--seconds", "0.3")
    assert report_line(report, "Python file, in-process") and report_line(report, "Python program")


def test_the_placement_benchmark_scores_every_sampler() -> None:
    report = run_bench("placement.py", "--hands", "1", "--draws", "2")
    assert re.search(r"^heuristic table, 1 hands: \d+ card decisions, 2 deals each$", report, re.M)
    for sampler in (
        "rejection",
        "rejection:0.25",
        "rejection:0.25:weighted",
        "mcmc:0.03",
        "chains:0.03",
    ):
        row = report_line(report, sampler + " ").split()
        # A share of the cards in the right hands (of those tricks, of the partner) and a time.
        assert len(row) == 6 and all(0 <= float(x) <= 1 for x in row[1:5]), report
