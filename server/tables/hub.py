"""The interfaces a table is written against: :class:`Peer` (a client connection) and
:class:`Hub` (the server around it, the lobby).

They live apart from both sides so that imports run one way: the lobby and the connection
implement them and import the table; the table imports only these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from server.bots.pool import BotPool
    from server.config import ServerConfig
    from server.storage.store import Store

TableT = TypeVar("TableT")
"""The table type (:class:`server.tables.table.Table`): a parameter, so this module imports no
table."""


class Meter(Protocol):
    """A token bucket (:class:`server.net.connection.TokenBucket`, which never goes into debt
    here): what the lobby meters an address's match ends with."""

    def take(self, now: float, amount: float = 1.0) -> bool:
        """Spend ``amount`` tokens; False when there are not enough."""

    def refund(self, amount: float = 1.0) -> None:
        """Give back tokens taken for something that did not happen."""

    def full(self, now: float) -> bool:
        """Whether it has refilled (it can be forgotten)."""


MeterFactory = Callable[[float, float, float], Meter]
"""Makes a :class:`Meter` from its rate, burst and the time now."""


class Peer(Protocol):
    """What a table needs of a client connection."""

    name: str
    kind: str
    address: str
    table: Any
    """The table it is at (a :class:`server.tables.table.Table`), or None."""
    seat: int | None

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message for this client."""

    def send_encoded(self, frame: bytes) -> None:
        """Queue one already-encoded frame for this client."""

    def close(self, code: str, message: str) -> None:
        """Send an error with ``code`` and close the connection."""

    def allow_chat(self) -> bool:
        """Take one token from the connection's chat allowance."""


class Hub(Protocol[TableT]):
    """What a table needs of the server around it."""

    config: ServerConfig
    store: Store
    tokens: dict[str, tuple[TableT, int]]
    bots: BotPool

    def now(self) -> float:
        """Monotonic seconds."""

    def wall(self) -> float:
        """Wall-clock seconds since the epoch."""

    def default_bot(self) -> str:
        """The strategy name used when none is given and for stand-ins."""

    def bots_seated_by(self, address: str) -> int:
        """Server bots seated by hosts from ``address`` at the tables that play or wait to
        play (not at a table whose match is over)."""

    def may_start(self, table: TableT) -> None:
        """Raise ``too_many_tables`` when the address that created ``table`` has as many
        tables playing a match as it may (before a match begins there)."""

    def table_closed(self, table: TableT) -> None:
        """Forget a table that closed."""

    def match_end_allowed(self, address: str, *, take: bool) -> bool:
        """Whether hosts from ``address`` may end a match early now (``match_end_rate``);
        ``take``: count one ended match (else only look)."""

    def summary_changed(self) -> None:
        """A table's summary changed (the lobby listing must be rebuilt)."""

    def seq_changed(self, table: TableT) -> None:
        """``table.seq`` moved: store it with the next commit."""
