"""What the benchmarks share: pinning, file limits, talking to child processes, the latency
summary (one formula, so their figures compare), the garbage collector's pauses, and the loops
that more than one benchmark times (random hands through the engine, simulator rollouts).

A script imports it before anything of the project's and calls :func:`put_project_first`, so
it imports nothing of the project's at module level itself.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing.connection import Connection as Pipe
from typing import Any


def put_project_first(script: str) -> None:
    """Make the project's packages win over bench/'s scripts of the same names.

    Run as a script, ``bench/`` comes first on ``sys.path``, where ``bench/engine.py`` and
    ``bench/server.py`` would shadow the ``engine`` and ``server`` packages. The project's root
    goes first instead (with ``--compiled`` on the command line, ``build/compiled``, the build
    of ``make compiled``; :func:`server_build` checks it), and ``bench/`` last.
    """
    here = os.path.dirname(os.path.abspath(script))
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    code = os.path.dirname(here)
    if "--compiled" in sys.argv[1:]:
        code = os.path.join(code, "build", "compiled")
        if not os.path.isdir(code):  # else bench/server.py would be imported as the server
            raise SystemExit("bench: --compiled, but there is no build/compiled: `make compiled`")
    sys.path[:] = [code, *others, here]


def server_build(compiled: bool) -> str:
    """Which build of the server this process imports, as the report prints it.

    Exits with a message when ``compiled`` was asked for and the compiled build is not what
    Python found (not built yet).
    """
    from server.cli import code_build

    build = code_build()
    if compiled and build != "compiled":
        raise SystemExit("bench: --compiled, but build/compiled is not what runs: `make compiled`")
    return "compiled (mypyc, build/compiled)" if build == "compiled" else "pure Python"


def pin(cores: set[int]) -> str:
    """Pin this process to ``cores`` when the machine has them; says what was done."""
    available = os.sched_getaffinity(0)
    wanted = cores & available
    if not wanted:
        return f"not pinned (cores {sorted(cores)} not available)"
    os.sched_setaffinity(0, wanted)
    return f"cores {sorted(wanted)}"


def raise_nofile(want: int) -> int:
    """Raise this process's open-file limit towards ``want`` (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def answer(pipe: Pipe, who: str) -> Any:
    """The next message from a child process; one that died ends the run instead of hanging it."""
    try:
        return pipe.recv()
    except EOFError:
        raise SystemExit(f"bench: {who} exited early (its traceback, if any, is above)") from None


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` in MiB (nan once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def percentile(ordered: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) of sorted values (nan when empty)."""
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> str:
    """``p50 / p99 / max`` in ms, and the count."""
    ordered = sorted(values)
    return (
        f"p50 {percentile(ordered, 0.5):7.2f}  p99 {percentile(ordered, 0.99):7.2f}  "
        f"max {ordered[-1] if ordered else float('nan'):8.2f} ms  (n={len(ordered):,})"
    )


def gc_timer(pauses: list[tuple[int, float]]) -> Callable[[str, dict[str, int]], None]:
    """A ``gc.callbacks`` entry that appends (generation, seconds) for every collection.

    The collector stops the world: in the server a pause delays every table at once, and in a
    load generator it delays the timestamps it takes.
    """
    started = [0.0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - started[0]))

    return timer


def gc_summary(pauses: list[tuple[int, float]]) -> str:
    """``n collection(s), f full; t ms in all, longest m ms``, then the longest per generation."""
    count: Counter[int] = Counter()
    longest: dict[int, float] = {}
    for generation, pause in pauses:
        count[generation] += 1
        longest[generation] = max(longest.get(generation, 0.0), pause)
    per_generation = ", ".join(
        f"{('young', 'middle', 'full')[g]} {count[g]} x <= {longest[g] * 1000:.1f} ms"
        for g in sorted(longest)
    )
    return (
        f"{len(pauses)} collection(s), {count[2]} full; {sum(p for _, p in pauses) * 1000:.0f} "
        f"ms in all, longest {max(longest.values(), default=0) * 1000:.1f} ms"
        + (f" ({per_generation})" if per_generation else "")
    )


def random_hands(rules: Any, count: int, seed: int) -> int:
    """Play ``count`` random legal hands through the public, validating engine API (dealer
    ``n % 5``, deal seed ``seed + n``); return the number of actions applied."""
    import random

    from engine import Hand

    choice = random.Random(seed).choice
    actions = 0
    for n in range(count):
        hand = Hand.from_seed(rules, n % 5, seed + n)
        while not hand.is_over:
            hand.apply(choice(hand.legal_actions()))
            actions += 1
    return actions


def simulator_speed(rules: Any, count: int, seed: int) -> float:
    """Rollouts per CPU second of :class:`engine.bots.sim.Sim` from the first trick of fixed
    deals (bidding by the heuristic; deals where nobody picks are skipped). CPU time, not wall
    time: on a shared machine it is the steadier figure."""
    from engine.bots.rollout import heuristic_setup
    from engine.bots.sim import Sim
    from engine.hand import Hand

    starts = []
    n = 0
    while len(starts) < 50:
        hand = Hand.from_seed(rules, n % 5, seed * 7_919 + n)
        heuristic_setup(hand)
        if hand.phase == "play":
            starts.append(Sim.from_hand(hand))
        n += 1
    begin = time.process_time()
    for i in range(count):
        starts[i % len(starts)].copy().rollout()
    return count / (time.process_time() - begin)
