"""Cleaning of text that people type and others see: player names, table names and chat.

Anything a client sends that another client will put on a terminal passes through
:func:`clean_text` first, so nobody can move someone else's cursor, change their colours, retitle
their terminal window or reverse the direction of the text around a name:

- terminal escape sequences (CSI ``ESC [ ... m``, OSC ``ESC ] ... BEL``, DCS/APC/PM/SOS strings
  and two-character ``ESC x`` sequences, in their 7-bit and 8-bit forms) are removed whole;
- every remaining C0 and C1 control character, DEL, and the Unicode direction controls (bidi
  embeddings, overrides and isolates, LRM/RLM/ALM) are removed;
- the invisible format characters (Unicode category Cf: zero-width spaces, word joiners, the
  byte-order mark, soft hyphens, tags, ...) are removed, except the zero-width joiner and
  non-joiner that some scripts and emoji need (:func:`clean_name` removes those too, and the
  invisible letters such as U+3164 HANGUL FILLER);
- a character keeps at most two combining marks (the rest would pile up over other lines);
- whitespace of any kind (tabs, newlines, line and paragraph separators, ...) becomes a single
  space, and the result is stripped at both ends.

Two names that differ only in case, width, combining marks or invisible characters have the same
:func:`name_key`, which is how the server tells that a name is taken. Two players of the
standings who go by one name are shown with the start of their tags (:func:`told_apart`), in
the lobby's standings and by ``sheepshead standings`` alike.

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
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

from protocol.confusables import skeleton

__all__ = [
    "MARKS_PER_CHARACTER",
    "TAG_SHOWN",
    "clean_name",
    "clean_text",
    "cut",
    "name_key",
    "quote",
    "told_apart",
]

# Order matters: whole sequences go first so their parameter bytes do not survive as text.
_ESCAPES: Final = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"  # CSI (incomplete ones too)
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # strings
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?",  # nF / Fp / Fe / Fs two-character sequences
)

_BIDI: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Direction marks, embeddings, overrides and isolates."""


_JOINERS: Final = frozenset("\u200c\u200d")
"""Zero-width non-joiner and joiner: format characters that chat keeps (scripts, emoji)."""

_INVISIBLE_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters (not category Cf) that show as nothing: the Hangul fillers, the halfwidth Hangul
filler and the blank Braille pattern."""

_MARKS: Final = frozenset(("Mn", "Me", "Mc"))

RAW_TEXT_FACTOR: Final = 4
"""A text field may arrive at most this many times its limit long, before cleaning.

