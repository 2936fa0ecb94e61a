"""A PettingZoo AEC environment over the engine, for training Sheepshead bots.

Needs the optional extra ``rl`` (numpy, gymnasium and pettingzoo): ``pip install -e '.[rl]'`` in
a checkout (sheepshead is not on PyPI). Only this package, ``botkit``, imports them; it is not
part of the compiled build.

::

    from botkit.env import env
    game = env()                          # wrapped: PettingZoo's order checks
    game.reset(seed=7)                    # the same seed deals the same hands
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        if terminated or truncated:
            game.step(None)               # the hand is over: reward is this seat's payout
            continue
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(rng.choice(legal)))

One episode is one hand, under the ``wisconsin`` rules unless ``rules`` says otherwise (the
default of ``sheepshead play``, tournaments and new tables). The agents are ``seat_0`` ...
``seat_4``; the agent to act is the engine's ``hand.turn``. Rewards are 0 until the hand ends,
then each seat's payout (docs/rules.md, "Scoring a picked hand" and "When everybody passes";
doubler stakes included), so an episode's rewards sum to zero.

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
``{"deal_seed": int, "dealer": 0-4, "multiplier": int}`` for one hand; a key that looks like a
misspelt one (``dealer_seed``) is refused, and others are ignored.
``info["deal_seed"]`` and ``info["dealer"]`` tell what was dealt, and
:meth:`SheepsheadEnv.record` gives the hand as a ``sheepshead-hand/1`` record.

**Opponents**: ``env(opponents={1: "heuristic", 3: "my_bot.py"})`` seats built-in strategies
(any registered name or strategy file, as ``sheepshead tournament`` takes them, or a strategy
object); they play inside ``reset`` and ``step``, and the agents are the other seats.
:class:`SingleAgentEnv` is one seat against four of them as a Gymnasium environment
(``gymnasium.make("sheepshead/Sheepshead-v0", ...)``, registered when this module is imported);
:func:`parallel_env` the hand as a PettingZoo ``ParallelEnv``.

**Search**: :meth:`SheepsheadEnv.clone` (and ``copy.deepcopy``) copies the environment in its
state; :meth:`SheepsheadEnv.determinize` copies it with the cards a seat has not seen dealt
again (one world of its information set); :meth:`SheepsheadEnv.state` is the
perfect-information state as a vector. Every environment here pickles, and unpickles in its
state: it plays on as the original would (:meth:`SheepsheadEnv.__getstate__`).

**Actions** given to ``step`` must be ints (or numpy integers, or 0-d integer arrays, as
Gymnasium's ``Discrete`` takes them) in range and legal: anything
else raises :class:`ActionIndexError` naming it and changes nothing.

Each environment keeps its own caches (:class:`botkit.cache.MaskCache`, the observation
tracker's templates): up to some 55 MB of trick-play masks by default, ``mask_cache_size``
fewer or more.
"""

from __future__ import annotations

import copy
import difflib
import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from botkit.extras import missing_extra

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise missing_extra("botkit.env", "rl", missing) from None

from botkit.actions import ACTION_COUNT, ACTIONS, PLAY_BASE, action_at
from botkit.cache import PLAY_MASK_LIMIT, MaskCache
from botkit.encode import OBSERVATION_SIZE, Tracker
from engine.actions import NUM_SEATS, PLAYS, Action, action_from_dict
from engine.bots.base import Strategy
from engine.cards import cards_in
from engine.errors import IllegalActionError
from engine.hand import Deal, Hand
from engine.record import describe_record, export_record
from engine.rules import DEFAULT_PRESET, RuleSet
from engine.view import seat_view

__all__ = [
    "AGENTS",
    "DEFAULT_SEED",
    "GYMNASIUM_ID",
    "RESET_OPTIONS",
    "STATE_SIZE",
    "ActionIndexError",
    "CheckedEnv",
    "Opponent",
    "RenderModeError",
    "SheepsheadEnv",
    "SheepsheadParallelEnv",
    "SingleAgentEnv",
    "env",
    "parallel_env",
    "raw_env",
]

AGENTS: Final = tuple(f"seat_{s}" for s in range(NUM_SEATS))
"""The agents' names, by seat."""
_SEAT_OF: Final = {agent: seat for seat, agent in enumerate(AGENTS)}

DEFAULT_SEED: Final = 0
"""The seed of an environment's deals until ``reset(seed=...)`` gives one."""

_NO_ACTIONS: Final = np.frombuffer(bytes(ACTION_COUNT), dtype=np.int8)
"""The mask of a seat that is not to act (shared, read-only)."""

STATE_SIZE: Final = NUM_SEATS * OBSERVATION_SIZE + 32
"""The length of :meth:`SheepsheadEnv.state`: the five seats' observations, then the blind."""

Opponent = str | Strategy
"""A seat's built-in opponent: a strategy spec as ``sheepshead tournament`` takes it (a registered
name or a ``.py`` file, with ``:key=value`` options) or a strategy object (``choose(view,
legal)``)."""


class ActionIndexError(IllegalActionError, ValueError):
    """An action index refused by :meth:`SheepsheadEnv.step`: not an ``int`` (a float, a string,
    a bool), out of range, or not legal now. ``index`` is the value refused, echoed in the
    message; ``code`` is the engine's reason for a legal-range index (``must_follow_suit``...),
    else ``illegal_action``. Nothing changes when it is raised."""

    def __init__(self, message: str, index: object, code: str | None = None) -> None:
        super().__init__(message, code)
        self.index = index


class RenderModeError(ValueError, TypeError):
    """A ``render_mode`` the environments do not have (they have ``"human"`` and ``"ansi"``:
    the rendering is text). Also a ``TypeError``, as for a keyword a constructor does not take:
    Stable-Baselines3's ``make_vec_env`` asks every registered environment for
    ``render_mode="rgb_array"`` and, on a ``TypeError``, makes it again without one."""


def _render_mode(render_mode: object) -> str | None:
    """``render_mode`` checked: None, ``"human"`` or ``"ansi"``."""
    if render_mode not in (None, "human", "ansi"):
        raise RenderModeError(
            f"render_mode must be None, 'human' or 'ansi' (the rendering is text), "
            f"not {render_mode!r}"
        )
    return render_mode


