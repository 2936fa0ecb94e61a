"""The client's picture of one table, built only from the messages the server sent.

:class:`TableModel` takes every event (``state``, ``your_turn``, ``hand_over``, ``match_over``,
``chat``, ``notice``, ``connection``) through :meth:`TableModel.apply` and keeps what the screens
show: the seat view, the table summary, the running totals, the pending decision with its legal
actions, the finished hands, and a log. It knows no rules: what you may do is exactly the
``legal`` list the server sent.

>>> model = TableModel()
>>> model.apply({"type": "chat", "table": "t1", "from": "Bo", "seat": 2, "text": "hi"})
<Change.CHAT: 16>
>>> model.log[-1].text
'Bo: hi'
"""

from __future__ import annotations

import enum
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from client.widgets.cards import card_label

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


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of the table summary."""

    seat: int
    name: str
    kind: str  # "human" | "bot" | "empty"
    connected: bool
    strategy: str | None = None

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
            name=str(name) if name else ("(empty)" if kind == "empty" else f"Seat {index}"),
            kind=kind,
            connected=bool(data.get("connected", kind != "empty")),
            strategy=data.get("strategy"),
        )


@dataclass(slots=True)
class Prompt:
    """A ``your_turn`` message: the decision, the legal actions, the turn timer."""

    seq: int
    decision: str
    legal: list[dict[str, Any]]
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

    def cards(self) -> list[str]:
        """The cards you may play now."""
        return [a["card"] for a in self.legal if a.get("action") == "play"]

    def find(self, action: str, **fields: Any) -> dict[str, Any] | None:
        """The legal action of this kind with these fields, or None (bury cards in any order)."""
        for a in self.legal:
            if a.get("action") != action:
                continue
            if all(_same(a.get(k), v) for k, v in fields.items()):
                return a
        return None


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

    @property
    def key(self) -> tuple[tuple[str, ...], ...]:
        """Identifies the hand by its deal."""
        return _deal_key(self.reveal)

    def to_record(self) -> dict[str, Any]:
        """The ``sheepshead-hand/1`` record: the server's own, else rebuilt from what was seen.

        The rebuild needs the final view: it holds the rules, the dealer, the passes, the call
        and every trick; the reveal holds the deal and the bury.
        """
        if self.record is not None:
            return self.record
        if self.view is None:
            raise ValueError("this hand's final state was not seen, so it cannot be exported")
        return rebuild_record(self.view, self.reveal)


def _deal_key(reveal: Mapping[str, Any] | None) -> tuple[tuple[str, ...], ...]:
    if not reveal:
        return ()
    hands = reveal.get("hands") or []
    return tuple(tuple(sorted(h)) for h in hands)


def rebuild_record(view: Mapping[str, Any], reveal: Mapping[str, Any]) -> dict[str, Any]:
    """A hand record from a finished seat view and the revealed cards (HAND_RECORD.md)."""
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
    """The crack round's answers and the re-crack of a finished hand (RULES.md §11): every seat
    asked before the cracker (all of them, when nobody cracked) said ``no_crack``."""
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
    last: dict[str, Any] | None = None
    totals: list[int] = field(default_factory=lambda: [0] * NUM_SEATS)
    prompt: Prompt | None = None
    history: list[FinishedHand] = field(default_factory=list)
    pending_result: FinishedHand | None = None
    match_over: dict[str, Any] | None = None
    status: str = "offline"
    log: deque[LogEntry] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    hand_number: int = 0
    seat: int | None = None
    """Your seat from the last ``state`` (known before the first deal, unlike the view's)."""
    log_count: int = 0
    """How many lines were ever logged (the log itself keeps the latest few hundred)."""

    def reset(self, table: str | None = None) -> None:
        """Forget everything about the last table (the connection status stays)."""
        status = self.status
        fresh = TableModel(table=table, status=status)
        for name in TableModel.__slots__:
            setattr(self, name, getattr(fresh, name))

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

    def name(self, seat: int | None) -> str:
        """The display name of a seat."""
        if seat is None:
            return "nobody"
        return self.seats[seat].name

    @property
    def is_host(self) -> bool:
        """Whether you are the table's host (the host is named in the summary)."""
        seat = self.my_seat
        if seat is None:
            return False
        return bool(self.info.get("host")) and self.info.get("host") == self.seats[seat].name

    @property
    def hand(self) -> list[str]:
        """Your cards in display order."""
        return [] if self.view is None else list(self.view.get("hand") or [])

    @property
    def legal(self) -> list[dict[str, Any]]:
        """The legal actions of the pending decision (empty when it is not your turn)."""
        return [] if self.prompt is None else self.prompt.legal

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

    def _on_state(self, msg: Mapping[str, Any]) -> Change:
        change = Change.STATE
        seq = msg.get("seq")
        if isinstance(seq, int):
            self.seq = seq
        self.table = msg.get("table", self.table)
        seat = msg.get("seat")
        self.seat = seat if isinstance(seat, int) else None
        number = msg.get("hand")
        if isinstance(number, int):
            self.hand_number = number + 1
        info = msg.get("info")
        if isinstance(info, Mapping):
            self.info = dict(info)
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        old = self.view
        view = msg.get("view")
        self.view = dict(view) if isinstance(view, Mapping) else None
        self.last = msg.get("last")
        if self.prompt is not None and self.prompt.seq != self.seq:
            self.prompt = None
            change |= Change.PROMPT
        change |= self._narrate(old, self.view, self.last)
        if self.view is not None and self.view.get("phase") == "done":
            change |= self._finish(
                result=self.view.get("result") or {},
                reveal=self.view.get("reveal") or {},
                view=self.view,
            )
        return change

    def _on_your_turn(self, msg: Mapping[str, Any]) -> Change:
        legal = [dict(a) for a in msg.get("legal") or [] if isinstance(a, Mapping)]
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

    def _on_hand_over(self, msg: Mapping[str, Any]) -> Change:
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        number = msg.get("hand")
        change = self._finish(
            result=dict(msg.get("result") or {}),
            reveal=dict(msg.get("reveal") or {}),
            view=None,
            record=msg.get("record"),
            number=number + 1 if isinstance(number, int) else None,
        )
        return change | Change.STATE

    def _on_match_over(self, msg: Mapping[str, Any]) -> Change:
        self.match_over = dict(msg)
        totals = msg.get("totals")
        if isinstance(totals, Sequence):
            self.totals = [int(t) for t in totals]
        ranking = sorted(range(NUM_SEATS), key=lambda s: -self.totals[s])
        best = ", ".join(f"{self.name(s)} {self.totals[s]:+d}" for s in ranking)
        self._log("event", f"Match over after {msg.get('hands', '?')} hands: {best}")
        return Change.MATCH_OVER | Change.LOG

    def _on_chat(self, msg: Mapping[str, Any]) -> Change:
        self._log("chat", f"{msg.get('from', '?')}: {msg.get('text', '')}")
        return Change.CHAT

    def _on_notice(self, msg: Mapping[str, Any]) -> Change:
        self._log("notice", str(msg.get("text", "")))
        return Change.NOTICE

    def _on_error(self, msg: Mapping[str, Any]) -> Change:
        self._log("error", f"{msg.get('message', 'error')} ({msg.get('code', 'error')})")
        return Change.ERROR

    def _on_connection(self, msg: Mapping[str, Any]) -> Change:
        status = str(msg.get("status", "offline"))
        if status != self.status and status in ("reconnecting", "closed"):
            self._log("notice", f"Connection {status}")
        elif status == "connected" and self.status in ("reconnecting",):
            self._log("notice", "Reconnected")
        self.status = status
        return Change.CONNECTION

    # ------------------------------------------------------------------ helpers

    def note(self, kind: str, text: str) -> None:
        """Add a line to the table log (``kind`` as in :class:`LogEntry`)."""
        self._log(kind, text)

    def _log(self, kind: str, text: str) -> None:
        self.log.append(LogEntry(kind, text))
        self.log_count += 1

    def _finish(
        self,
        result: dict[str, Any],
        reveal: dict[str, Any],
        view: dict[str, Any] | None,
        record: Any = None,
        number: int | None = None,
    ) -> Change:
        key = _deal_key(reveal)
        for done in self.history:
            if done.key == key and key:
                if view is not None:
                    done.view = view
                if result:
                    done.result = result
                if isinstance(record, Mapping):
                    done.record = dict(record)
                done.totals = list(self.totals)
                return Change.NONE
        finished = FinishedHand(
            number=number or self.hand_number or len(self.history) + 1,
            result=result,
            reveal=reveal,
            totals=list(self.totals),
            names=[s.name for s in self.seats],
            view=view,
            record=dict(record) if isinstance(record, Mapping) else None,
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
        if isinstance(last, Mapping) and "action" in last:
            line = _action_line(self, last)
            if line:
                self._log("event", line)
                change |= Change.LOG
        old_tricks = 0 if old is None or fresh else len(old.get("tricks") or [])
        tricks = new.get("tricks") or []
        for number in range(old_tricks, len(tricks)):
            t = tricks[number]
            self._log(
                "event",
                f"Trick {number + 1}: {self.name(t.get('winner'))} takes {t.get('points', 0)}",
            )
            change |= Change.LOG
        if not fresh and old is not None and not old.get("leaster") and new.get("leaster"):
            self._log("event", "Everyone passed: leaster")
            change |= Change.LOG
        return change


def _is_new_hand(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    if old.get("dealer") != new.get("dealer"):
        return True
    if old.get("phase") == "done" and new.get("phase") != "done":
        return True
    return len(new.get("tricks") or []) < len(old.get("tricks") or [])


def _action_line(model: TableModel, last: Mapping[str, Any]) -> str | None:
    who = model.name(last.get("seat"))
    kind = last.get("action")
    if kind == "pick":
        return f"{who} picks"
    if kind == "pass":
        return f"{who} passes"
    if kind == "bury":
        # Only your own bury is yours to see, whatever the message carries.
        cards = last.get("cards") if last.get("seat") == model.my_seat else None
        return f"{who} buries " + (" ".join(card_label(c) for c in cards) if cards else "2 cards")
    if kind == "call":
        return f"{who} calls {card_label(str(last.get('card')))}"
    if kind == "alone":
        return f"{who} goes alone"
    if kind == "unknown":
        return f"{who} calls {card_label(str(last.get('card')))} with an unknown card"
    return _stakes_line(who, last)


_PAIR_WORDS: Final = {"black": "black queens (Q♣ Q♠)", "red": "red queens (Q♥ Q♦)"}
"""How a queen pair is named in the log and on screen."""


def _stakes_line(who: str, last: Mapping[str, Any]) -> str | None:
    """The log line of a blitz, crack or re-crack decision (RULES.md §11)."""
    kind = last.get("action")
    if kind == "blitz":
        return f"{who} blitzes the {_PAIR_WORDS.get(str(last.get('pair')), 'queens')}: stakes ×2"
    if kind == "crack":
        pair = last.get("blitz")
        if pair is not None:
            return f"{who} cracks with the {_PAIR_WORDS.get(str(pair), 'queens')}: stakes ×4"
        return f"{who} cracks: stakes ×2"
    if kind == "no_crack":
        return f"{who}: no crack"
    if kind == "recrack":
        return f"{who} re-cracks: stakes ×2"
    if kind == "no_recrack":
        return f"{who} does not re-crack"
    return None


def _result_line(model: TableModel, result: Mapping[str, Any]) -> str:
    text = str(result.get("outcome_text") or "hand over")
    payouts = result.get("payouts")
    me = model.my_seat
    if payouts and me is not None:
        return f"Hand over: {text}; you {payouts[me]:+d}"
    return f"Hand over: {text}"


_HANDLERS: Final = {
    "state": TableModel._on_state,
    "your_turn": TableModel._on_your_turn,
    "hand_over": TableModel._on_hand_over,
    "match_over": TableModel._on_match_over,
    "chat": TableModel._on_chat,
    "notice": TableModel._on_notice,
    "error": TableModel._on_error,
    "connection": TableModel._on_connection,
}
