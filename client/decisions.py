"""Which decision keys are live: worked out here, once, from the server's ``legal`` list.

The table screen's key checks, its buttons, its status line and the result panel's keys all
ask :func:`live_decisions`, so a decision the server adds (a crack, say) is one row of
:data:`DECISIONS` and one action method on the screen.

>>> from client.model import TableModel
>>> model = TableModel()
>>> _ = model.apply({"type": "your_turn", "seq": 3, "decision": "pick",
...                  "legal": [{"action": "pick"}, {"action": "pass"}]})
>>> sorted(live_decisions(model))
['pass_blind', 'pick']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from client.model import TableModel


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision key: the screen action it runs, the wire actions that make it live."""

    action: str
    """The screen's action name (``action_<name>``)."""
    kinds: frozenset[str]
    """The ``action`` values in ``legal`` for which the key works."""
    button: str
    """The id of its button on the table."""
    pair: bool | None = None
    """For a crack: only with a queen pair shown (True), only without (False), either (None)."""


DECISIONS: Final[tuple[Decision, ...]] = (
    Decision("pick", frozenset({"pick"}), "btn-pick"),
    Decision("pass_blind", frozenset({"pass"}), "btn-pass"),
    Decision("bury", frozenset({"bury"}), "btn-bury"),
    Decision("call", frozenset({"call", "unknown"}), "btn-call"),
    Decision("alone", frozenset({"alone"}), "btn-alone"),
    Decision("crack", frozenset({"crack"}), "btn-crack", pair=False),
    Decision("crack_pair", frozenset({"crack"}), "btn-crack-pair", pair=True),
    Decision("recrack", frozenset({"recrack"}), "btn-recrack"),
    Decision("no_crack", frozenset({"no_crack", "no_recrack"}), "btn-no-crack"),
)
"""Every decision key, in button order."""

DECISION_VERBS: Final[dict[str, str]] = {
    "pick": "pick",
    "bury": "bury",
    "call": "call",
    "crack": "crack or not",
    "recrack": "re-crack or not",
    "play": "play",
}
"""What the status line says a seat is doing in each phase."""

BY_ACTION: Final[dict[str, Decision]] = {d.action: d for d in DECISIONS}
"""The decision of each screen action name."""


def live_decisions(model: TableModel) -> set[str]:
    """The screen action names of the decisions the pending prompt offers now."""
    prompt = model.prompt
    if prompt is None:
        return set()
    return {d.action for d in DECISIONS if any(_offers(d, a) for a in model.legal)}


def _offers(decision: Decision, action: Mapping[str, Any]) -> bool:
    """Whether the legal ``action`` map is one that ``decision``'s key would send."""
    if action.get("action") not in decision.kinds:
        return False
    return decision.pair is None or decision.pair == bool(action.get("blitz"))


def is_decision(action: str) -> bool:
    """Whether ``action`` is a decision key (live only when the server offers it)."""
    return action in BY_ACTION
