"""Protocol requests: the registry of request types and the validation of each.

Sans-I/O: this module turns decoded frames (maps from :mod:`protocol.framing`) into typed request
values; it never touches a socket. The error codes are in :mod:`protocol.errors`, the maps the
server sends in :mod:`protocol.events`. PROTOCOL.md is the normative description of every
message; these modules are its executable form.

>>> parse_request({"type": "join", "id": 7, "table": "t1"})
Join(id=7, table='t1', seat=None, password=None)
>>> parse_request({"type": "join", "id": 7, "table": 5})
Traceback (most recent call last):
...
protocol.requests.RequestError: bad_request: field 'table' must be a string
>>> parse_request({"type": "dance", "id": 1})
Traceback (most recent call last):
...
protocol.requests.RequestError: unknown_type: unknown message type 'dance'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final, Literal, TypeAlias

from protocol.errors import BAD_REQUEST, UNKNOWN_TYPE, VERSION_UNSUPPORTED
from protocol.events import ErrorReply, error
from protocol.text import RAW_TEXT_FACTOR, clean_name, clean_text, quote
from protocol.version import SUPPORTED_VERSIONS

__all__ = [
    "REQUEST_KINDS",
    "REQUEST_SIZES",
    "REQUEST_TYPES",
    "AddBot",
    "ChatRequest",
    "ClientSeed",
    "CreateTable",
    "DoorPlayer",
    "DoorSeat",
    "EndMatch",
    "Hello",
    "Hint",
    "History",
    "Join",
    "Leave",
    "ListTables",
    "Ping",
    "Pong",
    "Rematch",
    "RemoveBot",
    "Request",
    "RequestError",
    "RequestKind",
    "Review",
    "Standings",
    "Start",
    "TakeAction",
    "Watch",
    "parse_request",
    "request_size_limit",
]

# ---------------------------------------------------------------------------- limits

NAME_MAX: Final = 24
"""Longest player name, in characters, after cleaning (longer names are cut)."""

TABLE_NAME_MAX: Final = 40
"""Longest table name, in characters, after cleaning (longer names are cut)."""

CHAT_MAX: Final = 200
"""Longest chat line, in characters, after cleaning."""

PASSWORD_MAX: Final = 128
"""Longest table password, in characters."""

TOKEN_MAX: Final = 128
"""Longest seat token accepted in hello."""

CLIENT_MAX: Final = 256
"""Longest ``client`` string accepted in hello (shown cut to 64 characters)."""

REQUEST_SIZE_MAX: Final = 4096
"""Largest request frame payload, in bytes, of any type (see :data:`REQUEST_SIZES`)."""

REQUEST_SIZE_DEFAULT: Final = 512
"""Largest request frame payload, in bytes, of a type not in :data:`REQUEST_SIZES`."""

ID_MAX: Final = 64
"""Longest table id or strategy name accepted."""

PLAYER_KEY_MIN: Final = 16
"""Shortest player key accepted in hello (a key is a random secret, not a name)."""

PLAYER_KEY_MAX: Final = 128
"""Longest player key accepted in hello."""

HANDS_MAX: Final = 1000
"""Largest hand limit of a match."""

TIMER_MAX: Final = 86400.0
"""Longest turn timer or grace period, in seconds."""

TURN_TIMER_MIN: Final = 0.1
"""Shortest turn timer, in seconds."""

DOOR_TOKENS_MAX: Final = 24
"""Most seat tokens one ``door_seat`` may ask about: a player's ``tokens.json`` keeps one per
server for a name, and the browser door asks about those of a browser's kept file and of each
of its open tabs (at most ``door_sessions_per_address``, 16 by default) at once."""

FINGERPRINT: Final = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
"""An SSH key's SHA-256 fingerprint as OpenSSH and asyncssh write it (``door_player``)."""

_INT64_MAX: Final = (1 << 63) - 1

# ---------------------------------------------------------------------------- requests

Kind: TypeAlias = Literal["human", "bot"]
"""What is at the keyboard of a connection."""


