"""Every test process collects garbage as a server does (``ServerConfig.gc_thresholds``).

With the interpreter's thresholds a test process, holding every imported module and Textual's
widgets, walked its whole heap every 70,000 allocations: a fifth of the client tests' CPU.
Once the tests are collected, what is alive is frozen (no collection walks it again) and the
server's thresholds apply (``Server.start`` set them in whichever process a test started a
server in, so a process's tests ran under either, depending on their order).

The slowest files are handed to the test workers first (:data:`SLOWEST_FIRST`).
"""

from __future__ import annotations

import gc

import pytest

from server.config import ServerConfig


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection left alive and take the server's thresholds."""
    thresholds = ServerConfig().gc_thresholds
    assert thresholds is not None
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


SLOWEST_FIRST = (
    "tests/client/test_club_table_e2e.py",
    "tests/client/test_club_table.py",
    "tests/server/test_web_door.py",
    "tests/client/test_e2e.py",
    "tests/test_bench_attacks_smoke.py",
    "tests/client/test_screens.py",
    "tests/client/test_panels.py",
    "tests/client/test_create_dialog.py",
    "tests/test_bench_smoke.py",
    "tests/botkit/test_env.py",
    "tests/test_bench_scenarios_smoke.py",
    "tests/client/test_deals_verified.py",
    "tests/e2e/test_server_attacks.py",
    "tests/client/test_club_evening.py",
    "tests/server/test_ssh_door.py",
    "tests/e2e/test_server_crash.py",
    "tests/botkit/test_tournament_resume.py",
    "tests/server/test_hints.py",
    "tests/bots/test_sampling.py",
    "tests/e2e/test_server_review_made_for.py",
    "tests/test_bench_doors_ssh_smoke.py",
    "tests/bots/test_legal.py",
    "tests/e2e/test_server_restore_fuzz.py",
    "tests/e2e/test_server_history.py",
    "tests/bots/test_bot_runner.py",
    "tests/test_bench_doors_web_smoke.py",
)
"""The test files that take longest, slowest first (1 % to 9 % each of the plain run's test
time, in three runs beside other processes on 2 cores). With ``--dist loadfile`` a file is one
worker's, and the files go out in the order collected (``--no-loadscope-reorder`` in the
Makefile). xdist's own order hands out the files of most tests first, so the slow files of a
few tests (the benchmarks' smoke runs, the restore fuzz) went last: the six workers ended
between 203 and 236 s, the last half-minute the doors' and attacks' smoke runs on alone. In
this order all six ended at 178 to 179 s (the same machine, back to back). Any other file keeps
its place after these; a slow file missing here costs only a slower end."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`SLOWEST_FIRST` first, in its order; the rest as collected."""
    rank = {name: place for place, name in enumerate(SLOWEST_FIRST)}
    last = len(SLOWEST_FIRST)
    # A node id starts with its file's path from the project's directory (the rootdir).
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))
