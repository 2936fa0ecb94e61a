"""The coach (engine.bots.coach) and the bot worker's hint requests."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.actions import action_from_dict
from engine.bots import coach
from engine.bots.coach import hint
from engine.bots.heuristic import HeuristicStrategy
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from server.botworker import decide


def _views(seed: int) -> list[dict[str, Any]]:
    """Every decision's view of one hand played by the heuristic."""
    hand = Hand.from_seed(RuleSet(), dealer=seed % 5, seed=seed)
    bot = HeuristicStrategy(seed=seed)
    views = []
    while not hand.is_over:
        view = seat_view(hand, hand.turn)
        views.append(view)
        hand.apply(action_from_dict(bot.choose(view, view["legal"]), hand.turn))
    return views


def test_the_coach_ranks_two_legal_choices_by_their_mean_payout() -> None:
    kinds = set()
    for seed in range(3):
        for view in _views(seed):
            legal = view["legal"]
            advice = hint(view, legal, seed=seed, samples=6)
            candidates = advice["candidates"]
            assert 1 <= len(candidates) <= 2
            for c in candidates:
                assert c["action"] in legal
            if len(candidates) == 2:
                kinds.add(legal[0]["action"])
                assert candidates[0]["action"] != candidates[1]["action"]
                assert advice["deals"] == 6
                assert candidates[0]["value"] >= candidates[1]["value"]
                # A payout (points per hand) plus the search's tie-break: within the stakes.
                assert all(-30 <= c["value"] <= 30 for c in candidates)
            else:
                assert advice["deals"] == 0 and candidates[0]["value"] is None
    assert {"play", "pick"} <= kinds


def test_the_coach_is_deterministic_given_its_seed() -> None:
    view = next(v for v in _views(4) if v["legal"][0]["action"] == "play" and len(v["legal"]) > 2)
    assert hint(view, view["legal"], seed=9, samples=5) == hint(
        view, view["legal"], seed=9, samples=5
    )


def test_the_coach_stops_at_its_think_time() -> None:
    view = next(v for v in _views(1) if len(v["legal"]) > 2)
    ticks = itertools.count()
    # A clock that moves one second per look: past the one-second think time at once.
    advice = hint(view, view["legal"], seed=1, clock=lambda: float(next(ticks)), think_time=1.0)
    assert advice["deals"] <= 1


def test_a_bot_worker_answers_a_hint_request_with_the_coachs_answer() -> None:
    view = next(v for v in _views(2) if len(v["legal"]) > 2)
    request = {"hint": True, "seed": 3, "view": view, "legal": view["legal"], "think_time": None}
    assert decide(request) == hint(view, view["legal"], seed=3)


def test_a_deal_too_big_to_solve_is_rolled_out_from_the_deal_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When even the first deal overruns the exact search's node budget, the coach values every
    deal by rollouts instead: from the deal as drawn, so the same values as with the exact
    search off (not from wherever the abandoned search had got to)."""
    views = [
        v
        for seed in range(8)
        for v in _views(seed)
        if v["legal"][0]["action"] == "play" and len(v["legal"]) > 1 and len(v["tricks"]) == 3
    ]
    assert views
    for view in views[:6]:
        monkeypatch.setattr(coach, "DEFAULT_NODE_BUDGET", 1)
        over_budget = hint(view, view["legal"], seed=3, samples=4)
        monkeypatch.undo()
        monkeypatch.setattr(coach, "DEFAULT_EXACT_TRICKS", 0)
        rolled_out = hint(view, view["legal"], seed=3, samples=4)
        monkeypatch.undo()
        assert over_budget == rolled_out
