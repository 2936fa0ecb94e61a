"""The client's picture of one table, built only from the messages the server sent.

:class:`TableModel` takes every event (``state``, ``your_turn``, ``hand_over``, ``match_over``,
``chat``, ``notice``) through :meth:`TableModel.apply`, and a ``history`` reply through
:meth:`TableModel.apply_history`, and keeps what the screens show: the seat view, the table
summary, the running totals, the pending decision with its legal actions, the finished hands of
the match, and a log. It knows no rules: what you may do is exactly the ``legal`` list the server
sent. The connection's status is the app's (``SheepsheadApp.status``); the model only logs its
changes (:meth:`TableModel.connection_changed`).

>>> model = TableModel()
>>> model.apply({"type": "chat", "table": "t1", "from": "Bo", "seat": 2, "text": "hi"})
<Change.CHAT: 16>
>>> model.log[-1].text
'Bo: hi'
"""

from __future__ import annotations

import enum
import re
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any, Final, cast

from client.widgets.cards import card_label
from protocol import errors
from protocol.events import (
    ActionMap,
    Chat,
    ErrorReply,
    HandOver,
    HistoryPage,
    MatchOver,
    Notice,
    State,
    YourTurn,
)

NUM_SEATS: Final = 5
LOG_LINES: Final = 300

RECORD_FORMAT: Final = "sheepshead-hand/1"


class Change(enum.Flag):
    """What a message changed, so screens redraw only what they must."""

    NONE = 0
    STATE = enum.auto()
    PROMPT = enum.auto()
    HAND_OVER = enum.auto()
    MATCH_OVER = enum.auto()
    CHAT = enum.auto()
    NOTICE = enum.auto()
    CONNECTION = enum.auto()
    ERROR = enum.auto()
    LOG = enum.auto()


CONNECTION_LINES: Final = {
    "reconnecting": "Connection lost: reconnecting…",
    "closed": "Connection closed",
}
"""The log's line when the connection to the server is lost, by the status it goes to."""

SHUTDOWN_LINE: Final = (
    "The server is shutting down (or restarting): this client reconnects by itself "
    "(a seat you hold is kept)"
)
"""The log's line when the server says it is shutting down (it said 'The server is shutting
down; reconnect later (server_shutdown)': a code, and a chore the client does itself)."""

EMPTY_NAME = "(empty)"
"""The name shown for a seat nobody sits at (the summary gives it none)."""

BEFORE_YOU: Final = "Seat {seat} (before you)"
"""Who made a move in your seat before you took it over mid-hand, in the log, when the server's
state does not say who held the seat (an older server: no seat summary ``before``)."""

Point = tuple[str, float]
"""Where a move stands in the hand, as the seat summary's ``before`` counts (PROTOCOL.md §6.1):
``("decision", j)``, the view's j-th decision (from 0, in the order made), or ``("card", k)``,
the k-th card played."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of the table summary."""

    seat: int
    name: str
    kind: str  # "human" | "bot" | "empty"
    connected: bool
    strategy: str | None = None
    standin: bool = False
    """Whether a stand-in bot plays the seat now (an empty seat in a match, or an absent
    player's once their grace is over)."""
    before: tuple[tuple[str, int, int], ...] = ()
    """Who held the seat earlier in the hand in play, oldest first, with the decisions and
    cards of the hand made when the next holder sat down (the summary's ``before``)."""
    left: bool = False
    """Whether its player left once the match was over (the summary's ``left``): the name
    stays shown with the final totals, and the seat is free."""

    def held_by(self, at: Point | None) -> str | None:
        """The earlier holder who made this seat's move at ``at``; None: its holder now (or
        nobody the summary names)."""
        if at is None:
            return None
        kind, index = at
        for name, decisions, cards in self.before:
            if index < (decisions if kind == "decision" else cards):
                return name
        return None

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this seat."""
        return self.kind == "bot"

    @property
    def is_empty(self) -> bool:
        """Whether nobody sits here."""
        return self.kind == "empty"

    @classmethod
    def from_map(cls, data: Mapping[str, Any], index: int) -> SeatInfo:
        """Read a seat map of the table summary, tolerating missing fields."""
        kind = str(data.get("kind") or "empty")
        name = data.get("name")
        return cls(
            seat=int(data.get("seat", index)),
            name=str(name) if name else (EMPTY_NAME if kind == "empty" else f"Seat {index}"),
            kind=kind,
            connected=bool(data.get("connected", kind != "empty")),
            strategy=data.get("strategy"),
            standin=bool(data.get("standin")),
            before=_holders(data.get("before")),
            left=bool(data.get("left")),
        )


def _holders(raw: Any) -> tuple[tuple[str, int, int], ...]:
    """The seat summary's ``before``, its malformed entries left out."""
    out: list[tuple[str, int, int]] = []
    for entry in raw if isinstance(raw, Sequence) and not isinstance(raw, str) else ():
        if not isinstance(entry, Mapping):
            continue
        name, decisions, cards = entry.get("name"), entry.get("decisions"), entry.get("cards")
        if isinstance(name, str) and isinstance(decisions, int) and isinstance(cards, int):
            out.append((name or "?", decisions, cards))
    return tuple(out)


@dataclass(slots=True)
class Prompt:
    """A ``your_turn`` message: the decision, the legal actions, the turn timer."""

    seq: int
    decision: str
    legal: list[ActionMap]
    deadline: float | None
    received: float

    def remaining(self, now: float | None = None) -> float | None:
        """Seconds left on the turn timer (None when the table has no timer)."""
        if self.deadline is None:
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, self.deadline - (now - self.received))

    def kinds(self) -> set[str]:
        """The ``action`` names among the legal actions."""
        return {str(a.get("action")) for a in self.legal}

    def only(self, action: str) -> bool:
        """Whether every legal action is of this kind (a forced choice needs no "are you
        sure?")."""
        return bool(self.legal) and self.kinds() == {action}

    def cards(self) -> list[str]:
        """The cards you may play now."""
        return [a["card"] for a in self.legal if a.get("action") == "play"]

    def find(self, action: str, **fields: Any) -> ActionMap | None:
        """The legal action of this kind with these fields, or None (bury cards in any order)."""
        for a in self.legal:
            if a.get("action") != action:
                continue
            if all(_same(a.get(k), v) for k, v in fields.items()):
                return a
        return None


def hand_from_history(entry: Mapping[str, Any], names: Sequence[str]) -> FinishedHand:
    """A :class:`FinishedHand` from one entry of a ``history`` reply, played by the entry's
    ``names`` (``names``, the seats' names now, for a server that sends none).

    The record is replayed with the engine for the result panel's detail (points per seat,
    tricks); the entry's own fields (payouts, roles, outcome) win where both say something.
    Raises ValueError when the entry cannot be read.
    """
    from engine.record import RecordError, hand_from_record
    from engine.view import seat_view

    record = entry.get("record")
    try:
        hand = hand_from_record(record)
    except RecordError as exc:
        raise ValueError(f"history: a hand record cannot be replayed: {exc}") from exc
    result = hand.result().breakdown() if hand.is_over else {}
    for key in (
        "payouts",
        "picker",
        "partner",
        "alone",
        "leaster",
        "doubler",
        "picker_side_points",
        "outcome",
    ):
        if key in entry:
            result[key] = entry[key]
    totals = entry.get("totals")
    number = entry.get("hand")
    played = entry.get("names")  # who played it: a seat may have changed hands since
    if isinstance(played, Sequence) and len(played) == NUM_SEATS:
        names = [str(n) for n in played]
    return FinishedHand(
        number=int(number) + 1 if isinstance(number, int) else 0,
        result=result,
        reveal=dict(seat_view(hand, None).get("reveal") or {}),
        totals=[int(t) for t in totals] if isinstance(totals, Sequence) else [0] * NUM_SEATS,
        names=list(names),
        record=dict(record) if isinstance(record, Mapping) else None,
        from_server=True,
        strategies=_record_strategies(record),
    )