@dataclass(frozen=True, slots=True)
class Hello:
    """The handshake: protocol version, client software, kind, cleaned name, optional token."""

    id: int
    version: int
    client: str
    kind: Kind
    name: str
    token: str | None
    player_key: str | None = None
    """The client's player key (PROTOCOL.md, "Identity"): the server keeps only its hash."""


@dataclass(frozen=True, slots=True)
class ListTables:
    """Ask for the table summaries."""

    id: int


@dataclass(frozen=True, slots=True)
class CreateTable:
    """Open a table and sit at seat 0 as its host.

    ``name`` None: the server names it after the creator; ``preset`` None: the server's default
    preset (``engine.rules.DEFAULT_PRESET``); ``grace`` None: the server default.
    """

    id: int
    name: str | None
    preset: str | None
    options: dict[str, Any]
    hands: int | None
    password: str | None
    turn_timer: float | None
    grace: float | None
    hints: bool = False
    """Whether the seated people may ask for hints (``hint``, PROTOCOL.md §4)."""


@dataclass(frozen=True, slots=True)
class Join:
    """Sit at a table: ``seat`` None takes the first free seat."""

    id: int
    table: str
    seat: int | None
    password: str | None


@dataclass(frozen=True, slots=True)
class Watch:
    """Watch a table as a spectator (a password table needs its ``password``)."""

    id: int
    table: str
    password: str | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    """Stand up from the table (or stop watching)."""

    id: int


@dataclass(frozen=True, slots=True)
class AddBot:
    """Host: seat a server bot (``seat`` None: first free; ``strategy`` None: the default)."""

    id: int
    seat: int | None
    strategy: str | None


@dataclass(frozen=True, slots=True)
class RemoveBot:
    """Host: remove the server bot from a seat."""

    id: int
    seat: int


@dataclass(frozen=True, slots=True)
class Start:
    """Host: deal the first hand."""

    id: int


@dataclass(frozen=True, slots=True)
class EndMatch:
    """Host: end the match now."""

    id: int


@dataclass(frozen=True, slots=True)
class TakeAction:
    """Answer the ``your_turn`` prompt whose ``seq`` is quoted with one action map (§5)."""

    id: int
    seq: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Say something at your table (``text`` already cleaned, 1–200 characters)."""

    id: int
    text: str


@dataclass(frozen=True, slots=True)
class History:
    """The finished hands of the table's current match from hand ``start`` on (``table`` None:
    your own table, seated or watching); with ``match``, of that match of the table (0, then
    +1 per rematch; None: the current one)."""

    id: int
    table: str | None
    start: int
    match: int | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    """Host, once the match is over: a new match at the same table with the same seats."""

    id: int


@dataclass(frozen=True, slots=True)
class ClientSeed:
    """A seated client's random seed for the pending deal ``commitment`` (§13)."""

    id: int
    commitment: str
    seed: bytes


@dataclass(frozen=True, slots=True)
class Ping:
    """Liveness check; answered with ``ok``."""

    id: int


@dataclass(frozen=True, slots=True)
class Standings:
    """Ask for the standings across finished matches (``since``: :func:`since_moment`)."""

    id: int
    since: str | None


@dataclass(frozen=True, slots=True)
class Hint:
    """Ask the coach for the best two choices of the current prompt (the seat to act only)."""

    id: int


@dataclass(frozen=True, slots=True)
class Review:
    """Ask the coach about your decisions of a finished hand of this match (``hand`` None: the
    last one)."""

    id: int
    hand: int | None


@dataclass(frozen=True, slots=True)
class DoorSeat:
    """The doors ask which of ``tokens`` (a player's seat tokens for one name) name a seat
    whose connection is up, before a second window takes it (local-only: PROTOCOL.md §15)."""

    id: int
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DoorPlayer:
    """The SSH door says that ``player_key`` is the SSH key with ``fingerprint``, logged in as
    ``name`` (local-only: PROTOCOL.md §15)."""

    id: int
    player_key: str
    fingerprint: str
    name: str


