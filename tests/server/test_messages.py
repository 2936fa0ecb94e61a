"""Request validation (protocol/requests.py), error codes (protocol/errors.py) and message builders
(protocol/events.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import errors, requests
from protocol import events as m
from protocol.framing import encode
from protocol.requests import RequestError, parse_request

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


def refused(msg: dict[str, Any]) -> RequestError:
    with pytest.raises(RequestError) as exc:
        parse_request(msg)
    return exc.value


def test_every_request_type_parses_with_its_fields() -> None:
    hello = parse_request(
        {"type": "hello", "id": 1, "version": 1, "client": "c/1", "kind": "bot", "name": " Ann "}
    )
    assert hello == requests.Hello(1, 1, "c/1", "bot", "Ann", None)
    assert parse_request({"type": "list_tables", "id": 2}) == requests.ListTables(2)
    create = parse_request(
        {
            "type": "create_table",
            "id": 3,
            "name": "T",
            "preset": "wisconsin",
            "options": {"unknown_card": True},
            "hands": 4,
            "password": "pw",
            "turn_timer": 30,
            "grace": 5,
        }
    )
    assert create == requests.CreateTable(
        3, "T", "wisconsin", {"unknown_card": True}, 4, "pw", 30.0, 5.0
    )
    # No preset: the server's default (engine.rules.DEFAULT_PRESET, wisconsin) applies.
    assert parse_request({"type": "create_table", "id": 3}) == requests.CreateTable(
        3, None, None, {}, None, None, None, None
    )
    assert parse_request({"type": "join", "id": 4, "table": "t1", "seat": 2}) == requests.Join(
        4, "t1", 2, None
    )
    assert parse_request({"type": "watch", "id": 5, "table": "t1"}) == requests.Watch(5, "t1")
    assert parse_request({"type": "leave", "id": 6}) == requests.Leave(6)
    assert parse_request({"type": "add_bot", "id": 7}) == requests.AddBot(7, None, None)
    assert parse_request({"type": "remove_bot", "id": 8, "seat": 4}) == requests.RemoveBot(8, 4)
    assert parse_request({"type": "start", "id": 9}) == requests.Start(9)
    assert parse_request({"type": "end_match", "id": 10}) == requests.EndMatch(10)
    action = {"action": "play", "card": "QC"}
    assert parse_request({"type": "action", "id": 11, "seq": 3, "action": action}) == (
        requests.TakeAction(11, 3, action)
    )
    assert parse_request({"type": "chat", "id": 12, "text": "hi"}) == requests.ChatRequest(12, "hi")
    assert parse_request({"type": "ping", "id": 13}) == requests.Ping(13)
    assert parse_request({"type": "history", "id": 14}) == requests.History(14, None, 0)
    assert parse_request({"type": "history", "id": 14, "table": "t2", "start": 3}) == (
        requests.History(14, "t2", 3)
    )
    assert parse_request({"type": "rematch", "id": 15}) == requests.Rematch(15)
    assert parse_request({"type": "pong"}) == requests.Pong(None)


def test_unknown_keys_are_ignored() -> None:
    assert parse_request({"type": "leave", "id": 1, "future": [1, {"x": 2}]}) == requests.Leave(1)


@pytest.mark.parametrize(
    ("msg", "field"),
    [
        ({"type": "leave"}, "id"),
        ({"type": "leave", "id": "1"}, "id"),
        ({"type": "leave", "id": True}, "id"),
        ({"type": "hello", "id": 1, "name": "x"}, "version"),
        ({"type": "hello", "id": 1, "version": 1}, "name"),
        ({"type": "hello", "id": 1, "version": 1, "name": "\x1b[0m"}, "name"),
        ({"type": "hello", "id": 1, "version": 1, "name": "x", "kind": "cat"}, "kind"),
        ({"type": "hello", "id": 1, "version": 1, "name": "x", "token": 5}, "token"),
        ({"type": "join", "id": 1}, "table"),
        ({"type": "join", "id": 1, "table": "t1", "seat": 5}, "seat"),
        ({"type": "join", "id": 1, "table": "t1", "seat": 1.0}, "seat"),
        ({"type": "join", "id": 1, "table": "t1", "password": 1}, "password"),
        ({"type": "watch", "id": 1, "table": None}, "table"),
        ({"type": "create_table", "id": 1, "options": []}, "options"),
        ({"type": "create_table", "id": 1, "hands": 0}, "hands"),
        ({"type": "create_table", "id": 1, "hands": True}, "hands"),
        ({"type": "create_table", "id": 1, "turn_timer": "soon"}, "turn_timer"),
        ({"type": "create_table", "id": 1, "turn_timer": float("nan")}, "turn_timer"),
        ({"type": "create_table", "id": 1, "grace": -1}, "grace"),
        ({"type": "create_table", "id": 1, "preset": 2}, "preset"),
        ({"type": "add_bot", "id": 1, "strategy": ["x"]}, "strategy"),
        ({"type": "remove_bot", "id": 1}, "seat"),
        ({"type": "action", "id": 1, "action": {"action": "pass"}}, "seq"),
        ({"type": "action", "id": 1, "seq": -1, "action": {"action": "pass"}}, "seq"),
        ({"type": "action", "id": 1, "seq": 1}, "action"),
        ({"type": "action", "id": 1, "seq": 1, "action": "pass"}, "action"),
        ({"type": "action", "id": 1, "seq": 1, "action": {"card": "QC"}}, "action"),
        ({"type": "chat", "id": 1}, "text"),
        ({"type": "chat", "id": 1, "text": "x" * 201}, "text"),
        ({"type": "chat", "id": 1, "text": " \t\x07 "}, "text"),
        ({"id": 1}, "type"),
        ({"type": "history", "id": 1, "table": 3}, "table"),
        ({"type": "history", "id": 1, "start": -1}, "start"),
        ({"type": "history", "id": 1, "start": "0"}, "start"),
    ],
)
def test_bad_fields_are_named(msg: dict[str, Any], field: str) -> None:
    error = refused(msg)
    assert error.code == "bad_request"
    assert f"'{field}'" in error.message
    expected_id = msg.get("id") if type(msg.get("id")) is int else None
    assert error.to_message() == {
        "type": "error",
        "id": expected_id,
        "code": "bad_request",
        "message": error.message,
    }


def test_unknown_type_and_version() -> None:
    error = refused({"type": "teleport", "id": 4})
    assert (error.code, error.id) == ("unknown_type", 4)
    error = refused({"type": "hello", "id": 2, "version": 7, "name": "x"})
    assert error.code == "version_unsupported"
    assert error.to_message()["supported"] == [1] and error.to_message()["id"] == 2


def test_names_and_chat_are_cleaned() -> None:
    hello = parse_request({"type": "hello", "id": 1, "version": 1, "name": "A\x1b[1mB\u202e " * 9})
    assert isinstance(hello, requests.Hello)
    assert len(hello.name) <= requests.NAME_MAX and "\x1b" not in hello.name
    assert hello.name.startswith("AB AB")
    chat = parse_request({"type": "chat", "id": 1, "text": "a\n\nb\x00c"})
    assert chat == requests.ChatRequest(1, "a bc")


def test_builders_make_encodable_messages() -> None:
    built = [
        m.ok(1),
        m.error(None, errors.STALE, "old"),
        m.welcome(1, server="s", name="n"),
        m.state(
            table="t1", seq=1, seat=None, info={}, view=None, last=None, totals=[0] * 5, hand=0
        ),
        m.your_turn(
            table="t1", seq=2, decision="pick", legal=[{"seat": 1, "action": "pick"}], deadline=None
        ),
        m.hand_over(table="t1", seq=3, hand=0, result={}, reveal={}, totals=[0] * 5),
        m.match_over(table="t1", seq=4, totals=[0] * 5, hands=1),
        m.chat(table="t1", sender="A", seat=None, text="hi", spectator=True),
        m.notice(table="t1", code="disconnected", text="gone", seat=2),
        m.ping(),
        m.table_created(1, table="t1", seat=0, token="k"),
    ]
    for msg in built:
        assert isinstance(msg["type"], str)
        encode(msg)
    assert built[4]["legal"] == [{"action": "pick"}]  # seat is implied by the connection


def test_every_error_code_is_documented_in_protocol_md() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    for code, meaning in errors.ERROR_CODES.items():
        assert re.search(rf"`{code}`", text), f"{code} is not in PROTOCOL.md"
        assert meaning and "\n" not in meaning


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


@settings(max_examples=120, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "type",
                "id",
                "version",
                "name",
                "table",
                "seat",
                "seq",
                "action",
                "text",
                "options",
                "hands",
                "turn_timer",
                "grace",
                "token",
                "password",
                "strategy",
                "kind",
                "client",
                "preset",
                "start",
            ]
        ),
        json_values,
    ),
    st.sampled_from(sorted(requests.REQUEST_TYPES)),
)
def test_any_map_parses_or_is_refused_cleanly(msg: dict[str, Any], kind: str) -> None:
    msg.setdefault("type", kind)
    try:
        parse_request(msg)
    except RequestError as exc:
        assert exc.code in errors.ERROR_CODES
        encode(exc.to_message())