def _record_strategies(record: Any) -> list[str | None] | None:
    """A hand record's ``strategies`` (docs/hand-record.md): each seat's server bot strategy
    when the hand was played, None at a person's; None when the record names none."""
    said = record.get("strategies") if isinstance(record, Mapping) else None
    if not isinstance(said, Sequence) or isinstance(said, str) or len(said) != NUM_SEATS:
        return None
    return [s if isinstance(s, str) and s else None for s in said]


def rank_places(totals: Sequence[int]) -> list[tuple[int, int]]:
    """(place, seat) from the highest total down; tied totals share a place.

    >>> rank_places([5, -3, 5, 0, -7])
    [(1, 0), (1, 2), (3, 3), (4, 1), (5, 4)]
    """
    order = sorted(range(len(totals)), key=lambda s: -totals[s])
    out: list[tuple[int, int]] = []
    for i, seat in enumerate(order):
        place = out[-1][0] if i and totals[seat] == totals[order[i - 1]] else i + 1
        out.append((place, seat))
    return out


@dataclass(frozen=True, slots=True)
class SeatChange:
    """A seat played by another player than in the hand before: ``new`` took ``seat`` over from
    ``old`` for the hand numbered ``number`` (its number on the score sheet)."""

    number: int
    seat: int
    old: str
    new: str


def seat_changes(hands: Sequence[FinishedHand]) -> list[SeatChange]:
    """Where a seat changed player during the match, from the hands' ``names`` (who played
    each), in the order of the hands and the seats."""
    out: list[SeatChange] = []
    for before, hand in pairwise(hands):
        for seat in range(min(len(before.names), len(hand.names))):
            if before.names[seat] != hand.names[seat]:
                out.append(SeatChange(hand.number, seat, before.names[seat], hand.names[seat]))
    return out


def _player_key(names: Sequence[str], seat: int) -> str:
    """Whom a seat's payouts go to: its player's name; an empty seat's are its own ("" is
    never a name, so two empty seats are not one player)."""
    name = names[seat] if seat < len(names) else ""
    return name or f"\0{seat}"


def player_running_totals(hands: Sequence[FinishedHand]) -> list[list[int]]:
    """Per hand, per seat: the running total of who played that seat in that hand, counting
    only the hands they played (in any seat). With no seat changing player it is each hand's
    ``totals``: a seat's total is its player's. Once one did, the seat's total would credit its
    new player with what the one before won or lost (Fay −3, Bob −6, the sheet said "Fay −9").

    Each hand adds what the seat's total moved by since the hand before (the server's own
    running totals), so the first hand known carries whatever came before it.
    """
    running: dict[str, int] = {}
    out: list[list[int]] = []
    before: list[int] | None = None
    for hand in hands:
        row: list[int] = []
        for seat in range(NUM_SEATS):
            total = hand.totals[seat] if seat < len(hand.totals) else 0
            moved = total - (before[seat] if before is not None else 0)
            key = _player_key(hand.names, seat)
            running[key] = running.get(key, 0) + moved
            row.append(running[key])
        out.append(row)
        before = [hand.totals[s] if s < len(hand.totals) else 0 for s in range(NUM_SEATS)]
    return out


def player_totals_at(hands: Sequence[FinishedHand], hand: FinishedHand) -> list[int]:
    """The running totals after ``hand`` of who played each of its seats
    (:func:`player_running_totals` over ``hands``, the match's), for its result's "total"
    column; the hand's seat totals when ``hands`` does not have it."""
    for done, totals in zip(hands, player_running_totals(hands), strict=True):
        if done is hand or (done.number == hand.number and done.names == hand.names):
            return totals
    return list(hand.totals)


@dataclass(frozen=True, slots=True)
class PlayerTotal:
    """One player's total for the match: what they won or lost in the hands they played."""

    name: str
    """Their name ("" for a seat nobody held)."""
    seat: int
    """The seat they played last."""
    total: int
    first: int
    """The number of the first hand they played."""
    last: int
    """The number of the last hand they played."""
    since: int
    """The number of the first hand of their last stay in ``seat`` (the hands since it they
    played there one after another)."""
    sits: bool
    """Whether they played their seat's last hand (they hold it at the match's end)."""


def player_totals(
    hands: Sequence[FinishedHand], final: Sequence[int] | None = None
) -> list[PlayerTotal]:
    """Each player who played a hand of ``hands`` with their own total, highest first. The
    seat's players at the end also get what ``final`` (the match's final seat totals) has
    beyond the last hand's totals (a last hand not yet in the history)."""
    if not hands:
        return []
    running = player_running_totals(hands)
    last_hand = hands[-1]
    seen: dict[str, PlayerTotal] = {}
    before: FinishedHand | None = None
    for hand, totals in zip(hands, running, strict=True):
        for seat in range(NUM_SEATS):
            key = _player_key(hand.names, seat)
            had = seen.get(key)
            since = hand.number
            if had is not None and had.seat == seat and before is not None:
                since = had.since if had.last == before.number else since
            seen[key] = PlayerTotal(
                name=hand.names[seat] if seat < len(hand.names) else "",
                seat=seat,
                total=totals[seat],
                first=had.first if had is not None else hand.number,
                last=hand.number,
                since=since,
                sits=False,
            )
        before = hand
    for seat in range(NUM_SEATS):
        key = _player_key(last_hand.names, seat)
        extra = 0
        if final is not None and seat < len(final) and seat < len(last_hand.totals):
            extra = final[seat] - last_hand.totals[seat]
        seen[key] = replace(seen[key], seat=seat, total=seen[key].total + extra, sits=True)
    return sorted(seen.values(), key=lambda p: (-p.total, not p.sits, p.seat))


def plural(count: int, word: str) -> str:
    """``1 hand``, ``2 hands``.

    >>> plural(1, "hand"), plural(3, "hand")
    ('1 hand', '3 hands')
    """
    return f"{count} {word}" + ("" if count == 1 else "s")


def bot_label(strategy: str) -> str:
    """How a server bot is named where bots are told apart by strategy: "heuristic bot".

    The standings count a strategy's bots together across tables (a server bot's seat name,
    "Gus", is its seat's, not its own), so their row is the strategy; the match-over panel
    and the lobby's seat list say "Gus (heuristic bot)" and a seat box "heuristic bot" with
    the same words, so a player can tell which row a bot of their table went into (before,
    the standings said "heuristic (bot)", and nothing at the table named a bot's strategy).

    >>> bot_label("heuristic")
    'heuristic bot'
    """
    return f"{strategy} bot"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list | tuple):
        return sorted(a) == sorted(b)
    return bool(a == b)


@dataclass(slots=True)
class FinishedHand:
    """A hand that ended: the final view (when seen), the result, the revealed cards."""

    number: int
    result: dict[str, Any]
    reveal: dict[str, Any]
    totals: list[int]
    names: list[str]
    view: dict[str, Any] | None = None
    record: dict[str, Any] | None = None
    from_server: bool = False
    """Whether it came from a ``history`` reply (complete even after a restart)."""
    strategies: list[str | None] | None = None
    """Each seat's server bot strategy when the hand ended, as the table summary showed it
    (None at a person's or a remote bot's seat); None: not seen."""

    @property
    def key(self) -> tuple[tuple[str, ...], ...]:
        """Identifies the hand by its deal."""
        return _deal_key(self.reveal)

    def played_by(self, seat: int | None, name: str | None) -> int | None:
        """``seat`` if the hand was played there under ``name`` (yours), else None: whoever
        sits there now took the seat after the hand, and is not to be shown as its player."""
        if seat is None or not 0 <= seat < len(self.names) or self.names[seat] != name:
            return None
        return seat

    def to_record(self) -> dict[str, Any]:
        """The ``sheepshead-hand/1`` record: the server's own, else rebuilt from what was seen.

        The rebuild needs the final view: it holds the rules, the dealer, the passes, the call
        and every trick; the reveal holds the deal and the bury.
        """
        if self.record is not None:
            record = self.record
        elif self.view is None:
            raise ValueError("this hand's final state was not seen, so it cannot be exported")
        else:
            record = rebuild_record(self.view, self.reveal)
        if "strategies" not in record and self.strategies is not None:
            # A rebuilt record, or an older server's: the strategies the table showed.
            record = {**record, "strategies": list(self.strategies)}
        return record


