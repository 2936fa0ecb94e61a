"""The quota of exported hand records: every export keeps the folder within it."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from textual.widgets import TextArea

import client.exports
import client.join
from client.app import SheepsheadApp
from client.screens.info import RecordScreen
from client.screens.result import ResultScreen
from engine.record import replay_record
from engine.rules import RuleSet
from server.app import Server
from tests.client.feed import EngineTable
from tests.client.test_e2e import Player, session_for, wait_for
from tests.client.test_screens import SIZE, fed, screen_text


def test_doctests() -> None:
    result = doctest.testmod(client.exports)
    assert result.attempted and not result.failed


async def test_pressing_x_over_and_over_keeps_the_newest_files_only(
    tmp_path: Path,
) -> None:
    """Each press of ``x`` wrote one more file, never pruned: now the folder keeps the newest
    ``MAX_FILES``, and the file just written is one of them."""
    table = EngineTable(seed=11, dealer=1, me=0, rules=RuleSet.from_preset("wisconsin"))
    messages = table.messages()
    while not table.hand.is_over:
        messages += table.apply(table.hand.legal_actions()[0].to_dict())
    old = tmp_path / "someone-else.txt"
    old.write_text("not an export")
    app = SheepsheadApp(mode="play", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert isinstance(app.screen, ResultScreen)
        hand = app.model.history[-1]
        written = [app.export_hand(hand) for _ in range(client.exports.MAX_FILES + 5)]
    files = set(tmp_path.glob("*.json"))
    assert len(files) == client.exports.MAX_FILES
    assert written[-1] in files
    assert old.exists()


async def test_an_exported_hand_of_a_server_table_names_its_bots_strategies(
    server: Server, tmp_path: Path
) -> None:
    """A hand played at a server table and exported (rebuilt from what the client saw) carries
    ``strategies``: each server bot's, as the table's seats show it; null at the person's."""
    session = await session_for(server, tmp_path)
    await session.request(
        "create_table", name="strategies", preset="seed", options={}, hands=1, password=None
    )
    for strategy in ("random", "easy", "random", "easy"):
        await session.request("add_bot", seat=None, strategy=strategy)
    await session.request("start")
    app = SheepsheadApp(session, mode="play", export_dir=tmp_path / "hands")
    async with app.run_test(size=SIZE) as pilot:
        player = Player(pilot)
        await player.until(lambda: bool(app.model.history), timeout=40)
        hand = app.model.history[-1]
        assert hand.record is None  # seen live: the export rebuilds it
        path = app.export_hand(hand)
    await session.close()
    assert path is not None
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["strategies"] == [None] + ["random"] * 4  # "easy" is random
    assert replay_record(record)["payouts"] == hand.result["payouts"]


def _finished_table() -> tuple[EngineTable, list[dict[str, object]]]:
    table = EngineTable(seed=11, dealer=1, me=0, rules=RuleSet.from_preset("wisconsin"))
    messages = table.messages()
    while not table.hand.is_over:
        messages += table.apply(table.hand.legal_actions()[0].to_dict())
    return table, messages


def _finished_hand() -> list[dict[str, object]]:
    return _finished_table()[1]


async def test_in_a_door_x_shows_the_record_to_copy_not_a_server_path(tmp_path: Path) -> None:
    """A door player (SSH, browser) pressing ``x`` was told "saved to /tmp/sheepshead-ssh-…":
    a file on the server, out of reach (and moved when the session ends). Now the record is
    shown to copy, ``c`` puts it on the clipboard, and nothing is written on the server."""
    app = SheepsheadApp(mode="play", export_dir=tmp_path, door=True)
    table, finished = _finished_table()
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, finished)
        assert isinstance(app.screen, ResultScreen)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)
        assert "PgUp/PgDn · Esc closes" in screen_text(app)  # it ended in a bare "Esc"
        shown = app.screen.query_one(TextArea).text
        record = json.loads(shown)
        assert replay_record(record)["payouts"] == app.model.history[-1].result["payouts"]
        assert "saved to" not in " ".join(str(n.message) for n in app._notifications)
        await pilot.press("c")
        await pilot.pause()
        assert json.loads(app.clipboard) == record
        # The next hand's turn comes while the record covers the table (and its status
        # line): it said nothing, and the turn timer ran out on gus, copying the record.
        await fed(pilot, table.next_hand(seed=12) + table.advance())
        assert app.model.decision is not None and isinstance(app.screen, RecordScreen)
        await wait_for(pilot, lambda: "▶ Your turn" in screen_text(app), timeout=10)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
    assert not list(tmp_path.iterdir())


async def test_out_of_a_door_x_still_saves_a_file(tmp_path: Path) -> None:
    """The local client keeps writing the record to a file and naming it."""
    app = SheepsheadApp(mode="play", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, _finished_hand())
        await pilot.press("x")
        await pilot.pause()
        assert not isinstance(app.screen, RecordScreen)
        (path,) = tmp_path.glob("*.json")
        assert any(str(path) in str(n.message) for n in app._notifications)


async def test_join_over_the_doors_socket_runs_the_client_as_a_door(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The doors start ``join --socket PATH``: that client knows it runs in a door."""
    seen: list[bool] = []

    class Connected:
        status = "connected"

        async def close(self) -> None:
            pass

    async def connect(*args: object) -> tuple[Connected, None]:
        return Connected(), None

    async def run_async(self: SheepsheadApp) -> None:
        seen.append(self.door)

    monkeypatch.setattr(client.join, "connect", connect)
    monkeypatch.setattr(SheepsheadApp, "run_async", run_async)
    await client.join._main("localhost", 1, "Ann", "join", None, local_socket="/tmp/s.sock")
    await client.join._main("localhost", 1, "Ann", "join", None)
    assert seen == [True, False]
