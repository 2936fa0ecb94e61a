"""Commit–reveal deals (PROTOCOL.md §13) over real sockets: whole matches verify end to end, a
server that swaps its seed after committing is caught, and so is a tampered record (by
``sheepshead verify`` on the records the server stored). The Textual client's own check at match
end is in tests/client/test_deals_verified.py (the compiled build runs this file too, without
the client's stylesheet)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from client import verify as verify_command
from client.fairplay import DealChecker
from client.session import ServerError, Session
from engine.fairdeal import check_record, derived_seed
from server.app import Server
from tests.server.support import Raw, running_server, session


@dataclass
class Seen:
    """What a client keeps of a finished hand for the check (as ``client.model.FinishedHand``)."""

    number: int
    reveal: dict[str, Any]
    view: dict[str, Any] | None = None


@dataclass
class Played:
    """A raw match: every commitment, every hand seen, the reveal, the checker's verdict."""

    commitments: list[str] = field(default_factory=list)
    hands: list[Seen] = field(default_factory=list)
    revealed: dict[str, Any] = field(default_factory=dict)
    verdict: str = ""


async def play_match(s: Session, server: Server, *, hands: int, cheat: bool = False) -> Played:
    """Host a table with four server bots, answer commitments with seeds, play legal actions
    until the seeds are revealed. ``cheat``: the server swaps its seed after committing."""
    await s.connect()
    await s.request(
        "create_table", name="fair", preset="seed", options={}, hands=hands, password=None
    )
    for _ in range(4):
        await s.request("add_bot", seat=None, strategy="random")
    await s.request("start")
    return await follow_match(s, server, cheat=cheat)


async def follow_match(s: Session, server: Server, *, cheat: bool = False) -> Played:
    """Play the match starting at ``s``'s table until its seeds are revealed (see play_match)."""
    table = server.lobby.tables[str(s.table)]
    checker = DealChecker()
    played = Played()
    rng = random.Random(7)

    async def loop() -> None:
        while True:
            msg = await s.events.get()
            kind = msg["type"]
            if kind == "commitment":
                quoted = checker.on_commitment(msg)
                assert quoted is not None
                played.commitments.append(quoted)
                if cheat:  # after publishing: a new seed the commitment does not match
                    assert (
                        table.seeds.deal_seeds is not None
                        and table.seeds.deal_seeds.pending is not None
                    )
                    table.seeds.deal_seeds.pending.server_seed = bytes(32)
                await s.request("client_seed", commitment=quoted, seed=checker.new_seed(quoted, 0))
            elif kind == "hand_over":
                played.hands.append(Seen(msg["hand"] + 1, msg["reveal"]))
            elif kind == "your_turn":
                try:
                    await s.act(rng.choice(msg["legal"]), seq=msg["seq"])
                except ServerError as exc:
                    assert exc.code == "stale", exc
            elif kind == "seeds_revealed":
                played.revealed = msg
                return

    await asyncio.wait_for(loop(), 30)
    played.verdict = checker.check(played.revealed, played.hands)
    return played


