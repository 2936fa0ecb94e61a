"""A PettingZoo AEC environment over the engine, for training Sheepshead bots.

Needs the optional extra: ``pip install 'sheepshead[rl]'`` (numpy and pettingzoo). This is the
only module of the project that imports them; it is not part of the compiled build.

::

    from engine.rl import env
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

**Actions** are fixed indices (:data:`ACTIONS`, :func:`action_index`, :func:`action_at`), the
same in every state; the observation's ``action_mask`` marks the legal ones, and
:meth:`SheepsheadEnv.legal_actions` lists them as a tuple (cheaper for a policy that only picks
among them: random rollouts, tree search). Cards are numbered
as :data:`engine.cards.CARD_CODES` (``suit * 8 + rank``, suits C S H D, ranks 7 8 9 T J Q K A):

========================  =======================================================
index                     action
========================  =======================================================
0                         pass
1                         pick
2 ... 497                 bury cards (a, b), a < b: 2 + :data:`BURY_PAIRS` index
498 ... 529               call card c (a fail ace or ten, or JD): 498 + c
530                       alone
531 ... 626               unknown: call fail ace AC/AS/AH (0/1/2) with ``under`` u:
                          531 + 32 * ace + u
627 ... 658               play card c: 627 + c
659, 660                  blitz the black (QC QS) / red (QH QD) queens
661                       crack
662, 663                  crack showing the black / red queens
664                       no crack
665                       re-crack
666                       no re-crack
========================  =======================================================

Cracking and blitzing (docs/rules.md, RULES.md §11) came after the first 659 indices and were
appended; new kinds of action are appended the same way. No index ever changes meaning, so a
trained policy keeps working (its extra outputs stay masked).

**Observations** are ``{"observation": float32[OBSERVATION_SIZE], "action_mask":
int8[ACTION_COUNT]}``, built from exactly what the seat may see (the fields of its
:func:`engine.view.seat_view`; :func:`encode_view` builds the same vector from a view map, so a
bot playing over the network can use a trained policy). Seats are *relative*: 0 is the observing
seat, 1 the seat to its left, and so on. The layout, by offset (:data:`OBSERVATION_LAYOUT`):

=======  =====  ===========================================================================
offset   size   content (1.0 = yes)
=======  =====  ===========================================================================
0        32     my hand
32       32     the blind: as picker once picked; everyone's once the hand is over
64       32     the bury: as picker once called; everyone's once the hand is over
96       32     the unknown card laid face down (picker, or everyone once over)
128      32     the called card
160      160    cards played in finished tricks, 32 per relative seat that played them
320      160    the current trick's cards, 32 per relative seat
480      5      phase: pick, bury, call, play, done
485      5      dealer (relative seat)
490      5      picker (relative seat; all zero before a pick, in a leaster or doubler)
495      5      partner, when this seat knows it (it is the partner, or the called card fell)
500      5      the seats that passed
505      5      leader of the current trick
510      5      the seat to act (all zero once over)
515      5      card points taken in tricks, / 120, per relative seat
520      5      tricks won, / 6, per relative seat
525      4      alone, unknown card called, leaster, doubler
529      1      stakes: log2(multiplier) / 10, at most 1
530      9      rules: jack_order clubs-first; partner jack-of-diamonds; no_pick leaster,
                doubler, forced-pick; unknown_card; no_trick_partner_exempt;
                double_on_the_bump; leaster_needs_trick
539      2      phase, continued: crack, recrack (the phase field above is then all zero)
541      2      the picker blitzed the black queens, the red queens
543      5      the seat that cracked (relative)
548      2      the cracker showed the black queens, the red queens
550      1      the picker re-cracked
551      1      the hand's stakes so far (the view's ``stakes``: the multiplier doubled per
                blitz, crack, shown pair and re-crack): log2 / 10, at most 1
552      3      rules: blitzing; cracking; crack_by defenders
=======  =====  ===========================================================================

New fields are appended; :data:`OBSERVATION_SIZE` is the total (555 today; the first 539 are
the layout before cracking and blitzing, unchanged).

**Seeds**: ``reset(seed=S)`` starts a generator from ``S``; each reset draws the deal's seed and
the dealer from it, so a seeded run deals the same hands in the same order. ``options`` may fix
``{"deal_seed": int, "dealer": 0-4, "multiplier": int}`` for one hand; other keys are ignored.
``info["deal_seed"]`` and ``info["dealer"]`` tell what was dealt, and
:meth:`SheepsheadEnv.record` gives the hand as a ``sheepshead-hand/1`` record.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from engine.actions import (
    ALONES,
    BLITZES,
    CALLS,
    CRACKS,
    NO_CRACKS,
    NO_RECRACKS,
    NUM_SEATS,
    PAIRS,
    PASSES,
    PICKS,
    PLAYS,
    RECRACKS,
    Action,
    Unknown,
    shared_bury,
)
from engine.cards import CARD_CODES, Mask, cards_in, parse_card
from engine.hand import Deal, Hand
from engine.record import describe_record, export_record
from engine.rules import RuleSet

__all__ = [
    "ACTIONS",
    "ACTION_COUNT",
    "BURY_PAIRS",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "SheepsheadEnv",
    "action_at",
    "action_index",
    "encode_view",
    "env",
    "raw_env",
]

# ---------------------------------------------------------------------------------- actions

PASS_INDEX: Final = 0
PICK_INDEX: Final = 1
BURY_BASE: Final = 2
BURY_PAIRS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(range(32), 2))
"""Every bury as a pair of card numbers ``(a, b)``, ``a < b``, in index order."""
CALL_BASE: Final = BURY_BASE + len(BURY_PAIRS)
ALONE_INDEX: Final = CALL_BASE + 32
UNKNOWN_ACES: Final = tuple(parse_card(code) for code in ("AC", "AS", "AH"))
UNKNOWN_BASE: Final = ALONE_INDEX + 1
PLAY_BASE: Final = UNKNOWN_BASE + 32 * len(UNKNOWN_ACES)
BLITZ_BASE: Final = PLAY_BASE + 32
"""Blitz the black queens (``BLITZ_BASE``) or the red ones (``+ 1``)."""
CRACK_INDEX: Final = BLITZ_BASE + len(PAIRS)
"""A plain crack; ``CRACK_INDEX + 1 + p`` cracks showing queen pair ``PAIRS[p]``."""
NO_CRACK_INDEX: Final = CRACK_INDEX + 1 + len(PAIRS)
RECRACK_INDEX: Final = NO_CRACK_INDEX + 1
NO_RECRACK_INDEX: Final = RECRACK_INDEX + 1
ACTION_COUNT: Final = NO_RECRACK_INDEX + 1
"""How many action indices there are (667 today; new kinds are appended)."""

_PAIR_INDEX: Final = {pair: i for i, pair in enumerate(BURY_PAIRS)}
_PAIR_NUMBER: Final[dict[str | None, int]] = {pair: i for i, pair in enumerate(PAIRS)}


def _action_map(index: int) -> dict[str, Any]:
    if index == PASS_INDEX:
        return {"action": "pass"}
    if index == PICK_INDEX:
        return {"action": "pick"}
    if index < CALL_BASE:
        a, b = BURY_PAIRS[index - BURY_BASE]
        return {"action": "bury", "cards": [CARD_CODES[a], CARD_CODES[b]]}
    if index < ALONE_INDEX:
        return {"action": "call", "card": CARD_CODES[index - CALL_BASE]}
    if index == ALONE_INDEX:
        return {"action": "alone"}
    if index < PLAY_BASE:
        ace, under = divmod(index - UNKNOWN_BASE, 32)
        return {
            "action": "unknown",
            "card": CARD_CODES[UNKNOWN_ACES[ace]],
            "under": CARD_CODES[under],
        }
    if index < BLITZ_BASE:
        return {"action": "play", "card": CARD_CODES[index - PLAY_BASE]}
    if index < CRACK_INDEX:
        return {"action": "blitz", "pair": PAIRS[index - BLITZ_BASE]}
    if index == CRACK_INDEX:
        return {"action": "crack"}
    if index < NO_CRACK_INDEX:
        return {"action": "crack", "blitz": PAIRS[index - CRACK_INDEX - 1]}
    return {
        NO_CRACK_INDEX: {"action": "no_crack"},
        RECRACK_INDEX: {"action": "recrack"},
        NO_RECRACK_INDEX: {"action": "no_recrack"},
    }[index]


ACTIONS: Final[tuple[dict[str, Any], ...]] = tuple(_action_map(i) for i in range(ACTION_COUNT))
"""The action map (wire form, without ``seat``) of every index: ``ACTIONS[627]`` is
``{"action": "play", "card": "7C"}``. Treat as read-only."""


def action_index(action: Action | Mapping[str, Any]) -> int:
    """The index of an engine action or an action map (with or without ``seat``).

    >>> action_index({"action": "play", "card": "QC"}), action_index({"action": "pass"})
    (632, 0)
    >>> ACTIONS[action_index({"action": "bury", "cards": ["8S", "7H"]})]["cards"]
    ['8S', '7H']
    >>> action_index({"action": "crack", "blitz": "red"})
    663

    Raises ValueError for a map that is no action.
    """
    if not isinstance(action, Mapping):
        return _engine_index(action)
    kind = action.get("action")
    try:
        if kind == "pass":
            return PASS_INDEX
        if kind == "pick":
            return PICK_INDEX
        if kind == "bury":
            a, b = sorted(parse_card(c) for c in action["cards"])
            return BURY_BASE + _PAIR_INDEX[(a, b)]
        if kind == "call":
            return CALL_BASE + parse_card(action["card"])
        if kind == "alone":
            return ALONE_INDEX
        if kind == "unknown":
            ace = UNKNOWN_ACES.index(parse_card(action["card"]))
            return UNKNOWN_BASE + 32 * ace + parse_card(action["under"])
        if kind == "play":
            return PLAY_BASE + parse_card(action["card"])
        if kind == "blitz":
            return BLITZ_BASE + _PAIR_NUMBER[action["pair"]]
        if kind == "crack":
            pair = action.get("blitz")
            return CRACK_INDEX if pair is None else CRACK_INDEX + 1 + _PAIR_NUMBER[pair]
        if kind == "no_crack":
            return NO_CRACK_INDEX
        if kind == "recrack":
            return RECRACK_INDEX
        if kind == "no_recrack":
            return NO_RECRACK_INDEX
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not an action map: {dict(action)!r} ({exc})") from None
    raise ValueError(f"unknown action {kind!r}")


_FIXED_INDEX: Final = {
    "pass": PASS_INDEX,
    "pick": PICK_INDEX,
    "alone": ALONE_INDEX,
    "no_crack": NO_CRACK_INDEX,
    "recrack": RECRACK_INDEX,
    "no_recrack": NO_RECRACK_INDEX,
}
"""The index of each kind of action that has no fields but its seat."""


def _engine_index(action: Action) -> int:
    kind = action.kind
    if kind == "play":
        return PLAY_BASE + action.card  # type: ignore[union-attr]
    fixed = _FIXED_INDEX.get(kind)
    if fixed is not None:
        return fixed
    if kind == "bury":
        a, b = action.cards  # type: ignore[union-attr]
        return BURY_BASE + _PAIR_INDEX[(a, b) if a < b else (b, a)]
    if kind == "call":
        return CALL_BASE + action.card  # type: ignore[union-attr]
    if kind == "blitz":
        return BLITZ_BASE + _PAIR_NUMBER[action.pair]  # type: ignore[union-attr]
    if kind == "crack":
        pair = action.blitz  # type: ignore[union-attr]
        return CRACK_INDEX if pair is None else CRACK_INDEX + 1 + _PAIR_NUMBER[pair]
    assert isinstance(action, Unknown)
    return UNKNOWN_BASE + 32 * UNKNOWN_ACES.index(action.card) + action.under


def action_at(hand: Hand, index: int) -> Action:
    """The engine action of ``index`` for the seat to act in ``hand`` (not checked for
    legality: :meth:`Hand.apply` does that)."""
    seat = hand.turn
    if seat is None:
        raise ValueError("the hand is over: no seat acts")
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"action index {index} is not from 0 to {ACTION_COUNT - 1}")
    if PLAY_BASE <= index < BLITZ_BASE:
        return PLAYS[seat][index - PLAY_BASE]
    if index == PASS_INDEX:
        return PASSES[seat]
    if index == PICK_INDEX:
        return PICKS[seat]
    if index < CALL_BASE:
        a, b = BURY_PAIRS[index - BURY_BASE]
        return shared_bury(seat, a, b)
    if index < ALONE_INDEX:
        return CALLS[seat][index - CALL_BASE]
    if index == ALONE_INDEX:
        return ALONES[seat]
    if index < PLAY_BASE:
        ace, under = divmod(index - UNKNOWN_BASE, 32)
        return Unknown(seat, UNKNOWN_ACES[ace], under)
    if index < CRACK_INDEX:
        return BLITZES[seat][PAIRS[index - BLITZ_BASE]]
    if index == CRACK_INDEX:
        return CRACKS[seat][None]
    if index < NO_CRACK_INDEX:
        return CRACKS[seat][PAIRS[index - CRACK_INDEX - 1]]
    if index == NO_CRACK_INDEX:
        return NO_CRACKS[seat]
    if index == RECRACK_INDEX:
        return RECRACKS[seat]
    return NO_RECRACKS[seat]


# ----------------------------------------------------------------------------- observations

OBSERVATION_LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("hand", 32),
    ("blind", 32),
    ("buried", 32),
    ("under", 32),
    ("called", 32),
    ("played", 160),
    ("trick", 160),
    ("phase", 5),
    ("dealer", 5),
    ("picker", 5),
    ("partner", 5),
    ("passed", 5),
    ("leader", 5),
    ("turn", 5),
    ("trick_points", 5),
    ("tricks_won", 5),
    ("flags", 4),
    ("stakes", 1),
    ("rules", 9),
    ("crack_phase", 2),
    ("blitzes", 2),
    ("cracker", 5),
    ("crack_pair", 2),
    ("recrack", 1),
    ("hand_stakes", 1),
    ("house_rules", 3),
)
"""Each observation field's name and size, in order (see the module doc)."""

