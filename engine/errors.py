"""Engine exceptions, each carrying a stable snake_case ``code`` and a player-readable message.

The codes are part of the wire protocol and of ``sheepshead replay``: never rename one.
"""

from __future__ import annotations

from typing import Final

# The codes of an action, a card code or a rules choice refused: the server passes them on
# unchanged (PROTOCOL.md §8, whose table protocol.errors mirrors).
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

PLAY_CODES: Final = (
    NOT_YOUR_TURN,
    ILLEGAL_ACTION,
    ILLEGAL_CARD,
    MUST_FOLLOW_SUIT,
    HOLD_CARD_REQUIRED,
    CALLED_CARD_REQUIRED,
    CALLED_CARD_HELD,
    CALLED_SUIT_RESTRICTED,
    UNKNOWN_CARD_REQUIRED,
    UNKNOWN_CARD_HELD,
    ILLEGAL_BURY,
    ILLEGAL_CALL,
    MUST_PICK,
    HAND_OVER,
    BAD_CARD,
    BAD_RULES,
)
"""Every code the engine refuses an action, a card code or a rules choice with."""

BAD_RECORD: Final = "bad_record"
"""A hand record that cannot be read or replayed (``sheepshead replay``; never on the wire)."""


class SheepsheadError(Exception):
    """Base of every engine error: ``code`` is stable, ``message`` is for people."""

    code: str = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class BadCardError(SheepsheadError, ValueError):
    """A card code that names no card (``bad_card``)."""

    code = BAD_CARD


class RuleOptionError(SheepsheadError, ValueError):
    """An unknown rule option or preset, or an option value out of range (``bad_rules``)."""

    code = BAD_RULES


class IllegalActionError(SheepsheadError):
    """An action the rules do not allow now.

    ``code`` says why: ``not_your_turn``, ``illegal_action`` (wrong kind of action for the phase),
    ``illegal_card`` (not in your hand), ``must_follow_suit``, ``hold_card_required``,
    ``called_card_required``, ``called_card_held``, ``called_suit_restricted``,
    ``unknown_card_required``, ``unknown_card_held``, ``illegal_bury``, ``illegal_call``,
    ``must_pick``, ``hand_over``.
    """

    code = ILLEGAL_ACTION


class BadRecordError(SheepsheadError, ValueError):
    """A hand record that is not a valid ``sheepshead-hand/1`` map (``bad_record``)."""

    code = BAD_RECORD
