"""The lobby's cached ``list_tables`` answer lasts exactly as long as every summary in it."""

from __future__ import annotations

import pytest

from protocol.framing import pack
from server.app import ServerConfig
from server.storage.store import Store
from server.tables import lobby as lobby_module
from server.tables.lobby import Lobby
from tests.server.support import Sink, seated_table


def summary_of(lobby: Lobby, table_id: str) -> dict[str, object]:
    (summary,) = [s for s in lobby.list_tables()[0] if s["id"] == table_id]
    return summary


async def test_the_listing_is_rebuilt_when_a_summary_changes_and_only_then() -> None:
    lobby = Lobby(ServerConfig(host="127.0.0.1", port=0, db_path=None), Store(None))
    peers = [Sink(f"p{i}") for i in range(5)]
    table = seated_table(lobby, peers)
    table.start(peers[0])
    match = table.match
    assert match is not None

    # The cached list itself: the compiled build boxes a new tuple around it on each call.
    listing = lobby.list_tables()[0]
    assert summary_of(lobby, table.id)["state"] == "playing"
    hand = match.hand
    table.act(peers[hand.turn], table.seq, hand.legal_actions()[0].to_dict())
    assert lobby.list_tables()[0] is listing  # an action changes no summary

    table.detach(peers[3])
    assert lobby.list_tables()[0] is not listing
    seats = summary_of(lobby, table.id)["seats"]
    assert isinstance(seats, list) and seats[3]["connected"] is False

    listing = lobby.list_tables()[0]
    while not match.hand.is_over:
        hand = match.hand
        seat = hand.turn
        assert seat is not None
        if seat == 3:  # its peer is gone; the table's stand-in would play it after the grace
            table.resume(peers[3], 3)
        table.act(peers[seat], table.seq, hand.legal_actions()[0].to_dict())
    assert lobby.list_tables()[0] is not listing
    assert summary_of(lobby, table.id)["hands_played"] == 1
    table.shutdown()


async def test_a_key_that_takes_a_seat_over_by_its_token_sees_it_in_the_listing_at_once() -> None:
    """``yours`` comes from an index built with the listing: a keyed connection taking over a
    keyless player's connected seat with its token changes no summary, and must still show."""
    lobby = Lobby(ServerConfig(host="127.0.0.1", port=0, db_path=None), Store(None))
    peers = [Sink(f"p{i}") for i in range(5)]
    table = seated_table(lobby, peers)
    assert all("yours" not in s for s in lobby.list_tables("someone")[0])
    keyed = Sink("p2")
    keyed.identity = "someone"  # type: ignore[attr-defined]
    table.resume(keyed, 2)  # its token, taken to another device that has a key
    assert summary_of_for(lobby, table.id, "someone")["yours"] == {"seat": 2, "away": False}
    table.detach(keyed)
    assert summary_of_for(lobby, table.id, "someone")["yours"] == {"seat": 2, "away": True}
    assert "yours" not in summary_of(lobby, table.id)  # not for the keyless, not cached
    assert "yours" not in summary_of_for(lobby, table.id, "another")
    table.shutdown()


def summary_of_for(lobby: Lobby, table_id: str, identity: str) -> dict[str, object]:
    """The summary of ``table_id`` as the asker with ``identity`` is sent it."""
    (summary,) = [s for s in lobby.list_tables(identity)[0] if s["id"] == table_id]
    return summary


async def test_an_askers_own_table_beyond_the_cut_comes_first_and_the_list_makes_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing cut to fit a frame still has every table where the asker's key holds a seat:
    one the cut left out (a waiting table whose only player is away is among the last to be
    listed) comes first, marked ``yours``, and the list gives up summaries for its room."""
    lobby = Lobby(ServerConfig(host="127.0.0.1", port=0, db_path=None), Store(None))
    mine = Sink("me")
    mine.identity = "someone"  # type: ignore[attr-defined]
    own = seated_table(lobby, [mine, *[Sink(f"o{i}") for i in range(4)]])
    for peer in list(own.peers()):
        own.detach(peer)  # everyone gone: a waiting table nobody is at, listed after the rest
    tables = [seated_table(lobby, [Sink(f"t{n}p{i}") for i in range(5)]) for n in range(8)]
    listed, _ = lobby.list_tables()
    size = len(pack(listed[0]))
    monkeypatch.setattr(lobby_module, "LIST_BUDGET", 4 * size + size // 2)
    lobby.summary_changed()

    cached, truncated = lobby.list_tables()
    assert truncated and own.id not in [s["id"] for s in cached]
    mine_listed, truncated = lobby.list_tables("someone")
    assert truncated and mine_listed[0]["id"] == own.id
    assert mine_listed[0]["yours"] == {"seat": 0, "away": True}
    assert mine_listed[1:] == cached[: len(mine_listed) - 1]  # the cached ones, room made
    assert sum(len(pack(s)) for s in mine_listed) <= lobby_module.LIST_BUDGET
    assert all("yours" not in s for s in lobby.list_tables("another")[0])
    for table in (own, *tables):
        table.shutdown()
