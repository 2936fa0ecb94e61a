"""Shared helpers for the bot tests: scripted hands and random rule variants."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action, action_from_dict
from engine.hand import Deal, Hand
from engine.rules import RuleSet

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
