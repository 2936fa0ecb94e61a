"""The client's table model, fed with real engine views wrapped as server messages."""

from __future__ import annotations

import pytest

from client.config import AddressError, parse_address
from client.model import Change, TableModel, rank_places, rebuild_record
from client.widgets.cards import card_label, fail_cards_of_suit
from engine.record import replay_record
from engine.rules import RuleSet
from tests.client.feed import EngineTable


def feed(model: TableModel, messages: list[dict]) -> Change:
    change = Change.NONE
    for msg in messages:
        change |= model.apply(msg)
    return change


def test_state_then_your_turn_gives_the_prompt_and_a_new_state_clears_it() -> None:
    table = EngineTable(seed=3, dealer=4, me=0)
    model = TableModel()
    change = feed(model, table.messages())
    assert change & Change.STATE and change & Change.PROMPT
    assert model.my_seat == 0 and model.phase == "pick"
    assert model.decision == "pick"
    assert model.prompt is not None and model.prompt.kinds() == {"pick", "pass"}
    assert model.hand == table.messages()[0]["view"]["hand"]
    feed(model, table.apply({"action": "pass"}))
    assert model.prompt is None and model.decision is None
    assert model.turn == 1


def test_legal_cards_come_only_from_the_prompt() -> None:
    table = EngineTable(seed=5, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.apply({"action": "pass"}))
    feed(model, table.advance())
    while not table.hand.is_over and table.hand.phase != "play":
        feed(model, table.apply(table.hand.legal_actions()[0].to_dict()))
        feed(model, table.advance())
    if table.hand.turn == 0:
        expected = sorted(a.to_dict()["card"] for a in table.hand.legal_actions())
        assert sorted(model.legal_cards) == expected
        assert model.prompt is not None
        assert model.prompt.find("play", card=expected[0]) == {
            "action": "play",
            "card": expected[0],
        }
        assert model.prompt.find("play", card="ZZ") is None
    else:
        assert model.legal_cards == []


def test_bury_prompt_matches_cards_in_any_order() -> None:
    table = EngineTable(seed=3, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.apply({"action": "pick"}))
    assert model.decision == "bury" and len(model.hand) == 8
    first = model.legal[0]["cards"]
    assert model.prompt is not None
    assert model.prompt.find("bury", cards=list(reversed(first))) is not None
    assert model.prompt.find("bury", cards=[first[0], first[0]]) is None


def play_out(table: EngineTable, model: TableModel, pick_last: bool = False) -> None:
    feed(model, table.messages())
    while not table.hand.is_over:
        legal = table.hand.legal_actions()
        feed(model, table.apply((legal[-1] if pick_last else legal[0]).to_dict()))


@pytest.mark.parametrize(
    ("rules", "seed", "pick_last"),
    [
        (RuleSet(), 1, False),  # first legal: seat 0 picks at once
        (RuleSet(), 2, True),  # last legal: everyone passes, a leaster
        (RuleSet.from_preset("wisconsin"), 3, False),
        (RuleSet(partner="jack-of-diamonds"), 4, False),
        (RuleSet(no_pick="doubler"), 5, True),
        (RuleSet(unknown_card=True), 6, False),
    ],
)
def test_a_finished_hand_is_recorded_once_and_rebuilds_a_replayable_record(
    rules: RuleSet, seed: int, pick_last: bool
) -> None:
    table = EngineTable(seed=seed, dealer=seed % 5, me=2, rules=rules)
    model = TableModel()
    play_out(table, model, pick_last)
    assert len(model.history) == 1
    done = model.history[0]
    assert model.pending_result is done
    assert done.view is not None and done.view["phase"] == "done"
    record = done.to_record()
    # The seats' server bot strategies from the table summary (seat 0 is a person here).
    assert record.pop("strategies") == [None, "random", "random", "random", "random"]
    assert record == rebuild_record(done.view, done.reveal)
    assert replay_record(record) == table.hand.result().to_dict()
    assert done.totals == table.totals


