"""Tests for the sans-I/O frame codec in protocol/framing.py."""

from __future__ import annotations

import doctest
import pickle
import struct
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import framing
from protocol.framing import (
    HEADER_SIZE,
    MAX_DEPTH_DEFAULT,
    MAX_FRAME_DEFAULT,
    FrameDecoder,
    FrameError,
    Message,
    encode,
)
from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS


def raw_frame(payload: bytes) -> bytes:
    """Frame arbitrary payload bytes, bypassing encode()'s checks."""
    return struct.pack(">I", len(payload)) + payload


def packed_frame(value: Any) -> bytes:
    return raw_frame(msgpack.packb(value, use_bin_type=True))


def nested_arrays(depth: int) -> bytes:
    """msgpack for ``depth`` nested one-element arrays around a 0."""
    return b"\x91" * depth + b"\x00"


def single(decoder: FrameDecoder, data: bytes) -> Message | FrameError:
    [item] = decoder.feed(data)
    return item


def assert_error(item: object, code: str, *, fatal: bool = False) -> FrameError:
    assert isinstance(item, FrameError), item
    assert item.code == code, item
    assert item.fatal is fatal
    assert item.message
    return item


# --- version -----------------------------------------------------------------


def test_version_constants() -> None:
    assert PROTOCOL_VERSION == 1
    assert frozenset({1}) == SUPPORTED_VERSIONS
    assert PROTOCOL_VERSION in SUPPORTED_VERSIONS


# --- round trips -------------------------------------------------------------


def test_encode_layout() -> None:
    frame = encode({"type": "hello"})
    payload = msgpack.packb({"type": "hello"}, use_bin_type=True)
    assert frame == struct.pack(">I", len(payload)) + payload


def test_round_trip_all_value_types() -> None:
    message = {
        "none": None,
        "bools": [True, False],
        "ints": [0, -1, 2**63 - 1, -(2**63), 2**64 - 1],
        "float": 1.5,
        "str": "héllo ♠",
        "bytes": b"\x00\xff",
        "nested": {"a": {"b": [1, {"c": []}]}, "empty": {}},
    }
    assert single(FrameDecoder(), encode(message)) == message


def test_encode_accepts_any_mapping_and_tuples_become_lists() -> None:
    proxy: Mapping[str, Any] = MappingProxyType({"cards": ("QC", "JD")})
    frame = encode(proxy)
    assert single(FrameDecoder(), frame) == {"cards": ["QC", "JD"]}


def test_empty_map_is_a_valid_message() -> None:
    assert single(FrameDecoder(), encode({})) == {}


def test_byte_at_a_time() -> None:
    messages: list[Message] = [{"type": "bid", "seat": 3}, {"type": "chat", "text": "x" * 300}]
    data = b"".join(encode(m) for m in messages)
    decoder = FrameDecoder()
    out: list[Message | FrameError] = []
    for i in range(len(data)):
        out.extend(decoder.feed(data[i : i + 1]))
        if not out:
            assert decoder.buffered == i + 1
    assert out == messages
    assert decoder.buffered == 0


def test_multiple_frames_in_one_chunk() -> None:
    messages = [{"n": i} for i in range(5)]
    decoder = FrameDecoder()
    assert decoder.feed(b"".join(encode(m) for m in messages)) == messages
    assert decoder.buffered == 0


def test_frames_and_a_partial_frame_in_one_chunk() -> None:
    first, second = encode({"n": 1}), encode({"n": 2})
    decoder = FrameDecoder()
    assert decoder.feed(first + second[:3]) == [{"n": 1}]
    assert decoder.buffered == 3
    assert decoder.feed(second[3:] + first) == [{"n": 2}, {"n": 1}]
    assert decoder.buffered == 0


