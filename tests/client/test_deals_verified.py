"""The real client plays a whole match over real sockets and checks every deal when the server
reveals its seeds (PROTOCOL.md §13); the hands it exports verify with ``sheepshead verify``."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from client.app import SheepsheadApp
from client.screens.result import MatchOverScreen, ResultScreen
from client.settings import ClientSettings
from engine.fairdeal import check_record
from tests.client.feed import EngineTable
from tests.client.test_e2e import SIZE, Player, wait_for
from tests.client.test_screens import fed, screen_text
from tests.e2e.test_fair_deals import verify_files
from tests.server.support import running_server, session


@pytest.mark.every_frame
@pytest.mark.parametrize(("hands", "said"), [(3, "all 3 deals verified"), (1, "the deal verified")])
async def test_a_whole_match_through_the_client_is_verified_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hands: int, said: str
) -> None:
    """The real client plays a match by keys; it sends its own seed and, when the server
    reveals, says that every deal verified (as good news, however the sentence reads). The
    hands it exports and the records the server stored verify too."""
    async with running_server(seed_wait=30.0, bot_delay=0.0) as server:
        s = session(server, "Ann", tmp_path)
        await s.connect()
        app = SheepsheadApp(s, mode="play", export_dir=tmp_path / "hands")
        async with app.run_test(size=SIZE) as pilot:
            reply = await s.request(
                "create_table", name="fair", preset="seed", options={}, hands=hands, password=None
            )
            for _ in range(4):
                await s.request("add_bot", seat=None, strategy="random")
            await wait_for(pilot, lambda: app.model.seat == 0)
            await s.request("start")
            player = Player(pilot)
            logged = lambda: [e.text for e in app.model.log if e.text.startswith("Deals:")]  # noqa: E731
            await player.until(lambda: bool(logged()), timeout=120)
            assert logged() == [f"Deals: {said}"]
            assert [e.kind for e in app.model.log if e.text.startswith("Deals:")] == ["event"]
            # Good news is no pop-up over the status line: the log has it, and the panel.
            assert not [n for n in app._notifications if n.title == "Deals"]
            # Enter on the last hand's result shows the standings.
            await player.until(lambda: isinstance(app.screen, MatchOverScreen))
            await wait_for(pilot, lambda: f"Deals: {said}" in screen_text(app))
            exported = [app.export_hand(hand) for hand in app.model.history]
        await s.close()
        records = server.store.hand_records(str(reply["table"]))
    assert len(records) == hands
    assert verify_files([p for p in exported if p], capsys) == (0, said)
    assert all(check_record(r).ok for r in records)
    # Ann's own seed was used (not drawn), the bots' were derived from the server seed.
    assert records[0]["fair"]["sources"] == ["client", "bot", "bot", "bot", "bot"]
    assert (
        app.deals.sent[records[0]["fair"]["commitment"]][1] == records[0]["fair"]["client_seeds"][0]
    )


async def test_a_reveal_covering_no_deal_this_client_saw_says_nothing() -> None:
    """A client that saw no deal of the match (it came after the end, or the match ended
    before dealing) has nothing to check: no "no deals to verify" over the table."""
    table = EngineTable(seed=3, dealer=4, me=0)
    app = SheepsheadApp(mode="play")
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, table.messages())
        before = len(app.model.log)
        await fed(pilot, [{"type": "seeds_revealed", "table": "t1", "commitments": []}])
        assert len(app.model.log) == before
        assert not [n for n in app._notifications if n.title == "Deals"]


async def test_a_deal_that_does_not_verify_is_said_in_red_everywhere() -> None:
    """A reveal that covers no hand this client saw: an error in the log, a red pop-up that
    stays a while, and the verdict in the match-over panel."""
    table = EngineTable(seed=3, dealer=4, me=0, hands_limit=1)
    app = SheepsheadApp(mode="play", settings=ClientSettings(trick_pause=0.0))
    async with app.run_test(size=SIZE) as pilot:
        await fed(pilot, [*table.messages(), *table.play_out(), table.match_over()])
        await wait_for(pilot, lambda: isinstance(app.screen, ResultScreen))
        await pilot.press("enter")  # the standings follow the last hand's result
        await wait_for(pilot, lambda: isinstance(app.screen, MatchOverScreen))
        await fed(pilot, [{"type": "seeds_revealed", "table": "t1", "commitments": []}])
        said = "hand 1 does not verify: no revealed seed covers it"
        assert [(e.kind, e.text) for e in app.model.log if e.text.startswith("Deals:")] == [
            ("error", f"Deals: {said}")
        ]
        toasts = [n for n in app._notifications if n.title == "Deals"]
        assert [(n.severity, n.message) for n in toasts] == [("error", said)]
        assert toasts[0].timeout >= 15
        await wait_for(pilot, lambda: f"Deals: {said}" in screen_text(app))


def test_a_rematch_excuses_no_unseen_commitment_for_where_the_client_came_in_before() -> None:
    """A client that came in at hand 3 of a match was not shown the commitments published
    before it came, and is not asked to have been; at the same table's next match it was
    there from the first deal, so a commitment it never saw is the server's fault again."""
    from client.fairplay import DealChecker
    from protocol.events import SeedsRevealed, State

    checker = DealChecker()
    checker.on_state(cast(State, {"type": "state", "table": "t1", "hand": 2, "view": {}}))
    unseen = {"commitment": "ab" * 32, "first_hand": 0, "client_seeds": [None] * 5}
    reveal = cast(SeedsRevealed, {"type": "seeds_revealed", "commitments": [unseen]})
    assert checker.check(reveal, []) == "no deals to verify"  # came after it: excused
    # The rematch's first deal comes from a commitment this client was never shown.
    again = {**unseen, "commitment": "cd" * 32}
    checker.on_state(cast(State, {"type": "state", "table": "t1", "hand": 0, "view": {}}))
    said = checker.check(cast(SeedsRevealed, {**reveal, "commitments": [again]}), [])
    assert checker.verified is False and "never published" in said, said


