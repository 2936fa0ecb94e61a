"""Sheepshead as an OpenSpiel game, ``python_sheepshead``, for search and game-theoretic work.

Needs the optional extra ``openspiel``: ``pip install -e '.[openspiel]'`` in a checkout
(OpenSpiel's ``open_spiel`` wheel, with numpy). Importing this module registers the game::

    import pyspiel
    import botkit.openspiel  # registers python_sheepshead

    game = pyspiel.load_game("python_sheepshead")              # wisconsin rules
    game = pyspiel.load_game("python_sheepshead(rules=tavern)")
    state = game.new_initial_state()

One game is one hand of five-handed Sheepshead, played by the engine (:class:`engine.hand.Hand`):
five players, sequential, imperfect information, zero-sum; the returns at the end are the
engine's payouts (docs/rules.md, "Scoring a picked hand"), 0 before. Player ``p`` is seat ``p``.

**Actions** are the training environment's indices (:mod:`botkit.actions`: 0 pass, 1 pick,
627 + c play card c, ...), so ``num_distinct_actions`` is
:data:`~botkit.actions.ACTION_COUNT` and a policy trained on :mod:`botkit.env` reads the same
numbers; the legal actions are the engine's, as those indices, lowest first.

**Chance is explicit**: the first chance node draws the dealer (5 outcomes, 1/5 each), the next
32 the deck card by card (each a card number 0-31 among those not drawn yet, uniformly), and
the deck is then dealt as the engine deals a shuffled deck (:meth:`engine.hand.Deal.from_deck`:
3-2-3 from the dealer's left, the blind at deck positions 15 and 16). Explicit rather than
sampled because every OpenSpiel algorithm handles explicit chance (external-sampling MCCFR
walks ``chance_outcomes``, outcome sampling, IS-MCTS's rollouts and ``evaluate_bots`` sample
them, ``rl_environment`` draws them from its own seeded generator), while a game that samples
its own chance is one that exact and external-sampling methods cannot run; card by card keeps
every node's outcome list small (at most 32; a deal as one outcome would be 32!/(6!^5 2!)
of them). The same driver generator gives the same deals: seeding it is seeding the game.

**Parameters**: ``rules``, a preset name (default ``wisconsin``, the project's default:
``sheepshead play``, tournaments and :mod:`botkit.env`). There is no ``seed``: OpenSpiel's own
checker (``pyspiel.random_sim_test``) wants every initial state's history empty, so a game
cannot start from a fixed deal, and with explicit chance the driver's generator is the seed
(``evaluate_bots(state, bots, np.random.RandomState(7))`` plays the same hands every run).
:func:`dealt_state` applies the chance nodes of one engine deal (a deal seed and a dealer), and
:func:`env_deals` lists the deals ``botkit.env``'s ``reset(seed=S)`` deals, in order: the same
hands as the training environment, to compare against it.

**Observations** (:meth:`SheepsheadGame.make_py_observer`): both tensors are
:func:`botkit.encode.encode_view` of the player's :func:`engine.view.seat_view`, the
environment's observation (555 floats; the layout is in :mod:`botkit.encode`). That vector
summarizes the finished tricks by who played which card, not in order, so it is not perfect
recall; the *information-state string* is: the seat, the dealer, the cards dealt to it and
every action so far as it saw it (the bury's and the face-down card's cards only for the
picker, the blind only for the picker), which is what tabular methods (CFR, IS-MCTS's tree)
key on. The observation string is the view map as JSON. While dealing, a player sees the
dealer and the cards dealt to it so far.

**Resampling**: :meth:`SheepsheadState.resample_from_infostate` deals the cards a player has
not seen again, consistently with everything it saw (the ``search`` bot's sampler,
:func:`engine.bots.sampling.sample_hand`, as :meth:`botkit.env.SheepsheadEnv.determinize`),
and replays the hand from the start, chance nodes and all: the state it returns has a history
of its own and the player's information state. OpenSpiel's IS-MCTS runs on it
(``examples/openspiel_ismcts.py``).

:class:`StrategyBot` seats any of the project's strategies (``heuristic``, ``search``, a
strategy file) as an OpenSpiel bot.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from botkit.extras import missing_extra

try:
    import numpy as np
except ModuleNotFoundError as missing:  # the rl extra is not installed
    raise missing_extra("botkit.openspiel", "rl", missing) from None
try:
    import pyspiel  # type: ignore[import-not-found,unused-ignore]
except ModuleNotFoundError as missing:  # the openspiel extra is not installed
    raise missing_extra("botkit.openspiel", "openspiel", missing) from None

from botkit.actions import ACTION_COUNT, ACTIONS, action_at, action_index
from botkit.cache import MaskCache
from botkit.encode import DEALER_AT, HAND_AT, OBSERVATION_LAYOUT, OBSERVATION_SIZE, encode_view
from engine.actions import NUM_SEATS
from engine.bots.base import Strategy
from engine.cards import CARD_CODES, codes_of
from engine.hand import Deal, Hand, shuffled_deck
from engine.rules import DEFAULT_PRESET, PRESETS_OPTIONS, RuleSet
from engine.view import seat_view

__all__ = [
    "GAME_NAME",
    "SheepsheadGame",
    "SheepsheadObserver",
    "SheepsheadState",
    "StrategyBot",
    "dealt_state",
    "env_deals",
    "payout_bound",
    "resample",
]

GAME_NAME: Final = "python_sheepshead"
"""The game's short name in OpenSpiel's registry."""

DECK_SIZE: Final = 32
MAX_GAME_LENGTH: Final = 45
"""The most decisions a hand can take: at most 5 auction turns, the pick, the bury, the call,
two blitzes, four crack answers, the re-crack, then 30 cards (a bound, not always reached)."""

_MASK_CACHE_SIZE: Final = 4096
"""Trick-play masks a game keeps (its states share them): a few MB, not the environment's 55."""


