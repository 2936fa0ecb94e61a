"""A tournament's results as text: the table, the progress bar, and the worst deals' pairs of
mirrored seatings side by side."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, TextIO

from botkit.tournament.play import Mirror, plays_per_deal
from engine.record import describe_record
from engine.rules import RuleSet, rules_title


def _fmt_ci(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "[n/a]"
    return f"[{low:+.3f}, {high:+.3f}]"


def report(summary: dict[str, Any], out: TextIO) -> None:
    """Print the results as a table."""
    seatings = plays_per_deal(len(summary["strategies"]))
    print(
        f"{summary['deals_played']} deals x {seatings} seatings = "
        f"{summary['hands']} hands, seed {summary['seed']}\n"
        f"Rules: {rules_title(RuleSet.from_dict(summary['rules']))}",
        file=out,
    )
    width = max(
        len(label) + (len(s["name"]) + 3 if s.get("name", label) != label else 0)
        for label, s in summary["strategies"].items()
    )
    head = (
        f"{'strategy':<{width}}  {'pts/hand':>8}  {'95% CI':>18}  {'pick':>6}  "
        f"{'pick win':>8}  {'leaster':>7}  {'ms mean':>7}  {'ms max':>7}"
    )
    print(head, file=out)
    for name, s in summary["strategies"].items():
        if s.get("name", name) != name:
            name = f"{name} ({s['name']})"
        win = "-" if s["picker_win_rate"] is None else f"{s['picker_win_rate']:.1%}"
        print(
            f"{name:<{width}}  {s['mean']:>+8.3f}  {_fmt_ci(*s['ci95']):>18}  "
            f"{s['pick_rate']:>6.1%}  {win:>8}  {s['leaster_rate']:>7.1%}  "
            f"{s['decision_mean_s'] * 1000:>7.1f}  {s['decision_max_s'] * 1000:>7.1f}",
            file=out,
        )
    for p in summary["pairs"]:
        print(
            f"{p['a']} - {p['b']}: {p['diff']:+.3f} points per hand per seat, "
            f"95% CI {_fmt_ci(*p['ci95'])}",
            file=out,
        )
    for name, s in summary["strategies"].items():
        if s.get("fallbacks"):
            print(
                f"{name}: failed in {s['fallbacks']} of {s['decisions']} decisions; the first "
                "legal action was played instead (counted in its figures)",
                file=out,
            )
            for failure in s.get("failures", []):
                print(f"  {failure}", file=out)


class Progress:
    """A progress bar on stderr with the rate and the time left.

    ``already`` deals were played before this run started (a resumed tournament): the bar
    counts them, the rate and the time left only the deals played since.
    """

    def __init__(self, total: int, out: TextIO, enabled: bool, already: int = 0) -> None:
        self.total = total
        self.already = already
        self.out = out
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.tty = out.isatty()

    def update(self, done: int, status: str = "") -> None:
        """Redraw (at most five times a second; every ten seconds when not a terminal)."""
        if not self.enabled:
            return
        now = time.monotonic()
        finished = done == self.total
        if not finished and now - self.last < (0.2 if self.tty else 10.0):
            return
        self.last = now
        elapsed = now - self.start
        rate = (done - self.already) / elapsed if elapsed > 0 else 0.0
        # Nothing played yet in this run: no rate to go by.
        eta = (
            _clock((self.total - done) / rate) if rate > 0 else "?" if done < self.total else "0:00"
        )
        filled = int(30 * done / self.total) if self.total else 30
        bar = "#" * filled + "." * (30 - filled)
        line = (
            f"[{bar}] {done}/{self.total} deals  {rate:.2f} deals/s  "
            f"elapsed {_clock(elapsed)}  ETA {eta}"
        )
        if status:
            line += f"  {status}"
        end = "\n" if finished or not self.tty else ""
        self.out.write(("\r" if self.tty else "") + line + end)
        self.out.flush()


def short_label(spec: str) -> str:
    """A strategy label cut to 16 characters, for the progress bar."""
    return spec if len(spec) <= 16 else spec[:15] + "~"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def side_by_side(left: Sequence[str], right: Sequence[str], width: int = 62) -> list[str]:
    """Two columns of text lines, each cut to ``width`` characters.

    >>> side_by_side(["a", "bb"], ["c"], width=3)
    ['a   | c', 'bb  |']
    """
    lines = []
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        cut = a if len(a) <= width else a[: width - 1] + "~"
        lines.append(f"{cut:<{width}} | {b[:width]}".rstrip())
    return lines


def describe_seating(record: dict[str, Any], shown: dict[str, str] | None = None) -> list[str]:
    """A seating's hand trick by trick, each seat named with the strategy that played it
    (``shown`` maps a strategy label to a shorter name)."""
    labels = [(shown or {}).get(label, label) for label in record.get("strategies") or []]
    lines = []
    for line in describe_record(record).splitlines():
        if line.startswith("Rules: "):
            continue  # the same for every seating: printed once above
        for seat, label in enumerate(labels):
            prefix = f"  seat {seat}: "
            if line.startswith(prefix):
                line = f"  {seat} {label[:14]:<14} {line[len(prefix) :]}"
        lines.append(line)
    return lines


def report_worst(
    mirrors: Sequence[Mirror],
    labels: Sequence[str],
    command: str,
    out: TextIO,
    names: Sequence[str] | None = None,
) -> None:
    """Print each kept pair of mirrored seatings side by side, with how to rerun its deal.

    Seats show the strategies' ``names`` when those tell them apart, else their labels.
    """
    if not mirrors:
        return
    shown = dict(zip(labels, names, strict=True)) if names and len(set(names)) == len(names) else {}
    first, other = labels[0], labels[1]
    print(
        f"\nThe {len(mirrors)} deals where {first} did worst against {other} on the same cards "
        f"(left: {first} in the first seatings; right: the seats swapped):",
        file=out,
    )
    for mirror in mirrors:
        assert mirror.records is not None, "play_deal with keep_mirrors, or with_records"
        left, right = mirror.records
        print(
            f"\n=== deal {mirror.deal}, rotation {mirror.rotation}: {first} {mirror.score:+d} "
            f"over both seatings (rerun: {command} --deal {mirror.deal})",
            file=out,
        )
        rules = rules_title(RuleSet.from_dict(left["rules"]))
        print(f"Rules: {rules}  dealer: seat {left['dealer']}", file=out)
        heads = [
            f"seating {left['tournament']['seating']}",
            f"seating {right['tournament']['seating']}",
        ]
        for line in side_by_side(
            [heads[0], *describe_seating(left, shown)], [heads[1], *describe_seating(right, shown)]
        ):
            print(line, file=out)
