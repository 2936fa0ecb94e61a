"""botkit/openspiel.py: Sheepshead as the OpenSpiel game ``python_sheepshead``.

OpenSpiel's own checker of a game (``pyspiel.random_sim_test``), seeded play, the tensors
against the training environment's observations, no other seat's cards in a player's tensor
or strings, resampling that keeps the player's information state (OpenSpiel's IS-MCTS asserts
it too), the legal actions and returns against the engine's, and the IS-MCTS example."""

from __future__ import annotations

import random
import re
import runpy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from botkit.actions import ACTION_COUNT, ACTIONS, action_index  # noqa: E402
from botkit.encode import BLIND_AT, BURIED_AT, HAND_AT, OBSERVATION_SIZE  # noqa: E402
from botkit.env import raw_env  # noqa: E402
from botkit.openspiel import (  # noqa: E402
    GAME_NAME,
    SheepsheadState,
    dealt_state,
    env_deals,
    payout_bound,
    resample,
)
from engine.cards import CARD_CODES  # noqa: E402
from engine.rules import RuleSet  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openspiel_ismcts.py"
PRESETS = ("wisconsin", "tavern", "seed")


def load(rules: str = "wisconsin") -> Any:
    return pyspiel.load_game(GAME_NAME, {"rules": rules})


