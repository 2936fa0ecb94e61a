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

from protocol.framing import MAX_FRAME_DEFAULT, frame, pack

__all__ = [
    "PackedFields",
    "PackedMap",
    "encode_frame",
    "map_header",
    "pack_entries",
    "pack_fields",
    "pack_map_body",
]

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


_FIXMAP: Final = tuple(bytes((0x80 | n,)) for n in range(16))


def map_header(n: int) -> bytes:
    """The msgpack header of a map with ``n`` entries."""
    if n < 16:
        return _FIXMAP[n]
    if n < 0x10000:
        return _MAP16.pack(0xDE, n)
    return _MAP32.pack(0xDF, n)


def pack_fields(fields: Mapping[str, Any]) -> PackedFields:
    """Pack some fields of a message once (keys must be strings, as in every message)."""
    return PackedFields(len(fields), pack_map_body(fields))


def pack_map_body(fields: Mapping[str, Any]) -> bytes:
    """The body of ``fields`` packed as a map: its entries without the header, as in
    :func:`pack_fields`, for a caller that knows how many fields it has.

    >>> pack_map_body({"a": 1}) == pack_fields({"a": 1}).data == pack({"a": 1})[1:]
    True
    """
    # Packing the map in one C call and dropping its header beats packing entry by entry.
    if not isinstance(fields, dict):
        fields = dict(fields)
    return pack(fields)[_header_size(len(fields)) :]


class PackedMap:
    """A map value made of packed groups, for :func:`pack_entries`: packed once, header and all."""

    __slots__ = ("data",)

    def __init__(self, *groups: PackedFields | Mapping[str, Any]) -> None:
        self.data = _map_of(groups)

    def __repr__(self) -> str:
        return f"PackedMap({len(self.data)} bytes)"


def pack_entries(fields: Mapping[str, Any]) -> PackedFields:
    """Like :func:`pack_fields`, but a value may be a :class:`PackedMap` (a nested map joined
    from packed groups), which is spliced in as it is.

    The server packs the public part of a hand's view once per change and only each seat's
    private fields per seat, then nests both under ``"view"`` with one map header.

    >>> from protocol.framing import FrameDecoder
    >>> public = pack_fields({"phase": "play", "turn": 3})
    >>> own = pack_entries({"seat": 1, "view": PackedMap(public, {"hand": []}), "last": None})
    >>> FrameDecoder().feed(encode_frame(own))
    [{'seat': 1, 'view': {'phase': 'play', 'turn': 3, 'hand': []}, 'last': None}]
    """
    parts: list[bytes] = []
    append = parts.append
    keys = _KEYS
    for key, value in fields.items():
        append(keys.get(key) or _key(key))
        append(value.data if isinstance(value, PackedMap) else pack(value))
    return PackedFields(len(fields), b"".join(parts))


_KEYS: dict[str, bytes] = {}


def _key(key: str) -> bytes:
    # Keys are a handful of protocol field names: pack each once.
    packed = _KEYS.get(key)
    if packed is None:
        packed = pack(key)
        if len(_KEYS) < 256:
            _KEYS[key] = packed
    return packed


def encode_frame(
    *groups: PackedFields | Mapping[str, Any], max_frame: int = MAX_FRAME_DEFAULT
) -> bytes:
    """One frame holding the fields of every group, in order (no key may repeat).

    Raises ``ValueError`` when the payload is longer than ``max_frame``, like
    :func:`protocol.framing.encode`.
    """
    return frame(_map_of(groups), max_frame=max_frame)


def _map_of(groups: tuple[PackedFields | Mapping[str, Any], ...]) -> bytes:
    """One packed map holding the entries of every group, in order."""
    parts: list[bytes] = [b""]
    count = 0
    for group in groups:
        packed = group if isinstance(group, PackedFields) else pack_fields(group)
        count += packed.count
        parts.append(packed.data)
    parts[0] = map_header(count)
    return b"".join(parts)
