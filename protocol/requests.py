"""Protocol messages: request validation, error codes and builders for server messages.

Sans-I/O: this module turns decoded frames (maps from :mod:`protocol.framing`) into typed request
values and builds the maps the server sends; it never touches a socket. PROTOCOL.md is the
normative description of every message; this module is its executable form.

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
>>> error(3, STALE, "That prompt is out of date")
{'type': 'error', 'id': 3, 'code': 'stale', 'message': 'That prompt is out of date'}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Final, Literal, TypeAlias

from protocol.text import clean_name, clean_text, quote
from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS

__all__ = [
    "ERROR_CODES",
    "REQUEST_KINDS",
    "REQUEST_SIZES",
    "REQUEST_TYPES",
    "AddBot",
    "ChatRequest",
    "ClientSeed",
    "CreateTable",
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

# ---------------------------------------------------------------------------- error codes

# Engine codes (raised by engine.hand / engine.rules and passed through unchanged).
NOT_YOUR_TURN: Final = "not_your_turn"
ILLEGAL_ACTION: Final = "illegal_action"
ILLEGAL_CARD: Final = "illegal_card"
MUST_FOLLOW_SUIT: Final = "must_follow_suit"
HOLD_CARD_REQUIRED: Final = "hold_card_required"
CALLED_CARD_REQUIRED: Final = "called_card_required"
CALLED_CARD_HELD: Final = "called_card_held"
CALLED_SUIT_RESTRICTED: Final = "called_suit_restricted"
UNKNOWN_CARD_REQUIRED: Final = "unknown_card_required"
UNKNOWN_CARD_HELD: Final = "unknown_card_held"
ILLEGAL_BURY: Final = "illegal_bury"
ILLEGAL_CALL: Final = "illegal_call"
MUST_PICK: Final = "must_pick"
HAND_OVER: Final = "hand_over"
BAD_CARD: Final = "bad_card"
BAD_RULES: Final = "bad_rules"

# Protocol codes.
BAD_FRAME: Final = "bad_frame"
FRAME_TOO_LARGE: Final = "frame_too_large"
NOT_A_MAP: Final = "not_a_map"
BAD_KEY: Final = "bad_key"
BAD_REQUEST: Final = "bad_request"
UNKNOWN_TYPE: Final = "unknown_type"
HANDSHAKE_REQUIRED: Final = "handshake_required"
HANDSHAKE_TIMEOUT: Final = "handshake_timeout"
VERSION_UNSUPPORTED: Final = "version_unsupported"
NOT_SEATED: Final = "not_seated"
ALREADY_SEATED: Final = "already_seated"
NO_SUCH_TABLE: Final = "no_such_table"
TABLE_FULL: Final = "table_full"
SEAT_TAKEN: Final = "seat_taken"
NOT_A_BOT: Final = "not_a_bot"
BAD_PASSWORD: Final = "bad_password"
BAD_TOKEN: Final = "bad_token"
NOT_HOST: Final = "not_host"
NOT_STARTED: Final = "not_started"
ALREADY_STARTED: Final = "already_started"
NOT_ENOUGH_PLAYERS: Final = "not_enough_players"
MATCH_OVER: Final = "match_over"
NOT_OVER: Final = "not_over"
STALE: Final = "stale"
RATE_LIMITED: Final = "rate_limited"
TOO_MANY_CONNECTIONS: Final = "too_many_connections"
TOO_MANY_TABLES: Final = "too_many_tables"
REQUEST_TOO_LARGE: Final = "request_too_large"
TOO_MANY_BOTS: Final = "too_many_bots"
IDLE_TIMEOUT: Final = "idle_timeout"
REPLACED: Final = "replaced"
SERVER_SHUTDOWN: Final = "server_shutdown"
INTERNAL_ERROR: Final = "internal_error"
HINTS_OFF: Final = "hints_off"
NOT_ALLOWED: Final = "not_allowed"
BUSY: Final = "busy"

ENGINE_ERROR_CODES: Final[dict[str, str]] = {
    NOT_YOUR_TURN: "it is another seat's turn (or you tried to act for another seat)",
    ILLEGAL_ACTION: "that kind of action is not possible in this phase of the hand",
    ILLEGAL_CARD: "you do not hold that card",
    MUST_FOLLOW_SUIT: "you hold a card of the suit (or trump) led and must play one",
    HOLD_CARD_REQUIRED: "the picker must keep the last card of the called suit until it is led",
    CALLED_CARD_REQUIRED: "the called suit is led and you hold the called card: play it",
    CALLED_CARD_HELD: "the partner may not throw the called card off before its suit is led",
    CALLED_SUIT_RESTRICTED: "the partner may lead the called suit only with the called card",
    UNKNOWN_CARD_REQUIRED: "the called suit is led: the picker must play the face-down card",
    UNKNOWN_CARD_HELD: "the face-down unknown card is played only when the called suit is led",
    ILLEGAL_BURY: "bury two different cards (the same card twice); a card you do not hold gets "
    "illegal_card",
    ILLEGAL_CALL: "that card may not be called (the message says why)",
    MUST_PICK: "everyone passed and the dealer must pick (forced-pick rule)",
    HAND_OVER: "the hand (or the match) is over: nothing more can be played",
    BAD_CARD: "a card code that names no card (rank 789TJQKA + suit CSHD)",
    BAD_RULES: "an unknown rules preset or option, or an option value out of range",
}
"""Codes the engine raises, passed on unchanged, with one-line meanings."""

PROTOCOL_ERROR_CODES: Final[dict[str, str]] = {
    BAD_FRAME: "the frame is empty, not one valid msgpack value, too deep or uses ext types",
    FRAME_TOO_LARGE: "the frame's declared length is over the limit; the connection is closed",
    NOT_A_MAP: "the frame is valid msgpack but not a map",
    BAD_KEY: "a map key (at any depth) is not a string",
    BAD_REQUEST: "a field is missing, of the wrong type or out of range (the message names it)",
    UNKNOWN_TYPE: "the request's type is not one this server knows",
    HANDSHAKE_REQUIRED: "the first request must be hello; the connection is closed",
    HANDSHAKE_TIMEOUT: "no hello arrived in time; the connection is closed",
    VERSION_UNSUPPORTED: "the hello's protocol version is not supported; see supported",
    NOT_SEATED: "the request needs you to sit at (or watch) a table first",
    ALREADY_SEATED: "you already sit at a table: leave it first",
    NO_SUCH_TABLE: "no open table has that id",
    TABLE_FULL: "every seat at the table is taken",
    SEAT_TAKEN: "that seat is taken",
    NOT_A_BOT: "that seat is not held by a server bot",
    BAD_PASSWORD: "the table has a password and this one is wrong (or missing)",
    BAD_TOKEN: "the seat token is unknown or no longer valid; join again",
    NOT_HOST: "only the table's host may do that",
    NOT_STARTED: "the match at this table has not started",
    ALREADY_STARTED: "the match at this table has already started",
    NOT_ENOUGH_PLAYERS: "a match needs all five seats filled by players or bots",
    MATCH_OVER: "the match at this table is over",
    NOT_OVER: "the match at this table is not over yet (rematch)",
    STALE: "the action quotes the seq of an earlier prompt; answer the latest your_turn",
    RATE_LIMITED: "too many messages; this one was dropped (persisting closes the connection)",
    TOO_MANY_CONNECTIONS: "the server (or your address) has too many connections",
    TOO_MANY_TABLES: "the server (or your address) has as many tables open as it allows",
    REQUEST_TOO_LARGE: "the request's frame is bigger than its type allows (§9); it was dropped",
    TOO_MANY_BOTS: "your address has as many server bots seated as the server allows",
    IDLE_TIMEOUT: "nothing was received for too long; the connection is closed",
    REPLACED: "a newer connection took over this seat; this connection is closed",
    SERVER_SHUTDOWN: "the server is shutting down; reconnect later with your token",
    INTERNAL_ERROR: "the server failed to handle the request (it is logged; nothing changed)",
    HINTS_OFF: "this table was created without hints (create_table's hints)",
    NOT_ALLOWED: "a bot connection may not ask for hints",
    BUSY: "your seat's last hint or review is still being worked out (or the coach is full)",
}
"""Codes of the protocol layer and the server, with one-line meanings."""

ERROR_CODES: Final[dict[str, str]] = {**ENGINE_ERROR_CODES, **PROTOCOL_ERROR_CODES}
"""Every error code a client can receive, with its one-line meaning."""

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

RAW_TEXT_FACTOR: Final = 4
"""A text field may arrive at most this many times its limit long, before cleaning.

