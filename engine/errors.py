"""Engine exceptions, each carrying a stable snake_case ``code`` and a player-readable message.

The codes are part of the wire protocol and of ``sheepshead replay``: never rename one.
"""

from __future__ import annotations


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

    code = "bad_card"


class RuleOptionError(SheepsheadError, ValueError):
    """An unknown rule option or preset, or an option value out of range (``bad_rules``)."""

    code = "bad_rules"


class IllegalActionError(SheepsheadError):
    """An action the rules do not allow now.

    ``code`` says why: ``not_your_turn``, ``illegal_action`` (wrong kind of action for the phase),
    ``illegal_card`` (not in your hand), ``must_follow_suit``, ``hold_card_required``,
    ``called_card_required``, ``called_card_held``, ``called_suit_restricted``,
    ``unknown_card_required``, ``unknown_card_held``, ``illegal_bury``, ``illegal_call``,
    ``must_pick``, ``hand_over``.
    """

    code = "illegal_action"


class BadRecordError(SheepsheadError, ValueError):
    """A hand record that is not a valid ``sheepshead-hand/1`` map (``bad_record``)."""

    code = "bad_record"
