"""What outside learning libraries do with the training environment (botkit/env.py), in the ways
they do it: Stable-Baselines3's ``make_vec_env``, Gymnasium's checkers and vector autoreset, a
learner that forgets to reset. Each test mimics the library's own calls, without installing it."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("gymnasium")

import gymnasium
import numpy as np

from botkit.actions import ACTION_COUNT
from botkit.env import (
    GYMNASIUM_ID,
    ActionIndexError,
    RenderModeError,
    SingleAgentEnv,
    parallel_env,
    raw_env,
)


def test_stable_baselines3_s_make_vec_env_makes_it_again_without_a_render_mode() -> None:
    # make_vec_env (stable_baselines3/common/env_util.py) asks for render_mode="rgb_array" and
    # retries without it on a TypeError only: a ValueError ended the researcher's script there.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make's own note on the unlisted mode
        try:
            made = gymnasium.make(GYMNASIUM_ID, render_mode="rgb_array", opponents="random")
        except TypeError:
            made = gymnasium.make(GYMNASIUM_ID, opponents="random")
    assert made.unwrapped.render_mode is None
    for build in (raw_env, parallel_env, SingleAgentEnv):
        with pytest.raises(RenderModeError, match="'rgb_array'") as refused:
            build(render_mode="rgb_array")
        assert isinstance(refused.value, ValueError)  # as before, for who catches that


def test_a_step_without_a_hand_asks_for_a_reset_and_changes_nothing() -> None:
    # Constructed directly (no gymnasium.make, so no OrderEnforcing wrapper), a step before the
    # first reset played the seat to act of a placeholder hand, and a step after the episode
    # ended answered in PettingZoo's words ("when an agent is dead...") or, after an illegal
    # action ended it, played on in the hand the episode had left.
    single = SingleAgentEnv(opponents="random", illegal_reward=-1, render_mode="ansi")
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"reset\(\) before the first step"):
        single.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded, match="no hand to show"):
        single.render()  # the placeholder hand it had before any deal
    assert not single.game.hand.actions
    observation, _ = single.reset(seed=3)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    assert single.step(illegal)[2]  # terminated by the illegal action
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    before = single.game.record()
    with pytest.raises(gymnasium.error.ResetNeeded, match="this episode ended"):
        single.step(legal)
    assert single.game.record() == before
    observation, _ = single.reset(seed=3)
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = single.step(int(np.flatnonzero(observation["action_mask"])[0]))
        observation = single._observe()
    with pytest.raises(gymnasium.error.ResetNeeded, match="this episode ended"):
        single.step(0)
    assert "Hand not finished" not in (single.render() or "")  # the hand that ended, shown
    single.reset(seed=4)
    single.step(int(np.flatnonzero(single.action_masks())[0]))  # a reset is all it needs


def test_gymnasium_s_check_env_passes_without_a_warning() -> None:
    # It warned that no render_fps was declared, and, for an environment built directly, that
    # it could not test the other render modes for want of a spec.
    from gymnasium.utils.env_checker import check_env

    built = SingleAgentEnv(opponents="random", illegal_reward=-10, render_mode="ansi")
    made = gymnasium.make(GYMNASIUM_ID, opponents="random", illegal_reward=-10).unwrapped
    for single in (built, made):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(single)
        assert not [str(w.message) for w in caught]
    assert built.spec is not None and built.spec.kwargs["opponents"] == "random"
    assert made.spec is not None and made.spec.kwargs == {
        "opponents": "random",
        "illegal_reward": -10,
    }


def test_an_illegal_action_s_error_names_the_penalty_a_mask_blind_sampler_needs() -> None:
    # check_env(SingleAgentEnv()) and parallel_seed_test(parallel_env) fail at an unmasked
    # sample: the error says how to have such a step end the episode instead.
    single = SingleAgentEnv(opponents="random")
    observation, _ = single.reset(seed=2)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ActionIndexError, match=r"SingleAgentEnv\(illegal_reward=R\)") as refused:
        single.step(illegal)
    assert refused.value.index == illegal and refused.value.code == "illegal_action"
    with pytest.raises(ActionIndexError, match=r"SingleAgentEnv\(illegal_reward=R\)"):
        single.step(0.5)  # type: ignore[arg-type]
    single.step(int(np.flatnonzero(observation["action_mask"])[0]))  # nothing changed
    game = parallel_env()
    game.reset(seed=2)
    with pytest.raises(ActionIndexError, match=r"parallel_env\(illegal_reward=R\)"):
        game.step(dict.fromkeys(game.agents, ACTION_COUNT))


def test_the_wrappers_list_the_legal_actions_as_the_environment_does() -> None:
    # docs/bots.md: "legal_actions() (also through the wrappers)"; SingleAgentEnv and the
    # parallel environment had none.
    single = SingleAgentEnv(opponents="random")
    assert single.legal_actions() == ()  # no hand yet
    observation, _ = single.reset(seed=6)
    terminated = False
    while not terminated:
        legal = single.legal_actions()
        assert legal == tuple(np.flatnonzero(observation["action_mask"])) and legal
        assert all(type(index) is int for index in legal)
        observation, _, terminated, _, _ = single.step(legal[-1])
    assert single.legal_actions() == ()
    game = parallel_env()
    assert game.legal_actions() == ()
    observations, _ = game.reset(seed=6)
    while game.agents:
        masks = [o["action_mask"] for o in observations.values() if o["action_mask"].any()]
        assert game.legal_actions() == tuple(np.flatnonzero(masks[0]))
        observations = game.step(dict.fromkeys(game.agents, game.legal_actions()[0]))[0]
    assert game.legal_actions() == ()


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_gymnasium_s_vector_autoreset_deals_the_next_hand(mode: str) -> None:
    # A step after an episode ended raises ResetNeeded: the vector environments never send one
    # (they reset that copy), and the ending observation's mask is all zero (docs/bots.md).
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    vec = SyncVectorEnv(
        [lambda: SingleAgentEnv(opponents="random") for _ in range(2)],
        autoreset_mode=AutoresetMode[mode],
    )
    observations, _ = vec.reset(seed=1)
    ended = 0
    for _ in range(40):
        actions = [
            vec.single_action_space.sample(mask=mask)  # 0 where the mask is all zero
            for mask in observations["action_mask"]
        ]
        observations, _, terminated, _, infos = vec.step(np.array(actions))
        ended += int(terminated.sum())
        if mode == "NEXT_STEP":
            assert (observations["action_mask"].any(axis=1) == ~terminated).all()
        else:  # the next hand's first observation, the ending one kept in the infos
            assert observations["action_mask"].any(axis=1).all()
            for i in np.flatnonzero(terminated):
                assert not infos["final_obs"][i]["action_mask"].any()
    assert ended >= 4


@pytest.mark.parametrize(
    ("module", "package", "extra"),
    [
        ("botkit.env", "gymnasium", "rl"),
        ("botkit.env", "pettingzoo", "rl"),
        ("botkit.encode", "numpy", "rl"),
        ("botkit.openspiel", "pyspiel", "openspiel"),
    ],
)
def test_without_the_extra_the_import_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, module: str, package: str, extra: str
) -> None:
    # It was a bare "No module named 'gymnasium'", and the docs' `pip install 'sheepshead[rl]'`
    # finds nothing on PyPI.
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, package, None)  # importing it fails
    for name in ("botkit.env", "botkit.encode", "botkit.cache", "botkit.openspiel"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(ModuleNotFoundError) as missing:
        importlib.import_module(module)
    message = str(missing.value)
    assert f"needs {package} (the {extra} extra)" in message
    assert f"pip install -e '.[{extra}]' in a checkout" in message
    assert missing.value.name == package


def test_opponents_as_a_list_are_refused_in_words_that_say_what_to_give() -> None:
    # SingleAgentEnv took a list for one strategy ("seat 1's [...] is no strategy"), and
    # raw_env failed on it with "'list' object has no attribute 'items'".
    four = ["random", "random", "heuristic", "heuristic"]
    with pytest.raises(ValueError, match=r"one strategy for the four other seats .* or a map"):
        SingleAgentEnv(opponents=four)  # type: ignore[arg-type]
    for build in (raw_env, parallel_env):
        with pytest.raises(ValueError, match=r"opponents must map seats to strategies"):
            build(opponents=four)  # type: ignore[arg-type]
