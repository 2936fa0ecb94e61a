"""Messages assembled from pre-packed field groups decode exactly like ordinary frames."""

from __future__ import annotations

import doctest
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocol.prepack
from protocol.framing import FrameDecoder, encode, frame, pack
from protocol.prepack import PackedMap, map_header, pack_fields, pack_map_body

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
maps = st.dictionaries(st.text(max_size=6), values, max_size=20)


def joined(*groups: dict[str, Any], max_frame: int = 1 << 16) -> bytes:
    """One frame of every group's fields under one header, as the server joins a ``state``."""
    packed = [pack_fields(group) for group in groups]
    header = map_header(sum(p.count for p in packed))
    return frame(header + b"".join(p.data for p in packed), max_frame=max_frame)


def test_doctests() -> None:
    assert doctest.testmod(protocol.prepack).failed == 0


@settings(max_examples=60, deadline=None)
@given(maps, st.integers(min_value=0, max_value=20))
def test_split_anywhere_the_frame_is_the_same(message: dict[str, Any], cut: int) -> None:
    items = list(message.items())
    assembled = joined(dict(items[:cut]), dict(items[cut:]))
    assert assembled == encode(message)
    assert FrameDecoder().feed(assembled) == [message]


def test_many_fields_use_the_longer_map_headers() -> None:
    for size in (15, 16, 0xFFFF, 0x10000, 70_000):
        big = {f"k{i}": i for i in range(size)}
        odd = {k: v for k, v in big.items() if v % 2}
        even = {k: v for k, v in big.items() if not v % 2}
        assembled = joined(odd, even, max_frame=1 << 22)
        assert FrameDecoder(max_frame=1 << 22).feed(assembled) == [{**odd, **even}]
        assert pack_map_body(big) == pack(big)[len(map_header(size)) :]


def test_a_frame_past_max_frame_is_refused() -> None:
    with pytest.raises(ValueError):
        joined({"x": "y" * 70_000})


@settings(max_examples=60, deadline=None)
@given(maps, maps)
def test_a_packed_map_value_decodes_like_the_plain_map(
    outer: dict[str, Any], inner: dict[str, Any]
) -> None:
    outer.pop("info", None)
    body = pack_map_body(outer) + pack("info") + PackedMap(inner).data
    assembled = frame(map_header(len(outer) + 1) + body)
    assert FrameDecoder().feed(assembled) == [{**outer, "info": inner}]
    assert PackedMap(inner).data == pack(inner)
