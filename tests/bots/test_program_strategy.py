"""A strategy that is an outside program (client/program_strategy.py): one line of JSON each way
per decision, in a tournament, ``sheepshead bot`` and the training environment; its failures
fall back as a Python strategy's do, and its processes end with the run."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import pickle
import random
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from botkit.env import raw_env
from botkit.tournament.play import run_tournament
from client.bot_runner import EXIT_FELL_BACK, BotConfig, run_bot
from client.program_strategy import ProgramStrategy, close_programs
from client.strategy_call import decide
from client.strategy_spec import StrategyLoadError, strategy_factory
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from tests.server.support import running_server

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0

# The same choice in the three languages: the card or action at (hand size + offset) mod the
# number of legal actions; a card is answered as its map without the seat, anything else by
# its index (both answers are exercised).
PROGRAM = """
import json, os, sys

offset = 0
for arg in sys.argv[1:]:
    if arg.startswith("--offset="):
        offset = int(arg.split("=", 1)[1])
if os.environ.get("PIDS"):
    open(os.path.join(os.environ["PIDS"], str(os.getpid())), "w").close()
for line in sys.stdin:
    request = json.loads(line)
    view, legal = request["view"], request["legal"]
    i = (len(view["hand"]) + offset) % len(legal)
    if legal[i]["action"] == "play":
        print(json.dumps({"action": "play", "card": legal[i]["card"]}), flush=True)
    else:
        print(i, flush=True)
if os.environ.get("STUBBORN"):  # lives on after its stdin ends
    import signal, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(300)
"""

PYTHON_FILE = """
class Same:
    def __init__(self, offset=0):
        self.offset = offset

    def choose(self, view, legal):
        return legal[(len(view["hand"]) + self.offset) % len(legal)]
"""

NODE_PROGRAM = """#!/usr/bin/env node
const offset = Number((process.argv.find((a) => a.startsWith("--offset=")) || "=0").split("=")[1]);
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const { view, legal } = JSON.parse(line);
  const i = (view.hand.length + offset) % legal.length;
  const a = legal[i];
  console.log(a.action === "play" ? JSON.stringify({ action: "play", card: a.card }) : String(i));
});
"""

# Fails the first decision of its first run in the way --fail says (a marker file remembers
# that it did), then answers the first legal action.
FAULTY = """
import json, os, sys, time

options = dict(arg[2:].split("=", 1) for arg in sys.argv[1:])
for line in sys.stdin:
    if not os.path.exists(options["once"]):
        open(options["once"], "w").close()
        fail = options["fail"]
        print("boom: about to " + fail, file=sys.stderr, flush=True)
        if fail == "timeout":
            time.sleep(60)
        elif fail == "crash":
            sys.exit(3)
        elif fail == "garbage":
            print("hello there", flush=True)
            continue
        elif fail == "huge":
            print("0" * 100000, flush=True)
            continue
        elif fail == "illegal":
            print(json.dumps({"action": "play", "card": "XX"}), flush=True)
            continue
        elif fail == "always":
            os.remove(options["once"])
            sys.exit(1)
    print(0, flush=True)
