"""Modal dialogs: bury, call, chat, confirm, create a table, table password.

Each returns its answer through ``dismiss``; none of them sends anything itself, so the screen
that opened one decides what the answer means.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, cast

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.input import Selection
from textual.widgets.option_list import Option

from client.bury_check import forces_alone
from client.coach import hint_text
from client.model import TableModel
from client.screens.base import ResultType, game_of
from client.widgets.buttons import KeyButton
from client.widgets.cards import SUIT_NAMES, card_label, card_text, cards_text, fail_cards_of_suit
from client.widgets.hand import CardWidget, HandBar
from engine.rules import (
    DEFAULT_PRESET,
    PRESET_TITLES,
    option_title,
    preset_title,
    value_title,
)
from protocol.events import ActionMap
from protocol.requests import HANDS_MAX, TIMER_MAX

ALONE_QUESTION = (
    "Go alone, with no partner, against the other four? Your side's win or loss is yours"
    " alone, at higher stakes."
)
"""What going alone asks first (by a key, as a bury that leaves nothing to call does)."""

NO_COACH = "This table has no coach: the host left hints off."
"""Said when i is pressed at a table without hints."""


class CoachLine(Static):
    """The coach's advice inside a decision dialog (the status line is under the dialog)."""

    DEFAULT_CSS = "CoachLine { height: auto; text-style: bold; display: none; }"

    def advise(self, text: str) -> None:
        """Show ``text`` (nothing: the line takes no room)."""
        self.update(text)
        self.display = bool(text)


def ask_coach(
    screen: ModalScreen[Any],
    legal: list[ActionMap],
    then: Callable[[ActionMap], None],
) -> None:
    """Ask the server's coach about ``legal`` from a decision dialog: the advice goes to the
    dialog's :class:`CoachLine` and ``then`` gets the best action (nothing is sent)."""
    line = screen.query_one(CoachLine)
    line.advise("Hint: the coach is thinking…")

    game = game_of(screen)
    asked = game.model.decision_key()

    async def asking() -> None:
        reply = await game.call("hint")
        stale = asked is None or asked[2] != legal or game.model.decision_key() != asked
        if not screen.is_attached or stale:
            return  # answered or closed meanwhile: the advice is about nothing now
        if reply is None or "candidates" not in reply:
            line.advise("")
            return
        line.advise(hint_text(reply))
        candidates = reply["candidates"]
        if candidates:
            then(cast(ActionMap, dict(candidates[0].get("action") or {})))

    screen.run_worker(asking(), group="hint", exclusive=True, exit_on_error=False)


class DecisionDialog(ModalScreen[ResultType]):
    """A dialog that answers the pending decision (:class:`BuryDialog`, :class:`CallDialog`):
    the hand, the legal actions, and the coach on i when the table has hints."""

    def __init__(
        self, hand: Sequence[str], legal: Sequence[ActionMap], *, hints: bool, decision: object
    ) -> None:
        super().__init__(classes="dialog")
        self.hints = hints
        """Whether the table has the coach (i asks it)."""
        self.hand = list(hand)
        self.answers_legal = [a.copy() for a in legal]
        """The legal actions of the decision this dialog answers."""
        self.answers_decision = decision
        """The decision this dialog answers (:meth:`TableModel.decision_key`): it is stale,
        and closed, once that is not the pending one (a later hand's bury, or call with the
        same choices, is another)."""

    def action_hint(self) -> None:
        """i: ask the coach; :meth:`_advised` shows its best action, never taken."""
        if not self.hints:
            self.notify(NO_COACH)
            return
        ask_coach(self, self.answers_legal, self._advised)

    def _advised(self, action: ActionMap) -> None:
        """Show the coach's best ``action`` in the dialog."""
        raise NotImplementedError


