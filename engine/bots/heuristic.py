"""``heuristic`` (level: medium): sound human-style play by rules of thumb, instant decisions.

- Picks on trump count and strength (three high trumps, or four trumps with a queen; lighter
  later in the order and as dealer).
- Buries points and voids a fail suit while keeping a hold card; calls the suit it holds the
  fewest cards of; goes alone only with an overwhelming hand.
- The picker's side leads trump; defenders lead the called suit or fail, not trump.
- Schmears points onto a trick its side is sure to win, dumps zero-point cards on one it is
  losing, takes tricks with the cheapest winning card, and in a leaster takes few points.
- Tracks which trumps are out from the tricks in its view.

>>> from engine.actions import action_from_dict
>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=5)
>>> bots = [HeuristicStrategy() for _ in range(5)]
>>> while not hand.is_over:
...     view = seat_view(hand, hand.turn)
...     hand.apply(action_from_dict(bots[hand.turn].choose(view, view["legal"]), hand.turn))
>>> sum(hand.result().payouts or [])
0
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bots.base import ActionMap, View, register
from engine.bots.knowledge import Knowledge, read_view
from engine.bots.policy import NO_CARD, choose_bury, choose_call, choose_play, wants_to_pick
from engine.bots.stakes import choose_stakes
from engine.bots.style import TUNED, V1, Style, style_fields
from engine.cards import Card, parse_card


def play_index(legal: Sequence[ActionMap]) -> dict[Card, int]:
    """Map each legal card to the index of its ``play`` action in ``legal``."""
    return {parse_card(a["card"]): i for i, a in enumerate(legal) if a.get("action") == "play"}


def mask_of(cards: dict[Card, int]) -> int:
    """The mask of a set of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def decide_pick(
    k: Knowledge, legal: Sequence[ActionMap], threshold_shift: float = 0.0, style: Style = TUNED
) -> int:
    """Index of the pick or pass action to take."""
    kinds = [a.get("action") for a in legal]
    if len(legal) == 1:
        return 0
    position = len(k.passes)
    pick = wants_to_pick(k.hand, position, threshold_shift, style, bump=k.rules.double_on_the_bump)
    return kinds.index("pick" if pick else "pass")


def decide_bury(k: Knowledge, legal: Sequence[ActionMap], style: Style = TUNED) -> int:
    """Index of the bury action to take."""
    options = [(parse_card(a["cards"][0]), parse_card(a["cards"][1])) for a in legal]
    return choose_bury(k.hand, options, k.jd_mode, style)


def decide_call(k: Knowledge, legal: Sequence[ActionMap]) -> int:
    """Index of the call, alone or unknown action to take."""
    options = [
        (
            str(a.get("action")),
            parse_card(a["card"]) if "card" in a else NO_CARD,
            parse_card(a["under"]) if "under" in a else NO_CARD,
        )
        for a in legal
    ]
    return choose_call(k.hand, options)


def decide_stakes(k: Knowledge, legal: Sequence[ActionMap]) -> int | None:
    """Index of the blitz, crack or re-crack decision to take (docs/rules.md, "Cracking and
    blitzing"), or None when ``legal`` offers none of them (see :mod:`engine.bots.stakes`)."""
    return choose_stakes(k.hand, k.seat, -1 if k.picker is None else k.picker, legal)


def decide_play(k: Knowledge, legal: Sequence[ActionMap], style: Style = TUNED) -> int:
    """Index of the play action to take."""
    index = play_index(legal)
    card = choose_play(k.situation(mask_of(index), style))
    return index[card]


@register("heuristic", "medium: human-style rules of thumb, instant")
class HeuristicStrategy:
    """Level medium: rule-of-thumb picking, burying, calling and card play (see module).

    Keyword options other than ``seed`` and ``pick_shift`` change one number of its
    :class:`~engine.bots.style.Style` (``heuristic:pick4=6.5``), for tuning by tournament.
    """

    name = "heuristic"
    base_style: Style = TUNED

    def __init__(self, *, seed: int | None = None, pick_shift: float = 0.0, **style: float) -> None:
        del seed  # deterministic: the same view always gets the same answer
        unknown = sorted(set(style) - set(style_fields()))
        if unknown:
            raise TypeError(
                f"unknown option {unknown[0]!r} (choose from {', '.join(style_fields())})"
            )
        self.pick_shift = pick_shift
        self.style = self.base_style.replace(**style) if style else self.base_style

    def choose(self, view: View, legal: Sequence[ActionMap]) -> ActionMap:
        """One element of ``legal`` chosen by the rules of thumb."""
        if len(legal) == 1:
            return legal[0]
        k = read_view(view)
        return legal[decide(k, legal, self.pick_shift, self.style)]


@register("heuristic-v1", "the first heuristic, unchanged: the yardstick for tuning")
class HeuristicV1Strategy(HeuristicStrategy):
    """The rules of thumb with the first version's numbers (:data:`engine.bots.style.V1`)."""

    name = "heuristic-v1"
    base_style = V1


def decide(
    k: Knowledge, legal: Sequence[ActionMap], pick_shift: float = 0.0, style: Style = TUNED
) -> int:
    """Index in ``legal`` of the heuristic's choice for any phase."""
    kind = legal[0].get("action")
    if kind in ("bury", "crack", "no_crack", "recrack"):
        stakes = decide_stakes(k, legal)
        if stakes is not None:
            return stakes
    if kind in ("pick", "pass"):
        return decide_pick(k, legal, pick_shift, style)
    if kind == "bury":
        return decide_bury(k, legal, style)
    if kind in ("call", "alone", "unknown"):
        return decide_call(k, legal)
    return decide_play(k, legal, style)


__all__ = ["HeuristicStrategy", "HeuristicV1Strategy", "decide"]
