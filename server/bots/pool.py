"""Server bots think in a few worker processes, never on the event loop.

A ``search`` decision takes up to a second of CPU: run in a thread of the server, it would hold
the GIL against every table (docs/performance.md, "Bot pool"). :class:`BotPool` hands each
decision (the seat's view and its legal list in, one action map out; cheap to pack) to one of
``size`` worker processes (:mod:`server.bots.worker`), first come first served, and enforces
the per-decision budget there:

- a decision that runs over the budget fails with :class:`DecisionTimeout`, and its worker is
  killed and replaced (a thread could not be stopped; a process can);
- a worker that dies fails its decision with :class:`WorkerDied` and is replaced;
- a strategy that raises fails its decision with :class:`StrategyFailed`; the worker lives on.

The caller (the table) plays its fallback, the first legal action, on any :class:`BotError`.
Time spent waiting for a free worker does not count against the budget: under load, tables wait
their turn rather than lose their decisions.

The coach's work (:meth:`BotPool.hint`, for the ``hint`` and ``review`` requests) waits in a
queue of its own, served only when no bot decision waits: however many people ask the coach,
a table's bots never wait behind it for more than the one coach unit (one think time) a
worker may be running when their decision comes. A coach job whose asker is gone (its
``wanted`` says so) is dropped when its turn comes, not worked out.

Workers start when a bot is seated or a decision needs one (a server without bots starts none,
and ``sheepshead play`` does not wait for them), run at a lower priority than the server, and
stop with :meth:`BotPool.close`. ``size`` 0 runs strategies in a thread of this process instead:
for tests that register strategies at run time.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from protocol.framing import HEADER_SIZE, encode
from server.bots import worker as botworker

log = logging.getLogger("sheepshead.server")

RESTART_BACKOFF = 2.0
"""Seconds before another worker is started after one died before it was ready (a broken
installation must not become a loop of process starts)."""

STOP_WAIT = 1.0
"""Seconds the workers have to exit at the end of their input before they are killed."""


class BotError(Exception):
    """A decision the pool could not get; the table plays its fallback."""


class DecisionTimeout(BotError):
    """The strategy thought for longer than the budget (its worker was killed)."""


class WorkerDied(BotError):
    """The worker process running the decision died, or none could be started."""


class StrategyFailed(BotError):
    """The strategy raised; the message says what."""


class CoachDropped(BotError):
    """A coach job dropped unworked: its ``wanted`` said nobody waits for it any more."""


def default_size() -> int:
    """The core count minus one (one core for the server itself), at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


@dataclass(eq=False)
class _Job:
    number: int
    frame: bytes
    future: asyncio.Future[dict[str, Any]]
    coach: bool = False
    wanted: Callable[[], bool] | None = None
    """For coach jobs: whether the answer is still wanted (checked before it is sent)."""


@dataclass(eq=False)
class _Worker:
    process: asyncio.subprocess.Process | None = None
    ready: bool = False
    job: _Job | None = None
    timer: asyncio.TimerHandle | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    """Its reader (see ``BotPool._run``)."""


