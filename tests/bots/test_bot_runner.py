"""``sheepshead bot`` against the real server on 127.0.0.1 (port 0), real sockets and codec."""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from client import bot_runner
from client import join as join_command
from client.bot_runner import EXIT_FELL_BACK, BotConfig, BotPlayer, run_bot
from client.cli import main
from client.session import ServerError, Session
from engine.bots.base import make_strategy
from engine.record import replay_record
from engine.rules import RuleSet
from server.app import Server
from tests.e2e.test_fair_deals import verify_files
from tests.server.support import (
    drain,
    drive,
    next_event,
    play_until,
    running_server,
    session,
)

TIMEOUT = 30.0
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "my_strategy.py"
HAND_LINE = re.compile(r"^hand (\d+): .*; payouts \[([-\d, ]+)\]; totals \[([-\d, ]+)\]$")


def _hands_and_totals(text: str) -> tuple[list[int], list[int]]:
    hands, totals = [], []
    for line in text.splitlines():
        m = HAND_LINE.match(line)
        if m:
            hands.append(int(m[1]))
            totals = [int(x) for x in m[3].split(",")]
    return hands, totals


async def test_runner_creates_a_table_of_server_bots_and_finishes_the_match() -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out, err = io.StringIO(), io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy="search:samples=4:setup_samples=4",
            create=True,
            hands=2,
            server_bots="heuristic",
            seed=1,
        )
        status = await asyncio.wait_for(run_bot(config, out, err), TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert text.startswith("seated at table t1, seat 0 as search bot")
        hands, totals = _hands_and_totals(text)
        assert hands == [1, 2]
        assert f"match over after 2 hands: totals {totals}; this seat {totals[0]}" in text
        assert sum(totals) == 0
        assert "not legal" not in text and err.getvalue() == ""
        assert server.store is not None
        assert [r["total"] for r in server.store.results("t1")] == totals


def _seat4(state: dict[str, Any]) -> Any:
    """Seat 4's summary in a state (a state leaves out a summary that has not changed since the
    last one: then an empty seat, so the caller waits for the next)."""
    return state["info"]["seats"][4] if "info" in state else {"kind": "empty"}


async def test_runner_joins_a_table_with_a_strategy_file(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host = session(server, "Host", tmp_path)
        await host.connect()
        table = (await host.request("create_table", name="mixed", hands=2))["table"]
        for _ in range(3):
            await host.request("add_bot", seat=None, strategy="heuristic")
        out = io.StringIO()
        config = BotConfig("127.0.0.1", server.port, strategy=str(EXAMPLE), table=table)
        runner = asyncio.create_task(run_bot(config, out))

        while _seat4(await next_event(host, "state", timeout=TIMEOUT))["kind"] == "empty":
            pass
        await host.request("start")
        final = await play_until(host, "match_over", [], random.Random(2), timeout=TIMEOUT)
        status = await asyncio.wait_for(runner, TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert f"seated at table {table}, seat 4 as my-strategy bot" in text
        assert _hands_and_totals(text) == ([1, 2], final["totals"])
        await host.close()


async def test_runner_reports_a_missing_table() -> None:
    # Said on stdout as the bare code, "refused by the server: no_such_table: ...", among the
    # progress lines; an error goes to stderr, as the other commands say theirs.
    async with running_server() as server:
        out, err = io.StringIO(), io.StringIO()
        config = BotConfig("127.0.0.1", server.port, table="nope")
        assert await asyncio.wait_for(run_bot(config, out, err), TIMEOUT) == 2
    assert out.getvalue() == ""
    assert err.getvalue() == (
        f"sheepshead bot: cannot join table nope on 127.0.0.1:{server.port}: "
        "No open table has the id 'nope' (no_such_table)\n"
    )


def test_the_command_says_its_errors_on_stderr_with_its_prefix(capsys: Any) -> None:
    # "cannot reach 127.0.0.1:1: ..." came on stdout, bare, among the progress lines.
    assert main(["bot", "127.0.0.1:1", "--create"]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.startswith("sheepshead bot: cannot reach 127.0.0.1:1: connection refused")


def test_command_line_rejects_bad_input(capsys: Any) -> None:
    assert main(["bot", "127.0.0.1:1", "--create", "--strategy", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert "unknown strategy 'nonsense'" in err
    assert "./nonsense if it is a program here" in err  # mybot.js without ./ is a name
    assert main(["bot", "127.0.0.1:99999", "--create"]) == 2
    assert "bad port" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--table", "t1", "--strategy", "missing.py"]) == 2
    assert "no such strategy file" in capsys.readouterr().err


def test_a_name_of_invisible_characters_is_refused_before_connecting(capsys: Any) -> None:
    # The server refused it with its request code (bad_request: field 'name' must contain
    # printable characters), after the connection; the command line can say it first.
    assert main(["bot", "127.0.0.1:1", "--create", "--name", "\u200b\u200b"]) == 2
    assert "--name '\\u200b\\u200b' shows nothing" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--name", " "]) == 2
    assert "--name is empty" in capsys.readouterr().err


def test_tokens_and_save_hands_that_cannot_be_written_are_refused_first(
    tmp_path: Path, capsys: Any
) -> None:
    # --tokens DIR ended in an IsADirectoryError traceback once seated; --save-hands FILE
    # played the match saying "hand N not saved: [Errno 17] File exists" after each hand.
    a_file = tmp_path / "f"
    a_file.write_text("")
    assert main(["bot", "127.0.0.1:1", "--create", "--tokens", str(tmp_path)]) == 2
    assert f"--tokens {tmp_path} is a directory" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--save-hands", str(a_file)]) == 2
    assert f"--save-hands {a_file} is a file: give a directory" in capsys.readouterr().err
    made = tmp_path / "new" / "hands"
    assert main(["bot", "127.0.0.1:1", "--create", "--save-hands", str(made)]) == 1
    assert made.is_dir()  # made before connecting; then 127.0.0.1:1 refuses


async def test_a_port_that_is_no_servers_is_said_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "cannot connect to 127.0.0.1:1: [Errno 111] Connect call failed ('127.0.0.1', 1)",
    # and for a port that answers HTTP "... connection_lost: The connection to the server
    # was lost": the same words as join now.
    out, err = io.StringIO(), io.StringIO()
    config = BotConfig("127.0.0.1", 1, create=True)
    assert await asyncio.wait_for(run_bot(config, out, err), TIMEOUT) == 1
    assert err.getvalue().startswith(
        "sheepshead bot: cannot reach 127.0.0.1:1: connection refused (is `sheepshead serve`"
    )
    assert out.getvalue() == ""

    async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        writer.close()

    web = await asyncio.start_server(http, "127.0.0.1", 0)
    port = web.sockets[0].getsockname()[1]
    err = io.StringIO()
    config = BotConfig("127.0.0.1", port, create=True)
    monkeypatch.setenv("SHEEPSHEAD_CONFIG_DIR", str(tmp_path))
    async with web:
        assert await asyncio.wait_for(run_bot(config, out, err), TIMEOUT) == 1
        # join said "127.0.0.1:PORT refused the connection: The connection to the server was
        # lost (connection_lost)", as if a server had refused.
        session, error = await join_command.connect("127.0.0.1", port, "Ann")
    assert "is not a sheepshead server (the wrong port?)" in err.getvalue()
    assert session is None
    assert error == f"cannot reach 127.0.0.1:{port}: what answers there is not a sheepshead " + (
        "server (the wrong port?)"
    )


FAILING_STRATEGY = """
class Failing:
    name = "failing"

    def __init__(self, seed=None):
        self.calls = 0

    def choose(self, view, legal):
        self.calls += 1
        if self.calls == 2:
            raise KeyError("no such thing")
        return {k: v for k, v in legal[0].items() if k != "seat"}
"""


async def test_a_failing_strategy_is_reported_with_its_line_and_exits_3(tmp_path: Path) -> None:
    strategy = tmp_path / "failing.py"
    strategy.write_text(FAILING_STRATEGY)
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out, err = io.StringIO(), io.StringIO()
        config = BotConfig(
            "127.0.0.1", server.port, strategy=str(strategy), create=True, hands=1, verbose=True
        )
        status = await asyncio.wait_for(run_bot(config, out, err), TIMEOUT)
    text, failed = out.getvalue(), err.getvalue()
    assert status == EXIT_FELL_BACK, text + failed
    said = f"sheepshead bot: strategy failed at {strategy}:11: KeyError: 'no such thing'; playing "
    assert said in failed and "strategy failed" not in text
    assert "sheepshead bot: the strategy failed in 1 decision; the first legal action was" in failed
    decisions = re.findall(
        r"^decision (\d+): phase (\w+); hand ([\w ]*); legal (.*); chose (.*)$", text, re.M
    )
    assert [int(d[0]) for d in decisions] == list(range(1, len(decisions) + 1))
    assert len(decisions) >= 6 and all(d[4] in d[3].split(", ") for d in decisions)


def _sorted_bury(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**a, "cards": sorted(a["cards"])} if "cards" in a else a for a in actions]


async def test_saved_hands_replay_as_the_server_recorded_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The records carried no commit–reveal data ("the record carries no commit–reveal data"):
    # the server reveals its seeds after the last hand was saved. Now they are completed then.
    saved = tmp_path / "hands"
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        out = io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy="random",
            create=True,
            hands=2,
            preset="wisconsin",
            options={"no_pick": "doubler"},
            save_hands=str(saved),
        )
        assert await asyncio.wait_for(run_bot(config, out), TIMEOUT) == 0, out.getvalue()
        assert server.store is not None
        stored = server.store.hand_records("t1")
    files = sorted(saved.iterdir())
    assert [f.name for f in files] == ["t1-hand0001.json", "t1-hand0002.json"]
    for path, server_record in zip(files, stored, strict=True):
        record = json.loads(path.read_text())
        # Another seat's bury is filled in from the reveal, in display order.
        assert _sorted_bury(record["actions"]) == _sorted_bury(server_record["actions"])
        ours, theirs = record["deal"], server_record["deal"]
        assert [set(h) for h in ours["hands"]] == [set(h) for h in theirs["hands"]]
        assert set(ours["blind"]) == set(theirs["blind"])
        assert RuleSet.from_dict(record["rules"]) == RuleSet.from_dict(server_record["rules"])
        assert RuleSet.from_dict(record["rules"]).no_pick == "doubler"
        assert replay_record(record)["payouts"] == record["payouts"]
        assert record["players"][0] == "random bot"
        # The server bots' strategies, as the server's record has them; null at this bot's.
        assert record["strategies"] == server_record["strategies"] == [None] + ["heuristic"] * 4
        assert record["fair"] == server_record["fair"]
    assert verify_files(files, capsys) == (0, "all 2 deals verified")
    assert "deals: all 2 deals verified" in out.getvalue()


async def test_create_with_two_seats_left_for_other_bots_and_start(tmp_path: Path) -> None:
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        host_out, guest_out, guest2_out = io.StringIO(), io.StringIO(), io.StringIO()
        host = BotConfig(
            "127.0.0.1", server.port, strategy="heuristic", name="host", create=True,
            hands=1, bots=2, start=True, turn_timer=30.0,
        )  # fmt: skip
        host_task = asyncio.create_task(run_bot(host, host_out))
        while "waiting for 2 more players" not in host_out.getvalue():
            await asyncio.sleep(0.02)
        assert "--table t1" in host_out.getvalue()
        guests = [
            asyncio.create_task(
                run_bot(BotConfig("127.0.0.1", server.port, "random", name=f"g{i}", table="t1"), o)
            )
            for i, o in enumerate((guest_out, guest2_out))
        ]
        statuses = await asyncio.wait_for(asyncio.gather(host_task, *guests), TIMEOUT)
        assert server.store is not None
        results = server.store.results("t1")
    assert statuses == [0, 0, 0], host_out.getvalue()
    assert "all seats taken: match started" in host_out.getvalue()
    # The host's bot at seat 0, two server bots, then the two bots that joined.
    assert results[0]["name"] == "host"
    assert sorted(r["name"] for r in results[3:]) == ["g0", "g1"]
    assert sum(r["kind"] == "bot" for r in results) == 2


def test_command_line_checks_the_create_options(capsys: Any) -> None:
    assert main(["bot", "127.0.0.1:1", "--create", "--bots", "5"]) == 2
    assert "--bots must be from 0 to 4" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--bots", "2"]) == 2
    assert "add --start" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--table", "t1", "--rule", "no_pick=doubler"]) == 2
    assert "--rule only applies with --create" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--rule", "no_pick=never"]) == 2
    assert "no_pick" in capsys.readouterr().err
    assert main(["bot", "127.0.0.1:1", "--create", "--turn-timer", "0"]) == 2
    assert "--turn-timer" in capsys.readouterr().err


def _check_saved(
    saved: Path,
    server: Server,
    table: str,
    hands: int = 2,
    *,
    unsaved: tuple[int, ...] = (),
    match: int = 0,
) -> None:
    """The records of match ``match``'s ``hands`` in ``saved`` but ``unsaved`` (numbered from
    1) are the server's: same actions, deal and payouts; no other file of it is there."""
    assert server.store is not None
    numbers = [n for n in range(1, hands + 1) if n not in unsaved]
    stored = [server.store.hand_records(table, match)[n - 1] for n in numbers]
    part = f"-match{match + 1}" if match else ""
    files = sorted(saved.glob(f"{table}{part}-hand*.json"))
    assert [f.name for f in files] == [f"{table}{part}-hand{n:04d}.json" for n in numbers]
    for path, server_record in zip(files, stored, strict=True):
        record = json.loads(path.read_text())
        assert _sorted_bury(record["actions"]) == _sorted_bury(server_record["actions"])
        assert [set(h) for h in record["deal"]["hands"]] == [
            set(h) for h in server_record["deal"]["hands"]
        ]
        assert replay_record(record)["payouts"] == record["payouts"]


async def _host_with_three_bots(
    server: Server, tmp_path: Path, *, name: str = "mid-hand", hands: int = 2, **create: Any
) -> tuple[Session, str]:
    """A connected host at seat 0 of a new table of ``hands`` hands (``create``: more of
    ``create_table``'s fields, e.g. ``grace=0.0``: a stand-in plays a seat whose player is
    away) with server bots at seats 1-3."""
    host = session(server, "Host", tmp_path)
    await host.connect()
    reply = await host.request("create_table", name=name, hands=hands, **create)
    table = str(reply["table"])
    for _ in range(3):
        await host.request("add_bot", seat=None, strategy="random")
    return host, table


async def _pull_seat4s_cable(server: Server, table: str, host: Session) -> None:
    """Cut seat 4's connection server-side and wait until the host sees it away."""
    peer = server.lobby.tables[table].seats[4].peer
    assert peer is not None
    peer.transport.abort()
    while _seat4(await next_event(host, "state", timeout=TIMEOUT)).get("connected", True):
        pass


async def _seat4_changes(host: Session, *, to_empty: bool = False) -> None:
    """Wait until the host sees seat 4 taken (emptied, with ``to_empty``)."""
    while (_seat4(await next_event(host, "state", timeout=TIMEOUT))["kind"] == "empty") != to_empty:
        pass


async def _hold_the_hand(players: list[Session]) -> None:
    """Start and play for ``players`` (the host first) until the hand has an action behind it
    and the host is to act: the table waits for the host there."""
    await players[0].request("start")
    prompts = 0

    def host_again(index: int, prompt: Any, view: Any) -> bool:
        nonlocal prompts
        prompts += 1  # each prompt that does not stop here is answered
        return index == 0 and prompts > 1

    await drive(players, 0, host_again)


def _hold_reconnects(monkeypatch: Any) -> asyncio.Event:
    """Hold every bot session's reconnect (the runner dialling again) until the event is set:
    the runner stays away meanwhile (with grace 0, a stand-in plays its seat)."""
    back = asyncio.Event()
    opened = Session._open

    async def held_reconnect(self: Session) -> Any:
        if self.kind == "bot" and self.welcome is not None:  # the runner dialling again
            await back.wait()
        return await opened(self)

    monkeypatch.setattr(Session, "_open", held_reconnect)
    return back


def _runner(server: Server, table: str, saved: Path | None, out: io.StringIO) -> asyncio.Task[int]:
    """``sheepshead bot --table TABLE`` (``--save-hands saved``, unless None) writing to
    ``out``."""
    save = None if saved is None else str(saved)
    config = BotConfig("127.0.0.1", server.port, strategy="random", table=table, save_hands=save)
    return asyncio.create_task(run_bot(config, out))


async def _finish(
    host: Session,
    runner: asyncio.Task[int],
    out: io.StringIO,
    *,
    clean: bool = True,
    close: bool = True,
) -> str:
    """The host plays its newest prompt each time until the runner is done (the match is over)
    and (``close``) leaves; the runner's output, checked for a clean end (with ``clean``, no
    hand left unsaved).
    (Prompts are taken from ``last_turn``: the event queue still holds the ones ``drive``
    answered.)"""

    async def play() -> None:
        answered = -1
        while not runner.done():
            turn = host.last_turn
            if turn is None or turn["seq"] <= answered:
                await asyncio.sleep(0.005)
                continue
            answered = turn["seq"]
            try:
                await host.act(turn["legal"][0], seq=turn["seq"])
            except ServerError as exc:
                assert exc.code == "stale", exc  # a re-prompt overtook the answer

    await asyncio.wait_for(play(), TIMEOUT)
    status = await runner
    if close:
        await host.close()
    text = out.getvalue()
    assert status == 0, text
    assert not clean or "not saved" not in text, text
    return text


async def test_a_hand_joined_in_the_middle_is_saved_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The runner saw only the actions after it sat down; the hand's final view has them all.
    # Its sitting down published a new commitment, for the second hand: its records verify
    # with the seeds the server reveals at the end, the seed it sent among them.
    saved, out = tmp_path / "hands", io.StringIO()
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path)
        guest = session(server, "Guest", tmp_path)
        await guest.connect()
        await guest.request("join", table=table, seat=4)
        await _hold_the_hand([host, guest])
        await guest.request("leave")
        await guest.close()
        await _seat4_changes(host, to_empty=True)
        # The runner sits down in the seat the guest left, in the middle of the hand.
        runner = _runner(server, table, saved, out)
        await _seat4_changes(host)
        text = await _finish(host, runner, out)
        _check_saved(saved, server, table)
    files = sorted(saved.iterdir())
    assert verify_files(files, capsys) == (0, "all 2 deals verified")
    # The second deal, by the commitment published when the runner sat down, took its seed.
    fair = json.loads(files[1].read_text())["fair"]
    assert fair["first_hand"] == 1 and fair["sources"][4] == "client", fair
    assert "deals: all 2 deals verified" in text, text


async def test_a_hand_is_saved_when_another_seat_leaves_while_it_plays(tmp_path: Path) -> None:
    # A state that applies no action (here: the host leaves, a bot takes the seat over) repeats
    # the last action (PROTOCOL.md §6); the runner took it for a second action and lost the hand
    # ("the actions seen do not replay (It is seat N's turn, not yours)").
    saved, out = tmp_path / "hands", io.StringIO()
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path)
        runner = _runner(server, table, saved, out)
        await _seat4_changes(host)
        await _hold_the_hand([host])
        await host.request("leave")
        await host.close()
        status = await asyncio.wait_for(runner, TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert "not saved" not in text, text
        _check_saved(saved, server, table)


async def test_a_hand_is_saved_when_the_runner_reconnects_in_the_middle(tmp_path: Path) -> None:
    # The snapshot after a reconnect repeats the last action (PROTOCOL.md §6), which the runner
    # had already seen.
    saved, out = tmp_path / "hands", io.StringIO()
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path)
        runner = _runner(server, table, saved, out)
        await _seat4_changes(host)
        await _hold_the_hand([host])
        # The host's turn holds the table still while the runner's cable is pulled.
        await _pull_seat4s_cable(server, table, host)
        while not _seat4(await next_event(host, "state", timeout=TIMEOUT)).get("connected"):
            pass
        await _finish(host, runner, out)
        _check_saved(saved, server, table)


async def test_a_commitment_unseen_before_a_drop_is_not_excused_by_the_reconnect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The match's commitment does not reach the runner (as from a server that deals from one
    # it never showed this seat); the runner's cable is pulled in hand 2 and it comes back.
    # The reconnect excused every commitment dealing up to where it came back, so the one it
    # was connected for went unremarked ("all 3 deals verified (... published before this
    # client came ...)"). Only the hands dealt while it was away are excused now.
    async def unseen(self: BotPlayer, msg: Any) -> None:
        self.fair = True  # known to commit to its deals: the reveal is waited for

    monkeypatch.setattr(BotPlayer, "_answer_commitment", unseen)
    out = io.StringIO()
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path, hands=3)
        runner = _runner(server, table, tmp_path / "hands", out)
        await _seat4_changes(host)
        await host.request("start")
        # The host holds the table at its first turn after the runner saw hand 1 end.
        await drive([host], 0, lambda *_: "hand 1:" in out.getvalue())
        await _pull_seat4s_cable(server, table, host)
        text = await _finish(host, runner, out)
    assert "deals: hand 1 does not verify: its commitment was never published" in text, text


async def test_a_hand_without_its_final_view_is_saved_from_the_servers_record(
    tmp_path: Path,
) -> None:
    # A hand whose end the runner did not see (its final state, or its hand_over while the
    # connection was down) is not rebuilt: the server's own record is fetched (history).
    saved = tmp_path / "hands"
    async with running_server(bot_delay=0.0, hand_pause=0.0) as server:
        seat = session(server, "Seat", tmp_path, kind="bot")
        await seat.connect()
        await seat.request("create_table", name="fallback", hands=2)
        for _ in range(4):
            await seat.request("add_bot", seat=None, strategy="random")
        await seat.request("start")
        over = await play_until(seat, "hand_over", [], random.Random(4), timeout=TIMEOUT)
        lines: list[str] = []
        config = BotConfig("127.0.0.1", server.port, save_hands=str(saved))
        player = BotPlayer(seat, make_strategy("random"), lines.append, config)
        await player._save_hand(over)  # type: ignore[arg-type]
        # Then as if the hand had ended unseen (no hand_over): saved again from the record.
        player.hand_number, player.view, player.hands_over = 0, {"phase": "play"}, set()
        next_deal = {"type": "state", "table": "t1", "seq": 99, "hand": 1}
        await player._on_state(next_deal)  # type: ignore[arg-type]
        assert server.store is not None
        stored = server.store.hand_records("t1")[0]
        await seat.close()
    assert lines == [
        "hand 1: its final state was not seen; saving the server's record of it",
        "hand 1: it ended while this bot was disconnected; saving the server's record of it",
    ]
    record = json.loads((saved / "t1-hand0001.json").read_text())
    assert record["actions"] == stored["actions"] and record["deal"] == stored["deal"]
    assert record["payouts"] == over["result"]["payouts"]
    assert len(record["players"]) == 5 and record["players"][0] == "Seat"
    assert record["strategies"] == [None] + ["random"] * 4
    assert replay_record(record)["payouts"] == record["payouts"]


async def test_a_runner_back_after_the_match_ended_ends_as_at_a_match_over(
    tmp_path: Path, monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # A client back at a table whose match ended meanwhile learns it from the snapshot (the
    # table's state "over"); no match_over comes. The runner waited for one until the table
    # closed. It missed the seeds' reveal too: the hand it saved itself could not be checked
    # (verify said so); the server's records carry the seeds by then, so the runner takes
    # them from history, checks the deal it saw and completes its record: both verify.
    saved, out = tmp_path / "hands", io.StringIO()
    back = _hold_reconnects(monkeypatch)
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        # Grace 0: a stand-in plays the runner's seat while it is away.
        host, table = await _host_with_three_bots(server, tmp_path, name="cut", grace=0.0)
        runner = _runner(server, table, saved, out)
        await _seat4_changes(host)
        await host.request("start")

        def last_trick(seat: int, prompt: Any, view: Any) -> bool:
            state = host.last_state or {}
            return state.get("hand") == 1 and view["phase"] == "play" and len(view["tricks"]) == 5

        # The host's card in the last trick: the match's last action, or one of the last.
        _, prompt = await drive([host], 0, last_trick)
        await _pull_seat4s_cable(server, table, host)
        await host.act(prompt["legal"][0], seq=prompt["seq"])
        final = await next_event(host, "match_over", timeout=TIMEOUT)
        assert not runner.done()
        back.set()  # the runner comes back to the over table
        status = await asyncio.wait_for(runner, TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert text.rstrip().endswith(
            f"match over after 2 hands: totals {final['totals']}; this seat {final['totals'][4]}"
            "\nthe match's seeds: the reveal was missed; taken from the server's records of it"
            "\ndeals: the deal verified"
        ), text
        assert "hand 2: it ended while this bot was disconnected" in text
        assert "not saved" not in text, text
        _check_saved(saved, server, table)
        await host.close()
    assert verify_files(sorted(saved.iterdir()), capsys) == (0, "all 2 deals verified")


async def _away_over_two_hands(
    tmp_path: Path,
    monkeypatch: Any,
    *,
    back_in_the_last_hand: bool,
    unsaved: tuple[int, ...] = (),
    **config: Any,
) -> tuple[str, list[str]]:
    """A runner at seat 4 of a match of four (with ``back_in_the_last_hand``, else three)
    hands is cut off in the first hand and kept away (a stand-in plays its seat) until the
    last hand holds on the host's turn (or the match is over); then it comes back and plays
    on. Checks that every hand of the match but ``unsaved`` (numbered from 1) is saved as the
    server stored it; returns the runner's output and the ``history`` outcomes of its
    connection (``ok`` or the code)."""
    saved, out = tmp_path / "hands", io.StringIO()
    back = _hold_reconnects(monkeypatch)
    request = Session.request
    asked: list[str] = []

    async def noted_request(self: Session, type: str, **fields: Any) -> Any:
        try:
            reply = await request(self, type, **fields)  # type: ignore[call-overload]
        except ServerError as exc:
            if self.kind == "bot" and type == "history":
                asked.append(exc.code)
            raise
        if self.kind == "bot" and type == "history":
            asked.append("ok")
        return reply

    monkeypatch.setattr(Session, "request", noted_request)
    hands = 4 if back_in_the_last_hand else 3
    async with running_server(
        bot_delay=0.0, hand_pause=0.0, default_bot="random", **config
    ) as server:
        # Grace 0: a stand-in plays the runner's seat while it is away.
        host, table = await _host_with_three_bots(
            server, tmp_path, name="away", hands=hands, grace=0.0
        )
        runner = _runner(server, table, saved, out)
        await _seat4_changes(host)
        await _hold_the_hand([host])
        await _pull_seat4s_cable(server, table, host)

        def last_hand(seat: int, prompt: Any, view: Any) -> bool:
            return (host.last_state or {}).get("hand") == hands - 1

        if back_in_the_last_hand:
            await drive([host], 0, last_hand)
            assert not runner.done()
            back.set()
            text = await _finish(host, runner, out, clean=not unsaved)
        else:
            # The queue holds the prompts drive answered: only the held one is pending.
            drain(host)
            assert host.last_turn is not None
            await host.act(host.last_turn["legal"][0], seq=host.last_turn["seq"])
            await play_until(host, "match_over", [], random.Random(5), timeout=TIMEOUT)
            assert not runner.done()
            back.set()  # the runner comes back to the over table
            status = await asyncio.wait_for(runner, TIMEOUT)
            await host.close()
            text = out.getvalue()
            assert status == 0, text
            assert unsaved or "not saved" not in text, text
        _check_saved(saved, server, table, hands, unsaved=unsaved)
    assert "hand 1: it ended while this bot was disconnected" in text, text
    for number in range(2, hands):
        line = f"hand {number}: it was played while this bot was away; saving the server's record"
        assert line in text, text
    return text, asked


async def test_a_runner_away_over_two_hands_saves_each_from_the_servers_record(
    tmp_path: Path, monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # Hands that began and ended while the runner was away (a stand-in played its seat) were
    # dropped without a word: only the hand it was in when it left was saved.
    _, asked = await _away_over_two_hands(tmp_path, monkeypatch, back_in_the_last_hand=True)
    # The server's records fetched during the match had no server seed yet: the reveal at the
    # end completed them, as the hands the runner saved itself.
    files = sorted((tmp_path / "hands").iterdir())
    assert verify_files(files, capsys) == (0, "all 4 deals verified")
    # One request when it sat down (which match the table is in), one for the three hands.
    assert asked == ["ok", "ok"]


async def test_a_rate_limited_history_page_is_asked_for_again(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # One history request a connection at once, refilled in half a second (a margin for a busy
    # machine), and one hand a page (the frame is small), so the second page of the runner's
    # request, sent at once after the first, is refused; it was given up at the first
    # refusal ("not saved: ... rate_limited"). Back after the match ended: the last hand too.
    _, asked = await _away_over_two_hands(
        tmp_path,
        monkeypatch,
        back_in_the_last_hand=False,
        history_burst=1.0,
        history_rate=2.0,
        max_frame=4096,
    )
    # The first "ok": which match the table is in, asked when the runner sat down.
    assert asked.count("ok") == 4 and "rate_limited" in asked, asked


async def test_a_history_fetch_refused_part_way_keeps_the_pages_that_came(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # One history request a connection at once and (as good as) no refill, one hand a page:
    # back after the match ended, the first page of the runner's catch-up comes and the second
    # is refused beyond the retries. The page that came was dropped with the rest ("hand 1 not
    # saved", "hand 2 not saved", ...); now it is saved, and the output names the hands that
    # are not.
    monkeypatch.setattr(bot_runner, "RECORD_RETRIES", 1)
    monkeypatch.setattr(bot_runner, "RECORD_RETRY_WAIT", 0.01)
    text, asked = await _away_over_two_hands(
        tmp_path,
        monkeypatch,
        back_in_the_last_hand=False,
        unsaved=(2, 3),
        history_burst=1.0,
        history_rate=0.001,
        max_frame=4096,
    )
    # The first "ok" is the first connection's (which match, when the runner sat down).
    assert asked == ["ok", "ok", "rate_limited", "rate_limited"], asked
    assert "hands 2, 3 not saved: the server's record was refused (rate_limited: " in text, text
    assert "hand 1 not saved" not in text, text


async def _away_through_a_rematch(
    tmp_path: Path,
    monkeypatch: Any,
    check: Callable[[str, Server, str, Path], None],
    *,
    rematches: int = 1,
    save: bool = True,
) -> None:
    """The runner (seat 4 of a two-hand table) is cut off in the last hand of a match; the
    match ends, the host starts ``rematches`` rematches (each but the last played out) and a
    stand-in plays the first hand of the last before the runner is back; it plays the second
    hand to that match's end. Then ``check`` is given its output, the server, the table and
    the folder of saved hands (the server still running: its store is read). ``save``: the
    runner is given ``--save-hands`` (else the folder stays empty)."""
    saved, out = tmp_path / "hands", io.StringIO()
    back = _hold_reconnects(monkeypatch)
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path, name="again", grace=0.0)
        runner = _runner(server, table, saved if save else None, out)
        await _seat4_changes(host)
        await host.request("start")

        def second_hand(seat: int, prompt: Any, view: Any) -> bool:
            return (host.last_state or {}).get("hand") == 1

        await drive([host], 0, second_hand)

        def first_hand_done() -> bool:
            if save:
                return (saved / f"{table}-hand0001.json").exists()
            return "hand 1:" in out.getvalue()

        async def first_hand_seen() -> None:
            while not first_hand_done():
                await asyncio.sleep(0.01)

        await asyncio.wait_for(first_hand_seen(), TIMEOUT)
        await _pull_seat4s_cable(server, table, host)
        drain(host)  # the prompts drive answered: only the held one is pending
        assert host.last_turn is not None
        await host.act(host.last_turn["legal"][0], seq=host.last_turn["seq"])
        over = await play_until(host, "match_over", [], random.Random(6), timeout=TIMEOUT)
        for _ in range(rematches - 1):
            await host.request("rematch")
            over = await play_until(host, "match_over", [], random.Random(7), timeout=TIMEOUT)
        await host.request("rematch")
        await drive([host], over["seq"], second_hand)  # the new match's second hand
        assert not runner.done()
        back.set()
        # The host's turn holds the table until the runner is back: it plays the rest.
        while not _seat4(await next_event(host, "state", timeout=TIMEOUT)).get("connected"):
            pass
        text = await _finish(host, runner, out, clean=False)
        check(text, server, table, saved)


async def test_a_runner_away_through_a_rematch_saves_both_matchs_hands(
    tmp_path: Path, monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The runner is cut off in the last hand of a match; the match ends, the host starts a
    # rematch and a stand-in plays its first hand before the runner is back. Hands count from
    # 0 again in the new match; the old match's last hand was reported not saved ("the server
    # keeps only the current match's hands"): now history's match brings it.
    # The old match's seeds were revealed while the runner was away, and the new match's
    # reveal does not cover its hands: the runner dropped them ("match 1's deals not checked")
    # and left the record of hand 1 it saved itself without seeds (verify: "cannot be
    # checked"). Now it checks them against the seeds of the old match's records, as the
    # Textual client does, and completes that record: every deal of both matches verifies.

    def check(text: str, server: Server, table: str, saved: Path) -> None:
        _check_saved(saved, server, table)
        _check_saved(saved, server, table, match=1)
        assert "not saved" not in text, text
        line = "hand 2: it ended while this bot was disconnected; saving the server's record"
        assert line in text, text
        line = "match 2 hand 1: it was played while this bot was away; saving the server's"
        assert line in text, text
        for match, part in ((0, ""), (1, "-match2")):
            for path in saved.glob(f"{table}{part}-hand*.json"):
                assert json.loads(path.read_text())["match"] == match
        assert "not checked" not in text, text
        lines = text.splitlines()
        seeds = "match 1's seeds: revealed while this bot was away; taken from the server's"
        at = next(i for i, line in enumerate(lines) if line.startswith(seeds))
        # The hand seen and the one from the record, against match 1's seeds (not match 2's).
        assert lines[at + 1] == "deals: all 2 deals verified", text
        assert lines[-1].startswith("match 2 deals: the deal verified (the commitment "), text
        files = sorted(saved.iterdir())
        assert verify_files(files, capsys) == (0, "all 4 deals verified")

    await _away_through_a_rematch(tmp_path, monkeypatch, check)


async def test_a_runner_without_saved_hands_checks_each_match_against_its_own_seeds(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # Without --save-hands the runner never asked which match the table was in: back after a
    # rematch, the old match's hand 1 was checked against the new match's seeds, a false
    # alarm ("deals: hand 1 does not verify: seat N is not the dealer the seed names").

    def check(text: str, server: Server, table: str, saved: Path) -> None:
        assert not saved.exists()
        lines = text.splitlines()
        seeds = "match 1's seeds: revealed while this bot was away; taken from the server's"
        at = next((i for i, line in enumerate(lines) if line.startswith(seeds)), None)
        assert at is not None, text
        assert lines[at + 1] == "deals: all 2 deals verified", text
        assert lines[-1].startswith("match 2 deals: the deal verified (the commitment "), text
        assert "does not verify" not in text, text

    await _away_through_a_rematch(tmp_path, monkeypatch, check, save=False)


async def test_a_runner_away_through_two_rematches_saves_the_match_between(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # A whole match began and ended while the runner was away: it is asked for by its number.

    def check(text: str, server: Server, table: str, saved: Path) -> None:
        for match in range(3):
            _check_saved(saved, server, table, match=match)
        assert "not saved" not in text, text
        line = "match 2 hand 2: it was played while this bot was away; saving the server's"
        assert line in text, text

    await _away_through_a_rematch(tmp_path, monkeypatch, check, rematches=2)


async def test_a_server_that_cannot_give_an_earlier_match_leaves_the_not_saved_line(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # A server from before history's match ignores it and answers with the current match;
    # the runner must not save the new match's hand 2 as the old one's.
    from server.tables.table import Table

    current_only = Table.history_reply
    monkeypatch.setattr(
        Table, "history_reply", lambda self, start, match=None: current_only(self, start)
    )

    def check(text: str, server: Server, table: str, saved: Path) -> None:
        _check_saved(saved, server, table, unsaved=(2,))
        _check_saved(saved, server, table, match=1)
        line = (
            "hand 2 not saved: a new match began at the table while this bot was away, and the "
            "server keeps only the current match's hands"
        )
        assert line in text, text
        assert text.count("not saved") == 1, text
        # Nor are its seeds: the deal seen cannot be checked, and the runner says why.
        line = (
            "deals: hand 1 cannot be checked (0 of 1 deals verified): the seeds were not revealed"
            " here: the server keeps only the current match's hands"
        )
        assert line in text, text

    await _away_through_a_rematch(tmp_path, monkeypatch, check)


async def test_a_runner_at_a_rematch_keeps_the_first_matchs_files(tmp_path: Path) -> None:
    # A runner ends with its match; the host starts a rematch and a runner (a new process)
    # joins it, saving into the same folder. Hands count from 0 again in the new match, and its
    # first hand was written over the first match's file (t1-hand0001.json).
    saved = tmp_path / "hands"
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path, name="two", hands=1)
        for match in range(2):
            out = io.StringIO()
            runner = _runner(server, table, saved, out)
            await _seat4_changes(host)
            await host.request("start")
            await _finish(host, runner, out, close=False)
            if match == 0:
                await _seat4_changes(host, to_empty=True)  # the runner left
                await host.request("rematch")
        await host.close()
        _check_saved(saved, server, table, 1)
        _check_saved(saved, server, table, 1, match=1)


async def test_a_runner_restarted_with_its_token_saves_the_hands_it_missed(
    tmp_path: Path, monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # The runner's process dies in the first hand (no leave: its seat and token stay); a
    # stand-in plays the match out; the runner started again with --tokens takes the seat back
    # at the over table. It fetched nothing: the hands after it died were lost in silence.
    saved, tokens = tmp_path / "hands", tmp_path / "tokens.json"
    _hold_reconnects(monkeypatch)  # the first process never comes back
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        host, table = await _host_with_three_bots(server, tmp_path, name="die", hands=3, grace=0.0)

        def runner(out: io.StringIO) -> asyncio.Task[int]:
            config = BotConfig(
                "127.0.0.1", server.port, "random", table=table, save_hands=str(saved),
                tokens=str(tokens),
            )  # fmt: skip
            return asyncio.create_task(run_bot(config, out))

        first = runner(io.StringIO())
        await _seat4_changes(host)
        await _hold_the_hand([host])
        await _pull_seat4s_cable(server, table, host)
        first.cancel()  # killed: it says no leave
        drain(host)
        assert host.last_turn is not None
        await host.act(host.last_turn["legal"][0], seq=host.last_turn["seq"])
        await play_until(host, "match_over", [], random.Random(7), timeout=TIMEOUT)
        out = io.StringIO()
        status = await asyncio.wait_for(runner(out), TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert f"back at table {table}, seat 4" in text, text
        assert "hand 3: it ended while this bot was not running" in text, text
        assert "not saved" not in text, text
        _check_saved(saved, server, table, 3)
        await host.close()
    # Fetched after the match's end, the server's records carry the revealed seeds.
    assert verify_files(sorted(saved.iterdir()), capsys) == (0, "all 3 deals verified")
