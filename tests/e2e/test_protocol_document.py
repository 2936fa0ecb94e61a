"""PROTOCOL.md says exactly what the server does: each place a client written from the document
alone found it saying something else, pinned here."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.actions import Bury, Call, Pass, Pick, Play
from engine.cards import card_code
from engine.errors import SheepsheadError
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from protocol.framing import encode
from tests.server.support import Raw, raw_bot_table, raw_play, running_server

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "PROTOCOL.md"


async def bot_table(raw: Raw, strategy: str = "random", **create: Any) -> str:
    """``raw`` hosts a table with four server bots of ``strategy``, started; returns its id."""
    table = str((await raw.request("create_table", name="doc", **create))["table"])
    for _ in range(4):
        await raw.request("add_bot", strategy=strategy)
    assert (await raw.request("start"))["type"] == "ok"
    return table


async def test_handshake_required_echoes_the_request_id() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.send({"type": "list_tables", "id": 42})
        seen = await raw.closed()
        assert [(m["type"], m["id"], m["code"]) for m in seen] == [
            ("error", 42, "handshake_required")
        ]


async def test_a_frame_that_cannot_be_decoded_is_refused_with_its_id_when_it_has_one() -> None:
    """§1: a body with a non-string key deep inside, nested too deep or empty is refused with
    the request's id when it can be read, so a client waiting on that id is answered."""
    deep: Any = []
    for _ in range(20):
        deep = [deep]
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.send({"type": "chat", "id": 7, "text": {1: "a"}})
        assert await raw.recv() == {
            "type": "error",
            "id": 7,
            "code": "bad_key",
            "message": "map key is not a string (int is not allowed for map key when "
            "strict_map_key=True)",
        }
        await raw.send({"type": "chat", "id": 8, "text": deep})
        refused = await raw.recv()
        assert (refused["id"], refused["code"]) == (8, "bad_frame"), refused
        await raw.send_bytes(b"\x00\x00\x00\x01\xc1")  # no id to read: nil
        refused = await raw.recv()
        assert (refused["id"], refused["code"]) == (None, "bad_frame"), refused
        assert (await raw.request("ping"))["type"] == "ok"  # the connection stays open
        await raw.close()


async def test_rate_limited_echoes_each_dropped_id_and_only_the_close_has_nil() -> None:
    async with running_server(rate=5.0, burst=5.0) as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.send_bytes(b"".join(encode({"type": "ping", "id": i}) for i in range(100, 140)))
        seen = await raw.closed()
        limited = [m for m in seen if m.get("code") == "rate_limited"]
        answered = [m["id"] for m in seen if m["type"] == "ok"]
        assert answered == list(range(100, 104))  # the hello took the bucket's fifth token
        assert [m["id"] for m in limited[:-1]] == list(range(104, 104 + len(limited) - 1))
        assert len(limited) > 1 and limited[-1]["id"] is None and limited[-1] is seen[-1]


async def test_a_missing_or_mistyped_card_is_bad_request_and_a_bad_code_bad_card() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        for action in (
            {"action": "play"},
            {"action": "play", "card": 5},
            {"action": "call", "card": None},
            {"action": "unknown", "card": "AC"},
            {"action": "bury", "cards": ["QC"]},
            {"action": "bury", "cards": ["QC", 7]},
        ):
            reply = await raw.request("action", seq=1, action=action)
            assert reply["code"] == "bad_request" and "'action'" in reply["message"], action
        await bot_table(raw)
        prompt = await raw.expect("your_turn", timeout=10)
        reply = await raw.request(
            "action", seq=prompt["seq"], action={"action": "play", "card": "ZZ"}
        )
        assert reply["code"] == "bad_card"  # a string that names no card


async def test_the_snapshot_comes_before_the_reconnected_notice() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello("Back")
        reply = await raw.request("create_table", name="doc")
        token = reply["token"]
        for _ in range(4):
            await raw.request("add_bot", strategy="random")
        await raw.request("start")
        await raw.expect("your_turn", timeout=10)
        await raw.close()
        await asyncio.sleep(0.2)
        again = await Raw.open(server.port)
        welcome = await again.hello("Back", token=token)
        assert welcome["seat"] == 0
        after = [await again.recv() for _ in range(3)]
        kinds = [m["type"] for m in after]
        assert kinds[0] == "state" and "info" in after[0]
        notice = next(m for m in after if m["type"] == "notice")
        assert notice["code"] == "reconnected" and kinds.index("notice") > 0
        await again.close()


