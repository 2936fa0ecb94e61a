"""What both doors share: the examples in ``server/door_kit.py`` (names, the session gate)."""

from __future__ import annotations

import doctest

import server.door_kit


def test_the_examples_hold() -> None:
    result = doctest.testmod(server.door_kit)
    assert result.attempted >= 8 and result.failed == 0


def test_an_address_meter_forgets_idle_addresses_and_stays_cheap_under_a_wide_flood() -> None:
    """Addresses whose allowance has refilled are forgotten once many are known; when all of
    them are still drawing, the next look comes only at twice as many (not at every one)."""
    meter = server.door_kit.AddressMeter(rate=1.0, burst=1.0)
    flood = [f"2001:db8:{n:x}::" for n in range(1500)]
    assert all(meter.take(address, now=0.0) for address in flood)
    assert len(meter.buckets) == 1500  # none had refilled at the first look (1,024)
    assert not meter.take(flood[0], now=0.5)  # each is spent, and still known
    later = [f"2001:db8:1:{n:x}::" for n in range(600)]
    assert all(meter.take(address, now=10.0) for address in later)
    assert len(meter.buckets) < 1500  # the refilled flood was forgotten at 2 x 1,500
