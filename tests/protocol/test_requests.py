"""The request registry: one entry per request type, from which the type set, the size
limits and the parser come, so a type cannot be half added."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from protocol import requests
from protocol.requests import (
    REQUEST_KINDS,
    REQUEST_SIZE_DEFAULT,
    REQUEST_SIZES,
    REQUEST_TYPES,
    Request,
    RequestError,
    parse_request,
    request_size_limit,
)

SAMPLES: dict[str, dict[str, Any]] = {
    "hello": {"version": 1, "name": "Ann"},
    "list_tables": {},
    "create_table": {},
    "join": {"table": "t1"},
    "watch": {"table": "t1"},
    "leave": {},
    "add_bot": {},
    "remove_bot": {"seat": 1},
    "start": {},
    "end_match": {},
    "action": {"seq": 0, "action": {"action": "pass"}},
    "chat": {"text": "hi"},
    "history": {},
    "rematch": {},
    "client_seed": {"commitment": "ab" * 32, "seed": "cd" * 32},
    "ping": {},
    "pong": {},
    "standings": {},
    "hint": {},
    "review": {},
    "door_seat": {"tokens": []},
    "door_player": {"player_key": "k" * 16, "fingerprint": "SHA256:" + "A" * 43, "name": "ann"},
}
"""The smallest valid request of each type, less its ``type`` and ``id``."""


def test_the_registry_names_each_request_class_once_and_the_union_holds_exactly_those() -> None:
    classes = [kind.cls for kind in REQUEST_KINDS]
    wires = [kind.wire for kind in REQUEST_KINDS]
    assert len(set(classes)) == len(classes) and len(set(wires)) == len(wires)
    assert set(classes) == set(get_args(Request))
    assert set(wires) == REQUEST_TYPES


def test_every_registered_type_parses_to_its_own_class() -> None:
    """A type in the set always has its parser: none falls through to another type (the old
    if-chain parsed any type it did not list as a ping)."""
    assert set(SAMPLES) == REQUEST_TYPES, "add the new type's smallest request to SAMPLES"
    for kind in REQUEST_KINDS:
        parsed = parse_request({"type": kind.wire, "id": 5, **SAMPLES[kind.wire]})
        assert type(parsed) is kind.cls, kind.wire
        assert parsed.id == 5


@pytest.mark.parametrize("kind", ["dance", "", "Ping", "ping ", "state", "ok"])
def test_a_type_not_in_the_registry_is_refused_as_unknown(kind: str) -> None:
    with pytest.raises(RequestError) as refused:
        parse_request({"type": kind, "id": 3})
    assert (refused.value.code, refused.value.id) == ("unknown_type", 3)


def test_the_size_limits_come_from_the_registry() -> None:
    for kind in REQUEST_KINDS:
        assert request_size_limit(kind.wire) == kind.size
        assert REQUEST_SIZES.get(kind.wire, REQUEST_SIZE_DEFAULT) == kind.size
    assert set(REQUEST_SIZES) <= REQUEST_TYPES
    assert request_size_limit("dance") == request_size_limit(None) == REQUEST_SIZE_DEFAULT


def test_all_lists_every_request_class_and_the_registry() -> None:
    exported = set(requests.__all__)
    assert {kind.cls.__name__ for kind in REQUEST_KINDS} <= exported
    assert {"REQUEST_KINDS", "REQUEST_TYPES", "REQUEST_SIZES", "Request"} <= exported
    assert all(hasattr(requests, name) for name in exported)


def test_history_takes_an_optional_match_number() -> None:
    """``match``: an earlier match of the table (absent: the current one, as before)."""
    assert parse_request({"type": "history", "id": 1}) == requests.History(1, None, 0, None)
    asked = parse_request({"type": "history", "id": 1, "match": 3, "start": 2})
    assert asked == requests.History(1, None, 2, 3)
    assert parse_request({"type": "history", "id": 1, "match": None}) == requests.History(
        1, None, 0, None
    )
    for bad in (-1, 1 << 63, -(1 << 63), 1.0, "1", True, [1], {"m": 1}):
        with pytest.raises(RequestError) as refused:
            parse_request({"type": "history", "id": 4, "match": bad})
        assert (refused.value.code, refused.value.id) == ("bad_request", 4), bad
        assert "'match'" in refused.value.message


def test_the_doors_requests_take_only_well_formed_values() -> None:
    """``door_seat`` and ``door_player`` (PROTOCOL.md §15): at most 24 tokens of 1-128
    characters; a key of 16-128 characters, an SSH ``SHA256:`` fingerprint exactly, a name
    cleaned and cut as hello's."""
    fingerprint = "SHA256:" + "A+/z" * 10 + "abc"
    seat = parse_request({"type": "door_seat", "id": 1, "tokens": ["a" * 128] * 24})
    assert seat == requests.DoorSeat(1, ("a" * 128,) * 24)
    player = {"type": "door_player", "id": 2, "player_key": "k" * 16, "fingerprint": fingerprint}
    parsed = parse_request({**player, "name": "\x1b[31mann" + "n" * 90})
    assert parsed == requests.DoorPlayer(2, "k" * 16, fingerprint, "ann" + "n" * 21)
    for tokens in (None, "abc", ["a"] * 25, [""], ["a" * 129], [1], {"t": "a"}):
        with pytest.raises(RequestError) as refused:
            parse_request({"type": "door_seat", "id": 3, "tokens": tokens})
        assert (refused.value.code, refused.value.id) == ("bad_request", 3), tokens
    for bad in (
        {"player_key": "k" * 15},
        {"player_key": "k" * 129},
        {"player_key": None},
        {"fingerprint": fingerprint + "="},
        {"fingerprint": "MD5:" + "a" * 43},
        {"fingerprint": "SHA256:" + "a" * 42 + "\n"},
        {"name": "\x1b[0m"},
        {"name": 5},
    ):
        with pytest.raises(RequestError) as refused:
            parse_request({**player, "name": "ann", **bad})
        assert (refused.value.code, refused.value.id) == ("bad_request", 2), bad