async def test_an_answer_repeated_after_the_turn_passed_is_not_your_turn() -> None:
    async with running_server(bot_delay=0.2) as server:  # the bots wait: the turn stays away
        raw = await Raw.open(server.port)
        await raw.hello()
        # Heuristic bots pass four hands in five, so the bidding soon reaches seat 0 (random
        # ones pick every other hand: a run played up to five hands, 24 s, to get there).
        await bot_table(raw, strategy="heuristic")
        while True:
            prompt = await raw.expect("your_turn", timeout=10)
            passing = {"action": "pass"}
            if prompt["decision"] == "pick" and passing in prompt["legal"]:
                break
            await raw.request("action", seq=prompt["seq"], action=prompt["legal"][0])
        assert (await raw.request("action", seq=prompt["seq"], action=passing))["type"] == "ok"
        reply = await raw.request("action", seq=prompt["seq"], action=passing)
        assert reply["code"] == "not_your_turn"
        await raw.close()


async def test_start_after_the_match_is_over_is_match_over() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await bot_table(raw, hands=1)

        async def play_to_the_end() -> None:
            while True:
                msg = await raw.recv(10)
                if msg["type"] == "match_over":
                    return
                if msg["type"] == "your_turn":
                    await raw.send({"type": "action", "seq": msg["seq"], "action": msg["legal"][0]})

        await asyncio.wait_for(play_to_the_end(), 30)
        assert (await raw.request("start"))["code"] == "match_over"
        assert (await raw.request("add_bot"))["code"] == "match_over"
        await raw.close()


async def test_a_41_character_table_name_is_cut_to_40() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        await raw.request("create_table", name="n" * 41)
        (summary,) = (await raw.request("list_tables"))["tables"]
        assert summary["name"] == "n" * 40
        await raw.close()


