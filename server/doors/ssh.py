"""The SSH door: ``sheepshead serve --ssh PORT`` lets anyone play with nothing but ``ssh``.

Built on asyncssh. Any key logs in (or only the keys of ``--ssh-keys FILE``, an
``authorized_keys`` file); passwords are off, and keyboard-interactive only says why a login
without a usable key is refused. The SSH user name
is the display name and the key's SHA-256 fingerprint says who the player is: a key that has
taken a seat has a directory beside the database (``ssh-players/<hash of the fingerprint>``)
that is the home of its client, so the seat tokens and the player key kept there follow the key
from any machine. A key's first sessions run in a throwaway home (one for all of them while
any is open), kept (moved there) only if the player took a seat: a fresh key per login leaves
nothing behind. The server tags the player with the key's fingerprint in the standings
(``door_player``) as soon as the client files its first seat token there
(:data:`SEAT_WATCH`), and at each later session's start. A key's new session whose client
would take over, with that home's seat token, a seat whose connection is up (another window
of the player) asks first where the seat goes (:data:`ANOTHER_WINDOW`); when none of the key's
other sessions answers a keepalive within :data:`LINK_CHECK`, their link has dropped, and the
seat comes without a question.

A session must ask for a pty. The door then runs ``sheepshead join`` in a child process (niced,
under a data cap: ``server.doors.child``) on a pseudo-terminal of the session's size, clamped to
``door_max_columns`` by ``door_max_rows`` (:class:`PtyChild`), passes keystrokes and window
changes on, and ends the child with the session and the session with the child. Every channel
request counts against the session's allowance before asyncssh parses it (:class:`_Channel`): a
session that floods them is closed. Shell commands
(``ssh host cmd``), subsystems (sftp), port forwarding, agent and X11 forwarding are refused.
The host key (ed25519) is made on first start in the data directory; its fingerprint is
printed with the addresses so players can check it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import pty
import shutil
import signal
import struct
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import asyncssh
from asyncssh.constants import (
    MSG_CHANNEL_REQUEST,
    MSG_DEBUG,
    MSG_GLOBAL_REQUEST,
    MSG_KEXINIT,
    MSG_UNIMPLEMENTED,
    MSG_USERAUTH_REQUEST,
)

from client.session import (
    DOOR_FINGERPRINT_ENV,
    DOOR_LOBBY_ONLY_ENV,
    DOOR_SEAT_TOKEN_ENV,
    token_digest,
)
from server.doors.kit import (
    LINK_CHECK,
    OTHER_WINDOW_GONE,
    SEAT_STAYS,
    DoorGate,
    DoorServer,
    another_window,
    child_environment,
    choice_of,
    client_command,
    player_name,
    tokens_named,
    wait_for_choice,
)
from server.net.limits import TokenBucket, client_address

log = logging.getLogger("sheepshead.ssh")

HOST_KEY_FILE: Final = "ssh_host_ed25519_key"
"""The host key's file in the data directory."""

PLAYERS_DIR: Final = "ssh-players"
"""The directory (in the data directory) holding one home per SSH key."""

KILL_AFTER: Final = 2.0
"""Seconds a child has to quit after SIGHUP before it is killed."""

INPUT_BACKLOG: Final = 64 * 1024
"""Keystroke bytes waiting for a child that does not read them, past which the session stops
taking more (the SSH window then holds the client back)."""

NEEDS_PTY: Final = (
    "sheepshead needs a terminal: connect with a plain `ssh -p PORT NAME@HOST`\r\n"
    "(or add -t), not a command or a pipe.\r\n"
)
NO_COMMANDS: Final = (
    "This server only plays sheepshead: commands are not run.\r\n"
    "Connect with `ssh -p PORT NAME@HOST`.\r\n"
)
NO_FORWARDING: Final = "Port forwarding is off on this server: it only plays sheepshead."
TOO_MANY_RESIZES: Final = (
    "\r\nsheepshead: this session sent window changes (or other requests) faster than\r\n"
    "any terminal does, and was closed.\r\n"
)
CLOSE_AFTER_EXIT: Final = 5.0
"""Seconds the door waits, once the client has exited, for its last output to move on (from the
terminal, then out of the channel) and for the SSH client to close the channel: the wait starts
again while bytes keep moving (a slow reader gets everything), up to :data:`CLOSE_AFTER_EXIT_MAX`;
once nothing moved for this long, the connection is closed anyway."""
CLOSE_AFTER_EXIT_MAX: Final = 60.0
"""The longest the door keeps a connection for the last output of a client that has exited."""
CLOSE_AFTER_CHANNEL: Final = 5.0
"""Seconds the door leaves a connection whose game is over and whose channel has closed for the
SSH client to close it (OpenSSH does at once) before closing it itself. A client may answer the
channel's close before it has shown all the output it received (asyncssh does, with its reading
paused), and a disconnect makes it drop that: the terminal restore, last, was lost (the
player's terminal left in the game's screen), whenever that output was all in flight."""
SEAT_WATCH: Final = 2.0
"""Seconds between the door's looks for the first seat token in a key's throwaway home: once
the client has filed one, the server knows the player key (the seat stored it), and the door
tells it the key's fingerprint (``door_player``). The door told it only when the key's first
session ended (the home was kept), so a new player showed for their whole first evening as a
bare player key ("bob 3b295660"), not the SSH key they are known by from then on. A hand takes
longer than this; a look is one ``stat``."""
SEAT_ASKS: Final = 4
"""The most times the door asks the server, while a throwaway home is in use, to tag its
player key (``door_player``, each for a new seat token the client filed there): an ask the
server answers "unknown" (a key past its address's allowance of new players is not counted;
a later seat may be) is asked again at the next seat, but a player who sits and leaves in a
loop does not make the door ask at each seat. The session's end asks once more, as before."""
ONE_SESSION: Final = "One game at a time per SSH connection."
MESSAGE_COLUMNS: Final = 78
"""The longest line of a message the door writes to a player's terminal: an 80-column
terminal breaks a longer one wherever it reaches the edge, mid-word."""
SHUTTING_DOWN: Final = (
    "\r\nThe sheepshead server is shutting down (or restarting): connect again in a\r\n"
    "minute (a seat you hold is kept).\r\n"
)
"""Said to each session as the server stops: else ``ssh`` said only 'Connection closed'.
Every message of the door to a terminal is cut in lines of at most :data:`MESSAGE_COLUMNS`
(this one ran past 80 columns and was broken mid-word: 'in a minut' / 'e')."""
ANOTHER_WINDOW: Final = another_window("(another SSH session of\r\nthis key)", "quit")
"""Asked of a new session whose client would take over, with the key's seat token, a seat
whose connection is up (``server.doors.kit.another_window``, the browser door's question too).
``{table}`` is the table's name (at most 40 characters), ``{seat}`` the seat."""
NEEDS_A_KEY: Final = (
    "sheepshead lets you in with an SSH key, not a password: the key is who you\n"
    "are. No key yet? Make one with `ssh-keygen -t ed25519` (Enter at each\n"
    "question), then connect again."
)
"""Shown to a login that offered no key (``ssh`` prints it before 'Permission denied')."""
KEY_NOT_LISTED: Final = (
    "This server lets in only the SSH keys its host listed, and not the one you\n"
    "offered: send your public key (the .pub file) to the host."
)
"""Shown to a login whose keys ``--ssh-keys`` does not list."""


