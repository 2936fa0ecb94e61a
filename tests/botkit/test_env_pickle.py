"""The training environment as researchers' tools handle it (botkit/env.py): pickled and
unpickled (Ray, multiprocessing, a checkpointed search tree), made through ``gymnasium.make``,
and PettingZoo's ``parallel_seed_test`` with ``illegal_reward``."""

from __future__ import annotations

import pickle
import random
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_seed_test

from botkit.env import (
    ActionIndexError,
    SingleAgentEnv,
    env,
    parallel_env,
    raw_env,
)
from engine.rules import RuleSet

GYMNASIUM_ID = "sheepshead/Sheepshead-v0"  # botkit.env.GYMNASIUM_ID, spelled out: the public id

MY_STRATEGY = str(Path(__file__).resolve().parents[2] / "examples" / "my_strategy.py")

_RANDOM_FILE = """
import random


class Random:
    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def choose(self, view, legal):
        return self.rng.choice(legal)
"""


@pytest.fixture
def random_file(tmp_path: Path) -> str:
    """A strategy file whose every choice comes from its generator (which pickling keeps)."""
    path = tmp_path / "random_file.py"
    path.write_text(_RANDOM_FILE)
    return str(path)


class _Cautious:
    """An opponent given as an object (pickled as itself), with a generator of its own."""

    name = "cautious"

    def __init__(self) -> None:
        self.rng = random.Random(3)

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        return self.rng.choice(legal)


def _observed(observation: Any) -> tuple[bytes, bytes] | None:
    if observation is None:
        return None
    return observation["observation"].tobytes(), observation["action_mask"].tobytes()


def _aec_trace(game: Any, rng: random.Random, decisions: int) -> list[Any]:
    """``decisions`` steps of an AEC environment (random legal actions, hands dealt again
    without a seed: from the environment's own generator), and what each showed."""
    trace: list[Any] = []
    while len(trace) < decisions:
        if not game.agents:
            game.reset()
        for agent in game.agent_iter():
            observation, reward, terminated, truncated, info = game.last()
            trace.append((agent, _observed(observation), reward, terminated, truncated, info))
            legal = game.legal_actions()
            game.step(rng.choice(legal) if legal else None)
            if len(trace) >= decisions:
                break
    trace.append(game.unwrapped.opponent_fallbacks)
    return trace


def _parallel_trace(game: Any, rng: random.Random, steps: int) -> list[Any]:
    trace: list[Any] = []
    observations: dict[str, Any] = {a: game.game.observe(a) for a in game.agents}
    while len(trace) < steps:
        if not game.agents:
            observations, _ = game.reset()
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
            for a, o in observations.items()
        }
        observations, rewards, terminations, truncations, infos = game.step(actions)
        shown = {a: _observed(o) for a, o in observations.items()}
        trace.append((actions, shown, rewards, terminations, truncations, infos))
    return trace


def _single_trace(game: SingleAgentEnv, rng: random.Random, steps: int) -> list[Any]:
    trace: list[Any] = []
    observation = game._observe()
    while len(trace) < steps:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = game.step(action)
        trace.append((action, _observed(observation), reward, terminated, truncated, info))
        if terminated:
            observation, info = game.reset()
            trace.append(("reset", _observed(observation), info))
    return trace


def _same_after_unpickling(game: Any, trace: Any, steps: int) -> None:
    """``game`` (mid-hand) and its unpickled copy play on alike: the same observations, masks,
    rewards and infos for the same actions, through hands dealt from the environment's own
    generator; the original is untouched by the copy."""
    copied = pickle.loads(pickle.dumps(game))
    assert trace(copied, random.Random(11), steps) == trace(game, random.Random(11), steps)


@pytest.mark.parametrize(
    "make",
    [
        lambda: raw_env(),
        lambda: env(),
        lambda: raw_env(opponents={1: "heuristic", 2: MY_STRATEGY, 4: _Cautious()}),
        lambda: env(RuleSet.from_preset("seed"), opponents={0: "random"}),
    ],
    ids=["raw_env", "env", "raw_env-opponents", "env-seed-rules"],
)
def test_an_aec_environment_unpickles_in_its_state_and_plays_on_alike(make: Any) -> None:
    game = make()
    game.reset(seed=5)
    _aec_trace(game, random.Random(2), 13)  # mid-hand, mid-trick
    _same_after_unpickling(game, _aec_trace, 150)
    fresh = make()  # before its first reset too
    _same_after_unpickling(fresh, lambda g, r, n: (g.reset(), _aec_trace(g, r, n)), 60)


def test_a_parallel_environment_unpickles_in_its_state_and_plays_on_alike() -> None:
    for game in (parallel_env(), parallel_env(opponents={3: "heuristic"}, illegal_reward=-1)):
        game.reset(seed=8)
        _parallel_trace(game, random.Random(4), 9)
        _same_after_unpickling(game, _parallel_trace, 100)


