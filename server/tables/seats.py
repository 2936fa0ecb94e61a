"""A seat at a table: who sits in it (:class:`SeatState`), the size of the seat tokens that let a
player come back to it (their stored form is the store's :func:`~server.storage.store.hash_token`),
and the names people see at a table, where nobody passes for somebody else.

Two names are the same when their :func:`protocol.text.name_key` is (case, width, combining
marks and invisible characters do not count). A person with a server bot's name
(:data:`BOT_NAMES`) is numbered from their hello on ("Gus 2"), and someone who sits down at (or
watches) a table where their name is taken gets it with a number: the second "Ann" at a table
is "Ann 2".

>>> distinct_name("ann", ["Ann", "Lena"])
'ann 2'
>>> is_bot_name("ＯＬＥ")
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, Literal

from protocol.requests import NAME_MAX
from protocol.text import name_key
from server.storage.store import SeatRow
from server.storage.tallies import canonical_spec
from server.tables.hub import Peer

TableState = Literal["waiting", "playing", "over", "closed"]
"""A table's state: waiting for players, a match being played, the match over, the table
gone."""

SeatKind = Literal["empty", "human", "bot"]
"""Who sits in a seat: nobody, a client (person or network bot), a server bot."""

TOKEN_BYTES: Final = 24


BOT_NAMES: Final = ("Ole", "Lena", "Sven", "Inga", "Gus")
"""The names server bots take, by seat."""

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


@dataclass
class SeatState:
    """One seat's occupant and the table's bookkeeping about it."""

    kind: SeatKind = "empty"
    name: str | None = None
    strategy_name: str | None = None
    remote_kind: str | None = None
    token_hash: str | None = None
    peer: Peer | None = None
    disconnected_at: float | None = None
    standin: bool = False
    added_by: str | None = None
    """The address of the host who seated this server bot (for ``max_bots_per_address``)."""
    identity: str | None = None
    """The player identity (``server.storage.standings``) of the connection that took or took back
    this seat, for refusing one player key a second seat at the table and giving the seat back
    to that key while it is away (after a restart: the identity its stored token is linked to)."""
    grace_timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    since: tuple[int, int] | None = None
    """When this seat's holder sat down (a ``join``; taking it back is no new holding): the
    table's match number and how many of that match's hands had finished. The hands from then
    on are theirs, those before another holder's, whatever names they go by (the coach's
    ``review``); None for a seat restored from a row stored before it was kept."""
    away_by_restart: bool = False
    """Whether this seat's player is away only because the server restarted (they were
    connected when it went down): their return is not told to the table as news."""

    @classmethod
    def restored(cls, row: SeatRow, away_since: float) -> SeatState:
        """A stored seat (:meth:`row`) brought back after a restart: its person is away, since
        ``away_since`` (monotonic), until they come back with the seat's token."""
        bot = row.kind == "bot"
        return cls(
            kind="bot" if bot else "human",
            name=row.name,
            # A seat an older server stored with a level alias ("easy") is named as its strategy.
            strategy_name=canonical_spec(row.strategy) if bot and row.strategy else row.strategy,
            remote_kind=row.remote_kind,
            token_hash=row.token_hash,
            disconnected_at=None if bot else away_since,
            added_by=row.added_by if bot else None,
            since=row.since,
        )

    def row(self) -> SeatRow | None:
        """The stored form (None for an empty seat)."""
        if self.kind == "empty" or self.name is None:
            return None
        return SeatRow(
            -1,
            self.kind,
            self.name,
            self.strategy_name,
            self.remote_kind,
            self.token_hash,
            self.added_by,
            since=self.since,
        )
