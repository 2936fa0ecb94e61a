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

HANDS_KEPT: Final = 64
"""Finished hands of the current match a table keeps packed in memory, the newest: older ones
are read from the store when asked for, as a restored match's are (:class:`MatchHistory`).
64 covers what is asked for often, at no cost of the store: more than a full ``history`` page
of the newest hands (a 64 KiB frame holds some 34-50 entries with their ``fair`` maps), the
coach's ``review`` of the last hands, a bot runner's hands missed while it reconnected. A page
from an older hand holds at most ``history_earlier_hands`` (each read and replayed, ~0.16 ms a
hand). Kept, an entry costs ~1.3 KB (1,290 B packed on average, 1,323 B as a bytes object),
so at most ~85 KB a table whatever its match's length: before the bound an open-ended table
grew by every hand it played (docs/security.md)."""

HISTORY_MARGIN: Final = 1024
"""Bytes of a ``history`` reply's frame kept for its other fields: the hands and lines it
carries take at most ``max_frame`` less this (the reply must fit one frame)."""


class MatchHistory:
    """The ``history`` entries of the current match's finished hands, in order: the first
    :attr:`stored` read from the store as they are asked for (a restored table's hands that
    finished before the restart, and those that finished more than ``keep`` hands ago), the
    rest kept packed as they finish. Without ``read`` (nowhere to read from) every hand is
    kept.

    ``read(start)`` yields the current match's stored entries from hand ``start`` on (number
    and packed entry), in order; ``keep`` (default :data:`HANDS_KEPT`) bounds the hands kept."""

    def __init__(
        self,
        read: Callable[[int], Generator[tuple[int, bytes], None, None]] | None = None,
        keep: int | None = None,
    ) -> None:
        self.stored = 0
        """Hands read from the store (hands 0 to ``stored - 1``)."""
        self._kept: list[bytes] = []
        self._read = read
        self._keep = max(1, HANDS_KEPT if keep is None else keep)

    def __len__(self) -> int:
        """The match's finished hands."""
        return self.stored + len(self._kept)

    @property
    def kept(self) -> int:
        """Finished hands kept in memory (at most ``keep`` when there is a store to read)."""
        return len(self._kept)

    def append(self, entry: bytes) -> None:
        """Keep the packed entry of the hand that has just finished (the next number); the
        oldest kept one is left to the store once more than ``keep`` are (it was stored when it
        finished)."""
        self._kept.append(entry)
        if self._read is not None and len(self._kept) > self._keep:
            del self._kept[0]
            self.stored += 1

    def clear(self) -> None:
        """A new match: no finished hand."""
        self.stored = 0
        self._kept.clear()

    def restored(self, count: int) -> None:
        """The match's first ``count`` hands finished before a restart: they are read from the
        store (there must be one to read)."""
        if self._read is None:
            raise ValueError("a restored match's hands need a store to read them from")
        self.clear()
        self.stored = count

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
