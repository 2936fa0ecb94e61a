"""``sheepshead bot``: play a seat over the network with a bot strategy.

The strategy is a registered name (``random``, ``heuristic``, ``search``, ...), the path of a
Python file defining a class with ``choose(view, legal)``, or the path of an executable program
answering decisions on its stdin and stdout (see docs/bots.md). Any may carry keyword options:
``search:samples=20``, ``my_bot.py:aggression=2`` or ``./mybot.js:depth=3``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO, cast

from client.config import (
    DEFAULT_PORT,
    AddressError,
    format_address,
    name_argument,
    parse_address,
)
from client.fairplay import DealChecker, DealSeen, fair_of, reveal_from_records, reveal_of_entries
from client.strategy_call import decide, describe_action
from client.strategy_spec import StrategyLoadError, strategy_factory, strategy_label
from engine.bots.base import Strategy
from engine.errors import SheepsheadError
from engine.rules import DEFAULT_PRESET, OPTION_NAMES, PRESET_TITLES, RuleSet, presets_help
from protocol.events import ActionMap, Commitment, HandOver, HistoryEntry, SeedsRevealed, State

if TYPE_CHECKING:
    from client.session import Session

HELP = "play a seat over the network with a bot strategy"

CLIENT_NAME: Final = "sheepshead-bot/0.1"
"""What the bot runner calls itself in ``hello``."""


@dataclass
class BotConfig:
    """What ``sheepshead bot`` was asked to do."""

    host: str
    port: int
    strategy: str = "heuristic"
    name: str | None = None
    table: str | None = None
    create: bool = False
    hands: int | None = 3
    password: str | None = None
    preset: str = "seed"
    server_bots: str | None = None
    seed: int | None = None
    tokens: str | None = None
    bots: int = 4
    """With ``create``: how many seats to fill with server bots (0-4)."""
    options: dict[str, Any] = field(default_factory=dict)
    """With ``create``: rule options changed from the preset."""
    turn_timer: float | None = None
    """With ``create``: seconds per decision (None: no timer)."""
    start: bool = False
    """With ``create``: start the match once all five seats are taken."""
    verbose: bool = False
    """Log every decision: phase, hand, legal actions, choice."""
    save_hands: str | None = None
    """Write each finished hand as a ``sheepshead-hand/1`` record into this directory."""

    think_time: float = 0.5
    """Most seconds a thinking strategy (search) spends on one decision."""


RECORD_RETRIES: Final = 6
"""``rate_limited`` refusals of the ``history`` request fetching hands the bot did not see end
(``--save-hands``) before those hands are reported not saved."""
RECORD_RETRY_WAIT: Final = 0.5
"""Seconds before a refused ``history`` page is asked for again (the server's allowance
refills one request each half second by default, PROTOCOL.md §9); the wait doubles while the
same page is refused, since each refusal adds to the debt the allowance refills first."""
RECORD_MAX_WAIT: Final = 4.0
"""The longest wait between two asks for a refused ``history`` page (with
:data:`RECORD_RETRIES`, some 16 s in all at most)."""

REVEAL_WAIT: Final = 10.0
"""Most seconds the runner waits after ``match_over`` for ``seeds_revealed`` (the server sends
it right after, PROTOCOL.md §13), when the server is known to commit to its deals: the seeds
complete the saved records and check the deals."""

ACTION_REFUSED: Final = "the server refused an action: "
"""How the runner's error line about an action the server refused begins (its message and
code in brackets follow): ``bench/evening.py`` counts them by code."""

EXIT_FELL_BACK: Final = 3
"""Exit status when the match ended but the strategy failed at least once (first legal played)."""


async def run_bot(config: BotConfig, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Connect, sit down, play until the match is over; the exit status.

    0: the match ended; 1: the connection or the table went away; 2: refused (bad table,
    password, strategy...); 3: the match ended but some decision fell back to the first legal
    action because the strategy failed. Decisions run in a worker thread so a slow strategy
    never stalls the connection (pings, reconnects).

    The progress (seated, each hand, the match's end, the saved hands and the deals checked)
    goes to ``out`` (stdout); what went wrong, to ``err`` (stderr), as every command says it:
    "sheepshead bot: " and words, the server's code last in brackets.
    """
    from client.session import ServerError, Session, TokenStore

    out = out or sys.stdout
    err = err or sys.stderr
    factory = strategy_factory(config.strategy, config.think_time)
    strategy = factory(config.seed)
    name = config.name or f"{strategy_label(strategy, config.strategy)} bot"[:24]
    session = Session(
        config.host,
        config.port,
        name=name,
        kind="bot",
        client_name=CLIENT_NAME,
        token_store=TokenStore(config.tokens) if config.tokens else None,
    )

    def say(text: str) -> None:
        print(text, file=out, flush=True)

    def complain(text: str) -> None:
        print(f"sheepshead bot: {text}", file=err, flush=True)

    where = format_address(config.host, config.port)
    try:
        welcome = await session.connect()
    except (OSError, TimeoutError) as exc:  # ConnectionLost too: a port that is no server's
        from client.join import connect_failure

        complain(f"cannot reach {where}: {connect_failure(exc)}")
        return 1
    except ServerError as exc:
        complain(f"{where} refused the connection: {exc.in_words()}")
        return 2
    player = BotPlayer(session, strategy, say, config, complain)
    try:
        if session.table is None:
            doing = f"cannot join table {config.table} on {where}"
            try:
                if config.create:
                    doing = f"cannot create a table on {where}"
                    reply = await session.request(
                        "create_table",
                        name=f"{session.name}'s table",
                        preset=config.preset,
                        options=dict(config.options),
                        hands=config.hands,
                        password=config.password,
                        turn_timer=config.turn_timer,
                    )
                    doing = f"cannot seat a server bot at table {reply['table']}"
                    for _ in range(config.bots):
                        await session.request("add_bot", seat=None, strategy=config.server_bots)
                    doing = f"cannot start the match at table {reply['table']}"
                    if config.bots == 4:
                        await session.request("start")
                    else:
                        player.start_when_full = config.start
                else:
                    reply = await session.request(
                        "join", table=config.table, seat=None, password=config.password
                    )
            except ServerError as exc:
                complain(f"{doing}: {exc.in_words()}")
                return 2
            say(f"seated at table {reply['table']}, seat {reply['seat']} as {welcome['name']}")
            if player.start_when_full:
                free = 4 - config.bots
                say(
                    f"waiting for {free} more player{'s' * (free != 1)}: "
                    f"sheepshead bot {format_address(config.host, config.port)} "
                    f"--table {reply['table']}"
                )
        else:
            say(f"back at table {session.table}, seat {session.seat} as {welcome['name']}")
            player.returning = True
        status = await player.play()
        if status == 0 and player.fell_back:
            complain(
                f"the strategy failed in {player.fell_back} decision"
                f"{'s' * (player.fell_back != 1)}; the first legal action was played instead"
            )
            return EXIT_FELL_BACK
        return status
    finally:
        if session.status == "connected" and session.table is not None:
            with contextlib.suppress(ServerError, OSError, TimeoutError):
                await session.request("leave")
        await session.close()