def verify_files(paths: list[Path], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = verify_command.run(argparse.Namespace(records=[str(p) for p in paths], each=False))
    return status, capsys.readouterr().out.strip()


async def test_a_raw_match_verifies_and_a_tampered_record_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bots at a short delay: a client answering instantly for four hands could meet the rate limit.
    async with running_server(seed_wait=5.0, bot_delay=0.01) as server:
        s = session(server, "Bo", tmp_path)
        played = await play_match(s, server, hands=4)
        await s.close()
        records = server.store.hand_records(s.table or "t1")
    assert played.verdict == "all 4 deals verified"
    assert len(played.commitments) == 1
    paths = []
    for i, record in enumerate(records):
        paths.append(tmp_path / f"hand{i}.json")
        paths[-1].write_text(json.dumps(record), encoding="utf-8")
    assert verify_files(paths, capsys) == (0, "all 4 deals verified")

    # Hand 3 with two cards swapped between seats 0 and 1: caught, and named.
    tampered = json.loads(paths[2].read_text(encoding="utf-8"))
    hands = tampered["deal"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    paths[2].write_text(json.dumps(tampered), encoding="utf-8")
    status, out = verify_files(paths, capsys)
    assert status == 1
    assert out == "hand 3 does not verify: the cards dealt are not the ones the seeds give"

    # A client seed changed after the fact: caught as well (hand 2 comes first).
    other = json.loads(paths[1].read_text(encoding="utf-8"))
    other["fair"]["client_seeds"][0] = "00" * 32
    paths[1].write_text(json.dumps(other), encoding="utf-8")
    status, out = verify_files(paths, capsys)
    assert status == 1 and out.startswith("hand 2 does not verify")


async def test_history_records_after_the_reveal_verify_as_they_come(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records in a ``history`` reply carry the ``fair`` map the server stores (with the
    server seed once the match is over), so ``sheepshead verify`` takes them unchanged."""
    async with running_server(seed_wait=5.0, bot_delay=0.01) as server:
        s = session(server, "Cy", tmp_path)
        played = await play_match(s, server, hands=3)
        assert played.verdict == "all 3 deals verified"
        reply = await s.request("history")
        await s.close()
    records = [entry["record"] for entry in reply["hands"]]
    assert len(records) == 3 and all("server_seed" in r["fair"] for r in records)
    path = tmp_path / "history.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    assert verify_files([path], capsys) == (0, "all 3 deals verified")


async def test_a_rematch_is_dealt_from_a_commitment_of_its_own_that_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_server(seed_wait=5.0, bot_delay=0.01) as server:
        s = session(server, "Di", tmp_path)
        first = await play_match(s, server, hands=2)
        await s.request("rematch")
        second = await follow_match(s, server)
        await s.close()
        records = server.store.hand_records(s.table or "t1")  # the latest match's
    assert first.verdict == second.verdict == "all 2 deals verified"
    assert len(second.commitments) == 1
    assert second.commitments[0] not in first.commitments
    assert [r["fair"]["commitment"] for r in records] == second.commitments * 2
    paths = []
    for i, record in enumerate(records):
        paths.append(tmp_path / f"rematch{i}.json")
        paths[-1].write_text(json.dumps(record), encoding="utf-8")
    assert verify_files(paths, capsys) == (0, "all 2 deals verified")


async def test_a_server_that_changes_its_seed_after_committing_is_caught(tmp_path: Path) -> None:
    async with running_server(seed_wait=5.0, bot_delay=0.01) as server:
        s = session(server, "Cy", tmp_path)
        played = await play_match(s, server, hands=2, cheat=True)
        await s.close()
        records = server.store.hand_records(s.table or "t1")
    # The revealed seed is the swapped one: its hash is not the commitment that was published.
    assert played.revealed["commitments"][0]["commitment"] == played.commitments[0]
    reason = "the revealed server seed does not match the commitment"
    assert played.verdict == f"hand 1 does not verify: {reason}"
    # The stored records name the published commitment too, which the revealed seed fails.
    verdict = check_record(records[0])
    assert not verdict.ok
    assert verdict.reason == reason


async def test_the_client_seed_request_and_the_commitment_event_on_the_wire() -> None:
    """PROTOCOL.md §4 and §6: client_seed's checks, and the commitment a start publishes."""
    async with running_server(seed_wait=5.0) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Di")
        seed = "ab" * 32
        reply = await raw.request("client_seed", commitment="00" * 32, seed=seed)
        assert reply["type"] == "error" and reply["code"] == "not_seated"
        await raw.request("create_table", preset="seed", options={}, hands=1)
        for _ in range(4):
            await raw.request("add_bot")
        assert (await raw.request("start"))["type"] == "ok"
        published = await raw.expect("commitment")
        assert set(published) == {"type", "table", "commitment", "wait"}
        assert published["wait"] == 5.0 and len(published["commitment"]) == 64
        assert (await raw.request("start"))["code"] == "already_started"  # still waiting
        quoted = published["commitment"]
        for fields, code in (
            ({"commitment": quoted, "seed": "zz" * 32}, "bad_request"),
            ({"commitment": quoted, "seed": seed.upper()}, "bad_request"),
            ({"commitment": quoted}, "bad_request"),
            ({"commitment": "11" * 32, "seed": seed}, "stale"),
        ):
            reply = await raw.request("client_seed", **fields)
            assert reply["type"] == "error" and reply["code"] == code, (fields, reply)
        # The last seed missing: the deal follows at once, well before the five seconds.
        reply = await raw.request("client_seed", commitment=quoted, seed=seed)
        assert reply["type"] == "ok"
        state = await raw.expect("state", timeout=2.0)
        assert state["view"] is not None
        reply = await raw.request("client_seed", commitment=quoted, seed=seed)
        assert reply["code"] == "stale"  # locked: the deal was made with it
        table = server.lobby.tables[state["table"]]
        assert table.seeds.deal_seeds is not None
        assert table.seeds.deal_seeds.used[0].client_seeds()[0] == bytes.fromhex(seed)
        await raw.close()


async def answer(s: Session, checker: DealChecker, seat: int, seen: list[dict[str, Any]]) -> None:
    """Answer commitments with seeds and prompts with their first legal action, forever."""
    while True:
        msg = await s.events.get()
        seen.append(msg)
        if msg["type"] == "commitment":
            quoted = checker.on_commitment(msg)
            assert quoted is not None
            seed = checker.new_seed(quoted, seat)
            with contextlib.suppress(ServerError):  # a newer commitment may overtake it
                await s.request("client_seed", commitment=quoted, seed=seed)
        elif msg["type"] == "your_turn":
            try:
                await s.act(msg["legal"][0], seq=msg["seq"])
            except ServerError as exc:
                assert exc.code in ("stale", "not_your_turn", "hand_over"), exc


async def test_a_new_player_mid_match_starts_a_new_commitment_from_the_next_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_server(seed_wait=5.0, bot_delay=0.05, hand_pause=0.3) as server:
        ann, bea, cal = (session(server, n, tmp_path) for n in ("Ann", "Bea", "Cal"))
        for s in (ann, bea, cal):
            await s.connect()
        reply = await ann.request(
            "create_table", name="t", preset="seed", options={}, hands=2, password=None
        )
        table_id = str(reply["table"])
        await bea.request("join", table=table_id, seat=1, password=None)
        for _ in range(3):
            await ann.request("add_bot", seat=None, strategy="random")
        checkers = [DealChecker(), DealChecker(), DealChecker()]
        logs: list[list[dict[str, Any]]] = [[], [], []]
        tasks = [
            asyncio.create_task(answer(s, checkers[i], 0 if i == 0 else 1, logs[i]))
            for i, s in enumerate((ann, bea, cal))
        ]
        await ann.request("start")
        table = server.lobby.tables[table_id]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while table.match is None:  # the first deal: both seeds in
            assert loop.time() < deadline
            await asyncio.sleep(0.01)
        assert table.match.number == 0
        first = table.seeds.deal_seeds.used[0] if table.seeds.deal_seeds else None
        assert first is not None and first.sources[:2] == ["client", "client"]
        tasks[1].cancel()
        await bea.request("leave")
        await cal.request("join", table=table_id, seat=1, password=None)
        revealed = None
        while revealed is None:
            assert loop.time() < deadline + 20
            revealed = next((m for m in logs[0] if m["type"] == "seeds_revealed"), None)
            await asyncio.sleep(0.02)
        live = (await ann.request("history"))["hands"]
        stored = server.store.hand_records(table_id)
        for task in tasks:
            task.cancel()
        for s in (ann, bea, cal):
            await s.close()
    # The stored records are the ones history showed, and verify on their own, dealer and all:
    # hand 2's names the match's first commitment and carries its revealed seed (stored at the
    # reveal; before, only history added it, and the store's record left the dealer unchecked).
    assert [r["fair"] for r in stored] == [e["record"]["fair"] for e in live]
    assert "match_server_seed" in stored[1]["fair"]
    assert all(check_record(r).ok and check_record(r).unchecked == "" for r in stored)
    paths = [tmp_path / f"stored{i}.json" for i in range(len(stored))]
    for path, record in zip(paths, stored, strict=True):
        path.write_text(json.dumps(record), encoding="utf-8")
    assert verify_files(paths, capsys) == (0, "all 2 deals verified")
    entries = revealed["commitments"]
    assert [(e["first_hand"], e["last_hand"]) for e in entries] == [(0, 0), (1, 1)]
    # Cal's seed counts from hand 2 (number 1) on; Bea's only in hand 1.
    assert entries[1]["client_seeds"][1] == checkers[2].sent[entries[1]["commitment"]][1]
    assert entries[0]["client_seeds"][1] == checkers[1].sent[entries[0]["commitment"]][1]
    assert entries[1]["sources"] == ["client", "client", "bot", "bot", "bot"]
    hands = [Seen(m["hand"] + 1, m["reveal"]) for m in logs[0] if m["type"] == "hand_over"]
    assert checkers[0].check(revealed, hands) == "all 2 deals verified"
    assert checkers[0].verified is True
    assert checkers[0].check(revealed, hands[:1]) == "the deal verified"
    assert checkers[0].verified is True


async def test_a_seed_that_does_not_come_is_drawn_and_marked() -> None:
    """A person's client that never answers: the deal waits ``seed_wait`` and no longer, and the
    seat's seed is the one derived from the server seed, marked ``drawn``."""
    async with running_server(seed_wait=0.3) as server:
        raw = await Raw.open(server.port)
        await raw.hello("Ed")
        await raw.request("create_table", preset="seed", options={}, hands=1)
        for _ in range(4):
            await raw.request("add_bot")
        await raw.request("start")
        await raw.expect("commitment")
        state = await raw.expect("state", timeout=3.0)
        assert state["view"] is not None
        deal_seeds = server.lobby.tables[state["table"]].seeds.deal_seeds
        assert deal_seeds is not None
        used = deal_seeds.used[0]
        assert used.sources == ["drawn", "bot", "bot", "bot", "bot"]
        assert used.client_seeds()[0] == derived_seed(used.server_seed, 0)
        await raw.close()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("[]", "emptylist.json: holds no hand records (an empty list)"),
        (
            '"x"',
            'str.json: not a hand record (a JSON object, docs/hand-record.md), but a string "x"',
        ),
        ("[{}, 3]", "list.json: item 2: not a hand record"),
        ("", "empty.json: not valid JSON: the file is empty"),
    ],
    ids=["emptylist", "str", "list", "empty"],
)
def test_a_file_of_no_hand_records_is_named(
    content: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "[]" said "all 0 deals verified" and exited 1; a string or a number said "a record does
    # not verify: a record must be a JSON object", naming no file among many.
    name = said.split(":", 1)[0]
    (tmp_path / name).write_text(content)
    status = verify_command.run(argparse.Namespace(records=[str(tmp_path / name)], each=False))
    err = capsys.readouterr().err
    assert status == 2
    assert f"sheepshead verify: {tmp_path / said}" in err
