"""The table screen: five seats around the trick, your hand, what to do now, the log.

Keys: 1–8 choose a card (play it when it is legal), ←/→ move the cursor and Enter plays it;
p pick, s pass, b bury, c call, a alone; in the crack round c cracks (or re-cracks), w cracks
showing your queen pair, n declines; + / - add or remove a bot and g start (host, before the
match); l last trick, h history, x export the last hand, t chat, r rules, ? help, Esc lobby,
q quit. Every decision comes from the ``legal`` list of the server's ``your_turn``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, RichLog

from client.model import Change, LogEntry, TableModel
from client.widgets.base import Panel
from client.widgets.buttons import KeyButton
from client.widgets.cards import card_label, cards_label
from client.widgets.hand import CardWidget, HandBar
from client.widgets.table import HandInfo, LastTrickBox, SeatBox, TrickView

WIDE = 110
"""Terminal width from which the seats and the log get more room."""

DECISION_VERBS = {
    "pick": "pick",
    "bury": "bury",
    "call": "call",
    "crack": "crack or not",
    "recrack": "re-crack or not",
    "play": "play",
}
"""What the status line says a seat is doing in each phase."""

LOG_STYLES = {"chat": "bold", "notice": "italic", "error": "bold reverse", "event": ""}
"""Rich style of each kind of log line (styles, not colours, so they read with NO_COLOR)."""


class TopBar(Panel):
    """Table name, rules, hand number, running state and the connection status."""

    def draw(self, model: TableModel, status: str, address: str) -> None:
        """Redraw from the model and the connection status."""
        info = model.info
        rules = (info.get("rules") or (model.view or {}).get("rules") or {}).get("preset", "seed")
        name = info.get("name") or model.table or "table"
        left = Text(" ♣ Sheepshead", style="bold")
        left.append(f" · {name} · {rules}")
        if model.my_seat is None and model.view is not None:
            left.append(" · watching", style="bold")
        marks = {
            "connected": ("● ", ""),
            "connecting": ("○ ", "bold"),
            "reconnecting": ("◌ ", "bold reverse"),
            "closed": ("✗ ", "bold reverse"),
            "offline": ("· ", "dim"),
        }
        mark, style = marks.get(status, ("? ", ""))
        right = Text(f"{mark}{status}", style=style)
        if status in ("reconnecting", "closed"):
            right = Text(f"{mark}{status} to {address}", style=style)
        width = self.size.width or 80
        pad = max(1, width - left.cell_len - right.cell_len - 1)
        self.show_text(left + Text(" " * pad) + right)


class TableScreen(Screen[None]):
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
        Binding("l", "last_trick", "Last trick"),
        Binding("h", "history", "History"),
        Binding("x", "export", "Export", show=False),
        Binding("t", "chat", "Chat"),
        Binding("r", "rules", "Rules"),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "leave", "Lobby", show=False),
        Binding("q", "quit_app", "Quit"),
    ]

    cursor: reactive[int] = reactive(0, init=False)
    """Index of the card under the cursor in your hand."""

    def __init__(self) -> None:
        super().__init__()
        self._timer: Timer | None = None
        self._log_written = 0
        self._dialog_for: int | None = None
        self._shown_result: object | None = None

    @property
    def model(self) -> TableModel:
        """The app's table model."""
        return self.app.model  # type: ignore[attr-defined,no-any-return]

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
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Subscribe to model changes and draw what is known."""
        self.app.model_changed.subscribe(self, self.on_model_changed)  # type: ignore[attr-defined]
        self.watch(self.app, "status", self._on_status, init=False)
        self._timer = self.set_interval(0.5, self._tick, pause=True)
        self.redraw(Change.STATE | Change.PROMPT | Change.LOG | Change.HAND_OVER)

    def _on_status(self, _old: str, _new: str) -> None:
        self.redraw(Change.CONNECTION)

    def on_model_changed(self, change: Change) -> None:
        """Redraw after a server message."""
        self.redraw(change)

    def on_resize(self, event: events.Resize) -> None:
        """Wider seats and log on wide terminals (the panels redraw themselves for their size)."""
        self.set_class(event.size.width >= WIDE, "-wide")

    # ------------------------------------------------------------------ drawing

    def redraw(self, change: Change) -> None:
        """Redraw the parts ``change`` touches."""
        model = self.model
        app: Any = self.app
        self.query_one(TopBar).draw(model, app.status, app.address)
        if change & (Change.STATE | Change.PROMPT | Change.HAND_OVER | Change.MATCH_OVER):
            for box in self.query(SeatBox):
                box.draw(model)
            self.query_one(TrickView).draw(model)
            self.query_one(HandInfo).draw(model)
            self.query_one(LastTrickBox).draw(model)
            self._draw_hand(new_prompt=bool(change & Change.PROMPT))
            self._draw_actions()
        self._draw_log()
        self._draw_status()
        if change & Change.PROMPT:
            self._sync_decision_dialog()
        if model.pending_result is not None and model.pending_result is not self._shown_result:
            self._show_result()
        if change & Change.MATCH_OVER:
            self._show_match_over()

    def _draw_hand(self, new_prompt: bool = False) -> None:
        model = self.model
        codes = model.hand
        if codes:
            self.cursor = min(self.cursor, len(codes) - 1)
        legal = model.legal_cards
        if new_prompt and legal and codes[self.cursor] not in legal:
            # The first playable card from the left (the legal list is in card order).
            self.cursor = next((i for i, c in enumerate(codes) if c in legal), self.cursor)
        bar = self.query_one(HandBar)
        bar.show(
            codes,
            playable=legal if model.decision == "play" else (),
            dim_others=model.decision == "play",
            cursor=self.cursor if codes else None,
        )
        bar.display = bool(codes) or model.my_seat is not None

    def _draw_actions(self) -> None:
        model = self.model
        kinds = model.prompt.kinds() if model.prompt else set()
        waiting = model.table_state == "waiting" and model.is_host
        shown = {
            "btn-pick": "pick" in kinds,
            "btn-pass": "pass" in kinds,
            "btn-bury": "bury" in kinds,
            "btn-call": bool(kinds & {"call", "unknown"}),
            "btn-alone": "alone" in kinds,
            "btn-crack": "crack" in kinds and model.decision == "crack",
            "btn-crack-pair": _pair_crack(model) is not None,
            "btn-recrack": "recrack" in kinds,
            "btn-no-crack": bool(kinds & {"no_crack", "no_recrack"}),
            "btn-add-bot": waiting,
            "btn-start": waiting,
            "btn-result": model.phase == "done" and bool(model.history),
        }
        for button in self.query_one("#actions").query(Button):
            visible = shown.get(button.id or "", False)
            if button.display != visible:
                button.display = visible

    def _draw_log(self) -> None:
        model = self.model
        new = min(model.log_count - self._log_written, len(model.log))
        if new <= 0:
            return
        self._log_written = model.log_count
        log = self.query_one(RichLog)
        for entry in list(model.log)[-new:]:
            log.write(_log_text(entry))

    def _draw_status(self) -> None:
        text = Text(self.status_text())
        remaining = self.model.prompt.remaining() if self.model.prompt else None
        if remaining is not None:
            if self._timer is not None:
                self._timer.resume()
            clock = Text(f" ⏱ {int(remaining + 0.999)}s ", style="bold reverse")
            width = self.query_one("#status").size.width or 80
            pad = max(1, width - text.cell_len - clock.cell_len)
            text = text + Text(" " * pad) + clock
        elif self._timer is not None:
            self._timer.pause()
        self.query_one("#status", Panel).show_text(text)

    def _tick(self) -> None:
        self._draw_status()

    def status_text(self) -> str:
        """One sentence: what you must do now, or whom the table waits for."""
        model = self.model
        app: Any = self.app
        if app.status in ("reconnecting", "connecting"):
            return "Connection lost: reconnecting… your seat is kept."
        if app.status == "closed":
            return "Disconnected from the server. q quits."
        if model.match_over is not None:
            return "Match over: h shows the history, x exports the last hand, q quits."
        view = model.view
        if view is None:
            if model.table is None:
                return "Not at a table. Esc goes back to the lobby."
            if model.table_state == "waiting":
                if model.is_host:
                    return "Waiting for players: + adds a bot, - removes one, g starts."
                return "Waiting for the host to start the match."
            return "Waiting for the table…"
        decision = model.decision
        if decision == "pick":
            if "pass" in model.prompt.kinds():  # type: ignore[union-attr]
                return "Your turn: p picks up the blind, s passes."
            return "Your turn: you must pick (p)."
        if decision == "bury":
            return "Choose two cards to bury: b opens the bury dialog."
        if decision == "call":
            return "Call a partner or go alone: c opens the call dialog, a goes alone."
        if decision in ("crack", "recrack"):
            return crack_prompt(model)
        if decision == "play":
            count = len(model.hand)
            keys = "1" if count == 1 else f"1-{count}"
            return f"Your turn: play a card: {keys}, or ←/→ then Enter."
        phase = view.get("phase")
        if phase == "done":
            return "Hand over: Enter shows the result. The next hand follows."
        turn = view.get("turn")
        watching = "Watching · " if model.my_seat is None else ""
        if turn is None:
            return watching + "Waiting…"
        verb = DECISION_VERBS.get(str(phase), "act")
        who = model.name(turn)
        if turn == model.my_seat:
            return f"{watching}Your turn to {verb}…"
        return f"{watching}Waiting for {who} to {verb}."

    # ------------------------------------------------------------------ dialogs

    def _sync_decision_dialog(self) -> None:
        """Keep the bury or call dialog in step with the prompt.

        One whose decision was made without it (the turn timer ran out and a bot made it) is
        closed: its answer could only be refused, and left open it piled up with the next ones
        over the table of a player who was away. Then bury and call open their dialog as soon
        as the decision arrives.
        """
        from client.screens.dialogs import BuryDialog, CallDialog

        model = self.model
        top = self.app.screen
        if isinstance(top, BuryDialog | CallDialog) and top.answers_legal != model.legal:
            top.dismiss(None)
        prompt = model.prompt
        if prompt is None or prompt.seq == self._dialog_for:
            return
        if prompt.decision == "bury":
            self._dialog_for = prompt.seq
            self.action_bury()
        elif prompt.decision == "call":
            self._dialog_for = prompt.seq
            self.action_call()

    def _show_match_over(self) -> None:
        from client.screens.result import MatchOverScreen

        if not isinstance(self.app.screen, MatchOverScreen):
            self.app.push_screen(MatchOverScreen(self.model))

    def _show_result(self) -> None:
        from client.screens.result import ResultScreen

        hand = self.model.pending_result
        self._shown_result = hand
        if hand is None:
            return
        top = self.app.screen
        if isinstance(top, ResultScreen):
            # Still open from an earlier hand (its player is away): show the latest instead.
            top.show(hand)
            return
        self.app.push_screen(ResultScreen(hand))

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Allow a decision key only when the server offers that decision.

        The footer shows the keys that always work; the decision keys are named by the status
        line and the buttons (a footer rebuilt on every prompt would cost each redraw dearly).
        """
        model = self.model
        kinds = model.prompt.kinds() if model.prompt else set()
        if action == "pick":
            return "pick" in kinds
        if action == "pass_blind":
            return "pass" in kinds
        if action == "bury":
            return "bury" in kinds
        if action == "call":
            # c is also the crack key: the crack round and the call never overlap.
            return bool(kinds & {"call", "unknown", "crack", "recrack"})
        if action == "no_crack":
            return bool(kinds & {"no_crack", "no_recrack"})
        if action == "crack_pair":
            return _pair_crack(model) is not None
        if action == "alone":
            return "alone" in kinds
        if action in ("add_bot", "remove_bot", "start"):
            return model.table_state == "waiting" and model.is_host
        if action == "end_match":
            return model.table_state == "playing" and model.is_host and model.match_over is None
        if action == "leave":
            app: Any = self.app
            return bool(app.mode != "play")
        return True

    def action_card(self, index: int) -> None:
        """Number key: put the cursor on a card and play it when that is legal."""
        codes = self.model.hand
        if index >= len(codes):
            return
        self.cursor = index
        self._draw_hand()
        if self.model.decision == "play":
            self._play(codes[index])
        elif self.model.decision == "bury":
            self.action_bury()

    def action_move(self, step: int) -> None:
        """Arrow keys: move the cursor; when you must play, from one playable card to the next."""
        codes = self.model.hand
        if not codes:
            return
        legal = set(self.model.legal_cards) if self.model.decision == "play" else set()
        cursor = self.cursor
        for _ in codes:
            cursor = (cursor + step) % len(codes)
            if not legal or codes[cursor] in legal:
                break
        self.cursor = cursor
        self._draw_hand()

    def action_confirm(self) -> None:
        """Enter: play the card under the cursor, or open the pending dialog or the result."""
        model = self.model
        decision = model.decision
        if decision == "play" and model.hand:
            self._play(model.hand[self.cursor])
        elif decision == "bury":
            self.action_bury()
        elif decision == "call":
            self.action_call()
        elif decision == "crack" and model.prompt is not None and len(model.legal) == 1:
            self.action_no_crack()  # the partner's one-key answer
        elif model.phase == "done" and model.history:
            self._show_last_result()

    def _play(self, code: str) -> None:
        prompt = self.model.prompt
        if prompt is None:
            return
        action = prompt.find("play", card=code)
        if action is None:
            playable = cards_label(prompt.cards())
            self.notify(
                f"You can't play {card_label(code)} now. Playable: {playable}",
                severity="warning",
                timeout=4,
            )
            self.app.bell()
            return
        self.send(action)

    def action_pick(self) -> None:
        """Take the blind."""
        self._send_kind("pick")

    def action_pass_blind(self) -> None:
        """Pass on the blind."""
        self._send_kind("pass")

    def action_alone(self) -> None:
        """Play alone against the other four."""
        self._send_kind("alone")

    def _send_kind(self, kind: str) -> None:
        prompt = self.model.prompt
        action = prompt.find(kind) if prompt else None
        if action is not None:
            self.send(action)

    def action_bury(self) -> None:
        """Open the bury dialog."""
        from client.screens.dialogs import BuryDialog

        model = self.model
        if model.decision != "bury" or isinstance(self.app.screen, BuryDialog):
            return
        self.app.push_screen(BuryDialog(model.hand, model.legal), self._bury_chosen)

    def _bury_chosen(self, cards: list[str] | dict[str, Any] | None) -> None:
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
        from client.screens.dialogs import CallDialog

        model = self.model
        if model.decision == "crack":
            action = model.prompt.find("crack", blitz=None) if model.prompt else None
            if action is not None:
                self.send(action)
            return
        if model.decision == "recrack":
            self._send_kind("recrack")
            return
        if model.decision != "call" or isinstance(self.app.screen, CallDialog):
            return
        rules = (model.view or {}).get("rules") or {}
        self.app.push_screen(CallDialog(model.hand, model.legal, rules), self._call_chosen)

    def _call_chosen(self, action: dict[str, Any] | None) -> None:
        if action is not None and self.model.prompt is not None:
            self.send(action)

    def send(self, action: dict[str, Any]) -> None:
        """Send the action, quoting the seq of the prompt it was chosen from."""
        prompt = self.model.prompt
        self._send(action, None if prompt is None else prompt.seq)

    @work(group="act", exit_on_error=False)
    async def _send(self, action: dict[str, Any], seq: int | None) -> None:
        """Send the action to the server (or the harness's outbox)."""
        await self.app.act(action, seq)  # type: ignore[attr-defined]

    @work(group="requests", exit_on_error=False)
    async def action_add_bot(self) -> None:
        """Host: seat a bot in the first free seat."""
        app: Any = self.app
        fields: dict[str, Any] = {"seat": None}
        if app.bot_strategy:
            fields["strategy"] = app.bot_strategy
        await app.call("add_bot", **fields)

    @work(group="requests", exit_on_error=False)
    async def action_remove_bot(self) -> None:
        """Host: remove the bot in the highest seat."""
        app: Any = self.app
        bots = [s.seat for s in self.model.seats if s.is_bot]
        if not bots:
            self.notify("There is no bot to remove.")
            return
        await app.call("remove_bot", seat=bots[-1])

    @work(group="requests", exit_on_error=False)
    async def action_start(self) -> None:
        """Host: start the match."""
        app: Any = self.app
        await app.call("start")

    def action_end_match(self) -> None:
        """Host: end the match now, after saying yes (an open-ended match ends no other way)."""
        self._confirm(
            "End the match now? The hands finished so far count and are recorded; the hand in"
            " progress is dropped.",
            self._end_match,
        )

    def _confirm(self, question: str, then: Callable[[], object]) -> None:
        """Ask ``question``; on yes, do ``then``."""
        from client.screens.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(ConfirmDialog(question), answered)

    @work(group="requests", exit_on_error=False)
    async def _end_match(self) -> None:
        app: Any = self.app
        await app.call("end_match")

    def action_last_trick(self) -> None:
        """Show the last trick (and the tricks before it)."""
        from client.screens.info import TricksScreen

        self.app.push_screen(TricksScreen(self.model))

    def action_history(self) -> None:
        """Show the match's hands, trick by trick."""
        from client.screens.info import HistoryScreen

        self.app.push_screen(HistoryScreen(self.model))

    def action_export(self) -> None:
        """Save the last finished hand's record."""
        if not self.model.history:
            self.notify("No hand has finished yet.")
            return
        self.app.export_hand(self.model.history[-1])  # type: ignore[attr-defined]

    def _show_last_result(self) -> None:
        from client.screens.result import ResultScreen

        self.app.push_screen(ResultScreen(self.model.history[-1]))

    def action_chat(self) -> None:
        """Open the chat line."""
        from client.screens.dialogs import ChatDialog

        self.app.push_screen(ChatDialog(self.model), self._chat_typed)

    def _chat_typed(self, text: str | None) -> None:
        if text:
            self.say(text)

    @work(group="requests", exit_on_error=False)
    async def say(self, text: str) -> None:
        """Send a chat line."""
        await self.app.call("chat", text=text[:200])  # type: ignore[attr-defined]

    def action_rules(self) -> None:
        """Show the table's rules."""
        from client.screens.info import RulesScreen

        self.app.push_screen(RulesScreen(self.model))

    def action_help(self) -> None:
        """Show every key binding."""
        from client.screens.info import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_leave(self) -> None:
        """Back to the lobby (a seated player leaves the table, after saying yes while a match
        is running: Esc also closes every dialog, and one press too many gave the seat away)."""
        app: Any = self.app
        if app.mode == "play":
            return
        model = self.model
        if model.my_seat is None or model.table_state != "playing" or model.match_over is not None:
            self._leave()
            return
        me = model.my_seat
        if any(i != me and seat.kind == "human" for i, seat in enumerate(model.seats)):
            question = (
                "Leave the table? A bot plays your seat for the rest of the match, and you"
                " cannot take it back. (q quits and keeps it for you.)"
            )
        else:
            question = (
                "Leave the table? No other player is seated, so the table closes and the match"
                " ends. (q quits and keeps it for you.)"
            )
        self._confirm(question, self._leave)

    @work(group="requests", exit_on_error=False)
    async def _leave(self) -> None:
        app: Any = self.app
        if app.model.table is not None:  # else there is nothing to leave (a refused watch)
            await app.call("leave")
        app.model.reset()
        if len(app.screen_stack) > 1:
            self.dismiss()

    async def action_quit_app(self) -> None:
        """Quit, after asking while a match is running."""
        from client.screens.dialogs import ConfirmDialog

        model = self.model
        if model.table_state == "playing" and model.match_over is None:
            app: Any = self.app
            if app.mode == "play":
                question = "Quit now? The next `sheepshead play` picks this match up again."
            else:
                question = (
                    "Quit now? After the grace period a bot plays your seat until you join again."
                )
            self.app.push_screen(ConfirmDialog(question), self._quit_confirmed)
        else:
            await self.app.action_quit()

    async def _quit_confirmed(self, yes: bool | None) -> None:
        if yes:
            await self.app.action_quit()

    # ------------------------------------------------------------------ mouse

    @on(CardWidget.Chosen)
    def _card_clicked(self, event: CardWidget.Chosen) -> None:
        self.action_card(event.index)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        handlers: dict[str, Callable[[], object]] = {
            "btn-pick": self.action_pick,
            "btn-pass": self.action_pass_blind,
            "btn-bury": self.action_bury,
            "btn-call": self.action_call,
            "btn-alone": self.action_alone,
            "btn-crack": self.action_call,
            "btn-recrack": self.action_call,
            "btn-crack-pair": self.action_crack_pair,
            "btn-no-crack": self.action_no_crack,
            "btn-add-bot": self.action_add_bot,
            "btn-start": self.action_start,
            "btn-result": self._show_last_result,
        }
        handler = handlers.get(event.button.id or "")
        if handler is not None:
            handler()


def _log_text(entry: LogEntry) -> Text:
    style = LOG_STYLES.get(entry.kind, "")
    if entry.kind == "chat":
        return Text("» " + entry.text, style=style)
    if entry.kind in ("notice", "error"):
        return Text("! " + entry.text, style=style)
    return Text(entry.text, style=style)


def _pair_crack(model: TableModel) -> dict[str, Any] | None:
    """The legal crack that shows a queen pair, if the prompt offers one."""
    if model.decision != "crack":
        return None
    return next((a for a in model.legal if a.get("action") == "crack" and a.get("blitz")), None)


def crack_prompt(model: TableModel) -> str:
    """The status line of the crack round and the re-crack (RULES.md §11)."""
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
