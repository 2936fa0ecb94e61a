"""Determinization: deal the cards a seat has not seen, consistently with everything public.

:func:`sample_hand` deals the unseen cards to the other seats (and to the bury or blind when it is
unseen) so that every public fact holds: hand sizes, the classes a seat showed it lacks by not
following, the called card never with the picker or in the bury, the picker keeping a hold card
until the called suit is led, the picker's own knowledge of the blind and bury. It then rebuilds
an engine :class:`~engine.hand.Hand` with that explicit :class:`~engine.hand.Deal` and replays the
public history (passes, pick, bury, call, every card played); the engine's own validation rejects
any deal that contradicts the history, so a sample is always a state the real hand could be in.
:meth:`Sampler.sim` goes further for card play: it replays the cards played in a simulator and
prefers the deals in which the heuristic would have played them (the others' choices tell where
the cards are).

>>> import random
>>> from engine.bots.knowledge import read_view
>>> from engine.rules import RuleSet
>>> from engine.view import seat_view
>>> real = Hand.from_seed(RuleSet(), dealer=0, seed=4)
>>> while real.phase != "play" or len(real.tricks) < 2:
...     real.apply(real.legal_actions()[0])
>>> k = read_view(seat_view(real, real.turn))
>>> guess = sample_hand(k, random.Random(1))
>>> guess.hands[k.seat] == real.hands[k.seat], guess.tricks == real.tricks
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence, Sized
from typing import Final

from engine.actions import (
    BLITZES,
    CRACKS,
    NO_CRACKS,
    NO_RECRACKS,
    RECRACKS,
    Action,
    Alone,
    Bury,
    Call,
    Pass,
    Pick,
    Play,
    Unknown,
)
from engine.bots.knowledge import Knowledge
from engine.bots.policy import bits, choose_bury, choose_play
from engine.bots.sim import Sim
from engine.cards import FAIL, Card, Mask
from engine.errors import SheepsheadError
from engine.hand import ACES_MASK, PAIR_MASKS, TENS, Deal, Hand, crack_seats
from engine.tricks import JD

EXTRA: Final = 5
"""Slot index of the two cards outside the hands: the unseen bury, or the blind."""

MAX_TRIES: Final = 60


class SamplingError(Exception):
    """No consistent deal was found (the view contradicts itself, or bad luck many times)."""


def _slots(k: Knowledge) -> tuple[list[int], list[Mask]]:
    """Capacity of every slot (5 seats + extra) and, per slot, the unseen cards it may not take."""
    capacity = [0] * 6
    banned = [0] * 6
    for s in range(5):
        if s != k.seat:
            capacity[s] = k.hand_sizes[s]
            banned[s] = k.void_in[s]
    picked = k.picker is not None
    # From the bury on (the call comes after it) another seat's picker holds six cards and
    # two lie buried, unseen.
    after_bury = k.phase in ("call", "crack", "recrack", "play")
    if k.phase == "pick" or k.leaster or (picked and k.seat != k.picker and after_bury):
        capacity[EXTRA] = 2
    if k.called is not None and not k.played >> k.called & 1:
        # The called card is in a hand other than the picker's (never buried).
        called_bit = 1 << k.called
        banned[EXTRA] |= called_bit
        if k.picker is not None:
            banned[k.picker] |= called_bit
        if k.called_led_at is not None:
            # Whoever played to the trick that first led the called suit would have had to
            # play the called card.
            trick = [*k.tricks, k.trick][k.called_led_at]
            for i in range(len(trick.cards)):
                banned[(trick.leader + i) % 5] |= called_bit
        if k.cracker is not None:
            banned[k.cracker] |= called_bit  # the partner cannot crack
    if k.called is not None and k.called in TENS and k.picker is not None and k.picker != k.seat:
        # A ten is called only by a picker who owns all three fail aces, in hand or buried.
        aces = ACES_MASK & ~k.played
        for s in range(5):
            if s != k.picker:
                banned[s] |= aces
    _ban_shown_queens(k, banned)
    return capacity, banned


def _ban_shown_queens(k: Knowledge, banned: list[Mask]) -> None:
    """Queens shown by a blitz stay with the picker (hand or bury), a cracker's with it."""
    shown: list[tuple[str, tuple[int, ...]]] = []
    if k.picker is not None and k.picker != k.seat:
        shown += [(pair, (k.picker, EXTRA)) for _, pair in k.blitzes]
    if k.cracker is not None and k.crack_blitz is not None and k.cracker != k.seat:
        shown.append((k.crack_blitz, (k.cracker,)))
    for pair, holders in shown:
        queens = PAIR_MASKS[pair] & ~k.played
        for slot in range(6):
            if slot not in holders:
                banned[slot] |= queens