def test_feed_accepts_bytearray_and_memoryview() -> None:
    frame = encode({"k": "v"})
    decoder = FrameDecoder()
    assert decoder.feed(bytearray(frame[:6])) == []
    assert decoder.feed(memoryview(frame)[6:]) == [{"k": "v"}]
    assert decoder.feed(memoryview(frame + frame[:2])) == [{"k": "v"}]
    assert decoder.feed(frame[2:]) == [{"k": "v"}]
    # A memoryview with a multi-byte item format is treated as its raw bytes.
    words = memoryview(bytearray(frame + b"\x00" * (-len(frame) % 4))).cast("I")
    assert decoder.feed(words) == [{"k": "v"}]
    assert decoder.buffered == -len(frame) % 4


def test_feed_empty_bytes() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"") == []
    decoder.feed(encode({"a": 1})[:2])
    assert decoder.feed(b"") == []
    assert decoder.buffered == 2


def test_truncated_frame_waits() -> None:
    frame = encode({"type": "play", "card": "QC"})
    decoder = FrameDecoder()
    assert decoder.feed(frame[:2]) == []  # partial header
    assert decoder.buffered == 2
    assert decoder.feed(frame[2:-3]) == []  # header and part of the body
    assert decoder.buffered == len(frame) - 3
    assert not decoder.broken
    assert decoder.feed(frame[-3:]) == [{"type": "play", "card": "QC"}]
    assert decoder.buffered == 0


def test_many_small_frames_in_one_chunk_is_linear() -> None:
    count = 50_000
    data = encode({"n": 1}) * count
    decoder = FrameDecoder()
    start = time.perf_counter()
    out = decoder.feed(data)
    elapsed = time.perf_counter() - start
    assert len(out) == count and out[-1] == {"n": 1}
    assert decoder.buffered == 0
    # Generous bound; a quadratic implementation takes far longer.
    assert elapsed < 5


_keys = st.text(max_size=8)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
)


def _values(
    depth: int, keys: st.SearchStrategy[Any] = _keys, tuples: bool = False
) -> st.SearchStrategy[Any]:
    """Nested values; with ``tuples``, tuples among the lists (packed as arrays too)."""
    if depth == 0:
        return _scalars
    inner = _values(depth - 1, keys, tuples)
    arrays = st.lists(inner, max_size=4)
    if tuples:
        arrays = st.one_of(arrays, arrays.map(tuple))
    return st.one_of(_scalars, arrays, st.dictionaries(keys, inner, max_size=4))


_messages = st.dictionaries(_keys, _values(4), max_size=6)


@settings(max_examples=200, deadline=None)
@given(messages=st.lists(_messages, min_size=1, max_size=4), data=st.data())
def test_round_trip_property(messages: list[Message], data: st.DataObject) -> None:
    stream = b"".join(encode(m) for m in messages)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    decoder = FrameDecoder()
    out: list[Message | FrameError] = []
    for lo, hi in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        out.extend(decoder.feed(stream[lo:hi]))
    assert out == messages
    assert decoder.buffered == 0
    assert not decoder.broken


_any_keys = st.one_of(_keys, st.integers(-(2**63), 2**64 - 1), st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(value=_values(4, keys=_any_keys, tuples=True))
def test_pack_gives_the_bytes_msgpack_gives(value: Any) -> None:
    """``pack`` (ormsgpack) and ``msgpack.packb`` agree byte for byte on every packable value."""
    assert framing.pack(value) == msgpack.packb(value, use_bin_type=True)


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, object(), {"a": {1, 2}}])
def test_pack_refuses_what_msgpack_cannot_hold_with_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError):
        framing.pack(value)


def test_pack_refuses_nesting_over_255_deep_and_the_decoder_never_yields_it() -> None:
    deep: list[Any] = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(TypeError):
        framing.pack(deep)
    assert MAX_DEPTH_DEFAULT < 255  # what a client sends can always be echoed back


# --- frame_too_large (fatal) ---------------------------------------------------


