"""``sheepshead serve``: options, help, the startup message."""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path

import platformdirs
import pytest

from client.cli import main
from server import cli
from server.config import ServerConfig


def test_every_option_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    options = ("--host", "--port", "--db", "--sync", "--log-level", "--bot-delay", "--hand-pause")
    for option in options:
        assert option in out
    assert "make compiled" in out  # where a big host learns of the compiled build
    parser = argparse.ArgumentParser()
    cli.configure(parser, "serve")
    for action in parser._actions:
        assert action.help, action.dest
    args = parser.parse_args([])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 7453, None)


def test_database_defaults_to_the_user_data_dir() -> None:
    path = cli.default_db_path()
    assert path.name == "sheepshead.db"
    assert str(path.parent) == platformdirs.user_data_dir("sheepshead")


def test_startup_message_names_the_database_and_how_to_join() -> None:
    local = cli.startup_message("127.0.0.1", 7453, "/data/s.db")
    assert "listening on 127.0.0.1:7453" in local and "database: /data/s.db" in local
    assert "sheepshead join 127.0.0.1:7453" in local
    everywhere = cli.startup_message("0.0.0.0", 9000, "/data/s.db")
    for address in cli.lan_addresses():
        assert f"sheepshead join {address}:9000" in everywhere
    assert "127.0.0.1:9000" in everywhere
    assert "server code: pure Python" in local
    assert "server code: compiled" in cli.startup_message("127.0.0.1", 1, "/d.db", "compiled")


def test_code_build_names_the_build_that_runs() -> None:
    # make test runs this file twice: on the checkout, then on build/compiled (compiled-test).
    compiled = os.environ.get("SHEEPSHEAD_EXPECT_COMPILED") == "1"
    assert cli.code_build() == ("compiled" if compiled else "pure Python")


def test_lan_addresses_are_ipv4_and_not_loopback() -> None:
    for address in cli.lan_addresses():
        socket.inet_aton(address)
        assert not address.startswith("127.")


def test_a_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_bot_workers_out_of_range_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--bot-workers", "-1"]) == 2
    assert "--bot-workers" in capsys.readouterr().err
    parser = argparse.ArgumentParser()
    cli.configure(parser, "serve")
    assert parser.parse_args(["--bot-workers", "3"]).bot_workers == 3
    assert parser.parse_args([]).bot_workers is None  # the server's default: cores minus one


def test_a_database_that_cannot_be_opened_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_db = tmp_path / "junk.db"
    not_a_db.write_bytes(b"this is not a database" * 100)
    assert main(["serve", "--port", "0", "--db", str(not_a_db), "--log-level", "error"]) == 1
    err = capsys.readouterr().err
    assert "cannot use the database" in err and str(not_a_db) in err


def test_a_database_path_it_cannot_use_is_named_not_the_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "cannot start on 127.0.0.1:0: [Errno 2] No such file or directory: ..." blamed the
    # address for a --db in a folder that cannot be made; a directory or "" as --db started
    # (the empty one on the default database).
    blocked = tmp_path / "file"
    blocked.write_text("")
    db = blocked / "sub" / "s.db"  # its folder cannot be made: a file is in the way
    assert main(["serve", "--port", "0", "--db", str(db), "--log-level", "error"]) == 1
    err = capsys.readouterr().err
    assert f"cannot use the database {db}: Not a directory" in err and "listen" not in err
    for given, said in ((str(tmp_path), "is a directory"), ("", "--db is empty"), (" ", "empty")):
        assert main(["serve", "--port", "0", "--db", given]) == 2
        err = capsys.readouterr().err
        assert said in err and "give the database's file" in err


