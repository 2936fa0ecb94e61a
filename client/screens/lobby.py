"""The lobby: the server's tables with their rules, seats and state; create, join or watch."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from client.model import bot_label, plural
from client.screens.base import GameScreen
from client.screens.dialogs import hand_over_key
from client.web_glyphs import lock_mark
from client.widgets.base import KeyFooter
from engine.rules import option_title, preset_title, value_title

REFRESH_SECONDS = 3.0
"""How often the lobby asks the server for its tables."""

TAKE_BACK_WAIT = 60.0
"""Seconds after the first listing that a client started at no table waits for a seat of its
player key that is connected elsewhere to go away before it gives up taking one back by
itself: a browser tab that vanished (a dropped network, no close) is seen gone by the web door
in about 23 s (its heartbeat), and a reload meanwhile began at no table."""

RULES_WIDTH = 15
"""Cells of the lobby's rules column."""


def _yours(table: Mapping[str, Any]) -> tuple[int, bool] | None:
    """The seat of ``table`` the server says our player key holds, and whether it is away
    (``list_tables``'s ``yours``, PROTOCOL.md §4), or None."""
    yours = table.get("yours")
    if not isinstance(yours, Mapping) or not isinstance(yours.get("seat"), int):
        return None
    return int(yours["seat"]), bool(yours.get("away"))


def hanging_line(label: str, items: Sequence[str], width: int, sep: str = ", ") -> str:
    """``label`` then ``items`` joined by ``sep``, broken between items to fit ``width`` cells,
    each later line indented under the first item (a wrapped seats line started at column 0).
    A ``width`` under 1 (not laid out yet) breaks nothing.

    >>> print(hanging_line(" Seats: ", ["Ann", "Bob (away)", "Cal"], 24))
     Seats: Ann, Bob (away),
            Cal
    """
    indent = " " * cell_len(label)
    lines: list[str] = []
    line = label + (items[0] if items else "")
    for item in items[1:]:
        if width < 1 or cell_len(line + sep + item) <= width:
            line += sep + item
        else:
            lines.append(line + sep.rstrip())
            line = indent + item
    return "\n".join([*lines, line])


def _seats_text(table: Mapping[str, Any]) -> str | Text:
    yours = _yours(table)
    if yours is not None:  # the table looks full: say whose seat one of them is
        return Text("yours (away)" if yours[1] else "yours", style="bold reverse")
    seats = table.get("seats") or []
    taken = [s for s in seats if _taken(s)]
    bots = sum(1 for s in taken if s.get("kind") == "bot")
    text = f"{len(taken)}/5"
    if bots:
        text += f" · {bots} bot" + ("s" if bots > 1 else "")
    return text


def _is_full(table: Mapping[str, Any]) -> bool:
    """Whether every seat of ``table`` is taken (a ``join`` would be refused ``table_full``,
    unless one of them is ours: see :func:`_yours`)."""
    seats = table.get("seats") or []
    return len(seats) >= 5 and all(_taken(s) for s in seats)


def _taken(seat: Mapping[str, Any]) -> bool:
    """Whether a join may not take ``seat``: somebody sits there, and it is not one its player
    left once the match was over (``left``, PROTOCOL.md §6.1: the name stays shown with the
    final totals; the lobby counted it taken and Enter watched, though a join takes it)."""
    return seat.get("kind") not in (None, "empty") and not seat.get("left")


def _rules_text(table: Mapping[str, Any]) -> str:
    """The preset's display name, cut to the column, and how many options differ from it."""
    rules = dict(table.get("rules") or {})
    preset = str(rules.pop("preset", "seed"))
    options = rules.pop("options", None)
    changed = len(options) if isinstance(options, Mapping) else len(rules)
    more = f" +{changed}" if changed else ""
    # The column is narrow: the name without its note ("Wisconsin"); the detail line below
    # the list gives the whole name.
    title = preset_title(preset).split(" (")[0]
    width = RULES_WIDTH - len(more)
    if len(title) > width:
        title = title[: width - 1] + "…"
    return title + more


def _state_text(table: Mapping[str, Any]) -> str:
    state = str(table.get("state") or "?")
    if state == "playing":
        limit = table.get("hands")
        played = int(table.get("hands_played") or 0)
        return f"hand {played + 1}" + (f"/{limit}" if limit else "")
    return state


