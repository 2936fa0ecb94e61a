"""The browser door's Textual driver: the web driver writing glyphs every browser can show.

A module of its own so that a terminal client never imports Textual's web driver.
"""

from __future__ import annotations

from typing import Final

from textual.drivers.web_driver import WebDriver

from client.web_glyphs import for_web

DRIVER: Final = "client.web_driver:WebGlyphDriver"
"""This driver as ``TEXTUAL_DRIVER`` names it (the browser door sets it for its clients)."""


class WebGlyphDriver(WebDriver):
    """Textual's web driver writing :func:`~client.web_glyphs.for_web`'s look-alikes (the
    browser door's driver, ``server.doors.web``)."""

    def write(self, data: str) -> None:
        """Write ``data`` to the door with each glyph of ``client.web_glyphs.WEB_GLYPHS``
        replaced, each by one cell, so the screen Textual composed keeps its layout."""
        super().write(for_web(data))
