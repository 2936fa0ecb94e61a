"""Widgets of the terminal client: cards, the hand bar, seats, the trick, buttons."""
