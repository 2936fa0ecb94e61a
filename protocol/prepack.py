"""Messages assembled from groups of fields packed ahead of time; they decode like any other.

A msgpack map is a header (its entry count) followed by its keys and values. The entries of a
map can therefore be packed in groups and joined under one header. The server sends every seat
a ``state`` that differs only in a few fields (``seat``, ``view``, ``last``); the rest (the table
summary above all) is packed once per change with :func:`pack_fields` and shared.

>>> from protocol.framing import FrameDecoder, frame
>>> shared = pack_fields({"type": "state", "info": {"id": "t1", "seats": [1, 2, 3]}})
>>> own = pack_map_body({"seat": 2, "view": {"hand": ["QC"]}})
>>> FrameDecoder().feed(frame(map_header(shared.count + 2) + shared.data + own))
[{'type': 'state', 'info': {'id': 't1', 'seats': [1, 2, 3]}, 'seat': 2, 'view': {'hand': ['QC']}}]
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final

from protocol.framing import pack

__all__ = [
    "PackedFields",
    "PackedMap",
    "map_header",
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
    """A whole map value packed once, header and all, to be spliced into many frames (the
    table summary in every ``state`` of a change)."""

    __slots__ = ("data",)

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.data = pack(fields if isinstance(fields, dict) else dict(fields))

    def __repr__(self) -> str:
        return f"PackedMap({len(self.data)} bytes)"
