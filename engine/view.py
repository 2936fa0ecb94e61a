"""What one seat (or a spectator) may see of a hand.

This is the only picture of a hand that leaves the server. It is built field by field from the
viewer's rights, never by copying the state and deleting secrets, so another seat's cards cannot
slip into it:

- your own hand (and, as picker, the blind you took, your bury and your face-down unknown card);
- everything played face up: passes, the pick, the call, every card played and every trick;
- the partner's seat only once the called card is played (the partner knows it all along);
- when the hand is over, every hand as dealt, the blind and the bury, and the full result.

>>> from engine.hand import Hand
>>> from engine.rules import RuleSet
>>> hand = Hand.from_seed(RuleSet(), dealer=0, seed=1)
>>> view = seat_view(hand, 1)
>>> len(view["hand"]), view["hand_sizes"], len(view["legal"])
(6, [6, 6, 6, 6, 6], 2)
>>> seat_view(hand, None)["hand"]
[]
"""

from __future__ import annotations

from typing import Any

from engine.actions import NUM_SEATS, Seat
from engine.cards import CARD_CODES, Mask, codes_of
from engine.hand import Hand


def _codes(hand: Hand, mask: Mask) -> list[str]:
    return codes_of(mask, hand.rules.jack_order)


def seat_view(hand: Hand, seat: Seat | None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator's public view) as a wire-ready map."""
    over = hand.phase == "done"
    picker = hand.picker
    is_picker = seat is not None and seat == picker
    picked = picker is not None
    buried_known = over or (is_picker and hand.phase not in ("pick", "bury"))
    partner_known = hand.partner_revealed or over or (seat is not None and seat == hand.partner)
    trick_points = [0] * NUM_SEATS
    for t in hand.tricks:
        trick_points[t.winner] += t.points
    leader = hand.leader
    view: dict[str, Any] = {
        "seat": seat,
        "phase": hand.phase,
        "turn": hand.turn,
        "dealer": hand.dealer,
        "multiplier": hand.multiplier,
        "rules": hand.rules.to_dict(),
        "hand": [] if seat is None else _codes(hand, hand.hands[seat]),
        "hand_sizes": [h.bit_count() for h in hand.hands],
        "passes": list(hand.passes),
        "picker": picker,
        "blind": _codes(hand, hand.blind) if (over or (is_picker and picked)) else None,
        "buried": _codes(hand, hand.buried) if buried_known else None,
        "called": None if hand.called is None else CARD_CODES[hand.called],
        "alone": hand.alone,
        "unknown": hand.under is not None,
        "under": (
            CARD_CODES[hand.under] if hand.under is not None and (is_picker or over) else None
        ),
        "partner": hand.partner if partner_known else None,
        "partner_known": partner_known,
        "leaster": hand.leaster,
        "doubler": hand.doubler,
        "trick": {
            "leader": leader,
            "cards": [
                {"seat": (leader + i) % NUM_SEATS, "card": CARD_CODES[c]}
                for i, c in enumerate(hand.current)
            ],
        },
        "tricks": [t.to_dict() for t in hand.tricks],
        "trick_points": trick_points,
        "tricks_won": list(hand.tricks_won),
        "legal": (
            [a.to_dict() for a in hand.legal_actions()]
            if seat is not None and seat == hand.turn
            else []
        ),
        "result": hand.result().breakdown() if over else None,
        "reveal": (
            {
                "hands": [_codes(hand, h) for h in hand.deal.hands],
                "blind": _codes(hand, hand.deal.blind),
                "buried": _codes(hand, hand.buried),
            }
            if over
            else None
        ),
    }
    return view
