"""What each seat's view shows and hides (engine.view.seat_view)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import Hand, card_code, parse_card, seat_view
from engine.cards import JackOrder, sorted_cards
from engine.rules import OPTION_NAMES, RuleSet
from tests.engine.helpers import (
    CALLED_ACE_BLIND,
    CALLED_ACE_HANDS,
    UNKNOWN_CARD_BLIND,
    UNKNOWN_CARD_HANDS,
    act,
    new_hand,
    random_states,
    rule_variants,
    rules,
)

SEATS = (0, 1, 2, 3, 4)
VIEWERS: tuple[int | None, ...] = (*SEATS, None)


def fresh() -> Hand:
    return new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0)


def views(hand: Hand) -> dict[int | None, dict[str, Any]]:
    return {v: seat_view(hand, v) for v in VIEWERS}


def test_each_seat_sees_only_its_own_hand() -> None:
    hand = fresh()
    for seat, v in views(hand).items():
        if seat is None:
            assert v["hand"] == []
        else:
            assert set(v["hand"]) == set(CALLED_ACE_HANDS[seat].split())
        assert v["seat"] == seat
        assert v["hand_sizes"] == [6, 6, 6, 6, 6]
        assert v["blind"] is None and v["buried"] is None and v["reveal"] is None
        assert v["result"] is None
    # Only the seat to act is offered actions.
    assert [v for v, view in views(hand).items() if view["legal"]] == [1]
    assert seat_view(hand, 1)["legal"] == [
        {"seat": 1, "action": "pick"},
        {"seat": 1, "action": "pass"},
    ]


def test_blind_only_to_the_picker_once_picked() -> None:
    hand = fresh()
    act(hand, "pass")
    # Seat 2 may pick, but has not seen the blind yet.
    assert seat_view(hand, 2)["blind"] is None
    act(hand, "pick")
    vs = views(hand)
    assert set(vs[2]["blind"]) == {"KD", "9D"}
    assert set(vs[2]["hand"]) == set(CALLED_ACE_HANDS[2].split()) | {"KD", "9D"}
    for v in (0, 1, 3, 4, None):
        assert vs[v]["blind"] is None
        assert vs[v]["picker"] == 2
        assert vs[v]["hand_sizes"] == [6, 6, 8, 6, 6]


def test_bury_only_to_the_picker_until_the_end() -> None:
    hand = fresh()
    act(hand, "pass", "pick", "bury 7S 8S")
    vs = views(hand)
    assert set(vs[2]["buried"]) == {"7S", "8S"}
    for v in (0, 1, 3, 4, None):
        assert vs[v]["buried"] is None


def test_partner_known_only_to_the_partner_until_the_called_card_is_played() -> None:
    hand = fresh()
    act(hand, "pass", "pick", "bury 7S 8S", "call AC")
    vs = views(hand)
    assert vs[3]["partner"] == 3 and vs[3]["partner_known"]
    # Nobody else knows, the picker included; everybody knows what was called.
    for v in (0, 1, 2, 4, None):
        assert vs[v]["partner"] is None and not vs[v]["partner_known"]
    for v in VIEWERS:
        assert vs[v]["called"] == "AC" and not vs[v]["alone"]
    # Trick 1: AH, 9D, QD (seat 3 wins), JS, JH; seat 3 leads AC.
    act(hand, "AH", "9D", "QD", "JS", "JH")
    assert seat_view(hand, 2)["partner"] is None
    act(hand, "AC")
    for v in VIEWERS:
        assert seat_view(hand, v)["partner"] == 3
        assert seat_view(hand, v)["partner_known"]


def test_views_follow_the_trick_in_progress() -> None:
    hand = fresh()
    act(hand, "pass", "pick", "bury 7S 8S", "call AC", "AH", "9D")
    for v in VIEWERS:
        view = seat_view(hand, v)
        assert view["trick"] == {
            "leader": 1,
            "cards": [{"seat": 1, "card": "AH"}, {"seat": 2, "card": "9D"}],
        }
        assert view["turn"] == 3 and view["phase"] == "play"
        assert view["tricks"] == []
    act(hand, "QD", "JS", "JH")
    for v in VIEWERS:
        view = seat_view(hand, v)
        assert view["tricks"] == [
            {"leader": 1, "cards": ["AH", "9D", "QD", "JS", "JH"], "winner": 3, "points": 18}
        ]
        assert view["trick"] == {"leader": 3, "cards": []}
        assert view["trick_points"] == [0, 0, 0, 18, 0]
        assert view["tricks_won"] == [0, 0, 0, 1, 0]


def test_under_card_only_to_the_picker() -> None:
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=0, unknown_card=True)
    act(hand, "pick", "bury AD TD", "unknown AC JC")
    vs = views(hand)
    assert vs[1]["under"] == "JC" and "JC" in vs[1]["hand"]
    for v in VIEWERS:
        assert vs[v]["unknown"] is True and vs[v]["called"] == "AC"
    for v in (0, 2, 3, 4, None):
        assert vs[v]["under"] is None
    # Seat 0 holds AC: it is the partner and knows it.
    assert vs[0]["partner"] == 0
    assert vs[1]["partner"] is None


def play_out(hand: Hand) -> None:
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])


def test_everything_is_revealed_at_the_end() -> None:
    hand = fresh()
    act(hand, "pass", "pick", "bury 7S 8S", "call AC")
    play_out(hand)
    result = hand.result().breakdown()
    for v in VIEWERS:
        view = seat_view(hand, v)
        assert view["phase"] == "done" and view["turn"] is None and view["legal"] == []
        reveal = view["reveal"]
        assert set(reveal) == {"hands", "blind", "buried"}
        assert [set(h) for h in reveal["hands"]] == [set(h.split()) for h in CALLED_ACE_HANDS]
        assert set(reveal["blind"]) == {"KD", "9D"}
        assert set(reveal["buried"]) == {"7S", "8S"}
        for listed in [*reveal["hands"], reveal["blind"], reveal["buried"]]:
            assert listed == display_order(listed)
        assert set(view["buried"]) == {"7S", "8S"}
        assert set(view["blind"]) == {"KD", "9D"}
        assert view["partner"] == 3 and view["partner_known"]
        assert view["result"] == result
    assert seat_view(hand, None)["hand"] == []


def display_order(codes: list[str]) -> list[str]:
    return [card_code(c) for c in sorted_cards(parse_card(x) for x in codes)]


def test_under_revealed_at_the_end() -> None:
    hand = new_hand(UNKNOWN_CARD_HANDS, UNKNOWN_CARD_BLIND, dealer=0, unknown_card=True)
    act(hand, "pick", "bury AD TD", "unknown AC JC")
    play_out(hand)
    for v in VIEWERS:
        assert seat_view(hand, v)["under"] == "JC"


def test_leaster_blind_hidden_from_all_until_the_end() -> None:
    hand = fresh()
    act(hand, *["pass"] * 5)
    for v in VIEWERS:
        view = seat_view(hand, v)
        assert view["leaster"] and view["blind"] is None and view["picker"] is None
    play_out(hand)
    for v in VIEWERS:
        assert set(seat_view(hand, v)["blind"]) == {"KD", "9D"}


def test_display_order_is_trump_then_fail() -> None:
    hand = fresh()
    assert seat_view(hand, 4)["hand"] == ["JS", "JC", "TD", "KC", "9C", "AS"]
    hand = new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0, jack_order="clubs-first")
    assert seat_view(hand, 4)["hand"] == ["JC", "JS", "TD", "KC", "9C", "AS"]
    shown = seat_view(hand, 4)["rules"]
    assert shown == {"preset": "seed", **RuleSet(jack_order="clubs-first").options()}
    assert shown["jack_order"] == "clubs-first" and shown["no_pick"] == "leaster"


def test_view_rules_carry_every_option_even_the_preset_s_own() -> None:
    hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), 0, 1)
    shown = seat_view(hand, 0)["rules"]
    assert set(shown) == {"preset", *OPTION_NAMES}
    assert shown["jack_order"] == "clubs-first" and shown["double_on_the_bump"] is True


@given(st.integers(0, 2**32 - 1), st.sampled_from(["seed", "clubs-first"]))
def test_codes_of_lists_a_mask_sorted_for_display(mask: int, order: JackOrder) -> None:
    from engine.cards import cards_in, codes_of

    assert codes_of(mask, order) == [card_code(c) for c in sorted_cards(cards_in(mask), order)]


def _reference_private_fields(hand: Hand, seat: int | None) -> dict[str, Any]:
    """private_fields written the plain way: the public values, then the seat's own overrides."""
    from engine.cards import codes_of
    from engine.view import PRIVATE_KEYS, public_view

    public = public_view(hand)
    fields = {key: public[key] for key in PRIVATE_KEYS}
    if seat is None:
        return fields
    order = hand.rules.jack_order
    fields["seat"] = seat
    fields["hand"] = codes_of(hand.hands[seat], order)
    if hand.phase == "done":
        return fields
    if seat == hand.picker:
        fields["blind"] = codes_of(hand.blind, order)
        if hand.phase not in ("pick", "bury"):
            fields["buried"] = codes_of(hand.buried, order)
        if hand.under is not None:
            fields["under"] = card_code(hand.under)
    if seat == hand.partner:
        fields["partner"] = seat
        fields["partner_known"] = True
    if seat == hand.turn:
        fields["legal"] = [a.to_dict() for a in hand.legal_actions()]
    return fields


