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
