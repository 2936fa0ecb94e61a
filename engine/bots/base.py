"""The strategy interface and the registry of strategies by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

View = Mapping[str, Any]
"""A seat's view: the map built by :func:`engine.view.seat_view` (or received on the wire)."""

ActionMap = Mapping[str, Any]
"""An action as a wire map, e.g. ``{"seat": 1, "action": "play", "card": "QC"}``."""


def action_key(action: ActionMap) -> tuple[tuple[str, Any], ...]:
    """What makes two action maps the same action: every field but ``seat``, with a bury's
    cards in any order. Raises TypeError for values that cannot be compared or hashed.

    >>> bury = {"seat": 2, "action": "bury", "cards": ["7H", "8S"]}
    >>> action_key(bury) == action_key({"action": "bury", "cards": ["8S", "7H"]})
    True
    """
    items = []
    for name, value in action.items():
        if name == "seat":
            continue
        if name == "cards" and isinstance(value, list | tuple):
            value = tuple(sorted(str(c) for c in value))
        elif isinstance(value, list):
            value = tuple(value)
        items.append((name, value))
    return tuple(sorted(items))


@runtime_checkable
class Strategy(Protocol):
    """Chooses one of the legal actions from what its seat can see."""

    name: str

    def choose(self, view: View, legal: Sequence[ActionMap]) -> ActionMap:
        """Return one element of ``legal``."""
        ...


StrategyFactory = Callable[..., Strategy]
"""Builds a strategy; accepts at least the keyword ``seed`` (an int or None)."""

STRATEGIES: dict[str, tuple[StrategyFactory, str]] = {}
"""Registered strategies: name -> (factory, one-line description)."""


def register(name: str, description: str) -> Callable[[StrategyFactory], StrategyFactory]:
    """Class decorator: make a strategy available by name wherever bots are chosen."""

    def decorate(factory: StrategyFactory) -> StrategyFactory:
        STRATEGIES[name] = (factory, description)
        return factory

    return decorate


def strategy_names() -> list[str]:
    """Names of every registered strategy."""
    _load_builtin()
    return list(STRATEGIES)


def make_strategy(
    name: str,
    *,
    seed: int | None = None,
    clock: Callable[[], float] | None = None,
    think_time: float | None = None,
    **options: Any,
) -> Strategy:
    """A new strategy by name; raises ValueError naming the choices for an unknown name.

    ``clock`` (a function returning seconds) and ``think_time`` bound each decision of a
    strategy that thinks for long (one whose class sets ``timed = True``) to ``think_time``
    seconds on that clock; other strategies ignore them. Without a clock every strategy's
    effort is a count, so its play does not depend on the machine.
    """
    _load_builtin()
    try:
        factory, _ = STRATEGIES[name]
    except KeyError:
        choices = ", ".join(STRATEGIES)
        raise ValueError(f"unknown bot strategy {name!r} (choose from {choices})") from None
    if clock is not None and getattr(factory, "timed", False):
        options["clock"] = clock
        if think_time is not None:
            options["think_time"] = think_time
    return factory(seed=seed, **options)


def _load_builtin() -> None:
    # Importing the package registers the built-in strategies.
    import engine.bots  # noqa: F401
