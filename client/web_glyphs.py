"""Glyphs the browser door can show without internet and without special fonts.

In the browser door (``sheepshead serve --web``) the page draws the terminal with xterm.js in
Roboto Mono, which the door serves itself (a LAN party may have no internet). Roboto Mono has
Latin, ``·``, ``×``, ``−``, ``±``, ``…``, ``›``, ``√``, ``◊`` and little else: every other
character comes from whatever font the player's system has that holds it, and where none
does the browser draws nothing. xterm.js draws box drawing and block elements itself, and the
core fonts of every desktop system (Windows' Arial and Courier New, macOS's, Linux's DejaVu or
Liberation, Android's Noto) hold the WGL4 set: the suits, the arrows, ``─``, ``●○■►▼``.

Beyond that the client drew glyphs some browsers lack: the dealer's ``Ⓓ`` and the turn
timer's ``⏱`` are in no font of a Linux machine with DejaVu and Liberation (the tab showed a
blank where the dealer mark and the clock's sign were), ``🔒`` needs an emoji font, and
``▶ ▸ ◆ ◌ ✓ ✗ ▮`` are missing where only WGL4 fonts are. So under the web driver:

* the client writes words or a styled letter where no single glyph will do
  (:func:`dealer_mark`, :func:`clock_text`, :func:`lock_mark`);
* :class:`client.web_driver.WebGlyphDriver`, the driver the door gives its clients, writes
  a look-alike of one cell from :data:`WEB_GLYPHS` for every other such glyph, so layouts
  keep their widths.

A terminal client is untouched: its driver is not this one, and ``web`` is False.
"""

from __future__ import annotations

from typing import Final

WEB_GLYPHS: Final[dict[str, str]] = {
    "▶": "►",  # the turn marker (WGL4)
    "▸": "›",  # the lead of a trick (Roboto Mono)
    "◆": "◊",  # a card from the blind (Roboto Mono)
    "◌": "○",  # reconnecting (WGL4)
    "✓": "√",  # a card chosen for the bury (Roboto Mono)
    "✗": "×",  # the connection closed (Roboto Mono)
    "▮": "■",  # the blind, face down (WGL4)
}
"""Each glyph some browsers lack, and the one-cell look-alike the web driver writes for it."""

DEALER_MARK: Final = ("Ⓓ", "bold")
"""The dealer's mark in a seat box (label, style)."""
WEB_DEALER_MARK: Final = ("D", "bold reverse")
"""The dealer's mark in the browser: a letter as wide as :data:`DEALER_MARK`, lit like a
button, since no font the browser surely has holds a circled letter."""

CLOCK_MARK: Final = "⏱"
"""What the turn timer's seconds follow (``⏱ 17s``)."""
WEB_CLOCK_MARK: Final = "time"
"""The same in the browser (``time 17s``), where the stopwatch may be a blank."""

LOCK_MARK: Final = "🔒"
"""The lobby's mark of a table with a password."""
WEB_LOCK_MARK: Final = "yes"
"""The same in the browser (under the column "Lock"), which may have no emoji font."""


def for_web(text: str) -> str:
    """``text`` as the web driver writes it: every glyph of :data:`WEB_GLYPHS` replaced.

    >>> for_web("▶ Ann ▸ Q♣ ◆ ✓")
    '► Ann › Q♣ ◊ √'
    """
    if text.isascii():
        return text
    # str.replace per glyph: 7 µs for a full screen of 27,000 characters (translate: 1.3 ms).
    for glyph, stand_in in WEB_GLYPHS.items():
        if glyph in text:
            text = text.replace(glyph, stand_in)
    return text


def dealer_mark(web: bool) -> tuple[str, str]:
    """The dealer's mark (label, style): :data:`WEB_DEALER_MARK` in the browser (``web``)."""
    return WEB_DEALER_MARK if web else DEALER_MARK


def lock_mark(web: bool) -> str:
    """The lobby's mark of a table with a password: :data:`WEB_LOCK_MARK` in the browser."""
    return WEB_LOCK_MARK if web else LOCK_MARK


def clock_text(seconds: str, web: bool) -> str:
    """The turn timer showing ``seconds`` (``17s``, or ``--`` when unknown): ``⏱ 17s``, or
    ``time 17s`` in the browser (``web``), where the stopwatch may be a blank.

    >>> clock_text("17s", False), clock_text("--", True)
    ('⏱ 17s', 'time --')
    """
    return f"{WEB_CLOCK_MARK if web else CLOCK_MARK} {seconds}"
