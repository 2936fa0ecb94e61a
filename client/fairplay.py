"""The client's side of commit–reveal deals (PROTOCOL.md §13): seeds it sends, deals it checks.

When a ``commitment`` arrives the client answers with 32 random bytes of its own; when the match
is over, ``seeds_revealed`` arrives and every hand the client saw dealt is recomputed from the
revealed seeds (:mod:`engine.fairdeal`). Nothing here does I/O: the app sends and shows.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import NUM_SEATS
from engine.fairdeal import SCHEME, SEED_BYTES, Verdict, check_deal, first_dealer, parse_seed
from engine.fairdeal import summary as verdict_summary
from protocol.events import Commitment, RevealedCommitment, SeedsRevealed, State

AWAY = "while this client was away"
"""Why a commitment dealing a hand dealt while the connection was down was not shown here."""

TO_THE_END = 2**31 - 1
"""The last hand of a window that runs to its match's end (a match left while away)."""


def unwitnessed_note(numbers: list[int], when: str) -> str:
    """The verdict's note on the commitments (dealing from hands ``numbers``, counted from 1)
    published ``when`` this client was not there to see them.

    >>> unwitnessed_note([1, 3], "before you came")[:54]
    ' (the commitments dealing from hands 1 and 3 were publ'
    """
    if len(numbers) == 1:
        return (
            f" (the commitment dealing from hand {numbers[0]} was published {when}, so it"
            " was not witnessed here)"
        )
    # "from hand 1, 3 was published" read as one hand numbered "1, 3" (seen after a door
    # restart put a client back in a match whose seed was committed again).
    hands = ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"
    return (
        f" (the commitments dealing from hands {hands} were published {when}, so they"
        " were not witnessed here)"
    )


@dataclass(frozen=True, slots=True)
class DealSeen:
    """A hand as :meth:`DealChecker.check` reads it, for a client without
    ``client.model.FinishedHand`` (the bot runner): its number counting from 1, the
    ``hand_over`` reveal (``hands``, ``blind``) and its view (the ``dealer``), if seen."""

    number: int
    reveal: Mapping[str, Any]
    view: Mapping[str, Any] | None = None


