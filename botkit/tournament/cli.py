"""``sheepshead tournament``: its options, their checks, and the run (``client/cli.py`` registers
it; docs/bots.md, "Tournaments", has the full definition).

Per strategy it prints the mean payout per seat-hand with a 95% confidence interval clustered by
deal, the pick rate, the picker's win rate, the leaster rate and decision times; and for every
pair, the difference of their means with its clustered interval. ``--json`` writes the same as
JSON.

Ctrl+C (or SIGTERM, SIGHUP) stops it and reports the deals played whole; each deal is appended
to a progress file as it completes (:mod:`botkit.tournament.progress`), which ``--resume``
goes on from, to the figures of one uninterrupted run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

from botkit.tournament.cluster import (
    DEFAULT_CHUNK,
    DEFAULT_CONNECT_TIMEOUT,
    ClusterError,
    check_address,
    connect,
)
from botkit.tournament.play import (
    SEATING_SCHEME,
    DealResult,
    Mirror,
    WorkerDied,
    keep_worst,
    make_jobs,
    merge_results,
    play_deals,
    plays_per_deal,
    strip_records,
    with_records,
)
from botkit.tournament.progress import (
    ProgressError,
    ProgressLog,
    Saved,
    mismatches,
    seating_mismatch,
)
from botkit.tournament.progress import header as progress_header
from botkit.tournament.progress import read as read_progress
from botkit.tournament.report import Progress, report, report_worst, short_label
from botkit.tournament.stats import StrategyTally, summarize
from client.bot_runner import add_rules_arguments
from client.strategy_spec import StrategyLoadError, strategy_factory, strategy_label
from engine.errors import SheepsheadError
from engine.rules import DEFAULT_PRESET, RuleSet

if TYPE_CHECKING:
    from distributed import Client

HELP = "duplicate tournament between bot strategies"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``tournament``'s arguments."""
    del command
    parser.add_argument(
        "--strategies",
        required=True,
        metavar="LIST",
        help="comma-separated strategies (at least two), each a registered name (random, "
        "heuristic, search, ...), a Python file with a class defining choose(view, legal), or "
        "an executable program speaking JSON lines (./mybot.js; docs/bots.md, 'A bot in any "
        "language'), optionally with options, e.g. search:samples=20,heuristic,./mybot.js",
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=100,
        metavar="N",
        help="deals to play, each at every seating of the strategies (default 100; at most "
        "1,000,000)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="tournament seed: the same seed plays the same deals (default 1)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="J",
        help=f"worker processes (default 1; at most {JOBS_PER_CORE} per core, and 8 on any "
        "machine)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the deals on a Dask cluster instead: the address its `dask scheduler` "
        "prints (tcp://HOST:8786); same results as --jobs for the same seed "
        "(pip install -e '.[cluster]' in a checkout; docs/bots.md, \"Many machines\")",
    )
    parser.add_argument(
        "--cluster-timeout",
        type=float,
        default=DEFAULT_CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="give up reaching the scheduler after this long "
        f"(default {DEFAULT_CONNECT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--cluster-chunk",
        type=int,
        default=DEFAULT_CHUNK,
        metavar="N",
        help=f"deals per task sent to the cluster (default {DEFAULT_CHUNK})",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="also write the results as JSON here (an interrupted run's too, with "
        '"interrupted": true); the progress goes to PATH.progress unless --progress names '
        "another file",
    )
    parser.add_argument(
        "--progress",
        metavar="FILE",
        help="append a line to FILE as each deal is played whole (default with --json: "
        "PATH.progress, removed once the JSON is written), so that a run stopped by Ctrl+C, a "
        "kill or a crash can go on with --resume FILE",
    )
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="go on with the tournament whose progress FILE holds: give the same --strategies, "
        "--deals, --seed and rules (else refused); its deals are not played again, the new "
        "ones are appended to FILE, and the figures are those of one uninterrupted run",
    )
    add_rules_arguments(parser, DEFAULT_PRESET, "")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--save-hands",
        metavar="DIR",
        help="write every hand played as a sheepshead-hand/1 record (docs/hand-record.md) into "
        "DIR, one file per deal and seating (deal0001-seating00.json), with the strategy at "
        "each seat and the payouts",
    )
    parser.add_argument(
        "--worst",
        type=int,
        default=0,
        metavar="N",
        help="with two strategies: show the N deals where the first did worst against the "
        "second on the same cards, both seatings side by side",
    )
    parser.add_argument(
        "--deal",
        type=int,
        metavar="N",
        help="play only deal N (counted from 1) of the seeded tournament, all its seatings: "
        "the same cards as in the full run",
    )


