"""Playing a duplicate tournament: the seatings, one deal's plays, and the deals over a pool of
worker processes (:mod:`botkit.tournament.worker`; or a Dask cluster:
:mod:`botkit.tournament.cluster`).

With ``k`` strategies, seat ``s`` of the base pattern gets strategy ``s mod k``. Every deal is
played with the same cards and dealer: for each label shift ``j`` (0..k-1) and each rotation
``r`` (0..4), seat ``s`` is played by strategy ``(((s + r) mod 5) mod k + j) mod k``; with three
strategies or more, every one of those ``5k`` seatings is also played reflected (strategy ``i``
becomes ``(-i) mod k``: the order round the table reversed), ``10k`` plays in all
(:func:`plays_per_deal`). So every strategy holds every seat's cards equally often per deal
(five times for two strategies, ten for more), luck of the cards cancels out, and no strategy
sits after another more often than before it: the list's order favours none.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import hashlib
import json
import logging
import multiprocessing
import multiprocessing.process
import os
import pickle
import shlex
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any, Final, Protocol

from botkit.tournament.stats import FAILURES_KEPT, StrategyTally
from client.strategy_call import decide
from client.strategy_spec import is_path, parse_spec, strategy_factory
from engine.actions import action_from_dict
from engine.bots.base import Strategy
from engine.hand import Deal, Hand
from engine.record import export_record
from engine.rules import RuleSet
from engine.view import seat_view

if TYPE_CHECKING:
    from distributed import Client

_PICKER_WINS: Final = frozenset({"won", "schneider", "all_tricks"})

DEFAULT_RETRIES: Final = 1
"""Times a deal whose worker process died is played again on a fresh one: once, so a one-off
kill (the out-of-memory killer's) costs nothing, while a strategy that kills its process on a
deal stops the run at its second death rather than never."""

STOP_WAIT: Final = 5.0
"""Seconds a worker process has to exit (its pipe closed, or terminated) before it is killed."""

log = logging.getLogger("sheepshead.tournament")


SEATING: Final = 2
"""The version of :func:`seat_assignments`, in a progress file's header: 1 (a header without it)
played only the ``5k`` shifted rotations, whose cyclic order ``0 -> 1 -> 2`` favoured a strategy
by its place in the list with three strategies or more; 2 adds their reflections. Two
strategies' seatings are the same in both."""

SEATING_SCHEME: Final = (
    "rotations of seat s -> s mod k, under every shift of the strategy labels; with three "
    "strategies or more each also reflected (label i -> -i mod k)"
)
"""The seatings in words, for a tournament's JSON (``scheme``)."""


def seat_assignments(k: int) -> list[list[int]]:
    """For ``k`` strategies, the strategy index at each seat for each of the deal's plays.

    The ``5k`` shifted rotations, then (``k`` >= 3) each of them reflected, in the same order:
    play ``p`` and play ``5k + p`` are mirror images. The rotations alone always seat the
    strategies in the cyclic order ``0 -> 1 -> ... -> k-1``, so with three or more one sits
    right after another more often than right before it (for three, the first after the third
    in four places of five); the reflections reverse that order, which makes the seatings the
    same whatever the order of the list (every permutation of three labels; for four and five,
    each strategy has each other as its left and its right neighbour equally often). For two
    strategies reflecting is the identity: their ten plays stand as they were.
    """
    plays = []
    for shift in range(k):
        for rotation in range(5):
            plays.append([(((s + rotation) % 5) % k + shift) % k for s in range(5)])
    if k >= 3:
        plays += [[(-label) % k for label in seats] for seats in plays]
    return plays


def plays_per_deal(k: int) -> int:
    """How many times a tournament of ``k`` strategies plays each deal: ``5k`` for two, ``10k``
    for three or more (:func:`seat_assignments`)."""
    return 5 * k if k < 3 else 10 * k


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
    retries: int = DEFAULT_RETRIES,
    on_retry: Callable[[str], None] | None = None,
) -> tuple[list[StrategyTally], list[Mirror]]:
    """Play duplicate deals: ``deals`` of them, or the listed deal numbers (counted from 0).

    With ``cluster`` (a client of a Dask scheduler) the deals are played on its workers,
    ``chunk`` deals a task, instead of ``jobs`` local processes; the results are the same.
    Returns one merged tally per strategy, in ``specs`` order, and with ``worst`` (two
    strategies) the ``worst`` deals where the first strategy did worst, worst first, each as its
    worst pair of mirrored seatings. ``save_dir`` (made if missing) receives every hand's
    record. ``on_progress`` gets the deals done and the running tallies after each deal.

    A deal whose worker process dies is played again on a fresh one (``retries`` times, each
    said to ``on_retry``: :func:`play_deals`); past that :class:`WorkerDied` names the deal.
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
    played = play_deals(work, jobs, cluster, chunk, retries=retries, on_retry=on_retry)
    with contextlib.closing(played) as results:
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
    work: Sequence[Job],
    jobs: int = 1,
    cluster: Client | None = None,
    chunk: int = 10,
    *,
    retries: int = DEFAULT_RETRIES,
    on_retry: Callable[[str], None] | None = None,
) -> Generator[DealResult, None, None]:
    """Play the deals of ``work``, yielding each deal's result as soon as it is played whole.

    With ``jobs`` > 1 they are played in as many worker processes (:func:`start_pool` says
    how they are started) and come in the order they finish (``DealResult.number`` says
    which); on a ``cluster``, in deal order. Closing the iterator (or an exception, a Ctrl+C,
    while it waits) stops the worker processes, or cancels the cluster's deals not yet done.
    Workers ignore SIGINT, which a terminal sends to the whole process group: the process
    that reads this iterator decides what a Ctrl+C means, and stops them.

    A worker process that dies playing a deal (killed, out of memory, a strategy that calls
    ``os._exit`` or crashes the interpreter) is replaced, and its deal played again on the new
    one, up to ``retries`` times; ``on_retry`` (by default a warning logged on
    ``sheepshead.tournament``) gets a line saying so. Past that, :class:`WorkerDied` names the
    deal and how its worker ended, the other workers are stopped, and the results yielded
    before stand.
    """
    results: Iterator[DealResult]
    if cluster is not None:
        from botkit.tournament.cluster import cluster_results

        results = cluster_results(cluster, work, chunk)
    elif jobs > 1 and len(work) > 1:
        results = _pool_results(work, jobs, retries, on_retry or _log_retry)
    else:
        results = map(play_deal, work)
    try:
        yield from results
    finally:
        # The pool's and the cluster's iterators stop their workers, or cancel the chunks still
        # queued, when closed.
        close = getattr(results, "close", None)
        if close is not None:
            close()


class WorkerDied(Exception):
    """A worker process died playing a deal, every time it was played: the run stopped.

    ``deal`` is the deal's number counted from 1 (as the report prints it), ``exitcode`` the
    worker's last exit status (negative: killed by that signal; None if unknown), ``attempts``
    the times the deal was played, ``unfinished`` the deals the other workers were playing
    (stopped with them, to be played again by a resumed run). ``message`` is the line the
    command prints.
    """

    def __init__(
        self,
        deal: int,
        exitcode: int | None,
        pid: int | None,
        attempts: int,
        unfinished: Sequence[int] = (),
    ) -> None:
        self.deal = deal
        self.exitcode = exitcode
        self.pid = pid
        self.attempts = attempts
        self.unfinished = tuple(unfinished)
        again = f" {attempts} times, the last on a fresh worker" if attempts > 1 else ""
        others = ""
        if self.unfinished:
            listed = ", ".join(map(str, self.unfinished))
            many = len(self.unfinished) > 1
            where = "other workers" if many else "another worker"
            others = f" ({'deals' if many else 'deal'} {listed}, under way on {where}, too)"
        self.message = (
            f"deal {deal}: the worker process playing it died{again} "
            f"({describe_exit(exitcode)}); the tournament stopped{others}"
        )
        super().__init__(self.message)


def describe_exit(exitcode: int | None) -> str:
    """How a process ended, from its ``exitcode`` as :mod:`multiprocessing` gives it.

    >>> describe_exit(1)
    'exit code 1'
    >>> describe_exit(-9)
    'killed by signal 9, SIGKILL: the out-of-memory killer, or kill -9'
    """
    if exitcode is None:
        return "exit status unknown"
    if exitcode >= 0:
        return f"exit code {exitcode}"
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        return f"killed by signal {-exitcode}"
    hint = ": the out-of-memory killer, or kill -9" if name == "SIGKILL" else ""
    return f"killed by signal {-exitcode}, {name}{hint}"


def _log_retry(line: str) -> None:
    log.warning("%s", line)


class _RemoteTraceback(Exception):
    """A worker's traceback, as the cause of the exception it sent back."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


