"""Benchmark: how long each bot strategy takes per decision, and how fast the search's rollouts are.

Run by hand: ``nice -n 15 .venv/bin/python bench/bots.py [--hands N] [--strategies a,b,...]
[--seed S] [--rules PRESET] [--think-time SECONDS | --no-clock] [--rollouts N]``.
Each strategy plays every seat of ``N`` hands in turn (the other four seats are ``heuristic``),
and every decision it makes with more than one legal action is timed on this process's clock.
The strategies get the clock and the time limit the server gives its bots (``ServerConfig.
bot_think_time``, 0.5 s), unless ``--no-clock``. Prints, per strategy and per kind of decision,
the count, mean, p50, p99 and max in milliseconds; for ``search`` the rollouts (hands played
out) per second of thinking and the exact search's positions per second; the simulator's own speed:
rollouts per CPU second from the first trick of fixed deals; and with ``--bidding N``, how many
hands are picked and how many become leasters at tables of five of each strategy.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import put_project_first, simulator_speed

put_project_first(__file__)

import argparse  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_strategy(
    name: str, hands: int, seed: int, rules: Any, think_time: float | None
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Decision times (seconds) of ``name`` (a strategy spec, options allowed:
    ``search:samples=80``) by decision kind over ``hands`` hands, and the strategy's work
    counters summed over them (rollouts, nodes; empty if it keeps none)."""
    from client.strategy_spec import strategy_factory
    from engine.actions import action_from_dict
    from engine.bots import make_strategy
    from engine.hand import Hand
    from engine.view import seat_view

    times: dict[str, list[float]] = {}
    work: dict[str, int] = {}
    filler = make_strategy("heuristic")
    factory = strategy_factory(name, think_time)
    for n in range(hands):
        seat_of_bot = n % 5
        bot = factory(seed + n)
        hand = Hand.from_seed(rules, (n // 5) % 5, seed * 100_003 + n)
        while not hand.is_over:
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            legal = view["legal"]
            if seat == seat_of_bot:
                start = time.perf_counter()
                choice = bot.choose(view, legal)
                spent = time.perf_counter() - start
                if len(legal) > 1:
                    kind = (
                        view["phase"]
                        if view["phase"] != "play"
                        else f"trick {len(hand.tricks) + 1}"
                    )
                    times.setdefault(kind, []).append(spent)
            else:
                choice = filler.choose(view, legal)
            hand.apply(action_from_dict(choice, seat))
        for counter in ("rollouts", "nodes"):
            if hasattr(bot, counter):
                work[counter] = work.get(counter, 0) + int(getattr(bot, counter))
    return times, work


def bidding(spec: str, deals: int, seed: int, rules: Any) -> tuple[float, float]:
    """At tables of five ``spec`` bots, the share of ``deals`` someone picks and the share that
    become leasters (only the bidding is played: it decides both)."""
    from client.strategy_spec import strategy_factory
    from engine.actions import action_from_dict
    from engine.hand import Hand
    from engine.view import seat_view

    factory = strategy_factory(spec)
    bots = [factory(seed + s) for s in range(5)]
    picked = leasters = 0
    for n in range(deals):
        hand = Hand.from_seed(rules, n % 5, seed * 100_003 + n)
        while hand.phase == "pick":
            seat = hand.turn
            assert seat is not None
            view = seat_view(hand, seat)
            hand.apply(action_from_dict(bots[seat].choose(view, view["legal"]), seat))
        picked += hand.picker is not None
        leasters += hand.leaster
    return picked / deals, leasters / deals


def main() -> None:
    """Parse arguments, time the strategies and print the figures."""
    from engine.rules import RuleSet

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50, help="hands per strategy (default 50)")
    parser.add_argument(
        "--strategies",
        default="random,heuristic,search",
        help="comma-separated strategy specs, options allowed: search:samples=80 "
        "(default random,heuristic,search)",
    )
    parser.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    parser.add_argument("--rules", default="wisconsin", help="rules preset (default wisconsin)")
    clock = parser.add_mutually_exclusive_group()
    clock.add_argument(
        "--think-time",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="time limit per decision, as the server sets it (default 0.5)",
    )
    clock.add_argument(
        "--no-clock", action="store_true", help="no time limit: budgets are counts only"
    )
    parser.add_argument(
        "--rollouts",
        type=int,
        default=2000,
        metavar="N",
        help="rollouts for the simulator's speed (default 2000; 0: skip)",
    )
    parser.add_argument(
        "--bidding",
        type=int,
        default=0,
        metavar="N",
        help="also bid N deals at tables of five of each strategy (specs with options allowed) "
        "and print how many hands are picked and how many become leasters (default 0: skip)",
    )
    args = parser.parse_args()
    rules = RuleSet.from_preset(args.rules)
    think_time = None if args.no_clock else args.think_time
    limit = "no time limit" if think_time is None else f"time limit {think_time:g} s"
    print(f"rules {args.rules}, {args.hands} hands per strategy, seed {args.seed}, {limit}")
    print(
        f"{'strategy':<12} {'decision':<9} {'count':>6} {'mean ms':>9} {'p50 ms':>9} "
        f"{'p99 ms':>9} {'max ms':>9}"
    )
    for name in args.strategies.split(","):
        times, work = time_strategy(name, args.hands, args.seed, rules, think_time)
        every = [t for ts in times.values() for t in ts]
        rows = [(kind, times[kind]) for kind in sorted(times, key=_kind_order)] + [("all", every)]
        for kind, ts in rows:
            if not ts:
                continue
            print(
                f"{name:<12} {kind:<9} {len(ts):>6} {sum(ts) / len(ts) * 1000:>9.2f} "
                f"{_percentile(ts, 0.5) * 1000:>9.2f} {_percentile(ts, 0.99) * 1000:>9.2f} "
                f"{max(ts) * 1000:>9.2f}"
            )
        thinking = sum(every)
        if work and thinking > 0:
            print(
                f"{name:<12} work: {work.get('rollouts', 0)} rollouts "
                f"({work.get('rollouts', 0) / thinking:,.0f} per second of thinking), "
                f"{work.get('nodes', 0)} exact-search positions "
                f"({work.get('nodes', 0) / thinking:,.0f}/s)"
            )
    for spec in args.strategies.split(",") if args.bidding > 0 else ():
        picks, leasters = bidding(spec, args.bidding, args.seed, rules)
        print(
            f"bidding at tables of five {spec}: {args.bidding} deals, picked {picks:.1%}, "
            f"leasters {leasters:.1%}"
        )
    if args.rollouts > 0:
        speed = simulator_speed(rules, args.rollouts, args.seed)
        print(
            f"simulator: {speed:,.0f} rollouts/s (CPU) from the first trick "
            f"({args.rollouts} rollouts)"
        )


def _kind_order(kind: str) -> tuple[int, str]:
    phases = {"pick": 0, "bury": 1, "call": 2}
    return (phases.get(kind, 3), kind.zfill(9))


if __name__ == "__main__":
    main()
