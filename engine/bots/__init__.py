"""Bot strategies: a seat's view and its legal actions in, one of those actions out.

A strategy sees exactly what a player at that seat sees (the map of :func:`engine.view.seat_view`)
and the legal actions as wire maps, so the same code plays in-process in the server and over TCP
in the bot runner, and can never cheat.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=3)
>>> bot = make_strategy("random", seed=1)
>>> view = seat_view(hand, hand.turn)
>>> bot.choose(view, view["legal"]) in view["legal"]
True
"""

from __future__ import annotations

from engine.bots.base import STRATEGIES, Strategy, make_strategy, register, strategy_names
from engine.bots.random_bot import RandomStrategy

__all__ = [
    "STRATEGIES",
    "RandomStrategy",
    "Strategy",
    "make_strategy",
    "register",
    "strategy_names",
]
