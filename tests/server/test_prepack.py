"""Frames assembled from pre-packed field groups decode exactly like ordinary frames."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.framing import FrameDecoder, encode
from protocol.prepack import PackedMap, encode_frame, pack_entries, pack_fields

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
maps = st.dictionaries(st.text(max_size=6), values, max_size=20)


@settings(max_examples=60, deadline=None)
@given(maps, st.integers(min_value=0, max_value=20))
def test_split_anywhere_the_frame_is_the_same(message: dict[str, Any], cut: int) -> None:
    items = list(message.items())
    shared = pack_fields(dict(items[:cut]))
    frame = encode_frame(shared, dict(items[cut:]))
    assert frame == encode(message)
    assert FrameDecoder().feed(frame) == [message]


def test_many_fields_use_the_longer_map_headers() -> None:
    big = {f"k{i}": i for i in range(70_000)}
    shared = pack_fields({k: v for k, v in big.items() if v % 2})
    frame = encode_frame(shared, {k: v for k, v in big.items() if not v % 2}, max_frame=1 << 22)
    decoded = FrameDecoder(max_frame=1 << 22).feed(frame)
    assert decoded[0] == {**{k: v for k, v in big.items() if v % 2}, **big}
    with pytest.raises(ValueError):
        encode_frame({"x": "y" * 70_000})


@settings(max_examples=60, deadline=None)
@given(maps, maps, st.integers(min_value=0, max_value=20))
def test_a_nested_map_from_packed_groups_decodes_like_the_plain_map(
    outer: dict[str, Any], inner: dict[str, Any], cut: int
) -> None:
    items = list(inner.items())
    nested = PackedMap(pack_fields(dict(items[:cut])), dict(items[cut:]))
    fields = {**outer, "view": nested}
    plain = {**outer, "view": inner}
    assert encode_frame(pack_entries(fields)) == encode(plain)
    assert FrameDecoder().feed(encode_frame(pack_entries(fields))) == [plain]
