"""The training environment's action indices: every action of the game as a fixed number.

Plain Python (no numpy): a bot that plays over the network can name its choices by index
without the ``rl`` extra. Indices are the same in every state; the observation's
``action_mask`` (:mod:`botkit.env`) marks the legal ones. Cards are numbered as
:data:`engine.cards.CARD_CODES` (``suit * 8 + rank``, suits C S H D, ranks 7 8 9 T J Q K A):

========================  =======================================================
index                     action
========================  =======================================================
0                         pass
1                         pick
2 ... 497                 bury cards (a, b), a < b: 2 + :data:`BURY_PAIRS` index
498 ... 529               call card c (a fail ace or ten, or JD): 498 + c
530                       alone
531 ... 626               unknown: call fail ace AC/AS/AH (0/1/2) with ``under`` u:
                          531 + 32 * ace + u
627 ... 658               play card c: 627 + c
659, 660                  blitz the black (QC QS) / red (QH QD) queens
661                       crack
662, 663                  crack showing the black / red queens
664                       no crack
665                       re-crack
666                       no re-crack
========================  =======================================================

Cracking and blitzing (docs/rules.md, docs/rules.md, "Cracking and blitzing") came after the first
659 indices and were appended; new kinds of action are appended the same way. No index ever changes
meaning, so a trained policy keeps working (its extra outputs stay masked).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any, Final

from engine.actions import (
    ALONES,
    BLITZES,
    CALLS,
    CRACKS,
    NO_CRACKS,
    NO_RECRACKS,
    PAIRS,
    PASSES,
    PICKS,
    PLAYS,
    RECRACKS,
    Action,
    Unknown,
    shared_bury,
)
from engine.cards import CARD_CODES, parse_card
from engine.hand import Hand

__all__ = ["ACTIONS", "ACTION_COUNT", "BURY_PAIRS", "action_at", "action_index"]

PASS_INDEX: Final = 0
PICK_INDEX: Final = 1
BURY_BASE: Final = 2
BURY_PAIRS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(range(32), 2))
"""Every bury as a pair of card numbers ``(a, b)``, ``a < b``, in index order."""
CALL_BASE: Final = BURY_BASE + len(BURY_PAIRS)
ALONE_INDEX: Final = CALL_BASE + 32
UNKNOWN_ACES: Final = tuple(parse_card(code) for code in ("AC", "AS", "AH"))
UNKNOWN_BASE: Final = ALONE_INDEX + 1
PLAY_BASE: Final = UNKNOWN_BASE + 32 * len(UNKNOWN_ACES)
BLITZ_BASE: Final = PLAY_BASE + 32
"""Blitz the black queens (``BLITZ_BASE``) or the red ones (``+ 1``)."""
CRACK_INDEX: Final = BLITZ_BASE + len(PAIRS)
"""A plain crack; ``CRACK_INDEX + 1 + p`` cracks showing queen pair ``PAIRS[p]``."""
NO_CRACK_INDEX: Final = CRACK_INDEX + 1 + len(PAIRS)
RECRACK_INDEX: Final = NO_CRACK_INDEX + 1
NO_RECRACK_INDEX: Final = RECRACK_INDEX + 1
ACTION_COUNT: Final = NO_RECRACK_INDEX + 1
"""How many action indices there are (667 today; new kinds are appended)."""

BURY_PAIR_INDEX: Final = {pair: i for i, pair in enumerate(BURY_PAIRS)}
"""``(a, b)``, ``a < b`` -> its place in :data:`BURY_PAIRS`."""
QUEEN_PAIR_NUMBER: Final[dict[str | None, int]] = {pair: i for i, pair in enumerate(PAIRS)}
"""A blitzed queen pair (``"black"``, ``"red"``) -> its number in the blitz and crack indices."""


def _action_map(index: int) -> dict[str, Any]:
    if index == PASS_INDEX:
        return {"action": "pass"}
    if index == PICK_INDEX:
        return {"action": "pick"}
    if index < CALL_BASE:
        a, b = BURY_PAIRS[index - BURY_BASE]
        return {"action": "bury", "cards": [CARD_CODES[a], CARD_CODES[b]]}
    if index < ALONE_INDEX:
        return {"action": "call", "card": CARD_CODES[index - CALL_BASE]}
    if index == ALONE_INDEX:
        return {"action": "alone"}
    if index < PLAY_BASE:
        ace, under = divmod(index - UNKNOWN_BASE, 32)
        return {
            "action": "unknown",
            "card": CARD_CODES[UNKNOWN_ACES[ace]],
            "under": CARD_CODES[under],
        }
    if index < BLITZ_BASE:
        return {"action": "play", "card": CARD_CODES[index - PLAY_BASE]}
    if index < CRACK_INDEX:
        return {"action": "blitz", "pair": PAIRS[index - BLITZ_BASE]}
    if index == CRACK_INDEX:
        return {"action": "crack"}
    if index < NO_CRACK_INDEX:
        return {"action": "crack", "blitz": PAIRS[index - CRACK_INDEX - 1]}
    return {
        NO_CRACK_INDEX: {"action": "no_crack"},
        RECRACK_INDEX: {"action": "recrack"},
        NO_RECRACK_INDEX: {"action": "no_recrack"},
    }[index]


ACTIONS: Final[tuple[dict[str, Any], ...]] = tuple(_action_map(i) for i in range(ACTION_COUNT))
"""The action map (wire form, without ``seat``) of every index: ``ACTIONS[627]`` is
``{"action": "play", "card": "7C"}``. Treat as read-only."""


def action_index(action: Action | Mapping[str, Any]) -> int:
    """The index of an engine action or an action map (with or without ``seat``).

    >>> action_index({"action": "play", "card": "QC"}), action_index({"action": "pass"})
    (632, 0)
    >>> ACTIONS[action_index({"action": "bury", "cards": ["8S", "7H"]})]["cards"]
    ['8S', '7H']
    >>> action_index({"action": "crack", "blitz": "red"})
    663

    Raises ValueError for a map that is no action.
    """
    if not isinstance(action, Mapping):
        return _engine_index(action)
    kind = action.get("action")
    try:
        if kind == "pass":
            return PASS_INDEX
        if kind == "pick":
            return PICK_INDEX
        if kind == "bury":
            a, b = sorted(parse_card(c) for c in action["cards"])
            return BURY_BASE + BURY_PAIR_INDEX[(a, b)]
        if kind == "call":
            return CALL_BASE + parse_card(action["card"])
        if kind == "alone":
            return ALONE_INDEX
        if kind == "unknown":
            ace = UNKNOWN_ACES.index(parse_card(action["card"]))
            return UNKNOWN_BASE + 32 * ace + parse_card(action["under"])
        if kind == "play":
            return PLAY_BASE + parse_card(action["card"])
        if kind == "blitz":
            return BLITZ_BASE + QUEEN_PAIR_NUMBER[action["pair"]]
        if kind == "crack":
            pair = action.get("blitz")
            return CRACK_INDEX if pair is None else CRACK_INDEX + 1 + QUEEN_PAIR_NUMBER[pair]
        if kind == "no_crack":
            return NO_CRACK_INDEX
        if kind == "recrack":
            return RECRACK_INDEX
        if kind == "no_recrack":
            return NO_RECRACK_INDEX
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not an action map: {dict(action)!r} ({exc})") from None
    raise ValueError(f"unknown action {kind!r}")


_FIXED_INDEX: Final = {
    "pass": PASS_INDEX,
    "pick": PICK_INDEX,
    "alone": ALONE_INDEX,
    "no_crack": NO_CRACK_INDEX,
    "recrack": RECRACK_INDEX,
    "no_recrack": NO_RECRACK_INDEX,
}
"""The index of each kind of action that has no fields but its seat."""


def _engine_index(action: Action) -> int:
    kind = action.kind
    if kind == "play":
        return PLAY_BASE + action.card  # type: ignore[union-attr]
    fixed = _FIXED_INDEX.get(kind)
    if fixed is not None:
        return fixed
    if kind == "bury":
        a, b = action.cards  # type: ignore[union-attr]
        return BURY_BASE + BURY_PAIR_INDEX[(a, b) if a < b else (b, a)]
    if kind == "call":
        return CALL_BASE + action.card  # type: ignore[union-attr]
    if kind == "blitz":
        return BLITZ_BASE + QUEEN_PAIR_NUMBER[action.pair]  # type: ignore[union-attr]
    if kind == "crack":
        pair = action.blitz  # type: ignore[union-attr]
        return CRACK_INDEX if pair is None else CRACK_INDEX + 1 + QUEEN_PAIR_NUMBER[pair]
    assert isinstance(action, Unknown)
    return UNKNOWN_BASE + 32 * UNKNOWN_ACES.index(action.card) + action.under


def action_at(hand: Hand, index: int) -> Action:
    """The engine action of ``index`` for the seat to act in ``hand`` (not checked for
    legality: :meth:`Hand.apply` does that)."""
    seat = hand.turn
    if seat is None:
        raise ValueError("the hand is over: no seat acts")
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"action index {index} is not from 0 to {ACTION_COUNT - 1}")
    if PLAY_BASE <= index < BLITZ_BASE:
        return PLAYS[seat][index - PLAY_BASE]
    if index == PASS_INDEX:
        return PASSES[seat]
    if index == PICK_INDEX:
        return PICKS[seat]
    if index < CALL_BASE:
        a, b = BURY_PAIRS[index - BURY_BASE]
        return shared_bury(seat, a, b)
    if index < ALONE_INDEX:
        return CALLS[seat][index - CALL_BASE]
    if index == ALONE_INDEX:
        return ALONES[seat]
    if index < PLAY_BASE:
        ace, under = divmod(index - UNKNOWN_BASE, 32)
        return Unknown(seat, UNKNOWN_ACES[ace], under)
    if index < CRACK_INDEX:
        return BLITZES[seat][PAIRS[index - BLITZ_BASE]]
    if index == CRACK_INDEX:
        return CRACKS[seat][None]
    if index < NO_CRACK_INDEX:
        return CRACKS[seat][PAIRS[index - CRACK_INDEX - 1]]
    if index == NO_CRACK_INDEX:
        return NO_CRACKS[seat]
    if index == RECRACK_INDEX:
        return RECRACKS[seat]
    return NO_RECRACKS[seat]
