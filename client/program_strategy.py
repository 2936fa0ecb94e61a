"""A strategy that is an outside program: a bot written in any language (docs/bots.md, "A bot
in any language").

The program is started once, on the first decision asked of it, and then serves every decision
of every hand and seat built from the same spec in this process, one line each way:

- each decision is ONE line of JSON on its stdin, ``{"view": VIEW, "legal": [ACTION, ...]}``:
  the seat view and the legal action maps a Python strategy's ``choose`` gets; every request
  says everything, so one process can play all five seats;
- it answers ONE line on its stdout: the index of its action in ``legal`` (``0``), or one of
  the maps (matched by :func:`client.strategy_call.match_legal`, the one rule);
- options given after the path (``./mybot.js:depth=3``) are its arguments (``--depth=3``),
  except :data:`TIMEOUT_OPTION`, which is this module's;
- ``SHEEPSHEAD_PROGRAM_PROTOCOL`` in its environment is the protocol's version (:data:`VERSION`);
- it must exit when its stdin ends: that is how it learns the run is over, however it ended.

A program that does not answer within the time limit, exits, prints something that is not a
JSON line, or a line longer than the bound, is killed and started again at the next decision;
that decision raises :class:`ProgramError` (with the end of the program's stderr), so it falls
back to the first legal action and is reported as a Python strategy that raises
(:func:`client.strategy_call.decide`). After :data:`MAX_FAILURES` such failures in a row it is
not started again: its later decisions fall back at once. A well-formed answer that is not legal
falls back too, and the program plays on.

POSIX only: the pipes are waited on with ``select``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = [
    "MAX_FAILURES",
    "MAX_LINE",
    "STDERR_TAIL",
    "TIMEOUT",
    "TIMEOUT_OPTION",
    "VERSION",
    "Program",
    "ProgramError",
    "ProgramStrategy",
    "close_programs",
    "program_factory",
]

VERSION: Final = 1
"""The line protocol's version, in the program's environment as ``SHEEPSHEAD_PROGRAM_PROTOCOL``."""

ENVIRONMENT: Final = "SHEEPSHEAD_PROGRAM_PROTOCOL"
"""The environment variable telling the program the protocol's version."""

TIMEOUT: Final = 10.0
"""Default seconds a program has to answer one decision (its start included, for the first)."""

TIMEOUT_OPTION: Final = "timeout"
"""The spec option setting the time limit (``./mybot:timeout=2``): not passed to the program."""

MAX_TIMEOUT: Final = 3600.0
"""The largest time limit an option may set."""

MAX_LINE: Final = 1 << 16
"""Default longest answer line, in bytes: an index or an action map needs well under 200."""

STDERR_TAIL: Final = 2000
"""Default bytes of the program's stderr kept (the last ones) for the failure reports."""

MAX_FAILURES: Final = 3
"""Default failures in a row (no answer, exit, garbage) after which a program is given up."""

CLOSE_GRACE: Final = 1.0
"""Seconds a program has to exit after its stdin is closed before it is killed."""

_REPORTED_TAIL: Final = 400
"""Characters of the stderr tail quoted in a failure report."""


class ProgramError(Exception):
    """An outside program failed one decision (the message says how, and what it wrote on its
    stderr last); ``place`` is the program, what a failure report names as where it failed."""

    def __init__(self, message: str, place: str = "") -> None:
        super().__init__(message)
        self.place = place


class _Broken(Exception):
    """The program broke the protocol: it is killed and started again at the next decision."""


