"""The ``state`` each recipient at a table is sent, and what it may see of the last action.

Each recipient's state is built as a plain map (``protocol.events.state``) from its own seat
view (:func:`engine.view.seat_view`, or the public view for a spectator) and encoded once. What
every recipient shares is built once per change, not once per recipient: the shared fields of
the view and the spectators' view. ``info`` (the table summary) is left out for a recipient that
already has this very summary (PROTOCOL.md §4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.hand import Hand
from engine.match import Match
from engine.view import SHARED_PARTS, legal_maps, private_fields, shared_part
from protocol import events as m
from protocol.framing import encode
from server.tables.hub import Peer

log = logging.getLogger("sheepshead.server")

_DEAL, _AUCTION = 0, 1
"""The indices in :data:`engine.view.SHARED_PARTS` of the parts :class:`ViewParts` keeps."""


class ViewParts:
    """The parts of one table's view that stand still between changes, kept from one to the next.

    Only the slow-changing parts are kept: the deal's (fixed for the hand, the rules map among
    them) and the auction's (fixed through trick play). They are rebuilt at most twice a hand,
    so between two actions a table keeps no new object the garbage collector tracks
    (``tests/server/test_gc_footprint.py``). The other parts change on most actions and are
    built afresh, as is every per-seat part.
    """

    __slots__ = ("auction", "deal", "hand")

    def __init__(self) -> None:
        self.hand: Hand | None = None
        """The hand the kept parts are of (compared by identity: a new hand, new parts)."""
        self.deal: dict[str, Any] = {}
        self.auction: dict[str, Any] | None = None
        """The auction's part once trick play has begun (None before: it changes then)."""

    def shared_fields(self, hand: Hand) -> dict[str, Any]:
        """:func:`engine.view.shared_fields` of ``hand``, from the kept parts where they hold."""
        if self.hand is not hand:
            self.hand = hand
            self.deal = shared_part(hand, _DEAL)
            self.auction = None
        auction = self.auction
        if hand.phase != "play":
            auction = self.auction = None
        if auction is None:
            auction = shared_part(hand, _AUCTION)
            if hand.phase == "play":
                self.auction = auction
        shared = {**self.deal, **auction}
        for part in range(_AUCTION + 1, len(SHARED_PARTS)):
            shared.update(shared_part(hand, part))
        return shared


def public_action(action: Mapping[str, Any] | None, viewer: int | None) -> dict[str, Any] | None:
    """What ``viewer`` may see of an action: the face-down cards only if it was their own.

    A bury names the two buried cards and an unknown-card call names the face-down card; other
    seats and spectators learn only that the action happened.
    """
    if action is None:
        return None
    if viewer is not None and action.get("seat") == viewer:
        return dict(action)
    kind = action.get("action")
    if kind == "bury":
        return {"seat": action.get("seat"), "action": "bury"}
    if kind == "unknown":
        return {k: v for k, v in action.items() if k != "under"}
    return dict(action)


def send_states(
    recipients: Sequence[tuple[Peer, int | None]],
    *,
    table: str,
    seq: int,
    totals: Sequence[int],
    match: Match | None,
    last: Mapping[str, Any] | None,
    info: dict[str, Any],
    info_sent: dict[Peer, dict[str, Any]],
    max_frame: int,
    prompt: Callable[[int, list[dict[str, Any]] | None], bytes | None],
    parts: ViewParts,
) -> None:
    """Send each recipient its ``state``, then (to the seat to act) its prompt from ``prompt``
    (given the seat and the hand's legal action maps).

    ``info_sent`` maps each recipient to the summary it was last sent and is updated here;
    ``parts`` are the table's kept view parts.
    """
    hand = match.hand if match is not None else None
    number = match.number if match is not None else 0
    shared = parts.shared_fields(hand) if hand is not None else None
    turn = hand.turn if hand is not None and not hand.is_over else None
    # What every seat's private fields would build again: built once per change, kept by none.
    spectator = private_fields(hand, None) if hand is not None else None
    legal: list[dict[str, Any]] | None = None  # built once, if the seat to act is a recipient
    public: dict[str, Any] | None = None
    # The fields every recipient shares, with and without the summary, and what a seat other
    # than the actor's (or a spectator) may see of the last action: built once per change.
    head = m.state_shared(table=table, seq=seq, info=info, totals=totals, hand=number)
    head_without_info: dict[str, Any] | None = None
    last_seen = public_action(last, None)
    actor = last.get("seat") if last is not None else None
    for peer, seat in recipients:
        if legal is None and seat is not None and seat == turn and hand is not None:
            legal = legal_maps(hand)
        view: dict[str, Any] | None = None
        if hand is not None and shared is not None:
            if seat is None:
                if public is None:
                    public = {**shared, **(spectator or {})}
                view = public
            else:
                view = {**shared, **private_fields(hand, seat, public=spectator, legal=legal)}
        own = m.state_own(
            seat=seat,
            view=view,
            last=public_action(last, seat) if seat is not None and seat == actor else last_seen,
        )
        if info_sent.get(peer) is info:
            if head_without_info is None:
                head_without_info = {k: v for k, v in head.items() if k != "info"}
            state = {**head_without_info, **own}
        else:
            info_sent[peer] = info
            state = {**head, **own}
        try:
            peer.send_encoded(encode(state, max_frame=max_frame))
        except ValueError:  # pragma: no cover - a state is a few hundred bytes
            log.error("table %s: a state for seat %s cannot be sent", table, seat)
            continue
        if seat is not None and seat == turn:
            frame = prompt(seat, legal)
            if frame is not None:
                peer.send_encoded(frame)
