"""The ``state`` a table sends (public view packed once, private fields per seat) decodes to
exactly the map the plain construction from ``seat_view`` gives, for every seat and a spectator,
through a whole hand; ``info`` is left out exactly when the recipient already has that summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.rules import RuleSet
from engine.view import seat_view
from protocol import events as m
from protocol.framing import FrameDecoder, encode
from server.app import ServerConfig
from server.storage.store import Store
from server.tables.lobby import Lobby
from server.tables.states import public_action
from server.tables.table import Table
from tests.server.support import Sink, seated_table


class Recorder(Sink):
    """A peer that keeps every frame it is sent, decoded by the real codec."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.kind = "human"
        self.frames: list[bytes] = []
        self.info: dict[str, Any] | None = None
        """The last summary received."""

    def send(self, message: Mapping[str, Any]) -> None:
        self.frames.append(encode(message))

    def send_encoded(self, frame: bytes) -> None:
        self.frames.append(frame)

    def states(self) -> list[tuple[bytes, dict[str, Any]]]:
        """Every ``state`` received so far (frame, decoded map); clears the record."""
        out = []
        for frame in self.frames:
            (msg,) = FrameDecoder().feed(frame)
            assert isinstance(msg, dict)
            if msg["type"] == "state":
                out.append((frame, msg))
        self.frames.clear()
        return out


def old_state(table: Table, seat: int | None) -> dict[str, Any]:
    """The ``state`` as the server built it before the public view was packed once."""
    match = table.match
    shared = m.state_shared(
        table=table.id,
        seq=table.seq,
        info=table.summary(),
        totals=table.totals,
        hand=match.number if match is not None else 0,
    )
    own = m.state_own(
        seat=seat,
        view=seat_view(match.hand, seat) if match is not None else None,
        last=public_action(table.last, seat),
    )
    return {**shared, **own}


def check(table: Table, peers: list[Recorder], watcher: Recorder | None) -> int:
    checked = 0
    watching = [] if watcher is None else [(watcher, None)]
    for viewer, seat in [*((p, i) for i, p in enumerate(peers)), *watching]:
        if viewer.seat != seat:
            continue
        states = viewer.states()
        assert states, f"seat {seat} got no state"
        for _, earlier in states[:-1]:
            viewer.info = earlier.get("info", viewer.info)
        frame, got = states[-1]
        expected = old_state(table, seat)
        if "info" in got:
            assert got["info"] != viewer.info, "an unchanged summary was sent again"
            viewer.info = got["info"]
        else:
            assert viewer.info == expected.pop("info"), "a changed summary was left out"
        assert got == expected
        # Same fields, so the same size: only the order of the view's keys may differ.
        assert len(frame) == len(encode(expected))
        checked += 1
    return checked


async def test_state_frames_match_the_plain_construction_for_a_whole_hand() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, db_path=None, seed_wait=0.0)
    lobby = Lobby(config, Store(None))
    peers = [Recorder(f"p{i}") for i in range(5)]
    table = seated_table(lobby, peers, rules=RuleSet.from_preset("seed"), hands=1)
    watcher = Recorder("w")
    table.watch(watcher)
    assert check(table, [], watcher) == 1  # a spectator's snapshot before the match
    table.start(peers[0])
    checked = check(table, peers, watcher)
    match = table.match
    assert match is not None
    watching: Recorder | None = watcher
    while not match.hand.is_over:
        hand = match.hand
        action = hand.legal_actions()[0]
        table.act(peers[hand.turn], table.seq, action.to_dict())
        checked += check(table, peers, watching)
        if len(hand.actions) == 5:  # the spectator goes: the next state's summary shows it
            table.leave(watcher)
            watching = None
        if len(hand.actions) == 10:  # a seat drops and comes back: the summary changes
            table.detach(peers[4])
            assert table.summary()["seats"][4]["connected"] is False
            checked += check(table, peers, watching)
            peers[4].info = None  # a (re)join's snapshot carries the summary however it stands
            table.resume(peers[4], 4)
            checked += check(table, peers, watching)
    assert match.is_over and checked > 6 * 30
    table.shutdown()
