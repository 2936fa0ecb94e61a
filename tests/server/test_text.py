"""The sanitiser for names and chat (protocol/text.py)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.text import clean_text


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain", "plain"),
        ("  spaced   out  ", "spaced out"),
        ("tab\tnew\nline\r\nend", "tab new line end"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[2J\x1b[Hcleared", "cleared"),
        ("\x9b31mC1 CSI", "C1 CSI"),
        ("title\x1b]0;owned\x07!", "title!"),
        ("osc\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "osclink"),
        ("dcs\x1bPq#0;2;0;0;0\x1b\\done", "dcsdone"),
        ("save\x1b7restore\x1b8", "saverestore"),
        ("bell\x07 and null\x00", "bell and null"),
        ("del\x7fete", "delete"),
        ("c1\x85\x90\x9c", "c1"),
        ("\u202eevil\u202c", "evil"),
        ("iso\u2066late\u2069 \u200fmark\u200e", "isolate mark"),
        ("line\u2028para\u2029sep", "line para sep"),
        ("unfinished \x1b[", "unfinished"),
        ("Zoë 🃏 日本", "Zoë 🃏 日本"),
        ("\x1b\x1b\x1b", ""),
    ],
)
def test_examples(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_max_length_cuts_and_strips() -> None:
    assert clean_text("abc def", max_length=4) == "abc"
    assert clean_text("x" * 50, max_length=24) == "x" * 24


_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_output_is_always_safe_and_stable(raw: str) -> None:
    out = clean_text(raw)
    assert all(unicodedata.category(ch) != "Cc" for ch in out)
    assert not _BIDI & set(out)
    assert out == out.strip() and "  " not in out
    assert all(not ch.isspace() or ch == " " for ch in out)
    assert clean_text(out) == out
