"""The Textual application: one session, one table model, the lobby and table screens.

The app owns the connection (a :class:`client.session.Session`, or nothing when a test feeds
messages by hand) and a :class:`~client.model.TableModel`. A worker loops on ``session.events``;
every message goes through :meth:`SheepsheadApp.handle_message`, which updates the model and
publishes what changed on :attr:`SheepsheadApp.model_changed` for the screens to redraw.

The app is where screens meet: it knows every screen class and opens them for each other
(:meth:`SheepsheadApp.open_result`, :meth:`SheepsheadApp.open_history`, ...), so no screen
imports another. :attr:`SheepsheadApp.status` is the one place the connection's state is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal, cast, overload

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.signal import Signal
from textual.timer import Timer

from client import config, exports, terminal
from client.fairplay import DealChecker
from client.fairplay import reveal_of_entries as _reveal_of
from client.fairplay import unrevealed as _uncovered
from client.model import (
    SHUTDOWN_LINE,
    Change,
    FinishedHand,
    Prompt,
    TableModel,
    hand_from_history,
)
from client.screens.dialogs import (
    BuryDialog,
    CallDialog,
    ChatDialog,
    ConfirmDialog,
    CreateTableDialog,
    PasswordDialog,
)
from client.screens.info import (
    HelpScreen,
    HistoryScreen,
    RecordScreen,
    RulesScreen,
    TricksScreen,
)
from client.screens.lobby import LobbyScreen
from client.screens.result import (
    MatchOverScreen,
    ResultScreen,
    ScoreSheetScreen,
    result_summary,
)
from client.screens.table import TableScreen
from client.session import REPLACED, ConnectionLost, ServerError, Session
from client.settings import ClientSettings
from protocol import errors
from protocol.events import (
    ActionMap,
    BotAdded,
    Commitment,
    HintReply,
    HistoryPage,
    Joined,
    OkReply,
    ReviewReply,
    SeedsRevealed,
    StandingsReply,
    State,
    TableCreated,
    TableList,
    Watching,
)
from protocol.framing import Message
from protocol.text import name_key

Mode = Literal["play", "join", "watch"]
"""How the app was started: a local game, a server's lobby, or spectating."""

MIN_SIZE = (80, 24)
"""Columns and rows the table screen is laid out for; below them parts of it are cut off."""

TITLE = "Sheepshead"
"""The terminal's title while the app runs."""

YOUR_TURN_TITLE = "▶ your turn · Sheepshead"
"""The terminal's title while a decision of yours is pending."""

SAVE_TITLE = "\x1b[22;0t"
RESTORE_TITLE = "\x1b[23;0t"
"""xterm's title stack: the terminal's own title is saved at the start and put back on leaving
(terminals without it ignore both)."""

DEFAULT_SETTINGS = ClientSettings()
"""The settings of an app given none (the commands pass the settings file's)."""

HISTORY_WAIT = 10.0
"""Most seconds the check of the deals waits, after ``seeds_revealed``, for the ``history``
asked for at the (re)connection (the hands that ended while this client was away come with it,
and a loaded machine can deliver the reveal first); then the hands still missing are named as
not checked."""


def too_small_text(width: int, height: int) -> str:
    """What to do about a terminal of ``width``×``height``, smaller than :data:`MIN_SIZE`.

    A terminal short of rows only was told "make it at least 85×24" right after "the table
    needs 80×24", which read as if it needed more than it did: now the rows (or columns)
    missing are named.

    >>> too_small_text(85, 17).split(". ")[0]
    'This terminal is 85×17; the table needs 80×24 to show everything: make it 7 rows taller'
    >>> too_small_text(79, 30).split(": ")[1].split(".")[0]
    'make it 1 column wider'
    >>> too_small_text(70, 20).split(": ")[1].split(". ")[0]
    'make it at least 80×24'
    """
    need_width, need_height = MIN_SIZE
    short = [
        f"{need - have} {unit}{'' if need - have == 1 else 's'} {more}"
        for need, have, unit, more in (
            (need_width, width, "column", "wider"),
            (need_height, height, "row", "taller"),
        )
        if have < need
    ]
    what = f"at least {need_width}×{need_height}" if len(short) != 1 else short[0]
    return (
        f"This terminal is {width}×{height}; the table needs {need_width}×{need_height}"
        f" to show everything: make it {what}. The trick and your hand stay on screen meanwhile."
    )


def error_text(exc: BaseException) -> str:
    """A one-line description of a failed request for a notification."""
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    code = getattr(exc, "code", None)
    return f"{message} ({code})" if code else str(message)


LOBBY_REFUSALS: dict[str, tuple[str, str]] = {
    errors.NO_SUCH_TABLE: (
        "Table closed",
        "{label} is not open on this server: it has closed, or never was. Choose another "
        "table in the lobby, or press c to create one.",
    ),
    errors.TABLE_FULL: (
        "Table full",
        "Every seat at {label} is taken: press w to watch it, or choose another table.",
    ),
    errors.SEAT_TAKEN: (
        "Seat taken",
        "Somebody took that seat at {label} just before you: press Enter on the table "
        "again for another free seat, or w to watch.",
    ),
    errors.ALREADY_SEATED: (
        "Already seated",
        "You already hold a seat whose connection is up (in this client or in another one): "
        "play on there, or leave that seat first, then try again.",
    ),
    errors.BAD_PASSWORD: (
        "Password needed",
        "{label} asks for a password: choose it in the lobby to give it.",
    ),
    errors.BAD_TOKEN: (
        "Seat gone",
        "The server no longer holds your seat at {label}: the table has closed, or the seat "
        "was given up. Choose a table in the lobby to sit down again.",
    ),
    errors.TOO_MANY_SPECTATORS: (
        "No room to watch",
        # The server's own message names its limit and option, which are the host's business.
        "Nobody more can watch {label}: it has as many watchers as the server allows. "
        "Try again when one of them leaves.",
    ),
    errors.TOO_MANY_TABLES: (
        "No more tables",
        # The server's message says which limit (the server's, or this address's waiting,
        # playing or open tables) and what frees a place: it is the person's to act on.
        "The server opens no new table for you now ({said}). Meanwhile, join or watch one "
        "of the tables in the lobby.",
    ),
    errors.BAD_RULES: (
        "Rules refused",
        "This server does not play those rules ({said}): press c and choose others.",
    ),
    errors.RATE_LIMITED: ("Too many tries", "{said}. Wait a few seconds, then try again."),
    errors.INTERNAL_ERROR: (
        "Server error",
        "The server failed to handle that, and nothing changed: try again, and tell the "
        "server's host if it keeps failing.",
    ),
}
"""The refusals a lobby request (``join``, ``watch``, ``create_table``, a seat taken back,
``list_tables``, ``standings``) or a reconnect's way back in (``table_lost``) can get
(PROTOCOL.md §4 and §8): code → (notification title, sentence saying what happened and what
to do). ``{label}`` is the table's name, ``{said}`` the server's message."""


