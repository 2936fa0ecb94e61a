"""Card-level heuristics shared by the ``heuristic`` strategy and the ``search`` rollouts.

Everything here works on bit masks (see :mod:`engine.cards`) and a small :class:`Situation`, so
the same rules of thumb serve a real decision (built from a seat's view) and the thousands of
decisions of a search rollout (built from a simulated deal) without touching wire maps.

The play rules are those a sound human follows: the picker's side leads trump, defenders lead
the called suit or fail, points go onto a trick your side is sure to win and zero-point cards
onto one you lose, tricks are taken with the cheapest card that does it, and in a leaster you
take as few points as you can.

>>> from engine.cards import CardSet, POWER
>>> hand = CardSet.from_codes(["QC", "QS", "JD", "AD", "7D", "AH"]).mask
>>> wants_to_pick(hand, position=0)
True
>>> wants_to_pick(CardSet.from_codes(["7D", "8C", "9C", "KS", "7H", "8H"]).mask, position=0)
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.bots.style import TUNED, Style
from engine.cards import (
    ALL_CARDS,
    FAIL,
    FOLLOW,
    JACKS,
    POINTS,
    QUEENS,
    TRUMP,
    Card,
    Mask,
    mask_points,
    parse_card,
)

NO_CARD: Final = -1
"""Marks "no card" in the int fields of :class:`Situation` (kept as ints for speed)."""

JD: Final = parse_card("JD")
QC: Final = parse_card("QC")
QS: Final = parse_card("QS")
FAIL_ACES: Final = tuple(parse_card("A" + s) for s in "CSH")
FAIL_TENS: Final = tuple(parse_card("T" + s) for s in "CSH")
ALL_FAIL: Final[Mask] = ALL_CARDS & ~TRUMP
HIGH_TRUMP: Final[Mask] = QUEENS | JACKS
"""Queens and jacks: the trumps that win tricks."""
_BLACK_QUEENS: Final[Mask] = (1 << QC) | (1 << QS)

# What it costs to give a card away, beyond its points: high trumps win later tricks.
_TRUMP_COST: Final[tuple[float, ...]] = tuple(
    (
        (9.0 if (1 << c) & QUEENS else 5.0 if (1 << c) & JACKS else 2.0 if POINTS[c] >= 10 else 1.0)
        if (1 << c) & TRUMP
        else 0.0
    )
    for c in range(32)
)


def bits(mask: Mask) -> list[Card]:
    """The cards of a mask, lowest index first, as a list (faster than a generator here)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def lowest_bit(mask: Mask) -> Card:
    """The lowest card of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


class Situation:
    """What one seat knows when it must play a card (all masks; seats as bit sets).

    ``friends`` / ``foes`` are seat bit sets (bit ``s`` for seat ``s``) of the seats known to be
    on this seat's side / the other side; a seat in neither is unknown (the secret partner).
    ``unseen`` is every card that may still be in another seat's hand (or the bury / blind).
    """

    __slots__ = (
        "called",
        "called_led",
        "foes",
        "friends",
        "hand",
        "leader",
        "leaster",
        "legal",
        "picker",
        "power",
        "seat",
        "style",
        "taken",
        "trick",
        "trick_number",
        "under",
        "unseen",
        "void_in",
    )

    def __init__(
        self,
        *,
        seat: int,
        hand: Mask,
        legal: Mask,
        power: Sequence[int],
        leader: int,
        trick: list[Card],
        picker: int,
        leaster: bool,
        friends: int,
        foes: int,
        called: Card,
        called_led: bool,
        unseen: Mask,
        trick_number: int,
        under: Card = NO_CARD,
        void_in: Sequence[Mask] = (0, 0, 0, 0, 0),
        taken: Sequence[int] = (0, 0, 0, 0, 0),
        style: Style = TUNED,
    ) -> None:
        self.seat = seat
        self.hand = hand
        self.legal = legal
        self.power = power
        self.leader = leader
        self.trick = trick
        self.picker = picker
        self.leaster = leaster
        self.friends = friends
        self.foes = foes
        self.called = called
        self.called_led = called_led
        self.unseen = unseen
        self.trick_number = trick_number
        self.under = under
        self.void_in = void_in
        self.taken = taken
        self.style = style


def effective_power(c: Card, lead_class: Mask, power: Sequence[int]) -> int:
    """How strongly ``c`` contends for a trick led in ``lead_class`` (0: it cannot win)."""
    bit = 1 << c
    if bit & TRUMP or bit & lead_class:
        return power[c]
    return 0


def trick_winner(trick: Sequence[Card], power: Sequence[int], under: Card = NO_CARD) -> int:
    """Index in ``trick`` of the card winning it so far (the unknown card never wins)."""
    lead_class = FOLLOW[trick[0]]
    best = -1
    best_i = 0
    for i, c in enumerate(trick):
        bit = 1 << c
        if bit & TRUMP or bit & lead_class:
            p = power[c]
            if p > best and c != under:
                best = p
                best_i = i
    return best_i


def _higher_unseen(c: Card, unseen: Mask, power: Sequence[int]) -> bool:
    """Whether an unseen card of ``c``'s class (or, for fail, any trump) could beat ``c``."""
    cls = FOLLOW[c]
    p = power[c]
    m = unseen & cls
    while m:
        low = m & -m
        if power[low.bit_length() - 1] > p:
            return True
        m ^= low
    return False