@pytest.mark.parametrize(
    "opponents",
    [
        "heuristic",
        "FILE",
        {1: MY_STRATEGY + ":pick_trumps=3", 2: "random", 3: "heuristic", 4: "FILE"},
    ],
    ids=["heuristic", "file", "mixed"],
)
def test_a_single_agent_environment_unpickles_in_its_state_and_plays_on_alike(
    opponents: Any, random_file: str
) -> None:
    if opponents == "FILE":
        opponents = random_file
    elif isinstance(opponents, dict):
        opponents = {s: random_file if o == "FILE" else o for s, o in opponents.items()}
    game = SingleAgentEnv(seat=0, opponents=opponents, illegal_reward=-5)
    game.reset(seed=21)
    _single_trace(game, random.Random(6), 4)
    _same_after_unpickling(game, _single_trace, 60)


def test_a_strategy_file_opponent_unpickles_where_its_module_is_unknown(random_file: str) -> None:
    # A strategy file is loaded as a module named per process (by a hash of its path): another
    # process (spawned, a Ray worker) does not have it, so the pickle may not name it.
    game = SingleAgentEnv(opponents={1: random_file, 2: MY_STRATEGY, 3: "random", 4: "random"})
    game.reset(seed=3)
    data = pickle.dumps(game)
    loaded = {n: m for n, m in sys.modules.items() if n.startswith("sheepshead_user_strategy_")}
    for name in loaded:
        del sys.modules[name]
    try:
        copied = pickle.loads(data)
    finally:
        sys.modules.update(loaded)
    assert _single_trace(copied, random.Random(1), 40) == _single_trace(game, random.Random(1), 40)


def test_an_unpickled_environment_keeps_its_attributes_and_sizes_its_cache() -> None:
    game = raw_env(mask_cache_size=64, opponents={2: "random"})
    game.reset(seed=1)
    _aec_trace(game, random.Random(1), 200)
    assert game.mask_cache.play_masks
    copied = pickle.loads(pickle.dumps(game))
    assert set(vars(copied)) == set(vars(game))  # under 30: tests/botkit/test_env.py
    assert copied.mask_cache.limit == 64 and not copied.mask_cache.play_masks  # a cache: empty
    assert copied.hand is not game.hand and copied.hand.actions == game.hand.actions
    clone = game.clone()  # clones still share the cache (copy.copy is not pickling's state)
    assert clone.mask_cache is game.mask_cache


def test_gymnasium_make_builds_the_single_agent_environment_with_its_keywords() -> None:
    seed_rules = RuleSet.from_preset("seed")
    made = gymnasium.make(
        GYMNASIUM_ID, seat=2, opponents="random", rules=seed_rules, illegal_reward=-10
    )
    single = made.unwrapped
    assert isinstance(single, SingleAgentEnv)
    assert (single.agent, single.illegal_reward, single.game.rules) == ("seat_2", -10, seed_rules)
    assert single.game.opponents == dict.fromkeys((0, 1, 3, 4), "random")
    observation, _ = made.reset(seed=1)
    assert observation["action_mask"].any()
    # With a spec, check_env makes the environment in each render mode instead of warning that
    # it could not.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(GYMNASIUM_ID, illegal_reward=-10, render_mode="ansi").unwrapped)
    assert not [w for w in caught if "render modes" in str(w.message)], caught
    assert "botkit.env" in gymnasium.spec(GYMNASIUM_ID).entry_point  # type: ignore[operator]
    assert isinstance(gymnasium.make("botkit.env:" + GYMNASIUM_ID).unwrapped, SingleAgentEnv)


def test_pettingzoo_s_parallel_seed_test_passes_when_an_illegal_action_ends_the_hand() -> None:
    parallel_seed_test(lambda: parallel_env(illegal_reward=-1))
    game = parallel_env(opponents={4: "heuristic"}, illegal_reward=-3)
    observations, _ = game.reset(seed=2)
    agent = game.game.agent_selection
    illegal = int(np.flatnonzero(observations[agent]["action_mask"] == 0)[0])
    live = list(game.agents)
    before = game.game.record()
    _, rewards, terminations, truncations, infos = game.step(dict.fromkeys(live, illegal))
    assert rewards == {a: (-3 if a == agent else 0) for a in live}
    assert all(terminations.values()) and not any(truncations.values()) and not game.agents
    assert infos[agent]["illegal_action"] == illegal
    assert not any("illegal_action" in infos[a] for a in live if a != agent)
    assert game.game.record() == before  # nothing applied
    legal = int(np.flatnonzero(observations[agent]["action_mask"])[0])
    with pytest.raises(ValueError, match="no agent is live"):  # the hand ended: nothing more
        game.step(dict.fromkeys(live, legal))
    assert game.game.record() == before
    with pytest.raises(ValueError, match="no agent is live"):
        parallel_env().step({"seat_0": 0})  # before any reset
    strict = parallel_env()  # the default: it raises, and changes nothing
    observations, _ = strict.reset(seed=2)
    agent = strict.game.agent_selection
    illegal = int(np.flatnonzero(observations[agent]["action_mask"] == 0)[0])
    with pytest.raises(ActionIndexError):
        strict.step({agent: illegal})
    assert strict.agents
    for wrong in ("-1", True):
        with pytest.raises(ValueError, match="illegal_reward"):
            parallel_env(illegal_reward=wrong)  # type: ignore[arg-type]