def load_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """The door's host key, made (ed25519, mode 0600) the first time."""
    path = data_dir / HOST_KEY_FILE
    if path.exists():
        return asyncssh.read_private_key(path)
    data_dir.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="sheepshead host key")
    fd = os.open(path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.export_private_key())
    os.replace(path.with_suffix(".tmp"), path)
    log.info("made the SSH host key %s (%s)", path, key.get_fingerprint("sha256"))
    return key


def player_home(data_dir: Path, fingerprint: str) -> Path:
    """The home directory of the client run for the SSH key with ``fingerprint``."""
    digest = hashlib.sha256(fingerprint.encode("ascii")).hexdigest()[:32]
    return data_dir / PLAYERS_DIR / digest


PENDING_DIR: Final = ".pending"
"""Below :data:`PLAYERS_DIR`: the homes of keys that have not sat yet, while their session
runs. They are kept beside the players' directories, not in the system's temporary directory:
a door killed (``kill -9``, a crash, its terminal closed) while such a player sat left the
seat token and the player key in a temporary directory nobody looked at again, and the
player, back with the same key, found their seat "away" and no way to take it back."""

FINGERPRINT_FILE: Final = "fingerprint"
"""The file in a player's (or a pending) home that names its key's fingerprint."""


def new_pending_home(data_dir: Path, fingerprint: str) -> Path:
    """A fresh home for a key that has never sat (:data:`PENDING_DIR`), naming its key."""
    pending = data_dir / PLAYERS_DIR / PENDING_DIR
    pending.mkdir(parents=True, exist_ok=True, mode=0o700)
    home = Path(tempfile.mkdtemp(dir=pending))
    (home / FINGERPRINT_FILE).write_text(fingerprint + "\n", encoding="ascii")
    return home


def keep_pending_home(path: Path, data_dir: Path, fingerprint: str) -> Path | None:
    """Move the pending home ``path`` to its key's directory if its player took a seat (the
    client filed a seat token) and the key has none yet, and return it; delete it otherwise."""
    home = player_home(data_dir, fingerprint)
    kept = None
    try:
        if (path / "config" / "sheepshead" / "tokens.json").exists() and not home.exists():
            home.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            shutil.move(path, home)
            (home / FINGERPRINT_FILE).write_text(fingerprint + "\n", encoding="ascii")
            kept = home
    except OSError:
        log.exception("ssh: cannot keep the home of %s", fingerprint)
    finally:
        shutil.rmtree(path, ignore_errors=True)
        with contextlib.suppress(OSError):  # the last one gone: no empty folder left behind
            path.parent.rmdir()
    return kept


def adopt_pending_homes(data_dir: Path) -> int:
    """At a door's start, settle the pending homes a door that was killed left behind (no
    session of this door runs in any): each whose player sat becomes its key's home; the rest
    are deleted. Returns how many became homes."""
    pending = data_dir / PLAYERS_DIR / PENDING_DIR
    if not pending.is_dir():
        return 0
    adopted = 0
    for path in pending.iterdir():
        try:
            fingerprint = (path / FINGERPRINT_FILE).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            fingerprint = ""
        if not fingerprint.startswith("SHA256:"):
            shutil.rmtree(path, ignore_errors=True)
            continue
        if keep_pending_home(path, data_dir, fingerprint) is not None:
            adopted += 1
    with contextlib.suppress(OSError):
        pending.rmdir()
    return adopted


