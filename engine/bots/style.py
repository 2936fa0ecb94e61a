"""The tunable numbers and switches of the rule-of-thumb policy, as one value.

A :class:`Style` holds every threshold and weight :mod:`engine.bots.policy` decides by: the
picking line per position, how burying trades points against voids and a hold card, whether
defenders lead the called suit, when a defender trumps in or schmears. ``V1`` is the policy as it
was first written (the strategy ``heuristic-v1``, kept so that every change is measured against
it); ``TUNED`` is the one ``heuristic`` and the search's rollouts use, found by duplicate
tournaments against ``V1`` (``bench/tune.py``).

Every field is a plain number so that a tournament can try a variant from the command line:
``sheepshead tournament --strategies heuristic:pick4=6.5,heuristic-v1``.

>>> V1.pick_line(0), V1.pick_line(4)
(7.1, 6.1)
>>> V1.replace(pick4=5.9).pick_line(9)
5.9
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Style:
    """The policy's tunable numbers (see the module docstring); the defaults are ``V1``."""

    pick0: float = 7.1
    """Strength needed to pick as the first to speak."""
    pick1: float = 6.9
    """... as the second."""
    pick2: float = 6.7
    """... as the third."""
    pick3: float = 6.5
    """... as the fourth."""
    pick4: float = 6.1
    """... as the dealer, whose alternative is the leaster (or the rules' no-pick outcome)."""
    pick_void: float = 0.4
    """Picking strength of each fail suit the hand lacks."""
    pick_ace: float = 1.0
    """Picking strength of each fail ace."""
    pick_queen: float = 2.4
    """Picking strength of the queens of hearts and diamonds (the black queens: 3.0 and 2.7)."""
    pick_jack: float = 2.0
    """Picking strength of each jack."""
    pick_low: float = 1.3
    """Picking strength of each trump below the jacks (0.2 more for the ace and ten)."""
    pick_long: float = 0.0
    """Extra picking strength per trump beyond four."""
    pick_single: float = 0.0
    """Added to every pick line when a lost hand costs single stakes (``double_on_the_bump``
    off): a picker then breaks even at about half its hands won rather than two thirds
    (it wins 2 and loses 2 instead of losing 4), so a weaker hand is worth picking."""
    bury_void: float = 5.0
    """Burial value of leaving a fail suit void."""
    bury_call: float = 10.0
    """Burial value of keeping a legal call (a hold card)."""
    bury_short: float = 1.5
    """Burial cost per card kept in the called suit (a short suit is better)."""
    bury_ace: float = 0.7
    """Share of a fail ace's points counted when burying it (it is also a winner)."""
    lead_called: int = 1
    """1: a defender leads the called suit while it has not been led; 0: only its best fail."""
    lead_short: float = 0.0
    """A defender's preference for leading its short fail suits (per card fewer)."""
    picker_top: int = 3
    """The picker leads its top trump (when it is a queen) with at least this many trumps."""
    trump_in: int = 4
    """Points on a trick for which a seat not on the picker's side takes it with a safe trump."""
    trump_fail_lead: int = 1
    """1: trump in on any fail lead when behind; 0: only when it is worth ``fight`` points."""
    side_take: int = 0
    """Points on a trick for which the picker's side takes it with a safe winner (threats left)."""
    fight: int = 10
    """Points on a trick worth the best trump when nothing is sure to hold."""
    schmear_unknown: int = 0
    """1: a defender who does not know the partner schmears onto a sure trick the picker lost."""
    called_trump: int = 0
    """1: a defender void in the called suit trumps its first lead (the called ace must fall on
    it and the picker must follow suit), and schmears when a fellow defender has trumped it."""
    unknown_take_trump: int = 0
    """1: a defender who does not yet know the partner takes a trump lead from the picker (or
    an unknown seat) with its lowest winning trump, whatever the trick is worth."""
    picker_fourth: int = 0
    """With at most this many seats still to play after it, the picker takes a trick the other
    side is winning with its lowest winning card, whatever the trick is worth (0: never)."""
    partner_take: int = 0
    """With at most this many seats still to play after it, the picker's partner takes a trick
    the other side is winning with its lowest winning card, whatever it is worth (0: never)."""
    picker_trusts: int = 0
    """1: the picker, its partner known and winning a fail lead that a seat still to play may
    trump, schmears onto it rather than taking it over with a sure trump (0)."""
    ace_take: int = 0
    """1: a defender trumps the called ace (winning its suit's lead) with its cheapest winning
    trump, however many points are on the trick."""
    picker_second: int = 0
    """1: the picker that would lead its top trump, the queen of spades with the queen of clubs
    still out (not the boss), leads its second-best trump instead."""
    leaster_take: int = 0
    """In a leaster, a seat that has taken no points yet and plays last takes a trick (not the
    last, which carries the blind) when it and the winning card come to at most this many points:
    only a seat that took a trick can win the leaster (0: never takes one on purpose)."""

    lines: int = 0
    """1: card play counts points toward the scoring lines (docs/rules.md, "Scoring a picked
    hand") once the seat knows every seat's side: a trick that settles a line for its side by
    itself is worth the fight, however few points it holds. For a defender, it carries the
    defenders to 30, 60 or 90 card points with no higher line left in their reach; for the
    picker's side, winning it leaves them short of their next line whatever the rest holds."""

    def pick_line(self, position: int, bump: bool = True) -> float:
        """Strength needed to pick from ``position`` (0: first to speak, 4 or more: dealer);
        ``bump``: whether the table doubles a lost hand (else ``pick_single`` is added)."""
        line = (self.pick0, self.pick1, self.pick2, self.pick3, self.pick4)[min(position, 4)]
        return line if bump else line + self.pick_single

    def replace(self, **changes: Any) -> Style:
        """A copy with some fields changed; an unknown name raises TypeError."""
        return dataclasses.replace(self, **changes)


