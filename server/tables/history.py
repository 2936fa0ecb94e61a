"""A table's ``history``: the finished hands of the current match and its last chat and notice
lines, kept packed (bytes, so the garbage collector never walks them), the entries of an
earlier match rebuilt from its stored records (:func:`stored_entry`), and the reply that
carries them (PROTOCOL.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from typing import Any, Final

import msgpack

from engine.match import Match
from engine.record import hand_from_record
from engine.scoring import HandResult
from protocol import events as m
from protocol.framing import pack
from server.storage.store import AWAY_CODES

LINES_KEPT: Final = 50
"""Chat and notice events a table keeps for the ``history`` reply."""

HISTORY_MARGIN: Final = 1024
"""Bytes of a ``history`` reply's frame kept for its other fields: the hands and lines it
carries take at most ``max_frame`` less this (the reply must fit one frame)."""


class MatchHistory:
    """The ``history`` entries of the current match's finished hands, in order: the first
    :attr:`stored` read from the store as they are asked for (a restored table's hands that
    finished before the restart: a restore keeps nothing of them, so it costs neither time nor
    memory per finished hand), the rest kept packed as they finish."""

    def __init__(self) -> None:
        self.stored = 0
        """Hands read from the store (hands 0 to ``stored - 1``)."""
        self._kept: list[bytes] = []
        self._read: Callable[[int], Generator[tuple[int, bytes], None, None]] | None = None

    def __len__(self) -> int:
        """The match's finished hands."""
        return self.stored + len(self._kept)

    def append(self, entry: bytes) -> None:
        """Keep the packed entry of the hand that has just finished (the next number)."""
        self._kept.append(entry)

    def clear(self) -> None:
        """A new match: no finished hand."""
        self.stored = 0
        self._kept.clear()
        self._read = None

    def restored(
        self, count: int, read: Callable[[int], Generator[tuple[int, bytes], None, None]]
    ) -> None:
        """The match's first ``count`` hands finished before a restart: ``read(start)`` yields
        the stored entries from hand ``start`` on (number and packed entry), in order."""
        self.clear()
        self.stored = count
        self._read = read

    def entries(self, start: int) -> Generator[tuple[int, bytes], None, None]:
        """Each finished hand's number and packed entry from hand ``start`` on, as taken."""
        if start < self.stored and self._read is not None:
            with contextlib.closing(self._read(start)) as stored:
                for number, entry in stored:
                    if number >= self.stored:
                        break
                    yield number, entry
        for number in range(max(start, self.stored), len(self)):
            yield number, self._kept[number - self.stored]

    def __getitem__(self, number: int) -> bytes:
        """The packed entry of finished hand ``number``."""
        if not 0 <= number < len(self):
            raise IndexError(number)
        for _, entry in self.entries(number):
            return entry
        raise IndexError(number)  # a stored hand missing from the store


