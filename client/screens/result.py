"""The result panel shown after every hand: points per side, stakes, payouts, all hands revealed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from client.model import NUM_SEATS, FinishedHand
from client.widgets.cards import card_text, cards_text
from client.widgets.table import fit_name


def _signed(n: int | None) -> str:
    return "" if n is None else f"{n:+d}"


def result_summary(result: Mapping[str, Any], names: Sequence[str]) -> list[Text]:
    """Lines saying who played with whom, the card points per side, and the stakes."""
    lines: list[Text] = []
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
            lines.append(Text(f"Leaster: {names[winner]} wins with the fewest points, {points}."))
    elif picker is not None:
        line = Text(f"Picker {names[picker]}")
        if result.get("alone"):
            line.append(" played alone")
        elif partner is not None:
            line.append(f" with partner {names[partner]}")
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
    if doublings is None:  # a breakdown from before RULES.md §11
        multiplier = result.get("multiplier") or 1
        if multiplier > 1:
            extras.append(f"doubler stakes ×{multiplier}")
    else:
        doubled = [doubling_text(d, names) for d in doublings if d.get("kind") != "bump"]
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
    """Per seat: role, the cards dealt, card points, the hand's payout, the running total."""
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
        name = fit_name(names[seat], 12) + (" *" if seat == me else "")
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


class MatchOverScreen(ModalScreen[None]):
    """The final standings when the match ends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "close"),
        Binding("h", "history", "history"),
        Binding("q", "quit_app", "quit"),
    ]

    def __init__(self, model: Any) -> None:
        super().__init__(classes="dialog")
        self.model = model

    def compose(self) -> ComposeResult:
        """Seats ranked by their totals."""
        model = self.model
        totals = list(model.totals)
        names = [s.name for s in model.seats]
        hands = (model.match_over or {}).get("hands", len(model.history))
        table = Table(box=None, padding=(0, 1), header_style="bold", show_edge=False)
        table.add_column("place", justify="right")
        table.add_column("player", no_wrap=True)
        table.add_column("total", justify="right")
        order = sorted(range(NUM_SEATS), key=lambda s: -totals[s])
        for place, seat in enumerate(order, 1):
            me = seat == model.my_seat
            name = Text(names[seat] + (" (you)" if me else ""), style="bold" if me else "")
            table.add_row(str(place), name, _signed(totals[seat]))
        with Vertical(id="match-box", classes="box") as box:
            box.border_title = f"Match over after {hands} hands"
            yield Static(table)
            yield Static("Enter close · h history, where x exports a hand · q quit", classes="hint")

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)

    def action_history(self) -> None:
        """Open the match history."""
        from client.screens.info import HistoryScreen

        self.dismiss(None)
        self.app.push_screen(HistoryScreen(self.model))

    async def action_quit_app(self) -> None:
        """Leave the program."""
        await self.app.action_quit()


class ResultScreen(ModalScreen[None]):
    """After a hand: what happened and who pays whom (Enter, Esc or Space closes)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "close"),
        Binding("x", "export", "export"),
        Binding("h", "history", "history"),
    ]

    def __init__(self, hand: FinishedHand) -> None:
        super().__init__(classes="dialog")
        self.hand = hand

    def show(self, hand: FinishedHand) -> None:
        """Show ``hand`` instead (a later one that ended while this screen was open)."""
        if hand is not self.hand:
            self.hand = hand
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        """The summary, the table of seats, the blind and the bury."""
        hand = self.hand
        result = hand.result
        model: Any = getattr(self.app, "model", None)
        me = None if model is None else model.my_seat
        outcome = str(result.get("outcome_text") or "hand over")
        body: list[RenderableType] = [*result_summary(result, hand.names)]
        body.append(Text(""))
        body.append(result_table(result, hand.reveal, hand.names, hand.totals, me))
        blind = hand.reveal.get("blind") or []
        buried = hand.reveal.get("buried") or []
        line = Text("Blind ") + cards_text(blind)
        if buried and result.get("picker") is not None:
            line += Text(" · buried ") + cards_text(buried)
        body.append(Text(""))
        body.append(line)
        if model is not None and model.match_over is not None:
            totals = model.totals
            order = sorted(range(NUM_SEATS), key=lambda s: -totals[s])
            final = ", ".join(f"{hand.names[s]} {totals[s]:+d}" for s in order)
            body.append(Text(f"Match over. Final: {final}", style="bold"))
        with Vertical(id="result-box", classes="box") as box:
            box.border_title = f"Hand {hand.number}: {outcome}"
            with VerticalScroll():
                yield Static(Group(*body), id="result-body")
            yield Static("Enter close · x export this hand · h history", classes="hint")

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)

    def action_export(self) -> None:
        """Save this hand's record."""
        self.app.export_hand(self.hand)  # type: ignore[attr-defined]

    def action_history(self) -> None:
        """Open the match history."""
        from client.screens.info import HistoryScreen

        model: Any = getattr(self.app, "model", None)
        if model is not None:
            self.dismiss(None)
            self.app.push_screen(HistoryScreen(model))
