"""Picking order, forced pick, leaster and doubler (docs/rules.md, "1. The deal" and "2. Picking"
and "When everybody passes") and doubler stakes in a match."""

from __future__ import annotations

import pytest

from engine import (
    Hand,
    IllegalActionError,
    Match,
    Pass,
    Pick,
    RuleSet,
    export_record,
    replay_record,
)
from tests.engine.helpers import act, assert_rejected, held, new_hand, rejected

HANDS = [
    "AC TC KC 9C 8C 7C",
    "QC QS QH QD JS JC",
    "AS TS KS 9S 8S 7S",
    "AH TH KH 9H 8H 7H",
    "JH JD KD 9D 8D 7D",
]
BLIND = "AD TD"


@pytest.mark.parametrize("dealer", [0, 1, 2, 3, 4])
def test_picking_starts_left_of_the_dealer_and_ends_with_the_dealer(dealer: int) -> None:
    hand = new_hand(HANDS, BLIND, dealer=dealer)
    order = []
    for _ in range(4):
        order.append(hand.turn)
        assert hand.phase == "pick"
        act(hand, "pass")
    assert order == [(dealer + i) % 5 for i in range(1, 5)]
    assert hand.turn == dealer
    assert hand.legal_actions() == (Pick(dealer), Pass(dealer))
    act(hand, "pick")
    assert hand.picker == dealer and hand.phase == "bury" and hand.turn == dealer
    assert hand.passes == order


def test_first_pick_ends_the_round() -> None:
    hand = new_hand(HANDS, BLIND, dealer=3)
    act(hand, "pass", "pick")  # seat 4 passes, seat 0 picks
    assert hand.picker == 0 and hand.passes == [4]
    assert hand.phase == "bury" and hand.turn == 0
    # Seats 1, 2 and 3 never speak; the picker now holds the blind.
    assert held(hand, 0) == set(HANDS[0].split()) | {"AD", "TD"}
    rejected(hand, "pass", "illegal_action", "Now is the time to bury two cards")
    assert_rejected(hand, Pick(1), "not_your_turn")
    act(hand, "bury AD 7C")
    assert (hand.phase, hand.turn) == ("call", 0)
    assert held(hand, 0) == {"AC", "TC", "KC", "9C", "8C", "TD"}


def test_first_trick_is_led_left_of_the_dealer_whoever_picked() -> None:
    hand = new_hand(HANDS, BLIND, dealer=3)
    act(hand, "pass", "pass", "pass", "pick", "bury AD TD", "alone")
    assert hand.picker == 2 and hand.phase == "play"
    assert hand.leader == hand.turn == 4


def test_forced_pick_dealer_cannot_pass() -> None:
    hand = new_hand(HANDS, BLIND, dealer=2, no_pick="forced-pick")
    act(hand, "pass", "pass", "pass", "pass")
    assert hand.turn == 2
    assert hand.legal_actions() == (Pick(2),)
    rejected(hand, "pass", "must_pick", "Everyone passed: the dealer must pick")
    act(hand, "pick")
    assert hand.picker == 2 and not hand.leaster


def test_forced_pick_others_may_pass_and_the_dealer_may_pick_early() -> None:
    hand = new_hand(HANDS, BLIND, dealer=2, no_pick="forced-pick")
    assert hand.legal_actions() == (Pick(3), Pass(3))
    act(hand, "pass", "pick")
    assert hand.picker == 4


def test_all_pass_gives_a_leaster_by_default() -> None:
    hand = new_hand(HANDS, BLIND, dealer=1)
    act(hand, *["pass"] * 5)
    assert hand.leaster and not hand.doubler
    assert hand.picker is None and hand.phase == "play"
    assert hand.leader == hand.turn == 2
    assert hand.blind != 0 and hand.buried == 0


def test_doubler_ends_the_hand_with_zero_payouts() -> None:
    hand = new_hand(HANDS, BLIND, dealer=1, no_pick="doubler", multiplier=2)
    act(hand, *["pass"] * 5)
    assert hand.doubler and not hand.leaster
    assert hand.is_over and hand.turn is None and hand.legal_actions() == ()
    result = hand.result()
    assert result.complete and result.outcome == "doubler"
    assert result.payouts == (0, 0, 0, 0, 0)
    assert result.points == (0, 0, 0, 0, 0)
    assert result.tricks == ()
    assert result.picker is None and result.partner is None and result.called is None
    assert result.to_dict()["doubler"] is True
    assert_rejected(hand, Pass(2), "hand_over")


def pass_all(match: Match) -> None:
    for _ in range(5):
        match.apply(Pass(match.hand.turn or 0))


def play_out(match: Match) -> None:
    """The seat left of the dealer picks and everybody plays the first legal action."""
    match.apply(Pick(match.hand.turn or 0))
    while not match.hand.is_over:
        match.apply(match.hand.legal_actions()[0])


