"""Protocol error codes: every code a client can receive, each with its one-line meaning.

The engine's own codes come from :mod:`engine.errors`; the rest are the protocol's and the
server's.

The codes are stable (never rename one); PROTOCOL.md's table lists each of them
(``tests/server/test_messages.py`` checks it).
"""

from __future__ import annotations

from typing import Final

# The engine defines its own codes (it imports nothing of ours); they are passed on unchanged and
# named here again so that every code a client can receive is found in this one module.
from engine.errors import (
    BAD_CARD,
    BAD_RULES,
    CALLED_CARD_HELD,
    CALLED_CARD_REQUIRED,
    CALLED_SUIT_RESTRICTED,
    HAND_OVER,
    HOLD_CARD_REQUIRED,
    ILLEGAL_ACTION,
    ILLEGAL_BURY,
    ILLEGAL_CALL,
    ILLEGAL_CARD,
    MUST_FOLLOW_SUIT,
    MUST_PICK,
    NOT_YOUR_TURN,
    UNKNOWN_CARD_HELD,
    UNKNOWN_CARD_REQUIRED,
)

__all__ = [
    "ALREADY_SEATED",
    "ALREADY_STARTED",
    "BAD_CARD",
    "BAD_FRAME",
    "BAD_KEY",
    "BAD_PASSWORD",
    "BAD_REQUEST",
    "BAD_RULES",
    "BAD_TOKEN",
    "BUSY",
    "CALLED_CARD_HELD",
    "CALLED_CARD_REQUIRED",
    "CALLED_SUIT_RESTRICTED",
    "ENGINE_ERROR_CODES",
    "ERROR_CODES",
    "FRAME_TOO_LARGE",
    "HANDSHAKE_REQUIRED",
    "HANDSHAKE_TIMEOUT",
    "HAND_OVER",
    "HINTS_OFF",
    "HOLD_CARD_REQUIRED",
    "IDLE_TIMEOUT",
    "ILLEGAL_ACTION",
    "ILLEGAL_BURY",
    "ILLEGAL_CALL",
    "ILLEGAL_CARD",
    "INTERNAL_ERROR",
    "LOCAL_ONLY",
    "MATCH_OVER",
    "MUST_FOLLOW_SUIT",
    "MUST_PICK",
    "NOT_ALLOWED",
    "NOT_A_BOT",
    "NOT_A_MAP",
    "NOT_ENOUGH_PLAYERS",
    "NOT_HOST",
    "NOT_OVER",
    "NOT_SEATED",
    "NOT_STARTED",
    "NOT_YOUR_TURN",
    "NO_SUCH_TABLE",
    "PROTOCOL_ERROR_CODES",
    "RATE_LIMITED",
    "REPLACED",
    "REQUEST_TOO_LARGE",
    "SEAT_TAKEN",
    "SERVER_SHUTDOWN",
    "STALE",
    "TABLE_FULL",
    "TOO_MANY_BOTS",
    "TOO_MANY_CONNECTIONS",
    "TOO_MANY_SPECTATORS",
    "TOO_MANY_TABLES",
    "UNKNOWN_CARD_HELD",
    "UNKNOWN_CARD_REQUIRED",
    "UNKNOWN_TYPE",
    "VERSION_UNSUPPORTED",
]

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
TOO_MANY_SPECTATORS: Final = "too_many_spectators"
IDLE_TIMEOUT: Final = "idle_timeout"
REPLACED: Final = "replaced"
SERVER_SHUTDOWN: Final = "server_shutdown"
INTERNAL_ERROR: Final = "internal_error"
HINTS_OFF: Final = "hints_off"
NOT_ALLOWED: Final = "not_allowed"
BUSY: Final = "busy"
LOCAL_ONLY: Final = "local_only"

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
"""Codes the engine raises (:data:`engine.errors.PLAY_CODES`), passed on unchanged, with
one-line meanings."""

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
    TOO_MANY_SPECTATORS: "the table has as many spectators as the server allows; wait for one "
    "to leave",
    IDLE_TIMEOUT: "nothing was received for too long; the connection is closed",
    REPLACED: "a newer connection took over this seat; this connection is closed",
    SERVER_SHUTDOWN: "the server is shutting down; reconnect later with your token",
    INTERNAL_ERROR: "the server failed to handle the request (it is logged; nothing changed)",
    HINTS_OFF: "this table was created without hints (create_table's hints)",
    NOT_ALLOWED: "a bot connection may not ask for hints",
    BUSY: "your seat's last hint or review is still being worked out (or the coach is full)",
    LOCAL_ONLY: "the request is the doors' own: only a connection through the server's local "
    "socket may send it (PROTOCOL.md §15)",
}
"""Codes of the protocol layer and the server, with one-line meanings."""

ERROR_CODES: Final[dict[str, str]] = {**ENGINE_ERROR_CODES, **PROTOCOL_ERROR_CODES}
"""Every error code a client can receive, with its one-line meaning."""
