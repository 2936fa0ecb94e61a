"""A second, deliberately plain statement of docs/rules.md, used as an oracle by the property tests.

It shares nothing with the engine but the card numbering: ranks and suits are read from the card
codes, orders and points are written out as in docs/rules.md, and the rules are applied card by card
with sets instead of masks. It is slow and obvious on purpose.
"""

from __future__ import annotations

from engine import Hand, RuleSet, card_code
from engine.cards import cards_in

TRUMP_ORDER = {
    "seed": ["QC", "QS", "QH", "QD", "JS", "JC", "JH", "JD", "AD", "TD", "KD", "9D", "8D", "7D"],
    "clubs-first": [
        "QC",
        "QS",
        "QH",
        "QD",
        "JC",
        "JS",
        "JH",
        "JD",
        "AD",
        "TD",
        "KD",
        "9D",
        "8D",
        "7D",
    ],
}
FAIL_ORDER = "ATK987"
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}


def is_trump(code: str) -> bool:
    return code[0] in "QJ" or code[1] == "D"


def suit(code: str) -> str:
    """The suit for following: ``"trump"`` or the fail suit letter."""
    return "trump" if is_trump(code) else code[1]


def points(codes: list[str]) -> int:
    return sum(POINTS[c[0]] for c in codes)


def trick_winner(codes: list[str], jack_order: str, under: str | None) -> int:
    """Index of the winning card: highest trump, else highest card of the led suit. The unknown
    card never wins; when it leads and nobody follows or trumps, the next card's suit counts."""
    order = TRUMP_ORDER[jack_order]
    trumps = [i for i, c in enumerate(codes) if is_trump(c) and c != under]
    if trumps:
        return min(trumps, key=lambda i: order.index(codes[i]))
    led = suit(codes[0])
    following = [i for i, c in enumerate(codes) if suit(c) == led and c != under]
    if not following:
        led = suit(codes[1])
        following = [i for i, c in enumerate(codes) if suit(c) == led and c != under]
    return min(following, key=lambda i: FAIL_ORDER.index(codes[i][0]))


def legal_plays(hand: Hand) -> set[str]:
    """The cards the seat to act may play (docs/rules.md, "4. Choosing a partner" and "5. Playing
    the tricks")."""
    seat = hand.turn
    assert seat is not None and hand.phase == "play"
    held = {card_code(c) for c in cards_in(hand.hands[seat])}
    current = [card_code(c) for c in hand.current]
    lead = current[0] if current else None
    last_trick = len(hand.tricks) == 5
    called = None if hand.called is None else card_code(hand.called)
    under = card_code(hand.under) if hand.under is not None else None
    called_suit = called[1] if called is not None and called != "JD" else None
    led_before = called_suit is not None and any(
        suit(card_code(t.cards[0])) == called_suit for t in hand.tricks
    )
    led_now = lead is not None and suit(lead) == called_suit

    def follow(cards: set[str]) -> set[str]:
        if lead is None:
            return cards
        return {c for c in cards if suit(c) == suit(lead)} or cards

    if last_trick:
        return held
    if seat == hand.picker and under is not None and under in held:
        # The face-down card: played when the called suit is first led, held back otherwise.
        if led_now and not led_before:
            return {under}
        return follow(held - {under}) or held
    legal = follow(held)
    if called_suit is None:
        return legal
    suit_led = led_before or led_now
    if seat == hand.picker and not suit_led and lead is not None:
        hold = {c for c in held if suit(c) == called_suit}
        if len(hold) == 1 and hold <= legal and legal != hold:
            legal = legal - hold
    if seat == hand.partner and called in held:
        if led_now:
            return {called}
        if lead is None:
            others = {c for c in legal if suit(c) == called_suit and c != called}
            legal = legal - others
        elif legal != {called}:
            legal = legal - {called}
    return legal


def shown_voids(hand: Hand, then: int | None = None) -> list[set[str]]:
    """Per seat, the suits (:func:`suit`) it has shown it lacks: it did not follow a trick led in
    that suit (the face-down unknown card, played when it must be, shows nothing); ``then``: a
    card the seat to act plays next."""
    under = card_code(hand.under) if hand.under is not None else None
    voids: list[set[str]] = [set() for _ in range(5)]
    current = (*hand.current, *(() if then is None else (then,)))
    tricks = [(t.leader, t.cards) for t in hand.tricks] + [(hand.leader, current)]
    for leader, cards in tricks:
        codes = [card_code(c) for c in cards]
        for i, code in enumerate(codes[1:], start=1):
            if suit(code) != suit(codes[0]) and code != under:
                voids[(leader + i) % 5].add(suit(codes[0]))
    return voids


def called_led_at(hand: Hand) -> int | None:
    """The trick in which the called suit was first led (None: not yet, or nothing to lead)."""
    called = None if hand.called is None else card_code(hand.called)
    if called is None or called == "JD":
        return None
    leads = [t.cards[0] for t in hand.tricks] + hand.current[:1]
    for number, lead in enumerate(leads):
        if suit(card_code(lead)) == called[1]:
            return number
    return None


def payouts(
    rules: RuleSet,
    *,
    picker: int | None,
    partner: int | None,
    leaster: bool,
    doubler: bool,
    points: list[int],
    tricks_won: list[int],
    multiplier: int,
) -> list[int]:
    """docs/rules.md, "Scoring a picked hand" and "When everybody passes", given each seat's card
    points (bury and blind included)."""
    if doubler:
        return [0] * 5
    if leaster:
        eligible = [s for s in range(5) if tricks_won[s] or not rules.leaster_needs_trick]
        low = min(points[s] for s in eligible)
        winners = [s for s in eligible if points[s] == low]
        if len(winners) > 1:
            return [0] * 5
        return [4 * multiplier if s == winners[0] else -multiplier for s in range(5)]
    assert picker is not None
    side = {picker} if partner is None else {picker, partner}
    side_points = sum(points[s] for s in side)
    side_tricks = sum(tricks_won[s] for s in side)
    if side_tricks == 6 or side_tricks == 0:
        m = 3
    elif side_points >= 61:
        m = 2 if 120 - side_points < 30 else 1
    else:
        m = 2 if side_points < 31 else 1
    won = side_points >= 61 if 0 < side_tricks < 6 else side_tricks == 6
    m *= multiplier
    if not won and rules.double_on_the_bump:
        m *= 2
    sign = 1 if won else -1
    out = [-sign * m] * 5
    if partner is None:
        out[picker] = 4 * sign * m
    elif side_tricks == 0 and rules.no_trick_partner_exempt:
        out[partner] = 0
        out[picker] = -3 * m
    else:
        out[partner] = sign * m
        out[picker] = 2 * sign * m
    return out
