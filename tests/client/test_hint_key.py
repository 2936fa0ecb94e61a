"""The hint key against the real server (``sheepshead play``'s table, hints on), by key presses."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from client.app import SheepsheadApp
from client.screens.result import ResultScreen
from client.screens.table import TableScreen
from client.widgets.cards import card_label
from engine.rules import RuleSet
from tests.client.feed import EngineTable, FakeSession
from tests.client.test_e2e import SIZE, Player, local_game, play_options, wait_for
from tests.client.test_screens import fed, screen_text


async def test_the_hint_key_shows_the_coachs_advice_and_plays_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path))
    args = play_options(True, preset="wisconsin")
    async with local_game(args) as (_server, session):
        app = SheepsheadApp(session, mode="play")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.model.prompt is not None, timeout=20)
            assert app.model.info["hints"] is True  # play's table has the coach
            # The prompt is in the model a frame before the status line shows it.
            await wait_for(pilot, lambda: "i: hint" in screen_text(app))
            player = Player(pilot)
            kinds: set[str] = set()
            while "play" not in kinds:
                model = app.model
                prompt = model.prompt
                if prompt is None or not isinstance(app.screen, TableScreen):
                    await player.step()
                    continue
                seq, hand = model.seq, list(model.hand)
                await pilot.press("i")
                # The coach works in a bot worker process (started on first use): on a loaded
                # two-core machine, with other test files' servers beside it, that can take
                # more than the default ten seconds.
                await wait_for(
                    pilot,
                    lambda: "Hint:" in screen_text(app) and "thinking" not in screen_text(app),
                    timeout=40,
                )
                text = next(line for line in screen_text(app).splitlines() if "Hint:" in line)
                assert "Your turn" in str(app.screen.query_one("#status").render())
                assert app.model.prompt is prompt and app.model.seq == seq  # nothing was played
                assert list(app.model.hand) == hand
                if prompt.decision == "play" and len(prompt.cards()) > 1:
                    screen = app.screen
                    assert isinstance(screen, TableScreen)
                    # The card under the cursor is the coach's first choice, shown in the line.
                    assert screen.cursor is not None
                    chosen = hand[screen.cursor]
                    assert chosen in prompt.cards()
                    assert f"Hint: {card_label(chosen)}" in text, text
                    # A clear best, two about equal, standard play kept within the noise, or
                    # cards that play alike named together.
                    assert re.search(r"deals\); next|about equal|usual play|/.* alike", text), text
                kinds.add(prompt.decision)
                await player.step()
                await player.step()
            # After the hand, v on the result panel asks the coach to review every decision.
            await player.until(lambda: isinstance(app.screen, ResultScreen), timeout=30)
            result = app.screen
            assert isinstance(result, ResultScreen)
            assert "v review your play" in screen_text(app)
            await pilot.press("v")
            await wait_for(pilot, lambda: bool(result.review), timeout=30)
            for line in result.review:  # "Trick 2: your 9♥ cost about …", "Pick: as good …"
                assert re.match(r"(Trick [1-6]|[A-Z][a-z ]+): ", line), result.review


class SlowCoach(FakeSession):
    """A session whose ``hint`` is answered only when the test lets it (:attr:`answer`)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__({"hint": reply})
        self.answer = asyncio.Event()
        self.silent = False
        """Answer no ``hint`` at all: the session's request times out (TimeoutError)."""

    async def request(self, type: str, **fields: Any) -> dict[str, Any]:
        """As FakeSession's, a ``hint`` once :attr:`answer` is set."""
        if type == "hint":
            await self.answer.wait()
            if self.silent:
                raise TimeoutError
        return await super().request(type, **fields)


async def test_a_hint_for_last_hands_pick_is_not_shown_at_this_hands_pick() -> None:
    # Asked at the pick, the turn passed (all passed: a doubler) and the next hand's pick came
    # with the same two choices before the coach answered: the old hand's advice was shown as
    # if about the new cards.
    session = SlowCoach(
        {
            "type": "ok",
            "deals": 40,
            "candidates": [
                {"action": {"action": "pick"}, "value": 2.5},
                {"action": {"action": "pass"}, "value": -1.0, "se": 0.3},
            ],
        }
    )
    table = EngineTable(seed=3, dealer=4, me=0, hints=True, rules=RuleSet(no_pick="doubler"))
    app = SheepsheadApp(session, mode="play")  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        await wait_for(pilot, lambda: "i: hint" in screen_text(app))
        first = app.model.legal
        await pilot.press("i")
        await wait_for(pilot, lambda: "thinking" in screen_text(app))
        # The hint goes under the turn line: the player still reads that it is their turn (the
        # hint took its place, the timer's too).
        lines = screen_text(app).splitlines()
        turn = next(i for i, line in enumerate(lines) if "Your turn: p picks" in line)
        assert "Hint: the coach is thinking" in lines[turn + 1], lines

        def passing(_: object) -> dict[str, Any]:
            return {"action": "pass"}

        await fed(pilot, table.apply({"action": "pass"}) + table.advance(passing, until_me=False))
        await fed(pilot, table.next_hand(seed=5) + table.advance(passing))
        await wait_for(pilot, lambda: "i: hint" in screen_text(app))
        assert app.model.legal == first  # the same two choices, about other cards
        session.answer.set()
        await wait_for(pilot, lambda: any(s["type"] == "hint" for s in session.sent))
        for _ in range(5):
            await pilot.pause()
        assert "Hint:" not in screen_text(app), screen_text(app)
        # The doubler's result panel covers the table, and the status line under it offers i:
        # i closes the panel and asks (it did nothing). A coach that never answers (the
        # server's queue full on a starved machine): after the session's timeout the line
        # stops saying "thinking" and a notice says why.
        assert isinstance(app.screen, ResultScreen) and "i hint" in screen_text(app)
        session.silent = True
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await wait_for(pilot, lambda: bool(app._notifications))
        await wait_for(pilot, lambda: "thinking" not in screen_text(app))
        told = [n.message for n in app._notifications]
        assert told == ["hint failed: the server did not answer in time"], told
        # While the connection is down the line says so, and no longer offers i (a hint
        # cannot be asked: it was refused with "not connected").
        await fed(pilot, [{"type": "connection", "status": "reconnecting"}])
        line = screen_text(app).splitlines()[-2]
        assert "reconnecting" in line and "i: hint" not in line, line
        await fed(pilot, [{"type": "connection", "status": "connected"}])
        await wait_for(pilot, lambda: "i: hint" in screen_text(app))


def test_cards_that_play_alike_are_named_in_the_order_the_hand_shows_them() -> None:
    """At a Wisconsin table (J♣ above J♠, the hand showing Q♣ Q♥ J♣ J♠ J♥ J♦) the coach's
    jacks that play alike read "J♠/J♣/J♥/J♦", in the default jack order, with the cursor
    on J♣: the line and the hand disagreed. The cursor goes to the first card named."""
    from client.coach import choice_actions, hint_text

    hand = ["QC", "QH", "JC", "JS", "JH", "JD"]
    jacks = [{"action": "play", "card": code} for code in ("JS", "JC", "JH", "JD")]
    best = {"action": jacks[1], "value": 7.2, "alike": [jacks[0], *jacks[2:]]}
    reply: Any = {
        "deals": 40,
        "candidates": [best, {"action": {"action": "play", "card": "QH"}, "value": 7.0, "se": 0.3}],
    }
    assert hint_text(reply, hand).startswith("Hint: J♣/J♠/J♥/J♦ or Q♥, about equal")
    assert choice_actions(best, hand)[0]["card"] == "JC"
