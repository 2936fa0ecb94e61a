"""The shared rule core (engine/tricks.py) on its own: trick winners with the unknown card, and the
rule it names when it narrows the legal cards (docs/rules.md, "4. Choosing a partner" and "5.
Playing the tricks"). The engine and the simulator are checked against it and against the plain
reference in tests/bots/test_sim.py."""

from __future__ import annotations

import random

import pytest

from engine.cards import ALL_CARDS, card_code, cards_of, parse_card
from engine.tricks import (
    CALLED_CARD_HELD,
    CALLED_CARD_REQUIRED,
    CALLED_SUIT_RESTRICTED,
    FOLLOW_ONLY,
    HOLD_CARD_REQUIRED,
    NO_CARD,
    NO_SEAT,
    RULE_CODES,
    TRICK_STRENGTH,
    UNKNOWN_CARD_REQUIRED,
    TrickPlay,
    advance,
    legal_cards,
    parse_mask,
    play_rule,
    rule_message,
    trick_points,
    trick_winner,
)
from tests.engine import reference


def _cards(codes: str) -> list[int]:
    return [parse_card(c) for c in codes.split()]


@pytest.mark.parametrize(
    ("trick", "under", "winner"),
    [
        ("AC TC 7D KC QH", NO_CARD, 4),  # the highest trump
        ("9S 7S AS 8H KS", NO_CARD, 2),  # no trump: the highest card of the led suit
        ("9S 7S AS 8H KS", parse_card("AS"), 4),  # the unknown card never wins
        ("7D AC TC KC 9H", parse_card("7D"), 1),  # unknown led, nobody follows: AC's suit
        ("9H AC TC KS 8C", parse_card("9H"), 1),  # ... and a later card of another suit loses
        ("9H 7S AC TC KC", parse_card("9H"), 1),  # the second card's suit, not the best card
    ],
)
def test_trick_winner(trick: str, under: int, winner: int) -> None:
    for order in ("seed", "clubs-first"):
        assert trick_winner(_cards(trick), TRICK_STRENGTH[order], under) == winner


def test_jack_order_decides_between_the_black_jacks() -> None:
    trick = _cards("JC JS 7C 8C 9C")
    assert trick_winner(trick, TRICK_STRENGTH["seed"], NO_CARD) == 1
    assert trick_winner(trick, TRICK_STRENGTH["clubs-first"], NO_CARD) == 0


def _play(
    hand: int,
    seat: int,
    current: list[int],
    trick_number: int,
    picker: int,
    partner: int,
    called: int,
    called_led_at: int,
    under: int,
) -> TrickPlay:
    """A trick-play state where ``seat`` holds ``hand`` and is to act on ``current``."""
    hands = [0] * 5
    hands[seat] = hand
    t = TrickPlay(hands, TRICK_STRENGTH["seed"], 0, [0] * 5, [0] * 5)
    t.start(picker, partner, called, under)
    t.turn = seat
    t.current = current
    t.ntricks = trick_number
    t.called_led_at = called_led_at
    return t


def _state(hand: str, seat: int, current: str, **state: int) -> TrickPlay:
    """:func:`_play` from card codes, with a picker at seat 0, a partner at 2 and A♥ called
    unless ``state`` says otherwise."""
    args = {"trick_number": 1, "picker": 0, "partner": 2, "called_led_at": -1, "under": NO_CARD}
    args.update(state)
    return _play(
        parse_mask(hand),
        seat,
        _cards(current),
        args["trick_number"],
        args["picker"],
        args["partner"],
        args.get("called", parse_card("AH")),
        args["called_led_at"],
        args["under"],
    )


def _rule(hand: str, seat: int, current: str, **state: int) -> tuple[int, int, int]:
    return play_rule(_state(hand, seat, current, **state))


@pytest.mark.parametrize(
    ("hand", "seat", "current", "state", "legal", "rule"),
    [
        ("9H QC 7S", 0, "8S", {}, "7S", FOLLOW_ONLY),
        ("9H QC AC", 0, "8S", {}, "QC AC", HOLD_CARD_REQUIRED),
        ("AH 7H QC", 2, "8H", {}, "AH", CALLED_CARD_REQUIRED),
        ("AH 7H QC", 2, "", {}, "AH QC", CALLED_SUIT_RESTRICTED),
        ("AH 7C QC", 2, "8S", {}, "7C QC", CALLED_CARD_HELD),
        ("AH 7C QC", 2, "8S", {"trick_number": 5}, "AH 7C QC", FOLLOW_ONLY),
        (
            "7D QC AS",
            0,
            "8H",
            {"called_led_at": 1, "under": parse_card("7D")},
            "7D",
            UNKNOWN_CARD_REQUIRED,
        ),
        ("7D QC AS", 0, "8S", {"under": parse_card("7D")}, "AS", FOLLOW_ONLY),
        ("7D QC", 0, "8D", {"under": parse_card("7D")}, "QC", FOLLOW_ONLY),
        ("7D", 0, "8D", {"under": parse_card("7D"), "trick_number": 5}, "7D", FOLLOW_ONLY),
    ],
)
def test_play_rule_names_what_narrowed_the_cards(
    hand: str, seat: int, current: str, state: dict[str, int], legal: str, rule: int
) -> None:
    got, _, got_rule = _rule(hand, seat, current, **state)
    assert (got, got_rule) == (parse_mask(legal), rule)
    fast = legal_cards(_state(hand, seat, current, **state))
    assert fast == got
    assert (
        bool(RULE_CODES[rule])
        == (rule != FOLLOW_ONLY)
        == bool(rule_message(rule, parse_card("AH")))
    )


