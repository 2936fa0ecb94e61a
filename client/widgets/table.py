"""The felt: five seat boxes around the trick, the hand's facts, the last trick.

Every widget here draws from a :class:`~client.model.TableModel` and holds no state of its own,
so a redraw after any event is a handful of ``update`` calls, never a remount.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from client.model import EMPTY_NAME, NUM_SEATS, TableModel, bot_label
from client.web_glyphs import dealer_mark
from client.widgets.base import Panel
from client.widgets.cards import card_text, cards_text


def seat_at(model: TableModel, position: int) -> int:
    """The seat shown at ``position`` (0 bottom = you, then clockwise: left, top-left, ...)."""
    me = model.my_seat
    base = 0 if me is None else me
    return (base + position) % NUM_SEATS


def fit_name(name: str, width: int) -> str:
    """A name cut to ``width`` cells, keeping a trailing number: "Heuristic bot 1" → "Heuristic 1".

    An empty seat is "(empty)" where that fits, else "empty", never a cut "(emp…".

    >>> fit_name("Heuristic bot 1", 12), fit_name("Bartholomew", 6), fit_name("Ann", 6)
    ('Heuristic 1', 'Barth…', 'Ann')
    >>> fit_name("(empty)", 7), fit_name("(empty)", 6), fit_name("(empty)", 3)
    ('(empty)', 'empty', '—')
    """
    if len(name) <= width:
        return name
    if name == EMPTY_NAME:
        return "empty" if width >= len("empty") else "—"
    words = name.split()
    if len(words) > 2 and words[-1].isdigit():
        short = f"{words[0]} {words[-1]}"
        if len(short) <= width:
            return short
        return words[0][: width - len(words[-1]) - 2] + "… " + words[-1]
    return name[: width - 1] + "…"


def tag_name(name: str, width: int = 3) -> str:
    """A name in at most ``width`` cells, for a card's owner: "Ann", "Ole", "R1" for "Random bot 1".

    An empty seat's card (its player left after playing it) is tagged "—", not "(em".

    >>> tag_name("Random bot 1"), tag_name("Bartholomew"), tag_name("Al"), tag_name("(empty)")
    ('R1', 'Bar', 'Al', '—')
    """
    if name == EMPTY_NAME:
        return "—"
    words = name.split()
    if len(words) > 1 and words[-1].isdigit():
        return (words[0][:1] + words[-1])[:width]
    return name[:width]


def trick_takes(model: TableModel, trick: Mapping[str, Any]) -> str:
    """``Cal takes 14`` / ``You take 14``."""
    winner = trick.get("winner")
    who = model.says(winner if isinstance(winner, int) else None, "take")
    return f"{who} {trick.get('points', 0)}"


class SizedPanel(Panel):
    """A panel whose drawing depends on its size: it redraws itself when resized."""

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        raise NotImplementedError

    def on_resize(self) -> None:
        """Draw again for the new size."""
        model = getattr(self.app, "model", None)
        if isinstance(model, TableModel):
            self.draw(model)


class SeatBox(SizedPanel):
    """A seat: name, turn marker, dealer button, bot/offline marks, roles, score, tricks."""

    def __init__(self, position: int) -> None:
        super().__init__(id=f"seat-{position}", classes="seat")
        self.position = position
        self.seat = position
        self.hide_points = False
        """Whether another seat's card points are hidden during the hand (a client setting)."""

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        seat = self.seat = seat_at(model, self.position)
        info = model.seats[seat]
        view = model.view or {}
        phase = view.get("phase")
        turn = view.get("turn") if phase not in (None, "done") else None
        me = model.my_seat == seat
        name = "You" if me and info.name == EMPTY_NAME else info.name
        # The title runs on the top border between "╭─ " and " ─╮": the content width (the box
        # less its border and padding) less two cells.
        width = max(6, (self.size.width or 14) - 2 - (2 if turn == seat else 0))
        title = ("▶ " if turn == seat else "") + fit_name(name, width)
        self.set_titles(title, f"seat {seat}")
        self.set_class(turn == seat, "-turn")
        self.set_class(me, "-me")
        self.set_class(info.is_empty, "-empty")
        self.set_class(not info.connected and not info.is_empty, "-offline")

        marks: list[tuple[str, str]] = []

        def tag(label: str, style: str) -> None:
            marks.append((label, style))

        if view.get("dealer") == seat:
            tag(*dealer_mark(self.app.is_web))
        bot_at = len(marks)
        if info.is_bot:
            tag("bot", "italic")
        if info.is_empty:
            # Left during the match: the seat still plays (a bot for nobody) and still scores.
            tag("bot plays" if info.standin else "empty", "italic" if info.standin else "dim")
        elif info.left:
            # Gone once the match was over (the lobby says "left: free"): "offline" said
            # they would be back.
            tag("left", "dim")
        elif not info.connected and info.standin:
            # Away past the grace period: the notice said a bot plays for them, and the box
            # went on saying "offline" while the seat played (its dashed border says away).
            tag("bot plays", "italic")
        elif not info.connected:
            tag("offline", "bold reverse")
        if view.get("picker") == seat:
            tag("PICKER", "bold reverse")
        if model.partner == seat and not view.get("alone"):
            tag("PARTNER", "bold underline")
        if phase == "pick" and seat in (view.get("passes") or []):
            tag("passed", "dim")
        if me:
            tag("you", "bold")
        if info.is_bot and info.strategy:
            # A server bot is named by its strategy as the standings name it, as far as the
            # line holds beside the hand's marks (16 columns at 80x24): "heuristic bot", else
            # "heuristic" (the dealer's Ⓓ beside it), else "bot" (beside PICKER).
            room = (self.size.width or 14) - sum(len(label) + 1 for label, _ in marks) + 4
            for label in (bot_label(info.strategy), info.strategy):
                if len(label) <= room:
                    marks[bot_at] = (label, "italic")
                    break
        plays = ("bot plays", "italic")
        line = sum(len(label) + 1 for label, _ in marks) - 1
        if plays in marks and line > (self.content_size.width or 14):
            # Beside the dealer's Ⓓ and PICKER the line ran past the box: "bot" says it.
            marks[marks.index(plays)] = ("bot", "italic")
        tags = Text(" ").join(Text(label, style=style) for label, style in marks)

        score = model.totals[seat] if seat < len(model.totals) else 0
        line2 = Text(f"score {score:+d}", style="bold" if score else "")
        if info.is_empty and not info.standin:
            line2 = Text("")
        tricks = (view.get("tricks_won") or [0] * NUM_SEATS)[seat]
        points = (view.get("trick_points") or [0] * NUM_SEATS)[seat]
        sizes = view.get("hand_sizes") or [0] * NUM_SEATS
        if phase == "play" and self.hide_points and not me:
            line3 = Text(f"{tricks} tr")
        elif phase in ("play", "done"):
            line3 = Text(f"{tricks} tr · {points} pts", style="")
        elif phase is not None:
            line3 = Text(f"{sizes[seat]} cards")
        else:
            line3 = Text("")
        self.show_text(Text("\n").join([tags, line2, line3]))