_OFFSET: Final = {
    name: sum(size for _, size in OBSERVATION_LAYOUT[:i])
    for i, (name, _) in enumerate(OBSERVATION_LAYOUT)
}
OBSERVATION_SIZE: Final = sum(size for _, size in OBSERVATION_LAYOUT)
"""The length of the observation vector (555 today; new fields are appended)."""

HAND_AT: Final = _OFFSET["hand"]
BLIND_AT: Final = _OFFSET["blind"]
BURIED_AT: Final = _OFFSET["buried"]
UNDER_AT: Final = _OFFSET["under"]
CALLED_AT: Final = _OFFSET["called"]
PLAYED_AT: Final = _OFFSET["played"]
TRICK_AT: Final = _OFFSET["trick"]
PHASE_AT: Final = _OFFSET["phase"]
DEALER_AT: Final = _OFFSET["dealer"]
PICKER_AT: Final = _OFFSET["picker"]
PARTNER_AT: Final = _OFFSET["partner"]
PASSED_AT: Final = _OFFSET["passed"]
LEADER_AT: Final = _OFFSET["leader"]
TURN_AT: Final = _OFFSET["turn"]
POINTS_AT: Final = _OFFSET["trick_points"]
WON_AT: Final = _OFFSET["tricks_won"]
FLAGS_AT: Final = _OFFSET["flags"]
STAKES_AT: Final = _OFFSET["stakes"]
RULES_AT: Final = _OFFSET["rules"]
CRACK_PHASE_AT: Final = _OFFSET["crack_phase"]
BLITZES_AT: Final = _OFFSET["blitzes"]
CRACKER_AT: Final = _OFFSET["cracker"]
CRACK_PAIR_AT: Final = _OFFSET["crack_pair"]
RECRACK_AT: Final = _OFFSET["recrack"]
HAND_STAKES_AT: Final = _OFFSET["hand_stakes"]
HOUSE_RULES_AT: Final = _OFFSET["house_rules"]

