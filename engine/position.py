"""A position from a hand record, to unit-test a strategy on exactly that decision.

A hand saved by ``sheepshead tournament --save-hands`` or ``sheepshead bot --save-hands`` (or
exported from the client) is a ``sheepshead-hand/1`` record (docs/hand-record.md).
:func:`position` gives what the seat to act saw before action ``k``, the same view and legal
list a strategy is called with, so a test is three lines::

    record = json.load(open("hands/deal0015-seating04.json"))
    view, legal = position(record, 12)
    assert MyStrategy().choose(view, legal)["card"] != "AS"

>>> from engine.hand import Hand
>>> from engine.record import export_record
>>> from engine.rules import RuleSet
>>> hand = Hand.from_seed(RuleSet(), 0, 11)
>>> for _ in range(3):
...     hand.apply(hand.legal_actions()[-1])
>>> view, legal = position(export_record(hand), 2)
>>> view["seat"], view["passes"], legal
(3, [1, 2], [{'seat': 3, 'action': 'pick'}, {'seat': 3, 'action': 'pass'}])
"""

from __future__ import annotations

from typing import Any

from engine.actions import Seat
from engine.record import hand_from_record
from engine.view import seat_view


def position(
    record: object, k: int, seat: Seat | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The view and legal actions before action ``k`` (counting from 0) of ``record``.

    The view is the seat to act's (or ``seat``'s: its legal list is empty when it is not its
    turn), as :func:`engine.view.seat_view` builds it for a strategy; the legal actions carry
    ``seat`` as in a tournament (over the network they come without it; strategies may answer
    in either form). ``k`` may be the number of actions, for the state after the last one.

    Raises :class:`engine.record.RecordError` for a record that does not replay up to ``k``, and
    ValueError for a ``k`` outside it or a hand that is over by then with no ``seat`` given.
    """
    actions = record.get("actions", []) if isinstance(record, dict) else []
    count = len(actions) if isinstance(actions, list) else 0
    if not 0 <= k <= count:
        raise ValueError(f"action {k} is not in the record: it has actions 0 to {count - 1}")
    hand = hand_from_record(record, stop_at=k)
    if seat is None:
        seat = hand.turn
        if seat is None:
            raise ValueError(f"the hand is over before action {k}: nobody is to act")
    view = seat_view(hand, seat)
    return view, list(view["legal"])