class BotPlayer:
    """Plays a seat from the session's events: answers prompts, reports hands, saves records."""

    def __init__(
        self,
        session: Session,
        strategy: Strategy,
        say: Callable[[str], None],
        config: BotConfig,
        complain: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.strategy = strategy
        self.say = say
        """Progress, for stdout."""
        self.complain = complain or say
        """What went wrong (a refusal, the end of the table or connection, the strategy
        failing), for stderr with the command's prefix (:func:`run_bot`)."""
        self.config = config
        self.start_when_full = False
        self.fell_back = 0
        """Decisions where the strategy failed and the first legal action was played."""
        self.decisions = 0
        self.timer_moved = False
        """A ``timer_expired`` notice for this seat came; the next action of the seat is the
        table's, not ours."""
        self.late: ActionMap | None = None
        """Our last answer, refused as ``stale`` because the decision had moved on."""
        self.info: Mapping[str, Any] = {}
        self.hand_number: int | None = None
        self.view: Mapping[str, Any] | None = None
        """The view of the last state handled (not ``session.last_state``, which can be a
        state further on, the next deal's, while earlier events wait in the queue)."""
        self.hands_over: set[int] = set()
        """The hands of :attr:`match` whose ``hand_over`` came or whose record was saved or
        reported lost: a hand left without one was missed."""
        self.match: int | None = None
        """The table's match (0, then +1 per rematch, as ``history`` numbers them) of
        :attr:`hand_number` and :attr:`hands_over`; None until the first catch-up."""
        self.catch_up = True
        """A (re)connection's snapshot is due: with ``--save-hands`` its state asks the server
        which match the table is in and fetches the hands that ended unseen meanwhile."""
        self.returning = False
        """The seat was this bot's before this process (taken back with a stored token): the
        hands missing from ``--save-hands`` are fetched at the first state."""
        self.unfetched: set[int] = set()
        """Hands of :attr:`match` whose record could not be fetched (reported): asked for again
        at the next catch-up."""
        self.deals = DealChecker()
        """The commitments published to this bot and the seeds it sent (PROTOCOL.md §13)."""
        self.dealt: list[DealSeen] = []
        """The hands whose ``hand_over`` came, for the check of the deals at the reveal."""
        self.written: dict[tuple[int, int], Path] = {}
        """(match, hand number): the file this process saved it to. The current match's are
        completed with the seeds when the server reveals them at the match's end."""
        self.snapshot = True
        """The next state is a (re)connection's snapshot: an end of the match it shows may be
        long past, its seeds revealed while this bot was away."""
        self.fair = False
        """The server commits to its deals (a ``commitment`` came, or a record with a ``fair``
        map): at ``match_over`` its ``seeds_revealed`` is waited for."""

    async def play(self) -> int:
        """Handle events until the match ends (0) or the table or connection goes (1)."""
        from client.session import ServerError

        session = self.session
        while True:
            msg = await session.events.get()
            kind = msg.get("type")
            if kind == "state":
                self.deals.on_state(cast(State, msg))
                snapshot, self.snapshot = self.snapshot, False
                if await self._on_state(cast(State, msg)):
                    # The table's match is over. A bot that comes back to it after the end
                    # (reconnected, or restarted with --tokens) gets a snapshot saying so and
                    # never a match_over (PROTOCOL.md §10): the same end as a match_over. Nor
                    # the seeds_revealed that a bot there at the end has coming.
                    self._match_over(msg.get("totals"), self.info.get("hands_played"))
                    if not await self._await_reveal(wait=not snapshot):
                        await self._reveal_from_history()
                    return 0
            elif kind == "your_turn":
                turn = session.last_turn
                if turn is None or msg is not turn or session.last_state is None:
                    continue  # a newer prompt or state is queued: answer that one
                view = session.last_state.get("view")
                legal = turn.get("legal") or []
                if not view or not legal:
                    continue
                action = await asyncio.to_thread(self._decide, view, legal)
                try:
                    # The prompt's own seq: an answer that comes after the decision moved on
                    # (the turn timer played for us) is refused as stale, never applied to the
                    # next decision.
                    await session.act(action, seq=turn.get("seq"))
                    self.late = None
                except ServerError as exc:
                    if exc.code == "stale":
                        self.late = action
                    elif exc.code not in ("hand_over", "not_your_turn", "connection_lost"):
                        self.complain(f"{ACTION_REFUSED}{exc.in_words()}")
            elif kind == "notice" and msg.get("code") == "timer_expired":
                if msg.get("seat") is not None and msg.get("seat") == session.seat:
                    self.timer_moved = True
            elif kind == "hand_over":
                result = msg.get("result") or {}
                self.say(
                    f"hand {int(msg.get('hand', 0)) + 1}: {result.get('outcome_text', '?')}; "
                    f"payouts {result.get('payouts')}; totals {msg.get('totals')}"
                )
                self.hands_over.add(int(msg.get("hand", 0)))
                self._note_dealt(cast(HandOver, msg))
                if self.config.save_hands:
                    await self._save_hand(cast(HandOver, msg))
            elif kind == "match_over":
                self._match_over(msg.get("totals"), msg.get("hands"))
                if not await self._await_reveal():
                    await self._reveal_from_history()
                return 0
            elif kind == "commitment":
                await self._answer_commitment(cast(Commitment, msg))
            elif kind == "seeds_revealed":
                self._on_reveal(cast(SeedsRevealed, msg))
            elif kind == "notice" and msg.get("code") in ("table_closed", "replaced"):
                self.complain(f"stopped: {msg.get('text')}")
                return 1
            elif kind == "table_lost":  # the reconnect did not get the seat back
                self.complain(f"stopped: {msg.get('message')} ({msg.get('code')})")
                return 1
            elif kind == "connection" and msg.get("status") == "connected":
                self.catch_up = True  # the snapshot follows: hands may have ended meanwhile
                self.snapshot = True
                self.deals.reconnected()
            elif kind == "connection" and msg.get("status") == "closed":
                self.complain("the connection to the server was lost")
                return 1

    async def _answer_commitment(self, msg: Commitment) -> None:
        """Send a random client seed for a new deal commitment (PROTOCOL.md §13). The deal is
        never held for a bot's seed: one that comes too late is refused (``stale``) and not
        expected at the check."""
        from client.session import ServerError

        self.fair = True
        quoted = self.deals.on_commitment(msg)
        seat = self.session.seat
        if quoted is None or seat is None:
            return
        seed = self.deals.new_seed(quoted, seat)
        try:
            await self.session.request("client_seed", commitment=quoted, seed=seed)
        except (ServerError, OSError, TimeoutError):
            # Not taken (or not known to be): the deal uses the seat's derived seed instead.
            self.deals.sent.pop(quoted, None)

    def _note_dealt(self, msg: HandOver) -> None:
        """Keep a hand's deal (``hand_over``'s reveal, the dealer of its view) for the check."""
        number = int(msg.get("hand", 0))
        view = self.view if self.hand_number == number else None
        dealer = view.get("dealer") if view is not None else None
        seen = {"dealer": dealer} if isinstance(dealer, int) else None
        self.dealt.append(DealSeen(number + 1, msg.get("reveal") or {}, seen))

    async def _await_reveal(self, *, wait: bool = True) -> bool:
        """At the match's end: take the ``seeds_revealed`` that follows ``match_over`` (at most
        :data:`REVEAL_WAIT` seconds, and only with ``wait`` and when the server commits to its
        deals; one already queued is taken anyway). Whether it came."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (REVEAL_WAIT if wait and self.fair else 0.0)
        while True:
            left = deadline - loop.time()
            try:
                if left > 0:
                    msg = await asyncio.wait_for(self.session.events.get(), left)
                else:
                    msg = self.session.events.get_nowait()
            except (TimeoutError, asyncio.QueueEmpty):
                return False
            kind = msg.get("type")
            if kind == "seeds_revealed":
                self._on_reveal(cast(SeedsRevealed, msg))
                return True
            if kind == "connection" and msg.get("status") in ("connected", "closed"):
                # Lost for good, or back: a reconnect is not sent the reveal it missed.
                return False

    async def _reveal_from_history(self) -> None:
        """The match is over and its ``seeds_revealed`` did not come here (the bot was away
        at the end, or came back after it): the server's records of the match carry the
        revealed seeds by now (PROTOCOL.md §13), so they are fetched (``history``) and taken
        as the reveal: the deals seen are checked and the records saved completed, as at the
        reveal itself."""
        match = self.match or 0
        unrevealed = [
            path for (of, _), path in self.written.items() if of == match and not _revealed(path)
        ]
        if not self.fair or (not unrevealed and not self.dealt):
            return
        what = f"match {match + 1}" if match else "the match"
        got = await self._fetch(0, None, match=self.match)
        if self.match is not None and got.match not in (None, self.match):
            got.entries, got.error = {}, "a new match began at the table"
        reveal = reveal_from_records(
            str(got.table or self.session.table),
            (entry["record"] for _, entry in sorted(got.entries.items())),
        )
        # Only the whole match's records: a reveal rebuilt from some of them would not cover
        # the hands after them, which the check would call uncovered (a false alarm).
        why = got.error or (None if reveal["commitments"] else "its records carry none")
        if why is not None:
            self.say(
                f"{what}'s seeds not revealed here (deals not checked, seeds not added): {why}"
            )
            return
        self.say(f"{what}'s seeds: the reveal was missed; {_FROM_RECORDS}")
        self._on_reveal(reveal)

    def _on_reveal(self, msg: SeedsRevealed) -> None:
        """The server revealed the match's seeds: check the deals this bot saw, and write the
        seeds into the records of the match this process saved (``sheepshead verify``)."""
        said = self.deals.check(msg, self.dealt)
        match = self.match or 0
        if self.deals.verified is not None:
            self.say(f"{self._hands_text(match, [], 'deals:')} {said}")
        self._add_seeds(match, self.deals.fair_for)

    def _add_seeds(self, match: int, fair_for: Callable[[int], dict[str, Any] | None]) -> None:
        """Write the revealed seeds (``fair_for`` a hand number: its record ``fair`` map) into
        the records of match ``match`` this process saved (``sheepshead verify``)."""
        uncovered: list[int] = []
        for (of, number), path in sorted(self.written.items()):
            if of != match:
                continue
            fair = fair_for(number)
            if fair is None:
                uncovered.append(number)
                continue
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                self.say(f"{self._hands_text(match, [number])}: seeds not added: {exc}")
                continue
            if isinstance(record, dict):
                self._write_file(path, {**record, "fair": fair}, number, ": seeds not added")
        if uncovered:
            self.say(
                f"{self._hands_text(match, uncovered)}: seeds not added: the reveal does not "
                "cover it"
            )

    def _match_over(self, totals: Any, hands: Any) -> None:
        """Say the match's final line: its hands, the totals and this seat's."""
        seat = self.session.seat
        mine = totals[seat] if totals and seat is not None else None
        self.say(f"match over after {hands} hands: totals {totals}; this seat {mine}")

    async def _on_state(self, msg: State) -> bool:
        """Take in a state (saving a hand whose end was missed); True when the table's match
        is over (its summary says so)."""
        from client.session import ServerError

        if isinstance(msg.get("info"), dict):
            self.info = msg["info"]
        over = self.info.get("state") == "over"
        number = msg.get("hand")
        view = msg.get("view")
        if isinstance(number, int):
            ended = over and isinstance(view, Mapping) and view.get("phase") == "done"
            if self.catch_up:  # with or without --save-hands: a rematch may have begun
                await self._catch_up(number, ended)
            elif self.config.save_hands:
                await self._save_missed(number, ended)
            self.hand_number = number
        self.view = view if isinstance(view, Mapping) else None
        last = msg.get("last")
        if isinstance(last, dict) and self.timer_moved and last.get("seat") == self.session.seat:
            self.timer_moved = False
            text = f"timed out: the table played {describe_action(last)} for you"
            if self.late is not None:
                text += f" (the answer {describe_action(self.late)} came too late)"
            self.late = None
            self.say(text)
        seats = self.info.get("seats") or []
        if (
            self.start_when_full
            and self.info.get("state") == "waiting"
            and len(seats) == 5
            and all(s.get("kind") != "empty" for s in seats)
        ):
            self.start_when_full = False
            try:
                await self.session.request("start")
                self.say("all seats taken: match started")
            except ServerError as exc:
                self.complain(f"cannot start the match: {exc.in_words()}")
        return over

    def _decide(self, view: Mapping[str, Any], legal: list[ActionMap]) -> ActionMap:
        """The strategy's answer, or the first legal action (reported) if it misbehaves."""
        decision = decide(self.strategy, view, legal)
        self.decisions += 1
        if decision.fell_back:
            self.fell_back += 1
            where = f" at {decision.place}" if decision.place else ""
            self.complain(
                f"strategy failed{where}: {decision.error}; "
                f"playing {describe_action(decision.action)}"
            )
        if self.config.verbose:
            self.say(
                f"decision {self.decisions}: phase {view.get('phase')}; "
                f"hand {' '.join(view.get('hand') or [])}; "
                f"legal {', '.join(describe_action(a) for a in legal)}; "
                f"chose {describe_action(decision.action)}"
            )
        return cast(ActionMap, dict(decision.action))  # an element of ``legal``

    async def _save_hand(self, msg: HandOver) -> None:
        """Write the hand that just ended as a record (names and payouts beside it).

        The record is rebuilt from the hand's final view, which holds every public decision
        (passes, pick, call, cracks, tricks), and the reveal (the deal and the bury), as the
        client's export does. It does not depend on having seen every action: a state that
        applies none repeats the last one, and a bot that joined or reconnected mid-hand
        missed some. Without that view, the server's own record is asked for (``history``).
        """
        from client.model import rebuild_record
        from engine.record import RecordError, hand_from_record

        number = int(msg.get("hand", 0))
        view = self.view
        if view is None or view.get("phase") != "done" or self.hand_number != number:
            await self._save_from_server({number: "its final state was not seen"})
            return
        try:
            record = rebuild_record(view, msg.get("reveal") or {})
            hand_from_record(record)
        except (RecordError, KeyError, TypeError, ValueError) as exc:
            await self._save_from_server({number: f"the hand seen does not replay ({exc})"})
            return
        seats = self.info.get("seats") or []
        self._write(
            number,
            {
                **record,
                # The table summary names a server bot's strategy (null for anyone else).
                "strategies": [s.get("strategy") for s in seats],
                "players": [s.get("name") for s in seats],
                "payouts": (msg.get("result") or {}).get("payouts"),
                "table": msg.get("table"),
                "match": self.match or 0,
                "hand": number,
            },
        )

    async def _save_missed(self, number: int, ended: bool) -> None:
        """Save from the server's record the hands of this seat that ended unseen before the
        state of hand ``number`` of the same match (and that hand too when ``ended``: the
        match's last, over)."""
        first = self.hand_number
        if first is None or number < first:
            return
        last = number if ended else number - 1
        await self._save_from_server(self._missed(first, last, again=False))

    def _missed(self, first: int, last: int, *, again: bool = True) -> dict[int, str]:
        """The hands of the current match from ``first`` to ``last`` (included) not saved yet,
        and (``again``) the hands that could not be fetched before, each with the reason to
        say."""
        why = {
            n: "it could not be fetched before"
            for n in sorted(self.unfetched)
            if again and n <= last
        }
        for n in range(first, last + 1):
            if n not in self.hands_over:
                why[n] = (
                    "it ended while this bot was disconnected"
                    if n == first
                    else "it was played while this bot was away"
                )
        return why

    async def _catch_up(self, number: int, ended: bool) -> None:
        """At the first state after a (re)connection (of hand ``number``; ``ended``: the
        match's last, over): learn the table's match from ``history`` and (``--save-hands``)
        save the hands of this seat that ended unseen meanwhile, in one request when they are
        of the same match.

        Hand numbers start again at 0 in each match: back after a rematch, the deals seen of
        the match it left are checked against its records' seeds (its reveal came while this
        bot was away, and the new match's does not cover them: checked against it, they
        failed); the rest of that match (and every match between) is asked for by its number
        (``history``'s ``match``, PROTOCOL.md §4) and saved under that match's file names;
        what the server cannot give (an older server keeps only the current match) is
        reported not saved. The new match's hands so far are saved too.
        """
        self.catch_up = False
        saving = bool(self.config.save_hands)
        last = number if ended else number - 1
        old, first = self.match, self.hand_number
        rematched = old is not None and first is not None and number < first
        if old is None or first is None or not saving:
            start = last + 1  # just the match number; a returning bot's gaps come next
        elif rematched:
            start = 0
        else:
            start = min(self._missed(first, last), default=last + 1)
        got = await self._fetch(start, last + 1)
        match = got.match
        if match is None:
            # Not even the first page: keep what is known, and say what cannot be saved.
            if saving:
                self.say(f"cannot tell which match the table is in: {got.error}")
            if old is None:
                self.match = 0
            elif first is not None and saving:
                self._save_fetched(self._missed(first, last), got)
            return
        self.deals.on_match(match)
        if old is None or first is None:
            self.match = match
            if self.returning and saving:
                await self._save_gaps(last)
            return
        if match == old:
            if saving:
                self._save_fetched(self._missed(first, last), got)
            return
        # A rematch began while this bot was away: the rest of the old match, and the whole of
        # any match between, are asked for by their number. The old match's seeds were revealed
        # meanwhile (the new match's reveal does not cover its hands): to check its deals, and
        # complete the records saved before the drop, all its records are asked for.
        to_check = bool(self.dealt) and self.fair
        earlier = _Fetched()
        if to_check or saving:
            earlier = await self._fetch(0 if to_check else first, None, match=old)
        if saving:
            await self._save_earlier(old, first, earlier)
        if to_check:
            self._check_earlier(old, earlier)
        self.dealt = []
        if not saving:
            self.match, self.hands_over, self.unfetched = match, set(), set()
            return
        for between in range(old + 1, match):
            self.match, self.hands_over, self.unfetched = between, set(), set()
            await self._save_earlier(between, 0, whole=True)
        self.match, self.hands_over, self.unfetched = match, set(), set()
        if start > 0 and last >= 0:
            before = await self._fetch(0, start)
            if before.match == match:
                got.entries.update(before.entries)
                got.error = before.error or got.error
            else:
                got.error = before.error or "a new match began at the table"
                got.entries = {}
        why = dict.fromkeys(range(last + 1), "it was played while this bot was away")
        self._save_fetched(why, got)

    async def _save_earlier(
        self, match: int, first: int, fetched: _Fetched | None = None, *, whole: bool = False
    ) -> None:
        """Save the hands of :attr:`match`, an earlier match of the table (a rematch began
        while this bot was away), from hand ``first`` on that are not saved yet, asking
        ``history`` for that match by its number (``fetched``: already asked, from hand
        ``first`` or before); say which cannot be saved. ``whole``: a match begun and ended
        while the bot was away."""
        assert self.match == match
        got = fetched or await self._fetch(first, None, match=match)
        if got.match is not None and got.match != match:
            # A server older than history's match answers with the current match.
            got = _Fetched(error=f"{_REMATCH_LOSS}, and {_CURRENT_ONLY}")
        elif got.error is not None:
            got = replace(got, error=f"{_REMATCH_LOSS}; {got.error}")
        limit = self.info.get("hands")
        if got.error is None:
            last = max(got.entries, default=first - 1)  # every finished hand of it came
        elif isinstance(limit, int):
            last = limit - 1
        else:
            last = max(got.entries, default=first)
            got.error += " (nor any later hand of that match)"
        why = self._missed(first, last)
        if whole:
            why = dict.fromkeys(why, "it was played while this bot was away")
        if why:
            self._save_fetched(why, got)
        elif got.error is not None and not got.entries:
            self.say(f"match {match + 1}'s hands not saved: {got.error}")

    def _check_earlier(self, match: int, got: _Fetched) -> None:
        """Check the deals this bot saw of ``match``, an earlier match of the table that ended
        while it was away (its seeds were revealed then, not to it), against the seeds that
        ``got``, that match's records (from its first hand), carry, as the Textual client
        does; write them into the records of it saved without them."""
        from client.model import hand_from_history

        why = got.error
        if got.match is not None and got.match != match:
            why = _CURRENT_ONLY  # a server older than history's match: the current match's
        entries = [entry for _, entry in sorted(got.entries.items())] if why is None else []
        table = str(got.table or self.session.table)
        said = self.deals.check_earlier(
            match, table, self.dealt, entries, why, lambda entry: hand_from_history(entry, ())
        )
        if why is not None:  # the sentence says why nothing could be checked
            self.say(f"{self._hands_text(match, [], 'deals:')} {said}")
            return
        self.say(f"match {match + 1}'s seeds: revealed while this bot was away; {_FROM_RECORDS}")
        if self.deals.verified is not None:
            self.say(f"{self._hands_text(match, [], 'deals:')} {said}")
        commitments = reveal_of_entries(table, entries)["commitments"]
        self._add_seeds(match, lambda number: fair_of(commitments, number))

    async def _save_gaps(self, last: int) -> None:
        """A bot taking its seat back after a restart: save the hands of the current match to
        ``last`` that this seat played (its name then) and ``--save-hands`` lacks."""
        assert self.match is not None
        folder = Path(self.config.save_hands or ".")
        table = self.session.table
        missing = [n for n in range(last + 1) if not (folder / self._file_name(table, n)).exists()]
        if not missing:
            self.hands_over.update(range(last + 1))
            return
        got = await self._fetch(missing[0], last + 1)
        seat = self.session.seat
        seats = self.info.get("seats") or []
        name = seats[seat].get("name") if seat is not None and seat < len(seats) else None
        theirs = {
            n
            for n, entry in got.entries.items()
            if seat is None or name not in (entry.get("names") or [])[seat : seat + 1]
        }
        self.hands_over.update(n for n in range(last + 1) if n not in missing or n in theirs)
        for n in theirs:
            got.entries.pop(n)
        why = {n: "it ended while this bot was not running" for n in missing if n not in theirs}
        self._save_fetched(why, got)

    async def _save_from_server(self, why: Mapping[int, str]) -> None:
        """Save each hand of ``why`` (hand number of the current match: the reason, said
        first) from the server's record of it, or say that it cannot be saved: a hand is
        never dropped silently.

        One ``history`` request asks for them all (paged as the server cuts it, PROTOCOL.md
        §4). A page refused as ``rate_limited`` is asked for again after
        :data:`RECORD_RETRY_WAIT` seconds, doubling to :data:`RECORD_MAX_WAIT`, at most
        :data:`RECORD_RETRIES` times; the bot's decisions wait meanwhile. The pages that came
        before a failure are saved.
        """
        if not why:
            return
        numbers = sorted(why)
        got = await self._fetch(numbers[0], numbers[-1] + 1)
        if self.match is None:
            self.match = got.match
        elif got.match is not None and got.match != self.match:
            got.entries, got.error = {}, "a new match began at the table"
        self._save_fetched(why, got)

    async def _fetch(self, start: int, stop: int | None, *, match: int | None = None) -> _Fetched:
        """The server's records of the current match's (or match ``match``'s) hands ``start``
        to ``stop`` (not included; None: the last), with every page that came before a
        failure, and the failure said."""
        from client.session import ServerError

        got = _Fetched()
        try:
            async for page in self.session.history_pages(
                start,
                stop,
                match=match,
                retries=RECORD_RETRIES,
                retry_wait=RECORD_RETRY_WAIT,
                max_wait=RECORD_MAX_WAIT,
            ):
                if got.match is not None and page.get("match") != got.match:
                    got.error = "a new match began at the table"
                    break
                got.match, got.table = page.get("match"), page.get("table")
                for entry in page.get("hands") or []:
                    got.entries[entry["hand"]] = entry
        except ServerError as exc:
            if exc.code == "unknown_type":
                got.error = "the server does not know history"
            else:
                got.error = f"the server's record was refused ({exc})"
        except (OSError, TimeoutError) as exc:
            got.error = f"the server's record was refused ({type(exc).__name__}: {exc})"
        return got

    def _save_fetched(self, why: Mapping[int, str], got: _Fetched) -> None:
        """Write each hand of ``why`` whose record ``got`` holds and replays; say which could
        not be saved. A hand whose fetch failed is asked for again at the next catch-up."""
        from engine.record import RecordError, replay_record

        match = self.match or 0
        for number, reason in sorted(why.items()):
            self.say(
                f"{self._hands_text(match, [number])}: {reason}; saving the server's record of it"
            )
        missing: list[int] = []
        bad: list[str] = []
        for number in sorted(why):
            entry = got.entries.get(number)
            if entry is None:
                missing.append(number)
                continue
            record = {
                **entry["record"],
                "players": list(entry.get("names") or []),
                "payouts": entry.get("payouts"),
                "table": got.table,
                "match": match,
                "hand": number,
            }
            try:
                result = replay_record(record)
            except (RecordError, KeyError, TypeError, ValueError) as exc:
                result = {"complete": False, "error": exc}
            self.hands_over.add(number)
            self.unfetched.discard(number)
            if not result.get("complete") or result.get("payouts") != record["payouts"]:
                bad.append(f"{number + 1} ({result.get('error') or 'it does not replay whole'})")
                continue
            self._write(number, record)
        if bad:
            self.say(
                f"{self._hands_text(match, [], 'hand')} {', '.join(bad)} not saved: the "
                "server's record does not replay"
            )
        if not missing:
            return
        if got.error is None:
            self.hands_over.update(missing)
            self.unfetched.difference_update(missing)
            self.say(
                f"{self._hands_text(match, missing)} not saved: the server has no record of it"
            )
            return
        self.unfetched.update(missing)
        self.say(f"{self._hands_text(match, missing)} not saved: {got.error}")

    @staticmethod
    def _hands_text(match: int, numbers: list[int], word: str = "") -> str:
        """``hand 3``, ``hands 3, 4`` (numbers from 1), with ``match 2`` after a rematch."""
        word = word or ("hand" if len(numbers) == 1 else "hands")
        text = f"{word} {', '.join(str(n + 1) for n in numbers)}".rstrip()
        return f"match {match + 1} {text}" if match else text

    def _file_name(self, table: Any, number: int) -> str:
        """The file of hand ``number`` of the current match: ``t1-hand0003.json``, and
        ``t1-match2-hand0003.json`` from the first rematch on (hands count from 1 in each
        match, as in the first)."""
        match = self.match or 0
        part = f"-match{match + 1}" if match else ""
        return f"{table}{part}-hand{number + 1:04d}.json"

    def _write(self, number: int, record: Mapping[str, Any]) -> None:
        """Write a record whole or not at all: a temporary file replaces the final one, so a
        bot killed while writing leaves no half record behind."""
        if isinstance(record.get("fair"), Mapping):
            self.fair = True  # the server's record: it commits to its deals
        folder = Path(self.config.save_hands or ".")
        path = folder / self._file_name(record.get("table"), number)
        if self._write_file(path, record, number, " not saved"):
            self.written[(self.match or 0, number)] = path

    def _write_file(self, path: Path, record: Mapping[str, Any], number: int, failed: str) -> bool:
        """Write ``record`` to ``path`` through a temporary file (atomic); on failure say
        ``hand N<failed>: why`` and return False."""
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            self.say(f"{self._hands_text(self.match or 0, [number])}{failed}: {exc}")
            return False
        return True


def _revealed(path: Path) -> bool:
    """Whether the record saved at ``path`` carries its deal's revealed server seed."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    fair = record.get("fair") if isinstance(record, dict) else None
    return isinstance(fair, dict) and isinstance(fair.get("server_seed"), str)


_REMATCH_LOSS = "a new match began at the table while this bot was away"
"""Why hands of an earlier match are fetched, said with the reason they could not be."""
_CURRENT_ONLY = "the server keeps only the current match's hands"
"""Why an older server's ``history`` brought no earlier match (it ignores ``match``)."""
_FROM_RECORDS = "taken from the server's records of it"
"""Where the seeds of a reveal this bot missed were found."""


@dataclass
class _Fetched:
    """What one run of ``history`` pages brought: the match and table they are of (None: no
    page came), the entries by hand number, and why the pages stopped early (None: they
    did not)."""

    match: int | None = None
    table: str | None = None
    entries: dict[int, HistoryEntry] = field(default_factory=dict)
    error: str | None = None


def rule_option(text: str) -> tuple[str, Any]:
    """Parse a ``--rule NAME=VALUE`` argument (argparse ``type``)."""
    key, sep, value = text.partition("=")
    if not sep or key not in OPTION_NAMES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=VALUE with NAME one of {', '.join(OPTION_NAMES)}"
        )
    lowered = value.lower()
    parsed: Any = {"true": True, "false": False}.get(lowered, value)
    return key, parsed