_PHASE_SLOT: Final = {
    "pick": PHASE_AT,
    "bury": PHASE_AT + 1,
    "call": PHASE_AT + 2,
    "play": PHASE_AT + 3,
    "done": PHASE_AT + 4,
    "crack": CRACK_PHASE_AT,
    "recrack": CRACK_PHASE_AT + 1,
}
"""Where each phase's bit is (the crack phases came later: a field of their own)."""

Vector = npt.NDArray[np.float32]
Mask8 = npt.NDArray[np.int8]
_INT8: Final = np.dtype(np.int8)
"""The masks' dtype, made once: ``frombuffer(data, _INT8)`` takes half the time of
``frombuffer(data, dtype=np.int8)`` (a fifth of the trick-play masks are new ones)."""


def _stakes(multiplier: int) -> float:
    return min(1.0, math.log2(max(1, multiplier)) / 10)


def _rules_bits(rules: RuleSet) -> list[float]:
    """The ``rules`` field, then the ``house_rules`` field."""
    return [
        float(rules.jack_order == "clubs-first"),
        float(rules.partner == "jack-of-diamonds"),
        float(rules.no_pick == "leaster"),
        float(rules.no_pick == "doubler"),
        float(rules.no_pick == "forced-pick"),
        float(rules.unknown_card),
        float(rules.no_trick_partner_exempt),
        float(rules.double_on_the_bump),
        float(rules.leaster_needs_trick),
        float(rules.blitzing),
        float(rules.cracking),
        float(rules.crack_by == "defenders"),
    ]


