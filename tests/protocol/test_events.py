"""Each event builder makes exactly the map its TypedDict describes: the client reads
events through these types, so a field the server adds or drops without them fails here."""

from __future__ import annotations

from typing import Any, get_args, get_type_hints

from protocol import events
from protocol.framing import encode

BUILT: list[tuple[Any, dict[str, Any]]] = [
    (events.Welcome, events.welcome(1, server="s", name="n")),
    (
        events.State,
        events.state(
            table="t1", seq=1, seat=None, info={}, view=None, last=None, totals=[0] * 5, hand=0
        ),
    ),
    (
        events.StateShared,
        events.state_shared(table="t1", seq=1, info={}, totals=[0] * 5, hand=0),
    ),
    (events.StateOwn, events.state_own(seat=2, view={}, last=None)),
    (
        events.YourTurn,
        events.your_turn(
            table="t1", seq=2, decision="pick", legal=[{"seat": 1, "action": "pick"}], deadline=None
        ),
    ),
    (
        events.HandOver,
        events.hand_over(table="t1", seq=3, hand=0, result={}, reveal={}, totals=[0] * 5),
    ),
    (events.MatchOver, events.match_over(table="t1", seq=4, totals=[0] * 5, hands=1)),
    (events.Chat, events.chat(table="t1", sender="A", seat=None, text="hi", spectator=True)),
    (events.Notice, events.notice(table="t1", code="joined", text="Ann sat down", seat=2)),
    (events.Commitment, events.commitment(table="t1", commitment="ab" * 32, wait=1.0)),
    (
        events.SeedsRevealed,
        events.seeds_revealed(
            table="t1",
            commitments=[
                {
                    "commitment": "ab" * 32,
                    "server_seed": "cd" * 32,
                    "first_hand": 0,
                    "last_hand": 0,
                    "client_seeds": ["ef" * 32] * 5,
                    "sources": ["drawn"] * 5,
                }
            ],
        ),
    ),
    (events.ServerPing, events.ping()),
    (events.OkReply, events.ok(5)),
    (events.TableList, events.table_list(5, tables=[{"id": "t1"}], truncated=False)),
    (events.TableCreated, events.table_created(5, table="t1", seat=0, token="tok")),
    (events.Joined, events.joined(5, table="t1", seat=2, token="tok", name="Ann 2")),
    (events.Watching, events.watching(5, table="t1", name="Ann")),
    (events.BotAdded, events.bot_added(5, seat=3)),
    (events.HistoryPage, events.history_page(5, table="t1", match=0, hands=[], next=None)),
    (
        events.HistoryPage,
        events.history_page(
            5,
            table="t1",
            match=1,
            hands=[],
            next=4,
            lines=[events.notice(table="t1", code="joined", text="Ann sat down")],
        ),
    ),
    (events.HintReply, events.hint_reply(5, seq=9, deals=0, candidates=[])),
    (events.ReviewReply, events.review_reply(5, hand=0, decisions=[])),
    (events.StandingsReply, events.standings_reply(5, since=None, players=[])),
    (events.ErrorReply, events.error(5, "stale", "old")),
    (events.ErrorReply, events.error(5, "version_unsupported", "no", supported=[1])),
    (
        events.HistoryEntry,
        events.history_entry(
            hand=0,
            names=["a"] * 5,
            record={},
            payouts=[0] * 5,
            totals=[0] * 5,
            picker=None,
            partner=None,
            alone=False,
            leaster=True,
            doubler=False,
            picker_side_points=None,
            outcome="leaster",
        ),
    ),
]


def keys(shape: Any) -> tuple[set[str], set[str]]:
    """The required and the allowed keys of a TypedDict."""
    required = set(shape.__required_keys__)
    return required, required | set(shape.__optional_keys__)


def test_each_builder_makes_the_keys_of_its_typed_dict() -> None:
    for shape, built in BUILT:
        required, allowed = keys(shape)
        assert required <= set(built) <= allowed, (shape.__name__, sorted(built))
        encode(built)


def test_an_event_type_names_its_wire_type() -> None:
    for shape, built in BUILT:
        hint = get_type_hints(shape).get("type")
        if hint is not None:
            assert (built["type"],) == get_args(hint), shape.__name__


def test_legal_actions_are_action_maps() -> None:
    prompt = events.your_turn(
        table="t",
        seq=0,
        decision="bury",
        legal=[{"seat": 0, "action": "bury", "cards": ["QC", "JD"]}],
        deadline=None,
    )
    _, allowed = keys(events.ActionMap)
    for action in prompt["legal"]:
        assert "seat" not in action and set(action) <= allowed
