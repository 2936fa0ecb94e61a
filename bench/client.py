"""Benchmark: how fast the table screen shows an incoming event at 80×24.

Run by hand: ``.venv/bin/python bench/client.py [--hands N] [--seed S]``. The Textual app runs
headless (``run_test``) and is fed the ``state`` / ``your_turn`` messages of real engine hands, one
at a time, the way the session worker feeds them. For every event it measures:

- work: CPU time of the redraw on the event loop (applying the message to the model, updating
  every widget, and the compositor building the screen update);
- latency: from the message's arrival to the screen update being handed to the driver, which
  includes waiting for Textual's next frame (Textual paints at most 60 times a second).

Prints mean and p99 of both in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.app import SheepsheadApp
from client.screens.table import TableScreen
from tests.client.feed import EngineTable


def events(hands: int, seed: int) -> list[dict[str, Any]]:
    """The messages seat 0 receives over ``hands`` hands (finished states left out)."""
    out: list[dict[str, Any]] = []
    for n in range(hands):
        table = EngineTable(seed=seed + n, dealer=n % 5, me=0)
        table.hands_played = n
        msgs = table.messages()
        while not table.hand.is_over:
            msgs += table.apply(table.hand.legal_actions()[-1].to_dict())
        # The result panel is a different screen; this measures the table itself.
        out += [
            m
            for m in msgs
            if m["type"] in ("state", "your_turn")
            and not (m["type"] == "state" and m["view"]["phase"] == "done")
        ]
    return out


def p99(values: list[float]) -> float:
    """The 99th percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def measure(messages: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """Feed the messages one by one; return per-event work and latency in ms."""
    app = SheepsheadApp(mode="play")
    displayed: list[float] = []
    busy = [0.0]
    original_display = app._display

    def display(screen: Any, renderable: Any) -> None:
        displayed.append(time.perf_counter())
        original_display(screen, renderable)

    app._display = display  # type: ignore[method-assign]
    original_redraw = TableScreen.redraw

    def redraw(self: TableScreen, change: Any) -> None:
        start = time.perf_counter()
        original_redraw(self, change)
        busy[0] += time.perf_counter() - start

    TableScreen.redraw = redraw  # type: ignore[method-assign]
    work: list[float] = []
    latency: list[float] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            screen: Any = None
            for msg in messages[:5]:  # warm up: mount, first layout
                app.handle_message(msg)
                await pilot.pause()
            screen = app.screen
            update = screen._on_timer_update

            def timed_update() -> None:
                start = time.perf_counter()
                update()
                busy[0] += time.perf_counter() - start

            screen._on_timer_update = timed_update
            for msg in messages[5:]:
                await pilot.pause()
                busy[0] = 0.0
                count = len(displayed)
                start = time.perf_counter()
                app.handle_message(msg)
                busy[0] += time.perf_counter() - start
                deadline = start + 2.0
                while len(displayed) == count and time.perf_counter() < deadline:
                    await asyncio.sleep(0.0005)
                if len(displayed) > count:
                    latency.append((displayed[count] - start) * 1000)
                    work.append(busy[0] * 1000)
    finally:
        TableScreen.redraw = original_redraw  # type: ignore[method-assign]
    return work, latency


def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10, help="hands of events (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="first deal seed (default 1)")
    args = parser.parse_args()
    messages = events(args.hands, args.seed)
    work, latency = asyncio.run(measure(messages))
    print(f"{len(work)} events at 80x24 ({args.hands} hands)")
    print(f"redraw work:    mean {statistics.fmean(work):6.2f} ms   p99 {p99(work):6.2f} ms")
    print(f"latency:        mean {statistics.fmean(latency):6.2f} ms   p99 {p99(latency):6.2f} ms")


if __name__ == "__main__":
    main()
