"""A match: hands in sequence at one table, running totals, dealer rotation, doubler stakes.

The match is reproducible from its seed and the ordered actions: each hand's deal seed is derived
from the match seed and the hand's number.

>>> match = Match(RuleSet(), seed=5, hand_limit=2)
>>> while not match.is_over:
...     match.apply(match.hand.legal_actions()[0])
...     if match.hand.is_over and not match.is_over:
...         _ = match.next_hand()
>>> match.hands_played, sum(match.totals)
(2, 0)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from engine.actions import NUM_SEATS, Action, Seat
from engine.errors import HAND_OVER, IllegalActionError
from engine.hand import Hand
from engine.record import export_record
from engine.rules import RuleSet
from engine.scoring import HandResult


def hand_seed(match_seed: int, number: int) -> int:
    """The deal seed of hand ``number`` (0-based) of a match."""
    digest = hashlib.sha256(f"sheepshead/{match_seed}/{number}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


class Match:
    """Hands at one table until ``hand_limit`` (None: until ended) with running totals.

    ``keep_history=False`` keeps only the last hand's result and record, for long-running
    tables whose records are stored elsewhere as each hand ends.

    ``deal_seed`` (hand number -> deal seed) replaces :func:`hand_seed` for every deal: the
    server's commit–reveal seeds (:mod:`engine.fairdeal`).
    """

    def __init__(
        self,
        rules: RuleSet,
        *,
        seed: int,
        hand_limit: int | None = None,
        first_dealer: Seat | None = None,
        keep_history: bool = True,
        deal_seed: Callable[[int], int] | None = None,
    ) -> None:
        if hand_limit is not None and hand_limit < 1:
            raise ValueError("hand_limit must be at least 1")
        self.rules = rules
        self.seed = seed
        self.hand_limit = hand_limit
        self.first_dealer = (
            hand_seed(seed, -1) % NUM_SEATS if first_dealer is None else first_dealer
        )
        self.number = 0
        self.dealer = self.first_dealer
        self.multiplier = 1
        self.totals = [0] * NUM_SEATS
        self.keep_history = keep_history
        self.results: list[HandResult] = []
        """Finished hands' results, oldest first (only the last one without ``keep_history``)."""
        self.records: list[dict[str, Any]] = []
        """Finished hands' records, oldest first (only the last one without ``keep_history``)."""
        self._hands_played = 0
        self.ended = False
        self._deal_seed = deal_seed
        self.hand = Hand.from_seed(rules, self.dealer, self._seed_of(0), 1)

    def _seed_of(self, number: int) -> int:
        """The deal seed of hand ``number``."""
        if self._deal_seed is None:
            return hand_seed(self.seed, number)
        return self._deal_seed(number)

    @property
    def hands_played(self) -> int:
        """Hands finished so far (a doubler counts as a hand)."""
        return self._hands_played

    @property
    def is_over(self) -> bool:
        """Whether the match has ended (hand limit reached or ended by the host)."""
        return self.ended or (self.hand_limit is not None and self.hands_played >= self.hand_limit)

    def apply(self, action: Action) -> None:
        """Apply an action to the current hand; book the result when the hand ends."""
        if self.ended:
            # end() abandons the hand in progress: playing it on would book it into the totals.
            raise IllegalActionError("The match has ended", HAND_OVER)
        self.hand.apply(action)
        if self.hand.is_over:
            self._book(self.hand)

    def _book(self, hand: Hand) -> None:
        result = hand.result()
        assert result.payouts is not None
        for seat, pay in enumerate(result.payouts):
            self.totals[seat] += pay
        if not self.keep_history:
            # A server stores each record as the hand ends; keeping them all would grow an
            # open-ended table by ~9 kB a hand.
            self.results.clear()
            self.records.clear()
        self.results.append(result)
        self.records.append(export_record(hand))
        self._hands_played += 1
        self.multiplier = _stakes_after(hand, result)

    def resume(self, number: int, totals: Sequence[int], last: Hand) -> Hand:
        """Go on from hand ``number``, dealt now, as if every hand before it had been played
        here: ``totals`` are the running totals after them, ``last`` is hand ``number - 1`` as
        it finished (its result is the last one; a doubler doubles the stakes dealt now). For a
        server restoring a long match from its stored hands without replaying them all."""
        if number <= 0 or not last.is_over:
            raise ValueError("resume after a finished hand")
        if self.keep_history:
            raise ValueError("a match that keeps its history cannot skip hands")
        result = last.result()
        self.number = number
        self.dealer = (self.first_dealer + number) % NUM_SEATS
        self.totals = list(totals)
        self._hands_played = number
        self.results = [result]
        self.records = [export_record(last)]
        self.multiplier = _stakes_after(last, result)
        self.hand = Hand.from_seed(
            self.rules, self.dealer, self._seed_of(self.number), self.multiplier
        )
        return self.hand

    def next_hand(self) -> Hand:
        """Deal the next hand: the deal passes left, doubler stakes carry."""
        if not self.hand.is_over:
            raise ValueError("the current hand is not finished")
        if self.is_over:
            raise ValueError("the match is over")
        self.number += 1
        self.dealer = (self.dealer + 1) % NUM_SEATS
        self.hand = Hand.from_seed(
            self.rules, self.dealer, self._seed_of(self.number), self.multiplier
        )
        return self.hand

    def end(self) -> None:
        """End the match now (the host's decision); an unfinished hand is abandoned."""
        self.ended = True


def _stakes_after(hand: Hand, result: HandResult) -> int:
    """The multiplier of the hand dealt after ``hand``: doubled by a doubler, else 1."""
    return hand.multiplier * 2 if result.doubler else 1
