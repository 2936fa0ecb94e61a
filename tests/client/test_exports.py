"""The quota of exported hand records: every export keeps the folder within it."""

from __future__ import annotations

import doctest
from pathlib import Path

import client.exports
from client.app import SheepsheadApp
from client.screens.result import ResultScreen
from engine.rules import RuleSet
from tests.client.feed import EngineTable
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
