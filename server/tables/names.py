"""Names people see at a table: nobody passes for somebody else.

Two names are the same when their :func:`protocol.text.name_key` is (case, width, combining
marks and invisible characters do not count). A person cannot take a server bot's name at all,
and someone who sits down at (or watches) a table where their name is taken gets it with a
number: the second "Ann" at a table is "Ann 2".

>>> distinct_name("ann", ["Ann", "Lena"])
'ann 2'
>>> is_bot_name("ＯＬＥ")
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from protocol.messages import NAME_MAX
from protocol.text import name_key
from server.tables.seats import BOT_NAMES

_BOT_KEYS: Final = frozenset(name_key(name) for name in BOT_NAMES)


def is_bot_name(name: str) -> bool:
    """Whether ``name`` is (or looks like) one of the names server bots take."""
    return name_key(name) in _BOT_KEYS


def distinct_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name`` with the lowest number from 2 that makes it differ from every name
    in ``taken`` and from the bots' names (cut to fit :data:`NAME_MAX`)."""
    keys = {name_key(other) for other in taken} | _BOT_KEYS
    if name_key(name) not in keys:
        return name
    number = 2
    while True:
        suffix = f" {number}"
        candidate = name[: NAME_MAX - len(suffix)].rstrip() + suffix
        if name_key(candidate) not in keys:
            return candidate
        number += 1


def names_at(seated: Iterable[str | None], watching: Iterable[str]) -> list[str]:
    """Every name shown at a table: its seats' (empty ones have none) and its spectators'."""
    return [name for name in (*seated, *watching) if name]
