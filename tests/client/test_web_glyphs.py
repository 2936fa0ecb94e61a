"""The browser door's glyphs: every one the client writes there is in a font every browser has.

In the browser door a glyph that no font of the player's system holds is drawn as nothing: on
a Linux machine with DejaVu and Liberation the seat of the dealer showed no ``Ⓓ`` and the turn
timer no ``⏱``, and with only WGL4 fonts the turn marker ``▶`` and the lead's ``▸`` were gone
too (seen in headless Chromium). No browser runs here: the client's
strings are read, as the web driver writes them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from rich.cells import cell_len
from textual.drivers.web_driver import WebDriver

import client
from client.screens.base import turn_clock
from client.web_driver import DRIVER, WebGlyphDriver
from client.web_glyphs import (
    CLOCK_MARK,
    DEALER_MARK,
    LOCK_MARK,
    WEB_GLYPHS,
    clock_text,
    dealer_mark,
    for_web,
    lock_mark,
)

ROBOTO_MONO = "".join(
    chr(code)
    for first, last in (
        (0xA0, 0x17F),  # Latin-1 and Latin Extended-A: · × ± » §
        (0x2013, 0x2015),  # – —
        (0x2017, 0x201E),
        (0x2020, 0x2022),  # •
        (0x2025, 0x2026),  # …
        (0x2039, 0x203A),  # ‹ ›
        (0x2212, 0x2212),  # −
        (0x221A, 0x221A),  # √
        (0x25CA, 0x25CA),  # ◊
    )
    for code in range(first, last + 1)
)
"""Roboto Mono's glyphs past ASCII that the client may use (``fc-query`` of the font the door
serves itself, ``textual_serve/static/fonts``)."""

WGL4_SYMBOLS = "←↑→↓↔↕■□▪▫▬▲►▼◄○◊●◘◙◦♠♣♥♦"
"""The symbols of WGL4, which the core fonts of every desktop system hold (Windows' Arial and
Courier New, macOS's, Linux's DejaVu or Liberation, Android's Noto)."""

XTERM_DRAWS = "".join(chr(code) for code in range(0x2500, 0x25A0))
"""Box drawing and block elements: xterm.js draws them itself (``customGlyphs``)."""

SHOWN_EVERYWHERE = frozenset(ROBOTO_MONO + WGL4_SYMBOLS + XTERM_DRAWS)

LEFT_AS_THEY_ARE = frozenset("⏎")
"""Enter's sign (Textual's own footer draws it too): DejaVu, Segoe UI Symbol and macOS have it,
and where a browser does not, the hints name Enter in words."""


def client_strings() -> dict[str, set[str]]:
    """Every character past ASCII in the client's string constants (docstrings aside), with
    the modules using it; ``client/web_glyphs.py`` aside (it holds the terminal's glyphs and
    their stand-ins)."""
    found: dict[str, set[str]] = {}
    root = Path(client.__file__).parent
    for path in sorted(root.rglob("*.py")):
        if path.name == "web_glyphs.py" and path.parent == root:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()  # a module's, a class's, a function's, and those under names
        for parent in ast.walk(tree):
            body = getattr(parent, "body", None)
            for node in body if isinstance(body, list) else []:
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                    docstrings.add(id(node.value))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                for char in node.value:
                    if not char.isascii():
                        found.setdefault(char, set()).add(str(path.relative_to(root)))
    return found


def test_every_glyph_the_client_writes_in_the_browser_is_in_a_font_every_browser_has() -> None:
    used = client_strings()
    missing = {
        char: sorted(modules)
        for char, modules in used.items()
        if for_web(char) not in SHOWN_EVERYWHERE and char not in LEFT_AS_THEY_ARE
    }
    assert not missing, missing
    # The terminal's own marks for the dealer, the clock and a password are used only
    # through client/web_glyphs.py, which gives the browser words or a letter for them.
    assert all(mark not in used for mark in (DEALER_MARK[0], CLOCK_MARK, LOCK_MARK))
    web = dealer_mark(True)[0] + lock_mark(True) + clock_text("17s", True)
    assert all(char.isascii() for char in web), web


def test_the_terminal_keeps_its_glyphs_and_the_browser_gets_words_or_look_alikes() -> None:
    assert dealer_mark(False) == ("Ⓓ", "bold") and dealer_mark(True) == ("D", "bold reverse")
    assert lock_mark(False) == "🔒" and lock_mark(True) == "yes"
    assert turn_clock(None, "connected", web=True) is None
    assert clock_text("17s", False) == "⏱ 17s" and clock_text("--", True) == "time --"
    # One cell for one: the screen Textual composed keeps its layout in the browser.
    assert cell_len(dealer_mark(True)[0]) == cell_len(dealer_mark(False)[0])
    for glyph, stand_in in WEB_GLYPHS.items():
        assert cell_len(glyph) == cell_len(stand_in) == 1, glyph
    assert for_web("\x1b[1m▶ Ann\x1b[0m ▸") == "\x1b[1m► Ann\x1b[0m ›"


def test_the_glyph_driver_writes_the_look_alikes_the_door_names_it() -> None:
    module, _, name = DRIVER.partition(":")
    assert (module, name) == (WebGlyphDriver.__module__, WebGlyphDriver.__name__)
    assert issubclass(WebGlyphDriver, WebDriver)
    driver = WebGlyphDriver.__new__(WebGlyphDriver)  # no stdout of a door to write to
    written: list[bytes] = []
    driver._write = written.append  # type: ignore[assignment]
    driver.write("▶ Ann")
    payload = "► Ann".encode()
    assert written == [b"D" + len(payload).to_bytes(4, "big") + payload]