def history_reply(
    *,
    table: str,
    match: int,
    hands_played: Iterable[tuple[int, bytes]],
    lines: Sequence[bytes] | None,
    start: int,
    max_frame: int,
    fair: Callable[[int], dict[str, Any] | None] | None = None,
    max_hands: int | None = None,
) -> dict[str, Any]:
    """The ``ok`` fields answering ``history``: finished hands of match ``match`` from
    ``start`` on, as many as fit a frame, and (from the start, unless ``lines`` is None: an
    earlier match) the last chat and notices.

    ``hands_played`` yields each finished hand from ``start`` on, in order: its number and
    packed entry; it is read only as far as the frame has room (plus one hand), so a caller
    may build the entries as they are taken. ``fair(n)`` is hand ``n``'s commit–reveal map
    (PROTOCOL.md §13), put in its record as the server stores it, so a record taken from the
    reply verifies as it comes once the seeds are revealed; its bytes count against the frame
    like the rest. ``max_hands`` (None: as many as fit) bounds the hands of a page whose
    entries cost more to build than to send (an earlier match's)."""
    budget = max_frame - HISTORY_MARGIN
    out: dict[str, Any] = {"table": table, "match": match}
    if start == 0 and lines is not None:
        # The newest lines that fit half the frame (50 long chat lines could fill it).
        kept: list[bytes] = []
        room = budget // 2
        for line in reversed(lines):
            room -= len(line)
            if room < 0:
                break
            kept.append(line)
        out["lines"] = [msgpack.unpackb(line, raw=False) for line in reversed(kept)]
        budget -= sum(len(line) for line in kept)
    hands: list[Any] = []
    following: int | None = None
    for number, packed in hands_played:
        if max_hands is not None and len(hands) >= max_hands:
            following = number
            break
        fair_map = fair(number) if fair is not None else None
        budget -= len(packed) + (len(pack(fair_map)) if fair_map is not None else 0)
        if budget < 0 and hands:
            following = number
            break
        entry = msgpack.unpackb(packed, raw=False)
        if fair_map is not None:
            entry["record"]["fair"] = fair_map
        hands.append(entry)
    out["hands"] = hands
    out["next"] = following
    return out


def history_entry(
    match: Match,
    number: int,
    names: Sequence[str],
    strategies: Sequence[str | None] | None = None,
    made_for: Mapping[str, Sequence[int]] | None = None,
) -> bytes:
    """The packed ``history`` entry of hand ``number`` of ``match``, which has just ended,
    played by the seats' ``names``; ``strategies`` (each seat's server bot strategy or None;
    None: not known) goes into its record as docs/hand-record.md's ``strategies``, and
    ``made_for`` (the actions a stand-in or the turn timer made for a person; None or empty:
    none) as its ``made_for``."""
    result = match.results[-1]
    record = match.records[-1]
    if strategies is not None:
        record = {**record, "strategies": list(strategies)}
    if made_for:
        record = {**record, "made_for": {by: list(places) for by, places in made_for.items()}}
    return _packed_entry(number, names, record, list(result.payouts or ()), match.totals, result)


def stored_entry(
    number: int,
    record: dict[str, Any],
    payouts: Sequence[int],
    names: Sequence[str],
    totals: Sequence[int],
) -> bytes:
    """The packed ``history`` entry of hand ``number`` of an earlier match, from its stored
    ``record`` and ``payouts`` (docs/hand-record.md; the record as the server stored it, which
    is what the entry carried while that match was the table's), the seats' ``names`` then and
    the running ``totals`` after it. Its result (picker, partner, outcome...) is the record's
    replay: the store keeps the record and the payouts, not the rest of the entry."""
    result = hand_from_record(record).result()
    return _packed_entry(number, names, record, list(payouts), list(totals), result)


def _packed_entry(
    number: int,
    names: Sequence[str],
    record: dict[str, Any],
    payouts: list[int],
    totals: list[int],
    result: HandResult,
) -> bytes:
    """The packed ``history`` entry of hand ``number``: the hand's ``record``, ``payouts``
    and running ``totals``, and what its ``result`` says of who played which part."""
    entry = m.history_entry(
        hand=number,
        names=names,
        record=record,
        payouts=payouts,
        totals=totals,
        picker=result.picker,
        partner=result.partner,
        alone=result.alone,
        leaster=result.leaster,
        doubler=result.doubler,
        picker_side_points=result.picker_side_points,
        outcome=str(result.outcome),
    )
    return pack(entry)


def away_told(code: str) -> bool | None:
    """Whether a notice with ``code`` tells its seat's player away (True), back (False), or
    neither (None): what the seat's stored ``away`` becomes (``joined`` and ``left`` replace or
    empty the seat's row, which starts not away).

    >>> away_told("standin"), away_told("reconnected"), away_told("joined")
    (True, False, None)
    """
    if code in AWAY_CODES:
        return True
    return False if code == "reconnected" else None
