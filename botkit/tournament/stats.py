"""A tournament's statistics: each strategy's tally, confidence intervals clustered by deal,
and the results as a JSON-ready map (``sheepshead-tournament/1``; docs/bots.md has every field).

Each deal's mean payout per seat-hand is one observation (the plays of one deal are correlated);
the interval is Student's t over those.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

FORMAT: Final = "sheepshead-tournament/1"
"""The ``format`` field of the JSON results."""


# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond, the normal's.
_T95: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.inf
    return _T95[df - 1] if df <= len(_T95) else statistics.NormalDist().inv_cdf(0.975)


FAILURES_KEPT: Final = 5
"""Failures reported in full per strategy; the rest are counted."""


@dataclass
class StrategyTally:
    """One strategy's figures over the deals played so far."""

    deal_means: list[float] = field(default_factory=list)
    seat_hands: int = 0
    payout: int = 0
    picks: int = 0
    picker_wins: int = 0
    leasters: int = 0
    decisions: int = 0
    think: float = 0.0
    think_max: float = 0.0
    fallbacks: int = 0
    """Decisions where the strategy failed and the first legal action was played instead."""
    failures: list[str] = field(default_factory=list)
    """The first few of those failures, each naming the deal, the seat and the file and line."""

    def add(self, other: StrategyTally) -> None:
        """Merge another tally (one deal's) into this one."""
        self.deal_means += other.deal_means
        self.seat_hands += other.seat_hands
        self.payout += other.payout
        self.picks += other.picks
        self.picker_wins += other.picker_wins
        self.leasters += other.leasters
        self.decisions += other.decisions
        self.think += other.think
        self.think_max = max(self.think_max, other.think_max)
        self.fallbacks += other.fallbacks
        self.failures += other.failures[: max(0, FAILURES_KEPT - len(self.failures))]


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% confidence interval (t-based) of independent observations."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    if n < 2:
        return mean, -math.inf, math.inf
    half = t95(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return mean, mean - half, mean + half


def summarize(
    specs: Sequence[str],
    tallies: Sequence[StrategyTally],
    params: dict[str, Any],
    names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The results as a JSON-ready map (see docs/bots.md for every field).

    ``specs`` are the strategies' labels (unique); ``names`` their ``name`` attributes.
    """
    strategies = {}
    for i, (spec, t) in enumerate(zip(specs, tallies, strict=True)):
        mean, low, high = interval(t.deal_means)
        strategies[spec] = {
            "name": names[i] if names else spec,
            "mean": mean,
            "ci95": [_finite(low), _finite(high)],
            "seat_hands": t.seat_hands,
            "total_payout": t.payout,
            "pick_rate": t.picks / t.seat_hands if t.seat_hands else 0.0,
            "picks": t.picks,
            "picker_win_rate": t.picker_wins / t.picks if t.picks else None,
            "leaster_rate": t.leasters / t.seat_hands if t.seat_hands else 0.0,
            "decisions": t.decisions,
            "decision_mean_s": t.think / t.decisions if t.decisions else 0.0,
            "decision_max_s": t.think_max,
            "fallbacks": t.fallbacks,
            "failures": list(t.failures),
        }
    pairs = []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            diffs = [
                a - b for a, b in zip(tallies[i].deal_means, tallies[j].deal_means, strict=True)
            ]
            mean, low, high = interval(diffs)
            pairs.append(
                {"a": specs[i], "b": specs[j], "diff": mean, "ci95": [_finite(low), _finite(high)]}
            )
    deals = len(tallies[0].deal_means) if tallies else 0
    return {
        "format": FORMAT,
        **params,
        "deals_played": deals,
        # Five seat-hands a hand, however many times the seatings play a deal.
        "hands": sum(t.seat_hands for t in tallies) // 5,
        "strategies": strategies,
        "pairs": pairs,
    }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None
