"""The coach's advice in words: the ``hint`` reply (PROTOCOL.md §4) as one status line.

A difference within :data:`NOISE` standard errors (the ``se`` the coach sends: the sampling
error of the difference over its deals) is called "about equal": a person should not learn
from noise.

>>> hint_text({"deals": 40, "candidates": [
...     {"action": {"action": "play", "card": "QC"}, "value": 1.4},
...     {"action": {"action": "play", "card": "AH"}, "value": -0.3, "se": 0.4}]})
'Hint: Q♣ (+1.4 over 40 deals); next A♥ (−0.3), 1.7 ±0.4 behind'
>>> hint_text({"deals": 40, "candidates": [
...     {"action": {"action": "play", "card": "JC"}, "value": 0.02},
...     {"action": {"action": "play", "card": "8S"}, "value": -0.01, "se": 0.1}]})
'Hint: J♣ or 8♠, about equal: 0.0 and 0.0, 0.0 ±0.1 apart over 40 deals'
>>> hint_text({"deals": 40, "candidates": [
...     {"action": {"action": "play", "card": "JD"}, "value": 2.3},
...     {"action": {"action": "play", "card": "QC"}, "value": 3.0, "se": 0.3}]})
'Hint: J♦, the usual play (+2.3); Q♣ +3.0, 0.7 ±0.3 ahead: within chance'
>>> hint_text({"deals": 40, "candidates": [
...     {"action": {"action": "pass"}, "value": -0.04}]})
'Hint: pass (0.0 over 40 deals)'
>>> hint_text({"deals": 0, "candidates": [{"action": {"action": "play", "card": "9S"},
...     "value": None, "alike": [{"action": "play", "card": "8S"}]}]})
'Hint: 9♠/8♠ alike (they play the same)'
>>> hint_text({"deals": 0, "candidates": [{"action": {"action": "pass"}, "value": None}]})
'Hint: pass (your only choice)'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from client.widgets.cards import card_label, cards_label
from engine.cards import parse_card_value, sort_key
from engine.errors import SheepsheadError
from protocol.events import HintReply, ReviewReply

_NAMES = {
    "pick": "pick",
    "pass": "pass",
    "alone": "go alone",
    "crack": "crack",
    "no_crack": "no crack",
    "recrack": "re-crack",
    "no_recrack": "no re-crack",
    "blitz": "blitz",
}


def action_label(action: Mapping[str, Any]) -> str:
    """A legal action in a few words: ``Q♣``, ``pick``, ``bury 7♦ 8♦``, ``call A♥``."""
    kind = str(action.get("action"))
    if kind == "play":
        return card_label(str(action.get("card")))
    if kind == "bury":
        return "bury " + cards_label(str(c) for c in action.get("cards") or ())
    if kind == "call":
        return "call " + card_label(str(action.get("card")))
    if kind == "unknown":
        card, under = card_label(str(action.get("card"))), card_label(str(action.get("under")))
        return f"call {card}, {under} face down"
    return _NAMES.get(kind, kind.replace("_", " "))


NOISE: Final = 2.0
"""Standard errors within which two choices' difference is sampling noise ("about equal")."""


def points(value: float) -> str:
    """A mean payout with its sign (a real minus sign), one decimal: ``+1.4``, ``−0.3``; one
    that rounds to nothing is ``0.0`` (``-0.04`` read "−0.0", a loss of nothing)."""
    text = f"{value:+.1f}"
    if float(text) == 0:
        return "0.0"
    return "−" + text[1:] if text.startswith("-") else text


def choice_actions(
    candidate: Mapping[str, Any], hand: Sequence[str] = ()
) -> list[Mapping[str, Any]]:
    """A candidate's action and those that play alike with it, in the order your hand shows
    them (``hand``: your cards as the table shows them, by the table's jack order; without it
    the default order): the coach lists them as its legal list has them.

    At a Wisconsin table (J♣ above J♠) the hint read "J♠/J♣/J♥/J♦" over a hand showing
    J♣ J♠, with the cursor on J♣.

    >>> jacks = [{"action": "play", "card": code} for code in ("JS", "JC")]
    >>> [a["card"] for a in choice_actions({"action": jacks[0], "alike": jacks[1:]})]
    ['JS', 'JC']
    >>> hand = ["QC", "JC", "JS"]
    >>> [a["card"] for a in choice_actions({"action": jacks[0], "alike": jacks[1:]}, hand)]
    ['JC', 'JS']
    """
    actions = [candidate.get("action") or {}, *(candidate.get("alike") or ())]
    if len(actions) > 1:
        actions.sort(key=lambda action: _shown_order(action, hand))
    return actions