def _legal_now(legal: tuple[int, ...]) -> str:
    """The end of an illegal action's message: what would have been taken, and where a
    policy finds it, so the message says what to do and not only what went wrong."""
    shown = ", ".join(map(str, legal[:12])) + (
        f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
    )
    return f"legal now: {shown} (legal_actions(), or the observation's action_mask)"


def _refuse(agent: str, action: object) -> ActionIndexError:
    """The error of an action that is no int index in range."""
    return ActionIndexError(
        f"{agent}: the action must be an int from 0 to {ACTION_COUNT - 1}, not {action!r}",
        action,
    )


def _penalty_hint(exc: ActionIndexError, maker: str) -> ActionIndexError:
    """``exc`` again, its message ending with the way to a penalty instead of the error: what
    a learner or checker that samples without the mask (Gymnasium's ``check_env``, PettingZoo's
    ``parallel_seed_test``) needs, said where it fails."""
    return ActionIndexError(
        f"{exc.message}; to end the episode with reward R instead of raising (a learner or "
        f"checker that samples without the mask), make it with {maker}(illegal_reward=R)",
        exc.index,
        exc.code,
    )


def _integer_scalar(action: object) -> bool:
    """Whether ``action`` is a 0-d numpy array of integers: what ``Discrete.contains`` takes
    besides ints, and what Stable-Baselines3's ``predict`` gives for one observation."""
    return isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"


def _ruleset(rules: object) -> RuleSet:
    """The rules an environment plays: a :class:`RuleSet`, a preset's name (``"seed"``, as
    OpenSpiel's ``python_sheepshead(rules=seed)`` takes it) or None for the default
    ``wisconsin``; anything else raises, saying what is taken."""
    if rules is None:
        return RuleSet.from_preset(DEFAULT_PRESET)
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str):
        return RuleSet.from_preset(rules)  # an unknown name: RuleOptionError listing the presets
    raise TypeError(
        f"rules must be a RuleSet (RuleSet.from_preset(...)), a preset's name or None, "
        f"not {type(rules).__name__}"
    )


def _opponent_seats(
    opponents: Mapping[int | str, Opponent] | None,
) -> dict[int, Opponent]:
    """``opponents`` keyed by seat number (seats given as 0-4 or ``"seat_N"``), checked."""
    if opponents is not None and not isinstance(opponents, Mapping):
        raise ValueError(
            f"opponents must map seats to strategies, {{1: 'heuristic', 4: 'random'}}, "
            f"not {opponents!r}"
        )
    seats: dict[int, Opponent] = {}
    for key, strategy in (opponents or {}).items():
        seat = _SEAT_OF.get(key) if isinstance(key, str) else key
        if type(seat) is not int or not 0 <= seat < NUM_SEATS:
            raise ValueError(f"opponents: {key!r} is no seat (0-4 or seat_0 ... seat_4)")
        if not isinstance(strategy, str) and not callable(getattr(strategy, "choose", None)):
            raise ValueError(f"opponents: seat {seat}'s {strategy!r} is no strategy")
        seats[seat] = strategy
    if len(seats) == NUM_SEATS:
        raise ValueError("opponents: at least one seat must be left to the agents")
    return seats


def _given(strategy: Strategy) -> Callable[[int], Strategy]:
    """A builder that gives ``strategy`` itself, whatever the seed."""

    def build(seed: int) -> Strategy:
        del seed
        return strategy

    return build


def _factories(opponents: dict[int, Opponent]) -> dict[int, Callable[[int], Strategy]]:
    """A builder per opponent seat: a spec's strategy is built afresh each hand, from a seed of
    the deal's (so a hand plays the same however often it is dealt); an object is used as
    given."""
    if not opponents:
        return {}
    from client.strategy_spec import StrategyLoadError, strategy_factory

    built: dict[int, Callable[[int], Strategy]] = {}
    for seat, strategy in opponents.items():
        if isinstance(strategy, str):
            try:
                built[seat] = strategy_factory(strategy)
            except StrategyLoadError as exc:
                raise ValueError(f"opponents: seat {seat}: {exc}") from None
        else:
            built[seat] = _given(strategy)
    return built


_TRACKER_VIEWS: Final = frozenset(
    {"cells", "raw", "seat_rows", "trick_block", "hand", "rules", "templates"}
)
"""The tracker's fields a new tracker of the same hand rebuilds: views of its rows, the hand
and rules (the environment's), the templates (a cache)."""


def _tracker_state(tracker: Tracker) -> dict[str, Any]:
    """What pickling keeps of ``tracker``: its rows and its fields other than views of them (a
    memoryview cannot be pickled)."""
    return {
        name: getattr(tracker, name) for name in Tracker.__slots__ if name not in _TRACKER_VIEWS
    }


def _restored_tracker(hand: Hand, state: Mapping[str, Any]) -> Tracker:
    """A tracker of ``hand`` in the state :func:`_tracker_state` kept."""
    tracker = Tracker(hand)  # new rows, and the views of them
    for name, value in state.items():
        if name == "rows":
            tracker.rows[:] = value
        else:
            setattr(tracker, name, value)
    return tracker


def _file_seats(opponents: Mapping[int, Opponent]) -> set[int]:
    """The seats whose strategy is a strategy file: its class is not importable by name (the
    file is loaded as a module of a name of its own, per process), so pickling keeps such a
    strategy's attributes and builds it again from the file."""
    from client.strategy_spec import is_path, parse_spec

    return {
        seat
        for seat, spec in opponents.items()
        if isinstance(spec, str) and is_path(parse_spec(spec)[0])
    }


