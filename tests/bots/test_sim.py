"""The search simulator against the engine: same legal cards, same results, exact undo; and the
rule core both share (:mod:`engine.tricks`) against the plain reference."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest

from engine.actions import Action, Bury, Call, Pass, Pick, Play, Unknown
from engine.bots.sim import Sim
from engine.cards import FOLLOW, Mask, card_code, cards_in, parse_card
from engine.hand import Hand
from engine.rules import RuleSet
from tests.bots.helpers import VARIANTS
from tests.engine import reference


def _to_play_phase(hand: Hand, rng: random.Random) -> None:
    while hand.phase not in ("play", "done"):
        hand.apply(rng.choice(hand.legal_actions()))


def _hands_in_play(rules: Sequence[RuleSet], deals: int, rng: random.Random) -> Iterator[Hand]:
    """Deals 0 to ``deals - 1`` (deal ``seed`` under ``rules[seed % len(rules)]``, dealer
    ``seed % 5``) taken to the play phase by random moves from ``rng``, each drawn only when
    the last is done with; those over before any card is played are left out."""
    for seed in range(deals):
        hand = Hand.from_seed(rules[seed % len(rules)], seed % 5, seed)
        _to_play_phase(hand, rng)
        if not hand.is_over:
            yield hand


def _state(sim: Sim) -> tuple[object, ...]:
    return (
        tuple(sim.state.hands),
        tuple(sim.state.current),
        sim.state.leader,
        sim.state.turn,
        sim.state.ntricks,
        tuple(sim.state.taken),
        tuple(sim.state.won),
        sim.state.called_led_at,
        sim.state.revealed,
        sim.state.played,
        tuple(sim.state.void_in),
    )


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()))
def test_sim_matches_engine_card_for_card(rules: RuleSet) -> None:
    rng = random.Random(11)
    checked = 0
    for hand in _hands_in_play((rules,), 120, rng):
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
    for hand in _hands_in_play((RuleSet(unknown_card=True),), 60, rng):
        sim = Sim.from_hand(hand)
        sim.rollout()
        assert sim.is_over
        assert sum(sim.payouts()) == 0


def test_rollout_plays_only_legal_cards() -> None:
    rng = random.Random(5)
    for hand in _hands_in_play(VARIANTS, 80, rng):
        sim = Sim.from_hand(hand)
        log: list[tuple[int, int]] = []
        sim.rollout(log)
        for seat, card in log:
            assert hand.turn == seat
            assert hand.legal_play_mask() >> card & 1
            hand.apply(Play(seat, card))
        assert hand.result().payouts == sim.payouts()


def _void_suits(mask: Mask) -> set[str]:
    """The suits (as :func:`tests.engine.reference.suit` names them) of a mask of voids."""
    return {
        reference.suit(code) for code in ("QC", "7C", "7S", "7H") if mask >> parse_card(code) & 1
    }


def test_a_candidate_cards_void_reaches_the_rollout() -> None:
    """The search plays each candidate card with ``Sim.play`` and then rolls the deal out: a
    candidate that does not follow suit shows its void, and the rollout's policy must see it
    (``Sim.play`` used to record none; seeds 0-2 showed it)."""
    rng = random.Random(29)
    checked = 0
    for seed in range(40):
        hand = Hand.from_seed(RuleSet(unknown_card=True), seed % 5, seed)
        _to_play_phase(hand, rng)
        while not hand.is_over and checked < 400:
            seat = hand.turn
            assert seat is not None
            sim = Sim.from_hand(hand)
            for card in cards_in(hand.legal_play_mask()):
                branch = sim.copy()
                branch.play(card)
                if branch.is_over:
                    continue
                seen = branch.situation(branch.legal_mask()).void_in
                expected = reference.shown_voids(hand, then=card)
                assert [_void_suits(m) for m in seen] == expected, (seed, card)
                if hand.current and not (1 << card) & FOLLOW[hand.current[0]]:
                    checked += 1
            hand.apply(rng.choice(hand.legal_actions()))
    assert checked >= 100


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()))
def test_trick_play_records_what_play_shows_as_the_reference_does(rules: RuleSet) -> None:
    """Property: after every card of random hands, the engine's and the simulator's trick state
    (:func:`engine.tricks.advance`, also undone by ``Sim.unplay``) hold the voids shown, the
    trick the called suit was first led in and whether the partner is revealed, as the plain
    reference reads them from the tricks."""
    rng = random.Random(30)
    cards = 0
    for hand in _hands_in_play((rules,), 150, rng):
        sim = Sim.from_hand(hand)
        while not hand.is_over:
            action = rng.choice(hand.legal_actions())
            assert isinstance(action, Play)
            sim.play(action.card)
            sim.unplay()
            sim.play(action.card)
            hand.apply(action)
            cards += 1
            voids = reference.shown_voids(hand)
            assert [_void_suits(m) for m in hand.play_state.void_in] == voids
            assert [_void_suits(m) for m in sim.state.void_in] == voids
            assert hand.called_led_at == reference.called_led_at(hand)
            assert sim.state.called_led_at == (
                -1 if hand.called_led_at is None else hand.called_led_at
            )
            played = [c for t in hand.tricks for c in t.cards] + hand.current
            assert hand.partner_revealed == sim.state.revealed == (hand.called in played)
    assert cards > 1000


# ---------------------------------------------------------------------- the shared rule core

_CALL_KINDS = ("ace", "ten", "alone", "unknown", "jack-of-diamonds", "leaster")


def _call_kind(action: Action) -> str:
    if isinstance(action, Unknown):
        return "unknown"
    if isinstance(action, Call):
        return {"A": "ace", "T": "ten", "J": "jack-of-diamonds"}[card_code(action.card)[0]]
    return "alone"


def _forced_to_play(kind: str, seed: int, rng: random.Random) -> Hand | None:
    """A hand in the play phase after the call ``kind`` (picking and burying steered to make
    it legal), or None when this deal cannot get there."""
    rules = RuleSet(
        unknown_card=kind == "unknown",
        partner="jack-of-diamonds" if kind == "jack-of-diamonds" else "called-ace",
        jack_order="clubs-first" if seed % 2 else "seed",
    )
    hand = Hand.from_seed(rules, seed % 5, seed)
    if kind == "leaster":
        while hand.phase == "pick":
            hand.apply(Pass(hand.turn))  # type: ignore[arg-type]
        return hand
    hand.apply(Pick(hand.turn))  # type: ignore[arg-type]
    burials = [a for a in hand.legal_actions() if isinstance(a, Bury)]
    rng.shuffle(burials)
    for bury in burials:
        trial = hand.copy()
        trial.apply(bury)
        calls = [a for a in trial.legal_actions() if _call_kind(a) == kind]
        if calls:
            trial.apply(rng.choice(calls))
            return trial
    return None


def _check_trick(hand: Hand) -> None:
    trick = hand.tricks[-1]
    codes = [card_code(c) for c in trick.cards]
    under = None if hand.under is None else card_code(hand.under)
    index = reference.trick_winner(codes, hand.rules.jack_order, under)
    assert trick.winner == (trick.leader + index) % 5


@pytest.mark.parametrize("kind", _CALL_KINDS)
def test_engine_sim_and_reference_agree_after_every_call_kind(kind: str) -> None:
    """Property: after each kind of call (the unknown card included), the engine, the simulator
    and the plain reference give the same legal cards card by card and the same trick winners,
    and the unknown card led on the last trick never wins it (docs/rules.md, "4. Choosing a
    partner")."""
    rng = random.Random(kind)
    hands = unknown_led_last = 0
    for seed in range(400 if kind in ("ten", "unknown") else 60):
        hand = _forced_to_play(kind, seed, rng)
        if hand is None:
            continue
        hands += 1
        sim = Sim.from_hand(hand)
        while not hand.is_over:
            legal = hand.legal_play_mask()
            assert sim.legal_mask() == legal
            assert {card_code(c) for c in cards_in(legal)} == reference.legal_plays(hand)
            action = rng.choice(hand.legal_actions())
            assert isinstance(action, Play)
            sim.play(action.card)
            hand.apply(action)
            if not hand.current:
                _check_trick(hand)
                assert sim.state.leader == hand.tricks[-1].winner
        last = hand.tricks[-1]
        if hand.under is not None and last.cards[0] == hand.under:
            unknown_led_last += 1
            assert last.winner != last.leader
        assert sim.payouts() == hand.result().payouts
    assert hands >= 10
    if kind == "unknown":
        assert unknown_led_last >= 3


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()))
def test_unplay_gives_back_the_legal_cards(rules: RuleSet) -> None:
    """``Sim.legal_mask`` is the legal mask that ``advance`` keeps in the trick state; after
    cards played and taken back it must be ``legal_cards``' answer again (a stale mask would
    let the search and the rollouts play cards the engine refuses)."""
    from engine.cards import cards_of
    from engine.tricks import legal_cards

    rng = random.Random(12)
    for hand in _hands_in_play((rules,), 40, rng):
        sim = Sim.from_hand(hand)
        while not sim.is_over:
            depth = 0
            while depth < 7 and not sim.is_over:
                sim.play(rng.choice(cards_of(sim.legal_mask())))
                depth += 1
                assert sim.legal_mask() == legal_cards(sim.state)
            for _ in range(depth):
                sim.unplay()
                assert sim.legal_mask() == legal_cards(sim.state)
            sim.play(rng.choice(cards_of(sim.legal_mask())))