def test_oversized_header_alone_is_fatal() -> None:
    decoder = FrameDecoder()
    header = struct.pack(">I", MAX_FRAME_DEFAULT + 1)
    assert decoder.feed(header[:3]) == []
    assert not decoder.broken
    err = assert_error(single(decoder, header[3:]), "frame_too_large", fatal=True)
    assert str(MAX_FRAME_DEFAULT + 1) in err.message
    assert decoder.broken
    assert decoder.buffered == 0
    # Everything afterwards, even a valid frame, is discarded.
    assert decoder.feed(b"x" * 1000 + encode({"a": 1})) == []
    assert decoder.buffered == 0


def test_fatal_error_keeps_earlier_results_and_drops_the_rest() -> None:
    decoder = FrameDecoder()
    data = encode({"a": 1}) + struct.pack(">I", 2**32 - 1) + b"junk" + encode({"b": 2})
    out = decoder.feed(data)
    assert out[0] == {"a": 1}
    assert_error(out[1], "frame_too_large", fatal=True)
    assert len(out) == 2
    assert decoder.broken and decoder.buffered == 0


def test_fatal_after_buffered_partial_frame() -> None:
    decoder = FrameDecoder()
    frame = encode({"a": 1})
    assert decoder.feed(frame + b"\x00\x01") == [{"a": 1}]
    assert_error(single(decoder, b"\x00\x01"), "frame_too_large", fatal=True)
    assert decoder.broken and decoder.buffered == 0


def test_huge_string_at_the_limit_works_and_one_byte_more_is_too_large() -> None:
    # Map header + key + str16 header; the string lengths involved all use str16.
    overhead = len(msgpack.packb({"s": "a" * 60_000}, use_bin_type=True)) - 60_000
    text = "a" * (MAX_FRAME_DEFAULT - overhead)
    frame = encode({"s": text})
    assert len(frame) == HEADER_SIZE + MAX_FRAME_DEFAULT
    assert single(FrameDecoder(), frame) == {"s": text}

    bigger = packed_frame({"s": text + "a"})
    decoder = FrameDecoder()
    # The error is reported from the header alone, before the body arrives.
    assert_error(single(decoder, bigger[:HEADER_SIZE]), "frame_too_large", fatal=True)
    assert decoder.broken


def test_custom_max_frame() -> None:
    frame = encode({"s": "x" * 100})
    payload_len = len(frame) - HEADER_SIZE
    assert single(FrameDecoder(max_frame=payload_len), frame) == {"s": "x" * 100}
    item = single(FrameDecoder(max_frame=payload_len - 1), frame)
    assert_error(item, "frame_too_large", fatal=True)


def test_max_buffer_lowers_the_effective_frame_limit() -> None:
    frame = encode({"s": "x" * 100})
    assert single(FrameDecoder(max_buffer=len(frame)), frame) == {"s": "x" * 100}
    decoder = FrameDecoder(max_buffer=len(frame) - 1)
    assert_error(single(decoder, frame[:HEADER_SIZE]), "frame_too_large", fatal=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_frame": 0},
        {"max_frame": 2**32},
        {"max_buffer": HEADER_SIZE},
        {"max_depth": 0},
    ],
)
def test_invalid_decoder_limits(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        FrameDecoder(**kwargs)


# --- bad_frame (not fatal) -----------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b"\xc1", id="never-used-byte"),
        pytest.param(b"\xde\xad\xbe\xef\xc1\xc1", id="garbage"),
        pytest.param(b"\x82\xa1a\x01", id="truncated-map"),
        pytest.param(b"\xdb\xff\xff\xff\xff", id="str32-claims-4GiB"),
        pytest.param(b"\xdf\xff\xff\xff\xff", id="map32-claims-4G-entries"),
        pytest.param(b"\xdd\xff\xff\xff\xff", id="array32-claims-4G-items"),
        pytest.param(b"\x80\x80", id="trailing-bytes"),
        pytest.param(b"\x81\xa1a\xa2\xff\xfe", id="invalid-utf8-value"),
        pytest.param(b"\x81\xa2\xff\xfe\x01", id="invalid-utf8-key"),
    ],
)
def test_bad_payload_then_next_frame_decodes(payload: bytes) -> None:
    decoder = FrameDecoder()
    out = decoder.feed(raw_frame(payload) + encode({"ok": True}))
    assert len(out) == 2
    assert_error(out[0], "bad_frame")
    assert out[1] == {"ok": True}
    assert not decoder.broken


