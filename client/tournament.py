"""``sheepshead tournament``: a duplicate tournament between bot strategies, in-process.

Duplicate format (docs/bots.md has the full definition): with ``k`` strategies, seat ``s`` of the
base pattern gets strategy ``s mod k``. Every deal is played ``5k`` times with the same cards and
dealer: for each label shift ``j`` (0..k-1) and each rotation ``r`` (0..4), seat ``s`` is played
by strategy ``(((s + r) mod 5) mod k + j) mod k``. So every strategy holds every seat's cards
exactly five times per deal, and luck of the cards cancels out.

Per strategy it prints the mean payout per seat-hand with a 95% confidence interval clustered by
deal (the plays of one deal are correlated, so each deal's mean is one observation), the pick
rate, the picker's win rate, the leaster rate and decision times; and for every pair, the
difference of their means with its clustered interval. ``--json`` writes the same as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from client.bot_runner import (
    StrategyLoadError,
    add_rules_arguments,
    strategy_factory,
    strategy_label,
)
from client.strategy_call import decide
from engine.actions import action_from_dict
from engine.bots.base import Strategy
from engine.errors import SheepsheadError
from engine.hand import Deal, Hand
from engine.record import describe_record, export_record
from engine.rules import DEFAULT_PRESET, RuleSet, rules_title
from engine.view import seat_view

HELP = "duplicate tournament between bot strategies"

FORMAT: Final = "sheepshead-tournament/1"
"""The ``format`` field of the JSON results."""

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond, the normal's.
_T95: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_PICKER_WINS: Final = frozenset({"won", "schneider", "all_tricks"})


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.inf
    return _T95[df - 1] if df <= len(_T95) else statistics.NormalDist().inv_cdf(0.975)


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


@dataclass
class StrategyTally:
    """One strategy's figures over the deals played so far."""

    deal_means: list[float] = field(default_factory=list)
    seat_hands: int = 0
    payout: int = 0
    picks: int = 0
    picker_wins: int = 0
    leasters: int = 0
    decisions: int = 0
    think: float = 0.0
    think_max: float = 0.0
    fallbacks: int = 0
    """Decisions where the strategy failed and the first legal action was played instead."""
    failures: list[str] = field(default_factory=list)
    """The first few of those failures, each naming the deal, the seat and the file and line."""

    def add(self, other: StrategyTally) -> None:
        """Merge another tally (one deal's) into this one."""
        self.deal_means += other.deal_means
        self.seat_hands += other.seat_hands
        self.payout += other.payout
        self.picks += other.picks
        self.picker_wins += other.picker_wins
        self.leasters += other.leasters
        self.decisions += other.decisions
        self.think += other.think
        self.think_max = max(self.think_max, other.think_max)
        self.fallbacks += other.fallbacks
        self.failures += other.failures[: max(0, _FAILURES_KEPT - len(self.failures))]


_FAILURES_KEPT: Final = 5
"""Failures reported in full per strategy; the rest are counted."""


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
    has five such pairs, one per rotation.
    """

    deal: int
    rotation: int
    score: int
    records: tuple[dict[str, Any], dict[str, Any]]


@dataclass
class DealResult:
    """One deal's tallies (one per strategy, in ``specs`` order) and mirrored seatings."""

    tallies: list[StrategyTally]
    mirrors: list[Mirror] = field(default_factory=list)


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
                if len(tally.failures) < _FAILURES_KEPT:
                    where = f" at {decision.place}" if decision.place else ""
                    tally.failures.append(
                        f"deal {job.number + 1}, seating {play}, seat {seat}: "
                        f"{labels[seats[seat]]} failed{where}: {decision.error}"
                    )
            hand.apply(action_from_dict(decision.action, seat))
        result = hand.result()
        assert result.payouts is not None
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
    if job.keep_mirrors and k == 2:
        for rotation in range(5):
            pair = (records[rotation], records[5 + rotation])
            score = sum(
                pay
                for rec, seats in zip(pair, (plays[rotation], plays[5 + rotation]), strict=True)
                for pay, who in zip(rec["payouts"], seats, strict=True)
                if who == 0
            )
            mirrors.append(Mirror(job.number + 1, rotation, score, pair))
        # The deal's worst pair of seatings for the first strategy stands for the deal.
        mirrors = [min(mirrors, key=_mirror_order)]
    return DealResult(tallies, mirrors)


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% confidence interval (t-based) of independent observations."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    if n < 2:
        return mean, -math.inf, math.inf
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