def _put_rules(out: npt.NDArray[np.float32], rules: RuleSet) -> None:
    """Both rules fields, in a vector or (broadcast) in every row."""
    bits = _rules_bits(rules)
    out[..., RULES_AT : RULES_AT + 9] = bits[:9]
    out[..., HOUSE_RULES_AT : HOUSE_RULES_AT + 3] = bits[9:]


def encode_view(view: Mapping[str, Any]) -> Vector:
    """The observation vector of a seat's view map (:func:`engine.view.seat_view`, or the
    ``view`` of a ``state`` message). The environment builds the same vector from the engine's
    state directly, which is faster.

    >>> from engine.view import seat_view
    >>> hand = Hand.from_seed(RuleSet(), 0, 1)
    >>> vector = encode_view(seat_view(hand, 1))
    >>> vector.shape, int(vector[:32].sum()), float(vector[PHASE_AT])
    ((555,), 6, 1.0)
    """
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    me = int(view["seat"])

    def rel(seat: int) -> int:
        return (seat - me) % NUM_SEATS

    def cards(at: int, codes: Sequence[str] | None) -> None:
        for code in codes or ():
            out[at + parse_card(code)] = 1.0

    def seat_bit(at: int, seat: int | None) -> None:
        if seat is not None:
            out[at + rel(seat)] = 1.0

    cards(HAND_AT, view.get("hand"))
    cards(BLIND_AT, view.get("blind"))
    cards(BURIED_AT, view.get("buried"))
    if view.get("under") is not None:
        cards(UNDER_AT, [view["under"]])
    if view.get("called") is not None:
        cards(CALLED_AT, [view["called"]])
    for trick in view.get("tricks") or ():
        leader = int(trick["leader"])
        for i, code in enumerate(trick["cards"]):
            out[PLAYED_AT + 32 * rel(leader + i) + parse_card(code)] = 1.0
    trick = view.get("trick") or {}
    for played in trick.get("cards") or ():
        out[TRICK_AT + 32 * rel(int(played["seat"])) + parse_card(played["card"])] = 1.0
    out[_PHASE_SLOT[str(view["phase"])]] = 1.0
    seat_bit(DEALER_AT, view.get("dealer"))
    seat_bit(PICKER_AT, view.get("picker"))
    seat_bit(PARTNER_AT, view.get("partner"))
    for seat in view.get("passes") or ():
        seat_bit(PASSED_AT, seat)
    if view["phase"] == "play":
        seat_bit(LEADER_AT, trick.get("leader"))
    seat_bit(TURN_AT, view.get("turn"))
    for seat, points in enumerate(view.get("trick_points") or ()):
        out[POINTS_AT + rel(seat)] = points / 120
    for seat, won in enumerate(view.get("tricks_won") or ()):
        out[WON_AT + rel(seat)] = won / 6
    for i, flag in enumerate(("alone", "unknown", "leaster", "doubler")):
        out[FLAGS_AT + i] = float(bool(view.get(flag)))
    multiplier = int(view.get("multiplier") or 1)
    out[STAKES_AT] = _stakes(multiplier)
    _put_rules(out, RuleSet.from_dict(view.get("rules") or {}))
    for blitz in view.get("blitzes") or ():
        out[BLITZES_AT + _PAIR_NUMBER[blitz["pair"]]] = 1.0
    crack = view.get("crack")
    if crack is not None:
        seat_bit(CRACKER_AT, crack["seat"])
        if crack.get("blitz") is not None:
            out[CRACK_PAIR_AT + _PAIR_NUMBER[crack["blitz"]]] = 1.0
    out[RECRACK_AT] = float(bool(view.get("recrack")))
    out[HAND_STAKES_AT] = _stakes(int(view.get("stakes") or multiplier))
    return out


# One byte of a card mask -> its eight bits as floats, for the fast path.
_BYTE_BITS: Final = np.unpackbits(
    np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
)
_BYTE_BITS_F: Final = _BYTE_BITS.astype(np.float32)


_FLOAT_BYTES: Final = tuple(row.tobytes() for row in _BYTE_BITS_F)
"""One byte of a card mask -> its eight bits as float32 bytes (joined, four make a vector)."""


def _bits(mask: Mask) -> Vector:
    """A card mask as 32 floats (1.0 = held), read-only."""
    f = _FLOAT_BYTES
    data = f[mask & 255] + f[mask >> 8 & 255] + f[mask >> 16 & 255] + f[mask >> 24 & 255]
    return np.frombuffer(data, dtype=np.float32)


