r"""Sans-I/O message framing for the Sheepshead wire protocol.

Wire format
-----------
A connection carries a sequence of *frames*.  Each frame is::

    +--------------------------+--------------------------------------+
    | length N (4 bytes, big-  | N bytes: ONE msgpack-encoded map     |
    | endian unsigned integer) | whose keys are all strings           |
    +--------------------------+--------------------------------------+

``N`` counts only the payload (not the 4 header bytes) and must be between 1 and
the receiver's ``max_frame`` (:data:`MAX_FRAME_DEFAULT`, 64 KiB, unless
configured otherwise).  Payloads are packed with ``use_bin_type=True``, so
``str`` and ``bytes`` stay distinct, and are unpacked with ``raw=False``.  Only
plain msgpack types are allowed: nil, booleans, integers, floats, strings, binary,
arrays and maps.  Ext types (including msgpack's timestamp) are rejected.

This module performs no I/O.  :func:`encode` turns a message into bytes for the
transport to write, and a :class:`FrameDecoder` is fed whatever bytes the
transport happened to read, in chunks of any size, and hands back every message
completed so far.  Problems are returned in-line as :class:`FrameError` items so
the caller can answer each one and carry on; only a fatal error (an oversized
frame, which means the stream can no longer be trusted) ends the conversation.

Example
-------
>>> frame = encode({"type": "hello", "version": 1})
>>> frame[:4], len(frame)  # 21-byte payload behind a 4-byte length prefix
(b'\x00\x00\x00\x15', 25)
>>> decoder = FrameDecoder()
>>> decoder.feed(frame[:7])
[]
>>> decoder.buffered
7
>>> decoder.feed(frame[7:])
[{'type': 'hello', 'version': 1}]
>>> decoder.buffered
0
>>> [error] = decoder.feed(b"\x00\x00\x00\x01\xc1")  # 0xc1 is never valid msgpack
>>> error.code, error.fatal
('bad_frame', False)
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any, Final, NoReturn, TypeAlias

import msgpack
import ormsgpack

__all__ = [
    "HEADER_SIZE",
    "MAX_DEPTH_DEFAULT",
    "MAX_FRAME_DEFAULT",
    "FrameDecoder",
    "FrameError",
    "Message",
    "encode",
    "frame",
    "pack",
    "peek",
]

Message: TypeAlias = dict[str, Any]
"""A decoded protocol message: a dict with ``str`` keys and msgpack-native values.

Values are ``None``, ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list`` or
(nested) ``Message``-like dicts.  Tuples given to :func:`encode` come back as lists.
"""

HEADER_SIZE: Final = 4
"""Size in bytes of the big-endian unsigned length prefix of every frame."""

MAX_FRAME_DEFAULT: Final = 64 * 1024
"""Default upper bound, in bytes, on a frame's payload (the header is not counted)."""

MAX_DEPTH_DEFAULT: Final = 16
"""Default upper bound on container nesting; the top-level map is depth 1."""

_MAX_LENGTH: Final = 0xFFFF_FFFF
_HEADER: Final = struct.Struct(">I")
_SCALAR_TYPES: Final = frozenset({type(None), bool, int, float, str, bytes})
# Fragment of the ValueError msgpack raises (in both its C and pure-Python unpackers)
# for a map key that is neither str nor bytes when strict_map_key=True.  Should the
# wording ever change, such frames degrade from ``bad_key`` to ``bad_frame``, which
# is equally safe; tests/protocol/test_framing.py pins the current behaviour.
_STRICT_KEY_FRAGMENT: Final = "not allowed for map key"


