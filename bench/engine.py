"""Benchmark: random legal hands through the public, validating engine API.

Run by hand: ``.venv/bin/python bench/engine.py [--seconds S] [--rules PRESET]``. Prints hands per
second on one core as a line ending in ``N hands/s``.

``--hands N`` plays exactly N hands (seeds 0..N-1, no warm-up, no timing loop) instead, for a
repeatable instruction count: callgrind's (or ``perf stat -e instructions``') count of
``--hands 300`` minus that of ``--hands 0``, divided by 300, is the instructions per hand::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/engine.py --hands 300

That figure includes the driver's own work: every action is drawn with ``random.choice`` from the
legal tuple (``benchlib.random_hands``), about 3,300 instructions an action in CPython 3.11, over
100k a hand. ``--draw inline`` makes the very same draws (``getrandbits`` with the rejection loop
``random.choice`` runs, so the same hands and the same action count) without ``random.choice``'s
two Python calls: the engine's work is the same, the driver's is smaller.

It also includes what a process pays once: the first hands warm the interpreter's specialised
bytecode (the shared ``Bury`` actions, :data:`engine.actions.BURIES`, are made at import, so
both runs pay for them alike). ``--warmup W`` plays W other hands (seeds from
1,000,000 on) first, in both runs, so that the difference is the steady state a long-running
server sees::

    ... bench/engine.py --hands 300 --warmup 300   minus   ... --hands 0 --warmup 300

``--until deal`` only deals each hand, and ``--until play`` deals and bids (the same draws)
and stops before the first card: the same count with each splits a hand into the deal, the
bidding and trick play (docs/performance.md, "Fifth pass"; the driver's draws are in each part).
"""

from __future__ import annotations

import argparse
import functools
import random
import time

from benchlib import put_project_first, random_hands

# bench/ is first on sys.path, where this very file would shadow the engine package it measures.
put_project_first(__file__)

from engine import RuleSet  # noqa: E402


def inline_draw_hands(rules: RuleSet, count: int, seed: int) -> int:
    """:func:`benchlib.random_hands` with ``random.choice``'s draw written out: the same calls
    to ``getrandbits`` on the same generator, so the same actions, hand for hand."""
    from engine import Hand

    getrandbits = random.Random(seed).getrandbits
    actions = 0
    for n in range(count):
        hand = Hand.from_seed(rules, n % 5, seed + n)
        while not hand.is_over:
            legal = hand.legal_actions()
            size = len(legal)
            width = size.bit_length()
            r = getrandbits(width)
            while r >= size:
                r = getrandbits(width)
            hand.apply(legal[r])
            actions += 1
    return actions


def hands_until(rules: RuleSet, count: int, seed: int, until: str) -> int:
    """:func:`benchlib.random_hands` stopped at ``until``: ``"deal"`` (no action) or ``"play"``
    (the bidding's actions, with the same draws, up to the first card)."""
    from engine import Hand

    choice = random.Random(seed).choice
    actions = 0
    for n in range(count):
        hand = Hand.from_seed(rules, n % 5, seed + n)
        if until == "deal":
            continue
        while hand.phase != "play" and not hand.is_over:
            hand.apply(choice(hand.legal_actions()))
            actions += 1
    return actions


def engine_build() -> str:
    """Which build of the engine runs: mypyc's (``--compiled``) or pure Python."""
    import engine.hand

    return "pure Python" if engine.hand.__file__.endswith(".py") else "compiled (mypyc)"


def main() -> None:
    """Parse arguments, run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to run (default 3)")
    parser.add_argument("--rules", default="seed", help="rules preset (default seed)")
    parser.add_argument(
        "--hands", type=int, default=None, help="play exactly this many hands, untimed"
    )
    parser.add_argument(
        "--draw",
        choices=("choice", "inline"),
        default="choice",
        help="how actions are drawn: random.choice (default) or the same draws inlined",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        help="with --hands: play this many other hands first (default 0)",
    )
    parser.add_argument(
        "--until",
        choices=("deal", "play", "end"),
        default="end",
        help="with --hands: stop each hand after the deal, before the first card, or at its end",
    )
    parser.add_argument("--compiled", action="store_true", help="run the build of `make compiled`")
    args = parser.parse_args()
    rules = RuleSet.from_preset(args.rules)
    play = random_hands if args.draw == "choice" else inline_draw_hands
    if args.until != "end":
        if args.hands is None or args.draw != "choice":
            parser.error("--until needs --hands (and --draw choice)")
        play = functools.partial(hands_until, until=args.until)
    if args.hands is not None:
        play(rules, args.warmup, 1_000_000)
        actions = play(rules, args.hands, 0)
        print(
            f"{args.hands} hands, {actions} actions ({engine_build()}, --draw {args.draw}, "
            f"--until {args.until})"
        )
        return
    play(rules, 200, 1)  # warm-up
    hands = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        actions += play(rules, 1000, hands)
        hands += 1000
    elapsed = time.perf_counter() - start
    print(f"{hands} hands, {actions} actions in {elapsed:.2f} s")
    print(f"{actions / elapsed:,.0f} actions/s")
    print(
        f"engine ({args.rules} rules, validating API, {engine_build()}, --draw {args.draw}): "
        f"{hands / elapsed:,.0f} hands/s"
    )


if __name__ == "__main__":
    main()