def is_boss(c: Card, unseen: Mask, power: Sequence[int]) -> bool:
    """Whether no unseen card of the same class outranks ``c``."""
    return not _higher_unseen(c, unseen, power)


def _schmear_value(c: Card) -> float:
    return POINTS[c] - _TRUMP_COST[c]


def _dump_cost(c: Card, power: Sequence[int]) -> float:
    # Points given away dominate; then keep trump; then shed high fail cards last.
    return POINTS[c] * 1.0 + _TRUMP_COST[c] * 1.2 + power[c] * 0.001


def _best(cards: list[Card], key: object) -> Card:
    return min(cards, key=key)  # type: ignore[call-overload, no-any-return]


def choose_play(s: Situation) -> Card:
    """The card to play (one of ``s.legal``)."""
    legal = s.legal
    if not legal & (legal - 1):
        return lowest_bit(legal)
    if s.leaster:
        return _leaster_play(s)
    if not s.trick:
        return _lead(s)
    return _follow(s)


def _picker_side(s: Situation) -> bool:
    return s.picker >= 0 and bool(s.friends >> s.picker & 1)


def _lead(s: Situation) -> Card:
    legal = s.legal
    power = s.power
    cards = bits(legal)
    trumps = [c for c in cards if (1 << c) & TRUMP]
    fails = [c for c in cards if not (1 << c) & TRUMP]
    unseen = s.unseen
    if _picker_side(s):
        if trumps:
            top = max(trumps, key=lambda c: power[c])
            if is_boss(top, unseen, power) and unseen & TRUMP:
                return top
            if not unseen & TRUMP and fails:
                # Trump is drawn: cash fail winners, then the rest.
                return _lead_fail(s, fails, prefer_winners=True)
            if s.seat == s.picker and len(trumps) >= s.style.picker_top:
                if power[top] < power[QS]:
                    return _low_trump(trumps, power)
                if s.style.picker_second and len(trumps) > 1:
                    # Not the boss (that was led above): the queen of spades would feed the
                    # queen of clubs; the next trump down draws trump as well and keeps the
                    # queen to take the club queen's trick later (the search's lead here, 1.1-1.4
                    # points a time played out on true deals).
                    return max((c for c in trumps if c != top), key=lambda c: power[c])
                return top
            return _low_trump(trumps, power)
        return _lead_fail(s, fails, prefer_winners=True)
    # Defender (or not yet known): lead the called suit, then fail, trump last.
    if fails:
        called = s.called
        if called != NO_CARD and called != JD and not s.called_led and s.style.lead_called:
            suit = FOLLOW[called]
            mine = [c for c in fails if (1 << c) & suit]
            if mine:
                return min(mine, key=lambda c: (POINTS[c], power[c]))
        return _lead_fail(s, fails, prefer_winners=False)
    top = max(trumps, key=lambda c: power[c])
    if is_boss(top, unseen, power):
        return top
    return _low_trump(trumps, power)


def _low_trump(trumps: list[Card], power: Sequence[int]) -> Card:
    return min(trumps, key=lambda c: (POINTS[c] >= 10, power[c]))


