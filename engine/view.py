"""What one seat (or a spectator) may see of a hand.

This is the only picture of a hand that leaves the server. It is built field by field from the
viewer's rights, never by copying the state and deleting secrets, so another seat's cards cannot
slip into it:

- your own hand (and, as picker, the blind you took, your bury and your face-down unknown card);
- everything played face up: passes, the pick, the call, every card played and every trick;
- with the house rules of docs/rules.md, "Cracking and blitzing": each blitz (seat, pair and its two
queens), the crack
  (seat and any pair shown), the re-crack and the hand's current ``stakes``;
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

from typing import Any, Final

from engine.actions import NUM_SEATS, Seat
from engine.cards import CARD_CODES, Mask, codes_of
from engine.hand import PAIR_CARDS, Hand
from engine.rules import resolved_map


def _codes(hand: Hand, mask: Mask) -> list[str]:
    return codes_of(mask, hand.rules.jack_order)


def public_view(hand: Hand) -> dict[str, Any]:
    """What everyone may see (a spectator's view): :func:`shared_fields` plus a spectator's
    :func:`private_fields`."""
    return {**shared_fields(hand), **_spectator_fields(hand)}


def shared_fields(hand: Hand) -> dict[str, Any]:
    """The fields of the view that are the same for every viewer: every field but
    :data:`PRIVATE_KEYS`.

    It is the union of the :data:`SHARED_PARTS`, in their order.
    """
    shared: dict[str, Any] = {}
    for build in _PART_BUILDERS:
        shared.update(build(hand))
    return shared


def _deal_part(hand: Hand) -> dict[str, Any]:
    return {"dealer": hand.dealer, "multiplier": hand.multiplier, "rules": resolved_map(hand.rules)}


def _auction_part(hand: Hand) -> dict[str, Any]:
    return {
        "phase": hand.phase,
        "passes": list(hand.passes),
        "picker": hand.picker,
        "called": None if hand.called is None else CARD_CODES[hand.called],
        "alone": hand.alone,
        "unknown": hand.under is not None,
        "leaster": hand.leaster,
        "doubler": hand.doubler,
        "blitzes": [
            {"seat": seat, "pair": pair, "cards": [CARD_CODES[c] for c in PAIR_CARDS[pair]]}
            for seat, pair in hand.blitzes
        ],
        "crack": (
            None if hand.cracker is None else {"seat": hand.cracker, "blitz": hand.crack_blitz}
        ),
        "recrack": hand.recracked,
        "stakes": hand.stakes,
    }


def _live_part(hand: Hand) -> dict[str, Any]:
    leader = hand.leader
    return {
        "turn": hand.turn,
        "hand_sizes": [h.bit_count() for h in hand.hands],
        "trick": {
            "leader": leader,
            "cards": [
                {"seat": (leader + i) % NUM_SEATS, "card": CARD_CODES[c]}
                for i, c in enumerate(hand.current)
            ],
        },
    }


def _history_part(hand: Hand) -> dict[str, Any]:
    trick_points = [0] * NUM_SEATS
    for t in hand.tricks:
        trick_points[t.winner] += t.points
    return {
        "tricks": [t.to_dict() for t in hand.tricks],
        "trick_points": trick_points,
        "tricks_won": list(hand.tricks_won),
    }


def _outcome_part(hand: Hand) -> dict[str, Any]:
    if hand.phase != "done":
        return {"result": None, "reveal": None}
    return {
        "result": hand.result().breakdown(),
        "reveal": {
            "hands": [_codes(hand, h) for h in hand.deal.hands],
            "blind": _codes(hand, hand.deal.blind),
            "buried": _codes(hand, hand.buried),
        },
    }


_PART_BUILDERS: Final = (_deal_part, _auction_part, _live_part, _history_part, _outcome_part)

SHARED_PARTS: Final = (
    ("dealer", "multiplier", "rules"),
    (
        "phase",
        "passes",
        "picker",
        "called",
        "alone",
        "unknown",
        "leaster",
        "doubler",
        "blitzes",
        "crack",
        "recrack",
        "stakes",
    ),
    ("turn", "hand_sizes", "trick"),
    ("tricks", "trick_points", "tricks_won"),
    ("result", "reveal"),
)
"""The :func:`shared_fields`, in parts that change at different paces: fixed for the hand; the
auction (changes only before trick play and at the end); every action; every trick; the end."""


OUTCOME_PART: Final = SHARED_PARTS.index(("result", "reveal"))
"""The index in :data:`SHARED_PARTS` of ``result`` and ``reveal``: all a ``hand_over`` needs."""


def shared_part(hand: Hand, part: int) -> dict[str, Any]:
    """The fields of ``SHARED_PARTS[part]``, as in :func:`shared_fields` (a new map).

    >>> from engine.hand import Hand
    >>> from engine.rules import RuleSet
    >>> shared_part(Hand.from_seed(RuleSet(), dealer=0, seed=1), 0)["dealer"]
    0
    """
    return _PART_BUILDERS[part](hand)


def _spectator_fields(hand: Hand) -> dict[str, Any]:
    """A spectator's :func:`private_fields`: the public values of :data:`PRIVATE_KEYS`."""
    over = hand.phase == "done"
    partner_known = hand.partner_revealed or over
    return {
        "seat": None,
        "hand": [],
        "blind": _codes(hand, hand.blind) if over else None,
        "buried": _codes(hand, hand.buried) if over else None,
        "under": CARD_CODES[hand.under] if hand.under is not None and over else None,
        "partner": hand.partner if partner_known else None,
        "partner_known": partner_known,
        "legal": [],
    }


def legal_maps(hand: Hand) -> list[dict[str, Any]]:
    """The legal actions as wire maps, each with its ``seat``.

    >>> from engine.hand import Hand
    >>> from engine.rules import RuleSet
    >>> legal_maps(Hand.from_seed(RuleSet(), dealer=0, seed=1))
    [{'seat': 1, 'action': 'pick'}, {'seat': 1, 'action': 'pass'}]
    """
    return [a.to_dict() for a in hand.legal_actions()]


PRIVATE_KEYS: Final = (
    "seat",
    "hand",
    "blind",
    "buried",
    "under",
    "partner",
    "partner_known",
    "legal",
)
"""The view fields that can differ between seats; every other field is :func:`shared_fields`'."""


def private_fields(
    hand: Hand,
    seat: Seat | None,
    *,
    public: dict[str, Any] | None = None,
    legal: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The :data:`PRIVATE_KEYS` fields of one seat's view (a spectator's: the public values).

    ``{**shared_fields(hand), **private_fields(hand, seat)}`` is ``seat_view(hand, seat)``: a
    server builds the shared fields once per change and only these per seat. It may pass what
    every seat's call would build again: ``public``, the spectator's fields
    (``private_fields(hand, None)``), and ``legal``, :func:`legal_maps` (both as they stand now).
    """
    if public is None:
        public = _spectator_fields(hand)
    if seat is None:
        return public
    # One literal rather than a copy and overrides: servers call this for every seat on every
    # change. Once the hand is over the public values already show everything.
    phase = hand.phase
    live = phase != "done"
    picker = live and seat == hand.picker
    partner = live and seat == hand.partner
    return {
        "seat": seat,
        "hand": _codes(hand, hand.hands[seat]),
        "blind": _codes(hand, hand.blind) if picker else public["blind"],
        "buried": (
            _codes(hand, hand.buried)
            if picker and phase != "pick" and phase != "bury"
            else public["buried"]
        ),
        "under": (CARD_CODES[hand.under] if picker and hand.under is not None else public["under"]),
        "partner": seat if partner else public["partner"],
        "partner_known": True if partner else public["partner_known"],
        "legal": (
            (legal_maps(hand) if legal is None else legal)
            if live and seat == hand.turn
            else public["legal"]
        ),
    }


def seat_view(hand: Hand, seat: Seat | None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator's public view) as a wire-ready map.

    A new map on every call, built from the hand as it stands.
    """
    if seat is None:
        return public_view(hand)
    return {**shared_fields(hand), **private_fields(hand, seat)}
