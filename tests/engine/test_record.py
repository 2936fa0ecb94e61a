"""Hand records (docs/hand-record.md): export, import, replay and every way a record can be bad."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Deal, RecordError, export_record, hand_from_record, replay_record
from engine.record import describe_record
from tests.engine.helpers import CALLED_ACE_BLIND, CALLED_ACE_HANDS, act, new_hand

# On the called-ace deal: seat 1 passes, seat 2 picks, buries 7S 8S and calls AC; two tricks
# and a card.
WORDS = ("pass", "pick", "bury 7S 8S", "call AC", "AH", "9D", "QD", "JS", "JH", "AC")


def record() -> dict[str, Any]:
    hand = new_hand(
        CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0, preset="wisconsin", unknown_card=True
    )
    return export_record(act(hand, *WORDS))


def test_export_format() -> None:
    rec = record()
    assert list(rec) == ["format", "rules", "dealer", "multiplier", "deal", "actions"]
    assert rec["format"] == "sheepshead-hand/1"
    assert rec["rules"] == {"preset": "wisconsin", "unknown_card": True}
    assert rec["dealer"] == 0 and rec["multiplier"] == 1
    assert [set(h) for h in rec["deal"]["hands"]] == [set(h.split()) for h in CALLED_ACE_HANDS]
    assert set(rec["deal"]["blind"]) == {"KD", "9D"}
    assert rec["actions"][:4] == [
        {"seat": 1, "action": "pass"},
        {"seat": 2, "action": "pick"},
        {"seat": 2, "action": "bury", "cards": ["7S", "8S"]},
        {"seat": 2, "action": "call", "card": "AC"},
    ]
    assert rec["actions"][4] == {"seat": 1, "action": "play", "card": "AH"}
    assert len(rec["actions"]) == len(WORDS)
    assert json.loads(json.dumps(rec)) == rec


def test_import_rebuilds_the_same_state() -> None:
    rec = record()
    hand = hand_from_record(rec)
    assert hand.picker == 2 and hand.partner == 3 and hand.partner_revealed
    assert hand.trick_number == 1 and hand.turn == 4
    assert export_record(hand) == rec
    early = hand_from_record(rec, stop_at=3)
    assert early.phase == "call" and early.turn == 2


def test_defaults_of_a_minimal_record() -> None:
    # No format, rules, dealer, multiplier or actions: seed rules, dealer 0, stakes 1.
    minimal = {
        "deal": {"hands": [h.split() for h in CALLED_ACE_HANDS], "blind": CALLED_ACE_BLIND.split()}
    }
    hand = hand_from_record(minimal)
    assert hand.rules.to_dict() == {"preset": "seed"}
    assert hand.dealer == 0 and hand.multiplier == 1 and hand.actions == []


def test_seed_deal() -> None:
    hand = hand_from_record({"dealer": 3, "deal": {"seed": 12345}})
    assert hand.deal == Deal.from_seed(3, 12345)


def bad(rec: Any, code: str, index: int | None, contains: str = "") -> None:
    with pytest.raises(RecordError) as info:
        replay_record(rec)
    err = info.value
    assert (err.code, err.action) == (code, index), err.message
    assert contains in err.message
    assert err.to_dict() == {"error": {"code": code, "action": index, "message": err.message}}


def with_(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    rec = record()
    node: Any = rec
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return rec


DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "code", "index"),
    [
        (("format",), "sheepshead-hand/2", "bad_record", None),
        (("rules",), {"preset": "bavarian"}, "bad_record", None),
        (("rules",), {"cracking": "yes"}, "bad_record", None),
        (("rules",), {"crack_by": "everyone"}, "bad_record", None),
        (("rules",), {"jack_order": "hearts-first"}, "bad_record", None),
        (("rules",), {1: True}, "bad_record", None),
        (("rules",), "seed", "bad_record", None),
        (("dealer",), 5, "bad_record", None),
        (("dealer",), "0", "bad_record", None),
        (("dealer",), True, "bad_record", None),
        (("multiplier",), 0, "bad_record", None),
        (("deal",), DELETE, "bad_record", None),
        (("deal",), [], "bad_record", None),
        (("deal",), {"seed": "7"}, "bad_record", None),
        (("deal",), {"seed": -1}, "bad_record", None),
        (("deal", "hands"), DELETE, "bad_record", None),
        (("deal", "hands", 0, 0), "XX", "bad_card", None),
        (("deal", "hands", 0, 0), 10, "bad_card", None),
        (("deal", "hands", 0, 0), "AH", "bad_record", None),  # a card dealt twice
        (("deal", "hands", 0), ["JH", "AD", "8C", "TS", "KS"], "bad_record", None),
        (("deal", "hands", 4), "TD JS JC KC 9C AS", "bad_record", None),
        (("deal", "blind"), ["KD"], "bad_record", None),
        (("actions",), {}, "bad_record", None),
        (("actions", 2), "bury", "bad_record", 2),
        (("actions", 2, "cards"), ["7S", "7X"], "bad_card", 2),
        (("actions", 3, "card"), "A♣", "bad_card", 3),
        (("actions", 1, "action"), "take", "bad_record", 1),
        (("actions", 1, "seat"), 9, "bad_record", 1),
        (("actions", 0, "seat"), 2, "not_your_turn", 0),
        (("actions", 3, "card"), "AS", "illegal_call", 3),
        (("actions", 4, "card"), "QC", "illegal_card", 4),
        (("actions", 5, "card"), "7C", "hold_card_required", 5),
        (("actions", 9, "card"), "TC", "called_suit_restricted", 9),
        (("actions", 2, "cards"), ["7S", "7S"], "illegal_bury", 2),
    ],
)
def test_bad_records(path: tuple[Any, ...], value: Any, code: str, index: int | None) -> None:
    bad(with_(path, value), code, index)


def test_bad_record_shapes() -> None:
    bad([], "bad_record", None)
    bad("record", "bad_record", None)
    bad(None, "bad_record", None)
    rec = record()
    # Seat 3 led AC; seat 4 holds KC and 9C.
    rec["actions"].append({"seat": 4, "action": "play", "card": "AS"})
    bad(rec, "must_follow_suit", len(WORDS), "You must follow clubs")


def test_actions_after_the_end() -> None:
    hand = new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0, no_pick="doubler")
    rec = export_record(act(hand, *["pass"] * 5))
    rec["actions"].append({"seat": 1, "action": "pass"})
    bad(rec, "hand_over", 5)


FIELD_NAMES = ["seed", "hands", "blind", "seat", "action", "card", "cards", "under", "preset"]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.sampled_from(["QC", "7S", "AH", "pass", "play", "bury", "seed", "JD", ""])
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6), inner)
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(value=JSON, choices=st.lists(st.integers(0, 1000), min_size=1, max_size=5))
def test_any_mangled_record_is_replayed_or_rejected_never_crashes(
    value: Any, choices: list[int]
) -> None:
    rec = record()
    mangled = copy.deepcopy(rec)
    node: Any = mangled
    # Walk down a path chosen by ``choices`` and replace (or delete) what is there; a choice
    # divisible by 3 stops the walk early, so whole sections get replaced too.
    for i, choice in enumerate(choices):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = keys[choice % len(keys)]
        child = node[key]
        last = i == len(choices) - 1 or choice % 3 == 0
        if last or not isinstance(child, dict | list) or not child:
            if choice % 7 == 0 and isinstance(node, dict):
                del node[key]
            else:
                node[key] = value
            break
        node = child
    try:
        line = replay_record(mangled)
    except RecordError as err:
        assert err.code in ERROR_CODES
        assert isinstance(err.message, str) and err.message
        assert err.action is None or 0 <= err.action < len(mangled.get("actions", []))
    else:
        assert set(line) >= {"complete", "points", "payouts"}


def replayed_or_rejected(rec: Any) -> None:
    try:
        replay_record(rec)
    except RecordError as err:
        assert err.code in ERROR_CODES and err.message


ERROR_CODES = {
    "bad_record",
    "bad_card",
    "not_your_turn",
    "illegal_action",
    "illegal_card",
    "must_follow_suit",
    "hold_card_required",
    "called_card_required",
    "called_card_held",
    "called_suit_restricted",
    "unknown_card_required",
    "unknown_card_held",
    "illegal_bury",
    "illegal_call",
    "must_pick",
    "hand_over",
}


@settings(max_examples=300, deadline=None)
@given(value=JSON, where=st.integers(0, 9))
def test_any_value_in_any_field_is_replayed_or_rejected(value: Any, where: int) -> None:
    deal = {"hands": [h.split() for h in CALLED_ACE_HANDS], "blind": CALLED_ACE_BLIND.split()}
    pick = [{"seat": 1, "action": "pick"}]
    rec: dict[str, Any] = [
        {"deal": {"seed": value}},
        {"deal": deal, "rules": value},
        {"deal": deal, "rules": {"preset": value}},
        {"deal": deal, "rules": {"unknown_card": value}},
        {"deal": deal, "dealer": value},
        {"deal": deal, "multiplier": value},
        {"deal": deal, "actions": [value]},
        {"deal": deal, "actions": [*pick, {"seat": 1, "action": "bury", "cards": value}]},
        {"deal": {"hands": value, "blind": ["KD", "9D"]}},
        {"deal": deal, "actions": [{"seat": 1, "action": "play", "card": value}]},
    ][where]
    replayed_or_rejected(rec)


def test_describe_record_mentions_every_trick() -> None:
    hand = new_hand(CALLED_ACE_HANDS, CALLED_ACE_BLIND, dealer=0)
    act(hand, "pass", "pick", "bury 7S 8S", "call AC")
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    text = describe_record(export_record(hand))
    for i, trick in enumerate(hand.tricks, 1):
        assert f"Trick {i}:" in text
        assert f"seat {trick.winner} takes {trick.points}" in text
    assert "Seat 2 picks" in text and "Seat 2 calls AC" in text
    assert f"Payouts: {list(hand.result().payouts or [])}" in text
