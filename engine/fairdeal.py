"""Commit–reveal deals (``sheepshead-fair/1``): the pure part, deal seeds and their verification.

The scheme, exactly as PROTOCOL.md §13 writes it down:

- The server draws a 32-byte ``server_seed`` and publishes ``commitment = sha256(server_seed)``
  (lowercase hex) before it has seen any client seed for it.
- Every seated person's client answers with a random 32-byte client seed. A seat whose seed is
  not in when the deal is made (a bot, or a client that did not answer in time) gets
  :func:`derived_seed` from the server seed, and is marked ``bot`` or ``drawn``.
- The deal of hand ``n`` (0-based, the match's hand number) is the engine's seeded shuffle
  (:meth:`engine.hand.Deal.from_seed`) of the integer, big-endian, of
  ``HMAC-SHA256(key=server_seed, msg=client_seed[0] || ... || client_seed[4] || n as 4 bytes
  big-endian)``.
- The first dealer of the match is :func:`first_dealer` of the first commitment's seed; the
  deal then passes left one seat a hand.
- When the match ends, the server reveals every ``server_seed``; anyone recomputes each deal.

>>> seed = bytes(32)
>>> seeds = [derived_seed(seed, s) for s in range(5)]
>>> deal_seed(seed, seeds, 0) == deal_seed(seed, seeds, 0) != deal_seed(seed, seeds, 1)
True
>>> commitment(seed)[:16]
'66687aadf862bd77'
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.actions import NUM_SEATS
from engine.cards import CARD_CODES, cards_in
from engine.hand import Deal

SCHEME: Final = "sheepshead-fair/1"
"""The ``scheme`` value of every commitment and record ``fair`` map this module reads."""

SEED_BYTES: Final = 32
"""Length of a server seed and of a client seed (64 hex digits on the wire)."""

SOURCES: Final = ("client", "bot", "drawn")
"""Where a seat's client seed came from: its client, derived for a bot, derived for a person
whose client did not send one in time."""


NOT_REVEALED: Final = (
    "the server seed is not revealed in the record: it was saved before the match ended (the"
    " server reveals its seeds then) and not completed afterwards"
)
"""Why a record whose ``fair`` map lacks ``server_seed`` cannot be checked (yet)."""

NO_FAIR_DATA: Final = (
    "the record carries no commit–reveal data (fair): it was saved before the match ended (the"
    " server reveals its seeds then) and not completed afterwards, or by a program that keeps"
    " none"
)
"""Why a record without a ``fair`` map cannot be checked."""


def commitment(server_seed: bytes) -> str:
    """``sha256(server_seed)`` in lowercase hex: what the server publishes before the deal."""
    return hashlib.sha256(server_seed).hexdigest()


def derived_seed(server_seed: bytes, seat: int) -> bytes:
    """The client seed the server uses for ``seat`` when no client gave one:
    ``HMAC-SHA256(server_seed, b"sheepshead-seat" || seat as 1 byte)``."""
    return hmac.new(server_seed, b"sheepshead-seat" + bytes([seat]), hashlib.sha256).digest()


def first_dealer(server_seed: bytes) -> int:
    """The match's first dealer: ``HMAC-SHA256(server_seed, b"sheepshead-dealer")`` as a
    big-endian integer, modulo 5."""
    digest = hmac.new(server_seed, b"sheepshead-dealer", hashlib.sha256).digest()
    return int.from_bytes(digest, "big") % NUM_SEATS


def deal_seed(server_seed: bytes, client_seeds: Sequence[bytes], hand: int) -> int:
    """The engine deal seed of hand number ``hand`` (0-based): the HMAC of the module doc."""
    if len(client_seeds) != NUM_SEATS or any(len(s) != SEED_BYTES for s in client_seeds):
        raise ValueError(f"five client seeds of {SEED_BYTES} bytes each are needed")
    if not 0 <= hand < 1 << 32:
        raise ValueError("a hand number is 0 to 2**32 - 1")
    message = b"".join(client_seeds) + hand.to_bytes(4, "big")
    return int.from_bytes(hmac.new(server_seed, message, hashlib.sha256).digest(), "big")


def parse_seed(text: object) -> bytes | None:
    """A seed from its 64 lowercase-or-uppercase hex digits, or None if it is not one."""
    if not isinstance(text, str) or len(text) != 2 * SEED_BYTES:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def deal_codes(deal: Deal) -> tuple[list[list[str]], list[str]]:
    """The deal's hands (seat order) and blind as sorted card codes."""
    hands = [sorted(CARD_CODES[c] for c in cards_in(h)) for h in deal.hands]
    return hands, sorted(CARD_CODES[c] for c in cards_in(deal.blind))


@dataclass(frozen=True, slots=True)
class Verdict:
    """The check of one hand: ``ok``, else ``reason`` says what does not match."""

    hand: int
    ok: bool
    reason: str = ""
    unchecked: str = ""
    """What a verified hand's record could not show (``dealer``: its commitment is not the
    match's first, and it does not carry the match's first seed)."""
    incomplete: bool = False
    """Not ``ok`` because the record lacks what the check needs (no ``fair`` map, or the server
    seed not in it yet: it was saved before the match's end revealed the seeds), not because
    anything in it fails: ``reason`` says what is missing."""