def add_rules_arguments(parser: argparse.ArgumentParser, default_preset: str, when: str) -> None:
    """Add ``--preset`` and ``--rule NAME=VALUE`` (repeatable); ``when`` starts their help."""
    parser.add_argument(
        "--preset",
        default=default_preset,
        choices=tuple(PRESET_TITLES),
        help=when + presets_help(default_preset),
    )
    parser.add_argument(
        "--rule",
        action="append",
        type=rule_option,
        default=[],
        metavar="NAME=VALUE",
        help=f"{when}a rule option changed from the preset (repeatable), e.g. no_pick=doubler "
        '(docs/rules.md, "Table options")',
    )


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``bot``'s arguments."""
    del command
    parser.add_argument(
        "server", metavar="HOST[:PORT]", help=f"server to connect to (default port {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--strategy",
        default="heuristic",
        metavar="NAME|PATH",
        help="a registered strategy (random, heuristic, search, ...), a Python file with a "
        "class defining choose(view, legal), or an executable program (docs/bots.md, 'A bot "
        "in any language'); options as NAME:key=value (default heuristic)",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--table", metavar="ID", help="join this table (first free seat)")
    where.add_argument(
        "--create",
        action="store_true",
        help="create a table (you are its host), fill --bots seats with server bots and start",
    )
    parser.add_argument("--name", help="display name (default: '<the strategy's name> bot')")
    parser.add_argument(
        "--hands", type=int, default=3, metavar="N", help="hands to play with --create (default 3)"
    )
    parser.add_argument("--password", help="the table's password (join) or a new one (create)")
    add_rules_arguments(parser, DEFAULT_PRESET, "with --create: ")
    parser.add_argument(
        "--bots",
        type=int,
        default=4,
        metavar="K",
        help="with --create: seats to fill with server bots, 0-4 (default 4); with fewer, other "
        "players join with --table and --start starts the match once all seats are taken",
    )
    parser.add_argument(
        "--start",
        action="store_true",
        help="with --create and --bots below 4: start the match as soon as the table is full",
    )
    parser.add_argument(
        "--turn-timer",
        type=float,
        metavar="SECONDS",
        help="with --create: seconds per decision; when they run out a server bot moves "
        "(default: no timer)",
    )
    parser.add_argument(
        "--server-bots",
        metavar="NAME",
        help="strategy of the server bots with --create (default: the server's)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed for the strategy's random choices (default: unseeded)"
    )
    parser.add_argument(
        "--tokens",
        metavar="PATH",
        help="keep the seat token in this file, so a restarted bot takes its seat back",
    )
    parser.add_argument(
        "--save-hands",
        metavar="DIR",
        help="write every finished hand as a sheepshead-hand/1 record (docs/hand-record.md) "
        "into DIR, with the players' names and the payouts",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log every decision: phase, hand, legal actions and the choice",
    )
    parser.add_argument(
        "--think-time",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="most seconds a thinking strategy (search) spends on one decision (default 0.5)",
    )


def _path_errors(tokens: str | None, save_hands: str | None) -> list[str]:
    """Why ``--tokens`` or ``--save-hands`` cannot be written, said before connecting (and
    ``--save-hands`` made): a directory as ``--tokens`` ended the bot in a traceback once
    seated, and a file as ``--save-hands`` said "hand N not saved: [Errno 17] File exists"
    after each hand. (A missing folder of ``--tokens`` is made with its file.)"""
    errors = []
    if tokens is not None and Path(tokens).is_dir():
        errors.append(f"--tokens {tokens} is a directory: give a file name in it")
    if save_hands is not None:
        try:
            Path(save_hands).mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            errors.append(f"--save-hands {save_hands} is a file: give a directory")
        except OSError as exc:
            errors.append(f"cannot make --save-hands {save_hands}: {exc.strerror or exc}")
    return errors


def run(args: argparse.Namespace) -> int:
    """Play one match; 0 when it ends, 1 when the connection or table goes, 2 if refused, 3
    when the strategy failed in some decision (the first legal action was played instead)."""
    try:
        host, port = parse_address(args.server)
    except AddressError as exc:
        print(f"sheepshead bot: {exc}", file=sys.stderr)
        return 2
    errors = []
    if args.name is not None and not args.name.strip():
        errors.append("--name is empty: give a name, or leave --name out for '<strategy> bot'")
    elif args.name is not None:
        try:
            args.name = name_argument(args.name)
        except ValueError as exc:
            errors.append(str(exc))
    if args.hands is not None and not 1 <= args.hands <= 1000:
        errors.append("--hands must be from 1 to 1000")
    if not 0 <= args.bots <= 4:
        errors.append("--bots must be from 0 to 4")
    elif args.create and args.bots < 4 and not args.start:
        errors.append(
            f"--bots {args.bots} leaves seats for other players: add --start so this bot, the "
            "host, starts the match once they have joined"
        )
    if args.turn_timer is not None and not 0.1 <= args.turn_timer <= 86400:
        errors.append("--turn-timer must be from 0.1 to 86400 seconds")
    if not args.create:
        for flag, given in (
            ("--rule", bool(args.rule)),
            ("--bots", args.bots != 4),
            ("--start", args.start),
            ("--turn-timer", args.turn_timer is not None),
        ):
            if given:
                errors.append(f"{flag} only applies with --create")
    try:
        RuleSet.from_preset(args.preset, **dict(args.rule))
    except SheepsheadError as exc:
        errors.append(exc.message)
    if not 0 < args.think_time <= 60:
        errors.append("--think-time must be more than 0 and at most 60")
    try:
        strategy_factory(args.strategy)
    except StrategyLoadError as exc:
        errors.append(str(exc))
    errors += _path_errors(args.tokens, args.save_hands)
    if errors:
        for error in errors:
            print(f"sheepshead bot: {error}", file=sys.stderr)
        return 2
    config = BotConfig(
        host=host,
        port=port,
        strategy=args.strategy,
        name=args.name,
        table=args.table,
        create=args.create,
        hands=args.hands,
        password=args.password,
        preset=args.preset,
        server_bots=args.server_bots,
        seed=args.seed,
        tokens=args.tokens,
        bots=args.bots,
        options=dict(args.rule),
        turn_timer=args.turn_timer,
        start=args.start,
        verbose=args.verbose,
        save_hands=args.save_hands,
        think_time=args.think_time,
    )
    return asyncio.run(run_bot(config))