class DealChecker:
    """What one client needs to check its table's deals: the commitments it was shown and the
    seed it sent for each."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        """Every commitment published to this client."""
        self.sent: dict[str, tuple[int, str]] = {}
        """Commitment -> (seat, seed in hex) that this client sent for it."""
        self.revealed: list[RevealedCommitment] = []
        """The entries of the last ``seeds_revealed``."""
        self.revealed_match: int | None = None
        """The match whose reveal :attr:`revealed` is (None: not known)."""
        self.table: str | None = None
        """The table of the last ``state``."""
        self.last_dealt: int | None = None
        """The hand of the last ``state`` if it was dealt (-1: before the first deal; None: no
        state of :attr:`table` yet)."""
        self.match: int | None = None
        """The table's match (``history``'s ``match``, :meth:`on_match`) since the last
        reconnect or reveal; None while it is not known."""
        self.left_at: tuple[int, int | None] | None = None
        """Set by :meth:`reconnected`: (:attr:`last_dealt`, :attr:`match`) when the connection
        dropped, until the reconnect's snapshot ``state`` says where this client is back."""
        self.returns: list[tuple[int, int, int | None]] = []
        """(last hand seen before the drop, hand back at, match left) of each reconnect whose
        match is not known yet (:meth:`on_match` places its window in :attr:`excused`)."""
        self.excused: list[tuple[int, int, str, int | None]] = []
        """(first, last hand, 0-based and inclusive; when; match, None while not known) of the
        hands whose commitment may not have been shown to this client: those up to the hand it
        came in at (``before this client came``: a restarted client is not told it again) and
        those dealt while its connection was down (``while this client was away``: a reconnect
        is sent only one still collecting seeds): back in the match it left, from the hand
        after the last one it saw; back in a later match (a rematch began meanwhile), that
        match's from its first hand and the rest of the match it left. An unseen commitment
        that first dealt one of them is no sign of a dishonest server; any other is."""
        self.results: dict[int, tuple[bool | None, str | None]] = {}
        """Match number -> (:attr:`verified`, :attr:`said`) of its check, for each match of
        the table whose deals were checked (from its reveal, or from its records)."""
        self.verified: bool | None = None
        """What the last :meth:`check` found: True when no deal failed (every deal verified, or
        some could not be checked: the sentence says which), False when one did not verify,
        None when there was nothing to verify."""
        self.said: str | None = None
        """The last :meth:`check`'s sentence, None while there was nothing to verify."""
        self.said_of: int | None = None
        """The match of the last :meth:`check` (None: not known)."""

    def on_state(self, msg: State) -> None:
        """Note where this client is at the table (a ``state`` event): where it came in, or
        where it is back after :meth:`reconnected`."""
        table = msg.get("table")
        if table != self.table:
            self.table, self.last_dealt, self.left_at, self.excused = str(table), None, None, []
            self.match, self.returns, self.results = None, [], {}
        hand = msg.get("hand")
        here = hand if msg.get("view") is not None and isinstance(hand, int) else -1
        if self.last_dealt is None:
            self.excused.append((0, here, "before this client came", None))
        elif self.left_at is not None:
            # The hands dealt after the last one seen here were dealt while away, if this is
            # still that match: a new one may have begun meanwhile (hands count from 0 again),
            # which only the match number tells (on_match).
            last, match = self.left_at
            self.returns.append((last, here, match))
        self.left_at = None
        self.last_dealt = here

    def on_match(self, match: int) -> None:
        """The table's match number, as learned from ``history`` (at the first state and again
        after each reconnect): a client back in the match it left excuses only the hands
        dealt while it was away; back in a later match, that one's from its first hand and
        the rest of the match it left."""
        self.match = match
        # A window whose match was not known is this one's (where the client came in).
        self.excused = [(a, b, why, match if of is None else of) for a, b, why, of in self.excused]
        for last, here, left in self.returns:
            if left == match:
                self.excused.append((last + 1 if here >= last else 0, here, AWAY, match))
                continue
            self.excused.append((0, here, AWAY, match))
            if left is not None:
                self.excused.append((last + 1, TO_THE_END, AWAY, left))
        self.returns = []

    def reconnected(self) -> None:
        """The connection came back (same process): a commitment published and locked while
        this client was away was not sent to it (PROTOCOL.md §13: a reconnect is sent only one
        still collecting seeds), so the next ``state``, the reconnect's snapshot, excuses the
        hands dealt since the last one seen here; a commitment published before the drop was
        shown to this client and is still expected."""
        if self.last_dealt is not None:
            self.left_at = (self.last_dealt, self.match)
        self.match = None  # known again when the caller learns it after the reconnect

    def fair_for(self, hand: int, match: int | None = None) -> dict[str, Any] | None:
        """The record ``fair`` map of hand number ``hand`` (0-based), once revealed (of match
        ``match`` when given: an earlier match's reveal does not cover the next one's hands)."""
        if match is not None and self.revealed_match not in (None, match):
            return None
        return fair_of(self.revealed, hand)

    def on_commitment(self, msg: Commitment) -> str | None:
        """Note a published commitment; return it if it is well formed (then answer it)."""
        quoted = msg.get("commitment")
        if not isinstance(quoted, str) or len(quoted) != 2 * SEED_BYTES:
            return None
        self.seen.add(quoted)
        return quoted

    def new_seed(self, quoted: str, seat: int) -> str:
        """A fresh random client seed (hex) for ``quoted``, remembered for the check."""
        seed = secrets.token_bytes(SEED_BYTES).hex()
        self.sent[quoted] = (seat, seed)
        return seed

    def check(
        self,
        msg: SeedsRevealed,
        hands: Iterable[Any],
        unchecked: Mapping[int, str] | None = None,
        *,
        match: int | None = None,
    ) -> str:
        """Check every finished hand (``client.model.FinishedHand``) against ``seeds_revealed``:
        ``all N deals verified`` or the first hand that fails (and :attr:`verified`).

        ``unchecked``: the hands of the match (0-based) that this client could not check, each
        with why (their records never came); the sentence names them when no hand fails, and
        they are no failure (:attr:`verified` stays True). ``match``: an earlier match than
        the current one (:attr:`match`), whose reveal this client missed (its hands are those
        of that match)."""
        entries = [e for e in msg.get("commitments") or [] if isinstance(e, Mapping)]
        current = match is None or match == self.match
        of = self.match if match is None else match
        if current:  # an earlier match's hands are no longer held to be exported
            self.revealed, self.revealed_match = entries, of
        verdicts: list[Verdict] = []
        unwitnessed: dict[int, str] = {}
        # A window counts from its first hand only when its match is known to be this one;
        # with either not known, from the match's first hand (never a false alarm).
        excused = [
            (first if of is not None and match_of == of else 0, last, when)
            for first, last, when, match_of in self.excused
            if of is None or match_of in (None, of)
        ]
        excused += [(0, here, AWAY) for _, here, _ in self.returns]
        # The match is over: at the table's next one this client is there from the first
        # deal, so where it came in to this one, and where it was away, excuse nothing there;
        # its number is learned again. An earlier match's windows stay for its own check,
        # which may come after this one (its records are fetched).
        self.excused = [w for w in self.excused if w[3] is not None and w[3] != of]
        if current:
            self.returns, self.match = [], None
        for entry in entries:
            quoted = entry.get("commitment")
            if quoted not in self.seen:
                first = entry.get("first_hand")
                hand = first if isinstance(first, int) else -1
                when = next((w for a, b, w in excused if 0 <= a <= hand <= b), None)
                if when is not None:
                    unwitnessed[hand] = when
                else:
                    verdicts.append(Verdict(hand, False, "its commitment was never published"))
            sent = self.sent.get(str(quoted))
            seeds = entry.get("client_seeds")
            if sent is not None and isinstance(seeds, list) and len(seeds) == NUM_SEATS:
                seat, seed = sent
                if seeds[seat] != seed:
                    first = entry.get("first_hand")
                    hand = first if isinstance(first, int) else -1
                    verdicts.append(Verdict(hand, False, "the seed this client sent was not used"))
        base = _first_dealer(entries)
        for finished in hands:
            number = int(finished.number) - 1
            covering = _covering(entries, number)
            if covering is None:
                verdicts.append(Verdict(number, False, "no revealed seed covers it"))
                continue
            entry = covering
            fair = _fair_map(entries, entry, number)
            reveal = finished.reveal or {}
            view = finished.view or {}
            dealer = view.get("dealer")
            if not isinstance(dealer, int):
                dealer = (base + number) % NUM_SEATS if base is not None else 0
            verdicts.append(
                check_deal(
                    fair,
                    dealer,
                    list(reveal.get("hands") or []),
                    list(reveal.get("blind") or []),
                    seen_commitment=str(entry.get("commitment")),
                )
            )
        for number, why in sorted((unchecked or {}).items()):
            verdicts.append(Verdict(number, False, why, incomplete=True))
        if not verdicts:
            self.verified = self.said = None
            self._note_result(of)
            return "no deals to verify"
        self.verified = all(verdict.ok or verdict.incomplete for verdict in verdicts)
        said = verdict_summary(verdicts)
        if unwitnessed and self.verified:
            for when in dict.fromkeys(unwitnessed.values()):
                said += unwitnessed_note(
                    [h + 1 for h in sorted(unwitnessed) if unwitnessed[h] == when], when
                )
        self.said = said
        self._note_result(of)
        return said

    def check_earlier(
        self,
        match: int,
        table: str,
        held: Iterable[Any],
        entries: Sequence[Mapping[str, Any]],
        why: str | None,
        from_entry: Callable[[Mapping[str, Any]], Any],
    ) -> str:
        """Check the deals of ``match``, an earlier match of ``table`` that ended while this
        client was away (its reveal was not sent here; the next one does not cover its
        hands), against the seeds its records carry: ``entries``, ``history``'s of that match,
        or ``why`` they did not come. The hands checked are those of it ``held`` (seen here, as
        :meth:`check` takes them) and the rest from ``entries`` (each made a hand by
        ``from_entry``, which raises ValueError for one it cannot read: that one is left out).
        What cannot be checked is said so (the records did not come, or carry no seeds),
        never a failure."""
        hands = {hand.number: hand for hand in held}
        for entry in entries:
            number = entry.get("hand")
            if isinstance(number, int) and number + 1 not in hands:
                with contextlib.suppress(ValueError):
                    hands[number + 1] = from_entry(entry)
        reveal = reveal_of_entries(table, entries)
        if why is None:
            unchecked = unrevealed(reveal, hands.values())
        else:
            unchecked = {n - 1: f"the seeds were not revealed here: {why}" for n in hands}
        checked = [hand for n, hand in sorted(hands.items()) if n - 1 not in unchecked]
        return self.check(reveal, checked, unchecked, match=match)

    def _note_result(self, match: int | None) -> None:
        """Keep the check just made as match ``match``'s (None: not known)."""
        self.said_of = match
        if match is not None:
            self.results[match] = (self.verified, self.said)

    def result_for(self, match: int | None) -> tuple[bool | None, str | None]:
        """(:attr:`verified`, :attr:`said`) of match ``match``'s check: (None, None) before
        it, or while ``match`` is not known and the last check was of a known match (the
        match-over panel shows a match's own verdict, not an earlier one's)."""
        if match is not None and match in self.results:
            return self.results[match]
        if self.said_of is None:
            return self.verified, self.said
        return None, None