STALE_TOKEN_IN_LOBBY = (
    "The server no longer holds the seat this client kept for you: its table has closed, or "
    "the seat was given up. Choose a table here to sit down again."
)
"""What a stale seat token (``bad_token`` at the start, PROTOCOL.md §8) says to a player in
the lobby: the table's sentence (:data:`TABLE_REFUSALS`) said "Esc goes back to the lobby" to
someone already there."""


_CARDS_YOU_MAY_PLAY = "{said}: the status line names the cards you may play."
_UNREADABLE = (
    "The server could not read what this client sent: try again (the log keeps the details "
    "for a bug report)."
)

TABLE_REFUSALS: dict[str, str] = {
    # The engine's: its message says the case ("You must follow trump"); what to do follows.
    errors.NOT_YOUR_TURN: "It is {turn}'s turn, not yours: wait until the status line says "
    "it is yours.",
    errors.ILLEGAL_ACTION: "{said}: the status line says what you can do now.",
    errors.ILLEGAL_CARD: "{said}: play a card from your hand.",
    errors.MUST_FOLLOW_SUIT: _CARDS_YOU_MAY_PLAY,
    errors.HOLD_CARD_REQUIRED: _CARDS_YOU_MAY_PLAY,
    errors.CALLED_CARD_REQUIRED: _CARDS_YOU_MAY_PLAY,
    errors.CALLED_CARD_HELD: _CARDS_YOU_MAY_PLAY,
    errors.CALLED_SUIT_RESTRICTED: _CARDS_YOU_MAY_PLAY,
    errors.UNKNOWN_CARD_REQUIRED: _CARDS_YOU_MAY_PLAY,
    errors.UNKNOWN_CARD_HELD: _CARDS_YOU_MAY_PLAY,
    errors.ILLEGAL_BURY: "{said}: b opens the bury dialog to choose two others.",
    errors.ILLEGAL_CALL: "{said}: c opens the call dialog to choose another, or a goes alone.",
    errors.MUST_PICK: "{said}: p picks up the blind.",
    errors.HAND_OVER: "{said}: nothing more can be played now.",
    errors.BAD_CARD: "The server did not know the card this client sent: choose it again "
    "(the log keeps the details for a bug report).",
    errors.BAD_RULES: "This server does not play those rules: choose others.",
    # The protocol's and the server's: their messages are for programs, the sentence is ours.
    errors.BAD_FRAME: _UNREADABLE,
    errors.FRAME_TOO_LARGE: "What this client sent was too big for the server, which closed "
    "the connection: the client connects again by itself.",
    errors.NOT_A_MAP: _UNREADABLE,
    errors.BAD_KEY: _UNREADABLE,
    errors.BAD_REQUEST: "The server could not take that as it was sent: try again (the log "
    "keeps the details for a bug report).",
    errors.UNKNOWN_TYPE: "This server does not know that request: it runs an older version.",
    errors.HANDSHAKE_REQUIRED: "The server wanted this client's greeting first and closed the "
    "connection: the client connects again by itself.",
    errors.HANDSHAKE_TIMEOUT: "The server did not get this client's greeting in time and "
    "closed the connection: the client connects again by itself.",
    errors.VERSION_UNSUPPORTED: "This client and the server speak different versions of the "
    "protocol: update the client, or ask the server's host.",
    errors.NOT_SEATED: "The server does not count you at a table now: Esc goes back to the "
    "lobby, where you can join one again.",
    errors.ALREADY_SEATED: "You already hold a seat: play on there, or leave it first.",
    errors.NO_SUCH_TABLE: "This table is no longer open on the server: Esc goes back to the lobby.",
    errors.TABLE_FULL: "Every seat at this table is taken.",
    errors.SEAT_TAKEN: "That seat is taken: choose a free one.",
    errors.NOT_A_BOT: "That seat is not a server bot's: only a bot can be removed.",
    errors.BAD_PASSWORD: "That is not this table's password.",
    errors.BAD_TOKEN: "The server no longer holds your seat: Esc goes back to the lobby, "
    "where you can sit down again.",
    errors.NOT_HOST: "Only the table's host can do that.",
    errors.NOT_STARTED: "The match has not started yet: the host starts it (g).",
    errors.ALREADY_STARTED: "The match has started already: that can be done only before.",
    errors.NOT_ENOUGH_PLAYERS: "A match needs all five seats filled: + seats a bot in a free seat.",
    errors.MATCH_OVER: "The match at this table is over: Enter shows the standings.",
    errors.NOT_OVER: "The match is not over yet: a rematch starts only after it.",
    errors.STALE: "That answer came after the table had moved on: answer what the status "
    "line asks now.",
    errors.RATE_LIMITED: "That was one message too many at once, and the server dropped it: "
    "wait a few seconds, then try again.",
    errors.TOO_MANY_CONNECTIONS: "The server has as many connections as it allows: try again "
    "later.",
    errors.TOO_MANY_TABLES: "You have as many tables as the server allows: finish or leave one "
    "first.",
    errors.REQUEST_TOO_LARGE: "That was too long for the server: make it shorter, then try again.",
    errors.TOO_MANY_BOTS: "You have as many server bots seated as the server allows: free a "
    "bot's seat at another table first.",
    errors.TOO_MANY_SPECTATORS: "Nobody more can watch this table: try again when a watcher "
    "leaves.",
    errors.IDLE_TIMEOUT: "The server heard nothing from this client for too long and closed "
    "the connection: the client connects again by itself.",
    errors.REPLACED: "Your seat moved to another window or device of yours.",
    errors.SERVER_SHUTDOWN: f"{SHUTDOWN_LINE}.",
    errors.INTERNAL_ERROR: "The server failed to handle that, and nothing changed: try again, "
    "and tell the server's host if it keeps failing.",
    errors.HINTS_OFF: "This table was created without hints: the coach does not advise here.",
    errors.NOT_ALLOWED: "A bot may not ask the coach for hints.",
    errors.BUSY: "The coach is still working on your last question (or is busy): ask again "
    "in a moment.",
    errors.LOCAL_ONLY: "Only the server's own doors may ask that: this client did not mean to, "
    "so tell the server's host.",
    # The client's own (ConnectionLost): nothing reached the server.
    "connection_lost": "Not sent: the connection to the server is down. This client "
    "reconnects by itself: try again once the top bar says connected.",
}
"""What a player reads for a refusal at the table (an action, a host's key, chat, a hint;
PROTOCOL.md §8), by code: a sentence saying what happened and what to do, never the code
(the log line keeps it, for a bug report). ``{said}`` is the server's message, ``{turn}``
who has the turn."""


