"""The server picker: the sheepshead servers found on the LAN, for ``sheepshead join`` without an
address. Enter joins the highlighted one; with a single server found it still asks first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from client.discover import FoundServer, browse
from client.widgets.base import KeyFooter


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


class ServerPicker(Screen[FoundServer | None]):
    """Servers that answered the browse; dismissed with the chosen one, or None."""

    DEFAULT_CSS = """
    ServerPicker #servers { height: 1fr; }
    ServerPicker #picker-title { height: 2; padding: 0 1; }
    ServerPicker #picker-hint { height: 2; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,j", "pick", "Join"),
        Binding("r,f5", "rescan", "Look again"),
        Binding("escape,q", "cancel", "Cancel"),
    ]

    def __init__(self, servers: Sequence[FoundServer]) -> None:
        super().__init__()
        self.servers = list(servers)

    def compose(self) -> ComposeResult:
        """A title saying what was found, the servers, and a hint."""
        yield Static(id="picker-title")
        yield DataTable(id="servers", cursor_type="row", zebra_stripes=False)
        yield Static(id="picker-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Columns that fit 80 cells, then the rows."""
        grid = self.query_one(DataTable)
        for label, key, width in (
            ("Server", "name", 30),
            ("Address", "address", 21),
            ("Tables", "tables", 7),
            ("Players", "players", 7),
        ):
            grid.add_column(label, key=key, width=width)
        self.show_servers(self.servers)
        grid.focus()

    def show_servers(self, servers: Sequence[FoundServer]) -> None:
        """Draw ``servers`` and the title and hint that go with how many there are."""
        self.servers = list(servers)
        grid = self.query_one(DataTable)
        grid.clear()
        for server in self.servers:
            grid.add_row(
                server.name,
                server.target,
                _count(server.tables),
                _count(server.players),
                key=server.target,
            )
        count = len(self.servers)
        title = Text(" ♣ Sheepshead servers on this network", style="bold")
        if count == 1:
            hint = f"One server found: join {self.servers[0].name} at {self.servers[0].target}?"
            hint += "\nEnter joins it · r looks again · Esc cancels"
        elif count:
            hint = f"{count} servers found. Choose one with ↑/↓; Enter joins it"
            hint += "\nr looks again · Esc cancels"
        else:
            hint = "No server answered. r looks again; or give the address:"
            hint += "\nsheepshead join HOST[:PORT]"
        self.query_one("#picker-title", Static).update(title)
        self.query_one("#picker-hint", Static).update(hint)

    def chosen(self) -> FoundServer | None:
        """The highlighted server (None when the list is empty)."""
        if not self.servers:
            return None
        row = self.query_one(DataTable).cursor_row
        return self.servers[min(max(row, 0), len(self.servers) - 1)]

    def action_pick(self) -> None:
        """Join the highlighted server."""
        server = self.chosen()
        if server is not None:
            self.dismiss(server)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row (the grid has the focus and takes Enter itself): join it."""
        event.stop()
        self.action_pick()

    def action_cancel(self) -> None:
        """Join nothing."""
        self.dismiss(None)

    @work(exclusive=True, group="browse", exit_on_error=False)
    async def action_rescan(self) -> None:
        """Browse again and redraw."""
        self.query_one("#picker-hint", Static).update("Looking for servers…")
        self.show_servers(await browse())


class PickerApp(App[FoundServer | None]):
    """The picker on its own, before any connection: returns the server to join, or None."""

    TITLE = "Sheepshead"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, servers: Sequence[FoundServer]) -> None:
        super().__init__()
        self.servers = list(servers)

    def on_mount(self) -> None:
        """Show the picker; its answer is the app's."""
        self.push_screen(ServerPicker(self.servers), callback=self.exit)
