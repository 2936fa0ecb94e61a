"""The standings: who is ahead across every finished match on this server (from the lobby, s).

Ranked by total payout, or (Tab) by payout per hand among players with at least
:data:`MIN_HANDS` hands, so one lucky hand does not top the list. The server only counts
players it can tell apart across evenings: clients with a player key, SSH keys, and its bots.

``n`` shows tonight's standings (the matches ended since the server started, or in the last
12 hours) and back; ``m`` settles up: the totals turned into money at a stake per point
(``+``/``-`` change it), as the fewest payments that square everybody, the way a tavern
league settles at closing time.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Final

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static

from client.model import bot_label
from client.screens.base import game_of
from client.session import DOOR_FINGERPRINT_ENV
from client.widgets.base import KeyFooter
from client.widgets.table import fit_name
from protocol.text import told_apart

STAKES: tuple[int, ...] = (1, 5, 10, 25, 50, 100, 200, 500)
"""Stakes per point to choose from in the settle-up view, in cents."""

DEFAULT_STAKE = 25
"""The settle-up view's first stake per point, in cents."""

MIN_HANDS = 10
"""Hands a player needs to be ranked by payout per hand."""

PLAYER_WIDTH: Final = 16
"""Cells of the Player column."""

COLUMNS: tuple[tuple[str, int], ...] = (
    ("#", 3),
    ("Player", PLAYER_WIDTH),
    ("Hands", 5),
    ("Total", 6),
    ("/hand", 6),
    ("Pick", 4),
    ("Won", 4),
    ("Schn", 4),
    ("Lstr", 4),
)
"""Column titles and widths (an 80-column terminal holds them all)."""


def ranked(
    rows: Sequence[Mapping[str, Any]], by: str, min_hands: int = MIN_HANDS
) -> list[Mapping[str, Any]]:
    """``rows`` (the ``standings`` reply's players) by ``total`` or by ``per_hand``.

    >>> rows = [{"player": "a", "total": 5, "hands": 20, "per_hand": 0.25},
    ...         {"player": "b", "total": 3, "hands": 2, "per_hand": 1.5},
    ...         {"player": "c", "total": 4, "hands": 10, "per_hand": 0.4}]
    >>> [r["player"] for r in ranked(rows, "total")]
    ['a', 'c', 'b']
    >>> [r["player"] for r in ranked(rows, "per_hand")]
    ['c', 'a']
    """
    if by == "per_hand":
        eligible = [r for r in rows if int(r.get("hands", 0)) >= min_hands]
        return sorted(eligible, key=lambda r: (-float(r.get("per_hand", 0)), -int(r["hands"])))
    return sorted(rows, key=lambda r: (-int(r.get("total", 0)), -int(r.get("hands", 0))))


def settle(totals: Mapping[str, int], stake: int) -> list[tuple[str, str, int]]:
    """Who pays whom, in cents, to square ``totals`` (points) at ``stake`` cents a point.

    A loser who owes exactly what a winner is owed pays that winner; then the biggest loser
    pays the biggest winner as much as one of them owes or is owed, and so on: at most one
    payment fewer than there are players with a balance (the fewest possible is a hard
    problem in general; these are the fewest for the sheets of an evening's table).

    >>> settle({"Ann": 6, "Bob": -4, "Cy": -2}, 25)
    [('Bob', 'Ann', 100), ('Cy', 'Ann', 50)]
    >>> settle({"Ann": 3, "Bob": -3, "Cy": 0}, 50)
    [('Bob', 'Ann', 150)]
    >>> settle({"A": 5, "B": 2, "C": -2, "D": -5}, 10)
    [('D', 'A', 50), ('C', 'B', 20)]
    """

    def by_size(sign: int) -> list[list[Any]]:
        found = [[t * sign * stake, n] for n, t in totals.items() if t * sign > 0]
        return sorted(found, key=lambda x: (-x[0], x[1]))

    owed, owing = by_size(1), by_size(-1)
    payments = []
    for debt in owing:  # exact pairs first: one payment squares two people
        match = next((credit for credit in owed if credit[0] == debt[0]), None)
        if match is not None:
            payments.append((debt[1], match[1], debt[0]))
            debt[0] = match[0] = 0
    owed = [c for c in owed if c[0]]
    owing = [d for d in owing if d[0]]
    while owing and owed:
        debt, credit = owing[0], owed[0]
        amount = min(debt[0], credit[0])
        payments.append((debt[1], credit[1], amount))
        debt[0] -= amount
        credit[0] -= amount
        owing = sorted((d for d in owing if d[0]), key=lambda x: (-x[0], x[1]))
        owed = sorted((c for c in owed if c[0]), key=lambda x: (-x[0], x[1]))
    return payments


