"""The ``state`` each recipient at a table is sent, and what it may see of the last action.

Each recipient's state is built as a plain map (``protocol.messages.state``) from its own seat
view (:func:`engine.view.seat_view`, or the public view for a spectator) and encoded once. What
every recipient shares is built once per change, not once per recipient: the shared fields of
the view and the spectators' view. ``info`` (the table summary) is left out for a recipient that
already has this very summary (PROTOCOL.md §4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.match import Match
from engine.view import private_fields, shared_fields
from protocol import messages as m
from protocol.framing import encode
from server.hub import Peer

log = logging.getLogger("sheepshead.server")


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
    prompt: Callable[[int], bytes | None],
) -> None:
    """Send each recipient its ``state``, then (to the seat to act) its prompt from ``prompt``.

    ``info_sent`` maps each recipient to the summary it was last sent and is updated here.
    """
    hand = match.hand if match is not None else None
    number = match.number if match is not None else 0
    shared = shared_fields(hand) if hand is not None else None
    turn = hand.turn if hand is not None and not hand.is_over else None
    public: dict[str, Any] | None = None
    for peer, seat in recipients:
        view: dict[str, Any] | None = None
        if hand is not None and shared is not None:
            if seat is None:
                if public is None:
                    public = {**shared, **private_fields(hand, None)}
                view = public
            else:
                view = {**shared, **private_fields(hand, seat)}
        state = m.state(
            table=table,
            seq=seq,
            seat=seat,
            info=info,
            view=view,
            last=public_action(last, seat),
            totals=totals,
            hand=number,
        )
        if info_sent.get(peer) is info:
            del state["info"]
        else:
            info_sent[peer] = info
        try:
            peer.send_encoded(encode(state, max_frame=max_frame))
        except ValueError:  # pragma: no cover - a state is a few hundred bytes
            log.error("table %s: a state for seat %s cannot be sent", table, seat)
            continue
        if seat is not None and seat == turn:
            frame = prompt(seat)
            if frame is not None:
                peer.send_encoded(frame)
