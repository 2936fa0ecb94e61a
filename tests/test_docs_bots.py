"""docs/bots.md describes the view a strategy gets: every field, and a complete example view."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view

BOTS_MD = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def test_the_example_view_and_the_field_table_match_seat_view() -> None:
    text = BOTS_MD.read_text(encoding="utf-8")
    keys = set(seat_view(Hand.from_seed(RuleSet(), 0, 1), 2))
    after = text.split("One complete view", 1)[1]
    block = re.search(r"```json\n(.*?)```", after, re.S)
    assert block is not None
    example = json.loads(block.group(1))
    assert set(example) == keys
    assert set(example["rules"]) == set(seat_view(Hand.from_seed(RuleSet(), 0, 1), 2)["rules"])
    table = text.split("**`view`** is your seat's view", 1)[1].split("One complete view", 1)[0]
    documented = set()
    for row in re.findall(r"^\| (`[^|]*`) \|", table, re.M):
        documented |= set(re.findall(r"`(\w+)`", row))
    assert documented == keys
