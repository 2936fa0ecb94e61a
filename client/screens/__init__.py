"""Screens of the terminal client: lobby, table, dialogs and read-only panels."""