def test_match_doubler_stakes_stack_and_reset() -> None:
    match = Match(RuleSet.from_preset("seed", no_pick="doubler"), seed=9, first_dealer=0)
    assert match.hand.multiplier == 1
    pass_all(match)
    assert match.results[-1].doubler
    assert match.next_hand().multiplier == 2
    pass_all(match)
    assert match.next_hand().multiplier == 4
    play_out(match)
    played = match.results[-1]
    assert not played.doubler and played.multiplier == 4
    # The same deal at stakes 1 pays a quarter of it.
    record = export_record(match.hand)
    assert record["multiplier"] == 4
    single = replay_record({**record, "multiplier": 1})
    assert single["payouts"] is not None and played.payouts is not None
    assert list(played.payouts) == [4 * p for p in single["payouts"]]
    assert any(played.payouts)
    # After a played hand the stakes are back to 1.
    assert match.next_hand().multiplier == 1
    assert match.totals == list(played.payouts)
    assert [r.multiplier for r in match.results] == [1, 2, 4]


def test_match_leaster_does_not_double() -> None:
    match = Match(RuleSet(), seed=3, first_dealer=4)
    pass_all(match)
    while not match.hand.is_over:
        match.apply(match.hand.legal_actions()[0])
    assert match.results[-1].leaster
    assert match.next_hand().multiplier == 1
    assert match.dealer == 0


def test_match_dealer_rotates_left_after_every_hand_doubler_included() -> None:
    match = Match(RuleSet.from_preset("seed", no_pick="doubler"), seed=1, first_dealer=3)
    dealers = [match.hand.dealer]
    for _ in range(6):
        pass_all(match)
        dealers.append(match.next_hand().dealer)
    assert dealers == [3, 4, 0, 1, 2, 3, 4]
    assert match.hand.multiplier == 64


def test_match_refuses_to_deal_before_the_hand_is_over_or_after_the_limit() -> None:
    match = Match(RuleSet(), seed=2, hand_limit=1, first_dealer=0)
    with pytest.raises(ValueError):
        match.next_hand()
    play_out(match)
    assert match.is_over
    with pytest.raises(ValueError):
        match.next_hand()


def test_hand_constructor_checks_dealer_and_multiplier() -> None:
    hand = new_hand(HANDS, BLIND)
    with pytest.raises(ValueError):
        Hand(RuleSet(), 5, hand.deal)
    with pytest.raises(ValueError):
        Hand(RuleSet(), 0, hand.deal, multiplier=0)


def test_ended_match_abandons_the_hand_in_progress() -> None:
    match = Match(RuleSet(), seed=4, hand_limit=3, first_dealer=1)
    match.apply(match.hand.legal_actions()[0])
    match.end()
    assert match.is_over
    action = match.hand.legal_actions()[0]
    with pytest.raises(IllegalActionError) as info:
        match.apply(action)
    assert info.value.code == "hand_over"
    assert match.hands_played == 0 and match.totals == [0] * 5
    with pytest.raises(ValueError):
        match.next_hand()


def test_a_match_without_history_keeps_only_the_last_hand() -> None:
    """Servers keep one hand's record in memory however long a table plays."""
    from engine.match import Match
    from engine.rules import RuleSet

    match = Match(RuleSet(), seed=9, keep_history=False)
    totals = [0] * 5
    for _ in range(4):
        while not match.hand.is_over:
            match.apply(match.hand.legal_actions()[0])
        payouts = match.results[-1].payouts
        assert payouts is not None
        totals = [t + p for t, p in zip(totals, payouts, strict=True)]
        match.next_hand()
    assert match.hands_played == 4
    assert len(match.records) == len(match.results) == 1
    assert match.totals == totals


def test_bury_and_call_choices_are_shared_values_across_hands() -> None:
    # A server holds every picker's 28 bury choices while a person decides: shared values keep
    # them out of the garbage collector's young generation (engine.actions.shared_bury).
    from engine import action_from_dict

    def choices(hand: Hand) -> tuple[object, ...]:
        act(hand, "pass", "pick")  # seat 4 passes, seat 0 picks
        burying = hand.legal_actions()
        assert len(burying) == 28
        act(hand, "bury AD 7C")
        return burying + hand.legal_actions()

    # Partner by the jack of diamonds, which seat 4 holds: seat 0 may call it or go alone.
    first, second = (
        choices(new_hand(HANDS, BLIND, dealer=3, partner="jack-of-diamonds")) for _ in range(2)
    )
    assert first == second
    assert all(a is b for a, b in zip(first, second, strict=True))
    # The legal choices list each pair in card order, as a client picks them from that list.
    wire = action_from_dict({"seat": 0, "action": "bury", "cards": ["7C", "AD"]})
    assert wire in first
    assert any(wire is a for a in first)
    called = action_from_dict({"seat": 0, "action": "call", "card": "JD"})
    assert any(called is a for a in second)


