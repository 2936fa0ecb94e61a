"""The heuristic's rules of thumb, each on a scripted hand."""

from __future__ import annotations

import pytest

from client.strategy_spec import StrategyLoadError, strategy_factory
from engine.bots.heuristic import HeuristicStrategy, HeuristicV1Strategy
from engine.bots.policy import hand_strength, wants_to_pick
from engine.bots.style import TUNED, V1
from engine.cards import TRUMP, CardSet, parse_card
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from tests.bots.helpers import card_chosen, picked, play, scripted

# Seat 1 picks and calls AH; seat 2 holds AH (the secret partner) and no trump.
CALLED_DEAL = (
    "QD JH 7D 9C 9S 8H",
    "QC QS QH JS JC 7H",
    "AH TH KH AS TS KS",
    "TD KD 8D AC TC KC",
    "JD AD 7C 8C 7S 9H",
)
CALLED_START = picked(1, "8S 9D", "AH")


def _choice(hand: Hand) -> dict[str, object]:
    assert hand.turn is not None
    view = seat_view(hand, hand.turn)
    choice = HeuristicStrategy().choose(view, view["legal"])
    assert choice in view["legal"]
    return dict(choice)


def test_defender_leads_fail_not_trump() -> None:
    hand = scripted(CALLED_DEAL, "8S 9D", CALLED_START)
    assert hand.turn == 0 and hand.hands[0] & TRUMP  # seat 0 holds trump but leads fail
    card = parse_card(str(_choice(hand)["card"]))
    assert not (1 << card) & TRUMP
    assert str(_choice(hand)["card"]) == "8H"  # the called suit, low


def test_partner_schmears_on_pickers_winning_trick() -> None:
    plays = [
        play(0, "9C"),
        play(1, "QC"),
    ]
    hand = scripted(CALLED_DEAL, "8S 9D", CALLED_START + plays)
    assert hand.turn == 2
    card = str(_choice(hand)["card"])
    assert card in ("AS", "TS")  # an ace or ten onto the boss queen, not KS/KH


def test_defender_dumps_fewest_points_on_a_lost_trick() -> None:
    plays = [
        play(0, "9C"),
        play(1, "QC"),
        play(2, "AS"),
    ]
    hand = scripted(CALLED_DEAL, "8S 9D", CALLED_START + plays)
    assert str(_choice(hand)["card"]) == "KC"  # must follow clubs; the cheapest club


def test_picker_buries_points_and_keeps_trump_and_a_hold_card() -> None:
    deal = (
        "QC QS QH JS JC 7H",
        "AH TH KH AS 8S 9D",
        "QD JH 7D 9C 9S 8H",
        "TD KD 8D AC TC KC",
        "JD AD 7C 8C 7S 9H",
    )
    hand = scripted(deal, "TS KS", [{"seat": 0, "action": "pick"}])
    choice = _choice(hand)
    assert sorted(choice["cards"]) == ["KS", "TS"]  # type: ignore[arg-type]


def test_takes_the_trick_with_the_cheapest_winning_card() -> None:
    deal = (
        "KD QC JS JC AD 7H",
        "9D AC TC KC 9C 8C",
        "8D AS TS KS 7S 7C",
        "7D AH TH KH 9H 8H",
        "QS QH QD JH JD TD",
    )
    actions = [
        *picked(0, "8S 9S", "AH"),
        play(0, "KD"),
        play(1, "9D"),
        play(2, "8D"),
        play(3, "7D"),
    ]
    hand = scripted(deal, "8S 9S", actions)
    assert hand.turn == 4
    assert _choice(hand)["card"] == "TD"  # the lowest trump that beats KD


def test_weak_hand_passes_and_strong_hand_picks() -> None:
    hand = scripted(CALLED_DEAL, "8S 9D")
    assert _choice(hand)["action"] == "pass"  # seat 0: two low trumps and a queen
    hand.apply(hand.legal_actions()[1])
    assert _choice(hand)["action"] == "pick"  # seat 1: five high trumps