class _Process:
    """One run of the program: its process, pipes and what was read from them."""

    def __init__(self, argv: Sequence[str], environment: Mapping[str, str], tail: int) -> None:
        self.popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(environment),
            close_fds=True,
            preexec_fn=_death_signal(),
        )
        self.pid = os.getpid()
        """The process that started it (a forked child must leave it alone)."""
        assert self.popen.stdin and self.popen.stdout and self.popen.stderr
        self.stdin = self.popen.stdin.fileno()
        self.stdout = self.popen.stdout.fileno()
        self.stderr: int | None = self.popen.stderr.fileno()
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.pending = bytearray()
        """Bytes read from stdout and not yet taken as an answer."""
        self.tail = bytearray()
        self.tail_size = tail

    def read_stderr(self) -> None:
        """Take what is on stderr now, keeping the last ``tail_size`` bytes."""
        while self.stderr is not None:
            try:
                chunk = os.read(self.stderr, 65536)
            except BlockingIOError:
                return
            if not chunk:
                self.stderr = None
                return
            self.tail += chunk
            del self.tail[: -self.tail_size or len(self.tail)]

    def stop(self, grace: float = 0.0) -> None:
        """End the process: EOF on its stdin, ``grace`` seconds to exit, then killed; its
        last stderr is kept."""
        if self.pid != os.getpid():
            return  # inherited through a fork: the parent's to end
        popen = self.popen
        if popen.poll() is None and grace > 0:
            with contextlib.suppress(OSError):
                popen.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(subprocess.TimeoutExpired):
                popen.wait(grace)
        if popen.poll() is None:
            popen.kill()
            popen.wait()
        deadline = time.monotonic() + 0.2  # a grandchild may hold stderr open: not forever
        while self.stderr is not None and time.monotonic() < deadline:
            ready, _, _ = select.select(
                [self.stderr], [], [], max(0.0, deadline - time.monotonic())
            )
            if not ready:
                break
            self.read_stderr()
        for pipe in (popen.stdin, popen.stdout, popen.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def status(self) -> str:
        """How the process ended: ``exited with status 1``, ``was killed by signal 9``."""
        code = self.popen.poll()
        if code is None:
            try:
                code = self.popen.wait(1.0)
            except subprocess.TimeoutExpired:
                return "closed its stdout"
        if code < 0:
            return f"was killed by signal {-code}"
        return f"exited with status {code}"


_LIVE: weakref.WeakSet[Program] = weakref.WeakSet()
"""Every program of this process, to end them all at exit."""


class Program:
    """An outside program answering decisions on its stdin and stdout, started when first
    asked and started again after a failure. Safe to ask from several threads (one at a time).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        label: str | None = None,
        timeout: float = TIMEOUT,
        max_line: int = MAX_LINE,
        stderr_tail: int = STDERR_TAIL,
        max_failures: int = MAX_FAILURES,
        close_grace: float = CLOSE_GRACE,
    ) -> None:
        self.argv = tuple(argv)
        self.label = label or self.argv[0]
        """What reports call it: the path as given."""
        self.timeout = timeout
        """Seconds to answer one decision."""
        self.max_line = max_line
        """Longest answer line, in bytes."""
        self.stderr_tail = stderr_tail
        """Bytes of stderr kept for reports."""
        self.max_failures = max_failures
        """Failures in a row after which the program is not started again."""
        self.close_grace = close_grace
        """Seconds to exit after its stdin closes, at :meth:`close`."""
        self.failures = 0
        """Failures in a row (reset by an answer)."""
        self.starts = 0
        """Times the program was started."""
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._current: list[_Process] = []
        # Ends the process when the program is dropped (an environment thrown away), not only
        # at exit.
        self._finalizer = weakref.finalize(self, _stop_all, self._current, 0.0)
        _LIVE.add(self)

    @property
    def pid(self) -> int | None:
        """The running process's id, or None."""
        process = self._process()
        return process.popen.pid if process is not None else None

    def _process(self) -> _Process | None:
        if self._current and self._current[0].pid != os.getpid():
            self._current.clear()  # a fork's copy: the parent's process, not ours to use
        return self._current[0] if self._current else None

    def ask(self, request: Mapping[str, Any]) -> Any:
        """Send one request line and return the answer line's JSON value; raises
        :class:`ProgramError` when the program fails (it is then stopped, to be started again
        at the next request)."""
        line = json.dumps(request, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            if self.failures >= self.max_failures:
                raise ProgramError(
                    f"{self.label} is not started again after {self.failures} failures in a "
                    f"row (the last: {self.last_error})",
                    self.label,
                )
            try:
                answer = self._exchange(line)
            except _Broken as exc:
                process = self._process()
                self._current.clear()
                tail = ""
                if process is not None:
                    process.stop()
                    tail = _tail_text(process.tail)
                self.failures += 1
                self.last_error = f"{self.label} {exc}"
                message = self.last_error + (
                    f"; its stderr ended: {tail}" if tail else "; nothing on its stderr"
                )
                if self.failures >= self.max_failures:
                    message += (
                        f"; {self.failures} failures in a row: it is not started again, its "
                        "next decisions fall back at once"
                    )
                else:
                    message += "; it is started again at the next decision"
                raise ProgramError(message, self.label) from None
            self.failures = 0
            return answer

    def _exchange(self, line: bytes) -> Any:
        process = self._process()
        if process is None:
            try:
                process = _Process(self.argv, _environment(), self.stderr_tail)
            except OSError as exc:
                raise _Broken(f"cannot be started: {exc.strerror or exc}") from None
            self._current.append(process)
            self.starts += 1
        deadline = time.monotonic() + self.timeout
        self._collect(process, 0.0)
        if process.pending:
            raise _Broken(
                f"wrote {bytes(process.pending[:60])!r} after its last answer: one line per "
                "decision"
            )
        self._send(process, line, deadline)
        while True:
            end = process.pending.find(b"\n")
            if end >= 0:
                break
            if len(process.pending) > self.max_line:
                raise _Broken(f"answered a line longer than {self.max_line} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Broken(f"did not answer within {self.timeout:g} s (killed)")
            if not self._collect(process, remaining):
                raise _Broken(f"{process.status()} instead of answering")
        if end > self.max_line:
            raise _Broken(f"answered a line longer than {self.max_line} bytes")
        raw = bytes(process.pending[:end])
        del process.pending[: end + 1]
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise _Broken(
                f"answered {raw[:80]!r}, which is not a JSON line (an index into legal, or "
                "one of its maps)"
            ) from None

    def _send(self, process: _Process, line: bytes, deadline: float) -> None:
        """Write the request, reading stderr meanwhile (a program blocked on a full stderr
        pipe reads nothing)."""
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(process.stdin, view) :]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise _Broken(f"{process.status()} instead of reading the request") from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Broken(f"did not read the request within {self.timeout:g} s (killed)")
            watched = [process.stderr] if process.stderr is not None else []
            readable, _, _ = select.select(watched, [process.stdin], [], remaining)
            if readable:
                process.read_stderr()

    def _collect(self, process: _Process, wait: float) -> bool:
        """Read what stdout and stderr hold, waiting up to ``wait`` seconds for something;
        False once stdout is closed."""
        watched = [process.stdout] + ([process.stderr] if process.stderr is not None else [])
        readable, _, _ = select.select(watched, [], [], wait)
        if process.stderr in readable:
            process.read_stderr()
        if process.stdout in readable:
            while True:
                try:
                    chunk = os.read(process.stdout, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    return False
                process.pending += chunk
                if len(process.pending) > self.max_line:
                    break
        return True

    def close(self) -> None:
        """End the program: EOF on its stdin, :attr:`close_grace` seconds to exit, then
        killed. It is started again if asked once more."""
        with self._lock:
            _stop_all(self._current, self.close_grace)


def _stop_all(current: list[_Process], grace: float) -> None:
    while current:
        current.pop().stop(grace)


def _death_signal() -> Callable[[], None] | None:
    """On Linux, in a process running only its main thread (a tournament's worker), a function
    run in the child before the program starts that has the kernel kill it when this process
    dies: a worker ended by SIGTERM (``pool.terminate()``) runs no clean-up, and a program that
    ignores the end of its stdin would live on. Elsewhere None: the parent-death signal follows
    the thread that started the child, and a child forked beside other threads may deadlock
    before it runs the program; the end of stdin and the clean-up at exit do it there."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return None
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


_PR_SET_PDEATHSIG: Final = 1


def _environment() -> dict[str, str]:
    return {**os.environ, ENVIRONMENT: str(VERSION)}


def _tail_text(tail: bytes | bytearray) -> str:
    """The last lines of stderr on one line, quoted: ``"Traceback ... | ValueError: x"``.

    When they are too long, indented lines go first: the frames of a stack trace (Python's,
    node's), so the error's own line is what is left."""
    text = bytes(tail).decode("utf-8", "replace").strip()
    if not text:
        return ""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    text = " | ".join(lines)
    if len(text) > _REPORTED_TAIL:
        text = " | ".join(line for line in lines if not line[:1].isspace())
    if len(text) > _REPORTED_TAIL:
        text = "..." + text[-_REPORTED_TAIL:]
    return json.dumps(text, ensure_ascii=False)


def close_programs() -> None:
    """End every outside program this process started (they end at exit anyway): for a loop
    that plays tournaments or builds environments and wants no idle program left."""
    for program in list(_LIVE):
        program.close()


atexit.register(close_programs)


class ProgramStrategy:
    """A strategy whose decisions an outside :class:`Program` makes (shared by every strategy
    built from one spec)."""

    def __init__(self, program: Program, name: str) -> None:
        self.program = program
        self.name = name

    def choose(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]) -> Any:
        """The legal action the program answers; raises :class:`ProgramError` when it fails or
        answers something that is not legal."""
        from client.strategy_call import match_legal

        answer = self.program.ask({"view": view, "legal": legal})
        if isinstance(answer, int) and not isinstance(answer, bool):
            if 0 <= answer < len(legal):
                return legal[answer]
        else:
            action = match_legal(answer, legal, view.get("seat"))
            if action is not None:
                return action
        text = json.dumps(answer)
        raise ProgramError(
            f"{self.program.label} answered {text[:200]}, which is not legal: an index from 0 "
            f"to {len(legal) - 1}, or one of the maps in legal",
            self.program.label,
        )

    def __getstate__(self) -> dict[str, Any]:
        """Nothing to keep: the program's state is its own (an environment pickling its
        opponents builds this one again from the spec)."""
        return {}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        """See :meth:`__getstate__`."""
        del state


def program_arguments(raw_options: Sequence[str]) -> tuple[list[str], float]:
    """The program's arguments (``key=value`` as ``--key=value``, as written) and the time limit
    (the :data:`TIMEOUT_OPTION`, taken out); raises ValueError for a bad time limit."""
    arguments = []
    timeout = TIMEOUT
    for item in raw_options:
        key, _, value = item.partition("=")
        if key != TIMEOUT_OPTION:
            arguments.append(f"--{key}={value}")
            continue
        try:
            timeout = float(value)
        except ValueError:
            timeout = -1.0
        if not 0 < timeout <= MAX_TIMEOUT:
            raise ValueError(
                f"{TIMEOUT_OPTION}={value}: seconds per decision, more than 0 and at most "
                f"{MAX_TIMEOUT:g}"
            )
    return arguments, timeout


def program_factory(target: str, raw_options: Sequence[str]) -> Callable[[int | None], Any]:
    """A function building strategies played by the executable file ``target`` with the spec's
    options (``key=value`` texts): all of them share one :class:`Program`, started at the
    first decision. The seed is not used (the program chooses its own randomness). Raises
    ValueError for a file that is missing or not executable, or a bad option."""
    if sys.platform == "win32":
        raise ValueError(f"{target}: outside programs as strategies need a POSIX system")
    file = Path(target)
    if not file.is_file():
        raise ValueError(f"no such strategy file: {target}")
    if not os.access(file, os.X_OK):
        raise ValueError(
            f"{target} is not executable: make it so (chmod +x, with a #! line for a script), "
            "or give a Python strategy file ending in .py"
        )
    arguments, timeout = program_arguments(raw_options)
    program = Program([str(file.resolve()), *arguments], label=target, timeout=timeout)
    name = file.stem

    def build(seed: int | None) -> ProgramStrategy:
        del seed
        return ProgramStrategy(program, name)

    return build