Cleaning costs time in proportion to the length, so the length is checked first: a longer name
is cut to that much before it is cleaned, a longer chat line is refused without being cleaned."""

ERROR_MESSAGE_MAX: Final = 200
"""Longest ``message`` of an error, in characters: anything it quotes is cut to fit."""

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
    your own table, seated or watching)."""

    id: int
    table: str | None
    start: int


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

    def to_message(self) -> dict[str, Any]:
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

    def int_(
        self, key: str, *, required: bool = False, low: int = -_INT64_MAX, high: int = _INT64_MAX
    ) -> int | None:
        value = self._get(key, required, "an integer")
        if value is None and not required:
            return None
        if type(value) is not int:
            raise self.fail(key, "must be an integer" + ("" if required else " or nil"))
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
        value = self._get(key, required, "a string")
        if value is None and not required:
            return None
        if type(value) is not str:
            raise self.fail(key, "must be a string" + ("" if required else " or nil"))
        if len(value) > max_length:
            raise self.fail(key, f"must be at most {max_length} characters")
        return value

    def text(
        self, key: str, *, required: bool, max_length: int, cut: bool, name: bool = False
    ) -> str | None:
        """A string shown to others: cleaned, then cut (names) or refused (chat) when long.

        ``name``: cleaned as a name (:func:`protocol.text.clean_name`: nothing invisible)."""
        value = self._get(key, required, "a string")
        if value is None and not required:
            return None
        if type(value) is not str:
            raise self.fail(key, "must be a string" + ("" if required else " or nil"))
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
        raise RequestError(BAD_REQUEST, "field 'id' is required (an integer)", None)
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
    name = f.text("name", required=True, max_length=NAME_MAX, cut=True, name=True)
    assert name is not None
    token = f.str_("token", max_length=TOKEN_MAX)
    player_key = f.str_("player_key", max_length=PLAYER_KEY_MAX)
    if player_key is not None and len(player_key) < PLAYER_KEY_MIN:
        raise f.fail("player_key", f"must be at least {PLAYER_KEY_MIN} characters")
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
        f.id, f.str_("table", max_length=ID_MAX), f.int_("start", low=0, high=_INT64_MAX) or 0
    )