@dataclass(frozen=True, slots=True)
class Pong:
    """The answer to the server's ``ping`` (``id`` optional; never answered)."""

    id: int | None


Request: TypeAlias = (
    Hello
    | ListTables
    | CreateTable
    | Join
    | Watch
    | Leave
    | AddBot
    | RemoveBot
    | Start
    | EndMatch
    | TakeAction
    | ChatRequest
    | History
    | Rematch
    | ClientSeed
    | Ping
    | Standings
    | Hint
    | Review
    | DoorSeat
    | DoorPlayer
    | Pong
)
"""Any validated request."""


class RequestError(Exception):
    """A request the server refuses before acting on it: ``code``, ``message``, the request ``id``.

    ``id`` is the request's id when it could be read (so the error can echo it), else None.
    ``extra`` holds additional fields for the error message (``supported`` for versions).
    """

    def __init__(
        self,
        code: str,
        message: str,
        id: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.id = id
        self.extra: dict[str, Any] = dict(extra or {})

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_message(self) -> ErrorReply:
        """The ``error`` map that answers the refused request."""
        return error(self.id, self.code, self.message, **self.extra)


class _Fields:
    """Typed access to one request's fields; every failure names the field."""

    __slots__ = ("id", "msg")

    def __init__(self, msg: Mapping[str, Any], id: int) -> None:
        self.msg = msg
        self.id = id

    @staticmethod
    def of(msg: Mapping[str, Any]) -> _Fields:
        """The fields of a request that must carry a valid ``id`` (``bad_request`` otherwise)."""
        return _Fields(msg, _request_id(msg))

    def fail(self, key: str, what: str) -> RequestError:
        return RequestError(BAD_REQUEST, f"field {key!r} {what}", self.id)

    def _get(self, key: str, required: bool, kind: str) -> Any:
        if key not in self.msg:
            if required:
                raise self.fail(key, f"is required ({kind})")
            return None
        return self.msg[key]

    def _typed(self, key: str, required: bool, kind: str, cls: type) -> Any:
        """The value of ``key`` when it is exactly a ``cls`` (``kind`` names it in refusals);
        None when it is absent or nil and not ``required``."""
        value = self._get(key, required, kind)
        if value is None and not required:
            return None
        if type(value) is not cls:
            raise self.fail(key, f"must be {kind}" + ("" if required else " or nil"))
        return value

    def int_(
        self, key: str, *, required: bool = False, low: int = -_INT64_MAX, high: int = _INT64_MAX
    ) -> int | None:
        value: int | None = self._typed(key, required, "an integer", int)
        if value is None:
            return None
        if not low <= value <= high:
            raise self.fail(key, f"must be from {low} to {high}")
        return value

    def number(self, key: str, *, low: float, high: float) -> float | None:
        value = self._get(key, False, "a number")
        if value is None:
            return None
        if type(value) not in (int, float) or value != value:  # NaN is not a number here
            raise self.fail(key, "must be a number of seconds or nil")
        if not low <= value <= high:
            raise self.fail(key, f"must be from {low:g} to {high:g} seconds")
        return float(value)

    def bool_(self, key: str) -> bool | None:
        value = self._get(key, False, "a boolean")
        if value is None:
            return None
        if type(value) is not bool:
            raise self.fail(key, "must be true, false or nil")
        return value

    def str_(self, key: str, *, required: bool = False, max_length: int) -> str | None:
        value: str | None = self._typed(key, required, "a string", str)
        if value is None:
            return None
        if len(value) > max_length:
            raise self.fail(key, f"must be at most {max_length} characters")
        return value

    def text(
        self, key: str, *, required: bool, max_length: int, cut: bool, name: bool = False
    ) -> str | None:
        """A string shown to others: cleaned, then cut (names) or refused (chat) when long.

        ``name``: cleaned as a name (:func:`protocol.text.clean_name`: nothing invisible)."""
        value: str | None = self._typed(key, required, "a string", str)
        if value is None:
            return None
        raw_max = max_length * RAW_TEXT_FACTOR
        if len(value) > raw_max:  # checked before cleaning, whose cost grows with the length
            if not cut:
                raise self.fail(key, f"must be at most {max_length} characters")
            value = value[:raw_max]
        clean = clean_name if name else clean_text
        cleaned = clean(value, max_length=max_length if cut else None)
        if not cleaned:
            raise self.fail(key, "must contain printable characters")
        if len(cleaned) > max_length:
            raise self.fail(key, f"must be at most {max_length} characters")
        return cleaned

    def map_(self, key: str) -> dict[str, Any]:
        value = self._get(key, False, "a map")
        if value is None:
            return {}
        if type(value) is not dict:
            raise self.fail(key, "must be a map")
        return value


def _request_id(msg: Mapping[str, Any]) -> int:
    value = msg.get("id")
    if type(value) is not int or not -_INT64_MAX <= value <= _INT64_MAX:
        if "id" not in msg:
            problem = "is required (an integer)"
        elif type(value) is int:
            problem = f"must be between {-_INT64_MAX} and {_INT64_MAX}"
        else:
            # A JavaScript client's msgpack writes a number past 2**53 as a float.
            problem = f"must be an integer, not {type(value).__name__}"
        raise RequestError(BAD_REQUEST, f"field 'id' {problem}", None)
    return value


def parse_hello(msg: Mapping[str, Any]) -> Hello:
    """Validate a hello; after the id, the version is checked first (other fields may differ in
    other versions).

    An unsupported version raises ``version_unsupported`` with ``supported`` in ``extra``.
    """
    f = _Fields.of(msg)
    id = f.id
    version = f.int_("version", required=True)
    if version not in SUPPORTED_VERSIONS:
        raise RequestError(
            VERSION_UNSUPPORTED,
            f"protocol version {version} is not supported (this server speaks "
            f"{', '.join(str(v) for v in sorted(SUPPORTED_VERSIONS))})",
            id,
            {"supported": sorted(SUPPORTED_VERSIONS)},
        )
    assert version is not None
    client = f.str_("client", max_length=CLIENT_MAX) or ""
    kind = msg.get("kind", "human")
    if kind not in ("human", "bot"):
        raise f.fail("kind", "must be 'human' or 'bot'")
    name = _player_name(f)
    token = f.str_("token", max_length=TOKEN_MAX)
    player_key = _player_key(f, required=False)
    return Hello(
        id,
        version,
        clean_text(client, max_length=64),
        "bot" if kind == "bot" else "human",
        name,
        token or None,
        player_key,
    )


def parse_date(text: str) -> date:
    """A ``YYYY-MM-DD`` date (ValueError for anything else).

    >>> parse_date("2026-12-01")
    datetime.date(2026, 12, 1)
    """
    if len(text) != 10:
        raise ValueError(f"not a date: {text!r}")
    return date.fromisoformat(text)


SINCE_TONIGHT: Final = "tonight"
"""The ``standings`` ``since`` that the server resolves itself (PROTOCOL.md §10.1)."""

_SINCE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(Z|[+-]\d\d:\d\d)")


def since_moment(text: str) -> datetime | None:
    """The moment a ``standings`` ``since`` names: ``YYYY-MM-DD`` (the start of that day,
    UTC), or ``YYYY-MM-DDTHH:MM[:SS]`` with ``Z`` or an offset ``±HH:MM``; None for
    ``tonight``, which the server resolves. ValueError for anything else.

    >>> since_moment("2026-12-05T18:00+01:00").isoformat()
    '2026-12-05T18:00:00+01:00'
    >>> since_moment("2026-12-05").isoformat(), since_moment("tonight")
    ('2026-12-05T00:00:00+00:00', None)
    """
    if text == SINCE_TONIGHT:
        return None
    if len(text) == 10:
        day = parse_date(text)
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    if not _SINCE_TIME.fullmatch(text):
        raise ValueError(f"not a time: {text!r}")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _parse_standings(msg: Mapping[str, Any]) -> Standings:
    f = _Fields.of(msg)
    id = f.id
    since = f.str_("since", max_length=25)
    if since is not None:
        try:
            since_moment(since)
        except ValueError:
            raise f.fail(
                "since",
                "must be a date (YYYY-MM-DD), a time with its offset (YYYY-MM-DDTHH:MMZ) or"
                " tonight",
            ) from None
    return Standings(id, since)


def _parse_create(msg: Mapping[str, Any]) -> CreateTable:
    f = _Fields.of(msg)
    id = f.id
    preset = f.str_("preset", max_length=ID_MAX) or None
    password = f.str_("password", max_length=PASSWORD_MAX)
    return CreateTable(
        id,
        f.text("name", required=False, max_length=TABLE_NAME_MAX, cut=True, name=True),
        preset,
        f.map_("options"),
        f.int_("hands", low=1, high=HANDS_MAX),
        password or None,
        f.number("turn_timer", low=TURN_TIMER_MIN, high=TIMER_MAX),
        f.number("grace", low=0.0, high=TIMER_MAX),
        f.bool_("hints") or False,
    )


def _parse_action(msg: Mapping[str, Any]) -> TakeAction:
    f = _Fields.of(msg)
    id = f.id
    seq = f.int_("seq", required=True, low=0)
    assert seq is not None
    action = f.msg.get("action")
    if type(action) is not dict:
        raise f.fail("action", "is required (a map such as {action: 'play', card: 'QC'})")
    kind = action.get("action")
    if type(kind) is not str:
        raise f.fail("action", "must name its kind in 'action' (pick, pass, bury, call, ...)")
    for card_field in _CARD_FIELDS.get(kind, ()):
        if type(action.get(card_field)) is not str:
            raise f.fail("action", f"{kind} needs {card_field!r}: a card code such as 'QC'")
    if kind == "bury":
        cards = action.get("cards")
        if type(cards) is not list or len(cards) != 2 or not all(type(c) is str for c in cards):
            raise f.fail("action", "bury needs 'cards': a list of two card codes")
    return TakeAction(id, seq, action)


_CARD_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "play": ("card",),
    "call": ("card",),
    "unknown": ("card", "under"),
}
"""The card fields each kind of action must have, as strings (a missing one: ``bad_request``;
a string that names no card: the engine's ``bad_card``)."""


