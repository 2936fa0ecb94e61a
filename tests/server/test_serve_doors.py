"""``sheepshead serve --ssh PORT --web PORT``: the real command, its message, its stop."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from client.cli import main
from server import cli
from tests.server.support import BUILD, serve_banner, start_serve


def test_door_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--ssh", "70000"]) == 2
    assert "--ssh must be 0-65535" in capsys.readouterr().err
    assert main(["serve", "--ssh-keys", "/nonexistent"]) == 2
    assert "--ssh-keys needs --ssh PORT" in capsys.readouterr().err


def test_door_lines_name_every_address_and_the_fingerprint() -> None:
    lines = cli.door_lines("127.0.0.1", 2222, "SHA256:abc", 8080)
    assert "  ssh -p 2222 NAME@127.0.0.1" in lines
    assert "  (host key fingerprint SHA256:abc)" in lines
    assert "  http://127.0.0.1:8080/" in lines
    assert cli.door_lines("127.0.0.1", None, None, None) == []


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
            found += [int(p) for p in f.read().split()]
    return found


def test_serve_opens_both_doors_prints_them_and_stops_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "data" / "s.db"
    server = start_serve(
        *("--port", "0", "--ssh", "0", "--web", "0", "--db", str(db), "--log-level", "warning")
    )
    try:
        text = serve_banner(server)
        ssh = re.search(r"SSH door on port (\d+)", text)
        web = re.search(r"browser door on port (\d+)", text)
        assert ssh and web, text
        assert f"server code: {BUILD}" in text, text
        assert f"ssh -p {ssh.group(1)} NAME@127.0.0.1" in text
        assert f"http://127.0.0.1:{web.group(1)}/" in text
        assert re.search(r"host key fingerprint SHA256:[A-Za-z0-9+/]{43}\)", text), text
        assert (db.parent / "ssh_host_ed25519_key").stat().st_mode & 0o077 == 0
        assert _children(server.pid) == []  # no session, no client process
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
        assert server.returncode == 0
        assert "server stopped" in out
        assert "Warning" not in err, err  # asyncssh's DSA deprecations were ten lines of it
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