def test_the_log_tells_the_hand_and_hides_another_seats_bury() -> None:
    table = EngineTable(seed=3, dealer=4, me=2)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.apply({"action": "pick"}))
    msgs = table.apply(table.hand.legal_actions()[0].to_dict())
    # Even if a server sent the bury cards, another seat's bury stays face down.
    msgs[0]["last"]["cards"] = ["7C", "8C"]
    feed(model, msgs)
    lines = [e.text for e in model.log]
    assert lines[0].startswith("── Hand 1: Eve deals")
    assert "Ann picks" in lines
    assert "Ann buries 2 cards" in lines
    while table.hand.trick_number == 0:
        feed(model, table.apply(table.hand.legal_actions()[0].to_dict()))
    trick = table.hand.tricks[0]
    assert f"Trick 1: {table.names[trick.winner]} takes {trick.points}" in [
        e.text for e in model.log
    ]


def test_a_state_that_applies_no_action_does_not_log_the_last_one_again() -> None:
    # The picker dropped and came back during the bury: everyone's log read "Ann picks"
    # three times, once per state (a seat's connection changing) repeating that ``last``.
    table = EngineTable(seed=3, dealer=4, me=2)
    model = TableModel()
    feed(model, table.messages())
    picked = table.apply({"action": "pick"})
    feed(model, picked)
    last = picked[0]["last"]
    feed(model, table.messages(last=last))  # Ann disconnected: same seq, same last
    feed(model, table.messages(last=last))  # Ann is back
    lines = [e.text for e in model.log]
    assert lines.count("Ann picks") == 1, lines
    feed(model, table.apply(table.hand.legal_actions()[0].to_dict()))
    assert [e.text for e in model.log].count("Ann buries 2 cards") == 1


def test_chat_notice_connection_and_match_over() -> None:
    model = TableModel()
    assert model.apply({"type": "chat", "from": "Bo", "seat": 1, "text": "hi"}) == Change.CHAT
    assert model.apply({"type": "notice", "text": "Bob left", "code": "left"}) == Change.NOTICE
    assert model.connection_changed("connected", "reconnecting") & Change.CONNECTION
    model.connection_changed("reconnecting", "connected")
    change = model.apply({"type": "match_over", "totals": [3, -1, -1, -1, 0], "hands": 2})
    assert change & Change.MATCH_OVER and model.totals == [3, -1, -1, -1, 0]
    texts = [e.text for e in model.log]
    assert texts[:3] == ["Bo: hi", "Bob left", "Connection lost: reconnecting…"]
    assert "Reconnected" in texts and texts[-1].startswith("Match over after 2 hands")
    assert model.apply({"type": "no_such_event"}) == Change.NONE
    assert model.log_count == len(texts)


def test_one_hand_is_singular_and_tied_totals_share_a_place() -> None:
    model = TableModel()
    model.apply({"type": "match_over", "totals": [2, 2, -1, -1, -2], "hands": 1})
    assert model.log[-1].text.startswith("Match over after 1 hand: ")
    assert rank_places(model.totals) == [(1, 0), (1, 1), (3, 2), (3, 3), (5, 4)]


def test_a_match_ended_before_its_first_hand_lists_no_scores() -> None:
    model = TableModel()
    change = model.apply({"type": "match_over", "totals": [0] * 5, "hands": 0})
    assert change & Change.MATCH_OVER and model.match_over is not None
    assert model.log[-1].text == "The match ended with no hand finished"


def test_text_about_yourself_is_in_the_second_person() -> None:
    table = EngineTable(seed=1, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.apply({"action": "pass"}))
    feed(model, table.apply({"action": "pick"}))
    texts = [e.text for e in model.log]
    assert "You pass" in texts and "Bob picks" in texts
    assert model.says(0, "take") == "You take" and model.says(3, "take") == "Dee takes"
    assert model.says(2, "bury") == "Cal buries"


