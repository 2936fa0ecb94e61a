"""A Static that repaints only when what it shows changed, and the screens' key footer.

Every server event redraws the whole table from the model; most widgets show the same thing as
before, and skipping their repaint keeps a redraw cheap (see bench/client.py).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Footer, Static


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


class KeyFooter(Footer):
    """The key footer (compact, no command palette), shown on a screen mounted while the
    terminal's window has no focus too.

    Textual's footer composes its keys only when the bindings change while the app has the
    focus (``Footer.bindings_changed``, Textual 8.2), so a screen mounted while the terminal
    (or the browser tab) had reported a blur kept an empty bottom line until the next change
    of bindings in focus (a panel opened and closed): a table screen opened straight away, back
    at a seat, had no key line. Once it shows keys, it follows Textual's rule again (no flicker
    to the keys of an unfocused screen while the window is away).
    """

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Compose the keys now if none are shown, focused window or not."""
        super().bindings_changed(screen)
        blurred = not self.app.app_focus
        if blurred and not self.children and self.is_attached and screen is self.screen:
            self.call_after_refresh(self.recompose)