def money(cents: int) -> str:
    """``$1.50``.

    >>> money(150), money(5)
    ('$1.50', '$0.05')
    """
    return f"${cents // 100}.{cents % 100:02d}"


def settle_lines(rows: Sequence[Mapping[str, Any]], stake: int) -> list[str]:
    """The settle-up view's lines: the payments between the people in ``rows`` (the bots do
    not pay or get paid), and what is left over when their totals do not add up to zero (the
    bots' points, and those of players the server does not remember).

    Two players of one name are two people (:func:`shown_names`): keyed by the name alone,
    the second's total replaced the first's.

    >>> settle_lines([{"player": "bob", "tag": "SHA256:Bog0GwduGd", "total": 3},
    ...               {"player": "bob", "tag": "3b295660", "total": -3}], 100)
    ['bob·3b2956 pays bob·Bog0Gw $3.00']
    """
    people = {
        name: int(r.get("total", 0))
        for r, name in zip(rows, shown_names(rows), strict=True)
        if r.get("kind") != "bot"
    }
    lines = [
        f"{payer} pays {payee} {money(cents)}" for payer, payee, cents in settle(people, stake)
    ]
    if not lines:
        lines.append("Nobody owes anybody anything.")
    left = sum(people.values())
    if left:
        side = "won from" if left > 0 else "lost to"
        points = "1 point" if abs(left) == 1 else f"{abs(left)} points"  # not "1 points"
        lines.append(f"Not settled: {points} the people {side} the bots and unremembered players.")
    return lines


def _percent(value: object) -> str:
    return f"{float(value or 0) * 100:.0f}%"  # type: ignore[arg-type]


def _name(row: Mapping[str, Any]) -> str:
    name = str(row.get("player", "?"))
    return bot_label(name) if row.get("kind") == "bot" else name


YOU: Final = " (you)"
"""What follows the name of the viewer's own row."""


def own_rows(player_key: str | None, fingerprint: str | None = None) -> set[tuple[str, str]]:
    """The (``kind``, ``tag``) of the standings rows that are the viewer's, as the server tags
    them (PROTOCOL.md §10.1): a ``key`` row by the start of the player key's SHA-256, an
    ``ssh`` row by the start of the SSH key's ``fingerprint`` (the SSH door's client is told it:
    :data:`client.session.DOOR_FINGERPRINT_ENV`).

    >>> sorted(own_rows("a" * 32, "SHA256:gbd3OiC2oR1jkuR49X9EvfUdddo5RXGBx8RhaSLOSfw"))
    [('key', '3ba3f5f4'), ('ssh', 'SHA256:gbd3OiC2oR1j')]
    >>> own_rows(None)
    set()
    """
    rows = set()
    if player_key:
        rows.add(("key", hashlib.sha256(player_key.encode()).hexdigest()[:8]))
    if fingerprint:
        rows.add(("ssh", fingerprint[:19]))  # "SHA256:" and 12 characters, as the server's tag
    return rows


