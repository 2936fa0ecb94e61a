"""Read-only panels: key help, the table's rules, the tricks of a hand, the match history, a
hand's record to copy (in a door)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static, TextArea

from client.coach import review_lines
from client.model import NUM_SEATS, Change, FinishedHand, player_totals_at
from client.screens.base import GameModal, ShowsYourTurn
from client.screens.dialogs import BuryDialog, CallDialog
from client.screens.lobby import LobbyScreen
from client.screens.result import blind_line, last_trick_line, result_summary, result_table
from client.screens.table import TableScreen
from client.widgets.cards import card_label, card_text
from client.widgets.table import fit_name

KEY_NAMES = {
    "question_mark": "?",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
    "left": "←",
    "right": "→",
    "up": "↑",
    "down": "↓",
    "enter": "Enter",
    "escape": "Esc",
    "space": "Space",
    "ctrl+s": "Ctrl+S",
    "ctrl+c": "Ctrl+C",
    "f5": "F5",
}

HELP_TEXT: dict[str, str] = {
    "card": "choose a card (play it)",
    "move": "move the card cursor",
    "confirm": "play it / open the dialog",
    "pick": "pick up the blind",
    "pass_blind": "pass",
    "bury": "bury dialog",
    "call": "call dialog / crack",
    "alone": "go alone",
    # Keys, then what they do in that order, as the other rows ("n w  crack: c, w +queens,
    # n no" named c, which is the call's row, and the keys again).
    "no_crack": "crack: no / with queens",
    "crack_pair": "crack: no / with queens",
    "add_bot": "host: add / remove a bot",
    "remove_bot": "host: add / remove a bot",
    "start": "host: start / end / rematch",
    "end_match": "host: start / end / rematch",
    "last_trick": "tricks: this hand / match",
    "history": "tricks: this hand / match",
    "score_sheet": "score sheet of the match",
    "rematch": "host: start / end / rematch",
    "export": "save the last hand (JSON)",
    "page": "earlier / later hand",
    "chat": "chat with the table",
    "rules": "rules, trump order / help",
    "hint": "hint from the coach",
    "help": "rules, trump order / help",
    "leave": "leave for the lobby",
    "quit_app": "quit",
    "toggle_card": "choose / unchoose a card",
    "toggle_cursor": "choose / unchoose it",
    "blitz": "blitz: show a queen pair",
    "cancel": "close, decide later",
    "choose": "call that card",
    "create": "create a table",
    "join": "join the table",
    "watch": "watch the table",
    "refresh": "refresh the list",
    "standings": "standings of the players",
}
"""What each action does, short enough for one line of the help screen."""

JOINED_ROWS: dict[str, str] = {
    "remove_bot": "add_bot",
    "end_match": "start",
    "rematch": "start",
    "crack_pair": "no_crack",
    "history": "last_trick",
    "help": "rules",
}
"""Actions shown in the row of another (their keys added to its keys): the table's keys fill
the help screen's 24 rows."""


def key_label(key: str) -> str:
    """A binding's keys as shown in help: ``plus,equals_sign`` becomes ``+ =``."""
    return " ".join(KEY_NAMES.get(k, k) for k in key.split(","))


