"""A PettingZoo AEC environment over the engine, for training Sheepshead bots.

Needs the optional extra: ``pip install 'sheepshead[rl]'`` (numpy, gymnasium and pettingzoo).
Only this package, ``botkit``, imports them; it is not part of the compiled build.

::

    from botkit.env import env
    game = env()                          # wrapped: order and bounds are checked
    game.reset(seed=7)                    # the same seed deals the same hands
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        if terminated or truncated:
            game.step(None)               # the hand is over: reward is this seat's payout
            continue
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(rng.choice(legal)))

One episode is one hand. The agents are ``seat_0`` ... ``seat_4``; the agent to act is the
engine's ``hand.turn``. Rewards are 0 until the hand ends, then each seat's payout (docs/rules.md,
"Scoring a picked hand" and "When everybody passes"; doubler stakes included), so an episode's
rewards sum to zero.

**Actions** are fixed indices (:mod:`botkit.actions` has the table: :data:`~botkit.actions.ACTIONS`,
:func:`~botkit.actions.action_index`, :func:`~botkit.actions.action_at`), the same in every
state; the observation's ``action_mask`` marks the legal ones, and
:meth:`SheepsheadEnv.legal_actions` lists them as a tuple (cheaper for a policy that only picks
among them: random rollouts, tree search).

**Observations** are ``{"observation": float32[OBSERVATION_SIZE], "action_mask":
int8[ACTION_COUNT]}``, built from exactly what the seat may see (the fields of its
:func:`engine.view.seat_view`; :func:`botkit.encode.encode_view` builds the same vector from a
view map, so a bot playing over the network can use a trained policy). :mod:`botkit.encode` has
the layout.

**Seeds**: ``reset(seed=S)`` starts a generator from ``S``; each reset draws the deal's seed and
the dealer from it, so a seeded run deals the same hands in the same order. An environment never
given a seed deals as if its first reset had been ``reset(seed=0)`` (:data:`DEFAULT_SEED`):
nothing here is unseeded, so pass your own seeds to get other deals. ``options`` may fix
``{"deal_seed": int, "dealer": 0-4, "multiplier": int}`` for one hand; other keys are ignored.
``info["deal_seed"]`` and ``info["dealer"]`` tell what was dealt, and
:meth:`SheepsheadEnv.record` gives the hand as a ``sheepshead-hand/1`` record.

Each environment keeps its own caches (:class:`botkit.cache.MaskCache`, the observation
tracker's templates): up to some 55 MB of trick-play masks by default, ``mask_cache_size``
fewer or more.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from botkit.actions import ACTION_COUNT, PLAY_BASE, action_at
from botkit.cache import PLAY_MASK_LIMIT, MaskCache
from botkit.encode import OBSERVATION_SIZE, Tracker
from engine.actions import NUM_SEATS, PLAYS
from engine.hand import Deal, Hand
from engine.record import describe_record, export_record
from engine.rules import RuleSet

__all__ = ["AGENTS", "DEFAULT_SEED", "SheepsheadEnv", "env", "raw_env"]

AGENTS: Final = tuple(f"seat_{s}" for s in range(NUM_SEATS))
"""The agents' names, by seat."""
_SEAT_OF: Final = {agent: seat for seat, agent in enumerate(AGENTS)}

DEFAULT_SEED: Final = 0
"""The seed of an environment's deals until ``reset(seed=...)`` gives one."""

_NO_ACTIONS: Final = np.frombuffer(bytes(ACTION_COUNT), dtype=np.int8)
"""The mask of a seat that is not to act (shared, read-only)."""