class BotPool:
    """Runs bot strategies in ``size`` worker processes, each decision within ``budget`` s."""

    def __init__(self, size: int, budget: float, *, modules: Sequence[str] = ()) -> None:
        self.size = size
        self.budget = budget
        self.modules = tuple(modules)
        self.decisions = 0
        """Decisions answered by a strategy."""
        self.failures: dict[str, int] = {"timeout": 0, "died": 0, "raised": 0}
        """Decisions that failed, by cause."""
        self.coach_answers = 0
        """Coach jobs worked out (answered or failed in a worker)."""
        self.coach_dropped = 0
        """Coach jobs dropped unworked: their asker was gone when their turn came."""
        self._queue: deque[_Job] = deque()
        self._coach: deque[_Job] = deque()
        """Coach jobs: served only while ``_queue`` (bot decisions) is empty."""
        self._workers: list[_Worker] = []
        self._numbers = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        """Every worker's reader, retired ones too, until it ends."""
        self._retry_at = 0.0
        self._closed = False

    # ------------------------------------------------------------------ deciding

    async def choose(
        self,
        strategy: str,
        view: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]],
        *,
        seed: int,
        think_time: float | None = None,
    ) -> dict[str, Any]:
        """The action map ``strategy`` chooses for ``view``; raises :class:`BotError`.

        ``think_time`` is a soft deadline handed to strategies that take one (they answer with
        what they have by then); the pool's ``budget`` is the hard limit for every strategy.
        """
        request = {
            "strategy": strategy,
            "seed": seed,
            "view": view,
            "legal": legal,
            "think_time": think_time,
        }
        return await self._ask(request)

    async def hint(
        self,
        view: Mapping[str, Any],
        legal: Sequence[Mapping[str, Any]],
        *,
        seed: int,
        think_time: float | None = None,
        played: Mapping[str, Any] | None = None,
        wanted: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        """The coach's answer for ``view`` (:func:`engine.bots.coach.hint`; with ``played``, the
        value of that action too), worked out in a worker within the same ``budget`` as a
        decision, but from the coach's queue: after every bot decision that waits. When its
        turn comes and ``wanted`` says False, it is dropped unworked (:class:`CoachDropped`).
        Raises :class:`BotError`."""
        request: dict[str, Any] = {
            "hint": True,
            "seed": seed,
            "view": view,
            "legal": legal,
            "think_time": think_time,
        }
        if played is not None:
            request["played"] = played
        return await self._ask(request, coach=True, wanted=wanted)

    def queued(self) -> tuple[int, int]:
        """Jobs waiting for a worker: (bot decisions, coach jobs)."""
        return len(self._queue), len(self._coach)

    def coach_in_work(self) -> int:
        """Coach jobs waiting for a worker or running in one (for tests and monitoring)."""
        running = sum(1 for w in self._workers if w.job is not None and w.job.coach)
        return len(self._coach) + running

    async def _ask(
        self,
        request: dict[str, Any],
        *,
        coach: bool = False,
        wanted: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        if self._closed:
            raise WorkerDied("the bot pool is closed")
        if self.size <= 0:
            return await self._choose_in_thread(request)
        number = next(self._numbers)
        request["id"] = number
        loop = asyncio.get_running_loop()
        frame = encode(request, max_frame=botworker.MAX_MESSAGE)
        job = _Job(number, frame, loop.create_future(), coach, wanted)
        queue = self._coach if coach else self._queue
        queue.append(job)
        self._dispatch()
        try:
            return await job.future
        except asyncio.CancelledError:
            # Still queued: it never runs. Running: its worker finishes it (within the budget)
            # and the answer is dropped.
            with contextlib.suppress(ValueError):
                queue.remove(job)
            raise

    async def _choose_in_thread(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            action = await asyncio.wait_for(
                asyncio.to_thread(botworker.decide, request), self.budget
            )
        except TimeoutError:
            self.failures["timeout"] += 1
            raise DecisionTimeout(f"no answer within {self.budget:g} s") from None
        except Exception as exc:
            self.failures["raised"] += 1
            raise StrategyFailed(f"{type(exc).__name__}: {exc}") from exc
        self.decisions += 1
        return action

    def warm(self) -> None:
        """Start a worker now if none runs (a bot was seated: its first decision will not wait
        for a process to start). Outside an event loop it does nothing."""
        if self.size <= 0 or self._closed or self._workers:
            return
        with contextlib.suppress(RuntimeError):  # no running loop
            asyncio.get_running_loop()
            self._start_worker()

    def worker_pids(self) -> list[int]:
        """The process ids of the running workers (for tests and monitoring)."""
        return [w.process.pid for w in self._workers if w.process is not None]

    # ------------------------------------------------------------------ the queue

    def _next_job(self) -> _Job | None:
        """The next job to run: a bot decision first, else a coach job still wanted (the
        unwanted ones met on the way are dropped)."""
        while self._queue:
            job = self._queue.popleft()
            if not job.future.done():
                return job
        while self._coach:
            job = self._coach.popleft()
            if job.future.done():
                continue
            if job.wanted is not None and not job.wanted():
                self.coach_dropped += 1
                job.future.set_exception(CoachDropped("nobody waits for this answer any more"))
                continue
            return job
        return None

    def _dispatch(self) -> None:
        """Hand queued jobs to idle workers (bot decisions first); start workers while jobs
        wait."""
        while self._queue or self._coach:
            idle = next((w for w in self._workers if w.ready and w.job is None), None)
            if idle is None:
                break
            job = self._next_job()
            if job is None:
                break
            self._send(idle, job)
        waiting = len(self._queue) + len(self._coach)
        if not waiting or self._closed:
            return
        if time.monotonic() < self._retry_at:
            if not self._workers:  # nothing will come: let the tables play their fallback
                self._fail_queue(WorkerDied("no bot worker could be started"))
            return
        # One new worker per decision that waits for one, up to ``size``: a single table
        # never starts more than one.
        starting = sum(1 for w in self._workers if not w.ready)
        while len(self._workers) < self.size and starting < waiting:
            self._start_worker()
            starting += 1

    def _start_worker(self) -> None:
        worker = _Worker()
        self._workers.append(worker)
        worker.task = asyncio.get_running_loop().create_task(self._run(worker))
        self._tasks.add(worker.task)
        worker.task.add_done_callback(self._tasks.discard)

    def _send(self, worker: _Worker, job: _Job) -> None:
        process = worker.process
        assert process is not None and process.stdin is not None
        worker.job = job
        loop = asyncio.get_running_loop()
        worker.timer = loop.call_later(self.budget, self._overrun, worker, job)
        try:
            process.stdin.write(job.frame)
        except (OSError, RuntimeError):
            # The worker is gone; its reader sees the end of its output and fails the job.
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    def _overrun(self, worker: _Worker, job: _Job) -> None:
        if worker.job is not job:
            return
        worker.job = None
        worker.timer = None
        self.failures["timeout"] += 1
        if not job.future.done():
            job.future.set_exception(DecisionTimeout(f"no answer within {self.budget:g} s"))
        log.warning("bot worker %s ran over the budget; it is replaced", self._pid(worker))
        self._retire(worker)
        if not self._closed:
            self._start_worker()
        self._dispatch()

    def _settle(self, worker: _Worker, reply: Mapping[str, Any]) -> None:
        job = worker.job
        if job is None or reply.get("id") != job.number:
            return  # the answer to a decision that already timed out
        worker.job = None
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None
        if job.coach:
            self.coach_answers += 1
        if job.future.done():
            return  # the table stopped waiting (cancelled)
        if "error" in reply:
            self.failures["raised"] += 1
            job.future.set_exception(StrategyFailed(str(reply["error"])))
            return
        action = reply.get("action")
        if not isinstance(action, dict):
            self.failures["raised"] += 1
            job.future.set_exception(StrategyFailed(f"the answer is not a map: {action!r}"))
            return
        self.decisions += 1
        job.future.set_result(action)

    def _fail_queue(self, error: BotError) -> None:
        for queue in (self._queue, self._coach):
            while queue:
                job = queue.popleft()
                if not job.future.done():
                    job.future.set_exception(error)

    # ------------------------------------------------------------------ the workers

    async def _run(self, worker: _Worker) -> None:
        """One worker's life: start it, wait until it is ready, read its answers."""
        reason = "it exited"
        try:
            worker.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                botworker.__name__,
                *self.modules,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env=_worker_environment(),
            )
            stdout = worker.process.stdout
            assert stdout is not None
            await _read_frame(stdout)  # {"ready": pid}
            worker.ready = True
            log.info("bot worker %d started", worker.process.pid)
            self._dispatch()
            while True:
                self._settle(worker, await _read_frame(stdout))
                self._dispatch()
        except asyncio.CancelledError:
            reason = "the pool closed"
            raise
        except asyncio.IncompleteReadError:
            pass
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
        finally:
            self._lost(worker, reason)

    def _retire(self, worker: _Worker) -> None:
        """Take ``worker`` out of service and kill it (its reader sees the end)."""
        with contextlib.suppress(ValueError):
            self._workers.remove(worker)
        self._kill(worker)

    def _lost(self, worker: _Worker, reason: str) -> None:
        """A worker ended: fail its decision, forget it, start another in its place."""
        retired = worker not in self._workers
        self._retire(worker)
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None
        job, worker.job = worker.job, None
        if job is not None and not job.future.done():
            self.failures["died"] += 1
            job.future.set_exception(WorkerDied(f"the bot worker died ({reason})"))
        if self._closed or retired:
            return
        if not worker.ready:
            log.error("bot worker could not start (%s)", reason)
            self._retry_at = time.monotonic() + RESTART_BACKOFF
        else:
            log.warning("bot worker %s ended (%s); starting another", self._pid(worker), reason)
            self._start_worker()  # ready before the next decision needs it
        self._dispatch()

    def _kill(self, worker: _Worker) -> None:
        process = worker.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    @staticmethod
    def _pid(worker: _Worker) -> str:
        return str(worker.process.pid) if worker.process is not None else "(not started)"

    async def close(self) -> None:
        """Stop every worker (their decisions fail with :class:`WorkerDied`)."""
        if self._closed:
            return
        self._closed = True
        self._fail_queue(WorkerDied("the bot pool is closed"))
        workers = list(self._workers)
        for worker in workers:
            if worker.process is not None and worker.process.stdin is not None:
                worker.process.stdin.close()  # the worker exits at the end of its input
        waits = [w.process.wait() for w in workers if w.process is not None]
        if waits:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*waits), STOP_WAIT)
        tasks = list(self._tasks)
        for worker in workers:
            self._kill(worker)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for worker in workers:
            if worker.process is not None:
                with contextlib.suppress(Exception):
                    await worker.process.wait()


async def _read_frame(stream: asyncio.StreamReader) -> dict[str, Any]:
    header = await stream.readexactly(HEADER_SIZE)
    size = int.from_bytes(header, "big")
    if size > botworker.MAX_MESSAGE:
        raise ValueError(f"a {size}-byte frame from a bot worker")
    message = msgpack.unpackb(await stream.readexactly(size), raw=False)
    if not isinstance(message, dict):
        raise ValueError("a bot worker sent something other than a map")
    return message


def _worker_environment() -> dict[str, str]:
    # The worker imports the project (and any strategy modules) from where this process does:
    # the checkout, or build/compiled first.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env
