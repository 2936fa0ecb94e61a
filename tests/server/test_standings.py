"""Players the server remembers: identities from hello's player_key, and the standings across
finished matches, over real sockets (and ``sheepshead standings`` on the database)."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from client.session import Session
from server.app import Server
from server.standings_cli import table_text
from server.storage.standings import PlayerStanding, identity_of
from tests.e2e.test_server_attacks import raw_from
from tests.server.support import Raw, play_until, running_server, session

ANN_KEY = "ann-" + "a" * 40
BOB_KEY = "bob-" + "b" * 40

# Three clients here answer every prompt at once, faster than a person: the per-connection
# message limit is not what these tests are about.
FAST_PLAYERS: dict[str, float] = {"rate": 200.0, "burst": 400.0}


class Tally:
    """What the standings should say, counted from the hand_over messages the players saw."""

    def __init__(self) -> None:
        self.hands: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self.picks: Counter[str] = Counter()
        self.matches: defaultdict[str, set[str]] = defaultdict(set)

    def count(self, table: str, seats: dict[int, str], hand_over: dict[str, Any]) -> None:
        result = hand_over["result"]
        for seat, who in seats.items():
            self.hands[who] += 1
            self.total[who] += result["payouts"][seat]
            self.picks[who] += result.get("picker") == seat
            self.matches[who].add(table)


async def play_match(
    host: Session,
    others: list[Session],
    bots: int,
    tally: Tally,
    names: dict[Session, str],
    *,
    hands: int,
    end_after: int | None = None,
) -> str:
    """One match: ``host`` opens it, ``others`` join, server bots fill the rest; everyone plays
    random legal moves. ``end_after``: the host ends it after that many hands."""
    reply = await host.request("create_table", name="m", preset="seed", options={}, hands=hands)
    table = str(reply["table"])
    seats = {0: names[host]}
    for s in others:
        joined = await s.request("join", table=table)
        seats[joined["seat"]] = names[s]
    for _ in range(bots):
        await host.request("add_bot", strategy="random")
    await host.request("start")
    rng = random.Random(7)
    players = [host, *others]
    logs: dict[Session, list[dict[str, Any]]] = {p: [] for p in players}
    stop = "hand_over" if end_after is not None else "match_over"
    played = 0
    while True:
        # Everyone answers prompts until the host sees the stop event.
        waits = [asyncio.create_task(play_until(p, stop, logs[p], rng)) for p in players]
        await waits[0]
        for w in waits[1:]:
            w.cancel()
        over = [m for m in logs[host] if m["type"] == "hand_over"]
        for message in over[played:]:
            tally.count(table, seats, message)
        played = len(over)
        if end_after is None or played >= end_after:
            break
    if end_after is not None:
        await host.request("end_match")
    for p in players:
        await p.request("leave")
    return table


async def standings(port: int, **fields: Any) -> dict[str, Any]:
    raw = await Raw.open(port)
    try:
        await raw.hello("viewer")
        return await raw.request("standings", **fields)
    finally:
        await raw.close()


async def test_standings_count_two_identities_across_three_matches(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with running_server(db_path=db, **FAST_PLAYERS) as server:
        ann = session(server, "Ann", tmp_path, player_key=ANN_KEY)
        bob = session(server, "Bob", tmp_path, player_key=BOB_KEY)
        cy = session(server, "Cy", tmp_path)  # no player key: not remembered
        for s in (ann, bob, cy):
            await s.connect()
        names = {ann: "ann", bob: "bob", cy: "cy"}
        tally = Tally()
        try:
            await play_match(ann, [bob, cy], 2, tally, names, hands=2)
            # Asked between matches: the later ones are added to what was counted already.
            first = {r["player"]: r for r in (await standings(server.port))["players"]}
            assert first["Ann"]["hands"] == first["Bob"]["hands"] == 2
            await play_match(bob, [], 4, tally, names, hands=1)
            # Ended early after one hand: its finished hand counts.
            await play_match(ann, [bob], 3, tally, names, hands=5, end_after=1)
        finally:
            for s in (ann, bob, cy):
                await s.close()
        reply = await standings(server.port)
        assert reply["type"] == "ok", reply
        rows = {row["player"]: row for row in reply["players"]}
        assert set(rows) == {"Ann", "Bob", "random"}  # cy sent no key; the bots are one
        for name, who in (("Ann", "ann"), ("Bob", "bob")):
            row = rows[name]
            assert row["kind"] == "key"
            assert row["matches"] == len(tally.matches[who])
            assert row["hands"] == tally.hands[who]
            assert row["total"] == tally.total[who]
            assert row["picks"] == tally.picks[who]
            assert row["per_hand"] == round(tally.total[who] / tally.hands[who], 3)
        assert rows["Ann"]["matches"] == 2 and rows["Ann"]["hands"] == 3
        assert rows["Bob"]["matches"] == 3 and rows["Bob"]["hands"] == 4
        assert rows["random"]["kind"] == "bot" and rows["random"]["matches"] == 3
        totals = [row["total"] for row in reply["players"]]
        assert totals == sorted(totals, reverse=True)
        # The key itself is never stored: only its hash.
        raw_db = db.read_bytes() + (db.parent / "s.db-wal").read_bytes()
        assert ANN_KEY.encode() not in raw_db
        assert identity_of(ANN_KEY).encode() in raw_db
        await _same_key_new_name_is_the_same_player(server, tmp_path, rows["Ann"])
        await _since_filters(server)
        # The host's command reads the database while the server runs (and holds its lock).
        cli = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "client.cli",
            "standings",
            "--db",
            str(db),
            "--json",
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(cli.communicate(), 60)
        assert cli.returncode == 0
        cli_rows = json.loads(out)
        assert [r["player"] for r in cli_rows] == ["Annie" if n == "Ann" else n for n in rows]
        assert {r["player"]: r["total"] for r in cli_rows}["Annie"] == rows["Ann"]["total"]
    text = subprocess.run(
        [sys.executable, "-m", "client.cli", "standings", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "Annie" in text and "Bob" in text and "per hand" in text


async def _same_key_new_name_is_the_same_player(
    server: Server, tmp_path: Path, before: dict[str, Any]
) -> None:
    annie = session(server, "Annie", tmp_path, player_key=ANN_KEY)
    await annie.connect()
    await annie.close()
    reply = await standings(server.port)
    rows = {row["player"]: row for row in reply["players"]}
    assert "Ann" not in rows
    assert rows["Annie"]["total"] == before["total"]
    assert rows["Annie"]["hands"] == before["hands"]


async def _since_filters(server: Server) -> None:
    today = datetime.now(UTC).date()
    later = await standings(server.port, since=(today + timedelta(days=1)).isoformat())
    assert later["players"] == [] and later["since"] == (today + timedelta(days=1)).isoformat()
    earlier = await standings(server.port, since=(today - timedelta(days=1)).isoformat())
    assert len(earlier["players"]) == 3
    bad = await standings(server.port, since="yesterday")
    assert bad["type"] == "error" and bad["code"] == "bad_request"
    assert "since" in bad["message"]


async def test_a_short_player_key_is_refused_and_changes_nothing() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        try:
            reply = await raw.request("hello", version=1, kind="human", name="x", player_key="k")
            assert reply["type"] == "error" and reply["code"] == "bad_request"
            assert "player_key" in reply["message"]
            welcome = await raw.hello("x", player_key="k" * 16)  # a corrected hello is fine
            assert welcome["name"] == "x"
        finally:
            await raw.close()


async def test_standings_of_a_fresh_server_are_empty() -> None:
    async with running_server() as server:
        reply = await standings(server.port)
        assert reply == {"type": "ok", "id": reply["id"], "since": None, "players": []}


def test_standings_cli_errors(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "client.cli", "standings", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )

    missing = run("--db", str(tmp_path / "nope.db"))
    assert missing.returncode == 1 and "no database" in missing.stderr
    assert not (tmp_path / "nope.db").exists()
    bad = run("--db", str(tmp_path / "nope.db"), "--since", "soon")
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.stderr


def test_the_standings_table_fits_an_80_column_terminal() -> None:
    """sheepshead standings printed 94-character lines (24 columns for every name): at 80
    columns each row wrapped onto two lines."""
    rows = [
        PlayerStanding(player="Cy", kind="key", matches=1, hands=3, total=1),
        PlayerStanding(player="heuristic", kind="bot", matches=1, hands=6, total=-1),
    ]
    assert all(len(line) <= 80 for line in table_text(rows).splitlines())
    rows.append(PlayerStanding(player="Maximilian Longnamesmith", kind="ssh", hands=3))
    lines = table_text(rows, width=80).splitlines()
    assert all(len(line) < 80 for line in lines), lines
    assert "Maximilian…" in lines[-1] and lines[-1].endswith("0")  # cut, the row whole
    assert "Maximilian Longnamesmith" in table_text(rows)  # a pipe gets the name whole


def test_the_standings_table_tells_two_players_of_one_name_apart() -> None:
    """Two SSH keys both named bob were two identical rows of ``sheepshead standings``: a
    name two players share is followed by the start of each one's tag, as the lobby's
    standings show it (``bob·Bog0Gw``), cut to keep the tag when the column is narrow."""
    rows = [
        PlayerStanding(player="bob", kind="ssh", tag="SHA256:Bog0GwduGd", hands=3, total=2),
        PlayerStanding(player="ann", kind="key", tag="c0ffee12", hands=3, total=1),
        PlayerStanding(player="bob", kind="key", tag="3b295660", hands=3, total=-1),
        PlayerStanding(player="heuristic", kind="bot", tag="heuristic", hands=6, total=-2),
        PlayerStanding(player="heuristic", kind="key", tag="d00dfeed", hands=1, total=0),
    ]
    lines = table_text(rows).splitlines()[1:]
    assert [line.split()[1] for line in lines] == [
        "bob·Bog0Gw",
        "ann",
        "bob·3b2956",
        "heuristic",  # the bot: its kind tells it apart
        "heuristic·d00dfe",
    ]
    long = [
        PlayerStanding(player="Maximilian Longnamesmith", kind="ssh", tag="SHA256:MaxAbCdEf"),
        PlayerStanding(player="Maximilian Longnamesmith", kind="key", tag="0123abcd"),
    ]
    narrow = table_text(long, width=80).splitlines()[1:]
    assert all(len(line) < 80 for line in narrow), narrow
    assert [line.split()[1] for line in narrow] == ["Maxi…·MaxAbC", "Maxi…·0123ab"], narrow


async def test_hellos_with_new_keys_store_nothing_until_a_seat_is_taken() -> None:
    """A loop of hellos with fresh player keys (each a new connection) grew the identities
    table for good. Only a player who sits down is remembered."""
    async with running_server() as server:
        store = server.store
        assert store is not None

        def identities() -> int:
            return int(store._db.execute("SELECT count(*) FROM identities").fetchone()[0])

        before = identities()
        for number in range(20):
            raw = await Raw.open(server.port)
            await raw.hello(f"Flood {number}", player_key=f"flood-key-{number:04d}-" + "x" * 20)
            await raw.close()
        assert identities() == before
        host = await Raw.open(server.port)
        await host.hello("Ann", player_key=ANN_KEY)
        await host.request("create_table", name="Ann's")
        assert identities() == before + 1
        await host.close()


async def test_new_player_keys_from_one_address_are_remembered_up_to_its_allowance() -> None:
    """A fresh player key per connection, each sitting down, stored an identities row each for
    good: 18,000 an hour from one address at its rate of new connections. An address has
    ``new_identity_burst`` new keys remembered at once (then ``new_identity_rate``); past it a
    new key still plays, uncounted, and is told so; a key the server knows still counts."""
    async with running_server(new_identity_burst=3, new_identity_rate=0.001) as server:
        store = server.store
        assert store is not None

        def count(table: str) -> int:
            return int(store._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        async def sit(key: str) -> list[dict[str, Any]]:
            """A new connection with ``key`` creates a table; the notices it got, then it
            leaves (the table closes)."""
            raw = await Raw.open(server.port)
            await raw.hello("Flood", player_key=key)
            created = await raw.request_keeping("create_table", name="flood")
            assert created["type"] == "ok"
            links = count("seat_identities")
            notices = [m for m in raw.inbox if m.get("type") == "notice"]
            await raw.request("leave")
            await raw.close()
            return [*notices, {"links": links}]

        keys = [f"flood-key-{number:04d}-" + "x" * 20 for number in range(6)]
        for key in keys[:3]:
            assert await sit(key) == [{"links": 1}]
        assert count("identities") == 3
        for key in keys[3:]:
            *notices, links = await sit(key)
            assert [n["code"] for n in notices] == ["not_counted"]
            assert links == {"links": 0}  # it plays, counted for nobody
        assert count("identities") == 3
        assert await sit(keys[0]) == [{"links": 1}]  # a known key is never refused
        other = await raw_from(server.port, "127.0.0.9")  # nor another address's new one
        await other.hello("Other", player_key=ANN_KEY)
        assert (await other.request("create_table", name="other"))["type"] == "ok"
        assert count("identities") == 4
        await other.close()