class FrameError(Exception):
    """A problem with one incoming frame, reported in-line by :meth:`FrameDecoder.feed`.

    ``code`` is a stable snake_case identifier suitable for sending back to the
    peer; ``message`` is a human-readable explanation; ``fatal`` says whether the
    connection must be closed after reporting the error.  The codes are:

    ``frame_too_large`` (fatal)
        The header declares a payload longer than the decoder accepts.  This is
        reported as soon as the header arrives (the body is never waited for or
        kept), and the decoder is :attr:`~FrameDecoder.broken` from
        then on because the stream cannot be resynchronised cheaply.
    ``bad_frame``
        The payload is empty, is not exactly one valid msgpack value, uses ext
        types, or exceeds the nesting or size limits.
    ``not_a_map``
        The payload is valid msgpack but not a map.
    ``bad_key``
        Some map key in the payload (at any depth) is not a string.

    Only ``frame_too_large`` is fatal: for the others the length prefix was
    honoured, so the framing is still in sync and the next frame decodes normally.
    """

    code: str
    """Stable snake_case error code (see the class docstring)."""

    message: str
    """Human-readable description of the problem."""

    fatal: bool
    """Whether the connection must be closed once the error has been reported."""

    def __init__(self, code: str, message: str, fatal: bool = False) -> None:
        """Create an error with the given ``code``, ``message`` and ``fatal`` flag."""
        super().__init__(code, message, fatal)
        self.code = code
        self.message = message
        self.fatal = fatal

    def __str__(self) -> str:
        """Return ``"code: message"``."""
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        """Return a constructor-style representation."""
        return f"FrameError({self.code!r}, {self.message!r}, fatal={self.fatal!r})"


def _check_max_frame(max_frame: int) -> None:
    if not 1 <= max_frame <= _MAX_LENGTH:
        raise ValueError(f"max_frame must be between 1 and {_MAX_LENGTH}, got {max_frame}")


_PACK_OPTIONS: Final = ormsgpack.OPT_NON_STR_KEYS
"""Keys of any msgpack type, as ``msgpack.packb`` takes them (ormsgpack wants ``str`` keys)."""


def pack(value: Any) -> bytes:
    """``value`` as msgpack: the bytes ``msgpack.packb(value, use_bin_type=True)`` gives.

    Packed by ormsgpack, which does it in less than half msgpack's time (every state the
    server sends is packed for its recipient alone: docs/performance.md). Raises
    ``TypeError`` for a value msgpack cannot hold, and for one nested more than 255 deep
    (msgpack's own limit is 512; a received frame may nest only ``MAX_DEPTH_DEFAULT`` deep).

    >>> pack({"type": "ping", "id": 1}) == msgpack.packb({"type": "ping", "id": 1})
    True
    """
    return ormsgpack.packb(value, option=_PACK_OPTIONS)


def encode(message: Mapping[str, Any], *, max_frame: int = MAX_FRAME_DEFAULT) -> bytes:
    """Serialise ``message`` as one frame: a 4-byte big-endian length, then msgpack.

    ``message`` is packed as ``msgpack.packb(message, use_bin_type=True)`` would; any
    ``Mapping`` is accepted and sent as a msgpack map.  Values must be
    msgpack-serialisable (``TypeError`` otherwise).  Keys are not checked here,
    but a receiving :class:`FrameDecoder` rejects non-string keys with ``bad_key``.

    Raises ``ValueError`` if the packed payload is longer than ``max_frame`` bytes
    (or if ``max_frame`` itself is not between 1 and 2**32 - 1).
    """
    _check_max_frame(max_frame)
    if not isinstance(message, dict):
        message = dict(message)
    return frame(pack(message), max_frame=max_frame)


def frame(payload: bytes, *, max_frame: int = MAX_FRAME_DEFAULT) -> bytes:
    """Put the 4-byte length in front of an already-packed msgpack ``payload``.

    Raises ``ValueError`` if ``payload`` is longer than ``max_frame`` bytes.

    >>> frame(pack({"type": "ping"})) == encode({"type": "ping"})
    True
    """
    if len(payload) > max_frame:
        raise ValueError(
            f"message payload is {len(payload)} bytes, more than max_frame ({max_frame})"
        )
    return _HEADER.pack(len(payload)) + payload


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack ext type {code} is not allowed")


def _bad_frame(reason: str) -> FrameError:
    return FrameError("bad_frame", reason)


def _bad_key(reason: str) -> FrameError:
    return FrameError("bad_key", reason)


def _validate(message: Message, max_depth: int) -> FrameError | None:
    """Check key and value types and nesting depth without recursion.

    Returns the first problem found, or ``None``.  The top-level map is depth 1;
    every nested list or dict adds one.
    """
    stack: list[tuple[dict[Any, Any] | list[Any], int]] = [(message, 1)]
    scalar_types = _SCALAR_TYPES
    while stack:
        container, depth = stack.pop()
        values: Any
        if type(container) is dict:
            for key in container:
                if type(key) is not str:
                    return _bad_key(f"map key of type {type(key).__name__} is not a string")
            values = container.values()
        else:
            values = container
        for value in values:
            kind = type(value)
            if kind is dict or kind is list:
                if depth >= max_depth:
                    return _bad_frame(f"payload is nested more than {max_depth} levels deep")
                stack.append((value, depth + 1))
            elif kind not in scalar_types:
                return _bad_frame(f"values of type {kind.__name__} are not allowed")
    return None


