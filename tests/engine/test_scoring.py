"""Scoring of picked hands and leasters (docs/rules.md, "Scoring a picked hand" and "When everybody
passes"), each from a whole hand played out.

Every scenario is a table of six tricks, one row per trick with the card of seats 0, 1, 2, 3, 4
(each seat is dealt exactly the cards it plays). Dealer 0, so seat 1 speaks first; in picked
hands seat 1 picks at once and buries the two blind cards, so the bury is stated too. The
points and payouts are docs/rules.md's arithmetic on those tricks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine import RuleSet, export_record, replay_record
from engine.scoring import stake_for
from tests.engine.helpers import scripted_hand


@dataclass(frozen=True)
class Scenario:
    """A picked hand: tricks, bury, the picker's decision and what it must score."""

    tricks: tuple[str, ...]
    bury: str
    call: str
    points: tuple[int, ...]
    side: int
    outcome: str
    stake: int
    payouts: tuple[int, ...]
    partner: int | None


def play(s: Scenario, **options: Any) -> Any:
    hand = scripted_hand(s.tricks, picker=1, bury=s.bury, call=s.call, **options)
    assert hand.is_over
    return hand.result()


# ---------------------------------------------------------------- with a partner

WIN_61 = Scenario(
    tricks=(
        "QH TD QS JH JD",
        "KD 7D QC 9C 7H",
        "8C KH 9H AH KC",
        "8S AD 8H TH AC",
        "KS JC JS TS 7S",
        "7C 9D QD AS 9S",
    ),
    bury="TC 8D",
    call="call AH",
    # Picker 42 (10 buried + 32 in tricks), partner seat 3 19: 61 wins.
    points=(0, 42, 59, 19, 0),
    side=61,
    outcome="won",
    stake=1,
    payouts=(-1, 2, -1, 1, -1),
    partner=3,
)

LOSE_60 = Scenario(
    tricks=(
        "8S KS AS TS 7S",
        "QS JH 9D KD QC",
        "QH 8H AD TH AH",
        "JS QD TD AC 7D",
        "9C JD 8D KC 9H",
        "9S 8C 7C KH TC",
    ),
    bury="JC 7H",
    call="call AH",
    # Picker 34, partner seat 4 26: 60 loses.
    points=(35, 34, 25, 0, 26),
    side=60,
    outcome="lost",
    stake=1,
    payouts=(1, -2, 1, 1, -1),
    partner=4,
)

SCHNEIDER_91 = Scenario(
    tricks=(
        "9H 8H TH 7H AH",
        "TD 7D JS JH 9D",
        "KH 9S 8S 7C KS",
        "8C 9C 7S KD AC",
        "AD QS TS JC JD",
        "8D KC AS QD QH",
    ),
    bury="TC QC",
    call="call AC",
    # Picker 41, partner seat 4 50: 91, the opponents took 29 (fewer than 30).
    points=(0, 41, 14, 15, 50),
    side=91,
    outcome="schneider",
    stake=2,
    payouts=(-2, 4, -2, -2, 2),
    partner=4,
)

WIN_90 = Scenario(
    tricks=(
        "QD QC AD JS 7D",
        "TC QH JH KD 8D",
        "7C 9D 7H JC TD",
        "KC AH 8H KH 9H",
        "AC 8C TS 9C 7S",
        "AS 8S 9S QS KS",
    ),
    bury="TH JD",
    call="call AC",
    # Picker 69, partner seat 0 21: 90, the opponents took exactly 30: no schneider.
    points=(21, 69, 0, 30, 0),
    side=90,
    outcome="won",
    stake=1,
    payouts=(1, 2, -1, -1, -1),
    partner=0,
)

LOSE_31 = Scenario(
    tricks=(
        "9H TH AH 8H QH",
        "7D JH KD QD 8D",
        "7C JC JS JD 9D",
        "9S QC KC AC 9C",
        "AS 8S TD 7S AD",
        "KS 7H KH 8C TC",
    ),
    bury="TS QS",
    call="call AS",
    # Picker 31 (13 of it buried), partner seat 0 nothing: 31 is a plain loss.
    points=(0, 31, 6, 9, 74),
    side=31,
    outcome="lost",
    stake=1,
    payouts=(-1, -2, 1, 1, 1),
    partner=0,
)

