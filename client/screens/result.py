"""After a hand and after the match: the result panel, the score sheet, the final standings.

The result panel shows points per side, stakes, payouts and every hand revealed; the score sheet
a row per hand of the match (filled from the server's ``history``, so it is complete after a
reconnect or a restart); the match-over panel the standings, the sheet and, for the host, the
rematch key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.scalar import Scalar
from textual.widget import Widget
from textual.widgets import Static

from client.coach import review_lines
from client.decisions import live_decisions
from client.model import (
    EMPTY_NAME,
    NUM_SEATS,
    Change,
    FinishedHand,
    PlayerTotal,
    SeatChange,
    TableModel,
    bot_label,
    player_running_totals,
    player_totals,
    player_totals_at,
    rank_places,
    seat_changes,
)
from client.screens.base import GameModal, ShowsYourTurn, turn_clock
from client.screens.dialogs import hand_over_key
from client.screens.table import TableScreen
from client.widgets.cards import card_text, cards_text
from client.widgets.table import fit_name, tag_name

if TYPE_CHECKING:
    from client.app import SheepsheadApp


def _signed(n: int | None) -> str:
    return "" if n is None else f"{n:+d}"


def leaster_blind_taker(result: Mapping[str, Any]) -> int | None:
    """Who took the blind in a leaster: the winner of the last trick (docs/rules.md)."""
    tricks = result.get("tricks") or []
    if not tricks:
        return None
    winner = tricks[-1].get("winner")
    return winner if isinstance(winner, int) else None


LINE_CELLS = 74
"""Cells of a line in a 78-wide panel's scrolling body (its border, padding and scroll bar
off)."""


def as_seen(names: Sequence[str], me: int | None) -> list[str]:
    """``names`` as the player at seat ``me`` reads them: their own seat is "you" (the table
    says "Picker you", the log "You take"; the result named the player like a stranger)."""
    return [("you" if seat == me else name) for seat, name in enumerate(names)]


def last_trick_line(trick: Mapping[str, Any], names: Sequence[str], me: int | None = None) -> Text:
    """ "Last trick: " each seat's card in the order played, then who took it and its points
    ("points" left off where the line would not fit: at 80x24 it wrapped onto a line alone);
    ``me``'s seat is "you" (it read "root 7♥ → root takes 25" under "You picked")."""
    line = Text("Last trick: ", style="bold")
    who = as_seen(names, me)
    leader = int(trick.get("leader", 0))
    for i, code in enumerate(trick.get("cards") or []):
        if i:
            line.append(", ")
        seat = (leader + i) % NUM_SEATS
        line.append(f"{who[seat]} ")
        line.append_text(card_text(code))
    winner = trick.get("winner")
    if winner is not None:
        took = "you take" if winner == me else f"{names[winner]} takes"
        line.append(f" → {took} {trick.get('points', 0)}")
        if line.cell_len + len(" points") <= LINE_CELLS:
            line.append(" points")
    return line


def result_summary(
    result: Mapping[str, Any], names: Sequence[str], me: int | None = None
) -> list[Text]:
    """Lines saying who played with whom, the card points per side, and the stakes (who
    doubled them is ``you`` for ``me``)."""
    lines: list[Text] = []
    who = as_seen(names, me)
    picker = result.get("picker")
    partner = result.get("partner")
    called = result.get("called")
    if result.get("doubler"):
        lines.append(Text("Everyone passed: the cards are thrown in and the next hand doubles."))
    elif result.get("leaster"):
        winner = result.get("leaster_winner")
        if winner is None:
            lines.append(Text("Leaster: a tie for fewest points, nobody scores."))
        else:
            points = (result.get("points") or [0] * NUM_SEATS)[winner]
            takers = {t.get("winner") for t in result.get("tricks") or [] if isinstance(t, dict)}
            wins = "you win" if winner == me else f"{names[winner]} wins"
            if takers == {winner}:
                # Fewest among those who took a trick: here one took all (120 is no 'fewest').
                lines.append(Text(f"Leaster: {wins}, the only one to take a trick ({points})."))
            else:
                # Seats with fewer points that took no trick could not win (the leaster needs
                # a trick): "Bob wins with the fewest points, 18" beside Inga's 0 read wrong.
                everyone = enumerate(result.get("points") or [])
                fewer = any(p < points for s, p in everyone if s not in takers)
                among = " of those who took a trick" if fewer else ""
                lines.append(Text(f"Leaster: {wins} with the fewest points{among}, {points}."))
        blind_taker = leaster_blind_taker(result)
        if blind_taker is not None:
            taker = "You" if blind_taker == me else names[blind_taker]
            lines.append(Text(f"{taker} took the blind with the last trick."))
    elif picker is not None:
        line = Text("You picked" if picker == me else f"Picker {names[picker]}")
        if result.get("alone"):
            line.append(" and played alone" if picker == me else " played alone")
        elif partner is not None:
            line.append(f" with partner {who[partner]}")
        if called:
            line.append(" · called ")
            line.append_text(card_text(called))
            if partner is None and not result.get("alone"):
                line.append(" (no partner)")
        lines.append(line)
        side = result.get("picker_side_points")
        other = result.get("defender_points")
        if side is not None:
            lines.append(
                Text(f"Picker's side {side} points · defenders {other} points", style="bold")
            )
    extras = []
    stake = result.get("stake")
    if stake and not result.get("leaster"):
        extras.append(f"stake {stake} per player")
    doublings = result.get("doublings")
    if doublings is None:  # a breakdown from before docs/rules.md, "Cracking and blitzing"
        multiplier = result.get("multiplier") or 1
        if multiplier > 1:
            extras.append(f"doubler stakes ×{multiplier}")
    else:
        doubled = [doubling_text(d, who) for d in doublings if d.get("kind") != "bump"]
        extras += doubled
        if len(doubled) > 1:
            extras.append(f"stakes ×{result.get('stakes') or 1} in all")
    if result.get("bumped"):
        extras.append("double on the bump ×2")
    if extras:
        lines.append(Text(" · ".join(extras)))
    return lines


