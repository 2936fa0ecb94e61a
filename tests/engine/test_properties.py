"""Property tests: random seeded hands played with random legal actions under random rules.

Each example draws a whole RuleSet, a dealer, a deal seed, stakes and a seed for the choices,
then plays the hand to the end, checking at every intermediate state that no view leaks a card
its seat may not know and that ``legal_actions()`` is exactly what ``can()`` accepts.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    Alone,
    Blitz,
    Bury,
    Call,
    Crack,
    Deal,
    Hand,
    Match,
    NoCrack,
    NoRecrack,
    Pass,
    Pick,
    Play,
    Recrack,
    RuleSet,
    Unknown,
    action_from_dict,
    export_record,
    hand_from_record,
    replay_record,
    seat_view,
)
from engine.cards import FAIL, TRUMP, card_code, cards_in, parse_card
from engine.rules import OPTION_NAMES, option_choices
from tests.engine import reference

CARD = re.compile(r"^[789TJQKA][CSHD]$")
ACES = [parse_card(c) for c in ("AC", "AS", "AH")]
CALLABLE = {"AC", "AS", "AH", "TC", "TS", "TH", "JD"}
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, 4, None)

rule_sets = st.builds(
    lambda preset, options: RuleSet.from_preset(preset, **options),
    st.sampled_from(["seed", "wisconsin", "tavern"]),
    st.fixed_dictionaries({name: st.sampled_from(option_choices(name)) for name in OPTION_NAMES}),
)


def choose(hand: Hand, rng: random.Random, pass_rate: float = 0.7) -> Action:
    """A random legal action, nudged towards rarer situations (leasters, no-call picks)."""
    legal = hand.legal_actions()
    if hand.phase == "pick" and len(legal) == 2:
        return legal[1] if rng.random() < pass_rate else legal[0]
    if hand.phase == "bury" and rng.random() < 0.5:
        # Keep as few fail cards as possible, so that sometimes no call is possible.
        seat = hand.turn
        assert seat is not None
        fail = FAIL[0] | FAIL[1] | FAIL[2]

        def kept_fail(a: Bury) -> int:
            kept = hand.hands[seat] & ~((1 << a.cards[0]) | (1 << a.cards[1]))
            return (kept & fail).bit_count()

        blitzes = [a for a in legal if isinstance(a, Blitz)]
        if blitzes and rng.random() < 0.5:
            return rng.choice(blitzes)
        return min((a for a in legal if isinstance(a, Bury)), key=kept_fail)
    if hand.phase == "call":
        unknown = [a for a in legal if isinstance(a, Unknown)]
        if unknown and rng.random() < 0.7:
            return rng.choice(unknown)
    return rng.choice(legal)


def card_codes(value: Any, out: set[str]) -> None:
    """Every card code anywhere in a view value."""
    if isinstance(value, dict):
        for v in value.values():
            card_codes(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            card_codes(v, out)
    elif isinstance(value, str) and CARD.match(value):
        out.add(value)


def knowable(hand: Hand, seat: int | None) -> set[str]:
    """The cards ``seat`` may know of: its hand, every card played, and as picker the blind,
    the bury and the face-down unknown card (all of which it has held)."""
    mask = 0 if seat is None else hand.hands[seat]
    for trick in hand.tricks:
        for c in trick.cards:
            mask |= 1 << c
    for c in hand.current:
        mask |= 1 << c
    if seat is not None and seat == hand.picker:
        mask |= hand.deal.blind | hand.buried
        if hand.under is not None:
            mask |= 1 << hand.under
    codes = {card_code(c) for c in cards_in(mask)}
    # Queens shown by a blitz or a crack with a pair are public (docs/rules.md, "Cracking and
    # blitzing").
    for pair in [p for _, p in hand.blitzes] + [hand.crack_blitz]:
        if pair is not None:
            codes |= set(PAIR_CODES[pair])
    return codes


PAIR_CODES = {"black": ("QC", "QS"), "red": ("QH", "QD")}


def stakes_of(hand: Hand, multiplier: int) -> int:
    """docs/rules.md, "Cracking and blitzing" read off the action list: x2 per blitz, crack, pair
    shown and re-crack."""
    factor = multiplier
    for a in hand.actions:
        if isinstance(a, Blitz | Recrack):
            factor *= 2
        elif isinstance(a, Crack):
            factor *= 2 if a.blitz is None else 4
    return factor


def check_views(hand: Hand) -> None:
    """No view of an unfinished hand names a card its viewer may not know."""
    for seat in VIEWERS:
        view = seat_view(hand, seat)
        view = json.loads(json.dumps(view))  # wire-ready: plain JSON types only
        called = view.pop("called")
        assert called == (None if hand.called is None else card_code(hand.called))
        legal = view.pop("legal")
        seen: set[str] = set()
        card_codes(view, seen)
        for entry in legal:
            assert entry["seat"] == seat
            for key, value in entry.items():
                if key == "card" and entry["action"] in ("call", "unknown"):
                    assert value in CALLABLE  # naming a card to call reveals nothing
                else:
                    card_codes(value, seen)
        allowed = knowable(hand, seat)
        assert seen <= allowed, (seat, seen - allowed)
        assert set(view["hand"]) == (set() if seat is None else knowable_hand(hand, seat))
        # The partner's seat: known to the partner, to everybody once the called card is out.
        if view["partner"] is not None:
            assert seat == hand.partner or hand.partner_revealed
        if view["under"] is not None:
            assert seat == hand.picker
        if view["buried"] is not None or view["blind"] is not None:
            assert seat == hand.picker


def knowable_hand(hand: Hand, seat: int) -> set[str]:
    return {card_code(c) for c in cards_in(hand.hands[seat])}


def norm(a: Action) -> tuple[Any, ...]:
    """An action as a comparable value; a bury is an unordered pair."""
    if isinstance(a, Bury):
        return ("bury", a.seat, frozenset(a.cards))
    return tuple(a.to_dict().items())  # not a.__slots__: a class compiled by mypyc has none


def candidates(hand: Hand, rng: random.Random) -> list[Action]:
    """Every action the seat to act could try (legal or not), plus a few by another seat."""
    seat = hand.turn if hand.turn is not None else rng.randrange(5)
    other = (seat + rng.randrange(1, 5)) % 5
    held = list(cards_in(hand.hands[seat])) or [0]
    out: list[Action] = []
    for s in (seat, other):
        out += [Pick(s), Pass(s), Alone(s), NoCrack(s), Recrack(s), NoRecrack(s)]
        out += [Blitz(s, "black"), Blitz(s, "red")]
        out += [Crack(s), Crack(s, "black"), Crack(s, "red")]
        out += [Play(s, c) for c in range(32)]
        out += [Call(s, c) for c in range(32)]
    if hand.phase == "bury":
        out += [Bury(seat, (a, b)) for a in held for b in held]
        out += [Bury(seat, (a, rng.randrange(32))) for a in held]
    else:
        out.append(Bury(seat, (held[0], held[-1])))
    if hand.phase == "call":
        out += [Unknown(seat, ace, u) for ace in ACES for u in range(32)]
    else:
        out.append(Unknown(seat, ACES[0], held[0]))
    out.append(Bury(other, (held[0], held[-1])))
    out.append(Unknown(other, ACES[1], held[0]))
    return out


def check_legal_is_can(hand: Hand, rng: random.Random) -> None:
    legal = {norm(a) for a in hand.legal_actions()}
    assert len(legal) == len(hand.legal_actions())
    cands = candidates(hand, rng)
    assert legal <= {norm(a) for a in cands}
    accepted = {norm(a) for a in cands if hand.can(a)}
    assert accepted == legal


def stacked_deal(seed: int, dealer: int) -> Deal:
    """A deal giving the seat left of the dealer and the blind six or more trumps between them,
    so that after burying its fail cards that seat often has no legal call."""
    rng = random.Random(seed)
    trumps = [c for c in range(32) if (1 << c) & TRUMP]
    others = [c for c in range(32) if not (1 << c) & TRUMP]
    rng.shuffle(trumps)
    rng.shuffle(others)
    n = rng.choice([6, 7, 8])
    rest = trumps[n:] + others
    strong = trumps[:n] + rest[: 8 - n]
    rest = rest[8 - n :]
    rng.shuffle(strong)
    rng.shuffle(rest)
    first = (dealer + 1) % 5
    hands = [0] * 5
    hands[first] = sum(1 << c for c in strong[:6])
    blind = sum(1 << c for c in strong[6:])
    seats = [s for s in range(5) if s != first]
    for i, s in enumerate(seats):
        hands[s] = sum(1 << c for c in rest[6 * i : 6 * i + 6])
    assert sum(hands) + blind == (1 << 32) - 1 and all(h.bit_count() == 6 for h in hands)
    return Deal(tuple(hands), blind)


def play(
    rules: RuleSet,
    dealer: int,
    seed: int,
    multiplier: int,
    choices: int,
    *,
    check: bool,
    stacked: bool = False,
) -> tuple[Hand, list[dict[str, Any]]]:
    """Play a random hand; returns it and the replay line after each number of actions.

    ``stacked``: deal by :func:`stacked_deal` and let the first seat pick at once.
    """
    rng = random.Random(choices)
    pass_rate = rng.choice([0.5, 0.8, 0.95])
    if stacked:
        hand = Hand(rules, dealer, stacked_deal(seed, dealer), multiplier)
    else:
        hand = Hand.from_seed(rules, dealer, seed, multiplier)
    results = [hand.result().to_dict()]
    # Passes and pick, two blitzes, the bury, the call, four crack answers, the re-crack, plays.
    for _ in range(5 + 2 + 1 + 1 + 4 + 1 + 30):
        if hand.is_over:
            break
        if check:
            check_views(hand)
            check_legal_is_can(hand, rng)
        if hand.phase == "play":
            engine_legal = {card_code(a.card) for a in hand.legal_actions() if isinstance(a, Play)}
            assert engine_legal == reference.legal_plays(hand)
        if stacked and hand.phase == "pick":
            action: Action = legal_pick(hand)
        else:
            action = choose(hand, rng, pass_rate)
        hand.apply(action)
        results.append(hand.result().to_dict())
    assert hand.is_over, "the hand did not complete within 44 actions"
    if check:
        check_legal_is_can(hand, rng)
    return hand, results


def legal_pick(hand: Hand) -> Action:
    pick = hand.legal_actions()[0]
    assert isinstance(pick, Pick)
    return pick


hand_args = {
    "stacked": st.booleans(),
    "rules": rule_sets,
    "dealer": st.integers(0, 4),
    "seed": st.integers(0, 2**64),
    "multiplier": st.sampled_from([1, 2, 4]),
    "choices": st.integers(0, 2**32),
}


@settings(max_examples=200, deadline=None)
@given(**hand_args)
def test_random_hands_complete_and_balance(
    stacked: bool, rules: RuleSet, dealer: int, seed: int, multiplier: int, choices: int
) -> None:
    hand, _ = play(rules, dealer, seed, multiplier, choices, check=False, stacked=stacked)
    r = hand.result()
    assert r.complete and r.payouts is not None
    assert sum(r.payouts) == 0
    assert all(p % multiplier == 0 for p in r.payouts)
    stakes = stakes_of(hand, multiplier)
    assert r.stakes == stakes
    assert all(p % stakes == 0 for p in r.payouts)
    if r.doubler:
        assert rules.no_pick == "doubler"
        assert r.points == (0,) * 5 and r.payouts == (0,) * 5 and r.tricks == ()
        return
    assert sum(r.points) == 120
    assert len(r.tricks) == 6
    # Every card is played exactly once; the two others are the bury or the leaster's blind.
    played = Counter(c for t in r.tricks for c in t.cards)
    assert all(n == 1 for n in played.values()) and len(played) == 30
    rest = hand.buried if r.picker is not None else hand.deal.blind
    assert set(played) | set(cards_in(rest)) == set(range(32))
    assert not set(played) & set(cards_in(rest))
    assert all(h == 0 for h in hand.hands)
    # Trick winners, trick points and payouts as docs/rules.md states them.
    under = None if hand.under is None else card_code(hand.under)
    for t in r.tricks:
        codes = [card_code(c) for c in t.cards]
        index = reference.trick_winner(codes, rules.jack_order, under)
        assert t.winner == (t.leader + index) % 5
        assert t.points == reference.points(codes)
    expected = reference.payouts(
        rules,
        picker=r.picker,
        partner=r.partner,
        leaster=r.leaster,
        doubler=r.doubler,
        points=list(r.points),
        tricks_won=list(hand.tricks_won),
        multiplier=stakes,
    )
    assert list(r.payouts) == expected
    if r.leaster:
        assert r.picker is None and rules.no_pick == "leaster"
    else:
        assert r.picker is not None and r.picker_side_points is not None
        assert (r.partner is None) == r.alone
        if r.picker_side_points >= 61:
            assert r.payouts[r.picker] > 0
        else:
            assert r.payouts[r.picker] < 0


@settings(max_examples=150, deadline=None)
@given(**hand_args)
def test_views_never_leak_and_legal_actions_are_exactly_the_accepted_ones(
    stacked: bool, rules: RuleSet, dealer: int, seed: int, multiplier: int, choices: int
) -> None:
    play(rules, dealer, seed, multiplier, choices, check=True, stacked=stacked)


@settings(max_examples=150, deadline=None)
@given(**hand_args, cut=st.integers(0, 40))
def test_export_import_replay_reproduces_the_hand(
    stacked: bool,
    rules: RuleSet,
    dealer: int,
    seed: int,
    multiplier: int,
    choices: int,
    cut: int,
) -> None:
    hand, results = play(rules, dealer, seed, multiplier, choices, check=False, stacked=stacked)
    record = json.loads(json.dumps(export_record(hand)))
    assert replay_record(record) == hand.result().to_dict() == results[-1]
    rebuilt = hand_from_record(record)
    assert rebuilt.actions == hand.actions and rebuilt.deal == hand.deal
    assert rebuilt.rules == hand.rules and rebuilt.multiplier == multiplier
    # An unfinished record replays to the state it stopped at.
    cut = min(cut, len(record["actions"]))
    partial = {**record, "actions": record["actions"][:cut]}
    assert replay_record(partial) == results[cut]
    assert hand_from_record(record, stop_at=cut).result().to_dict() == results[cut]
    if not stacked:
        # A seed-dealt record replays like its explicit deal.
        by_seed = {**record, "deal": {"seed": seed}}
        assert replay_record(by_seed) == results[-1]


@settings(max_examples=25, deadline=None)
@given(
    rules=rule_sets,
    seed=st.integers(0, 2**32),
    hands=st.integers(1, 6),
    choices=st.integers(0, 2**32),
)
def test_match_totals_and_dealer_rotation(
    rules: RuleSet, seed: int, hands: int, choices: int
) -> None:
    rng = random.Random(choices)
    match = Match(rules, seed=seed, hand_limit=hands)
    dealers = []
    while True:
        dealers.append(match.hand.dealer)
        while not match.hand.is_over:
            match.apply(choose(match.hand, rng))
        if match.is_over:
            break
        match.next_hand()
    assert match.hands_played == hands == len(match.records)
    assert dealers == [(match.first_dealer + i) % 5 for i in range(hands)]
    payouts = [r.payouts for r in match.results]
    assert all(p is not None for p in payouts)
    assert match.totals == [sum(p[s] for p in payouts if p is not None) for s in range(5)]
    assert sum(match.totals) == 0
    expected_multiplier = 1
    for record, result in zip(match.records, match.results, strict=True):
        assert record["multiplier"] == result.multiplier == expected_multiplier
        assert replay_record(record) == result.to_dict()
        expected_multiplier = expected_multiplier * 2 if result.doubler else 1
    # Same seed and same actions: the same match.
    again = Match(rules, seed=seed, hand_limit=hands)
    assert again.first_dealer == match.first_dealer
    for record in match.records:
        for data in record["actions"]:
            again.apply(action_from_dict(data))
        if not again.is_over:
            again.next_hand()
    assert again.totals == match.totals
