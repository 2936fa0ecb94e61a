"""The crack round, the re-crack and the blitz at the table screen (docs/rules.md, "Cracking and
blitzing")."""

from __future__ import annotations

from typing import Any

from client.app import SheepsheadApp
from client.model import TableModel, rebuild_record
from client.screens.dialogs import BuryDialog
from client.screens.result import ResultScreen
from client.screens.table import TableScreen
from client.widgets.table import _stakes_lines
from engine.hand import Deal, Hand
from engine.record import replay_record
from engine.rules import RuleSet
from tests.client.feed import EngineTable, at_the_bury
from tests.client.test_screens import SIZE, fed, screen_text
from tests.engine.test_cracking import BLIND, HANDS

# The deal of the engine's tests (dealer 4): seat 1 picks holding QC QS, seat 2 holds AC (the
# partner once it is called), seat 4 holds the red queens.
PICKED: list[dict[str, Any]] = [{"action": "pass"}, {"action": "pick"}]
CALLED: list[dict[str, Any]] = [
    *PICKED,
    {"action": "bury", "cards": ["TD", "KD"]},
    {"action": "call", "card": "AC"},
]


def tavern_table(me: int, actions: list[dict[str, Any]]) -> EngineTable:
    """The deal above at a tavern table seen from ``me``, with ``actions`` applied."""
    table = EngineTable(me=me, dealer=4, rules=RuleSet.from_preset("tavern"))
    deal = Deal.from_codes([h.split() for h in HANDS], BLIND.split())
    table.hand = Hand(table.rules, 4, deal)
    for action in actions:
        table.apply(action)
    return table


def status(app: Any) -> str:
    return " ".join(str(app.screen.status_text()).split())


async def test_a_defender_cracks_with_c_or_shows_its_queens_with_w() -> None:
    """At the table, and from the last hand's result panel while it is up: the status line
    under the panel said "c cracks ..., n passes", and those keys did nothing there."""
    table = EngineTable(seed=11, dealer=3, me=4, rules=RuleSet.from_preset("tavern"))
    done = table.messages() + table.play_out()
    table.hand = tavern_table(4, [*CALLED, {"action": "no_crack"}, {"action": "no_crack"}]).hand
    table.seq += 1  # the next hand, dealt by seat 4, at its crack round
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, done)
        assert isinstance(app.screen, ResultScreen)
        await fed(pilot, table.messages())
        assert app.model.decision == "crack"
        keys = "c cracks, w cracks with your queens, n does not crack (from here too)"
        assert keys in " ".join(screen_text(app).replace("│", " ").split())
        for key, sent in [
            ("w", {"action": "crack", "blitz": "red"}),
            ("c", {"action": "crack"}),
            ("n", {"action": "no_crack"}),
        ]:
            if not isinstance(app.screen, ResultScreen):
                app.open_result(app.model.history[-1])
                await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, TableScreen)
            assert app.outbox == [sent]
            app.outbox.clear()
            await fed(pilot, table.messages())  # the prompt again (as after a refused answer)
        text = status(app)
        assert text == "Crack round: c cracks (×2), w cracks with your red queens (×4), n passes."
        assert len(text) < SIZE[0] - 2  # the status line is one line of the terminal
        screen = screen_text(app)
        assert "Crack  c" in screen and "Crack+Q w" in screen and "No  n" in screen
        prompt = app.model.prompt
        for key, sent in [
            ("w", {"action": "crack", "blitz": "red"}),
            ("c", {"action": "crack"}),
            ("n", {"action": "no_crack"}),
        ]:
            app.model.prompt = prompt  # each key answers the same prompt once
            await pilot.press(key)
            await pilot.pause()
            assert app.outbox == [sent]
            app.outbox.clear()


async def test_the_partner_is_told_it_cannot_crack_and_answers_with_one_key() -> None:
    table = tavern_table(2, CALLED)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        assert app.model.decision == "crack"
        assert status(app) == "You are the partner: you cannot crack. n (or Enter) says no crack."
        await pilot.press("c", "w")  # not offered: nothing is sent
        await pilot.pause()
        assert app.outbox == []
        await pilot.press("enter")
        await pilot.pause()
        assert app.outbox == [{"action": "no_crack"}]


async def test_the_picker_blitzes_in_the_bury_dialog_and_the_stakes_show() -> None:
    async with at_the_bury(table=tavern_table(1, PICKED)) as (app, pilot, table):
        assert "black queens (Q♣ Q♠)" in screen_text(app)
        await pilot.press("z")
        await pilot.pause()
        assert app.outbox == [{"action": "blitz", "pair": "black"}]
        await fed(pilot, table.apply(app.outbox.pop()))
        # The bury is asked again, without the blitz already made.
        assert isinstance(app.screen, BuryDialog) and app.screen.blitz is None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TableScreen)
        text = " ".join(screen_text(app).split())
        assert "Hand 1 of 10 ×2" in text and "Blitz Q♣ Q♠" in text
        log = [entry.text for entry in app.model.log]
        assert "You blitz the black queens (Q♣ Q♠): stakes ×2" in log


