"""Protocol events: the maps the server sends (replies and table events), built in one place.

Sans-I/O, like :mod:`protocol.requests`: each builder returns the plain map that
:func:`protocol.framing.encode` packs. PROTOCOL.md describes every one of them.

>>> error(3, "stale", "That prompt is out of date")
{'type': 'error', 'id': 3, 'code': 'stale', 'message': 'That prompt is out of date'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias, TypedDict, cast

from protocol.text import RAW_TEXT_FACTOR, clean_text
from protocol.version import PROTOCOL_VERSION

# ---------------------------------------------------------------------------- shapes
# What each event holds, shared by the server's builders and the client's readers, so the
# contract between them is type-checked. The maps inside (a seat view, the table summary, a
# result breakdown) are the engine's and the server's own and are described in PROTOCOL.md.
# Optional keys come from a base class with total=False: a compiled module cannot evaluate
# Required and NotRequired.


class _ActionKind(TypedDict):
    action: str


class ActionMap(_ActionKind, total=False):
    """An action (PROTOCOL.md §5): ``action`` names its kind, the other fields depend on it;
    ``seat`` only in the server's maps (a client's action is for its own seat)."""

    seat: int
    card: str
    cards: list[str]
    under: str
    pair: str
    blitz: str


class _ErrorOptional(TypedDict, total=False):
    supported: list[int]
    """Only with ``version_unsupported``: the versions this server speaks."""


class ErrorReply(_ErrorOptional):
    """A refused request (``id`` its id) or, ``id`` nil, a problem with the connection."""

    type: Literal["error"]
    id: int | None
    code: str
    message: str


class Welcome(TypedDict):
    """The reply to hello; ``table``/``seat`` name the seat a token took back (else nil)."""

    type: Literal["welcome"]
    id: int
    version: int
    server: str
    name: str
    table: str | None
    seat: int | None


class _StateInfo(TypedDict, total=False):
    info: Mapping[str, Any]
    """The table summary: left out for a connection that already has this one."""


class StateShared(_StateInfo):
    """The fields of a ``state`` that are the same for everyone at the table."""

    type: Literal["state"]
    table: str
    seq: int
    totals: list[int]
    hand: int


class StateOwn(TypedDict):
    """The fields of a ``state`` built for one recipient."""

    seat: int | None
    view: Mapping[str, Any] | None
    last: Mapping[str, Any] | None


class State(StateShared, StateOwn):
    """A table snapshot for one recipient: ``view`` is that recipient's seat view."""


class YourTurn(TypedDict):
    """The prompt to the seat that must act."""

    type: Literal["your_turn"]
    table: str
    seq: int
    decision: str
    legal: list[ActionMap]
    deadline: float | None


class HandOver(TypedDict):
    """The end of hand number ``hand`` (0-based): result breakdown, every card, totals."""

    type: Literal["hand_over"]
    table: str
    seq: int
    hand: int
    result: Mapping[str, Any]
    reveal: Mapping[str, Any]
    totals: list[int]


class MatchOver(TypedDict):
    """The end of the match: final totals and the number of hands played."""

    type: Literal["match_over"]
    table: str
    seq: int
    totals: list[int]
    hands: int


Chat = TypedDict(
    "Chat",
    {
        "type": Literal["chat"],
        "table": str,
        "from": str,
        "seat": int | None,
        "text": str,
        "spectator": bool,
    },
)
"""A chat line (``from`` is the writer's cleaned name; ``seat`` nil for a spectator)."""


class _NoticeAction(TypedDict, total=False):
    action: Mapping[str, Any]
    """Only in a ``timer_expired`` notice: the move the turn timer made for ``seat``, as the
    recipient may see it (a state's ``last``: another seat's bury names no cards); an older
    server sends none."""


class Notice(_NoticeAction):
    """Something people should read; ``seat`` names the seat concerned, if any."""

    type: Literal["notice"]
    table: str | None
    code: str
    text: str
    seat: int | None


class Commitment(TypedDict):
    """A new deal commitment: seated clients answer with a seed (§13)."""

    type: Literal["commitment"]
    table: str
    commitment: str
    wait: float


class RevealedCommitment(TypedDict):
    """One commitment of a finished match: its server seed, the hands it dealt (from 0,
    inclusive) and the seats' seeds with where each came from (§13)."""

    commitment: str
    server_seed: str
    first_hand: int
    last_hand: int
    client_seeds: list[str]
    sources: list[str]


class SeedsRevealed(TypedDict):
    """Every commitment of the finished match with its seeds and hands (§13)."""

    type: Literal["seeds_revealed"]
    table: str
    commitments: list[RevealedCommitment]


class ServerPing(TypedDict):
    """The server's liveness check."""

    type: Literal["ping"]


