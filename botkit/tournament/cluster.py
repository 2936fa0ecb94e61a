"""Playing a tournament's deals on a Dask distributed cluster (``--cluster ADDRESS``).

The deals are cut into chunks, each chunk one task on the cluster; results come back in deal
order, so the tallies, intervals and report are exactly those of ``--jobs`` for the same seed
(every deal's cards and bot seeds come from the tournament seed and the deal's number alone).

Workers need sheepshead installed (with the ``distributed`` package). A strategy given as a
file travels with the work: its source goes with every chunk and the worker loads it from a
copy in its temporary directory, so the file must be self-contained (it may import what the
workers have installed, not modules beside it).

docs/bots.md, "Many machines", has the commands; docs/security.md, "Bot and coach workers",
what the scheduler is trusted with.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
import uuid
from asyncio import CancelledError as AsyncCancelledError
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import TYPE_CHECKING, Final

from botkit.extras import install_hint
from botkit.tournament.play import DealResult, Job, play_deal
from client.strategy_spec import is_path, parse_spec

if TYPE_CHECKING:
    from distributed import Client

DEFAULT_CONNECT_TIMEOUT: Final = 10.0
"""Seconds to reach the scheduler before ``--cluster`` gives up (``--cluster-timeout``)."""

DEFAULT_CHUNK: Final = 10
"""Deals per cluster task (``--cluster-chunk``): a task costs the scheduler about a
millisecond, so ten deals of even the quickest strategies outweigh it, while 10,000 deals still
make a thousand tasks to spread over the workers."""

_SCHEMES: Final = ("tcp", "tls", "ws", "wss")

INSTALL_HINT: Final = install_hint("cluster")
"""How to install the ``distributed`` package the cluster needs."""


class ClusterError(Exception):
    """A cluster run that cannot start or cannot go on; the message says why and what to do.

    ``status`` is the command's exit code: 2 when it cannot start (no package, a bad or
    unreachable address), 1 when it failed under way.
    """

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def check_address(address: str) -> str:
    """The scheduler address in full (``host:port`` means ``tcp://host:port``).

    >>> check_address("127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_address("http://x:80")
    Traceback (most recent call last):
    ...
    botkit.tournament.cluster.ClusterError: --cluster 'http://x:80': ...
    """
    full = address.strip()
    if "://" not in full:
        full = f"tcp://{full}"
    scheme, _, location = full.partition("://")
    host, sep, port = location.rpartition(":")
    problem = None
    if scheme not in _SCHEMES:
        problem = f"the scheme must be one of {', '.join(_SCHEMES)}"
    elif (
        not sep
        or not host
        or any(c.isspace() for c in location)
        or not port.isdigit()
        or not 0 < int(port) < 65536
    ):
        problem = "it must look like tcp://HOST:PORT"
    if problem:
        raise ClusterError(
            f"--cluster {address!r}: {problem} (the address `dask scheduler` prints, "
            "e.g. tcp://192.168.1.20:8786)"
        )
    return full


def connect(address: str, timeout: float = DEFAULT_CONNECT_TIMEOUT) -> Client:
    """A client of the scheduler at ``address``; :class:`ClusterError` if it cannot be had."""
    full = check_address(address)
    try:
        from distributed import Client
    except ImportError as exc:
        raise ClusterError(
            f"--cluster needs the distributed package: {INSTALL_HINT} "
            f"(here, and on every worker) ({exc})"
        ) from exc
    try:
        return Client(full, timeout=timeout, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {full} within {timeout:g} s "
            f"(--cluster-timeout): is `dask scheduler` running there and its port open? "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def strategy_sources(specs: Sequence[str]) -> dict[str, str]:
    """The source of each strategy file among ``specs``, by the path as given, to ship along."""
    sources = {}
    for spec in specs:
        target, _ = parse_spec(spec)
        if is_path(target) and target not in sources:
            sources[target] = Path(target).read_text(encoding="utf-8")
    return sources


def _local_copy(target: str, source: str) -> str:
    # One folder per content, so a changed file is a new path (and a fresh load), while the
    # file keeps its name (a strategy without a ``name`` is called after it).
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "sheepshead-strategies" / digest
    path = folder / Path(target).name
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        # Threads and processes of one machine may write it at once: each writes its own file
        # and moves it into place whole.
        part = folder / f".{os.getpid()}-{id(source)}.part"
        part.write_text(source, encoding="utf-8")
        os.replace(part, path)
    return str(path)


def play_chunk(jobs: Sequence[Job], sources: dict[str, str]) -> list[DealResult]:
    """Play some deals on a worker, strategy files loaded from the ``sources`` shipped along."""
    local = {target: _local_copy(target, text) for target, text in sources.items()}
    results = []
    for job in jobs:
        specs = []
        for spec in job.specs:
            target = parse_spec(spec)[0]
            specs.append(local[target] + spec[len(target) :] if target in local else spec)
        result = play_deal(dataclasses.replace(job, specs=tuple(specs)))
        # A failure names the file and line: the file as given, as --jobs reports it.
        for tally in result.tallies:
            for target, path in local.items():
                tally.failures = [f.replace(path, target) for f in tally.failures]
        results.append(result)
    return results


def cluster_results(
    client: Client, work: Sequence[Job], chunk: int = DEFAULT_CHUNK
) -> Iterator[DealResult]:
    """Play ``work`` on the cluster and yield each deal's result in deal order.

    A chunk whose worker dies is given to another worker by the scheduler (up to Dask's
    ``distributed.scheduler.allowed-failures``, 3 by default); past that, or when a chunk fails,
    :class:`ClusterError` (status 1) names its deals. Closing the iterator early (an error,
    Ctrl+C) cancels the chunks not yet done.
    """
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    specs = work[0].specs if work else ()
    sources = strategy_sources(specs)
    chunks = [list(work[i : i + chunk]) for i in range(0, len(work), chunk)]
    # The deals in the key show on the scheduler's dashboard; the run's own token keeps two
    # tournaments on one cluster apart.
    run = uuid.uuid4().hex[:8]
    futures = [
        client.submit(play_chunk, part, sources, pure=False, key=f"sheepshead-{run}-{_span(part)}")
        for part in chunks
    ]
    index = {f.key: i for i, f in enumerate(futures)}
    waiting: dict[int, list[DealResult]] = {}
    following = 0
    try:
        for future in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]
            i = index[future.key]
            try:
                waiting[i] = future.result()
            except KilledWorker as exc:
                raise ClusterError(
                    f"deals {_span(chunks[i])}: the workers playing them died every time they "
                    f"were retried ({exc}); the tournament stopped. Their logs say why "
                    "(often memory)",
                    status=1,
                ) from exc
            except (CancelledError, AsyncCancelledError) as exc:
                raise ClusterError(
                    f"deals {_span(chunks[i])} were cancelled on the cluster: the scheduler "
                    "went away, or another client cancelled them",
                    status=1,
                ) from exc
            except Exception as exc:
                hint = ""
                if isinstance(exc, ImportError):
                    hint = (
                        "; every worker needs sheepshead installed, the same version as here "
                        f"({INSTALL_HINT})"
                    )
                raise ClusterError(
                    f"deals {_span(chunks[i])} failed on the cluster: "
                    f"{type(exc).__name__}: {exc}{hint}",
                    status=1,
                ) from exc
            # Deal order, as --jobs gives them: the tallies' per-deal lists then match.
            while following in waiting:
                yield from waiting.pop(following)
                following += 1
    finally:
        pending = [f for f in futures if not f.done()]  # type: ignore[no-untyped-call]
        if pending:
            client.cancel(pending)  # type: ignore[no-untyped-call]


def _span(jobs: Sequence[Job]) -> str:
    first, last = jobs[0].number + 1, jobs[-1].number + 1
    return f"{first}-{last}" if last != first else str(first)
