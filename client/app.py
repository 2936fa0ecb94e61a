"""The Textual application: one session, one table model, the lobby and table screens.

The app owns the connection (a :class:`client.session.Session`, or nothing when a test feeds
messages by hand) and a :class:`~client.model.TableModel`. A worker loops on ``session.events``;
every message goes through :meth:`SheepsheadApp.handle_message`, which updates the model and
publishes what changed on :attr:`SheepsheadApp.model_changed` for the screens to redraw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.signal import Signal

from client import config, terminal
from client.fairplay import DealChecker
from client.model import Change, FinishedHand, TableModel
from client.session import ConnectionLost, ServerError, Session

Mode = Literal["play", "join", "watch"]
"""How the app was started: a local game, a server's lobby, or spectating."""

MIN_SIZE = (80, 24)
"""Columns and rows the table screen is laid out for; below them parts of it are cut off."""


def error_text(exc: BaseException) -> str:
    """A one-line description of a failed request for a notification."""
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    code = getattr(exc, "code", None)
    return f"{message} ({code})" if code else str(message)


class SheepsheadApp(App[int]):
    """The sheepshead terminal client."""

    CSS_PATH = "styles.tcss"
    TITLE = "Sheepshead"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        # The terminal is in raw mode, so Ctrl+Z reaches the app as a key, not as SIGTSTP.
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True),
    ]

    status: reactive[str] = reactive("offline")
    """The connection: ``offline``, ``connecting``, ``connected``, ``reconnecting``, ``closed``."""

    def __init__(
        self,
        session: Session | None = None,
        *,
        mode: Mode = "join",
        watch_table: str | None = None,
        model: TableModel | None = None,
        bot_strategy: str | None = None,
        export_dir: Path | None = None,
        intro: str | None = None,
    ) -> None:
        # On Unix, Textual's own driver with the repairs that let the app leave a terminal that
        # hung up (client/terminal.py); Textual still picks its own for tests and elsewhere.
        super().__init__(driver_class=terminal.driver_class())
        self.session = session
        self.mode: Mode = mode
        self.watch_table = watch_table
        self.model = model if model is not None else TableModel()
        self.bot_strategy = bot_strategy
        self.export_path = export_dir
        self.intro = intro
        self.deals = DealChecker()
        """The commitments seen and seeds sent, to check the deals at match end (§13)."""
        self.outbox: list[dict[str, Any]] = []
        """Actions sent while no session is attached (the engine-fed test harness)."""
        self.model_changed: Signal[Change] = Signal(self, "model_changed")
        """Published after every message with what it changed."""
        self._terminal_fd: int | None = None
        self._leaving = False
        self._too_small = False
        """Whether the terminal was below :data:`MIN_SIZE` at the last look (warned once)."""
        if session is not None:
            self.status = session.status
            self.model.status = session.status

    @property
    def address(self) -> str:
        """``host:port`` of the server, or ``offline``."""
        if self.session is None:
            return "offline"
        return f"{self.session.host}:{self.session.port}"

    def on_mount(self) -> None:
        """Open the first screen and start reading the session's events."""
        from client.screens.lobby import LobbyScreen
        from client.screens.table import TableScreen

        if self.mode in ("join", "watch"):
            # Watching a given table starts in the lobby too: the table screen opens with the
            # first state, and if the table is not there the lobby lists the ones that are.
            self.push_screen(LobbyScreen())
            if self.model.view is not None:
                self.push_screen(TableScreen())
        else:
            self.push_screen(TableScreen())
        if self.intro:
            self.notify(self.intro, timeout=6)
        if self.session is not None:
            self.pump_events()
            if self.mode == "watch" and self.watch_table is not None:
                self.watch_request(self.watch_table)
        if not self.is_headless:
            self._watch_terminal()

    # ------------------------------------------------------------------ the terminal

    def on_resize(self, event: events.Resize) -> None:
        """Warn once each time the terminal becomes smaller than the table needs."""
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        if small and not self._too_small:
            self.notify(
                f"This terminal is {width}×{height}; the table needs {MIN_SIZE[0]}×{MIN_SIZE[1]}"
                " to show everything. Enlarge the window (or make the font smaller).",
                title="Terminal too small",
                severity="warning",
                timeout=10,
            )
        self._too_small = small

    def _watch_terminal(self) -> None:
        """Leave when the terminal goes away (see :mod:`client.terminal`), from the first
        screen on: a SIGHUP before it ends the process the default way (nothing is lost, the
        server has every action)."""
        if hasattr(signal, "SIGHUP"):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._terminal_gone)
        self._terminal_fd = terminal.watched_terminal()
        if self._terminal_fd is not None:
            self.set_interval(terminal.CHECK_INTERVAL, self._check_terminal)

    def _check_terminal(self) -> None:
        if self._terminal_fd is not None and terminal.hung_up(self._terminal_fd):
            self._terminal_gone()

    def _terminal_gone(self) -> None:
        # By SIGHUP or by polling: either way there is nothing more to poll for.
        self._terminal_fd = None
        self.log.warning("the terminal hung up: leaving")
        self.run_worker(self._leave(terminal.HANGUP_EXIT_CODE), group="leave")

    def on_unmount(self) -> None:
        """Stop listening for SIGHUP."""
        if not self.is_headless and hasattr(signal, "SIGHUP"):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)

    @work(exclusive=True, group="events", exit_on_error=False)
    async def pump_events(self) -> None:
        """Feed every server event into the model, for as long as the app runs."""
        assert self.session is not None
        events = self.session.events
        while True:
            msg = await events.get()
            try:
                self.handle_message(msg)
            except Exception as exc:  # a message we cannot read must not stop the client
                self.log.error(f"message ignored: {msg!r}: {exc!r}")
                self.notify(f"A server message could not be shown: {exc}", severity="error")

    @work(group="requests", exit_on_error=False)
    async def watch_request(self, table: str) -> None:
        """Spectate ``table`` (``sheepshead watch --table``)."""
        await self.call("watch", table=table)

    def handle_message(self, msg: Mapping[str, Any]) -> Change:
        """Apply one server event to the model and tell the screens."""
        change = self.model.apply(msg)
        kind = msg.get("type")
        if kind == "connection":
            self.status = self.model.status
        elif kind == "notice":
            self.notify(str(msg.get("text", "")), title="Notice", timeout=4)
        elif kind == "error":
            self.notify(str(msg.get("message", "error")), severity="error")
        elif kind == "commitment":
            self._answer_commitment(msg)
        elif kind == "seeds_revealed":
            self._check_deals(msg)
        if kind == "state":
            self._show_table()
        self.model_changed.publish(change)
        return change

    def _answer_commitment(self, msg: Mapping[str, Any]) -> None:
        """Send a random client seed for a new deal commitment (PROTOCOL.md §13)."""
        quoted = self.deals.on_commitment(msg)
        seat = self.model.seat
        if quoted is None or seat is None:
            return
        seed = self.deals.new_seed(quoted, seat)
        self.run_worker(
            self.call("client_seed", quiet_lost=True, commitment=quoted, seed=seed),
            group="requests",
            exit_on_error=False,
        )

    def _check_deals(self, msg: Mapping[str, Any]) -> None:
        """The server revealed its seeds: recompute every deal seen and say what was found."""
        verdict = self.deals.check(msg, self.model.history)
        good = verdict.startswith("all ")
        self.model.note("event" if good else "error", f"Deals: {verdict}")
        self.model_changed.publish(Change.LOG)
        self.notify(verdict, title="Deals", severity="information" if good else "error", timeout=8)

    def _show_table(self) -> None:
        from client.screens.lobby import LobbyScreen
        from client.screens.table import TableScreen

        if any(isinstance(s, TableScreen) for s in self.screen_stack):
            return
        if isinstance(self.screen, LobbyScreen) or not self.screen_stack:
            self.push_screen(TableScreen())

    # ------------------------------------------------------------------ network

    async def call(
        self, request: str, *, quiet_lost: bool = False, **fields: Any
    ) -> dict[str, Any] | None:
        """Send a request; on an error tell the user and return None.

        ``quiet_lost``: a lost connection is not told (for requests the user did not ask for;
        the title bar shows the connection).
        """
        if self.session is None:
            self.outbox.append({"type": request, **fields})
            return {"type": "ok"}
        try:
            return await self.session.request(request, **fields)
        except ConnectionLost as exc:
            if not quiet_lost:
                self.notify(f"{request} failed: {exc.message}", severity="error")
        except ServerError as exc:
            self.notify(error_text(exc), title=f"{request} refused", severity="error")
        except (TimeoutError, OSError) as exc:
            self.notify(f"{request} failed: no answer from the server ({exc})", severity="error")
        return None

    async def act(self, action: dict[str, Any], seq: int | None = None) -> bool:
        """Answer the pending decision; the prompt is cleared at once so a key can't send twice.

        ``seq`` is the seq of the prompt the action was chosen from (default: the pending
        prompt's): an answer that comes after the turn timer moved on is refused as ``stale``.
        """
        prompt = self.model.prompt
        if seq is None and prompt is not None:
            seq = prompt.seq
        self.model.prompt = None
        self.model_changed.publish(Change.PROMPT)
        if self.session is None:
            self.outbox.append(dict(action))
            return True
        try:
            await self.session.act(dict(action), seq=seq)
        except Exception as exc:
            if self.model.prompt is None and prompt is not None and self.model.seq == prompt.seq:
                self.model.prompt = prompt
                self.model_changed.publish(Change.PROMPT)
            if isinstance(exc, ConnectionLost | OSError | TimeoutError):
                self.notify(f"Not sent, the connection dropped: {exc}", severity="error")
                return False
            if not isinstance(exc, ServerError):
                raise
            self.notify(error_text(exc), title="Not allowed", severity="error")
            return False
        return True

    # ------------------------------------------------------------------ records

    def export_hand(self, hand: FinishedHand) -> Path | None:
        """Write a finished hand's record as JSON under the data directory; return the path."""
        try:
            record = hand.to_record()
        except (ValueError, KeyError, TypeError) as exc:
            self.notify(f"cannot export this hand: {exc}", severity="error")
            return None
        fair = self.deals.fair_for(hand.number - 1)
        if fair is not None:  # the seeds are revealed: `sheepshead verify` can check it
            record = {**record, "fair": fair}
        folder = self.export_path if self.export_path is not None else config.export_dir()
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        table = "".join(ch for ch in str(self.model.table or "local") if ch.isalnum() or ch in "-_")
        path = folder / f"{table or 'table'}-hand{hand.number}-{stamp}.json"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{table or 'table'}-hand{hand.number}-{stamp}-{n}.json"
        try:
            path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc.strerror}", severity="error")
            return None
        self.notify(f"Hand {hand.number} saved to {path}", title="Exported", timeout=8)
        return path

    async def action_quit(self) -> None:
        """Close the connection and leave."""
        await self._leave(0)

    async def _leave(self, code: int) -> None:
        """Close the connection (for two seconds at most) and exit with ``code``."""
        if self._leaving:
            return
        self._leaving = True
        if self.session is not None:
            with contextlib.suppress(TimeoutError, OSError):
                await asyncio.wait_for(self.session.close(), 2)
        self.exit(code, return_code=code)