class HistoryEntry(TypedDict):
    """One finished hand in a ``history`` reply."""

    hand: int
    names: list[str]
    record: Mapping[str, Any]
    payouts: list[int]
    totals: list[int]
    picker: int | None
    partner: int | None
    alone: bool
    leaster: bool
    doubler: bool
    picker_side_points: int | None
    outcome: str


class OkReply(TypedDict):
    """The success reply to a request; the replies below add the request's result fields
    (PROTOCOL.md §4, "`ok` reply carries"), the others carry none."""

    type: Literal["ok"]
    id: int | None


class TableList(OkReply):
    """The reply to ``list_tables``: table summaries (§6.1), waiting tables first."""

    tables: list[Mapping[str, Any]]
    truncated: bool


class TableCreated(OkReply):
    """The reply to ``create_table``: the creator sits at seat 0 and hosts it."""

    table: str
    seat: int
    token: str


class Joined(TableCreated):
    """The reply to ``join``: the seat, its token and the name shown at this table."""

    name: str


class Watching(OkReply):
    """The reply to ``watch``: the table and the name shown at it."""

    table: str
    name: str


class BotAdded(OkReply):
    """The reply to ``add_bot``: the seat the bot took."""

    seat: int


class _HistoryLines(TypedDict, total=False):
    lines: list[Chat | Notice]
    """Only on the first page: the table's last chat and notice events, oldest first."""


class HistoryPage(OkReply, _HistoryLines):
    """The reply to ``history``: finished hands from the asked ``start`` on; ``next`` the
    ``start`` of the following page (nil: this page reaches the last finished hand)."""

    table: str
    match: int
    hands: list[HistoryEntry]
    next: int | None


class HintReply(OkReply):
    """The reply to ``hint``: the coach's best choices for the pending prompt (§4)."""

    seq: int
    deals: int
    candidates: list[Mapping[str, Any]]


class _ReviewMadeFor(TypedDict, total=False):
    made_for: list[Mapping[str, Any]]
    """The moves a stand-in or the turn timer made for the asker (an older server sends none)."""


class ReviewReply(OkReply, _ReviewMadeFor):
    """The reply to ``review``: each decision the asker made in hand ``hand``, valued, and
    each move a stand-in or the turn timer made for them, only named (§4)."""

    hand: int
    decisions: list[Mapping[str, Any]]


class HeldSeat(TypedDict):
    """A seat whose connection is up (``door_seat``, PROTOCOL.md §15): the table's id and
    name, the seat, and the process at the other end of its connection when that came through
    the server's local socket (a door session's client), else nil."""

    table: str
    name: str
    seat: int
    pid: int | None


class DoorSeatReply(OkReply):
    """The reply to ``door_seat``: for each token asked about, in order, the seat it names if
    that seat's connection is up, else nil."""

    seats: list[HeldSeat | None]


class DoorPlayerReply(OkReply):
    """The reply to ``door_player``: whether the server knew the key (only a known one is
    tagged)."""

    known: bool


class TonightWindow(TypedDict):
    """Which matches a ``standings`` reply for ``since: "tonight"`` counted (§10.1): those
    that ended from ``start`` to ``end`` (ISO times with the server's offset), and ``text``,
    that window and the reason for it in words (two lines, each within 80 columns)."""

    start: str
    end: str
    text: str


class _StandingsWindow(TypedDict, total=False):
    tonight: TonightWindow


class StandingsReply(OkReply, _StandingsWindow):
    """The reply to ``standings``: ``since`` as sent and the standing rows (§10.1); with
    ``since: "tonight"``, the window it counted (``tonight``; an older server sends none)."""

    since: str | None
    players: list[Mapping[str, Any]]


TableEvent: TypeAlias = (
    State | YourTurn | HandOver | MatchOver | Chat | Notice | Commitment | SeedsRevealed
)
"""An event about the table a connection sits at or watches."""

Reply: TypeAlias = OkReply | ErrorReply | Welcome
"""The answer to a request: ``welcome`` to hello, else ``ok`` (or one of its kinds above) or
``error``, echoing the request's id."""


ERROR_MESSAGE_MAX: Final = 200
"""Longest ``message`` of an error, in characters: anything it quotes is cut to fit."""


def ok(id: int | None) -> OkReply:
    """The bare success reply to request ``id``; a request whose reply carries fields has a
    builder of its own below (:func:`joined`, :func:`history_page`...), which types them."""
    return {"type": "ok", "id": id}


def table_list(
    id: int | None, *, tables: Sequence[Mapping[str, Any]], truncated: bool
) -> TableList:
    """The reply to ``list_tables``."""
    return {"type": "ok", "id": id, "tables": list(tables), "truncated": truncated}


