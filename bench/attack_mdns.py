"""Benchmark: a flood of mDNS queries at a server announced on the LAN (issue 27), figures printed.

Run by hand, as root (it makes two network namespaces joined by a veth link, as
tests/e2e/test_lan_discovery.py does, and deletes them after; nothing leaves the machine)::

    .venv/bin/python bench/attack_mdns.py                   # this checkout's server
    .venv/bin/python bench/attack_mdns.py --source /tmp/old --seconds 8

``sheepshead serve --host 0.0.0.0`` runs in one namespace and announces itself; from the other
a victim sits at a table of its own and pings every 60 ms over TCP, first with nobody else
about (``quiet``), then while a flooder sends DNS-SD queries for ``_sheepshead._tcp.local.`` to
the mDNS group as fast as one process can (``query flood``), each of which python-zeroconf must
read and may answer. Each scenario prints the victim's ping, the server's CPU and its resident
memory.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib

SERVER_NS, CLIENT_NS = "shbench-a", "shbench-b"
SERVER_IP, CLIENT_IP = "10.233.0.1", "10.233.0.2"

VICTIM = """
import asyncio, json, sys, time
sys.path.insert(0, {bench!r})
from attack import Victim
async def main():
    victim = Victim(*await asyncio.open_connection({host!r}, {port}))
    await victim.request("hello", version=1, client="bench-mdns/1", name="Victim")
    await victim.request("create_table", name="the victim's table")
    print(json.dumps(await victim.pings({seconds})), flush=True)
asyncio.run(main())
"""

FLOODER = """
import socket, struct, time
name = b"".join(bytes([len(p)]) + p for p in (b"_sheepshead", b"_tcp", b"local")) + b"\\0"
query = struct.pack("!6H", 0, 0, 1, 0, 0, 0) + name + struct.pack("!2H", 12, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton({client!r}))
sent, deadline = 0, time.monotonic() + {seconds}
while time.monotonic() < deadline:
    s.sendto(query, ("224.0.0.251", 5353))
    sent += 1
print(sent, flush=True)
"""


def ip(*args: str) -> None:
    """Run ``ip`` with ``args``; a failure stops the benchmark with its message."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"attack_mdns: ip {' '.join(args)}: {done.stderr.strip()}")


def make_lan() -> None:
    """Two namespaces and a veth link between them, with no default route."""
    for ns in (SERVER_NS, CLIENT_NS):
        ip("netns", "add", ns)
    ip("link", "add", "shbv-a", "type", "veth", "peer", "name", "shbv-b")
    for ns, dev, addr in ((SERVER_NS, "shbv-a", SERVER_IP), (CLIENT_NS, "shbv-b", CLIENT_IP)):
        ip("link", "set", dev, "netns", ns)
        ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "link", "set", dev, "up")


def remove_lan() -> None:
    """Delete both namespaces (the veth link goes with them)."""
    for ns in (SERVER_NS, CLIENT_NS):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MB."""
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def in_client_ns(code: str) -> subprocess.Popen[str]:
    """``code`` run by this Python in the client's namespace; its stdout is piped."""
    return subprocess.Popen(
        ["ip", "netns", "exec", CLIENT_NS, sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        text=True,
    )


def scenario(name: str, pid: int, port: int, seconds: float, flood: bool) -> None:
    """One window: the victim's pings, with or without the flooder beside it."""
    import json

    bench = str(Path(__file__).resolve().parent)
    victim = in_client_ns(VICTIM.format(bench=bench, host=SERVER_IP, port=port, seconds=seconds))
    flooder = in_client_ns(FLOODER.format(client=CLIENT_IP, seconds=seconds)) if flood else None
    cpu, start = cpu_seconds(pid), time.monotonic()
    out, _ = victim.communicate(timeout=seconds + 60)
    used, window = cpu_seconds(pid) - cpu, time.monotonic() - start
    sent = flooder.communicate(timeout=60)[0].strip() if flooder is not None else "0"
    print(
        f"  {name:<12} victim ping: {benchlib.summary(json.loads(out))}"
        f"   server CPU {100 * used / window:3.0f}%  RSS {rss_mb(pid):.0f} MB"
        f"  queries sent {int(sent):,}"
    )


def main() -> None:
    """Parse the arguments, make the LAN, run both scenarios, clean up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each scenario")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("attack_mdns: making network namespaces needs root")
    remove_lan()
    make_lan()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(args.source).resolve()
        command = [sys.executable, "-m", "client.cli", "serve", "--host", "0.0.0.0"]
        command += ["--port", "0", "--db", f"{tmp}/mdns.db", "--log-level", "error"]
        server = subprocess.Popen(
            ["ip", "netns", "exec", SERVER_NS, *command],
            cwd=source,
            env={**os.environ, "PYTHONPATH": str(source)},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            banner = ""
            assert server.stdout is not None
            while "Ctrl+C" not in banner:
                line = server.stdout.readline()
                if not line:
                    raise SystemExit(f"attack_mdns: the server exited: {banner}")
                banner += line
            port = int(re.search(r"listening on [\d.]+:(\d+)", banner).group(1))  # type: ignore[union-attr]
            print(f"server from {source} in {SERVER_NS}: {banner.splitlines()[-2].strip()}")
            scenario("quiet", server.pid, port, args.seconds, flood=False)
            scenario("query flood", server.pid, port, args.seconds, flood=True)
        finally:
            server.terminate()
            server.wait(10)
            remove_lan()


if __name__ == "__main__":
    main()
