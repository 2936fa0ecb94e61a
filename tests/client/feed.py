"""Engine-built server messages for client tests and the client benchmark.

:class:`EngineTable` runs a real :class:`engine.hand.Hand` and wraps ``seat_view`` into the
``state`` / ``your_turn`` / ``hand_over`` messages of PROTOCOL.md, so screens can be driven with
deterministic, rule-correct states without a server (snapshot tests need no clock or network).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.actions import action_from_dict
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view

NAMES = ("Ann", "Bob", "Cal", "Dee", "Eve")


class EngineTable:
    """A table of one hand, seen from ``me``, producing wire messages."""

    def __init__(
        self,
        *,
        seed: int = 1,
        dealer: int = 4,
        me: int | None = 0,
        rules: RuleSet | None = None,
        names: Sequence[str] = NAMES,
        bots: Sequence[int] = (1, 2, 3, 4),
        hands_limit: int | None = 10,
        table: str = "t1",
    ) -> None:
        self.rules = rules or RuleSet()
        self.hand = Hand.from_seed(self.rules, dealer=dealer, seed=seed)
        self.me = me
        self.names = list(names)
        self.bots = set(bots)
        self.hands_limit = hands_limit
        self.table = table
        self.seq = 0
        self.totals = [0] * 5
        self.hands_played = 0
        self.offline: set[int] = set()

    def info(self) -> dict[str, Any]:
        """The table summary (PROTOCOL.md §6.1)."""
        return {
            "id": self.table,
            "name": "Kitchen table",
            "host": self.names[0],
            "rules": self.rules.to_dict(),
            "hands": self.hands_limit,
            "hands_played": self.hands_played,
            "state": "playing",
            "password": False,
            "turn_timer": None,
            "seats": [
                {
                    "seat": s,
                    "name": self.names[s],
                    "kind": "bot" if s in self.bots else "human",
                    "connected": s not in self.offline,
                    "strategy": "random" if s in self.bots else None,
                }
                for s in range(5)
            ],
            "spectators": 0,
        }

    def messages(self, last: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The messages the seat gets for the current state."""
        out: list[dict[str, Any]] = [
            {
                "type": "state",
                "table": self.table,
                "seq": self.seq,
                "seat": self.me,
                "hand": self.hands_played - (1 if self.hand.is_over else 0),
                "info": self.info(),
                "view": seat_view(self.hand, self.me),
                "last": last,
                "totals": list(self.totals),
            }
        ]
        hand = self.hand
        if hand.is_over:
            view = seat_view(hand, self.me)
            out.append(
                {
                    "type": "hand_over",
                    "table": self.table,
                    "seq": self.seq,
                    "hand": self.hands_played - 1,
                    "result": hand.result().breakdown(),
                    "reveal": view["reveal"],
                    "totals": list(self.totals),
                }
            )
        elif self.me is not None and hand.turn == self.me:
            legal = [a.to_dict() for a in hand.legal_actions()]
            for a in legal:
                a.pop("seat")
            out.append(
                {
                    "type": "your_turn",
                    "table": self.table,
                    "seq": self.seq,
                    "decision": hand.phase,
                    "legal": legal,
                    "deadline": None,
                }
            )
        return out

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]:
        """Apply an action (wire map, for the seat whose turn it is) and return the messages."""
        seat = self.hand.turn
        assert seat is not None
        act = action_from_dict(action, seat=seat)
        self.hand.apply(act)
        self.seq += 1
        if self.hand.is_over:
            payouts = self.hand.result().payouts or (0,) * 5
            self.totals = [t + p for t, p in zip(self.totals, payouts, strict=True)]
            self.hands_played += 1
        last = act.to_dict()
        if last["action"] == "bury" and seat != self.me:
            last.pop("cards")
        return self.messages(last)

    def advance(
        self,
        choose: Callable[[Hand], dict[str, Any]] | None = None,
        *,
        until_me: bool = True,
    ) -> list[dict[str, Any]]:
        """Let the other seats act (first legal action by default) until it is ``me``'s turn."""
        out: list[dict[str, Any]] = []
        pick = choose or (lambda h: h.legal_actions()[0].to_dict())
        while not self.hand.is_over and (not until_me or self.hand.turn != self.me):
            out += self.apply(pick(self.hand))
        return out