def _option(options: Mapping[str, Any], key: str, low: int, high: int | None) -> int | None:
    """A whole-number reset option from ``low`` to ``high`` (None: unbounded), or None."""
    value = options.get(key)
    if value is None:
        return None
    if not isinstance(value, int | np.integer) or isinstance(value, bool):
        raise ValueError(f"reset option {key} must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        limit = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"reset option {key} must be {limit}, not {value}")
    return int(value)


class SheepsheadEnv(AECEnv):  # type: ignore[misc]
    """One hand of five-handed Sheepshead as an AEC environment (see the module doc).

    ``rules`` are the table's rules (default: the ``seed`` preset). ``render_mode="ansi"``
    makes :meth:`render` return the hand so far as text. ``mask_cache_size`` is how many
    trick-play masks this environment keeps (:data:`botkit.cache.PLAY_MASK_LIMIT`).
    """

    metadata: Final = {
        "name": "sheepshead_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: RuleSet | None = None,
        render_mode: str | None = None,
        *,
        mask_cache_size: int = PLAY_MASK_LIMIT,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.rules = rules or RuleSet()
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        bounds = np.ones(OBSERVATION_SIZE, dtype=np.float32)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, bounds, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in AGENTS}
        self._random = random.Random(DEFAULT_SEED)
        self.hand = Hand.from_seed(self.rules, 0, 0)
        """The engine's hand being played (read it; change it only through :meth:`step`)."""
        self.mask_cache = MaskCache(mask_cache_size)
        """This environment's legal actions and masks, and the masks it keeps."""
        self._tracker = Tracker(self.hand)
        # Bound once: each runs at every decision, where an attribute lookup fewer shows.
        self._mask = self.mask_cache.mask
        self._indices = self.mask_cache.indices
        self._observe_row = self._tracker.observe
        self._seat_rows = self._tracker.seat_rows  # row s: s's observation when s is to act
        self._played = self._tracker.played
        self.deal_seed = 0
        self._reset_bookkeeping()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of every seat (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(ACTION_COUNT)``: the fixed action indices."""
        return self.action_spaces[agent]

    def _reset_bookkeeping(self) -> None:
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._skip_agent_selection = None
        self.agent_selection = AGENTS[self.hand.turn if self.hand.turn is not None else 0]

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new hand (see the module doc for ``seed`` and ``options``)."""
        if seed is not None:
            self._random = random.Random(seed)
        if options:
            deal_seed = _option(options, "deal_seed", 0, None)
            dealer = _option(options, "dealer", 0, NUM_SEATS - 1)
            multiplier = _option(options, "multiplier", 1, None) or 1
        else:
            deal_seed = dealer = None
            multiplier = 1
        if deal_seed is None:
            deal_seed = self._random.getrandbits(63)
        if dealer is None:
            dealer = self._random.randrange(NUM_SEATS)
        self.deal_seed = deal_seed
        hand = self.hand = Hand(self.rules, dealer, Deal.from_seed(dealer, deal_seed), multiplier)
        self._tracker.start(hand)
        self.agents = list(AGENTS)
        # Plain dict literals: cheaper than dict.fromkeys, and this runs once a hand.
        self.rewards = {"seat_0": 0, "seat_1": 0, "seat_2": 0, "seat_3": 0, "seat_4": 0}
        self._cumulative_rewards = self.rewards.copy()
        self.terminations = {
            "seat_0": False,
            "seat_1": False,
            "seat_2": False,
            "seat_3": False,
            "seat_4": False,
        }
        self.truncations = self.terminations.copy()
        info = {"deal_seed": deal_seed, "dealer": dealer}
        self.infos = {
            "seat_0": info,
            "seat_1": info.copy(),
            "seat_2": info.copy(),
            "seat_3": info.copy(),
            "seat_4": info.copy(),
        }
        self._skip_agent_selection = None
        self.agent_selection = AGENTS[hand.turn]  # type: ignore[index]

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to act, until the hand is over and every seat has stepped ``None``.

        PettingZoo's, as a generator: it runs once per decision, and this is cheaper.
        """
        if max_iter < 2**63:
            while self.agents and max_iter > 0:
                max_iter -= 1
                yield self.agent_selection
            return
        while self.agents:
            yield self.agent_selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of the agent to act
        (PettingZoo's, without a second call for the observation)."""
        agent = self.agent_selection
        hand = self.hand
        turn = hand.turn
        observation = None
        if observe:  # observe(agent), one call fewer: this runs once per decision
            seat = _SEAT_OF[agent]
            if turn == seat:  # the usual case: the tracker's row is the observation as it is
                row = self._seat_rows[seat].copy()
                observation = {"observation": row, "action_mask": self._mask(hand)}
            else:
                observation = {"observation": self._observe_row(seat), "action_mask": _NO_ACTIONS}
        if turn is not None:  # the hand is live: no reward yet, nobody done
            return observation, 0, False, False, self.infos[agent]
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def legal_actions(self) -> tuple[int, ...]:
        """The action indices the agent to act may take, lowest first: the ones of its
        ``action_mask``, as a tuple (empty once the hand is over).

        For a policy that only picks among them (random rollouts, tree search): a few times
        cheaper than reading the mask with numpy.

        >>> game = raw_env()
        >>> game.reset(options={"deal_seed": 1, "dealer": 0})
        >>> game.legal_actions()
        (0, 1)
        >>> from botkit.actions import ACTIONS
        >>> ACTIONS[0]["action"], ACTIONS[1]["action"]
        ('pass', 'pick')
        """
        return self._indices(self.hand)

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may see, and its legal actions (all zero when not its turn).

        The observation is a new array; the mask is shared and read-only (copy it to change
        it)."""
        seat = _SEAT_OF[agent]
        mask = self._mask(self.hand) if self.hand.turn == seat else _NO_ACTIONS
        return {"observation": self._observe_row(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the action index of the agent to act (``None`` once the hand is over)."""
        hand = self.hand
        seat = hand.turn
        if seat is None:  # the hand is over: every seat is terminated
            self._finished_step(self.agent_selection, action)
            return
        if action is None:
            raise ValueError(f"{self.agent_selection} must act: None is only for a finished hand")
        if type(action) is not int:
            action = int(action)
        card = action - PLAY_BASE
        if 0 <= card < 32:  # most actions: a card in trick play
            # Raises IllegalActionError for a card not legal (in the auction too), changing
            # nothing, before the tracker is touched.
            hand.apply(PLAYS[seat][card])
            self._played(seat, card)
        else:
            engine_action = action_at(hand, action)
            hand.apply(engine_action)
            self._tracker.auctioned(engine_action)
        # Rewards stay 0 (and need no writing) until the hand ends.
        turn = hand.turn
        if turn is not None:
            self.agent_selection = AGENTS[turn]
            return
        payouts = hand.result().payouts
        assert payouts is not None
        # New maps rather than five stores each: every reward so far was 0, so the cumulative
        # rewards are the payouts too.
        self.rewards = dict(zip(AGENTS, payouts, strict=True))
        self._cumulative_rewards = self.rewards.copy()
        self.terminations = dict.fromkeys(AGENTS, True)
        # Every seat now takes its final observation and steps None, left of the dealer first.
        self.agent_selection = AGENTS[(hand.dealer + 1) % NUM_SEATS]

    def _finished_step(self, agent: str, action: int | None) -> None:
        """``step(None)`` of a seat once the hand is over: it leaves; the next one is selected.

        What PettingZoo's ``_was_dead_step`` does for any environment, for this one where every
        seat finishes at once (and a fifth of its cost: it runs five times a hand).
        """
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            self.agent_selection = agents[0]
            if len(agents) == NUM_SEATS - 1:  # the payouts were this step's rewards: cleared
                for name in agents:
                    self.rewards[name] = 0

    def record(self) -> dict[str, Any]:
        """The hand so far as a ``sheepshead-hand/1`` record (docs/hand-record.md)."""
        return export_record(self.hand)

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the hand so far, trick by trick."""
        if self.render_mode != "ansi":
            return None
        return describe_record(self.record())

    def close(self) -> None:
        """Nothing to release."""


def raw_env(
    rules: RuleSet | None = None,
    render_mode: str | None = None,
    *,
    mask_cache_size: int = PLAY_MASK_LIMIT,
) -> SheepsheadEnv:
    """The environment without PettingZoo's checking wrappers (fastest)."""
    return SheepsheadEnv(rules, render_mode, mask_cache_size=mask_cache_size)


def env(
    rules: RuleSet | None = None,
    render_mode: str | None = None,
    *,
    mask_cache_size: int = PLAY_MASK_LIMIT,
) -> Any:
    """The environment wrapped by PettingZoo's order and bounds checks (for development)."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(
        raw_env(rules, render_mode, mask_cache_size=mask_cache_size)
    )
    return wrappers.OrderEnforcingWrapper(wrapped)