Cleaning costs time in proportion to the length, so the length is checked first: a longer name
is cut to that much before it is cleaned, a longer chat line is refused without being cleaned."""

MARKS_PER_CHARACTER: Final = 2
"""Combining marks a character may keep; more are removed."""


def _clean_word(word: str, name: bool) -> str:
    """One whitespace-free run of ``text`` without controls, invisible characters and excess
    combining marks."""
    out: list[str] = []
    marks = 0
    for char in word:
        if char in _BIDI:
            continue
        category = unicodedata.category(char)
        # Cc: C0, DEL, C1. Cs cannot occur in decoded UTF-8 but is harmless to drop.
        if category in ("Cc", "Cs"):
            continue
        if category == "Cf":
            if name or char not in _JOINERS:
                continue
        elif name and char in _INVISIBLE_LETTERS:
            continue
        elif category in _MARKS:
            if marks >= MARKS_PER_CHARACTER or not out:
                continue  # a mark with nothing to sit on is dropped too
            marks += 1
        else:
            marks = 0
        out.append(char)
    return "".join(out)


def clean_text(text: str, *, max_length: int | None = None, name: bool = False) -> str:
    """``text`` without escape sequences, control or invisible characters, whitespace collapsed.

    With ``max_length`` the cleaned text is cut to at most that many characters (then stripped
    again so it never ends in a space). ``name``: see :func:`clean_name`.
    """
    text = _ESCAPES.sub("", text)
    # Whitespace controls (tab, newline, ...) separate words: turn them into spaces before the
    # remaining controls are dropped, so "a\tb" stays two words.
    words = text.split()
    cleaned = " ".join(_clean_word(word, name) for word in words)
    cleaned = " ".join(cleaned.split())
    if max_length is not None and len(cleaned) > max_length:
        cleaned = cleaned[:max_length].rstrip()
    return cleaned


def clean_name(text: str, *, max_length: int | None = None) -> str:
    """:func:`clean_text` for a name: no format character at all (the joiners go too), and no
    letter that shows as nothing.

    >>> clean_name("A\u200dnn\u3164\ufeff")
    'Ann'
    """
    return clean_text(text, max_length=max_length, name=True)


def name_key(name: str) -> str:
    """What two names that look alike have in common: compatibility-normalised (NFKC),
    case-folded, without combining marks, spaces or invisible characters, and with every
    character that Unicode lists as confusable with another (UTS #39: Cyrillic О and Latin O,
    digit 0 and letter O) replaced by the same prototype, before and after folding the case.

    >>> name_key("ＡＮＮ") == name_key("a\u0301nn") == name_key("Ann\u200b")
    True
    >>> name_key("\u041ele") == name_key("OLE") == name_key("0le")
    True
    """
    shaped = skeleton(unicodedata.normalize("NFKD", clean_name(name)))
    folded = skeleton(shaped.casefold())
    kept = (ch for ch in folded if unicodedata.category(ch) not in _MARKS and not ch.isspace())
    return unicodedata.normalize("NFKC", "".join(kept))


def quote(value: object, limit: int = 32) -> str:
    """``value`` as an error message shows it: the repr of a short, cleaned prefix.

    >>> quote("x" * 100, limit=5)
    "'xxxxx...'"
    >>> quote("\x1b[2Jboom")
    "'boom'"
    """
    text = value if isinstance(value, str) else repr(value)
    cut = clean_text(text[: limit * 4], max_length=limit)
    more = "..." if len(text) > len(cut) and len(cut) == limit else ""
    return repr(cut + more)


TAG_SHOWN: Final = 6
"""Characters of a player's tag (PROTOCOL.md §10.1) that follow a name two players share."""


def cut(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters (cut with "…").

    >>> cut("Maximilian Longnamesmith", 11), cut("Ann", 11)
    ('Maximilian…', 'Ann')
    """
    return name if len(name) <= width else name[: width - 1].rstrip() + "…"


def told_apart(
    names: Sequence[str],
    tags: Sequence[str],
    width: int | None = None,
    fit: Callable[[str, int], str] = cut,
) -> list[str]:
    """Each standings row's name (``names``; ``tags``: the rows' ``tag``, PROTOCOL.md §10.1)
    as people are shown it: a name more than one row goes by (Bob on his laptop's SSH key
    and on the club's browser) is followed by the start of each one's tag, the SSH key's
    fingerprint or the player key's hash, so the rows tell apart; in ``width`` cells, such a
    name cut by ``fit`` to keep the tag. Names that only look alike (:func:`name_key`: Bob and
    bob, a Cyrillic О for an O) count as one name, as the server counts them. A row without a
    tag (``""``) keeps its name.

    >>> told_apart(["bob", "ann", "bob"], ["SHA256:Bog0GwduGd", "c0ffee12", "3b295660"])
    ['bob·Bog0Gw', 'ann', 'bob·3b2956']
    >>> told_apart(["Bob", "bоb", "ann"], ["c0ffee12", "3b295660", "e5f6a7b8"])
    ['Bob·c0ffee', 'bоb·3b2956', 'ann']
    >>> told_apart(["Bartholomew", "Bartholomew"], ["a1b2c3d4", "e5f6a7b8"], width=16)
    ['Bartholo…·a1b2c3', 'Bartholo…·e5f6a7']
    """
    keys = [name_key(name) for name in names]
    shared = {key for key, count in Counter(keys).items() if count > 1}
    shown = []
    for name, key, full in zip(names, keys, tags, strict=True):
        tag = full.removeprefix("SHA256:")[:TAG_SHOWN]
        if key in shared and tag:
            if width is not None:
                name = fit(name, max(1, width - len(tag) - 1))
            name = f"{name}·{tag}"
        shown.append(name)
    return shown