def _player_name(f: _Fields) -> str:
    """The required ``name`` of a player (``hello``, ``door_player``): cleaned as a name and
    cut to :data:`NAME_MAX`."""
    name = f.text("name", required=True, max_length=NAME_MAX, cut=True, name=True)
    assert name is not None
    return name


def _player_key(f: _Fields, *, required: bool) -> str | None:
    """The ``player_key`` field (``hello``: optional, ``door_player``: required): a string of
    :data:`PLAYER_KEY_MIN` to :data:`PLAYER_KEY_MAX` characters, or None when absent."""
    player_key = f.str_("player_key", required=required, max_length=PLAYER_KEY_MAX)
    if player_key is not None and len(player_key) < PLAYER_KEY_MIN:
        raise f.fail("player_key", f"must be at least {PLAYER_KEY_MIN} characters")
    return player_key


def _table_id(f: _Fields) -> str:
    table = f.str_("table", required=True, max_length=ID_MAX)
    assert table is not None
    return table


_HEX_DIGITS: Final = frozenset("0123456789abcdef")


def _parse_client_seed(msg: Mapping[str, Any]) -> ClientSeed:
    f = _Fields.of(msg)
    id = f.id
    quoted = f.str_("commitment", required=True, max_length=64)
    text = f.str_("seed", required=True, max_length=64)
    assert quoted is not None and text is not None
    if len(quoted) != 64 or not set(quoted) <= _HEX_DIGITS:
        raise f.fail("commitment", "must be the 64 lowercase hex digits of a commitment")
    if len(text) != 64 or not set(text) <= _HEX_DIGITS:
        raise f.fail("seed", "must be 64 lowercase hex digits (32 random bytes)")
    return ClientSeed(id, quoted, bytes.fromhex(text))