PAIR_WORDS = {"black": "black queens", "red": "red queens"}


def doubling_text(doubling: Mapping[str, Any], names: Sequence[str]) -> str:
    """One entry of the breakdown's ``doublings`` for people: who doubled, how, by what."""
    kind = doubling.get("kind")
    factor = doubling.get("factor") or 2
    seat = doubling.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    pair = PAIR_WORDS.get(str(doubling.get("pair")), "queens")
    if kind == "doubler":
        return f"doubler stakes ×{factor}"
    if kind == "blitz":
        return f"{who} blitzed the {pair} ×{factor}"
    if kind == "crack":
        if doubling.get("pair"):
            return f"{who} cracked with the {pair} ×{factor}"
        return f"{who} cracked ×{factor}"
    if kind == "recrack":
        return f"{who} re-cracked ×{factor}"
    return f"double on the bump ×{factor}"


def result_table(
    result: Mapping[str, Any],
    reveal: Mapping[str, Any],
    names: Sequence[str],
    totals: Sequence[int] | None,
    me: int | None,
) -> Table:
    """Per seat: role, the cards dealt, card points, the hand's payout, the running total;
    ``me``'s seat is "you".

    >>> from rich.console import Console
    >>> console = Console(width=74)
    >>> with console.capture() as out:
    ...     console.print(result_table({"picker": 1}, {}, ["Ann", "Bob", "C", "D", "E"], None, 0))
    >>> [line.split() for line in out.get().splitlines()[1:3]]
    [['you', '0'], ['Bob', 'picker', '0']]
    """
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("seat", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("dealt", no_wrap=True)
    table.add_column("pts", justify="right")
    table.add_column("hand", justify="right")
    if totals is not None:
        table.add_column("total", justify="right")
    hands = reveal.get("hands") or [[] for _ in range(NUM_SEATS)]
    points = result.get("points") or [0] * NUM_SEATS
    payouts = result.get("payouts") or [None] * NUM_SEATS
    for seat in range(NUM_SEATS):
        role = ""
        if seat == result.get("picker"):
            role = "picker"
        elif seat == result.get("partner"):
            role = "partner"
        elif seat == result.get("leaster_winner"):
            role = "winner"
        # Your row says "you", as the summary above it does ("with partner you"): its " *"
        # after your name was explained nowhere.
        name = "you" if seat == me else fit_name(names[seat], 12)
        row: list[RenderableType] = [
            Text(name, style="bold" if seat == me else ""),
            role,
            cards_text(hands[seat]) if seat < len(hands) else Text(""),
            str(points[seat]),
            Text(_signed(payouts[seat]), style="bold"),
        ]
        if totals is not None:
            row.append(_signed(totals[seat]))
        table.add_row(*row)
    return table


def _side_text(result: Mapping[str, Any], names: Sequence[str], mine: int | None = None) -> str:
    """Who played whom, in at most :data:`SIDE_WIDTH` cells: ``Gus+Ann``, ``Gus alone``,
    ``leaster``, ``doubler`` (a three-letter tag per name, as on the last-trick box); the
    seat ``mine`` (yours, where you played this hand) is ``you``, as the sheet's column is.

    >>> _side_text({"picker": 0, "partner": 1}, ["Gus", "Ann"], mine=1)
    'Gus+you'
    >>> _side_text({"picker": 1, "alone": True}, ["Gus", "Ann"], mine=1)
    'you alone'
    """
    if result.get("doubler"):
        return "doubler"
    if result.get("leaster"):
        return "leaster"
    picker = result.get("picker")
    if not isinstance(picker, int):
        return "—"

    def tag(seat: int) -> str:
        return "you" if seat == mine else tag_name(names[seat])

    if result.get("alone"):
        return f"{tag(picker)} alone"
    partner = result.get("partner")
    return f"{tag(picker)}+{tag(partner) if isinstance(partner, int) else '—'}"


def stakes_of(result: Mapping[str, Any]) -> int:
    """What this hand's payouts were multiplied by: the doubler carry-over, blitzes, crack,
    re-crack and the bump (the product of the breakdown's ``doublings``)."""
    doublings = result.get("doublings")
    if doublings is None:  # a breakdown from before docs/rules.md, "Cracking and blitzing"
        return int(result.get("stakes") or result.get("multiplier") or 1)
    stakes = 1
    for doubling in doublings:
        stakes *= int(doubling.get("factor") or 2)
    return stakes


def stake_cell(result: Mapping[str, Any]) -> str:
    """The score sheet's stake of a hand, in the result panel's words: the ``stake N per
    player`` it names, then ``×N`` when the hand was doubled (bump, doubler, blitz, crack), as
    its "double on the bump ×2" or "stakes ×N in all" say. A leaster names no stake (only its
    ``×N``), nor does a thrown-in hand.

    >>> stake_cell({"stake": 3, "doublings": []})
    '3'
    >>> stake_cell({"stake": 1, "bumped": True, "doublings": [{"kind": "bump", "factor": 2}]})
    '1×2'
    >>> stake_cell({"leaster": True, "stake": 1, "doublings": [{"kind": "doubler", "factor": 2}]})
    '×2'
    >>> stake_cell({"doubler": True, "stake": 0, "doublings": []})
    ''
    """
    factor = stakes_of(result)
    doubled = f"×{factor}" if factor > 1 else ""
    stake = result.get("stake")
    if result.get("leaster") or result.get("doubler") or not stake:
        return doubled
    return f"{stake}{doubled}"


SIDE_WIDTH = 9
"""Cells of the score sheet's "side" column (``Gus alone``)."""

SEAT_CELL = 10
"""Cells of a seat on the score sheet: a payout of four cells with its sign (``-144``), then
`` =`` and the running total (``-144 =+288``), so three-digit payouts keep the columns."""


def _sheet_table(widths: Sequence[int], header: Sequence[str] | None) -> Table:
    """An empty score sheet table of fixed column widths, with or without its header row (the
    header and the rows are drawn apart: the header stays while the rows scroll)."""
    table = Table(
        box=None,
        padding=(0, 1),
        collapse_padding=True,
        pad_edge=False,
        show_edge=False,
        show_header=header is not None,
        header_style="bold",
    )
    labels = list(header) if header is not None else [""] * len(widths)
    for i, (label, width) in enumerate(zip(labels, widths, strict=True)):
        table.add_column(
            label,
            justify="left" if i in (1,) or i >= 4 else "right",
            no_wrap=True,
            width=width,
            min_width=width,
            max_width=width,
        )
    return table


def score_sheet_parts(
    hands: Sequence[FinishedHand], names: Sequence[str], me: int | None
) -> tuple[Table, Group]:
    """The score sheet as its header row and its rows, in columns of the same widths.

    A row per hand: who played whom, the picker side's card points, the stake per player (with
    ×N when the hand paid more than it: doubler, blitz, crack, re-crack, bump) and each seat's
    payout with the running total after it (``  +2 =+4``, ``-144 =-96``).
    """
    number_width = max((len(str(h.number)) for h in hands), default=1)
    stakes = [stake_cell(h.result) for h in hands]
    stakes_width = max((len(x) for x in stakes), default=0)
    stakes_width = max(stakes_width, len(STAKE_HEADER))
    # Your column is "you", as the result panel's row and the table say (a "*" after your
    # name was explained nowhere).
    seat_labels = [
        "you" if seat == me else fit_name(names[seat], SEAT_CELL - 1) for seat in range(NUM_SEATS)
    ]
    widths = [number_width, SIDE_WIDTH, 3, stakes_width, *([SEAT_CELL] * NUM_SEATS)]
    header = _sheet_table(widths, ["#", "side", "pts", STAKE_HEADER, *seat_labels])
    body = _sheet_table(widths, None)
    parts: list[RenderableType] = [body]
    # A seat's running total is its player's: from a hand where the seat changed player on,
    # the column counts the newcomer's hands, and a line says so between the rows.
    running = player_running_totals(hands)
    changes = seat_changes(hands)
    my_name = names[me] if me is not None and me < len(names) else None
    for hand, stake, totals in zip(hands, stakes, running, strict=True):
        here = [c for c in changes if c.number == hand.number]
        if here:
            parts += [Text(seat_change_line(c, hands), style="bold") for c in here]
            body = _sheet_table(widths, None)
            parts.append(body)
        result = hand.result
        side = result.get("picker_side_points")
        payouts = list(result.get("payouts") or [])
        cells: list[RenderableType] = [
            str(hand.number),
            # Who played this hand, not who sits there now; "you" only where you played it
            # (not in a hand somebody played in your seat before you took it).
            _side_text(result, hand.names, hand.played_by(me, my_name)),
            str(side) if isinstance(side, int) and not result.get("leaster") else "—",
            Text(stake, style="bold" if "×" in stake else ""),
        ]
        for seat in range(NUM_SEATS):
            pay = payouts[seat] if seat < len(payouts) else None
            total = totals[seat]
            cell = Text(f"{_signed(pay) or '0':>4}", style="bold" if pay else "")
            cell.append(f" ={total:+d}")
            cells.append(cell)
        body.add_row(*cells)
    # Somebody sat down since the last finished hand: the header names them over a column
    # whose rows so far are the one before's, so the line comes now, not after their first
    # hand (the sheet opened mid-hand put a newcomer's name over Gus's +4 and said nothing).
    last = hands[-1] if hands else None
    for seat in range(min(len(names), len(last.names) if last else 0)):
        now = "" if names[seat] == EMPTY_NAME else names[seat]  # as a hand names no player
        if last is not None and now != last.names[seat]:
            change = SeatChange(last.number + 1, seat, last.names[seat], now)
            parts.append(Text(seat_change_line(change, hands), style="bold"))
    return header, Group(*parts)


def seat_change_line(change: SeatChange, hands: Sequence[FinishedHand]) -> str:
    """The score sheet's line where a seat changed player, with the total the one before left
    on: "Bob takes seat 1 (Fay left on -3); its = totals are Bob's".

    >>> seat_change_line(SeatChange(2, 1, "Fay", "Bob"), [])
    "Bob takes seat 1 from Fay; its = totals are Bob's"
    """
    new = fit_name(change.new, 16)
    old = fit_name(change.old, 16)
    before = [h for h in hands if h.number < change.number]
    left = next((p.total for p in player_totals(before) if p.name == change.old), None)
    if not change.new:
        return f"Seat {change.seat} is empty from here ({old} left on {left or 0:+d})"
    if not change.old:
        return f"{new} takes seat {change.seat}, empty before; its = totals are {new}'s"
    came = f"({old} left on {left:+d})" if left is not None else f"from {old}"
    return f"{new} takes seat {change.seat} {came}; its = totals are {new}'s"


STAKE_HEADER = "stk"
"""The score sheet's column of each hand's stake per player, as its result names it (three
cells: at 80 columns, with two-digit hand numbers and a scroll bar, the sheet has no more)."""

SHEET_LEGEND = "Payout, then = running total. stk: the stake per player, ×N when doubled."
"""The sheet's key. Its "× the stakes" over a column of doublings alone read as blank where
the hand's result said "stake 3 per player"; now both name the same stake."""


def seat_names(model: TableModel) -> tuple[list[str], int | None]:
    """The seats' names for the sheet and the standings, and your seat among them. Once the
    match is over, who played its last hand: someone who sat down since is not named as the
    player of a match they never played (nor you, if that is you)."""
    names = [s.name for s in model.seats]
    mine = model.my_seat
    if model.history and (model.match_over is not None or model.table_state == "over"):
        last = model.history[-1]
        return list(last.names), model.your_seat_in(last)
    return names, mine


def seat_strategies(model: TableModel, names: Sequence[str]) -> list[str | None]:
    """The server bot strategy of each seat named ``names`` (from :func:`seat_names`), None at
    a person's: as the hand that named them saw it, else as the seat shows it now if it is
    still held under that name."""
    last = model.history[-1].strategies if model.history else None
    out: list[str | None] = []
    for seat, name in enumerate(names):
        strategy = last[seat] if last is not None and seat < len(last) else None
        if strategy is None and seat < len(model.seats) and model.seats[seat].name == name:
            strategy = model.seats[seat].strategy if model.seats[seat].is_bot else None
        out.append(strategy if isinstance(strategy, str) else None)
    return out


def sheet_body(model: TableModel) -> list[RenderableType]:
    """The score sheet of the match so far, or a line saying no hand has finished."""
    if not model.history:
        return [Text("No hand has finished yet in this match.")]
    header, body = score_sheet_parts(model.history, *seat_names(model))
    return [header, body, Text(""), Text(SHEET_LEGEND, style="italic")]


def players_if_seats_changed(model: TableModel) -> list[PlayerTotal] | None:
    """Each player of the match with their own total, highest first, when a seat changed
    player during it; None when every seat had one player (its total is theirs)."""
    if not model.history or not seat_changes(model.history):
        return None
    return player_totals(model.history, model.totals)


def player_note(player: PlayerTotal, hands: Sequence[FinishedHand]) -> str:
    """Which seat a player of a match whose seats changed player played, and when: "seat 1,
    hand 1, left" for one who left; "seat 1 from hand 2" for who holds it at the end after
    somebody else; "" for who held their seat the whole match."""
    if not player.sits:
        played = (
            f"hand {player.first}"
            if player.first == player.last
            else (f"hands {player.first}–{player.last}")
        )
        return f"seat {player.seat}, {played}, left"
    if any(c.seat == player.seat for c in seat_changes(hands)):
        return f"seat {player.seat} from hand {player.since}"
    return ""


def _player_strategy(player: PlayerTotal, hands: Sequence[FinishedHand]) -> str | None:
    """The server bot strategy ``player`` played their last hand as, None for a person's."""
    for hand in reversed(hands):
        if hand.number == player.last and hand.strategies is not None:
            strategy = hand.strategies[player.seat]
            return strategy if hand.names[player.seat] == player.name else None
    return None


def _player_standings(model: TableModel, players: Sequence[PlayerTotal]) -> Table:
    """Players ranked by their own totals, each with the seat and hands they played when
    not the whole match in one seat; tied totals share a place."""
    _, mine = seat_names(model)
    table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
    table.add_column("place", justify="right")
    table.add_column("player", no_wrap=True)
    table.add_column("total", justify="right")
    table.add_column("played", style="dim")
    for place, i in rank_places([p.total for p in players]):
        player = players[i]
        me = player.sits and player.seat == mine
        strategy = _player_strategy(player, model.history)
        shown = (player.name or EMPTY_NAME) + (f" ({bot_label(strategy)})" if strategy else "")
        name = Text(shown + (" (you)" if me else ""), style="bold" if me else "")
        note = player_note(player, model.history)
        table.add_row(str(place), name, _signed(player.total), note)
    return table


def standings(model: TableModel) -> Table:
    """Seats ranked by their totals; tied totals share a place. When a seat changed player
    during the match, players ranked by their own totals instead: the seat's total counted
    one player's hands under another's name."""
    players = players_if_seats_changed(model)
    if players is not None:
        return _player_standings(model, players)
    totals = list(model.totals)
    names, mine = seat_names(model)
    strategies = seat_strategies(model, names)
    table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
    table.add_column("place", justify="right")
    table.add_column("player", no_wrap=True)
    table.add_column("total", justify="right")
    for place, seat in rank_places(totals):
        me = seat == mine
        strategy = strategies[seat]
        # A bot as the all-time standings count it: its row there is its strategy's.
        shown = names[seat] + (f" ({bot_label(strategy)})" if strategy else "")
        name = Text(shown + (" (you)" if me else ""), style="bold" if me else "")
        table.add_row(str(place), name, _signed(totals[seat]))
    return table


def final_text(model: TableModel, names: Sequence[str], me: int | None = None) -> Text | None:
    """The result panel's line of the match's final totals once it is over, the seats named
    ``names`` (who played the last hand), ``me``'s "you"; each player's own total when a seat
    changed player (the seat's total had one's hands under another's name)."""
    if model.match_over is None:
        return None
    players = players_if_seats_changed(model)
    if players is not None:
        text = ", ".join(
            f"{p.name or EMPTY_NAME} {p.total:+d}"
            + (f" ({note})" if (note := player_note(p, model.history)) else "")
            for p in players
        )
    else:
        who = as_seen(names, me)
        text = ", ".join(f"{who[s]} {model.totals[s]:+d}" for _, s in rank_places(model.totals))
    return Text(f"Match over. Final: {text}", style="bold")


def blind_line(hand: FinishedHand) -> Text:
    """The blind, and what the picker buried: "Blind 7♣ K♠ · buried K♠ 10♥"."""
    line = Text("Blind ") + cards_text(hand.reveal.get("blind") or [])
    buried = hand.reveal.get("buried") or []
    if buried and hand.result.get("picker") is not None:
        line += Text(" · buried ") + cards_text(buried)
    return line


class FitsHeight(GameModal[None]):
    """A panel whose scrolling part takes the terminal's height less the panel's other lines
    (its border, a fixed header, the notes and keys below), however tall the terminal is."""

    def fit_to_height(self) -> None:
        """Give the scrolling part the rows the rest of the panel leaves (at least 3)."""
        scrolls = self.query(VerticalScroll) if self.is_attached else None
        if not scrolls:  # not attached, or between a recompose's removal and its new children
            return
        scroll = scrolls.first()
        box = scroll.parent
        if not isinstance(box, Widget):
            return
        others = sum(
            child.outer_size.height + child.styles.margin.height
            for child in box.children
            if child is not scroll and child.display
        )
        room = max(3, self.size.height - others - box.styles.gutter.height)
        if scroll.styles.max_height != Scalar.from_number(room):
            scroll.styles.max_height = room

    def on_resize(self) -> None:
        """Fit again for the new size (after the other lines have their new heights)."""
        self.call_after_refresh(self.fit_to_height)

    def on_key(self, event: events.Key) -> None:
        """t opens the chat over the panel, as at the table, and the keys typed right behind
        it are the chat box's. A hand's result is when people talk: Cy's t did nothing there,
        and the line typed after it ran the panel's keys (its space closed the panel, its k
        opened the score sheet)."""
        hand_over_key(self, event, {"t": lambda: self.game.table_action("chat")})


class ScoreSheetScreen(ShowsYourTurn, FitsHeight):
    """The score sheet: one row per hand of the match, payouts and running totals (key k)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,k,enter,q", "close", "close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def compose(self) -> ComposeResult:
        """The sheet, scrolling when the match is long."""
        with Vertical(id="sheet-box", classes="box") as box:
            box.border_title = "Score sheet"
            # The header row stays put while a long match's rows scroll under it.
            yield Static(id="sheet-head")
            with VerticalScroll():
                yield Static(id="sheet-body")
            yield Static(Text(SHEET_LEGEND, style="italic"), id="sheet-legend")
            yield Static("Esc closes · h on the table pages through the hands", classes="hint")

    def on_mount(self) -> None:
        """Draw, and again whenever a hand ends or the history arrives."""
        self._draw()
        self.game.model_changed.subscribe(self, self._changed)

    def _changed(self, change: Change) -> None:
        if change & (Change.HAND_OVER | Change.MATCH_OVER):
            self._draw()

    def _draw(self) -> None:
        model = self.model
        head = self.query_one("#sheet-head", Static)
        legend = self.query_one("#sheet-legend", Static)
        body = self.query_one("#sheet-body", Static)
        head.display = legend.display = bool(model.history)
        if model.history:
            header, rows = score_sheet_parts(model.history, *seat_names(model))
            head.update(header)
            body.update(rows)
        else:
            body.update(Text("No hand has finished yet in this match."))
        self.query_one(VerticalScroll).scroll_end(animate=False)
        self.call_after_refresh(self.fit_to_height)

    def action_close(self) -> None:
        """Back to the table, or to the result panel it was opened from."""
        self.dismiss(None)


class MatchOverScreen(FitsHeight):
    """The final standings and the score sheet when the match ends; n rematch for the host."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "close", "close"),
        Binding("escape", "end", "close"),
        Binding("h", "history", "history"),
        Binding("n", "rematch", "rematch"),
        Binding("minus", "remove_bot", "free a bot's seat"),
        Binding("q", "quit_app", "quit"),
    ]

    def __init__(self, ending: bool = True) -> None:
        super().__init__(classes="dialog")
        self.ending = ending
        """Whether the panel opened as the match ended (its Esc then asks to leave the
        table, the way out a player looks for there), not from the table's Enter later."""

    def compose(self) -> ComposeResult:
        """Seats ranked by their totals, then the score sheet."""
        model = self.model
        out = end_key(self.game.mode, self.ending, watching=model.my_seat is None)
        # Enter goes back to the table too; named apart only where Esc does something else.
        back = f"Enter table · {out}" if out != "Esc table" else out
        hint = match_over_keys(back, host=model.is_host, hands=not model.match_had_no_hand())
        with Vertical(id="match-box", classes="box") as box:
            box.border_title = f"Match over after {model.match_hands_text()}"
            with VerticalScroll():
                yield Static(self._body(), id="match-body")
            yield Static(hint, classes="hint")

    def _body(self) -> Group:
        """The standings, whether the deals verified (once the server revealed its seeds),
        and the score sheet; for a match ended before any hand finished, that it counts for
        nobody (it ranked every seat first at +0, over a sheet that said no hand had
        finished)."""
        model = self.model
        if (model.match_over or {}).get("hands") == 0:
            return Group(Text("No hand finished in this match: it counts for nobody."))
        body: list[RenderableType] = [standings(model), Text("")]
        verified, said = self.game.deals.result_for(model.match)
        if said is not None:
            style = "green" if verified else "bold red"
            body += [Text.assemble(("Deals: ", "bold"), (said, style)), Text("")]
        return Group(*body, *sheet_body(model))

    def on_mount(self) -> None:
        """Fill in the sheet again when the history arrives (after a restart), and the deals'
        verdict when the seeds are revealed (it is logged)."""
        self.game.model_changed.subscribe(self, self._changed)
        self.call_after_refresh(self.fit_to_height)

    def _changed(self, change: Change) -> None:
        if self.model.match_over is not None and change & (Change.HAND_OVER | Change.LOG):
            self.query_one("#match-body", Static).update(self._body())
            self.call_after_refresh(self.fit_to_height)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The rematch and bot keys are the host's."""
        if action in ("rematch", "remove_bot"):
            return self.model.is_host
        if action == "history":
            return not self.model.match_had_no_hand()  # no hand to show
        return True

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)

    def action_end(self) -> None:
        """Esc: back to the table, and as the match ended at a server, the question whether to
        leave it (it took an Esc on the result, one here and one on the table)."""
        self.dismiss(None)
        if self.ending:
            leave_after_match(self.game)

    async def action_rematch(self) -> None:
        """Host: a new match at this table with the same seats."""
        await self.game.rematch()

    def action_remove_bot(self) -> None:
        """Host: back to the table, a bot's seat freed for someone who came late (the rematch
        then waits for them and ``g``)."""
        self.dismiss(None)
        table = next((s for s in self.game.screen_stack if isinstance(s, TableScreen)), None)
        if table is not None:
            table.action_remove_bot()

    def action_history(self) -> None:
        """Open the match history."""
        self.dismiss(None)
        self.game.open_history()

    async def action_quit_app(self) -> None:
        """Leave the program."""
        await self.app.action_quit()