def shown_names(
    rows: Sequence[Mapping[str, Any]],
    width: int | None = None,
    mine: Collection[tuple[str, str]] = (),
) -> list[str]:
    """Each row's name as the standings show it (:func:`protocol.text.told_apart`, the rule
    ``sheepshead standings`` follows too): a name more than one player goes by is followed by
    the start of each one's tag; in ``width`` cells, the name cut to keep the tag. A row whose
    (``kind``, ``tag``) is among ``mine`` (:func:`own_rows`) says it is the viewer's: two
    players named Ann saw "Ann·6aa94e" and "Ann·48f7d1", and neither knew which was theirs.

    >>> shown_names([{"player": "bob", "tag": "SHA256:Bog0GwduGd"}, {"player": "ann"},
    ...              {"player": "bob", "kind": "key", "tag": "3b295660"}])
    ['bob·Bog0Gw', 'ann', 'bob·3b2956']
    >>> shown_names([{"player": "Bartholomew", "tag": "a1b2c3d4"},
    ...              {"player": "Bartholomew", "tag": "e5f6a7b8"}], width=16)
    ['Bartholo…·a1b2c3', 'Bartholo…·e5f6a7']
    >>> shown_names([{"player": "Ann", "kind": "key", "tag": "6aa94e39"},
    ...              {"player": "Ann", "kind": "key", "tag": "48f7d1aa"},
    ...              {"player": "Christabel", "kind": "key", "tag": "0badf00d"}],
    ...             width=16, mine={("key", "48f7d1aa")})
    ['Ann·6aa94e', 'Ann·48f7d1 (you)', 'Christabel']
    >>> shown_names([{"player": "Christabella", "kind": "key", "tag": "0badf00d"},
    ...              {"player": "bob", "kind": "ssh", "tag": "SHA256:Bog0GwduGdxy"},
    ...              {"player": "bob", "kind": "key", "tag": "3b295660"}],
    ...             16, {("key", "0badf00d"), ("ssh", "SHA256:Bog0GwduGdxy")})
    ['Christabe… (you)', 'bob·Bog0Gw (you)', 'bob·3b2956']
    """
    tags = [str(row.get("tag") or "") for row in rows]
    names = [_name(row) for row in rows]
    shown = told_apart(names, tags, width, fit_name)
    if not mine:
        return shown
    room = None if width is None else width - len(YOU)
    narrower = told_apart(names, tags, room, fit_name)
    return [
        (narrow if room is None else fit_name(narrow, room)) + YOU
        if (str(row.get("kind") or "key"), str(row.get("tag") or "")) in mine
        else name
        for row, name, narrow in zip(rows, shown, narrower, strict=True)
    ]


def standings_hint(players: int, ranked_here: int, *, tonight: bool) -> str:
    """The line under the standings: why the list is empty, who it leaves out (ranked by
    payout per hand, the players with fewer than :data:`MIN_HANDS` hands), or the legend.

    >>> standings_hint(6, 1, tonight=True)
    '5 players with fewer than 10 hands are not ranked here: Tab ranks by total.'
    """
    if not players and tonight:
        return "No match has ended tonight yet: n shows all of them."
    if not players:
        return "No finished matches yet: the standings start with the first one."
    if not ranked_here:
        return f"Nobody has played {MIN_HANDS} hands yet: Tab ranks by total."
    if ranked_here < players:
        # Five of six players gone from the list with only the title's "(at least 10 hands)"
        # to say why read as players lost.
        left = players - ranked_here
        who = "1 player" if left == 1 else f"{left} players"
        verb = "is" if left == 1 else "are"
        return (
            f"{who} with fewer than {MIN_HANDS} hands {verb} not ranked here: Tab ranks by total."
        )
    return "Pick: share of hands picked · Won: picker's wins · Schn: schneiders"