def _optional_id(msg: Mapping[str, Any]) -> int | None:
    """The request's id to echo in a refusal, when it is one :func:`_request_id` accepts
    (any other value, such as an integer no frame can carry, is echoed as nil)."""
    value = msg.get("id")
    return value if type(value) is int and -_INT64_MAX <= value <= _INT64_MAX else None


def _parse_join(msg: Mapping[str, Any]) -> Join:
    f = _Fields.of(msg)
    return Join(
        f.id,
        _table_id(f),
        f.int_("seat", low=0, high=4),
        f.str_("password", max_length=PASSWORD_MAX),
    )


def _parse_watch(msg: Mapping[str, Any]) -> Watch:
    f = _Fields.of(msg)
    return Watch(f.id, _table_id(f), f.str_("password", max_length=PASSWORD_MAX))


def _parse_add_bot(msg: Mapping[str, Any]) -> AddBot:
    f = _Fields.of(msg)
    return AddBot(f.id, f.int_("seat", low=0, high=4), f.str_("strategy", max_length=ID_MAX))


def _parse_remove_bot(msg: Mapping[str, Any]) -> RemoveBot:
    f = _Fields.of(msg)
    seat = f.int_("seat", required=True, low=0, high=4)
    assert seat is not None
    return RemoveBot(f.id, seat)