def match_over_keys(back: str, *, host: bool, hands: bool) -> str:
    """The match-over panel's key line, within :data:`KEYS_WIDTH`: ``back`` names its Enter and
    Esc, ``host`` whether n and - are live, ``hands`` whether a hand finished (with none, h
    and x had nothing to show or export, and the line still offered them).

    >>> match_over_keys("Esc table", host=False, hands=True)
    'Esc table · h history, where x exports a hand · q quit'
    >>> match_over_keys("Esc table", host=False, hands=False)
    'Esc table · q quit'
    """
    if host:
        hint = f"n rematch, same seats · - frees a bot's seat · {back} · q quit"
        return hint.replace(", same seats", "") if len(hint) > KEYS_WIDTH else hint
    if not hands:
        return f"{back} · q quit"
    hint = f"{back} · h history, where x exports a hand · q quit"
    if len(hint) > KEYS_WIDTH:  # a watcher's "Esc stop watching" made it 76 cells
        hint = hint.replace(", where x exports a hand", " (x exports a hand)")
    return hint


def end_key(mode: str, ending: bool = True, *, watching: bool = False) -> str:
    """How an end-of-match panel names its Esc: leaving the table (it asks first) at a
    server, the table in ``play`` (there is no lobby to go back to; q quits). A watcher's
    Esc asks "Stop watching this table…?" (:func:`client.screens.table.leave_question`), and
    the key says so (a watcher's panel said "Esc leave table").

    >>> end_key("join"), end_key("watch", watching=True), end_key("play")
    ('Esc leave table', 'Esc stop watching', 'Esc table')
    >>> end_key("join", ending=False, watching=True)
    'Esc table'
    """
    if not ending or mode == "play":
        return "Esc table"
    return "Esc stop watching" if watching else "Esc leave table"


