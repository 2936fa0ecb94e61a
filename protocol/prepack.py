"""Frames assembled from groups of fields packed ahead of time; they decode like any other frame.

A msgpack map is a header (its entry count) followed by its keys and values. The entries of a
map can therefore be packed in groups and joined under one header. The server sends every seat
a ``state`` that differs only in a few fields (``seat``, ``view``, ``last``); the rest (the table
summary above all) is packed once per change with :func:`pack_fields` and shared.

>>> from protocol.framing import FrameDecoder
>>> shared = pack_fields({"type": "state", "info": {"id": "t1", "seats": [1, 2, 3]}})
>>> frame = encode_frame(shared, {"seat": 2, "view": {"hand": ["QC"]}})
>>> FrameDecoder().feed(frame)
[{'type': 'state', 'info': {'id': 't1', 'seats': [1, 2, 3]}, 'seat': 2, 'view': {'hand': ['QC']}}]
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final

import msgpack

from protocol.framing import MAX_FRAME_DEFAULT

__all__ = ["PackedFields", "encode_frame", "pack_fields", "pack_map_entry"]

_HEADER: Final = struct.Struct(">I")
_MAP16: Final = struct.Struct(">BH")
_MAP32: Final = struct.Struct(">BI")


class PackedFields:
    """Some entries of a map, packed: ``count`` entries in ``data`` (no map header)."""

    __slots__ = ("count", "data")

    def __init__(self, count: int, data: bytes) -> None:
        self.count = count
        self.data = data

    def __repr__(self) -> str:
        return f"PackedFields({self.count} fields, {len(self.data)} bytes)"


def _header_size(n: int) -> int:
    return 1 if n < 16 else 3 if n < 0x10000 else 5


def _map_header(n: int) -> bytes:
    if n < 16:
        return bytes((0x80 | n,))
    if n < 0x10000:
        return _MAP16.pack(0xDE, n)
    return _MAP32.pack(0xDF, n)


def pack_fields(fields: Mapping[str, Any]) -> PackedFields:
    """Pack some fields of a message once (keys must be strings, as in every message)."""
    # Packing the map in one C call and dropping its header beats packing entry by entry.
    packed = msgpack.packb(dict(fields), use_bin_type=True)
    return PackedFields(len(fields), packed[_header_size(len(fields)) :])


def _packed(group: PackedFields | Mapping[str, Any]) -> PackedFields:
    return group if isinstance(group, PackedFields) else pack_fields(group)


def pack_map_entry(key: str, *groups: PackedFields | Mapping[str, Any]) -> PackedFields:
    """One entry, ``key`` mapped to the map made of every group's fields (no key may repeat).

    The server packs the public part of a hand's view once per change and only each seat's
    private fields per seat, then nests both under ``"view"`` with one map header.

    >>> from protocol.framing import FrameDecoder
    >>> public = pack_fields({"phase": "play", "turn": 3})
    >>> FrameDecoder().feed(encode_frame({"seat": 1}, pack_map_entry("view", public, {"hand": []})))
    [{'seat': 1, 'view': {'phase': 'play', 'turn': 3, 'hand': []}}]
    """
    packed = [_packed(group) for group in groups]
    count = sum(p.count for p in packed)
    key_bytes = msgpack.packb(key, use_bin_type=True)
    return PackedFields(1, b"".join([key_bytes, _map_header(count), *(p.data for p in packed)]))


def encode_frame(
    *groups: PackedFields | Mapping[str, Any], max_frame: int = MAX_FRAME_DEFAULT
) -> bytes:
    """One frame holding the fields of every group, in order (no key may repeat).

    Raises ``ValueError`` when the payload is longer than ``max_frame``, like
    :func:`protocol.framing.encode`.
    """
    parts: list[bytes] = []
    count = 0
    for group in groups:
        packed = _packed(group)
        count += packed.count
        parts.append(packed.data)
    payload = _map_header(count) + b"".join(parts)
    if len(payload) > max_frame:
        raise ValueError(
            f"message payload is {len(payload)} bytes, more than max_frame ({max_frame})"
        )
    return _HEADER.pack(len(payload)) + payload
