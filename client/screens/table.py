"""The table screen: five seats around the trick, your hand, what to do now, the log.

Keys: 1–8 choose a card (play it when it is legal), ←/→ move the cursor and Enter plays it;
p pick, s pass, b bury, c call, a alone (asks first); in the crack round c cracks (or
re-cracks), w cracks showing your queen pair, n declines; + / - add or remove a bot and g start
(host, before the match); l last trick, h history, k score sheet, x export the last hand, t chat,
r rules, i a hint from the coach (tables with hints), ? help, Esc lobby (asks first), q quit.
Every decision comes from the ``legal`` list of the server's ``your_turn``; which decision keys
are live is :func:`client.decisions.live_decisions`.

No card is chosen at the start of a hand or after any dialog closes, and Enter with no card
chosen does nothing: a key meant for a closing panel never plays a card.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, RichLog

from client.coach import choice_actions, hint_text
from client.decisions import DECISION_VERBS, DECISIONS, is_decision, live_decisions
from client.model import Change, FinishedHand, LogEntry, Prompt, TableModel, plural
from client.screens.base import CONNECTION_DOWN, GameScreen, game_of, turn_clock
from client.screens.dialogs import ALONE_QUESTION, BuryDialog, CallDialog, hand_over_key
from client.widgets.base import KeyFooter, Panel
from client.widgets.buttons import KeyButton
from client.widgets.cards import card_label, cards_label
from client.widgets.hand import CardWidget, HandBar
from client.widgets.table import HandInfo, LastTrickBox, SeatBox, SizedPanel, TrickView
from engine.rules import preset_title
from protocol.events import ActionMap

WIDE = 110
"""Terminal width from which the seats and the log get more room."""

HUGE = (120, 40)
"""Terminal size from which the log column grows with the window."""

MIN_WIDTH, MIN_HEIGHT = 80, 24
"""Below these the log (narrow) or the seats' last lines (short) give way to the trick."""


def clock() -> float:
    """Seconds on a clock that only goes forward (the trick pause is timed with it)."""
    return time.monotonic()


LOG_STYLES = {"chat": "bold", "notice": "italic", "error": "bold reverse", "event": ""}
"""Rich style of each kind of log line (styles, not colours, so they read with NO_COLOR)."""


class TopBar(SizedPanel):
    """Table name, rules, hand number, running state and the connection status, fitted to the
    bar's width: drawn again when it is laid out or resized (a table screen opened straight
    away, back at a seat, was drawn before its layout for 80 columns, and "● connected" sat
    at column 80 of a 142-column window until the next server event)."""

    def draw(self, model: TableModel) -> None:
        """Redraw from the model and the app's connection status."""
        game = game_of(self)
        status, address = game.status, game.address
        info = model.info
        rules_map = info.get("rules") or (model.view or {}).get("rules") or {}
        rules = preset_title(str(rules_map.get("preset", "seed")))
        options = rules_map.get("options")
        changed = len(options) if isinstance(options, Mapping) else len(rules_map) - 1
        if changed > 0:
            # Not the preset as it stands: "Wisconsin (standard)" said so of a table that
            # passes to a doubler with J♦ the partner (r lists what differs).
            rules = f"{rules.split(' (')[0]} +{plural(changed, 'option')}"
        name = info.get("name") or model.table or "table"
        head = Text(" ♣ Sheepshead", style="bold")
        about = Text(f" · {name} · {rules}")
        watching = Text()
        if model.my_seat is None and (model.view is not None or model.table is not None):
            # From the first state: before the match begins too (it said nothing of it then).
            watching = Text(" · watching", style="bold")
        marks = {
            "connected": ("● ", ""),
            "connecting": ("○ ", "bold"),
            "reconnecting": ("◌ ", "bold reverse"),
            "closed": ("✗ ", "bold reverse"),
            "offline": ("· ", "dim"),
        }
        mark, style = marks.get(status, ("? ", ""))
        right = Text(f"{mark}{status}", style=style)
        width = self.size.width or 80
        fixed = head.cell_len + watching.cell_len
        if status in ("reconnecting", "closed"):
            # The address only where it fits: at 80 columns beside a long table name it was
            # cut to "reconnecting to" (the status line says what is going on anyway).
            told = Text(f"{mark}{status} to {address}", style=style)
            if fixed + about.cell_len + told.cell_len + 2 <= width:
                right = told
        if fixed + about.cell_len + right.cell_len + 2 > width:
            # The connection's status and "watching" are never the parts cut: the table's
            # name and rules give way.
            about.truncate(max(1, width - fixed - right.cell_len - 2), overflow="ellipsis")
        left = head + about + watching
        pad = max(1, width - left.cell_len - right.cell_len - 1)
        self.show_text(left + Text(" " * pad) + right)