def leave_after_match(game: SheepsheadApp) -> None:
    """Ask whether to leave the table (the table's Esc), from a panel closed over it at the
    match's end; nothing in ``play``, where Esc does not leave."""
    if game.mode != "play":
        game.table_action("leave")


KEYS_WIDTH = 74
"""Cells of the result panel's key line (its box is 78 wide)."""


def result_keys(out: str | None, *, review: bool, rematch: bool) -> str:
    """The result panel's key line, within :data:`KEYS_WIDTH`: ``out`` is the match-over
    panel's Esc (None while the match goes on), ``review`` and ``rematch`` whether v and n
    are live.

    >>> result_keys(None, review=False, rematch=False)
    'Enter close · x export · h history · q quit'
    """
    # At the end of a match the standings follow this panel (one panel at a time).
    keys = ["Enter standings", out] if out is not None else ["Enter close"]
    keys += ["x export", "h history"]
    if review:
        keys.append("v review your play")
    if rematch:
        keys.insert(0, "n rematch")
    keys.append("q quit")
    # The help screen still names x, and v says what it reviews when there is room; h is on
    # the table's footer too. The host's line at a match's end with a hand to review was 77
    # cells, its "q quit" cut to "q".
    if len(" · ".join(keys)) > KEYS_WIDTH:
        keys.remove("x export")
    if len(" · ".join(keys)) > KEYS_WIDTH and "v review your play" in keys:
        keys[keys.index("v review your play")] = "v review"
    if len(" · ".join(keys)) > KEYS_WIDTH:
        keys.remove("h history")
    return " · ".join(keys)