def style_fields() -> list[str]:
    """Names of the tunable fields, in declaration order."""
    return [f.name for f in dataclasses.fields(Style)]


V1: Final = Style()
"""The policy as first written (``heuristic-v1``)."""

TUNED: Final = Style(
    pick0=7.4,
    pick1=7.8,
    pick2=7.6,
    pick3=6.8,
    pick4=5.0,
    pick_ace=0.5,
    pick_queen=2.0,
    pick_jack=1.6,
    trump_in=10,
    side_take=18,
    fight=15,
    schmear_unknown=1,
    pick_single=-1.5,
    called_trump=1,
    leaster_take=16,
    unknown_take_trump=1,
    picker_fourth=1,
    partner_take=2,
    picker_trusts=1,
    ace_take=1,
    picker_second=1,
)
"""The policy of ``heuristic`` and of the search's rollouts: ``V1`` with the values a coordinate
search by duplicate tournaments against ``V1``-derived players kept (``bench/tune.py``, wisconsin
rules, 400-500 deals per trial): pick less (higher lines for the first three seats, less weight for
the red queens and the jacks; the picking rate fell from about 26% to 12% of seat-hands), do not
spend a sure trump on a trick worth little (the picker's side takes with a safe winner only from 18
points, a defender from 10; the best trump goes in only for 15), and schmear onto a trick the picker
has lost before the partner is known. Then, tuned under both the ``seed`` and ``wisconsin`` presets:
pick a point and a half lighter when a lost hand costs single stakes (no double on the bump; against
``V1`` directly, seeds 101, 123 and 202), trump the called suit's first lead when void in it, pick
tighter from the third seat on (7.6, 6.8 and 6.9 for the dealer, who with a weak hand does better in
the leaster), and count a fail ace for half a point (it wins a trick but takes no trump out), and in
a leaster, last to play with no trick yet, take a trick worth 16 points or less (only a seat that
took a trick can win). Last, the dealer's line came down from 6.9 to 5.0: between those values it
made no measurable difference against ``V1`` (seeds 11-13, both presets) nor against ``TUNED``
itself, and at tables of five ``heuristic`` bots under ``wisconsin`` it cuts the leasters from about
one hand in four to one in ten (``bench/bots.py --bidding``). Card play found by playing each
legal card out on true deals with the heuristic after it (``docs/bots.md``, "Tuning"): a defender
who does not yet know the partner takes a trump lead with its cheapest winning trump, and the picker
in fourth seat, and the partner in third or fourth, take a trick the other side is winning with
the cheapest winning card; the picker schmears onto its known partner's fail trick rather than
trumping it, and a defender trumps the called ace with its cheapest winning trump (found by the
same play-outs, issue 30), and the picker leads its second-best trump rather than a queen of
spades the queen of clubs can take (found by the search's card played out on true deals)."""
