"""``sheepshead replay`` on the fixture records of tests/fixtures/records (docs/hand-record.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from engine import Deal, hand_from_record

RECORDS = Path(__file__).parent / "fixtures" / "records"
SHEEPSHEAD = Path(sys.executable).parent / "sheepshead"

KEYS = [
    "complete",
    "picker",
    "partner",
    "called",
    "alone",
    "leaster",
    "doubler",
    "tricks",
    "points",
    "picker_side_points",
    "payouts",
    "blitzes",
    "crack",
    "recrack",
    "stakes",
]

# What a line of a record without docs/rules.md, "Cracking and blitzing"'s house rules carries for
# them.
NO_DOUBLINGS: dict[str, Any] = {"blitzes": [], "crack": None, "recrack": False, "stakes": 1}

# complete.json: dealer 0, seat 1 passes, seat 2 picks, buries 7S 8S (0 points) and calls AC,
# held by seat 3. The picker's side takes 105, the opponents 15: schneider, m = 2.
COMPLETE: dict[str, Any] = {
    "complete": True,
    "picker": 2,
    "partner": 3,
    "called": "AC",
    "alone": False,
    "leaster": False,
    "doubler": False,
    "tricks": [
        {"leader": 1, "cards": ["AH", "9D", "7D", "JS", "JH"], "winner": 4, "points": 15},
        {"leader": 4, "cards": ["TD", "AD", "8H", "QH", "JD"], "winner": 2, "points": 26},
        {"leader": 2, "cards": ["QC", "8D", "JC", "TS", "7H"], "winner": 2, "points": 15},
        {"leader": 2, "cards": ["QS", "QD", "9C", "KS", "9H"], "winner": 2, "points": 10},
        {"leader": 2, "cards": ["KD", "TC", "KC", "9S", "KH"], "winner": 2, "points": 22},
        {"leader": 2, "cards": ["7C", "AC", "AS", "8C", "TH"], "winner": 3, "points": 32},
    ],
    "points": [0, 0, 73, 32, 15],
    "picker_side_points": 105,
    "payouts": [-2, -2, 4, 2, -2],
    **NO_DOUBLINGS,
}


def replay(capsys: pytest.CaptureFixture[str], *names: str, json_: bool = True) -> Any:
    """Run ``sheepshead replay`` in-process; returns (status, stdout lines, stderr lines)."""
    args = ["replay", *(["--json"] if json_ else []), *(str(RECORDS / n) for n in names)]
    status = main(args)
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def one(capsys: pytest.CaptureFixture[str], name: str) -> tuple[str, dict[str, Any]]:
    status, out, err = replay(capsys, name)
    assert status == 0 and err == [] and len(out) == 1
    line = json.loads(out[0])
    assert list(line) == KEYS
    return out[0], line


def test_complete_hand_field_for_field(capsys: pytest.CaptureFixture[str]) -> None:
    raw, line = one(capsys, "complete.json")
    assert line == COMPLETE
    assert [list(t) for t in line["tricks"]] == [["leader", "cards", "winner", "points"]] * 6
    assert raw.startswith('{"complete": true, "picker": 2, "partner": 3, "called": "AC", ')
    assert sum(line["points"]) == 120 and sum(line["payouts"]) == 0


def test_unfinished_hand(capsys: pytest.CaptureFixture[str]) -> None:
    # Seat 2 buries KD 7S (4 points) and calls AC; one trick and two cards are played.
    raw, line = one(capsys, "unfinished.json")
    assert line == {
        "complete": False,
        "picker": 2,
        "partner": 3,
        "called": "AC",
        "alone": False,
        "leaster": False,
        "doubler": False,
        "tricks": [
            {"leader": 1, "cards": ["AH", "9D", "7D", "JS", "JH"], "winner": 4, "points": 15}
        ],
        "points": [0, 0, 4, 0, 15],
        "picker_side_points": 4,
        "payouts": None,
        **NO_DOUBLINGS,
    }
    assert raw.endswith(
        '"payouts": null, "blitzes": [], "crack": null, "recrack": false, "stakes": 1}'
    )


def test_unfinished_right_after_the_bury(capsys: pytest.CaptureFixture[str]) -> None:
    raw, line = one(capsys, "unfinished_after_bury.json")
    assert line["complete"] is False and line["payouts"] is None
    assert line["picker"] == 2 and line["called"] is None and line["partner"] is None
    assert line["tricks"] == []
    assert line["points"] == [0, 0, 4, 0, 0]  # the bury counts for the picker once buried
    assert '"partner": null, "called": null' in raw


def test_doubler(capsys: pytest.CaptureFixture[str]) -> None:
    raw, line = one(capsys, "doubler.json")
    assert line == {
        "complete": True,
        "picker": None,
        "partner": None,
        "called": None,
        "alone": False,
        "leaster": False,
        "doubler": True,
        "tricks": [],
        "points": [0, 0, 0, 0, 0],
        "picker_side_points": None,
        "payouts": [0, 0, 0, 0, 0],
        **NO_DOUBLINGS,
        "stakes": 2,  # the record's multiplier: a doubler carried in
    }
    assert '"picker": null, "partner": null, "called": null' in raw


def test_leaster(capsys: pytest.CaptureFixture[str]) -> None:
    # Seat 1 takes the last trick and the blind (QH AH, 14): 24 in all; seat 2's 17 win.
    _, line = one(capsys, "leaster.json")
    assert line["leaster"] is True and line["complete"] is True
    assert line["picker"] is None and line["partner"] is None and line["called"] is None
    assert line["picker_side_points"] is None
    assert len(line["tricks"]) == 6 and line["tricks"][-1]["winner"] == 1
    assert line["points"] == [20, 24, 17, 29, 30]
    assert line["payouts"] == [-1, -1, 4, -1, -1]


def test_seed_dealt_record(capsys: pytest.CaptureFixture[str]) -> None:
    # Dealer 2: seats 3 and 4 pass, seat 0 picks; the cards come from the engine's shuffle.
    _, line = one(capsys, "seed.json")
    assert line["complete"] is False and line["picker"] == 0 and line["payouts"] is None
    assert line["points"] == [0, 0, 0, 0, 0] and line["tricks"] == []
    record = json.loads((RECORDS / "seed.json").read_text())
    hand = hand_from_record(record)
    assert hand.deal == Deal.from_seed(2, 2024)
    assert hand.rules.jack_order == "clubs-first"


def test_all_valid_records_exit_zero_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    names = [
        "complete.json",
        "unfinished.json",
        "unfinished_after_bury.json",
        "doubler.json",
        "leaster.json",
        "seed.json",
    ]
    status, out, err = replay(capsys, *names)
    assert status == 0 and err == []
    assert len(out) == len(names)
    assert json.loads(out[0]) == COMPLETE
    assert [json.loads(line)["complete"] for line in out] == [True, False, False, True, True, False]


BAD = {
    "bad_json.json": ("bad_record", None, "not valid JSON: "),
    "bad_missing_deal.json": (
        "bad_record",
        None,
        "deal must be a map with hands and blind, or a seed",
    ),
    "bad_card.json": ("bad_card", None, "deal: '1C' is not a card (expected e.g. QC, TD, 7H)"),
    # Action 15: seat 3 holds QD and 8D but plays TC on the QC lead.
    "bad_illegal_play.json": ("must_follow_suit", 15, "You must follow trump"),
}


def test_bad_records_are_reported_and_the_rest_replayed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = ["bad_json.json", "complete.json", "bad_missing_deal.json", "bad_card.json"]
    names += ["leaster.json", "bad_illegal_play.json"]
    status, out, err = replay(capsys, *names)
    assert status == 2
    assert len(out) == len(names)
    assert json.loads(out[1]) == COMPLETE
    assert json.loads(out[4])["leaster"] is True
    bad_lines = [(n, json.loads(out[i])) for i, n in enumerate(names) if n in BAD]
    assert len(err) == len(BAD)
    for (name, line), err_line in zip(bad_lines, err, strict=True):
        code, index, message = BAD[name]
        assert list(line) == ["error"]
        assert list(line["error"]) == ["code", "action", "message"]
        assert line["error"]["code"] == code and line["error"]["action"] == index
        assert line["error"]["message"].startswith(message)
        where = "" if index is None else f"action {index}: "
        assert err_line == f"error: {RECORDS / name}: {code}: {where}{line['error']['message']}"


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    status = main(["replay", "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 2
    assert json.loads(out)["error"]["code"] == "bad_record"
    assert err.startswith(f"error: {path}: bad_record: cannot read file")


def test_readable_output_mentions_each_trick(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = replay(capsys, "complete.json", "unfinished.json", json_=False)
    assert status == 0 and err == []
    text = "\n".join(out)
    complete, unfinished = text.split("== ")[1:]
    for i, trick in enumerate(COMPLETE["tricks"], 1):
        assert f"Trick {i}: " in complete
        assert f"-> seat {trick['winner']} takes {trick['points']}" in complete
    assert "Payouts: [-2, -2, 4, 2, -2]" in complete
    assert "Trick 1: " in unfinished and "Trick 2 (in progress): TD, AD" in unfinished
    assert "Hand not finished" in unfinished


def test_readable_output_skips_bad_records(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = replay(capsys, "bad_card.json", "doubler.json", json_=False)
    assert status == 2
    assert err == [f"error: {RECORDS / 'bad_card.json'}: bad_card: {BAD['bad_card.json'][2]}"]
    assert "doubler" in "\n".join(out)
    assert "bad_card.json" not in "\n".join(out)


def run_console_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SHEEPSHEAD), "replay", *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_console_script() -> None:
    # The real console script of the venv, in a subprocess.
    assert SHEEPSHEAD.exists()
    good = run_console_script("--json", str(RECORDS / "complete.json"), str(RECORDS / "seed.json"))
    assert good.returncode == 0 and good.stderr == ""
    lines = good.stdout.splitlines()
    assert len(lines) == 2 and json.loads(lines[0]) == COMPLETE
    mixed = run_console_script(
        "--json", str(RECORDS / "bad_illegal_play.json"), str(RECORDS / "doubler.json")
    )
    assert mixed.returncode == 2
    assert mixed.stderr == (
        f"error: {RECORDS / 'bad_illegal_play.json'}: must_follow_suit: action 15: "
        "You must follow trump\n"
    )
    first, second = mixed.stdout.splitlines()
    assert json.loads(first) == {
        "error": {"code": "must_follow_suit", "action": 15, "message": "You must follow trump"}
    }
    assert json.loads(second)["doubler"] is True


def test_output_cut_short_by_head_ends_quietly() -> None:
    # `sheepshead replay ... | head -2`: far more output than a pipe holds, and the reader
    # goes away after two lines.
    records = [str(RECORDS / "complete.json")] * 300
    with subprocess.Popen(
        [str(SHEEPSHEAD), "replay", *records],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = [proc.stdout.readline() for _ in range(2)]
        proc.stdout.close()
        error = proc.stderr.read()
        status = proc.wait(timeout=60)
    assert first[0].startswith("== ") and first[1].startswith("Rules: ")
    assert error == ""
    assert status in (0, 141)


def test_readable_output_names_a_server_tables_bots(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A server table's record names its server bots' strategies (null at a person's seat):
    the account shows them beside those seats' cards, and nothing beside the others."""
    record = json.loads((RECORDS / "complete.json").read_text(encoding="utf-8"))
    record["strategies"] = [None, "random", "heuristic", None, "easy"]
    path = tmp_path / "server.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    seats = [line for line in out if line.startswith("  seat ")]
    assert [line.split(":")[0] for line in seats] == [
        "  seat 0",
        "  seat 1 (random)",
        "  seat 2 (heuristic)",
        "  seat 3",
        "  seat 4 (easy)",
    ]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "not valid JSON: the file is empty"),
        (b"  \n", "not valid JSON: the file is empty"),
        (b"\xff\xfe", "not valid JSON: not text (UTF-8)"),
        (
            b"root:x:0:0:root:/root:/bin/bash\n",
            "not valid JSON: Expecting value (line 1, column 1)",
        ),
        (b'{"deal": {"hands"', "not valid JSON: Expecting ':' delimiter (line 1, column 18)"),
        (b"[" * 100_000, "not valid JSON: nested too deeply"),
    ],
    ids=["empty", "blank", "binary", "passwd", "truncated", "deep"],
)
def test_a_file_that_is_no_json_is_said_in_words(
    content: bytes, said: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # An empty file said "Expecting value: line 1 column 1 (char 0)", a binary one "'utf-8'
    # codec can't decode byte 0xff in position 0: invalid start byte".
    path = tmp_path / "r.json"
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == f"error: {path}: bad_record: {said}\n"


def test_a_directory_or_an_endless_file_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `replay /dev/zero` read until the memory ran out; a directory said "cannot read file:
    # Is a directory" where the records in it were meant.
    from client import replay as replay_command

    monkeypatch.setattr(replay_command, "MAX_FILE_BYTES", 1000, raising=False)
    assert main(["replay", str(tmp_path)]) == 2
    assert f"is a directory: give the records in it, e.g. {tmp_path}/*.json" in (
        capsys.readouterr().err
    )
    big = tmp_path / "big.json"
    big.write_text("{}" + " " * 1000)  # one byte over: read no further than that
    assert main(["replay", str(big)]) == 2
    assert f"error: {big}: bad_record: larger than " in capsys.readouterr().err
