"""A table's ledger alone (:class:`server.tables.ledger.TableLedger`): what it is told a table
did, written to a real (in-memory) store, read back as the store's rows and as the restore sees
them (``Store.load_open_tables``)."""

from __future__ import annotations

from typing import Any

from server.storage.store import Store
from server.storage.tallies import HandFacts
from server.tables.ledger import TableLedger
from server.tables.seats import SeatState

FACTS = HandFacts(picker=0, leaster=False, picker_side_points=70, payouts=[2, 1, -1, -1, -1])


def new_ledger(store: Store) -> TableLedger:
    return TableLedger(store, store.create_table({"name": "t"}, created=1.0))


def table_row(store: Store, ledger: TableLedger) -> dict[str, Any] | None:
    """The table's stored row (None: forgotten)."""
    cur = store._db.execute(
        "SELECT state, finished, host_seat, dealt, match_number, totals FROM tables WHERE id = ?",
        (int(ledger.table_id[1:]),),
    )
    found = cur.fetchone()
    if found is None:
        return None
    names = ("state", "finished", "host_seat", "dealt", "match", "totals")
    return dict(zip(names, found, strict=True))


def stored(store: Store, ledger: TableLedger) -> dict[str, Any]:
    """The table's stored row, which must be there."""
    row = table_row(store, ledger)
    assert row is not None
    return row


def count(store: Store, ledger: TableLedger, table: str) -> int:
    (n,) = store._db.execute(
        f"SELECT count(*) FROM {table} WHERE table_id = ?", (int(ledger.table_id[1:]),)
    ).fetchone()
    assert isinstance(n, int)
    return n


def seated(store: Store, ledger: TableLedger) -> str:
    """Ann (seat 0, the host, her token linked to her identity) and a bot at seat 1; returns
    the hash of Ann's token."""
    token_hash = ledger.table_id.rjust(64, "0")
    ledger.host_changed(0)
    ledger.seat_changed(0, SeatState(kind="human", name="Ann", token_hash=token_hash))
    store.link_seat(token_hash, "ann-identity")
    ledger.seat_changed(1, SeatState(kind="bot", name="Lena", strategy_name="random"))
    return token_hash


def played_a_hand(ledger: TableLedger, *, match: int = 0) -> None:
    ledger.match_started(seed=42, first_dealer=3)
    ledger.hand_dealt(0)
    ledger.record_action(0, '{"seat":4,"action":"pick"}', seq=5, match=match)
    ledger.hand_finished(
        0,
        {"hand": 0},
        FACTS.payouts,
        facts=FACTS,
        totals=FACTS.payouts,
        finished=10.0,
        match=match,
    )


def test_the_restore_reads_the_seats_host_deal_and_actions_of_the_current_match() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    seated(store, ledger)
    ledger.seat_changed(1, SeatState())  # the bot is taken out again
    ledger.match_started(seed=42, first_dealer=3)
    for n, seq in enumerate((4, 5, 6)):
        ledger.record_action(0, f'{{"seat":{n},"action":"pass"}}', seq=seq, match=0)
    assert ledger.actions == 3
    ledger.hand_dealt(1)
    (row,) = store.load_open_tables()
    assert (row.state, row.seed, row.first_dealer, row.host_seat, row.dealt) == (
        "playing",
        42,
        3,
        0,
        1,
    )
    assert [(s.seat, s.name) for s in row.seats] == [(0, "Ann")]
    assert [a["seat"] for _, a in row.actions] == [0, 1, 2]
    assert row.seq == 6  # stored with the actions, no update of the row

    # A new match numbers its actions from 0 again, and the restore reads only its own.
    ledger.rematch(1)
    assert table_row(store, ledger) == {
        "state": "waiting",
        "finished": None,
        "host_seat": 0,
        "dealt": 1,
        "match": 1,
        "totals": "[0,0,0,0,0]",
    }
    ledger.match_started(seed=7, first_dealer=0)
    assert ledger.actions == 0 and stored(store, ledger)["dealt"] == 0
    ledger.record_action(0, '{"seat":1,"action":"pick"}', seq=9, match=1)
    (row,) = store.load_open_tables()
    assert [(hand, a["seat"]) for hand, a in row.actions] == [(0, 1)]

    again = TableLedger(store, ledger.table_id)  # as Table.restore makes it
    again.actions_replayed(len(row.actions))
    again.record_action(0, '{"seat":2,"action":"pass"}', seq=10, match=1)
    (row,) = store.load_open_tables()
    assert [a["seat"] for _, a in row.actions] == [1, 2]  # numbered on, so the log has no gap


def test_a_finished_hand_and_the_match_end_store_records_totals_and_results() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    seated(store, ledger)
    played_a_hand(ledger)
    assert store.hand_records(ledger.table_id) == [{"hand": 0}]
    assert ledger.hand_names(0, 0) == ["Ann", "Lena", "", "", ""]
    assert ledger.hand_names(0, 1) is None
    assert stored(store, ledger)["totals"] == "[2,1,-1,-1,-1]"

    seats = [SeatState(kind="human", name="Ann"), SeatState(kind="bot", name="Lena")]
    seats += [SeatState() for _ in range(3)]
    ledger.match_ended(seats, [2, 1, -1, -1, -1], hands=1, finished=20.0, match=0)
    row = stored(store, ledger)
    assert (row["state"], row["finished"]) == ("over", 20.0)
    assert [
        (r["seat"], r["name"], r["kind"], r["total"]) for r in store.results(ledger.table_id)
    ] == [
        (0, "Ann", "human", 2),
        (1, "Lena", "bot", 1),
        (2, None, "empty", -1),
        (3, None, "empty", -1),
        (4, None, "empty", -1),
    ]
    (over,) = store.load_open_tables(over_since=0.0)
    assert over.state == "over" and over.finished == 20.0