def test_leaster_dumps_points_on_someone_elses_trick() -> None:
    passes = [{"seat": s, "action": "pass"} for s in (0, 1, 2, 3, 4)]
    plays = [
        play(0, "9S"),
        play(1, "QC"),
    ]
    hand = scripted(CALLED_DEAL, "8S 9D", passes + plays)
    assert hand.leaster and hand.turn == 2
    assert _choice(hand)["card"] == "AS"  # spades lose to the queen anyway: shed the ace


def test_a_defender_schmears_onto_a_trick_the_picker_lost_and_v1_does_not() -> None:
    deal = (
        "AC 9C QD JH 7D 9S",
        "QC QS QH JS 8C 7H",
        "AH TH KH AS TS KS",
        "TD KD 8D JC 8H 7C",
        "JD AD TC KC 9H 7S",
    )
    plays = [
        *picked(1, "8S 9D", "AH"),
        play(0, "AC"),
        play(1, "8C"),
        play(2, "KS"),
        play(3, "7C"),
    ]
    hand = scripted(deal, "8S 9D", plays)
    assert hand.turn == 4 and hand.partner_revealed is False
    view = seat_view(hand, 4)
    # Seat 0 wins the clubs and the picker has played: more likely a fellow defender than the
    # partner, so the ten goes on; the first version gave nothing it did not have to.
    assert card_chosen(HeuristicStrategy(), view) == "TC"
    assert card_chosen(HeuristicV1Strategy(), view) == "KC"


def test_style_fields_are_options_and_unknown_ones_are_refused() -> None:
    assert HeuristicStrategy(pick4=6.5).style == TUNED.replace(pick4=6.5)
    assert HeuristicV1Strategy(fight=12).style == V1.replace(fight=12)
    assert HeuristicStrategy().style == TUNED and HeuristicV1Strategy().style == V1
    with pytest.raises(TypeError, match="pick_fast"):
        HeuristicStrategy(pick_fast=1.0)
    with pytest.raises(StrategyLoadError, match="bad option"):
        strategy_factory("heuristic:pick_fast=1")
    assert strategy_factory("heuristic-v1:pick0=7.5")(None).name == "heuristic-v1"


# Seat 1 picks and calls AH; seat 2 is a defender void in hearts holding JD and 8D; seat 3 holds
# AH (the partner).
VOID_DEAL = (
    "8H QD 7D 9C 9S KC",
    "QC QS QH JS JC 7H",
    "JD 8D TC AC 7S 8C",
    "AH TH KH AS TS KS",
    "TD KD 9D AD JH 9H",
)


def test_a_void_defender_trumps_the_called_suits_first_lead() -> None:
    plays = [
        *picked(1, "8S 7C", "AH"),
        play(0, "8H"),
        play(1, "7H"),
    ]
    hand = scripted(VOID_DEAL, "8S 7C", plays)
    assert hand.turn == 2 and hand.partner_revealed is False
    view = seat_view(hand, 2)
    # The partner must put the ace on this trick and the picker has followed suit: the cheapest
    # trump takes 11 points or more. Without the rule the lead (the picker has lost the trick)
    # counts as a fellow defender's and a blank card goes on it.
    assert card_chosen(HeuristicStrategy(), view) == "8D"
    assert card_chosen(HeuristicStrategy(called_trump=0), view) in ("7S", "8C")


