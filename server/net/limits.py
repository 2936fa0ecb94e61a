"""What counts as one client address for the per-address limits.

An IPv4 address is one address. An IPv6 host is usually given a whole /64 network, and can
pick any of its 2**64 addresses for each connection, so an IPv6 address counts as its /64:
otherwise one host could open a fresh allowance of connections, tables and bots per
connection. An IPv4 address written as IPv6 (``::ffff:192.0.2.7``, as a dual-stack socket
reports it) counts as the IPv4 address.
"""

from __future__ import annotations

import ipaddress

__all__ = ["client_address"]


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
