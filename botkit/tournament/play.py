"""Playing a duplicate tournament: the seatings, one deal's plays, and the deals over a pool of
worker processes (or a Dask cluster: :mod:`botkit.tournament.cluster`).

With ``k`` strategies, seat ``s`` of the base pattern gets strategy ``s mod k``. Every deal is
played ``5k`` times with the same cards and dealer: for each label shift ``j`` (0..k-1) and each
rotation ``r`` (0..4), seat ``s`` is played by strategy ``(((s + r) mod 5) mod k + j) mod k``.
So every strategy holds every seat's cards exactly five times per deal, and luck of the cards
cancels out.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from botkit.tournament.stats import FAILURES_KEPT, StrategyTally
from client.strategy_call import decide
from client.strategy_spec import strategy_factory
from engine.actions import action_from_dict
from engine.bots.base import Strategy
from engine.hand import Deal, Hand
from engine.record import export_record
from engine.rules import RuleSet
from engine.view import seat_view

if TYPE_CHECKING:
    from distributed import Client

_PICKER_WINS: Final = frozenset({"won", "schneider", "all_tricks"})


def seat_assignments(k: int) -> list[list[int]]:
    """For ``k`` strategies, the strategy index at each seat for each of the ``5k`` plays."""
    plays = []
    for shift in range(k):
        for rotation in range(5):
            plays.append([(((s + rotation) % 5) % k + shift) % k for s in range(5)])
    return plays


def deal_seed(seed: int, number: int) -> int:
    """The card seed of deal ``number`` of a tournament."""
    digest = hashlib.sha256(f"sheepshead-tournament/{seed}/{number}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


@dataclass(frozen=True)
class Job:
    """What a worker needs to play one deal: everything is plain data, so it pickles."""

    number: int
    seed: int
    specs: tuple[str, ...]
    rules: dict[str, Any]
    labels: tuple[str, ...] = ()
    """The strategies' display labels (``specs`` by default), for saved records."""
    save_dir: str | None = None
    """Write every seating's record into this directory."""
    keep_mirrors: bool = False
    """Return each pair of mirrored seatings with its records (two strategies only)."""


@dataclass(frozen=True)
class Mirror:
    """Two seatings of one deal with the same cards and the two strategies' seats swapped.

    ``score`` is what the first strategy won over both (zero when the two play alike). A deal
    has five such pairs, one per rotation. ``records`` is None when the deal was played without
    keeping them (:func:`with_records` plays it again for them).
    """

    deal: int
    rotation: int
    score: int
    records: tuple[dict[str, Any], dict[str, Any]] | None


@dataclass
class DealResult:
    """One deal's tallies (one per strategy, in ``specs`` order) and mirrored seatings.

    With two strategies ``mirrors`` holds the deal's worst pair of mirrored seatings for the
    first (its records only when the job kept them); ``number`` is the deal's (from 0).
    """

    tallies: list[StrategyTally]
    mirrors: list[Mirror] = field(default_factory=list)
    number: int = 0


_FACTORIES: dict[str, Callable[[int | None], Strategy]] = {}


def _factory(spec: str) -> Callable[[int | None], Strategy]:
    # Built once per process: loading a file strategy or checking options is not free.
    if spec not in _FACTORIES:
        _FACTORIES[spec] = strategy_factory(spec)
    return _FACTORIES[spec]


def record_name(deal: int, seating: int) -> str:
    """The file name of a saved seating: ``deal0007-seating03.json`` (deal counted from 1)."""
    return f"deal{deal:04d}-seating{seating:02d}.json"


