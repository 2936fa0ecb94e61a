"""A worker process of ``--jobs`` that dies (killed, out of memory, a strategy calling
``os._exit``) neither hangs the tournament nor loses its deals: the deal is played again once
on a fresh worker; a second death stops the run at once, naming the deal and how its worker
ended, with every deal played whole in the progress file for ``--resume``.

The strategy file below kills its own process at the first decision of one deal while a file
``armed`` lies beside it: the same file (its SHA-256 is in the progress file) then plays the
resumed run well.

The runs with workers are separate processes, as a user starts them: before the workers were
fresh interpreters, a test worker that runs other threads (a Dask test's, earlier in the same
process) played the deals in-process, where the strategy's death was the test worker's (it
killed one in a full run); a run in its own process cannot do that whatever happens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from botkit.tournament.play import deal_seed
from client.cli import main
from engine.hand import Deal, Hand
from engine.rules import DEFAULT_PRESET, RuleSet
from engine.view import seat_view
from tests.bots.helpers import tournament_figures

pytestmark = pytest.mark.timeout(60)  # the old pool waited forever for a dead worker's deal

SEED, DEALS, DEADLY = 3, 8, 4  # deal 5 as printed
ROOT = Path(__file__).resolve().parents[2]


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a process of its own, the checkout first on its path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=50, cwd=ROOT, env=env
    )


def _sheepshead(*args: str) -> subprocess.CompletedProcess[str]:
    """``sheepshead ARGS`` as a user runs it."""
    return _python("-m", "client.cli", *args)


DIES = '''
import os
import signal

HANDS = {hands!r}
"""The six cards of each seat in the deal that kills the worker."""


class Dies:
    name = "dies"

    def __init__(self, seed=None):
        pass

    def choose(self, view, legal):
        armed = os.path.join(os.path.dirname(__file__), "armed")
        if view["phase"] == "pick" and sorted(view["hand"]) in HANDS and os.path.exists(armed):
            if {once!r}:  # a one-off death: as the out-of-memory killer does it
                os.remove(armed)
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(1)
        return legal[0]
'''


def _dies(tmp_path: Path, once: bool = False) -> str:
    """A strategy file whose process dies on deal ``DEADLY`` while ``armed`` lies beside it."""
    hand = Hand(
        RuleSet.from_preset(DEFAULT_PRESET),
        DEADLY % 5,
        Deal.from_seed(DEADLY % 5, deal_seed(SEED, DEADLY)),
    )
    hands = [sorted(seat_view(hand, s)["hand"]) for s in range(5)]
    path = tmp_path / "dies.py"
    path.write_text(DIES.format(hands=hands, once=once))
    (tmp_path / "armed").touch()
    return str(path)


def _tournament(strategies: str, *extra: str) -> list[str]:
    return [
        "tournament",
        "--strategies",
        strategies,
        "--seed",
        str(SEED),
        "--deals",
        str(DEALS),
        "--quiet",
        *extra,
    ]


def _uninterrupted(tmp_path: Path, strategies: str) -> dict[str, Any]:
    """The figures of the tournament played whole, in this process, nothing armed."""
    armed = tmp_path / "armed"
    armed.rename(tmp_path / "disarmed")
    whole = tmp_path / "whole.json"
    assert main([*_tournament(strategies), "--json", str(whole)]) == 0
    (tmp_path / "disarmed").rename(armed)
    return tournament_figures(json.loads(whole.read_text()))


def test_a_deal_that_kills_its_worker_twice_stops_the_run_and_resume_finishes_it(
    tmp_path: Path,
) -> None:
    strategies = f"random,{_dies(tmp_path)}"
    expected = _uninterrupted(tmp_path, strategies)
    progress = tmp_path / "run.progress"
    stopped = _sheepshead(*_tournament(strategies), "--jobs", "2", "--progress", str(progress))
    assert stopped.returncode == 1, stopped.stderr
    err = stopped.stderr
    assert (
        "sheepshead tournament: deal 5: the worker process playing it died 2 times, the last on "
        "a fresh worker (exit code 1); the tournament stopped"
    ) in err
    retry = "deal 5: the worker process playing it died (exit code 1); playing it again on a fresh"
    assert retry in err
    assert f"--jobs 2 --resume {progress}" in err
    played = [json.loads(line)["deal"] for line in progress.read_bytes().splitlines()[1:]]
    # The dying worker sent the two deals it had before deal 5 first.
    assert len(played) >= 2 and DEADLY not in played

    (tmp_path / "armed").unlink()
    resumed = tmp_path / "resumed.json"
    again = ["--jobs", "2", "--json", str(resumed), "--resume", str(progress)]
    assert _sheepshead(*_tournament(strategies), *again).returncode == 0
    assert tournament_figures(json.loads(resumed.read_text())) == expected


def test_a_worker_killed_once_costs_nothing_but_a_line(tmp_path: Path) -> None:
    strategies = f"random,{_dies(tmp_path, once=True)}"
    expected = _uninterrupted(tmp_path, strategies)
    results = tmp_path / "t.json"
    played = _sheepshead(*_tournament(strategies), "--jobs", "2", "--json", str(results))
    assert played.returncode == 0, played.stderr
    assert not (tmp_path / "armed").exists()  # it did die
    assert (
        "deal 5: the worker process playing it died (killed by signal 9, SIGKILL: the "
        "out-of-memory killer, or kill -9); playing it again on a fresh worker"
    ) in played.stderr
    assert tournament_figures(json.loads(results.read_text())) == expected


RAISES = """
import json, sys
from botkit.tournament.play import WorkerDied, run_tournament
from engine.rules import DEFAULT_PRESET, RuleSet

