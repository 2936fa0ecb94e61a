"""The training environment (botkit/env.py): PettingZoo's own API test, fixed action indices,
observations of exactly what a seat may see, payouts as rewards, seeds, its own caches.

The fast path's observations and masks against the reference encoder, position by position, are
tests/botkit/test_encode.py's."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from botkit.actions import ACTION_COUNT, ACTIONS, PLAY_BASE, action_index
from botkit.encode import encode_view, legal_mask
from botkit.env import DEFAULT_SEED, env, raw_env
from engine.actions import action_from_dict
from engine.errors import IllegalActionError
from engine.hand import Hand
from engine.rules import RuleSet
from engine.view import seat_view
from tests.botkit.positions import VARIANTS


# The API test warns about every dict observation with an action mask, PettingZoo's own
# classic games included: that shape is the documented way to pass the legal actions.
@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
def test_passes_pettingzoo_api_test() -> None:
    api_test(env(), num_cycles=1000)
    api_test(env(RuleSet(unknown_card=True, no_pick="doubler")), num_cycles=300)
    api_test(env(RuleSet.from_preset("tavern")), num_cycles=1000)


def test_the_checked_environment_refuses_last_before_reset_then_is_the_environment_s() -> None:
    game = env()
    with pytest.raises(AttributeError, match="before reset"):
        game.last()
    with pytest.raises(AttributeError, match="before reset"):
        game.agent_iter()
    game.reset(seed=3)
    # Once reset, last() and legal_actions() are the unwrapped environment's own: no call of
    # the wrapper's in between at every decision.
    assert game.last.__self__ is game.unwrapped
    assert game.legal_actions.__self__ is game.unwrapped
    copy = game.clone()
    assert copy.last.__self__ is copy.unwrapped is not game.unwrapped
    obs, reward, terminated, truncated, _ = copy.last()
    assert np.array_equal(obs["observation"], game.last()[0]["observation"])
    assert (reward, terminated, truncated) == (0, False, False)
    assert copy.legal_actions() == game.legal_actions()
    fresh = env().clone()  # never reset: still refused
    with pytest.raises(AttributeError, match="before reset"):
        fresh.last()


def test_same_seed_same_hands() -> None:
    seed_test(raw_env, num_cycles=200)
    first, second = raw_env(), raw_env()
    first.reset(seed=3)
    second.reset(seed=3)
    assert first.hand.deal == second.hand.deal and first.hand.dealer == second.hand.dealer
    first.reset()
    second.reset(seed=4)
    assert first.hand.deal != second.hand.deal


def test_an_environment_never_seeded_deals_as_if_seeded_with_the_default() -> None:
    # No unseeded randomness: two fresh environments deal the same hands, the default seed's.
    fresh, other, seeded = raw_env(), raw_env(), raw_env()
    seeded.reset(seed=DEFAULT_SEED)
    fresh.reset()
    other.reset()
    assert fresh.hand.deal == other.hand.deal == seeded.hand.deal
    assert fresh.infos == other.infos == seeded.infos
    for _ in range(3):
        fresh.reset()
        seeded.reset()
        assert fresh.infos == seeded.infos


def _play_random_hands(game: Any, hands: int, seed: int) -> None:
    rng = random.Random(seed)
    game.reset(seed=seed)
    for _ in range(hands):
        game.reset()
        for _agent in game.agent_iter():
            _, _, terminated, truncated, _ = game.last()
            game.step(None if terminated or truncated else rng.choice(game.legal_actions()))


def test_each_environment_keeps_its_own_bounded_mask_cache() -> None:
    first, second = raw_env(), raw_env(mask_cache_size=8)
    _play_random_hands(first, 5, 1)
    assert first.mask_cache.play_masks  # trick play filled it
    assert not second.mask_cache.play_masks  # nothing of the first's
    _play_random_hands(second, 20, 2)
    assert 0 < len(second.mask_cache.play_masks) <= 8
    with pytest.raises(ValueError, match="at least 1"):
        raw_env(mask_cache_size=0)


def test_an_environment_keeps_under_30_attributes() -> None:
    # CPython 3.11 shares an instance's attribute keys only up to 30 of them: past that, every
    # ``self.x`` of last() and step() is a slower lookup (2% of a random hand's instructions).
    limit = 30
    for game in (raw_env(), raw_env(opponents={1: "random"})):
        assert len(vars(game)) < limit
        _play_random_hands(game, 3, 4)
        assert len(vars(game)) < limit
        assert len(vars(game.clone())) < limit


def test_every_index_names_one_action_and_back() -> None:
    assert len(ACTIONS) == ACTION_COUNT == 667
    for index, action in enumerate(ACTIONS):
        assert action_index(action) == index
        engine_action = action_from_dict(action, seat=2)
        assert action_index(engine_action) == index
        assert engine_action.to_dict() == {"seat": 2, **action}
    assert ACTIONS[PLAY_BASE] == {"action": "play", "card": "7C"}
    # The first 659 indices kept their meaning when cracking and blitzing were appended.
    assert ACTIONS[658] == {"action": "play", "card": "AD"}
    assert ACTIONS[659:] == (
        {"action": "blitz", "pair": "black"},
        {"action": "blitz", "pair": "red"},
        {"action": "crack"},
        {"action": "crack", "blitz": "black"},
        {"action": "crack", "blitz": "red"},
        {"action": "no_crack"},
        {"action": "recrack"},
        {"action": "no_recrack"},
    )
    with pytest.raises(ValueError):
        action_index({"action": "play", "card": "ZZ"})


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()))
def test_the_environment_s_incremental_observations_equal_the_encoded_views(
    rules: RuleSet,
) -> None:
    # The environment keeps each seat's vector up to date action by action: every seat's
    # observation after every action, the final one included, is its view encoded.
    game = raw_env(rules)
    rng = random.Random(5)
    blitzed = 0
    for episode in range(25):
        game.reset(seed=episode, options={"multiplier": 1 + episode % 3})
        for _agent in game.agent_iter():
            for seat, other in enumerate(game.possible_agents):
                observed = game.observe(other)
                expected = encode_view(seat_view(game.hand, seat))
                np.testing.assert_array_equal(observed["observation"], expected)
                if game.hand.turn == seat:
                    np.testing.assert_array_equal(observed["action_mask"], legal_mask(game.hand))
                else:
                    assert not observed["action_mask"].any()
            # legal_actions() lists the engine's legal actions, lowest index first.
            engine_legal = sorted(action_index(action) for action in game.hand.legal_actions())
            assert game.legal_actions() == tuple(engine_legal)
            obs, _, terminated, truncated, _ = game.last()
            # last() has a path of its own for the seat to act (most calls): the same vector.
            acting = game.possible_agents.index(game.agent_selection)
            np.testing.assert_array_equal(
                obs["observation"], encode_view(seat_view(game.hand, acting))
            )
            if terminated or truncated:
                assert not obs["action_mask"].any()
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            assert legal == engine_legal
            blitzes = [i for i in legal if ACTIONS[i]["action"] == "blitz"]
            game.step(rng.choice(blitzes if blitzes and rng.random() < 0.5 else legal))
            blitzed += bool(blitzes)
    if rules.blitzing:
        assert blitzed  # the blitzes' updates were checked too


def test_rewards_are_the_payouts_and_sum_to_zero() -> None:
    game = raw_env()
    rng = np.random.default_rng(1)
    for episode in range(30):
        game.reset(seed=episode)
        totals = dict.fromkeys(game.possible_agents, 0.0)
        for agent in game.agent_iter():
            obs, reward, terminated, truncated, _ = game.last()
            totals[agent] += reward
            if terminated or truncated:
                game.step(None)
            else:
                game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        payouts = game.hand.result().payouts
        assert payouts is not None
        assert [totals[a] for a in game.possible_agents] == list(payouts)
        assert sum(payouts) == 0


def test_an_action_outside_the_mask_is_refused_and_changes_nothing() -> None:
    game = raw_env()
    game.reset(seed=2)
    before = len(game.hand.actions)
    with pytest.raises(IllegalActionError):
        game.step(PLAY_BASE)  # a card, while the auction is on
    assert len(game.hand.actions) == before
    with pytest.raises(ValueError):
        game.step(ACTION_COUNT)


ROOT = Path(__file__).resolve().parents[2]


def test_the_example_plays_a_thousand_hands() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rl_random.py"), "--hands", "1000", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("1000 hands, ")
    decisions = int(lines[0].split(", ")[1].split()[0])
    assert 1000 * 10 < decisions < 1000 * 40  # pick, bury, call and 30 cards, or fewer
    seats = [line for line in lines if line.startswith("seat_")]
    assert len(seats) == 5
    assert lines[-1] == "sum of rewards: +0 (every hand is zero-sum)"


def test_the_benchmark_still_runs() -> None:
    # bench/ is run by hand; this only keeps it working (no figure is asserted). A tenth of a
    # CPU second a loop still plays hundreds of hands in each (the run: 1.8 CPU-s, 2.9 at 0.4).
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "rl.py"), "--seconds", "0.1", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^environment, unwrapped .*: [\d,]+ hands/s$", done.stdout, re.M)
    assert re.search(r"^ratio environment / engine: \d\.\d\d", done.stdout, re.M)
    assert re.search(r"^researcher's loop .*, env\(\): [\d,]+ hands/s, \d\.\d\d", done.stdout, re.M)


def test_reset_options_fix_a_hand_and_bad_ones_are_refused() -> None:
    game = raw_env()
    game.reset(options={"deal_seed": 99, "dealer": 3, "multiplier": 4})
    assert game.hand.deal == Hand.from_seed(RuleSet(), 3, 99).deal
    assert game.hand.dealer == 3 and game.hand.multiplier == 4
    assert game.infos["seat_0"] == {"deal_seed": 99, "dealer": 3}
    assert game.record()["dealer"] == 3
    for bad in ({"dealer": 5}, {"dealer": "1"}, {"multiplier": 0}, {"deal_seed": -1}):
        with pytest.raises(ValueError, match="reset option"):
            game.reset(options=bad)
    game.reset(options={"unrelated": 1})  # other keys are ignored, as PettingZoo's test expects
    game.reset(options={"options": 1})  # the one its api_test passes
    # A key that looks like a misspelt option would deal another hand than asked, silently.
    for misspelt, meant in (
        ("dealer_seed", "deal_seed"),
        ("seed", "deal_seed"),
        ("multiplyer", "multiplier"),
    ):
        with pytest.raises(ValueError, match=f"did you mean '{meant}'"):
            game.reset(options={misspelt: 3})


def test_render_ansi_shows_the_hand_so_far() -> None:
    game = raw_env(render_mode="ansi")
    game.reset(seed=8)
    text = game.render()
    assert text is not None and text.startswith("Rules: ") and "Hand not finished" in text
    with pytest.warns(UserWarning, match='render_mode="ansi"'):  # says how, as Gymnasium's do
        assert raw_env().render() is None
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def _seeded_digest(game: Any, rules: RuleSet, hands: int) -> str:
    """A digest of everything ``last()`` and ``observe()`` gave along seeded random hands (every
    agent, observation, mask, reward and flag), the choice read off the mask with numpy."""
    import hashlib

    digest = hashlib.sha256()
    rng = random.Random(11)
    game.reset(seed=11)
    for episode in range(hands):
        game.reset(options={"multiplier": 1 + episode % 2} if episode % 3 == 0 else None)
        for agent in game.agent_iter():
            obs, reward, terminated, truncated, info = game.last()
            digest.update(f"{agent} {reward} {terminated} {truncated} {info}".encode())
            digest.update(obs["observation"].tobytes())
            digest.update(obs["action_mask"].tobytes())
            if episode % 4 == 0:  # another seat's observation now and then
                other = game.observe(game.possible_agents[len(game.agents) % 5])
                digest.update(other["observation"].tobytes() + other["action_mask"].tobytes())
            if terminated or truncated:
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[rng.randrange(legal.size)]))
    return digest.hexdigest()[:16]


# Recorded from the environment before its speed-up (issue 30): a faster environment gives the
# same observations, masks and rewards for the same seeds, through raw_env() and env() alike.
_SEEDED_DIGESTS = {
    "wisconsin": "255d0ff989429b09",
    "tavern": "d146bcc16bc6fff5",
    "unknown-doubler": "3fec24cc9729ac35",
}


@pytest.mark.parametrize("name", sorted(_SEEDED_DIGESTS))
def test_seeded_hands_give_the_recorded_observations(name: str) -> None:
    rules = (
        RuleSet(unknown_card=True, no_pick="doubler")
        if name == "unknown-doubler"
        else RuleSet.from_preset(name)
    )
    assert _seeded_digest(raw_env(rules), rules, 40) == _SEEDED_DIGESTS[name]
    assert _seeded_digest(env(rules), rules, 40) == _SEEDED_DIGESTS[name]
