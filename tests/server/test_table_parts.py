"""A table's parts alone, each against a stand-in for the table that has only what the part's
interface names: :class:`server.tables.presence.Presence` (``PresenceTable``),
:class:`server.tables.turns.TurnClock` (``TurnsTable``) and
:class:`server.tables.commitments.SeedCeremony` (``SeedsTable``)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

from engine.actions import Action
from engine.match import Match
from engine.rules import RuleSet
from server.tables.commitments import SeedCeremony
from server.tables.hub import Peer
from server.tables.presence import Presence
from server.tables.seats import SeatState, TableState
from server.tables.table_config import TableConfig
from server.tables.turns import TurnClock
from tests.server.support import Sink, events_source, table_config

CONFIG = table_config(grace=0.01)


@dataclass
class StandInTable:
    """Only what the parts' interfaces name, and a record of what they asked of it."""

    config: TableConfig = CONFIG
    id: str = "t1"
    state: TableState = "playing"
    seats: list[SeatState] = field(default_factory=lambda: [SeatState() for _ in range(5)])
    spectators: set[Peer] = field(default_factory=set)
    match: Match | None = None
    clock: float = 100.0
    notices: list[tuple[str, int | None]] = field(default_factory=list)
    published: int = 0
    presence: Presence = field(init=False)
    hub: Any = field(init=False)
    ledger: Any = field(init=False)

    stored: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.presence = Presence(self)
        self.ledger = SimpleNamespace(
            seeds_locked=lambda seeds: self.stored.update(seeds=seeds),
            seeds_revealed=lambda entries: self.stored.update(revealed=entries),
        )
        config = SimpleNamespace(seed_wait=5.0)
        self.hub = SimpleNamespace(now=lambda: self.clock, config=config)

    def notice(self, code: str, text: str, seat: int | None = None) -> None:
        self.notices.append((code, seat))

    def publish_state(self, *, new_turn: bool = False, action_stored: bool = False) -> None:
        self.published += 1

    def prompt(self, seat: int) -> bytes | None:
        return None

    def apply_action(self, action: Action) -> None:
        raise AssertionError("no move is made in these tests")


async def test_presence_alone_puts_a_stand_in_in_an_absent_players_seat_after_the_grace() -> None:
    table = StandInTable()
    table.seats[2] = SeatState(kind="human", name="Ann")
    table.seats[3] = SeatState(kind="bot", name="Ole")
    assert not table.presence.standin_active(2)
    table.presence.start_absent_graces()  # Ann is away; a bot needs no grace
    assert table.seats[3].grace_timer is None
    deadline = time.monotonic() + 10
    while not table.seats[2].standin and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert table.presence.standin_active(2) and table.seats[2].grace_timer is None
    assert table.notices == [("standin", 2)] and table.published == 1
    table.state = "over"
    assert not table.presence.standin_active(2)


async def test_presence_alone_cancels_a_grace_once_the_player_is_back() -> None:
    table = StandInTable(config=replace(CONFIG, grace=3600.0))
    table.seats[0] = SeatState(kind="human", name="Bob")
    table.presence.start_grace(0)
    assert table.seats[0].grace_timer is not None
    table.presence.cancel_grace(table.seats[0])
    assert table.seats[0].grace_timer is None and table.notices == []


def test_turn_clock_alone_keeps_the_trick_pause_and_the_turn_timer() -> None:
    table = StandInTable(config=replace(CONFIG, turn_timer=30.0))
    table.match = Match(RuleSet(), seed=1)
    clock = TurnClock(table)
    assert clock.wait_left() == 0.0 and clock.deadline() is None
    decision = len(table.match.hand.actions)
    clock.pause_before_lead(table.match.number, decision, until=table.clock + 2.0)
    assert clock.wait_left() == 2.0
    clock.update_deadline()  # nobody at the table (a restored one): no clock starts
    assert clock.deadline() is None
    table.spectators.add(Sink("Sam"))
    clock.update_deadline()  # the timer starts after the pause
    assert clock.deadline() == table.clock + 2.0 + 30.0
    table.clock += 5.0
    assert clock.wait_left() == 0.0
    clock.update_deadline()  # the same decision keeps its deadline
    assert clock.deadline() == 132.0
    clock.new_match()
    assert clock.deadline() is None and clock.wait_left() == 0.0


def test_seed_ceremony_alone_commits_takes_seeds_locks_and_reveals() -> None:
    table = StandInTable()
    table.seats[1] = SeatState(kind="human", name="Ann", peer=SimpleNamespace())
    table.seats[4] = SeatState(kind="bot", name="Gus")
    seeds = SeedCeremony(table)
    assert seeds.commit() is None and seeds.pending_message() is None  # no match yet
    seeds.new_match()
    message = seeds.commit()
    assert message is not None and message["type"] == "commitment" and message["wait"] == 5.0
    assert seeds.pending_message() == message
    assert seeds.seed_seats() == [1]
    seeds.offer(1, message["commitment"], bytes(32))
    seeds.lock(0)
    assert seeds.pending_message() is None and len(table.stored["seeds"]) == 1
    (used,) = table.stored["seeds"]
    assert used["first_hand"] == 0
    revealed = seeds.reveal(1)
    assert revealed is not None and revealed["type"] == "seeds_revealed"
    assert table.stored["revealed"] == revealed["commitments"]
    # Each entry has exactly the keys of the type the client reads it through.
    assert [set(c) for c in revealed["commitments"]] == [
        set(events_source().RevealedCommitment.__required_keys__)
    ]
    assert seeds.fair(0, revealed=True) is not None
    assert SeedCeremony(table).fair(0, revealed=True) is None  # a match dealt without seeds