def help_rows(
    bindings: Sequence[BindingType], overrides: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(keys, meaning) rows for a screen's bindings, one per action; 1 2 … 8 shown as 1-8."""
    texts = {**HELP_TEXT, **(overrides or {})}
    present = {b.action.split("(")[0] for b in bindings if isinstance(b, Binding)}
    rows: dict[str, tuple[list[str], str]] = {}
    for b in bindings:
        if not isinstance(b, Binding):
            continue
        action = b.action.split("(")[0]
        # Joined only to a row this screen has: the lobby's ? read "rules, trump order /
        # help" under the rules' row, where the lobby has no rules.
        joined = JOINED_ROWS.get(action)
        action = joined if joined in present else action
        keys, _ = rows.setdefault(action, ([], texts.get(action, b.description)))
        keys.append(key_label(b.key))
    out = []
    for keys, meaning in rows.values():
        if len(keys) > 2 and all(k.isdigit() for k in keys):
            out.append((f"{keys[0]}-{keys[-1]}", meaning))
        else:
            out.append((" ".join(keys), meaning))
    return out


def _help_table(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(
        title=title,
        title_style="bold",
        title_justify="left",
        box=None,
        padding=(0, 1),
        show_header=False,
    )
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("does", no_wrap=True, overflow="ellipsis")
    for key, meaning in rows:
        table.add_row(key, meaning)
    return table


class HelpScreen(ShowsYourTurn, GameModal[None]):
    """Every key of every screen, built from the screens' own bindings."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter,q", "close", "close")
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        """Two columns: the table's keys; the lobby's and the dialogs' keys (no lobby in
        ``play``, where Esc does not leave)."""
        local = self.game.mode == "play"
        table_keys = [
            b
            for b in TableScreen.BINDINGS
            if not (local and isinstance(b, Binding) and b.action == "leave")
        ]
        parts: list[RenderableType] = [
            _help_table(
                "Bury dialog", help_rows(BuryDialog.BINDINGS, {"confirm": "bury the two chosen"})
            ),
            Text(""),
            _help_table("Call dialog", help_rows(CallDialog.BINDINGS)),
        ]
        if not local:
            lobby = help_rows(LobbyScreen.BINDINGS, {"help": "this help"})
            parts += [Text(""), _help_table("Lobby", lobby)]
        left = _help_table("At the table", help_rows(table_keys))
        right = Group(*parts)
        with Vertical(id="help-box", classes="box") as box:
            box.border_title = "Keys"
            with VerticalScroll(), Horizontal():
                yield Static(left, classes="help-col")
                yield Static(right, classes="help-col")
            # Ctrl+Z only where it suspends: in a door it did nothing (no shell to come back to).
            suspend = " · Ctrl+Z suspends" if self.game.suspends else ""
            yield Static(f"Mouse: click cards and buttons{suspend} · Esc closes", classes="hint")

    def action_close(self) -> None:
        """Back."""
        self.dismiss(None)


def _rules_body(rules_map: Mapping[str, Any]) -> list[RenderableType]:
    from engine.cards import FAIL_ORDER, TRUMP_ORDER, card_code
    from engine.errors import RuleOptionError
    from engine.rules import OPTION_HELP, RuleSet, option_title, preset_title, value_title

    try:
        rules = RuleSet.from_dict(rules_map)
    except RuleOptionError as exc:
        return [Text(f"Rules not readable: {exc}")]
    trump = Text("Trump, high to low: ", style="bold")
    for i, card in enumerate(TRUMP_ORDER[rules.jack_order]):
        if i:
            trump.append(" ")
        trump.append_text(card_text(card_code(card)))
    fail = " ".join("10" if r == "T" else r for r in FAIL_ORDER)
    body: list[RenderableType] = [
        trump,
        Text(f"Fail suits ♣ ♠ ♥, high to low: {fail}"),
        Text("Card points: A 11 · 10 10 · K 4 · Q 3 · J 2 · 9 8 7 none; 120 in all"),
        Text("The picker's side wins with 61; 91 is schneider."),
        Text(""),
        Text(f"{preset_title(rules.preset)}: the options of this table", style="bold"),
    ]
    # The option and its value on one line, what it means wrapped below it: at 80 columns a
    # third column cut every description off.
    for name, value in rules.options().items():
        line = Text(f"{option_title(name):<29} ", style="bold")
        line.append(value_title(name, value), style="")
        body.append(line)
        body.append(Padding(Text(OPTION_HELP[name], style="italic"), (0, 0, 0, 4)))
    body.append(Text("Every rule and option is explained in docs/rules.md."))
    return body


class RulesScreen(ShowsYourTurn, GameModal[None]):
    """The active options of this table and the full trump order."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,r,enter,q", "close", "close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        """The rules, scrolling when the terminal is small."""
        rules = (self.model.view or {}).get("rules") or self.model.info.get("rules") or {}
        with Vertical(id="rules-box", classes="box") as box:
            box.border_title = "Rules of this table"
            with VerticalScroll():
                yield Static(Group(*_rules_body(rules)))
            yield Static("Esc closes", classes="hint")

    def action_close(self) -> None:
        """Back."""
        self.dismiss(None)


def _holder_notes(names: Sequence[str], played: Sequence[Sequence[str]]) -> list[Text]:
    """A line for each player who played a seat's cards in some tricks before the one named
    over its column took it over: ``Gus played seat 4's cards of tricks 1–2``."""
    notes: list[Text] = []
    for seat in range(NUM_SEATS):
        spans: dict[str, list[int]] = {}
        for number, row in enumerate(played, 1):
            if row[seat] != names[seat]:
                spans.setdefault(row[seat], []).append(number)
        for name, numbers in spans.items():
            which = f"{numbers[0]}" if len(numbers) == 1 else f"{numbers[0]}–{numbers[-1]}"
            plural = "s" if len(numbers) > 1 else ""
            notes.append(Text(f"{name} played seat {seat}'s cards of trick{plural} {which}"))
    return [Text(""), *notes] if notes else []


def tricks_table(
    tricks: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    me: int | None = None,
    played: Sequence[Sequence[str]] | None = None,
) -> Table:
    """One row per trick: each seat's card (▸ the lead), who took it and for how many points;
    ``played``: who played each seat's card of each trick, where it was not the column's."""
    table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
    table.add_column("#", justify="right")
    for seat in range(NUM_SEATS):
        # Your column is "you", as the table says (a "*" after your name was explained nowhere).
        table.add_column("you" if seat == me else fit_name(names[seat], 8), no_wrap=True)
    table.add_column("taken by", no_wrap=True)
    for number, trick in enumerate(tricks, 1):
        leader = int(trick.get("leader", 0))
        cells: list[RenderableType] = [Text("")] * NUM_SEATS
        for i, code in enumerate(trick.get("cards") or []):
            seat = (leader + i) % NUM_SEATS
            mark = Text("▸" if seat == leader else " ", style="bold")
            cells[seat] = mark + card_text(code)
        winner = trick.get("winner")
        row = played[number - 1] if played is not None else names
        taken = Text("")
        if winner is not None:
            # "you", as your column's header says, where you played that card (the header
            # said "you" over a column whose tricks were "taken by root").
            mine = winner == me and row[winner] == names[winner]
            taken = Text(
                f"{'you' if mine else fit_name(row[winner], 11)} +{trick.get('points', 0)}"
            )
        table.add_row(str(number), *cells, taken)
    return table


class TricksScreen(ShowsYourTurn, GameModal[None]):
    """Last-trick review: the tricks of this hand so far (or of the last hand), newest last."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,l,enter,q", "close", "close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        """The tricks table, or a note that none is finished."""
        model = self.model
        # Who played each card: a seat freed since (the host's -) is still its player's.
        names = model.played_names()
        tricks = list((model.view or {}).get("tricks") or [])
        title = "Tricks of this hand"
        if not tricks and model.history:
            tricks = list(model.history[-1].result.get("tricks") or [])
            title = f"Tricks of hand {model.history[-1].number}"
            names = model.history[-1].names
        body: list[RenderableType] = []
        if tricks:
            if title == "Tricks of this hand":
                # Each trick's cards by who played them: a seat taken over mid-hand (the
                # summary's before) had another player for its earlier cards.
                played = [model.trick_names(n) for n in range(len(tricks))]
            else:
                played = [names] * len(tricks)
            me = model.my_seat
            # Your card "you", as the result panel's line says (here it read "root Q♠").
            yours = me is not None and played[-1][me] == names[me]
            line = last_trick_line(tricks[-1], played[-1], me if yours else None)
            body += [line, Text(""), tricks_table(tricks, names, model.my_seat, played)]
            body += _holder_notes(names, played)
        else:
            body.append(Text("No trick has been played yet."))
        with Vertical(id="tricks-box", classes="box") as box:
            box.border_title = title
            with VerticalScroll():
                yield Static(Group(*body))
            yield Static("▸ led the trick · Esc closes", classes="hint")

    def action_close(self) -> None:
        """Back."""
        self.dismiss(None)


def hand_detail(
    hand: FinishedHand, me: int | None, totals: Sequence[int] | None = None
) -> list[RenderableType]:
    """Everything about a finished hand: summary, seats, tricks; ``totals`` the running total
    of who played each seat (:func:`player_totals_at`), else the seats' own."""
    body: list[RenderableType] = [
        Text(f"Hand {hand.number}: {hand.result.get('outcome_text', '')}", style="bold")
    ]
    body += result_summary(hand.result, hand.names, me)
    body.append(Text(""))
    shown = list(totals) if totals is not None else hand.totals
    body.append(result_table(hand.result, hand.reveal, hand.names, shown, me))
    tricks = hand.result.get("tricks") or []
    if tricks:
        body += [Text(""), tricks_table(tricks, hand.names, me)]
    # As the result panel has it: the history left out the blind and the bury. Last, where
    # at 80x24 it is the line scrolled to, not the last trick.
    body.append(blind_line(hand))
    return body


class HistoryScreen(ShowsYourTurn, GameModal[None]):
    """The hands of this match, one at a time, trick by trick; ←/→ turn the pages."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left,p", "page(-1)", "earlier hand"),
        Binding("right,n", "page(1)", "later hand"),
        Binding("x", "export", "export"),
        Binding("v", "review", "review", show=False),
        Binding("escape,h,q", "close", "close"),
    ]

    index: reactive[int] = reactive(0, init=False)
    """Which finished hand is shown."""

    def __init__(self) -> None:
        super().__init__(classes="dialog")
        self._known = 0
        """How many hands had finished when the reader last saw the latest one: a hand that
        finishes while the screen is open is named in the hint until it is paged to."""
        self._shown_number: int | None = None
        """The number of the hand on the page (None before any hand finished)."""
        self.reviews: dict[int, list[str]] = {}
        """The coach's review of your decisions by hand number, once asked for (v): the
        result panel's v was the only way to it, and that panel is gone once the next hand
        is dealt, two seconds after the last trick at a server."""

    def compose(self) -> ComposeResult:
        """One hand in full, scrolling; the hint names the keys."""
        with Vertical(id="history-box", classes="box"):
            with VerticalScroll(id="history-detail"):
                yield Static("No hand has finished yet.", id="history-body")
            # Said before any hand finished too: the box named no key, and the footer under
            # it is the table's ("esc Lobby").
            yield Static("Esc closes", id="history-hint", classes="hint")

    def on_mount(self) -> None:
        """Show the latest hand, and follow the hands that end while the screen is open."""
        self.query_one("#history-detail").focus()
        if self.model.history:
            self.index = len(self.model.history) - 1
            self.watch_index()
        self.game.model_changed.subscribe(self, self._changed)

    def _changed(self, change: Change) -> None:
        """A hand ended (or the server's history completed or replaced the hands): it showed
        "No hand has finished yet" or "1 of 1" until closed and opened again. The hand being
        read stays, where the reader scrolled it to; the hint names the new one."""
        if not change & Change.HAND_OVER or not self.is_attached:
            return
        history = self.model.history
        if not history:
            return
        shown = self._shown_number
        at = next((i for i, h in enumerate(history) if h.number == shown), None)
        if at is None:  # none shown yet, or another match's hands (a rematch): the latest
            self._known = 0
            self.reviews.clear()  # (by hand number: the last match's hand 1 is not this one's)
            self.index = len(history) - 1
            self.watch_index()
            return
        self.set_reactive(HistoryScreen.index, at)
        self._draw(scroll_home=False)

    def watch_index(self) -> None:
        """Show the hand at ``index``, from its top."""
        self._draw(scroll_home=True)

    def _draw(self, scroll_home: bool) -> None:
        """Draw the hand at ``index``, its title and the hint."""
        history = self.model.history
        if not history:
            return
        hand = history[self.index]
        self._shown_number = hand.number
        if self.index == len(history) - 1:
            self._known = len(history)
        box = self.query_one("#history-box")
        box.border_title = f"Match history: hand {hand.number} ({self.index + 1} of {len(history)})"
        body = hand_detail(hand, self.model.my_seat, player_totals_at(history, hand))
        review = self.reviews.get(hand.number)
        if review is not None:
            body += [Text(""), Text("The coach on your decisions:", style="bold")]
            body += [Text(line) for line in review]
        self.query_one("#history-body", Static).update(Group(*body))
        if scroll_home:
            self.query_one("#history-detail", VerticalScroll).scroll_home(animate=False)
        reviewable = bool(self.check_action("review", ()))
        hint = "←/→ other hands · ↑/↓ scroll · x export this hand · Esc closes"
        if reviewable:
            hint = "←/→ other hands · ↑/↓ scroll · v review · x export · Esc closes"
        if len(history) > self._known:
            new = f"Hand {history[-1].number} just ended: → shows it"
            earlier = " · ← earlier" if self.index else ""  # (← does nothing on the first)
            hint = f"{new}{earlier} · x export · Esc closes"
        self.query_one("#history-hint", Static).update(hint)

    def action_page(self, step: int) -> None:
        """Show an earlier or later hand."""
        if self.model.history:
            self.index = max(0, min(len(self.model.history) - 1, self.index + step))

    def _selected_hand(self) -> FinishedHand | None:
        if not self.model.history:
            return None
        return self.model.history[self.index]

    def action_export(self) -> None:
        """Save the shown hand's record."""
        hand = self._selected_hand()
        if hand is not None:
            self.game.export_hand(hand)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """v as on the result panel: at a table with coach hints, on a hand you played (not
        one somebody else played in your seat before you sat down)."""
        if action == "review":
            hand = self._selected_hand()
            return (
                hand is not None
                and bool(self.model.info.get("hints"))
                and self.model.your_seat_in(hand) is not None
            )
        return True

    @work(group="review", exclusive=True, exit_on_error=False)
    async def action_review(self) -> None:
        """Ask the coach what each of your decisions in the shown hand cost against the best,
        and show it under the hand (and again whenever the hand is paged back to)."""
        hand = self._selected_hand()
        if hand is None:
            return
        self.reviews[hand.number] = ["The coach is reviewing your play…"]
        self._draw(scroll_home=False)
        reply = await self.game.call("review", hand=max(0, hand.number - 1))
        if not self.is_attached:
            return
        if reply is None or "decisions" not in reply:
            del self.reviews[hand.number]  # the refusal was told in a sentence
        else:
            self.reviews[hand.number] = review_lines(reply)
        if self._shown_number == hand.number:
            self._draw(scroll_home=False)
            self.query_one("#history-detail", VerticalScroll).scroll_end(animate=False)

    def action_close(self) -> None:
        """Back."""
        self.dismiss(None)


class RecordScreen(ShowsYourTurn, GameModal[None]):
    """A hand's record as JSON, to copy: where the client runs in a server's door (SSH or
    browser), a file it wrote would sit on the server, out of the player's reach. It covers
    the status line, so its border says when the table waits for you (as help's does)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "copy"),
        Binding("escape,q,x", "close", "close"),
    ]

    def __init__(self, number: int, text: str) -> None:
        super().__init__(classes="dialog")
        self.number = number
        self.text = text

    def compose(self) -> ComposeResult:
        """The record, scrolling, selectable; the hint says how to copy it."""
        with Vertical(id="record-box", classes="box") as box:
            box.border_title = f"Hand {self.number}: its record (JSON)"
            yield Static(
                "Nothing is saved on your computer (the game runs on the server): copy it.",
                id="record-note",
            )
            yield TextArea(self.text, read_only=True, soft_wrap=False, id="record-text")
            yield Static(
                # It ended in a bare "Esc": the other key lines say what it does.
                "c copies all (or the selection) · Shift+drag · ↑/↓ PgUp/PgDn · Esc closes",
                classes="hint",
            )

    def on_mount(self) -> None:
        """Focus the text, so the arrows scroll it."""
        self.query_one(TextArea).focus()

    def action_copy(self) -> None:
        """Copy the selection, or the whole record, to the clipboard (OSC 52)."""
        area = self.query_one(TextArea)
        text = area.selected_text or self.text
        self.app.copy_to_clipboard(text)
        what = "the selection" if area.selected_text else f"hand {self.number}'s record"
        # OSC 52: the terminal may refuse it (tmux's default, macOS Terminal), unseen from here.
        self.notify(
            f"Copied {what} ({len(text)} characters) to your clipboard, if your terminal lets "
            "programs use it; if not, select it with Shift+drag",
            timeout=8,
        )

    def action_close(self) -> None:
        """Back."""
        self.dismiss(None)


__all__ = [
    "HelpScreen",
    "HistoryScreen",
    "RecordScreen",
    "RulesScreen",
    "TricksScreen",
    "card_label",
]