def test_a_port_in_use_is_said_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = str(tmp_path / "s.db")
        assert main(["serve", "--port", str(port), "--db", db, "--log-level", "error"]) == 1
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in err
    assert "Errno" not in err


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--hand-pause", "-1"),
        ("--trick-pause", "1e9"),
        ("--bot-delay", "nan"),
        ("--name", "\u200b"),
    ],
)
def test_pauses_and_names_that_cannot_work_are_refused(
    option: str, value: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # --hand-pause 1e9 started a server whose first hand never ended; --name of invisible
    # characters announced a name nobody could read.
    async def started(args: argparse.Namespace) -> int:
        return 0  # what a server that started and was stopped says

    monkeypatch.setattr(cli, "_serve", started)
    code = 0
    try:
        code = main(["serve", option, value, "--port", "0"])
    except SystemExit as exc:
        code = int(str(exc.code))
    assert code == 2
    err = capsys.readouterr().err
    assert option in err and ("seconds" in err or "shows nothing" in err)


def test_sync_full_reaches_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--sync full``: every commit waits for the disk (README.md, "What a crash can take")."""
    from server.app import Server

    original_start = Server.start
    seen: list[int] = []

    async def start_then_stop(self: Server) -> None:
        await original_start(self)
        assert self.store is not None
        seen.append(self.store._db.execute("PRAGMA synchronous").fetchone()[0])
        await self.stop()
        raise RuntimeError("stopped by the test")

    monkeypatch.setattr(Server, "start", start_then_stop)
    db = str(tmp_path / "s.db")
    assert main(["serve", "--port", "0", "--db", db, "--sync", "full", "--log-level", "error"]) == 1
    assert main(["serve", "--port", "0", "--db", db, "--log-level", "error"]) == 1
    assert seen == [2, 1]  # FULL, then the default NORMAL
    with pytest.raises(SystemExit):
        main(["serve", "--sync", "sometimes"])


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.configure(parser, "serve")
    args = parser.parse_args(list(argv))
    args.bot_modules = ()
    return args


def test_limit_sets_any_numeric_server_limit_and_may_be_repeated() -> None:
    """A club whose players all share one address could not get more than 4 of them through a
    door, and ``serve`` had no way to raise any limit: ``--limit NAME=VALUE`` sets any."""
    args = _serve_args(
        "--limit",
        "door_sessions_per_address=24",
        "--limit",
        "door_start_burst=30.5",
        "--limit",
        "max-per-address=48",
        "--limit",
        "door_sessions_per_address=20",  # the last one wins
    )
    config = cli.server_config(args, Path("/tmp/s.db"))
    assert config.door_sessions_per_address == 20
    assert config.door_start_burst == 30.5 and config.max_per_address == 48
    assert config.door_sessions == ServerConfig().door_sessions  # the rest keep their defaults
    assert cli.server_config(_serve_args(), Path("/tmp/s.db")).door_sessions_per_address == (
        ServerConfig().door_sessions_per_address
    )
    assert {"door_sessions_per_address", "web_request_burst", "match_end_rate"} <= set(
        cli.limit_names()
    )
    assert "host" not in cli.limit_names() and "bot_workers" not in cli.limit_names()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nope=3", "no limit named 'nope'; the names"),
        ("door_sessions", "is not NAME=VALUE"),
        ("door_sessions=x", "door_sessions must be a whole number"),
        ("door_sessions=2.5", "door_sessions must be a whole number"),
        ("door_start_rate=fast", "door_start_rate must be a number"),
        ("door_sessions=-1", "must be 0 or more"),
        ("door_start_rate=inf", "must be 0 or more"),
        ("door_start_rate=nan", "must be 0 or more"),
        ("hand_pause=1", "hand_pause has an option of its own: --hand-pause"),
    ],
)
def test_a_bad_limit_is_refused_saying_why(
    given: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--limit", given])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --limit" in err and said in err
    if "no limit named" in said:
        assert "door_sessions_per_address" in err and "web_request_burst" in err


def test_the_limit_option_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--limit NAME=VALUE" in out and "door_sessions_per_address=24" in out


def test_the_bot_file_option_names_outside_programs(capsys: pytest.CaptureFixture[str]) -> None:
    """``--bot-file ./mybot.js`` serves a program as a server bot (docs/bots.md, "A bot in any
    language"); the help named only Python files, so a reader of it would not try one."""
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    bot_file = out.split("--bot-file FILE", 2)[2].split("--bot-workers", 1)[0]
    assert "PATH.py" in bot_file and "program" in bot_file and "A bot in any language" in bot_file


def test_doors_that_cannot_open_name_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "cannot open the doors: No valid entries found" named no file; a door's port in use
    # said "[Errno 98] error while attempting to bind on address ...", naming no door.
    db = str(tmp_path / "s.db")
    keys = tmp_path / "keys"
    keys.write_text("root:x:0:0:root:/root:/bin/bash\n")
    base = ["serve", "--port", "0", "--db", db, "--log-level", "error"]
    assert main([*base, "--ssh", "0", "--ssh-keys", str(keys)]) == 1
    err = capsys.readouterr().err
    assert f"cannot open the doors: --ssh-keys {keys}: No valid entries found" in err
    assert main([*base, "--ssh", "0", "--ssh-keys", str(tmp_path / "none")]) == 1
    assert f"--ssh-keys {tmp_path / 'none'}: No such file or directory" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main([*base, "--web", str(port)]) == 1
    err = capsys.readouterr().err
    assert f"cannot open the doors: --web {port}: the port is in use" in err
    assert "Errno" not in err
