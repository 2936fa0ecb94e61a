"""The shared rule core (engine/tricks.py) on its own: trick winners with the unknown card, and the
rule it names when it narrows the legal cards (docs/rules.md, "4. Choosing a partner" and "5.
Playing the tricks"). The engine and the simulator are checked against it and against the plain
reference in tests/bots/test_sim.py."""

from __future__ import annotations

import pytest

from engine.cards import parse_card
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
    legal_cards,
    parse_mask,
    play_rule,
    rule_message,
    trick_winner,
)


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


def _rule(hand: str, seat: int, current: str, **state: int) -> tuple[int, int, int]:
    args = {"trick_number": 1, "picker": 0, "partner": 2, "called_led_at": -1, "under": NO_CARD}
    args.update(state)
    called = args.pop("called", parse_card("AH"))
    return play_rule(
        _play(
            parse_mask(hand),
            seat,
            _cards(current),
            args["trick_number"],
            args["picker"],
            args["partner"],
            called,
            args["called_led_at"],
            args["under"],
        )
    )


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
    args = {"trick_number": 1, "picker": 0, "partner": 2, "called_led_at": -1, "under": NO_CARD}
    args.update(state)
    fast = legal_cards(
        _play(
            parse_mask(hand),
            seat,
            _cards(current),
            args["trick_number"],
            args["picker"],
            args["partner"],
            parse_card("AH"),
            args["called_led_at"],
            args["under"],
        )
    )
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
