"""Whether a bury would leave the picker with nothing to call (so alone), asked of the engine.

The client knows no rules of its own: this replays the picker's side of the hand with the
engine (the picker's eight cards are all the call depends on; the other seats get the rest of
the deck in any order) and looks at the calls the engine would then offer.

>>> from engine.rules import RuleSet
>>> hand = ["QC", "QS", "JD", "AD", "KC", "KH", "7D", "8D"]
>>> forces_alone(hand, ["7D", "8D"], ["KC", "KH"], RuleSet().to_dict(), seat=0)
True
>>> forces_alone(hand, ["7D", "8D"], ["7D", "8D"], RuleSet().to_dict(), seat=0)
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from engine.actions import action_from_dict
from engine.cards import CARD_CODES
from engine.errors import SheepsheadError
from engine.hand import Deal, Hand
from engine.rules import RuleSet


def _calls_after(
    hand: Sequence[str], blind: Sequence[str], bury: Sequence[str], rules: RuleSet, seat: int
) -> bool | None:
    """Whether a partner call is possible after burying ``bury`` (None: cannot tell)."""
    rest = [c for c in CARD_CODES if c not in hand]
    own = [c for c in hand if c not in blind]
    if len(own) != 6 or len(rest) != 24 or len(blind) != 2:
        return None
    hands: list[list[str]] = []
    others = iter(range(0, 24, 6))
    for s in range(5):
        if s == seat:
            hands.append(list(own))
        else:
            start = next(others)
            hands.append(rest[start : start + 6])
    try:
        game = Hand(rules, (seat - 1) % 5, Deal.from_codes(hands, blind))
        game.apply(action_from_dict({"action": "pick"}, seat=seat))
        game.apply(action_from_dict({"action": "bury", "cards": list(bury)}, seat=seat))
    except (SheepsheadError, ValueError):
        return None
    return any(a.to_dict()["action"] != "alone" for a in game.legal_actions())


def forces_alone(
    hand: Sequence[str],
    blind: Sequence[str],
    bury: Sequence[str],
    rules_map: Mapping[str, Any],
    seat: int,
) -> bool:
    """Whether burying ``bury`` leaves nothing to call while another bury would not."""
    try:
        rules = RuleSet.from_dict(rules_map)
    except SheepsheadError:
        return False
    if _calls_after(hand, blind, bury, rules, seat) is not False:
        return False
    return any(_calls_after(hand, blind, pair, rules, seat) for pair in combinations(hand, 2))