def _take_terminal() -> None:  # pragma: no cover - runs in the child, between fork and exec
    """Make the pty (stdin) the child's controlling terminal, so window changes reach it."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyChild:
    """A child process on a new pseudo-terminal: output out, input in, resizes, a clean end.

    The child leads a session of its own (its process group is its pid), so ending it ends
    whatever it started too. ``on_output`` gets what it writes; ``on_exit`` its exit status,
    once its last output has been passed on.
    """

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int],
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
    ) -> None:
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.size = size
        self.on_output = on_output
        self.on_exit = on_exit
        self.process: asyncio.subprocess.Process | None = None
        self._master: int | None = None
        self._reading = False
        self._pending = b""
        self._eof = asyncio.Event()
        self._waiter: asyncio.Task[None] | None = None
        self.output_taken = 0
        """Bytes of output read from the terminal so far."""
        self.delivered: Callable[[], int] | None = None
        """Bytes of output that have reached the SSH client so far (None: not known)."""
        self.on_input_drained: Callable[[], None] | None = None
        """Called once everything written has reached the terminal."""

    @property
    def pid(self) -> int | None:
        """The child's process id (None before it started)."""
        return None if self.process is None else self.process.pid

    async def start(self) -> None:
        """Open the pty and start the child on it."""
        master, slave = pty.openpty()
        self._master = master
        self.resize(*self.size)
        os.set_blocking(master, False)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,
                preexec_fn=_take_terminal,
            )
        except BaseException:
            os.close(master)
            self._master = None
            raise
        finally:
            os.close(slave)
        self.resume_reading()
        self._waiter = asyncio.create_task(self._wait())

    def resize(self, columns: int, rows: int) -> None:
        """Set the pty's size (the child gets SIGWINCH)."""
        self.size = (columns, rows)
        if self._master is not None and columns > 0 and rows > 0:
            with contextlib.suppress(OSError):
                fcntl.ioctl(
                    self._master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0)
                )

    @property
    def input_backlog(self) -> int:
        """Bytes written that the terminal has not taken yet."""
        return len(self._pending)

    def write(self, data: bytes) -> None:
        """Type ``data`` into the child's terminal."""
        if self._master is None:
            return
        self._pending += data
        self._flush_input()

    def _flush_input(self) -> None:
        master = self._master
        if master is None:
            return
        loop = asyncio.get_running_loop()
        while self._pending:
            try:
                sent = os.write(master, self._pending)
            except BlockingIOError:
                loop.add_writer(master, self._flush_input)
                return
            except OSError:
                self._pending = b""
                break
            self._pending = self._pending[sent:]
        loop.remove_writer(master)
        if self.on_input_drained is not None:
            self.on_input_drained()

    def pause_reading(self) -> None:
        """Stop taking output (the SSH client is not keeping up; the child then waits)."""
        if self._reading and self._master is not None:
            asyncio.get_running_loop().remove_reader(self._master)
            self._reading = False

    def resume_reading(self) -> None:
        """Take output again."""
        if not self._reading and self._master is not None and not self._eof.is_set():
            asyncio.get_running_loop().add_reader(self._master, self._readable)
            self._reading = True

    def _readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: every process holding the terminal's other side has gone
            data = b""
        if data:
            self.output_taken += len(data)
            self.on_output(data)
            return
        self.pause_reading()
        self._eof.set()

    async def _wait(self) -> None:
        assert self.process is not None
        status = await self.process.wait()
        # The rest of its output first: a slow reader holds it back (the channel's window), so
        # wait while it moves; still bounded, since a grandchild could keep the terminal open.
        loop = asyncio.get_running_loop()
        give_up = loop.time() + CLOSE_AFTER_EXIT_MAX
        while not self._eof.is_set() and loop.time() < give_up:
            moved = self._moved()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._eof.wait(), CLOSE_AFTER_EXIT)
            if self._moved() == moved:
                break
        self._close_master()
        self.on_exit(status)

    def _moved(self) -> int:
        """A count that grows while the output moves on: read from the terminal (which stops
        while the channel is full), or taken by the SSH client."""
        return self.output_taken + (self.delivered() if self.delivered is not None else 0)

    def _close_master(self) -> None:
        master, self._master = self._master, None
        if master is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(master)
            loop.remove_writer(master)
            self._reading = False
            os.close(master)

    async def terminate(self) -> None:
        """End the child (SIGHUP to its process group, SIGKILL after :data:`KILL_AFTER`)."""
        process = self.process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGHUP)
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), KILL_AFTER)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._waiter is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._waiter
        self._close_master()