def test_zero_length_frame_is_bad_frame() -> None:
    decoder = FrameDecoder()
    out = decoder.feed(b"\x00\x00\x00\x00" + encode({"ok": True}))
    assert_error(out[0], "bad_frame")
    assert out[1:] == [{"ok": True}]
    assert not decoder.broken


def test_ext_type_is_bad_frame() -> None:
    payload = msgpack.packb({"x": msgpack.ExtType(5, b"abc")}, use_bin_type=True)
    assert_error(single(FrameDecoder(), raw_frame(payload)), "bad_frame")


def test_zero_length_ext_is_bad_frame() -> None:
    payload = b"\x81\xa1x\xc7\x00\x05"  # ext8, length 0, type 5
    assert_error(single(FrameDecoder(), raw_frame(payload)), "bad_frame")


def test_timestamp_ext_is_bad_frame() -> None:
    # msgpack decodes ext type -1 itself, without consulting ext_hook.
    payload = msgpack.packb({"at": msgpack.Timestamp(5)}, use_bin_type=True)
    assert_error(single(FrameDecoder(), raw_frame(payload)), "bad_frame")


def test_deep_nesting_is_bad_frame_not_a_crash() -> None:
    decoder = FrameDecoder()
    for depth in (17, 100, 1_000, 1_030, 10_000, 60_000):
        payload = b"\x81\xa1k" + nested_arrays(depth)
        assert_error(single(decoder, raw_frame(payload)), "bad_frame")
    assert single(decoder, encode({"ok": 1})) == {"ok": 1}


def test_deep_top_level_array_is_rejected() -> None:
    item = single(FrameDecoder(), raw_frame(nested_arrays(10_000)))
    assert isinstance(item, FrameError) and item.code in {"bad_frame", "not_a_map"}
    assert not item.fatal


def test_depth_limit_boundary() -> None:
    def nested_maps(depth: int) -> dict[str, Any]:
        value: dict[str, Any] = {}
        for _ in range(depth - 1):
            value = {"k": value}
        return value

    decoder = FrameDecoder()
    assert single(decoder, encode(nested_maps(16))) == nested_maps(16)
    assert_error(single(decoder, encode(nested_maps(17))), "bad_frame")
    # Lists count as levels too: the top map is depth 1, each list adds one.
    assert single(decoder, raw_frame(b"\x81\xa1k" + nested_arrays(15))) == {"k": _nest_list(15)}
    assert_error(single(decoder, raw_frame(b"\x81\xa1k" + nested_arrays(16))), "bad_frame")