def _hold_suit(k: Knowledge) -> Mask:
    """The called suit when the picker must still hold a card of it, else 0."""
    if (
        k.called is None
        or k.called == JD
        or k.unknown_call
        or k.called_led
        or k.picker is None
        or k.picker == k.seat
        or k.hand_sizes[k.picker] == 0
    ):
        return 0
    return FAIL[k.called >> 3] & ~(1 << k.called)


PLAY_MISMATCH: Final = 0.25
"""A weight for :meth:`Sampler.sim`'s ``mismatch``: kept per card another seat played that the
heuristic, holding that seat's cards in the deal, would not have played: at tables of
heuristics it puts about as many unseen cards in the right hands as 0 (no miss allowed) while
still tolerating seats that play otherwise."""

Weigher = Callable[[Knowledge, list[Mask], random.Random], float]
"""How plausible a deal makes the bidding: given each seat's cards as dealt (the picker's: its
eight cards with the blind) returns a probability of keeping the deal."""


class Sampler:
    """Deals the unseen cards of one decision again and again (the constraints computed once).

    ``bury``: when another seat picked and its bury is unseen, whether the two cards of the
    picker's eight that a deal buries are the ones the heuristic (:func:`choose_bury`) would bury
    of those that fit what is public (:meth:`heuristic_bury`), rather than any two at random: a
    picker hardly ever buries trump, so random burials took a trump a deal from the picker's
    hand (issue 30: at trick 1-2 a defender's deals gave the picker 2.4 trumps in hand where it
    held 3.6, the bury 1.0 trumps where it held 0.06).
    """

    def __init__(self, k: Knowledge, bury: bool = False) -> None:
        self.k = k
        self.capacity, self.banned = _slots(k)
        self.unseen = k.unseen
        total = sum(self.capacity)
        if self.unseen.bit_count() != total:
            raise SamplingError(f"{self.unseen.bit_count()} unseen cards for {total} places")
        self.hold = _hold_suit(k)
        self.cards = bits(self.unseen)
        # The slot of each position of a shuffled list of the unseen cards.
        self.layout = [s for s in range(6) for _ in range(self.capacity[s])]
        self.bury = (
            bury
            and k.picker is not None
            and k.picker != k.seat
            and not k.leaster
            and self.capacity[EXTRA] == 2
        )

    def heuristic_bury(self, slots: list[Mask]) -> list[Mask]:
        """``slots`` with the picker's unseen cards and the bury split as the heuristic would
        bury the picker's eight cards, among the burials that fit what is public (the cards it
        played, the classes it has shown it lacks, the called card, the hold card); the split
        drawn is one of those, so there always is one."""
        k = self.k
        picker = k.picker
        assert picker is not None
        free = slots[picker] | slots[EXTRA]
        banned_bury = self.banned[EXTRA]
        banned_hand = self.banned[picker]
        hold = self.hold
        played = k.played_by[picker]
        # The call needed a card of the called suit in the hand kept (played since, or not).
        called_suit = 0
        if k.called is not None and not (k.alone or k.unknown_call or k.jd_mode):
            called_suit = FAIL[k.called >> 3] & ~(1 << k.called)
        cards = bits(free)
        options: list[tuple[Card, Card]] = []
        for i, a in enumerate(cards):
            for b in cards[i + 1 :]:
                pair = (1 << a) | (1 << b)
                held = free & ~pair
                if (
                    pair & banned_bury
                    or held & banned_hand
                    or (hold and not held & hold)
                    or (called_suit and not (held | played) & called_suit)
                ):
                    continue
                options.append((a, b))
        if not options:
            return slots
        a, b = options[choose_bury(free | played, options, k.jd_mode)]
        out = list(slots)
        out[EXTRA] = (1 << a) | (1 << b)
        out[picker] = free & ~out[EXTRA]
        return out

    def deal(self, rng: random.Random) -> list[Mask]:
        """Masks of the unseen cards for seats 0-4 and the extra slot (raises SamplingError)."""
        cards = self.cards.copy()
        banned = self.banned
        for _ in range(3):
            # Usually a plain shuffle already fits every constraint.
            rng.shuffle(cards)
            slots = [0] * 6
            for c, s in zip(cards, self.layout, strict=True):
                if banned[s] >> c & 1:
                    break
                slots[s] |= 1 << c
            else:
                if not self.hold or slots[self.k.picker or 0] & self.hold:
                    return slots
        return self._deal_constrained(rng)

    def _deal_constrained(self, rng: random.Random) -> list[Mask]:
        k = self.k
        banned = self.banned
        hold = self.hold
        picker = k.picker or 0
        for _ in range(MAX_TRIES):
            slots = [0] * 6
            room = self.capacity.copy()
            cards = self.cards.copy()
            if hold:
                choices = [c for c in bits(self.unseen & hold) if not banned[picker] >> c & 1]
                if not choices:
                    raise SamplingError("the picker must hold a card of the called suit")
                forced = rng.choice(choices)
                slots[picker] |= 1 << forced
                room[picker] -= 1
                cards.remove(forced)
            # Most constrained cards first, each to a slot chosen in proportion to its room.
            eligible = {
                c: [s for s in range(6) if room[s] and not banned[s] >> c & 1] for c in cards
            }
            cards.sort(key=lambda c: (len(eligible[c]), rng.random()))
            ok = True
            for c in cards:
                options = eligible[c]
                total = 0
                for s in options:
                    total += room[s]
                if not total:
                    ok = False
                    break
                # A slot with probability in proportion to its room (random.choices, inlined:
                # this loop is most of the time a deal takes late in the hand).
                pick = rng.random() * total
                for s in options:
                    pick -= room[s]
                    if pick < 0 and room[s]:
                        break
                else:
                    s = next(s for s in reversed(options) if room[s])
                slots[s] |= 1 << c
                room[s] -= 1
            if ok:
                return slots
        raise SamplingError("no deal fits what has been seen")

    def _rebuild(self, slots: list[Mask], rng: random.Random, plays: bool = True) -> Hand | None:
        """:func:`_rebuild` of the deal, with the heuristic's bury when ``bury`` is on (the
        random one where the heuristic's contradicts the history, as when it leaves a call
        that was not made, such as the unknown card, illegal)."""
        if self.bury:
            hand = _rebuild(self.k, self.heuristic_bury(slots), rng, plays)
            if hand is not None:
                return hand
        return _rebuild(self.k, slots, rng, plays)

    def originals(self, slots: Sequence[Mask]) -> list[Mask]:
        """Each seat's cards as dealt in this deal; the picker's with the blind (eight)."""
        k = self.k
        out = [(k.hand if s == k.seat else slots[s]) | k.played_by[s] for s in range(5)]
        if k.picker is not None and k.picker != k.seat:
            out[k.picker] |= slots[EXTRA]
        return out

    def hand(self, rng: random.Random, weigh: Weigher | None = None, tries: int = 1) -> Hand:
        """A full engine hand (see :func:`sample_hand`); with ``weigh``, deals are kept with
        the probability it gives, drawing up to ``tries`` deals."""
        for attempt in range(MAX_TRIES + tries):
            slots = self.deal(rng)
            if (
                weigh is not None
                and attempt < tries - 1
                and rng.random() >= weigh(self.k, self.originals(slots), rng)
            ):
                continue
            hand = self._rebuild(slots, rng)
            if hand is not None:
                return hand
        raise SamplingError("no sampled deal replays the history")

    def sim(
        self,
        rng: random.Random,
        weigh: Weigher | None = None,
        tries: int = 1,
        mismatch: float = 1.0,
        trust: float = 1.0,
        fallback: str = "stretch",
    ) -> Sim:
        """A simulator at this moment of the play phase, in a deal weighted by how well it fits
        what the other seats did (raises SamplingError).

        Each deal drawn gets ``weigh``'s weight (the bidding), times ``mismatch`` for every card
        another seat played with a choice that the heuristic (:func:`choose_play`, the search's
        rollout policy), holding that seat's cards in the deal, would not have played: a seat
        that schmeared, trumped in or led the called suit most likely held the cards that make
        it do so. Deals are kept with their weight (rejection sampling: each such card is kept
        with probability ``mismatch``, and a deal is dropped at the first card that is not)
        for up to ``tries`` draws; after that, the drawn deal that fitted the longest stretch of
        play before it was dropped is used.
        """
        k = self.k
        plays = played_cards(k)
        judge = mismatch < 1
        if judge and (trust < 1 or fallback == "weighted"):
            return self._sim_weighted(rng, plays, weigh, tries, mismatch, trust)
        stopped: list[tuple[int, Sim]] = []
        # Two stages of rejection: the bidding (cheap, in _draws) first, then the play.
        for judging, sim in self._draws(rng, weigh, tries, stopped):
            done = replay(sim, plays, k.seat, rng if judge and judging else None, mismatch)
            if done == len(plays):
                return sim
            if done is not None:
                stopped.append((done, sim))
        stopped.sort(key=lambda entry: -entry[0])
        for done, sim in stopped:
            if replay(sim, plays[done:], k.seat) is not None:
                return sim
        raise SamplingError("no sampled deal replays the history")

    def _draws(
        self, rng: random.Random, weigh: Weigher | None, tries: int, kept: Sized
    ) -> Iterator[tuple[bool, Sim]]:
        """The deals :meth:`sim` and :meth:`_sim_weighted` judge, each with whether it is
        judged: ``tries`` draws weighed by ``weigh`` and judged on the play, then up to
        :data:`MAX_TRIES` more taken as they come, until ``kept`` (the caller's list of deals
        it may fall back on) has one. A draw :meth:`_start` drops is not yielded; each is
        drawn only when the caller asks for the next (the rng's order is the caller's)."""
        for attempt in range(MAX_TRIES + tries):
            judging = attempt < tries
            if not judging and kept:
                return
            sim = self._start(rng, weigh if judging else None)
            if sim is not None:
                yield judging, sim

    def _start(self, rng: random.Random, weigh: Weigher | None) -> Sim | None:
        """A simulator at the first card of a deal drawn now, or None: the deal was dropped by
        ``weigh`` (kept with the probability it gives; None keeps every deal) or does not
        replay the bidding."""
        slots = self.deal(rng)
        if weigh is not None and rng.random() >= weigh(self.k, self.originals(slots), rng):
            return None
        start = self._rebuild(slots, rng, plays=False)
        return None if start is None else Sim.from_hand(start)

    def _sim_weighted(
        self,
        rng: random.Random,
        plays: Sequence[tuple[int, Card]],
        weigh: Weigher | None,
        tries: int,
        mismatch: float,
        trust: float,
    ) -> Sim:
        """:meth:`sim` with each deal's play weight from whole replays: per other seat,
        ``trust * mismatch**misses + (1 - trust)`` (the seat plays as the heuristic with
        probability ``trust``, else its cards say nothing); a deal is kept with its weight,
        and after ``tries`` draws one of those drawn is taken in proportion to its weight."""
        k = self.k
        drawn: list[tuple[float, Sim]] = []
        for judging, sim in self._draws(rng, weigh, tries, drawn):
            misses = replay_misses(sim, plays, k.seat)
            if misses is None:
                continue
            if not judging:
                return sim
            weight = 1.0
            for s in range(5):
                if s != k.seat:
                    weight *= trust * mismatch ** misses[s] + (1 - trust)
            if rng.random() < weight:
                return sim
            drawn.append((weight, sim))
        if not drawn:
            raise SamplingError("no sampled deal replays the history")
        total = sum(w for w, _ in drawn)
        pick = rng.random() * total
        for w, sim in drawn:
            pick -= w
            if pick < 0:
                return sim
        return drawn[-1][1]