class _Session(asyncssh.SSHServerSession[bytes]):
    """One session channel: a pty and a shell get a game; anything else a message."""

    def __init__(self, login: _Login) -> None:
        self.login = login
        self.door = login.door
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term: str | None = None
        self.refusal: str | None = None
        self.child: PtyChild | None = None
        self.size = (80, 24)
        """The terminal's size (columns, rows), clamped to the door's maximum."""
        self._size_later: asyncio.TimerHandle | None = None
        self._within = True
        """Whether the last channel request was within the allowance."""
        self.input_paused = False
        """Whether the channel stopped reading keystrokes for the child to catch up."""
        self.exited = False
        """The child has exited and its status was sent."""
        self.written = 0
        """Bytes of the child's output written to the channel."""
        self.answer: asyncio.Future[str] | None = None
        """Waits for the player's key while the door asks where their seat goes
        (:data:`ANOTHER_WINDOW`): "take", "lobby" or "quit"."""

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        """The channel is open."""
        self.chan = chan

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any
    ) -> bool:
        """Accept the pty; the child's terminal gets its type and (clamped) size."""
        self.term = term_type or "xterm-256color"
        self.size = self.door.clamp(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        """What a plain ``ssh host`` asks for: the game."""
        return True

    def exec_requested(self, command: str) -> bool:
        """``ssh host command``: accepted only to say that commands are not run."""
        log.info("ssh %s: command refused: %r", self.login.address, command[:80])
        self.refusal = NO_COMMANDS
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        """sftp and the like: refused."""
        log.info("ssh %s: subsystem refused: %r", self.login.address, subsystem[:40])
        return False

    def session_started(self) -> None:
        """Start the game, or say why not and close."""
        chan = self.chan
        assert chan is not None
        if self.refusal is None and self.term is None:
            self.refusal = NEEDS_PTY
        if self.refusal is None:
            address = self.login.address
            refused = self.door.gate.start(address)
            if refused is not None:
                self.door.server.log_refusal(address, f"SSH: {refused}")
                self.refusal = refused + "\r\n"
        if self.refusal is not None:
            chan.write_stderr(self.refusal.encode())
            chan.exit(1)
            return
        self.door.spawn(self)

    def output(self, data: bytes) -> None:
        """The child wrote ``data`` (dropped once the channel is closing: a flood closed it)."""
        if self.chan is not None and not self.chan.is_closing():
            self.written += len(data)
            self.chan.write(data)

    def child_exited(self, status: int) -> None:
        """The client quit: send its exit status and close the session; the connection
        closes once the channel has, :data:`CLOSE_AFTER_CHANNEL` later at most
        (:meth:`connection_lost`). Closing the connection here
        would let its disconnect overtake the exit status, still queued behind the client's
        last output (``ssh`` then ends with 255, "Disconnected by application")."""
        if self.child is not None:
            self.door.children.discard(self.child)
        if self.chan is not None:
            self.exited = True
            with contextlib.suppress(Exception):
                if self.door.stopping:
                    self.chan.write_stderr(SHUTTING_DOWN.encode())
                self.chan.exit(max(0, status))
            loop = asyncio.get_running_loop()
            give_up = loop.time() + CLOSE_AFTER_EXIT_MAX
            loop.call_later(CLOSE_AFTER_EXIT, self._close_once_stalled, self.delivered(), give_up)

    def delivered(self) -> int:
        """Bytes of the child's output that have left the channel for the SSH client."""
        queued = self.chan.get_write_buffer_size() if self.chan is not None else 0
        return self.written - queued

    def _close_once_stalled(self, delivered_before: int, give_up: float) -> None:
        """Close the connection after an exit, unless the client is still taking the output
        queued for it (then look again later, up to ``give_up``). Once the channel has closed,
        :meth:`connection_lost` closes the connection (later: the client may still be showing
        what it received)."""
        if self.chan is None:
            return
        delivered = self.delivered()
        loop = asyncio.get_running_loop()
        still_taking = delivered_before < delivered < self.written
        if still_taking and loop.time() < give_up:
            loop.call_later(CLOSE_AFTER_EXIT, self._close_once_stalled, delivered, give_up)
        else:
            self.login.close()

    def data_received(self, data: bytes, datatype: Any) -> None:
        """Keystrokes: to the child; past :data:`INPUT_BACKLOG` not taken yet, the channel
        stops reading until the child has caught up (else the backlog was memory without
        bound)."""
        if self.answer is not None and not self.answer.done():
            choice = choice_of(data)
            if choice is not None:
                self.answer.set_result(choice)
            return
        child = self.child
        if child is None:
            return
        child.write(data)
        if child.input_backlog > INPUT_BACKLOG and self.chan is not None and not self.input_paused:
            self.input_paused = True
            self.chan.pause_reading()
            child.on_input_drained = self._input_drained

    def _input_drained(self) -> None:
        if self.input_paused:
            self.input_paused = False
            if self.chan is not None:
                self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        """The player resized the window: the child's terminal follows (clamped) if the request
        was within the session's allowance (:meth:`request_arrived`); else the latest size is
        applied when the allowance is back."""
        self.size = self.door.clamp(width, height)
        if self._within:
            self._apply_size()
        elif self._size_later is None:
            self._size_later = asyncio.get_running_loop().call_later(
                1.0 / max(self.login.requests.rate, 1e-3), self._apply_size
            )

    def _apply_size(self) -> None:
        self._size_later = None
        if self.child is not None:
            self.child.resize(*self.size)

    def request_arrived(self) -> bool:
        """Count a channel request (a window change, env, signal, break...) against the
        connection's allowance (:meth:`_Login.request_arrived`) before asyncssh parses it;
        False when the connection is flooding (it is being closed)."""
        allowed = self.login.request_arrived()
        self._within = allowed and self.login.requests.tokens >= 0
        return allowed

    def flooded(self) -> None:
        """The connection is being closed for a flood: say why, on the player's terminal."""
        if self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.write_stderr(TOO_MANY_RESIZES.encode())
                self.chan.exit(1)

    def pause_writing(self) -> None:
        """The SSH client is behind: stop reading the child's output."""
        if self.child is not None:
            self.child.pause_reading()

    def resume_writing(self) -> None:
        """The SSH client caught up."""
        if self.child is not None:
            self.child.resume_reading()

    def eof_received(self) -> bool:
        """The client closed its input: close the session."""
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """The session is gone: end the child."""
        self.chan = None
        if self.answer is not None and not self.answer.done():
            self.answer.set_result("gone")
        if self._size_later is not None:
            self._size_later.cancel()
            self._size_later = None
        self.login.sessions -= 1
        self.login.session = None
        self.door.session_ended(self)
        if self.exited:  # the game is over: so is the connection, once the client let it go
            self.login.close_later(CLOSE_AFTER_CHANNEL)


async def _all_dropped(logins: list[_Login]) -> bool:
    """Whether none of ``logins`` answers a keepalive within :data:`LINK_CHECK`."""
    answers = await asyncio.gather(*(_answers(login) for login in logins))
    return not any(answers)


async def _answers(login: _Login) -> bool:
    """Whether the SSH client of ``login`` answers a keepalive within :data:`LINK_CHECK` (any
    answer, a refusal too: OpenSSH's client refuses the request, and that is an answer)."""
    conn = login.conn
    if conn is None or conn.is_closed():
        return False
    try:
        # asyncssh's own keepalives send this request; it has no public call for one.
        await asyncio.wait_for(
            conn._make_global_request(b"keepalive@openssh.com"),
            LINK_CHECK,
        )
    except (TimeoutError, asyncssh.Error, OSError):
        return False
    return True


class _Channel(asyncssh.SSHServerChannel[bytes]):
    """A session channel whose requests are metered before asyncssh parses them, and which
    keeps no environment from the client (the child's is the door's own)."""

    _session: _Session

    def _metered_request(self, pkttype: int, pktid: int, packet: Any) -> None:
        if self._session.request_arrived():
            self._process_request(pkttype, pktid, packet)

    # asyncssh dispatches packets through this table, not through method lookup.
    _packet_handlers = {  # noqa: RUF012 (asyncssh's table, typed by asyncssh)
        **asyncssh.SSHServerChannel._packet_handlers,
        MSG_CHANNEL_REQUEST: _metered_request,
    }

    def _process_env_request(self, packet: Any) -> bool:
        # asyncssh keeps every variable sent, without limit: a loop of them was memory.
        return False


class _Login(asyncssh.SSHServer):
    """One SSH connection: limits, public-key login, and what it may open."""

    def __init__(self, door: SSHDoor) -> None:
        self.door = door
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.admitted = False
        self.refusal: str | None = None
        self.username = ""
        self.fingerprint: str | None = None
        self.keys_refused = 0
        """Keys offered that ``--ssh-keys`` does not list (for the refusal's message)."""
        self.told = False
        """Whether the refusal's message was sent (keyboard-interactive, once)."""
        self.sessions = 0
        self.session: _Session | None = None
        config = door.server.config
        now = time.monotonic()
        self.requests = TokenBucket(config.ssh_request_rate, config.ssh_request_burst, now)
        """The connection's allowance of window changes and every other request."""
        self.rekeys = TokenBucket(config.ssh_rekey_rate, config.ssh_rekey_burst, now)
        """The connection's allowance of key exchanges (the first one included)."""
        self.flooded = False
        """Closed for a flood of requests (logged and told once)."""
        self.login_requests = 0
        """Login requests received (every method, the first ``none`` included)."""
        self._close_later: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        """Count it against the door limits."""
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.address = client_address(peer)
        server = self.door.server
        now = time.monotonic()
        if not server.allowance(self.address, now).connections.take(now):
            # A flood (the game port's allowance of new connections, shared): cut off before
            # the key exchange, which costs about a millisecond of CPU each.
            server.log_refusal(self.address, "too many connections (SSH)")
            conn.abort()
            return
        # A place among the open sessions only: the start is spent once a session starts a
        # game (``_Session.session_started``), so that connects that never get that far (a
        # port scan, a flaky network, a login with no shell) leave the address its starts.
        self.refusal = self.door.gate.enter(self.address)
        self.admitted = self.refusal is None
        if self.refusal is not None:
            server.log_refusal(self.address, f"SSH: {self.refusal}")
        self._meter_packets(conn)

    def _meter_packets(self, conn: asyncssh.SSHServerConnection) -> None:
        """Count the connection's control packets before asyncssh handles them: key exchanges
        against :attr:`rekeys` (each costs a millisecond or two of CPU, and a client may ask
        for one at any time), login requests against the server's ``door_login_requests``,
        and debug, unimplemented and global-request packets against :attr:`requests`. asyncssh
        dispatches packets through a table it looks up on the connection, so a copy of it set
        on this connection alone does that."""
        handlers = dict(conn._packet_handlers)
        # Not ignore packets: clients send them as chaff (OpenSSH's ObscureKeystrokeTiming:
        # one every 20 ms while typing), and asyncssh's with every window change.
        metered_types = (
            MSG_DEBUG,
            MSG_UNIMPLEMENTED,
            MSG_GLOBAL_REQUEST,
            MSG_USERAUTH_REQUEST,
            MSG_KEXINIT,
        )
        for pkttype in metered_types:
            handle = handlers[pkttype]

            def metered(
                conn: Any, pkttype: int, pktid: int, packet: Any, handle: Any = handle
            ) -> Any:
                if pkttype == MSG_KEXINIT:
                    allowed = self._rekey_arrived()
                elif pkttype == MSG_USERAUTH_REQUEST:
                    allowed = self._login_request_arrived()
                else:
                    allowed = self.request_arrived()
                return handle(conn, pkttype, pktid, packet) if allowed else None

            handlers[pkttype] = metered
        conn._packet_handlers = handlers

    def request_arrived(self) -> bool:
        """Count a request against the connection's allowance; False when the connection is
        flooding. Such a connection is closed, with a message to the player and a log line
        (one a second at most): receiving each request costs the server CPU, and only
        closing the connection stops that."""
        self.requests.take(time.monotonic())
        if not self.requests.exhausted:
            return True
        self._flood("a flood of SSH requests")
        return False

    def _login_request_arrived(self) -> bool:
        self.login_requests += 1
        if self.login_requests <= self.door.server.config.door_login_requests:
            return True
        self._flood("too many SSH login requests")
        return False

    def _rekey_arrived(self) -> bool:
        if self.rekeys.take(time.monotonic()):
            return True
        self._flood("a flood of SSH key exchanges")
        return False

    def _flood(self, why: str) -> None:
        if self.flooded:
            return
        self.flooded = True
        self.door.server.log_refusal(self.address, why)
        if self.session is not None:
            self.session.flooded()
        self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        """Free its place."""
        if self._close_later is not None:
            self._close_later.cancel()
            self._close_later = None
        if self.admitted:
            self.admitted = False
            self.door.gate.release(self.address)

    def close(self) -> None:
        """Close the connection."""
        if self.conn is not None:
            self.conn.close()

    def close_later(self, delay: float) -> None:
        """Close the connection in ``delay`` seconds, unless the client has closed it by then."""
        if self._close_later is None:
            self._close_later = asyncio.get_running_loop().call_later(delay, self.close)

    def begin_auth(self, username: str) -> bool:
        """Every login needs a key (a full door says so and disconnects)."""
        self.username = username
        if self.refusal is not None and self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
        return True

    def public_key_auth_supported(self) -> bool:
        """Keys are how players log in."""
        return True

    def password_auth_supported(self) -> bool:
        """Off: the key is who you are."""
        return False

    def kbdint_auth_supported(self) -> bool:
        """Only to say why a login without a usable key is refused: clients try it after their
        keys (OpenSSH prints its instructions), and it never lets anyone in. Without it a
        player with no key saw nothing but 'Permission denied (publickey)'. Offered once per
        connection: clients retry keyboard-interactive as long as it is offered."""
        return not self.told

    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> tuple[str, str, str, list[tuple[str, bool]]]:
        """No prompt, only the message; the empty answer is refused."""
        self.told = True
        message = KEY_NOT_LISTED if self.keys_refused else NEEDS_A_KEY
        return "", message, "", []

    def validate_kbdint_response(self, username: str, responses: Any) -> bool:
        """Refused: the key is who you are."""
        return False

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Any key (or one of ``--ssh-keys``); the last one checked is the one that signs."""
        allowed = self.door.authorized_keys
        if allowed is not None and allowed.validate(key, self.address, self.address) is None:
            self.keys_refused += 1
            return False
        self.fingerprint = key.get_fingerprint("sha256")
        return True

    def session_requested(self) -> tuple[asyncssh.SSHServerChannel[bytes], _Session]:
        """One session at a time per connection (a second one would be a second game)."""
        if self.sessions:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, ONE_SESSION)
        self.sessions += 1
        session = self.session = _Session(self)
        assert self.conn is not None
        chan = self.conn.create_server_channel(encoding=None)
        # The metered subclass adds only methods: same layout, so the class can be swapped
        # on the channel asyncssh made (its constructor's arguments are not public).
        chan.__class__ = _Channel
        return chan, session

    def connection_requested(
        self, dest_host: str, dest_port: int, orig_host: str, orig_port: int
    ) -> bool:
        """``ssh -L``: refused."""
        log.info("ssh %s: port forwarding to %s:%d refused", self.address, dest_host, dest_port)
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    def unix_connection_requested(self, dest_path: str) -> bool:
        """Forwarding to a Unix socket: refused."""
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        """``ssh -R``: refused."""
        log.info("ssh %s: remote forwarding refused", self.address)
        return False


class SSHDoor:
    """The SSH listener of a running :class:`server.app.Server` (in this process or another:
    :class:`server.doors.kit.DoorServer`); see the module docstring."""

    def __init__(
        self,
        server: DoorServer,
        data_dir: Path,
        socket_path: str,
        gate: DoorGate,
        authorized_keys: Path | None = None,
        server_wait: float = 0.0,
    ) -> None:
        self.server = server
        self.server_wait = server_wait
        """Seconds a child started while the server is down waits for it (doors in a process
        of their own: ``server.doors.child.SERVER_WAIT_ENV``); 0: it does not."""
        self.data_dir = data_dir
        self.socket_path = socket_path
        self.gate = gate
        self.authorized_keys_path = authorized_keys
        self.authorized_keys: asyncssh.SSHAuthorizedKeys | None = None
        self.host_key: asyncssh.SSHKey | None = None
        self.port = 0
        self.children: set[PtyChild] = set()
        self.pending_homes: dict[PtyChild, tuple[Path, str, str]] = {}
        """Children of keys that have not sat yet: their throwaway home, fingerprint, name."""
        self.tagged: set[Path] = set()
        """Throwaway homes whose player key the server has tagged with its key's fingerprint
        (:meth:`_tag_when_seated`): their end tells it no more."""
        self._watching: dict[Path, asyncio.Task[None]] = {}
        """The look for its first seat token (:meth:`_tag_when_seated`) of each throwaway home
        not tagged yet: one a home, however many of its key's sessions run in it."""
        self.side_homes: dict[PtyChild, Path] = {}
        """Children started in the lobby beside a seat the key holds in another window
        (:data:`ANOTHER_WINDOW`, ``l``): their throwaway home, with the key's player key and no
        seat token, deleted at their end."""
        self.sessions: set[_Session] = set()
        """The sessions that asked for a game, until they end: where the key's other windows
        are found (:meth:`_ask_where`)."""
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._ending: dict[PtyChild, asyncio.Task[None]] = {}
        self.stopping = False
        """The server is stopping: the sessions' children end because of that."""

    @property
    def fingerprint(self) -> str:
        """The host key's SHA-256 fingerprint (what players check on first connect)."""
        assert self.host_key is not None
        return self.host_key.get_fingerprint("sha256")

    async def start(self, host: str, port: int) -> None:
        """Load (or make) the host key and listen. Raises OSError, or ValueError for a bad
        ``--ssh-keys`` file."""
        if self.authorized_keys_path is not None:
            try:
                self.authorized_keys = asyncssh.read_authorized_keys(str(self.authorized_keys_path))
            except (OSError, asyncssh.KeyImportError) as exc:
                raise ValueError(f"cannot read {self.authorized_keys_path}: {exc}") from exc
        self.host_key = load_host_key(self.data_dir)
        adopted = adopt_pending_homes(self.data_dir)
        if adopted:
            log.info("ssh: kept %d player home(s) a stopped door left pending", adopted)
        config = self.server.config
        self._acceptor = await asyncssh.create_server(
            lambda: _Login(self),
            host,
            port,
            server_host_keys=[self.host_key],
            encoding=None,
            login_timeout=config.door_login_grace,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_pty=True,
            line_editor=False,  # keystrokes go to the client as they are
            keepalive_interval=30,
            keepalive_count_max=4,
        )
        self.port = self._acceptor.get_port()
        log.info("ssh door on %s:%d (host key %s)", host, self.port, self.fingerprint)

    def clamp(self, columns: int, rows: int) -> tuple[int, int]:
        """A terminal size the door gives a child: at most ``door_max_columns`` by
        ``door_max_rows`` (an unset one, 0, is 80 by 24)."""
        config = self.server.config
        return (
            min(columns or 80, config.door_max_columns),
            min(rows or 24, config.door_max_rows),
        )

    def spawn(self, session: _Session) -> None:
        """Start the client for a session with a pty."""
        self.sessions.add(session)
        task = asyncio.get_running_loop().create_task(self._spawn(session))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _spawn(self, session: _Session) -> None:
        login = session.login
        chan = session.chan
        fingerprint = login.fingerprint
        if chan is None or fingerprint is None:
            return
        name = player_name(login.username)
        # The same key's last session may still be ending: its home may be about to be kept.
        ending = [
            task
            for child, task in self._ending.items()
            if self.pending_homes.get(child, ("", "", ""))[1] == fingerprint
        ]
        if ending:
            await asyncio.wait(ending, timeout=KILL_AFTER + 1.0)
        side: Path | None = None
        held, checked = await self._seat_elsewhere(fingerprint, name)
        if held is not None:
            choice = await self._ask_where(session, *held)
            if session.chan is None:  # the session ended at the question
                return
            if choice != "take":
                if choice == "quit":
                    session.exited = True
                    chan.write(SEAT_STAYS.encode())
                    chan.exit(0)
                    return
                side = self._side_home(fingerprint)
                checked = None
        home = player_home(self.data_dir, fingerprint)
        pending: Path | None = None
        try:
            if side is not None:
                home = side
            elif home.is_dir():
                await self._note_player(home, fingerprint, name)
            elif (shared := self._pending_home_of(fingerprint)) is not None:
                # The key's first session is still open (a dropped connection the door has
                # not noticed yet: keepalives take two minutes): the same home, so the same
                # player key and seat token. Before, a fresh one made the player somebody
                # else, in the lobby, with their seat kept for a key they no longer had.
                pending = home = shared
            else:
                # A key that has never sat gets a throwaway home: a fresh key per login must
                # leave no directory and no identity behind unless it takes a seat.
                pending = home = new_pending_home(self.data_dir, fingerprint)
            env = child_environment(home, session.term or "xterm-256color", self.server_wait)
            # The client reads its seat token a second or so from now: it may take a seat back
            # only with the token checked above (see client.session.DoorTokenStore).
            env[DOOR_SEAT_TOKEN_ENV] = token_digest(checked) if checked is not None else ""
            env[DOOR_FINGERPRINT_ENV] = fingerprint  # which standings row is the player's
            if side is not None:  # the lobby only: the seat stays in the other window
                env[DOOR_LOBBY_ONLY_ENV] = "1"
            child = PtyChild(
                client_command(self.socket_path, name, self.server.port, self.server.config),
                env,
                home,
                session.size,
                session.output,
                session.child_exited,
            )
            session.child = child
            child.delivered = session.delivered
            if pending is not None:
                self.pending_homes[child] = (pending, fingerprint, name)
            if side is not None:
                self.side_homes[child] = side
            await child.start()
        except Exception as exc:
            log.exception("ssh %s: cannot start the client", login.address)
            if session.child is not None:
                self.pending_homes.pop(session.child, None)
                self.side_homes.pop(session.child, None)
            session.child = None
            if side is not None:
                shutil.rmtree(side, ignore_errors=True)
            if pending is not None and pending not in self._pending_paths():
                shutil.rmtree(pending, ignore_errors=True)
            if session.chan is not None:
                session.chan.write_stderr(
                    f"The server could not start the game ({exc}).\r\n".encode()
                )
                session.chan.exit(1)
            return
        if session.chan is None:  # the session ended while the child started
            await child.terminate()
            return
        self.children.add(child)
        log.info(
            "ssh %s: %s (%s) playing, client pid %s", login.address, name, fingerprint, child.pid
        )
        if pending is not None and pending not in self._watching and pending not in self.tagged:
            watch = asyncio.get_running_loop().create_task(
                self._tag_when_seated(pending, fingerprint, name)
            )
            self._watching[pending] = watch
            self._tasks.add(watch)
            watch.add_done_callback(self._tasks.discard)

    async def _tag_when_seated(self, home: Path, fingerprint: str, name: str) -> None:
        """Once the client in the throwaway ``home`` has filed a seat token (it sat, so the
        server stored its player key), tell the server that key is the SSH key with
        ``fingerprint`` (:meth:`_note_player`): the standings show the player as that key from
        their first hand. Looks every :data:`SEAT_WATCH` seconds while a child runs in
        ``home``; asks again only when the token file changes (a new seat), at most
        :data:`SEAT_ASKS` times, so a key the server does not count (past its address's new
        players) is not asked about at every look. Not told here (the server was down),
        the session's end tells it."""
        tokens = home / "config" / "sheepshead" / "tokens.json"
        asked: int | None = None  # the token file's mtime when the server was last asked
        asks = 0
        try:
            while home in self._pending_paths() and asks < SEAT_ASKS:
                try:
                    filed: int | None = tokens.stat().st_mtime_ns
                except OSError:
                    filed = None
                if filed is not None and filed != asked:
                    asked = filed
                    asks += 1
                    if await self._note_player(home, fingerprint, name):
                        log.info("ssh: %s sat: tagged in the standings", fingerprint)
                        if home in self._pending_paths():  # not settled during the ask
                            self.tagged.add(home)
                        return
                await asyncio.sleep(SEAT_WATCH)
        finally:
            self._watching.pop(home, None)

    async def _note_player(self, home: Path, fingerprint: str, name: str) -> bool:
        """Tell the server that the player key kept in ``home`` is the SSH key with
        ``fingerprint`` (the standings tag it with the fingerprint), in this process or over
        its local socket (:meth:`server.doors.kit.DoorServer.door_player`); whether it was
        done (the server knew the key)."""
        from client.config import player_key

        key = player_key(home / "config" / "sheepshead")
        if key is None:
            return False
        return await self.server.door_player(key, fingerprint, name)

    async def _seat_elsewhere(
        self, fingerprint: str, name: str
    ) -> tuple[tuple[str, int] | None, str | None]:
        """The table name and seat whose token a new session of the key with ``fingerprint``
        under ``name`` would take over while the seat's connection is up (another window of
        the key has it), or None; and the seat token the client will be let take a seat back
        with (the one its home holds now for ``name``, or None). The client takes a seat back
        with the token its home keeps for its name (``tokens.json``, PROTOCOL.md §10), so that
        is the one looked up; both come from one reading of that file. The server says whether
        the seat is connected (:meth:`server.doors.kit.DoorServer.held_seats`)."""
        from client.session import TokenStore

        home = player_home(self.data_dir, fingerprint)
        if not home.is_dir():
            shared = self._pending_home_of(fingerprint)
            if shared is None:
                return None, None
            home = shared
        stored = TokenStore(home / "config" / "sheepshead" / "tokens.json").load()
        checked = stored.get(f"localhost:{self.server.port}", {}).get(name)
        seats = await self.server.held_seats(tokens_named(stored, name))
        found = next((seat for seat in seats if seat is not None), None)
        if found is None:
            return None, checked
        return (found["name"], found["seat"]), checked

    async def _ask_where(self, session: _Session, table: str, seat: int) -> str:
        """Ask the player where the seat at ``table`` goes (:data:`ANOTHER_WINDOW`): "take",
        "lobby", "quit", or "gone" (the session ended first). Meanwhile the key's other
        sessions are asked for a keepalive: when none answers within :data:`LINK_CHECK`
        their links have dropped (the door had not noticed yet: its own keepalives take two
        minutes), so they are closed and the seat comes here without a question, as it did
        before there was one."""
        chan = session.chan
        assert chan is not None
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        session.answer = answer
        chan.write(ANOTHER_WINDOW.format(table=table, seat=seat).encode())
        fingerprint = session.login.fingerprint
        others = [
            other.login
            for other in self.sessions
            if other is not session and other.login.fingerprint == fingerprint
        ]

        async def closed() -> None:
            log.info(
                "ssh %s: %s's other sessions do not answer: closed, the seat moves",
                session.login.address,
                fingerprint,
            )
            for login in others:
                login.close()
            chan.write(OTHER_WINDOW_GONE.encode())

        try:
            return await wait_for_choice(answer, _all_dropped(others) if others else None, closed)
        finally:
            session.answer = None

    def _side_home(self, fingerprint: str) -> Path:
        """A throwaway home holding only the player key of the key with ``fingerprint`` (and
        its settings): the client there is that player, in the lobby, with no seat token to
        take a seat over with."""
        side = Path(tempfile.mkdtemp(prefix="sheepshead-ssh-"))
        home = player_home(self.data_dir, fingerprint)
        source = (home if home.is_dir() else self._pending_home_of(fingerprint) or home) / "config"
        target = side / "config" / "sheepshead"
        target.mkdir(parents=True, mode=0o700)
        from client.config import PLAYER_KEY_FILE

        for kept in (PLAYER_KEY_FILE, "settings.toml"):
            with contextlib.suppress(OSError):
                shutil.copy2(source / "sheepshead" / kept, target / kept)
        return side

    def session_ended(self, session: _Session) -> None:
        """End the session's child, if it has one."""
        self.sessions.discard(session)
        child = session.child
        if child is not None and child not in self._ending:
            task = asyncio.get_running_loop().create_task(self._end(child))
            self._tasks.add(task)
            self._ending[child] = task
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(lambda _: self._ending.pop(child, None))

    async def _end(self, child: PtyChild) -> None:
        try:
            await child.terminate()
        finally:
            self.children.discard(child)
            kept = self._keep_home(child)
            if kept is not None:
                await self._note_player(*kept)

    def _pending_home_of(self, fingerprint: str) -> Path | None:
        """The throwaway home a running child of the key with ``fingerprint`` has, if any."""
        for path, owner, _ in self.pending_homes.values():
            if owner == fingerprint:
                return path
        return None

    def _pending_paths(self) -> set[Path]:
        """Every throwaway home some child still runs in."""
        return {path for path, _, _ in self.pending_homes.values()}

    def _keep_home(self, child: PtyChild) -> tuple[Path, str, str] | None:
        """Move an ended child's throwaway home to its key's directory if the player took a
        seat (the client filed a seat token), and return that home, the fingerprint and the
        name, for the key's identity to be linked (:meth:`_note_player`) unless it was at its
        first seat (:meth:`_tag_when_seated`); else delete it. A home another session of the
        key still runs in waits for that one's end. A side home (:meth:`_side_home`) is
        deleted."""
        side = self.side_homes.pop(child, None)
        if side is not None:
            shutil.rmtree(side, ignore_errors=True)
            return None
        pending = self.pending_homes.pop(child, None)
        if pending is None or pending[0] in self._pending_paths():
            return None
        path, fingerprint, name = pending
        tagged = path in self.tagged
        self.tagged.discard(path)
        home = keep_pending_home(path, self.data_dir, fingerprint)
        return (home, fingerprint, name) if home is not None and not tagged else None

    async def stop(self) -> None:
        """Stop listening and end every session's child (each session is told why)."""
        self.stopping = True
        if self._acceptor is not None:
            self._acceptor.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._acceptor.wait_closed(), 2.0)
            self._acceptor = None
        await asyncio.gather(*(self._end(c) for c in list(self.children)), return_exceptions=True)
        for watch in list(self._watching.values()):
            watch.cancel()
