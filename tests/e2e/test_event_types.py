"""Every message a real server sends has exactly the keys of its type in protocol.events.

The client reads replies and events through these TypedDicts and mypy checks the
server's builders against them, but some maps reach a builder untyped (the history page's
fields, the engine's action maps): here a short match on the real server, over a real socket,
checks what actually goes out, nested maps included. The types come from the source file, so
this holds on the compiled build too.
"""

from __future__ import annotations

from typing import Any

from tests.server.support import Raw, events_source, running_server

m = events_source()

EVENTS: dict[str, Any] = {
    "welcome": m.Welcome,
    "error": m.ErrorReply,
    "state": m.State,
    "your_turn": m.YourTurn,
    "hand_over": m.HandOver,
    "match_over": m.MatchOver,
    "chat": m.Chat,
    "notice": m.Notice,
    "commitment": m.Commitment,
    "seeds_revealed": m.SeedsRevealed,
    "ping": m.ServerPing,
}
"""The type of each message that is not an ``ok``, by its ``type``."""

REPLIES: dict[str, Any] = {
    "list_tables": m.TableList,
    "create_table": m.TableCreated,
    "join": m.Joined,
    "watch": m.Watching,
    "add_bot": m.BotAdded,
    "history": m.HistoryPage,
    "hint": m.HintReply,
    "review": m.ReviewReply,
    "standings": m.StandingsReply,
}
"""The type of the ``ok`` answering each request whose reply carries fields (else OkReply)."""


def conforms(shape: Any, msg: Any) -> None:
    """``msg`` has every required key of the TypedDict ``shape`` and no other than it allows."""
    required = set(shape.__required_keys__)
    allowed = required | set(shape.__optional_keys__)
    assert isinstance(msg, dict), (shape.__name__, msg)
    assert required <= set(msg) <= allowed, (shape.__name__, sorted(msg))


def check(msg: dict[str, Any], request: str | None = None) -> None:
    """Check one message and the typed maps inside it."""
    kind = msg["type"]
    shape = REPLIES.get(request or "", m.OkReply) if kind == "ok" else EVENTS[kind]
    conforms(shape, msg)
    if kind == "your_turn":
        for action in msg["legal"]:
            conforms(m.ActionMap, action)
            assert "seat" not in action
    if kind == "state" and msg["last"] is not None:
        conforms(m.ActionMap, msg["last"])
    if kind == "seeds_revealed":
        for entry in msg["commitments"]:
            conforms(m.RevealedCommitment, entry)
    if shape is m.HistoryPage:
        for entry in msg["hands"]:
            conforms(m.HistoryEntry, entry)
        for line in msg.get("lines", []):
            check(line)


async def test_a_match_sends_only_messages_of_their_types() -> None:
    async with running_server(default_bot="random") as server:
        ann = await Raw.open(server.port)
        seen: list[tuple[dict[str, Any], str | None]] = []

        async def ask(raw: Raw, request: str, **fields: Any) -> dict[str, Any]:
            request_id = await raw.send({"type": request, **fields})
            while True:
                msg = await raw.recv()
                answers = msg["type"] in ("ok", "error", "welcome") and msg.get("id") == request_id
                seen.append((msg, request if answers else None))
                if answers:
                    return msg

        welcome = await ask(ann, "hello", version=1, client="test/1", kind="human", name="Ann")
        assert welcome["type"] == "welcome"
        table = (await ask(ann, "create_table", name="test", hands=1))["table"]
        for _ in range(4):
            assert (await ask(ann, "add_bot", strategy="random"))["type"] == "ok"
        assert (await ask(ann, "list_tables"))["type"] == "ok"
        wes = await Raw.open(server.port)
        await ask(wes, "hello", version=1, client="test/1", kind="human", name="Wes")
        assert (await ask(wes, "watch", table=table))["type"] == "ok"
        assert (await ask(wes, "chat", text="good luck"))["type"] == "ok"
        assert (await ask(ann, "join", table=table))["code"] == "already_seated"
        assert (await ask(ann, "start"))["type"] == "ok"
        kinds: set[str] = set()
        while "seeds_revealed" not in kinds:
            msg = await ann.recv()
            seen.append((msg, None))
            kinds.add(msg["type"])
            if msg["type"] == "error":
                assert msg["code"] == "stale", msg
            if msg["type"] == "your_turn":
                await ann.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})
        assert (await ask(ann, "history"))["type"] == "ok"
        assert (await ask(ann, "standings"))["type"] == "ok"
        assert (await ask(ann, "ping"))["type"] == "ok"
        # A newcomer joins the open seat of the finished match's table (Ann leaves hers).
        assert (await ask(ann, "leave"))["type"] == "ok"
        ned = await Raw.open(server.port)
        await ask(ned, "hello", version=1, client="test/1", kind="human", name="Ned")
        assert (await ask(ned, "join", table=table))["type"] == "ok"
        rejected = await Raw.open(server.port)
        refused = await ask(rejected, "hello", version=99, client="t/1", kind="human", name="X")
        assert refused["code"] == "version_unsupported"
        for client in (ann, wes, ned, rejected):
            await client.close()
    for msg, request in seen:
        check(msg, request)
    replies = {request for _, request in seen if request is not None}
    assert set(REPLIES) - {"hint", "review"} <= replies, replies
    types = {msg["type"] for msg, _ in seen}
    assert set(EVENTS) - {"ping", "notice"} <= types, types
