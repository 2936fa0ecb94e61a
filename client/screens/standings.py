"""The standings: who is ahead across every finished match on this server (from the lobby, s).

Ranked by total payout, or (Tab) by payout per hand among players with at least
:data:`MIN_HANDS` hands, so one lucky hand does not top the list. The server only counts
players it can tell apart across evenings: clients with a player key, SSH keys, and its bots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

MIN_HANDS = 10
"""Hands a player needs to be ranked by payout per hand."""

COLUMNS: tuple[tuple[str, int], ...] = (
    ("#", 3),
    ("Player", 16),
    ("Hands", 5),
    ("Total", 6),
    ("/hand", 6),
    ("Pick", 4),
    ("Won", 4),
    ("Schn", 4),
    ("Lstr", 4),
)
"""Column titles and widths (an 80-column terminal holds them all)."""


def ranked(
    rows: Sequence[Mapping[str, Any]], by: str, min_hands: int = MIN_HANDS
) -> list[Mapping[str, Any]]:
    """``rows`` (the ``standings`` reply's players) by ``total`` or by ``per_hand``.

    >>> rows = [{"player": "a", "total": 5, "hands": 20, "per_hand": 0.25},
    ...         {"player": "b", "total": 3, "hands": 2, "per_hand": 1.5},
    ...         {"player": "c", "total": 4, "hands": 10, "per_hand": 0.4}]
    >>> [r["player"] for r in ranked(rows, "total")]
    ['a', 'c', 'b']
    >>> [r["player"] for r in ranked(rows, "per_hand")]
    ['c', 'a']
    """
    if by == "per_hand":
        eligible = [r for r in rows if int(r.get("hands", 0)) >= min_hands]
        return sorted(eligible, key=lambda r: (-float(r.get("per_hand", 0)), -int(r["hands"])))
    return sorted(rows, key=lambda r: (-int(r.get("total", 0)), -int(r.get("hands", 0))))


def _percent(value: object) -> str:
    return f"{float(value or 0) * 100:.0f}%"  # type: ignore[arg-type]


def _name(row: Mapping[str, Any]) -> str:
    name = str(row.get("player", "?"))
    return name + (" (bot)" if row.get("kind") == "bot" else "")


class StandingsScreen(Screen[None]):
    """The standings table; Tab switches the ranking, r asks again, Esc goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "switch", "Total / per hand"),
        Binding("f5,r", "refresh", "Refresh"),
        Binding("escape,s,q", "back", "Back"),
    ]

    DEFAULT_CSS = """
    StandingsScreen #standings-title { height: 1; padding: 0 1; text-style: bold; }
    StandingsScreen #standings-hint { height: 1; padding: 0 1; color: $text-muted; }
    StandingsScreen DataTable { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.by = "total"
        self.rows: list[dict[str, Any]] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        """A title, the table, a hint."""
        yield Static(id="standings-title")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        yield Static(id="standings-hint")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        """Set up the columns and ask the server."""
        grid = self.query_one(DataTable)
        for label, width in COLUMNS:
            grid.add_column(label, width=width)
        self.show()
        self.load()

    @work(exclusive=True, group="standings", exit_on_error=False)
    async def load(self) -> None:
        """Ask the server for the standings."""
        app: Any = self.app
        reply = await app.call("standings")
        if reply is not None and self.is_attached:
            self.rows = list(reply.get("players") or [])
            self.loaded = True
            self.show()

    def show(self) -> None:
        """Draw the rows in the current ranking."""
        title = (
            "Standings · by total payout"
            if self.by == "total"
            else (f"Standings · by payout per hand (at least {MIN_HANDS} hands)")
        )
        self.query_one("#standings-title", Static).update(title)
        grid = self.query_one(DataTable)
        grid.clear()
        rows = ranked(self.rows, self.by, MIN_HANDS)
        for rank, row in enumerate(rows, 1):
            grid.add_row(
                str(rank),
                _name(row),
                str(row.get("hands", 0)),
                f"{int(row.get('total', 0)):+d}",
                f"{float(row.get('per_hand', 0)):+.2f}",
                _percent(row.get("pick_rate")),
                _percent(row.get("picker_win_rate")),
                str(row.get("schneiders", 0)),
                str(row.get("leasters_won", 0)),
            )
        if not self.loaded:
            hint = "Asking the server…"
        elif not self.rows:
            hint = "No finished matches yet: the standings start with the first one."
        elif not rows:
            hint = f"Nobody has played {MIN_HANDS} hands yet: Tab ranks by total."
        else:
            hint = "Pick: share of hands picked · Won: picker's wins · Schn: schneiders"
        self.query_one("#standings-hint", Static).update(hint)

    def action_switch(self) -> None:
        """Rank by the other measure."""
        self.by = "per_hand" if self.by == "total" else "total"
        self.show()

    def action_refresh(self) -> None:
        """Ask the server again."""
        self.load()

    def action_back(self) -> None:
        """Back to the lobby."""
        self.dismiss(None)
