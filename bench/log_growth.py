"""Benchmark: how fast one address can grow the server's log (issue 27), figures printed.

Run by hand::

    .venv/bin/python bench/log_growth.py                  # this checkout's server
    .venv/bin/python bench/log_growth.py --cycles 300 --source /tmp/old

A real ``sheepshead serve`` at the default ``--log-level info`` writes its log to a file; one
client loops ``connect → hello → create_table → disconnect`` (each a connection, a table made
and closed: what a person does cheapest), waiting when the address's allowance of new
connections refuses it. Printed: the log's bytes per cycle, the cycles a second the limits let
through, and so the growth per hour from one address.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

benchlib.put_project_first(__file__)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from attack import Victim  # noqa: E402


async def cycles(port: int, count: int) -> float:
    """``count`` connect-hello-create-leave cycles; the seconds they took."""
    start = time.monotonic()
    done = 0
    while done < count:
        try:
            client = await Victim.open(port, "127.0.0.1")
            await client.request("hello", version=1, client="bench-log/1", name=f"p{done}")
            await client.request("create_table", name="churn")
            await client.close()
            done += 1
        except (ConnectionError, OSError):
            await asyncio.sleep(0.05)  # refused past the allowance of new connections
    return time.monotonic() - start


def main() -> None:
    """Run the loop against a server whose log goes to a file, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--cycles", type=int, default=200)
    args = parser.parse_args()
    source = Path(args.source).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "server.log"
        with open(log_path, "w") as log:
            command = [sys.executable, "-m", "client.cli", "serve", "--port", "0"]
            command += ["--db", f"{tmp}/log.db", "--log-level", "info"]
            server = subprocess.Popen(
                command,
                cwd=source,
                env={**os.environ, "PYTHONPATH": str(source)},
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
            try:
                banner = ""
                assert server.stdout is not None
                while "Ctrl+C" not in banner:
                    line = server.stdout.readline()
                    if not line:
                        raise SystemExit("log_growth: the server exited before listening")
                    banner += line
                port = int(re.search(r"listening on [\d.]+:(\d+)", banner).group(1))  # type: ignore[union-attr]
                before = log_path.stat().st_size
                seconds = asyncio.run(cycles(port, args.cycles))
                time.sleep(1.0)  # the last closes are logged
                grown = log_path.stat().st_size - before
            finally:
                server.terminate()
                server.wait(10)
    per_cycle = grown / args.cycles
    rate = args.cycles / seconds
    print(
        f"{args.cycles} connect-hello-create-leave cycles in {seconds:.1f} s ({rate:.1f} a second):"
        f" log {grown:,} B, {per_cycle:.0f} B a cycle; growth per hour from one address"
        f" {per_cycle * rate * 3600 / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