def _deal_key(reveal: Mapping[str, Any] | None) -> tuple[tuple[str, ...], ...]:
    if not reveal:
        return ()
    hands = reveal.get("hands") or []
    return tuple(tuple(sorted(h)) for h in hands)


def rebuild_record(view: Mapping[str, Any], reveal: Mapping[str, Any]) -> dict[str, Any]:
    """A hand record from a finished seat view and the revealed cards (docs/hand-record.md)."""
    dealer = int(view["dealer"])
    actions: list[dict[str, Any]] = []
    passes = list(view.get("passes") or [])
    actions += [{"seat": s, "action": "pass"} for s in passes]
    picker = view.get("picker")
    if picker is not None:
        actions.append({"seat": picker, "action": "pick"})
        for blitz in view.get("blitzes") or []:
            actions.append({"seat": picker, "action": "blitz", "pair": blitz["pair"]})
        buried = list(reveal.get("buried") or [])
        actions.append({"seat": picker, "action": "bury", "cards": buried})
        called = view.get("called")
        if view.get("unknown") and called is not None:
            actions.append(
                {"seat": picker, "action": "unknown", "card": called, "under": view.get("under")}
            )
        elif called is not None:
            actions.append({"seat": picker, "action": "call", "card": called})
        else:
            actions.append({"seat": picker, "action": "alone"})
        actions += _crack_round(view, int(picker))
    for trick in view.get("tricks") or []:
        leader = int(trick["leader"])
        for i, card in enumerate(trick["cards"]):
            actions.append({"seat": (leader + i) % NUM_SEATS, "action": "play", "card": card})
    return {
        "format": RECORD_FORMAT,
        "rules": dict(view.get("rules") or {"preset": "seed"}),
        "dealer": dealer,
        "multiplier": int(view.get("multiplier") or 1),
        "deal": {"hands": [list(h) for h in reveal["hands"]], "blind": list(reveal["blind"])},
        "actions": actions,
    }