def _parse_review(msg: Mapping[str, Any]) -> Review:
    f = _Fields.of(msg)
    return Review(f.id, f.int_("hand", low=0, high=_INT64_MAX))


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
)
"""The one registry of requests: the type set, the size limits and the parser come from it
(``tests/server/test_messages.py`` checks it against :data:`Request` and the server's
dispatch)."""

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


# ---------------------------------------------------------------------------- builders


def ok(id: int | None, **fields: Any) -> dict[str, Any]:
    """The success reply to request ``id``, with the request's result fields."""
    return {"type": "ok", "id": id, **fields}


def error(id: int | None, code: str, message: str, **fields: Any) -> dict[str, Any]:
    """An error: the reply to request ``id``, or (``id`` None) about the connection itself.

    A ``message`` over :data:`ERROR_MESSAGE_MAX` characters is cut (whatever it quotes can never
    make the reply too big to send), and control characters are taken out of it.

    >>> len(error(4, BAD_RULES, "bad value " + "x" * 20000)["message"])
    200
    >>> error(4, BAD_RULES, "bad value '\\x1b[2J'")["message"]
    "bad value ''"
    """
    if len(message) > ERROR_MESSAGE_MAX or not message.isprintable():
        message = clean_text(message[: ERROR_MESSAGE_MAX * RAW_TEXT_FACTOR])
        if len(message) > ERROR_MESSAGE_MAX:
            message = message[: ERROR_MESSAGE_MAX - 3] + "..."
    return {"type": "error", "id": id, "code": code, "message": message, **fields}


def request_size_limit(kind: str | None) -> int:
    """The largest payload, in bytes, a request of type ``kind`` may have (:data:`REQUEST_SIZES`).

    >>> request_size_limit("chat"), request_size_limit("action"), request_size_limit(None)
    (2048, 512, 512)
    """
    if kind is None:
        return REQUEST_SIZE_DEFAULT
    return REQUEST_SIZES.get(kind, REQUEST_SIZE_DEFAULT)


def welcome(
    id: int, *, server: str, name: str, table: str | None = None, seat: int | None = None
) -> dict[str, Any]:
    """The reply to hello; ``table``/``seat`` name the seat a token took back (else nil)."""
    return {
        "type": "welcome",
        "id": id,
        "version": PROTOCOL_VERSION,
        "server": server,
        "name": name,
        "table": table,
        "seat": seat,
    }


