"""The felt: five seat boxes around the trick, the hand's facts, the last trick.

Every widget here draws from a :class:`~client.model.TableModel` and holds no state of its own,
so a redraw after any event is a handful of ``update`` calls, never a remount.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from client.model import NUM_SEATS, TableModel
from client.widgets.base import Panel
from client.widgets.cards import card_text, cards_text


def seat_at(model: TableModel, position: int) -> int:
    """The seat shown at ``position`` (0 bottom = you, then clockwise: left, top-left, ...)."""
    me = model.my_seat
    base = 0 if me is None else me
    return (base + position) % NUM_SEATS


def fit_name(name: str, width: int) -> str:
    """A name cut to ``width`` cells, keeping a trailing number: "Heuristic bot 1" → "Heuristic 1".

    >>> fit_name("Heuristic bot 1", 12), fit_name("Bartholomew", 6), fit_name("Ann", 6)
    ('Heuristic 1', 'Barth…', 'Ann')
    """
    if len(name) <= width:
        return name
    words = name.split()
    if len(words) > 2 and words[-1].isdigit():
        short = f"{words[0]} {words[-1]}"
        if len(short) <= width:
            return short
        return words[0][: width - len(words[-1]) - 2] + "… " + words[-1]
    return name[: width - 1] + "…"


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

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        seat = self.seat = seat_at(model, self.position)
        info = model.seats[seat]
        view = model.view or {}
        phase = view.get("phase")
        turn = view.get("turn") if phase not in (None, "done") else None
        me = model.my_seat == seat
        name = "You" if me and info.name == "(empty)" else info.name
        # The title runs on the top border between "╭─ " and " ─╮": the content width (the box
        # less its border and padding) less two cells.
        width = max(6, (self.size.width or 14) - 2 - (2 if turn == seat else 0))
        title = ("▶ " if turn == seat else "") + fit_name(name, width)
        self.set_titles(title, f"seat {seat}")
        self.set_class(turn == seat, "-turn")
        self.set_class(me, "-me")
        self.set_class(info.is_empty, "-empty")
        self.set_class(not info.connected and not info.is_empty, "-offline")

        tags = Text()

        def tag(label: str, style: str) -> None:
            if tags:
                tags.append(" ")
            tags.append(label, style=style)

        if view.get("dealer") == seat:
            tag("Ⓓ", "bold")
        if info.is_bot:
            tag("bot", "italic")
        if info.is_empty:
            tag("empty", "dim")
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

        score = model.totals[seat] if seat < len(model.totals) else 0
        line2 = Text(f"score {score:+d}", style="bold" if score else "")
        if info.is_empty:
            line2 = Text("")
        tricks = (view.get("tricks_won") or [0] * NUM_SEATS)[seat]
        points = (view.get("trick_points") or [0] * NUM_SEATS)[seat]
        sizes = view.get("hand_sizes") or [0] * NUM_SEATS
        if phase in ("play", "done"):
            line3 = Text(f"{tricks} tr · {points} pts", style="")
        elif phase is not None:
            line3 = Text(f"{sizes[seat]} cards")
        else:
            line3 = Text("")
        self.show_text(Text("\n").join([tags, line2, line3]))


class TrickView(SizedPanel):
    """The current trick, each card placed toward the seat that played it; ▸ marks the lead."""

    def __init__(self) -> None:
        super().__init__(id="trick", classes="trick")

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        view = model.view or {}
        trick = view.get("trick") or {}
        phase = view.get("phase")
        played = {c["seat"]: c["card"] for c in trick.get("cards") or []}
        leader = trick.get("leader") if played else None
        tricks = view.get("tricks") or []
        if phase == "play":
            self.set_titles(f"Trick {min(len(tricks) + 1, 6)} of 6")
        elif phase == "done":
            self.set_titles("Hand over")
        else:
            self.set_titles("Trick")
        if phase == "done" and tricks:
            # Keep the last trick on the felt while the result is shown.
            last = tricks[-1]
            played = {(last["leader"] + i) % NUM_SEATS: c for i, c in enumerate(last["cards"])}
            leader = last["leader"]
        width = max(16, self.size.width or 20)

        def slot(position: int) -> Text:
            seat = seat_at(model, position)
            code = played.get(seat)
            if code is None:
                return Text("·", style="dim") if phase == "play" else Text(" ")
            mark = Text("▸", style="bold") if seat == leader else Text(" ")
            return mark + card_text(code)

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
                lines.append(Text(f"Picker {model.name(picker)}"))
                called = view.get("called")
                if view.get("alone"):
                    lines.append(Text("playing alone", style="bold"))
                elif called:
                    line = Text("Called ") + card_text(called)
                    if view.get("unknown"):
                        line.append(" (unknown)")
                    lines.append(line)
                lines += _stakes_lines(model, view)
            else:
                passed = len(view.get("passes") or [])
                lines.append(Text(f"Picking · {passed} passed"))
        self.show_text(Text("\n").join(lines))


def _stakes_lines(model: TableModel, view: Mapping[str, Any]) -> list[Text]:
    """Who blitzed and who cracked (RULES.md §11), one short line each."""
    lines = []
    for blitz in view.get("blitzes") or []:
        line = Text("Blitz ")
        line.append_text(cards_text(blitz.get("cards") or []))
        lines.append(line)
    crack = view.get("crack")
    if crack is not None:
        # "Crack Eve ×4, re": who cracked, by how much (×4 with queens shown), re-cracked.
        factor = 4 if crack.get("blitz") else 2
        text = f"Crack {fit_name(model.name(crack.get('seat')), 6)} ×{factor}"
        if view.get("recrack"):
            text += ", re"
        lines.append(Text(text, style="bold"))
    return lines


class LastTrickBox(Panel):
    """The latest finished trick in short: who took it and for how much (``l`` for detail)."""

    def __init__(self) -> None:
        super().__init__(id="last-trick", classes="last-trick")

    def draw(self, model: TableModel) -> None:
        """Redraw from the model."""
        self.set_titles("Last trick")
        trick = model.last_trick
        if trick is None:
            self.show_text(Text("none yet", style="dim"))
            return
        winner = trick.get("winner")
        points = f" +{trick.get('points', 0)}"
        head = Text(fit_name(model.name(winner), 15 - len(points)) + points, style="bold")
        cards = Text()
        for i, code in enumerate(trick.get("cards") or []):
            if i:
                cards.append(" ")
            cards.append_text(card_text(code))
        self.show_text(Text("\n").join([head, cards]))
