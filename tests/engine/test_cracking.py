"""Cracking, re-cracking and blitzing (docs/rules.md, "Cracking and blitzing"): the rounds, the
stakes, views and records."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import (
    BadRecordError,
    Blitz,
    Crack,
    Hand,
    IllegalActionError,
    NoCrack,
    NoRecrack,
    Recrack,
    RuleSet,
    action_from_dict,
    export_record,
    parse_card,
    replay_record,
    seat_view,
)
from engine.hand import crack_seats
from engine.scoring import score_hand
from tests.engine.helpers import act, new_hand, rules

RECORDS = Path(__file__).parent.parent / "fixtures" / "records"

# Dealer 4: seat 0 speaks first, seat 1 picks (QC QS: the black queens), seat 2 holds AC (the
# partner once AC is called), seat 4 holds QH QD (the red queens).
HANDS = (
    "AH TH KH 9H 8H 7H",
    "QC QS JC JS AD TD",
    "AC TC 9D 8D 7D JH",
    "AS TS KS 9S 8S 7S",
    "QH QD 9C 8C KC JD",
)
BLIND = "KD 7C"


def tavern(*words: str, dealer: int = 4, hands: tuple[str, ...] = HANDS, **options: Any) -> Hand:
    """The deal above under the ``tavern`` preset, with ``words`` applied."""
    return act(new_hand(hands, BLIND, dealer=dealer, preset="tavern", **options), *words)


def kinds(hand: Hand) -> list[dict[str, Any]]:
    return [a.to_dict() for a in hand.legal_actions()]


CALLED = ("pass", "pick", "bury TD KD", "call AC")


def test_the_worked_example_of_rules_11_pays_x8() -> None:
    # The picker calls, seat 4 cracks with the red queens (x4), the picker re-cracks (x2): x8.
    # The picker's side wins with 70: picker +16, partner +8, each defender -8.
    result = score_hand(
        rules=rules("tavern"),
        complete=True,
        picker=1,
        partner=2,
        called=parse_card("AC"),
        alone=False,
        leaster=False,
        doubler=False,
        tricks=(),
        taken=(20, 40, 30, 30, 0),
        tricks_won=(1, 2, 2, 1, 0),
        buried_points=0,
        blind_points=0,
        multiplier=1,
        crack=(4, "red"),
        recrack=True,
    )
    assert result.picker_side_points == 70 and result.outcome == "won"
    assert result.stakes == 8
    assert result.payouts == (-8, 16, 8, -8, -8)
    assert [d["kind"] for d in result.breakdown()["doublings"]] == ["crack", "recrack"]
    assert [d["factor"] for d in result.doublings()] == [4, 2]


def test_crack_round_asks_the_unoffered_seats_and_the_partner_can_only_pass() -> None:
    hand = tavern(*CALLED)
    assert (hand.phase, hand.turn) == ("crack", 2)
    assert kinds(hand) == [{"seat": 2, "action": "no_crack"}]  # seat 2 holds AC
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Crack(2))
    assert info.value.code == "illegal_action"
    assert "partner cannot crack" in str(info.value)
    act(hand, "no_crack")
    assert kinds(hand) == [{"seat": 3, "action": "crack"}, {"seat": 3, "action": "no_crack"}]
    act(hand, "no_crack")
    assert kinds(hand) == [
        {"seat": 4, "action": "crack"},
        {"seat": 4, "action": "crack", "blitz": "red"},
        {"seat": 4, "action": "no_crack"},
    ]
    act(hand, "crack red")
    assert (hand.phase, hand.turn, hand.stakes) == ("recrack", 1, 4)
    assert kinds(hand) == [{"seat": 1, "action": "recrack"}, {"seat": 1, "action": "no_recrack"}]
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Recrack(4))
    assert info.value.code == "not_your_turn"
    act(hand, "recrack")
    assert (hand.phase, hand.turn, hand.leader, hand.stakes) == ("play", 0, 0, 8)


def test_nobody_cracks_and_play_starts_left_of_the_dealer() -> None:
    hand = tavern(*CALLED, "no_crack", "no_crack", "no_crack")
    assert (hand.phase, hand.turn, hand.stakes, hand.cracker) == ("play", 0, 1, None)


def test_crack_by_defenders_asks_every_seat_but_the_picker() -> None:
    hand = tavern(*CALLED, crack_by="defenders")
    turns = []
    while hand.phase == "crack":
        turns.append(hand.turn)
        act(hand, "no_crack")
    assert turns == [2, 3, 4, 0] == list(crack_seats(hand.rules, 4, 1))
    assert hand.phase == "play"


def test_the_first_crack_ends_the_round_and_a_plain_crack_doubles() -> None:
    hand = tavern(*CALLED, "no_crack", "crack")
    assert (hand.phase, hand.cracker, hand.crack_blitz, hand.stakes) == ("recrack", 3, None, 2)
    act(hand, "no_recrack")
    assert (hand.phase, hand.stakes, hand.recracked) == ("play", 2, False)


def test_no_crack_round_when_the_dealer_picks_unless_defenders_crack() -> None:
    # Dealer 1: seats 2, 3, 4, 0 pass and the dealer picks.
    words = ("pass", "pass", "pass", "pass", "pick", "bury TD KD", "call AC")
    assert tavern(*words, dealer=1).phase == "play"
    hand = tavern(*words, dealer=1, crack_by="defenders")
    assert (hand.phase, hand.turn) == ("crack", 2)
    # A forced pick by the dealer: no round either.
    assert tavern(*words, dealer=1, no_pick="forced-pick").phase == "play"


def test_after_alone_everyone_asked_may_crack() -> None:
    hand = tavern("pass", "pick", "bury TD KD", "alone")
    assert hand.phase == "crack" and hand.partner is None
    assert [a.kind for a in hand.legal_actions()] == ["crack", "no_crack"]  # seat 2, AC holder


def test_under_jack_of_diamonds_the_jd_holder_only_passes() -> None:
    hand = tavern("pass", "pick", "bury TD KD", "call JD", partner="jack-of-diamonds")
    assert hand.partner == 4
    act(hand, "no_crack", "no_crack")
    assert kinds(hand) == [{"seat": 4, "action": "no_crack"}]


def test_after_an_unknown_call_the_ace_holder_only_passes() -> None:
    # Seat 1 keeps no club, spade or heart: it calls AS with an unknown card; seat 3 holds AS.
    hands = (
        "AH TH KH 9H 8H 7H",
        "QC QS JC JS AD TD",
        "AC TC 9D 8D 7D JH",
        "AS TS KS 9S 8S 7S",
        "QH QD 9C 8C KC JD",
    )
    hand = tavern("pass", "pick", "bury 7C KD", hands=hands, unknown_card=True)
    unknown = [
        a for a in hand.legal_actions() if a.kind == "unknown" and a.to_dict()["card"] == "AS"
    ]
    hand.apply(unknown[0])
    assert hand.partner == 3
    act(hand, "no_crack")
    assert kinds(hand) == [{"seat": 3, "action": "no_crack"}]


def test_the_picker_blitzes_before_burying_and_may_bury_a_blitzed_queen() -> None:
    hand = tavern("pass", "pick")
    blitzes = [a.to_dict() for a in hand.legal_actions() if isinstance(a, Blitz)]
    assert blitzes == [{"seat": 1, "action": "blitz", "pair": "black"}]
    assert len(hand.legal_actions()) == 28 + 1
    act(hand, "blitz black")
    assert hand.phase == "bury" and hand.stakes == 2
    assert not [a for a in hand.legal_actions() if isinstance(a, Blitz)]
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Blitz(1, "black"))
    assert "already blitzed" in str(info.value)
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Blitz(1, "red"))
    assert info.value.code == "illegal_action"
    for seat in (0, 1, 2, 3, 4, None):
        view = seat_view(hand, seat)
        assert view["blitzes"] == [{"seat": 1, "pair": "black", "cards": ["QC", "QS"]}]
        assert view["stakes"] == 2
    act(hand, "bury QS KD")  # burying a blitzed queen: the blitz still counts
    assert hand.phase == "call" and hand.stakes == 2
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Blitz(1, "black"))
    assert info.value.code == "illegal_action"


def test_options_off_refuse_the_new_actions() -> None:
    plain = new_hand(HANDS, BLIND, dealer=4, preset="wisconsin")
    act(plain, "pass", "pick")
    assert not [a for a in plain.legal_actions() if isinstance(a, Blitz)]
    with pytest.raises(IllegalActionError) as info:
        plain.apply(Blitz(1, "black"))
    assert info.value.code == "illegal_action"
    act(plain, "bury TD KD", "call AC")
    assert plain.phase == "play"
    for action in (NoCrack(0), Crack(0), NoRecrack(0), Recrack(0)):
        with pytest.raises(IllegalActionError) as info:
            plain.apply(action)
        assert info.value.code == "illegal_action"
        # The message says the option is off (PROTOCOL.md §8), not only what is due now.
        assert str(info.value).startswith("Cracking is not played at this table")
    with pytest.raises(IllegalActionError, match=r"^Blitzing is not played at this table"):
        plain.apply(Blitz(0, "black"))
    # Cracking without blitzing: a crack may not show queens.
    hand = tavern(*CALLED, "no_crack", "no_crack", blitzing=False)
    assert [a.to_dict() for a in hand.legal_actions()] == [
        {"seat": 4, "action": "crack"},
        {"seat": 4, "action": "no_crack"},
    ]
    with pytest.raises(IllegalActionError) as info:
        hand.apply(Crack(4, "red"))
    assert info.value.code == "illegal_action"
    assert hand.turn == 4 and hand.stakes == 1  # nothing changed


def swapped_hands() -> tuple[str, ...]:
    """:data:`HANDS` with AC moved from seat 2 to seat 3 (for 7S): seat 3 is the partner."""
    return (
        HANDS[0],
        HANDS[1],
        HANDS[2].replace("AC", "7S"),
        HANDS[3].replace("7S", "AC"),
        HANDS[4],
    )


def test_the_crack_round_reveals_no_partner() -> None:
    # Two deals alike but for who holds AC: every view of a seat that holds neither is the same
    # in both at every step of the crack round, and names no partner.
    words = (*CALLED, "no_crack", "no_crack", "crack", "no_recrack")
    first = tavern(*CALLED, crack_by="defenders")
    second = tavern(*CALLED, hands=swapped_hands(), crack_by="defenders")
    assert (first.partner, second.partner) == (2, 3)
    for word in words[len(CALLED) :]:
        assert first.turn == second.turn
        for seat in (0, 1, 4, None):
            a, b = seat_view(first, seat), seat_view(second, seat)
            assert a == b
            assert a["partner"] is None and a["partner_known"] is False
        act(first, word)
        act(second, word)
    assert first.phase == second.phase == "play"
    assert seat_view(first, 0) == seat_view(second, 0)


def test_replay_json_of_a_record_with_a_blitz_a_crack_and_a_recrack() -> None:
    record = json.loads((RECORDS / "tavern.json").read_text())
    line = replay_record(record)
    assert line["blitzes"] == [{"seat": 1, "pair": "black"}]
    assert line["crack"] == {"seat": 4, "blitz": "red"}
    assert line["recrack"] is True
    assert line["stakes"] == 16  # blitz x2, crack with the red queens x4, re-crack x2
    assert line["payouts"] == [-16, 32, 16, -16, -16]
    # The same cards without the house rules: the same hand at stakes 1.
    plain_actions = [
        a
        for a in record["actions"]
        if a["action"] not in ("blitz", "crack", "no_crack", "recrack", "no_recrack")
    ]
    plain = {**record, "rules": {"preset": "wisconsin"}, "actions": plain_actions}
    base = replay_record(plain)
    assert base["stakes"] == 1 and base["tricks"] == line["tricks"]
    assert [16 * p for p in base["payouts"]] == line["payouts"]


@pytest.mark.parametrize(
    "name",
    ["complete.json", "doubler.json", "leaster.json", "seed.json", "unfinished.json"],
)
def test_fixtures_replay_the_same_with_the_options_named_off(name: str) -> None:
    record = json.loads((RECORDS / name).read_text())
    line = replay_record(record)
    off = {"cracking": False, "blitzing": False, "crack_by": "defenders"}
    named = {**record, "rules": {**record.get("rules", {}), **off}}
    assert replay_record(named) == line
    assert (line["blitzes"], line["crack"], line["recrack"]) == ([], None, False)
    assert line["stakes"] == record.get("multiplier", 1)


@pytest.mark.parametrize("crack_by", ["unoffered", "defenders"])
@pytest.mark.parametrize(
    "name", ["complete.json", "leaster.json", "unfinished.json", "unfinished_after_bury.json"]
)
def test_fixtures_replay_the_same_with_the_options_on_and_every_crack_declined(
    name: str, crack_by: str
) -> None:
    record = json.loads((RECORDS / name).read_text())
    line = replay_record(record)
    rules = {**record.get("rules", {}), "cracking": True, "blitzing": True, "crack_by": crack_by}
    actions = list(record["actions"])
    decided = next(
        (i for i, a in enumerate(actions) if a["action"] in ("call", "alone", "unknown")), None
    )
    if decided is not None:
        picker = actions[decided]["seat"]
        seats = crack_seats(RuleSet.from_dict(rules), record["dealer"], picker)
        answers = [{"seat": seat, "action": "no_crack"} for seat in seats]
        actions[decided + 1 : decided + 1] = answers
    on = replay_record({**record, "rules": rules, "actions": actions})
    assert on == line


def test_every_combination_balances_and_declining_everything_changes_nothing() -> None:
    # Random hands under every combination of the three options: payouts sum to zero and are the
    # stakes times the payouts of the same cards without the options; declining every crack and
    # blitz plays exactly as the hand without them.
    rng = random.Random(17)
    for index in range(240):
        blitzing, cracking, crack_by = (
            index % 2,
            index // 2 % 2,
            ("unoffered", "defenders")[index // 4 % 2],
        )
        options = RuleSet.from_preset(
            ("seed", "wisconsin")[index // 8 % 2],
            blitzing=bool(blitzing),
            cracking=bool(cracking),
            crack_by=crack_by,
        )
        hand = Hand.from_seed(options, dealer=index % 5, seed=index, multiplier=1 + index % 3)
        decline = index % 3 == 0
        while not hand.is_over:
            legal = hand.legal_actions()
            quiet = [a for a in legal if isinstance(a, NoCrack | NoRecrack)]
            if decline and quiet:
                hand.apply(quiet[0])
            elif decline and hand.phase == "bury":
                hand.apply(rng.choice([a for a in legal if not isinstance(a, Blitz)]))
            else:
                hand.apply(rng.choice(legal))
        result = hand.result()
        assert result.payouts is not None and sum(result.payouts) == 0
        record = export_record(hand)
        plain_actions = [
            a
            for a in record["actions"]
            if a["action"] not in ("blitz", "crack", "no_crack", "recrack", "no_recrack")
        ]
        plain_rules = options.replace(blitzing=False, cracking=False).to_dict()
        base = replay_record({**record, "rules": plain_rules, "actions": plain_actions})
        assert base["tricks"] == result.to_dict()["tricks"]
        assert base["payouts"] is not None
        factor = result.stakes // hand.multiplier
        assert [factor * p for p in base["payouts"]] == list(result.payouts)
        if decline:
            assert result.stakes == hand.multiplier


def test_actions_round_trip_through_their_wire_maps() -> None:
    for data in (
        {"seat": 1, "action": "blitz", "pair": "red"},
        {"seat": 2, "action": "crack"},
        {"seat": 2, "action": "crack", "blitz": "black"},
        {"seat": 3, "action": "no_crack"},
        {"seat": 1, "action": "recrack"},
        {"seat": 1, "action": "no_recrack"},
    ):
        assert action_from_dict(data).to_dict() == data
    assert action_from_dict({"seat": 2, "action": "crack", "blitz": None}) == Crack(2)
    for bad in (
        {"seat": 1, "action": "blitz"},
        {"seat": 1, "action": "blitz", "pair": "green"},
        {"seat": 2, "action": "crack", "blitz": "QH"},
    ):
        with pytest.raises(BadRecordError) as info:
            action_from_dict(bad)
        assert info.value.code == "bad_record"