PEEK_ENTRIES: Final = 16
"""How many entries of a map :func:`peek` looks at before it gives up."""

_STR_MARKERS: Final = frozenset([*range(0xA0, 0xC0), 0xD9])
"""First bytes of a msgpack str of at most 255 bytes (fixstr, str 8)."""

_INT_MARKERS: Final = frozenset([*range(0x00, 0x80), *range(0xE0, 0x100), *range(0xCC, 0xD4)])
"""First bytes of a msgpack integer."""


def peek(payload: bytes) -> tuple[str | None, int | None]:
    """The ``type`` and ``id`` of an undecoded frame payload, each None when it cannot tell.

    Only those two values are unpacked, and only when they are a short string and an integer;
    everything else is skipped over without building any object, which costs a small fraction
    of decoding it. So a receiver can refuse a frame that is too big for its type, or answer a
    frame it will not decode, with the request's own id. Never raises.

    >>> peek(pack({"id": 7, "text": [[]] * 1000, "type": "chat"}))
    ('chat', 7)
    >>> peek(b"\\xc1")
    (None, None)
    """
    kind: str | None = None
    id: int | None = None
    try:
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=max(1, len(payload)))
        unpacker.feed(payload)
        entries = unpacker.read_map_header()
        for _ in range(min(entries, PEEK_ENTRIES)):
            key = None
            if payload[unpacker.tell()] in _STR_MARKERS:
                key = unpacker.unpack()
            else:
                unpacker.skip()
            if key == "type" and payload[unpacker.tell()] in _STR_MARKERS:
                value = unpacker.unpack()
                kind = value if type(value) is str else None
            elif key == "id" and payload[unpacker.tell()] in _INT_MARKERS:
                value = unpacker.unpack()
                id = value if type(value) is int else None
            else:
                unpacker.skip()
            if kind is not None and id is not None:
                break
    except Exception:  # not a map, cut short, not msgpack: tell what was found so far
        pass
    return kind, id