AHEAD: Final = 2
"""Deals sent to a worker at a time: the one it plays and the next, so it never waits for this
process (busy itself, on a loaded machine) to hand it one."""

WORKER_MODULE: Final = "botkit.tournament.worker"
"""The module a worker process runs: ``python -m botkit.tournament.worker PARENT_PID``."""

START_WAIT: Final = 60.0
"""Seconds the first workers have to say they are ready (start the interpreter, import the
engine, load the strategies: about a second on a loaded machine) before the pool is given up."""

_LENGTH: Final = struct.Struct(">I")
"""A frame's header: the length of the pickle that follows (4 bytes, big-endian)."""


def send_frame(fd: int, message: object) -> None:
    """Write ``message`` to a pipe as one frame: its pickle's length, then the pickle.

    Pickle, not msgpack: the frames carry the tournament's own objects (jobs, results with
    their records, a strategy's exception with its type) between this process and workers it
    started itself from the same code, as :mod:`multiprocessing`'s pipes did.
    """
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = memoryview(_LENGTH.pack(len(body)) + body)
    while data:
        data = data[os.write(fd, data) :]


def read_frame(fd: int) -> Any:
    """Read one frame's message from a pipe; EOFError when the pipe ends first.

    Reads exactly the frame, nothing buffered beyond it, so :func:`wait` on the pipe still
    sees the next one.
    """
    (size,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size))
    return pickle.loads(_read_exactly(fd, size))


