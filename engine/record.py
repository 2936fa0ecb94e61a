"""Hand records in the ``sheepshead-hand/1`` format of docs/hand-record.md: export, import, replay.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> hand = Hand.from_seed(RuleSet(), dealer=3, seed=11)
>>> while not hand.is_over:
...     hand.apply(hand.legal_actions()[-1])
>>> record = export_record(hand)
>>> replay_record(record) == hand.result().to_dict()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.actions import NUM_SEATS, action_from_dict
from engine.cards import CARD_CODES, cards_in
from engine.errors import BAD_RECORD, BadRecordError, SheepsheadError
from engine.hand import Deal, Hand
from engine.rules import RuleSet, rules_title

FORMAT: Final = "sheepshead-hand/1"
"""The ``format`` value of every record this engine reads and writes."""


class RecordError(SheepsheadError):
    """A record that cannot be replayed: ``code``, the failing ``action`` index (or None)."""

    def __init__(self, code: str, message: str, action: int | None = None) -> None:
        super().__init__(message, code)
        self.action = action

    def to_dict(self) -> dict[str, Any]:
        """The replay error line: ``{"error": {"code", "action", "message"}}``."""
        return {"error": {"code": self.code, "action": self.action, "message": self.message}}


def export_record(hand: Hand) -> dict[str, Any]:
    """The record of a hand (finished or not), with explicit hands as the server stores them."""
    return {
        "format": FORMAT,
        "rules": hand.rules.to_dict(),
        "dealer": hand.dealer,
        "multiplier": hand.multiplier,
        "deal": {
            "hands": [[CARD_CODES[c] for c in cards_in(h)] for h in hand.deal.hands],
            "blind": [CARD_CODES[c] for c in cards_in(hand.deal.blind)],
        },
        "actions": [a.to_dict() for a in hand.actions],
    }


def _int_field(record: Mapping[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = record.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RecordError(BAD_RECORD, f"{key} must be a whole number from {low} to {high}")
    return value


def _deal(record: Mapping[str, Any], dealer: int) -> Deal:
    deal = record.get("deal")
    if not isinstance(deal, Mapping):
        raise RecordError(BAD_RECORD, "deal must be a map with hands and blind, or a seed")
    if "seed" in deal:
        seed = deal["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RecordError(BAD_RECORD, "deal seed must be an integer")
        try:
            return Deal.from_seed(dealer, seed)
        except ValueError as exc:  # e.g. a seed the shuffle does not accept
            raise RecordError(BAD_RECORD, f"deal: {exc}") from None
    hands, blind = deal.get("hands"), deal.get("blind")
    if not isinstance(hands, list) or not isinstance(blind, list):
        raise RecordError(BAD_RECORD, "deal needs hands (5 lists of 6 cards) and blind (2 cards)")
    if not all(isinstance(h, list) for h in hands):
        raise RecordError(BAD_RECORD, "each hand must be a list of card codes")
    try:
        return Deal.from_codes(hands, blind)
    except SheepsheadError as rejected:
        raise RecordError(rejected.code, f"deal: {rejected.message}") from None
    except ValueError as exc:
        raise RecordError(BAD_RECORD, f"deal: {exc}") from None


def hand_from_record(record: object, *, stop_at: int | None = None) -> Hand:
    """Rebuild a hand by replaying the record's actions (all, or the first ``stop_at``).

    Raises :class:`RecordError` with ``action`` set to the failing action's index.
    """
    if not isinstance(record, Mapping):
        raise RecordError(BAD_RECORD, "a record must be a JSON object")
    if record.get("format", FORMAT) != FORMAT:
        raise RecordError(BAD_RECORD, f"unsupported format {record.get('format')!r}")
    try:
        rules = RuleSet.from_dict(record.get("rules", {}))
    except SheepsheadError as exc:
        raise RecordError(BAD_RECORD, f"rules: {exc.message}") from None
    dealer = _int_field(record, "dealer", 0, 0, NUM_SEATS - 1)
    multiplier = _int_field(record, "multiplier", 1, 1, 1 << 30)
    hand = Hand(rules, dealer, _deal(record, dealer), multiplier)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(BAD_RECORD, "actions must be a list")
    for index, data in enumerate(actions[:stop_at]):
        try:
            hand.apply(action_from_dict(data))
        except BadRecordError as exc:
            raise RecordError(BAD_RECORD, exc.message, index) from None
        except SheepsheadError as exc:
            raise RecordError(exc.code, exc.message, index) from None
    return hand


def replay_record(record: object) -> dict[str, Any]:
    """The ``sheepshead replay --json`` line of a record (raises :class:`RecordError`)."""
    return hand_from_record(record).result().to_dict()


def describe_record(record: object) -> str:
    """A readable trick-by-trick account of a recorded hand."""
    hand = hand_from_record(record)
    result = hand.result()
    lines = [f"Rules: {rules_title(hand.rules)}  dealer: seat {hand.dealer}"]
    if hand.multiplier > 1:
        lines.append(f"Stakes multiplied by {hand.multiplier}")
    for seat, mask in enumerate(hand.deal.hands):
        lines.append(f"  seat {seat}: {' '.join(CARD_CODES[c] for c in cards_in(mask))}")
    lines.append(f"  blind:  {' '.join(CARD_CODES[c] for c in cards_in(hand.deal.blind))}")
    for a in hand.actions:
        if a.kind in ("pass", "pick"):
            lines.append(f"Seat {a.seat} {'passes' if a.kind == 'pass' else 'picks'}")
        elif a.kind == "bury":
            lines.append(f"Seat {a.seat} buries {' '.join(a.to_dict()['cards'])}")
        elif a.kind == "call":
            lines.append(f"Seat {a.seat} calls {a.to_dict()['card']}")
        elif a.kind == "alone":
            lines.append(f"Seat {a.seat} goes alone")
        elif a.kind == "unknown":
            lines.append(f"Seat {a.seat} calls {a.to_dict()['card']} with an unknown card")
        elif a.kind in _STAKES_TEXT:
            lines.append(_stakes_line(a.to_dict()))
    if result.doubler:
        lines.append("Everyone passed: doubler, the next hand counts double")
    elif result.leaster:
        lines.append("Everyone passed: leaster")
    for i, t in enumerate(result.tricks, 1):
        played = ", ".join(
            f"{seat}:{CARD_CODES[c]}" for seat, c in zip(t.seats, t.cards, strict=True)
        )
        lines.append(f"Trick {i}: {played}  -> seat {t.winner} takes {t.points}")
    if hand.current:
        played = ", ".join(CARD_CODES[c] for c in hand.current)
        lines.append(f"Trick {len(result.tricks) + 1} (in progress): {played}")
    lines.append(f"Points: {list(result.points)}")
    if result.picker_side_points is not None:
        partner = "alone" if result.alone else f"partner {result.partner}"
        lines.append(f"Picker seat {result.picker} ({partner}): {result.picker_side_points} points")
    if result.stakes != hand.multiplier:
        lines.append(f"Stakes: x{result.stakes}")
    if result.payouts is None:
        lines.append("Hand not finished")
    else:
        lines.append(f"Result: {result.breakdown()['outcome_text']}")
        lines.append(f"Payouts: {list(result.payouts)}")
    return "\n".join(lines)


_STAKES_TEXT: Final = {
    "blitz": "blitzes the {pair} queens",
    "crack": "cracks",
    "no_crack": "does not crack",
    "recrack": "re-cracks",
    "no_recrack": "does not re-crack",
}


def _stakes_line(action: Mapping[str, Any]) -> str:
    """One line of :func:`describe_record` for an action of docs/rules.md, "Cracking and
    blitzing"."""
    text = _STAKES_TEXT[str(action["action"])].format(pair=action.get("pair"))
    if action.get("blitz") is not None:
        text += f" with the {action['blitz']} queens"
    return f"Seat {action['seat']} {text}"