def strategy_labels(specs: Sequence[str]) -> list[str]:
    """Unique labels for the strategies: the spec, with ``#2``, ``#3``... on repeats.

    >>> strategy_labels(["random", "heuristic", "random"])
    ['random', 'heuristic', 'random#2']
    """
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def _command_line(args: argparse.Namespace) -> str:
    parts = ["sheepshead tournament", f"--strategies {args.strategies}", f"--seed {args.seed}"]
    if args.preset != DEFAULT_PRESET:
        parts.append(f"--preset {args.preset}")
    parts += [f"--rule {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in args.rule]
    return " ".join(parts)


DEALS_MAX: Final = 1_000_000
"""The most ``--deals``: every deal to play is made up front, some 470 bytes each, so
``--deals 99999999999`` filled the memory without a word before its first deal."""

JOBS_PER_CORE: Final = 4
"""``--jobs`` takes at most this many worker processes per core (and 8 on any machine):
``--jobs 1000`` started a thousand interpreters, some 26 GB, on a machine of two cores."""


def jobs_max() -> int:
    """The most ``--jobs`` this machine takes (:data:`JOBS_PER_CORE`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(8, JOBS_PER_CORE * cores)


def run(args: argparse.Namespace) -> int:
    """Run the tournament, print the table (and write JSON); 2 on bad arguments."""
    specs = [s.strip() for s in args.strategies.split(",") if s.strip()]
    errors = []
    if len(specs) < 2:
        errors.append("--strategies needs at least two strategies")
    if not 1 <= args.deals <= DEALS_MAX:
        errors.append(
            f"--deals must be from 1 to {DEALS_MAX:,} (each deal waiting to be played holds "
            "some 0.5 KB; the 95% intervals are tight long before that)"
        )
    if args.jobs is not None and args.jobs < 1:
        errors.append("--jobs must be at least 1")
    elif args.jobs is not None and args.jobs > jobs_max():
        errors.append(
            f"--jobs {args.jobs} is more than {jobs_max()}, {JOBS_PER_CORE} per core here: each "
            "job is a process of its own (some 26 MB), and more than the cores play no faster"
        )
    if args.cluster is not None:
        if args.jobs is not None:
            errors.append("--jobs and --cluster exclude each other: the cluster's workers play")
        if args.save_hands:
            errors.append(
                "--save-hands writes on this machine, not the cluster's: replay a deal here "
                "with --deal N (the same cards)"
            )
        if not args.cluster_timeout > 0:
            errors.append("--cluster-timeout must be more than 0")
        if args.cluster_chunk < 1:
            errors.append("--cluster-chunk must be at least 1")
        try:
            check_address(args.cluster)
        except ClusterError as exc:
            errors.append(exc.message)
    if args.worst < 0:
        errors.append("--worst must be at least 0")
    elif args.worst and len(specs) != 2:
        errors.append("--worst compares two strategies: give exactly two in --strategies")
    if args.deal is not None and args.deal < 1:
        errors.append("--deal counts from 1")
    if args.resume is not None and args.progress is not None:
        errors.append("--resume FILE appends to FILE: no --progress with it")
    if args.deal is not None and (args.resume is not None or args.progress is not None):
        errors.append("--deal plays one deal again: nothing to resume, no --progress or --resume")
    try:
        rules = RuleSet.from_preset(args.preset, **dict(args.rule))
    except SheepsheadError as exc:
        errors.append(exc.message)
        rules = RuleSet()
    names = []
    for spec in specs:
        try:
            names.append(strategy_label(strategy_factory(spec)(None), spec))
        except StrategyLoadError as exc:
            errors.append(str(exc))
    if args.save_hands:
        try:
            os.makedirs(args.save_hands, exist_ok=True)
        except FileExistsError:  # said "[Errno 17] File exists" of a file in the way
            errors.append(f"--save-hands {args.save_hands} is a file: give a directory")
        except OSError as exc:
            errors.append(
                f"cannot create --save-hands directory {args.save_hands}: {exc.strerror or exc}"
            )
    if args.json:
        problem = _unwritable(args.json)
        if problem:
            errors.append(f"--json {args.json}: {problem}")
    saved = None
    if not errors:
        saved, problem = _check_progress(args, specs, rules)
        if problem:
            errors.append(problem)
    if errors:
        for e in errors:
            print(f"sheepshead tournament: {e}", file=sys.stderr)
        return 2
    client = None
    if args.cluster is not None:
        try:
            client = connect(args.cluster, args.cluster_timeout)
        except ClusterError as exc:
            print(f"sheepshead tournament: {exc.message}", file=sys.stderr)
            return exc.status
    try:
        return _play(args, specs, rules, names, client, saved)
    finally:
        if client is not None:
            client.close()  # type: ignore[no-untyped-call]


def progress_path(args: argparse.Namespace) -> str | None:
    """Where this run records its progress: ``--resume``'s file, ``--progress``'s, or beside
    ``--json`` (``PATH.progress``); None when none is asked for, or for ``--deal``."""
    if args.deal is not None:
        return None
    return args.resume or args.progress or (f"{args.json}.progress" if args.json else None)


def _check_progress(
    args: argparse.Namespace, specs: list[str], rules: RuleSet
) -> tuple[Saved | None, str | None]:
    # The progress file read for --resume, or a reason to refuse the run: a resumed file of
    # another tournament, or a new run that would write over deals already played.
    path = progress_path(args)
    if path is None:
        return None, None
    if args.resume is None:
        if os.path.exists(path):
            try:
                played = len(read_progress(path).results)
            except ProgressError:
                played = 0  # not even a deal: nothing to lose
            if played:
                return None, (
                    f"{path} already holds {played} deals of a tournament: --resume "
                    f"{shlex.quote(path)} goes on with it (or reports it, when every deal is "
                    "there); remove the file to start over"
                )
        return None, None
    try:
        saved = read_progress(path)
    except ProgressError as exc:
        return None, str(exc)
    expected = progress_header(specs, args.seed, args.deals, rules.to_dict())
    older = seating_mismatch(saved.header, expected)
    if older:
        return None, f"--resume {path}: {older}"
    problems = mismatches(saved.header, expected)
    if problems:
        return None, (
            f"--resume {path}: that file is another tournament's ({'; '.join(problems)}); "
            "give the options of the run that wrote it"
        )
    return saved, None


class _Stops:
    """Ctrl+C (SIGINT), SIGTERM and SIGHUP (a closed terminal) stop the run: the first raises
    KeyboardInterrupt, the process's own; later ones, while it stops and reports, do nothing.

    Inside :meth:`held` a signal waits for its end: a deal is recorded whole or not at all.
    """

    SIGNALS: tuple[signal.Signals, ...] = tuple(
        getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
    )

    def __init__(self) -> None:
        self.signum: int | None = None
        self.holding = False
        self.pending = False
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _Stops:
        # Handlers can only be set from the main thread; elsewhere Ctrl+C is the caller's. A
        # signal ignored on purpose stays ignored: SIGHUP under nohup, SIGINT in a background job.
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._old[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, old in self._old.items():
            signal.signal(signum, old)

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is not None:
            return
        self.signum = signum
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold signals off for a moment."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
            if self.pending:
                self.pending = False
                raise KeyboardInterrupt

    def hold_all(self) -> None:
        """Hold signals off for the rest of the run (it is reporting)."""
        self.holding = True
        self.signum = self.signum or 0

    def status(self) -> int:
        """The exit status of a run stopped by the signal: 130 for Ctrl+C, 128 + its number."""
        return 128 + (self.signum or signal.SIGINT)


def _play(
    args: argparse.Namespace,
    specs: list[str],
    rules: RuleSet,
    names: list[str],
    client: Client | None,
    saved: Saved | None,
) -> int:
    labels = strategy_labels(specs)
    numbers = range(args.deals) if args.deal is None else [args.deal - 1]
    count = len(numbers)
    done: dict[int, DealResult] = dict(saved.results) if saved else {}
    running = merge_results(done.values(), len(specs))
    kept: list[Mirror] = []
    for result in done.values():
        kept = keep_worst(kept, result, args.worst)
    work = make_jobs(
        [n for n in numbers if n not in done],
        args.seed,
        specs,
        rules,
        labels,
        args.save_hands,
        keep_mirrors=args.worst > 0,
    )
    path = progress_path(args)
    log = None
    if path is not None:
        try:
            if saved is not None:
                log = ProgressLog.open(path, saved.end)
            else:
                log = ProgressLog.create(
                    path, progress_header(specs, args.seed, args.deals, rules.to_dict())
                )
        except OSError as exc:
            print(
                f"sheepshead tournament: cannot write {path}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 1
    progress = Progress(count, sys.stderr, not args.quiet, already=len(done))
    progress.update(len(done))

    def on_progress(played: int, tallies: list[StrategyTally]) -> None:
        # The running means, so a long tournament shows where it is heading.
        means = [
            f"{short_label(label)} {t.payout / t.seat_hands:+.3f}"
            for label, t in zip(labels, tallies, strict=True)
            if t.seat_hands
        ]
        progress.update(played, "  ".join(means))

    address = check_address(args.cluster) if client is not None else None
    if client is not None and work and not client.scheduler_info().get("workers"):
        print(
            f"sheepshead tournament: no workers at {address} yet: the deals "
            f"wait for one (dask worker {address})",
            file=sys.stderr,
        )

    def on_retry(line: str) -> None:
        print(f"\nsheepshead tournament: {line}", file=sys.stderr)

    started = time.monotonic()
    interrupted = False
    with _Stops() as stops:
        try:
            played = play_deals(work, args.jobs or 1, client, args.cluster_chunk, on_retry=on_retry)
            with contextlib.closing(played) as results:
                for result in results:
                    with stops.held():
                        if log is not None:
                            log.append(result)
                        kept = keep_worst(kept, result, args.worst)
                        done[result.number] = strip_records(result)
                        for m, t in zip(running, result.tallies, strict=True):
                            m.add(t)
                    on_progress(len(done), running)
        except (ClusterError, WorkerDied) as exc:
            # The deals played whole are in the progress file: the run goes on from there.
            print(f"\nsheepshead tournament: {exc.message}", file=sys.stderr)
            if path is not None and done:
                print(f"to resume: {_resume_command(args, path)}", file=sys.stderr)
            elif path is None and done:
                print(
                    "no progress file (--progress FILE, or --json PATH): it cannot be resumed",
                    file=sys.stderr,
                )
            return exc.status if isinstance(exc, ClusterError) else 1
        except KeyboardInterrupt:
            interrupted = True
        finally:
            # From here on the run reports: a further signal must not cut that short.
            stops.hold_all()
            if log is not None:
                log.close()
        if interrupted and progress.enabled and progress.tty:
            print(file=sys.stderr)  # off the progress bar's line
        if interrupted and client is not None:
            print("\nsheepshead tournament: interrupted; its deals on the cluster were cancelled")
        summary = _summary(args, specs, rules, names, client, done, started)
        summary["interrupted"] = interrupted
        # The JSON first: after a closed terminal (SIGHUP) the printing below may fail.
        status = _write_json(args, summary)
        try:
            if interrupted:
                print(
                    f"INTERRUPTED after {len(done)} of {count} deals: the figures count the "
                    f"{len(done)} deals played whole"
                )
            report(summary, sys.stdout)
            template = make_jobs([0], args.seed, specs, rules, labels)[0]
            report_worst(
                with_records(kept, template), labels, _command_line(args), sys.stdout, names
            )
            if args.save_hands:
                hands = plays_per_deal(len(specs)) * len(done)
                print(
                    f"records of the {hands} hands in {args.save_hands} "
                    "(sheepshead replay FILE shows one)"
                )
            if interrupted and path is not None:
                print(f"to resume: {_resume_command(args, path)}")
            elif interrupted:
                print("no progress file (--progress FILE, or --json PATH): it cannot be resumed")
        except OSError:
            if not interrupted:
                raise
        if interrupted:
            return stops.status()
        if status == 0 and path is not None and args.json and path == f"{args.json}.progress":
            # The JSON holds every figure now: the default progress file has done its work.
            with contextlib.suppress(OSError):
                os.remove(path)
        return status


def _summary(
    args: argparse.Namespace,
    specs: list[str],
    rules: RuleSet,
    names: list[str],
    client: Client | None,
    done: dict[int, DealResult],
    started: float,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "rules": rules.to_dict(),
        "seed": args.seed,
        "deals": args.deals if args.deal is None else 1,
        "jobs": None if client is not None else args.jobs or 1,
        "seatings_per_deal": plays_per_deal(len(specs)),
        "scheme": SEATING_SCHEME,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    if client is not None:
        params["cluster"] = check_address(args.cluster)
    if args.deal is not None:
        params["deal"] = args.deal
    tallies = merge_results(done.values(), len(specs))
    return summarize(strategy_labels(specs), tallies, params, names)


def _unwritable(path: str) -> str | None:
    """Why the results could not be written to ``path`` once played, or None: checked before
    the first deal, as a run of hours that fails only at the end has lost them."""
    target = os.path.abspath(path)
    if os.path.isdir(target):
        return "is a directory: give a file name"
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        return f"its folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"its folder {folder} is not writable"
    return None


def _write_json(args: argparse.Namespace, summary: dict[str, Any]) -> int:
    if not args.json:
        return 0
    # Into a file beside it, then renamed: a full disk or a kill mid-write leaves the old
    # file or none, never half a JSON document.
    partial = f"{args.json}.partial"
    try:
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2, allow_nan=False, default=_json_default)
            f.write("\n")
        os.replace(partial, args.json)
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"sheepshead tournament: cannot write {args.json}: {why}", file=sys.stderr)
        return 1
    return 0


def _resume_command(args: argparse.Namespace, path: str) -> str:
    """The command that goes on with this run: the same tournament, ``--resume PATH``."""
    parts = [_command_line(args), f"--deals {args.deals}"]
    if args.jobs is not None:
        parts.append(f"--jobs {args.jobs}")
    if args.cluster is not None:
        parts.append(f"--cluster {shlex.quote(args.cluster)}")
    if args.json:
        parts.append(f"--json {shlex.quote(args.json)}")
    if args.save_hands:
        parts.append(f"--save-hands {shlex.quote(args.save_hands)}")
    if args.worst:
        parts.append(f"--worst {args.worst}")
    parts.append(f"--resume {shlex.quote(path)}")
    return " ".join(parts)


def _json_default(value: object) -> Any:
    raise TypeError(f"not JSON serializable: {value!r}")