def reveal_from_records(table: str, records: Iterable[Mapping[str, Any]]) -> SeedsRevealed:
    """The ``seeds_revealed`` of a match, rebuilt from the server's records of its finished
    hands, for a client that missed the event (away at the match's end): once the match is
    over each record's ``fair`` map carries its commitment's revealed seeds (PROTOCOL.md §13).
    One entry per commitment that a record with its server seed names, from its first hand to
    the last such record; a record without one adds nothing."""
    entries: dict[str, RevealedCommitment] = {}
    for record in records:
        fair = record.get("fair")
        if not isinstance(fair, Mapping):
            continue
        quoted, seed = fair.get("commitment"), fair.get("server_seed")
        hand, first = fair.get("hand"), fair.get("first_hand")
        if not (isinstance(quoted, str) and isinstance(seed, str)):
            continue
        if not (isinstance(hand, int) and isinstance(first, int)):
            continue
        entry = entries.get(quoted)
        if entry is not None:
            entry["last_hand"] = max(entry["last_hand"], hand)
            continue
        entries[quoted] = {
            "commitment": quoted,
            "server_seed": seed,
            "first_hand": first,
            "last_hand": hand,
            "client_seeds": list(fair.get("client_seeds") or []),
            "sources": list(fair.get("sources") or []),
        }
    ordered = sorted(entries.values(), key=lambda entry: entry["first_hand"])
    return {"type": "seeds_revealed", "table": table, "commitments": ordered}