def _parse_chat(msg: Mapping[str, Any]) -> ChatRequest:
    f = _Fields.of(msg)
    text = f.text("text", required=True, max_length=CHAT_MAX, cut=False)
    assert text is not None
    return ChatRequest(f.id, text)


def _parse_history(msg: Mapping[str, Any]) -> History:
    f = _Fields.of(msg)
    return History(
        f.id,
        f.str_("table", max_length=ID_MAX),
        f.int_("start", low=0, high=_INT64_MAX) or 0,
        f.int_("match", low=0, high=_INT64_MAX),
    )


def _parse_review(msg: Mapping[str, Any]) -> Review:
    f = _Fields.of(msg)
    return Review(f.id, f.int_("hand", low=0, high=_INT64_MAX))


def _parse_door_seat(msg: Mapping[str, Any]) -> DoorSeat:
    f = _Fields.of(msg)
    tokens = msg.get("tokens")
    if type(tokens) is not list or len(tokens) > DOOR_TOKENS_MAX:
        raise f.fail("tokens", f"must be a list of at most {DOOR_TOKENS_MAX} seat tokens")
    if not all(type(t) is str and 0 < len(t) <= TOKEN_MAX for t in tokens):
        raise f.fail("tokens", f"must hold strings of 1 to {TOKEN_MAX} characters")
    return DoorSeat(f.id, tuple(tokens))


def _parse_door_player(msg: Mapping[str, Any]) -> DoorPlayer:
    f = _Fields.of(msg)
    player_key = _player_key(f, required=True)
    assert player_key is not None
    fingerprint = f.str_("fingerprint", required=True, max_length=64)
    if fingerprint is None or not FINGERPRINT.fullmatch(fingerprint):
        raise f.fail("fingerprint", "must be an SSH key's SHA256: fingerprint")
    return DoorPlayer(f.id, player_key, fingerprint, _player_name(f))


def _parse_pong(msg: Mapping[str, Any]) -> Pong:
    # The one request without a required id: any integer is echoed back, anything else is nil.
    id = msg.get("id")
    return Pong(id if type(id) is int else None)


def _id_only(build: Callable[[int], Request]) -> Callable[[Mapping[str, Any]], Request]:
    """The parser of a request whose only field is its ``id``."""
    return lambda msg: build(_request_id(msg))


