"""Bot strategies: a seat's view and its legal actions in, one of those actions out.

A strategy sees exactly what a player at that seat sees (the map of :func:`engine.view.seat_view`)
and the legal actions as wire maps, so the same code plays in-process in the server and over TCP
in the bot runner, and can never cheat.

Levels: ``random`` (easy), ``heuristic`` (medium), ``search`` (hard); the level names ``easy``,
``medium`` and ``hard`` are registered as aliases.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=3)
>>> bot = make_strategy("random", seed=1)
>>> view = seat_view(hand, hand.turn)
>>> bot.choose(view, view["legal"]) in view["legal"]
True
>>> sorted(name for name in strategy_names() if name in ("random", "heuristic", "search"))
['heuristic', 'random', 'search']
"""

from __future__ import annotations

from engine.bots.base import STRATEGIES, Strategy, make_strategy, register, strategy_names
from engine.bots.heuristic import HeuristicStrategy
from engine.bots.random_bot import RandomStrategy
from engine.bots.search import SearchStrategy

register("easy", "alias of random")(RandomStrategy)
register("medium", "alias of heuristic")(HeuristicStrategy)
register("hard", "alias of search")(SearchStrategy)

__all__ = [
    "STRATEGIES",
    "HeuristicStrategy",
    "RandomStrategy",
    "SearchStrategy",
    "Strategy",
    "make_strategy",
    "register",
    "strategy_names",
]
