"""``sheepshead replay``: replay hand records and print the outcome (docs/hand-record.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Final

from engine.record import RecordError, describe_record, replay_record

HELP = "replay hand records (sheepshead-hand/1)"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``replay``'s arguments."""
    parser.add_argument(
        "records",
        nargs="+",
        metavar="RECORD",
        help="hand record JSON file(s), as the client's x (export), tournament --save-hands "
        "and bot --save-hands write them",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON line per record (the format of docs/hand-record.md) instead of an account",
    )


MAX_FILE_BYTES: Final = 64 << 20
"""The largest file ``replay`` and ``verify`` read: a hand record is a few KB, a match's
records as a list some hundreds (``replay /dev/zero`` read until the memory ran out)."""


def load_json(path: str) -> Any:
    """The JSON in the file ``path``; :class:`RecordError` (``bad_record``) saying in words why
    it cannot be had (``replay`` and ``verify`` alike)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except IsADirectoryError:  # said "cannot read file: Is a directory"
        raise RecordError(
            "bad_record", f"is a directory: give the records in it, e.g. {path}/*.json"
        ) from None
    except OSError as exc:
        raise RecordError("bad_record", f"cannot read file: {exc.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise RecordError(
            "bad_record", f"larger than {MAX_FILE_BYTES >> 20} MB: no file of hand records"
        )
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:  # said "'utf-8' codec can't decode byte 0xff in position 0"
        raise RecordError("bad_record", "not valid JSON: not text (UTF-8)") from None
    except RecursionError:  # "[[[[..." deeper than the parser's stack: a traceback
        raise RecordError("bad_record", "not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        if not exc.doc.strip():  # said "Expecting value: line 1 column 1 (char 0)"
            raise RecordError("bad_record", "not valid JSON: the file is empty") from None
        where = f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
        raise RecordError("bad_record", f"not valid JSON: {where}") from None


def with_strategies(record: Any, account: str) -> str:
    r"""``account`` with each seat's strategy beside its cards, for a record with
    ``strategies`` (five labels; a server table's has null at a seat that no server bot held),
    and a tournament's seed, deal and seating after the rules.

    >>> record = {"strategies": ["a", "b", "a", "b", "a"], "tournament": {"seed": 1, "deal": 2,
    ...           "seating": 3}}
    >>> print(with_strategies(record, "Rules: x\n  seat 0: QC\n  seat 1: JD\n  blind: 7C"))
    Rules: x
    Tournament seed 1, deal 2, seating 3
      seat 0 (a): QC
      seat 1 (b): JD
      blind: 7C
    >>> record = {"strategies": [None, "random", None, None, None]}
    >>> print(with_strategies(record, "Rules: x\n  seat 0: QC\n  seat 1: JD"))
    Rules: x
      seat 0: QC
      seat 1 (random): JD
    """
    strategies = record.get("strategies") if isinstance(record, dict) else None
    if not (
        isinstance(strategies, list)
        and len(strategies) == 5
        and all(name is None or isinstance(name, str) for name in strategies)
        and any(isinstance(name, str) for name in strategies)
    ):
        return account
    lines = account.split("\n")
    out = [lines[0]]
    where = record.get("tournament")
    if isinstance(where, dict) and {"seed", "deal", "seating"} <= where.keys():
        out.append(
            f"Tournament seed {where['seed']}, deal {where['deal']}, seating {where['seating']}"
        )
    for line in lines[1:]:
        for seat, name in enumerate(strategies):
            prefix = f"  seat {seat}: "
            if name is not None and line.startswith(prefix):
                line = f"  seat {seat} ({name}): {line[len(prefix) :]}"
                break
        out.append(line)
    return "\n".join(out)


BROKEN_PIPE: Final = 141
"""The exit status when the reader of stdout went away (``| head``): 128 + SIGPIPE, as Unix
tools end."""


def run(args: argparse.Namespace) -> int:
    """Replay every record; exit 2 if any was invalid, 141 if stdout was closed early."""
    try:
        return _replay_all(args)
    except BrokenPipeError:
        # The reader (``head``) has what it wanted. Point stdout at /dev/null so the final
        # flush at exit cannot raise again, and end quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE


def _replay_all(args: argparse.Namespace) -> int:
    status = 0
    for path in args.records:
        try:
            record = load_json(path)
            if args.json:
                line = json.dumps(replay_record(record), separators=(", ", ": "))
            else:
                line = f"== {path}\n{with_strategies(record, describe_record(record))}\n"
        except RecordError as exc:
            status = 2
            where = "" if exc.action is None else f"action {exc.action}: "
            print(f"error: {path}: {exc.code}: {where}{exc.message}", file=sys.stderr)
            if args.json:
                line = json.dumps(exc.to_dict(), separators=(", ", ": "))
            else:
                continue
        print(line, flush=True)
    return status
