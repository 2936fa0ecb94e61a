"""A Static that repaints only when what it shows changed.

Every server event redraws the whole table from the model; most widgets show the same thing as
before, and skipping their repaint keeps a redraw cheap (see bench/client.py).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class Panel(Static):
    """A Static with change-checked content and border titles."""

    _shown: Text | str | None = None
    _titles: tuple[str | None, str | None] | None = None

    def show_text(self, content: Text | str) -> None:
        """Show ``content`` unless it is already shown (the size never depends on it)."""
        if content != self._shown:
            self._shown = content
            self.update(content, layout=False)

    def set_titles(self, title: str | None, subtitle: str | None = None) -> None:
        """Set the border title and subtitle unless they are already set."""
        if (title, subtitle) != self._titles:
            self._titles = (title, subtitle)
            self.border_title = title
            self.border_subtitle = subtitle