def _crack_round(view: Mapping[str, Any], picker: int) -> list[dict[str, Any]]:
    """The crack round's answers and the re-crack of a finished hand (docs/rules.md, "Cracking and
    blitzing"): every seat asked before the cracker (all of them, when nobody cracked) said
    ``no_crack``."""
    from engine.hand import crack_seats
    from engine.rules import RuleSet

    rules = RuleSet.from_dict(view.get("rules") or {})
    crack = view.get("crack")
    out: list[dict[str, Any]] = []
    for seat in crack_seats(rules, int(view["dealer"]), picker):
        if crack is not None and seat == crack.get("seat"):
            action: dict[str, Any] = {"seat": seat, "action": "crack"}
            if crack.get("blitz") is not None:
                action["blitz"] = crack["blitz"]
            out.append(action)
            out.append(
                {"seat": picker, "action": "recrack" if view.get("recrack") else "no_recrack"}
            )
            break
        out.append({"seat": seat, "action": "no_crack"})
    return out


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A line of the table log: ``kind`` is ``event``, ``chat``, ``notice`` or ``error``."""

    kind: str
    text: str


@dataclass(slots=True)
class TableModel:
    """Everything the screens show about the table you sit at (or watch)."""

    table: str | None = None
    seq: int = -1
    info: dict[str, Any] = field(default_factory=dict)
    view: dict[str, Any] | None = None
    last: Mapping[str, Any] | None = None
    totals: list[int] = field(default_factory=lambda: [0] * NUM_SEATS)
    prompt: Prompt | None = None
    history: list[FinishedHand] = field(default_factory=list)
    pending_result: FinishedHand | None = None
    match_over: dict[str, Any] | None = None
    match: int | None = None
    """The match number at this table from the last ``history`` reply (0 the first); None
    while not known (before it, and from a new match's start until its ``history``)."""
    rematches: int = 0
    """How many new matches began at this table while this client watched (panels of an
    earlier match close when it changes)."""
    log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    hand_number: int = 0
    seat: int | None = None
    """Your seat from the last ``state`` (known before the first deal, unlike the view's)."""
    log_count: int = 0
    """How many lines were ever logged (the log itself keeps the latest few hundred)."""
    rematch_told: bool = False
    """Whether a ``rematch`` notice was logged and its new match has not begun here yet (the
    notice is then the log's one line about it)."""
    log_rewrites: int = 0
    """How many times lines were put in the log before its last one (the earlier lines of a
    reconnect): a screen showing the log writes it again from the start."""
    earlier_told: bool = False
    """Whether a ``history``'s lines were taken in since this client came to the table: the
    first ones are older than every line logged here."""
    hand_names: list[str] = field(default_factory=list)
    """Who played each seat of the hand on the table: the seats' names when it was dealt, or
    when a seat was taken later; a seat freed since keeps its player's name (the cards it
    played are still that player's)."""
    joined: tuple[str | None, int] | None = None
    """(table, seat) of the last ``joined`` notice not yet followed by a ``state``: a snapshot
    right after one for your own seat is of a hand you took over, whose moves so far in that
    seat were someone else's."""
    before_you: int | None = None
    """Your seat while the snapshot of a hand you took over is told (:data:`BEFORE_YOU`)."""
    kept_seat: int | None = None
    """Your seat, once the server said it keeps its name for you (``name_kept``: you came back
    under another name): the seat's hands of this match are yours whatever name they give."""
    dropped_at: int | None = None
    """:attr:`log_count` just after the last "Connection lost" line whose reconnect's
    ``history`` lines are not logged yet: what the table said while this client was away
    happened there, before any line logged since (the snapshot's new hand, "Reconnected")."""
    lobby_lines: int = 0
    """How many of the log's first lines were noted in the lobby, at no table
    (:meth:`note_in_lobby`): the next table's first ``state`` drops them."""
    timed_out: tuple[int, int, str, Mapping[str, Any] | None] | None = None
    """(seat, :attr:`log_count` after it, text, ``action``) of the last ``timer_expired``
    notice logged: the move the server made for that seat, in the ``state`` right behind it,
    is not told again when the notice already says all of it (:func:`told_by_timer`)."""

    def reset(self, table: str | None = None) -> None:
        """Forget everything about the last table (a ``joined`` notice already come for the
        new one is kept: the lobby resets as its ``join`` is answered, and the notice and the
        snapshot may come before or after)."""
        joined = self.joined if self.joined is not None and self.joined[0] == table else None
        fresh = TableModel(table=table)
        for name in TableModel.__slots__:
            setattr(self, name, getattr(fresh, name))
        self.joined = joined

    def take_prompt(self) -> Prompt | None:
        """Clear the pending decision as it is answered (so a key cannot send twice)."""
        prompt, self.prompt = self.prompt, None
        return prompt

    def restore_prompt(self, prompt: Prompt | None) -> bool:
        """Put back a prompt whose answer was not sent, unless a newer state replaced it."""
        if self.prompt is None and prompt is not None and self.seq == prompt.seq:
            self.prompt = prompt
            return True
        return False

    def connection_changed(self, old: str, new: str) -> Change:
        """Log a change of the connection (the app keeps the status itself)."""
        if new != old and new in ("reconnecting", "closed"):
            # Not "Connection reconnecting", which read like a slip in the log.
            self._log("notice", CONNECTION_LINES[new])
            if new == "reconnecting" and self.dropped_at is None:
                self.dropped_at = self.log_count
        elif new == "connected" and old == "reconnecting":
            self._log("notice", "Reconnected")
        else:
            return Change.CONNECTION
        return Change.CONNECTION | Change.LOG

    # ------------------------------------------------------------------ reading

    @property
    def my_seat(self) -> int | None:
        """Your seat, or None when you watch."""
        if self.view is not None:
            return self.view.get("seat")
        return self.seat

    @property
    def phase(self) -> str | None:
        """The hand's phase (``pick``, ``bury``, ``call``, ``play``, ``done``) or None."""
        return None if self.view is None else self.view.get("phase")

    @property
    def table_state(self) -> str:
        """``waiting``, ``playing`` or ``over`` (from the table summary)."""
        return str(self.info.get("state") or "waiting")

    @property
    def seats(self) -> list[SeatInfo]:
        """The five seats of the table summary."""
        raw = list(self.info.get("seats") or [])
        out = [SeatInfo.from_map(raw[i], i) if i < len(raw) else None for i in range(NUM_SEATS)]
        return [
            s if s is not None else SeatInfo(i, f"Seat {i}", "empty", False)
            for i, s in enumerate(out)
        ]

    def seat_strategies(self) -> list[str | None] | None:
        """Each seat's server bot strategy as the table summary shows it (None at any other
        seat: the summary names no other), for a hand record's ``strategies``; None before any
        summary came."""
        if not self.info.get("seats"):
            return None
        return [s.strategy if isinstance(s.strategy, str) else None for s in self.seats]

    @property
    def is_full(self) -> bool:
        """Whether every seat is taken."""
        return all(not s.is_empty for s in self.seats)

    def name(self, seat: int | None) -> str:
        """The display name of a seat: an empty seat's, while its hand is on the table, is
        the name of who played it there (:meth:`played_names`)."""
        if seat is None:
            return "nobody"
        info = self.seats[seat]
        if info.is_empty and self.view is not None:
            return self.played_names()[seat]
        return info.name

    def played_names(self) -> list[str]:
        """Who played each seat of the hand on the table: a finished hand's as the match's
        history has them (complete after a reconnect), else :attr:`hand_names`; the seat's name
        now where neither knows."""
        names = [s.name for s in self.seats]
        if len(self.hand_names) == NUM_SEATS:
            names = list(self.hand_names)
        view = self.view
        if view is not None and view.get("phase") == "done":
            key = _deal_key(view.get("reveal"))
            for done in reversed(self.history):
                if key and done.key == key and len(done.names) == NUM_SEATS:
                    # The server's names an empty seat "": the name kept here is better.
                    return [n or names[i] for i, n in enumerate(done.names)]
        return names

    def held_by(self, seat: int | None, at: Point | None) -> str | None:
        """Who made ``seat``'s move at ``at`` in the hand on the table if an earlier holder of
        the seat did (the summary's ``before``), else None."""
        if seat is None or at is None or not 0 <= seat < NUM_SEATS:
            return None
        return self.seats[seat].held_by(at)

    def who(self, seat: int | None, you: str = "You", at: Point | None = None) -> str:
        """A seat as the subject of a sentence: ``you`` (``You``) for your own seat, else its
        name; for its move at ``at``, the name of the earlier holder who made it; in a hand
        somebody else played in the seat (:meth:`played_names`), theirs."""
        earlier = self.held_by(seat, at)
        if earlier is not None:
            return earlier
        if seat is not None and 0 <= seat < NUM_SEATS:
            played = self.played_names()[seat]
            if played and played != self.seats[seat].name:
                # The finished hand on the table was somebody else's in this seat (it was
                # left after the match, and Bob sat down): the last trick read "You 10♥".
                return played
        if seat is not None and seat == self.my_seat:
            return you
        return self.name(seat)

    def trick_names(self, number: int) -> list[str]:
        """Who played each seat's card of trick ``number`` (from 0) of the hand on the table:
        :meth:`played_names`, an earlier holder for the cards they played."""
        names = self.played_names()
        tricks = (self.view or {}).get("tricks") or []
        if 0 <= number < len(tricks):
            leader = int(tricks[number].get("leader") or 0)
            for seat in range(NUM_SEATS):
                at = ("card", 5 * number + (seat - leader) % NUM_SEATS)
                names[seat] = self.held_by(seat, at) or names[seat]
        return names

    def says(self, seat: int | None, verb: str, at: Point | None = None) -> str:
        """``You pass`` / ``Bob passes``: the seat and the verb in the right person; a move at
        ``at`` made by an earlier holder of the seat is theirs (``Gus passes``); a move made in
        your seat before you took it over, when the server does not say by whom (an older
        one), is :data:`BEFORE_YOU`'s."""
        earlier = self.held_by(seat, at)
        if earlier is not None:
            subject = earlier
        elif seat is not None and seat == self.before_you:
            subject = BEFORE_YOU.format(seat=seat)
        elif seat is not None and seat == self.my_seat:
            return f"You {verb}"
        else:
            subject = self.name(seat)
        if verb.endswith(("s", "sh", "ch", "o", "x", "z")):
            third = verb + "es"
        elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
            third = verb[:-1] + "ies"
        else:
            third = verb + "s"
        return f"{subject} {third}"

    @property
    def blind_cards(self) -> list[str]:
        """The blind the picker took (seen only in the picker's own view)."""
        return list((self.view or {}).get("blind") or [])

    @property
    def buried_cards(self) -> list[str]:
        """The picker's bury (seen only in the picker's own view)."""
        return list((self.view or {}).get("buried") or [])

    @property
    def is_host(self) -> bool:
        """Whether you are the table's host (the host is named in the summary)."""
        seat = self.my_seat
        if seat is None:
            return False
        if "host_seat" in self.info:
            return bool(self.info["host_seat"] == seat)
        return bool(self.info.get("host")) and self.info.get("host") == self.seats[seat].name

    @property
    def hand(self) -> list[str]:
        """Your cards in display order."""
        return [] if self.view is None else list(self.view.get("hand") or [])

    @property
    def legal(self) -> list[ActionMap]:
        """The legal actions of the pending decision (empty when it is not your turn)."""
        return [] if self.prompt is None else self.prompt.legal

    def decision_key(self) -> tuple[int, int, list[ActionMap]] | None:
        """The pending decision told apart from every other (None when it is not your turn):
        the match, the hand and the legal actions. A seat never has the same legal actions
        twice in a hand, but the next hand's pick (after a doubler, say) has the same two as
        this one's: advice asked about one is not about the other (the coach's ``hint``)."""
        if self.prompt is None:
            return None
        return (self.rematches, self.hand_number, self.prompt.legal)

    @property
    def legal_cards(self) -> list[str]:
        """The cards you may play now."""
        return [] if self.prompt is None else self.prompt.cards()

    @property
    def decision(self) -> str | None:
        """What you must decide now (``pick``, ``bury``, ``call``, ``play``) or None."""
        return None if self.prompt is None else self.prompt.decision

    @property
    def turn(self) -> int | None:
        """The seat whose turn it is."""
        return None if self.view is None else self.view.get("turn")

    @property
    def last_trick(self) -> dict[str, Any] | None:
        """The latest finished trick of this hand."""
        if self.view is not None and self.view.get("tricks"):
            return dict(self.view["tricks"][-1])
        return None

    @property
    def partner(self) -> int | None:
        """The partner's seat once you may know it."""
        if self.view is None or not self.view.get("partner_known"):
            return None
        return self.view.get("partner")

    # ------------------------------------------------------------------ applying

    def apply(self, msg: Mapping[str, Any]) -> Change:
        """Take one server event into the model; return what it changed."""
        kind = msg.get("type")
        handler = _HANDLERS.get(str(kind))
        if handler is None:
            return Change.NONE
        return handler(self, msg)

    def _on_state(self, msg: State) -> Change:
        change = Change.STATE
        seq = msg.get("seq")
        applied = seq != self.seq  # else ``last`` repeats the state before's (PROTOCOL.md §6)
        if isinstance(seq, int):
            self.seq = seq
        if self.lobby_lines and self.table is None and msg.get("table") is not None:
            # Lines about the table left (it closed, the seat was not taken back) stood at
            # the top of the next table's log when its snapshot came before the lobby reset
            # the model for it: "bob's table has closed" over a new table of that name.
            for _ in range(min(self.lobby_lines, len(self.log))):
                self.log.popleft()
            self.lobby_lines = 0
            self.log_rewrites += 1
        self.table = msg.get("table", self.table)
        seat = msg.get("seat")
        self.seat = seat if isinstance(seat, int) else None
        info = msg.get("info")
        if isinstance(info, Mapping):
            before = self.seats if self.info.get("id") == info.get("id") else None
            self.info = dict(info)
            if before is not None:
                change |= self._note_freed_seats(before)
            if self.match_over is not None and info.get("state") in ("waiting", "playing"):
                change |= self._new_match()
            elif self.match_over is None and info.get("state") == "over":
                # Back at a table whose match ended while this client was away.
                totals = msg.get("totals")
                self.match_over = {
                    "type": "match_over",
                    "totals": list(totals) if isinstance(totals, Sequence) else list(self.totals),
                    "hands": info.get("hands_played"),
                }
                change |= Change.MATCH_OVER
        number = msg.get("hand")
        if isinstance(number, int):
            self.hand_number = number + 1
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        old = self.view
        view = msg.get("view")
        self.view = dict(view) if isinstance(view, Mapping) else None
        if (
            self.view is not None
            and self.view.get("phase") != "done"
            and self.table_state == "over"
        ):
            # The hand the host's end_match abandoned is no hand any more: shown, its cards
            # stayed in every hand under "Match over", and one who sat down after the end was
            # shown a bot's cards and tricks as "You".
            self.view = None
            if old is not None and old.get("phase") != "done":
                # Seen in play here: its cards went without a word, and the log's "Match over
                # after 5 hands" left the player of hand 6 to count which hands counted.
                self._log("event", f"Hand {self.hand_number} was not finished: it does not count")
                change |= Change.LOG
        self.last = msg.get("last")
        self._track_players(old, self.view)
        if self.prompt is not None and self.prompt.seq != self.seq:
            self.prompt = None
            change |= Change.PROMPT
        joined, self.joined = self.joined, None
        took_over = (
            old is None
            and joined is not None
            and joined[0] in (None, self.table)
            and joined[1] == self.my_seat
        )
        named = took_over and self.my_seat is not None and self.seats[self.my_seat].before
        self.before_you = self.my_seat if took_over and not named else None
        try:
            change |= self._narrate(old, self.view, self.last if applied else None)
        finally:
            self.before_you = None
        if self.view is not None and self.view.get("phase") == "done":
            change |= self._finish(
                result=self.view.get("result") or {},
                reveal=self.view.get("reveal") or {},
                view=self.view,
            )
        return change

    def _note_freed_seats(self, before: Sequence[SeatInfo]) -> Change:
        """Log each bot whose seat the summary shows empty now: the host's ``remove_bot`` is
        the one way a server bot leaves, and the server sends everyone only the new summary
        (the seat box changed and nobody read who had gone)."""
        change = Change.NONE
        host = self.info.get("host")
        who = "You" if self.is_host else str(host or "The host")
        for old, new in zip(before, self.seats, strict=True):
            if not (old.is_bot and new.is_empty):
                continue
            self._log("event", f"{who} freed seat {new.seat}: {old.name} (bot) left")
            change |= Change.LOG
        return change

    def _track_players(self, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> None:
        """Keep :attr:`hand_names` for the hand on the table: a seat emptied during or after
        the hand (the host's ``remove_bot``, a player's ``leave``) keeps who played it."""
        now = [s.name for s in self.seats]
        if new is None or old is None or _is_new_hand(old, new) or not self.hand_names:
            self.hand_names = now
            return
        self.hand_names = [
            kept if seat.is_empty else seat.name
            for kept, seat in zip(self.hand_names, self.seats, strict=True)
        ]

    def _on_your_turn(self, msg: YourTurn) -> Change:
        legal = [cast(ActionMap, dict(a)) for a in msg.get("legal") or [] if isinstance(a, Mapping)]
        for a in legal:
            a.pop("seat", None)
        deadline = msg.get("deadline")
        self.prompt = Prompt(
            seq=int(msg.get("seq", self.seq)),
            decision=str(msg.get("decision") or ""),
            legal=legal,
            deadline=float(deadline) if isinstance(deadline, int | float) else None,
            received=time.monotonic(),
        )
        return Change.PROMPT

    def _on_hand_over(self, msg: HandOver) -> Change:
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        number = msg.get("hand")
        change = self._finish(
            result=dict(msg.get("result") or {}),
            reveal=dict(msg.get("reveal") or {}),
            view=None,
            number=number + 1 if isinstance(number, int) else None,
        )
        return change | Change.STATE

    def _on_match_over(self, msg: MatchOver) -> Change:
        self.match_over = dict(msg)
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        if msg.get("hands") == 0:  # ended before a deal, or during the first hand: no scores
            # Not "before its first hand": the host's end during hand 1 read so, under "Hand 1
            # was not finished: it does not count".
            self._log("event", "The match ended with no hand finished")
            return Change.MATCH_OVER | Change.LOG
        # Your own total as "you", as the log says "You take" (it read "root +0").
        best = ", ".join(
            f"{'you' if s == self.my_seat else self.name(s)} {self.totals[s]:+d}"
            for _, s in rank_places(self.totals)
        )
        self._log("event", f"Match over after {self.match_hands_text()}: {best}")
        return Change.MATCH_OVER | Change.LOG

    def match_had_no_hand(self) -> bool:
        """Whether the match is over with no hand finished (the host ended it during its first
        hand, or before a deal): nothing to show in the history nor to export."""
        return self.match_over is not None and self.match_over.get("hands") == 0

    def match_hands_text(self) -> str:
        """``1 hand`` / ``10 hands``: how many hands the finished match had."""
        hands = (self.match_over or {}).get("hands")
        return plural(hands if isinstance(hands, int) else len(self.history), "hand")

    def _on_chat(self, msg: Chat) -> Change:
        self._log("chat", chat_line(msg))
        return Change.CHAT

    def _on_notice(self, msg: Notice) -> Change:
        text = self.notice_text(msg)
        self._log("notice", text)
        seat = msg.get("seat")
        if msg.get("code") == "timer_expired" and isinstance(seat, int):
            told = msg.get("action")  # an older server's notice has none
            told = told if isinstance(told, Mapping) else None
            self.timed_out = (seat, self.log_count, text, told)
        if msg.get("code") == "joined" and isinstance(seat, int):
            self.joined = (msg.get("table"), seat)
        if msg.get("code") == "rematch":
            self.rematch_told = True
        if msg.get("code") == "name_kept" and isinstance(seat, int) and seat == self.my_seat:
            self.kept_seat = seat
        return Change.NOTICE

    def your_seat_in(self, hand: FinishedHand) -> int | None:
        """Your row in ``hand`` (marked "*", you): the seat you hold, unless somebody else
        played the hand there (it names another player than the seat's now, who sat down
        since). Marked by seat for the seat the server said keeps its name for you
        (``name_kept``), whatever name you came back under."""
        seat = self.my_seat
        if seat is None:
            return None
        if seat == self.kept_seat:
            return seat
        return hand.played_by(seat, self.seats[seat].name)

    def notice_text(self, msg: Mapping[str, Any], my_seat: int | None = None) -> str:
        """A notice's text; one about this client's own seat (``my_seat`` when the table has
        not said it yet: a join's reply) in the second person."""
        seat = msg.get("seat")
        code = str(msg.get("code"))
        own = _YOUR_NOTICES.get(code)
        mine = self.my_seat if my_seat is None else my_seat
        if mine is None and code == "joined" and msg.get("table") not in (None, self.table):
            # A table's notices come only to who is at it: one about a table this client is
            # not at yet is its own join's, which the server tells before it answers (the
            # log kept "Hal took seat 3", and the history's "You took seat 3" came again).
            mine = seat
        if own is not None and seat is not None and seat == mine:
            if code == "timer_expired":
                return own_timer_text(str(msg.get("text", "")))
            return own.format(seat=seat)
        return str(msg.get("text", ""))

    def _earlier_notice_text(self, msg: Mapping[str, Any]) -> str:
        """:meth:`notice_text` of a line the table said before now: one about your seat is
        yours only if it names you, the seat's player now (every such notice names its
        player). Dee, seated where bob sat, read bob's "You were disconnected", "You are back"
        and "You started a new match at this table" under "── Earlier at this table"."""
        seat = msg.get("seat")
        if isinstance(seat, int) and seat == self.my_seat and 0 <= seat < len(self.seats):
            text = str(msg.get("text", ""))
            name = self.seats[seat].name
            if str(msg.get("code")) in _YOUR_NOTICES and not names_player(text, name):
                return text
        return self.notice_text(msg)

    def notice_short(self, msg: Mapping[str, Any], my_seat: int | None = None) -> str:
        """A notice's text for a pop-up: :meth:`notice_text`, or the few words of a long one
        about this client's seat (the whole ``name_kept`` ran off an 80x24 terminal's bottom
        under the other pop-ups of a reconnect, and went in 4 s)."""
        seat = msg.get("seat")
        short = _SHORT_NOTICES.get(str(msg.get("code")))
        mine = self.my_seat if my_seat is None else my_seat
        if short is not None and isinstance(seat, int) and seat == mine:
            return short.format(seat=seat, name=self.seats[seat].name)
        return self.notice_text(msg, my_seat)

    def _new_match(self) -> Change:
        """A rematch began at this table: the last match's hands and result are put away (and
        its number: the next ``history`` says the new one's)."""
        self.match_over = None
        self.match = None
        self.history = []
        self.pending_result = None
        self.hand_number = 0
        self.rematches += 1
        if self.rematch_told:  # the host's notice said it ("Ann started a new match ...")
            self.rematch_told = False
            return Change.MATCH_OVER | Change.HAND_OVER
        self._log("event", "── A new match at this table")
        return Change.MATCH_OVER | Change.HAND_OVER | Change.LOG

    def apply_history(self, reply: HistoryPage, *, first_page: bool = True) -> Change:
        """Take in one page of a ``history`` reply: the finished hands of the current match
        replace those this client saw (they are complete, whenever the client came), and on the
        first page the table's last chat and notice lines are logged once."""
        change = Change.NONE
        match = reply.get("match")
        if isinstance(match, int):
            if self.match is not None and match != self.match:
                # A new match began: its hands count from 1 again. Away across the last one's
                # end (no match_over came here) its hands are still held: put away all the
                # same, not mixed with the new one's (the hand now on the table is kept).
                if self.match_over is None:
                    said = reply.get("lines") or []
                    told = any(isinstance(m, Mapping) and m.get("code") == "rematch" for m in said)
                    self.rematch_told = self.rematch_told or (first_page and told)
                number = self.hand_number
                change |= self._new_match()
                self.hand_number = number
            self.match = match
        names = [s.name for s in self.seats]
        seen = {h.number: h for h in self.history}
        for entry in reply.get("hands") or []:
            if not isinstance(entry, Mapping):
                continue
            hand = hand_from_history(entry, names)
            old = seen.get(hand.number)
            if old is not None:
                # The same object, completed: a result panel showing it stays as it is.
                if isinstance(entry.get("names"), Sequence):
                    # Who played it: a first state after the match names who sits there now.
                    old.names = hand.names
                if hand.strategies is not None:
                    # Who played it, bot or not, as the server's names say: a seat taken by a
                    # person since showed the bot's name without "(heuristic bot)".
                    old.strategies = hand.strategies
                old.result = {**old.result, **hand.result}
                old.reveal = hand.reveal or old.reveal
                old.totals = hand.totals
                old.record = old.record or hand.record
                old.from_server = True
            else:
                seen[hand.number] = hand
            change |= Change.HAND_OVER
        if change & Change.HAND_OVER:
            self.history = [seen[n] for n in sorted(seen)]
        lines = reply.get("lines")
        if first_page and isinstance(lines, Sequence):
            change |= self._earlier_lines([m for m in lines if isinstance(m, Mapping)])
            self.dropped_at = None
        return change

    def _earlier_lines(self, lines: Sequence[Chat | Notice]) -> Change:
        """Log the table's recent chat and notices that this client has not logged yet.

        Each line the log shows accounts for one line of the table's, matched from the newest
        back: the log's one "You are back" is the latest of the table's, and an earlier one
        (with the "You were disconnected" of a second drop) is still new here, where a set of
        texts let a line shown once hide every other line saying the same."""
        entries = list(self.log)
        # Just come to the table (not back from a drop): every line logged here, the
        # snapshot's "── Hand 1: Ann deals" first, came after the table's earlier lines (a
        # watcher read that line above "── Earlier at this table", and nothing after "── Now").
        first = not self.earlier_told and self.dropped_at is None
        self.earlier_told = True
        shown: dict[str, list[int]] = {}  # a text's places in the log, the newest last
        for place, e in enumerate(entries):
            if e.kind in ("chat", "notice"):
                shown.setdefault(e.text, []).append(place)
        missing = []
        matched: list[int] = []  # where the table's lines already shown were logged, newest first
        newer = 0  # how many of them are newer than the oldest missing line
        for msg in reversed(lines):
            kind = str(msg.get("type"))
            if kind not in ("chat", "notice"):
                continue
            text = chat_line(msg) if kind == "chat" else self._earlier_notice_text(msg)
            places = shown.get(text)
            if places:
                matched.append(places.pop())
            else:
                missing.append(LogEntry(kind, text))
                newer = len(matched)
        missing.reverse()
        if not missing:
            return Change.NONE
        block = [
            LogEntry("event", "── Earlier at this table"),
            *missing,
            LogEntry("event", "── Now"),
        ]
        # Just come to the table (a new process rejoining its seat, a watcher come mid-match):
        # first, before everything this process logged, the hand it found included (the block
        # came after that hand's lines, before the "You are back" they matched). Else before
        # the first line logged that came after them (the "You are back" of a reconnect), and
        # before every line logged since the connection dropped: the new hand the reconnect's
        # snapshot told came after them (the block came after its first lines, out of order).
        at = 0 if first else min(matched[:newer], default=len(entries))
        if self.dropped_at is not None:
            at = min(at, max(0, self.dropped_at - (self.log_count - len(entries))))
        if at < len(entries) and entries[at].kind == "event" and entries[at].text.startswith("── "):
            # The hand's own heading comes next and marks where now begins: a newcomer read
            # "── Now" and, right under it, "── Hand 3: Ann deals".
            block.pop()
        if at == len(entries):
            for entry in block:
                self._log(entry.kind, entry.text)
        else:
            self.log = deque(entries[:at] + block + entries[at:], maxlen=LOG_LINES)
            self.log_count += len(block)
            self.log_rewrites += 1
        return Change.LOG | Change.CHAT

    def _on_error(self, msg: ErrorReply) -> Change:
        code = msg.get("code", "error")
        if code == errors.SERVER_SHUTDOWN:
            # The server's text says 'reconnect later': this client does, by itself.
            self._log("notice", SHUTDOWN_LINE)
            return Change.ERROR
        if code == errors.BAD_TOKEN:
            # The server's text ends "join a table": untrue once the lobby has taken a seat
            # of the player key back, and this line then stood in that table's log.
            self._log("error", f"The seat token this client kept is no longer valid ({code})")
            return Change.ERROR
        self._log("error", f"{msg.get('message', 'error')} ({code})")
        return Change.ERROR

    # ------------------------------------------------------------------ helpers

    def note(self, kind: str, text: str) -> None:
        """Add a line to the table log (``kind`` as in :class:`LogEntry`)."""
        self._log(kind, text)

    def note_in_lobby(self, kind: str, text: str) -> None:
        """Add a line about the table just left to the log of a model reset for the lobby:
        the next table's log begins without it (:attr:`lobby_lines`)."""
        self._log(kind, text)
        self.lobby_lines += 1

    def _log(self, kind: str, text: str) -> None:
        self.log.append(LogEntry(kind, text))
        self.log_count += 1

    def _finish(
        self,
        result: dict[str, Any],
        reveal: dict[str, Any],
        view: dict[str, Any] | None,
        number: int | None = None,
    ) -> Change:
        key = _deal_key(reveal)
        for done in self.history:
            if done.key == key and key:
                if view is not None:
                    done.view = view
                if result:
                    done.result = result
                done.totals = list(self.totals)
                return Change.NONE
        finished = FinishedHand(
            number=number or self.hand_number or len(self.history) + 1,
            result=result,
            reveal=reveal,
            totals=list(self.totals),
            names=self.played_names(),
            view=view,
            strategies=self.seat_strategies(),
        )
        self.history.append(finished)
        self.pending_result = finished
        self._log("event", _result_line(self, result))
        return Change.HAND_OVER | Change.LOG

    def _narrate(self, old: dict[str, Any] | None, new: dict[str, Any] | None, last: Any) -> Change:
        """Log lines for what just happened: a new deal, a pick, a call, a finished trick."""
        if new is None:
            return Change.NONE
        change = Change.NONE
        fresh = old is None or _is_new_hand(old, new)
        if fresh and new.get("phase") != "done":
            if not self.hand_number:
                self.hand_number = int(self.info.get("hands_played") or 0) + 1
            self._log("event", f"── Hand {self.hand_number}: {self.name(new.get('dealer'))} deals")
            if new.get("multiplier", 1) > 1:
                self._log("event", f"Stakes ×{new['multiplier']} (doubler)")
            change |= Change.LOG
        # What the view says was done in this hand and the log has not told yet: all of it
        # after a late join, what happened while away after a reconnect (PROTOCOL.md's
        # ``last`` names only the latest action).
        told = [] if fresh or old is None else _public_actions(old)
        public = _public_actions(new)
        missed = public[len(told) :]
        if fresh and new.get("phase") == "done":
            missed = []  # came at a hand's end: its result line tells it
        # Where ``last`` stands among the view's decisions, for a snapshot's (made before this
        # client came, maybe by an earlier holder of the seat); a later state's is its
        # holder's now. A no_crack answer, which no view shows, is taken as just before the
        # next decision.
        last_at: Point | None = ("decision", len(public) - 0.5) if old is None else None
        if isinstance(last, Mapping) and missed and _same_action(missed[-1], last):
            missed.pop()  # ``last`` tells it, with what only it carries (your bury's cards)
            last_at = ("decision", len(public) - 1) if old is None else None
        # The crack round's "does not crack" answers, which the view shows only by where the
        # round stands: a reconnect's rebuilt log left them out.
        unshown = [] if fresh and new.get("phase") == "done" else _unshown_answers(new)
        unshown = unshown[len(_unshown_answers(old)) if old is not None and not fresh else 0 :]
        if isinstance(last, Mapping) and unshown and _same_action(unshown[-1][1], last):
            unshown.pop()  # ``last`` tells it
        for place, action in [*enumerate(missed, len(told)), (len(public), None)]:
            while unshown and (action is None or unshown[0][0] <= place):
                position, answer = unshown.pop(0)
                line = _action_line(self, answer, ("decision", position - 0.5))
                if line:
                    self._log("event", line)
                    change |= Change.LOG
            if action is None:
                break
            line = _action_line(self, action, ("decision", place))
            if line:
                self._log("event", line)
                change |= Change.LOG
        if not fresh and new == old:
            # Nothing happened in the hand: the table's summary changed (a seat freed, a player
            # back), and its state, with a seq of its own, repeats the ``last`` already told.
            last = None
        if isinstance(last, Mapping) and "action" in last:
            line = _action_line(self, last, last_at)
            timed_out = self.timed_out
            if (
                line
                and timed_out is not None
                and timed_out[:2] == (last.get("seat"), self.log_count)  # the line just before
                and told_by_timer(timed_out[2], timed_out[3], last, line)
            ):
                # "Time ran out for you; passed for you" then "You pass": said once.
                line = None
            if line:
                self._log("event", line)
                change |= Change.LOG
        old_tricks = 0 if old is None or fresh else len(old.get("tricks") or [])
        tricks = new.get("tricks") or []
        for number in range(old_tricks, len(tricks)):
            t = tricks[number]
            taken: Point = ("card", 5 * number + 4)  # its last card: taken as it was played
            self._log(
                "event",
                f"Trick {number + 1}: {self.says(t.get('winner'), 'take', taken)} "
                f"{t.get('points', 0)}",
            )
            change |= Change.LOG
        if not fresh and old is not None and not old.get("leaster") and new.get("leaster"):
            self._log("event", "Everyone passed: leaster")
            change |= Change.LOG
        return change


_YOUR_NOTICES: Final = {
    "joined": "You took seat {seat}",
    "reconnected": "You are back",
    "host": "You are now the host",
    "rematch": "You started a new match at this table",
    "standin": "A bot played for you while you were away",
    "disconnected": "You were disconnected",
    "timer_expired": "Time ran out for you; a bot moved",
}
"""Notices about the reader's own seat, by code, as that reader sees them (PROTOCOL.md §6)."""


def own_timer_text(text: str) -> str:
    """A ``timer_expired`` notice about the reader's own seat, in the second person: what the
    server says it did "for them" (after the "; " that follows the name) done "for you"; the
    plain words when it says nothing of the kind (a server from before it said what it did).

    >>> own_timer_text("Time ran out for ann; passed for them")
    'Time ran out for you; passed for you'
    >>> own_timer_text("Time ran out for ann; a bot moved")
    'Time ran out for you; a bot moved'
    """
    _, said, what = text.rpartition("; ")  # a name may hold "; ", the words after it never
    if said and " for them" in what:
        return f"Time ran out for you; {what.replace(' for them', ' for you', 1)}"
    return _YOUR_NOTICES["timer_expired"]


_TIMER_WORDS: Final = {
    "pass": "passed for ",
    "pick": "picked for ",
    "alone": "went alone for ",
    "no_crack": "no crack for ",
    "no_recrack": "no re-crack for ",
    "bury": "a bot buried for ",
}
"""The words of a ``timer_expired`` notice (PROTOCOL.md §10) that say all of the move made, by
its kind; a card played or called is said only by the move's own line."""


def told_by_timer(
    notice: str, told: Mapping[str, Any] | None, action: Mapping[str, Any], line: str
) -> bool:
    """Whether the ``timer_expired`` notice (its text ``notice``, its ``action`` ``told``)
    says all that the state's ``action``, logged as ``line``, would: it names that very move
    (``told``, as this reader may see it), and its kind is one the notice's words say whole,
    the pass, pick or no crack, a bury whose cards are not shown (another seat's). The line
    for your own bury names its cards, a call its card. A notice without ``action`` (an older
    server's) is read by its words, and one that only said "a bot moved" names nothing.

    >>> told_by_timer("Time ran out for you; passed for you", None, {"action": "pass"}, "")
    True
    >>> told_by_timer("Time ran out for you; a bot moved", None, {"action": "pass"}, "")
    False
    >>> passed = {"seat": 0, "action": "pass"}
    >>> told_by_timer("Ann: time's up", passed, passed, "")  # the field, whatever the words
    True
    >>> bury = {"seat": 1, "action": "bury"}
    >>> told_by_timer("Time ran out for Bob; a bot buried for them", bury, bury, "")
    True
    >>> mine = {**bury, "cards": ["7D", "8D"]}
    >>> told_by_timer("Time ran out for you; a bot buried for you", mine, mine, "")
    False
    >>> told_by_timer("Time ran out for Bob; a bot buried for them", None, bury, "... 2 cards")
    True
    """
    kind = str(action.get("action"))
    if told is not None:
        return told == action and kind in _TIMER_WORDS and "cards" not in action
    words = _TIMER_WORDS.get(kind)
    said = notice.rpartition("; ")[2]  # a name may hold "; ", the words after it never
    if words is None or not said.startswith(words):
        return False
    return kind != "bury" or line.endswith(" 2 cards")


def names_player(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole word ("Al" is not named in "Alice is back").

    >>> names_player("Time ran out for bob; a bot moved", "bob")
    True
    >>> names_player("bobby is back", "bob")
    False
    """
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


_SHORT_NOTICES: Final = {
    "name_kept": "You are back at seat {seat} as {name}: a seat keeps its name for the match"
    " (the log says more)",
}
"""The pop-up's words for a notice whose whole text is longer than a pop-up shows, by code:
the log keeps the whole text."""


def _is_new_hand(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    if old.get("dealer") != new.get("dealer"):
        return True
    if old.get("phase") == "done" and new.get("phase") != "done":
        return True
    return len(new.get("tricks") or []) < len(old.get("tricks") or [])


def _public_actions(view: Mapping[str, Any]) -> list[ActionMap]:
    """The hand's decisions so far that a seat view shows, in the order they were made:
    passes, pick, blitzes, bury, call (or alone), crack and re-crack (not the ``no_crack``
    answers, which a view does not keep)."""
    out: list[ActionMap] = [{"seat": s, "action": "pass"} for s in view.get("passes") or []]
    picker = view.get("picker")
    if picker is None:
        return out
    out.append({"seat": picker, "action": "pick"})
    for blitz in view.get("blitzes") or []:
        out.append({"seat": picker, "action": "blitz", "pair": blitz.get("pair")})
    if view.get("phase") in ("pick", "bury"):
        return out
    out.append({"seat": picker, "action": "bury", "cards": list(view.get("buried") or [])})
    called = view.get("called")
    if view.get("unknown") and called is not None:
        out.append({"seat": picker, "action": "unknown", "card": called})
    elif called is not None:
        out.append({"seat": picker, "action": "call", "card": called})
    elif view.get("alone"):
        out.append({"seat": picker, "action": "alone"})
    crack = view.get("crack")
    if crack is not None:
        out.append({"seat": crack.get("seat"), "action": "crack", "blitz": crack.get("blitz")})
        if view.get("recrack"):
            out.append({"seat": picker, "action": "recrack"})
    return out


def _unshown_answers(view: Mapping[str, Any]) -> list[tuple[int, ActionMap]]:
    """The ``no_crack`` and ``no_recrack`` answers given so far in ``view``'s hand, each with
    the number of :func:`_public_actions` made before it: the view shows them only by where
    the crack round stands (its turn, the cracker, the phase after it)."""
    from engine.hand import crack_seats
    from engine.rules import RuleSet

    phase = view.get("phase")
    picker = view.get("picker")
    if picker is None or view.get("dealer") is None or phase in ("pick", "bury", "call"):
        return []
    public = len(_public_actions(view))
    crack = view.get("crack")
    try:
        asked = crack_seats(RuleSet.from_dict(view.get("rules") or {}), int(view["dealer"]), picker)
    except (TypeError, ValueError):  # rules this client cannot read: nothing said
        return []
    stop = view.get("turn") if phase == "crack" else None if crack is None else crack.get("seat")
    at = public - (1 + bool(view.get("recrack"))) if crack is not None else public
    out: list[tuple[int, ActionMap]] = []
    for seat in asked:
        if seat == stop:
            break
        out.append((at, {"seat": seat, "action": "no_crack"}))
    if crack is not None and not view.get("recrack") and phase in ("play", "done"):
        out.append((public, {"seat": picker, "action": "no_recrack"}))
    return out


def _same_action(action: Mapping[str, Any], last: Mapping[str, Any]) -> bool:
    return action.get("seat") == last.get("seat") and action.get("action") == last.get("action")


def _action_line(model: TableModel, last: Mapping[str, Any], at: Point | None = None) -> str | None:
    """The log line of a decision; ``at``: where it stands in the hand (who made it, when an
    earlier holder of the seat did)."""
    seat = last.get("seat")
    kind = last.get("action")
    if kind == "pick":
        return model.says(seat, "pick", at)
    if kind == "pass":
        return model.says(seat, "pass", at)
    if kind == "bury":
        # Only your own bury is yours to see, whatever the message carries.
        mine = seat == model.my_seat and model.held_by(seat, at) is None
        cards = last.get("cards") if mine else None
        shown = " ".join(card_label(c) for c in cards) if cards else "2 cards"
        return f"{model.says(seat, 'bury', at)} {shown}"
    if kind == "call":
        return f"{model.says(seat, 'call', at)} {card_label(str(last.get('card')))}"
    if kind == "alone":
        return f"{model.says(seat, 'go', at)} alone"
    if kind == "unknown":
        card = card_label(str(last.get("card")))
        return f"{model.says(seat, 'call', at)} {card} with an unknown card"
    return _stakes_line(model, seat, last, at)


_PAIR_WORDS: Final = {"black": "black queens (Q♣ Q♠)", "red": "red queens (Q♥ Q♦)"}
"""How a queen pair is named in the log and on screen."""


def _stakes_line(
    model: TableModel, seat: Any, last: Mapping[str, Any], at: Point | None = None
) -> str | None:
    """The log line of a blitz, crack or re-crack decision (docs/rules.md, "Cracking and
    blitzing"), in the second person for your own."""
    kind = last.get("action")
    if kind == "blitz":
        pair = _PAIR_WORDS.get(str(last.get("pair")), "queens")
        return f"{model.says(seat, 'blitz', at)} the {pair}: stakes ×2"
    if kind == "crack":
        shown = last.get("blitz")
        if shown is not None:
            words = _PAIR_WORDS.get(str(shown), "queens")
            return f"{model.says(seat, 'crack', at)} with the {words}: stakes ×4"
        return f"{model.says(seat, 'crack', at)}: stakes ×2"
    if kind == "no_crack":
        return f"{model.says(seat, 'do', at)} not crack"
    if kind == "recrack":
        return f"{model.says(seat, 're-crack', at)}: stakes ×2"
    if kind == "no_recrack":
        return f"{model.says(seat, 'do', at)} not re-crack"
    return None


def chat_line(msg: Mapping[str, Any]) -> str:
    """A chat event as a log line; a spectator's line is marked as one.

    >>> chat_line({"from": "Ole", "seat": None, "spectator": True, "text": "nice"})
    'Ole (watching): nice'
    """
    who = str(msg.get("from", "?"))
    if msg.get("spectator") or ("spectator" not in msg and msg.get("seat") is None):
        who += " (watching)"
    return f"{who}: {msg.get('text', '')}"


def _result_line(model: TableModel, result: Mapping[str, Any]) -> str:
    text = str(result.get("outcome_text") or "hand over")
    payouts = result.get("payouts")
    me = model.my_seat
    winner = result.get("leaster_winner")
    if result.get("leaster") and isinstance(winner, int) and 0 <= winner < NUM_SEATS:
        # "leaster won" named nobody: a watcher's log never said who.
        text = "you won the leaster" if winner == me else f"{model.name(winner)} won the leaster"
    if payouts and me is not None:
        return f"Hand over: {text}; you {payouts[me]:+d}"
    return f"Hand over: {text}"


_HANDLERS: Final[dict[str, Callable[[TableModel, Any], Change]]] = {
    "state": TableModel._on_state,
    "your_turn": TableModel._on_your_turn,
    "hand_over": TableModel._on_hand_over,
    "match_over": TableModel._on_match_over,
    "chat": TableModel._on_chat,
    "notice": TableModel._on_notice,
    "error": TableModel._on_error,
}
