"""The training environment's researcher-facing API (botkit/env.py): the default rules, the
strict action check, built-in opponents, the single-agent Gymnasium wrapper, the parallel
environment, clones and the perfect-information state."""

from __future__ import annotations

import copy
import random
import re
import warnings
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test

from botkit.actions import ACTION_COUNT, PLAY_BASE
from botkit.encode import OBSERVATION_SIZE, encode_view
from botkit.env import (
    STATE_SIZE,
    ActionIndexError,
    SingleAgentEnv,
    env,
    parallel_env,
    raw_env,
)
from engine.bots import HeuristicStrategy
from engine.cards import cards_in
from engine.errors import IllegalActionError, RuleOptionError
from engine.record import hand_from_record
from engine.rules import RuleSet
from engine.view import seat_view


def test_every_constructor_defaults_to_the_wisconsin_rules() -> None:
    wisconsin = RuleSet.from_preset("wisconsin")
    assert raw_env().rules == wisconsin
    assert env().unwrapped.rules == wisconsin
    assert parallel_env().game.rules == wisconsin
    assert SingleAgentEnv().game.rules == wisconsin
    game = raw_env()
    game.reset(seed=1)
    assert game.record()["rules"]["preset"] == "wisconsin"


def test_rules_may_be_a_presets_name_as_openspiel_takes_them() -> None:
    seed = RuleSet.from_preset("seed")
    assert raw_env("seed").rules == seed
    assert env(rules="seed").unwrapped.rules == seed
    assert parallel_env("tavern").game.rules == RuleSet.from_preset("tavern")
    assert SingleAgentEnv(rules="seed").game.rules == seed
    made = gymnasium.make("sheepshead/Sheepshead-v0", rules="seed", opponents="random")
    assert made.unwrapped.game.rules == seed
    with pytest.raises(RuleOptionError, match="wisconsin"):  # the message lists the presets
        raw_env("wisconsn")
    with pytest.raises(TypeError, match="RuleSet"):
        raw_env({"preset": "seed"})  # type: ignore[arg-type]


_NOT_INDICES = (1.7, "1", True, np.float64(1.0), np.bool_(True), -1, 667, 10**9)
_NOT_INTEGER_SCALARS = (np.array(True), np.array(1.0), np.array([1]))  # 0-d integer ones are


@pytest.mark.parametrize("bad", [*_NOT_INDICES, *_NOT_INTEGER_SCALARS], ids=repr)
def test_step_refuses_anything_but_an_int_index_in_range(bad: Any) -> None:
    game = raw_env()
    game.reset(seed=2, options={"deal_seed": 1, "dealer": 0})
    assert game.legal_actions() == (0, 1)  # pass or pick: 1 would be legal
    before = game.record()
    with pytest.raises(ActionIndexError, match=re.escape(repr(bad))) as error:
        game.step(bad)
    assert error.value.index is bad
    assert isinstance(error.value, IllegalActionError) and isinstance(error.value, ValueError)
    assert game.record() == before and game.agent_selection == "seat_1"


def test_an_illegal_index_is_echoed_and_numpy_integers_are_taken() -> None:
    game = raw_env()
    game.reset(options={"deal_seed": 1, "dealer": 0})
    with pytest.raises(ActionIndexError, match=rf"action {PLAY_BASE} \(") as error:
        game.step(PLAY_BASE)
    assert error.value.index == PLAY_BASE
    # The message says what would have been taken, and where a policy finds it.
    assert "legal now: 0, 1 (legal_actions(), or the observation's action_mask)" in str(error.value)
    game.step(np.int64(0))  # a numpy integer, as the mask's nonzero gives: taken
    assert game.record()["actions"][0]["action"] == "pass"
    # A 0-d integer array (Discrete.contains takes one; Stable-Baselines3's predict gives one
    # for a single observation) was refused as no int.
    game.step(np.array(0, dtype=np.int32))
    assert game.record()["actions"][1]["action"] == "pass"


def test_the_action_space_samples_within_the_mask() -> None:
    game = env()
    game.reset(seed=3)
    agent = game.agent_selection
    observation = game.last()[0]
    space = game.action_space(agent)
    for _ in range(20):
        assert space.sample(mask=observation["action_mask"]) in game.legal_actions()


def test_pettingzoo_s_render_test_passes(capsys: pytest.CaptureFixture[str]) -> None:
    # It builds the environment with render_mode="human", which was refused.
    render_test(lambda render_mode=None: env(render_mode=render_mode))
    assert capsys.readouterr().out.startswith("Rules: ")  # "human" prints the hand


class _FirstLegal:
    name = "first"

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        return legal[0]


