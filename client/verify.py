"""``sheepshead verify``: check the commit–reveal deal of every hand record (PROTOCOL.md §13).

Each file holds one ``sheepshead-hand/1`` record or a JSON list of them. Every record's deal is
recomputed from the seeds in its ``fair`` map; the answer is ``all N deals verified`` or the
first hand (in hand order) that does not match, and why. A record saved before the match's end
revealed the seeds (no ``fair`` map, or no server seed in it) is not a failure: the answer names
it as one that cannot be checked, and why.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.fairdeal import Verdict, check_record, summary
from engine.record import RecordError

HELP = "check that hand records' deals come from the revealed commit-reveal seeds"


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``verify``'s arguments."""
    parser.add_argument(
        "records",
        nargs="+",
        metavar="RECORD",
        help="hand record JSON file(s): one record, or a list of records, per file",
    )
    parser.add_argument(
        "--each", action="store_true", help="also print one line per record (file, hand, verdict)"
    )


def _load(path: str) -> list[Any]:
    from client.replay import load_json

    data = load_json(path)
    return data if isinstance(data, list) else [data]


_JSON_KINDS: dict[type, str] = {
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}
"""How JSON calls what it parsed as each Python type."""


def _not_records(records: list[Any]) -> str | None:
    """Why a file's JSON is no hand records at all, or None: an empty list said "all 0 deals
    verified" and failed, and a string or a list of numbers said "a record does not verify"
    without naming the file."""
    if not records:
        return "holds no hand records (an empty list)"
    for place, record in enumerate(records):
        if not isinstance(record, dict):
            where = "" if len(records) == 1 else f"item {place + 1}: "
            return (
                f"{where}not a hand record (a JSON object, docs/hand-record.md), "
                f"but {_JSON_KINDS.get(type(record), 'a value')} {json.dumps(record)[:40]}"
            )
    return None


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every deal verifies, 1 when one does not, 2 when a file cannot be read or
    holds no hand records."""
    verdicts: list[Verdict] = []
    for path in args.records:
        try:
            records = _load(path)
        except RecordError as exc:  # "cannot read file: ...", "not valid JSON: ..."
            print(f"sheepshead verify: {path}: {exc.message}", file=sys.stderr)
            return 2
        problem = _not_records(records)
        if problem:
            print(f"sheepshead verify: {path}: {problem}", file=sys.stderr)
            return 2
        for record in records:
            verdict = check_record(record)
            verdicts.append(verdict)
            if args.each:
                hand = "?" if verdict.hand < 0 else str(verdict.hand + 1)
                if verdict.ok:
                    said = "verified"
                elif verdict.incomplete:  # nothing in it fails: it lacks what the check needs
                    said = f"cannot be checked: {verdict.reason}"
                else:
                    said = f"FAILS: {verdict.reason}"
                print(f"{path}: hand {hand}: {said}")
    print(summary(verdicts))
    return 0 if verdicts and all(v.ok for v in verdicts) else 1