def test_private_fields_match_the_plain_construction_in_every_state() -> None:
    from engine.view import private_fields

    states = 0
    for _, hand in random_states(rule_variants(), deals=120, seed=5):
        for viewer in VIEWERS:
            assert private_fields(hand, viewer) == _reference_private_fields(hand, viewer)
        states += 1
    assert states > 120 * 20


def test_shared_fields_are_the_view_without_the_private_keys_in_every_state() -> None:
    from engine.view import PRIVATE_KEYS, private_fields, public_view, shared_fields

    for _, hand in random_states(rule_variants(), deals=30, seed=11):
        shared = shared_fields(hand)
        assert not set(shared) & set(PRIVATE_KEYS)
        public = public_view(hand)
        assert set(public) == set(shared) | set(PRIVATE_KEYS)
        assert {k: public[k] for k in shared} == shared
        for viewer in VIEWERS:
            assert seat_view(hand, viewer) == {**shared, **private_fields(hand, viewer)}


def test_shared_parts_make_up_the_shared_fields() -> None:
    from engine.view import OUTCOME_PART, SHARED_PARTS, shared_fields, shared_part

    assert SHARED_PARTS[OUTCOME_PART] == ("result", "reveal")
    for _, hand in random_states(rule_variants(), deals=40, seed=13):
        joined: dict[str, Any] = {}
        for part, names in enumerate(SHARED_PARTS):
            fields = shared_part(hand, part)
            assert tuple(fields) == names
            joined.update(fields)
        assert joined == shared_fields(hand)


def test_a_view_is_the_same_as_one_of_the_same_state_built_from_scratch() -> None:
    from engine.view import public_view

    variants = [rules("wisconsin"), rules("seed")]
    for _, hand in random_states(variants, deals=40, seed=3):
        fresh = Hand(hand.rules, hand.dealer, hand.deal)
        for action in hand.actions:
            fresh.apply(action)
        assert public_view(hand) == public_view(fresh)
        assert seat_view(hand, hand.turn) == seat_view(fresh, fresh.turn)