@dataclass(frozen=True, slots=True)
class RequestKind:
    """One request type: its wire name, its class, its parser and its frame size limit."""

    wire: str
    """The request's ``type`` on the wire."""
    cls: type
    """The dataclass :func:`parse_request` makes of it (a member of :data:`Request`)."""
    parse: Callable[[Mapping[str, Any]], Request]
    """Validates a decoded map of this type (its ``id`` included) into ``cls``."""
    size: int = REQUEST_SIZE_DEFAULT
    """Largest frame payload, in bytes (``request_too_large`` beyond it)."""


REQUEST_KINDS: Final[tuple[RequestKind, ...]] = (
    RequestKind("hello", Hello, parse_hello, 2048),
    RequestKind("list_tables", ListTables, _id_only(ListTables)),
    RequestKind("create_table", CreateTable, _parse_create, REQUEST_SIZE_MAX),
    RequestKind("join", Join, _parse_join, 1024),
    RequestKind("watch", Watch, _parse_watch, 1024),
    RequestKind("leave", Leave, _id_only(Leave)),
    RequestKind("add_bot", AddBot, _parse_add_bot),
    RequestKind("remove_bot", RemoveBot, _parse_remove_bot),
    RequestKind("start", Start, _id_only(Start)),
    RequestKind("end_match", EndMatch, _id_only(EndMatch)),
    RequestKind("action", TakeAction, _parse_action),
    RequestKind("chat", ChatRequest, _parse_chat, 2048),
    RequestKind("history", History, _parse_history),
    RequestKind("rematch", Rematch, _id_only(Rematch)),
    RequestKind("client_seed", ClientSeed, _parse_client_seed),
    RequestKind("ping", Ping, _id_only(Ping)),
    RequestKind("pong", Pong, _parse_pong),
    RequestKind("standings", Standings, _parse_standings),
    RequestKind("hint", Hint, _id_only(Hint)),
    RequestKind("review", Review, _parse_review),
    RequestKind("door_seat", DoorSeat, _parse_door_seat, REQUEST_SIZE_MAX),
    RequestKind("door_player", DoorPlayer, _parse_door_player, 1024),
)
"""The one registry of requests: the type set, the size limits and the parser come from it
(``tests/protocol/test_requests.py`` checks it against :data:`Request` and ``__all__``,
``tests/server/test_dispatch.py`` against the server's handlers)."""

_KINDS: Final[dict[str, RequestKind]] = {kind.wire: kind for kind in REQUEST_KINDS}

REQUEST_TYPES: Final[frozenset[str]] = frozenset(_KINDS)
"""Every request type a client may send."""

REQUEST_SIZES: Final[dict[str, int]] = {
    kind.wire: kind.size for kind in REQUEST_KINDS if kind.size != REQUEST_SIZE_DEFAULT
}
"""Largest request frame payload, in bytes, per type (``request_too_large`` beyond it); the
types not listed have :data:`REQUEST_SIZE_DEFAULT`."""


def parse_request(msg: Mapping[str, Any]) -> Request:
    """Validate one decoded request map; raise :class:`RequestError` on any problem.

    Unknown keys are ignored. The ``type`` must be known (``unknown_type`` otherwise) and every
    request but ``pong`` needs an integer ``id``; the other fields are checked per type and a
    missing or mistyped one gives ``bad_request`` naming the field.
    """
    kind = msg.get("type")
    if type(kind) is not str:
        id = None if msg.get("id") is None else _request_id(msg)
        raise RequestError(BAD_REQUEST, "field 'type' is required (a string)", id)
    entry = _KINDS.get(kind)
    if entry is None:
        raise RequestError(UNKNOWN_TYPE, f"unknown message type {quote(kind)}", _optional_id(msg))
    return entry.parse(msg)


def request_size_limit(kind: str | None) -> int:
    """The largest payload, in bytes, a request of type ``kind`` may have (:data:`REQUEST_SIZES`).

    >>> request_size_limit("chat"), request_size_limit("action"), request_size_limit(None)
    (2048, 512, 512)
    """
    if kind is None:
        return REQUEST_SIZE_DEFAULT
    return REQUEST_SIZES.get(kind, REQUEST_SIZE_DEFAULT)
