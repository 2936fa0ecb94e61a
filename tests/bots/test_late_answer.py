"""A late answer is refused, never applied to the next decision (``sheepshead bot`` over real
sockets, a 1 s turn timer and a strategy that is too slow once)."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path

from client.bot_runner import BotConfig, run_bot
from tests.server.support import running_server

TIMEOUT = 60.0

SLOW_STRATEGY = '''
import json
import time


class SlowOnce:
    """Plays the last legal action; on its first card it thinks for 1.6 s (the timer is 1 s)."""

    name = "slow-once"

    def __init__(self, seed=None, log=""):
        self.log = log
        self.slow_done = False

    def choose(self, view, legal):
        choice = legal[-1]
        slow = choice["action"] == "play" and not self.slow_done
        if slow:
            self.slow_done = True
            time.sleep(1.6)
        with open(self.log, "a") as f:
            entry = {"trick": len(view["tricks"]), "choice": choice, "slow": slow}
            f.write(json.dumps(entry) + "\\n")
        return choice
'''

TIMED_OUT = re.compile(
    r"^timed out: the table played (\S+) for you \(the answer (\S+) came too late\)$"
)


async def test_a_late_answer_gets_stale_and_the_runner_says_the_table_played_for_it(
    tmp_path: Path,
) -> None:
    strategy = tmp_path / "slow_once.py"
    strategy.write_text(SLOW_STRATEGY)
    log = tmp_path / "choices.jsonl"
    async with running_server(bot_delay=0.0, hand_pause=0.0, default_bot="random") as server:
        out, err = io.StringIO(), io.StringIO()
        config = BotConfig(
            "127.0.0.1",
            server.port,
            strategy=f"{strategy}:log={log}",
            create=True,
            hands=1,
            turn_timer=1.0,
        )
        status = await asyncio.wait_for(run_bot(config, out, err), TIMEOUT)
        text = out.getvalue()
        assert status == 0, text
        assert err.getvalue() == "", err.getvalue()  # nothing refused, nothing failed
        (line,) = [m for m in map(TIMED_OUT.match, text.splitlines()) if m]
        timer_card, late_card = line[1], line[2]
        assert server.store is not None
        (record,) = server.store.hand_records("t1")

    # The cards seat 0 played, trick by trick, as the server recorded them.
    played = [a["card"] for a in record["actions"] if a["seat"] == 0 and a["action"] == "play"]
    choices = [json.loads(x) for x in log.read_text().splitlines()]
    plays = [c for c in choices if c["choice"]["action"] == "play"]
    (slow,) = [c for c in plays if c["slow"]]
    assert slow["choice"]["card"] == late_card
    # The decision the strategy was too slow for got the timer's card...
    assert played[slow["trick"]] == timer_card
    # ...and every other card is exactly what the strategy chose for that trick: the late answer
    # was not applied to the next one.
    for c in plays:
        if not c["slow"]:
            assert played[c["trick"]] == c["choice"]["card"], (c, played)
    assert len(plays) == len(played) == 6
