"""The limits a client draws on: the token bucket every rate limit is made of, and what every
connection from one address shares (:class:`AddressAllowance`, :func:`address_meter`).

What counts as one client address for the per-address limits (:func:`client_address`): an IPv4
address is one address. An IPv6 host is usually given a whole /64 network, and can pick any of
its 2**64 addresses for each connection, so an IPv6 address counts as its /64: otherwise one
host could open a fresh allowance of connections, tables and bots per connection. An IPv4
address written as IPv6 (``::ffff:192.0.2.7``, as a dual-stack socket reports it) counts as the
IPv4 address.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.config import ServerConfig


def client_address(peer: object) -> str:
    """The address the limits meter for a socket's ``peername`` (a tuple whose first item is
    the host) or a host string; anything else (None, an empty tuple) is ``"?"``.

    >>> client_address(("192.0.2.7", 40000))
    '192.0.2.7'
    >>> client_address(("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 40000, 0, 0))
    '2001:db8:1:2::/64'
    >>> client_address(("::ffff:192.0.2.7", 40000, 0, 0))
    '192.0.2.7'
    >>> client_address(("::1", 40000, 0, 0)), client_address("2001:db8::7"), client_address(None)
    ('::1', '2001:db8::/64', '?')
    """
    if isinstance(peer, str) and peer:
        host = peer
    elif isinstance(peer, tuple) and peer:
        host = str(peer[0])
    else:
        return "?"
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # a zone id: fe80::1%eth0
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        if address.is_loopback:
            return host
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return host


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; a refused take goes into debt.

    The debt is how a flood is told from a burst: once it reaches ``burst`` the peer has ignored
    a whole bucket's worth of ``rate_limited`` errors and the connection is closed.
    """

    __slots__ = ("burst", "floor", "last", "rate", "tokens")

    def __init__(
        self, rate: float, burst: float, now: float, *, max_debt: float | None = None
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
        self.floor = -burst if max_debt is None else -max_debt
        """The debt stops growing here (``-burst``: it does once it is :attr:`exhausted`)."""

    def take(self, now: float, amount: float = 1.0) -> bool:
        """Spend ``amount`` tokens; False (and that much more debt) when there are not enough.

        A bucket that may not go into debt (``max_debt=0``) keeps what it refilled when it
        refuses: charging a refusal there would let one client asking faster than the rate keep
        the allowance empty, for everyone at its address, for as long as it asked."""
        refilled = min(self.burst, self.tokens + (now - self.last) * self.rate)
        tokens = refilled - amount
        self.last = now
        if tokens < 0 and self.floor == 0:
            self.tokens = refilled
            return False
        self.tokens = max(self.floor, tokens)
        return tokens >= 0

    def refund(self, amount: float = 1.0) -> None:
        """Give back ``amount`` tokens taken for something that did not happen after all."""
        self.tokens = min(self.burst, self.tokens + amount)

    def full(self, now: float) -> bool:
        """Whether the bucket has refilled to ``burst`` by ``now`` (it can be forgotten)."""
        return self.tokens + (now - self.last) * self.rate >= self.burst

    @property
    def exhausted(self) -> bool:
        """Whether the debt has reached a full bucket."""
        return self.tokens <= -self.burst


class AddressAllowance:
    """What every connection from one IP address draws on together, so that reconnecting
    does not refill it: new connections, request bytes and password checks (each costs an
    scrypt hash); and at the doors, new sessions (each starts a client process) and the
    browser door's HTTP requests.

    Running out of it only drops requests (``rate_limited``); it never closes a connection,
    since other people may share the address (a NAT). It never goes into debt, so the address
    has its allowance back as soon as a flood from it stops."""

    __slots__ = ("bytes", "connections", "door_starts", "identities", "passwords", "web_requests")

    def __init__(self, config: ServerConfig, now: float) -> None:
        self.bytes = TokenBucket(
            config.address_byte_rate, config.address_byte_burst, now, max_debt=0.0
        )
        self.passwords = TokenBucket(config.password_rate, config.password_burst, now, max_debt=0.0)
        self.connections = TokenBucket(
            config.connection_rate, config.connection_burst, now, max_debt=0.0
        )
        self.door_starts = TokenBucket(
            config.door_start_rate, config.door_start_burst, now, max_debt=0.0
        )
        self.web_requests = TokenBucket(
            config.web_request_rate, config.web_request_burst, now, max_debt=0.0
        )
        self.identities = TokenBucket(
            config.new_identity_rate, config.new_identity_burst, now, max_debt=0.0
        )
        """New player keys remembered (``server.storage.standings.Players.seated``)."""

    def full(self, now: float) -> bool:
        """Whether every bucket has refilled (the allowance can be forgotten)."""
        return all(
            bucket.full(now)
            for bucket in (
                self.bytes,
                self.passwords,
                self.connections,
                self.door_starts,
                self.web_requests,
                self.identities,
            )
        )


def address_meter(rate: float, burst: float, now: float) -> TokenBucket:
    """A per-address allowance: it never goes into debt (others may share the address)."""
    return TokenBucket(rate, burst, now, max_debt=0.0)