class TableList(DataTable[Any]):
    """The lobby's list of tables, one row each: Home and End go to the first and the last
    table (a row cursor's Home and End only scrolled the list sideways, where there is nothing
    to see; Up, Down, PageUp and PageDown moved it)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First table", show=False),
        Binding("end", "scroll_bottom", "Last table", show=False),
    ]


class LobbyScreen(GameScreen[None]):
    """Tables on the server; Enter joins (or watches, in watch mode or at a full table)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "create", "Create"),
        Binding("enter,j", "join", "Join"),
        Binding("w", "watch", "Watch"),
        Binding("f5,r", "refresh", "Refresh"),
        Binding("s", "standings", "Standings"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_app", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Mapping[str, Any]] = []
        self._take_back_until: float | None = None
        """When the wait for our key's seats connected elsewhere ends (``TAKE_BACK_WAIT``)."""

    def compose(self) -> ComposeResult:
        """A title line, the table list and a hint."""
        yield Static(id="lobby-title")
        yield TableList(id="tables", cursor_type="row", zebra_stripes=False)
        yield Static(id="lobby-detail")
        yield Static(id="lobby-hint")
        yield KeyFooter()

    def on_resize(self, event: events.Resize) -> None:
        """Break the detail's lines anew for the terminal's width, and fit the title to it (at
        the width it was first drawn for, a narrower window lost "● connected")."""
        self._draw_title()
        self._draw_detail()

    def on_mount(self) -> None:
        """Set up columns, draw, and refresh now and every few seconds."""
        grid = self.query_one(DataTable)
        # Fixed widths (79 cells with padding): the list reads at 80 columns, and the columns
        # never jump as tables come and go.
        for label, key, width in (
            ("Table", "name", 14),
            ("Id", "id", 5),
            ("Rules", "rules", RULES_WIDTH),
            ("Seats", "seats", 12),
            ("State", "state", 10),
            ("Watch", "spectators", 5),
            ("Lock", "lock", 4),
        ):
            grid.add_column(label, key=key, width=width)
        self._draw_title()
        self.watch(self.app, "status", lambda *_: self._draw_title(), init=False)
        self.show_tables([])
        app = self.game
        if app.session is not None:
            self.refresh_tables()
            self.set_interval(REFRESH_SECONDS, self.refresh_tables)
        grid.focus()

    def on_key(self, event: events.Key) -> None:
        """Keys typed right behind c belong to the create dialog (see :class:`TypeAhead`)."""
        hand_over_key(self, event, {"c": self.action_create})

    def on_screen_resume(self) -> None:
        """Back from a table: list again."""
        app = self.game
        if app.session is not None:
            self.refresh_tables()

    def _draw_title(self) -> None:
        app = self.game
        session = app.session
        name = getattr(session, "name", None) or ""
        left = Text(" ♣ Sheepshead lobby", style="bold")
        if getattr(session, "local_socket", None) is None:
            # A door's client dials the server's socket: its nominal "localhost:7453" meant
            # nothing to a player who ssh'd to the host or opened its page.
            left.append(f" · {app.address}")
        if name:
            left.append(f" · you are {name}")
        right = Text(f"● {app.status}" if app.status == "connected" else f"◌ {app.status}")
        width = self.size.width or 80
        if left.cell_len + right.cell_len + 2 > width:
            # The connection's status is never the part cut (as on the table's top bar): a
            # 24-character name cut "● connected" to "●".
            left.truncate(max(1, width - right.cell_len - 2), overflow="ellipsis")
        pad = max(1, width - left.cell_len - right.cell_len - 1)
        self.query_one("#lobby-title", Static).update(left + Text(" " * pad) + right)

    def show_tables(self, tables: Sequence[Mapping[str, Any]]) -> None:
        """Replace the list, keeping the cursor on the same table where possible."""
        grid = self.query_one(DataTable)
        keep = self._current_id()
        self.tables = [dict(t) for t in tables]
        grid.clear()
        for table in self.tables:
            grid.add_row(
                str(table.get("name") or "?")[:14],
                str(table.get("id")),
                _rules_text(table),
                _seats_text(table),
                _state_text(table),
                str(table.get("spectators") or 0),
                lock_mark(self.app.is_web) if table.get("password") else "",
                key=str(table.get("id")),
            )
        ids = [str(t.get("id")) for t in self.tables]
        if keep in ids:
            grid.move_cursor(row=ids.index(keep))
        self._draw_detail()

    def _draw_hint(self, table: Mapping[str, Any] | None) -> None:
        """What Enter does to the highlighted ``table``: takes our own seat back, if it is."""
        hint = self.query_one("#lobby-hint", Static)
        app = self.game
        yours = _yours(table) if table is not None else None
        if self.tables and app.mode == "watch":
            hint.update(" Enter watches the highlighted table · c creates one")
        elif yours is not None and yours[1]:
            hint.update(
                Text(f" Your seat {yours[0]} (away): Enter takes it back", style="bold")
                + Text(" · c creates one · w watches")
            )
        elif yours is not None:
            hint.update(
                f" Your seat {yours[0]} plays in another window: Enter watches · c creates one"
            )
        elif table is not None and _is_full(table):
            # Enter joined and was refused "table_full", whose notice said to press w.
            hint.update(" Every seat is taken: Enter watches this table · c creates one")
        elif self.tables:
            hint.update(" Enter joins the highlighted table · c creates one · w watches")
        else:
            hint.update(" No tables yet: press c to create one.")

    def _draw_detail(self) -> None:
        """The highlighted table in full: host, every seat, every rule that differs."""
        table = self._current()
        self._draw_hint(table)
        detail = self.query_one("#lobby-detail", Static)
        if table is None:
            detail.update("")
            return
        text = Text(f" {table.get('name', '?')}", style="bold")
        if table.get("host"):
            text.append(f" · host {table['host']}")
        limit = table.get("hands")
        text.append(f" · {plural(int(limit), 'hand')}" if limit else " · open-ended")
        if table.get("turn_timer"):
            # :g: the server sends a float, and "30.0 s turns" read as a timer to the tenth.
            text.append(f" · {float(table['turn_timer']):g} s turns")
        if table.get("hints"):  # the host created it with the coach on (PROTOCOL.md §6.1)
            text.append(" · coach hints (i)")
        seats = []
        yours = _yours(table)
        for seat in table.get("seats") or []:
            kind = seat.get("kind")
            if kind in (None, "empty"):
                seats.append("—")
            else:
                away = not seat.get("connected", True)
                strategy = seat.get("strategy")
                # A server bot as the standings name it: "Gus (heuristic bot)".
                label = bot_label(strategy) if isinstance(strategy, str) and strategy else "bot"
                mark = f" ({label})" if kind == "bot" else (" (away)" if away else "")
                if seat.get("left"):
                    mark = " (left: free)"
                if yours is not None and seat.get("seat") == yours[0]:
                    mark = " (yours, away)" if away else " (yours)"
                seats.append(f"{seat.get('name', '?')}{mark}")
        width = detail.size.width or self.size.width
        text.append("\n" + hanging_line(" Seats: ", seats or ["none"], width))
        rules = dict(table.get("rules") or {})
        preset = rules.pop("preset", "seed")
        options = rules.pop("options", None)
        changed = dict(options) if isinstance(options, Mapping) else rules
        # By their titles, as the create dialog and the rules panel name them: it read
        # "with no_pick=doubler, partner=jack-of-diamonds".
        terms = [f"{option_title(k)} → {value_title(k, v)}" for k, v in changed.items()]
        if terms:
            terms[0] = f"{preset_title(str(preset))} with {terms[0]}"
        else:
            terms = [preset_title(str(preset))]
        text.append("\n" + hanging_line(" Rules: ", terms, width, " · "))
        detail.update(text)

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self._draw_detail()

    def _current_id(self) -> str | None:
        grid = self.query_one(DataTable)
        if not self.tables or grid.cursor_row is None or grid.cursor_row >= len(self.tables):
            return None
        return str(self.tables[grid.cursor_row].get("id"))

    def _current(self) -> Mapping[str, Any] | None:
        grid = self.query_one(DataTable)
        if not self.tables or grid.cursor_row >= len(self.tables):
            return None
        return self.tables[grid.cursor_row]

    @work(exclusive=True, group="lobby", exit_on_error=False)
    async def refresh_tables(self, *, quiet: bool = True) -> None:
        """Ask the server for its tables, while the lobby is on screen.

        ``quiet``: a lost connection is not reported (the title bar shows it already), as for
        the refresh on the clock; a refresh the user asked for reports it.
        """
        app = self.game
        if app.session is None or app.status != "connected" or not self._on_screen():
            return
        reply = await app.call("list_tables", quiet_lost=quiet, about="the lobby")
        if reply is not None and self.is_attached:
            self.show_tables(reply.get("tables") or [])
            if app.take_back_by_key:
                self._take_back_alone()

    def _take_back_alone(self) -> None:
        """The first listing after the start: if exactly one table keeps our player key's
        seat away (a new device, a wiped config: no seat token), take it back as a token would
        have; with two or more, the player chooses (Enter on one). While a seat of the key is
        still connected elsewhere (the old tab of a reload, gone without a word, that the
        server has not seen drop yet), the lobby's next listings decide, for
        ``TAKE_BACK_WAIT`` at most: then, or once the player acts, nothing is taken."""
        app = self.game
        now = time.monotonic()
        if self._take_back_until is None:
            self._take_back_until = now + TAKE_BACK_WAIT
        if getattr(app.session, "table", None) is not None or app.mode != "join":
            app.take_back_by_key = False
            return
        ours = [(t, yours) for t in self.tables if (yours := _yours(t)) is not None]
        # A stale seat token is told now if the key holds no seat here (else it was not true).
        app.stale_token_settled(seat_found=bool(ours))
        if any(not away for _, (_, away) in ours):
            if now >= self._take_back_until:
                app.take_back_by_key = False
            return
        app.take_back_by_key = False
        away = [t for t, _ in ours]
        if len(away) != 1:
            return
        table = away[0]
        label = str(table.get("name") or table.get("id"))
        app.notify(f"Taking your seat back at {label}", timeout=6)
        self._enter("join", table)

    def _on_screen(self) -> bool:
        """Whether the lobby shows: on top, or under dialogs only (not under a table)."""
        stack = self.app.screen_stack
        if self not in stack:
            return False
        return all(screen.is_modal for screen in stack[stack.index(self) + 1 :])

    def action_refresh(self) -> None:
        """List the tables again now."""
        self.refresh_tables(quiet=False)

    def action_create(self) -> None:
        """Open the create-table dialog."""
        app = self.game
        name = getattr(app.session, "name", None) or "My"
        app.open_create_table(f"{name}'s table"[:32], self._create_chosen)

    def _create_chosen(self, fields: dict[str, Any] | None) -> None:
        if fields is not None:
            self._create(fields)

    @work(group="lobby-actions", exit_on_error=False)
    async def _create(self, fields: dict[str, Any]) -> None:
        app = self.game
        app.take_back_by_key = False  # the player chose: no seat is taken back behind them
        about = str(fields.get("name") or "the new table")
        reply = await app.call("create_table", about=about, **fields)
        if reply is None:
            return
        self._enter_table(str(reply.get("table")))

    def action_join(self) -> None:
        """Join the highlighted table (asking for its password if it has one); watch it when
        every seat is taken and none is ours, or ours is played in another window (a join
        was refused "already seated": that window has it)."""
        app = self.game
        if app.mode == "watch":
            self.action_watch()
            return
        table = self._current()
        if table is None:
            return
        yours = _yours(table)
        if (_is_full(table) and yours is None) or (yours is not None and not yours[1]):
            self._enter("watch", table)  # as the lobby's hint line says
        else:
            self._enter("join", table)

    def action_watch(self) -> None:
        """Watch the highlighted table (asking for its password if it has one)."""
        table = self._current()
        if table is not None:
            self._enter("watch", table)

    @work(group="lobby-actions", exit_on_error=False)
    async def _enter(self, request: Literal["join", "watch"], table: Mapping[str, Any]) -> None:
        app = self.game
        app.take_back_by_key = False  # the player chose (or it is the take-back itself)
        table_id, label = str(table.get("id")), str(table.get("name") or table.get("id"))
        password: str | None = None
        if table.get("password"):  # asked before the first try: the server counts every try
            password = await app.ask_password(label)
            if password is None:
                return
        fields: dict[str, Any] = {"seat": None} if request == "join" else {}
        reply = await app.enter_table(request, table_id, label, password, **fields)
        if reply is not None:
            self._enter_table(table_id)

    def _enter_table(self, table_id: str) -> None:
        """Open the table screen (the server's snapshot fills it in)."""
        app = self.game
        if app.model.table != table_id:
            app.model.reset(table_id)
        app.open_table()

    @on(DataTable.RowSelected)
    def _row_selected(self) -> None:
        self.action_join()

    def action_standings(self) -> None:
        """Show who is ahead across the server's finished matches."""
        from client.screens.standings import StandingsScreen

        self.app.push_screen(StandingsScreen())

    def action_help(self) -> None:
        """Show every key binding."""
        self.game.open_help()

    async def action_quit_app(self) -> None:
        """Quit."""
        await self.app.action_quit()