def choice_label(candidate: Mapping[str, Any], hand: Sequence[str] = ()) -> str:
    """A candidate with the cards that play alike with it, in the order your hand shows them
    (:func:`choice_actions`): ``9♠/8♠/7♠``.

    >>> play = [{"action": "play", "card": code} for code in ("9S", "7S", "8S")]
    >>> choice_label({"action": play[0], "alike": play[1:]})
    '9♠/8♠/7♠'
    """
    return "/".join(action_label(a) for a in choice_actions(candidate, hand))


def _shown_order(action: Mapping[str, Any], hand: Sequence[str]) -> tuple[int, ...]:
    """Where a played card comes in ``hand`` (one not in it: in the default display order
    after; anything else: last, in place)."""
    card = action.get("card")
    if card in hand:
        return (0, hand.index(str(card)))
    try:
        return (1, *sort_key(parse_card_value(card)))
    except SheepsheadError:
        return (99, 0)


def within_noise(difference: float, se: float | None) -> bool:
    """Whether ``difference`` (in points) is within the sampling error ``se`` (or under the
    0.05 that rounds to nothing)."""
    return difference < 0.05 or (se is not None and difference <= NOISE * se)


HINT_WIDTH: Final = 78
"""Cells of the table's hint line at 80 columns (the status line, padded one cell each side):
a longer hint was cut off there."""


def shown_value(value: float) -> float:
    """A value as :func:`points` shows it, to one decimal: the figures a reader checks the
    shown difference against.

    >>> shown_value(-5.24), shown_value(-5.46), shown_value(-0.04)
    (-5.2, -5.5, 0.0)
    """
    return float(points(value).replace("−", "-"))


def first_that_fits(lines: Sequence[str], width: int = HINT_WIDTH) -> str:
    """The first of ``lines`` (fullest first) within ``width`` cells, else the last.

    >>> first_that_fits(["a long line", "short"], width=6)
    'short'
    """
    return next((line for line in lines if len(line) <= width), lines[-1])


def hint_text(reply: HintReply, hand: Sequence[str] = ()) -> str:
    """The status line for a ``hint`` reply (cards that play alike named in the order of
    ``hand``, your cards as shown: :func:`choice_actions`), within :data:`HINT_WIDTH`.

    The difference it names is that of the figures it shows, and the ``±`` goes with the
    difference: "(−5.2 …); next … (−5.5), 0.4 ±0.2 behind" came from the unrounded values,
    and "about equal (−0.5 and −1.9 ±1.0 …)" read as if ±1.0 belonged to −1.9 alone.

    >>> hint_text({"deals": 40, "candidates": [
    ...     {"action": {"action": "play", "card": "QC"}, "value": -5.24},
    ...     {"action": {"action": "play", "card": "AH"}, "value": -5.46, "se": 0.05}]})
    'Hint: Q♣ (−5.2 over 40 deals); next A♥ (−5.5), 0.3 ±0.1 behind'
    >>> hint_text({"deals": 40, "candidates": [
    ...     {"action": {"action": "pick"}, "value": -0.46},
    ...     {"action": {"action": "pass"}, "value": -1.94, "se": 1.0}]})
    'Hint: pick or pass, about equal: −0.5 and −1.9, 1.4 ±1.0 apart over 40 deals'
    >>> bury = [{"action": "bury", "cards": cards} for cards in (["TD", "TH"], ["KD", "9D"])]
    >>> hint_text({"deals": 40, "candidates": [{"action": bury[0], "value": -10.5},
    ...     {"action": bury[1], "value": -12.3, "se": 1.0}]})  # "over 40 deals" did not fit
    'Hint: bury 10♦ 10♥ or bury K♦ 9♦, about equal: −10.5 and −12.3, 1.8 ±1.0 apart'
    """
    candidates = list(reply.get("candidates") or [])
    if not candidates:
        return "Hint: the coach has no advice for this decision."
    best = candidates[0]
    deals = int(reply.get("deals") or 0)
    name = choice_label(best, hand)
    if best.get("value") is None or not deals:
        if best.get("alike"):
            return f"Hint: {name} alike (they play the same)"
        return f"Hint: {name} (your only choice)"
    mine = points(best["value"])
    if len(candidates) < 2 or candidates[1].get("value") is None:
        return f"Hint: {name} ({mine} over {deals} deals)"
    second = candidates[1]
    other = choice_label(second, hand)
    theirs = points(second["value"])
    difference = best["value"] - second["value"]
    # The difference the reader can check: that of the figures shown.
    apart = round(shown_value(best["value"]) - shown_value(second["value"]), 1)
    se = second.get("se")
    error = "" if se is None else f" ±{se:.1f}"
    over = f" over {deals} deals"
    if difference <= -0.05 and apart < 0:
        # The coach names standard play first when the best mean is within its noise of it
        # (engine.bots.coach.CONVENTION_SE): "about equal (+2.3 and +3.0)" with the lower one
        # named first read as advice to take the worse card.
        ahead = f"{-apart:.1f}{error} ahead"
        return first_that_fits(
            [
                f"Hint: {name}, the usual play ({mine}); {other} {theirs}, {ahead}: within chance",
                f"Hint: {name}, the usual play; {other} {ahead}: within chance",
                f"Hint: {name}, the usual play; {other} within chance",
            ]
        )
    if apart == 0 or within_noise(difference, se):
        # Figures that round alike are about equal whatever the error ("0.0 ±0.0 behind").
        gap = f"{abs(apart):.1f}{error} apart"
        return first_that_fits(
            [
                f"Hint: {name} or {other}, about equal: {mine} and {theirs}, {gap}{over}",
                f"Hint: {name} or {other}, about equal: {mine} and {theirs}, {gap}",
                f"Hint: {name} or {other}, about equal ({gap})",
                f"Hint: {name} or {other}, about equal",
            ]
        )
    behind = f"{apart:.1f}{error} behind"
    return first_that_fits(
        [
            f"Hint: {name} ({mine}{over}); next {other} ({theirs}), {behind}",
            f"Hint: {name} ({mine}); next {other} ({theirs}), {behind}",
            f"Hint: {name}; next {other}, {behind}",
        ]
    )