"""


def _program(folder: Path, body: str, name: str = "prog") -> Path:
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _running(folder: Path) -> list[str]:
    """The processes (``ps``) whose command line names a file in ``folder`` (``-ww``: the
    whole line, not the terminal's width)."""
    out = subprocess.run(
        ["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True, check=True
    )
    return [line for line in out.stdout.splitlines() if str(folder) in line]


def _none_running(folder: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while _running(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(folder) == []


def _figures(tallies: list[Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in dataclasses.asdict(t).items() if k not in ("think", "think_max")}
        for t in tallies
    ]


def test_a_tournament_gives_the_figures_of_the_same_python_strategy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = _program(tmp_path, PROGRAM)
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("PIDS", str(pids))
    python_file = tmp_path / "same.py"
    python_file.write_text(PYTHON_FILE, encoding="utf-8")
    rules = RuleSet.from_preset("wisconsin")
    by_program, _ = run_tournament([f"{program}:offset=1", "random"], 3, 5, rules)
    by_file, _ = run_tournament([f"{python_file}:offset=1", "random"], 3, 5, rules)
    assert by_program[0].decisions > 100 and by_program[0].fallbacks == 0
    assert _figures(by_program) == _figures(by_file)
    assert len(list(pids.iterdir())) == 1  # one process played every seat of every hand
    close_programs()
    _none_running(tmp_path)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_javascript_program_plays_as_the_python_one(tmp_path: Path) -> None:
    program = tmp_path / "mine.js"
    program.write_text(NODE_PROGRAM, encoding="utf-8")
    program.chmod(0o755)
    python_file = tmp_path / "same.py"
    python_file.write_text(PYTHON_FILE, encoding="utf-8")
    rules = RuleSet()
    by_program, _ = run_tournament([f"{program}:offset=2", "heuristic"], 2, 9, rules)
    by_file, _ = run_tournament([f"{python_file}:offset=2", "heuristic"], 2, 9, rules)
    assert by_program[0].fallbacks == 0
    assert _figures(by_program) == _figures(by_file)
    close_programs()
    _none_running(tmp_path)


def test_the_command_line_tournament_with_two_jobs_leaves_no_process(tmp_path: Path) -> None:
    # Even a program that does not exit at the end of its stdin: the workers are ended by
    # SIGTERM, and take their programs with them.
    program = _program(tmp_path, PROGRAM)
    pids = tmp_path / "pids"
    pids.mkdir()
    result = subprocess.run(
        [
            *(sys.executable, "-m", "client.cli", "tournament"),
            *("--strategies", f"{program},random", "--deals", "4", "--jobs", "2"),
            *("--quiet", "--seed", "3"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PIDS": str(pids), "PYTHONPATH": str(ROOT), "STUBBORN": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert "failed" not in result.stdout and "fell back" not in result.stdout
    assert 1 <= len(list(pids.iterdir())) <= 2  # one program per worker at most
    _none_running(tmp_path)


def _decision_point() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    hand = Hand.from_seed(RuleSet(), 0, 1)
    view = seat_view(hand, hand.turn)
    return view, view["legal"]


@pytest.mark.parametrize(
    ("fail", "error", "restarted"),
    [
        ("timeout", "did not answer within 1 s (killed)", True),
        ("crash", "exited with status 3 instead of answering", True),
        ("garbage", "answered b'hello there', which is not a JSON line", True),
        ("huge", "answered a line longer than 65536 bytes", True),
        ("illegal", 'answered {"action": "play", "card": "XX"}, which is not legal', False),
    ],
)
def test_a_failing_program_falls_back_and_plays_on(
    tmp_path: Path, fail: str, error: str, restarted: bool
) -> None:
    program = _program(tmp_path, FAULTY)
    marker = tmp_path / "failed-once"
    timeout = 1 if fail == "timeout" else TIMEOUT
    strategy = strategy_factory(f"{program}:fail={fail}:once={marker}:timeout={timeout}")(None)
    assert isinstance(strategy, ProgramStrategy)
    view, legal = _decision_point()
    first = decide(strategy, view, legal)
    assert first.fell_back and first.action == legal[0]
    assert first.error is not None and error in first.error, first.error
    assert f"{program} " in first.error
    assert first.place == strategy.program.label  # the program, not the runner's own line
    pid = strategy.program.pid
    if restarted:
        assert 'its stderr ended: "boom: about to ' + fail in first.error
        assert "it is started again at the next decision" in first.error
        assert pid is None  # killed, and not running until asked again
        strategy.program.timeout = TIMEOUT  # the restart may be slow on a busy machine
    again = decide(strategy, view, legal)
    assert not again.fell_back and again.action == legal[0]
    assert strategy.program.starts == (2 if restarted else 1)
    assert restarted or strategy.program.pid == pid
    strategy.program.close()
    _none_running(tmp_path)


def test_a_program_failing_three_times_in_a_row_is_given_up(tmp_path: Path) -> None:
    program = _program(tmp_path, FAULTY)
    strategy = strategy_factory(f"{program}:fail=always:once={tmp_path / 'm'}")(None)
    view, legal = _decision_point()
    errors = [decide(strategy, view, legal).error or "" for _ in range(4)]
    assert "exited with status 1" in errors[0]
    assert "3 failures in a row: it is not started again" in errors[2]
    assert "is not started again after 3 failures in a row (the last: " in errors[3]
    assert strategy.program.starts == 3  # type: ignore[attr-defined]
    _none_running(tmp_path)


def test_a_file_that_is_not_a_program_is_refused_at_once(tmp_path: Path) -> None:
    plain = tmp_path / "bot.js"
    plain.write_text("console.log(0)\n", encoding="utf-8")
    with pytest.raises(StrategyLoadError, match="is not executable: make it so"):
        strategy_factory(str(plain))
    with pytest.raises(StrategyLoadError, match="no such strategy file"):
        strategy_factory(str(tmp_path / "missing"))
    program = _program(tmp_path, PROGRAM)
    with pytest.raises(StrategyLoadError, match="timeout=0: seconds per decision"):
        strategy_factory(f"{program}:timeout=0")
    bad = tmp_path / "bad-interpreter"
    bad.write_text("#!/nonexistent/interpreter\n", encoding="utf-8")
    bad.chmod(0o755)
    view, legal = _decision_point()
    decision = decide(strategy_factory(str(bad))(None), view, legal)
    assert decision.fell_back and "cannot be started: " in (decision.error or "")


async def test_the_bot_runner_plays_a_match_with_a_program(tmp_path: Path) -> None:
    program = _program(tmp_path, PROGRAM)
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out, err = io.StringIO(), io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy=str(program),
            create=True,
            hands=2,
            server_bots="random",
        )
        status = await asyncio.wait_for(run_bot(config, out, err), TIMEOUT)
        text = out.getvalue()
        assert status == 0, text + err.getvalue()
        assert text.startswith("seated at table t1, seat 0 as prog bot")
        assert "match over after 2 hands" in text and err.getvalue() == ""

        faulty = _program(tmp_path, FAULTY, "faulty")
        out, err = io.StringIO(), io.StringIO()
        spec = f"{faulty}:fail=crash:once={tmp_path / 'm'}"
        config = dataclasses.replace(config, strategy=spec)
        status = await asyncio.wait_for(run_bot(config, out, err), TIMEOUT)
        text = err.getvalue()  # the failures: the match's progress is on stdout
        assert status == EXIT_FELL_BACK, out.getvalue() + text
        assert "exited with status 3 instead of answering" in text
        assert '"boom: about to crash"' in text
        assert "the strategy failed in 1 decision;" in text
    close_programs()
    _none_running(tmp_path)


def _play(game: Any, hands: int) -> list[dict[str, Any]]:
    rng = random.Random(1)
    records = []
    game.reset(seed=4)
    for number in range(hands):
        if number:
            game.reset()
        for _agent in game.agent_iter():
            _, _, terminated, truncated, _ = game.last()
            game.step(None if terminated or truncated else rng.choice(game.legal_actions()))
        records.append(game.unwrapped.record())
    return records


def test_the_training_environment_takes_a_program_as_an_opponent(tmp_path: Path) -> None:
    program = _program(tmp_path, PROGRAM)
    python_file = tmp_path / "same.py"
    python_file.write_text(PYTHON_FILE, encoding="utf-8")
    by_program = _play(raw_env(opponents={1: f"./{program.name}", 3: "random"}), 3)
    by_file = _play(raw_env(opponents={1: str(python_file), 3: "random"}), 3)
    assert by_program == by_file
    # It pickles (the program is started again in the copy, at its first decision).
    game = raw_env(opponents={1: str(program)})
    game.reset(seed=2)
    again = pickle.loads(pickle.dumps(game))
    assert _play(again, 1)[0]["actions"]
    close_programs()
    _none_running(tmp_path)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # "./prog" paths are relative to it


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_example_program_in_the_docs_plays_without_failing(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    section = text.split("### A bot in any language", 1)[1]
    source = section.split("```js\n", 1)[1].split("```", 1)[0]
    program = tmp_path / "mybot.js"
    program.write_text(source, encoding="utf-8")
    program.chmod(0o755)
    specs = [f"{program}:bold=true:timeout=20", "heuristic"]
    tallies, _ = run_tournament(specs, 2, 1, RuleSet.from_preset("wisconsin"))
    assert tallies[0].fallbacks == 0, tallies[0].failures
    assert tallies[0].picks > 0  # bold: three trumps pick
    close_programs()
    _none_running(tmp_path)