def table_refusal(code: str, message: str, model: TableModel | None = None) -> str:
    """The sentence of :data:`TABLE_REFUSALS` for a refusal with ``code`` (``model``: the
    table, which names who has the turn); a code this client does not know yet is told by
    the server's message alone."""
    said = message.strip().rstrip(".") or errors.ERROR_CODES.get(code, "")
    said = said[:1].upper() + said[1:]
    known = TABLE_REFUSALS.get(code)
    if known is None:
        return f"{said or 'The server refused that'}."
    if code != errors.NOT_YOUR_TURN:
        return known.format(said=said)
    turn = None if model is None else model.turn
    if model is None or turn is None or turn == model.my_seat:
        return "It is not your turn now: wait until the status line says it is yours."
    return known.format(turn=model.name(turn))


def renamed_text(session: object) -> str | None:
    """What to tell a player whose name the server's welcome numbered (a server bot's name:
    ``Gus`` is ``Gus 2``), or None: the lobby's title said "you are gus 2" and nothing why. A
    name only cleaned (invisible characters) reads the same, and a seat taken back under
    another name is told by its ``name_kept`` notice."""
    asked = getattr(session, "requested_name", None)
    name = getattr(session, "name", None)
    welcome = getattr(session, "welcome", None) or {}
    if not isinstance(asked, str) or not isinstance(name, str) or welcome.get("table"):
        return None
    if name_key(name) == name_key(asked):
        return None
    return f"{asked} is a server bot's name here: you are {name}."


def refusal_text(code: str, message: str, label: str) -> str:
    """Sentences for a refusal with ``code`` of a request about the table called ``label``
    (:data:`LOBBY_REFUSALS`); the server's ``message`` with its code for a refusal that has no
    sentence there."""
    known = LOBBY_REFUSALS.get(code)
    if known is None:
        return table_refusal(code, message)
    said = message.strip().rstrip(".")
    if not said:
        meaning = errors.ERROR_CODES.get(code, code)
        said = meaning[:1].upper() + meaning[1:]
    text = known[1].format(label=label, said=said)
    # A sentence starts with a capital: "table t9 is not open" (watch --table t9).
    return text[:1].upper() + text[1:]


def refusal_title(code: str, request: str) -> str:
    """The title of the notification that tells a refusal of ``request`` with ``code``."""
    known = LOBBY_REFUSALS.get(code)
    return known[0] if known is not None else f"{request} refused"