def play_keys(hand: Sequence[str], playable: Collection[str]) -> str:
    """The number keys of the playable cards of ``hand``, as short as one status line needs:
    ``1-6`` when all are, runs like ``1-2, 5``, and the card itself when one is (``3 (A♦)``).

    The status line said "1-6" when only one card could follow suit; the other keys are
    refused.

    >>> play_keys(["QC", "JD", "AD", "7S"], ["QC", "JD", "AD", "7S"])
    '1-4'
    >>> play_keys(["QC", "JD", "AD", "7S", "8S"], ["QC", "JD", "8S"])
    '1-2, 5'
    >>> play_keys(["QC", "AD", "7S"], ["AD"])
    '2 (A♦)'
    """
    keys = [i + 1 for i, code in enumerate(hand) if code in playable]
    if len(keys) == 1:
        return f"{keys[0]} ({card_label(hand[keys[0] - 1])})"
    runs: list[list[int]] = []
    for key in keys:
        if runs and runs[-1][-1] == key - 1:
            runs[-1].append(key)
        else:
            runs.append([key])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


class TableScreen(GameScreen[None]):
    """Where the game is played (or watched)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"card({n - 1})", f"card {n}", show=False) for n in range(1, 9)),
        Binding("left", "move(-1)", "previous card", show=False),
        Binding("right", "move(1)", "next card", show=False),
        Binding("enter", "confirm", "play", show=False),
        Binding("p", "pick", "Pick", show=False),
        Binding("s", "pass_blind", "Pass", show=False),
        Binding("b", "bury", "Bury", show=False),
        Binding("c", "call", "Call", show=False),
        Binding("a", "alone", "Alone", show=False),
        Binding("n", "no_crack", "No crack", show=False),
        Binding("w", "crack_pair", "Crack with queens", show=False),
        Binding("plus,equals_sign", "add_bot", "Add bot", show=False),
        Binding("minus", "remove_bot", "Remove bot", show=False),
        Binding("g", "start", "Start", show=False),
        Binding("e", "end_match", "End match", show=False),
        # At match over: no crack round then. After g and e, so help's row lists the keys in
        # the order it names them ("g e n  host: start / end / rematch"; n read as start).
        Binding("n", "rematch", "Rematch", show=False),
        Binding("l", "last_trick", "Last trick"),
        Binding("h", "history", "History"),
        Binding("k", "score_sheet", "Score"),
        Binding("x", "export", "Export", show=False),
        Binding("t", "chat", "Chat"),
        Binding("r", "rules", "Rules"),
        Binding("i", "hint", "Hint", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "leave", "Lobby"),
        Binding("q", "quit_app", "Quit"),
    ]

    cursor: reactive[int | None] = reactive(None, init=False)
    """Index of the card under the cursor in your hand; None: no card chosen."""

    def __init__(self) -> None:
        super().__init__()
        self._timer: Timer | None = None
        self._log_written = 0
        self._log_rewrites = 0
        self._dialog_for: int | None = None
        self._shown_result: object | None = None
        self._warning: tuple[object, str] | None = None
        """A refusal shown in the status line, with the situation it was about."""
        self._hint: tuple[object, str] | None = None
        """The coach's advice shown in the status line, with the decision it is about
        (:meth:`TableModel.decision_key`)."""
        self._hand_key: object = None
        self._hold_key: object = None
        self._hold_until = 0.0
        self._result_due: FinishedHand | None = None
        """A hand's result waiting for its last trick to have been seen."""
        self._missed_result: FinishedHand | None = None
        """A result the next deal overtook before it was opened (:meth:`_result_overtaken`):
        Enter shows it until the next hand is over."""
        self._match_over_due = False
        """Whether the match-over panel waits for the last trick to be seen (then the result)."""
        self._bury_choice: tuple[int | None, list[str]] = (None, [])
        """The prompt seq and the cards chosen in the bury dialog so far."""
        self._esc_is_chats = False
        """Whether the chat box was opened and no key has reached the table since."""

    def compose(self) -> ComposeResult:
        """The felt on the left, the log on the right, your hand and the status below."""
        yield TopBar(id="topbar")
        with Horizontal(id="main"):
            with Grid(id="felt"):
                yield SeatBox(2)
                yield HandInfo()
                yield SeatBox(3)
                yield SeatBox(1)
                yield TrickView()
                yield SeatBox(4)
                yield LastTrickBox()
                yield SeatBox(0)
                with Vertical(id="actions"):
                    yield KeyButton("Pick  p", id="btn-pick", variant="success")
                    yield KeyButton("Pass  s", id="btn-pass", variant="error")
                    yield KeyButton("Bury… b", id="btn-bury", variant="primary")
                    yield KeyButton("Call… c", id="btn-call", variant="primary")
                    yield KeyButton("Alone a", id="btn-alone")
                    yield KeyButton("Crack  c", id="btn-crack", variant="warning")
                    yield KeyButton("Crack+Q w", id="btn-crack-pair", variant="warning")
                    yield KeyButton("Re-crack c", id="btn-recrack", variant="warning")
                    yield KeyButton("No  n", id="btn-no-crack")
                    yield KeyButton("+ Bot", id="btn-add-bot")
                    yield KeyButton("Start g", id="btn-start", variant="success")
                    yield KeyButton("Result ⏎", id="btn-result")
            log = RichLog(
                id="log", wrap=True, markup=False, auto_scroll=True, max_lines=300, min_width=10
            )
            log.can_focus = False  # the arrow keys belong to the card cursor
            yield log
        yield HandBar(id="hand")
        yield Panel(id="status")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Subscribe to model changes and draw what is known."""
        self.game.model_changed.subscribe(self, self.on_model_changed)
        self.watch(self.app, "status", self._on_status, init=False)
        self._timer = self.set_interval(0.5, self._tick, pause=True)
        self.redraw(~Change.NONE)
        # The action buttons sit three containers down, and this Mount can come before they
        # are mounted (a watcher's table opened while the app awaited a request: the first
        # draw failed with "No nodes match '#btn-result'"): they are drawn again after.
        self.call_after_refresh(self._draw_actions)

    def on_screen_resume(self) -> None:
        """Back from a dialog or panel: no card is chosen, so the key that closed it (or the
        next one) cannot play a card nobody meant."""
        self._choose(None)

    def on_screen_suspend(self) -> None:
        """A panel opened over the table: the status line says what Enter does under it (it
        said "Enter standings" with the standings already open)."""
        if self.is_mounted:
            self._draw_status()

    def _on_status(self, _old: str, _new: str) -> None:
        self.redraw(Change.CONNECTION)

    def on_model_changed(self, change: Change) -> None:
        """Redraw after a server message."""
        self.redraw(change)

    def on_resize(self, event: events.Resize) -> None:
        """Wider seats and log on wide terminals (the panels redraw themselves for their size);
        on a small one the log goes first, so the trick and your hand keep their room."""
        width, height = event.size.width, event.size.height
        self.set_class(width >= WIDE, "-wide")
        self.set_class(width >= HUGE[0] and height >= HUGE[1], "-huge")
        self.set_class(width < MIN_WIDTH, "-narrow")
        self.set_class(height < MIN_HEIGHT, "-short")

    # ------------------------------------------------------------------ drawing

    def redraw(self, change: Change) -> None:
        """Redraw the parts ``change`` touches."""
        model = self.model
        game = self.game
        self.query_one(TopBar).draw(model)
        if change & (Change.STATE | Change.PROMPT | Change.HAND_OVER | Change.MATCH_OVER):
            self._new_hand_check()
            self._result_overtaken()
            settings = game.settings
            for box in self.query(SeatBox):
                box.hide_points = settings.hide_card_points
                box.draw(model)
            trick = self.query_one(TrickView)
            trick.held = self._held_trick()
            trick.draw(model)
            self.query_one(HandInfo).draw(model)
            self.query_one(LastTrickBox).draw(model)
            self._draw_hand()
            self._draw_actions()
        self._draw_log()
        self._draw_status()
        if change & Change.PROMPT:
            self._sync_decision_dialog()
        if model.pending_result is not None and model.pending_result is not self._shown_result:
            self._show_result()
        if change & Change.MATCH_OVER:
            self.refresh_bindings()  # h and k hide after a match with no hand (check_action)
        if change & Change.MATCH_OVER and model.match_over is not None:
            self._show_match_over()

    def _new_hand_check(self) -> None:
        """A new deal: no card is chosen."""
        view = self.model.view or {}
        key = (self.model.table, self.model.hand_number, view.get("dealer"))
        if key != self._hand_key:
            self._hand_key = key
            self.cursor = None

    def _result_overtaken(self) -> None:
        """The next hand was dealt while the last one's result waited for its last trick to
        be seen (a trick pause longer than the server's pause between hands): the result is
        not opened over the new hand's auction, where it popped up as the player chose, but
        told in a pop-up that says Enter shows it whole (and h has every hand)."""
        due = self._result_due
        if due is None or self.model.view is None or self.model.phase == "done":
            return
        self._result_due = None
        self._missed_result = due
        self.game.tell_result(due)

    def _held_trick(self) -> dict[str, Any] | None:
        """The finished trick the centre still shows, or None for the trick in progress.

        A finished trick stays until the next card is led and the ``trick_pause`` setting has
        passed since it was completed; the hand's last trick stays while the hand is over.
        """
        view = self.model.view or {}
        tricks = view.get("tricks") or []
        phase = view.get("phase")
        if not tricks or phase not in ("play", "done"):
            self._hold_key = None
            return None
        current = (view.get("trick") or {}).get("cards") or []
        key = (self._hand_key, len(tricks))
        now = clock()
        if key != self._hold_key:
            self._hold_key = key
            pause = self.game.settings.trick_pause
            if current and phase == "play":
                self._hold_until = 0.0  # came in mid-trick (a reconnect): nothing to hold
            else:
                self._hold_until = now + pause
                if pause > 0:
                    self.set_timer(pause + 0.01, self._hold_over)
        if phase == "done" or not current or now < self._hold_until:
            return dict(tricks[-1])
        return None

    def _hold_over(self) -> None:
        """The trick pause ran out: show the trick in progress, or the result that waited."""
        if not self.is_attached:
            return
        self.redraw(Change.STATE)
        due = self._result_due
        if due is not None and clock() >= self._hold_until:
            self._result_due = None
            self._open_result(due)
            if self._match_over_due:
                self._match_over_due = False
                self._show_match_over()

    def _draw_hand(self) -> None:
        model = self.model
        codes = model.hand
        if self.cursor is not None and self.cursor >= len(codes):
            self.cursor = None
        legal = model.legal_cards
        bar = self.query_one(HandBar)
        bar.show(
            codes,
            playable=legal if model.decision == "play" else (),
            dim_others=model.decision == "play",
            cursor=self.cursor if codes else None,
            blind=model.blind_cards if model.phase == "bury" else (),
        )
        bar.display = bool(codes) or model.my_seat is not None

    def _draw_actions(self) -> None:
        model = self.model
        live = live_decisions(model)
        waiting = model.table_state == "waiting" and model.is_host
        shown = {d.button: d.action in live for d in DECISIONS}
        shown.update(
            {
                "btn-add-bot": waiting and not model.is_full,
                "btn-start": waiting,
                "btn-result": model.match_over is not None
                or (model.phase == "done" and bool(model.history)),
            }
        )
        # At the end of a match Enter brings the standings back (the last hand is on h).
        label = "Standings ⏎" if model.match_over is not None else "Result ⏎"
        results = self.query("#btn-result").results(Button)
        result = next(results, None)
        if result is None:  # not mounted yet: on_mount draws the buttons again once they are
            return
        if str(result.label) != label:
            result.label = label
        for button in self.query_one("#actions").query(Button):
            visible = shown.get(button.id or "", False)
            if button.display != visible:
                button.display = visible

    def _draw_log(self) -> None:
        model = self.model
        log = self.query_one(RichLog)
        if model.log_rewrites != self._log_rewrites:
            # Lines were put in before the last: the log is written again, in its order.
            self._log_rewrites = model.log_rewrites
            log.clear()
            self._log_written = model.log_count - len(model.log)
        new = min(model.log_count - self._log_written, len(model.log))
        if new <= 0:
            return
        self._log_written = model.log_count
        for entry in list(model.log)[-new:]:
            log.write(_log_text(entry))

    def _draw_status(self) -> None:
        """The status line: what to do now (or a refusal) with the turn timer; under it, once
        asked for, the coach's hint (it took the turn line's place, and the player lost that
        the turn was theirs and how long they had)."""
        warning = self._current_warning()
        hint = self._current_hint()
        suffix = ""
        if warning is not None:
            text = Text(warning, style="bold reverse")
        else:
            text = Text(self.status_text())
            # Not while the connection is down: the coach is on the server.
            online = self.game.status not in CONNECTION_DOWN
            offered = self.model.prompt is not None and self.model.info.get("hints")
            if offered and online and hint is None:
                suffix = " · i: hint"
        timer = turn_clock(self.model.prompt, self.game.status, self.app.is_web)
        if timer is not None:
            if self._timer is not None:
                self._timer.resume()
            clock = Text(f" {timer} ", style="bold reverse")
            width = self.query_one("#status").size.width or 80
            room = width - clock.cell_len - 1
            # The clock is never pushed off the line (at the call, with "· i: hint", it was
            # past the 80th column: the player did not see how long they had): the hint's
            # key goes first (the dialogs name it too), then the sentence is cut short.
            if text.cell_len + len(suffix) <= room:
                text.append(suffix)
            elif text.cell_len > room:
                text.truncate(max(1, room - 1))
                text.append("…")
            pad = max(1, width - text.cell_len - clock.cell_len)
            text = text + Text(" " * pad) + clock
        else:
            text.append(suffix)
            if self._timer is not None:
                self._timer.pause()
        status = self.query_one("#status", Panel)
        shown = hint is not None and warning is None
        if shown:
            text = text + Text("\n") + Text(str(hint), style="bold")
        status.set_class(shown, "-hint")
        status.show_text(text)

    def _situation(self) -> object:
        """What a refusal is about: the prompt and the card chosen."""
        prompt = self.model.prompt
        return (None if prompt is None else prompt.seq, self.cursor)

    def _current_warning(self) -> str | None:
        """The refusal to show, while the situation it was about lasts."""
        if self._warning is not None and self._warning[0] != self._situation():
            self._warning = None
        return None if self._warning is None else self._warning[1]

    def _current_hint(self) -> str | None:
        """The coach's advice, while the decision it is about is still yours."""
        if self._hint is not None and self.model.decision_key() != self._hint[0]:
            self._hint = None
        return None if self._hint is None else self._hint[1]

    def _tick(self) -> None:
        self._draw_status()

    def status_text(self) -> str:
        """One sentence: what you must do now, or whom the table waits for."""
        model = self.model
        status = self.game.status
        if status in ("reconnecting", "connecting"):
            if model.my_seat is None:  # a watcher has no seat to keep
                return "Connection lost: reconnecting… then you watch this table again."
            return "Connection lost: reconnecting… your seat is kept."
        if status == "closed":
            return "Disconnected from the server. q quits."
        if model.match_over is not None:
            from client.screens.result import MatchOverScreen  # it imports this module

            if self._dialog_open(MatchOverScreen):
                # Its own key line names the rest; the table's keys do not reach under it, and
                # "Enter standings" named what Enter had already done.
                return "Match over: the standings are open; Enter goes back to the table."
            if model.match_had_no_hand():  # no sheet, history nor hand to export
                if model.is_host:
                    return "Match over, no hand finished: Enter standings, n rematch, q quits."
                return "Match over, no hand finished: Enter standings, q quits."
            if model.is_host:
                return (
                    "Match over: Enter standings, n rematch, k sheet, h history, x export, q quits."
                )
            return "Match over: Enter standings, k score sheet, h history, x export, q quits."
        view = model.view
        if view is None:
            if model.table is None:
                return "Not at a table. Esc goes back to the lobby."
            if model.table_state == "waiting":
                if model.is_host and model.is_full:
                    return "Every seat is taken: g starts the match, - removes a bot."
                if model.is_host:
                    return "Waiting for players: + adds a bot, - removes one, g starts."
                if model.my_seat is None:
                    return "Watching · Waiting for the host to start the match."
                return "Waiting for the host to start the match."
            return "Waiting for the table…"
        live = live_decisions(model)
        decision = model.decision
        if decision == "pick":
            if "pass_blind" in live:
                return "Your turn: p picks up the blind, s passes."
            return "Your turn: you must pick (p)."
        # Under its open dialog, the line said "b opens the bury dialog", a key that did
        # nothing there.
        if decision == "bury":
            if self._dialog_open(BuryDialog):
                return "Choose two cards to bury in the dialog; Esc decides later."
            return "Choose two cards to bury: b opens the bury dialog."
        if decision == "call":
            if self._dialog_open(CallDialog):
                return "Call a partner or go alone in the dialog; Esc decides later."
            return "Call a partner or go alone: c opens the call dialog, a goes alone."
        if decision in ("crack", "recrack"):
            return crack_prompt(model)
        if decision == "play":
            keys = play_keys(model.hand, model.prompt.cards() if model.prompt else model.hand)
            if self.cursor is not None and self.game.settings.confirm_cards:
                card = card_label(model.hand[self.cursor])
                return f"Play {card}? Press {self.cursor + 1} again or Enter; another key chooses."
            if self.game.settings.confirm_cards:
                return f"Your turn: choose {keys} or ←/→, then the same key or Enter."
            return f"Your turn: play a card: {keys}, or ←/→ then Enter."
        phase = view.get("phase")
        if phase == "done":
            return "Hand over: Enter shows the result. The next hand follows."
        turn = view.get("turn")
        watching = "Watching · " if model.my_seat is None else ""
        if turn is None:
            return watching + "Waiting…"
        verb = DECISION_VERBS.get(str(phase), "act")
        if turn == model.my_seat:
            return f"{watching}Your turn to {verb}…"
        return f"{watching}Waiting for {model.name(turn)} to {verb}."

    # ------------------------------------------------------------------ dialogs

    def _dialog_open(self, kind: type[Screen[Any]]) -> bool:
        """Whether a dialog of ``kind`` is open over the table."""
        return any(isinstance(screen, kind) for screen in self.app.screen_stack)

    def _sync_decision_dialog(self) -> None:
        """Keep the bury or call dialog in step with the prompt.

        One whose decision was made without it (the turn timer ran out and a bot made it) is
        closed: its answer could only be refused, and left open it piled up with the next ones
        over the table of a player who was away. Then bury and call open their dialog as soon
        as the decision arrives.
        """
        self.game.close_stale_dialog()
        prompt = self.model.prompt
        if prompt is None or prompt.seq == self._dialog_for:
            return
        if prompt.decision == "bury":
            self._dialog_for = prompt.seq
            self.action_bury()
        elif prompt.decision == "call":
            self._dialog_for = prompt.seq
            self.action_call()
        self._draw_status()  # it names the dialog now open

    def _show_match_over(self) -> None:
        if self._result_due is not None:  # the last trick is still on show: after it
            self._match_over_due = True
            return
        self.game.open_match_over()

    def _show_result(self) -> None:
        """Open the result of the hand that just ended, once its last trick has been seen."""
        hand = self.model.pending_result
        self._shown_result = hand
        if hand is None:
            return
        if self.model.phase == "done" and clock() < self._hold_until:
            self._result_due = hand  # opened by _hold_over when the last trick has been seen
        else:
            self._open_result(hand)

    def _open_result(self, hand: FinishedHand) -> None:
        if self.is_attached and self.model.pending_result is hand:
            self.game.open_result(hand)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Allow a decision key only when the server offers that decision.

        The footer shows the keys that always work; the decision keys are named by the status
        line and the buttons (a footer rebuilt on every prompt would cost each redraw dearly).
        """
        model = self.model
        live = live_decisions(model)
        if action == "call":
            # c is also the crack key: the crack round and the call never overlap.
            return bool(live & {"call", "crack", "recrack"})
        if is_decision(action):
            return action in live
        if action == "remove_bot":
            # At any stage (PROTOCOL.md §4): in a match its stand-in plays on and the seat is
            # open to a latecomer; after one, the rematch waits for whoever takes it.
            return model.table is not None and model.is_host
        if action == "add_bot":
            # After the match too: it says how a freed seat is filled (it did nothing).
            return model.is_host and (
                model.table_state == "waiting" or model.match_over is not None
            )
        if action == "start":
            return model.table_state == "waiting" and model.is_host
        if action == "rematch":
            return model.match_over is not None and model.is_host
        if action == "end_match":
            return model.table_state == "playing" and model.is_host and model.match_over is None
        if action == "leave":
            return self.game.mode != "play"
        if action == "hint":
            return model.prompt is not None
        if action in ("history", "score_sheet", "export"):
            # After a match that ended with no hand finished, they only said "No hand has
            # finished yet" (the match-over panel hides its h too).
            return not model.match_had_no_hand()
        return True

    def _choose(self, index: int | None) -> None:
        self.cursor = index
        if self.is_mounted:
            self._draw_hand()
            self._draw_status()

    def action_card(self, index: int) -> None:
        """Number key: choose a card, and play it when that is legal (in confirm mode, when it
        was chosen already)."""
        codes = self.model.hand
        if index >= len(codes):
            return
        again = self.cursor == index
        self._choose(index)
        decision = self.model.decision
        if decision == "play" and (again or not self.game.settings.confirm_cards):
            self._play(codes[index])
        elif decision == "bury":
            self.action_bury()

    def action_move(self, step: int) -> None:
        """Arrow keys: move the cursor; when you must play, from one playable card to the next.
        From no card, → goes to the first (playable) card and ← to the last."""
        codes = self.model.hand
        if not codes:
            return
        legal = set(self.model.legal_cards) if self.model.decision == "play" else set()
        cursor = self.cursor
        if cursor is None:
            cursor = -1 if step > 0 else len(codes)
        for _ in range(len(codes) + 1):
            cursor = (cursor + step) % len(codes)
            if not legal or codes[cursor] in legal:
                break
        self._choose(cursor)

    def action_confirm(self) -> None:
        """Enter: play the chosen card (none chosen: nothing), or open the pending dialog, the
        result, or once the match is over the standings."""
        model = self.model
        decision = model.decision
        if decision == "play":
            if self.cursor is not None and self.cursor < len(model.hand):
                self._play(model.hand[self.cursor])
        elif decision == "bury":
            self.action_bury()
        elif decision == "call":
            self.action_call()
        elif decision == "crack" and model.prompt is not None and len(model.legal) == 1:
            self.action_no_crack()  # the partner's one-key answer
        else:
            self._show_last_result()

    def _play(self, code: str) -> None:
        prompt = self.model.prompt
        if prompt is None:
            return
        action = prompt.find("play", card=code)
        if action is None:
            playable = cards_label(prompt.cards())
            self._warning = (
                self._situation(),
                f"You can't play {card_label(code)} now. Playable: {playable}",
            )
            self._draw_status()
            self.app.bell()
            return
        self.cursor = None
        self.send(action)

    def action_pick(self) -> None:
        """Take the blind."""
        self._send_kind("pick")

    def action_pass_blind(self) -> None:
        """Pass on the blind."""
        self._send_kind("pass")

    def action_alone(self) -> None:
        """Play alone against the other four, after saying yes (one key went alone at once)."""
        prompt = self.model.prompt
        action = prompt.find("alone") if prompt else None
        if action is None:
            return
        seq = prompt.seq if prompt else None

        def alone() -> None:
            current = self.model.prompt
            if current is not None and current.seq == seq:
                self.send(action)

        if prompt is not None and prompt.only("alone"):
            alone()  # nothing left to call: No would only bring the same choice back
            return
        self.game.confirm(ALONE_QUESTION, alone, self.model.decision_key())

    def _send_kind(self, kind: str) -> None:
        prompt = self.model.prompt
        action = prompt.find(kind) if prompt else None
        if action is not None:
            self.send(action)

    def action_bury(self) -> None:
        """Open the bury dialog (with the cards chosen before it was closed, for this bury)."""
        prompt = self.model.prompt
        if prompt is None or prompt.decision != "bury":
            return
        if self._bury_choice[0] != prompt.seq:
            self._bury_choice = (prompt.seq, [])
        self.game.open_bury(self._bury_chosen, self._bury_choice[1])

    def _bury_chosen(self, cards: list[str] | ActionMap | None) -> None:
        prompt = self.model.prompt
        if cards is None or prompt is None:
            return
        if isinstance(cards, dict):  # the dialog's blitz: the bury is prompted again after it
            self.send(cards)
            return
        action = prompt.find("bury", cards=cards)
        if action is None:
            self.notify(f"You can't bury {cards_label(cards)}", severity="warning")
            return
        self.send({**action, "cards": list(cards)})

    def action_no_crack(self) -> None:
        """n: let the stakes stand (no crack, or no re-crack)."""
        self._send_kind("no_recrack" if self.model.decision == "recrack" else "no_crack")

    def action_crack_pair(self) -> None:
        """w: crack showing your queen pair (×4)."""
        action = _pair_crack(self.model)
        if action is not None:
            self.send(action)

    def action_call(self) -> None:
        """Open the call dialog (in the crack round: crack, or re-crack)."""
        decision = self.model.decision
        if decision == "crack":
            self.action_crack()
        elif decision == "recrack":
            self.action_recrack()
        elif decision == "call":
            self.game.open_call(self._call_chosen)

    def action_crack(self) -> None:
        """c in the crack round: crack (×2) without showing queens."""
        prompt = self.model.prompt
        action = prompt.find("crack", blitz=None) if prompt is not None else None
        if action is not None:
            self.send(action)

    def action_recrack(self) -> None:
        """c after a crack, for the picker: re-crack (×2 more)."""
        self._send_kind("recrack")

    def _call_chosen(self, action: ActionMap | None) -> None:
        if action is not None and self.model.prompt is not None:
            self.send(action)

    def send(self, action: ActionMap) -> None:
        """Send the action, quoting the seq of the prompt it was chosen from.

        The prompt is taken now, not when the send's worker runs: two card keys typed in one
        go both found it pending, and the second play went too (refused ``not_your_turn``
        in a red pop-up)."""
        prompt = self.model.take_prompt()
        self._send(action, prompt)

    @work(group="act", exit_on_error=False)
    async def _send(self, action: ActionMap, prompt: Prompt | None) -> None:
        """Send the action to the server (or the harness's outbox)."""
        await self.game.act(action, None if prompt is None else prompt.seq, taken=prompt)

    @work(group="hint", exclusive=True, exit_on_error=False)
    async def action_hint(self) -> None:
        """Ask the coach which choice is best: its advice goes to the status line and, for a
        card, the cursor goes to that card. Nothing is played."""
        asked = self.model.decision_key()
        if asked is None:
            return
        self._hint = (asked, "Hint: the coach is thinking…")
        self._draw_status()
        reply = await self.game.call("hint")
        if self.model.decision_key() != asked:
            return  # the decision was made meanwhile: the advice is about nothing now
        if reply is None or "candidates" not in reply:
            self._hint = None
            self._draw_status()
            return
        hand = self.model.hand
        self._hint = (asked, hint_text(reply, hand))
        candidates = reply["candidates"]
        # The first card the line names (cards that play alike: the leftmost in your hand).
        best = choice_actions(candidates[0], hand)[0] if candidates else {}
        card = best.get("card") if best.get("action") == "play" else None
        if card in self.model.hand:
            self._choose(self.model.hand.index(card))  # shown, never played
        self._draw_status()

    @work(group="requests", exit_on_error=False)
    async def action_add_bot(self) -> None:
        """Host: seat a bot in the first free seat (once the match is over, the rematch
        comes first: the server seats no bot at an ended match)."""
        game = self.game
        if self.model.match_over is not None:
            free = any(s.is_empty for s in self.model.seats)
            self.notify(
                "The match is over: n starts the rematch"
                + (", then + seats a bot in the free seat and g starts it." if free else "."),
                title="No bot added",
            )
            return
        fields: dict[str, Any] = {"seat": None}
        if game.bot_strategy:
            fields["strategy"] = game.bot_strategy
        await game.call("add_bot", **fields)

    @work(group="requests", exit_on_error=False)
    async def action_remove_bot(self) -> None:
        """Host: remove the bot in the highest seat."""
        bots = [s.seat for s in self.model.seats if s.is_bot]
        if not bots:
            self.notify("There is no bot to remove.")
            return
        await self.game.call("remove_bot", seat=bots[-1])

    @work(group="requests", exit_on_error=False)
    async def action_start(self) -> None:
        """Host: start the match."""
        await self.game.call("start")

    def action_end_match(self) -> None:
        """Host: end the match now, after saying yes (an open-ended match ends no other way)."""
        self.game.confirm(
            "End the match now? The hands finished so far count and are recorded; the hand in"
            " progress is dropped.",
            self._end_match,
        )

    @work(group="requests", exit_on_error=False)
    async def _end_match(self) -> None:
        await self.game.call("end_match")

    async def action_rematch(self) -> None:
        """Host, once the match is over: a new match with the same seats (n, as on the
        match-over panel, which may have been closed)."""
        await self.game.rematch()

    def action_last_trick(self) -> None:
        """Show the last trick (and the tricks before it)."""
        self.game.open_tricks()

    def action_history(self) -> None:
        """Show the match's hands, trick by trick."""
        self.game.open_history()

    def action_score_sheet(self) -> None:
        """Show the score sheet: a row per hand, the payouts and the running totals."""
        self.game.open_score_sheet()

    def action_export(self) -> None:
        """Save the last finished hand's record."""
        if not self.model.history:
            # "yet" alone read wrong in a rematch's first hand, three hands into the evening.
            self.notify("No hand of this match has finished yet.")
            return
        self.game.export_hand(self.model.history[-1])

    def _show_last_result(self) -> None:
        """Enter between hands: the last hand's result; once the match is over, the
        standings. In a hand dealt before the last one's result was opened, that result."""
        model = self.model
        missed = self._missed_result
        if model.match_over is not None:
            self.game.open_match_over(ending=False)
        elif model.phase == "done" and model.history:
            self.game.open_result(model.history[-1])
        elif missed is not None and model.history and model.history[-1] is missed:
            # Overtaken by this deal: shown when asked for, without the pop-up that told it
            # (it covered the panel's right half for the rest of its ten seconds).
            self.game.untell_result(missed)
            self.game.open_result(missed)

    def action_chat(self) -> None:
        """Open the chat line. An Esc typed while it opens, or right after it closes, is the
        chat box's: it closes the box and nothing else (see :meth:`on_key`)."""
        self._esc_is_chats = True
        self.game.open_chat(self._chat_typed)

    def _chat_typed(self, text: str | None) -> None:
        if text:
            self.say(text)

    def on_key(self, event: events.Key) -> None:
        """The first key after the chat box: an Esc is swallowed (it was meant for the box;
        the next Esc asks to leave); any other key is the table's as usual. Keys typed right
        behind t belong to the chat box (see :class:`TypeAhead`)."""
        if hand_over_key(self, event, {"t": self.action_chat}) or not self._esc_is_chats:
            return
        self._esc_is_chats = False
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.notify("The chat box is closed. Esc again leaves the table (it asks first).")

    @work(group="requests", exit_on_error=False)
    async def say(self, text: str) -> None:
        """Send a chat line."""
        await self.game.call("chat", text=text[:200])

    def action_rules(self) -> None:
        """Show the table's rules."""
        self.game.open_rules()

    def action_help(self) -> None:
        """Show every key binding."""
        self.game.open_help()

    def action_leave(self) -> None:
        """Back to the lobby, after saying yes: leaving is never one stray key. Esc closes every
        dialog, and a press too many (after the chat line, say) gave the seat away at once.
        With no table there is nothing to lose, and nothing is asked."""
        if self.game.mode == "play":
            return
        question = leave_question(self.model)
        if question is None:
            self._leave()
        else:
            self.game.confirm(question, self._leave)

    @work(group="requests", exit_on_error=False)
    async def _leave(self) -> None:
        game = self.game
        if game.model.table is not None:  # else there is nothing to leave (a refused watch)
            await game.call("leave")
        game.model.reset()
        if len(game.screen_stack) > 1:
            self.dismiss()

    async def action_quit_app(self) -> None:
        """Quit, after asking while a match is running."""
        model = self.model
        seated = model.my_seat is not None  # a watcher's quit costs nothing: no question
        if seated and model.table_state == "playing" and model.match_over is None:
            if self.game.mode == "play":
                question = "Quit now? The next `sheepshead play` picks this match up again."
            else:
                question = (
                    "Quit now? After the grace period a bot plays your seat until you join again."
                )
            self.game.confirm(question, self._quit)
        else:
            await self.app.action_quit()

    @work(group="quit", exit_on_error=False)
    async def _quit(self) -> None:
        await self.app.action_quit()

    # ------------------------------------------------------------------ mouse

    @on(CardWidget.Chosen)
    def _card_clicked(self, event: CardWidget.Chosen) -> None:
        self.action_card(event.index)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        handlers: dict[str, Callable[[], object]] = {
            **{d.button: getattr(self, f"action_{d.action}") for d in DECISIONS},
            "btn-add-bot": self.action_add_bot,
            "btn-start": self.action_start,
            "btn-result": self._show_last_result,
        }
        handler = handlers.get(event.button.id or "")
        if handler is not None:
            handler()


def leave_question(model: TableModel) -> str | None:
    """What Esc asks before leaving the table, for each stage (None: no table to leave)."""
    if model.table is None:
        return None
    if model.my_seat is None:
        return "Stop watching this table and go back to the lobby?"
    if model.match_over is not None or model.table_state == "over":
        return "Leave the table? The match is over: its result is kept. Back to the lobby."
    me = model.my_seat
    others = any(i != me and seat.kind == "human" for i, seat in enumerate(model.seats))
    if model.table_state == "playing":
        if others:
            # The seat is freed (server: Table.leave): a bot plays it until somebody sits
            # there, and that may be you again, from the lobby, as anybody may.
            return (
                "Leave the table? A bot plays your seat until somebody sits in it (you too,"
                " from the lobby, while it is free). (q quits and keeps it for you.)"
            )
        return (
            "Leave the table? No other player is seated, so the table closes and the match"
            " ends. (q quits and keeps it for you.)"
        )
    if others:
        return (
            "Leave the table? The match has not started: your seat is freed for someone else"
            " (the host may seat a bot in it)."
        )
    return (
        "Leave the table? The match has not started and no other player is seated: the table"
        " closes."
    )


def _log_text(entry: LogEntry) -> Text:
    style = LOG_STYLES.get(entry.kind, "")
    if entry.kind == "chat":
        return Text("» " + entry.text, style=style)
    if entry.kind in ("notice", "error"):
        return Text("! " + entry.text, style=style)
    return Text(entry.text, style=style)


def _pair_crack(model: TableModel) -> ActionMap | None:
    """The legal crack that shows a queen pair, if the prompt offers one."""
    if model.decision != "crack":
        return None
    return next((a for a in model.legal if a.get("action") == "crack" and a.get("blitz")), None)


def crack_prompt(model: TableModel) -> str:
    """The status line of the crack round and the re-crack (docs/rules.md, "Cracking and
    blitzing")."""
    view = model.view or {}
    stakes = int(view.get("stakes") or 1)
    if model.decision == "recrack":
        crack = view.get("crack") or {}
        who = model.name(crack.get("seat"))
        return f"{who} cracked (stakes ×{stakes}): c re-cracks (×{2 * stakes}), n lets it stand."
    kinds = model.prompt.kinds() if model.prompt else set()
    if "crack" not in kinds:
        return "You are the partner: you cannot crack. n (or Enter) says no crack."
    pair = _pair_crack(model)
    if pair is None:
        return f"Crack round: c cracks (stakes ×{2 * stakes}), n does not crack."
    queens = "black" if pair["blitz"] == "black" else "red"
    return (
        f"Crack round: c cracks (×{2 * stakes}), w cracks with your {queens} queens "
        f"(×{4 * stakes}), n passes."
    )