def _play(game: Any, rng: random.Random, hands: int, seed: int) -> list[dict[str, Any]]:
    records = []
    game.reset(seed=seed)
    for number in range(hands):
        if number:
            game.reset()
        for agent in game.agent_iter():
            _, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            assert game.unwrapped.hand.turn == int(agent[-1])  # opponents never surface
            game.step(rng.choice(game.legal_actions()))
        records.append(game.unwrapped.record())
    return records


def test_opponents_play_inside_step_and_reset() -> None:
    opponents = {1: "heuristic", "seat_2": "random", 3: "examples/my_strategy.py", 4: _FirstLegal()}
    game = raw_env(opponents=opponents)
    assert game.possible_agents == ["seat_0"]
    records = _play(game, random.Random(1), 30, seed=4)
    again = _play(raw_env(opponents=opponents), random.Random(1), 30, seed=4)
    assert records == again  # seeded: the opponents play the same hands the same way
    # Seat 1 played exactly what the heuristic plays in its place.
    checked = 0
    for record in records:
        for k, action in enumerate(record["actions"]):
            if action["seat"] == 1:
                view = seat_view(hand_from_record(record, stop_at=k), 1)
                assert HeuristicStrategy().choose(view, view["legal"]) == action
                checked += 1
    assert checked > 30
    assert game.opponent_fallbacks == 0


def test_opponents_pass_the_api_test_and_bad_ones_are_refused() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(opponents={0: "heuristic", 2: "random"}), num_cycles=300)
    for bad, why in (
        ({5: "random"}, "no seat"),
        ({"seat_9": "random"}, "no seat"),
        ({1: "no-such-strategy"}, "unknown strategy"),
        ({1: 42}, "no strategy"),
        (dict.fromkeys(range(5), "random"), "at least one seat"),
    ):
        with pytest.raises(ValueError, match=why):
            raw_env(opponents=bad)  # type: ignore[arg-type]


def test_the_single_agent_environment_plays_one_seat_against_strategies() -> None:
    single = SingleAgentEnv(seat=2, opponents="heuristic")
    rng = np.random.default_rng(3)
    totals = []
    for episode in range(40):
        observation, info = single.reset(seed=episode)
        assert set(info) == {"deal_seed", "dealer"}
        assert single.observation_space.contains(observation)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            observation, reward, done, truncated, _ = single.step(int(rng.choice(legal)))
            assert not truncated
            total += reward
        payouts = single.game.hand.result().payouts
        assert payouts is not None and total == payouts[2]
        totals.append(total)
    assert any(totals)
    # Seeded: the same seed, the same hand.
    first = SingleAgentEnv(opponents={1: "random", 2: "random", 3: "heuristic", 4: "heuristic"})
    second = SingleAgentEnv(opponents="random")
    assert first.reset(seed=9)[1] == second.reset(seed=9)[1]
    with pytest.raises(ValueError, match="every seat but 0"):
        SingleAgentEnv(opponents={1: "random"})


@pytest.mark.filterwarnings("ignore:.*render:UserWarning")  # no fps, no registered spec
def test_gymnasium_s_check_env_passes_when_an_illegal_action_ends_the_episode() -> None:
    # check_env steps unmasked samples: strict, the wrapper could only raise.
    check_env(SingleAgentEnv(opponents="random", illegal_reward=-10, render_mode="ansi"))
    single = SingleAgentEnv(opponents="random", illegal_reward=-10)
    observation, _ = single.reset(seed=4)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = single.game.record()
    observation, reward, terminated, truncated, info = single.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-10, True, False, illegal)
    assert single.game.record() == before  # nothing played
    for bad in (1.5, True):
        single.reset(seed=4)  # each ended its episode
        assert single.step(bad)[4]["illegal_action"] is bad
    with pytest.raises(ActionIndexError):  # strict by default
        _strict_step(illegal)
    with pytest.raises(ValueError, match="illegal_reward"):
        SingleAgentEnv(illegal_reward="-1")  # type: ignore[arg-type]


def test_a_masking_learner_reads_the_mask_through_gymnasium_s_wrappers() -> None:
    # sb3-contrib's MaskablePPO asks every environment for action_masks(), through the
    # wrappers gymnasium.make adds (get_wrapper_attr), before each step; Gymnasium's passive
    # checker warns when two steps hand out the same info dict.
    made = gymnasium.make("sheepshead/Sheepshead-v0", opponents="random")
    action_masks = made.get_wrapper_attr("action_masks")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        observation, _ = made.reset(seed=5)
        infos, done = [], False
        while not done:
            mask = action_masks()
            assert mask.dtype == np.bool_
            assert (mask == observation["action_mask"].astype(bool)).all()
            observation, _, done, _, info = made.step(int(np.flatnonzero(mask)[0]))
            infos.append(info)
    assert len(infos) > 1 and len({id(info) for info in infos}) == len(infos)
    assert not action_masks().any()  # the hand is over: nothing is legal