def summarize(
    specs: Sequence[str],
    tallies: Sequence[StrategyTally],
    params: dict[str, Any],
    names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The results as a JSON-ready map (see docs/bots.md for every field).

    ``specs`` are the strategies' labels (unique); ``names`` their ``name`` attributes.
    """
    strategies = {}
    for i, (spec, t) in enumerate(zip(specs, tallies, strict=True)):
        mean, low, high = interval(t.deal_means)
        strategies[spec] = {
            "name": names[i] if names else spec,
            "mean": mean,
            "ci95": [_finite(low), _finite(high)],
            "seat_hands": t.seat_hands,
            "total_payout": t.payout,
            "pick_rate": t.picks / t.seat_hands if t.seat_hands else 0.0,
            "picks": t.picks,
            "picker_win_rate": t.picker_wins / t.picks if t.picks else None,
            "leaster_rate": t.leasters / t.seat_hands if t.seat_hands else 0.0,
            "decisions": t.decisions,
            "decision_mean_s": t.think / t.decisions if t.decisions else 0.0,
            "decision_max_s": t.think_max,
            "fallbacks": t.fallbacks,
            "failures": list(t.failures),
        }
    pairs = []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            diffs = [
                a - b for a, b in zip(tallies[i].deal_means, tallies[j].deal_means, strict=True)
            ]
            mean, low, high = interval(diffs)
            pairs.append(
                {"a": specs[i], "b": specs[j], "diff": mean, "ci95": [_finite(low), _finite(high)]}
            )
    deals = len(tallies[0].deal_means) if tallies else 0
    return {
        "format": FORMAT,
        **params,
        "deals_played": deals,
        "hands": deals * 5 * len(specs),
        "strategies": strategies,
        "pairs": pairs,
    }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _fmt_ci(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "[n/a]"
    return f"[{low:+.3f}, {high:+.3f}]"


def report(summary: dict[str, Any], out: TextIO) -> None:
    """Print the results as a table."""
    print(
        f"{summary['deals_played']} deals x {5 * len(summary['strategies'])} seatings = "
        f"{summary['hands']} hands, seed {summary['seed']}\n"
        f"Rules: {rules_title(RuleSet.from_dict(summary['rules']))}",
        file=out,
    )
    width = max(
        len(label) + (len(s["name"]) + 3 if s.get("name", label) != label else 0)
        for label, s in summary["strategies"].items()
    )
    head = (
        f"{'strategy':<{width}}  {'pts/hand':>8}  {'95% CI':>18}  {'pick':>6}  "
        f"{'pick win':>8}  {'leaster':>7}  {'ms mean':>7}  {'ms max':>7}"
    )
    print(head, file=out)
    for name, s in summary["strategies"].items():
        if s.get("name", name) != name:
            name = f"{name} ({s['name']})"
        win = "-" if s["picker_win_rate"] is None else f"{s['picker_win_rate']:.1%}"
        print(
            f"{name:<{width}}  {s['mean']:>+8.3f}  {_fmt_ci(*s['ci95']):>18}  "
            f"{s['pick_rate']:>6.1%}  {win:>8}  {s['leaster_rate']:>7.1%}  "
            f"{s['decision_mean_s'] * 1000:>7.1f}  {s['decision_max_s'] * 1000:>7.1f}",
            file=out,
        )
    for p in summary["pairs"]:
        print(
            f"{p['a']} - {p['b']}: {p['diff']:+.3f} points per hand per seat, "
            f"95% CI {_fmt_ci(*p['ci95'])}",
            file=out,
        )
    for name, s in summary["strategies"].items():
        if s.get("fallbacks"):
            print(
                f"{name}: failed in {s['fallbacks']} of {s['decisions']} decisions; the first "
                "legal action was played instead (counted in its figures)",
                file=out,
            )
            for failure in s.get("failures", []):
                print(f"  {failure}", file=out)


class Progress:
    """A progress bar on stderr with the rate and the time left."""

    def __init__(self, total: int, out: TextIO, enabled: bool) -> None:
        self.total = total
        self.out = out
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = out.isatty()

    def update(self, done: int, status: str = "") -> None:
        """Redraw (at most five times a second; every ten seconds when not a terminal)."""
        if not self.enabled:
            return
        now = time.monotonic()
        finished = done == self.total
        if not finished and now - self.last < (0.2 if self.tty else 10.0):
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(30 * done / self.total) if self.total else 30
        bar = "#" * filled + "." * (30 - filled)
        line = (
            f"[{bar}] {done}/{self.total} deals  {rate:.2f} deals/s  "
            f"elapsed {_clock(elapsed)}  ETA {_clock(eta)}"
        )
        if status:
            line += f"  {status}"
        end = "\n" if finished or not self.tty else ""
        self.out.write(("\r" if self.tty else "") + line + end)
        self.out.flush()


def _short(spec: str) -> str:
    return spec if len(spec) <= 16 else spec[:15] + "~"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


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
) -> tuple[list[StrategyTally], list[Mirror]]:
    """Play duplicate deals: ``deals`` of them, or the listed deal numbers (counted from 0).

    Returns one merged tally per strategy, in ``specs`` order, and with ``worst`` (two
    strategies) the ``worst`` deals where the first strategy did worst, worst first, each as its
    worst pair of mirrored seatings.
    """
    numbers = range(deals) if isinstance(deals, int) else list(deals)
    work = [
        Job(
            n,
            seed,
            tuple(specs),
            rules.to_dict(),
            tuple(labels or specs),
            save_dir,
            keep_mirrors=worst > 0,
        )
        for n in numbers
    ]
    merged = [StrategyTally() for _ in specs]
    kept: list[Mirror] = []
    results: Iterator[DealResult]
    # Fork is fastest, but forking a process that runs other threads (an embedding program,
    # a test runner) can deadlock a child on a lock held by one of them; spawn instead needs a
    # main module it can import again.
    fork = threading.active_count() == 1 and sys.platform != "win32"
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if not fork and not (main_file and os.path.exists(main_file)):
        jobs = 1
    if jobs > 1 and len(work) > 1:
        context = multiprocessing.get_context("fork" if fork else "spawn")
        pool = context.Pool(jobs)
        results = pool.imap(play_deal, work, chunksize=1)
    else:
        pool = None
        results = map(play_deal, work)
    try:
        for done, result in enumerate(results, 1):
            for m, t in zip(merged, result.tallies, strict=True):
                m.add(t)
            if worst:
                # Only the worst few are kept: records are a few kB each.
                kept = sorted([*kept, *result.mirrors], key=_mirror_order)[:worst]
            if on_progress:
                on_progress(done, merged)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return merged, kept


def _mirror_order(mirror: Mirror) -> tuple[int, int, int]:
    return (mirror.score, mirror.deal, mirror.rotation)


def side_by_side(left: Sequence[str], right: Sequence[str], width: int = 62) -> list[str]:
    """Two columns of text lines, each cut to ``width`` characters.

    >>> side_by_side(["a", "bb"], ["c"], width=3)
    ['a   | c', 'bb  |']
    """
    lines = []
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        cut = a if len(a) <= width else a[: width - 1] + "~"
        lines.append(f"{cut:<{width}} | {b[:width]}".rstrip())
    return lines


def describe_seating(record: dict[str, Any], shown: dict[str, str] | None = None) -> list[str]:
    """A seating's hand trick by trick, each seat named with the strategy that played it
    (``shown`` maps a strategy label to a shorter name)."""
    labels = [(shown or {}).get(label, label) for label in record.get("strategies") or []]
    lines = []
    for line in describe_record(record).splitlines():
        if line.startswith("Rules: "):
            continue  # the same for every seating: printed once above
        for seat, label in enumerate(labels):
            prefix = f"  seat {seat}: "
            if line.startswith(prefix):
                line = f"  {seat} {label[:14]:<14} {line[len(prefix) :]}"
        lines.append(line)
    return lines


def report_worst(
    mirrors: Sequence[Mirror],
    labels: Sequence[str],
    command: str,
    out: TextIO,
    names: Sequence[str] | None = None,
) -> None:
    """Print each kept pair of mirrored seatings side by side, with how to rerun its deal.

    Seats show the strategies' ``names`` when those tell them apart, else their labels.
    """
    if not mirrors:
        return
    shown = dict(zip(labels, names, strict=True)) if names and len(set(names)) == len(names) else {}
    first, other = labels[0], labels[1]
    print(
        f"\nThe {len(mirrors)} deals where {first} did worst against {other} on the same cards "
        f"(left: {first} in the first seatings; right: the seats swapped):",
        file=out,
    )
    for mirror in mirrors:
        left, right = mirror.records
        print(
            f"\n=== deal {mirror.deal}, rotation {mirror.rotation}: {first} {mirror.score:+d} "
            f"over both seatings (rerun: {command} --deal {mirror.deal})",
            file=out,
        )
        rules = rules_title(RuleSet.from_dict(left["rules"]))
        print(f"Rules: {rules}  dealer: seat {left['dealer']}", file=out)
        heads = [
            f"seating {left['tournament']['seating']}",
            f"seating {right['tournament']['seating']}",
        ]
        for line in side_by_side(
            [heads[0], *describe_seating(left, shown)], [heads[1], *describe_seating(right, shown)]
        ):
            print(line, file=out)


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``tournament``'s arguments."""
    del command
    parser.add_argument(
        "--strategies",
        required=True,
        metavar="LIST",
        help="comma-separated strategies (at least two): registered names or .py files, each "
        "optionally with options, e.g. search:samples=20,heuristic,random",
    )
    parser.add_argument(
        "--deals", type=int, default=100, metavar="N", help="deals to play (default 100)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        metavar="S",
        help="tournament seed: the same seed plays the same deals (default 1)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="worker processes (default 1)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
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


def run(args: argparse.Namespace) -> int:
    """Run the tournament, print the table (and write JSON); 2 on bad arguments."""
    specs = [s.strip() for s in args.strategies.split(",") if s.strip()]
    errors = []
    if len(specs) < 2:
        errors.append("--strategies needs at least two strategies")
    if args.deals < 1:
        errors.append("--deals must be at least 1")
    if args.jobs < 1:
        errors.append("--jobs must be at least 1")
    if args.worst < 0:
        errors.append("--worst must be at least 0")
    elif args.worst and len(specs) != 2:
        errors.append("--worst compares two strategies: give exactly two in --strategies")
    if args.deal is not None and args.deal < 1:
        errors.append("--deal counts from 1")
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
        except OSError as exc:
            errors.append(f"cannot create --save-hands directory {args.save_hands}: {exc}")
    if errors:
        for e in errors:
            print(f"sheepshead tournament: {e}", file=sys.stderr)
        return 2
    labels = strategy_labels(specs)
    deals: int | list[int] = args.deals if args.deal is None else [args.deal - 1]
    count = args.deals if args.deal is None else 1
    progress = Progress(count, sys.stderr, not args.quiet)
    progress.update(0)

    def on_progress(done: int, tallies: list[StrategyTally]) -> None:
        # The running means, so a long tournament shows where it is heading.
        means = [
            f"{_short(label)} {t.payout / t.seat_hands:+.3f}"
            for label, t in zip(labels, tallies, strict=True)
            if t.seat_hands
        ]
        progress.update(done, "  ".join(means))

    started = time.monotonic()
    tallies, worst = run_tournament(
        specs,
        deals,
        args.seed,
        rules,
        args.jobs,
        on_progress,
        labels=labels,
        save_dir=args.save_hands,
        worst=args.worst,
    )
    params = {
        "rules": rules.to_dict(),
        "seed": args.seed,
        "deals": count,
        "jobs": args.jobs,
        "seatings_per_deal": 5 * len(specs),
        "scheme": "rotations of seat s -> s mod k, under every shift of the strategy labels",
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    if args.deal is not None:
        params["deal"] = args.deal
    summary = summarize(labels, tallies, params, names)
    report(summary, sys.stdout)
    report_worst(worst, labels, _command_line(args), sys.stdout, names)
    if args.save_hands:
        print(
            f"records of the {5 * len(specs) * count} hands in {args.save_hands} "
            "(sheepshead replay FILE shows one)",
            file=sys.stdout,
        )
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(summary, f, indent=2, allow_nan=False, default=_json_default)
                f.write("\n")
        except (OSError, ValueError) as exc:
            print(f"sheepshead tournament: cannot write {args.json}: {exc}", file=sys.stderr)
            return 1
    return 0


def _json_default(value: object) -> Any:
    raise TypeError(f"not JSON serializable: {value!r}")