def _lead_fail(s: Situation, fails: list[Card], prefer_winners: bool) -> Card:
    power = s.power
    unseen = s.unseen
    picker = s.picker
    foes = s.foes
    void_in = s.void_in
    short = 0.0 if prefer_winners else s.style.lead_short
    hand = s.hand

    def score(c: Card) -> float:
        suit = FOLLOW[c]
        value = 0.0
        left = (unseen & suit).bit_count()
        if is_boss(c, unseen, power) and left >= 2:
            value += 8.0 + POINTS[c] * 0.3
        # A suit a foe has shown void in will be trumped.
        for seat in range(5):
            if foes >> seat & 1 and void_in[seat] & suit:
                value -= 6.0
        if not prefer_winners and picker >= 0 and void_in[picker] & suit:
            value -= 4.0
        value -= POINTS[c] * 0.5
        value -= left * 0.2
        if short:
            value -= (hand & suit).bit_count() * short
        return -value

    return min(fails, key=score)


def _takes_cheaply(s: Situation, after: int) -> bool:
    """Whether this seat, able to win the trick, takes it with its cheapest winner. Each case
    was found by playing every legal card out on true deals; the gains are per decision."""
    style = s.style
    seat = s.seat
    if (
        style.unknown_take_trump
        and s.friends == 1 << seat
        and seat != s.picker
        and s.picker >= 0
        and (1 << s.trick[0]) & TRUMP
    ):
        # A defender who cannot tell the partner yet, on the picker's trump lead (or an
        # unknown seat's): beating it with the cheapest trump that does wins the lead for the
        # defence (to lead the called suit and fail through the picker) and makes the picker's
        # side spend a high trump to draw ours (0.15-0.35 points in 2nd-4th seat).
        return True
    if seat == s.picker:
        # One seat to come: the cheapest winner loses only to that seat's better trump, while
        # the best trump (spent on a trick worth ``fight``) or a dumped card (on a trick under
        # it) gives up a trick the picker needs or a trump that draws the rest (0.41, t 3.1).
        return after <= style.picker_fourth
    # The same for the partner in 3rd or 4th seat, the picker maybe among the seats to come
    # (0.31 in 3rd seat, t 3.8; 0.68 on a trump lead the other side was winning, t 4.9).
    return _picker_side(s) and after <= style.partner_take


