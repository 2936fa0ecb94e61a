"""Between two actions a table keeps almost nothing the garbage collector tracks.

At a person's pace a table acts about once a second, so whatever it keeps from one action to the
next is promoted and walked by every young collection meanwhile; at 2,000 tables that is what the
server's pauses are made of (``ServerConfig.gc_thresholds``). The only view parts a table keeps
between changes (``server.tables.states.ViewParts``: the deal's and the auction's) are rebuilt at
most twice a hand; the rest of each state is built afresh and dropped once it is sent.
"""

from __future__ import annotations

import asyncio
import gc
import random

from server.app import ServerConfig
from server.storage.store import Store
from server.tables.lobby import Lobby
from server.tables.table import Table
from tests.server.support import Sink, running_server, seated_table

TABLES = 40


def play_round(tables: list[tuple[Table, list[Sink]]], rng: random.Random) -> int:
    """One action at every table whose hand is still on; returns how many were played."""
    played = 0
    for table, peers in tables:
        match = table.match
        assert match is not None
        hand = match.hand
        if hand.is_over:
            continue
        action = rng.choice(hand.legal_actions())
        table.act(peers[hand.turn], table.seq, action.to_dict())
        played += 1
    return played


async def test_an_action_leaves_few_tracked_objects_behind() -> None:
    config = ServerConfig(host="127.0.0.1", port=0, db_path=None, hand_pause=0.0)
    store = Store(None)
    lobby = Lobby(config, store)
    tables = []
    for number in range(TABLES):
        peers = [Sink(f"p{number}-{i}") for i in range(5)]
        table = seated_table(lobby, peers)
        table.start(peers[0])
        tables.append((table, peers))
    rng = random.Random(7)
    for _ in range(60):  # past the first hands, so every cache has been filled
        play_round(tables, rng)
        lobby.store_seqs()
        store.commit()
        await asyncio.sleep(0)  # the next hands are dealt
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        played = 0
        for _ in range(3):
            played += play_round(tables, rng)
            lobby.store_seqs()
            store.commit()  # as the server's flush does after every batch
        kept = len(gc.get_objects(0))
    finally:
        gc.enable()
        gc.unfreeze()
    for table, _ in tables:
        table.shutdown()
    assert played > TABLES * 2
    # What stays is the engine's record of the hand: each finished trick (about 0.8 objects
    # per action of play). Caches kept as tuples added five more per action.
    assert kept / played < 1.5, f"{kept} tracked objects kept by {played} actions"


async def test_every_clock_collection_takes_the_middle_generation_too() -> None:
    """What survives a clock collection goes on to the old generation at once: left to pile up
    in the middle one, it made a pause of 12-13 ms every fourth round at 2,000 tables."""
    generations: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            generations.append(info["generation"])

    async with running_server(gc_young_every=0.02) as server:
        assert server.port
        gc.callbacks.append(record)
        try:
            await asyncio.sleep(0.2)
        finally:
            gc.callbacks.remove(record)
    # About ten rounds in 0.2 s (fewer on a slow machine); a young collection started by the
    # thresholds in between may add a 0, but the clock's own are all middle ones.
    assert generations.count(1) >= 4, generations