def replay_misses(sim: Sim, plays: Sequence[tuple[int, Card]], me: int) -> list[int] | None:
    """Play ``plays`` into ``sim``; per seat, how many of its cards played with a choice the
    heuristic would not have played (never counted for ``me``), or None if a card is not
    legal in this deal."""
    state = sim.state
    misses = [0] * 5
    for seat, c in plays:
        legal = sim.legal_mask()
        if state.turn != seat or not legal >> c & 1:
            return None
        if seat != me and legal & (legal - 1) and choose_play(sim.situation(legal)) != c:
            misses[seat] += 1
        sim.play(c)
    sim.undo.clear()
    return misses


def replay(
    sim: Sim,
    plays: Sequence[tuple[int, Card]],
    me: int,
    rng: random.Random | None = None,
    mismatch: float = 1.0,
) -> int | None:
    """Play ``plays`` into ``sim``; the number played, or None if one is not legal in this deal.

    With ``rng``, each card of a seat other than ``me`` that the heuristic would have played
    differently is kept with probability ``mismatch``; the replay stops before the first card
    that is not (so it returns fewer than ``len(plays)``).
    """
    state = sim.state
    for i, (seat, c) in enumerate(plays):
        legal = sim.legal_mask()
        if state.turn != seat or not legal >> c & 1:
            return None
        if (
            rng is not None
            and seat != me
            and legal & (legal - 1)
            and choose_play(sim.situation(legal)) != c
            and rng.random() >= mismatch
        ):
            return i
        sim.play(c)
    sim.undo.clear()
    return len(plays)


