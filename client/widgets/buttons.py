"""Buttons for the mouse that never take the keyboard focus.

On the table and in the decision dialogs every button has a key of its own; if a button could
take the focus, Enter would press it instead of playing the card under the cursor.
"""

from __future__ import annotations

from textual.widgets import Button


class KeyButton(Button, can_focus=False):
    """A compact button that is clicked, never focused (its key is in its label)."""

    def __init__(self, label: str, *, id: str | None = None, variant: str = "default") -> None:
        super().__init__(label, id=id, variant=variant, compact=True)  # type: ignore[arg-type]
