"""The server's side of commit–reveal deals (PROTOCOL.md §13): commitments, client seeds, reveal.

A table's :class:`SeedCeremony` (a part of :class:`server.tables.table.Table`) keeps one
:class:`DealSeeds` per match. Each commitment covers the hands from the one
it is first used for up to the next commitment (a new one is made when a person sits down
during the match). The pure part (the HMAC, the checks) is :mod:`engine.fairdeal`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.actions import NUM_SEATS
from engine.fairdeal import (
    SCHEME,
    SEED_BYTES,
    commitment,
    deal_seed,
    derived_seed,
    first_dealer,
)
from protocol import errors
from protocol import events as m
from protocol.requests import RequestError
from server.tables.hub import Hub
from server.tables.ledger import TableLedger
from server.tables.seats import SeatState


@dataclass
class Commitment:
    """One server seed, its published hash, and the client seeds given for it."""

    server_seed: bytes
    published: float
    """Monotonic seconds when it was published (the deal waits for seeds from then on)."""
    first_hand: int | None = None
    """The first hand dealt with it; None while it is still collecting seeds."""
    seeds: list[bytes | None] = field(default_factory=lambda: [None] * NUM_SEATS)
    sources: list[str] = field(default_factory=lambda: ["drawn"] * NUM_SEATS)

    commitment: str = field(init=False)
    """``sha256(server_seed)`` in hex, as published (fixed when it is made)."""

    def __post_init__(self) -> None:
        self.commitment = commitment(self.server_seed)

    def client_seeds(self) -> list[bytes]:
        """The five seeds in seat order (only once locked: none is missing then)."""
        return [
            s if s is not None else derived_seed(self.server_seed, i)
            for i, s in enumerate(self.seeds)
        ]

    def fair(self, hand: int, *, revealed: bool) -> dict[str, Any]:
        """The ``fair`` map of hand ``hand``'s record (the server seed only once ``revealed``)."""
        out: dict[str, Any] = {
            "scheme": SCHEME,
            "hand": hand,
            "commitment": self.commitment,
            "first_hand": self.first_hand,
            "client_seeds": [s.hex() for s in self.client_seeds()],
            "sources": list(self.sources),
        }
        if revealed:
            out["server_seed"] = self.server_seed.hex()
        return out

    def to_dict(self) -> dict[str, Any]:
        """The stored form (the server seed included: the database is the server's own)."""
        return {
            "server_seed": self.server_seed.hex(),
            "first_hand": self.first_hand,
            "client_seeds": [s.hex() for s in self.client_seeds()],
            "sources": list(self.sources),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Commitment:
        """Read :meth:`to_dict`'s form back."""
        return cls(
            server_seed=bytes.fromhex(data["server_seed"]),
            published=0.0,
            first_hand=int(data["first_hand"]),
            seeds=[bytes.fromhex(s) for s in data["client_seeds"]],
            sources=[str(s) for s in data["sources"]],
        )


class DealSeeds:
    """Every commitment of one match, oldest first, and the one collecting seeds, if any."""

    def __init__(self, used: Sequence[Commitment] = ()) -> None:
        self.used: list[Commitment] = list(used)
        """Commitments already dealt with, in order of ``first_hand``."""
        self.pending: Commitment | None = None
        """The newest commitment, published and collecting client seeds."""

    def commit(self, now: float) -> Commitment:
        """Draw a new server seed and make it the pending commitment (replacing an unused one)."""
        self.pending = Commitment(secrets.token_bytes(SEED_BYTES), now)
        return self.pending

    def offer(self, seat: int, quoted: str, seed: bytes) -> None:
        """Take ``seat``'s client seed for the pending commitment ``quoted``; raises if stale."""
        pending = self.pending
        if pending is None or pending.commitment != quoted:
            raise RequestError(
                errors.STALE,
                "That commitment is not collecting seeds any more (answer the latest one)",
            )
        pending.seeds[seat] = seed
        pending.sources[seat] = "client"

    def missing(self, seats: Sequence[int]) -> bool:
        """Whether the pending commitment still waits for a seed from any of ``seats``."""
        pending = self.pending
        return pending is not None and any(pending.seeds[s] is None for s in seats)

    def lock(self, hand: int, bots: Sequence[int]) -> Commitment | None:
        """Deal hand ``hand`` with the pending commitment, if there is one: seeds still missing
        are derived from the server seed (``bot`` for ``bots``, else ``drawn``)."""
        pending = self.pending
        if pending is None:
            return None
        for seat in range(NUM_SEATS):
            if pending.seeds[seat] is None:
                pending.seeds[seat] = derived_seed(pending.server_seed, seat)
                pending.sources[seat] = "bot" if seat in bots else "drawn"
        pending.first_hand = hand
        self.used.append(pending)
        self.pending = None
        return pending

    def covering(self, hand: int) -> Commitment:
        """The commitment hand ``hand`` was dealt with."""
        for used in reversed(self.used):
            assert used.first_hand is not None
            if used.first_hand <= hand:
                return used
        raise LookupError(f"no commitment covers hand {hand}")

    def fair(self, hand: int, *, revealed: bool) -> dict[str, Any]:
        """Hand ``hand``'s record ``fair`` map (PROTOCOL.md §13). A hand dealt with a later
        commitment also names the match's first one, and once ``revealed`` its seed, from
        which the match's first dealer (and so this hand's) is checked."""
        used = self.covering(hand)
        out = used.fair(hand, revealed=revealed)
        first = self.used[0]
        if used is not first:
            out["match_commitment"] = first.commitment
            if revealed:
                out["match_server_seed"] = first.server_seed.hex()
        return out

    def seed_for(self, hand: int) -> int:
        """The engine deal seed of hand ``hand`` (for ``Match(deal_seed=...)``)."""
        used = self.covering(hand)
        return deal_seed(used.server_seed, used.client_seeds(), hand)

    def first_dealer(self) -> int:
        """The match's first dealer, from the first commitment's seed."""
        return first_dealer(self.used[0].server_seed)

    def reveal(self, hands_dealt: int) -> list[m.RevealedCommitment]:
        """The ``seeds_revealed`` entries: every used commitment with its seed and hand range."""
        out: list[m.RevealedCommitment] = []
        for i, used in enumerate(self.used):
            assert used.first_hand is not None
            nxt = self.used[i + 1].first_hand if i + 1 < len(self.used) else hands_dealt
            assert nxt is not None
            out.append(
                {
                    "commitment": used.commitment,
                    "server_seed": used.server_seed.hex(),
                    "first_hand": used.first_hand,
                    "last_hand": nxt - 1,
                    "client_seeds": [s.hex() for s in used.client_seeds()],
                    "sources": list(used.sources),
                }
            )
        return out


class SeedsTable(Protocol):
    """What :class:`SeedCeremony` needs of its table (:class:`server.tables.table.Table`)."""

    id: str
    hub: Hub[Any]
    seats: list[SeatState]
    ledger: TableLedger


class SeedCeremony:
    """The fair deal's seeds at one table (a part of :class:`server.tables.table.Table`): a
    commitment per match (and per newcomer), the seats' client seeds, the wait for them, the
    seeds locked for each deal and stored, and their reveal once the match is over. It makes
    the messages; the table sends them."""

    def __init__(self, table: SeedsTable) -> None:
        self.table = table
        self.deal_seeds: DealSeeds | None = None
        """The match's commit–reveal seeds; None before the first start."""
        self._look_again = asyncio.Event()
        """Set when a seed arrives or the seats waited for change: :meth:`wait_for_seeds`
        looks again."""

    def new_match(self) -> None:
        """A new match: seeds of its own (its first commitment is :meth:`commit`'s)."""
        self.deal_seeds = DealSeeds()

    def cancel(self) -> None:
        """The match did not begin after all (a seat emptied before the deal)."""
        self.deal_seeds = None

    def commit(self) -> m.Commitment | None:
        """Draw a new server seed; its ``commitment`` message (None: no match has seeds)."""
        if self.deal_seeds is None:
            return None
        return self._commitment_message(self.deal_seeds.commit(self.table.hub.now()))

    def pending_message(self) -> m.Commitment | None:
        """The ``commitment`` still collecting seeds, for a player who comes back (or None)."""
        if self.deal_seeds is None or self.deal_seeds.pending is None:
            return None
        return self._commitment_message(self.deal_seeds.pending)

    def _commitment_message(self, pending: Commitment) -> m.Commitment:
        return m.commitment(
            table=self.table.id,
            commitment=pending.commitment,
            wait=self.table.hub.config.seed_wait,
        )

    def offer(self, seat: int, quoted: str, seed: bytes) -> None:
        """``seat``'s client seed for the pending commitment ``quoted``."""
        if self.deal_seeds is None:
            raise RequestError(errors.STALE, "No commitment is collecting seeds at this table")
        self.deal_seeds.offer(seat, quoted, seed)
        self._look_again.set()

    def recheck(self) -> None:
        """The seats a deal waits for changed (a person disconnected or left): a wait in
        :meth:`wait_for_seeds` looks again at once, so it ends when nobody connected is
        missing, not when ``seed_wait`` runs out."""
        self._look_again.set()

    def seed_seats(self) -> list[int]:
        """The seats whose client seed a deal waits for: connected people."""
        return [
            i
            for i, s in enumerate(self.table.seats)
            if s.kind == "human" and s.remote_kind != "bot" and s.peer is not None
        ]

    async def wait_for_seeds(self) -> None:
        """Wait until no connected person's seed is missing, ``seed_wait`` seconds at most."""
        deal_seeds = self.deal_seeds
        if deal_seeds is None or deal_seeds.pending is None:
            return
        hub = self.table.hub
        deadline = deal_seeds.pending.published + hub.config.seed_wait
        while deal_seeds.missing(self.seed_seats()):
            left = deadline - hub.now()
            if left <= 0:
                return
            self._look_again.clear()
            # asyncio.timeout, not wait_for: Python 3.11's wait_for returns, instead of
            # raising, when the task is cancelled in the turn of the loop that also set the
            # event (a seed came in with the leave that called the start off): the start went
            # on waiting for the seeds of a start called off, then called it off again.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._look_again.wait()

    def lock(self, hand: int) -> None:
        """Deal hand ``hand`` with the pending commitment (if any) and store the seeds."""
        deal_seeds = self.deal_seeds
        if deal_seeds is None or deal_seeds.pending is None:
            return
        seats = self.table.seats
        bots = [i for i, s in enumerate(seats) if s.kind != "human" or s.remote_kind == "bot"]
        deal_seeds.lock(hand, bots)
        self.table.ledger.seeds_locked([c.to_dict() for c in deal_seeds.used])

    def reveal(self, hands_dealt: int) -> m.SeedsRevealed | None:
        """The match is over after ``hands_dealt`` hands: store every server seed with the
        records; the ``seeds_revealed`` message (None: no seeds were used)."""
        deal_seeds = self.deal_seeds
        if deal_seeds is None or not deal_seeds.used:
            return None
        entries = deal_seeds.reveal(hands_dealt)
        self.table.ledger.seeds_revealed(entries)
        return m.seeds_revealed(table=self.table.id, commitments=entries)

    def fair(self, hand: int, *, revealed: bool) -> dict[str, Any] | None:
        """Hand ``hand``'s ``fair`` map (with the server seed once ``revealed``); None for a
        match dealt without seeds."""
        if self.deal_seeds is None:
            return None
        try:
            return self.deal_seeds.fair(hand, revealed=revealed)
        except LookupError:
            return None

    def restore(self, stored: Sequence[Mapping[str, Any]]) -> DealSeeds | None:
        """A restored match's seeds, as the table's ledger kept them (empty: it was dealt
        without any); returns them (None: none)."""
        if stored:
            self.deal_seeds = DealSeeds([Commitment.from_dict(c) for c in stored])
        return self.deal_seeds
