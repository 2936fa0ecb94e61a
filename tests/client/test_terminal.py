"""The client leaves when its terminal goes away (client/terminal.py).

The real client runs in a real pseudo-terminal: ``sheepshead play --memory`` with its embedded
server and bots, as a player starts it. The terminal then hangs up under it (its other end
closes, as when an SSH connection drops or a tmux server is killed) or SIGHUP arrives; either
way the client must exit with 129 instead of living on at full speed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.terminal import HANGUP_EXIT_CODE, can_suspend, hung_up

ROOT = Path(__file__).resolve().parents[2]
STARTED = b"Sheepshead"
"""In the table screen's title bar: the app is up and watching its terminal."""


def test_a_terminal_hangs_up_when_its_other_end_closes() -> None:
    controller, terminal = pty.openpty()
    try:
        assert not hung_up(terminal)
        os.write(controller, b"q")  # a pending key is not a hang-up, and is not read
        assert not hung_up(terminal)
        os.close(controller)
        assert hung_up(terminal)
    finally:
        os.close(terminal)


def _drain(controller: int, until: float, want: bytes | None = None) -> bytes:
    """Read what the client writes until ``want`` shows up or the clock passes ``until``."""
    seen = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([controller], [], [], 0.1)
        if not ready:
            continue
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the client closed its side
            break
        if not chunk:
            break
        seen += chunk
        if want is not None and want in seen:
            break
    return seen


class Controller:
    """Our end of the pseudo-terminal; closing it is the hang-up."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.open = True

    def close(self) -> None:
        """Close our end, once (a second close could hit a descriptor reused meanwhile)."""
        if self.open:
            self.open = False
            os.close(self.fd)


def _take_as_controlling_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _start_on_a_terminal(
    command: list[str], data_dir: Path, *, controlling: bool, **env_extra: str
) -> tuple[subprocess.Popen[bytes], Controller]:
    """``command`` on a new 80x24 pseudo-terminal, in a session of its own; the terminal is
    its controlling one when ``controlling``. Returns the process and our end."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {
        **os.environ,
        "SHEEPSHEAD_DATA_DIR": str(data_dir),
        "TERM": "xterm-256color",
        **env_extra,
    }
    env.pop("TEXTUAL", None)
    proc = subprocess.Popen(
        command,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        cwd=ROOT,
        env=env,
        start_new_session=True,
        preexec_fn=_take_as_controlling_terminal if controlling else None,
    )
    os.close(terminal)
    return proc, Controller(controller)


@pytest.fixture(params=["controlling", "not controlling"])
def client(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[bytes], Controller]]:
    """``sheepshead play --memory`` on a new pseudo-terminal of 80x24, up and drawing.

    As the controlling terminal of the client's session (as under SSH or tmux, where a hang-up
    also sends SIGHUP and SIGCONT), or not (where it sends nothing).
    """
    proc, ours = _start_on_a_terminal(
        [sys.executable, "-m", "client.cli", "play", "--memory", "--name", "pat"],
        tmp_path,
        controlling=request.param == "controlling",
    )
    controller = ours.fd
    try:
        shown = _drain(controller, time.monotonic() + 60, want=STARTED)
        assert STARTED in shown, shown[-500:]
        yield proc, ours
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        ours.close()


def test_the_client_leaves_when_its_terminal_hangs_up(
    client: tuple[subprocess.Popen[bytes], Controller],
) -> None:
    proc, controller = client
    _drain(controller.fd, time.monotonic() + 1)  # a moment of play
    controller.close()
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the client lived on after its terminal hung up")
    assert code == HANGUP_EXIT_CODE


def test_the_client_leaves_on_sighup(client: tuple[subprocess.Popen[bytes], Controller]) -> None:
    proc, controller = client
    proc.send_signal(signal.SIGHUP)
    _drain(controller.fd, time.monotonic() + 20)  # it restores the screen on its way out
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pytest.fail("the client lived on after SIGHUP")
    assert code == HANGUP_EXIT_CODE


def test_ctrl_z_suspends_the_client_and_fg_brings_it_back(tmp_path: Path) -> None:
    """In a shell with job control, as a player runs it: Ctrl+Z stops the client and gives the
    shell back; ``fg`` resumes it and it draws its screen again. The terminal is in raw mode,
    so the key reaches the app, not the kernel: without a binding nothing happens."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("needs bash for job control")
    shell, ours = _start_on_a_terminal(
        [bash, "--norc", "--noprofile", "-i"], tmp_path, controlling=True, PS1="shell> "
    )
    controller = ours.fd
    try:
        assert b"shell> " in _drain(controller, time.monotonic() + 20, want=b"shell> ")
        command = f"{shlex.quote(sys.executable)} -m client.cli play --memory --name pat\n"
        os.write(controller, command.encode())
        shown = _drain(controller, time.monotonic() + 60, want=STARTED)
        assert STARTED in shown, shown[-500:]
        os.write(controller, b"\x1a")  # Ctrl+Z
        shown = _drain(controller, time.monotonic() + 20, want=b"shell> ")
        assert b"Stopped" in shown, shown[-500:]
        os.write(controller, b"fg\n")
        shown = _drain(controller, time.monotonic() + 20, want=STARTED)
        assert STARTED in shown, shown[-500:]
        os.write(controller, b"\x03")  # Ctrl+C: the client quits, the shell prompts again
        shown = _drain(controller, time.monotonic() + 20, want=b"shell> ")
        assert b"shell> " in shown, shown[-500:]
        os.write(controller, b"exit\n")
        assert shell.wait(timeout=10) == 0
    finally:
        if shell.poll() is None:
            shell.kill()
            shell.wait()
        ours.close()


def test_ctrl_z_suspends_only_a_shells_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client in its session leader's process group (tmux or a terminal running the command
    itself; the SSH door's child, which leads its own session) has no shell to come back to:
    help named Ctrl+Z there, and in the SSH door the key froze the session."""
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(os, "getsid", lambda _pid: 100)
    monkeypatch.setattr(os, "getpgrp", lambda: 100)
    assert not can_suspend()
    monkeypatch.setattr(os, "getpgrp", lambda: 200)  # a job of a shell
    assert can_suspend()
    # The browser door's driver cannot suspend.
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert not can_suspend()