SCHNEIDERED_30 = Scenario(
    tricks=(
        "7H AH AD TH QS",
        "QD KD TD JH JC",
        "AC 7C JS 9C 8C",
        "KH TS AS 8S 7D",
        "KC 8H 9S QH TC",
        "JD 9H 7S KS 9D",
    ),
    bury="QC 8D",
    call="call AC",
    # Picker 3 (the buried QC), partner seat 0 27: 30 is schneidered.
    points=(27, 3, 13, 17, 60),
    side=30,
    outcome="schneidered",
    stake=2,
    payouts=(-2, -4, 2, 2, 2),
    partner=0,
)

ALL_TRICKS = Scenario(
    tricks=(
        "9S 8S 7S QC TS",
        "7D JC KD QS TD",
        "8H TH 9C AH 7H",
        "JH QH AD 9D JD",
        "8D KS AS QD KH",
        "TC AC KC 9H 7C",
    ),
    bury="8C JS",
    call="call AH",
    # The picker and seat 3 take all six tricks.
    points=(0, 20, 0, 100, 0),
    side=120,
    outcome="all_tricks",
    stake=3,
    payouts=(-3, 6, -3, 3, -3),
    partner=3,
)

ALL_POINTS_NOT_ALL_TRICKS = Scenario(
    tricks=(
        "QC JC 9D JD QH",
        "QS TD QD KD JH",
        "JS AS 9S 7D 8D",
        "AD TS 8H 9H TC",
        "TH KH KS 7H KC",
        "7S 8C 9C 8S 7C",
    ),
    bury="AC AH",
    # The picker holds AS and buried AC and AH: all three fail aces, so a ten is called.
    call="call TH",
    # 120 points, but seat 3 took the last trick (worth nothing): schneider, not all tricks.
    points=(98, 22, 0, 0, 0),
    side=120,
    outcome="schneider",
    stake=2,
    payouts=(2, 4, -2, -2, -2),
    partner=0,
)

NO_TRICKS = Scenario(
    tricks=(
        "AS 8S 7S 8C 9H",
        "8H 7H AH KD KC",
        "TC 9C TH AC JD",
        "QH 9D JC 8D TD",
        "JS AD 9S JH 7D",
        "TS KS KH 7C QS",
    ),
    bury="QC QD",
    call="call AH",
    # The opponents take every trick; the picker keeps the 6 buried points.
    points=(41, 6, 0, 19, 54),
    side=6,
    outcome="no_tricks",
    stake=3,
    # The picker pays it all: -9, partner (seat 2) 0, each opponent +3.
    payouts=(3, -9, 0, 3, 3),
    partner=2,
)

ZERO_POINT_TRICK = Scenario(
    tricks=(
        "AH AS QS JH JS",
        "TD TS JD QC JC",
        "AD KS 7D QD KD",
        "9C 8S KH TH 7H",
        "8C 7S 9H 8H 8D",
        "KC TC 7C QH AC",
    ),
    bury="9S 9D",
    call="call AC",
    # Partner seat 4 took one trick (8C 7S 9H 8H 8D), worth nothing: 0 points, schneidered,
    # yet not "no tricks".
    points=(0, 0, 29, 91, 0),
    side=0,
    outcome="schneidered",
    stake=2,
    payouts=(2, -4, 2, 2, -2),
    partner=4,
)

# ---------------------------------------------------------------- alone

ALONE_61 = Scenario(
    tricks=(
        "AS 7S TH 7H 9S",
        "8C QS KH KC AC",
        "9C TS 8D KD TC",
        "AD 8S QH 7C 8H",
        "JD JS AH 7D TD",
        "QD QC 9H JH JC",
    ),
    bury="KS 9D",
    call="alone",
    points=(21, 61, 14, 24, 0),
    side=61,
    outcome="won",
    stake=1,
    payouts=(-1, 4, -1, -1, -1),
    partner=None,
)

ALONE_60 = Scenario(
    tricks=(
        "9S AS 9C 8S 8C",
        "8D JS TD 9D QH",
        "KD QS JH 7C JC",
        "KS TS JD 7H KH",
        "7D QC AD KC TH",
        "AC 9H QD AH 8H",
    ),
    bury="TC 7S",
    call="alone",
    points=(0, 60, 45, 0, 15),
    side=60,
    outcome="lost",
    stake=1,
    payouts=(1, -4, 1, 1, 1),
    partner=None,
)