def check_deal(
    fair: Mapping[str, Any],
    dealer: int,
    hands: Sequence[Sequence[str]],
    blind: Sequence[str],
    *,
    seen_commitment: str | None = None,
) -> Verdict:
    """Check one dealt hand against the revealed seeds in its ``fair`` map (PROTOCOL.md §13).

    ``seen_commitment``: the commitment the checker itself saw published before the deal (a
    client's own check); records carry theirs in ``fair.commitment``.
    """
    number = fair.get("hand")
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        return Verdict(-1, False, "the record has no hand number")
    if fair.get("scheme", SCHEME) != SCHEME:
        return Verdict(number, False, f"unknown scheme {fair.get('scheme')!r}")
    server_seed = parse_seed(fair.get("server_seed"))
    if server_seed is None:
        return Verdict(number, False, "the server seed is not revealed")
    published = fair.get("commitment")
    if seen_commitment is not None and published != seen_commitment:
        return Verdict(number, False, "the record's commitment is not the one published")
    if commitment(server_seed) != published:
        return Verdict(number, False, "the revealed server seed does not match the commitment")
    texts = fair.get("client_seeds")
    sources = fair.get("sources")
    if not isinstance(texts, list) or len(texts) != NUM_SEATS:
        return Verdict(number, False, "the record needs five client seeds")
    if not isinstance(sources, list) or len(sources) != NUM_SEATS:
        return Verdict(number, False, "the record needs five seed sources")
    seeds: list[bytes] = []
    for seat, (text, source) in enumerate(zip(texts, sources, strict=True)):
        seed = parse_seed(text)
        if seed is None or source not in SOURCES:
            return Verdict(number, False, f"seat {seat}'s client seed is malformed")
        if source != "client" and seed != derived_seed(server_seed, seat):
            return Verdict(number, False, f"seat {seat}'s {source} seed is not the derived one")
        seeds.append(seed)
    first_hand = fair.get("first_hand")
    # The match's first dealer comes from its first commitment's seed: this record's own when
    # it is that commitment, else the revealed match_server_seed it carries, if any.
    match_seed = server_seed if first_hand == 0 else parse_seed(fair.get("match_server_seed"))
    if (
        match_seed is not None
        and first_hand != 0
        and commitment(match_seed) != fair.get("match_commitment")
    ):
        return Verdict(number, False, "the match's first seed does not match its commitment")
    if match_seed is not None and dealer != (first_dealer(match_seed) + number) % NUM_SEATS:
        return Verdict(number, False, f"seat {dealer} is not the dealer the seed names")
    expected_hands, expected_blind = deal_codes(
        Deal.from_seed(dealer, deal_seed(server_seed, seeds, number))
    )
    if [sorted(h) for h in hands] != expected_hands or sorted(blind) != expected_blind:
        return Verdict(number, False, "the cards dealt are not the ones the seeds give")
    return Verdict(number, True, unchecked="" if match_seed is not None else "dealer")


def check_record(record: object) -> Verdict:
    """Check a ``sheepshead-hand/1`` record's deal against its ``fair`` map."""
    if not isinstance(record, Mapping):
        return Verdict(-1, False, "a record must be a JSON object")
    fair = record.get("fair")
    if fair is None:
        number = record.get("hand")
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            number = -1
        return Verdict(number, False, NO_FAIR_DATA, incomplete=True)
    if not isinstance(fair, Mapping):
        return Verdict(-1, False, "the record's commit–reveal data (fair) is not a map")
    hand = fair.get("hand")
    if fair.get("server_seed") is None and isinstance(hand, int) and hand >= 0:
        # A record saved during the match (the server's own, or a client's) has no seed yet:
        # that cannot be checked, and is no sign that anything is wrong.
        return Verdict(hand, False, NOT_REVEALED, incomplete=True)
    deal = record.get("deal")
    dealer = record.get("dealer", 0)
    if not isinstance(deal, Mapping) or not isinstance(dealer, int):
        return Verdict(-1, False, "the record has no explicit deal")
    hands, blind = deal.get("hands"), deal.get("blind")
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        return Verdict(-1, False, "the record has no explicit deal")
    if not isinstance(blind, list) or not 0 <= dealer < NUM_SEATS:
        return Verdict(-1, False, "the record has no explicit deal")
    return check_deal(fair, dealer, hands, blind)


def summary(verdicts: Sequence[Verdict]) -> str:
    """``all N deals verified`` (``the deal verified`` for one), or the first hand that fails
    and why (hands 1-based); when none fails but some cannot be checked (:attr:`Verdict.
    incomplete`), which hands those are and why."""
    ordered = sorted(verdicts, key=lambda v: v.hand)
    for verdict in ordered:
        if not verdict.ok and not verdict.incomplete:
            where = "a record" if verdict.hand < 0 else f"hand {verdict.hand + 1}"
            return f"{where} does not verify: {verdict.reason}"
    missing = [v for v in ordered if v.incomplete]
    if missing:
        # Nothing failed, but some records cannot be checked: say which, and why (a record
        # saved before the reveal is no sign of a dishonest deal).
        numbers = [str(v.hand + 1) for v in missing if v.hand >= 0]
        where = (
            "a record"
            if not numbers
            else f"hand{'s' * (len(numbers) > 1)} {', '.join(numbers[:8])}"
        )
        where += ", ..." if len(numbers) > 8 else ""
        done = len(verdicts) - len(missing)
        return (
            f"{where} cannot be checked ({done} of {len(verdicts)} deals verified):"
            f" {missing[0].reason}"
        )
    count = len(verdicts)
    said = "the deal verified" if count == 1 else f"all {count} deals verified"
    unchecked = sorted(v.hand + 1 for v in verdicts if v.unchecked == "dealer")
    if unchecked:
        hands = ", ".join(str(n) for n in unchecked[:8]) + (", ..." if len(unchecked) > 8 else "")
        said += (
            f" (the dealer of hand {hands} not checked: a later commitment's record without the"
            " match's first seed)"
        )
    return said