def test_picking_is_lighter_when_a_lost_hand_costs_single_stakes() -> None:
    deal = (
        "QC JS 8D AH 7S 8S",
        "QS QH QD JC JH JD",
        "AD TD KD 9D 7D AC",
        "TC KC 8C 7C AS TS",
        "KS 9S 9C TH KH 9H",
    )
    single = scripted(deal, "8H 7H", rules=RuleSet())
    bump = scripted(deal, "8H 7H", rules=RuleSet(double_on_the_bump=True))
    # A queen, a jack, a low trump and an ace: a picker wins it more often than not, enough
    # when a loss costs 2 but not when it costs 4.
    assert _choice(single)["action"] == "pick"
    assert _choice(bump)["action"] == "pass"
    assert TUNED.pick_line(0, bump=False) < TUNED.pick_line(0)
    assert V1.pick_line(0, bump=False) == V1.pick_line(0)  # the yardstick ignores the stakes


def test_a_leaster_seat_without_a_trick_takes_a_cheap_one_when_last() -> None:
    deal = (
        "7C AC QC JC 7H 8H",
        "8C TC QS JS 9H KH",
        "9C KC QH JH AH 8S",
        "7S 9S KS TS AS QD",
        "7D TH 8D 9D KD TD",
    )
    actions: list[dict[str, object]] = [{"seat": s, "action": "pass"} for s in range(5)]
    actions += [
        play(0, "7C"),
        play(1, "8C"),
        play(2, "9C"),
        play(3, "7S"),
    ]
    hand = scripted(deal, "JD AD", actions)
    assert hand.leaster and hand.turn == 4
    view = seat_view(hand, 4)
    # Only a seat that took a trick can win the leaster; last to play, a zero-point trump takes
    # this zero-point trick (the highest such, shedding power). Without the rule the ten goes
    # onto someone else's trick.
    assert card_chosen(HeuristicStrategy(), view) == "9D"
    assert card_chosen(HeuristicStrategy(leaster_take=0), view) == "TH"
    assert card_chosen(HeuristicV1Strategy(), view) == "TH"


def test_at_single_stakes_a_black_queen_and_two_low_trumps_pick_first() -> None:
    # Against heuristic-v1 at single stakes (seed) a point and a half off every line did best
    # over three seeds: a lost hand costs no more than a won one pays, and a pick taken is one v1
    # cannot take (a point off picked this hand only later in the order).
    hand = CardSet.from_codes(["QC", "7D", "8D", "AH", "9S", "8C"]).mask
    assert TUNED.pick_line(0, bump=False) < hand_strength(hand) < TUNED.pick_line(0) - 1.0
    assert wants_to_pick(hand, 0, bump=False)
    assert not wants_to_pick(hand, 0, bump=True)


def test_the_dealer_picks_a_middling_hand_rather_than_play_a_leaster() -> None:
    deal = (
        "QC 8D TC KC 7S 9H",
        "QS 9D AC 8C TS KH",
        "QH KD 7C KS 8S AH",
        "JC JS TD TH 9S 7H",
        "QD JH 7D AS 9C 8H",
    )
    passes: list[dict[str, object]] = [{"seat": s, "action": "pass"} for s in range(4)]
    hand = scripted(deal, "JD AD", passes, rules=RuleSet.from_preset("wisconsin"))
    assert hand.turn == 4
    # Three trumps with a queen and a jack: the dealer's line sat near the first seat's, and
    # at tables of five heuristics about one hand in four became a leaster (v1: one in a
    # hundred). Against heuristic-v1 and against the heuristic itself the dealer's line made
    # no measurable difference between 5.0 and 6.9 (docs/bots.md), so the dealer picks.
    assert TUNED.pick_line(4) < hand_strength(CardSet.from_codes(deal[4].split()).mask)
    assert _choice(hand)["action"] == "pick"
    view = seat_view(hand, 4)
    assert HeuristicStrategy(pick4=6.9).choose(view, view["legal"])["action"] == "pass"


