"""The search's time limit: an injected clock ends sampling and the exact search, and only the
edges (server, ``sheepshead bot``) inject one; tournaments stay count-based."""

from __future__ import annotations

import pytest

from client.strategy_spec import strategy_factory
from engine.actions import action_from_dict
from engine.bots import make_strategy
from engine.bots.heuristic import HeuristicStrategy
from engine.bots.search import (
    CLOCK_EVERY,
    NEW_DEAL_SHARE,
    STOP_SHARE,
    NodeBudgetExceeded,
    NodeCount,
    SearchStrategy,
)
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view


class StepClock:
    """A clock that moves ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def _card_decisions(count: int) -> list[Hand]:
    """Hands at a card decision with at least two different legal cards."""
    bot = HeuristicStrategy()
    out = []
    seed = 0
    while len(out) < count:
        hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), seed % 5, 500 + seed)
        seed += 1
        while not hand.is_over:
            view = seat_view(hand, hand.turn)
            if view["phase"] == "play" and len(view["legal"]) > 2 and len(hand.tricks) == seed % 5:
                out.append(hand)
                break
            hand.apply(action_from_dict(bot.choose(view, view["legal"]), hand.turn))
    return out


def test_a_spent_clock_stops_sampling_and_still_answers_legally() -> None:
    for hand in _card_decisions(8):
        view = seat_view(hand, hand.turn)
        # Every read of this clock is a second later: the time is up at the first look.
        bot = SearchStrategy(seed=1, samples=40, clock=StepClock(1.0), think_time=0.5)
        assert bot.choose(view, view["legal"]) in view["legal"]
        assert bot.last_samples == 0
        # The same decision without a clock takes deals.
        counted = SearchStrategy(seed=1, samples=40)
        assert counted.choose(view, view["legal"]) in view["legal"]
        assert counted.last_samples >= 1


def test_the_time_limit_is_per_decision() -> None:
    hand = _card_decisions(1)[0]
    view = seat_view(hand, hand.turn)
    clock = StepClock(0.001)  # 1 ms per read: 500 reads make the limit
    bot = SearchStrategy(seed=1, samples=10_000, clock=clock, think_time=0.5)
    bot.choose(view, view["legal"])
    first = bot.last_samples
    assert 1 <= first < 10_000
    bot.choose(view, view["legal"])  # a new decision gets a new half second
    assert bot.last_samples >= 1


def test_the_exact_search_looks_at_the_clock() -> None:
    count = NodeCount(out_of_time=lambda: True)
    with pytest.raises(NodeBudgetExceeded):
        for _ in range(CLOCK_EVERY + 1):
            count.visit()
    assert count.nodes == CLOCK_EVERY
    patient = NodeCount(out_of_time=lambda: False)
    for _ in range(5 * CLOCK_EVERY):
        patient.visit()
    unbounded = NodeCount()
    for _ in range(5 * CLOCK_EVERY):
        unbounded.visit()


def test_only_thinking_strategies_take_the_clock() -> None:
    clock = StepClock(0.0)
    search = make_strategy("search", seed=1, clock=clock, think_time=0.2)
    assert isinstance(search, SearchStrategy)
    assert search.clock is clock and search.think_time == 0.2
    assert make_strategy("hard", clock=clock, think_time=0.2).clock is clock  # type: ignore[attr-defined]
    # Strategies that do not think for long ignore it.
    assert make_strategy("heuristic", clock=clock, think_time=0.2).name == "heuristic"
    assert make_strategy("random", seed=1, clock=clock, think_time=0.2).name == "random"
    # Without a clock (tournaments), budgets are counts.
    assert make_strategy("search", seed=1).clock is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="think_time"):
        SearchStrategy(think_time=0)


def test_the_bot_runner_gives_a_clock_and_tournaments_do_not() -> None:
    timed = strategy_factory("search:samples=4", think_time=0.3)(1)
    assert isinstance(timed, SearchStrategy)
    assert timed.clock is not None and timed.think_time == 0.3
    counted = strategy_factory("search:samples=4")(1)
    assert isinstance(counted, SearchStrategy) and counted.clock is None


def test_a_decision_stops_taking_deals_and_searching_where_the_shares_say() -> None:
    now = [100.0]
    bot = SearchStrategy(seed=1, samples=4, clock=lambda: now[0], think_time=0.5)
    hand = _card_decisions(1)[0]
    view = seat_view(hand, hand.turn)
    bot.choose(view, view["legal"])  # the decision starts at 100.0
    now[0] = 100.0 + 0.5 * NEW_DEAL_SHARE - 0.001
    assert bot.may_start_deal() and not bot.out_of_time()
    now[0] = 100.0 + 0.5 * NEW_DEAL_SHARE
    assert not bot.may_start_deal() and not bot.out_of_time()
    now[0] = 100.0 + 0.5 * STOP_SHARE
    assert bot.out_of_time()
    assert NEW_DEAL_SHARE * 0.5 <= 0.2 and STOP_SHARE * 0.5 <= 0.4  # the bench's targets' room
