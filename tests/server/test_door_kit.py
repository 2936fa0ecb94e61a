"""What both doors share: the examples in ``server/door_kit.py`` (names, the session gate)."""

from __future__ import annotations

import doctest

import server.door_kit


def test_the_examples_hold() -> None:
    result = doctest.testmod(server.door_kit)
    assert result.attempted >= 8 and result.failed == 0
