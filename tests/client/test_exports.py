"""The quota of exported hand records: every export keeps the folder within it."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import client.exports
from client.app import SheepsheadApp
from client.screens.result import ResultScreen
from engine.record import replay_record
from engine.rules import RuleSet
from server.app import Server
from tests.client.feed import EngineTable
from tests.client.test_e2e import Player, session_for
from tests.client.test_screens import SIZE, fed


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
    assert record["strategies"] == [None, "random", "easy", "random", "easy"]
    assert replay_record(record)["payouts"] == hand.result["payouts"]