retried = []
try:
    run_tournament(
        ["random", sys.argv[1]], {deals}, {seed}, RuleSet.from_preset(DEFAULT_PRESET),
        jobs=2, retries=0, on_retry=retried.append,
    )
except WorkerDied as died:
    print(json.dumps([died.deal, died.exitcode, died.attempts, retried, died.message]))
"""


def test_run_tournament_raises_worker_died(tmp_path: Path) -> None:
    program = RAISES.format(deals=DEALS, seed=SEED)
    done = _python("-c", program, _dies(tmp_path, once=True))
    assert done.returncode == 0, done.stderr
    deal, exitcode, attempts, retried, message = json.loads(done.stdout)
    assert (deal, exitcode, attempts, retried) == (5, -9, 1, [])
    assert message.startswith(
        "deal 5: the worker process playing it died (killed by signal 9, SIGKILL"
    )


PIDS = '''
import os


class Pids:
    """Plays the first legal action; appends the id of the process it plays in to pids."""

    def __init__(self, seed=None):
        self.said = False

    def choose(self, view, legal):
        if not self.said:
            self.said = True
            with open(os.path.join(os.path.dirname(__file__), "pids"), "a") as f:
                f.write(f"{os.getpid()}\\n")
        return legal[0]
'''

WHERE = """
import json, os, sys, threading
from pathlib import Path
from botkit.tournament.play import run_tournament
from engine.bots import register
from engine.bots.random_bot import RandomStrategy
from engine.rules import RuleSet

pids = Path(sys.argv[1]).parent / "pids"


def players(*specs):
    # The processes the pids.py strategy played in.
    run_tournament([*specs, sys.argv[1]], 2, 1, RuleSet(), jobs=2)
    played = sorted(set(map(int, pids.read_text().split())))
    pids.unlink()
    return played


register("mine", "known to this program alone")(RandomStrategy)
where = {"caller": os.getpid(), "forked": players("mine")}


def in_a_thread():
    where["pool"] = players("random")
    where["alone"] = players("mine")
    where["again"] = players("mine")


thread = threading.Thread(target=in_a_thread)
thread.start()
thread.join()
print(json.dumps(where))
"""


def test_two_jobs_play_in_two_workers_from_a_thread_of_a_program_without_a_main_file(
    tmp_path: Path,
) -> None:
    # `python -c` has no main module file, as a notebook, a test runner or an embedding program
    # has none, and the run is in a thread: the deals were played in the caller, one at a
    # time, and a strategy's os._exit ended it.
    (tmp_path / "pids.py").write_text(PIDS)
    done = _python("-c", WHERE, str(tmp_path / "pids.py"))
    assert done.returncode == 0, done.stderr
    where = json.loads(done.stdout)
    caller = where["caller"]
    assert len(where["pool"]) == 2 and caller not in where["pool"]
    # A strategy registered by the program alone: forked workers inherit it where no other
    # thread runs; beside threads it is played in the caller, and stderr says so, once.
    assert len(where["forked"]) == 2 and caller not in where["forked"]
    assert where["alone"] == where["again"] == [caller]
    said = "sheepshead tournament: playing the deals in this process, one at a time, not in 2"
    assert done.stderr.count(said) == 1, done.stderr
    assert (
        "a worker process started afresh does not know mine, registered by this program alone "
        "(a strategy file would be loaded there); nor can this process fork workers safely: it "
        "runs other threads"
    ) in done.stderr
