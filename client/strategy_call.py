"""Asking a strategy for a decision, the same way in a tournament and over the network.

A strategy may answer with a legal action exactly as it was given, or in the wire form without
``seat`` (what a ``your_turn`` lists), or with the bury cards in another order: all mean the same
action. A strategy that raises, or answers something that is not legal, is not allowed to stop
the game: the first legal action is played instead and the failure is reported with the file and
line where it happened.

>>> class Broken:
...     name = "broken"
...     def choose(self, view, legal):
...         return {"action": "play", "card": "XX"}
>>> decision = decide(Broken(), {}, [{"seat": 1, "action": "pass"}])
>>> decision.action, decision.fell_back
({'seat': 1, 'action': 'pass'}, True)
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.bots.base import Strategy, action_key

__all__ = ["Decision", "decide", "describe_action", "failure_place", "match_legal"]


@dataclass(frozen=True)
class Decision:
    """What a strategy decided: the action to play (an element of ``legal``) and, when it failed,
    why and where (``error``, ``place`` as ``file:line``)."""

    action: Mapping[str, Any]
    error: str | None = None
    place: str | None = None

    @property
    def fell_back(self) -> bool:
        """Whether the first legal action was played because the strategy failed."""
        return self.error is not None


def match_legal(
    choice: object, legal: Sequence[Mapping[str, Any]], seat: int | None = None
) -> Mapping[str, Any] | None:
    """The element of ``legal`` that ``choice`` means, or None.

    ``seat`` in ``choice`` may be left out; when present it must be the deciding seat's (the
    ``seat`` of the legal actions, or ``seat`` when they carry none).
    """
    if not isinstance(choice, Mapping):
        return None
    if "seat" in choice:
        expected = legal[0].get("seat", seat) if legal else seat
        if expected is not None and choice["seat"] != expected:
            return None
    try:
        wanted = action_key(choice)
    except TypeError:  # unorderable or unhashable values: nothing legal looks like that
        return None
    for action in legal:
        if action_key(action) == wanted:
            return action
    return None


def failure_place(exc: BaseException, strategy: object) -> str:
    """``file:line`` of the failure: the innermost line in the strategy's own source file, or
    the innermost line of all when the strategy's file is not on the stack; an exception that
    knows its own place (a ``place`` string: an outside program's path, whose lines Python
    cannot see) gives that."""
    place = getattr(exc, "place", None)
    if isinstance(place, str) and place:
        return place
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    try:
        source = inspect.getsourcefile(type(strategy))
    except TypeError:
        source = None
    for frame in reversed(frames):
        if source is not None and frame.filename == source:
            return f"{frame.filename}:{frame.lineno}"
    last = frames[-1]
    return f"{last.filename}:{last.lineno}"


def decide(
    strategy: Strategy, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]]
) -> Decision:
    """Ask ``strategy`` to choose; never raises for the strategy's faults (see the module doc)."""
    try:
        choice = strategy.choose(view, legal)
    except Exception as exc:  # a user's strategy may fail in any way: the game goes on
        return Decision(legal[0], f"{type(exc).__name__}: {exc}", failure_place(exc, strategy))
    action = match_legal(choice, legal, view.get("seat"))
    if action is None:
        return Decision(legal[0], f"chose {choice!r}, which is not legal", None)
    return Decision(action)


def describe_action(action: Mapping[str, Any]) -> str:
    """A short text for an action map: ``TD``, ``pick``, ``bury 7H 8S``, ``call AC``...

    >>> describe_action({"action": "play", "card": "TD"}), describe_action({"action": "pass"})
    ('TD', 'pass')
    """
    kind = str(action.get("action"))
    if kind == "play":
        return str(action.get("card"))
    if kind == "bury":
        return "bury " + " ".join(str(c) for c in action.get("cards") or [])
    if kind == "unknown":
        return f"call {action.get('card')} (unknown, under {action.get('under', '?')})"
    if "card" in action:
        return f"{kind} {action['card']}"
    return kind