def _strict_step(action: int) -> None:
    single = SingleAgentEnv(opponents="random")
    single.reset(seed=4)
    single.step(action)


def test_the_parallel_environment_passes_pettingzoo_s_tests() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(), num_cycles=200)
        parallel_api_test(parallel_env(opponents={4: "heuristic"}), num_cycles=200)
    game = parallel_env()
    observations, _ = game.reset(seed=1)
    rewards: dict[str, float] = {}
    while game.agents:
        acting = [a for a, o in observations.items() if o["action_mask"].any()]
        assert len(acting) == 1
        legal = np.flatnonzero(observations[acting[0]]["action_mask"])
        observations, rewards, terminated, _, _ = game.step(
            {a: int(legal[0]) if a == acting[0] else 0 for a in game.agents}
        )
    assert all(terminated.values()) and sum(rewards.values()) == 0
    assert list(rewards.values()) == list(game.game.hand.result().payouts or ())
    # Seeded (PettingZoo's parallel_seed_test samples actions without the mask, which this
    # environment refuses: the same check with the mask).
    runs = []
    for _ in range(2):
        game = parallel_env(opponents={2: "random"})
        observations, _ = game.reset(seed=42)
        sampler = np.random.default_rng(0)
        seen = []
        while game.agents:
            actions = {
                a: int(sampler.choice(np.flatnonzero(o["action_mask"])))
                for a, o in observations.items()
                if o["action_mask"].any()
            }
            observations, rewards, _, _, _ = game.step(actions)
            seen.append((actions, {a: o["observation"].tobytes() for a, o in observations.items()}))
        runs.append((seen, rewards))
    assert runs[0] == runs[1]


def test_a_clone_is_independent_and_deepcopy_works() -> None:
    rng = random.Random(5)
    for make in (raw_env, env, lambda: raw_env(opponents={3: "heuristic"})):
        game = make()
        game.reset(seed=6)
        for _ in range(14):
            game.step(rng.choice(game.legal_actions()))
        original = game.unwrapped.record()
        twin = game.clone()
        deep = copy.deepcopy(game)
        assert twin.unwrapped.record() == deep.unwrapped.record() == original
        actions = []
        while twin.unwrapped.hand.turn is not None:
            action = rng.choice(twin.legal_actions())
            actions.append(action)
            twin.step(action)
        assert game.unwrapped.record() == original  # untouched by the clone's play
        for agent in game.possible_agents:
            np.testing.assert_array_equal(
                game.observe(agent)["observation"], deep.observe(agent)["observation"]
            )
        for action in actions:
            game.step(action)
            deep.step(action)
        assert game.unwrapped.record() == twin.unwrapped.record() == deep.unwrapped.record()
        game.reset()
        twin.reset()
        assert game.unwrapped.record() == twin.unwrapped.record()  # the seed sequence copied


@pytest.mark.parametrize("preset", ["wisconsin", "tavern"])
def test_a_determinized_clone_keeps_what_the_seat_saw_and_deals_the_rest(preset: str) -> None:
    # For ISMCTS: a world of the seat's information set, as an environment to step.
    rng = random.Random(7)
    rules = RuleSet.from_preset(preset)
    moved = 0
    for make in (raw_env, env, lambda rules: raw_env(rules, opponents={2: "heuristic"})):
        game = make(rules)
        for seed in range(6):
            game.reset(seed=seed)
            for _ in range(rng.randrange(40)):
                if game.unwrapped.hand.turn is None:
                    break
                game.step(rng.choice(game.legal_actions()))
            hand = game.unwrapped.hand
            original = game.unwrapped.record()
            for seat in {hand.turn, rng.randrange(5)}:
                world = game.determinize(seat, rng)
                assert type(world) is type(game)
                if seat is None:  # the hand is over: nothing hidden
                    assert world.unwrapped.record() == original
                    continue
                agent = f"seat_{seat}"
                mine = world.unwrapped._tracker.observe(seat)
                np.testing.assert_array_equal(mine, game.unwrapped._tracker.observe(seat))
                # The same history (the bury and a face-down card may differ: hidden).
                kinds = [type(a) for a in world.unwrapped.hand.actions]
                assert kinds == [type(a) for a in hand.actions]
                assert world.agent_selection == game.agent_selection
                if seat == hand.turn:  # its legal actions too
                    assert world.legal_actions() == game.legal_actions()
                moved += world.unwrapped.hand.hands != hand.hands
                for s in range(5):  # every seat's observation follows the new deal
                    view = seat_view(world.unwrapped.hand, s)
                    np.testing.assert_array_equal(
                        world.unwrapped._tracker.observe(s), encode_view(view), err_msg=agent
                    )
                while world.unwrapped.hand.turn is not None:
                    world.step(rng.choice(world.legal_actions()))
                assert sum(world.unwrapped.hand.result().payouts) == 0
                assert game.unwrapped.record() == original  # untouched
    assert moved > 20  # the hidden cards were dealt again