def _read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the pipe ended")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class NoPool(Exception):
    """Worker processes cannot be had here (``reason`` says why): the deals are played in the
    calling process instead, and :func:`start_pool` says so on stderr."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Process(Protocol):
    """A worker process however it was started: the little the pool asks of it."""

    pid: int | None

    def exit_status(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for it to end: its exit status (negative: killed by
        that signal), or None if it still runs."""

    def terminate(self) -> None:
        """Send it SIGTERM."""

    def kill(self) -> None:
        """Send it SIGKILL."""


class _Executed:
    """A worker started as ``python -m botkit.tournament.worker``: a fresh interpreter."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid: int | None = popen.pid

    @classmethod
    def start(cls, reader: int, writer: int) -> _Executed:
        """Start one reading its deals from ``reader`` (its stdin) and writing its replies to
        ``writer`` (its stdout); :class:`NoPool` if no interpreter can be started."""
        if sys.platform == "win32":
            raise NoPool("the worker pool waits on pipes, which needs a POSIX system")
        if not sys.executable:
            raise NoPool("there is no Python to start worker processes with (sys.executable)")
        # The worker imports the project (and strategy files' imports) from where this
        # process does (the checkout, or build/compiled first), and with -P not first from
        # the working directory, whose own engine/ or client/ folder would be taken instead.
        path = [p or os.getcwd() for p in sys.path]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        command = [sys.executable, "-P", "-m", WORKER_MODULE, str(os.getpid())]
        try:
            popen = subprocess.Popen(command, stdin=reader, stdout=writer, env=env)
        except OSError as exc:
            raise NoPool(f"{shlex.join(command[:4])} cannot be started: {exc}") from exc
        return cls(popen)

    def exit_status(self, timeout: float) -> int | None:
        """See :class:`_Process`."""
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self) -> None:
        """See :class:`_Process`."""
        self.popen.terminate()

    def kill(self) -> None:
        """See :class:`_Process`."""
        self.popen.kill()


class _Forked:
    """A worker forked from this process: it knows what this process registered."""

    def __init__(self, process: multiprocessing.process.BaseProcess) -> None:
        self.process = process
        self.pid: int | None = process.pid

    @classmethod
    def start(cls, reader: int, writer: int) -> _Forked:
        """Fork one reading its deals from ``reader`` and writing its replies to ``writer``."""
        context = multiprocessing.get_context("fork")
        process = context.Process(
            target=work,
            args=(reader, writer, os.getpid()),
            daemon=True,
            name="sheepshead-tournament",
        )
        process.start()
        return cls(process)

    def exit_status(self, timeout: float) -> int | None:
        """See :class:`_Process`."""
        self.process.join(timeout)
        return self.process.exitcode

    def terminate(self) -> None:
        """See :class:`_Process`."""
        self.process.terminate()

    def kill(self) -> None:
        """See :class:`_Process`."""
        self.process.kill()


_STARTS: Final[dict[str, Callable[[int, int], _Process]]] = {
    "exec": _Executed.start,
    "fork": _Forked.start,
}


@dataclass
class _Worker:
    """A worker process, the ends of the two pipes to it (``reader`` brings its replies,
    ``writer`` takes its deals), and the deals sent to it (the first is the one it plays)."""

    process: _Process
    reader: int
    writer: int
    jobs: deque[Job] = field(default_factory=deque)

    @classmethod
    def start(cls, how: str, specs: Sequence[str]) -> _Worker:
        """Start a worker (``how``: ``exec`` or ``fork``) and send it the strategies to load."""
        deals_in, deals_out = os.pipe()
        replies_in, replies_out = os.pipe()
        # Blocked while it starts, so it cannot die of a signal before it ignores it (the mask
        # is inherited, through exec too; the worker unblocks them in _start_worker).
        masked = hasattr(signal, "pthread_sigmask")
        if masked:
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            process = _STARTS[how](deals_in, replies_out)
        except BaseException:
            os.close(deals_out)
            os.close(replies_in)
            raise
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
            # Closed here at once, before another worker is forked with a copy: its death then
            # reads as the end of the pipe.
            os.close(deals_in)
            os.close(replies_out)
        worker = cls(process, replies_in, deals_out)
        with contextlib.suppress(OSError):  # a worker dead already: its reply pipe says so
            send_frame(deals_out, {"specs": list(specs)})
        return worker

    def wait_ready(self, deadline: float) -> dict[str, str]:
        """Wait (until ``deadline`` on the monotonic clock) for the worker to say it is ready:
        the strategies it cannot load, each with why; :class:`NoPool` if it does not start."""
        if not wait([self.reader], max(0.0, deadline - time.monotonic())):
            raise NoPool(f"a worker process did not start within {START_WAIT:g} s")
        try:
            kind, _, problems = read_frame(self.reader)
        except (EOFError, OSError):
            code = self.process.exit_status(STOP_WAIT)
            raise NoPool(
                f"the worker process could not start ({describe_exit(code)}; anything it said "
                "is on stderr above)"
            ) from None
        assert kind == "ready"
        return dict(problems)

    def give(self, job: Job) -> None:
        """Send the worker a deal (to a dead one, it fails as its death shows)."""
        self.jobs.append(job)
        with contextlib.suppress(OSError):
            send_frame(self.writer, job)

    def stop(self) -> int | None:
        """Stop the process (if it still runs) and return its exit status (None: unknown)."""
        if self.process.exit_status(0) is None:
            self.process.terminate()
        code = self.process.exit_status(STOP_WAIT)
        if code is None:
            self.process.kill()
            self.process.exit_status(STOP_WAIT)
        for fd in (self.reader, self.writer):
            with contextlib.suppress(OSError):
                os.close(fd)
        return code


_SAID: set[str] = set()
"""The reasons for playing without a pool already said on stderr: each once a process (a
training loop scores its policy every few minutes)."""


_UNKNOWN_AFRESH: set[str] = set()
"""The strategies registered by this program that a worker started afresh did not know."""


def start_pool(count: int, specs: Sequence[str]) -> tuple[str, list[_Worker]]:
    """Start ``count`` worker processes for a tournament of ``specs``, ready to play; returns
    how they were started and the workers. :class:`NoPool` says why there can be none.

    A worker is a fresh interpreter, ``python -m botkit.tournament.worker`` (``exec``): it
    needs neither a main module to import again nor a fork of a process that may run other
    threads (a notebook's, a test runner's), and loads strategy files by path and the
    built-in strategies by name. A strategy registered by this program alone (a training
    loop's policy, with its weights) is unknown there: then the workers are forked
    (``fork``) and inherit it, where that is safe (no other thread runs here).
    """
    unknown = {spec: "unknown" for spec in specs if spec in _UNKNOWN_AFRESH}
    try:
        if unknown:  # found before: a training loop scores its policy every few minutes
            raise NoPool(_unloadable(unknown))
        return "exec", _start_workers("exec", count, specs, time.monotonic() + START_WAIT)
    except NoPool as exc:
        reason = exc.reason
    if not hasattr(os, "fork"):
        raise NoPool(f"{reason}; nor can this system fork workers")
    if threading.active_count() > 1:
        # Forking a process that runs other threads can deadlock a child on a lock one of
        # them held.
        raise NoPool(f"{reason}; nor can this process fork workers safely: it runs other threads")
    return "fork", _start_workers("fork", count, specs, time.monotonic() + START_WAIT)


def _unloadable(problems: dict[str, str]) -> str:
    # Why workers started afresh will not do: the strategies they could not load.
    names = [spec for spec in problems if not is_path(parse_spec(spec)[0])]
    _UNKNOWN_AFRESH.update(names)
    files = [f"{spec} ({why})" for spec, why in problems.items() if spec not in names]
    reasons = []
    if names:
        reasons.append(
            f"does not know {', '.join(names)}, registered by this program alone (a strategy "
            "file would be loaded there)"
        )
    if files:
        reasons.append(f"cannot load {'; '.join(files)}")
    return f"a worker process started afresh {' and '.join(reasons)}"


def _start_workers(how: str, count: int, specs: Sequence[str], deadline: float) -> list[_Worker]:
    # ``count`` workers started ``how``, every one ready and able to load every strategy.
    workers: list[_Worker] = []
    try:
        for _ in range(count):
            workers.append(_Worker.start(how, specs))
        problems: dict[str, str] = {}
        for worker in workers:
            problems.update(worker.wait_ready(deadline))
        if problems:
            for spec in problems:
                _factory(spec)  # one this process cannot load either fails as it would here
            raise NoPool(_unloadable(problems))
    except BaseException:
        for worker in workers:
            worker.stop()
        raise
    return workers


def _pool_results(
    work: Sequence[Job],
    jobs: int,
    retries: int,
    on_retry: Callable[[str], None],
) -> Generator[DealResult, None, None]:
    # Each worker has a pipe of its own and its deals in order, rather than a
    # multiprocessing.Pool (whose imap waits forever for the deal of a worker that died) or a
    # ProcessPoolExecutor (which says a worker died, not which deal it had, nor how it ended,
    # and stops the others' deals with it): here a death is seen at once, as the end of its
    # reply pipe, and names its deal.
    specs = work[0].specs
    try:
        how, workers = start_pool(min(jobs, len(work)), specs)
    except NoPool as exc:
        if exc.reason not in _SAID:
            _SAID.add(exc.reason)
            print(
                f"sheepshead tournament: playing the deals in this process, one at a time, "
                f"not in {jobs} worker processes: {exc.reason}",
                file=sys.stderr,
            )
        yield from map(play_deal, work)
        return
    waiting = deque(work)
    deaths: dict[int, int] = {}
    try:
        for _ in range(AHEAD):
            for worker in workers:
                if waiting:
                    worker.give(waiting.popleft())
        while any(w.jobs for w in workers):
            busy = [w for w in workers if w.jobs]
            ready = set(wait([w.reader for w in busy]))
            for worker in busy:
                if worker.reader not in ready:
                    continue
                try:
                    reply = read_frame(worker.reader)
                except (EOFError, OSError):
                    # Left in the list until replaced, so an interruption still stops it.
                    others = [w for w in workers if w is not worker]
                    fresh = _replace(worker, others, waiting, deaths, retries, on_retry, how)
                    workers[workers.index(worker)] = fresh
                    continue
                kind, value, *trace = reply
                if kind == "ready":
                    continue  # a fresh worker, started in a dead one's place
                job = worker.jobs.popleft()
                if waiting:
                    worker.give(waiting.popleft())
                if kind != "ok":
                    raise value from _RemoteTraceback(trace[0])
                assert value.number == job.number
                yield value
    finally:
        for worker in workers:
            worker.stop()


def _replace(
    dead: _Worker,
    others: Sequence[_Worker],
    waiting: deque[Job],
    deaths: dict[int, int],
    retries: int,
    on_retry: Callable[[str], None],
    how: str,
) -> _Worker:
    # The worker of ``dead.jobs[0]`` died playing it: a fresh one plays the deal again (and the
    # deals queued behind it), or the run stops. ``others`` are the workers still at work.
    job = dead.jobs.popleft()
    pid = dead.process.pid
    # Its pipe ended, so it is exiting: its own status, before stop() could terminate it.
    dead.process.exit_status(STOP_WAIT)
    code = dead.stop()
    tries = deaths[job.number] = deaths.get(job.number, 0) + 1
    if tries > retries:
        unfinished = sorted(w.jobs[0].number + 1 for w in others if w.jobs)
        raise WorkerDied(job.number + 1, code, pid, tries, unfinished)
    on_retry(
        f"deal {job.number + 1}: the worker process playing it died ({describe_exit(code)}); "
        "playing it again on a fresh worker"
    )
    waiting.extendleft(reversed(dead.jobs))
    # Not waited for: its deals wait in its pipe while it starts, its "ready" comes first.
    fresh = _Worker.start(how, job.specs)
    fresh.give(job)
    while len(fresh.jobs) < AHEAD and waiting:
        fresh.give(waiting.popleft())
    return fresh


def work(reader: int, writer: int, parent: int) -> None:
    """A worker: loads the strategies it is sent, says it is ready, then plays the deals it is
    sent, one at a time, until its pipe ends. ``parent`` is the process that started it."""
    _start_worker(parent)
    try:
        specs = read_frame(reader)["specs"]
    except EOFError:
        return
    problems = {}
    for spec in specs:
        try:
            _factory(spec)
        except Exception as exc:
            problems[spec] = str(exc)
    send_frame(writer, ("ready", os.getpid(), problems))
    while True:
        try:
            job = read_frame(reader)
        except EOFError:
            return
        try:
            reply: tuple[Any, ...] = ("ok", play_deal(job))
            send_frame(writer, reply)
        except Exception as exc:
            # As multiprocessing.Pool did: the exception, raised in the parent, with this
            # traceback as its cause (or a plain one, when it cannot be pickled).
            trace = traceback.format_exc()
            try:
                send_frame(writer, ("error", exc, trace))
            except Exception:
                error = RuntimeError(f"{type(exc).__name__}: {exc}")
                send_frame(writer, ("error", error, trace))


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