def test_no_call_means_only_follow_suit() -> None:
    hand = parse_mask("AH 7H QC")
    for seat, partner in ((2, 2), (2, NO_SEAT)):
        legal = legal_cards(_play(hand, seat, _cards("8S"), 1, 0, partner, NO_CARD, -1, NO_CARD))
        assert legal == hand


def test_closed_tricks_win_as_the_reference_says() -> None:
    """trick_winner's unrolled path (five cards, the unknown card not among them) and its loop
    (the unknown card played) against the plain reference, on random tricks."""
    rng = random.Random(30)
    for _ in range(3000):
        trick = rng.sample(range(32), 5)
        outside = rng.choice([c for c in range(32) if c not in trick])
        for under in (NO_CARD, outside, rng.choice(trick)):
            codes = [card_code(c) for c in trick]
            for order in ("seed", "clubs-first"):
                expected = reference.trick_winner(
                    codes, order, None if under < 0 else card_code(under)
                )
                assert trick_winner(trick, TRICK_STRENGTH[order], under) == expected


def test_legal_cards_is_play_rules_answer_in_every_state() -> None:
    """legal_cards answers without play_rule when no called-suit rule can narrow the cards (a
    defender; the partner without the called card; the picker with neither an unknown card nor
    a threatened hold card): on random states it must agree with play_rule everywhere."""
    rng = random.Random(300)
    called_cards = [parse_card(c) for c in ("AC", "AS", "AH", "TC", "TS", "TH", "JD")]
    checked_fast = 0
    for _ in range(20000):
        called = rng.choice([*called_cards, NO_CARD])
        picker = rng.randrange(5)
        partner = rng.choice([NO_SEAT, *(s for s in range(5) if s != picker)])
        seat = rng.choice([picker, picker, partner if partner >= 0 else picker, rng.randrange(5)])
        trick_number = rng.randrange(6)
        cards = rng.sample(range(32), 2 if trick_number == 5 else rng.randint(2, 8))
        hand = sum(1 << c for c in cards[:-1] or cards)
        if seat == partner and called >= 0 and rng.random() < 0.6:
            hand = 1 << called if trick_number == 5 else hand | 1 << called
        under = NO_CARD
        # The unknown card goes with a called fail ace only (docs/rules.md).
        if seat == picker and called in called_cards[:3] and rng.random() < 0.3:
            under = rng.choice(cards_of(hand) or (0,)) if rng.random() < 0.7 else cards[-1]
        others = [c for c in range(32) if not hand >> c & 1 and c != called]
        current = rng.sample(others, rng.randint(0, 4))
        t = _play(
            hand & ALL_CARDS,
            seat,
            current,
            trick_number,
            picker,
            partner,
            called,
            rng.choice([-1, -1, 0, 1]),
            under,
        )
        fast = legal_cards(t)
        assert fast == play_rule(t)[0], (hand, seat, current, picker, partner, called, under)
        checked_fast += seat in (picker, partner)
    assert checked_fast > 5000


def test_advance_keeps_the_closed_tricks_points() -> None:
    """The points advance adds to the winner are the trick's, and stay in last_points (which the
    engine records in the trick)."""
    hands = [parse_mask(h) for h in ("AC 7D", "TC 8D", "KC 9D", "QC TD", "9C AD")]
    taken = [0] * 5
    t = TrickPlay(hands, TRICK_STRENGTH["seed"], 0, taken, [0] * 5)
    cards = t.current
    for seat, code in enumerate(("AC", "TC", "KC", "QC", "9C")):
        winner = advance(t, seat, parse_card(code))
    assert winner == 3
    assert t.last_points == trick_points(cards) == 11 + 10 + 4 + 3 == taken[3]
    # The closed trick's cards stay in last_trick (the engine's Trick record reads them there),
    # and the next trick starts in a new list.
    assert t.last_trick is cards
    assert [card_code(c) for c in t.last_trick] == ["AC", "TC", "KC", "QC", "9C"]
    assert t.current == [] and t.current is not cards
    assert t.copy().last_trick == cards


def test_cards_of_lists_every_mask_like_a_bit_loop() -> None:
    rng = random.Random(3)
    for mask in [0, ALL_CARDS, 1 << 31, *(rng.getrandbits(32) for _ in range(2000))]:
        assert cards_of(mask) == tuple(c for c in range(32) if mask >> c & 1)


def test_advance_keeps_the_next_seats_legal_cards() -> None:
    """TrickPlay.legal, which advance and start keep (the engine validates a card against it),
    is legal_cards' answer at every turn: with a called ace, the unknown card, JD and leasters."""
    from engine import Hand, RuleSet

    rng = random.Random(30)
    presets = [
        RuleSet(),
        RuleSet.from_preset("wisconsin"),
        RuleSet(unknown_card=True),
        RuleSet(partner="jack-of-diamonds"),
    ]
    for n in range(160):
        hand = Hand.from_seed(presets[n % 4], n % 5, n)
        while not hand.is_over:
            t = hand.play_state
            if hand.phase == "play":
                assert t.legal == legal_cards(t) == hand.legal_play_mask()
                assert t.copy().legal == t.legal
            hand.apply(rng.choice(hand.legal_actions()))
        assert hand.play_state.legal == 0