def test_a_pickers_burials_are_the_shared_table_in_card_order() -> None:
    from itertools import combinations

    from engine import action_from_dict
    from engine.actions import BURIES, Bury, shared_bury
    from engine.cards import card_code, cards_of

    hand = act(new_hand(HANDS, BLIND, dealer=3), "pass", "pick")
    cards = cards_of(hand.hands[0])
    burying = hand.legal_actions()
    assert burying == tuple(Bury(0, pair) for pair in combinations(cards, 2))
    assert all(b is BURIES[0][b.cards] for b in burying)
    for a, b in combinations(cards, 2):
        ordered = {"seat": 0, "action": "bury", "cards": [card_code(a), card_code(b)]}
        assert action_from_dict(ordered) is shared_bury(0, a, b) is BURIES[0][a, b]
        # Out of card order (legal too) or the same card twice: shared, but not the table's.
        reverse = {"seat": 0, "action": "bury", "cards": [card_code(b), card_code(a)]}
        assert action_from_dict(reverse) is shared_bury(0, b, a) == Bury(0, (b, a))
        assert shared_bury(0, b, a) != shared_bury(0, a, b)
    assert shared_bury(1, 5, 5) is shared_bury(1, 5, 5) == Bury(1, (5, 5))


def test_the_bury_rows_hold_the_shared_table_whichever_card_is_named_first() -> None:
    # The picker's choices are read from these rows (engine.hand._burials_of_eight).
    from engine.actions import BURIES, BURY_ROWS, shared_bury

    for seat in range(5):
        for a in range(32):
            for b in range(32):
                pair = (min(a, b), max(a, b))
                assert BURY_ROWS[seat][a][b] is shared_bury(seat, *pair)
                if a != b:
                    assert BURY_ROWS[seat][a][b] is BURIES[seat][pair]


def test_a_picker_holding_other_than_eight_cards_is_offered_every_pair() -> None:
    # Not a dealt hand (a deal built field by field): the burials are listed the general way.
    from itertools import combinations

    from engine import Deal
    from engine.actions import BURIES
    from engine.cards import cards_of, parse_card

    dealt = Deal.from_codes([h.split() for h in HANDS], BLIND.split())
    short = Deal((dealt.hands[0] & ~(1 << parse_card("7C")), *dealt.hands[1:]), dealt.blind)
    hand = act(Hand(RuleSet(), 3, short), "pass", "pick")
    cards = cards_of(hand.hands[0])
    assert len(cards) == 7
    assert hand.legal_actions() == tuple(BURIES[0][p] for p in combinations(cards, 2))


def test_playing_hands_makes_no_new_bury_actions() -> None:
    # Made on first use, a Bury cost about 10k instructions, and a process's first few hundred
    # hands made a couple of thousand of them (bench/engine.py): they are all made at import.
    import gc
    import random

    from engine.actions import Bury

    def burials() -> list[Bury]:
        return [o for o in gc.get_objects() if type(o) is Bury]

    # Held, so none is freed and its id taken by a new one: other tests' hands in this process
    # may free theirs meanwhile, which a count would take for none made.
    before = burials()
    known = {id(b) for b in before}
    choose = random.Random(5).choice
    for seed in range(40):
        hand = Hand.from_seed(RuleSet(), seed % 5, 7_000 + seed)
        while not hand.is_over:
            hand.apply(choose(hand.legal_actions()))
    assert [b for b in burials() if id(b) not in known] == []


def test_a_match_resumed_from_its_last_record_deals_on_as_the_played_one() -> None:
    """A server restores a long match from its stored hands (``Match.resume``): from the
    record of each finished hand and the running totals, the next hand is dealt as the match
    that played them deals it, doubler stakes and all."""
    from engine.record import hand_from_record

    rules = RuleSet.from_preset("seed", no_pick="doubler")
    played = Match(rules, seed=9, first_dealer=2, keep_history=False)
    for number in range(1, 6):
        if number in (1, 2):
            pass_all(played)  # two doublers: the stakes of hand 2 are 4
        else:
            play_out(played)
        resumed = Match(rules, seed=9, first_dealer=2, keep_history=False)
        dealt = resumed.resume(number, played.totals, hand_from_record(played.records[-1]))
        played.next_hand()
        assert export_record(dealt) == export_record(played.hand)
        assert (resumed.number, resumed.dealer, resumed.multiplier, resumed.totals) == (
            played.number,
            played.dealer,
            played.multiplier,
            played.totals,
        )
        assert resumed.hands_played == played.hands_played and resumed.results[-1].doubler == (
            number in (1, 2)
        )
    assert played.multiplier == 1 and played.totals != [0] * 5