class TrickView(SizedPanel):
    """The current trick, each card placed toward the seat that played it; ▸ marks the lead.

    A finished trick (:attr:`held`, chosen by the screen) is shown whole: its winner's card in
    reverse and the title naming who took it and for how much.
    """

    def __init__(self) -> None:
        super().__init__(id="trick", classes="trick")
        self.held: dict[str, Any] | None = None
        """The finished trick to show instead of the trick in progress."""

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        view = model.view or {}
        trick = view.get("trick") or {}
        phase = view.get("phase")
        played = {c["seat"]: c["card"] for c in trick.get("cards") or []}
        leader = trick.get("leader") if played else None
        winner = None
        tricks = view.get("tricks") or []
        held = self.held
        width = max(16, self.size.width or 20)
        if held is not None:
            lead = int(held.get("leader") or 0)
            cards = list(held.get("cards") or [])
            played = {(lead + i) % NUM_SEATS: c for i, c in enumerate(cards)}
            leader = lead
            winner = held.get("winner")
            self.set_titles(fit_name(trick_takes(model, held), width))
        elif phase == "play":
            self.set_titles(f"Trick {min(len(tricks) + 1, 6)} of 6")
        elif phase == "done":
            self.set_titles("Hand over")
        else:
            self.set_titles("Trick")

        def slot(position: int) -> Text:
            seat = seat_at(model, position)
            code = played.get(seat)
            if code is None:
                return Text("·", style="dim") if phase == "play" else Text(" ")
            mark = Text("▸", style="bold") if seat == leader else Text(" ")
            card = card_text(code)
            if seat == winner:
                card.stylize("reverse")
            return mark + card

        def row(*parts: tuple[Text, int]) -> Text:
            line = Text()
            for text, col in parts:
                pad = col - line.cell_len
                if pad > 0:
                    line.append(" " * pad)
                line.append_text(text)
            return line

        quarter = width // 4
        half = width // 2
        # Spread the three rows of cards over the height: the top seats' cards near the top,
        # the side seats' in the middle, yours near the bottom.
        last = max(4, (self.size.height or 5) - 1)
        margin = (last - 4) // 3
        rows = {
            margin: row((slot(2), quarter - 2), (slot(3), width - quarter - 2)),
            last // 2: row((slot(1), 0), (slot(4), width - 5)),
            last - margin - last % 2: row((slot(0), half - 2)),
        }
        if phase in (None, "pick"):
            note = "waiting for players" if model.view is None else "blind: ▮▮ face down"
            if len(note) > width - 2:  # 80 columns: a cut "face / down" read badly
                note = "waiting" if model.view is None else "blind: ▮▮"
            if model.view is None and model.table_state == "over":
                note = "match over"  # nobody is waited for ("waiting" under "Table over")
            if model.view is not None and view.get("leaster"):
                note = "leaster"
            rows[last // 2] = row((Text(note, style="dim"), max(0, half - len(note) // 2)))
        lines = [rows.get(i, Text("")) for i in range(last + 1)]
        self.show_text(Text("\n").join(lines))


class HandInfo(Panel):
    """The hand's public facts: picker, call, stakes, who passed, a leaster or doubler."""

    def __init__(self) -> None:
        super().__init__(id="hand-info", classes="hand-info")

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        view = model.view
        lines: list[Text] = []
        if view is None:
            state = model.table_state
            seated = sum(1 for s in model.seats if not s.is_empty)
            lines.append(Text(f"Table {state}", style="bold"))
            lines.append(Text(f"{seated} of 5 seated"))
        else:
            number = model.hand_number
            hands = model.info.get("hands")
            head = f"Hand {number}" + (f" of {hands}" if hands else "")
            # The stakes so far (doublers, blitzes, crack, re-crack) beside the hand number.
            stakes = int(view.get("stakes") or view.get("multiplier") or 1)
            if stakes > 1:
                head += f"  ×{stakes}"
            lines.append(Text(head, style="bold"))
            picker = view.get("picker")
            if view.get("leaster"):
                lines.append(Text("Leaster: fewest points wins", style="bold"))
            elif view.get("doubler"):
                lines.append(Text("All passed: doubler"))
            elif picker is not None:
                lines.append(Text(f"Picker {model.who(picker, you='you')}"))
                called = view.get("called")
                if view.get("alone"):
                    lines.append(Text("playing alone", style="bold"))
                elif called:
                    line = Text("Called ") + card_text(called)
                    if view.get("unknown"):
                        line.append(" (unknown)")
                    lines.append(line)
            else:
                passed = len(view.get("passes") or [])
                lines.append(Text(f"Picking · {passed} passed"))
            mine = picker is not None and picker == model.my_seat
            if mine and model.buried_cards:
                lines.append(Text("Buried ") + cards_text(model.buried_cards))
            elif mine and model.blind_cards:
                lines.append(Text("Blind ") + cards_text(model.blind_cards))
            if picker is not None and not view.get("leaster") and not view.get("doubler"):
                # After the picker's own cards: the stakes stay in the head line when cut.
                lines += _stakes_lines(model, view, max(12, self.size.width or 18))
        self.show_text(Text("\n").join(lines[:5]))


def _stakes_lines(model: TableModel, view: Mapping[str, Any], width: int = 18) -> list[Text]:
    """Who blitzed and who cracked (docs/rules.md, "Cracking and blitzing"), one short line each,
    said as the log says it ("Eve cracks: ×4", "You re-crack: ×2") in ``width`` cells."""
    lines = []
    for blitz in view.get("blitzes") or []:
        line = Text("Blitz ")
        line.append_text(cards_text(blitz.get("cards") or []))
        lines.append(line)
    crack = view.get("crack")
    if crack is not None:
        # It read "Crack you ×2, re": the factor each doubled by (×4 with queens shown).
        factor = 4 if crack.get("blitz") else 2
        lines.append(Text(_said(model, crack.get("seat"), "crack", f"×{factor}", width), "bold"))
        if view.get("recrack"):
            lines.append(Text(_said(model, view.get("picker"), "re-crack", "×2", width), "bold"))
    return lines


def _said(model: TableModel, seat: Any, verb: str, rest: str, width: int) -> str:
    """``Eve cracks: ×4``: the seat and the verb in the right person (:meth:`TableModel.says`),
    the name cut so that the line fits ``width`` cells."""
    subject, _, said = model.says(seat, verb).rpartition(" ")
    tail = f" {said}: {rest}"
    return fit_name(subject, max(3, width - len(tail))) + tail


class LastTrickBox(Panel):
    """The latest finished trick in short: who took it and for how much (``l`` for detail)."""

    def __init__(self) -> None:
        super().__init__(id="last-trick", classes="last-trick")

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        trick = model.last_trick
        if trick is None:
            self.set_titles("Last trick")
            self.show_text(Text("none yet", style="dim"))
            return
        winner = trick.get("winner")
        points = f" +{trick.get('points', 0)}"
        width = max(8, (self.size.width or 18) - 6)
        # Who played each card: an earlier holder of the seat played theirs (not "You").
        first = 5 * (len((model.view or {}).get("tricks") or []) - 1)
        taken = model.who(winner, at=("card", first + 4))
        self.set_titles(fit_name(taken, width - len(points)) + points)
        leader = int(trick.get("leader") or 0)
        entries: list[Text] = []
        for i, code in enumerate(trick.get("cards") or []):
            seat = (leader + i) % NUM_SEATS
            entry = Text(tag_name(model.who(seat, at=("card", first + i))) + " ") + card_text(code)
            if seat == winner:
                entry.stylize("reverse")
            entries.append(entry)
        lines = [Text(" ").join(entries[i : i + 2]) for i in range(0, len(entries), 2)]
        self.show_text(Text("\n").join(lines))