def _set_state(obj: object, state: Any) -> None:
    """Give ``obj`` the state its ``__getstate__`` gave, as unpickling does."""
    setstate = getattr(obj, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slots: Mapping[str, Any] | None = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        vars(obj).update(state)
    for name, value in (slots or {}).items():
        setattr(obj, name, value)


def _illegal_reward(value: object) -> float | None:
    """``illegal_reward`` checked: a number (not a bool: ``True`` is no reward), or None."""
    if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
        raise ValueError(f"illegal_reward must be a number or None, not {value!r}")
    return value


RESET_OPTIONS: Final = ("deal_seed", "dealer", "multiplier")
"""The keys :meth:`SheepsheadEnv.reset` reads from ``options``."""


def _check_option_names(options: Mapping[str, Any]) -> None:
    """Refuse a reset option's key that looks like a misspelt one of :data:`RESET_OPTIONS`
    (``dealer_seed``, ``seed``): ignored, it would deal another hand than the one asked for,
    silently. Other keys are ignored (PettingZoo's ``api_test`` passes ``{"options": 1}``)."""
    for key in options:
        if key in RESET_OPTIONS or not isinstance(key, str):
            continue
        near = difflib.get_close_matches(key, RESET_OPTIONS, n=1, cutoff=0.6)
        if near:
            raise ValueError(
                f"reset option {key!r} is not one of {', '.join(RESET_OPTIONS)}: "
                f"did you mean {near[0]!r}? (keys far from these are ignored)"
            )


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

    ``rules`` are the table's rules: a :class:`~engine.rules.RuleSet` or a preset's name
    (default: the ``wisconsin`` preset, as for ``sheepshead play``, tournaments and new
    tables). ``render_mode="ansi"`` makes :meth:`render` return the
    hand so far as text, ``"human"`` print it. ``mask_cache_size`` is how many trick-play masks
    this environment keeps (:data:`botkit.cache.PLAY_MASK_LIMIT`). ``opponents`` seats
    built-in strategies (``{seat: "heuristic"}``, seats 0-4 or ``"seat_N"``; see
    :data:`Opponent`): they play inside :meth:`step` and :meth:`reset`, and the agents are the
    other seats.
    """

    metadata: Final = {
        "name": "sheepshead_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: RuleSet | str | None = None,
        render_mode: str | None = None,
        *,
        mask_cache_size: int = PLAY_MASK_LIMIT,
        opponents: Mapping[int | str, Opponent] | None = None,
    ) -> None:
        super().__init__()
        render_mode = _render_mode(render_mode)
        self.rules = _ruleset(rules)
        self.render_mode = render_mode
        self.opponents = _opponent_seats(opponents)
        """The seats played by built-in strategies, and their strategies."""
        self._builders = _factories(self.opponents)
        self._bots: dict[int, Strategy] = {}  # this hand's opponents, by seat
        self.opponent_fallbacks = 0
        """Opponent decisions where the strategy failed and its first legal action was played
        (as in a tournament)."""
        self.possible_agents = [a for s, a in enumerate(AGENTS) if s not in self.opponents]
        self.agents = list(self.possible_agents)
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
        self.state_space = spaces.Box(0.0, 1.0, (STATE_SIZE,), dtype=np.float32)
        self._random = random.Random(DEFAULT_SEED)
        self.hand = Hand.from_seed(self.rules, 0, 0)
        """The engine's hand being played (read it; change it only through :meth:`step`)."""
        self.mask_cache = MaskCache(mask_cache_size)
        """This environment's legal actions and masks, and the masks it keeps."""
        self._bind(Tracker(self.hand))
        self.deal_seed = 0
        self._reset_bookkeeping()

    def _bind(self, tracker: Tracker) -> None:
        self._tracker = tracker
        self._seat_rows = tracker.seat_rows  # row s: s's observation when s is to act
        # The hot methods call the tracker's and the mask cache's methods through them
        # (``self._tracker.played(...)``), not through bound methods kept here: CPython 3.11
        # specializes a method call on a class's function, never on a bound method held by the
        # instance, whose every call was then a lookup through the whole class hierarchy. The
        # environment keeps under 30 attributes: CPython 3.11 shares an instance's keys up to
        # 30, and past them every ``self.x`` of the hot methods is a slower lookup.

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of every seat (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(ACTION_COUNT)``: the fixed action indices."""
        return self.action_spaces[agent]

    def _reset_bookkeeping(self) -> None:
        agents = self.possible_agents
        self.agents = list(agents)
        self.rewards = dict.fromkeys(agents, 0)
        self._cumulative_rewards = dict.fromkeys(agents, 0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        self._skip_agent_selection = None
        self.agent_selection = agents[0]

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new hand (see the module doc for ``seed`` and ``options``)."""
        if seed is not None:
            self._random = random.Random(seed)
        if options:
            _check_option_names(options)
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
        if self.opponents:
            self._reset_with_opponents(deal_seed, dealer)
            return
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

    def _reset_with_opponents(self, deal_seed: int, dealer: int) -> None:
        """The rest of :meth:`reset` with opponents seated: they are built for this hand and
        play until an agent is to act (or the hand is over)."""
        base = deal_seed % (1 << 62)
        # The tournament's seeding (play_deal): the deal's seed and the seat.
        self._bots = {seat: build(base + seat) for seat, build in self._builders.items()}
        self._reset_bookkeeping()
        info = {"deal_seed": deal_seed, "dealer": dealer}
        self.infos = {agent: info.copy() for agent in self.possible_agents}
        self._after_action()

    def _play_opponents(self) -> None:
        """Let the seated strategies act while it is one of theirs' turn."""
        from client.strategy_call import decide

        hand = self.hand
        turn = hand.turn
        while turn in self._bots:
            view = seat_view(hand, turn)
            decision = decide(self._bots[turn], view, view["legal"])
            self.opponent_fallbacks += decision.fell_back
            self._apply(action_from_dict(decision.action, turn))
            turn = hand.turn

    def _apply(self, action: Action) -> None:
        """Apply a legal engine action and keep the observations up to date."""
        self.hand.apply(action)
        if action.kind == "play":
            self._tracker.played(action.seat, action.card)  # type: ignore[union-attr]
        else:
            self._tracker.auctioned(action)

    def _after_action(self) -> None:
        """After an agent's action (or the deal) with opponents seated: they play, then the
        next agent is selected, or the hand's rewards are set."""
        self._play_opponents()
        turn = self.hand.turn
        if turn is not None:
            self.agent_selection = AGENTS[turn]
            return
        self._finish()

    def _finish(self) -> None:
        """The hand is over: every agent's reward is its payout, every agent terminated."""
        hand = self.hand
        payouts = hand.result().payouts
        assert payouts is not None
        agents = self.possible_agents
        # New maps rather than five stores each: every reward so far was 0, so the cumulative
        # rewards are the payouts too.
        # Every agent now takes its final observation and steps None, left of the dealer first.
        first = (hand.dealer + 1) % NUM_SEATS
        if len(agents) == NUM_SEATS:  # no opponents seated (the usual case): seat by seat
            self.rewards = dict(zip(AGENTS, payouts, strict=True))
            self.agent_selection = AGENTS[first]
        else:
            self.rewards = {agent: payouts[_SEAT_OF[agent]] for agent in agents}
            self.agent_selection = min(agents, key=lambda a: (_SEAT_OF[a] - first) % NUM_SEATS)
        self._cumulative_rewards = self.rewards.copy()
        self.terminations = dict.fromkeys(agents, True)

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
        # The usual case, once per decision: the hand is live and the agent selected is the
        # seat to act, so the tracker's row is its observation as it is, no reward is due and
        # nobody is done. (Before the first reset the agent selected need not be the seat to
        # act: the general path below.)
        if turn is not None and agent == AGENTS[turn]:
            if not observe:
                return None, 0, False, False, self.infos[agent]
            if hand.phase == "play":  # most decisions: the play mask, by the legal cards
                cards = hand.legal_play_mask()
                masks = self.mask_cache
                mask = masks.play_masks.get(cards)
                if mask is None:
                    mask = masks.new_play_mask(cards)
            else:
                mask = self.mask_cache.mask(hand)
            observation = {"observation": self._seat_rows[turn].copy(), "action_mask": mask}
            return observation, 0, False, False, self.infos[agent]
        if turn is None:
            # The hand is over (five calls a hand, one per agent before its step(None)): the
            # end revealed everything and cleared the seat to act in every row, so the agent's
            # row is its observation as it is, and it has no legal action.
            final: dict[str, Any] | None = None
            if observe:
                row = self._seat_rows[_SEAT_OF[agent]].copy()
                final = {"observation": row, "action_mask": _NO_ACTIONS}
            return (
                final,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        return self.observe(agent) if observe else None, *self._standing(agent)

    def _standing(self, agent: str) -> tuple[float, bool, bool, dict[str, Any]]:
        """``agent``'s cumulative reward, terminated, truncated and info."""
        if self.hand.turn is not None:  # the hand is live: no reward yet, nobody done
            return 0, False, False, self.infos[agent]
        return (
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
        return self.mask_cache.indices(self.hand)

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may see, and its legal actions (all zero when not its turn).

        The observation is a new array; the mask is shared and read-only (copy it to change
        it)."""
        seat = _SEAT_OF[agent]
        hand = self.hand
        mask = self.mask_cache.mask(hand) if hand.turn == seat else _NO_ACTIONS
        return {"observation": self._tracker.observe(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the action index of the agent to act (``None`` once the hand is over).

        Only an ``int`` (or a numpy integer, or a 0-d numpy array of one) from 0 to
        ``ACTION_COUNT - 1`` that the mask marks is taken; anything else raises
        :class:`ActionIndexError` (an ``IllegalActionError`` and a ``ValueError``) naming it,
        and changes nothing. Seated opponents then play until an agent is to act."""
        hand = self.hand
        seat = hand.turn
        if seat is None:  # the hand is over: every seat is terminated
            self._finished_step(self.agent_selection, action)
            return
        if type(action) is not int:
            if action is None:
                raise ValueError(
                    f"{self.agent_selection} must act: None is only for a finished hand"
                )
            if not isinstance(action, np.integer) and not _integer_scalar(action):
                raise _refuse(self.agent_selection, action)  # 1.7, "1", True: not rounded
            action = int(action)
        card = action - PLAY_BASE
        try:
            if 0 <= card < 32:  # most actions: a card in trick play
                # Raises IllegalActionError for a card not legal (in the auction too),
                # changing nothing, before the tracker is touched.
                hand.apply(PLAYS[seat][card])
                self._tracker.played(seat, card)
            else:
                if not 0 <= action < ACTION_COUNT:
                    raise _refuse(self.agent_selection, action)
                engine_action = action_at(hand, action)
                hand.apply(engine_action)
                self._tracker.auctioned(engine_action)
        except IllegalActionError as exc:
            if isinstance(exc, ActionIndexError):
                raise
            raise ActionIndexError(
                f"{self.agent_selection}: action {action} ({ACTIONS[action]}) "
                f"is not legal: {exc.message}; {_legal_now(self.legal_actions())}",
                action,
                exc.code,
            ) from None
        if self._bots:
            self._after_action()
            return
        # Rewards stay 0 (and need no writing) until the hand ends.
        turn = hand.turn
        if turn is not None:
            self.agent_selection = AGENTS[turn]
            return
        self._finish()

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
            if len(agents) == len(self.possible_agents) - 1:  # the payouts were this step's
                for name in agents:
                    self.rewards[name] = 0

    def clone(self) -> SheepsheadEnv:
        """An independent copy of this environment in its current state, for search: stepping
        either changes nothing of the other. The hand, the observations, the agents'
        bookkeeping, the seed sequence and this hand's opponents (shared if they cannot be
        deep-copied) are copied; the mask cache and the rules are shared (they are pure).
        ``copy.deepcopy(env)`` gives the same."""
        other = copy.copy(self)
        other.hand = self.hand.copy()
        other._bind(self._tracker.copy(other.hand))
        other._random = random.Random()
        other._random.setstate(self._random.getstate())
        try:
            other._bots = copy.deepcopy(self._bots)
        except (TypeError, copy.Error):  # a strategy holding what cannot be copied: shared
            other._bots = dict(self._bots)
        other.agents = list(self.agents)
        other.rewards = self.rewards.copy()
        other._cumulative_rewards = self._cumulative_rewards.copy()
        other.terminations = self.terminations.copy()
        other.truncations = self.truncations.copy()
        other.infos = {agent: info.copy() for agent, info in self.infos.items()}
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> SheepsheadEnv:
        return self.clone()

    def __copy__(self) -> SheepsheadEnv:
        # A shallow copy, what :meth:`clone` starts from (without this, copy.copy would take
        # pickling's state below).
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        return other

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps: every attribute as :meth:`clone` copies it, but the tracker as
        its rows (its memoryviews cannot be pickled), the mask cache as its size (a cache, up
        to 55 MB), no strategy builders (functions: built again from ``opponents``) and a
        strategy file's opponent as its attributes (see :func:`_file_seats`)."""
        state = self.__dict__.copy()
        del state["_seat_rows"], state["_builders"]
        state["_tracker"] = _tracker_state(self._tracker)
        state["mask_cache"] = self.mask_cache.limit
        files = _file_seats(self.opponents) if self._bots else set()
        if files:
            bots = self._bots
            state["_bots"] = {s: bot for s, bot in bots.items() if s not in files}
            state["_bot_states"] = {s: bots[s].__getstate__() for s in files if s in bots}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The environment :meth:`__getstate__` kept, in the same state: it plays on as the
        original would (a strategy file is loaded again, from the same path)."""
        state = dict(state)
        tracker = state.pop("_tracker")
        mask_cache_size = state.pop("mask_cache")
        bot_states = state.pop("_bot_states", {})
        # setattr, not __dict__.update: CPython 3.11 keeps the attributes in the instance's
        # values of the class's shared keys, which the hot methods' lookups are specialized on,
        # until its __dict__ is asked for.
        for name, value in state.items():
            setattr(self, name, value)
        self.mask_cache = MaskCache(mask_cache_size)
        self._bind(_restored_tracker(self.hand, tracker))
        self._builders = _factories(self.opponents)
        if bot_states:
            base = self.deal_seed % (1 << 62)  # as _reset_with_opponents seeds them
            self._bots = dict(self._bots)
            for seat, bot_state in bot_states.items():
                bot = self._bots[seat] = self._builders[seat](base + seat)
                _set_state(bot, bot_state)

    def determinize(
        self, seat: int | str | None = None, rng: random.Random | int | None = None
    ) -> SheepsheadEnv:
        """A :meth:`clone` in which the cards ``seat`` has not seen are dealt again at random,
        consistently with everything it has seen: one world of its information set, for
        determinized search and ISMCTS.

        ``seat`` (0-4 or ``"seat_N"``; default the seat to act) keeps its observation, its
        legal actions and the whole public history; the other hands, the blind and the bury
        are any that fit them (cards a seat showed it lacks, the called card never with the
        picker, ...: :func:`engine.bots.sampling.sample_hand`, the ``search`` bot's sampler).
        ``rng`` is a ``random.Random`` or a seed. Once the hand is over nothing is hidden: a
        plain clone."""
        other = self.clone()
        hand = self.hand
        if hand.turn is None:
            return other
        if seat is None:
            seat = hand.turn
        elif isinstance(seat, str):
            seat = _SEAT_OF[seat]
        if type(seat) is not int or not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0-4 or seat_0 ... seat_4, not {seat!r}")
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        from engine.bots.knowledge import read_view
        from engine.bots.sampling import sample_hand

        world = sample_hand(read_view(seat_view(hand, seat)), rng)
        # Replayed from the deal, so that the tracker's rows follow it as in a real hand.
        other.hand = Hand(self.rules, world.dealer, world.deal, world.multiplier)
        other._tracker.start(other.hand)
        for action in world.actions:
            other._apply(action)
        return other

    def state(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The perfect-information state, ``float32[STATE_SIZE]``: the five seats'
        observations, seat 0's first (each in its own relative seats, as :meth:`observe` gives
        it), then the blind as dealt (32 cards, as the observation's card planes). Together
        they hold every hand, the blind, the bury, the face-down card and everything public:
        what the rest of the hand depends on. For search, :meth:`clone` and the engine's
        ``hand`` (``env.unwrapped.hand``) are the state to step."""
        out = np.zeros(STATE_SIZE, dtype=np.float32)
        observe = self._tracker.observe
        for seat in range(NUM_SEATS):
            out[seat * OBSERVATION_SIZE : (seat + 1) * OBSERVATION_SIZE] = observe(seat)
        out[NUM_SEATS * OBSERVATION_SIZE + np.array(list(cards_in(self.hand.blind)), int)] = 1
        return out

    def record(self) -> dict[str, Any]:
        """The hand so far as a ``sheepshead-hand/1`` record (docs/hand-record.md)."""
        return export_record(self.hand)

    def render(self) -> str | None:
        """The hand so far, trick by trick: returned with ``render_mode="ansi"``, printed with
        ``"human"`` (nothing without a render mode, and a warning saying how to get it, as
        Gymnasium's environments give)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render mode: nothing to show. Make the "
                'environment with render_mode="ansi" (render() returns the hand as text) or '
                '"human" (render() prints it)'
            )
            return None
        text = describe_record(self.record())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def raw_env(
    rules: RuleSet | str | None = None,
    render_mode: str | None = None,
    *,
    mask_cache_size: int = PLAY_MASK_LIMIT,
    opponents: Mapping[int | str, Opponent] | None = None,
) -> SheepsheadEnv:
    """The environment without PettingZoo's order checks (fastest; its own checks of every
    action stay)."""
    return SheepsheadEnv(rules, render_mode, mask_cache_size=mask_cache_size, opponents=opponents)


class _Order:
    """The order checks' state (reset yet; stepped since the last agent given out), kept off
    the wrapper: PettingZoo's wrappers have a ``__getattr__``, and CPython 3.11 specializes no
    attribute lookup on such an object, so every ``self._has_updated`` of the wrapper's hot
    methods was a lookup through the whole class hierarchy."""

    __slots__ = ("has_reset", "has_updated")

    def __init__(self) -> None:
        self.has_reset = False
        self.has_updated = False


class CheckedEnv(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order checks (nothing before ``reset``; ``agent_iter`` wants a ``step`` or
    ``reset`` between agents) in one wrapper whose hot methods call the environment's directly.

    PettingZoo's wrappers reach every attribute through ``__getattr__``, one wrapper after the
    other, and rebuild ``last()`` from ``observe``: a decision cost three times the unwrapped
    environment's. Bounds need no wrapper here: :meth:`SheepsheadEnv.step` refuses anything
    but a legal int index. ``step`` is a function of the instance's own, reading the order
    state from an object without ``__getattr__`` (see :class:`_Order`).
    """

    def __init__(self, game: SheepsheadEnv) -> None:
        self._order = _Order()  # first: PettingZoo's __init__ sets the flags below
        super().__init__(game)
        self._game = game
        self.step = self._fast_step()  # type: ignore[method-assign,assignment]

    @property
    def _has_reset(self) -> bool:
        return self._order.has_reset

    @_has_reset.setter
    def _has_reset(self, value: bool) -> None:
        self._order.has_reset = value

    @property
    def _has_updated(self) -> bool:
        return self._order.has_updated

    @_has_updated.setter
    def _has_updated(self, value: bool) -> None:
        self._order.has_updated = value

    def _fast_step(self) -> Callable[[int | None], None]:
        """:meth:`step` as a function of this wrapper's: after a reset, with agents left, it
        marks the loop stepped and calls the environment's ``step``; else the class's
        :meth:`step` (PettingZoo's error, or its warning)."""
        game, order, checked = self._game, self._order, CheckedEnv.step

        def step(action: int | None) -> None:
            if order.has_reset and game.agents:
                order.has_updated = True
                game.step(action)
            else:
                checked(self, action)

        return step

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to act, as :meth:`SheepsheadEnv.agent_iter`, checking the loop steps."""
        if not self._has_reset:
            raise AttributeError("agent_iter() cannot be called before reset()")
        return self._iterate(max_iter)

    def _iterate(self, max_iter: int) -> Iterator[str]:
        game, order = self._game, self._order
        if max_iter >= 2**63:  # the default, as good as no limit: no count kept
            while game.agents:
                if not order.has_updated:
                    raise AssertionError(
                        "need to call step() or reset() in a loop over `agent_iter`"
                    )
                order.has_updated = False
                yield game.agent_selection
            return
        while game.agents and max_iter > 0:
            max_iter -= 1
            if not order.has_updated:
                raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
            order.has_updated = False
            yield game.agent_selection

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The environment's :meth:`SheepsheadEnv.last` (after ``reset``)."""
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset()")
        return self._game.last(observe)

    def step(self, action: int | None) -> None:
        """The environment's :meth:`SheepsheadEnv.step` (after ``reset``; with agents left)."""
        if not self._has_reset or not self._game.agents:
            super().step(action)  # PettingZoo's error, or its warning
            return
        self._has_updated = True
        self._game.step(action)

    def legal_actions(self) -> tuple[int, ...]:
        """The environment's :meth:`SheepsheadEnv.legal_actions`."""
        return self._game.legal_actions()

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new hand (:meth:`SheepsheadEnv.reset`)."""
        super().reset(seed=seed, options=options)
        self._bind_checked()

    def _bind_checked(self) -> None:
        # Once reset, last() and legal_actions() have nothing left to check: the environment's
        # own, bound on the instance, shadow this class's, and a call fewer shows at every
        # decision (before a reset the class's raise PettingZoo's error).
        game = self._game
        self.last = game.last  # type: ignore[method-assign]
        self.legal_actions = game.legal_actions  # type: ignore[method-assign]

    def clone(self) -> CheckedEnv:
        """A wrapped :meth:`SheepsheadEnv.clone`."""
        return self._rewrapped(self._game.clone())

    def _rewrapped(self, game: SheepsheadEnv) -> CheckedEnv:
        """``game`` (a copy of this one's environment) wrapped, in this wrapper's order state."""
        return _checked(game, self._has_reset, self._has_updated)

    def __deepcopy__(self, memo: dict[int, Any]) -> CheckedEnv:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its environment and order state: the wrapper's step is a function of its
        # own (which pickle cannot take), rebuilt by the constructor.
        return _checked, (self._game, self._has_reset, self._has_updated)

    def determinize(
        self, seat: int | str | None = None, rng: random.Random | int | None = None
    ) -> CheckedEnv:
        """A wrapped :meth:`SheepsheadEnv.determinize`."""
        return self._rewrapped(self._game.determinize(seat, rng))


def _checked(game: SheepsheadEnv, has_reset: bool, has_updated: bool) -> CheckedEnv:
    """``game`` wrapped in the order state given (a clone's, an unpickled wrapper's)."""
    checked = CheckedEnv(game)
    checked._has_reset = has_reset
    checked._has_updated = has_updated
    if has_reset:
        checked._bind_checked()
    return checked


def env(
    rules: RuleSet | str | None = None,
    render_mode: str | None = None,
    *,
    mask_cache_size: int = PLAY_MASK_LIMIT,
    opponents: Mapping[int | str, Opponent] | None = None,
) -> CheckedEnv:
    """The environment with PettingZoo's order checks (:class:`CheckedEnv`; for development)."""
    return CheckedEnv(
        raw_env(rules, render_mode, mask_cache_size=mask_cache_size, opponents=opponents)
    )


class SheepsheadParallelEnv(ParallelEnv):  # type: ignore[misc]
    """The hand as a PettingZoo ``ParallelEnv``: each :meth:`step` takes a map of actions, one per
    live agent, and applies only the action of the agent to act (whose observation's mask is
    the only non-zero one); the others' are ignored, so they may send anything (``0``).

    Built on :class:`SheepsheadEnv` (``opponents`` and all). Observations, rewards,
    terminations, truncations and infos cover every live agent after every step; once the hand
    is over they carry the payouts and ``agents`` is empty.

    The action of the agent to act must be legal: anything else raises
    :class:`ActionIndexError`, unless ``illegal_reward`` is a number: such an action then ends
    the hand, that reward the offender's and 0 the others', every agent terminated and the
    offender's ``info["illegal_action"]`` the action refused (as :class:`SingleAgentEnv`'s;
    for PettingZoo's ``parallel_seed_test``, which steps unmasked samples).
    """

    metadata: Final = {"name": "sheepshead_parallel_v0", "render_modes": ["human", "ansi"]}

    def __init__(self, game: SheepsheadEnv, *, illegal_reward: float | None = None) -> None:
        self.illegal_reward = _illegal_reward(illegal_reward)
        """The reward of an illegal action, which ends the hand (None: it raises)."""
        self.game = game
        """The AEC environment underneath (its ``hand``, ``clone``, ``state``)."""
        self.possible_agents = list(game.possible_agents)
        self.agents: list[str] = []
        self.render_mode = game.render_mode
        self.observation_spaces = game.observation_spaces
        self.action_spaces = game.action_spaces
        self.state_space = game.state_space

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """As :meth:`SheepsheadEnv.observation_space`."""
        return self.game.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """As :meth:`SheepsheadEnv.action_space`."""
        return self.game.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Deal a new hand (as :meth:`SheepsheadEnv.reset`): every agent's observation and
        info."""
        game = self.game
        game.reset(seed=seed, options=options)
        self.agents = list(game.agents)
        return {a: game.observe(a) for a in self.agents}, {a: game.infos[a] for a in self.agents}

    def step(self, actions: Mapping[str, int]) -> tuple[dict[str, Any], ...]:
        """Apply the action of the agent to act (a ``KeyError`` when it has none; a
        ``ValueError`` when no agent is live: before ``reset`` and once the hand is over, an
        illegal action's end included, which leaves the hand underneath as it was)."""
        if not self.agents:
            raise ValueError("no agent is live: reset() deals a hand")
        game = self.game
        agent = game.agent_selection
        if agent not in actions:
            raise KeyError(f"{agent} is to act: its action is missing")
        try:
            game.step(actions[agent])
        except ActionIndexError as exc:
            if self.illegal_reward is None:
                raise _penalty_hint(exc, "parallel_env") from None
            return self._refused(agent, exc.index)
        live = self.agents
        observations = {a: game.observe(a) for a in live}
        if game.hand.turn is not None:
            zero = dict.fromkeys(live, 0)
            not_done = dict.fromkeys(live, False)
            infos = {a: game.infos[a] for a in live}
            return observations, zero, not_done, not_done.copy(), infos
        rewards = {a: game.rewards[a] for a in live}
        infos = {a: game.infos[a] for a in live}
        self.agents = []
        return observations, rewards, dict.fromkeys(live, True), dict.fromkeys(live, False), infos

    def _refused(self, agent: str, action: object) -> tuple[dict[str, Any], ...]:
        """The step of an illegal ``action`` of ``agent`` with ``illegal_reward`` set: the hand
        ends there (the environment underneath stays as it was, until the next reset)."""
        game = self.game
        live = self.agents
        observations = {a: game.observe(a) for a in live}
        rewards: dict[str, float] = dict.fromkeys(live, 0)
        rewards[agent] = self.illegal_reward  # type: ignore[assignment]
        infos = {a: dict(game.infos[a]) for a in live}
        infos[agent]["illegal_action"] = action
        self.agents = []
        return observations, rewards, dict.fromkeys(live, True), dict.fromkeys(live, False), infos

    def legal_actions(self) -> tuple[int, ...]:
        """The action indices the agent to act may take, lowest first (the ones of the only
        non-zero ``action_mask``), as :meth:`SheepsheadEnv.legal_actions`; empty when no agent
        is live (before ``reset``, once the hand is over)."""
        return self.game.legal_actions() if self.agents else ()

    def state(self) -> np.ndarray[Any, np.dtype[np.float32]]:
        """As :meth:`SheepsheadEnv.state`."""
        return self.game.state()

    def render(self) -> str | None:
        """As :meth:`SheepsheadEnv.render`."""
        return self.game.render()

    def close(self) -> None:
        """Nothing to release."""


def parallel_env(
    rules: RuleSet | str | None = None,
    render_mode: str | None = None,
    *,
    mask_cache_size: int = PLAY_MASK_LIMIT,
    opponents: Mapping[int | str, Opponent] | None = None,
    illegal_reward: float | None = None,
) -> SheepsheadParallelEnv:
    """The environment as a ``ParallelEnv`` (:class:`SheepsheadParallelEnv`; ``illegal_reward``
    as there)."""
    return SheepsheadParallelEnv(
        raw_env(rules, render_mode, mask_cache_size=mask_cache_size, opponents=opponents),
        illegal_reward=illegal_reward,
    )


_ENTRY_POINT: Final = "botkit.env:SingleAgentEnv"
"""Where Gymnasium's registry finds :class:`SingleAgentEnv` (:data:`GYMNASIUM_ID`)."""

_EPISODE_ENDED: Final = "to deal the next hand: this episode ended (terminated)"
"""What :meth:`SingleAgentEnv.step` says once its episode is over."""

_NOT_DEALT: Final = "before the first step"
"""What :meth:`SingleAgentEnv.step` says before its first reset."""


class SingleAgentEnv(gymnasium.Env[dict[str, Any], int]):
    """One seat against built-in strategies, as a single-agent Gymnasium environment.

    ``seat`` (0-4, default 0) is the agent; the other four are played by ``opponents``: one
    :data:`Opponent` for all (default ``"heuristic"``) or a map of each of them. An episode is
    one hand (the dealer varies from hand to hand, so the seat's position does too):
    :meth:`reset` gives ``(observation, info)`` when it is first the agent's turn, and
    :meth:`step` ``(observation, reward, terminated, truncated, info)``, the reward 0 until the
    hand ends, then the seat's payout. Observations are :class:`SheepsheadEnv`'s (a dict with
    the ``action_mask``); an action not in the mask raises :class:`ActionIndexError`, unless
    ``illegal_reward`` is a number: such an action then ends the episode with that reward
    (``terminated``, ``info["illegal_action"]`` the action refused), as PettingZoo's
    ``TerminateIllegalWrapper`` does, for learners that do not read the mask (and Gymnasium's
    ``check_env``, which steps unmasked samples). ``self.game`` is the AEC environment
    underneath.
    """

    # render_fps: Gymnasium's checkers want one declared; text has no frame rate, and "human"
    # prints each render() at once (PettingZoo's card games declare 1 as well).
    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (gymnasium's own type)

    def __init__(
        self,
        seat: int = 0,
        opponents: Opponent | Mapping[int | str, Opponent] = "heuristic",
        rules: RuleSet | str | None = None,
        render_mode: str | None = None,
        *,
        mask_cache_size: int = PLAY_MASK_LIMIT,
        illegal_reward: float | None = None,
    ) -> None:
        if type(seat) is not int or not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0-4, not {seat!r}")
        self.illegal_reward = _illegal_reward(illegal_reward)
        """The reward of an illegal action, which ends the episode (None: it raises)."""
        if isinstance(opponents, list | tuple):  # taken for one strategy, it was "no strategy"
            raise ValueError(
                f"opponents must be one strategy for the four other seats ('heuristic') or a "
                f"map of each seat's, {{1: 'heuristic', 2: 'random', ...}}, not {opponents!r}"
            )
        if isinstance(opponents, Mapping):
            seats = _opponent_seats(opponents)
            if sorted(seats) != [s for s in range(NUM_SEATS) if s != seat]:
                raise ValueError(f"opponents must cover every seat but {seat}")
            others: dict[int | str, Opponent] = dict(seats.items())
        else:
            others = {s: opponents for s in range(NUM_SEATS) if s != seat}
        self.game = raw_env(rules, render_mode, mask_cache_size=mask_cache_size, opponents=others)
        self.agent = AGENTS[seat]
        self.render_mode = render_mode
        self.observation_space = self.game.observation_space(self.agent)
        self.action_space = self.game.action_space(self.agent)
        self._reset_needed = _NOT_DEALT
        # The spec gymnasium.make would give it (make replaces it with its own): with one,
        # Gymnasium's check_env makes the environment in each render mode and closes a second
        # one, rather than warning that it cannot.
        self.spec = gymnasium.envs.registration.EnvSpec(
            GYMNASIUM_ID,
            entry_point=_ENTRY_POINT,
            kwargs={
                "seat": seat,
                "opponents": opponents,
                "rules": rules,
                "illegal_reward": illegal_reward,
                "mask_cache_size": mask_cache_size,
            },
        )

    _reset_needed: str | None = None
    """Why :meth:`step` needs a :meth:`reset` first, or None: before the first hand, and once an
    episode ended (its hand played out, or an illegal action with ``illegal_reward``). The class
    default is for environments pickled before the attribute existed: they step on as before."""

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new hand; the opponents play until the agent is to act."""
        super().reset(seed=seed)
        game = self.game
        game.reset(seed=seed, options=options)
        self._reset_needed = None
        return self._observe(), dict(game.infos[self.agent])

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Apply the agent's action; the opponents answer until it is to act again.

        Before the first :meth:`reset`, and once an episode has ended (``terminated``), it
        raises Gymnasium's ``ResetNeeded`` and changes nothing: the next hand needs a reset."""
        if self._reset_needed is not None:
            raise gymnasium.error.ResetNeeded(
                f"{self.agent}: no hand to play: call reset() {self._reset_needed}"
            )
        game = self.game
        try:
            game.step(action)
        except ActionIndexError as exc:
            if self.illegal_reward is None:
                raise _penalty_hint(exc, "SingleAgentEnv") from None
            self._reset_needed = _EPISODE_ENDED
            info = {**game.infos[self.agent], "illegal_action": exc.index}
            return self._observe(), self.illegal_reward, True, False, info
        observation = self._observe()
        # A new dict each step: Gymnasium's checker warns when two steps share one, as a learner
        # may keep and change what it was given.
        info = dict(game.infos[self.agent])
        if game.hand.turn is not None:
            return observation, 0, False, False, info
        self._reset_needed = _EPISODE_ENDED
        return observation, game.rewards[self.agent], True, False, info

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The agent's legal actions now, as booleans: what ``sb3_contrib``'s ``MaskablePPO``
        (and its ``ActionMasker``-free path) asks the environment for before each step."""
        game = self.game
        hand = game.hand
        live = hand.turn is not None and AGENTS[hand.turn] == self.agent
        return (game.mask_cache.mask(hand) if live else _NO_ACTIONS).astype(bool)

    def legal_actions(self) -> tuple[int, ...]:
        """The action indices the agent may take now, lowest first: the ones its observation's
        ``action_mask`` marks, as a tuple (empty once the episode is over), as
        :meth:`SheepsheadEnv.legal_actions` gives them."""
        game = self.game
        hand = game.hand
        live = hand.turn is not None and AGENTS[hand.turn] == self.agent
        return game.mask_cache.indices(hand) if live and self._reset_needed is None else ()

    def _observe(self) -> dict[str, Any]:
        """The agent's observation with a mask of its own: Gymnasium wants new data from every
        call (the environment's masks are shared and read-only)."""
        observation = self.game.observe(self.agent)
        observation["action_mask"] = observation["action_mask"].copy()
        return observation

    def render(self) -> str | None:
        """As :meth:`SheepsheadEnv.render`: the hand so far, the last one once it ended; before
        the first :meth:`reset` Gymnasium's ``ResetNeeded`` (no hand was dealt to show)."""
        if self._reset_needed == _NOT_DEALT:
            raise gymnasium.error.ResetNeeded(f"{self.agent}: no hand to show: call reset() first")
        return self.game.render()


GYMNASIUM_ID: Final = "sheepshead/Sheepshead-v0"
"""The id of :class:`SingleAgentEnv` in Gymnasium's registry, registered when this module is
imported: ``gymnasium.make(GYMNASIUM_ID, opponents="heuristic", illegal_reward=-10)`` (the
keywords are the constructor's), or ``gymnasium.make("botkit.env:sheepshead/Sheepshead-v0")``
to import this module on the way."""

if GYMNASIUM_ID not in gymnasium.registry:  # importing again (a reload) keeps the first
    gymnasium.register(id=GYMNASIUM_ID, entry_point=_ENTRY_POINT)