_MADE_BY_WORDS: Final = {
    "standin": "for you by a stand-in while you were away",
    "timer": "for you when your time ran out",
    "before": "before you took the seat",
}
"""How a review line tells who made a move for you, by the ``made_for`` row's ``by``
(``before``: made at your seat before you took it over, not for you)."""

_PLAYED_WORDS: Final = {
    "standin": "played by a stand-in while you were away",
    "timer": "played for you when your time ran out",
    "before": "played before you took the seat",
}
"""The same for the cards played for you."""

_DECISION_NAMES: Final = {
    "pass": "Pick",
    "pick": "Pick",
    "bury": "Bury",
    "blitz": "Bury",
    "call": "Call",
    "unknown": "Call",
    "alone": "Call",
    "crack": "Crack",
    "no_crack": "Crack",
    "recrack": "Re-crack",
    "no_recrack": "Re-crack",
}
"""The decision an action before the play answered, as a review line names it."""

_DONE_WORDS: Final = {"pass": "passed", "pick": "picked", "alone": "went alone"}
"""What was done, in a review line of a move made for you (else the action's label)."""


def _made_for_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The lines for a run of moves made for you (``made_for`` rows, in order): the cards
    played by the same hand for consecutive tricks in one line, each decision before the
    play in its own.

    >>> play = [{"trick": t, "action": {"action": "play", "card": c}, "by": "standin"}
    ...         for t, c in ((2, "QC"), (3, "AH"), (4, "9S"))]
    >>> _made_for_lines([{"trick": None, "action": {"action": "pass"}, "by": "timer"}, *play])
    ['Pick: passed for you when your time ran out.', \
'Trick 2 to 4: played by a stand-in while you were away (Q♣, A♥, 9♠).']
    >>> _made_for_lines([{"trick": None, "action": {"action": "pick"}, "by": "before"}])
    ['Pick: picked before you took the seat.']
    """
    lines: list[str] = []
    cards: list[str] = []
    first = last = 0
    by = ""
    for row in [*rows, {}]:  # the empty row ends the last run of cards
        action = row.get("action") or {}
        trick = row.get("trick")
        if cards and not (trick and row.get("by") == by and trick == last + 1):
            where = f"Trick {first}" if first == last else f"Trick {first} to {last}"
            words = _PLAYED_WORDS.get(by, "played for you")
            lines.append(f"{where}: {words} ({', '.join(cards)}).")
            cards = []
        if not row:
            break
        by = str(row.get("by"))
        if trick:
            if not cards:
                first = int(trick)
            last = int(trick)
            cards.append(action_label(action))
            continue
        kind = str(action.get("action", ""))
        where = _DECISION_NAMES.get(kind, kind.capitalize())
        done = _DONE_WORDS.get(kind, action_label(action))
        lines.append(f"{where}: {done} {_MADE_BY_WORDS.get(by, 'for you')}.")
    return lines


def review_lines(reply: ReviewReply) -> list[str]:
    """One line per decision of a ``review`` reply, in the order they were made; the moves a
    stand-in or the turn timer made for you, or that were made at your seat before you took it
    over (``made_for``), are named as such, not judged.

    >>> review_lines({"hand": 0, "decisions": [
    ...     {"trick": 2, "action": {"action": "play", "card": "9H"}, "value": -0.3,
    ...      "best": {"action": "play", "card": "QC"}, "best_value": 0.8, "cost": 1.1,
    ...      "se": 0.3, "deals": 40},
    ...     {"trick": 3, "action": {"action": "play", "card": "KD"}, "value": 0.7,
    ...      "best": {"action": "play", "card": "TD"}, "best_value": 0.8, "cost": 0.1,
    ...      "se": 0.2, "deals": 40},
    ...     {"trick": None, "action": {"action": "pick"}, "value": 1.2,
    ...      "best": {"action": "pick"}, "best_value": 1.2, "cost": 0.0, "se": 0.0,
    ...      "deals": 40}]})
    ['Trick 2: your 9♥ cost about 1.1 ±0.3 points against Q♣ (40 deals).', \
'Trick 3: your K♦ and 10♦ about equal (0.1 ±0.2 points apart, 40 deals).', \
'Pick: as good as any (+1.2).']
    >>> review_lines({"hand": 0, "decisions": [
    ...     {"n": 20, "trick": 5, "action": {"action": "play", "card": "9H"}, "value": 0.1,
    ...      "best": {"action": "play", "card": "9H"}, "best_value": 0.1, "cost": 0.0,
    ...      "se": 0.0, "deals": 40}], "made_for": [
    ...     {"n": 1, "trick": None, "action": {"action": "pass"}, "by": "standin"},
    ...     {"n": 8, "trick": 2, "action": {"action": "play", "card": "QC"}, "by": "standin"},
    ...     {"n": 14, "trick": 3, "action": {"action": "play", "card": "7D"}, "by": "standin"},
    ...     {"n": 25, "trick": 6, "action": {"action": "play", "card": "8C"}, "by": "timer"}]})
    ['Pick: passed for you by a stand-in while you were away.', \
'Trick 2 to 3: played by a stand-in while you were away (Q♣, 7♦).', \
'Trick 5: as good as any (+0.1).', \
'Trick 6: played for you when your time ran out (8♣).']
    """
    # Each in the order of the hand (``n``: the place in its actions; a server before
    # ``made_for`` sends neither, and its decisions keep their order).
    made_for = sorted(reply.get("made_for") or [], key=lambda row: int(row.get("n") or 0))
    lines = []
    for row in reply.get("decisions") or []:
        if made_for and int(row.get("n") or 0) > int(made_for[0].get("n") or 0):
            ahead = [r for r in made_for if int(r.get("n") or 0) < int(row.get("n") or 0)]
            lines += _made_for_lines(ahead)
            made_for = made_for[len(ahead) :]
        trick = row.get("trick")
        action = row.get("action") or {}
        where = f"Trick {trick}" if trick else str(action.get("action", "")).capitalize()
        mine = action_label(action)
        cost = row.get("cost")
        se = row.get("se")
        deals = int(row.get("deals") or 0)
        best = action_label(row.get("best") or {})
        error = "" if se is None else f" ±{se:.1f}"
        if cost is None:
            lines.append(f"{where}: {mine}: the choices play alike.")
        elif cost < 0.05:
            lines.append(f"{where}: as good as any ({points(row.get('value') or 0.0)}).")
        elif within_noise(cost, se):
            lines.append(
                f"{where}: your {mine} and {best} about equal "
                f"({cost:.1f}{error} points apart, {deals} deals)."
            )
        else:
            lines.append(
                f"{where}: your {mine} cost about {cost:.1f}{error} points against {best} "
                f"({deals} deals)."
            )
    lines += _made_for_lines(made_for)
    return lines or ["No decision of yours in that hand had a choice."]
