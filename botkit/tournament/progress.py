"""A tournament's progress file: what an interrupted or killed run had played, to resume it.

The file is JSON lines. The first is the header: which tournament it is (``format``
:data:`FORMAT`, the strategy specs, seed, deals, rules, the SHA-256 of every strategy file
or program, and ``seating``, the version of the seatings,
:data:`~botkit.tournament.play.SEATING`), so a resume can refuse another tournament's file, or
one whose deals were played with other seatings. Then one line per deal played
whole, ``{"deal": N, "tallies": [...], "worst": [ROTATION, SCORE]}`` (deal counted from 0; a
tally per strategy as :class:`~botkit.tournament.stats.StrategyTally`'s fields; ``worst`` with two
strategies only), in the order the deals finished.

Each line is written with one ``write`` on a file opened for appending, and flushed to the
operating system as its deal completes: a killed process (even by SIGKILL) leaves at most a
torn last line, with no newline, which reading ignores and :meth:`ProgressLog.open` cuts off
before appending. Nothing is fsynced: a power cut may lose the last lines (those deals are
played again).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from botkit.tournament.play import SEATING, DealResult, Mirror
from botkit.tournament.stats import StrategyTally
from client.strategy_spec import is_path, parse_spec

FORMAT: Final = "sheepshead-tournament-progress/1"
"""The ``format`` field of a progress file's header."""

_CHECKED: Final = ("strategies", "seed", "deals", "rules", "files")
"""The header fields a resume must match, in the order a refusal lists them."""


class ProgressError(Exception):
    """A progress file that cannot be read, or belongs to another tournament."""


def header(specs: Sequence[str], seed: int, deals: int, rules: dict[str, Any]) -> dict[str, Any]:
    """The header line of a tournament's progress file."""
    files: dict[str, str | None] = {}
    for spec in specs:
        target = parse_spec(spec)[0]
        if is_path(target) and target not in files:
            try:
                files[target] = hashlib.sha256(Path(target).read_bytes()).hexdigest()
            except OSError:
                files[target] = None  # the strategy's own load reports it
    return {
        "format": FORMAT,
        "strategies": list(specs),
        "seed": seed,
        "deals": deals,
        "rules": rules,
        "files": files,
        "seating": SEATING,
    }


def seating_mismatch(found: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """Why a progress file's deals cannot be added to with this run's seatings, or None.

    A header without ``seating`` was written before the reflected seatings (version 1): with
    three strategies or more its deals were seated otherwise, and mixing them with new ones
    would count some deals one way and some the other. Two strategies' seatings never changed.
    """
    there = found.get("seating", 1)
    if there == expected["seating"] or len(expected["strategies"]) < 3:
        return None
    return (
        f"that file's deals were played with seating version {there}, this run's is "
        f"{expected['seating']} (since version 2, three strategies or more also play every "
        "seating reflected, so the order of --strategies favours none): its figures cannot be "
        "mixed with new deals; start the tournament again (its progress file elsewhere, or "
        "that one removed)"
    )


def mismatches(found: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """How a progress file's header differs from this run's, one phrase per field."""
    problems = []
    for key in _CHECKED:
        if found.get(key) == expected[key]:
            continue
        there = found.get(key)
        if key in ("files", "rules"):
            there = there if isinstance(there, dict) else {}
            differ = sorted(
                k for k in {*there, *expected[key]} if there.get(k) != expected[key].get(k)
            )
            what = "strategy files changed since" if key == "files" else "rules differ in"
            problems.append(f"{what}: {', '.join(differ)}")
        elif key == "strategies":
            problems.append(
                f"--strategies {','.join(map(str, found.get(key) or []))} there, "
                f"{','.join(expected[key])} here"
            )
        else:
            problems.append(f"--{key} {found.get(key)} there, {expected[key]} here")
    return problems


@dataclass
class Saved:
    """What a progress file holds: its header, the deals played whole, and where they end."""

    header: dict[str, Any]
    results: dict[int, DealResult]
    end: int
    """The byte offset after the last whole line (a torn line starts there)."""


def read(path: str) -> Saved:
    """Read a progress file; :class:`ProgressError` if it is not one or a line is damaged."""
    try:
        # A device or a pipe never ends (--resume /dev/zero read until the memory ran out).
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ProgressError(f"{path} is not a tournament progress file: not a regular file")
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ProgressError(f"cannot read progress file {path}: {exc.strerror or exc}") from exc
    end = data.rfind(b"\n") + 1  # what follows the last newline is a torn line
    lines = data[:end].splitlines()
    start = b'{"format":'
    if not lines and not (data.startswith(start) or start.startswith(data)):
        # Binary or other text without a newline said "its run was stopped as it began".
        raise ProgressError(f"{path} is not a tournament progress file ({FORMAT})")
    if not lines:
        raise ProgressError(
            f"{path} holds no complete header: its run was stopped as it began; start the "
            "tournament again"
        )
    try:
        head = json.loads(lines[0])
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." past the parser's stack
        head = None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise ProgressError(f"{path} is not a tournament progress file ({FORMAT})")
    deals = head.get("deals")
    k = len(head.get("strategies") or [])
    results: dict[int, DealResult] = {}
    for number, line in enumerate(lines[1:], 2):
        try:
            result = _decode(json.loads(line), k)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            raise ProgressError(f"{path}, line {number}, is damaged ({exc})") from exc
        if not isinstance(deals, int) or not 0 <= result.number < deals:
            raise ProgressError(f"{path}, line {number}: deal {result.number + 1} is out of range")
        results[result.number] = result
    return Saved(head, results, end)


def encode(result: DealResult) -> bytes:
    """A deal's progress line (with its newline)."""
    line: dict[str, Any] = {
        "deal": result.number,
        "tallies": [dataclasses.asdict(t) for t in result.tallies],
    }
    if result.mirrors:
        (mirror,) = result.mirrors
        line["worst"] = [mirror.rotation, mirror.score]
    return json.dumps(line, separators=(",", ":"), allow_nan=False).encode() + b"\n"


def _decode(line: Any, k: int) -> DealResult:
    number = line["deal"]
    if not isinstance(number, int):
        raise TypeError(f"deal {number!r}")
    tallies = [StrategyTally(**t) for t in line["tallies"]]
    if len(tallies) != k:
        raise ValueError(f"{len(tallies)} tallies for {k} strategies")
    mirrors = []
    if "worst" in line:
        rotation, score = line["worst"]
        mirrors.append(Mirror(number + 1, int(rotation), int(score), None))
    return DealResult(tallies, mirrors, number)


class ProgressLog:
    """A progress file being written: one line per deal, appended and flushed as it comes."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def create(cls, path: str, head: dict[str, Any]) -> ProgressLog:
        """Start a new progress file with its header (an existing file is replaced)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        log = cls(path, fd)
        log._write(json.dumps(head, separators=(",", ":")).encode() + b"\n")
        return log

    @classmethod
    def open(cls, path: str, end: int) -> ProgressLog:
        """Go on appending to a progress file read by :func:`read`, its torn line cut off."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.ftruncate(fd, end)
        return cls(path, fd)

    def append(self, result: DealResult) -> None:
        """Record a deal played whole."""
        self._write(encode(result))

    def _write(self, data: bytes) -> None:
        # One write: a line is never interleaved, and a kill leaves at most the last one torn.
        while data:
            data = data[os.write(self._fd, data) :]

    def close(self) -> None:
        """Close the file (each line is already written)."""
        os.close(self._fd)