def test_notices_about_your_own_seat_are_in_the_second_person() -> None:
    table = EngineTable(seed=1, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    notices = [
        {"code": "reconnected", "text": "Ann is back", "seat": 0},
        {"code": "reconnected", "text": "Bob is back", "seat": 1},
        {"code": "timer_expired", "text": "Time ran out for Ann; a bot moved", "seat": 0},
        {"code": "timer_expired", "text": "Time ran out for Ann; passed for them", "seat": 0},
        {"code": "timer_expired", "text": "Time ran out for Bob; no crack for them", "seat": 1},
        {"code": "rematch", "text": "Ann started a new match at this table", "seat": 0},
        {"code": "host", "text": "Bob is now the host", "seat": 1},
        {"code": "table_closed", "text": "Everyone has left the table", "seat": None},
    ]
    for notice in notices:
        assert model.apply({"type": "notice", "table": "t", **notice}) == Change.NOTICE
    assert [e.text for e in model.log][-len(notices) :] == [
        "You are back",
        "Bob is back",
        "Time ran out for you; a bot moved",
        "Time ran out for you; passed for you",
        "Time ran out for Bob; no crack for them",
        "You started a new match at this table",
        "Bob is now the host",
        "Everyone has left the table",
    ]


def test_a_move_the_turn_timer_made_is_told_once() -> None:
    """The log said "Time ran out for you; passed for you" and then "You pass": the notice
    says it alone now, for every seat's timer (it names the seat and the move). A move the
    notice does not name (a server's older "a bot moved") keeps its line."""
    table = EngineTable(seed=1, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    timed_out = {"type": "notice", "table": "t", "code": "timer_expired"}
    feed(model, [{**timed_out, "seat": 0, "text": "Time ran out for Ann; passed for them"}])
    feed(model, table.apply({"action": "pass"}))
    feed(model, [{**timed_out, "seat": 1, "text": "Time ran out for Bob; passed for them"}])
    feed(model, table.apply({"action": "pass"}))
    feed(model, [{**timed_out, "seat": 2, "text": "Time ran out for Cal; a bot moved"}])
    feed(model, table.apply({"action": "pass"}))
    feed(model, table.apply({"action": "pass"}))
    assert [e.text for e in model.log][1:] == [
        "Time ran out for you; passed for you",
        "Time ran out for Bob; passed for them",
        "Time ran out for Cal; a bot moved",
        "Cal passes",
        "Dee passes",
    ]


def test_the_timer_notices_action_names_the_move_whatever_its_words() -> None:
    """A notice with ``action`` (the move the timer made, as this reader sees it) is matched
    to the state's ``last`` by that field, not by reading its words: a server that words it
    otherwise still has the move told once. A card, which the notice does not name, keeps its
    line; so does a notice without the field whose words name nothing."""
    table = EngineTable(seed=1, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    timed_out = {"type": "notice", "table": "t", "code": "timer_expired"}
    for seat, text in ((0, "Time ran out for Ann; passed for them"), (1, "Bob's clock ran out")):
        passed = {"seat": seat, "action": "pass"}
        feed(model, [{**timed_out, "seat": seat, "text": text, "action": passed}])
        feed(model, table.apply({"action": "pass"}))
    feed(model, [{**timed_out, "seat": 2, "text": "Cal's clock ran out"}])
    feed(model, table.apply({"action": "pass"}))
    assert [e.text for e in model.log][1:] == [
        "Time ran out for you; passed for you",
        "Bob's clock ran out",
        "Cal's clock ran out",
        "Cal passes",
    ]


def test_spectator_chat_is_marked() -> None:
    model = TableModel()
    model.apply({"type": "chat", "from": "Ole", "seat": None, "spectator": True, "text": "gg"})
    model.apply({"type": "chat", "from": "Ann", "seat": 0, "spectator": False, "text": "ty"})
    assert [e.text for e in model.log] == ["Ole (watching): gg", "Ann: ty"]


def test_reset_forgets_the_table() -> None:
    model = TableModel()
    play_out(EngineTable(seed=1), model)
    model.reset("t9")
    assert model.table == "t9" and model.history == [] and model.view is None


def test_card_labels_and_addresses() -> None:
    assert [card_label(c) for c in ("TD", "QC", "7H", "AS")] == ["10♦", "Q♣", "7♥", "A♠"]
    assert fail_cards_of_suit(["QH", "TH", "7H", "AD", "JH"], "H") == ["TH", "7H"]
    assert parse_address("localhost:9") == ("localhost", 9)
    assert parse_address("::1") == ("::1", 7453)
    with pytest.raises(AddressError):
        parse_address("host:http")
    with pytest.raises(AddressError):
        parse_address(":7453")


@pytest.mark.parametrize(
    "msg",
    [
        {"type": "state"},
        {"type": "state", "view": "nonsense", "info": 3, "totals": None, "seq": "x"},
        {"type": "your_turn", "legal": "x", "deadline": "soon"},
        {"type": "your_turn", "legal": [1, {"action": "play", "card": "QC"}], "seq": 4},
        {"type": "hand_over", "result": None, "reveal": None},
        {"type": "match_over", "totals": None},
        {"type": "chat"},
        {"type": "notice"},
        {"type": "connection"},
        {"type": "error"},
        {},
    ],
)
def test_odd_messages_change_nothing_they_should_not(msg: dict) -> None:
    model = TableModel()
    feed(model, EngineTable(seed=1).messages())
    hand = list(model.hand)
    model.apply(msg)
    if msg.get("type") not in ("state",):
        assert model.hand == hand


def test_the_lines_said_while_away_come_before_the_new_hand_the_reconnect_shows() -> None:
    """Back after a drop during which a new hand began: the snapshot's "── Hand 2" and the
    "Reconnected" line were logged, then the ``history``'s lines said while away went after
    them (the log read out of time order)."""
    table = EngineTable(seed=11, dealer=1, me=0)
    model = TableModel()
    feed(model, table.messages())
    model.connection_changed("connected", "reconnecting")
    model.connection_changed("reconnecting", "connected")
    feed(model, table.next_hand(seed=12))
    said = {"type": "chat", "from": "Eve", "seat": None, "text": "while you were away"}
    model.apply_history(table.history(lines=[said]))
    texts = [e.text for e in model.log]
    earlier = texts.index("── Earlier at this table")
    assert texts.index("Connection lost: reconnecting…") < earlier, texts
    assert earlier < texts.index("── Now") < texts.index("Reconnected"), texts
    new_hand = max(i for i, t in enumerate(texts) if t.startswith("── Hand"))
    assert texts.index("── Now") < new_hand, texts
    assert model.dropped_at is None  # a later history's lines go by the lines shown


def test_your_row_is_your_seat_once_the_server_says_it_kept_its_name_for_you() -> None:
    """Back at a finished table under another name (the seat keeps its old one, the server's
    ``name_kept``): the last hand's result panel had no "*" on your row, found by name."""
    table = EngineTable(seed=11, dealer=1, me=0)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.play_out())
    hand = model.history[-1]
    assert model.your_seat_in(hand) == 0  # played here, under the seat's name
    # Named otherwise than the seat is now: somebody who sat down since is not marked ...
    hand.names = ["Annie", *hand.names[1:]]
    assert model.seats[0].name != "Annie" and model.your_seat_in(hand) is None
    # ... but the seat the server keeps for you is yours, whatever the names say.
    model.apply({"type": "notice", "code": "name_kept", "seat": 0, "text": "You are back"})
    assert model.your_seat_in(hand) == 0
    model.apply({"type": "notice", "code": "name_kept", "seat": 3, "text": "not yours"})
    assert model.kept_seat == 0


def test_the_finished_hand_names_who_played_it_not_who_sat_down_since() -> None:
    """Fay left after the match, Bob sat down in her seat: the last trick box of the finished
    hand still on the table read "You 10♥" for Bob (and "Bob 10♥" for the others), a card
    Fay played. The match's history names who played each seat."""
    table = EngineTable(seed=11, dealer=1, me=1)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.play_out())
    done = model.history[-1]
    assert model.view is not None and model.view.get("phase") == "done"
    assert model.who(1, at=("card", 25)) == "You"  # played here
    done.names = [done.names[0], "Fay", *done.names[2:]]  # ... until somebody else had
    assert model.seats[1].name != "Fay"
    assert model.who(1, at=("card", 25)) == "Fay"
    assert model.who(1, you="you") == "Fay"  # "Picker you" too
    assert model.who(0) == model.seats[0].name  # the others' as they were


def test_a_hand_the_host_ended_the_match_in_is_no_hand_any_more() -> None:
    """The host ended an open-ended match mid-hand: every hand still showed the dropped
    hand's cards under "Match over", and gus, who sat down after the end in the seat of a bot
    the host freed, was shown that bot's cards and its trick as "You took 9"."""
    table = EngineTable(seed=1, dealer=4, me=0)
    model = TableModel()
    feed(model, table.messages())
    feed(model, table.apply({"action": "pass"}))
    assert model.view is not None and model.hand
    table.seq += 1
    table.state = "over"  # end_match: the summary says the match is over, the view stays
    feed(model, [{"type": "match_over", "totals": [0] * 5, "hands": 0}])
    feed(model, table.messages())
    assert model.view is None and not model.hand and model.decision is None
    # Said once, where the hand went: "Match over after 0 hands" alone left it to guess.
    assert [e.text for e in model.log].count("Hand 1 was not finished: it does not count") == 1
    # ... and the match did not end "before its first hand" (it read so under that line).
    assert "The match ended with no hand finished" in [e.text for e in model.log]
    feed(model, table.messages())
    assert [e.text for e in model.log].count("Hand 1 was not finished: it does not count") == 1
    # A hand that was played out stays on the table with its result.
    table.state = "playing"
    while not table.hand.is_over:
        feed(model, table.apply(table.hand.legal_actions()[0].to_dict()))
    table.seq += 1
    table.state = "over"
    feed(model, table.messages())
    assert model.view is not None and model.view.get("phase") == "done"


def test_the_table_lines_before_you_came_come_before_the_hand_you_found() -> None:
    """Eve began watching mid-hand: her log read "── Hand 1: Ann deals", then "── Earlier at
    this table" with the lines said before she came, then "── Now" and nothing after it. Then
    it read "── Now" right above "── Hand 1: Ann deals": the hand's heading says it alone."""
    table = EngineTable(seed=11, dealer=1, me=None)
    model = TableModel()
    feed(model, table.messages())
    said = {"type": "chat", "from": "Fay", "seat": 1, "text": "hi all"}
    model.apply_history(table.history(lines=[said]))
    texts = [e.text for e in model.log]
    assert texts[:2] == ["── Earlier at this table", "Fay: hi all"], texts
    assert texts[2].startswith("── Hand 1") and "── Now" not in texts, texts
    # A later history (a rematch's) with a new line: after what is on the log, as before.
    again = {"type": "chat", "from": "Fay", "seat": 1, "text": "one more?"}
    model.apply_history(table.history(lines=[said, again]))
    assert [e.text for e in model.log][-3:-1] == ["── Earlier at this table", "Fay: one more?"]


def test_a_new_client_back_at_its_seat_logs_the_earlier_lines_first() -> None:
    """A restarted client took its seat back: its log read "── Hand 1: Ann deals", then
    "── Earlier at this table" with the lines said before the restart, "── Now" and the
    "You are back" they came before. Now the earlier lines come first, in their order."""
    table = EngineTable(seed=11, dealer=1, me=0)
    model = TableModel()
    feed(model, table.messages())
    back = {"type": "notice", "table": "t1", "code": "reconnected", "seat": 0}
    back["text"] = "Ann is back"
    model.apply(back)
    said = {"type": "chat", "from": "Ann", "seat": 0, "text": "before the restart"}
    gone = {**back, "code": "disconnected", "text": "Ann disconnected; a bot plays for them"}
    model.apply_history(table.history(lines=[said, gone, back]))
    texts = [e.text for e in model.log]
    assert texts[:3] == [
        "── Earlier at this table",
        "Ann: before the restart",
        "You were disconnected",
    ], texts
    assert texts[3].startswith("── Hand 1") and texts.count("You are back") == 1, texts


def test_the_earlier_lines_of_your_seat_are_yours_only_if_they_name_you() -> None:
    """Dee sat down where Bob had sat (he left after the match): under "── Earlier at this
    table" her log read Bob's "You were disconnected", "You are back" and "You started a new
    match at this table", as if they were hers."""
    table = EngineTable(seed=11, dealer=1, me=0, names=("Dee", "Bob2", "Cal", "Ann", "Eve"))
    model = TableModel()
    feed(model, table.messages())
    about_seat_0 = {"type": "notice", "table": "t1", "seat": 0}
    lines = [
        {**about_seat_0, "code": "disconnected", "text": "Bob disconnected; a bot plays"},
        {**about_seat_0, "code": "reconnected", "text": "Bob is back"},
        {**about_seat_0, "code": "rematch", "text": "Bob started a new match at this table"},
        {**about_seat_0, "code": "timer_expired", "text": "Time ran out for Bob; a bot moved"},
        {**about_seat_0, "code": "joined", "text": "Dee took seat 0"},
    ]
    model.apply_history(table.history(lines=lines))
    texts = [e.text for e in model.log]
    hand = next(i for i, t in enumerate(texts) if t.startswith("── Hand"))
    earlier = texts[texts.index("── Earlier at this table") + 1 : hand]
    assert earlier == [
        "Bob disconnected; a bot plays",
        "Bob is back",
        "Bob started a new match at this table",
        "Time ran out for Bob; a bot moved",
        "You took seat 0",
    ], texts


def test_your_own_join_is_logged_once_and_as_yours() -> None:
    """Hal sat down mid-match from the lobby: the server tells the table "Hal took seat 3"
    before the state and the join's reply, so his log kept it in the third person, and the
    history's "You took seat 3" came again above it."""
    table = EngineTable(seed=11, dealer=1, me=3, names=("Ann", "Bob", "Cal", "Hal", "Eve"))
    model = TableModel()
    joined = {"type": "notice", "table": "t1", "code": "joined", "seat": 3}
    joined["text"] = "Hal took seat 3"
    model.apply(joined)
    feed(model, table.messages())
    model.apply_history(table.history(lines=[joined]))
    texts = [e.text for e in model.log]
    assert texts.count("You took seat 3") == 1 and "Hal took seat 3" not in texts, texts
    other = {**joined, "seat": 2, "text": "Ivy took seat 2"}  # at the table now: somebody else
    model.apply(other)
    assert model.log[-1].text == "Ivy took seat 2"


def test_a_bots_hands_are_labelled_as_its_after_a_person_takes_its_seat() -> None:
    """Gus (a heuristic server bot) played the match; the host freed his seat and Olaf sat
    down. Olaf's standings named Gus without "(heuristic bot)": the history's records say
    which seats were server bots, and the client did not read them."""
    from client.screens.result import seat_names, seat_strategies

    table = EngineTable(seed=11, dealer=1, me=0, hands_limit=1)
    table.names[4] = "Gus"
    feed(model := TableModel(), table.messages())
    feed(model, table.play_out())
    reply = table.history()
    for entry in reply["hands"]:
        entry["names"] = list(table.names)
        entry["record"]["strategies"] = [None, "random", "random", "random", "heuristic"]
    table.names[4], table.bots, table.me, table.state = "Olaf", {1, 2, 3}, 4, "over"
    for seen_live in (True, False):  # Ann saw the hand; Olaf came after it
        if not seen_live:
            feed(model := TableModel(), table.messages())
        model.apply_history(reply)
        names, _ = seat_names(model)
        assert names[4] == "Gus"
        assert seat_strategies(model, names)[4] == "heuristic"


def test_a_stale_seat_token_is_logged_without_telling_to_join_a_table() -> None:
    """The log keeps a ``bad_token`` refusal for a bug report, but in words true at the
    table too: the lobby may take a seat of the player key back right after, and the line
    "That seat token is not valid; join a table" then stood in that table's log."""
    model = TableModel()
    stale = {
        "type": "error",
        "code": "bad_token",
        "message": "That seat token is not valid; join a table",
    }
    feed(model, [stale])
    assert model.log[-1].text == "The seat token this client kept is no longer valid (bad_token)"