async def test_recrack_prompt_and_a_result_listing_every_doubling() -> None:
    table = tavern_table(1, [*CALLED, {"action": "no_crack"}, {"action": "no_crack"}])
    messages = table.apply({"action": "crack", "blitz": "red"})
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, messages)
        assert app.model.decision == "recrack"
        assert status(app) == "Eve cracked (stakes ×4): c re-cracks (×8), n lets it stand."
        assert "×4" in screen_text(app)
        await pilot.press("c")
        await pilot.pause()
        assert app.outbox == [{"action": "recrack"}]
        messages = table.apply(app.outbox.pop())
        assert table.hand.stakes == 8
        messages += table.advance(lambda h: h.legal_actions()[0].to_dict(), until_me=False)
        await fed(pilot, messages)
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
        text = " ".join(screen_text(app).split())
        assert "Eve cracked with the red queens ×4" in text
        assert "you re-cracked" in text and "stakes ×8 in all" in text  # Bob is you
        # The exported record replays to the same hand, crack round included.
        view = app.model.view
        assert view is not None and view["reveal"] is not None
        record = rebuild_record(view, view["reveal"])
        assert replay_record(record) == table.hand.result().to_dict()


async def test_the_host_chooses_tavern_or_turns_the_options_on_when_creating_a_table() -> None:
    from textual.widgets import Select

    from client.screens.dialogs import CreateTableDialog

    chosen: list[dict[str, Any] | None] = []
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(CreateTableDialog("Ann's table"), chosen.append)
        await pilot.pause()
        preset = app.screen.query_one("#f-preset", Select)
        labels = [str(prompt) for prompt, _ in preset._options]
        assert "Tavern" in labels and "Wisconsin (standard)" in labels
        assert "tavern" not in labels  # people see titles, the wire gets names
        preset.value = "tavern"
        app.screen.query_one("#o-crack_by", Select).value = "defenders"
        app.screen.query_one("#o-blitzing", Select).value = "no"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert chosen and chosen[0] is not None
    assert chosen[0]["preset"] == "tavern"
    assert chosen[0]["options"] == {"crack_by": "defenders", "blitzing": False}
    assert RuleSet.from_preset(chosen[0]["preset"], **chosen[0]["options"]).cracking


def test_the_hand_panel_says_who_cracked_and_re_cracked_as_a_sentence() -> None:
    """It read "Crack you ×2, re"; now as the log says it, in each seat's person."""
    done = [*CALLED, {"action": "no_crack"}, {"action": "no_crack"}]
    done += [{"action": "crack", "blitz": "red"}, {"action": "recrack"}]
    seen = {}
    for me in (0, 1, 4):
        model = TableModel()
        for msg in tavern_table(me, done).messages():
            model.apply(msg)
        assert model.view is not None
        seen[me] = [line.plain for line in _stakes_lines(model, model.view)]
    assert seen[0] == ["Eve cracks: ×4", "Bob re-cracks: ×2"]
    assert seen[1] == ["Eve cracks: ×4", "You re-crack: ×2"]
    assert seen[4] == ["You crack: ×4", "Bob re-cracks: ×2"]
    assert all(len(line) <= 18 for lines in seen.values() for line in lines)


def test_a_rebuilt_log_tells_who_did_not_crack_as_the_live_one_did() -> None:
    """After a reconnect the log is told from the view: it dropped "Cal does not crack" and
    "Bob does not re-crack" (answers no view keeps, but where the round stands shows)."""
    steps = [*CALLED, {"action": "no_crack"}, {"action": "no_crack"}]
    steps += [{"action": "crack", "blitz": "red"}, {"action": "no_recrack"}]
    for me in (0, 1):
        live, table = TableModel(), tavern_table(me, [])
        for msg in table.messages():
            live.apply(msg)
        for done, action in enumerate(steps, 1):
            for msg in table.apply(action):
                live.apply(msg)
            rebuilt = TableModel()
            for msg in table.messages():  # a reconnect's snapshot, at every step
                rebuilt.apply(msg)
            texts = [e.text for e in live.log]
            assert [e.text for e in rebuilt.log] == texts, done  # in order, once each
        assert [text for text in texts if "crack" in text] == [
            "Cal does not crack",
            "Dee does not crack",
            "Eve cracks with the red queens (Q♥ Q♦): stakes ×4",
            "You do not re-crack" if me == 1 else "Bob does not re-crack",
        ]