def _nest_list(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def test_custom_max_depth() -> None:
    decoder = FrameDecoder(max_depth=1)
    assert single(decoder, encode({"a": 1, "b": "x"})) == {"a": 1, "b": "x"}
    assert_error(single(decoder, encode({"a": []})), "bad_frame")
    assert_error(single(decoder, encode({"a": {}})), "bad_frame")


def test_a_trusted_decoder_skips_the_value_walk_but_keeps_the_other_limits() -> None:
    deep = {"a": _nest_list(40)}
    assert_error(single(FrameDecoder(), encode(deep)), "bad_frame")
    trusted = FrameDecoder(trusted=True, max_frame=64)
    assert single(trusted, encode(deep)) == deep
    assert_error(single(trusted, packed_frame([1, 2])), "not_a_map")
    assert_error(single(trusted, packed_frame({1: 2})), "bad_key")
    (error,) = trusted.feed(encode({"s": "x" * 100}))
    assert_error(error, "frame_too_large", fatal=True)


# --- not_a_map / bad_key ---------------------------------------------------------


@pytest.mark.parametrize("value", [[1, 2], 7, "hello", None, b"raw", 1.5, True, []])
def test_non_map_payload(value: Any) -> None:
    decoder = FrameDecoder()
    out = decoder.feed(packed_frame(value) + encode({"ok": 1}))
    assert_error(out[0], "not_a_map")
    assert out[1] == {"ok": 1}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param({1: "a"}, id="int-key"),
        pytest.param({"a": 1, 2: "b"}, id="mixed-keys"),
        pytest.param({b"a": 1}, id="bytes-key"),
        pytest.param({None: 1}, id="nil-key"),
        pytest.param({1.5: 1}, id="float-key"),
        pytest.param({"outer": {1: "a"}}, id="nested-int-key"),
        pytest.param({"outer": [{b"k": 1}]}, id="nested-bytes-key"),
    ],
)
def test_non_string_keys_are_bad_key(value: Any) -> None:
    decoder = FrameDecoder()
    out = decoder.feed(packed_frame(value) + encode({"ok": 1}))
    assert_error(out[0], "bad_key")
    assert out[1] == {"ok": 1}


def test_container_map_key_is_bad_key() -> None:
    payload = b"\x81\x91\x01\x02"  # {[1]: 2}
    assert_error(single(FrameDecoder(), raw_frame(payload)), "bad_key")


def test_errors_and_messages_keep_stream_order() -> None:
    data = (
        encode({"n": 1})
        + raw_frame(b"\xc1")
        + packed_frame([1])
        + packed_frame({1: 1})
        + raw_frame(b"")
        + encode({"n": 2})
    )
    out = FrameDecoder().feed(data)
    assert out[0] == {"n": 1}
    assert [e.code for e in out[1:5] if isinstance(e, FrameError)] == [
        "bad_frame",
        "not_a_map",
        "bad_key",
        "bad_frame",
    ]
    assert out[5] == {"n": 2}


# --- encode --------------------------------------------------------------------


def test_encode_rejects_oversize_payload() -> None:
    with pytest.raises(ValueError, match="max_frame"):
        encode({"s": "x" * MAX_FRAME_DEFAULT})
    with pytest.raises(ValueError):
        encode({"s": "x" * 20}, max_frame=10)
    frame = encode({"s": "x" * MAX_FRAME_DEFAULT}, max_frame=2 * MAX_FRAME_DEFAULT)
    assert_error(single(FrameDecoder(), frame), "frame_too_large", fatal=True)


def test_encode_rejects_invalid_max_frame() -> None:
    with pytest.raises(ValueError):
        encode({}, max_frame=0)


def test_encode_unserialisable_value_raises_type_error() -> None:
    with pytest.raises(TypeError):
        encode({"x": object()})


# --- FrameError ----------------------------------------------------------------


def test_frame_error_attributes_and_pickling() -> None:
    err = FrameError("bad_frame", "nope")
    assert (err.code, err.message, err.fatal) == ("bad_frame", "nope", False)
    assert str(err) == "bad_frame: nope"
    assert "bad_frame" in repr(err)
    fatal = FrameError("frame_too_large", "too big", fatal=True)
    clone = pickle.loads(pickle.dumps(fatal))
    assert (clone.code, clone.message, clone.fatal) == ("frame_too_large", "too big", True)
    assert isinstance(err, Exception)


# --- docs ----------------------------------------------------------------------


def test_module_doctest() -> None:
    result = doctest.testmod(framing)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_names_have_docstrings() -> None:
    for name in framing.__all__:
        obj = getattr(framing, name)
        if isinstance(obj, type) or callable(obj):
            assert obj.__doc__, name
    for cls in (FrameDecoder, FrameError):
        for attr, value in vars(cls).items():
            if (not attr.startswith("_") and callable(value)) or isinstance(value, property):
                assert value.__doc__, f"{cls.__name__}.{attr}"
