"""engine.position: the view and legal list at action k of a record."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.bots.base import make_strategy
from engine.hand import Hand
from engine.position import position
from engine.record import export_record
from engine.rules import RuleSet
from engine.view import seat_view

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"


def _random_record(seed: int) -> dict:
    rng = random.Random(seed)
    hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), seed % 5, seed)
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return export_record(hand)


def test_every_recorded_action_is_in_the_legal_list_of_its_position() -> None:
    for seed in range(5):
        record = _random_record(seed)
        for k, action in enumerate(record["actions"]):
            view, legal = position(record, k)
            assert view["seat"] == action["seat"]
            assert action in legal
            assert (
                len(view["tricks"])
                == sum(a["action"] == "play" for a in record["actions"][:k]) // 5
            )


def test_a_strategy_is_unit_tested_in_three_lines() -> None:
    record = json.loads((RECORDS / "complete.json").read_text())
    view, legal = position(record, 1)  # seat 2 decides whether to pick
    assert make_strategy("heuristic", seed=1).choose(view, legal) in legal


def test_another_seat_and_the_end_and_bad_indices() -> None:
    record = _random_record(7)
    last = len(record["actions"])
    view, legal = position(record, 0, seat=4)
    hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), 2, 7)
    assert view == seat_view(hand, 4)
    assert legal == ([] if hand.turn != 4 else view["legal"])
    with pytest.raises(ValueError, match="over"):
        position(record, last)
    assert position(record, last, seat=0)[0]["phase"] == "done"
    with pytest.raises(ValueError, match="not in the record"):
        position(record, last + 1)