STAKES_KEYS: Final[dict[str, str]] = {
    "crack": "c cracks",
    "crack_pair": "w cracks with your queens",
    "recrack": "c re-cracks",
    "no_crack": "n does not crack",
}
"""The result panel's words for the crack round's and the re-crack's keys (the table's, which
answer from the panel too), in the order it names them."""


class ResultScreen(FitsHeight):
    """After a hand: what happened and who pays whom (Enter, Esc or Space closes).

    When the next hand already asks you to pick, the panel says so, and p and s answer from
    here (closing it); likewise c, w and n in the crack round and at the re-crack.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "close", "close"),
        Binding("escape", "end", "close"),
        Binding("x", "export", "export"),
        Binding("h", "history", "history"),
        # The status line under the panel offers k at the match's end: it opens from here too.
        Binding("k", "score_sheet", "score sheet", show=False),
        Binding("v", "review", "review", show=False),
        Binding("p", "decide('pick')", "pick", show=False),
        Binding("s", "decide('pass_blind')", "pass", show=False),
        # The crack round's keys, as the table's status line under the panel names them: each
        # works only while the server offers it (check_action), so one key has two bindings.
        Binding("c", "decide('crack')", "crack", show=False),
        Binding("c", "decide('recrack')", "re-crack", show=False),
        Binding("w", "decide('crack_pair')", "crack with queens", show=False),
        Binding("n", "decide('no_crack')", "no crack", show=False),
        Binding("i", "hint", "hint", show=False),
        Binding("n", "rematch", "rematch", show=False),
        Binding("q", "quit_app", "quit", show=False),
    ]

    def __init__(self, hand: FinishedHand) -> None:
        super().__init__(classes="dialog")
        self.hand = hand
        self.review: list[str] = []
        """The coach's review of your decisions in this hand, once asked for (v)."""
        self._names: list[str] = list(hand.names)
        """The seats' names the panel was drawn with."""
        self._me: int | None = None
        """The row the panel marked as yours."""

    def show(self, hand: FinishedHand) -> None:
        """Show ``hand`` instead (a later one that ended while this screen was open)."""
        if hand is not self.hand:
            self.hand = hand
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        """The summary, the table of seats, the blind and the bury."""
        hand = self.hand
        result = hand.result
        model = self.model
        me = model.your_seat_in(hand)
        self._names, self._me = list(hand.names), me
        outcome = str(result.get("outcome_text") or "hand over")
        body: list[RenderableType] = [*result_summary(result, hand.names, me)]
        tricks = result.get("tricks") or []
        if tricks:  # the panel covers the table as the last card lands: who took that trick
            body.append(last_trick_line(tricks[-1], hand.names, me))
        body.append(Text(""))
        totals = player_totals_at(model.history, hand)  # who played a seat, not the seat
        body.append(result_table(result, hand.reveal, hand.names, totals, me))
        body.append(Text(""))
        body.append(blind_line(hand))
        with Vertical(id="result-box", classes="box") as box:
            box.border_title = f"Hand {hand.number}: {outcome}"
            with VerticalScroll():
                yield Static(Group(*body), id="result-body")
                # Drawn again with the turn note: the match_over event may come after the panel
                # opened. Filled here too: a recompose (the history naming who played) made
                # both afresh, and blank, after the draw that followed the change.
                final = self._final_text()
                final_line = Static(final or "", id="result-final")
                final_line.display = final is not None
                yield final_line
                review = Static(id="result-review")
                review.display = False  # until v asks for the coach's review
                yield review
            turn = self._turn_text()
            note = Static(turn, id="result-turn", classes="turn-note")
            note.display = bool(turn)
            yield note
            yield Static(self._keys(), id="result-keys", classes="hint")

    def _keys(self) -> str:
        """The panel's keys: review only of a hand you played (a watcher has none), the
        rematch for the host once the match is over."""
        over = self.model.match_over is not None
        return result_keys(
            end_key(self.game.mode, watching=self.model.my_seat is None) if over else None,
            review=bool(self.check_action("review", ())),
            rematch=bool(self.check_action("rematch", ())),
        )

    def on_mount(self) -> None:
        """Say whether the next decision is already yours, and keep saying it (its turn
        timer counting down); name who played the hand once the server's history says (it
        may come after the panel)."""
        self._turn_shown: str | None = None
        self._draw_turn()
        self.game.model_changed.subscribe(self, self._changed)
        self.set_interval(0.5, self._draw_clock)

    def _draw_clock(self) -> None:
        """The turn timer's second changed: the note says it (nothing else is drawn again)."""
        if self._turn_text().plain != self._turn_shown:
            self._draw_turn()

    def _changed(self, change: Change) -> None:
        # Who played it (the history names them) or which row is yours (the name_kept notice
        # comes after the snapshot that opened the panel) is known later.
        if self.hand.names != self._names or self.model.your_seat_in(self.hand) != self._me:
            self.refresh(recompose=True)
        self._draw_turn()

    def _draw_turn(self) -> None:
        notes = self.query("#result-turn")
        if not notes:  # the panel is being taken down while the model changes: nothing to draw
            return
        self._draw_final()
        note = notes.first(Static)
        text = self._turn_text()
        self._turn_shown = text.plain
        note.update(text)
        note.display = bool(text)
        for key_line in self.query("#result-keys").results(Static):
            key_line.update(self._keys())
        self.call_after_refresh(self.fit_to_height)

    def _turn_text(self) -> Text:
        """The note that the next decision is already yours (empty when it is not), with its
        turn timer: the panel covers the table's status line, and a player reading the
        coach's review here lost two turns to the timer with nothing counting down."""
        live = live_decisions(self.model)
        text = Text(style="bold")
        clock = turn_clock(self.model.prompt, self.game.status, self.app.is_web)
        turn = "▶ Your turn in the next hand" + ("" if clock is None else f" ({clock})")
        if "pick" in live:
            keys = "p picks, s passes" if "pass_blind" in live else "p picks"
            if self.check_action("hint", ()):
                keys += ", i hint"
            text.append(f"{turn}: {keys} (from here too).")
            # This panel covers the hand at 80x24: the new cards are shown with the question.
            text.append("\nYour cards: ", style="")
            text.append_text(cards_text(self.model.hand))
        elif live & STAKES_KEYS.keys():
            keys = ", ".join(STAKES_KEYS[d] for d in STAKES_KEYS if d in live)
            if self.model.decision == "recrack":
                keys = keys.replace("n does not crack", "n lets the crack stand")
            if self.check_action("hint", ()):
                keys += ", i hint"
            text.append(f"{turn}: {keys} (from here too).")
        elif self.model.decision == "play":
            text.append(f"{turn}: Enter or a card's key closes this panel.")
        elif self.model.prompt is not None:
            text.append(f"{turn}: Enter closes this panel.")
        return text

    def _final_text(self) -> Text | None:
        """The match's final totals once it is over (the standings follow on Enter)."""
        return final_text(self.model, self.hand.names, self._me)

    def _draw_final(self) -> None:
        """Show or hide the final totals line as the match is over or not."""
        final = self.query_one("#result-final", Static)
        text = self._final_text()
        final.display = text is not None
        if text is not None:
            final.update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """p and s work only while that decision is yours, v on a hand you played."""
        if action == "decide":
            return str(parameters[0]) in live_decisions(self.model)
        if action == "review":
            # Your own play only: in a hand somebody else played in your seat (you sat down
            # after it) v reviewed their decisions as "your decisions".
            mine = self.model.your_seat_in(self.hand) is not None
            return bool(self.model.info.get("hints")) and mine
        if action == "rematch":
            return self.model.match_over is not None and self.model.is_host
        if action == "hint":
            return self.model.prompt is not None and bool(self.model.info.get("hints"))
        return True

    def action_hint(self) -> None:
        """i: close the panel and ask the coach about the next hand's decision (the status
        line under the panel offered i, and the advice is shown there)."""
        self.dismiss(None)
        self.game.table_action("hint")

    def action_decide(self, action: str) -> None:
        """Close the panel and answer the pending decision with the table's key."""
        self.dismiss(None)
        self.game.table_action(action)

    def action_close(self) -> None:
        """Back to the table, or on to the standings when the match is over."""
        self.dismiss(None)
        if self.model.match_over is not None:
            self.game.open_match_over()

    def action_end(self) -> None:
        """Esc: back to the table; once the match is over, straight there (the final totals
        are on this panel, Enter has the standings), and at a server to the question whether
        to leave it. It took an Esc here, one on the standings and one on the table."""
        self.dismiss(None)
        if self.model.match_over is not None:
            # To the table itself, not a history open under the panel as the match ended.
            self.game.close_panels_over_table()
            leave_after_match(self.game)

    def on_key(self, event: events.Key) -> None:
        """A card's key while a card to play is yours closes the panel, and plays nothing: the
        status line under the panel says "play a card: 1-6" and the key did nothing here, but
        the panel covers the trick, which the player sees before the card goes."""
        key = event.character or ""
        if key in "123456789" and key and self.model.decision == "play":
            event.stop()
            event.prevent_default()
            self.action_close()
        # Else FitsHeight's on_key runs next (Textual calls each class's handler).

    @work(group="review", exclusive=True, exit_on_error=False)
    async def action_review(self) -> None:
        """Ask the coach what each of your decisions of this hand cost against the best."""
        hand = self.hand
        note = self.query_one("#result-review", Static)
        note.update(Text("The coach is reviewing your play…", style="italic"))
        note.display = True
        reply = await self.game.call("review", hand=max(0, hand.number - 1))
        if hand is not self.hand or not self.is_attached:
            return
        if reply is None or "decisions" not in reply:
            note.display = False
            return
        self.review = review_lines(reply)
        lines = [Text("The coach on your decisions:", style="bold")]
        lines += [Text(line) for line in self.review]
        note.update(Group(Text(""), *lines))
        self.call_after_refresh(self.fit_to_height)

    def action_export(self) -> None:
        """Save this hand's record."""
        self.game.export_hand(self.hand)

    def action_history(self) -> None:
        """Open the match history over this panel (Esc there comes back to it)."""
        self.game.open_history()

    def action_score_sheet(self) -> None:
        """Open the score sheet (as the table's k) over this panel: its Esc comes back here,
        where the hand's result and the standings' Enter still are (closing the panel first
        left the player at the bare table, the result gone)."""
        self.game.open_score_sheet()

    async def action_rematch(self) -> None:
        """Host, once the match is over: a new match with the same seats."""
        self.dismiss(None)
        await self.game.rematch()

    async def action_quit_app(self) -> None:
        """Quit as the table's q does (asking first while your match runs)."""
        self.dismiss(None)
        table = next((s for s in self.game.screen_stack if isinstance(s, TableScreen)), None)
        if table is None:
            await self.app.action_quit()
        else:
            await table.action_quit_app()