def state(
    *,
    table: str,
    seq: int,
    seat: int | None,
    info: Mapping[str, Any],
    view: Mapping[str, Any] | None,
    last: Mapping[str, Any] | None,
    totals: Sequence[int],
    hand: int,
) -> dict[str, Any]:
    """A table snapshot for one recipient: ``view`` must be that recipient's seat view."""
    return {
        **state_shared(table=table, seq=seq, info=info, totals=totals, hand=hand),
        **state_own(seat=seat, view=view, last=last),
    }


def state_shared(
    *, table: str, seq: int, info: Mapping[str, Any], totals: Sequence[int], hand: int
) -> dict[str, Any]:
    """The fields of a ``state`` that are the same for everyone at the table."""
    return {
        "type": "state",
        "table": table,
        "seq": seq,
        "totals": list(totals),
        "hand": hand,
        "info": info,
    }


def state_own(
    *, seat: int | None, view: Mapping[str, Any] | None, last: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The fields of a ``state`` built for one recipient: its seat, its view, what it may see of
    the last action."""
    return {"seat": seat, "view": view, "last": last}


def your_turn(
    *,
    table: str,
    seq: int,
    decision: str,
    legal: Sequence[Mapping[str, Any]],
    deadline: float | None,
) -> dict[str, Any]:
    """The prompt to the seat that must act; ``legal`` are action maps without ``seat``."""
    return {
        "type": "your_turn",
        "table": table,
        "seq": seq,
        "decision": decision,
        "legal": [without_seat(a) for a in legal],
        "deadline": deadline,
    }


def without_seat(action: Mapping[str, Any]) -> dict[str, Any]:
    """An action map as a client sends it: the record map minus ``seat``."""
    # A copy and a pop: three times faster than a filtering comprehension, once per legal
    # action of every prompt.
    out = dict(action)
    out.pop("seat", None)
    return out


def hand_over(
    *,
    table: str,
    seq: int,
    hand: int,
    result: Mapping[str, Any],
    reveal: Mapping[str, Any],
    totals: Sequence[int],
) -> dict[str, Any]:
    """The end of hand number ``hand`` (0-based): result breakdown, every card, totals."""
    return {
        "type": "hand_over",
        "table": table,
        "seq": seq,
        "hand": hand,
        "result": result,
        "reveal": reveal,
        "totals": list(totals),
    }


def match_over(*, table: str, seq: int, totals: Sequence[int], hands: int) -> dict[str, Any]:
    """The end of the match: final totals and the number of hands played."""
    return {
        "type": "match_over",
        "table": table,
        "seq": seq,
        "totals": list(totals),
        "hands": hands,
    }


def chat(
    *, table: str, sender: str, seat: int | None, text: str, spectator: bool = False
) -> dict[str, Any]:
    """A chat line (``from`` is the cleaned name; ``spectator`` true and ``seat`` nil when a
    spectator wrote it)."""
    return {
        "type": "chat",
        "table": table,
        "from": sender,
        "seat": seat,
        "text": text,
        "spectator": spectator,
    }


def notice(*, table: str | None, code: str, text: str, seat: int | None = None) -> dict[str, Any]:
    """Something people should read; ``seat`` names the seat concerned, if any."""
    return {"type": "notice", "table": table, "code": code, "text": text, "seat": seat}


def commitment(*, table: str, commitment: str, wait: float) -> dict[str, Any]:
    """A new deal commitment ``sha256(server_seed)``: seated clients answer with a seed (§13)."""
    return {"type": "commitment", "table": table, "commitment": commitment, "wait": wait}


def seeds_revealed(*, table: str, commitments: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The match is over: every commitment's server seed, client seeds and hands (§13)."""
    return {"type": "seeds_revealed", "table": table, "commitments": [dict(c) for c in commitments]}


def ping() -> dict[str, Any]:
    """The server's liveness check; the client answers ``pong``."""
    return {"type": "ping"}


def history_entry(
    *,
    hand: int,
    names: Sequence[str],
    record: Mapping[str, Any],
    payouts: Sequence[int],
    totals: Sequence[int],
    picker: int | None,
    partner: int | None,
    alone: bool,
    leaster: bool,
    doubler: bool,
    picker_side_points: int | None,
    outcome: str,
) -> dict[str, Any]:
    """One finished hand in a ``history`` reply: who played it (the seats' names then), its
    record, payouts and the totals after it."""
    return {
        "hand": hand,
        "names": list(names),
        "record": record,
        "payouts": list(payouts),
        "totals": list(totals),
        "picker": picker,
        "partner": partner,
        "alone": alone,
        "leaster": leaster,
        "doubler": doubler,
        "picker_side_points": picker_side_points,
        "outcome": outcome,
    }