def play_deal(job: Job) -> DealResult:
    """Play every seating of one deal."""
    k = len(job.specs)
    labels = job.labels or job.specs
    rules = RuleSet.from_dict(job.rules)
    cards_seed = deal_seed(job.seed, job.number)
    dealer = job.number % 5
    deal = Deal.from_seed(dealer, cards_seed)
    tallies = [StrategyTally() for _ in range(k)]
    sums = [0] * k
    records: list[dict[str, Any]] = []
    payouts: list[tuple[int, ...]] = []
    plays = seat_assignments(k)
    for play, seats in enumerate(plays):
        bots = [
            _factory(job.specs[seats[s]])(cards_seed % (1 << 62) + 7919 * play + s)
            for s in range(5)
        ]
        hand = Hand(rules, dealer, deal)
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            start = time.perf_counter()
            decision = decide(bots[seat], view, view["legal"])
            spent = time.perf_counter() - start
            tally = tallies[seats[seat]]
            tally.decisions += 1
            tally.think += spent
            tally.think_max = max(tally.think_max, spent)
            if decision.fell_back:
                tally.fallbacks += 1
                if len(tally.failures) < FAILURES_KEPT:
                    where = f" at {decision.place}" if decision.place else ""
                    tally.failures.append(
                        f"deal {job.number + 1}, seating {play}, seat {seat}: "
                        f"{labels[seats[seat]]} failed{where}: {decision.error}"
                    )
            hand.apply(action_from_dict(decision.action, seat))
        result = hand.result()
        assert result.payouts is not None
        payouts.append(tuple(result.payouts))
        for s in range(5):
            tally = tallies[seats[s]]
            tally.seat_hands += 1
            tally.payout += result.payouts[s]
            sums[seats[s]] += result.payouts[s]
            if result.picker == s:
                tally.picks += 1
                tally.picker_wins += result.outcome in _PICKER_WINS
            if result.leaster:
                tally.leasters += 1
        if job.save_dir is not None or job.keep_mirrors:
            record = {
                **export_record(hand),
                "strategies": [labels[seats[s]] for s in range(5)],
                "payouts": list(result.payouts),
                "tournament": {"seed": job.seed, "deal": job.number + 1, "seating": play},
            }
            records.append(record)
            if job.save_dir is not None:
                path = os.path.join(job.save_dir, record_name(job.number + 1, play))
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(record, f, indent=1)
                    f.write("\n")
    for i, tally in enumerate(tallies):
        tally.deal_means.append(sums[i] / tally.seat_hands)
    mirrors = []
    if k == 2:
        # Scored on every deal (a few additions), so a resumed run's --worst has them all.
        for rotation in range(5):
            score = sum(
                pay
                for play in (rotation, 5 + rotation)
                for pay, who in zip(payouts[play], plays[play], strict=True)
                if who == 0
            )
            pair = (records[rotation], records[5 + rotation]) if job.keep_mirrors else None
            mirrors.append(Mirror(job.number + 1, rotation, score, pair))
        # The deal's worst pair of seatings for the first strategy stands for the deal.
        mirrors = [min(mirrors, key=_mirror_order)]
    return DealResult(tallies, mirrors, job.number)


def run_tournament(
    specs: Sequence[str],
    deals: int | Sequence[int],
    seed: int,
    rules: RuleSet,
    jobs: int = 1,
    on_progress: Callable[[int, list[StrategyTally]], None] | None = None,
    *,
    labels: Sequence[str] | None = None,
    save_dir: str | None = None,
    worst: int = 0,
    cluster: Client | None = None,
    chunk: int = 10,  # cluster.DEFAULT_CHUNK (that module imports this one)
) -> tuple[list[StrategyTally], list[Mirror]]:
    """Play duplicate deals: ``deals`` of them, or the listed deal numbers (counted from 0).

    With ``cluster`` (a client of a Dask scheduler) the deals are played on its workers,
    ``chunk`` deals a task, instead of ``jobs`` local processes; the results are the same.
    Returns one merged tally per strategy, in ``specs`` order, and with ``worst`` (two
    strategies) the ``worst`` deals where the first strategy did worst, worst first, each as its
    worst pair of mirrored seatings. ``save_dir`` (made if missing) receives every hand's
    record. ``on_progress`` gets the deals done and the running tallies after each deal.
    """
    numbers = range(deals) if isinstance(deals, int) else list(deals)
    if save_dir is not None and cluster is None:
        # Here, before any worker writes into it (the command line makes it too, for its
        # error message; a training loop calling this must not need to).
        os.makedirs(save_dir, exist_ok=True)
    work = make_jobs(numbers, seed, specs, rules, labels, save_dir, worst > 0)
    running = [StrategyTally() for _ in specs]
    done: list[DealResult] = []
    kept: list[Mirror] = []
    with contextlib.closing(play_deals(work, jobs, cluster, chunk)) as results:
        for result in results:
            for m, t in zip(running, result.tallies, strict=True):
                m.add(t)
            kept = keep_worst(kept, result, worst)
            done.append(strip_records(result))
            if on_progress:
                on_progress(len(done), running)
    return merge_results(done, len(specs)), kept


def make_jobs(
    numbers: Iterable[int],
    seed: int,
    specs: Sequence[str],
    rules: RuleSet,
    labels: Sequence[str] | None = None,
    save_dir: str | None = None,
    keep_mirrors: bool = False,
) -> list[Job]:
    """One :class:`Job` per deal number (counted from 0)."""
    return [
        Job(
            n,
            seed,
            tuple(specs),
            rules.to_dict(),
            tuple(labels or specs),
            save_dir,
            keep_mirrors=keep_mirrors,
        )
        for n in numbers
    ]


