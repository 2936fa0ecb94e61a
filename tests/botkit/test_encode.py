"""The observation's one reference encoder and the one fast path agree: the environment's
:class:`~botkit.encode.Tracker` against :func:`~botkit.encode.encode_view` of the seat's view,
and :class:`~botkit.cache.MaskCache` against :func:`~botkit.encode.legal_mask`, for every seat
in every state of random hands under every preset and the options the presets leave off."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

import numpy as np

from botkit.actions import action_at, action_index
from botkit.cache import MaskCache
from botkit.encode import OBSERVATION_SIZE, Tracker, encode_view, legal_mask
from engine.actions import Play
from engine.hand import Hand
from engine.rules import PRESETS_OPTIONS, RuleSet
from engine.view import seat_view
from tests.botkit.positions import VARIANTS, random_hands


def test_the_fast_path_is_exactly_the_seat_view_encoded_and_the_mask_the_legal_list() -> None:
    # The fast path reads the engine's state; encode_view reads only what seat_view lets the
    # seat see. Equal vectors in every state for every seat: the fast path shows no more.
    checked = 0
    seen: set[str] = set()
    presets = {r.preset for r in VARIANTS}
    assert set(PRESETS_OPTIONS) <= presets
    masks = MaskCache(limit=64)  # small: the cache empties itself several times on the way
    for states in random_hands(60):
        tracker: Tracker | None = None
        for hand, action in states:
            if tracker is None:
                tracker = Tracker(hand)
            elif isinstance(action, Play):
                tracker.played(action.seat, action.card)
            elif action is not None:
                tracker.auctioned(action)
            seen.add(hand.phase)
            if hand.blitzes:
                seen.add("blitzed")
            if hand.cracker is not None:
                seen.add("cracked" if hand.crack_blitz is None else "cracked showing a pair")
            if hand.recracked:
                seen.add("recracked")
            for seat in range(5):
                fast = tracker.observe(seat)
                assert fast.shape == (OBSERVATION_SIZE,) and fast.dtype == np.float32
                np.testing.assert_array_equal(fast, encode_view(seat_view(hand, seat)))
                checked += 1
            if not hand.is_over:
                mask = legal_mask(hand)
                legal = {action_index(a) for a in hand.legal_actions()}
                assert set(np.flatnonzero(mask).tolist()) == legal
                assert {action_at(hand, i) for i in legal} == set(hand.legal_actions())
                np.testing.assert_array_equal(masks.mask(hand), mask)
                assert masks.indices(hand) == tuple(sorted(legal))
            else:
                assert masks.indices(hand) == ()
    assert checked > 60 * 5 * 30
    assert len(masks.play_masks) <= 64
    # The house rules' states were among them (the tavern variants crack and blitz).
    assert {"crack", "recrack", "blitzed", "cracked", "recracked"} <= seen


def test_another_seats_cards_never_show() -> None:
    hand = Hand.from_seed(RuleSet(), 0, 5)
    tracker = Tracker(hand)
    for seat in range(5):
        for vector in (tracker.observe(seat), encode_view(seat_view(hand, seat))):
            assert vector[:32].sum() == 6  # only its own six cards
            assert vector[32:128].sum() == 0  # no blind, bury or unknown card before a pick
