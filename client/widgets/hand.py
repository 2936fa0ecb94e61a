"""Your cards: a row of card widgets with a cursor, legal cards highlighted, the rest dimmed.

The bar never decides what is legal: it is told which cards the server's ``legal`` list allows.
Without colour the states stay distinct: a playable card has a solid border and its number key,
an unplayable one a dashed border and plain (not bold) text, the cursor card a double border, a
card chosen for the bury a ✓, a card that came from the blind a ◆ under it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message

from client.widgets.base import Panel
from client.widgets.cards import card_text

MAX_CARDS = 8
"""The most cards a hand shows (the picker's six plus the blind)."""


class CardWidget(Panel):
    """One card of your hand; clicking it chooses it."""

    class Chosen(Message):
        """A card was clicked: ``index`` counts from 0."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__(id=f"card-{index + 1}", classes="card")
        self.index = index
        self.code = ""

    def show(
        self,
        code: str,
        *,
        playable: bool,
        dimmed: bool,
        cursor: bool,
        chosen: bool,
        from_blind: bool = False,
    ) -> None:
        """Draw ``code`` in the given state."""
        key = str(self.index + 1)
        # The cursor's number is drawn reversed: visible without colour, even on a chosen card.
        if cursor:
            title: str | None = f"[reverse]{key}[/]"
        else:
            title = key if playable or not dimmed else None
        self.set_titles(title, "✓" if chosen else None)
        self.code = code
        # The blind's mark goes after the label: a card's border has room for one mark only.
        self.show_text(Text(" ") + card_text(code, dim=dimmed) + Text("◆" if from_blind else ""))
        self.set_class(playable and not dimmed, "-legal")
        self.set_class(dimmed, "-dim")
        self.set_class(dimmed and not self.app.no_color, "-faint")
        self.set_class(cursor, "-cursor")
        self.set_class(chosen, "-chosen")
        if not self.display:
            self.display = True

    def on_click(self) -> None:
        """Tell the screen this card was clicked."""
        if self.code:
            self.post_message(self.Chosen(self.index))


class HandBar(Horizontal):
    """The row of your cards."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="hand-bar")
        self.codes: list[str] = []

    def compose(self) -> ComposeResult:
        """Eight card slots, shown or hidden as the hand changes (never remounted)."""
        for i in range(MAX_CARDS):
            yield CardWidget(i)

    def show(
        self,
        codes: Sequence[str],
        *,
        playable: Collection[str] = (),
        dim_others: bool = False,
        cursor: int | None = None,
        chosen: Collection[str] = (),
        blind: Collection[str] = (),
    ) -> None:
        """Show ``codes``; with ``dim_others`` the cards not in ``playable`` are dimmed; the
        cards in ``blind`` are marked as the ones picked up."""
        self.codes = list(codes)
        for widget in self.query(CardWidget):
            i = widget.index
            if i < len(codes):
                code = codes[i]
                widget.show(
                    code,
                    playable=code in playable,
                    dimmed=dim_others and code not in playable,
                    cursor=cursor == i,
                    chosen=code in chosen,
                    from_blind=code in blind,
                )
            else:
                widget.code = ""
                if widget.display:
                    widget.display = False