class FrameDecoder:
    """Incremental, sans-I/O decoder for a stream of frames.

    Feed it bytes as they arrive with :meth:`feed`; it buffers incomplete frames
    and returns every complete one, decoded.  Limits:

    ``max_frame``
        Largest accepted payload, in bytes.  A header declaring more yields a
        fatal ``frame_too_large`` as soon as the 4 header bytes have arrived,
        before any of the body is buffered.
    ``max_buffer``
        Largest number of bytes kept buffered for an incomplete frame, header
        included.  ``None`` (the default) means ``HEADER_SIZE + max_frame``, which
        imposes nothing beyond ``max_frame``; a smaller value lowers the effective
        frame limit to ``max_buffer - HEADER_SIZE``.  Must exceed ``HEADER_SIZE``.
    ``max_depth``
        Deepest container nesting accepted (the top-level map is depth 1).
    ``trusted``
        Skip the walk over every decoded value that enforces ``max_depth`` and
        string-only keys (the size limits, and the refusal of ext types and of
        anything but a map at the top, still apply).  Only for a peer that
        cannot be hostile, such as a benchmark's own server; it roughly halves
        the decoding time of a large frame.

    After a fatal error the decoder is :attr:`broken`: it drops its buffer,
    ignores further input and :meth:`feed` returns ``[]``.
    """

    __slots__ = ("_broken", "_buffer", "_max_depth", "_max_frame", "_trusted")

    def __init__(
        self,
        *,
        max_frame: int = MAX_FRAME_DEFAULT,
        max_buffer: int | None = None,
        max_depth: int = MAX_DEPTH_DEFAULT,
        trusted: bool = False,
    ) -> None:
        """Create a decoder; see the class docstring for the meaning of the limits."""
        _check_max_frame(max_frame)
        if max_buffer is not None:
            if max_buffer <= HEADER_SIZE:
                raise ValueError(f"max_buffer must exceed {HEADER_SIZE}, got {max_buffer}")
            max_frame = min(max_frame, max_buffer - HEADER_SIZE)
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, got {max_depth}")
        self._max_frame = max_frame
        self._max_depth = max_depth
        self._trusted = trusted
        self._buffer = bytearray()
        self._broken = False

    @property
    def broken(self) -> bool:
        """Whether a fatal error occurred; a broken decoder ignores all input."""
        return self._broken

    @property
    def buffered(self) -> int:
        """Number of received bytes waiting for the rest of their frame."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Message | FrameError]:
        """Consume ``data`` and return what it completed, in stream order.

        Each complete frame yields either its decoded :data:`Message` or a
        :class:`FrameError`; errors are returned, never raised.  Bytes of an
        incomplete frame are kept for the next call.  After a fatal error the
        remaining input is discarded, and a broken decoder returns ``[]``.
        ``data`` (bytes, bytearray or memoryview) is not retained after the call.
        """
        return [
            item if isinstance(item, FrameError) else self.decode(item) for item in self.split(data)
        ]

    def split(self, data: bytes | bytearray | memoryview) -> list[bytes | FrameError]:
        """Like :meth:`feed`, but each complete frame's payload is returned undecoded.

        For a receiver that decides, from a payload's size (and :func:`peek`), whether it is
        worth decoding at all; :meth:`decode` then decodes the ones it keeps.

        >>> FrameDecoder().split(encode({"type": "ping", "id": 1}) + b"\\x00\\x00")
        [b'\\x82\\xa4type\\xa4ping\\xa2id\\x01']
        """
        if self._broken:
            return []
        if isinstance(data, memoryview):
            data = data.tobytes()
        # Parse straight out of ``data`` when nothing is pending (the common case),
        # otherwise out of the buffer.  Either way walk with an offset and drop the
        # consumed prefix once at the end, so many small frames cost linear time.
        source: bytes | bytearray
        if self._buffer:
            self._buffer += data
            source = self._buffer
        else:
            source = data
        results: list[bytes | FrameError] = []
        end = len(source)
        offset = 0
        max_frame = self._max_frame
        while end - offset >= HEADER_SIZE:
            (length,) = _HEADER.unpack_from(source, offset)
            if length > max_frame:
                results.append(
                    FrameError(
                        "frame_too_large",
                        f"frame declares {length} bytes, more than the {max_frame}-byte limit",
                        fatal=True,
                    )
                )
                self._broken = True
                self._buffer = bytearray()
                return results
            start = offset + HEADER_SIZE
            stop = start + length
            if stop > end:
                break
            results.append(bytes(source[start:stop]))
            offset = stop
        if source is self._buffer:
            del self._buffer[:offset]
        elif offset < end:
            self._buffer = bytearray(source[offset:])
        return results

    def decode(self, body: bytes | bytearray) -> Message | FrameError:
        """Decode and validate one frame payload (as :meth:`split` returns it)."""
        if not body:
            return _bad_frame("frame is empty")
        size = len(body)
        try:
            # Nothing inside a payload can be longer than the payload itself, and
            # every map entry takes at least two bytes.
            value = msgpack.unpackb(
                body,
                raw=False,
                strict_map_key=True,
                ext_hook=_reject_ext,
                max_str_len=size,
                max_bin_len=size,
                max_array_len=size,
                max_map_len=size // 2,
                max_ext_len=0,
            )
        except ValueError as exc:
            # Covers ExtraData, FormatError, StackError, OutOfData, UnicodeDecodeError,
            # size limits and the ext hook, as well as strict_map_key violations.
            detail = str(exc) or type(exc).__name__
            if _STRICT_KEY_FRAGMENT in detail:
                return _bad_key(f"map key is not a string ({detail})")
            return _bad_frame(f"payload is not exactly one valid msgpack value ({detail})")
        except Exception as unexpected:  # defensive: TypeError, RecursionError, MemoryError...
            return _bad_frame(f"payload could not be decoded ({type(unexpected).__name__})")
        if type(value) is not dict:
            return FrameError(
                "not_a_map", f"payload decodes to a {type(value).__name__}, not a map"
            )
        if self._trusted:
            return value
        problem = _validate(value, self._max_depth)
        if problem is not None:
            return problem
        return value