def played_cards(k: Knowledge) -> list[tuple[int, Card]]:
    """Every card played so far, in order, as ``(seat, card)``."""
    return [
        ((trick.leader + i) % 5, c)
        for trick in [*k.tricks, k.trick]
        for i, c in enumerate(trick.cards)
    ]


def deal_unseen(k: Knowledge, rng: random.Random) -> list[Mask]:
    """Masks of the unseen cards for seats 0-4 and the extra slot (raises SamplingError)."""
    return Sampler(k).deal(rng)


def history(
    k: Knowledge, bury: tuple[Card, Card] | None, under: Card | None, plays: bool = True
) -> list[Action]:
    """The public actions of the hand so far, with the given bury and unknown card (without
    the cards played unless ``plays``)."""
    actions: list[Action] = [Pass(s) for s in k.passes]
    if k.picker is None:
        pass
    else:
        picker = k.picker
        actions.append(Pick(picker))
        actions += [BLITZES[picker]["black" if pair == "black" else "red"] for _, pair in k.blitzes]
        if k.phase in ("call", "crack", "recrack", "play") and bury is not None:
            actions.append(Bury(picker, bury))
            if k.phase in ("crack", "recrack", "play"):
                if k.alone:
                    actions.append(Alone(picker))
                elif k.unknown_call and k.called is not None and under is not None:
                    actions.append(Unknown(picker, k.called, under))
                elif k.called is not None:
                    actions.append(Call(picker, k.called))
                actions += crack_history(k, picker)
    if plays:
        actions += [Play(seat, c) for seat, c in played_cards(k)]
    return actions