def test_state_holds_every_hidden_card() -> None:
    game = raw_env()
    game.reset(seed=3)
    rng = random.Random(3)
    while game.hand.turn is not None:
        state = game.state()
        assert state.shape == (STATE_SIZE,) and game.state_space.contains(state)
        hand = game.hand
        for seat in range(5):
            row = state[seat * OBSERVATION_SIZE : (seat + 1) * OBSERVATION_SIZE]
            np.testing.assert_array_equal(row, game.observe(f"seat_{seat}")["observation"])
            assert set(np.flatnonzero(row[:32])) == set(cards_in(hand.hands[seat]))
        assert set(np.flatnonzero(state[5 * OBSERVATION_SIZE :])) == set(cards_in(hand.blind))
        game.step(rng.choice(game.legal_actions()))


def test_the_checked_environment_still_enforces_the_order() -> None:
    game = env()
    with pytest.raises(AttributeError):
        game.agent_selection  # noqa: B018
    with pytest.raises(AttributeError):
        game.last()
    game.reset(seed=1)
    loop = game.agent_iter()
    next(loop)
    with pytest.raises(AssertionError, match="need to call step"):
        next(loop)
    assert ACTION_COUNT not in game.legal_actions()


class _Uncopyable(_FirstLegal):
    def __init__(self) -> None:
        self.module = random  # modules cannot be deep-copied


def test_a_clone_shares_an_opponent_that_cannot_be_copied() -> None:
    strategy = _Uncopyable()
    game = raw_env(opponents={1: strategy})
    game.reset(seed=1)
    twin = game.clone()
    assert twin._bots[1] is strategy
    while twin.hand.turn is not None:
        twin.step(twin.legal_actions()[0])
    assert game.hand.turn is not None


def test_the_checked_environment_s_step_and_limited_loop_keep_pettingzoo_s_checks() -> None:
    game = env()
    with pytest.raises(AssertionError, match="reset"):
        game.step(0)  # before any reset: PettingZoo's error
    game.reset(seed=2)
    seen = list(_steps(game, game.agent_iter(max_iter=3)))
    assert len(seen) == 3  # a limited loop stops at its count
    loop = game.agent_iter(max_iter=5)
    next(loop)
    with pytest.raises(AssertionError, match="need to call step"):
        next(loop)  # and still wants a step between agents
    game.step(game.legal_actions()[0])
    for _agent in _steps(game, game.agent_iter()):
        pass
    assert not game.agents
    game.step(None)  # the hand is over and every agent left: PettingZoo's warning, no error
    assert not game.agents


def _steps(game: Any, loop: Any) -> Any:
    """Each agent of ``loop``, after stepping it (its first legal action, or None at the end)."""
    for agent in loop:
        _, _, terminated, truncated, _ = game.last()
        legal = game.legal_actions()
        game.step(None if terminated or truncated else legal[0])
        yield agent


def test_the_training_docs_python_examples_run_as_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An outsider copies these blocks: each ran into a NameError (``action``, ``actions``,
    # ``MyPolicy``) or a missing strategy file before they were made whole. The tournament's
    # block is cut to 4 deals in this process (the figures are not the point here).
    from pathlib import Path

    from engine.bots.base import STRATEGIES

    text = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text("utf-8")
    section = text.split("## Training: a PettingZoo environment", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 2  # the opponents' loops and the tournament from Python
    tournament = blocks[1].replace("deals=300", "deals=4").replace("jobs=2", "jobs=1")
    assert tournament != blocks[1]
    try:
        for block in (blocks[0], tournament):
            exec(compile(block, "docs/bots.md", "exec"), {"__name__": "docs_example"})
    finally:
        STRATEGIES.pop("mine", None)
    # Run as a script, the tournament's block showed nothing: it ended on a bare expression.
    shown = capsys.readouterr().out
    assert re.search(r"^mine [+-]\d+\.\d{3}; mine - random [+-]\d+\.\d{3} \[.+\]$", shown, re.M)