def _result_title(hand: FinishedHand) -> str:
    """The title of the pop-up that tells ``hand``'s result (:meth:`SheepsheadApp.tell_result`)."""
    return f"Hand {hand.number}: {hand.result.get('outcome_text') or 'hand over'}"


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
        settings: ClientSettings | None = None,
        door: bool = False,
        take_back: bool = True,
    ) -> None:
        # On Unix, Textual's own driver with the repairs that let the app leave a terminal that
        # hung up (client/terminal.py); Textual still picks its own for tests and elsewhere.
        # NO_COLOR: with native ANSI colours Textual drops every colour (the terminal's own
        # foreground and background), where it would otherwise draw in greys of its own.
        super().__init__(
            driver_class=terminal.driver_class(),
            ansi_color=True if "NO_COLOR" in os.environ else None,
        )
        self.session = session
        self.mode: Mode = mode
        self.watch_table = watch_table
        self.model = model if model is not None else TableModel()
        self.bot_strategy = bot_strategy
        self.export_path = export_dir
        self.intro = intro
        self.door = door
        """Whether this client runs in one of the server's doors (SSH, browser) for a player
        elsewhere: a file it writes stays on the server, so an export is shown to copy."""
        self.deals = DealChecker()
        """The commitments seen and seeds sent, to check the deals at match end (§13)."""
        self.settings = settings if settings is not None else DEFAULT_SETTINGS
        self.outbox: list[Message] = []
        """Actions sent while no session is attached (the engine-fed test harness)."""
        self.model_changed: Signal[Change] = Signal(self, "model_changed")
        """Published after every message with what it changed."""
        self._terminal_fd: int | None = None
        self._leaving = False
        self._too_small = False
        """Whether the terminal was below :data:`MIN_SIZE` at the last look (warned once)."""
        self._alerted_seq: int | None = None
        """The seq of the prompt the turn alert last rang for (once per prompt)."""
        self.terminal_title = TITLE
        """What the terminal's title was last set to."""
        self.bells = 0
        """How many turn alerts rang (the bell itself is silent in a headless test)."""
        self._rematches_seen = self.model.rematches
        self._joining: str | None = None
        """The table a ``join`` of this client's is on its way to (None: none is)."""
        self.left_table: str | None = None
        """The table this client last left (``leave``), until it joins, watches or creates
        one: its notices still on their way (the host's rematch as the player left) are
        news of a table the player is no longer at, not a pop-up over the lobby."""
        self._joined_held: list[Mapping[str, Any]] = []
        """The ``joined`` notices of :attr:`_joining`'s table that came before the join's
        reply: which of them is this client's own seat only the reply says."""
        self._history_for: tuple[str, str] | None = None
        """(table, why) the match history was last asked for."""
        self._history_due = False
        """A ``history`` was asked for and has not been answered (nor failed) yet."""
        self._history_failed: str | None = None
        """Why the last ``history`` brought no hands (None: it did, or none was asked)."""
        self._reveal_held: SeedsRevealed | None = None
        """A ``seeds_revealed`` whose check waits for :attr:`_history_due`'s answer."""
        self._reveal_timer: Timer | None = None
        """Ends the wait of :attr:`_reveal_held` after :data:`HISTORY_WAIT` seconds."""
        at_table = getattr(session, "table", None) is not None
        self.take_back_by_key = (
            take_back and mode == "join" and session is not None and not at_table
        )
        """Whether the lobby's first listing is still to come for a client that started at no
        table (no seat token, or a refused one): the player key's one away seat it shows is
        taken back by itself, as a token would have; while a seat of the key is connected
        elsewhere, the next listings decide, for ``TAKE_BACK_WAIT`` at most (``LobbyScreen``).
        Never with ``take_back`` False: a door's window opened for the lobby only (the seat
        stays with the player's other window, :data:`client.session.DOOR_LOBBY_ONLY_ENV`)."""
        self._stale_token_held = False
        """A ``bad_token`` came while the lobby may still take a seat back by the player key:
        told once it has looked, if it finds none (:meth:`stale_token_settled`)."""
        self._match_known: tuple[str, int] | None = None
        """(table, match) of the last ``history`` reply (the model forgets the match when a
        new one begins, until that one's reply): whose deals are checked when a reply of the
        same table names a later one (:meth:`_check_earlier`)."""
        if session is not None:
            self.status = session.status

    @property
    def suspends(self) -> bool:
        """Whether Ctrl+Z puts the client in the background here, for a shell's ``fg`` to bring
        back (:func:`client.terminal.can_suspend`): never in a door, whose client runs on the
        server with no shell of the player's."""
        return not self.door and terminal.can_suspend()

    def action_suspend_process(self) -> None:
        """Ctrl+Z: into the background where a shell brings the client back; elsewhere say
        why not (the SSH door's child stopped for good, its session frozen on a blank screen;
        in the browser door the key did nothing)."""
        if self.suspends:
            super().action_suspend_process()
            return
        where = (
            "it runs on the server, with no shell of yours to come back to"
            if self.door
            else "it was not started from a shell that could bring it back (fg)"
        )
        self.notify(f"Ctrl+Z does not suspend the game here: {where}.", title="Not suspended")

    @property
    def address(self) -> str:
        """``host:port`` of the server, or ``offline``."""
        if self.session is None:
            return "offline"
        return config.format_address(self.session.host, self.session.port)

    def on_mount(self) -> None:
        """Open the first screen and start reading the session's events."""
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
        if self.settings.problems:
            self.notify(
                "Settings file: " + "; ".join(self.settings.problems), severity="warning", timeout=8
            )
        renamed = renamed_text(self.session)
        if renamed is not None:
            self.notify(renamed, title="Your name here", timeout=10)
        if self.session is not None:
            self.pump_events()
            if self.mode == "watch" and self.watch_table is not None:
                self.watch_request(self.watch_table)
        if not self.is_headless:
            self._watch_terminal()
            self._write_terminal(SAVE_TITLE)

    # ------------------------------------------------------------------ the terminal

    def on_resize(self, event: events.Resize) -> None:
        """Warn once each time the terminal becomes smaller than the table needs."""
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        if small and not self._too_small:
            self.notify(
                too_small_text(width, height),
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
            self._handle_safely(await events.get())

    def _handle_safely(self, msg: Message) -> None:
        try:
            self.handle_message(msg)
        except Exception as exc:  # a message we cannot read must not stop the client
            self.log.error(f"message ignored: {msg!r}: {exc!r}")
            self.notify(f"A server message could not be shown: {exc}", severity="error")

    def _tell_notice(self, msg: Mapping[str, Any], my_seat: int | None = None) -> None:
        """A notice in a pop-up, as the log says it: one about this client's own seat (or
        ``my_seat``, the seat a join's reply gave) in the second person, a long one in a few
        words, for longer (the log has it whole)."""
        text = self.model.notice_short(msg, my_seat)
        timeout = 4 if text == self.model.notice_text(msg, my_seat) else 10
        self.notify(text, title="Notice", timeout=timeout)

    @work(group="requests", exit_on_error=False)
    async def watch_request(self, table: str) -> None:
        """Spectate ``table`` (``sheepshead watch --table``; a password is asked for)."""
        await self.enter_table("watch", table, f"table {table}")

    async def _table_name(self, table: str, label: str) -> str:
        """The name the lobby's list gives ``table``, else ``label``: the password dialog of
        ``watch --table t1`` said "Password for table t1:", the id the lobby shows in a
        column of its own."""
        listed = await self.call("list_tables", quiet_lost=True, about="the lobby")
        for entry in listed.get("tables") or [] if listed is not None else []:
            if entry.get("id") == table and entry.get("name"):
                return str(entry["name"])
        return label

    def handle_message(self, msg: Mapping[str, Any]) -> Change:
        """Apply one server event to the model and tell the screens."""
        kind = msg.get("type")
        if kind == "connection":
            old, self.status = self.status, str(msg.get("status", "offline"))
            change = self.model.connection_changed(old, self.status)
            if self.status == "connected" and old == "reconnecting":
                self._history_for = None  # ask again: hands may have ended meanwhile
                self.deals.reconnected()
        elif kind == "notice" and self._about_table_left(msg):
            # "Ann started a new match at this table" popped up in the lobby, about a table
            # the player had just left; the model is another table's (or none) by now.
            self.log.info(f"notice of a table left: {msg.get('text')!r}")
            return Change.NONE
        else:
            change = self.model.apply(msg)
        if kind == "notice" and msg.get("code") == REPLACED:
            pass  # the table_lost that follows says it in a pop-up, with the lobby shown
        elif kind == "notice" and msg.get("code") == "joined" and self._joining is not None:
            if msg.get("table") in (None, self._joining):
                self._joined_held.append(msg)  # told as the join's reply comes
            else:
                self._tell_notice(msg)
        elif kind == "notice" and msg.get("code") == "table_closed":
            change |= self._table_closed(msg)
        elif kind == "notice":
            self._tell_notice(msg)
            if msg.get("code") == "rematch":
                self._history_for = None
        elif kind == "error" and msg.get("code") == errors.SERVER_SHUTDOWN:
            # As the log says it: the server's own text said "reconnect later", a chore this
            # client does by itself, in a red pop-up beside the log's calm line.
            self.notify(SHUTDOWN_LINE, title="Server restarting", severity="warning", timeout=8)
        elif kind == "error" and msg.get("code") == errors.BAD_TOKEN and not self._at_table():
            self._stale_token()
        elif kind == "error":  # the model's log line keeps the message and code
            code, message = str(msg.get("code") or ""), str(msg.get("message") or "")
            self.notify(table_refusal(code, message, self.model), severity="error")
        elif kind == "commitment":
            self._answer_commitment(cast(Commitment, msg))
        elif kind == "seeds_revealed":
            self._check_deals(cast(SeedsRevealed, msg))
        elif kind == "table_lost":
            change |= self._table_lost(msg)
        if kind == "state":
            self.deals.on_state(cast(State, msg))
            self._show_table()
            self._want_history()
        if change & Change.PROMPT or kind == "state":
            self._turn_alert()
        if self.model.rematches != self._rematches_seen:
            self._rematches_seen = self.model.rematches
            self._close_match_panels()
        self.model_changed.publish(change)
        return change

    def _about_table_left(self, msg: Mapping[str, Any]) -> bool:
        """Whether ``msg`` is about the table this client has left (:attr:`left_table`)."""
        table = msg.get("table")
        return table is not None and table == self.left_table

    def _at_table(self) -> bool:
        """Whether a table screen is open (the lobby's keys are not the ones to name)."""
        return any(isinstance(s, TableScreen) for s in self.screen_stack)

    def _stale_token(self) -> None:
        """The seat token this client kept was refused (``bad_token``) while it is in the
        lobby: said in the lobby's words; while the lobby may still take a seat of the player
        key back (:attr:`take_back_by_key`), held until it has looked (a seat found and taken
        back would make it untrue): :meth:`stale_token_settled`."""
        if self.take_back_by_key:
            self._stale_token_held = True
            return
        self.notify(STALE_TOKEN_IN_LOBBY, title="Seat gone", severity="error", timeout=10)

    def stale_token_settled(self, *, seat_found: bool) -> None:
        """The lobby's first look for a seat of the player key is over: a stale token held by
        :meth:`_stale_token` is told now, unless a seat of the key was found (taken back, or
        held by another window of the player's)."""
        held, self._stale_token_held = self._stale_token_held, False
        if held and not seat_found:
            self.notify(STALE_TOKEN_IN_LOBBY, title="Seat gone", severity="error", timeout=10)

    def _table_lost(self, msg: Mapping[str, Any]) -> Change:
        """The reconnect did not get this client back to its table (the session's
        ``table_lost``): say what happened and that the lobby shows now, and show it (a table
        screen left up would go on showing a table this client no longer hears from)."""
        table = str(msg.get("table") or "")
        name = self.model.info.get("name") if self.model.table == table else None
        label = str(name or f"table {table}")
        code, message = str(msg.get("code") or ""), str(msg.get("message") or "")
        if code == REPLACED:  # not a failed reconnect: the player chose to sit elsewhere
            text = f"Your seat at {label} moved to another window or device of yours."
        else:
            what = "watch" if msg.get("seat") is None else "take your seat back at"
            text = (
                f"You could not {what} {label} again after the reconnect. "
                f"{refusal_text(code, message, label)}"
            )
        lobby = any(isinstance(s, LobbyScreen) for s in self.screen_stack)
        if lobby:
            text += " You are back in the lobby."
        self.model.reset()
        if lobby:
            self.model.note_in_lobby("error", text)
        else:  # sheepshead play: the table screen stays, its log the place for it
            self.model.note("error", text)
        title = "Back in the lobby" if lobby else "Not at the table"
        self.notify(text, title=title, severity="error", timeout=15)
        while lobby and not isinstance(self.screen, LobbyScreen):
            # Dismissed, not popped: a dialog a worker awaits (push_screen_wait: the password
            # ask) answers None, where a pop left that worker waiting for ever.
            self.screen.dismiss(None)
        return Change.STATE | Change.PROMPT | Change.LOG

    def _table_closed(self, msg: Mapping[str, Any]) -> Change:
        """The server closed this client's table (its match over and no rematch in time, or
        everyone gone): say so and show the lobby. The table stayed up, dead, its status line
        offering a rematch; Esc's leave was then refused, "The server does not count you at a
        table now"."""
        table = str(msg.get("table") or "")
        lobby = any(isinstance(s, LobbyScreen) for s in self.screen_stack)
        if not lobby or (self.model.table not in (None, table)):
            self._tell_notice(msg)  # sheepshead play has no lobby; another table's is news
            return Change.NONE
        name = self.model.info.get("name")
        label = str(name or f"table {table}")
        why = str(msg.get("text") or "").strip().rstrip(".")
        text = f"{label} has closed" + (f": {why[:1].lower()}{why[1:]}" if why else "")
        text += ". You are back in the lobby."
        self.model.reset()
        self.model.note_in_lobby("notice", text)
        self.notify(text, title="Table closed", timeout=10)
        while not isinstance(self.screen, LobbyScreen):
            self.screen.dismiss(None)  # as a lost table's: a dialog a worker awaits answers
        return Change.STATE | Change.PROMPT | Change.LOG

    def _answer_commitment(self, msg: Commitment) -> None:
        """Send a random client seed for a new deal commitment (PROTOCOL.md §13)."""
        quoted = self.deals.on_commitment(msg)
        seat = self.model.seat
        if quoted is None or seat is None:
            return
        seed = self.deals.new_seed(quoted, seat)
        self.run_worker(self.send_client_seed(quoted, seed), group="requests", exit_on_error=False)

    async def send_client_seed(self, quoted: str, seed: str) -> None:
        """Send our seed for the commitment ``quoted``: a seed the client sends by itself, so
        the person hears of it only when something is wrong with the deal.

        A ``stale`` refusal is not told: the start it answered was called off meanwhile (a
        seat emptied before the deal, which the table's notice says). The host who took a
        rematch as a player left read a red "client_seed refused: That answer came after the
        table had moved on: answer what the status line asks now", about nothing they did.
        """
        with contextlib.suppress(ServerError):
            await self.call(
                "client_seed",
                quiet_lost=True,
                passing=(errors.STALE,),
                commitment=quoted,
                seed=seed,
            )

    def _check_deals(self, msg: SeedsRevealed) -> None:
        """The server revealed its seeds: recompute every deal of the match and say what was
        found. While the ``history`` asked for is still due (it brings the hands that ended
        while this client was away) the check waits for it, :data:`HISTORY_WAIT` at most."""
        if self._history_due and self.session is not None:
            self._reveal_held = msg
            self._reveal_timer = self.set_timer(
                HISTORY_WAIT, lambda: self._release_reveal(late=True)
            )
            return
        self._check_now(msg, self._history_failed)

    def _release_reveal(self, *, late: bool = False) -> None:
        """Check a held reveal now: its history came, failed, or (``late``) is overdue."""
        msg, self._reveal_held = self._reveal_held, None
        if self._reveal_timer is not None:
            self._reveal_timer.stop()
            self._reveal_timer = None
        if msg is None:
            return  # checked already (said once)
        why = self._history_failed
        if late:
            why = f"the server's history had not come {HISTORY_WAIT:g} s after the reveal"
        self._check_now(msg, why)

    def _check_now(
        self,
        msg: SeedsRevealed,
        missing_why: str | None,
        uncovered: Mapping[int, str] | None = None,
    ) -> None:
        """Check the deals of every finished hand the model holds; a hand of the match it does
        not hold is named as not checked, with ``missing_why`` (why its record is not here),
        and so is each of ``uncovered`` (a reveal rebuilt from records without its seeds)."""
        played = (self.model.match_over or {}).get("hands")
        have = {hand.number - 1 for hand in self.model.history}
        why = missing_why or "the server's history does not have it"
        missing = {n: why for n in range(played if isinstance(played, int) else 0) if n not in have}
        missing.update(uncovered or {})
        hands = [hand for hand in self.model.history if hand.number - 1 not in missing]
        self._say_deals("Deals", self.deals.check(msg, hands, missing))

    def _say_deals(self, title: str, verdict: str) -> None:
        """Say the verdict of the check just made (:attr:`deals`), ``title`` first."""
        good = self.deals.verified
        if good is None:
            # Nothing this client saw dealt (it came after the match, or it ended before a
            # deal): nothing wrong, and nothing to say over the table.
            return
        self.model.note("event" if good else "error", f"{title}: {verdict}")
        self.model_changed.publish(Change.LOG)
        # Good news goes in the log and the match-over panel; only a deal that failed pops up,
        # where a toast would otherwise cover the status line and the panel's keys.
        if not good:
            self.notify(verdict, title="Deals", severity="error", timeout=20)

    def _close_match_panels(self) -> None:
        """A new match began at the table: the last match's result and sheets close."""
        while isinstance(
            self.screen, ResultScreen | MatchOverScreen | ScoreSheetScreen | HistoryScreen
        ):
            self.pop_screen()

    # ------------------------------------------------------------------ turn alert

    def _turn_alert(self) -> None:
        """Ring once for each new decision of yours; the terminal title says it is your turn."""
        prompt = self.model.prompt
        if prompt is not None and prompt.seq != self._alerted_seq:
            self._alerted_seq = prompt.seq
            if self.settings.bell:
                self.bells += 1
                self.bell()
        self._set_terminal_title(YOUR_TURN_TITLE if prompt is not None else TITLE)

    def _set_terminal_title(self, title: str) -> None:
        if title == self.terminal_title:
            return
        self.terminal_title = title
        self._write_terminal(f"\x1b]2;{title}\x07")

    def _write_terminal(self, sequence: str) -> None:
        """Send an escape sequence to a real terminal (none in a headless test)."""
        driver = self._driver
        if not self.is_headless and driver is not None:
            driver.write(sequence)

    # ------------------------------------------------------------------ history

    def _want_history(self) -> None:
        """Ask for the match's finished hands once per table (again after a reconnect)."""
        table = self.model.table
        if self.session is None or table is None:
            return
        key = (table, "loaded")
        if self._history_for == key:
            return
        self._history_for = key
        # Due from now (not from when the worker starts): a reveal handled meanwhile waits.
        self._history_due = True
        self.load_history(table)

    @work(group="history", exclusive=True, exit_on_error=False)
    async def load_history(self, table: str | None = None) -> bool:
        """Fill the score sheet and the hand pager from the server's ``history``.

        Returns whether the server answered; an older server without ``history`` leaves the
        hands this client saw itself (nothing is said: it is not the user's doing).
        """
        if self.session is None:
            return False
        try:
            reply = await self.session.history(table)
        except (ServerError, OSError, TimeoutError) as exc:
            self.log.warning(f"history not loaded: {exc}")
            self._history_in(f"the server's history was not loaded ({error_text(exc)})")
            return False
        if reply is None or (table is not None and reply.get("table") not in (None, table)):
            self._history_in("the server sent no history of the match")
            return False
        # The events that came before the reply on the wire (the "You are back" of a
        # reconnect) may still wait in the queue: applied after it, a line the reply's earlier
        # lines already logged was logged a second time.
        while not self.session.events.empty():
            self._handle_safely(self.session.events.get_nowait())
        known = self._match_known
        before = known[1] if known is not None and known[0] == self.model.table else None
        held = list(self.model.history)
        try:
            change = self.model.apply_history(reply)
        except ValueError as exc:
            self.log.error(str(exc))
            self._history_in(f"the server's history could not be read ({exc})")
            return False
        self.model_changed.publish(change)
        if self.model.match is not None:
            self.deals.on_match(self.model.match)
        self._history_in(None)
        now = self.model.match
        if now is not None and self.model.table is not None:
            self._match_known = (self.model.table, now)
        if before is not None and now not in (None, before) and before not in self.deals.results:
            # A match this client was in ended while it was away, and a new one began: its
            # hands held here were put away unchecked (no reveal of it came here; the next
            # one does not cover them).
            left = [h for h in held if not any(h is kept for kept in self.model.history)]
            await self._check_earlier(before, left)
        self._check_from_records(reply)
        return True

    def _check_from_records(self, reply: HistoryPage) -> None:
        """Back after the match's end, this client is not sent its ``seeds_revealed``
        (PROTOCOL.md §13): the match's records in ``reply`` carry the revealed seeds, which
        are checked as the reveal (once a match)."""
        match = self.model.match
        if self.model.match_over is None or match is None or match in self.deals.results:
            return
        entries = [e for e in reply.get("hands") or [] if isinstance(e, Mapping)]
        reveal = _reveal_of(str(reply.get("table")), entries)
        self._check_now(reveal, None, _uncovered(reveal, self.model.history))

    async def _check_earlier(self, match: int, held: list[FinishedHand]) -> None:
        """Check the deals of ``match``, which ended while this client was away (its reveal
        was not sent here), against the seeds its records carry (``history`` of that match):
        the hands of it ``held`` (seen here) and the rest from the records. What cannot be
        checked is said so (the records did not come, or carry no seeds), never a failure."""
        assert self.session is not None
        title = f"Deals of match {match + 1} (it ended while this client was away)"
        try:
            reply = await self.session.history(self.model.table, match=match)
            if reply is not None and reply.get("match") != match:
                reply = None  # an older server answers with the current match
            why = None if reply is not None else "this server keeps only the current match"
        except (ServerError, OSError, TimeoutError) as exc:
            reply, why = None, f"its records were not loaded ({error_text(exc)})"
        got = reply.get("hands") if reply is not None else None
        entries = [e for e in got or [] if isinstance(e, Mapping)]
        names = [seat.name for seat in self.model.seats]
        said = self.deals.check_earlier(
            match, str(self.model.table), held, entries, why, lambda e: hand_from_history(e, names)
        )
        self._say_deals(title, said)

    def _history_in(self, failed: str | None) -> None:
        """The ``history`` asked for was answered (``failed``: why it brought no hands): a
        reveal that waited for it is checked now."""
        self._history_due, self._history_failed = False, failed
        self._release_reveal()

    # ------------------------------------------------------------------ screens

    def open_table(self) -> None:
        """Show the table screen (once: it is never stacked twice)."""
        if not any(isinstance(s, TableScreen) for s in self.screen_stack):
            self.push_screen(TableScreen())

    def open_lobby(self) -> None:
        """Show the lobby."""
        self.push_screen(LobbyScreen())

    def open_result(self, hand: FinishedHand) -> None:
        """Show a hand's result (an open result panel shows this one instead).

        The standings of an ended match give way to it and come back when it closes (a
        client back at an over table learns the last hand after the standings): one panel
        at a time, the hand before the standings, never one half behind the other.
        """
        top = self.screen
        # The open panel may be under the score sheet or history opened from it.
        shown = next((s for s in self.screen_stack if isinstance(s, ResultScreen)), None)
        if shown is not None:
            shown.show(hand)
            return
        if isinstance(top, MatchOverScreen):
            self.pop_screen()
        self.push_screen(ResultScreen(hand))

    def tell_result(self, hand: FinishedHand) -> None:
        """Tell a hand's result in a pop-up, for one the next deal overtook before its panel
        opened (the table screen's Enter still shows the panel, and h every hand)."""
        result = hand.result
        me = self.model.your_seat_in(hand)
        lines = [line.plain for line in result_summary(result, hand.names, me)]
        payouts = result.get("payouts")
        if me is not None and payouts:
            lines.append(f"You {payouts[me]:+d}.")
        lines.append("Enter shows the whole result; h every hand.")
        self.notify("\n".join(lines), title=_result_title(hand), timeout=10)

    def untell_result(self, hand: FinishedHand) -> None:
        """Take back the pop-up of :meth:`tell_result` for ``hand`` (its panel opens: the
        pop-up covered its right half), and no other. Textual (8.2) offers no public way to
        remove one notification: ``clear_notifications`` took a refusal or a notice shown
        beside it too; the private one its own toasts use when clicked does."""
        title = _result_title(hand)
        unnotify = getattr(self, "_unnotify", None)
        if unnotify is None:  # a Textual without it: all pop-ups go, as before
            self.clear_notifications()
            return
        for told in list(self._notifications):
            if told.title == title:
                unnotify(told)

    def open_match_over(self, ending: bool = True) -> None:
        """Show the final standings and the score sheet, or, while a hand's result is open,
        let them follow it (its Enter opens them). ``ending``: as the match ends (its Esc
        then asks to leave), not asked for again from the table."""
        if any(isinstance(s, ResultScreen | MatchOverScreen) for s in self.screen_stack):
            return
        self.close_panels_over_table()
        self.push_screen(MatchOverScreen(ending))

    def close_panels_over_table(self) -> None:
        """Close the panels open over the table (history, score sheet, tricks, rules, help):
        the standings go on the table itself. Opened over a history the player had open as the
        last hand ended, their Esc or Enter showed that history, not the table."""
        while isinstance(
            self.screen, HistoryScreen | ScoreSheetScreen | TricksScreen | RulesScreen | HelpScreen
        ):
            self.pop_screen()

    def open_history(self) -> None:
        """Show the match's hands, one per page."""
        self.push_screen(HistoryScreen())

    def open_score_sheet(self) -> None:
        """Show the score sheet of the match."""
        self.push_screen(ScoreSheetScreen())

    def open_tricks(self) -> None:
        """Show the tricks of this hand."""
        self.push_screen(TricksScreen())

    def open_rules(self) -> None:
        """Show the table's rules."""
        self.push_screen(RulesScreen())

    def open_help(self) -> None:
        """Show every key."""
        self.push_screen(HelpScreen())

    def open_chat(self, then: Callable[[str | None], None]) -> None:
        """Ask for a chat line; ``then`` gets it (None when closed)."""
        self.push_screen(ChatDialog(self.model), then)

    def open_bury(
        self,
        then: Callable[[list[str] | ActionMap | None], None],
        chosen: list[str] | None = None,
    ) -> None:
        """Open the bury dialog for the pending bury; ``then`` gets the cards (None: later; a
        blitz action map when the picker blitzes first).
        ``chosen`` is kept up to date with the choice, so Esc and b again keep it."""
        model = self.model
        if isinstance(self.screen, BuryDialog):
            return
        self._result_gives_way()
        decision = model.decision_key()
        answered = self._while_pending(decision, then)
        self.push_screen(
            BuryDialog(
                model.hand,
                model.legal,
                blind=model.blind_cards,
                chosen=chosen,
                rules=(model.view or {}).get("rules") or model.info.get("rules") or {},
                seat=model.my_seat,
                hints=bool(model.info.get("hints")),
                decision=decision,
            ),
            answered,
        )

    def open_call(self, then: Callable[[ActionMap | None], None]) -> None:
        """Open the call dialog for the pending call; ``then`` gets the action (None: later)."""
        model = self.model
        if isinstance(self.screen, CallDialog):
            return
        self._result_gives_way()
        rules = (model.view or {}).get("rules") or {}
        hints = bool(model.info.get("hints"))
        decision = model.decision_key()
        dialog = CallDialog(model.hand, model.legal, rules, hints=hints, decision=decision)
        self.push_screen(dialog, self._while_pending(decision, then))

    def _result_gives_way(self) -> None:
        """The next hand's bury or call dialog is opening: the last hand's result panel closes
        first, with what was opened over it (history, score sheet). Left under the dialog, its
        "▶ Your turn in the next hand: Enter closes this panel" was read through the dialog,
        where Enter buries (the turn timer had picked for a player away from the table); the
        result is still in the history (h)."""
        while any(isinstance(s, ResultScreen) for s in self.screen_stack[1:]):
            self.screen.dismiss(None)

    def _while_pending(
        self, decision: object, then: Callable[[Any], None]
    ) -> Callable[[Any], None]:
        """``then`` for a dialog's answer to ``decision``: an answer that comes when that is no
        longer the pending decision is None (it would be taken for a later one)."""

        def answered(answer: object) -> None:
            then(answer if self.model.decision_key() == decision else None)

        return answered

    def table_action(self, action: str) -> None:
        """Run a key's action of the table screen (from a panel over it)."""
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                getattr(screen, f"action_{action}")()

    def close_stale_dialog(self) -> None:
        """Close each dialog (bury, call, or a question about a decision) whose decision is no
        longer the pending one, with the dialogs over it: one left open under the "go
        alone?" question outlived its hand, and a later hand's call with the same choices
        was answered from it."""
        pending = self.model.decision_key()
        stale = [
            screen
            for screen in self.screen_stack
            if getattr(screen, "answers_decision", None) not in (None, pending)
        ]
        if stale:
            while stale[0] in self.screen_stack and len(self.screen_stack) > 1:
                self.screen.dismiss(None)

    def confirm(self, question: str, then: Callable[[], object], decision: object = None) -> None:
        """Ask ``question``; on yes, do ``then``. A question about the ``decision`` pending
        now (:meth:`TableModel.decision_key`) closes unanswered when that decision is gone."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.push_screen(ConfirmDialog(question, decision), answered)

    def open_create_table(self, name: str, then: Callable[[dict[str, Any] | None], None]) -> None:
        """Ask for a new table's settings."""
        self.push_screen(CreateTableDialog(name), then)

    async def ask_password(self, label: str) -> str | None:
        """Ask for the password of the table called ``label`` (None: the dialog was closed).
        Run it from a worker."""
        return await self.push_screen_wait(PasswordDialog(label))

    def _show_table(self) -> None:
        if any(isinstance(s, TableScreen) for s in self.screen_stack):
            return
        if isinstance(self.screen, LobbyScreen) or not self.screen_stack:
            self.open_table()

    # ------------------------------------------------------------------ network

    # The reply's type follows from the request's, as for Session.request.
    @overload
    async def call(
        self,
        request: Literal["list_tables"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> TableList | None: ...
    @overload
    async def call(
        self,
        request: Literal["create_table"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> TableCreated | None: ...
    @overload
    async def call(
        self,
        request: Literal["join"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> Joined | None: ...
    @overload
    async def call(
        self,
        request: Literal["watch"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> Watching | None: ...
    @overload
    async def call(
        self,
        request: Literal["add_bot"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> BotAdded | None: ...
    @overload
    async def call(
        self,
        request: Literal["hint"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> HintReply | None: ...
    @overload
    async def call(
        self,
        request: Literal["review"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> ReviewReply | None: ...
    @overload
    async def call(
        self,
        request: Literal["standings"],
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> StandingsReply | None: ...
    @overload
    async def call(
        self,
        request: str,
        *,
        quiet_lost: bool = ...,
        passing: tuple[str, ...] = ...,
        about: str | None = ...,
        **fields: Any,
    ) -> OkReply | None: ...
    async def call(
        self,
        request: str,
        *,
        quiet_lost: bool = False,
        passing: tuple[str, ...] = (),
        about: str | None = None,
        **fields: Any,
    ) -> OkReply | None:
        """Send a request; on an error tell the user and return None.

        ``quiet_lost``: a lost connection is not told (for requests the user did not ask for;
        the title bar shows the connection). ``passing``: refusals with these codes are raised
        (:class:`ServerError`) for the caller to handle, not told. ``about``: a lobby request
        about the table called so: a refusal is told in the sentence of
        :data:`LOBBY_REFUSALS` (None: as the server's message and code).
        """
        if request == "leave":
            self.left_table = self.model.table
        elif request in ("join", "watch", "create_table"):
            self.left_table = None  # back at a table: its notices are news again
        if self.session is None:
            self.outbox.append({"type": request, **fields})
            return cast(OkReply, {"type": "ok"})  # offline (tests): nothing to answer
        try:
            return await self.session.request(request, **fields)
        except ConnectionLost as exc:
            if not quiet_lost:
                self.notify(
                    table_refusal(exc.code, exc.message), title="Not sent", severity="error"
                )
        except ServerError as exc:
            if exc.code in passing:
                raise
            if about is None:
                self._refused(exc, f"{request} refused")
            else:
                self.notify(
                    refusal_text(exc.code, exc.message, about),
                    title=refusal_title(exc.code, request),
                    severity="error",
                    timeout=8,
                )
        except TimeoutError:
            # The session's request timeout: a TimeoutError says nothing more ("()" was shown).
            self.notify(f"{request} failed: the server did not answer in time", severity="error")
        except OSError as exc:
            self.notify(f"{request} failed: no answer from the server ({exc})", severity="error")
        return None

    async def enter_table(
        self,
        request: Literal["join", "watch"],
        table: str,
        label: str,
        password: str | None = None,
        **fields: Any,
    ) -> Joined | Watching | None:
        """Join or watch ``table`` (called ``label`` in the password dialog and in the
        refusal's sentence, :data:`LOBBY_REFUSALS`): the ``ok`` reply, or None when it was
        refused (the user is told why) or the password dialog was closed.

        A table that needs a password asks for it, again after a wrong one; too many attempts
        say to wait. Run it from a worker (the password dialog is awaited).
        """
        # Back at a table left for the lobby, its history is asked for again: the model forgot
        # it there, and a watcher's score sheet said no hand had finished.
        self._history_for = None
        while True:
            # The server tells the table "Ann took seat 1" before it answers the join: to
            # the joiner, whose seat only the reply names, that read as somebody else's.
            self._joining, self._joined_held = (table if request == "join" else None), []
            try:
                reply = await self.call(
                    request,
                    passing=(errors.BAD_PASSWORD,),
                    about=label,
                    table=table,
                    password=password,
                    **fields,
                )
                self._joining = None
                seat = None if reply is None else reply.get("seat")
                for held in self._joined_held:
                    self._tell_notice(held, seat if isinstance(seat, int) else None)
                # mypy picks call's str overload for a union of literals.
                return cast("Joined | Watching | None", reply)
            except ServerError:  # bad_password: asked for (again)
                self._joining = None
                if label == f"table {table}":  # only the id is known (watch --table)
                    label = await self._table_name(table, label)
                if password is not None:
                    self.notify(
                        f"That is not the password of {label}: try again, or Esc to give up.",
                        title="Wrong password",
                        severity="error",
                    )
            password = await self.ask_password(label)
            if password is None:
                return None

    async def act(
        self, action: ActionMap, seq: int | None = None, taken: Prompt | None = None
    ) -> bool:
        """Answer the pending decision; the prompt is cleared at once so a key can't send twice.

        ``seq`` is the seq of the prompt the action was chosen from (default: the pending
        prompt's): an answer that comes after the turn timer moved on is refused as ``stale``.
        ``taken``: the prompt the caller took already (``TableModel.take_prompt``), put back
        as the pending one's would be if the answer is not sent.
        """
        prompt = self.model.take_prompt()
        if prompt is None:
            prompt = taken
        if seq is None and prompt is not None:
            seq = prompt.seq
        self.model_changed.publish(Change.PROMPT)
        self._turn_alert()
        if self.session is None:
            self.outbox.append(dict(action))
            return True
        try:
            await self.session.act(dict(action), seq=seq)
        except Exception as exc:
            if self.model.restore_prompt(prompt):
                self.model_changed.publish(Change.PROMPT)
                self._turn_alert()
            if isinstance(exc, OSError | TimeoutError) and not isinstance(exc, ConnectionLost):
                exc = ConnectionLost(f"the connection dropped ({exc!r})")
            if isinstance(exc, ConnectionLost):
                # A sentence, as any refusal (it read "Not sent, the connection dropped:
                # connection_lost: Not connected to the server"); the log keeps the code.
                self._refused(exc, "Not sent")
                return False
            if not isinstance(exc, ServerError):
                raise
            self._refused(exc, "Not allowed")
            return False
        return True

    def _refused(self, exc: ServerError, title: str) -> None:
        """Tell a refusal at the table in a pop-up as a sentence (:func:`table_refusal`);
        the table's log keeps the server's message and code, for a bug report."""
        if self.model.table is not None:
            self.model.note("error", f"{title}: {error_text(exc)}")
            self.model_changed.publish(Change.LOG)
        self.notify(table_refusal(exc.code, exc.message, self.model), title=title, severity="error")

    # ------------------------------------------------------------------ records

    def export_hand(self, hand: FinishedHand) -> Path | None:
        """Write a finished hand's record as JSON under the data directory; return the path.
        In a door (:attr:`door`), show the record to copy instead and return None."""
        try:
            record = hand.to_record()
        except (ValueError, KeyError, TypeError) as exc:
            self.notify(f"cannot export this hand: {exc}", severity="error")
            return None
        fair = self.deals.fair_for(hand.number - 1, self.model.match)
        if fair is not None:  # the seeds are revealed: `sheepshead verify` can check it
            record = {**record, "fair": fair}
        if self.door:
            self.push_screen(RecordScreen(hand.number, json.dumps(record, indent=1) + "\n"))
            return None
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
        exports.enforce_quota(folder, keep=path)
        self.notify(f"Hand {hand.number} saved to {path}", title="Exported", timeout=8)
        return path

    async def rematch(self) -> bool:
        """Host: start a new match at this table with the same seats (an older server cannot)."""
        if self.session is None:
            self.outbox.append({"type": "rematch"})
            return True
        try:
            await self.session.request("rematch")
        except ServerError as exc:
            if exc.code == "unknown_type":
                self.notify(
                    "This server cannot start a rematch: create a new table in the lobby.",
                    severity="warning",
                )
            else:
                self._refused(exc, "rematch refused")
            return False
        except (OSError, TimeoutError) as exc:
            self.notify(f"rematch failed: {exc}", severity="error")
            return False
        return True

    async def action_quit(self) -> None:
        """Close the connection and leave."""
        await self._leave(0)

    async def _leave(self, code: int) -> None:
        """Close the connection (for two seconds at most) and exit with ``code``."""
        if self._leaving:
            return
        self._leaving = True
        self._write_terminal(RESTORE_TITLE)
        if self.session is not None:
            with contextlib.suppress(TimeoutError, OSError):
                await asyncio.wait_for(self.session.close(), 2)
        self.exit(code, return_code=code)