ALONE_91 = Scenario(
    tricks=(
        "TD QD 9D KD AD",
        "TS JH 9H 7D JC",
        "TC QS 7C TH JS",
        "KC 9C AC 8C 8S",
        "9S QH 8H 7H KS",
        "7S QC AS KH JD",
    ),
    bury="AH 8D",
    call="alone",
    points=(0, 91, 15, 0, 14),
    side=91,
    outcome="schneider",
    stake=2,
    payouts=(-2, 8, -2, -2, -2),
    partner=None,
)

ALONE_30 = Scenario(
    tricks=(
        "9D 8H KH 7H AH",
        "7C 9C 7S TC 8C",
        "JH JS JD QH TD",
        "9S 8D AS TS KS",
        "QS QD KD 9H 7D",
        "AC KC TH 8S AD",
    ),
    bury="JC QC",
    call="alone",
    points=(25, 30, 0, 29, 36),
    side=30,
    outcome="schneidered",
    stake=2,
    payouts=(2, -8, 2, 2, 2),
    partner=None,
)

ALONE_ALL_TRICKS = Scenario(
    tricks=(
        "KD JC 7D JH AD",
        "JD QC QS JS 9S",
        "KH AH 7H 8H TH",
        "TD QH 9D 9C 8C",
        "7C TC 8S 7S KC",
        "KS QD 9H AS TS",
    ),
    bury="AC 8D",
    call="alone",
    points=(0, 120, 0, 0, 0),
    side=120,
    outcome="all_tricks",
    stake=3,
    payouts=(-3, 12, -3, -3, -3),
    partner=None,
)

ALONE_NO_TRICKS = Scenario(
    tricks=(
        "7H KS QD AS 9S",
        "QH JD TD JS QC",
        "TH 7S JH 8D TS",
        "9H KC 8H AH KD",
        "QS AD 7D 7C 8S",
        "9D 9C KH AC TC",
    ),
    bury="8C JC",
    call="alone",
    points=(39, 2, 40, 0, 39),
    side=2,
    outcome="no_tricks",
    stake=3,
    payouts=(3, -12, 3, 3, 3),
    partner=None,
)

ALONE_ZERO_POINT_TRICK = Scenario(
    tricks=(
        "JS TD QH KD QS",
        "KC 8C AC 9C 7C",
        "9H 9D 7H 8H 8S",
        "TH AS KS JD 7S",
        "KH TS QC AH QD",
        "JH 9S JC AD TC",
    ),
    bury="7D 8D",
    call="alone",
    # The picker wins trick 3 (worth nothing) and nothing else.
    points=(0, 0, 71, 27, 22),
    side=0,
    outcome="schneidered",
    stake=2,
    payouts=(2, -8, 2, 2, 2),
    partner=None,
)