def crack_history(k: Knowledge, picker: int) -> list[Action]:
    """The crack round's answers and the re-crack so far (docs/rules.md, "Cracking and blitzing"),
    from what is public: the seats asked before the one to act (or the cracker) all said
    ``no_crack``."""
    out: list[Action] = []
    for seat in crack_seats(k.rules, k.dealer, picker):
        if k.phase == "crack" and seat == k.turn:
            return out
        if seat == k.cracker:
            pair = k.crack_blitz
            out.append(
                CRACKS[seat][None if pair is None else "black" if pair == "black" else "red"]
            )
            break
        out.append(NO_CRACKS[seat])
    if k.phase == "play" and k.cracker is not None:
        out.append(RECRACKS[picker] if k.recracked else NO_RECRACKS[picker])
    return out


def sample_hand(k: Knowledge, rng: random.Random) -> Hand:
    """A full engine hand at this moment, with the unseen cards dealt at random (see module)."""
    return Sampler(k).hand(rng)


def _rebuild(
    k: Knowledge, slots: Sequence[Mask], rng: random.Random, plays: bool = True
) -> Hand | None:
    """The engine hand of this deal with the public history replayed (up to the first card
    played unless ``plays``); None if the deal contradicts the history."""
    now = list(slots[:5])
    now[k.seat] = k.hand
    original = [now[s] | k.played_by[s] for s in range(5)]
    picker = k.picker
    bury: tuple[Card, Card] | None = None
    under: Card | None = None
    if picker is None:
        blind = slots[EXTRA]
    elif picker == k.seat:
        assert k.blind is not None
        buried = k.buried or 0
        original[picker] = (original[picker] | buried) & ~k.blind
        blind = k.blind
        if k.buried is not None:
            a, b = bits(k.buried)
            bury = (a, b)
        under = k.under
    else:
        # The picker's eight cards are its hand, its plays and the bury; any two of them can
        # stand for the blind, the rest of the game cannot tell. Use the bury itself.
        buried = slots[EXTRA]
        blind = buried
        if buried:
            a, b = bits(buried)
            bury = (a, b)
        if k.unknown_call:
            under = k.under
            if under is None:
                # A card of a class the picker did not follow can only be the face-down one
                # (two such cards: the deal contradicts the play). Once the picker's hand is
                # empty the called suit was never led and the face-down card went on the last
                # trick.
                suspects = now[picker] & k.under_voids
                if suspects & (suspects - 1):
                    return None
                held = bits(suspects or now[picker])
                under = rng.choice(held) if held else k.trick.cards[(picker - k.trick.leader) % 5]
    try:
        deal = Deal(tuple(original), blind)
        hand = Hand(k.rules, k.dealer, deal, k.multiplier)
        for action in history(k, bury, under, plays):
            hand.apply(action)
    except SheepsheadError:
        return None
    return hand