def play_deals(
    work: Sequence[Job], jobs: int = 1, cluster: Client | None = None, chunk: int = 10
) -> Generator[DealResult, None, None]:
    """Play the deals of ``work``, yielding each deal's result as soon as it is played whole.

    With ``jobs`` > 1 they come in the order they finish (``DealResult.number`` says which);
    on a ``cluster``, in deal order. Closing the iterator (or an exception, a Ctrl+C, while it
    waits) stops the worker processes, or cancels the cluster's deals not yet done. Workers
    ignore SIGINT, which a terminal sends to the whole process group: the process that reads
    this iterator decides what a Ctrl+C means, and stops them.
    """
    results: Iterator[DealResult]
    # Fork is fastest, but forking a process that runs other threads (an embedding program,
    # a test runner) can deadlock a child on a lock held by one of them; spawn instead needs a
    # main module it can import again.
    fork = threading.active_count() == 1 and sys.platform != "win32"
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if not fork and not (main_file and os.path.exists(main_file)):
        jobs = 1
    pool = None
    if cluster is not None:
        from botkit.tournament.cluster import cluster_results

        results = cluster_results(cluster, work, chunk)
    elif jobs > 1 and len(work) > 1:
        context = multiprocessing.get_context("fork" if fork else "spawn")
        # Blocked while the workers start, so none dies of a signal before it ignores it (the
        # mask is inherited; each worker unblocks them in _start_worker).
        masked = hasattr(signal, "pthread_sigmask")
        if masked:
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            pool = context.Pool(jobs, _start_worker, (os.getpid(),))
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        results = pool.imap_unordered(play_deal, work, chunksize=1)
    else:
        results = map(play_deal, work)
    try:
        yield from results
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        # The cluster's iterator cancels the chunks still queued when it is closed.
        close = getattr(results, "close", None)
        if close is not None:
            close()


_IGNORED: Final = tuple(getattr(signal, n) for n in ("SIGINT", "SIGHUP") if hasattr(signal, n))
"""What a terminal sends its whole process group (Ctrl+C, a hangup): left to the parent. A
worker killed by one would be replaced, the new one forked while the parent stops the pool."""

_STOP_SIGNALS: Final = frozenset({*_IGNORED, signal.SIGTERM})


def _start_worker(parent: int) -> None:
    # A worker leaves Ctrl+C and hangups to its parent (which stops the pool) and dies of
    # SIGTERM without clean-up (pool.terminate), whatever handlers it inherited from a forking
    # parent.
    for signum in _IGNORED:
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    if sys.platform.startswith("linux"):
        # Dies with its parent, even one killed with SIGKILL: no worker is left playing deals
        # nobody will read.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before that was armed
            os._exit(1)


_PR_SET_PDEATHSIG: Final = 1


def keep_worst(kept: list[Mirror], result: DealResult, worst: int) -> list[Mirror]:
    """``kept`` with ``result``'s mirrored seatings, the ``worst`` worst of them, worst first.

    The order is total (score, deal, rotation), so it does not depend on the order the deals
    came in.
    """
    if not worst:
        return kept
    return sorted([*kept, *result.mirrors], key=_mirror_order)[:worst]


def strip_records(result: DealResult) -> DealResult:
    """``result`` without its mirrors' records (a few kB each: kept only for the worst)."""
    mirrors = [dataclasses.replace(m, records=None) for m in result.mirrors]
    return dataclasses.replace(result, mirrors=mirrors)


def merge_results(results: Iterable[DealResult], k: int) -> list[StrategyTally]:
    """The deals' tallies merged per strategy, in deal order whatever order they came in (the
    per-deal lists, and the first failures kept, follow it)."""
    merged = [StrategyTally() for _ in range(k)]
    for result in sorted(results, key=lambda r: r.number):
        for m, t in zip(merged, result.tallies, strict=True):
            m.add(t)
    return merged


def with_records(mirrors: Sequence[Mirror], template: Job) -> list[Mirror]:
    """``mirrors`` with their records: a mirror without them has its deal played again (the
    same cards and bot seeds, so the same hands) with ``template``'s strategies and rules."""
    filled = []
    for mirror in mirrors:
        if mirror.records is None:
            job = dataclasses.replace(
                template, number=mirror.deal - 1, save_dir=None, keep_mirrors=True
            )
            (mirror,) = play_deal(job).mirrors
        filled.append(mirror)
    return filled


def _mirror_order(mirror: Mirror) -> tuple[int, int, int]:
    return (mirror.score, mirror.deal, mirror.rotation)