def reveal_of_entries(table: str, entries: Iterable[Mapping[str, Any]]) -> SeedsRevealed:
    """The reveal rebuilt from the records of ``history`` ``entries`` that carry one."""
    records = (entry.get("record") for entry in entries)
    return reveal_from_records(table, [record for record in records if record])


def uncovered(reveal: SeedsRevealed, hands: Iterable[int]) -> list[int]:
    """The hands of ``hands`` (numbers from 0) that no commitment of ``reveal`` dealt."""
    entries = [e for e in reveal.get("commitments") or [] if isinstance(e, Mapping)]
    return [hand for hand in hands if _covering(entries, hand) is None]


def unrevealed(reveal: SeedsRevealed, hands: Iterable[Any]) -> dict[int, str]:
    """The ``hands`` (each with its ``number`` from 1, as :meth:`DealChecker.check` takes
    them; the keys count from 0) that a reveal rebuilt from records does not cover, with why:
    their records carried no revealed seed (checked, they would not verify: a false alarm)."""
    why = "the server's record of it carries no revealed seed"
    return dict.fromkeys(uncovered(reveal, [hand.number - 1 for hand in hands]), why)


def fair_of(entries: Sequence[RevealedCommitment], hand: int) -> dict[str, Any] | None:
    """The record ``fair`` map of hand ``hand`` (0-based) from a reveal's ``entries``
    (``seeds_revealed``'s ``commitments``); None when none of them covers it."""
    entry = _covering(entries, hand)
    return None if entry is None else _fair_map(entries, entry, hand)


def _covering(entries: Sequence[RevealedCommitment], hand: int) -> RevealedCommitment | None:
    for entry in entries:
        first, last = entry.get("first_hand"), entry.get("last_hand")
        if isinstance(first, int) and isinstance(last, int) and first <= hand <= last:
            return entry
    return None


def _fair_map(
    entries: Sequence[RevealedCommitment], entry: RevealedCommitment, hand: int
) -> dict[str, Any]:
    """Hand ``hand``'s record ``fair`` map from the revealed ``entry`` that covers it, as the
    server's records have it: a later commitment's hand also carries the match's first seed,
    which names its dealer (PROTOCOL.md §13)."""
    keys = ("commitment", "first_hand", "client_seeds", "sources", "server_seed")
    out = {"scheme": SCHEME, "hand": hand, **{k: entry.get(k) for k in keys}}
    first = _covering(entries, 0)
    if first is not None and first is not entry:
        out["match_commitment"] = first.get("commitment")
        out["match_server_seed"] = first.get("server_seed")
    return out


def _first_dealer(entries: Sequence[RevealedCommitment]) -> int | None:
    entry = _covering(entries, 0)
    seed = parse_seed(entry.get("server_seed")) if entry is not None else None
    return first_dealer(seed) if seed is not None else None