DEFAULT_BURN: Final = 30
"""Steps a fresh :class:`Chain` takes before its first deal is used."""

DEFAULT_CARRY_BURN: Final = 8
"""Steps a :class:`Chain` carried on from the seat's previous decision takes first."""

DEFAULT_THIN: Final = 2
"""Steps between two deals a :class:`Chain` hands out."""


class Chain:
    """Deals of one decision by Metropolis–Hastings over the unseen cards (issue 30).

    Rejection sampling (:meth:`Sampler.sim`) draws fresh deals and keeps each with its weight:
    late in a hand a random deal that fits ten or more choices of heuristic seats is rare, so it
    mostly falls back to a deal that fits poorly. The chain instead walks from deal to deal: a
    step proposes to swap one unseen card between two hidden places (seats, or the unseen bury
    or blind) where both cards are allowed (:attr:`Sampler.banned`, the picker's hold card),
    and moves there with probability ``min(1, w'/w)``, ``w`` being ``weigh``'s bidding weight
    times, per other seat, ``trust * mismatch**misses + (1 - trust)`` (``misses``: the cards it
    played with a choice that the heuristic, holding its cards in the deal, would not have:
    :func:`replay_misses`). The proposal is symmetric (two places, then one card of each,
    uniformly; a swap that breaks a constraint is a rejected step), so the deals it visits
    are, in the long run, distributed as the uniform deal consistent with what is public
    times that weight. ``weigh`` may be random (:func:`engine.bots.rollout.bidding_weight`
    judges the picker on a random six of its eight): the weight of the deal the chain is on is
    kept, not drawn again, which leaves that distribution unchanged (pseudo-marginal MCMC).

    ``start``: a deal to begin from (:meth:`carried` makes one from the seat's previous
    decision); else one drawn by ``sampler``. Deterministic given ``rng``.
    """

    def __init__(
        self,
        sampler: Sampler,
        rng: random.Random,
        weigh: Weigher | None = None,
        mismatch: float = PLAY_MISMATCH,
        trust: float = 1.0,
        start: list[Mask] | None = None,
        burn: int = DEFAULT_BURN,
    ) -> None:
        self.sampler = sampler
        self.rng = rng
        self.weigh = weigh
        self.mismatch = mismatch
        self.trust = trust
        self.plays = played_cards(sampler.k)
        self.places = [s for s in range(6) if sampler.capacity[s]]
        self.steps = 0
        self.accepted = 0
        state = self._evaluate(start) if start is not None else None
        for _ in range(MAX_TRIES):
            if state is not None and state[1] > 0:
                break
            state = self._evaluate(sampler.deal(rng)) or state
        if state is None:
            raise SamplingError("no sampled deal replays the history")
        self.slots, self.weight, self.current = state
        for _ in range(burn):
            self.step()

    def _evaluate(self, slots: list[Mask]) -> tuple[list[Mask], float, Sim] | None:
        """The deal ``slots``, its weight and its simulator at this moment, or None when it
        does not replay the history."""
        sampler = self.sampler
        k = sampler.k
        weight = 1.0
        if self.weigh is not None:
            weight = self.weigh(k, sampler.originals(slots), self.rng)
        start = sampler._rebuild(slots, self.rng, plays=False)
        if start is None:
            return None
        sim = Sim.from_hand(start)
        misses = replay_misses(sim, self.plays, k.seat)
        if misses is None:
            return None
        if self.mismatch < 1:
            trust = self.trust
            for s in range(5):
                if s != k.seat:
                    weight *= trust * self.mismatch ** misses[s] + (1 - trust)
        return slots, weight, sim

    def propose(self) -> list[Mask] | None:
        """The current deal with one card swapped between two hidden places, or None when the
        drawn swap breaks a constraint (counted as a rejected step)."""
        rng = self.rng
        sampler = self.sampler
        a, b = rng.sample(self.places, 2)
        slots = self.slots
        x = rng.choice(bits(slots[a]))
        y = rng.choice(bits(slots[b]))
        banned = sampler.banned
        if banned[b] >> x & 1 or banned[a] >> y & 1:
            return None
        out = list(slots)
        out[a] = (out[a] & ~(1 << x)) | (1 << y)
        out[b] = (out[b] & ~(1 << y)) | (1 << x)
        if sampler.hold and not out[sampler.k.picker or 0] & sampler.hold:
            return None
        return out

    def step(self) -> None:
        """One Metropolis–Hastings step."""
        self.steps += 1
        if len(self.places) < 2:
            return
        proposal = self.propose()
        if proposal is None:
            return
        state = self._evaluate(proposal)
        if state is None or state[1] <= 0:
            return
        # min(1, w'/w) without dividing (the current weight may be 0 after a start that fits
        # nothing better; then any deal that fits is taken).
        if state[1] >= self.weight or self.rng.random() * self.weight < state[1]:
            self.slots, self.weight, self.current = state
            self.accepted += 1

    def draw(self, thin: int = DEFAULT_THIN) -> Sim:
        """``thin`` steps on, a copy of the simulator of the deal the chain is on."""
        for _ in range(thin):
            self.step()
        return self.current.copy()

    def carried(self, sampler: Sampler, rng: random.Random) -> list[Mask] | None:
        """This chain's deal brought to ``sampler``'s later moment of the same hand (the
        cards played since taken out of it; a seat that played a card the deal gave another
        place gives that place one of its own instead), or None when that breaks what is
        public now (the chain then starts afresh)."""
        k = sampler.k
        plays = played_cards(k)
        if plays[: len(self.plays)] != self.plays:
            return None
        slots = list(self.slots)
        for seat, c in plays[len(self.plays) :]:
            bit = 1 << c
            if seat == k.seat:
                continue
            if slots[seat] & bit:
                slots[seat] &= ~bit
                continue
            holder = next((s for s in range(6) if slots[s] & bit), None)
            if holder is None:
                return None
            slots[holder] &= ~bit
            options = [d for d in bits(slots[seat]) if not sampler.banned[holder] >> d & 1]
            if not options:
                return None
            d = rng.choice(options)
            slots[seat] &= ~(1 << d)
            slots[holder] |= 1 << d
        union = 0
        for s in range(6):
            if slots[s].bit_count() != sampler.capacity[s] or slots[s] & sampler.banned[s]:
                return None
            union |= slots[s]
        if union != sampler.unseen:
            return None
        if sampler.hold and not slots[k.picker or 0] & sampler.hold:
            return None
        return slots