def states(game: Any, seed: int) -> Iterator[SheepsheadState]:
    """Every state of one hand played at random (chance included), the terminal one last."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while True:
        yield state
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_the_game_loads_with_the_engines_shape() -> None:
    game = load()
    assert pyspiel.load_game(GAME_NAME).get_parameters() == {"rules": "wisconsin"}
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 5
    assert game.num_distinct_actions() == ACTION_COUNT
    assert game.information_state_tensor_shape() == [OBSERVATION_SIZE]
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    assert game.max_utility() == payout_bound(RuleSet.from_preset("wisconsin")) == 24
    with pytest.raises(Exception, match="rules must be one of"):
        pyspiel.load_game(GAME_NAME, {"rules": "nonesuch"})


@pytest.mark.parametrize("rules", PRESETS)
def test_openspiels_own_checks_pass(rules: str) -> None:
    """OpenSpiel's C++ checks of a game (legal actions and masks, chance outcomes summing to
    one, observations and information states of every player at every state, clones, undo,
    serialization through the history, returns within the utility bounds and zero-sum)."""
    pyspiel.random_sim_test(load(rules), num_sims=8, serialize=True, verbose=False)


def test_the_same_seed_plays_the_same_hands() -> None:
    game = load()

    def run(seed: int) -> tuple[list[int], list[float]]:
        state = game.new_initial_state()
        bots = [uniform_random.UniformRandomBot(p, np.random.RandomState(seed)) for p in range(5)]
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
        return state.history(), returns

    assert run(3) == run(3)
    assert run(3)[0] != run(4)[0]


def test_dealt_state_deals_the_environments_hands() -> None:
    game = load()
    env = raw_env()
    env.reset(seed=7)
    for number, (deal_seed, dealer) in enumerate(env_deals(7, 3)):
        if number:
            env.reset()
        assert (env.infos["seat_0"]["deal_seed"], env.infos["seat_0"]["dealer"]) == (
            deal_seed,
            dealer,
        )
        state = dealt_state(game, deal_seed, dealer)
        assert state.hand is not None
        assert (state.hand.deal, state.hand.dealer) == (env.hand.deal, env.hand.dealer)
        assert len(state.history()) == 33  # the dealer and 32 cards, all chance


@pytest.mark.parametrize("rules", PRESETS)
def test_legal_actions_and_returns_are_the_engines(rules: str) -> None:
    game = load(rules)
    for seed in range(6):
        for state in states(game, seed):
            hand = state.hand
            if state.is_chance_node():
                assert state.legal_actions() == [a for a, _ in state.chance_outcomes()]
                continue
            assert hand is not None
            if state.is_terminal():
                assert state.returns() == [float(p) for p in hand.result().payouts or ()]
                assert sum(state.returns()) == 0
                continue
            engine = sorted(action_index(a) for a in hand.legal_actions())
            assert state.current_player() == hand.turn
            assert state.legal_actions() == engine
            mask = state.legal_actions_mask()
            assert [i for i, m in enumerate(mask) if m] == engine


@pytest.mark.parametrize("rules", PRESETS)
def test_tensors_are_the_environments_observations(rules: str) -> None:
    """Both tensors of every player after every action equal the observation the training
    environment (its fast path, checked against botkit.encode's reference) gives that seat."""
    game = load(rules)
    env = raw_env(RuleSet.from_preset(rules))
    rng = random.Random(1)
    for deal_seed, dealer in env_deals(11, 4):
        state = dealt_state(game, deal_seed, dealer)
        env.reset(options={"deal_seed": deal_seed, "dealer": dealer})
        while True:
            for player in range(5):
                expected = env.observe(f"seat_{player}")["observation"]
                assert np.array_equal(state.information_state_tensor(player), expected)
                assert np.array_equal(state.observation_tensor(player), expected)
            if state.is_terminal():
                break
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            env.step(action)


def _hidden_cards(state: SheepsheadState, player: int) -> set[int]:
    """The cards ``player`` has not seen, in a hand under way: the others' cards in hand,
    and the blind and bury unless it picked; but the called card (named in the call) and the
    cards its legal actions name (the aces a picker may call, wherever they are)."""
    hand = state.hand
    assert hand is not None
    hidden = set()
    for seat in range(5):
        if seat != player:
            hidden |= {c for c in range(32) if hand.hands[seat] >> c & 1}
    if hand.picker is None:  # the blind, not picked yet
        hidden |= {c for c in range(32) if hand.deal.blind >> c & 1}
    elif hand.picker != player:  # the blind is the picker's cards now, and the bury
        hidden |= {c for c in range(32) if hand.buried >> c & 1}
    hidden.discard(hand.called)  # type: ignore[arg-type]
    if state.current_player() == player:
        for index in state.legal_actions():
            named = ACTIONS[index].get("card")
            hidden.discard(-1 if named is None else CARD_CODES.index(named))
    return hidden


def test_no_other_seats_cards_in_a_players_tensor_or_strings() -> None:
    game = load("tavern")
    checked = 0
    for seed in range(6):
        for state in states(game, seed):
            hand = state.hand
            if hand is None or state.is_terminal():
                continue
            for player in range(5):
                hidden = {CARD_CODES[c] for c in _hidden_cards(state, player)}
                for text in (
                    state.information_state_string(player),
                    state.observation_string(player),
                ):
                    assert not hidden & set(re.findall(r"[0-9A-Z]+", text)), text
                tensor = np.asarray(state.observation_tensor(player))
                mine = {c for c in range(32) if hand.hands[player] >> c & 1}
                assert set(np.flatnonzero(tensor[HAND_AT : HAND_AT + 32])) == mine
                if hand.picker != player:
                    assert not tensor[BLIND_AT : BLIND_AT + 32].any()
                    assert not tensor[BURIED_AT : BURIED_AT + 32].any()
                checked += 1
    assert checked > 500


def test_while_dealing_a_player_sees_only_its_own_cards() -> None:
    state = next(s for s in states(load(), 2) if len(s.history()) == 20)
    for player in range(5):
        mine = state.dealt_to(player)
        others = {CARD_CODES[c] for c in state.deck} - {CARD_CODES[c] for c in mine}
        text = state.information_state_string(player)
        assert not others & set(re.findall(r"[0-9A-Z]+", text))
        tensor = np.asarray(state.information_state_tensor(player))
        assert sorted(np.flatnonzero(tensor[HAND_AT : HAND_AT + 32])) == sorted(mine)


@pytest.mark.parametrize("rules", ["wisconsin", "tavern"])
def test_resampling_keeps_the_players_information_state(rules: str) -> None:
    game = load(rules)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = 0
    for seed in range(4):
        for number, state in enumerate(states(game, seed)):
            if number % 5 or state.is_terminal() or state.dealer is None:
                continue
            for player in range(5):
                world = state.resample_from_infostate(player, sampler)
                info = state.information_state_string(player)
                assert world.information_state_string(player) == info
                assert world.observation_string(player) == state.observation_string(player)
                assert np.array_equal(
                    world.information_state_tensor(player), state.information_state_tensor(player)
                )
                if state.current_player() == player:
                    assert world.legal_actions() == state.legal_actions()
                # A history of its own, from the start: replayed, it is the same world.
                again = game.new_initial_state()
                for action in world.history():
                    again.apply_action(action)
                assert str(again) == str(world)
                moved += state.hand is not None and str(world) != str(state)
    assert moved > 100  # in play too, the hidden cards are dealt again, not copied


def test_resampling_is_seeded_by_its_generator() -> None:
    state = next(s for s in states(load(), 5) if len(s.history()) == 40)
    worlds = [str(resample(state, 2, random.Random(9))) for _ in range(2)]
    assert worlds[0] == worlds[1]
    assert str(resample(state, 2, random.Random(10))) != worlds[0]


def test_openspiels_ismcts_searches_the_game() -> None:
    """OpenSpiel's Python IS-MCTS, with the game's own resample_from_infostate: it asserts
    that every world it samples has the root's information state."""
    game = load()
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
        uct_c=8.0,
        max_simulations=20,
        random_state=np.random.RandomState(2),
    )
    for state in list(states(game, 1))[33::4]:
        if not state.is_terminal():
            assert bot.step(state) in state.legal_actions()


def test_the_ismcts_example_plays_hands(capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(EXAMPLE))["main"]
    result = main(["--hands", "2", "--simulations", "10", "--seed", "3"])
    assert set(result) == {"ismcts", "random", "difference", "seconds"}
    out = capsys.readouterr().out
    assert "IS-MCTS (10 simulations)" in out and "uniform random" in out