def _follow(s: Situation) -> Card:
    trick = s.trick
    power = s.power
    legal = s.legal
    lead_class = FOLLOW[trick[0]]
    win_i = trick_winner(trick, power, s.under)
    best_card = trick[win_i]
    best_power = effective_power(best_card, lead_class, power) if best_card != s.under else 0
    winner_seat = (s.leader + win_i) % 5
    seat = s.seat
    points = 0
    for c in trick:
        points += POINTS[c]
    after = 4 - len(trick)
    threats = 0  # seats after me not known to be friends
    for i in range(1, after + 1):
        t = (seat + i) % 5
        if not s.friends >> t & 1:
            threats |= 1 << t
    cards = bits(legal)
    winners = [c for c in cards if effective_power(c, lead_class, power) > best_power]
    unseen = s.unseen
    if s.style.lines and points < s.style.fight and _line_at_stake(s, points):
        # Points pay only at the lines: a trick that settles one for this seat's side is worth
        # the fight whatever it holds (the thresholds below weigh raw points).
        points = max(s.style.fight, s.style.side_take, s.style.trump_in, 10)

    def holds(c: Card) -> bool:
        # Whether c, once winning, stays winning against the threats after me.
        if not threats:
            return True
        if (1 << c) & TRUMP:
            return is_boss(c, unseen, power)
        if _higher_unseen(c, unseen, power):
            return False
        # A fail card survives only if no threat can trump it.
        if not unseen & TRUMP:
            return True
        void_in = s.void_in
        return all(void_in[t] & TRUMP for t in range(5) if threats >> t & 1)

    style = s.style
    if style.called_trump and _called_ace_due(s):
        # The called suit's first lead, its ace still to come: everyone who has played but the
        # picker is a fellow defender (the partner must play the ace), and the picker must follow
        # suit with its hold card, so a trump from a defender takes the ace's 11 points.
        if (1 << best_card) & TRUMP and winner_seat != s.picker:
            return max(cards, key=lambda c: (_schmear_value(c), -power[c]))
        trumps = [c for c in winners if (1 << c) & TRUMP]
        if trumps:
            return min(trumps, key=lambda c: (_TRUMP_COST[c], power[c]))
        return min(cards, key=lambda c: _dump_cost(c, power))
    friendly = bool(s.friends >> winner_seat & 1)
    if (
        not friendly
        and style.schmear_unknown
        and not s.foes >> winner_seat & 1
        and s.picker >= 0
        and not s.friends >> s.picker & 1
        and not threats >> s.picker & 1
    ):
        # A defender not yet knowing the partner: the picker has played and lost this
        # trick, so its winner is more likely a fellow defender than the partner.
        friendly = True
    if friendly:
        if (
            holds(best_card)
            or not threats
            or (style.picker_trusts and seat == s.picker and (1 << trick[0]) & ALL_FAIL)
        ):
            # The picker's partner winning a fail lead: taking it over spends a sure trump the
            # picker needs to draw trump, for points the side has anyway unless a defender
            # trumps it (played out on true deals: 0.36 points a time in 4th seat, t 2.3).
            return max(cards, key=lambda c: (_schmear_value(c), -power[c]))
        safe = [c for c in winners if holds(c)]
        if safe and points >= 10:
            return min(safe, key=lambda c: (_TRUMP_COST[c], power[c]))
        return min(cards, key=lambda c: _dump_cost(c, power))
    if winners:
        if style.ace_take and best_card == s.called and not _picker_side(s) and seat != s.picker:
            # The called ace winning its suit's lead: the cheapest trump takes its 11 points as
            # well as the best does, and the high trumps stay to fight the picker (played out on
            # true deals: 0.35 points a time in 3rd seat, t 2.8).
            return min(winners, key=lambda c: power[c])
        if not threats:
            return min(winners, key=lambda c: (_TRUMP_COST[c] - POINTS[c] * 0.05, power[c]))
        if _takes_cheaply(s, after):
            return min(winners, key=lambda c: power[c])
        safe = [c for c in winners if holds(c)]
        if safe and points >= (style.side_take if _picker_side(s) else style.trump_in):
            return min(safe, key=lambda c: (_TRUMP_COST[c], power[c]))
        fight = style.fight
        if points >= fight or (style.trump_fail_lead and (1 << trick[0]) & ALL_FAIL):
            strong = max(winners, key=lambda c: power[c])
            if (1 << strong) & TRUMP or not unseen & TRUMP:
                # Worth fighting for: the best trump we have, unless a cheaper one is as good.
                return strong if points >= fight else min(winners, key=lambda c: power[c])
            return min(winners, key=lambda c: power[c])
    return min(cards, key=lambda c: _dump_cost(c, power))


LINES: Final = (30, 60, 90)
"""The defenders' card points at which a picked hand's payout changes (docs/rules.md, "Scoring a
picked hand"): 30 saves them from schneider, 60 wins, 90 schneiders the picker's side."""


def _line_at_stake(s: Situation, points: int) -> bool:
    """Whether winning the trick in play (``points`` on it so far) settles a scoring line for the
    seat's side by itself. For a defender: the trick carries the defenders to their next line,
    the last they can still reach (30 with 60 out of reach, 60 with 90 out of reach, or 90): a
    line short of another still in reach is worth no more than its points, as the points count
    toward the next one too. For the picker's side: winning it leaves the defenders short of
    their next line whatever the later tricks hold. Only once the seat knows every seat's side
    (the defenders' points are then public); what the defenders can still reach is bounded by the
    cards the seat has not seen (in hands, or a bury it does not know), so the picker's partner
    and the defenders see fewer lines settled than the picker does."""
    picker = s.picker
    friends = s.friends
    if picker < 0 or s.leaster or (friends | s.foes) != 0b11111:
        return False
    side = friends if friends >> picker & 1 else s.foes
    taken = s.taken
    defenders = 0
    for seat in range(5):
        if not side >> seat & 1:
            defenders += taken[seat]
    for line in LINES:
        if defenders < line:
            reach = defenders + points + mask_points(s.hand | s.unseen)
            if not side >> s.seat & 1:
                # The lines lie 30 apart: the next one is out of reach when reach < line + 30.
                return points >= line - defenders and (line == LINES[-1] or reach < line + 30)
            return line <= reach < line + points
    return False


