"""The search simulator against the engine: same legal cards, same results, exact undo."""

from __future__ import annotations

import random

import pytest

from engine.actions import Play
from engine.bots.sim import Sim
from engine.hand import Hand
from engine.rules import RuleSet
from tests.bots.helpers import VARIANTS


def _to_play_phase(hand: Hand, rng: random.Random) -> None:
    while hand.phase not in ("play", "done"):
        hand.apply(rng.choice(hand.legal_actions()))


def _state(sim: Sim) -> tuple[object, ...]:
    return (
        tuple(sim.hands),
        tuple(sim.current),
        sim.leader,
        sim.turn,
        sim.ntricks,
        tuple(sim.taken),
        tuple(sim.won),
        sim.called_led_at,
        sim.revealed,
        sim.played,
    )


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()))
def test_sim_matches_engine_card_for_card(rules: RuleSet) -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(120):
        hand = Hand.from_seed(rules, seed % 5, seed)
        _to_play_phase(hand, rng)
        if hand.is_over:
            continue
        sim = Sim.from_hand(hand)
        while not hand.is_over:
            assert sim.legal_mask() == hand.legal_play_mask()
            assert Sim.from_hand(hand).legal_mask() == hand.legal_play_mask()
            action = rng.choice(hand.legal_actions())
            before = _state(sim)
            sim.play(action.card)  # type: ignore[union-attr]
            sim.unplay()
            assert _state(sim) == before
            sim.play(action.card)  # type: ignore[union-attr]
            hand.apply(action)
            checked += 1
        assert sim.is_over
        assert sim.payouts() == hand.result().payouts
    assert checked > 1000


def test_sim_rollout_finishes_with_zero_sum() -> None:
    rng = random.Random(3)
    for seed in range(60):
        hand = Hand.from_seed(RuleSet(unknown_card=True), seed % 5, seed)
        _to_play_phase(hand, rng)
        if hand.is_over:
            continue
        sim = Sim.from_hand(hand)
        sim.rollout()
        assert sim.is_over
        assert sum(sim.payouts()) == 0


def test_rollout_plays_only_legal_cards() -> None:
    rng = random.Random(5)
    for seed in range(80):
        rules = VARIANTS[seed % len(VARIANTS)]
        hand = Hand.from_seed(rules, seed % 5, seed)
        _to_play_phase(hand, rng)
        if hand.is_over:
            continue
        sim = Sim.from_hand(hand)
        log: list[tuple[int, int]] = []
        sim.rollout(log)
        for seat, card in log:
            assert hand.turn == seat
            assert hand.legal_play_mask() >> card & 1
            hand.apply(Play(seat, card))
        assert hand.result().payouts == sim.payouts()
