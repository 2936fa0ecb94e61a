"""The coach's advice in words: the ``hint`` reply (PROTOCOL.md §4) as one status line.

>>> hint_text({"deals": 40, "candidates": [
...     {"action": {"action": "play", "card": "QC"}, "value": 1.4},
...     {"action": {"action": "play", "card": "AH"}, "value": -0.3}]})
'Hint: Q♣ (+1.4 over 40 deals); next A♥ (−0.3)'
>>> hint_text({"deals": 0, "candidates": [{"action": {"action": "pass"}, "value": None}]})
'Hint: pass (nothing else to compare)'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from client.widgets.cards import card_label, cards_label

_NAMES = {
    "pick": "pick",
    "pass": "pass",
    "alone": "go alone",
    "crack": "crack",
    "no_crack": "no crack",
    "recrack": "re-crack",
    "no_recrack": "no re-crack",
    "blitz": "blitz",
}


def action_label(action: Mapping[str, Any]) -> str:
    """A legal action in a few words: ``Q♣``, ``pick``, ``bury 7♦ 8♦``, ``call A♥``."""
    kind = str(action.get("action"))
    if kind == "play":
        return card_label(str(action.get("card")))
    if kind == "bury":
        return "bury " + cards_label(str(c) for c in action.get("cards") or ())
    if kind == "call":
        return "call " + card_label(str(action.get("card")))
    if kind == "unknown":
        card, under = card_label(str(action.get("card"))), card_label(str(action.get("under")))
        return f"call {card}, {under} face down"
    return _NAMES.get(kind, kind.replace("_", " "))


def points(value: float) -> str:
    """A mean payout with its sign (a real minus sign), one decimal: ``+1.4``, ``−0.3``."""
    text = f"{value:+.1f}"
    return "−" + text[1:] if text.startswith("-") else text


def hint_text(reply: Mapping[str, Any]) -> str:
    """The status line for a ``hint`` reply."""
    candidates = list(reply.get("candidates") or [])
    if not candidates:
        return "Hint: the coach has no advice for this decision."
    best = candidates[0]
    deals = int(reply.get("deals") or 0)
    if best.get("value") is None or not deals:
        return f"Hint: {action_label(best['action'])} (nothing else to compare)"
    text = f"Hint: {action_label(best['action'])} ({points(best['value'])} over {deals} deals)"
    if len(candidates) > 1 and candidates[1].get("value") is not None:
        second = candidates[1]
        text += f"; next {action_label(second['action'])} ({points(second['value'])})"
    return text


def review_lines(reply: Mapping[str, Any]) -> list[str]:
    """One line per decision of a ``review`` reply, in the order they were made.

    >>> review_lines({"hand": 0, "decisions": [
    ...     {"trick": 2, "action": {"action": "play", "card": "9H"}, "value": -0.3,
    ...      "best": {"action": "play", "card": "QC"}, "best_value": 0.8, "cost": 1.1,
    ...      "deals": 40},
    ...     {"trick": None, "action": {"action": "pick"}, "value": 1.2,
    ...      "best": {"action": "pick"}, "best_value": 1.2, "cost": 0.0, "deals": 40}]})
    ['Trick 2: your 9♥ cost about 1.1 points against Q♣ (40 deals).', \
'Pick: as good as any (+1.2).']
    """
    lines = []
    for row in reply.get("decisions") or []:
        trick = row.get("trick")
        action = row.get("action") or {}
        where = f"Trick {trick}" if trick else str(action.get("action", "")).capitalize()
        mine = action_label(action)
        cost = row.get("cost")
        if cost is None:
            lines.append(f"{where}: {mine}: the choices play alike.")
        elif cost < 0.05:
            lines.append(f"{where}: as good as any ({points(row.get('value') or 0.0)}).")
        else:
            best = action_label(row.get("best") or {})
            deals = int(row.get("deals") or 0)
            lines.append(
                f"{where}: your {mine} cost about {cost:.1f} points against {best} ({deals} deals)."
            )
    return lines or ["No decision of yours in that hand had a choice."]