def _called_ace_due(s: Situation) -> bool:
    """Whether ``s`` is a defender's turn on the first lead of the called suit with the called
    card not yet played (so it falls on this trick: the partner must play it)."""
    called = s.called
    return (
        called != NO_CARD
        and called != JD
        and bool(s.unseen >> called & 1)
        and bool((1 << s.trick[0]) & FOLLOW[called])
        and not (1 << s.trick[0]) & TRUMP
        and not _picker_side(s)
        and s.seat != s.picker
    )


def _leaster_play(s: Situation) -> Card:
    power = s.power
    cards = bits(s.legal)
    if not s.trick:
        # Lead low: someone else should take it.
        return min(cards, key=lambda c: (power[c] + (50 if (1 << c) & TRUMP else 0), POINTS[c]))
    trick = s.trick
    lead_class = FOLLOW[trick[0]]
    win_i = trick_winner(trick, power, s.under)
    best_power = effective_power(trick[win_i], lead_class, power)
    losers = [c for c in cards if effective_power(c, lead_class, power) <= best_power]
    take = s.style.leaster_take
    if take and len(trick) == 4 and s.trick_number < 5 and not s.taken[s.seat]:
        # Nobody can overtake a last card, and a leaster is won only by a seat that took a
        # trick: a cheap one now is worth more than staying clean (no points taken yet stands
        # for no trick taken; a zero-point trick is rare).
        winners = [c for c in cards if effective_power(c, lead_class, power) > best_power]
        points = sum(POINTS[c] for c in trick)
        if winners:
            card = min(winners, key=lambda c: (POINTS[c], -power[c]))
            if points + POINTS[card] <= take:
                return card
    if losers:
        return max(losers, key=lambda c: (POINTS[c], power[c]))
    if len(trick) == 4:
        return min(cards, key=lambda c: (POINTS[c], -power[c]))
    return min(cards, key=lambda c: (POINTS[c], power[c]))


# ---------------------------------------------------------------------- pick, bury, call

_PICK_WEIGHT: Final[tuple[float, ...]] = tuple(
    (
        (
            3.0
            if c == QC
            else 2.7
            if c == QS
            else 2.4
            if (1 << c) & QUEENS
            else 2.0
            if (1 << c) & JACKS
            else 1.5
            if POINTS[c] >= 10
            else 1.3
        )
        if (1 << c) & TRUMP
        else (1.0 if c in FAIL_ACES else 0.3 if c in FAIL_TENS else 0.0)
    )
    for c in range(32)
)


def hand_strength(hand: Mask, style: Style = TUNED) -> float:
    """A picking score: weighted trump, fail aces, and a bonus for void fail suits."""
    score = 0.0
    m = hand
    while m:
        low = m & -m
        score += _PICK_WEIGHT[low.bit_length() - 1]
        m ^= low
    if style.pick_ace != 1.0:
        score += (style.pick_ace - 1.0) * sum(hand >> a & 1 for a in FAIL_ACES)
    trumps = hand & TRUMP
    if style.pick_queen != 2.4:
        score += (style.pick_queen - 2.4) * (trumps & QUEENS & ~_BLACK_QUEENS).bit_count()
    if style.pick_jack != 2.0:
        score += (style.pick_jack - 2.0) * (trumps & JACKS).bit_count()
    if style.pick_low != 1.3:
        score += (style.pick_low - 1.3) * (trumps & ~HIGH_TRUMP).bit_count()
    if style.pick_long:
        score += style.pick_long * max(0, trumps.bit_count() - 4)
    for suit in FAIL:
        if not hand & suit:
            score += style.pick_void
    return score


def wants_to_pick(
    hand: Mask,
    position: int,
    threshold_shift: float = 0.0,
    style: Style = TUNED,
    *,
    bump: bool = True,
) -> bool:
    """Whether to take the blind with this six-card hand from this position.

    Roughly: three high trumps, or four trumps with a queen, are enough; later seats (and the
    dealer, who otherwise plays a leaster) pick a little lighter (``style.pick_line``; about
    30% of all hands reach 7.1: three high trumps, QC QS JD, score 7.7). ``bump``: whether the
    table doubles a lost hand (``RuleSet.double_on_the_bump``; see ``Style.pick_single``).
    """
    return hand_strength(hand, style) >= style.pick_line(position, bump) + threshold_shift


