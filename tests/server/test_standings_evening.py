"""An evening's standings: ``sheepshead standings --since`` with a time of day,
``--tonight``, and the ``standings`` request's ``since`` as a time or ``tonight``."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from client.cli import main
from server.storage.store import Reader, SeatRow, Store
from tests.server.support import running_server
from tests.server.test_standings import standings


def ended_matches(store: Store, ends: dict[str, float]) -> None:
    """One match of one hand per ``strategy -> when it ended``: a bot of that strategy won 1."""
    for strategy, finished in ends.items():
        table = store.create_table({"name": strategy}, created=0.0)
        store.save_seat(table, 0, SeatRow(0, "bot", "B", strategy, None, None))
        store.save_hand(table, 0, {}, [1, 0, 0, 0, -1], finished=finished)
        store.save_results(table, [(0, "B", "bot", 1)], hands=1, finished=finished)
    store.commit()


def cli(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["standings", "--db", str(db), "--json", *args]) in (0, None)
    return sorted(row["player"] for row in json.loads(capsys.readouterr().out))


def test_since_takes_a_time_of_day_and_tonight_the_last_hours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = time.time()
    ends = {"random": now - 13 * 3600, "heuristic": now - 60}
    db = tmp_path / "s.db"
    store = Store(db)
    ended_matches(store, ends)
    store.close()
    midnight = datetime.combine(datetime.now().date(), datetime.min.time()).timestamp()
    assert cli(db, capsys, "--since", "00:00") == sorted(
        s for s, t in ends.items() if t >= midnight
    )
    an_hour_ago = datetime.fromtimestamp(now - 3600)
    day, clock = an_hour_ago.strftime("%Y-%m-%d"), an_hour_ago.strftime("%H:%M")
    assert cli(db, capsys, "--since", day, clock) == ["heuristic"]  # two words
    assert cli(db, capsys, "--since", f"{day} {clock}") == ["heuristic"]  # one quoted
    # No server holds the database: tonight is the last 12 hours.
    assert cli(db, capsys, "--tonight") == ["heuristic"]
    assert cli(db, capsys) == ["heuristic", "random"]
    for bad in (["25:00"], ["18:00", "2026-12-05"], ["tonight"], ["2026-12-05", "6pm"]):
        assert main(["standings", "--db", str(db), "--since", *bad]) == 2
        assert "HH:MM" in capsys.readouterr().err


async def test_the_standings_request_takes_a_time_or_tonight(tmp_path: Path) -> None:
    now = time.time()
    async with running_server(db_path=tmp_path / "s.db") as server:
        assert server.store is not None
        launched = server.players.launched
        assert now <= launched <= time.time()
        # Before the server started: not tonight's, though within 12 hours. (Times from the
        # start, not from the test's: a loaded machine took 7 s to start the server.)
        ended_matches(server.store, {"random": launched - 3600, "heuristic": launched + 1})
        server.players.started = launched  # no evening to go on with
        tonight = await standings(server.port, since="tonight")
        assert [r["player"] for r in tonight["players"]] == ["heuristic"]
        assert tonight["since"] == "tonight"
        # Which window it counted and why, in the words of ``standings --tonight``.
        window = tonight["tonight"]
        assert datetime.fromisoformat(window["start"]).timestamp() == int(launched)
        assert 0 <= time.time() - datetime.fromisoformat(window["end"]).timestamp() < 60
        first, why = window["text"].splitlines()
        assert first.startswith(f"tonight: matches that ended from {_clock(launched, now)} to ")
        assert first.endswith(" (server time),") and len(first) <= 80
        assert why == f"  since the server on this database started, at {_clock(launched, now)}"
        assert "tonight" not in await standings(server.port)  # all time: no window
        moment = datetime.fromtimestamp(now - 7200, UTC).strftime("%Y-%m-%dT%H:%MZ")
        both = await standings(server.port, since=moment)
        assert sorted(r["player"] for r in both["players"]) == ["heuristic", "random"]
        offset = datetime.fromtimestamp(now - 1800, UTC).strftime("%Y-%m-%dT%H:%M+00:00")
        later = await standings(server.port, since=offset)
        assert [r["player"] for r in later["players"]] == ["heuristic"]
        for bad in ("18:00", "2026-12-05T18:00", "2026-12-05 18:00Z", "today", "x" * 30):
            reply = await standings(server.port, since=bad)
            assert reply["type"] == "error" and reply["code"] == "bad_request", (bad, reply)
            assert "since" in reply["message"]


def test_tonight_starts_when_the_server_holding_the_database_started(tmp_path: Path) -> None:
    """The command finds the server by the lock it holds on the database (Linux: /proc)."""
    import os

    from server.standings_cli import server_started

    db = tmp_path / "s.db"
    store = Store(db)  # this process holds the lock, as a server would
    try:
        started = server_started(db)
    finally:
        store.close()
    if not os.path.exists("/proc/locks"):
        assert started is None
        return
    assert started is not None
    assert 0 <= time.time() - started < 24 * 3600  # this test process started a little ago
    assert server_started(db) is None  # nobody holds it now


async def test_a_restart_mid_evening_keeps_tonights_matches(tmp_path: Path) -> None:
    # Before, a server restarted mid-evening (a crash, an update) started "tonight" again: the
    # settle-up said "Nobody owes anybody anything" for matches played an hour before.
    now = time.time()
    db = tmp_path / "s.db"
    store = Store(db)
    ended_matches(store, {"random": now - 5 * 3600, "heuristic": now - 3600})
    store.close()
    async with running_server(db_path=db) as server:
        tonight = await standings(server.port, since="tonight")
        # The match an hour ago is this evening's; the one four hours before it an earlier one.
        assert [r["player"] for r in tonight["players"]] == ["heuristic"]
        # The reply says so (before, it carried only the "tonight" it was sent).
        started = _clock(server.players.launched, time.time())
        first, why = tonight["tonight"]["text"].splitlines()
        begin = re.escape(_clock(now - 3600, now))
        assert re.fullmatch(
            rf"tonight: matches that ended from {begin} to \d\d:\d\d \(server time\),", first
        )
        assert why == f"  the evening the server went on with when it restarted at {started}"


def test_the_command_counts_tonight_across_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    now = time.time()
    db = tmp_path / "s.db"
    store = Store(db)  # this process holds the lock, as a restarted server would
    try:
        ended_matches(store, {"random": now - 5 * 3600, "heuristic": now - 3600})
        if not os.path.exists("/proc/locks"):
            pytest.skip("the server's start is found through /proc")
        assert cli(db, capsys, "--tonight") == ["heuristic"]
    finally:
        store.close()


def _clock(moment: float, now: float) -> str:
    """``moment`` as the header writes it: local ``HH:MM``, with its day when not ``now``'s."""
    at = datetime.fromtimestamp(moment)
    return at.strftime("%H:%M" if at.date() == datetime.fromtimestamp(now).date() else "%F %H:%M")