class BuryDialog(DecisionDialog[list[str] | ActionMap | None]):
    """Choose the two cards to bury: toggle with 1–8 (or ←/→ and Space), confirm with Enter.

    The two cards picked up from the blind are marked ◆. Esc closes it and keeps what was chosen
    (``chosen`` is the caller's list, changed in place); a bury that would leave nothing to call
    asks once more before it is final. When the picker may blitz (docs/rules.md, "Cracking and
    blitzing") the dialog offers it first (z): it then answers with the ``blitz`` action map
    instead of two cards, and the bury follows in a new dialog.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"toggle_card({n - 1})", f"toggle {n}", show=False) for n in range(1, 9)),
        Binding("left", "move(-1)", "previous card", show=False),
        Binding("right", "move(1)", "next card", show=False),
        Binding("space", "toggle_cursor", "toggle"),
        Binding("enter", "confirm", "bury"),
        Binding("z", "blitz", "blitz"),
        Binding("i", "hint", "hint"),
        Binding("escape", "cancel", "later"),
    ]

    cursor: reactive[int] = reactive(0, init=False)
    """The card under the cursor."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """z only when a blitz is offered."""
        del parameters
        return action != "blitz" or self.blitz is not None

    def __init__(
        self,
        hand: Sequence[str],
        legal: Sequence[ActionMap],
        *,
        blind: Sequence[str] = (),
        chosen: list[str] | None = None,
        rules: Mapping[str, Any] | None = None,
        seat: int | None = None,
        hints: bool = False,
        decision: object = None,
    ) -> None:
        super().__init__(hand, legal, hints=hints, decision=decision)
        self.blind = [c for c in blind if c in self.hand]
        self.legal = [sorted(a.get("cards") or []) for a in legal if a.get("action") == "bury"]
        self.blitz = next((a.copy() for a in legal if a.get("action") == "blitz"), None)
        """The first blitz offered (the other pair, if held, is offered again after it)."""
        self.chosen: list[str] = chosen if chosen is not None else []
        """The cards chosen so far (the caller's list: kept when the dialog closes unanswered)."""
        self.chosen[:] = [c for c in self.chosen if c in self.hand][:2]
        self.rules = dict(rules or {})
        self.seat = seat
        self.note: Text | None = None
        """A line about the last choice (which card a third one put back)."""
        self.warned: list[str] | None = None
        """The pair a "you would play alone" warning was shown for (Enter again buries it)."""

    def compose(self) -> ComposeResult:
        """The eight cards, what is chosen, and the buttons."""
        # Blitz, Bury, Hint and Later side by side need the call dialog's width: at the bury
        # box's own the last one, "Later  Esc", was cut off at an 80-column terminal.
        wide = self.blitz is not None and self.hints
        with Vertical(id="bury-box", classes="box wide" if wide else "box"):
            explain = (
                "You picked. Choose two cards to bury face down: they count for your side "
                "at the end."
            )
            if self.blind:
                explain += " ◆ marks the two from the blind."
            yield Static(explain, classes="explain")
            if self.blitz is not None:
                pair = (
                    "black queens (Q♣ Q♠)"
                    if self.blitz.get("pair") == "black"
                    else ("red queens (Q♥ Q♦)")
                )
                yield Static(
                    f"You may blitz: show your {pair} to double the stakes (×2), before "
                    "burying. z blitzes.",
                    id="bury-blitz",
                    classes="explain",
                )
            yield HandBar(id="bury-hand")
            yield Static(id="bury-chosen")
            yield CoachLine()
            with Horizontal(classes="buttons"):
                if self.blitz is not None:
                    yield KeyButton("Blitz  z", id="bury-blitz-ok", variant="warning")
                yield KeyButton("Bury ⏎", id="bury-ok", variant="primary")
                if self.hints:
                    yield KeyButton("Hint  i", id="bury-hint")
                yield KeyButton("Later  Esc", id="bury-cancel")

    def on_mount(self) -> None:
        """Draw the hand."""
        self._draw()

    def _draw(self) -> None:
        legal_cards = {c for pair in self.legal for c in pair}
        self.query_one(HandBar).show(
            self.hand,
            playable=legal_cards,
            cursor=self.cursor,
            chosen=self.chosen,
            blind=self.blind,
        )
        text = Text("Bury: ")
        if self.chosen:
            text.append_text(cards_text(self.chosen))
        else:
            text.append("nothing chosen yet", style="italic")
        if self.warned is not None and self.warned == self.chosen:
            pair = " and ".join(card_label(c) for c in self.chosen)
            text = Text(
                f"Burying {pair} leaves you nothing to call: you would play alone."
                " Bury anyway? Enter buries, another card changes the choice.",
                style="bold",
            )
        elif len(self.chosen) == 2:
            text.append("  · Enter buries them", style="bold")
        else:
            text.append(f"  · choose {2 - len(self.chosen)} more")
        if self.note is not None and self.warned != self.chosen:
            text = self.note + Text(" · ") + text
        self.query_one("#bury-chosen", Static).update(text)
        self.query_one("#bury-ok", Button).disabled = not self._valid()

    def _valid(self) -> bool:
        return len(self.chosen) == 2 and sorted(self.chosen) in self.legal

    def action_toggle_card(self, index: int) -> None:
        """Choose or unchoose a card."""
        if index >= len(self.hand):
            return
        self.cursor = index
        code = self.hand[index]
        self.note = None
        if code in self.chosen:
            self.chosen.remove(code)
        elif len(self.chosen) < 2:
            self.chosen.append(code)
        else:
            dropped = self.chosen.pop(0)
            self.chosen.append(code)
            self.note = Text(f"{card_label(dropped)} put back", style="bold")
        self._draw()

    def action_toggle_cursor(self) -> None:
        """Space: toggle the card under the cursor."""
        self.action_toggle_card(self.cursor)

    def action_move(self, step: int) -> None:
        """Arrows: move the cursor."""
        self.cursor = (self.cursor + step) % len(self.hand)
        self._draw()

    def action_confirm(self) -> None:
        """Enter: bury the two chosen cards (with fewer chosen, choose the cursor card); a bury
        that leaves you alone is warned about first, and Enter again buries it.

        Enter never unchooses (Space and the card's key do): a card chosen by its key has the
        cursor, and "7 Enter", as a card is confirmed at the table, put it back unseen."""
        if self._valid():
            self._bury()
        elif self.cursor < len(self.hand) and self.hand[self.cursor] not in self.chosen:
            self.action_toggle_card(self.cursor)
        elif len(self.chosen) < 2:
            self.note = Text("Enter buries once two are chosen", style="bold")
            self._draw()

    def _bury(self) -> None:
        if self.warned != self.chosen and self._forces_alone():
            self.warned = list(self.chosen)
            self._draw()
            return
        self.dismiss(list(self.chosen))

    def _forces_alone(self) -> bool:
        if self.seat is None or not self.rules or len(self.blind) != 2:
            return False
        return forces_alone(self.hand, self.blind, self.chosen, self.rules, self.seat)

    def action_cancel(self) -> None:
        """Close without burying (b reopens)."""
        self.dismiss(None)

    def action_blitz(self) -> None:
        """z: blitz the queen pair offered (the bury comes next)."""
        if self.blitz is not None:
            self.dismiss(self.blitz)

    def _advised(self, action: ActionMap) -> None:
        """The coach's best bury is chosen (and shown), never buried."""
        cards = [c for c in action.get("cards") or [] if c in self.hand]
        if action.get("action") == "bury" and len(cards) == 2:
            self.chosen[:] = cards
            self.note = None
            self._draw()

    @on(Button.Pressed, "#bury-hint")
    def _hint(self) -> None:
        self.action_hint()

    @on(Button.Pressed, "#bury-blitz-ok")
    def _blitz(self) -> None:
        self.action_blitz()

    @on(CardWidget.Chosen)
    def _clicked(self, event: CardWidget.Chosen) -> None:
        self.action_toggle_card(event.index)

    @on(Button.Pressed, "#bury-ok")
    def _ok(self) -> None:
        if self._valid():
            self._bury()

    @on(Button.Pressed, "#bury-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


def describe_call(action: Mapping[str, Any], hand: Sequence[str]) -> Text:
    """One line for a legal call: the card, and the hold card(s) it asks you to keep."""
    kind = action.get("action")
    if kind == "alone":
        return Text("Go alone: you against the other four", style="bold")
    card = str(action.get("card"))
    line = Text("Call ") + card_text(card)
    if card == "JD":
        line.append(": whoever holds J♦ is your partner")
        return line
    suit = card[1:]
    if kind == "unknown":
        line.append(", laying ")
        line.append_text(card_text(str(action.get("under"))))
        line.append(" face down as the unknown card")
        return line
    hold = fail_cards_of_suit(hand, suit)
    if hold:
        line.append(f" · your {SUIT_NAMES.get(suit, suit)}: ")
        line.append_text(cards_text(hold))
    return line


class CallDialog(DecisionDialog[ActionMap | None]):
    """Call a partner (the legal calls from the server) or go alone."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"choose({n - 1})", f"call {n}", show=False) for n in range(1, 10)),
        Binding("a", "alone", "alone"),
        Binding("i", "hint", "hint"),
        Binding("escape", "cancel", "later"),
    ]

    def __init__(
        self,
        hand: Sequence[str],
        legal: Sequence[ActionMap],
        rules: Mapping[str, Any] | None = None,
        *,
        hints: bool = False,
        decision: object = None,
    ) -> None:
        super().__init__(hand, legal, hints=hints, decision=decision)
        self.actions = [a.copy() for a in legal if a.get("action") in ("call", "alone", "unknown")]
        self.actions.sort(key=lambda a: a.get("action") == "alone")
        self.rules = dict(rules or {})

    def compose(self) -> ComposeResult:
        """An explanation, the choices, the hold-card rule."""
        jd = any(a.get("card") == "JD" for a in self.actions)
        calls = [a for a in self.actions if a.get("action") != "alone"]
        with Vertical(id="call-box", classes="box"):
            yield Static(Text("Your hand: ") + cards_text(self.hand), classes="explain")
            if jd:
                text = "The player holding J♦ is your secret partner until J♦ is played."
            elif calls:
                text = (
                    "Whoever holds the called card is your secret partner. You must keep your "
                    "hold card, your last card of the called suit, until that suit is led."
                )
            else:
                text = "You have no card you may call: you play alone."
            yield Static(text, classes="explain", id="call-explain")
            options = []
            for i, action in enumerate(self.actions):
                key = "a" if action.get("action") == "alone" else str(i + 1)
                prompt = Text(f"{key}  ", style="bold") + describe_call(action, self.hand)
                options.append(Option(prompt, id=f"call-{i}"))
            yield OptionList(*options, id="call-list")
            yield CoachLine()
            coach = " · i hint" if self.hints else ""
            yield Static(
                f"↑/↓ and Enter, a number, or a for alone{coach} · Esc: later", classes="hint"
            )

    def on_mount(self) -> None:
        """Focus the choices."""
        self.query_one(OptionList).focus()

    def action_choose(self, index: int) -> None:
        """Choose a call by its number."""
        if index < len(self.actions) and self.actions[index].get("action") != "alone":
            self.dismiss(self.actions[index])

    def action_alone(self) -> None:
        """Go alone, after saying yes (a stray a went alone at once); when there is nothing to
        call, at once."""
        for action in self.actions:
            if action.get("action") == "alone":
                self._alone(action)
                return

    def _alone(self, action: ActionMap) -> None:
        if len(self.actions) == 1:  # nothing to call: No would only bring this dialog back
            self.dismiss(action)
            return

        def answered(yes: bool | None) -> None:
            if yes and self.is_attached:
                self.dismiss(action)

        self.app.push_screen(ConfirmDialog(ALONE_QUESTION, self.answers_decision), answered)

    def _advised(self, action: ActionMap) -> None:
        """The coach's best choice is highlighted, never made."""
        if action in self.actions:
            self.query_one(OptionList).highlighted = self.actions.index(action)

    def action_cancel(self) -> None:
        """Close without deciding (c reopens)."""
        self.dismiss(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        action = self.actions[event.option_index]
        if action.get("action") == "alone":
            self._alone(action)
        else:
            self.dismiss(action)


class TypeAhead:
    """A dialog that takes the keys typed while it opens.

    Keys typed right behind the key that opens a dialog were lost (over SSH the create dialog
    took seconds to open, and the name typed meanwhile vanished): they were already on their
    way to the screen below, or they reached the dialog before anything in it had the focus.
    The screen below hands them over (:func:`hand_over_key`), and the dialog plays them once it
    is ready, the way its fields would take them: a character, Backspace, Delete, Home, End and
    the arrows edit the input that has the focus; Tab and Shift+Tab move to the next or the
    previous field (before, they were dropped, and what was typed for the second field went
    into the first: a number of hands typed behind Tab Tab became the table's name); Enter
    submits the input, or opens a list; Esc cancels. The input's first contents are
    selected, so what is typed replaces them, and so are a field's that Tab reaches.
    """

    TYPE_AHEAD: ClassVar[str] = "Input"
    """The selector of the input that has the focus first."""

    TYPE_AHEAD_KEYS: ClassVar[frozenset[str]] = frozenset(
        (
            "enter",
            "backspace",
            "escape",
            "tab",
            "shift+tab",
            "delete",
            "home",
            "end",
            "left",
            "right",
        )
    )
    """The keys besides characters that a dialog takes while it opens."""

    _early_keys: list[tuple[str, str | None]] | None = None
    """Keys handed over before the dialog was mounted (None: none)."""

    def _type_ahead_input(self) -> Input | None:
        screen = cast(ModalScreen[Any], self)
        try:
            return screen.query_one(self.TYPE_AHEAD, Input)
        except NoMatches:
            return None

    _ready = False
    """Whether the input has been focused and selected (until then keys wait)."""

    _typed_enter = False
    """Whether an Enter was typed ahead (the keys after it are not the dialog's)."""

    def take_key(self, key: str, character: str | None) -> bool:
        """Take a key typed for this dialog before it was ready; whether it was taken."""
        if self._typed_enter:
            return False
        if key not in self.TYPE_AHEAD_KEYS and not (character and character.isprintable()):
            return False
        if not self._ready:
            if self._early_keys is None:
                self._early_keys = []
            self._early_keys.append((key, character))
            return True
        if key == "escape":
            cast(Any, self).action_cancel()
            return True
        return self._type(key, character)

    def _type(self, key: str, character: str | None) -> bool:
        screen = cast(ModalScreen[Any], self)
        if key in ("tab", "shift+tab"):
            field = screen.focus_next() if key == "tab" else screen.focus_previous()
            held = self._held_selects
            if isinstance(field, Input) and (field.select_on_focus or field in held):
                # Selected now, as the field's own focus handler does later: the keys typed
                # after the Tab replace its contents, and that handler must not select them
                # again (a key typed next would replace them too) until its focus events
                # queued meanwhile have passed.
                field.selection = Selection(0, len(field.value))
                field.select_on_focus = False
                held[field] = held.get(field, 0) + 1
                field.call_later(self._release_select, field)
            return True
        field = screen.focused
        if field is None:
            field = self._type_ahead_input()
        if isinstance(field, Select):
            if key != "enter" and character != " ":
                return False
            self._typed_enter = True
            field.action_show_overlay()
            return True
        if not isinstance(field, Input):
            return False
        if key == "enter":
            self._typed_enter = True
            field.post_message(Input.Submitted(field, field.value))
        elif key == "backspace":
            field.action_delete_left()
        elif key == "delete":
            field.action_delete_right()
        elif key in ("home", "end", "left", "right"):
            getattr(field, f"action_{'cursor_' if key in ('left', 'right') else ''}{key}")()
        elif character and character.isprintable():
            if field.selection.is_empty:
                field.insert_text_at_cursor(character)
            else:
                field.replace(character, *field.selection)
        else:
            return False
        return True

    @property
    def _held_selects(self) -> dict[Input, int]:
        """Fields whose select on focus is held back, with the focus events yet to pass."""
        held: dict[Input, int] | None = self.__dict__.get("_held")
        if held is None:
            held = self.__dict__["_held"] = {}
        return held

    def _release_select(self, field: Input) -> None:
        held = self._held_selects
        held[field] -= 1
        if not held[field]:
            del held[field]
            field.select_on_focus = True

    def on_mount(self) -> None:
        """Focus the input, select its contents (typing replaces them), then play the keys
        handed over meanwhile."""
        target = self._type_ahead_input()
        if target is None:
            return
        # Now, not later as Widget.focus does: a Tab typed ahead moves on from here.
        cast(ModalScreen[Any], self).set_focus(target)
        target.selection = Selection(0, len(target.value))
        self._ready = True
        early, self._early_keys = self._early_keys or [], None
        for key, character in early:
            self.take_key(key, character)

    def on_key(self, event: events.Key) -> None:
        """Play a key that reached the screen itself (nothing had the focus yet) into the
        dialog; a key on its way up from a field was that field's to take."""
        if cast(ModalScreen[Any], self).focused is not None:
            return
        if event.key != "escape" and self.take_key(event.key, event.character):
            event.stop()
            event.prevent_default()


def hand_over_key(
    screen: Screen[Any], event: events.Key, openers: Mapping[str, Callable[[], object]]
) -> bool:
    """From a screen's ``on_key``: a key that was on its way to ``screen`` when a dialog
    opened over it goes to the dialog (see :class:`TypeAhead`); whether it was handled.

    ``openers`` are the keys that open a dialog of the screen's: they act here, as the key
    reaches the screen, and not later as a binding of the app (which checks them after the
    keys typed behind them have passed the screen, and these were lost).
    """
    top = screen.app.screen
    opener = openers.get(event.key)
    if top is screen and opener is not None:
        opener()
    elif (
        not isinstance(top, TypeAhead)
        or top is screen
        or not top.take_key(event.key, event.character)
    ):
        return False
    event.stop()
    event.prevent_default()
    return True


class ChatDialog(TypeAhead, ModalScreen[str | None]):
    """Type a chat line for the table; the recent lines are shown above it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "close")]

    def __init__(self, model: TableModel) -> None:
        super().__init__(classes="dialog")
        self.model = model

    def compose(self) -> ComposeResult:
        """Recent chat and the input line."""
        lines = [e.text for e in self.model.log if e.kind == "chat"][-8:]
        with Vertical(id="chat-box", classes="box"):
            # Long lines wrap: the newest stay in view and the input below them (it was pushed
            # off an 80x24 screen).
            with VerticalScroll(id="chat-scroll", can_focus=False):
                yield Static("\n".join(lines) or "No chat yet.", id="chat-lines", markup=False)
            yield Input(
                placeholder="Say something (Enter sends, Esc closes)",
                max_length=200,
                select_on_focus=False,
            )

    def on_mount(self) -> None:
        """Show the newest lines (:class:`TypeAhead` focuses the input)."""
        self.query_one("#chat-scroll", VerticalScroll).scroll_end(animate=False)

    @on(Input.Submitted)
    def _send(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question: y or Enter says yes, n or Esc no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,enter", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, decision: object = None) -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.answers_decision = decision
        """The decision the question is about (None: none), as a decision dialog's: once it
        is not the pending one the question is closed unanswered."""

    def compose(self) -> ComposeResult:
        """The question and two buttons."""
        with Vertical(id="confirm-box", classes="box"):
            yield Static(self.question, classes="explain")
            with Horizontal(classes="buttons"):
                yield KeyButton("Yes  y", id="yes", variant="error")
                yield KeyButton("No  n", id="no")

    def action_answer(self, yes: bool) -> None:
        """Answer."""
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class PasswordDialog(TypeAhead, ModalScreen[str | None]):
    """Ask for a table's password."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(self, table_name: str) -> None:
        super().__init__(classes="dialog")
        self.table_name = table_name

    def compose(self) -> ComposeResult:
        """A label and a password input."""
        with Vertical(id="password-box", classes="box"):
            yield Label(f"Password for {self.table_name}:")
            # 128: the most the server takes.
            yield Input(password=True, max_length=128, select_on_focus=False)
            # It named no key: a wrong password's pop-up was the first to say Esc gives up.
            yield Static("Enter sends it · Esc gives up", classes="hint")

    @on(Input.Submitted)
    def _done(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        """Give up."""
        self.dismiss(None)


PRESETS: tuple[str, ...] = tuple(PRESET_TITLES)
"""The presets offered, the default (the standard game) first."""

TURN_TIMER_PERSON_MIN = 5
"""The shortest turn timer the new-table dialog offers, in seconds: the time a person needs to
read the table and choose. The server takes down to ``TURN_TIMER_MIN`` (0.1 s, for tables of
bots; PROTOCOL.md, ``create_table``)."""

TURN_TIMER_WHY = (
    f"Under {TURN_TIMER_PERSON_MIN} s a person has no time to read the table and choose"
    " (shorter timers are for tables of bots)."
)
"""Why the dialog's turn timer starts at :data:`TURN_TIMER_PERSON_MIN`, said with its range."""

FIELD_HELP: dict[str, str] = {
    "f-name": "What the lobby calls the table.",
    "f-preset": "Wisconsin (standard): J♣ above J♠, double on the bump; "
    "Tavern: Wisconsin with cracking and blitzing; "
    "gamerules.com text: J♠ above J♣, every option at its default.",
    "f-hands": "How many hands the match lasts; empty plays until the host ends it.",
    "f-timer": f"Seconds each player has to act (at least {TURN_TIMER_PERSON_MIN}, time for a "
    "person to read the table and choose); then the server acts for them: it passes, never "
    "cracks, calls a partner rather than going alone. Empty means no timer.",
    "f-password": "Players must give it to join; empty leaves the table open.",
    "f-hints": "Let the people at the table ask the coach (i) for the best card on their turn.",
}
"""The help line shown under the form for each field (options get theirs from the engine)."""


def _option_choices() -> list[tuple[str, tuple[object, ...], str]]:
    from engine.rules import OPTION_HELP, OPTION_NAMES, option_choices

    for name in OPTION_NAMES:
        text = OPTION_HELP[name]
        FIELD_HELP.setdefault(
            f"o-{name}", f"{text[:1].upper()}{text[1:]} (as the preset: keep it)."
        )
    return [(name, option_choices(name), OPTION_HELP[name]) for name in OPTION_NAMES]


class FormInput(Input):
    """A text field of a form: Ctrl+A selects it all, so that what is typed next replaces it
    (Textual's Ctrl+A goes to the start, and a number typed after it went in front of the old
    one: 3 over a selected 10 gave 310)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+a", "select_all", "Select all", show=False)
    ]

    async def _on_key(self, event: events.Key) -> None:
        """A key bound in this field (Backspace, Delete, the arrows, Enter, ...) acts here,
        in the field it was sent to. Textual looks a key's binding up only once the key has
        passed the field, in whatever field has the focus by then: of a burst typed into a
        form (pasted, or over a laggy SSH door) the Backspaces sent to the hands, behind a
        Tab, deleted from the password."""
        if not event.is_printable:
            # The field's own bindings, its class's merged with Input's (priority ones ran
            # before the key was sent here).
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await super()._on_key(event)


class NumberInput(FormInput):
    """A whole number from ``low`` to ``high``, or empty (``empty`` says what empty means).

    A key that cannot go in (not a digit, or one digit too many) is not dropped in silence (it
    was, with at most a bell): the field posts :class:`NumberInput.Refused`, and the form says
    the range at the field.
    """

    class Refused(Message):
        """A key was refused by ``field``."""

        def __init__(self, field: NumberInput) -> None:
            super().__init__()
            self.field = field

    def __init__(
        self,
        value: str = "",
        *,
        what: str,
        low: int,
        high: int,
        empty: str,
        why: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(value, restrict=r"[0-9]*", max_length=len(str(high)), **kwargs)
        self.what, self.low, self.high, self.empty = what, low, high, empty
        self.why = why
        """Why the range is what it is, said after it (empty: nothing to explain)."""

    @property
    def rule(self) -> str:
        """What the field takes, said when it is given something else."""
        rule = f"{self.what}: a whole number from {self.low} to {self.high}, or empty {self.empty}."
        return f"{rule} {self.why}" if self.why else rule

    @property
    def number(self) -> int | None:
        """The number in the field (None: empty, or not a number in range)."""
        text = self.value.strip()
        if text.isdigit() and self.low <= int(text) <= self.high:
            return int(text)
        return None

    @property
    def problem(self) -> str | None:
        """What is wrong with the field's text (None: nothing; empty is allowed)."""
        if self.value.strip() and self.number is None:
            return self.rule
        return None

    def restricted(self) -> None:
        """Say why the key did not go in, rather than ringing the bell."""
        self.post_message(self.Refused(self))


CREATE_KEYS = "Tab next field · Ctrl+S create · Esc cancel"
"""The create dialog's keys, on its bottom border (Enter in a text field creates too)."""

CREATE_FIXED_ROWS = 11
"""Rows of the create dialog that are not the form: a free row above and below the box, its
two borders, the help (three, and a gap), the error line, the buttons (and a gap)."""


class FieldLabel(Label):
    """A form field's name: a click on it focuses its field, as a label does on a web form."""

    def __init__(self, text: str, field_id: str, *, classes: str | None = None) -> None:
        super().__init__(text, id=f"label-{field_id}", classes=classes)
        self.field_id = field_id
        """The id of the field it names."""

    def on_click(self, event: events.Click) -> None:
        """Focus the field."""
        event.stop()
        self.screen.query_one(f"#{self.field_id}").focus()


class CreateTableDialog(TypeAhead, ModalScreen[dict[str, Any] | None]):
    """The fields of ``create_table``: name, preset, options, hands, password, turn timer and
    whether the coach's hints are on. A name typed while it opens is kept (:class:`TypeAhead`).
    """

    TYPE_AHEAD = "#f-name"

    # A compact Select's list opens without a frame, over the next fields' values: opened on
    # the coach hints, 'off' and 'on: i asks for a hint' read as the values of the next two
    # fields ('Jacks in trump  off'). Framed, it is a list that lies over them.
    DEFAULT_CSS = """
    CreateTableDialog .field-error { column-span: 2; color: $error; display: none; }
    CreateTableDialog .field-error.-shown { display: block; }
    CreateTableDialog Select.-textual-compact > SelectOverlay {
        border: round $accent !important;
        background: $panel;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "create", "create"),
        # Priority: the app runs them as the key arrives, before it hands the keys behind
        # them to the focused field. As the screen's own (non-priority) bindings they ran
        # only once the Tab had passed through the field, and the keys of a burst behind it
        # (pasted, or typed over a laggy SSH door) were already in that field's queue: a
        # number of hands typed behind a Tab went into the name.
        Binding("tab", "next_field", show=False, priority=True),
        Binding("shift+tab", "previous_field", show=False, priority=True),
    ]

    def __init__(self, default_name: str) -> None:
        super().__init__(classes="dialog")
        self.default_name = default_name

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Tab and Shift+Tab wait with the other keys typed ahead until the dialog is ready
        (:class:`TypeAhead` plays them in order)."""
        if action in ("next_field", "previous_field"):
            return self._ready
        return True

    def action_next_field(self) -> None:
        """Move to the next field."""
        self.focus_next()

    def action_previous_field(self) -> None:
        """Move to the previous field."""
        self.focus_previous()

    def compose(self) -> ComposeResult:
        """A compact form, one line per field; the focused field's help shows below it."""
        with Vertical(id="create-box", classes="box") as box:
            box.border_title = "New table"
            box.border_subtitle = CREATE_KEYS
            # Not focusable itself: it scrolls to the focused field, and a key typed while the
            # dialog opens belongs to the name.
            with VerticalScroll(id="create-form", can_focus=False), Grid(id="create-grid"):
                yield FieldLabel("Table name", "f-name")
                yield FormInput(
                    value=self.default_name,
                    max_length=32,
                    id="f-name",
                    compact=True,
                    select_on_focus=False,
                )
                yield FieldLabel("Rules preset", "f-preset")
                yield Select(
                    [(preset_title(p), p) for p in PRESETS],
                    value=DEFAULT_PRESET,
                    allow_blank=False,
                    id="f-preset",
                    compact=True,
                )
                yield FieldLabel("Hands", "f-hands")
                yield NumberInput(
                    "10",
                    what="Hands",
                    low=1,
                    high=HANDS_MAX,
                    empty="for no limit",
                    id="f-hands",
                    compact=True,
                )
                yield Static(id="f-hands-error", classes="field-error")
                yield FieldLabel("Turn timer (s)", "f-timer")
                yield NumberInput(
                    what="Turn timer (seconds)",
                    low=TURN_TIMER_PERSON_MIN,
                    why=TURN_TIMER_WHY,
                    high=int(TIMER_MAX),
                    empty="for none",
                    id="f-timer",
                    compact=True,
                    placeholder="none",
                )
                yield Static(id="f-timer-error", classes="field-error")
                yield FieldLabel("Password", "f-password")
                yield FormInput(
                    id="f-password",
                    password=True,
                    max_length=64,
                    compact=True,
                    placeholder="none: an open table",
                )
                yield FieldLabel("Coach hints", "f-hints")
                yield Select(
                    [("off", "off"), ("on: i asks for a hint", "on")],
                    value="off",
                    allow_blank=False,
                    id="f-hints",
                    compact=True,
                )
                for name, choices, _ in _option_choices():
                    yield FieldLabel(option_title(name), f"o-{name}", classes="option-name")
                    items = [("as the preset", "preset")]
                    items += [(value_title(name, c), _show(c)) for c in choices]
                    yield Select(
                        items, value="preset", allow_blank=False, id=f"o-{name}", compact=True
                    )
            yield Static(id="create-help", classes="hint")
            yield Static(id="create-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Create  Ctrl+S", id="create-ok", variant="primary", compact=True)
                yield Button("Cancel  Esc", id="create-cancel", compact=True)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Explain the field that has the focus."""
        field = event.widget.id or ""
        text = FIELD_HELP.get(field, "")
        if isinstance(event.widget, Select):
            text += " Enter or Space opens the list."
        self.query_one("#create-help", Static).update(text)

    def on_resize(self, event: events.Resize) -> None:
        """The form takes the rows the terminal has once the help, the error line and the
        buttons have theirs (they must stay in view: they were cut off at every size)."""
        rows = max(3, event.size.height - CREATE_FIXED_ROWS)
        self.query_one("#create-form").styles.max_height = rows

    def _collect(self) -> dict[str, Any] | None:
        name = self.query_one("#f-name", Input).value.strip()
        if not name:
            self._error("The table needs a name.")
            return None
        for field in self.query(NumberInput):
            if field.problem:
                self._say(field, field.problem)
                self._error(field.problem)
                field.focus()
                return None
        hands = self.query_one("#f-hands", NumberInput).number
        timer = self.query_one("#f-timer", NumberInput).number
        options: dict[str, Any] = {}
        for name_, choices, _ in _option_choices():
            value = self.query_one(f"#o-{name_}", Select).value
            if value != "preset":
                options[name_] = next(c for c in choices if _show(c) == value)
        return {
            "name": name,
            "preset": self.query_one("#f-preset", Select).value,
            "options": options,
            "hands": hands,
            "password": self.query_one("#f-password", Input).value or None,
            "turn_timer": timer,
            "hints": self.query_one("#f-hints", Select).value == "on",
        }

    def _error(self, text: str) -> None:
        self.query_one("#create-error", Static).update(text)

    def _say(self, field: NumberInput, text: str | None) -> None:
        """Show ``text`` on the line under ``field`` (None: hide the line)."""
        line = self.query_one(f"#{field.id}-error", Static)
        line.update(text or "")
        line.set_class(bool(text), "-shown")
        # The grid sizes a row by its first column, so a line across both would be as tall as
        # the text wrapped in the labels' width: it is given the lines it takes across both.
        grid = self.query_one("#create-grid")
        width = max(10, grid.content_region.width or grid.size.width)
        rows = len(Text(text or "").wrap(self.app.console, width)) or 1
        line.styles.min_height = line.styles.max_height = rows
        if text:
            # Once the line is laid out: the form scrolls, and the field's line must be seen.
            self.call_after_refresh(line.scroll_visible, animate=False)
        else:
            self._error("")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        """Say at once, under the field, when a number is out of its range."""
        if isinstance(event.input, NumberInput):
            self._say(event.input, event.input.problem)

    @on(NumberInput.Refused)
    def _refused(self, event: NumberInput.Refused) -> None:
        self._say(event.field, event.field.rule)

    @on(events.DescendantBlur)
    def _left(self, event: events.DescendantBlur) -> None:
        """A field left as it takes it says nothing more: a refused key's line stayed in red
        under a field that was fine ("abc" into an emptied Hands: no limit, as allowed)."""
        if isinstance(event.widget, NumberInput):
            self._say(event.widget, event.widget.problem)

    def action_create(self) -> None:
        """Create the table with the form's values."""
        fields = self._collect()
        if fields is not None:
            self.dismiss(fields)

    def action_cancel(self) -> None:
        """Close without creating."""
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#create-ok")
    def _ok(self) -> None:
        self.action_create()

    @on(Button.Pressed, "#create-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


__all__ = [
    "BuryDialog",
    "CallDialog",
    "ChatDialog",
    "ConfirmDialog",
    "CreateTableDialog",
    "PasswordDialog",
    "card_label",
    "describe_call",
]
