"""Cleaning of text that people type and others see: player names, table names and chat.

Anything a client sends that another client will put on a terminal passes through
:func:`clean_text` first, so nobody can move someone else's cursor, change their colours, retitle
their terminal window or reverse the direction of the text around a name:

- terminal escape sequences (CSI ``ESC [ ... m``, OSC ``ESC ] ... BEL``, DCS/APC/PM/SOS strings
  and two-character ``ESC x`` sequences, in their 7-bit and 8-bit forms) are removed whole;
- every remaining C0 and C1 control character, DEL, and the Unicode direction controls (bidi
  embeddings, overrides and isolates, LRM/RLM/ALM) are removed;
- whitespace of any kind (tabs, newlines, line and paragraph separators, ...) becomes a single
  space, and the result is stripped at both ends.

>>> clean_text("  Ann\\x1b[31m  the\\tRed\\x07 ")
'Ann the Red'
>>> clean_text("\\u202eevil\\u202c name")
'evil name'
>>> clean_text("x" * 30, max_length=24)
'xxxxxxxxxxxxxxxxxxxxxxxx'
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["clean_text"]

# Order matters: whole sequences go first so their parameter bytes do not survive as text.
_ESCAPES: Final = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"  # CSI (incomplete ones too)
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # strings
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?",  # nF / Fp / Fe / Fs two-character sequences
)

_BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction marks, embeddings, overrides and isolates."""


def _keep(char: str) -> bool:
    if char in _BIDI:
        return False
    category = unicodedata.category(char)
    # Cc: C0, DEL, C1. Cs cannot occur in decoded UTF-8 but is harmless to drop.
    return category not in ("Cc", "Cs")


def clean_text(text: str, *, max_length: int | None = None) -> str:
    """``text`` without escape sequences or control characters, whitespace collapsed.

    With ``max_length`` the cleaned text is cut to at most that many characters (then stripped
    again so it never ends in a space).
    """
    text = _ESCAPES.sub("", text)
    # Whitespace controls (tab, newline, ...) separate words: turn them into spaces before the
    # remaining controls are dropped, so "a\tb" stays two words.
    words = text.split()
    cleaned = " ".join("".join(ch for ch in word if _keep(ch)) for word in words)
    cleaned = " ".join(cleaned.split())
    if max_length is not None and len(cleaned) > max_length:
        cleaned = cleaned[:max_length].rstrip()
    return cleaned