def observe_hand(hand: Hand, me: int) -> Vector:
    """The observation vector of seat ``me``, straight from the engine's state: equal to
    ``encode_view(seat_view(hand, me))`` without building the view map."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    phase = hand.phase
    over = phase == "done"
    picker = hand.picker
    partner = hand.partner
    live_picker = not over and me == picker
    out[HAND_AT : HAND_AT + 32] = _bits(hand.hands[me])
    if over or live_picker:
        out[BLIND_AT : BLIND_AT + 32] = _bits(hand.blind)
    if over or (live_picker and phase != "pick" and phase != "bury"):
        out[BURIED_AT : BURIED_AT + 32] = _bits(hand.buried)
    if hand.under is not None and (over or live_picker):
        out[UNDER_AT + hand.under] = 1.0
    if hand.called is not None:
        out[CALLED_AT + hand.called] = 1.0
    points = [0.0] * NUM_SEATS
    for t in hand.tricks:
        leader = t.leader
        for i, c in enumerate(t.cards):
            out[PLAYED_AT + 32 * ((leader + i - me) % NUM_SEATS) + c] = 1.0
        points[t.winner] += t.points
    leader = hand.leader
    for i, c in enumerate(hand.current):
        out[TRICK_AT + 32 * ((leader + i - me) % NUM_SEATS) + c] = 1.0
    out[_PHASE_SLOT[phase]] = 1.0
    out[DEALER_AT + (hand.dealer - me) % NUM_SEATS] = 1.0
    if picker is not None:
        out[PICKER_AT + (picker - me) % NUM_SEATS] = 1.0
    if partner is not None and (hand.partner_revealed or over or (me == partner)):
        out[PARTNER_AT + (partner - me) % NUM_SEATS] = 1.0
    for seat in hand.passes:
        out[PASSED_AT + (seat - me) % NUM_SEATS] = 1.0
    if phase == "play":
        out[LEADER_AT + (leader - me) % NUM_SEATS] = 1.0
    if hand.turn is not None:
        out[TURN_AT + (hand.turn - me) % NUM_SEATS] = 1.0
    won = hand.tricks_won
    for seat in range(NUM_SEATS):
        r = (seat - me) % NUM_SEATS
        out[POINTS_AT + r] = points[seat] / 120
        out[WON_AT + r] = won[seat] / 6
    out[FLAGS_AT] = hand.alone
    out[FLAGS_AT + 1] = hand.under is not None
    out[FLAGS_AT + 2] = hand.leaster
    out[FLAGS_AT + 3] = hand.doubler
    out[STAKES_AT] = _stakes(hand.multiplier)
    _put_rules(out, hand.rules)
    for _, pair in hand.blitzes:
        out[BLITZES_AT + _PAIR_NUMBER[pair]] = 1.0
    if hand.cracker is not None:
        out[CRACKER_AT + (hand.cracker - me) % NUM_SEATS] = 1.0
        if hand.crack_blitz is not None:
            out[CRACK_PAIR_AT + _PAIR_NUMBER[hand.crack_blitz]] = 1.0
    out[RECRACK_AT] = hand.recracked
    out[HAND_STAKES_AT] = _stakes(hand.stakes)
    return out


def legal_mask(hand: Hand) -> Mask8:
    """The ``action_mask`` of the seat to act: 1 at the index of every legal action."""
    if hand.phase != "play":
        return _mask_of(_engine_index(action) for action in hand.legal_actions())
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    cards = hand.legal_play_mask()
    mask[PLAY_BASE : PLAY_BASE + 32] = _BYTE_BITS[
        [cards & 255, cards >> 8 & 255, cards >> 16 & 255, cards >> 24 & 255]
    ].reshape(32)
    return mask


# ---------------------------------------------------------------------------------- the env

AGENTS: Final = tuple(f"seat_{s}" for s in range(NUM_SEATS))
_SEAT_OF: Final = {agent: seat for seat, agent in enumerate(AGENTS)}

# The mask as bytes: zeros up to the plays, then eight bytes per byte of the legal card mask.
_MASK_HEAD: Final = bytes(PLAY_BASE)
_MASK_TAIL: Final = bytes(ACTION_COUNT - PLAY_BASE - 32)
_BYTE_PATTERN: Final = tuple(bytes(row.tolist()) for row in _BYTE_BITS)


def _seat_cells(at: int) -> tuple[tuple[int, ...], ...]:
    """For a seat block at ``at``: ``[p]``, the flat indices, in the tracker's five rows, of
    ``p``'s entry in every observer's relative block."""
    return tuple(
        tuple(s * OBSERVATION_SIZE + at + (p - s) % NUM_SEATS for s in range(NUM_SEATS))
        for p in range(NUM_SEATS)
    )


def _card_cells(at: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For a card plane per seat at ``at``: ``[p][c]``, the flat indices of ``p``'s card ``c``
    in every observer's relative plane."""
    return tuple(
        tuple(
            tuple(
                s * OBSERVATION_SIZE + at + 32 * ((p - s) % NUM_SEATS) + c for s in range(NUM_SEATS)
            )
            for c in range(32)
        )
        for p in range(NUM_SEATS)
    )


_PLAYED_PLANES: Final = _card_cells(PLAYED_AT)
_PLAYED_CELLS: Final = tuple(
    tuple(_PLAYED_PLANES[(leader + i) % NUM_SEATS] for i in range(NUM_SEATS))
    for leader in range(NUM_SEATS)
)
"""``[leader][i][c]``: the flat indices of card ``c`` as the ``i``-th of a trick ``leader``
led, in every observer's finished-tricks plane."""
_DEALER_CELLS: Final = _seat_cells(DEALER_AT)
_PASSED_CELLS: Final = _seat_cells(PASSED_AT)
_PICKER_CELLS: Final = _seat_cells(PICKER_AT)
_PARTNER_CELLS: Final = _seat_cells(PARTNER_AT)
_CRACKER_CELLS: Final = _seat_cells(CRACKER_AT)
_LEADER_CELLS: Final = _seat_cells(LEADER_AT)
_POINTS_CELLS: Final = _seat_cells(POINTS_AT)
_WON_CELLS: Final = _seat_cells(WON_AT)
_TRICK_CELLS: Final = _card_cells(TRICK_AT)
_PLAY_CELLS: Final = tuple(
    tuple((p * OBSERVATION_SIZE + HAND_AT + c, *_TRICK_CELLS[p][c]) for c in range(32))
    for p in range(NUM_SEATS)
)
"""``[p][c]``: the cells ``p`` playing ``c`` changes in the five rows: its hand's bit (to 0.0),
then the card in every observer's current-trick plane (to 1.0)."""
_TRICK_BLOCK: Final = slice(TRICK_AT, TRICK_AT + 32 * NUM_SEATS)
_HAND_BYTES: Final = tuple(4 * (seat * OBSERVATION_SIZE + HAND_AT) for seat in range(NUM_SEATS))
"""Where each seat's hand entries start in the tracker's rows, in bytes."""
_TURN_SLOT: Final = tuple(
    tuple(TURN_AT + (turn - me) % NUM_SEATS for turn in range(NUM_SEATS)) for me in range(NUM_SEATS)
)
"""``[me][turn]``: where the seat to act is marked in ``me``'s observation."""