def _seats_by_position(dealer: int) -> tuple[int, ...]:
    """Who each deck position is dealt to (5: the blind), as :meth:`Deal.from_deck` deals."""
    deal = Deal.from_deck(list(range(DECK_SIZE)), dealer)
    return tuple(
        next((s for s, h in enumerate(deal.hands) if h >> i & 1), NUM_SEATS)
        for i in range(DECK_SIZE)
    )


_DEALT_TO: Final = tuple(_seats_by_position(d) for d in range(NUM_SEATS))
"""``_DEALT_TO[dealer][i]``: the seat deck position ``i`` goes to (5: the blind)."""


def _action_text(index: int, private: bool) -> str:
    """Action ``index`` as text; without ``private``, the cards only the picker sees are left
    out (the bury, the card laid face down)."""
    action = ACTIONS[index]
    kind = action["action"]
    if kind == "bury":
        return "bury " + " ".join(action["cards"]) if private else "bury"
    if kind == "unknown":
        under = f" under {action['under']}" if private else ""
        return f"unknown {action['card']}{under}"
    extra = [str(v) for k, v in action.items() if k != "action" and v is not None]
    return " ".join([kind, *extra])


_TEXT: Final = tuple(_action_text(i, True) for i in range(ACTION_COUNT))
_PUBLIC_TEXT: Final = tuple(_action_text(i, False) for i in range(ACTION_COUNT))


def payout_bound(rules: RuleSet) -> int:
    """The largest payout (in size) a seat can get under ``rules``: the picker alone taking no
    trick pays 3 to each of four (12), twice with ``double_on_the_bump``, doubled again by
    every blitz, crack, shown pair and re-crack the rules allow.

    >>> payout_bound(RuleSet.from_preset("wisconsin")), payout_bound(RuleSet.from_preset("tavern"))
    (24, 768)
    """
    doublings = 2 * rules.blitzing + 3 * rules.cracking
    return 12 * (2 if rules.double_on_the_bump else 1) << doublings


_GAME_TYPE: Final = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Sheepshead (five-handed)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_SEATS,
    min_num_players=NUM_SEATS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": DEFAULT_PRESET},
)


class SheepsheadGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of five-handed Sheepshead (see the module doc). ``params``: ``rules`` (a
    preset name)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        preset = params.get("rules", DEFAULT_PRESET)
        if preset not in PRESETS_OPTIONS:
            raise ValueError(f"rules must be one of {sorted(PRESETS_OPTIONS)}, not {preset!r}")
        self.rules = RuleSet.from_preset(preset)
        """The rules every hand of this game is played under."""
        bound = payout_bound(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=DECK_SIZE,
            num_players=NUM_SEATS,
            min_utility=-float(bound),
            max_utility=float(bound),
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.masks = MaskCache(_MASK_CACHE_SIZE)
        """The legal actions and masks of this game's states (shared: it is a pure cache)."""

    def new_initial_state(self) -> SheepsheadState:
        """A hand before the deal: a chance node (the dealer)."""
        return SheepsheadState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> SheepsheadObserver:
        """The observer of ``iig_obs_type`` (default: the observation, not perfect recall)."""
        return SheepsheadObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Core:
    """A state's own data, the one attribute of its ``__dict__``: OpenSpiel's ``clone()`` of a
    Python state deep-copies its ``__dict__``, and this copies the hand with
    :meth:`Hand.copy` and keeps the game (its rules, its mask cache) shared, where a plain deep
    copy walked the rules and made the game a new, empty object."""

    __slots__ = ("dealer", "deck", "game", "hand")

    def __init__(self, game: SheepsheadGame) -> None:
        self.game = game
        self.dealer: int | None = None
        self.deck: list[int] = []
        self.hand: Hand | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        other = _Core(self.game)
        other.dealer = self.dealer
        other.deck = list(self.deck)
        other.hand = None if self.hand is None else self.hand.copy()
        return other


class SheepsheadState(pyspiel.State):  # type: ignore[misc]
    """A hand being dealt or played. ``hand`` is the engine's hand once dealt (None while
    dealing): read it, change it only through ``apply_action``."""

    def __init__(self, game: SheepsheadGame) -> None:
        super().__init__(game)
        self._core = _Core(game)

    @property
    def dealer(self) -> int | None:
        """The dealer, once the first chance node drew it."""
        return self._core.dealer

    @property
    def deck(self) -> list[int]:
        """The cards drawn so far, in deck order (read it)."""
        return self._core.deck

    @property
    def hand(self) -> Hand | None:
        """The engine's hand once dealt (None while dealing)."""
        return self._core.hand

    def current_player(self) -> int:
        """The seat to act; ``CHANCE`` while dealing, ``TERMINAL`` once the hand is over."""
        hand = self.hand
        if hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        turn = hand.turn
        return int(pyspiel.PlayerId.TERMINAL) if turn is None else turn

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions of the seat to act, as indices, lowest first."""
        assert self.hand is not None and player == self.hand.turn
        return list(self._core.game.masks.indices(self.hand))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (0-4) at first, then the next card among those not drawn, uniformly."""
        if self.dealer is None:
            return [(d, 1 / NUM_SEATS) for d in range(NUM_SEATS)]
        drawn = set(self.deck)
        left = [c for c in range(DECK_SIZE) if c not in drawn]
        p = 1 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        core = self._core
        hand = core.hand
        if hand is not None:
            hand.apply(action_at(hand, action))
            return
        if core.dealer is None:
            core.dealer = action
            return
        core.deck.append(action)
        if len(core.deck) == DECK_SIZE:
            core.hand = Hand(core.game.rules, core.dealer, Deal.from_deck(core.deck, core.dealer))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.dealer is None else f"deal {CARD_CODES[action]}"
        return f"{player}: {_TEXT[action]}"

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return self.hand is not None and self.hand.turn is None

    def returns(self) -> list[float]:
        """The payouts once the hand is over (they sum to zero), zeros before."""
        hand = self.hand
        if hand is None or hand.turn is not None:
            return [0.0] * NUM_SEATS
        payouts = hand.result().payouts
        assert payouts is not None
        return [float(p) for p in payouts]

    def dealt_to(self, player: int) -> list[int]:
        """The cards dealt to ``player`` so far, in deck order."""
        if self.dealer is None:
            return []
        seats = _DEALT_TO[self.dealer]
        return [c for i, c in enumerate(self.deck) if seats[i] == player]

    def information_state_string(self, player: int | None = None) -> str:
        """``player``'s information state as text (default: the player to act); see the
        module doc. The same as the observer's with ``perfect_recall=True``."""
        if player is None:
            player = self.current_player()
        return _information_state(self, player)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | None = None
    ) -> SheepsheadState:
        """A state that ``player_id`` cannot tell from this one, the cards it has not seen dealt
        again at random (see the module doc). ``probability_sampler`` gives the randomness (a
        call returning a float in [0, 1): OpenSpiel's ``UniformProbabilitySampler``); without
        one, a fresh generator."""
        seed = int(probability_sampler() * 2**53) if probability_sampler else None
        return resample(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        hand = self.hand
        if hand is None:
            cards = " ".join(CARD_CODES[c] for c in self.deck)
            return f"dealer {self.dealer}; deck so far: {cards}"
        jack_order = hand.rules.jack_order
        hands = " | ".join(" ".join(codes_of(h, jack_order)) for h in hand.deal.hands)
        blind = " ".join(codes_of(hand.deal.blind, jack_order))
        history = ", ".join(f"{a.seat}: {_TEXT[action_index(a)]}" for a in hand.actions)
        return f"dealer {hand.dealer}; dealt {hands}; blind {blind}; actions: {history}"


def _information_state(state: SheepsheadState, player: int) -> str:
    """The perfect-recall text of ``player``'s information state (see the module doc)."""
    mine = " ".join(CARD_CODES[c] for c in sorted(state.dealt_to(player)))
    head = f"seat {player}; dealer {state.dealer}; dealt {len(state.deck)}; cards {mine}"
    hand = state.hand
    if hand is None:
        return head
    events = []
    for action in hand.actions:
        index = action_index(action)
        seat = action.seat
        if seat == player:
            text = _TEXT[index]
            if action.kind == "pick":  # the picker sees the blind it takes
                text += " " + " ".join(CARD_CODES[c] for c in sorted(_bits(hand.deal.blind)))
        else:
            text = _PUBLIC_TEXT[index]
        events.append(f"{seat}: {text}")
    return head + "; " + ", ".join(events)


def _bits(mask: int) -> list[int]:
    return [c for c in range(DECK_SIZE) if mask >> c & 1]


def _tensor(state: SheepsheadState, player: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    """``player``'s observation vector: :func:`botkit.encode.encode_view` of its view, or while
    dealing its cards so far and the dealer."""
    hand = state.hand
    if hand is not None:
        return encode_view(seat_view(hand, player))
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    for card in state.dealt_to(player):
        out[HAND_AT + card] = 1
    if state.dealer is not None:
        out[DEALER_AT + (state.dealer - player) % NUM_SEATS] = 1
    return out


def _observation_string(state: SheepsheadState, player: int) -> str:
    """``player``'s view map as JSON (while dealing: its cards so far)."""
    hand = state.hand
    if hand is None:
        return _information_state(state, player)
    return json.dumps(seat_view(hand, player), sort_keys=True, separators=(",", ":"))


class SheepsheadObserver:
    """OpenSpiel's Python observer: ``tensor`` (the observation vector, see the module doc),
    ``dict`` (its fields by :data:`botkit.encode.OBSERVATION_LAYOUT` name, views of
    ``tensor``), ``set_from(state, player)`` and ``string_from(state, player)`` (the
    information-state text with ``perfect_recall``, else the view as JSON). Only the player's
    own view is offered (private information of a single player, public information on)."""

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError("only a player's own view is offered (private info SINGLE_PLAYER)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self.dict: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        at = 0
        for name, size in OBSERVATION_LAYOUT:
            self.dict[name] = self.tensor[at : at + size]
            at += size

    def set_from(self, state: SheepsheadState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s observation of ``state``."""
        self.tensor[:] = _tensor(state, player)

    def string_from(self, state: SheepsheadState, player: int) -> str:
        """``player``'s information state (``perfect_recall``) or observation, as text."""
        if self.perfect_recall:
            return _information_state(state, player)
        return _observation_string(state, player)


def dealt_state(game: SheepsheadGame, deal_seed: int, dealer: int) -> SheepsheadState:
    """A state of ``game`` with the hand the engine deals from ``deal_seed`` and ``dealer``
    (as :meth:`engine.hand.Hand.from_seed`, ``botkit.env``'s ``options={"deal_seed": ...,
    "dealer": ...}`` and the tournaments), its 33 chance nodes applied."""
    state = SheepsheadState(game)
    state.apply_action(dealer)
    for card in shuffled_deck(deal_seed):
        state.apply_action(card)
    return state


def env_deals(seed: int, count: int) -> list[tuple[int, int]]:
    """The first ``count`` deals, as ``(deal_seed, dealer)``, of a :mod:`botkit.env` environment
    reset with ``seed`` (its ``info["deal_seed"]`` and ``info["dealer"]``, reset after reset):
    :func:`dealt_state` of each is the hand the environment deals."""
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        deal_seed = rng.getrandbits(63)  # in the order SheepsheadEnv.reset draws them
        deals.append((deal_seed, rng.randrange(NUM_SEATS)))
    return deals


def _deck_of(deal: Deal, dealer: int, rng: random.Random) -> list[int]:
    """A deck that :meth:`Deal.from_deck` deals as ``deal`` (each seat's cards in an order
    drawn from ``rng``)."""
    pools = [_bits(h) for h in deal.hands] + [_bits(deal.blind)]
    for pool in pools:
        rng.shuffle(pool)
    # Seen by another seat between the pick and the first card, the sampler's world deals the
    # picker its eight cards and no blind: any two of them may have been the blind (the rest
    # of the table cannot tell), so two drawn at random are.
    for pool in pools[:NUM_SEATS]:
        while len(pool) > 6:
            pools[NUM_SEATS].append(pool.pop())
    return [pools[seat].pop() for seat in _DEALT_TO[dealer]]


def resample(state: SheepsheadState, player: int, rng: random.Random) -> SheepsheadState:
    """:meth:`SheepsheadState.resample_from_infostate` with a generator of its own."""
    from engine.bots.knowledge import read_view
    from engine.bots.sampling import sample_hand

    game = state._core.game
    hand = state.hand
    if hand is not None and hand.turn is None:  # over: nothing is hidden any more
        return state.clone()  # type: ignore[no-any-return]
    other = SheepsheadState(game)
    if hand is None:  # dealing: the cards not dealt to player, drawn again
        if state.dealer is None:
            return other
        other.apply_action(state.dealer)
        seats = _DEALT_TO[state.dealer]
        unseen = [c for i, c in enumerate(state.deck) if seats[i] != player]
        drawn = set(state.deck)
        unseen += [c for c in range(DECK_SIZE) if c not in drawn]
        rng.shuffle(unseen)
        for i, card in enumerate(state.deck):
            other.apply_action(card if seats[i] == player else unseen.pop())
        return other
    world = sample_hand(read_view(seat_view(hand, player)), rng)
    other.apply_action(world.dealer)
    for card in _deck_of(world.deal, world.dealer, rng):
        other.apply_action(card)
    for action in world.actions:
        other.apply_action(action_index(action))
    return other


class StrategyBot(pyspiel.Bot):  # type: ignore[misc]
    """One of the project's strategies as an OpenSpiel bot: ``step(state)`` asks it exactly as a
    tournament does (the seat's view and legal list; one that raises or answers something
    illegal plays its first legal action) and returns the action's index.

    ``strategy`` is a spec (``"heuristic"``, ``"search:samples=20"``, ``"my_bot.py"``), built
    afresh at each ``restart_at`` from ``seed`` and a count of the hands, or a strategy object
    (``choose(view, legal)``), used as given."""

    def __init__(self, strategy: str | Strategy, seed: int = 0) -> None:
        super().__init__()
        self._build: Callable[[int], Strategy] | None = None
        if isinstance(strategy, str):
            from client.strategy_spec import strategy_factory

            self._build = strategy_factory(strategy)
            self._strategy = self._build(seed)
        else:
            self._strategy = strategy
        self._seed = seed
        self._hands = 0

    def restart_at(self, state: SheepsheadState) -> None:
        """A new hand: a spec's strategy is built again, from a seed of its own."""
        del state
        self._hands += 1
        if self._build is not None:
            self._strategy = self._build(self._seed * 1_000_003 + self._hands)

    def inform_action(self, state: SheepsheadState, player: int, action: int) -> None:
        """Nothing to learn: the strategy reads the whole view at its turn."""

    def step(self, state: SheepsheadState) -> int:
        """The strategy's choice in ``state`` for the player to act, as an action index."""
        from client.strategy_call import decide

        hand = state.hand
        assert hand is not None and hand.turn is not None
        view = seat_view(hand, hand.turn)
        return action_index(decide(self._strategy, view, view["legal"]).action)


if GAME_NAME not in pyspiel.registered_names():  # importing again (a reload) keeps the first
    pyspiel.register_game(_GAME_TYPE, SheepsheadGame)
