"""A strategy of your own in a few lines; run it with ``sheepshead bot HOST --strategy PATH``.

A strategy file defines a class with ``choose(view, legal)``: ``view`` is everything your seat
can see (the map described in docs/bots.md), ``legal`` the actions you may take now; return one
element of ``legal``. The constructor may take a ``seed`` keyword (and any options you pass as
``my_strategy.py:key=value``). Try it against the built-in bots:

    sheepshead tournament --strategies examples/my_strategy.py,heuristic --deals 200
"""

from __future__ import annotations

import random
from typing import Any

TRUMP_ORDER = ["QC", "QS", "QH", "QD", "JS", "JC", "JH", "JD", "AD", "TD", "KD", "9D", "8D", "7D"]
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


def is_trump(card: str) -> bool:
    """Queens, jacks and diamonds are trump."""
    return card[0] in "QJ" or card[1] == "D"


def points(card: str) -> int:
    """Card points: A 11, T 10, K 4, Q 3, J 2, others 0."""
    return POINTS.get(card[0], 0)


class MyStrategy:
    """Pick with four trumps, lead trump as picker, otherwise give away as little as possible."""

    name = "my-strategy"

    def __init__(self, seed: int | None = None, pick_trumps: int = 4) -> None:
        self.rng = random.Random(seed)
        self.pick_trumps = pick_trumps

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        """One of ``legal``."""
        kinds = [a["action"] for a in legal]
        if "pick" in kinds and "pass" in kinds:
            trumps = sum(is_trump(c) for c in view["hand"])
            return legal[kinds.index("pick" if trumps >= self.pick_trumps else "pass")]
        if kinds[0] == "bury":  # bury the most points that are not trump
            return max(legal, key=lambda a: sum(points(c) - 20 * is_trump(c) for c in a["cards"]))
        if kinds[0] != "play":  # call: the first legal call (alone comes last)
            return legal[0]
        cards = {a["card"]: a for a in legal}
        trumps = [c for c in cards if is_trump(c)]
        if not view["trick"]["cards"] and view["picker"] == view["seat"] and trumps:
            return cards[min(trumps, key=TRUMP_ORDER.index)]  # lead the highest trump
        return cards[min(cards, key=lambda c: (points(c), is_trump(c), self.rng.random()))]