class StandingsScreen(Screen[None]):
    """The standings table; Tab switches the ranking, n tonight / all time, m settles up (+/-
    the stake), r asks again, Esc goes back."""

    # n and m each have two bindings, of which check_action shows the one that says what the
    # key does now: the footer said "n Tonight" over tonight's list (n went back to every
    # match) and "m Settle up" over the settling up (m went back to the list).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "switch", "Total/hand"),
        Binding("n", "tonight", "Tonight"),
        Binding("n", "all_time", "All matches"),
        Binding("m", "settle", "Settle up"),
        Binding("m", "unsettle", "List"),
        Binding("plus,equals_sign", "stake(1)", "Stake+", show=False),
        Binding("minus", "stake(-1)", "Stake-", show=False),
        Binding("f5,r", "refresh", "Refresh"),
        Binding("escape,s,q", "back", "Back"),
    ]

    DEFAULT_CSS = """
    StandingsScreen #standings-title { height: 1; padding: 0 1; text-style: bold; }
    StandingsScreen #standings-hint { height: 1; padding: 0 1; color: $text-muted; }
    StandingsScreen #standings-window { height: auto; padding: 0 1; color: $text-muted; }
    StandingsScreen DataTable { height: 1fr; }
    StandingsScreen #settle { height: 1fr; padding: 0 1; display: none; }
    StandingsScreen.settling #settle { display: block; }
    StandingsScreen.settling DataTable { display: none; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.by = "total"
        self.rows: list[Mapping[str, Any]] = []
        self.loaded = False
        self.since: str | None = None
        """None: every ended match; ``"tonight"`` (the ``standings`` request's ``since``)."""
        self.window: str | None = None
        """Which matches tonight's standings counted and why, as the server words it (the
        reply's ``tonight``; None: all time, or an older server that does not say)."""
        self.settling = False
        self.stake = DEFAULT_STAKE
        """Cents a point in the settle-up view."""

    def compose(self) -> ComposeResult:
        """A title, the table, a hint."""
        yield Static(id="standings-title")
        yield Static(id="standings-window")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        yield Static(id="settle")
        yield Static(id="standings-hint")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Set up the columns and ask the server."""
        grid = self.query_one(DataTable)
        for label, width in COLUMNS:
            grid.add_column(label, width=width)
        self.show()
        self.load()

    @work(exclusive=True, group="standings", exit_on_error=False)
    async def load(self) -> None:
        """Ask the server for the standings."""
        app = game_of(self)
        asked = self.since
        fields: dict[str, Any] = {} if asked is None else {"since": asked}
        reply = await app.call("standings", about="the standings", **fields)
        if reply is not None and self.is_attached and asked == self.since:
            self.rows = list(reply.get("players") or [])
            tonight = reply.get("tonight")
            text = tonight.get("text") if isinstance(tonight, Mapping) else None
            self.window = str(text) if text and asked == "tonight" else None
            self.loaded = True
            self.show()

    def show(self) -> None:
        """Draw the rows in the current ranking."""
        when = "Tonight" if self.since == "tonight" else "Standings"
        if self.settling:
            title = f"{when} · settle up at {money(self.stake)} a point"
        elif self.by == "total":
            title = f"{when} · by total payout"
        else:
            title = f"{when} · by payout per hand (at least {MIN_HANDS} hands)"
        self.query_one("#standings-title", Static).update(title)
        window = self.query_one("#standings-window", Static)
        window.update(self.window or "")
        window.display = self.window is not None
        self.set_class(self.settling, "settling")
        self.query_one("#settle", Static).update("\n".join(settle_lines(self.rows, self.stake)))
        grid = self.query_one(DataTable)
        grid.clear()
        rows = ranked(self.rows, self.by, MIN_HANDS)
        session = game_of(self).session
        mine = own_rows(
            None if session is None else session.player_key, os.environ.get(DOOR_FINGERPRINT_ENV)
        )
        shown = zip(self.rows, shown_names(self.rows, PLAYER_WIDTH, mine), strict=True)
        names = {id(row): name for row, name in shown}
        for rank, row in enumerate(rows, 1):
            grid.add_row(
                str(rank),
                names[id(row)],
                str(row.get("hands", 0)),
                f"{int(row.get('total', 0)):+d}",
                f"{float(row.get('per_hand', 0)):+.2f}",
                _percent(row.get("pick_rate")),
                _percent(row.get("picker_win_rate")),
                str(row.get("schneiders", 0)),
                str(row.get("leasters_won", 0)),
            )
        if not self.loaded:
            hint = "Asking the server…"
        elif self.settling:
            hint = "+/- change the stake · bots neither pay nor get paid"
        else:
            hint = standings_hint(len(self.rows), len(rows), tonight=self.since == "tonight")
        self.query_one("#standings-hint", Static).update(hint)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Of n's and m's two bindings the one for the view shown; Tab only over the list
        (in the settling up it changed the hidden list's ranking, with nothing to see)."""
        if action == "tonight":
            return self.since != "tonight"
        if action == "all_time":
            return self.since == "tonight"
        if action in ("switch", "settle"):
            return not self.settling
        if action == "unsettle":
            return self.settling
        return True

    def action_switch(self) -> None:
        """Rank by the other measure."""
        self.by = "per_hand" if self.by == "total" else "total"
        self.show()

    def action_tonight(self) -> None:
        """Tonight's matches only, or every one again (asks the server)."""
        self.since = None if self.since == "tonight" else "tonight"
        self.window = None
        self.loaded = False
        self.rows = []
        self.refresh_bindings()
        self.show()
        self.load()

    def action_all_time(self) -> None:
        """Every match again, from tonight's (n)."""
        self.action_tonight()

    def action_settle(self) -> None:
        """The settle-up view, or the table again."""
        self.settling = not self.settling
        self.refresh_bindings()
        self.show()

    def action_unsettle(self) -> None:
        """The list again, from the settling up (m)."""
        self.action_settle()

    def action_stake(self, step: int) -> None:
        """The next stake up or down :data:`STAKES` (in the settle-up view)."""
        if not self.settling:
            return
        at = STAKES.index(self.stake) if self.stake in STAKES else 0
        self.stake = STAKES[max(0, min(len(STAKES) - 1, at + step))]
        self.show()

    def action_refresh(self) -> None:
        """Ask the server again."""
        self.load()

    def action_back(self) -> None:
        """Back to the lobby."""
        self.dismiss(None)
