"""Announce the server on the LAN with DNS-SD over mDNS (python-zeroconf).

A server bound to a non-loopback address registers one ``_sheepshead._tcp.local.`` service: the
instance is named after the server (``serve --name``, default the host name) and its TXT record
(:func:`protocol.discovery.txt_record`) carries the protocol version, that name, the tables open
and the players seated. The counts are refreshed when they change, at most every
:data:`REFRESH_SECONDS`. ``sheepshead join`` with no address and ``sheepshead servers`` find it
(``client.discover``), and so do ``avahi-browse -r _sheepshead._tcp`` and
``dns-sd -B _sheepshead._tcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from protocol.discovery import SERVICE_TYPE, txt_record

if TYPE_CHECKING:
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    from server.tables.lobby import Lobby

log = logging.getLogger("sheepshead.server")

REFRESH_SECONDS: Final = 3.0
"""Least time between two updates of the TXT record (tables and players change often)."""

NAME_MAX: Final = 63
"""A DNS label's limit in bytes: the instance name is cut to fit it."""


def default_name() -> str:
    """The name a server announces when ``--name`` is not given: this machine's host name."""
    return socket.gethostname().split(".")[0] or "sheepshead"


def instance_label(name: str) -> str:
    """``name`` cut to a DNS label (63 bytes of UTF-8, dots allowed by DNS-SD but avoided)."""
    label = name.replace(".", " ").strip() or "sheepshead"
    while len(label.encode("utf-8")) > NAME_MAX:
        label = label[:-1]
    return label


def should_announce(host: str) -> bool:
    """Whether a server listening on ``host`` is reachable from the LAN (never loopback)."""
    if host in ("", "0.0.0.0", "::"):
        return True
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a host name: it resolves to something other machines can reach


def lobby_counts(lobby: Lobby) -> tuple[int, int]:
    """Tables open and players (people and network bots, not server bots) seated."""
    tables = [t for t in lobby.tables.values() if t.state in ("waiting", "playing")]
    players = sum(1 for t in tables for s in t.seats if s.kind == "human")
    return len(tables), players


class Announcer:
    """The registered service of one server, kept up to date until :meth:`stop`."""

    def __init__(
        self,
        name: str,
        port: int,
        addresses: list[str],
        counts: Callable[[], tuple[int, int]],
        *,
        refresh: float = REFRESH_SECONDS,
    ) -> None:
        self.name = name
        self.port = port
        self.addresses = addresses
        self.counts = counts
        self.refresh = refresh
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._task: asyncio.Task[None] | None = None
        self._shown: tuple[int, int] | None = None

    def _service_info(self, properties: Mapping[str, str], name: str) -> AsyncServiceInfo:
        from zeroconf.asyncio import AsyncServiceInfo

        host = instance_label(socket.gethostname().split(".")[0] or "sheepshead")
        return AsyncServiceInfo(
            SERVICE_TYPE,
            name,
            addresses=[socket.inet_aton(a) for a in self.addresses],
            port=self.port,
            properties=dict(properties),
            server=f"{host}.local.",
        )

    async def start(self) -> None:
        """Register the service on the interfaces of ``addresses`` and keep its TXT fresh."""
        from zeroconf import IPVersion
        from zeroconf.asyncio import AsyncZeroconf

        self._zeroconf = AsyncZeroconf(interfaces=list(self.addresses), ip_version=IPVersion.V4Only)
        self._shown = self.counts()
        instance = f"{instance_label(self.name)}.{SERVICE_TYPE}"
        self._info = self._service_info(txt_record(self.name, *self._shown), instance)
        await (await self._zeroconf.async_register_service(self._info, allow_name_change=True))
        log.info(
            "announced as %r (%s) on %s", self.name, self._info.name, ", ".join(self.addresses)
        )
        self._task = asyncio.create_task(self._keep_fresh())

    async def _keep_fresh(self) -> None:
        while True:
            await asyncio.sleep(self.refresh)
            try:
                counts = self.counts()
                if counts != self._shown and self._zeroconf is not None and self._info:
                    self._shown = counts
                    # The name is the registered one (zeroconf may have added " (2)").
                    self._info = self._service_info(txt_record(self.name, *counts), self._info.name)
                    await (await self._zeroconf.async_update_service(self._info))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("updating the mDNS announcement failed")

    async def stop(self) -> None:
        """Withdraw the service (a goodbye packet) and close the mDNS sockets."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._zeroconf is not None:
            with contextlib.suppress(Exception):
                if self._info is not None:
                    await (await self._zeroconf.async_unregister_service(self._info))
            await self._zeroconf.async_close()
            self._zeroconf = None