SCENARIOS = {
    "win_61": WIN_61,
    "lose_60": LOSE_60,
    "schneider_91": SCHNEIDER_91,
    "win_90": WIN_90,
    "lose_31": LOSE_31,
    "schneidered_30": SCHNEIDERED_30,
    "all_tricks": ALL_TRICKS,
    "all_points_not_all_tricks": ALL_POINTS_NOT_ALL_TRICKS,
    "no_tricks": NO_TRICKS,
    "zero_point_trick": ZERO_POINT_TRICK,
    "alone_61": ALONE_61,
    "alone_60": ALONE_60,
    "alone_91": ALONE_91,
    "alone_30": ALONE_30,
    "alone_all_tricks": ALONE_ALL_TRICKS,
    "alone_no_tricks": ALONE_NO_TRICKS,
    "alone_zero_point_trick": ALONE_ZERO_POINT_TRICK,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_picked_hand_scores(name: str) -> None:
    s = SCENARIOS[name]
    r = play(s)
    assert r.complete
    assert r.picker == 1 and r.partner == s.partner and r.alone == (s.partner is None)
    assert r.points == s.points and sum(r.points) == 120
    assert r.picker_side_points == s.side
    assert r.defender_points == 120 - s.side
    assert (r.outcome, r.stake) == (s.outcome, s.stake)
    assert r.payouts == s.payouts
    assert sum(r.payouts) == 0
    assert not r.bumped
    assert r.breakdown()["outcome"] == s.outcome


def test_picker_entry_includes_the_bury() -> None:
    hand = scripted_hand(NO_TRICKS.tricks, picker=1, bury=NO_TRICKS.bury, call=NO_TRICKS.call)
    assert hand.taken[1] == 0 and hand.result().points[1] == 3 + 3


def test_no_trick_partner_not_exempt_pays_like_any_loss() -> None:
    r = play(NO_TRICKS, no_trick_partner_exempt=False)
    assert (r.outcome, r.stake) == ("no_tricks", 3)
    assert r.payouts == (3, -6, -3, 3, 3)
    # Alone there is no partner to exempt.
    assert play(ALONE_NO_TRICKS, no_trick_partner_exempt=False).payouts == (3, -12, 3, 3, 3)


@pytest.mark.parametrize(
    ("name", "bumped"),
    [
        ("lose_60", (2, -4, 2, 2, -2)),
        ("schneidered_30", (-4, -8, 4, 4, 4)),
        ("no_tricks", (6, -18, 0, 6, 6)),
        ("alone_60", (2, -8, 2, 2, 2)),
        ("alone_no_tricks", (6, -24, 6, 6, 6)),
    ],
)
def test_double_on_the_bump_doubles_losses(name: str, bumped: tuple[int, ...]) -> None:
    r = play(SCENARIOS[name], double_on_the_bump=True)
    assert r.payouts == bumped and r.bumped


@pytest.mark.parametrize("name", ["win_61", "schneider_91", "all_tricks", "alone_all_tricks"])
def test_double_on_the_bump_leaves_wins_alone(name: str) -> None:
    r = play(SCENARIOS[name], double_on_the_bump=True)
    assert r.payouts == SCENARIOS[name].payouts and not r.bumped


def test_no_trick_not_exempt_and_bumped() -> None:
    r = play(NO_TRICKS, no_trick_partner_exempt=False, double_on_the_bump=True)
    assert r.payouts == (6, -12, -6, 6, 6)


def test_doubler_multiplier_multiplies_every_payout() -> None:
    assert play(WIN_61, multiplier=2).payouts == (-2, 4, -2, 2, -2)
    assert play(ALONE_ALL_TRICKS, multiplier=4).payouts == (-12, 48, -12, -12, -12)
    # Multiplier and bump stack.
    r = play(ALONE_60, multiplier=4, double_on_the_bump=True)
    assert r.payouts == (8, -32, 8, 8, 8) and r.multiplier == 4


def test_wisconsin_preset_bumps() -> None:
    # The wisconsin preset turns double_on_the_bump on (and changes the jack order, which does
    # not matter to this hand: no black jacks meet in a trick).
    r = play(LOSE_60, preset="wisconsin")
    assert r.payouts == (2, -4, 2, 2, -2)


@pytest.mark.parametrize(
    ("side", "tricks", "expected"),
    [
        (61, 3, ("won", 1)),
        (60, 3, ("lost", 1)),
        (90, 4, ("won", 1)),
        (91, 5, ("schneider", 2)),
        (31, 2, ("lost", 1)),
        (30, 2, ("schneidered", 2)),
        (0, 1, ("schneidered", 2)),
        (120, 5, ("schneider", 2)),
        (120, 6, ("all_tricks", 3)),
        (21, 0, ("no_tricks", 3)),
        (0, 0, ("no_tricks", 3)),
    ],
)
def test_stake_table(side: int, tricks: int, expected: tuple[str, int]) -> None:
    assert stake_for(RuleSet(), picker_side_points=side, picker_side_tricks=tricks) == expected


# ---------------------------------------------------------------- leaster

# Seats 2 and 3 both end on 12 points, the fewest of anybody who took a trick.
LEASTER_TIE = (
    "8H 7H TH JD 9H",
    "9S TS KS 7S AS",
    "7D QS QC JS KD",
    "JH KH 9C AC 8C",
    "9D JC 8D 8S QD",
    "TD QH TC 7C AH",
)
LEASTER_TIE_BLIND = "KC AD"

# Seat 1 takes no trick (0 points); seat 3 has the fewest points of the trick takers (9).
LEASTER_ONE_TRICKLESS = (
    "9D KD JH QS 8D",
    "7S KC AC TC 8C",
    "TD JD AD 7C JS",
    "AH KH TH KS 7H",
    "TS 7D QH AS 8H",
    "9S JC QC 9C 9H",
)
LEASTER_ONE_TRICKLESS_BLIND = "8S QD"

# Seats 1 and 3 take no trick; seat 4 has the fewest points of the trick takers (19).
LEASTER_TWO_TRICKLESS = (
    "TS AH QS 8H TH",
    "QH KC 7C 8C 9C",
    "JH KS 7D AD JS",
    "JD 9S AS 8D 8S",
    "JC AC QD 9D KD",
    "TD TC 7S KH 9H",
)
LEASTER_TWO_TRICKLESS_BLIND = "QC 7H"

# Seat 1 takes the last trick (JS) and so the blind (QH AH, 14 points): without the blind its 10
# points would be the fewest; with it, seat 2's 17 are.
LEASTER_BLIND = (
    "9D JC JH TD QC",
    "TS TC 9S 8S 7S",
    "8C AC 9C 7D JD",
    "9H KH QS 7H TH",
    "7C AD KC QD AS",
    "8H JS 8D KS KD",
)
LEASTER_BLIND_BLIND = "QH AH"


def leaster(tricks: tuple[str, ...], blind: str, **options: Any) -> Any:
    hand = scripted_hand(tricks, picker=None, blind=blind, **options)
    assert hand.is_over and hand.leaster
    return hand.result()


def test_leaster_blind_goes_to_the_last_trick_winner() -> None:
    r = leaster(LEASTER_BLIND, LEASTER_BLIND_BLIND)
    assert r.tricks[-1].winner == 1
    assert r.points == (20, 24, 17, 29, 30) and sum(r.points) == 120
    assert sum(t.points for t in r.tricks if t.winner == 1) == 10
    assert r.leaster_winner == 2 and r.outcome == "leaster_won"
    assert r.payouts == (-1, -1, 4, -1, -1)
    assert r.picker is None and r.partner is None and r.picker_side_points is None


def test_leaster_tie_nobody_scores() -> None:
    r = leaster(LEASTER_TIE, LEASTER_TIE_BLIND)
    assert r.points == (17, 49, 12, 12, 30)
    assert r.outcome == "leaster_tie" and r.leaster_winner is None
    assert r.payouts == (0, 0, 0, 0, 0)


def test_leaster_needs_a_trick() -> None:
    r = leaster(LEASTER_ONE_TRICKLESS, LEASTER_ONE_TRICKLESS_BLIND)
    assert r.points == (29, 0, 57, 9, 25)
    assert r.leaster_winner == 3
    assert r.payouts == (-1, -1, -1, 4, -1)


def test_leaster_without_needing_a_trick_the_trickless_player_wins() -> None:
    r = leaster(LEASTER_ONE_TRICKLESS, LEASTER_ONE_TRICKLESS_BLIND, leaster_needs_trick=False)
    assert r.leaster_winner == 1
    assert r.payouts == (-1, 4, -1, -1, -1)


def test_leaster_two_trickless_players() -> None:
    r = leaster(LEASTER_TWO_TRICKLESS, LEASTER_TWO_TRICKLESS_BLIND)
    assert r.points == (47, 0, 54, 0, 19)
    assert r.leaster_winner == 4 and r.payouts == (-1, -1, -1, -1, 4)
    # Counting everybody, seats 1 and 3 tie on 0: nobody scores.
    r = leaster(LEASTER_TWO_TRICKLESS, LEASTER_TWO_TRICKLESS_BLIND, leaster_needs_trick=False)
    assert r.outcome == "leaster_tie" and r.payouts == (0, 0, 0, 0, 0)


def test_leaster_multiplier() -> None:
    r = leaster(LEASTER_BLIND, LEASTER_BLIND_BLIND, multiplier=2)
    assert r.payouts == (-2, -2, 8, -2, -2)
    # Double on the bump is about a picker; it does not touch a leaster.
    r = leaster(LEASTER_BLIND, LEASTER_BLIND_BLIND, double_on_the_bump=True)
    assert r.payouts == (-1, -1, 4, -1, -1)


def test_leaster_blind_counts_only_at_the_end() -> None:
    hand = scripted_hand(LEASTER_BLIND, picker=None, blind=LEASTER_BLIND_BLIND)
    record = export_record(hand)
    # Stop before the last card: the blind is nowhere in the points yet.
    partial = replay_record({**record, "actions": record["actions"][:-1]})
    assert not partial["complete"] and partial["payouts"] is None
    assert partial["points"] == [20, 0, 17, 29, 30]
    assert sum(partial["points"]) == 120 - 14 - hand.tricks[-1].points
