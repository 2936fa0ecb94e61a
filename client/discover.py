"""Find sheepshead servers on the LAN (DNS-SD over mDNS), and ``sheepshead servers``.

Every server not bound to loopback registers ``_sheepshead._tcp.local.`` (``server.net.announce``).
:func:`browse` listens for :data:`BROWSE_SECONDS` and returns what answered; ``sheepshead
join`` with no address shows them in a picker (``client.screens.servers``), and
``sheepshead servers`` prints them for people or, with ``--json``, for scripts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

from protocol.discovery import SERVICE_TYPE

HELP = "list the sheepshead servers on this network (mDNS)"

BROWSE_SECONDS: Final = 2.0
"""How long a browse listens for answers."""


@dataclass(frozen=True, slots=True)
class FoundServer:
    """One server that answered: its announced name, where to connect, and its TXT counts."""

    name: str
    address: str
    port: int
    tables: int | None
    players: int | None
    version: int | None

    @property
    def target(self) -> str:
        """``address:port`` as ``sheepshead join`` takes it."""
        return f"{self.address}:{self.port}"


def _number(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


def from_txt(
    instance: str, addresses: list[str], port: int, txt: Mapping[bytes, bytes | None]
) -> FoundServer | None:
    """A :class:`FoundServer` from a resolved service (None without an IPv4 address).

    >>> from_txt("Den._sheepshead._tcp.local.", ["10.0.0.5"], 7453,
    ...          {b"v": b"1", b"name": b"Den", b"tables": b"2", b"players": b"7"}).target
    '10.0.0.5:7453'
    """
    fields: dict[str, str | None] = {}
    for key, value in txt.items():
        fields[key.decode("utf-8", "replace")] = (
            None if value is None else value.decode("utf-8", "replace")
        )
    ipv4 = [a for a in addresses if a.count(".") == 3]
    if not ipv4:
        return None
    label = instance.removesuffix("." + SERVICE_TYPE)
    return FoundServer(
        name=fields.get("name") or label,
        address=ipv4[0],
        port=port,
        tables=_number(fields.get("tables")),
        players=_number(fields.get("players")),
        version=_number(fields.get("v")),
    )


async def browse(seconds: float = BROWSE_SECONDS) -> list[FoundServer]:
    """Listen ``seconds`` for sheepshead servers on every interface; sorted by name."""
    from zeroconf import IPVersion, ServiceStateChange, Zeroconf
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

    names: set[str] = set()

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is not ServiceStateChange.Removed:
            names.add(name)

    aiozc = AsyncZeroconf(ip_version=IPVersion.V4Only)
    browser = AsyncServiceBrowser(aiozc.zeroconf, [SERVICE_TYPE], handlers=[on_change])
    found: dict[str, FoundServer] = {}
    try:
        await asyncio.sleep(seconds)
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(aiozc.zeroconf, 1000):
                continue
            if info.port is None:
                continue
            server = from_txt(name, info.parsed_addresses(), info.port, info.properties)
            if server is not None:
                found[server.target] = server
    finally:
        await browser.async_cancel()
        await aiozc.async_close()
    return sorted(found.values(), key=lambda s: (s.name.casefold(), s.target))


NONE_FOUND: Final = (
    "no sheepshead server answered on this network. Give the address the host's "
    "`sheepshead serve --host 0.0.0.0` printed: sheepshead join HOST[:PORT]"
)
"""What to say when a browse found nothing."""


def table_text(servers: list[FoundServer]) -> str:
    """The servers as aligned columns: name, address, tables, players."""
    rows = [("NAME", "ADDRESS", "TABLES", "PLAYERS")]
    rows += [(s.name, s.target, _shown(s.tables), _shown(s.players)) for s in servers]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(
        f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}"
        for r in rows
    )


def _shown(value: int | None) -> str:
    return "?" if value is None else str(value)


def configure(parser: argparse.ArgumentParser, command: str) -> None:
    """Add ``servers``' arguments."""
    parser.add_argument(
        "--json", action="store_true", help="a JSON list of servers (name, address, port, ...)"
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=BROWSE_SECONDS,
        metavar="SECONDS",
        help=f"how long to listen for answers (default {BROWSE_SECONDS:g})",
    )


def run(args: argparse.Namespace) -> int:
    """Browse and print; exit 0 when a server was found, 1 when none answered."""
    if not 0 < args.wait <= 60:
        print("sheepshead servers: --wait must be more than 0 and at most 60", file=sys.stderr)
        return 2
    try:
        servers = asyncio.run(browse(args.wait))
    except OSError as exc:
        print(f"sheepshead servers: cannot use mDNS here: {exc}", file=sys.stderr)
        return 2
    if args.json:
        data: list[dict[str, Any]] = [asdict(s) for s in servers]
        print(json.dumps(data, indent=1))
    elif servers:
        print(table_text(servers))
    else:
        print(NONE_FOUND, file=sys.stderr)
    return 0 if servers else 1