@pytest.mark.parametrize(("preset", "payout", "wins"), [("seed", 192, 21), ("wisconsin", 352, 21)])
def test_heuristic_v1_plays_exactly_as_before(preset: str, payout: int, wins: int) -> None:
    # heuristic-v1 is the yardstick every change to the shared policy is measured against, so a
    # new rule must sit behind a Style field whose V1 value keeps v1's play: these totals of a
    # small duplicate tournament against random were taken before any such rule changed.
    from botkit.tournament.play import run_tournament

    tallies, _ = run_tournament(["heuristic-v1", "random"], 10, 5, RuleSet.from_preset(preset))
    v1 = tallies[0]
    assert (v1.payout, v1.picks, v1.picker_wins, v1.leasters) == (payout, 36, wins, 5)


def test_a_defender_not_knowing_the_partner_takes_the_pickers_trump_lead_cheaply() -> None:
    deal = (
        "QC QS JC JS 9D 7H",
        "QD 7D AC TC KC 9C",
        "AH TH KH AS TS KS",
        "QH JH JD AD TD KD",
        "8D 8C 7C 9H 8H 7S",
    )
    plays = [
        *picked(0, "8S 9S", "AH"),
        play(0, "9D"),
    ]
    hand = scripted(deal, "8S 9S", plays)
    assert hand.turn == 1 and hand.partner_revealed is False
    view = seat_view(hand, 1)
    # The picker leads a low trump worth nothing: the queen takes it and the lead goes to the
    # defence (playing out true deals, this gained 0.15-0.35 points a time); without the rule
    # the trick is not worth the queen and the seven goes on.
    assert card_chosen(HeuristicStrategy(), view) == "QD"
    assert card_chosen(HeuristicStrategy(unknown_take_trump=0), view) == "7D"
    assert card_chosen(HeuristicV1Strategy(), view) == "7D"


def test_the_picker_in_fourth_seat_takes_the_trick_with_its_cheapest_winner() -> None:
    deal = (
        "KD 7D AC TC KC 9C",
        "QD 8D AS TS KS 9S",
        "AH TH KH 9H 8H 7S",
        "QC JD 9D 7H 8C 7C",
        "QS QH JC JS JH AD",
    )
    plays = [
        *picked(3, "8C 7C", "AH"),
        play(0, "KD"),
        play(1, "8D"),
        play(2, "7S"),
    ]
    hand = scripted(deal, "TD 8S", plays)
    assert hand.turn == 3
    view = seat_view(hand, 3)
    # One seat to come and the trick worth 4: the cheapest card that beats the king takes it
    # (only the last seat's better trump can still win it); without the rule the trick is not
    # worth a trump and the nine goes on.
    assert card_chosen(HeuristicStrategy(), view) == "TD"
    assert card_chosen(HeuristicStrategy(picker_fourth=0), view) == "9D"


def test_the_partner_in_third_seat_takes_the_trick_with_its_cheapest_winner() -> None:
    deal = (
        "KD 7D AC TC KC 9C",
        "QD 8D AS TS KS 9S",
        "JD 9D AH TH KH 7H",
        "QC QS JC JS 9H 8H",
        "QH JH AD TD 8C 7C",
    )
    plays = [
        *picked(3, "7S 8S", "AH"),
        play(0, "KD"),
        play(1, "8D"),
    ]
    hand = scripted(deal, "7S 8S", plays)
    assert hand.turn == 2
    view = seat_view(hand, 2)
    # The partner (it holds the called ace) with two seats to come, the picker one of them: the
    # jack takes the king; without the rule a trick worth 4 gets the nine.
    assert card_chosen(HeuristicStrategy(), view) == "JD"
    assert card_chosen(HeuristicStrategy(partner_take=0), view) == "9D"