def test_a_match_that_finished_no_hand_stores_no_results() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    ledger.match_started(seed=1, first_dealer=0)
    ledger.match_ended([SeatState() for _ in range(5)], [0] * 5, hands=0, finished=3.0, match=0)
    assert store.results(ledger.table_id) == []
    assert stored(store, ledger)["state"] == "over"


def test_deal_seeds_are_stored_read_back_and_revealed_into_the_hand_records() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    assert ledger.deal_seeds() == []
    used = [{"commitment": "c0", "first_hand": 0}]
    ledger.seeds_locked(used)
    assert ledger.deal_seeds() == used
    ledger.match_started(seed=1, first_dealer=0)
    ledger.hand_finished(
        0,
        {"fair": {"commitment": "c0"}},
        FACTS.payouts,
        facts=FACTS,
        totals=FACTS.payouts,
        finished=1.0,
        match=0,
    )
    ledger.seeds_revealed(
        [{"commitment": "c0", "first_hand": 0, "last_hand": 0, "server_seed": "5eed"}]
    )
    assert store.hand_records(ledger.table_id) == [
        {"fair": {"commitment": "c0", "server_seed": "5eed"}}
    ]


def test_a_forgotten_token_unlinks_its_player() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    token_hash = seated(store, ledger)
    links = "SELECT count(*) FROM seat_identities"
    assert store._db.execute(links).fetchone() == (1,)
    ledger.token_forgotten(token_hash)
    assert store._db.execute(links).fetchone() == (0,)


def test_a_table_that_never_started_is_forgotten_whole_when_it_closes() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    seated(store, ledger)
    ledger.seeds_locked([{"commitment": "c0"}])
    ledger.closed("waiting", match=0, finished=5.0)
    assert table_row(store, ledger) is None
    assert count(store, ledger, "seats") == count(store, ledger, "deal_seeds") == 0
    assert store._db.execute("SELECT count(*) FROM seat_identities").fetchone() == (0,)


def test_a_table_that_finished_no_hand_keeps_only_its_row_closed() -> None:
    store = Store(None)
    ledger = new_ledger(store)
    seated(store, ledger)
    ledger.match_started(seed=42, first_dealer=3)
    ledger.record_action(0, '{"seat":4,"action":"pick"}', seq=5, match=0)
    ledger.match_ended([SeatState() for _ in range(5)], [0] * 5, hands=0, finished=4.0, match=0)
    ledger.closed("over", match=0, finished=5.0)
    store.commit()  # the batch's actions are inserted with its commit
    row = stored(store, ledger)
    assert (row["state"], row["finished"]) == ("closed", 5.0)
    assert count(store, ledger, "seats") == 0
    assert count(store, ledger, "actions") == 1  # the log is never rewritten
    assert store.load_open_tables(over_since=0.0) == []


def test_a_table_with_finished_hands_is_kept_closed_when_it_closes() -> None:
    store = Store(None)
    over = new_ledger(store)
    seated(store, over)
    played_a_hand(over)
    over.match_ended([SeatState() for _ in range(5)], [0] * 5, hands=1, finished=20.0, match=0)
    over.closed("over", match=0, finished=30.0)
    row = stored(store, over)
    assert (row["state"], row["finished"]) == ("closed", 20.0)  # when its match ended

    waiting = new_ledger(store)  # a rematch, left before it started
    seated(store, waiting)
    played_a_hand(waiting)
    waiting.rematch(1)
    waiting.closed("waiting", match=1, finished=30.0)
    row = stored(store, waiting)
    assert (row["state"], row["finished"]) == ("closed", 30.0)
    for ledger in (over, waiting):  # nothing of either is restored, and their hands stay
        assert count(store, ledger, "hands") == 1 and count(store, ledger, "seats") == 2
    assert store.load_open_tables(over_since=0.0) == []


def test_moves_made_for_a_person_are_stored_with_their_actions_and_known_again_on_restore() -> None:
    """A stand-in's or the turn timer's move is stored with who made it (``by``), so the
    hand's ``made_for`` survives a restart, during the hand or after it."""
    store = Store(None)
    ledger = new_ledger(store)
    ledger.match_started(seed=42, first_dealer=3)
    ledger.record_action(0, '{"seat":4,"action":"pass"}', seq=1, match=0, index=0)
    ledger.record_action(0, '{"seat":0,"action":"pass"}', seq=2, match=0, index=1, made_by="timer")
    ledger.record_action(0, '{"seat":1,"action":"pick"}', seq=3, match=0, index=2)
    ledger.record_action(
        0, '{"seat":1,"action":"bury","cards":["7D","8D"]}', seq=4, match=0, index=3,
        made_by="standin",
    )  # fmt: skip
    assert ledger.made_for(0) == {"timer": [1], "standin": [3]}
    assert ledger.made_for(1) == {}  # another hand's: none
    (row,) = store.load_open_tables()
    assert [a.get("by") for _, a in row.actions] == [None, "timer", None, "standin"]
    again = TableLedger(store, ledger.table_id)  # as Table.restore makes it
    for index, (hand, data) in enumerate(row.actions):
        again.action_replayed(hand, index, data)
    assert again.made_for(0) == ledger.made_for(0)
    # The next hand starts with none; a new match numbers its hands from 0 again.
    ledger.record_action(1, '{"seat":0,"action":"pass"}', seq=5, match=0, index=0)
    assert ledger.made_for(1) == {} and ledger.made_for(0) == {}
    ledger.record_action(1, '{"seat":2,"action":"pass"}', seq=6, match=0, index=1, made_by="timer")
    ledger.match_started(seed=7, first_dealer=0)
    assert ledger.made_for(1) == {}