def table_created(id: int | None, *, table: str, seat: int, token: str) -> TableCreated:
    """The reply to ``create_table``."""
    return {"type": "ok", "id": id, "table": table, "seat": seat, "token": token}


def joined(id: int | None, *, table: str, seat: int, token: str, name: str) -> Joined:
    """The reply to ``join``."""
    return {"type": "ok", "id": id, "table": table, "seat": seat, "token": token, "name": name}


def watching(id: int | None, *, table: str, name: str) -> Watching:
    """The reply to ``watch``."""
    return {"type": "ok", "id": id, "table": table, "name": name}


def door_seat(id: int | None, *, seats: list[HeldSeat | None]) -> DoorSeatReply:
    """The reply to ``door_seat``."""
    return {"type": "ok", "id": id, "seats": seats}


def door_player(id: int | None, *, known: bool) -> DoorPlayerReply:
    """The reply to ``door_player``."""
    return {"type": "ok", "id": id, "known": known}


def bot_added(id: int | None, *, seat: int) -> BotAdded:
    """The reply to ``add_bot``."""
    return {"type": "ok", "id": id, "seat": seat}


def history_page(
    id: int | None,
    *,
    table: str,
    match: int,
    hands: Sequence[HistoryEntry],
    next: int | None,
    lines: Sequence[Chat | Notice] | None = None,
) -> HistoryPage:
    """The reply to ``history``; ``lines`` (None: left out) only on the first page."""
    out: HistoryPage = {
        "type": "ok",
        "id": id,
        "table": table,
        "match": match,
        "hands": list(hands),
        "next": next,
    }
    if lines is not None:
        out["lines"] = list(lines)
    return out


def hint_reply(
    id: int | None, *, seq: int, deals: int, candidates: Sequence[Mapping[str, Any]]
) -> HintReply:
    """The reply to ``hint``."""
    return {"type": "ok", "id": id, "seq": seq, "deals": deals, "candidates": list(candidates)}


def review_reply(
    id: int | None,
    *,
    hand: int,
    decisions: Sequence[Mapping[str, Any]],
    made_for: Sequence[Mapping[str, Any]] = (),
) -> ReviewReply:
    """The reply to ``review``."""
    return {
        "type": "ok",
        "id": id,
        "hand": hand,
        "decisions": list(decisions),
        "made_for": list(made_for),
    }


def standings_reply(
    id: int | None,
    *,
    since: str | None,
    players: Sequence[Mapping[str, Any]],
    tonight: TonightWindow | None = None,
) -> StandingsReply:
    """The reply to ``standings``; ``tonight`` (None: left out) the window a ``since:
    "tonight"`` counted."""
    out: StandingsReply = {"type": "ok", "id": id, "since": since, "players": list(players)}
    if tonight is not None:
        out["tonight"] = tonight
    return out


def error(
    id: int | None, code: str, message: str, *, supported: Sequence[int] | None = None
) -> ErrorReply:
    """An error: the reply to request ``id``, or (``id`` None) about the connection itself;
    ``supported`` (None: left out) only with ``version_unsupported``.

    A ``message`` over :data:`ERROR_MESSAGE_MAX` characters is cut (whatever it quotes can never
    make the reply too big to send), and control characters are taken out of it.

    >>> len(error(4, "bad_rules", "bad value " + "x" * 20000)["message"])
    200
    >>> error(4, "bad_rules", "bad value '\\x1b[2J'")["message"]
    "bad value ''"
    """
    if len(message) > ERROR_MESSAGE_MAX or not message.isprintable():
        message = clean_text(message[: ERROR_MESSAGE_MAX * RAW_TEXT_FACTOR])
        if len(message) > ERROR_MESSAGE_MAX:
            message = message[: ERROR_MESSAGE_MAX - 3] + "..."
    out: ErrorReply = {"type": "error", "id": id, "code": code, "message": message}
    if supported is not None:
        out["supported"] = list(supported)
    return out


def welcome(
    id: int, *, server: str, name: str, table: str | None = None, seat: int | None = None
) -> Welcome:
    """The reply to hello; ``table``/``seat`` name the seat a token took back (else nil)."""
    return {
        "type": "welcome",
        "id": id,
        "version": PROTOCOL_VERSION,
        "server": server,
        "name": name,
        "table": table,
        "seat": seat,
    }


def state(
    *,
    table: str,
    seq: int,
    seat: int | None,
    info: Mapping[str, Any],
    view: Mapping[str, Any] | None,
    last: Mapping[str, Any] | None,
    totals: Sequence[int],
    hand: int,
) -> State:
    """A table snapshot for one recipient: ``view`` must be that recipient's seat view."""
    return {
        **state_shared(table=table, seq=seq, info=info, totals=totals, hand=hand),
        **state_own(seat=seat, view=view, last=last),
    }


