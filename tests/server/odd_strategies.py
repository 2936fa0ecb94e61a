"""Misbehaving strategies for the bot pool's tests, loaded with ``bot_modules``.

The server and each bot worker import this module (``ServerConfig.bot_modules``), so the
strategies exist where they run: in the worker processes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.bots import register

MODULE = __name__
"""What to put in ``bot_modules``."""

MARK_VARIABLE = "SHEEPSHEAD_ODD_MARK"
"""Environment variable naming a file ``odd_sleeps`` creates when it starts thinking."""


def _first_card(view: Any, legal: Sequence[Any]) -> bool:
    # Every seat plays a first card in every hand (not every seat bids).
    return legal[0].get("action") == "play" and len(view.get("hand") or ()) == 6


class _Odd:
    name = "odd"

    def __init__(self, *, seed: int | None = None) -> None:
        del seed


@register("odd_hangs", "never chooses its first card of a hand")
class Hangs(_Odd):
    """Hangs over its first card of a hand: only the pool's budget gets the table going."""

    name = "odd_hangs"

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """Sleep for good on its first card, else the first legal action."""
        if _first_card(view, legal):
            while True:
                time.sleep(60)
        return legal[0]


@register("odd_raises", "raises every time")
class Raises(_Odd):
    """A strategy with a bug."""

    name = "odd_raises"

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """Raise."""
        raise RuntimeError("this bot is broken")


@register("odd_exits", "ends its process on its first card of a hand")
class Exits(_Odd):
    """Takes its worker process down with it on its first card."""

    name = "odd_exits"

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """``os._exit`` on its first card, else the first legal action."""
        if _first_card(view, legal):
            os._exit(3)
        return legal[0]


@register("odd_sleeps", "marks a file, then thinks for a minute, on its first card of a hand")
class Sleeps(_Odd):
    """Thinks long enough over its first card of a hand for a test to kill its worker meanwhile."""

    name = "odd_sleeps"

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        """Touch ``$SHEEPSHEAD_ODD_MARK`` and sleep on a first card, else the first legal action."""
        if _first_card(view, legal):
            mark = os.environ.get(MARK_VARIABLE)
            if mark:
                Path(mark).write_text(str(os.getpid()))
            time.sleep(60)
        return legal[0]