def _template(rules: RuleSet, multiplier: int) -> npt.NDArray[np.float32]:
    """Five rows as every hand under these rules and multiplier starts: the pick phase, the
    stakes and the rules (the cards and the dealer are the deal's)."""
    rows = np.zeros((NUM_SEATS, OBSERVATION_SIZE), dtype=np.float32)
    rows[:, _PHASE_SLOT["pick"]] = 1.0
    rows[:, TURN_AT] = 1.0  # each row as its own seat sees itself to act (see _Tracker)
    rows[:, STAKES_AT] = rows[:, HAND_STAKES_AT] = _stakes(multiplier)
    _put_rules(rows, rules)
    return rows


def _template_gaps(rules: RuleSet, multiplier: int, dealer: int) -> tuple[bytes, ...]:
    """The template's rows with the dealer marked, as bytes, cut around the five hands: entry
    ``s`` is what follows seat ``s``'s 32 hand entries up to the next seat's (the hand is a row's
    first field)."""
    rows = _template(rules, multiplier)
    rows.reshape(-1)[list(_DEALER_CELLS[dealer])] = 1.0
    raw = rows.tobytes()
    ends = [*_HAND_BYTES[1:], len(raw)]
    return tuple(raw[at + 128 : end] for at, end in zip(_HAND_BYTES, ends, strict=True))


assert HAND_AT == 0  # _template_gaps and _Tracker.start rely on it


class _Tracker:
    """Every seat's observation, kept up to date action by action (the fast path).

    ``rows[s]`` is seat ``s``'s observation as if ``s`` were the seat to act: the seat to act
    changes at every action, and the observer is usually that seat, so only the copy of any
    other observer needs that field corrected.

    Changes are single-float stores through a memoryview of the rows (``cells``: a store there
    costs a third of a numpy item assignment, and every change is a few entries): a card played
    is six (its bit out of the player's hand, into every current-trick plane), a finished trick
    some fifty (its cards into every finished-tricks plane, the winner's points and tricks, the
    leader) and a fill of the current-trick planes; the auction's actions a handful each.
    """

    __slots__ = (
        "called",
        "cells",
        "hand",
        "phase",
        "raw",
        "rows",
        "seat_rows",
        "trick_block",
    )

    def __init__(self, hand: Hand, gaps: tuple[bytes, ...]) -> None:
        rows = self.rows = np.zeros((NUM_SEATS, OBSERVATION_SIZE), dtype=np.float32)
        self.cells: Any = rows.reshape(-1).data  # a memoryview of format 'f': stores take floats
        self.seat_rows = list(rows)  # one view per seat, made once
        self.raw: Any = self.cells.cast("B")  # the same memory as bytes: a hand is one slice
        self.trick_block = rows[:, _TRICK_BLOCK]
        self.start(hand, gaps)

    def start(self, hand: Hand, gaps: tuple[bytes, ...]) -> None:
        """Track a new hand (the rows are reused: every observation handed out is a copy).

        ``gaps`` are the template's bytes between the hands (:func:`_template_gaps`): the new
        rows are one join of hands and gaps, stored at once."""
        self.hand = hand
        self.phase = "pick"
        self.called = -1
        f = _FLOAT_BYTES
        h0, h1, h2, h3, h4 = hand.hands
        g0, g1, g2, g3, g4 = gaps
        self.raw[:] = b"".join(
            (
                f[h0 & 255], f[h0 >> 8 & 255], f[h0 >> 16 & 255], f[h0 >> 24], g0,
                f[h1 & 255], f[h1 >> 8 & 255], f[h1 >> 16 & 255], f[h1 >> 24], g1,
                f[h2 & 255], f[h2 >> 8 & 255], f[h2 >> 16 & 255], f[h2 >> 24], g2,
                f[h3 & 255], f[h3 >> 8 & 255], f[h3 >> 16 & 255], f[h3 >> 24], g3,
                f[h4 & 255], f[h4 >> 8 & 255], f[h4 >> 16 & 255], f[h4 >> 24], g4,
            )
        )  # fmt: skip

    def observe(self, me: int) -> Vector:
        """Seat ``me``'s observation (a new array)."""
        out: Vector = self.seat_rows[me].copy()
        turn = self.hand.turn
        if turn != me:
            out[TURN_AT] = 0.0
            if turn is not None:
                out[_TURN_SLOT[me][turn]] = 1.0
        return out

    def called_fell(self) -> None:
        """The called card was played: everyone knows the partner now."""
        partner = self.hand.partner
        if partner is not None:
            self.seat_mark(_PARTNER_CELLS[partner])

    def trick_done(self) -> None:
        """A trick is complete: its cards move from the current trick to the finished ones."""
        hand = self.hand
        trick = hand.tricks[-1]
        leader = trick.leader
        self.trick_block.fill(0.0)
        cells = self.cells
        c0, c1, c2, c3, c4 = trick.cards
        plane = _PLAYED_CELLS[leader]
        # Unrolled stores: a third of the cost of one put of the 25 indices.
        a, b, c, d, e = plane[0][c0]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[1][c1]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[2][c2]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[3][c3]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        a, b, c, d, e = plane[4][c4]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
        winner = trick.winner
        share = hand.taken[winner] / 120
        a, b, c, d, e = _POINTS_CELLS[winner]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = share
        share = hand.tricks_won[winner] / 6
        a, b, c, d, e = _WON_CELLS[winner]
        cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = share
        if winner != leader or hand.phase == "done":
            a, b, c, d, e = _LEADER_CELLS[leader]
            cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 0.0
            if hand.phase == "done":
                self.phase_changed()
            else:
                a, b, c, d, e = _LEADER_CELLS[winner]
                cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0

    def column(self, at: int, value: float) -> None:
        """Set entry ``at`` of every row (a fact the same for every seat)."""
        cells = self.cells
        size = OBSERVATION_SIZE
        cells[at] = cells[at + size] = cells[at + 2 * size] = value
        cells[at + 3 * size] = cells[at + 4 * size] = value

    def seat_mark(self, cells_of_seat: tuple[int, ...], value: float = 1.0) -> None:
        """Set a seat's entry in every row's relative block (a ``_*_CELLS[seat]`` tuple)."""
        cells = self.cells
        for i in cells_of_seat:
            cells[i] = value

    def cards(self, at: int, mask: Mask, value: float) -> None:
        """Set the entries of the cards of ``mask`` from flat index ``at``."""
        cells = self.cells
        while mask:
            low = mask & -mask
            cells[at + low.bit_length() - 1] = value
            mask ^= low

    def auctioned(self, action: Action) -> None:
        """After any action but a card played: the auction's, the blitzes and the crack's.

        Each changes a few entries: single stores, cheaper than numpy's slicing for so few."""
        hand = self.hand
        seat = action.seat
        kind = action.kind
        row = seat * OBSERVATION_SIZE
        if kind == "pass":
            self.seat_mark(_PASSED_CELLS[seat])
            if hand.leaster:
                self.column(FLAGS_AT + 2, 1.0)
            if hand.doubler:
                self.column(FLAGS_AT + 3, 1.0)
        elif kind == "pick":
            self.seat_mark(_PICKER_CELLS[seat])
            self.cards(row + HAND_AT, hand.blind, 1.0)
            self.cards(row + BLIND_AT, hand.blind, 1.0)
        elif kind == "bury":
            self.cards(row + HAND_AT, hand.buried, 0.0)
            self.cards(row + BURIED_AT, hand.buried, 1.0)
        elif kind in ("call", "alone", "unknown"):  # the picker's side is settled
            if hand.called is not None:
                self.called = hand.called
                self.column(CALLED_AT + hand.called, 1.0)
            if hand.under is not None:
                self.cells[row + UNDER_AT + hand.under] = 1.0
                self.column(FLAGS_AT + 1, 1.0)
            if hand.partner is not None:
                # The partner knows: relative seat 0 of its own row.
                self.cells[hand.partner * OBSERVATION_SIZE + PARTNER_AT] = 1.0
            if hand.alone:
                self.column(FLAGS_AT, 1.0)
        elif kind == "blitz":
            self.column(BLITZES_AT + _PAIR_NUMBER[action.pair], 1.0)  # type: ignore[union-attr]
        elif kind == "crack":
            self.seat_mark(_CRACKER_CELLS[seat])
            if hand.crack_blitz is not None:
                self.column(CRACK_PAIR_AT + _PAIR_NUMBER[hand.crack_blitz], 1.0)
        elif kind == "recrack":
            self.column(RECRACK_AT, 1.0)
        if kind in ("blitz", "crack", "recrack"):
            self.column(HAND_STAKES_AT, _stakes(hand.stakes))
        if hand.phase != self.phase:
            self.phase_changed()

    def phase_changed(self) -> None:
        """The phase bit moves; trick play marks its leader; the end reveals."""
        hand = self.hand
        self.column(_PHASE_SLOT[self.phase], 0.0)
        phase = self.phase = hand.phase
        self.column(_PHASE_SLOT[phase], 1.0)
        if phase == "play":
            self.seat_mark(_LEADER_CELLS[hand.leader])
        elif phase == "done":
            self.reveal()

    def reveal(self) -> None:
        """The hand is over: blind, bury, unknown card and partner are everyone's, and nobody
        is to act."""
        hand = self.hand
        self.column(TURN_AT, 0.0)
        for at, mask in ((BLIND_AT, hand.blind), (BURIED_AT, hand.buried)):
            while mask:
                low = mask & -mask
                self.column(at + low.bit_length() - 1, 1.0)
                mask ^= low
        if hand.under is not None:
            self.column(UNDER_AT + hand.under, 1.0)
        self.rows[:, PARTNER_AT : PARTNER_AT + 5] = 0.0
        if hand.partner is not None:
            self.seat_mark(_PARTNER_CELLS[hand.partner])