def test_tonight_says_which_window_it_counted_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `--tonight` printed the standings with no word of the time they cover: since the server
    # started (when?), the evening it went on with after a restart, or the last 12 hours.
    from server import standings_cli

    now = time.time()
    db = tmp_path / "s.db"
    store = Store(db)
    ended_matches(store, {"random": now - 5 * 3600, "heuristic": now - 60})
    store.close()
    hhmm = r"(\d{4}-\d\d-\d\d )?\d\d:\d\d"
    for started, window_start, why in (
        (None, None, "the last 12 hours: no server running on this database was found"),
        (now - 3600 * 20, None, "the last 12 hours: the server started longer ago, at {}"),
        # Started 4 hours after the last match ended: a new evening.
        (now - 3600, now - 3600, "since the server on this database started, at {}"),
        # Restarted an hour after a match ended: it goes on with that evening.
        (
            now - 4 * 3600,
            now - 5 * 3600,
            "the evening the server went on with when it restarted at {}",
        ),
    ):
        monkeypatch.setattr(standings_cli, "server_started", lambda path, at=started: at)
        assert main(["standings", "--db", str(db), "--tonight"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert all(len(line) <= 80 for line in lines), lines
        begin = hhmm if window_start is None else re.escape(_clock(window_start, now))
        window = rf"tonight: matches that ended from {begin} to \d\d:\d\d \(local time\),"
        assert re.fullmatch(window, lines[0]), lines
        assert lines[1] == "  " + why.format(started and _clock(started, now)), lines
        assert lines[2].split()[:2] == ["#", "player"], lines
    # The header at its longest (every time with its day) fits 80 columns too.
    late = datetime(2026, 12, 7, 0, 30).timestamp()
    reader = Reader.open(db)
    try:
        since, why = standings_cli.tonight_window(reader, late - 3 * 86400, late)
    finally:
        reader.close()
    header = standings_cli.tonight_header(since, why, late).splitlines()
    assert header == [
        "tonight: matches that ended from 2026-12-06 12:30 to 00:30 (local time),",
        "  the last 12 hours: the server started longer ago, at 2026-12-04 00:30",
    ]
    with pytest.raises(SystemExit):
        main(["standings", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "the table's header says which: from when to when, local time, and why" in said


class _ClosedPipe:
    """A stdout whose reader went away (``sheepshead standings | head -3``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        raise OSError("no file descriptor")

    def isatty(self) -> bool:
        return False


def test_standings_into_a_pipe_closed_early_end_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host's `sheepshead standings | head -5` ended in a BrokenPipeError traceback.
    db = tmp_path / "s.db"
    store = Store(db)
    ended_matches(store, {"random": time.time() - 60})
    store.close()
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    assert main(["standings", "--db", str(db)]) == 1


def test_a_folder_an_empty_file_or_a_filter_that_leaves_nobody_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --db of a folder said "no database at ..." (exit 1), an empty file and a filter that
    # left nobody said "no finished matches with remembered players yet", and --min-hands -1
    # was taken.
    assert main(["standings", "--db", str(tmp_path)]) == 2
    assert f"--db {tmp_path} is a directory" in capsys.readouterr().err
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert main(["standings", "--db", str(empty)]) == 1
    assert "is empty: no server's database" in capsys.readouterr().err
    db = tmp_path / "s.db"
    store = Store(db)
    ended_matches(store, {"random": time.time() - 60})
    store.close()
    assert main(["standings", "--db", str(db), "--by", "per-hand"]) == 0
    assert "no player has 10 hands yet (1 with fewer)" in capsys.readouterr().out
    assert main(["standings", "--db", str(db), "--since", "2099-01-01"]) == 0
    assert "since 2099-01-01" in capsys.readouterr().out
    assert main(["standings", "--db", str(db), "--min-hands", "-1"]) == 2
    assert "--min-hands must be 0 or more" in capsys.readouterr().err