def test_the_documented_bot_strategies_are_the_ones_a_table_accepts() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `add_bot` |"))
    fields = row.split("|")[2]
    documented = set(re.findall(r"`([a-z_0-9-]+)` \(", fields))
    # Asked of a fresh interpreter: other tests register test-double strategies in this one.
    fresh = subprocess.run(
        [sys.executable, "-c", "from engine.bots import strategy_names; print(*strategy_names())"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert documented == set(fresh.stdout.split())


def through_the_pick(hand: Hand) -> Hand:
    """``hand`` after its pick round: each seat picks when it may, so the first that may does
    (the seats before it pass)."""
    while hand.phase == "pick":
        seat = hand.turn
        assert seat is not None
        hand.apply(Pick(seat) if Pick(seat) in hand.legal_actions() else Pass(seat))
    return hand


def first_hand_with_a_partner() -> tuple[Hand, int]:
    """A hand after the pick, bury and a call of a card somebody else holds; and that seat."""
    for seed in range(200):
        hand = through_the_pick(Hand.from_seed(RuleSet(), 0, seed))
        if hand.phase != "bury":
            continue
        hand.apply(next(a for a in hand.legal_actions() if isinstance(a, Bury)))
        calls = [a for a in hand.legal_actions() if isinstance(a, Call)]
        if not calls:
            continue
        hand.apply(calls[0])
        holders = [s for s in range(5) if card_code(calls[0].card) in seat_view(hand, s)["hand"]]
        if holders and holders[0] != hand.picker:
            return hand, holders[0]
    raise AssertionError("no seed gave a partner")


def test_partner_known_says_what_this_view_knows() -> None:
    hand, partner = first_hand_with_a_partner()
    for seat in (*range(5), None):
        view = seat_view(hand, seat)
        assert view["partner_known"] is (seat == partner), seat
        assert view["partner"] == (partner if seat == partner else None)
    called = hand.called
    while seat_view(hand, None)["partner_known"] is False:
        hand.apply(hand.legal_actions()[0])
    assert any(isinstance(a, Play) and a.card == called for a in hand.actions) or hand.is_over
    assert all(seat_view(hand, s)["partner_known"] for s in (*range(5), None))


def test_burying_a_card_you_do_not_hold_is_illegal_card() -> None:
    fresh = through_the_pick(Hand.from_seed(RuleSet(), 0, 0))
    picker = fresh.picker
    assert picker is not None and fresh.phase == "bury"
    mine = seat_view(fresh, picker)["hand"]
    other = next(c for c in seat_view(fresh, (picker + 1) % 5)["hand"] if c not in mine)
    codes = []
    for cards in ((mine[0], other), (mine[0], mine[0])):
        try:
            fresh.verify(action_bury(picker, cards))
        except SheepsheadError as refused:
            codes.append(refused.code)
    assert codes == ["illegal_card", "illegal_bury"]


def action_bury(seat: int, cards: tuple[str, str]) -> Bury:
    from engine.actions import action_from_dict

    action = action_from_dict({"seat": seat, "action": "bury", "cards": list(cards)})
    assert isinstance(action, Bury)
    return action


async def test_a_request_id_is_a_signed_64_bit_int_and_anything_else_is_bad_request() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello("Ids")
        for good in (2**63 - 1, -(2**63 - 1), 0):
            await raw.send({"type": "ping", "id": good})
            assert await raw.recv() == {"type": "ok", "id": good}
        for bad, problem in (
            (2**63, "must be between"),
            (True, "must be an integer, not bool"),
            (1.0, "must be an integer, not float"),
            ("1", "must be an integer, not str"),
        ):
            await raw.send({"type": "ping", "id": bad})
            reply = await raw.recv()
            assert (reply["type"], reply["id"], reply["code"]) == ("error", None, "bad_request")
            assert problem in reply["message"], reply  # an id was sent: not "is required"
        await raw.close()


async def test_any_msgpack_encoding_is_read_and_a_str_must_be_utf8() -> None:
    """§1 "Encodings": a hand-written encoder need not pick the shortest forms (an int as
    int64, a key as str32, a float32 for a float field), a bin is no str, and a str that is not
    UTF-8 is no msgpack."""
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello("Codec")
        # {"type": "ping", "id": 9} with "type" as str32 and 9 as int64.
        body = b"\x82\xdb\x00\x00\x00\x04type\xa4ping\xa2id\xd3" + (9).to_bytes(8, "big")
        await raw.send_bytes(len(body).to_bytes(4, "big") + body)
        assert await raw.recv() == {"type": "ok", "id": 9}
        await raw.send({"type": b"ping", "id": 10})  # bin where a str goes
        reply = await raw.recv()
        assert (reply["id"], reply["code"]) == (10, "bad_request"), reply
        body = b"\x82\xa4type\xa2\xff\xfe\xa2id\x0b"  # a str that is not UTF-8
        await raw.send_bytes(len(body).to_bytes(4, "big") + body)
        reply = await raw.recv()
        assert reply["code"] == "bad_frame", reply
        # create_table's turn_timer (a number) as float32 5.0.
        body = (
            b"\x84\xa4type\xaccreate_table\xa2id\x0c\xa4name\xa1c\xaaturn_timer\xca"
            + bytes.fromhex("40a00000")
        )
        await raw.send_bytes(len(body).to_bytes(4, "big") + body)
        assert (await raw.recv())["type"] == "ok"
        await raw.close()


def test_an_action_of_an_option_the_table_does_not_play_gets_the_documented_code() -> None:
    from engine.actions import action_from_dict

    hand = through_the_pick(Hand.from_seed(RuleSet.from_preset("wisconsin"), 0, 0))
    picker = hand.picker
    assert picker is not None and hand.phase == "bury"

    def code(action: dict[str, Any]) -> str:
        try:
            hand.verify(action_from_dict({"seat": picker, **action}))
        except SheepsheadError as refused:
            return refused.code
        raise AssertionError(f"{action} was accepted")

    assert code({"action": "blitz", "pair": "black"}) == "illegal_action"
    assert code({"action": "crack"}) == "illegal_action"
    mine = seat_view(hand, picker)["hand"]
    hand.apply(action_bury(picker, (mine[0], mine[1])))
    assert hand.phase == "call"
    assert code({"action": "unknown", "card": "AH", "under": mine[2]}) == "illegal_call"


ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_the_engine_raises_only_codes_it_defines_once_and_each_is_documented() -> None:
    """Issue 29: every code the engine can raise is one of ``engine.errors``' constants (never a
    string literal at the raise), each is in the protocol's code set and in PROTOCOL.md's table
    of codes, and the protocol's engine codes are exactly those."""
    import ast

    from engine import errors as engine_errors
    from engine.tricks import RULE_CODES
    from protocol.errors import ENGINE_ERROR_CODES, ERROR_CODES

    error_classes = {
        name
        for name, value in vars(engine_errors).items()
        if isinstance(value, type) and issubclass(value, SheepsheadError)
    } | {"RecordError"}
    literals = []
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "errors.py" and path.parent == ENGINE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and base.id in error_classes for base in node.bases
            ):
                literals += [
                    f"{path.name}:{item.lineno} class code"
                    for item in node.body
                    if isinstance(item, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "code" for t in item.targets)
                    and isinstance(item.value, ast.Constant)
                ]
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name not in error_classes:
                continue
            literals += [
                f"{path.name}:{node.lineno} {arg.value!r}"
                for arg in [*node.args, *(k.value for k in node.keywords if k.arg == "code")]
                if isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and re.fullmatch(r"[a-z]+(_[a-z]+)*", arg.value)
            ]
    assert literals == [], "raise with engine.errors' constants, not string literals"

    play_codes = set(engine_errors.PLAY_CODES)
    defined = {
        value
        for name, value in vars(engine_errors).items()
        if name.isupper() and isinstance(value, str)
    }
    assert defined == play_codes | {engine_errors.BAD_RECORD}
    raised_by_classes = {
        value.code
        for value in vars(engine_errors).values()
        if isinstance(value, type) and issubclass(value, SheepsheadError)
    }
    assert raised_by_classes - {"error"} <= defined
    assert set(RULE_CODES) - {""} <= play_codes
    assert set(ENGINE_ERROR_CODES) == play_codes
    assert play_codes <= set(ERROR_CODES)
    table = PROTOCOL_MD.read_text(encoding="utf-8")
    for code in sorted(play_codes):
        assert re.search(rf"^\| `{code}` \|", table, re.MULTILINE), f"{code} not in PROTOCOL.md"


async def test_the_deal_never_waits_for_a_bot_clients_seed_but_uses_one_in_time() -> None:
    """§13: a ``kind: "bot"`` client is sent the commitment and may answer it, but the deal is
    not held for it: alone with server bots its seed comes too late (``stale``, source
    ``bot``); while a person's seed is awaited it is in time and used (source ``client``)."""
    async with running_server(seed_wait=30.0) as server:
        lone = await Raw.open(server.port)
        await lone.request("hello", version=1, client="test/1", kind="bot", name="Lone")
        await raw_bot_table(lone)
        assert (await lone.request_keeping("start"))["type"] == "ok"
        commitment = await lone.expect("commitment")
        await lone.expect("your_turn")  # dealt without a seed from this seat
        seed = {"commitment": commitment["commitment"], "seed": "ab" * 32}
        assert (await lone.request_keeping("client_seed", **seed))["code"] == "stale"
        assert (await lone.request_keeping("end_match"))["type"] == "ok"
        revealed = await lone.expect("seeds_revealed")
        assert revealed["commitments"][0]["sources"][0] == "bot"
        await lone.close()

        person, bot = await Raw.open(server.port), await Raw.open(server.port)
        await person.hello("Person")
        await bot.request("hello", version=1, client="test/1", kind="bot", name="Helper")
        table = (await raw_bot_table(person, bots=3))["table"]
        assert (await bot.request("join", table=table))["seat"] == 4
        assert (await person.request_keeping("start"))["type"] == "ok"
        commitment = await bot.expect("commitment")
        seed = {"commitment": commitment["commitment"], "seed": "cd" * 32}
        assert (await bot.request_keeping("client_seed", **seed))["type"] == "ok"
        await person.expect("commitment")
        await person.send({"type": "client_seed", **seed, "seed": "ef" * 32})
        while (await person.recv()).get("view") is None:  # until the deal's state
            pass
        assert (await person.request("end_match"))["type"] == "ok"
        revealed = await bot.expect("seeds_revealed")
        (locked,) = revealed["commitments"]
        assert locked["sources"] == ["client", "bot", "bot", "bot", "client"]
        assert locked["client_seeds"][4] == "cd" * 32
        await person.close()
        await bot.close()


async def test_a_rematch_deals_only_once_the_seeds_are_in() -> None:
    """§4 notes, ``rematch``: the notice and the new match's commitment come first; the deal
    (the ``state``) waits for the seated people's seeds like a ``start`` (§13)."""
    async with running_server(seed_wait=30.0) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Again")
        await raw_bot_table(raw)
        assert (await raw.request_keeping("start"))["type"] == "ok"
        first = await raw.expect("commitment")
        await raw.send(
            {"type": "client_seed", "commitment": first["commitment"], "seed": "01" * 32}
        )
        await raw_play(raw)
        await raw.expect("seeds_revealed")
        assert (await raw.request_keeping("rematch"))["type"] == "ok"
        notice, commitment = await raw.recv(), await raw.recv()
        assert (notice["type"], notice["code"], commitment["type"]) == (
            "notice",
            "rematch",
            "commitment",
        )
        assert (await raw.request_keeping("start"))["code"] == "already_started"
        assert (await raw.request_keeping("rematch"))["code"] == "not_over"
        assert raw.inbox == []  # no state yet: the deal waits for this seat's seed
        seed = {"commitment": commitment["commitment"], "seed": "02" * 32}
        assert (await raw.request_keeping("client_seed", **seed))["type"] == "ok"
        dealt = await raw.expect("state")
        assert dealt["info"]["state"] == "playing" and dealt["view"]["phase"] == "pick"
        await raw.close()


async def test_a_replaced_connection_gets_the_notice_then_a_nil_id_error_then_is_closed() -> None:
    async with running_server() as server:
        old = await Raw.open(server.port)
        await old.hello("Twice")
        token = (await raw_bot_table(old))["token"]
        await old.request_keeping("start")
        new = await Raw.open(server.port)
        assert (await new.hello("Twice", token=token))["seat"] == 0
        tail = [(m["type"], m.get("id", "-"), m["code"]) for m in await old.closed() if "code" in m]
        assert tail[-2:] == [("notice", "-", "replaced"), ("error", None, "replaced")]
        await new.close()


async def test_join_or_watch_while_seated_looks_the_table_up_first() -> None:
    """§4 notes, one table per connection: ``already_seated`` is for a table that exists; an id
    that names no table gets ``no_such_table`` first."""
    async with running_server() as server:
        other, raw = await Raw.open(server.port), await Raw.open(server.port)
        await other.hello("Other")
        elsewhere = (await other.request("create_table", name="other"))["table"]
        await raw.hello("Seated")
        await raw.request("create_table", name="mine")
        codes = [
            (await raw.request(kind, table=table))["code"]
            for kind in ("join", "watch")
            for table in ("nope", elsewhere)
        ]
        assert codes == ["no_such_table", "already_seated", "no_such_table", "already_seated"]
        await raw.close()
        await other.close()


async def test_sitting_down_mid_match_sends_the_notice_and_commitment_before_the_snapshot() -> None:
    """§6 ``commitment``: a player who takes an open seat during a match is sent, after the
    ``ok``, the ``joined`` notice and the new commitment, then its snapshot (with ``info``)."""
    async with running_server(bot_delay=0.2) as server:
        host, late = await Raw.open(server.port), await Raw.open(server.port)
        await host.hello("Host")
        table = (await raw_bot_table(host))["table"]
        assert (await host.request("start"))["type"] == "ok"
        assert (await host.request("remove_bot", seat=4))["type"] == "ok"
        await late.hello("Late")
        assert (await late.request_keeping("join", table=table, seat=4))["seat"] == 4
        first = [await late.recv() for _ in range(3)]
        assert [(m["type"], m.get("code")) for m in first] == [
            ("notice", "joined"),
            ("commitment", None),
            ("state", None),
        ]
        assert "info" in first[2] and first[2]["seat"] == 4
        await late.close()
        await host.close()
