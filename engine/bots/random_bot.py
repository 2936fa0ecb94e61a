"""``random``: a uniformly random legal action, the baseline every strategy must beat."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.bots.base import ActionMap, View, register


@register("random", "a uniformly random legal action (the baseline)")
class RandomStrategy:
    """Picks uniformly among the legal actions."""

    name = "random"

    def __init__(self, *, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View, legal: Sequence[ActionMap]) -> ActionMap:
        """A uniformly random element of ``legal``."""
        del view
        return self._rng.choice(legal)