DEFAULT_CHAIN_COUNT: Final = 8
"""Independent chains a decision of :class:`Chains` draws its deals from, in turn."""


class Chains:
    """Deals of one decision from ``count`` independent Markov chains taken in turn (issue 30).

    One :class:`Chain` hands out deals one swap or so apart (of 20 deals at thinning 2, about
    half distinct): a decision's deals are then far fewer independent situations than fresh
    deals, and the search's early stop reads repeated deals as agreement. Here each chain
    starts from its own fresh deal (:meth:`Sampler.deal`), burns in ``burn`` steps towards the
    same weighted distribution as :class:`Chain`, and the decision's deals go round the chains:
    the first ``count`` deals are independent draws, and a chain is only started when its
    first deal is asked for (a decision that stops early pays for fewer chains). Deterministic
    given ``rng``.
    """

    def __init__(
        self,
        sampler: Sampler,
        rng: random.Random,
        weigh: Weigher | None = None,
        mismatch: float = PLAY_MISMATCH,
        trust: float = 1.0,
        count: int = DEFAULT_CHAIN_COUNT,
        burn: int = DEFAULT_BURN,
    ) -> None:
        if count < 1:
            raise ValueError("count must be at least 1")
        self.sampler = sampler
        self.rng = rng
        self.weigh = weigh
        self.mismatch = mismatch
        self.trust = trust
        self.count = count
        self.burn = burn
        self.chains: list[Chain] = []
        self.drawn = 0

    def draw(self, thin: int = DEFAULT_THIN) -> Sim:
        """The next chain's deal: a new chain's first one after its burn-in, else ``thin``
        steps on (raises SamplingError when a new chain finds no deal to start from)."""
        i = self.drawn % self.count
        self.drawn += 1
        if i == len(self.chains):
            chain = Chain(
                self.sampler, self.rng, self.weigh, self.mismatch, self.trust, burn=self.burn
            )
            self.chains.append(chain)
            return chain.current.copy()
        return self.chains[i].draw(thin)