def test_the_picker_schmears_onto_its_known_partners_fail_trick() -> None:
    deal = (
        "8H 9H QD JS 7C KS",
        "AH AC JD AD 8C 7S",
        "KH TC JH TD 9C AS",
        "QC QS QH JC 7H TS",
        "TH KD 9D 8D 7D KC",
    )
    plays = [
        *picked(3, "8S 9S", "AH"),
        play(0, "8H"),
        play(1, "AH"),
        play(2, "KH"),
        play(3, "7H"),
        play(4, "TH"),
        play(1, "AC"),
        play(2, "TC"),
    ]
    hand = scripted(deal, "8S 9S", plays)
    assert hand.turn == 3 and hand.partner_revealed
    view = seat_view(hand, 3)
    # The partner's ace of clubs is winning 21 points with two defenders to come, the picker
    # void in clubs: the ten of spades goes onto it (played out on true deals, schmearing here
    # gained 0.36 points a time); without the rule its cheapest sure queen takes it over.
    assert card_chosen(HeuristicStrategy(), view) == "TS"
    assert card_chosen(HeuristicStrategy(picker_trusts=0), view) == "QH"
    assert card_chosen(HeuristicV1Strategy(), view) == "QH"


def test_a_defender_trumps_the_called_ace_with_its_cheapest_trump() -> None:
    deal = (
        "8H 9H QD JS 7C KS",
        "AH AC JD AD 8C 7S",
        "QC 7D TC 9C AS KC",
        "QS QH JC JH 7H TS",
        "TH KH KD 9D 8D TD",
    )
    plays = [
        *picked(3, "8S 9S", "AH"),
        play(0, "8H"),
        play(1, "AH"),
    ]
    hand = scripted(deal, "8S 9S", plays)
    assert hand.turn == 2 and hand.partner_revealed
    view = seat_view(hand, 2)
    # The called ace is winning its suit's lead and seat 2 has none: the seven of diamonds
    # takes it; without the rule the trick (11 points) is worth a sure trump, the boss queen.
    assert card_chosen(HeuristicStrategy(), view) == "7D"
    assert card_chosen(HeuristicStrategy(ace_take=0), view) == "QC"
    assert card_chosen(HeuristicV1Strategy(), view) == "QC"


def test_the_picker_leads_its_second_trump_rather_than_a_queen_of_spades_that_is_not_boss() -> None:
    deal = (
        "QS JS 9D 8D 7D 7H",
        "QC QH AC TC KC 7C",
        "QD JC AS TS KS 9S",
        "JH JD 8S 7S AH TH",
        "AD TD KD KH 9H 8H",
    )
    plays = picked(0, "8C 9C", "AH")
    hand = scripted(deal, "8C 9C", plays)
    assert hand.turn == 0
    view = seat_view(hand, 0)
    # The queen of clubs is still out, so the queen of spades led would feed it: the jack of
    # spades (the best jack under the seed preset's order) goes first; without the rule the
    # queen does.
    assert card_chosen(HeuristicStrategy(), view) == "JS"
    assert card_chosen(HeuristicStrategy(picker_second=0), view) == "QS"
    assert card_chosen(HeuristicV1Strategy(), view) == "QS"


@pytest.mark.parametrize(("preset", "card"), [("seed", "JS"), ("wisconsin", "QH")])
def test_the_picker_beats_a_jack_by_the_tables_jack_order(preset: str, card: str) -> None:
    deal = (
        "7D AC TC KC 9C 8C",
        "JC 8D AS TS KS 9S",
        "AH TH KH 9H 8H 7S",
        "QH JS 9D 7H 7C 8S",
        "QC QS QD JH JD AD",
    )
    plays = [*picked(3, "7C 8S", "AH"), play(0, "7D"), play(1, "JC"), play(2, "7S")]
    hand = scripted(deal, "TD KD", plays, rules=RuleSet.from_preset(preset))
    assert hand.turn == 3
    view = seat_view(hand, 3)
    # The picker in fourth seat takes a defender's jack of clubs with its cheapest winner
    # (Style.picker_fourth): under seed rules the jack of spades ranks above it, under
    # Wisconsin rules it does not and the queen of hearts must go. The policy reads the jack
    # order from the table's rules (issue 30: the seed/Wisconsin gap is not a rules-blind bot;
    # docs/bots.md, "Tuning").
    assert card_chosen(HeuristicStrategy(), view) == card
