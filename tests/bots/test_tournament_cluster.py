"""``sheepshead tournament --cluster``: the deals on a Dask cluster give the report of ``--jobs``.

The cluster is a ``distributed.LocalCluster`` on 127.0.0.1 (two workers, in-process threads
talking real TCP to the scheduler); ``make test`` installs ``sheepshead[cluster]``, so CI runs
these. The address checks and the missing-package message need no cluster.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botkit.tournament.cluster import play_chunk
from botkit.tournament.play import Job, play_deal
from client.cli import main
from engine.rules import RuleSet
from tests.bots.helpers import CLUSTER_SKIP, local_cluster, table_without_times, tournament_figures
from tests.bots.test_tournament import FAILING


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The TCP address of a two-worker local cluster."""
    with local_cluster(2) as address:
        yield address


def _run(tmp_path: Path, capsys: Any, name: str, strategies: str, *extra: str) -> tuple[Any, str]:
    path = tmp_path / name
    args = ["tournament", "--strategies", strategies, "--seed", "7", "--quiet", "--json", str(path)]
    assert main([*args, *extra]) == 0
    return json.loads(path.read_text()), capsys.readouterr().out


def test_a_cluster_run_reports_what_jobs_reports(
    scheduler: str, tmp_path: Path, capsys: Any
) -> None:
    strategies, deals = "random,heuristic", ("--deals", "20", "--worst", "2")
    local, local_text = _run(tmp_path, capsys, "jobs.json", strategies, *deals, "--jobs", "2")
    remote, remote_text = _run(
        tmp_path, capsys, "cluster.json", strategies, *deals, "--cluster", scheduler,
        "--cluster-chunk", "3",
    )  # fmt: skip
    assert remote["cluster"] == scheduler and remote["jobs"] is None and local["jobs"] == 2
    assert remote["strategies"]["random"]["seat_hands"] == 20 * 25
    assert tournament_figures(remote, "cluster") == tournament_figures(local, "cluster")
    # The same table, and the same worst deals (kept from the workers' results) after it.
    assert "did worst against heuristic" in remote_text
    assert table_without_times(remote_text) == table_without_times(local_text)


def test_deals_come_back_in_deal_order_whatever_order_they_finish_in(
    scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import distributed

    from botkit.tournament.cluster import cluster_results

    # The last chunk seen done first: the results must still come in deal order, as the
    # per-deal lists of the tallies (and the first failures kept) depend on it.
    monkeypatch.setattr(distributed, "as_completed", lambda futures, loop: reversed(futures))
    work = [Job(n, 7, ("random", "heuristic"), RuleSet().to_dict()) for n in range(4)]
    with distributed.Client(scheduler, set_as_default=False) as client:
        results = list(cluster_results(client, work, chunk=1))
    expected = [play_deal(job).tallies[0].deal_means for job in work]
    assert [r.tallies[0].deal_means for r in results] == expected


def test_a_strategy_file_plays_on_the_cluster_as_here(
    scheduler: str, tmp_path: Path, capsys: Any
) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text(FAILING)
    strategies = f"{failing},random"
    local, _ = _run(tmp_path, capsys, "here.json", strategies, "--deals", "3")
    remote, _ = _run(
        tmp_path, capsys, "there.json", strategies, "--deals", "3", "--cluster", scheduler
    )
    assert remote["strategies"][str(failing)]["fallbacks"] > 0
    # Its failures name the file as given, not the worker's copy.
    assert tournament_figures(remote, "cluster") == tournament_figures(local, "cluster")


def test_a_worker_needs_no_copy_of_a_strategy_file(tmp_path: Path) -> None:
    gone = str(tmp_path / "elsewhere" / "failing.py")  # never written on this machine
    job = Job(0, 7, (gone, "random"), RuleSet().to_dict())
    (result,) = play_chunk([job], {gone: FAILING})
    strategy = tmp_path / "failing.py"
    strategy.write_text(FAILING)
    here = play_deal(Job(0, 7, (str(strategy), "random"), RuleSet().to_dict()))
    assert [t.payout for t in result.tallies] == [t.payout for t in here.tallies]
    assert result.tallies[0].failures[0].startswith("deal 1, seating")
    assert all(gone in f for f in result.tallies[0].failures)


def test_an_interrupted_run_cancels_its_deals_on_the_cluster(
    scheduler: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    import distributed

    from botkit.tournament import cli

    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.Progress, "update", lambda self, done, status="": done and interrupt())
    args = ["tournament", "--strategies", "heuristic,heuristic", "--deals", "400"]
    assert main([*args, "--cluster", scheduler, "--cluster-chunk", "1"]) == 130
    assert "its deals on the cluster were cancelled" in capsys.readouterr().out
    with distributed.Client(scheduler, set_as_default=False) as client:
        deadline = time.monotonic() + 30
        while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
            assert time.monotonic() < deadline, "the cluster still holds the deals"
            time.sleep(0.05)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_named_and_exits_2(capsys: Any) -> None:
    pytest.importorskip("distributed", reason=CLUSTER_SKIP)
    address = f"tcp://127.0.0.1:{_free_port()}"
    args = ["tournament", "--strategies", "random,heuristic", "--deals", "2"]
    assert main([*args, "--cluster", address, "--cluster-timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at {address} within 0.5 s" in err


@pytest.mark.parametrize(
    "address", ["http://127.0.0.1:8786", "127.0.0.1", "tcp://h:99999", "a b:1"]
)
def test_a_bad_address_exits_2_before_connecting(address: str, capsys: Any) -> None:
    args = ["tournament", "--strategies", "random,heuristic", "--deals", "2"]
    assert main([*args, "--cluster", address]) == 2
    assert "the address `dask scheduler` prints" in capsys.readouterr().err


def test_cluster_options_that_cannot_apply_exit_2(capsys: Any) -> None:
    args = ["tournament", "--strategies", "random,heuristic", "--cluster", "tcp://127.0.0.1:1"]
    assert main([*args, "--jobs", "2"]) == 2
    assert "--jobs and --cluster exclude each other" in capsys.readouterr().err
    assert main([*args, "--save-hands", "x", "--cluster-chunk", "0"]) == 2
    err = capsys.readouterr().err
    assert "--save-hands writes on this machine" in err and "--cluster-chunk" in err


def test_without_distributed_the_message_gives_the_pip_command(
    monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    args = ["tournament", "--strategies", "random,heuristic", "--deals", "2"]
    assert main([*args, "--cluster", "tcp://127.0.0.1:8786"]) == 2
    assert "pip install -e '.[cluster]' in a checkout" in capsys.readouterr().err
