"""The environment's legal actions, fast: as index tuples and as ``action_mask`` arrays.

:class:`MaskCache` is one environment's (each :class:`botkit.env.SheepsheadEnv` makes its own,
so environments in threads or processes share nothing). It keeps the trick-play masks it has
built, by legal card mask, up to ``limit`` of them, and the last bury's indices. The reference
it is checked against is :func:`botkit.encode.legal_mask` (``tests/botkit/test_encode.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Final

from botkit.extras import missing_extra

try:
    import numpy as np
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise missing_extra("botkit.cache", "rl", missing) from None

from botkit.actions import (
    ACTION_COUNT,
    BLITZ_BASE,
    BURY_BASE,
    BURY_PAIR_INDEX,
    PASS_INDEX,
    PICK_INDEX,
    PLAY_BASE,
    QUEEN_PAIR_NUMBER,
    action_index,
)
from botkit.encode import Mask8
from engine.cards import Mask, cards_in
from engine.hand import PAIR_MASKS, Hand

__all__ = ["PLAY_MASK_LIMIT", "MaskCache"]

PLAY_MASK_LIMIT: Final = 1 << 16
"""How many trick-play masks an environment keeps by default: some 55 MB (a mask is 667 bytes
and a numpy array around them). Random deals make most of the 2**32 legal card masks possible,
and a fifth of the lookups miss even so (a third with 2**12 kept)."""

_INT8: Final = np.dtype(np.int8)
"""The masks' dtype, made once: ``frombuffer(data, _INT8)`` takes half the time of
``frombuffer(data, dtype=np.int8)`` (a fifth of the trick-play masks are new ones)."""

_PICK_MASKS: Final = {
    2: np.frombuffer(bytes([1, 1]) + bytes(ACTION_COUNT - 2), dtype=np.int8),
    1: np.frombuffer(bytes([0, 1]) + bytes(ACTION_COUNT - 2), dtype=np.int8),
}
"""The pick phase's masks by the number of legal actions: pick or pass, or pick only (shared,
read-only: they never change)."""
_PICK_INDICES: Final = {2: (PASS_INDEX, PICK_INDEX), 1: (PICK_INDEX,)}
"""The pick phase's legal indices by the number of legal actions: pass and pick, or pick."""

_QUEEN_PAIRS: Final = tuple(PAIR_MASKS.values())
"""The card mask of each queen pair (a blitz shows one)."""

_BURY_ROW: Final = tuple(
    tuple(BURY_BASE + BURY_PAIR_INDEX[(a, b)] if a < b else -1 for b in range(32))
    for a in range(32)
)
"""``[a][b]``, ``a < b``: the index of burying ``a`` and ``b``."""

_PLAY_INDICES: Final = tuple(
    tuple(tuple(PLAY_BASE + 8 * k + b for b in range(8) if v >> b & 1) for v in range(256))
    for k in range(4)
)
"""``[k][v]``: the play indices of the cards of byte ``k`` of a card mask when that byte is
``v`` (four lookups and a join list a hand's legal cards)."""

# The play mask as bytes: zeros up to the plays, then eight bytes per byte of the card mask.
_MASK_HEAD: Final = bytes(PLAY_BASE)
_MASK_TAIL: Final = bytes(ACTION_COUNT - PLAY_BASE - 32)
_BYTE_PATTERN: Final = tuple(bytes(v >> b & 1 for b in range(8)) for v in range(256))


def _mask_of(indices: Iterable[int]) -> Mask8:
    """A mask with 1 at ``indices`` (bytes stores, then one array: a third of the cost of
    numpy item stores)."""
    data = bytearray(ACTION_COUNT)
    for index in indices:
        data[index] = 1
    return np.frombuffer(data, _INT8)


class MaskCache:
    """One environment's legal actions of the seat to act, as indices and as a mask.

    ``limit`` is how many trick-play masks it keeps (emptied when full; see
    :data:`PLAY_MASK_LIMIT` for the memory).
    """

    __slots__ = ("_bury_cards", "_bury_pairs", "limit", "play_masks")

    def __init__(self, limit: int = PLAY_MASK_LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"the play mask limit must be at least 1, not {limit}")
        self.limit = limit
        self.play_masks: dict[Mask, Mask8] = {}
        """Trick-play masks by legal card mask, read-only."""
        self._bury_cards: Mask = -1
        self._bury_pairs: tuple[int, ...] = ()
        """The bury indices of the picker's cards ``_bury_cards`` (the mask and the index
        list of one decision both ask)."""

    def indices(self, hand: Hand) -> tuple[int, ...]:
        """The indices of the legal actions of the seat to act, lowest first (empty once the
        hand is over): the ones of its mask."""
        phase = hand.phase
        if phase == "play":
            cards = hand.legal_play_mask()
            t = _PLAY_INDICES
            return (
                t[0][cards & 255]
                + t[1][cards >> 8 & 255]
                + t[2][cards >> 16 & 255]
                + t[3][cards >> 24]
            )
        if phase == "pick":
            return _PICK_INDICES[len(hand.legal_actions())]
        if hand.turn is None:
            return ()
        if phase == "bury":
            return self._bury_indices(hand)
        return tuple(sorted(action_index(action) for action in hand.legal_actions()))

    def mask(self, hand: Hand) -> Mask8:
        """The ``action_mask`` of the seat to act, read-only; in trick play (most decisions)
        and the pick, shared."""
        phase = hand.phase
        if phase == "play":
            cards = hand.legal_play_mask()
            mask = self.play_masks.get(cards)
            return self.new_play_mask(cards) if mask is None else mask
        if phase == "pick":
            return _PICK_MASKS[len(hand.legal_actions())]
        return _mask_of(self.indices(hand))

    def _bury_indices(self, hand: Hand) -> tuple[int, ...]:
        """The bury phase's legal indices, lowest first: every pair of the picker's eight cards
        (the engine lets any two be buried), then any blitz."""
        assert hand.turn is not None
        cards = hand.hands[hand.turn]
        if cards != self._bury_cards:
            rows = _BURY_ROW
            self._bury_pairs = tuple(rows[a][b] for a, b in combinations(cards_in(cards), 2))
            self._bury_cards = cards
        legal = self._bury_pairs
        # A blitz shows both queens of a pair: without one held, none is legal, and the
        # engine's whole list (every bury built as an action) need not be asked for.
        if hand.rules.blitzing and any(cards & m == m for m in _QUEEN_PAIRS):
            legal += tuple(
                BLITZ_BASE + QUEEN_PAIR_NUMBER[action.pair]  # type: ignore[union-attr]
                for action in hand.legal_actions()
                if action.kind == "blitz"
            )
        return legal

    def new_play_mask(self, cards: Mask) -> Mask8:
        """The trick-play mask of a legal card mask not kept yet, now kept (:meth:`mask` asks
        ``play_masks`` first; so may a caller that knows the hand is in trick play)."""
        masks = self.play_masks
        if len(masks) >= self.limit:
            masks.clear()
        pattern = _BYTE_PATTERN
        data = b"".join(
            (
                _MASK_HEAD,
                pattern[cards & 255],
                pattern[cards >> 8 & 255],
                pattern[cards >> 16 & 255],
                pattern[cards >> 24],
                _MASK_TAIL,
            )
        )
        mask = masks[cards] = np.frombuffer(data, _INT8)
        return mask