def call_candidates(hand: Mask, owned: Mask, jd_mode: bool) -> list[Card]:
    """Cards the picker may call holding ``hand`` after burying (``owned``: hand and bury)."""
    if jd_mode:
        return [] if owned >> JD & 1 else [JD]
    candidates = FAIL_TENS if all(owned >> a & 1 for a in FAIL_ACES) else FAIL_ACES
    return [c for c in candidates if not owned >> c & 1 and hand & FAIL[c >> 3]]


def goes_alone(hand: Mask) -> bool:
    """Whether a six-card hand after burying is strong enough to play alone."""
    trumps = hand & TRUMP
    count = trumps.bit_count()
    queens = (trumps & QUEENS).bit_count()
    top = (trumps >> QC & 1) + (trumps >> QS & 1)
    fail = hand & ~TRUMP
    loose_fail = 0
    for c in bits(fail):
        if c not in FAIL_ACES:
            loose_fail += 1
    if count == 6 and queens >= 2:
        return True
    return count >= 5 and top == 2 and queens >= 3 and loose_fail == 0


def bury_score(hand8: Mask, bury: Mask, jd_mode: bool, style: Style = TUNED) -> float:
    """How good burying ``bury`` out of the eight-card ``hand8`` is (higher is better)."""
    keep = hand8 & ~bury
    score = 0.0
    for c in bits(bury):
        if (1 << c) & TRUMP:
            score -= 6.0 + _TRUMP_COST[c] * 2.0 - POINTS[c] * 0.5
        else:
            score += POINTS[c] * (style.bury_ace if c in FAIL_ACES else 1.0)
    for suit in FAIL:
        held = keep & suit
        if not held:
            score += style.bury_void
        elif held.bit_count() == 1 and held & ~(1 << (lowest_bit(held))) == 0:
            # A lone ten or king is easily lost; a lone ace is a winner.
            c = lowest_bit(held)
            if c not in FAIL_ACES:
                score -= POINTS[c] * 0.3
    calls = call_candidates(keep, hand8, jd_mode)
    if calls:
        score += style.bury_call
        shortest = min((keep & FAIL[c >> 3]).bit_count() for c in calls) if not jd_mode else 0
        score -= shortest * style.bury_short
    elif not goes_alone(keep):
        score -= 12.0
    return score


def choose_bury(
    hand8: Mask, options: Sequence[tuple[Card, Card]], jd_mode: bool, style: Style = TUNED
) -> int:
    """Index in ``options`` (two-card burials) of the best one."""
    best_i = 0
    best = float("-inf")
    for i, (a, b) in enumerate(options):
        value = bury_score(hand8, (1 << a) | (1 << b), jd_mode, style)
        if value > best:
            best = value
            best_i = i
    return best_i


def call_preference(hand: Mask, called: Card) -> tuple[int, int, int]:
    """Sort key for calling ``called``: fewest cards in its suit, cheapest hold card, then suit."""
    if called == JD:
        return (0, 0, 0)
    held = hand & FAIL[called >> 3]
    return (held.bit_count(), max((POINTS[c] for c in bits(held)), default=0), called)


def under_preference(c: Card) -> tuple[float, int]:
    """Sort key for the face-down unknown card: the cheapest card to give away."""
    return (POINTS[c] + _TRUMP_COST[c] * 2.0, c)


CallOption = tuple[str, Card, Card]
"""A call decision as ``(kind, card, under)``: kind ``call``/``alone``/``unknown``, cards or -1."""


def choose_call(hand: Mask, options: Sequence[CallOption]) -> int:
    """Index in ``options`` of the partner decision: alone with an overwhelming hand, else the
    call of the suit held shortest, else the unknown card with the cheapest card face down."""
    kinds = [o[0] for o in options]
    if "alone" in kinds and goes_alone(hand):
        return kinds.index("alone")
    calls = [i for i, o in enumerate(options) if o[0] == "call"]
    if calls:
        return min(calls, key=lambda i: call_preference(hand, options[i][1]))
    unknowns = [i for i, o in enumerate(options) if o[0] == "unknown"]
    if unknowns:
        return min(unknowns, key=lambda i: (under_preference(options[i][2]), options[i][1]))
    return kinds.index("alone") if "alone" in kinds else 0