def state_shared(
    *, table: str, seq: int, info: Mapping[str, Any], totals: Sequence[int], hand: int
) -> StateShared:
    """The fields of a ``state`` that are the same for everyone at the table."""
    return {
        "type": "state",
        "table": table,
        "seq": seq,
        "totals": list(totals),
        "hand": hand,
        "info": info,
    }


def state_own(
    *, seat: int | None, view: Mapping[str, Any] | None, last: Mapping[str, Any] | None
) -> StateOwn:
    """The fields of a ``state`` built for one recipient: its seat, its view, what it may see of
    the last action."""
    return {"seat": seat, "view": view, "last": last}


def your_turn(
    *,
    table: str,
    seq: int,
    decision: str,
    legal: Sequence[Mapping[str, Any]],
    deadline: float | None,
) -> YourTurn:
    """The prompt to the seat that must act; ``legal`` are action maps without ``seat``."""
    return {
        "type": "your_turn",
        "table": table,
        "seq": seq,
        "decision": decision,
        "legal": [without_seat(a) for a in legal],
        "deadline": deadline,
    }


def without_seat(action: Mapping[str, Any]) -> ActionMap:
    """An action map as a client sends it: the record map minus ``seat``."""
    # A copy and a pop: three times faster than a filtering comprehension, once per legal
    # action of every prompt. The engine's action maps have the keys of ActionMap.
    out = dict(action)
    out.pop("seat", None)
    return cast(ActionMap, out)


def hand_over(
    *,
    table: str,
    seq: int,
    hand: int,
    result: Mapping[str, Any],
    reveal: Mapping[str, Any],
    totals: Sequence[int],
) -> HandOver:
    """The end of hand number ``hand`` (0-based): result breakdown, every card, totals."""
    return {
        "type": "hand_over",
        "table": table,
        "seq": seq,
        "hand": hand,
        "result": result,
        "reveal": reveal,
        "totals": list(totals),
    }


def match_over(*, table: str, seq: int, totals: Sequence[int], hands: int) -> MatchOver:
    """The end of the match: final totals and the number of hands played."""
    return {
        "type": "match_over",
        "table": table,
        "seq": seq,
        "totals": list(totals),
        "hands": hands,
    }


def chat(*, table: str, sender: str, seat: int | None, text: str, spectator: bool = False) -> Chat:
    """A chat line (``from`` is the cleaned name; ``spectator`` true and ``seat`` nil when a
    spectator wrote it)."""
    return {
        "type": "chat",
        "table": table,
        "from": sender,
        "seat": seat,
        "text": text,
        "spectator": spectator,
    }


def notice(
    *,
    table: str | None,
    code: str,
    text: str,
    seat: int | None = None,
    action: Mapping[str, Any] | None = None,
) -> Notice:
    """Something people should read; ``seat`` names the seat concerned, if any; ``action``
    (``timer_expired`` only) the move made for that seat, as the recipient may see it."""
    message: Notice = {"type": "notice", "table": table, "code": code, "text": text, "seat": seat}
    if action is not None:
        message["action"] = action
    return message


def commitment(*, table: str, commitment: str, wait: float) -> Commitment:
    """A new deal commitment ``sha256(server_seed)``: seated clients answer with a seed (§13)."""
    return {"type": "commitment", "table": table, "commitment": commitment, "wait": wait}


def seeds_revealed(*, table: str, commitments: Sequence[RevealedCommitment]) -> SeedsRevealed:
    """The match is over: every commitment's server seed, client seeds and hands (§13)."""
    return {
        "type": "seeds_revealed",
        "table": table,
        "commitments": [cast(RevealedCommitment, dict(c)) for c in commitments],
    }


def ping() -> ServerPing:
    """The server's liveness check; the client answers ``pong``."""
    return {"type": "ping"}


def history_entry(
    *,
    hand: int,
    names: Sequence[str],
    record: Mapping[str, Any],
    payouts: Sequence[int],
    totals: Sequence[int],
    picker: int | None,
    partner: int | None,
    alone: bool,
    leaster: bool,
    doubler: bool,
    picker_side_points: int | None,
    outcome: str,
) -> HistoryEntry:
    """One finished hand in a ``history`` reply: who played it (the seats' names then), its
    record, payouts and the totals after it."""
    return {
        "hand": hand,
        "names": list(names),
        "record": record,
        "payouts": list(payouts),
        "totals": list(totals),
        "picker": picker,
        "partner": partner,
        "alone": alone,
        "leaster": leaster,
        "doubler": doubler,
        "picker_side_points": picker_side_points,
        "outcome": outcome,
    }