def test_a_reveal_rebuilt_from_the_servers_records_is_the_reveal() -> None:
    """A client that missed ``seeds_revealed`` rebuilds it from the records' ``fair`` maps (the
    bot runner does): with a second commitment (a seat taken during the match) it is the one
    the server sends, entry for entry."""
    from client.fairplay import reveal_from_records
    from server.tables.commitments import DealSeeds

    seeds = DealSeeds()
    seeds.commit(0.0)
    seeds.lock(0, bots=[1, 2, 3, 4])
    seeds.commit(1.0)
    seeds.lock(2, bots=[1, 2, 3])
    records = [{"fair": seeds.fair(n, revealed=True)} for n in range(4)]
    rebuilt = reveal_from_records("t1", records)
    assert rebuilt["commitments"] == seeds.reveal(4)
    # Records saved before the reveal carry no server seed: nothing to rebuild from.
    unrevealed = [{"fair": seeds.fair(n, revealed=False)} for n in range(4)]
    assert reveal_from_records("t1", unrevealed)["commitments"] == []


def test_back_after_a_rematch_each_match_excuses_only_what_was_dealt_while_away() -> None:
    """Ann came in at hand 3 of match 1 and dropped after hand 5; a rematch began meanwhile and
    she is back in its hand 2. The first match's commitments unseen here are excused before
    she came and after her last hand (someone sat down while she was away), not between; the
    new match's from its first hand, and each match's check is kept as its own."""
    from client.fairplay import DealChecker
    from protocol.events import Commitment, SeedsRevealed, State

    def state(hand: int) -> State:
        return cast(State, {"type": "state", "table": "t1", "hand": hand, "view": {}})

    def away_through_a_rematch() -> DealChecker:
        checker = DealChecker()
        checker.on_state(state(2))
        checker.on_match(0)
        checker.on_commitment(cast(Commitment, {"commitment": "cd" * 32}))
        checker.on_state(state(4))
        checker.reconnected()
        checker.on_state(state(1))
        checker.on_match(1)
        return checker

    def reveal(*firsts: tuple[str, int]) -> SeedsRevealed:
        entries = [
            {"commitment": quoted * 32, "first_hand": first, "client_seeds": [None] * 5}
            for quoted, first in firsts
        ]
        return cast(SeedsRevealed, {"type": "seeds_revealed", "commitments": entries})

    for earlier_first in (True, False):  # the new match's reveal may come before the records
        checker = away_through_a_rematch()
        checks: list[tuple[SeedsRevealed, int | None]] = [
            # Before she came (hand 1), seen (hand 4), while she was away (hand 7).
            (reveal(("ab", 0), ("cd", 3), ("ef", 6)), 0),
            # The new match's first commitment was published while she was away.
            (reveal(("12", 0)), None),
        ]
        for revealed, match in checks if earlier_first else checks[::-1]:
            assert checker.check(revealed, [], match=match) == "no deals to verify"
        assert checker.results == {0: (None, None), 1: (None, None)}
        assert checker.excused == [] and checker.match is None
    # A commitment dealing hand 5 of the first match was published while she was there.
    checker = away_through_a_rematch()
    said = checker.check(reveal(("ab", 0), ("cd", 3), ("ef", 4)), [], match=0)
    assert said == "hand 5 does not verify: its commitment was never published"
    assert checker.result_for(0) == (False, said) and checker.result_for(1) == (None, None)


def test_the_note_on_commitments_published_before_the_client_came_counts_them() -> None:
    """Back through a restarted door at hand 3, a client said "all 3 deals verified (the
    commitment dealing from hand 1, 3 was published before this client came, so it was not
    witnessed here)": two commitments, read as one hand numbered "1, 3"."""
    from client.fairplay import unwitnessed_note

    when = "before this client came"
    assert unwitnessed_note([1], when) == (
        " (the commitment dealing from hand 1 was published before this client came, so it"
        " was not witnessed here)"
    )
    assert unwitnessed_note([1, 3], when) == (
        " (the commitments dealing from hands 1 and 3 were published before this client"
        " came, so they were not witnessed here)"
    )
    assert "hands 1, 3 and 4 were" in unwitnessed_note([1, 3, 4], when)
