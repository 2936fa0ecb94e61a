"""``sheepshead tournament``: its options, their checks, and the run (``client/cli.py`` registers
it; docs/bots.md, "Tournaments", has the full definition).

Per strategy it prints the mean payout per seat-hand with a 95% confidence interval clustered by
deal, the pick rate, the picker's win rate, the leaster rate and decision times; and for every
pair, the difference of their means with its clustered interval. ``--json`` writes the same as
JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from botkit.tournament.cluster import (
    DEFAULT_CHUNK,
    DEFAULT_CONNECT_TIMEOUT,
    ClusterError,
    check_address,
    connect,
)
from botkit.tournament.play import run_tournament
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
        "--jobs", type=int, default=None, metavar="J", help="worker processes (default 1)"
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the deals on a Dask cluster instead: the address its `dask scheduler` "
        "prints (tcp://HOST:8786); same results as --jobs for the same seed "
        "(pip install 'sheepshead[cluster]'; docs/bots.md, \"Many machines\")",
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
    if args.jobs is not None and args.jobs < 1:
        errors.append("--jobs must be at least 1")
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
    client = None
    if args.cluster is not None:
        try:
            client = connect(args.cluster, args.cluster_timeout)
        except ClusterError as exc:
            print(f"sheepshead tournament: {exc.message}", file=sys.stderr)
            return exc.status
    try:
        return _play(args, specs, rules, names, client)
    finally:
        if client is not None:
            client.close()  # type: ignore[no-untyped-call]


def _play(
    args: argparse.Namespace,
    specs: list[str],
    rules: RuleSet,
    names: list[str],
    client: Client | None,
) -> int:
    labels = strategy_labels(specs)
    deals: int | list[int] = args.deals if args.deal is None else [args.deal - 1]
    count = args.deals if args.deal is None else 1
    progress = Progress(count, sys.stderr, not args.quiet)
    progress.update(0)

    def on_progress(done: int, tallies: list[StrategyTally]) -> None:
        # The running means, so a long tournament shows where it is heading.
        means = [
            f"{short_label(label)} {t.payout / t.seat_hands:+.3f}"
            for label, t in zip(labels, tallies, strict=True)
            if t.seat_hands
        ]
        progress.update(done, "  ".join(means))

    address = check_address(args.cluster) if client is not None else None
    if client is not None and not client.scheduler_info().get("workers"):
        print(
            f"sheepshead tournament: no workers at {address} yet: the deals "
            f"wait for one (dask worker {address})",
            file=sys.stderr,
        )
    started = time.monotonic()
    try:
        tallies, worst = run_tournament(
            specs,
            deals,
            args.seed,
            rules,
            args.jobs or 1,
            on_progress,
            labels=labels,
            save_dir=args.save_hands,
            worst=args.worst,
            cluster=client,
            chunk=args.cluster_chunk,
        )
    except ClusterError as exc:
        print(f"\nsheepshead tournament: {exc.message}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        if client is not None:
            print("\nsheepshead tournament: interrupted; its deals on the cluster were cancelled")
        raise
    params: dict[str, Any] = {
        "rules": rules.to_dict(),
        "seed": args.seed,
        "deals": count,
        "jobs": None if client is not None else args.jobs or 1,
        "seatings_per_deal": 5 * len(specs),
        "scheme": "rotations of seat s -> s mod k, under every shift of the strategy labels",
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    if client is not None:
        params["cluster"] = address
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
