"""Shared helpers for the bot tests: scripted hands and random rule variants."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from engine.actions import Action, action_from_dict
from engine.hand import Deal, Hand
from engine.rules import RuleSet

CLUSTER_SKIP = "the distributed package is not installed (pip install -e '.[cluster]')"
"""Why a test that needs a Dask cluster is skipped."""

VARIANTS: tuple[RuleSet, ...] = (
    RuleSet(),
    RuleSet.from_preset("wisconsin"),
    RuleSet(no_pick="doubler", unknown_card=True),
    RuleSet(no_pick="forced-pick", jack_order="clubs-first"),
    RuleSet(partner="jack-of-diamonds", leaster_needs_trick=False),
    RuleSet(unknown_card=True, no_trick_partner_exempt=False, double_on_the_bump=True),
)
"""Rule sets that between them exercise every option the bots must cope with."""

STAKES_VARIANTS: tuple[RuleSet, ...] = (
    RuleSet.from_preset("tavern"),
    RuleSet(cracking=True, blitzing=True, crack_by="defenders", partner="jack-of-diamonds"),
    RuleSet(cracking=True, crack_by="defenders", unknown_card=True, no_pick="forced-pick"),
)
"""Rule sets with the house rules of docs/rules.md, "Cracking and blitzing" (kept apart so that the
tests over
:data:`VARIANTS` keep meeting the same states as before)."""


def scripted(
    hands: Sequence[str],
    blind: str,
    actions: Sequence[dict[str, object]] = (),
    *,
    dealer: int = 4,
    rules: RuleSet | None = None,
) -> Hand:
    """A hand dealt from card codes ("QC QS ..." per seat) with the given actions applied."""
    deal = Deal.from_codes([h.split() for h in hands], blind.split())
    hand = Hand(rules or RuleSet(), dealer, deal)
    for data in actions:
        action: Action = action_from_dict(data)
        hand.apply(action)
    return hand


def picked(picker: int, bury: str, call: str) -> list[dict[str, object]]:
    """The bidding of a hand dealt by seat 4 (:func:`scripted`'s default): seats 0 to
    ``picker`` - 1 pass, then ``picker`` picks, buries the two cards of ``bury`` ("8S 9S") and
    calls ``call``."""
    return [
        *({"seat": s, "action": "pass"} for s in range(picker)),
        {"seat": picker, "action": "pick"},
        {"seat": picker, "action": "bury", "cards": bury.split()},
        {"seat": picker, "action": "call", "card": call},
    ]


def play(seat: int, card: str) -> dict[str, object]:
    """``seat`` plays ``card`` (a card code), as an action's dict."""
    return {"seat": seat, "action": "play", "card": card}


def card_chosen(bot: Any, view: Any) -> object:
    """The card ``bot`` (a strategy) plays from ``view``, a seat's view at its turn."""
    return bot.choose(view, view["legal"])["card"]


def tournament_figures(data: dict[str, Any], *drop: str) -> dict[str, Any]:
    """A tournament's JSON results less what depends on the machine and the run (its times,
    its jobs, and the keys ``drop``): what two runs of the same deals must agree on."""
    data = {k: v for k, v in data.items() if k not in ("elapsed_s", "jobs", *drop)}
    data["strategies"] = {
        label: {k: v for k, v in s.items() if k not in ("decision_mean_s", "decision_max_s")}
        for label, s in data["strategies"].items()
    }
    return data


def table_without_times(printed: str) -> str:
    """A tournament's printed table less its decision times (the last two columns, in ms)."""
    return re.sub(r"\s+[\d.]+\s+[\d.]+$", "", printed, flags=re.MULTILINE)


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A ``distributed.LocalCluster`` of ``workers`` in-process threads talking real TCP to
    its scheduler on 127.0.0.1 (no dashboard): the scheduler's address. Skips the test
    without the ``distributed`` package."""
    import pytest  # here, not at the top: bench/placement.py imports this module too

    distributed = pytest.importorskip("distributed", reason=CLUSTER_SKIP)
    with distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield str(cluster.scheduler_address)