_PLAY_MASKS: dict[int, Mask8] = {}
"""Trick-play masks by legal card mask, shared and read-only (see :func:`_new_play_mask`)."""


_PICK_MASKS: Final = {
    2: np.frombuffer(bytes([1, 1]) + bytes(ACTION_COUNT - 2), dtype=np.int8),
    1: np.frombuffer(bytes([0, 1]) + bytes(ACTION_COUNT - 2), dtype=np.int8),
}
"""The pick phase's masks by the number of legal actions: pick or pass, or pick only."""


_BURY_ROW: Final = tuple(
    tuple(BURY_BASE + _PAIR_INDEX[(a, b)] if a < b else -1 for b in range(32)) for a in range(32)
)
"""``[a][b]``, ``a < b``: the index of burying ``a`` and ``b``."""


def _mask_of(indices: Iterable[int]) -> Mask8:
    """A mask with 1 at ``indices`` (bytes stores, then one array: a third of the cost of
    numpy item stores)."""
    data = bytearray(ACTION_COUNT)
    for index in indices:
        data[index] = 1
    return np.frombuffer(data, _INT8)


@lru_cache(maxsize=1)
def _bury_pairs(cards: Mask) -> tuple[int, ...]:
    """The indices of burying every pair of ``cards``, lowest first (kept for the last hand:
    the mask and :meth:`SheepsheadEnv.legal_actions` both ask)."""
    rows = _BURY_ROW
    return tuple(rows[a][b] for a, b in combinations(cards_in(cards), 2))


def _bury_indices(hand: Hand) -> tuple[int, ...]:
    """The bury phase's legal indices, lowest first: every pair of the picker's eight cards
    (the engine lets any two be buried), then any blitz."""
    assert hand.turn is not None
    legal = _bury_pairs(hand.hands[hand.turn])
    if hand.rules.blitzing:
        legal += tuple(
            BLITZ_BASE + _PAIR_NUMBER[action.pair]  # type: ignore[union-attr]
            for action in hand.legal_actions()
            if action.kind == "blitz"
        )
    return legal


def _new_play_mask(cards: Mask) -> Mask8:
    """The trick-play mask of a legal card mask not in :data:`_PLAY_MASKS` yet, added to it.

    At most 2**16 are kept (some 55 MB; emptied when full): random deals make most of the 2**32
    masks possible, and a fifth of the lookups miss even so (a third with 2**12 kept)."""
    if len(_PLAY_MASKS) >= 1 << 16:
        _PLAY_MASKS.clear()
    pattern = _BYTE_PATTERN
    data = b"".join(
        (
            _MASK_HEAD,
            pattern[cards & 255],
            pattern[cards >> 8 & 255],
            pattern[cards >> 16 & 255],
            pattern[cards >> 24],
            _MASK_TAIL,
        )
    )
    mask = _PLAY_MASKS[cards] = np.frombuffer(data, _INT8)
    return mask


def _play_mask(cards: Mask) -> Mask8:
    """The trick-play mask of a legal card mask, shared and read-only."""
    mask = _PLAY_MASKS.get(cards)
    return _new_play_mask(cards) if mask is None else mask


_PLAY_INDICES: Final = tuple(
    tuple(tuple(PLAY_BASE + 8 * k + b for b in range(8) if v >> b & 1) for v in range(256))
    for k in range(4)
)
"""``[k][v]``: the play indices of the cards of byte ``k`` of a card mask when that byte is
``v`` (four lookups and a join list a hand's legal cards)."""
_PICK_INDICES: Final = {2: (PASS_INDEX, PICK_INDEX), 1: (PICK_INDEX,)}
"""The pick phase's legal indices by the number of legal actions: pass and pick, or pick."""


def legal_indices(hand: Hand) -> tuple[int, ...]:
    """The indices of the legal actions of the seat to act, lowest first (empty once the hand
    is over): the ones of its :func:`legal_mask`."""
    phase = hand.phase
    if phase == "play":
        cards = hand.legal_play_mask()
        t = _PLAY_INDICES
        return (
            t[0][cards & 255] + t[1][cards >> 8 & 255] + t[2][cards >> 16 & 255] + t[3][cards >> 24]
        )
    if phase == "pick":
        return _PICK_INDICES[len(hand.legal_actions())]
    if hand.turn is None:
        return ()
    if phase == "bury":
        return _bury_indices(hand)
    return tuple(sorted(_engine_index(action) for action in hand.legal_actions()))


def fast_legal_mask(hand: Hand) -> Mask8:
    """:func:`legal_mask`, read-only; in trick play (most decisions) and the pick, shared."""
    phase = hand.phase
    if phase == "play":
        return _play_mask(hand.legal_play_mask())
    if phase == "pick":
        return _PICK_MASKS[len(hand.legal_actions())]
    return _mask_of(legal_indices(hand))


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
    makes :meth:`render` return the hand so far as text.
    """

    metadata: Final = {
        "name": "sheepshead_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, rules: RuleSet | None = None, render_mode: str | None = None) -> None:
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
        self._random = random.Random()
        self.hand = Hand.from_seed(self.rules, 0, 0)
        """The engine's hand being played (read it; change it only through :meth:`step`)."""
        self._templates: dict[tuple[int, int], tuple[bytes, ...]] = {}
        self._tracker = _Tracker(self.hand, self._template(1, self.hand.dealer))
        # The tracker's rows live as long as the environment: the hot path reads them directly.
        self._seat_rows = self._tracker.seat_rows
        self._cells = self._tracker.cells
        self.deal_seed = 0
        self._reset_bookkeeping()

    def _template(self, multiplier: int, dealer: int) -> tuple[bytes, ...]:
        gaps = self._templates.get((multiplier, dealer))
        if gaps is None:
            gaps = self._templates[multiplier, dealer] = _template_gaps(
                self.rules, multiplier, dealer
            )
        return gaps

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
        self._tracker.start(hand, self._template(multiplier, dealer))
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
        if observe:
            # observe(agent), inline: this runs once per decision.
            seat = _SEAT_OF[agent]
            out = self._seat_rows[seat].copy()
            if turn == seat:
                if hand.phase == "play":
                    cards = hand.legal_play_mask()
                    mask = _PLAY_MASKS.get(cards)
                    if mask is None:
                        mask = _new_play_mask(cards)
                else:
                    mask = fast_legal_mask(hand)
            else:
                mask = _NO_ACTIONS
                if turn is not None:  # (once the hand is over, the rows say nobody acts)
                    out[TURN_AT] = 0.0  # the rows mark the observer itself as the seat to act
                    out[_TURN_SLOT[seat][turn]] = 1.0
            observation = {"observation": out, "action_mask": mask}
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
        >>> ACTIONS[0]["action"], ACTIONS[1]["action"]
        ('pass', 'pick')
        """
        return legal_indices(self.hand)

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat may see, and its legal actions (all zero when not its turn).

        The observation is a new array; the mask is shared and read-only (copy it to change
        it)."""
        seat = _SEAT_OF[agent]
        hand = self.hand
        mask = fast_legal_mask(hand) if hand.turn == seat else _NO_ACTIONS
        return {"observation": self._tracker.observe(seat), "action_mask": mask}

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
            # The tracker's card-played update, inline (this runs thirty times a hand): the
            # hand's bit out, the card into every observer's current-trick plane.
            cells = self._cells
            held, a, b, c, d, e = _PLAY_CELLS[seat][card]
            cells[held] = 0.0
            cells[a] = cells[b] = cells[c] = cells[d] = cells[e] = 1.0
            if not hand.current:
                self._tracker.trick_done()
            if card == self._tracker.called:
                self._tracker.called_fell()
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


def raw_env(rules: RuleSet | None = None, render_mode: str | None = None) -> SheepsheadEnv:
    """The environment without PettingZoo's checking wrappers (fastest)."""
    return SheepsheadEnv(rules, render_mode)


def env(rules: RuleSet | None = None, render_mode: str | None = None) -> Any:
    """The environment wrapped by PettingZoo's order and bounds checks (for development)."""
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw_env(rules, render_mode))
    return wrappers.OrderEnforcingWrapper(wrapped)
