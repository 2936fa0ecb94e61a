"""The server's side of commit–reveal deals (PROTOCOL.md §13): commitments, client seeds, reveal.

A table keeps one :class:`DealSeeds` per match. Each commitment covers the hands from the one
it is first used for up to the next commitment (a new one is made when a person sits down
during the match). The pure part (the HMAC, the checks) is :mod:`engine.fairdeal`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import NUM_SEATS
from engine.fairdeal import (
    SCHEME,
    SEED_BYTES,
    commitment,
    deal_seed,
    derived_seed,
    first_dealer,
)
from protocol import messages as m
from protocol.messages import RequestError


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
                m.STALE,
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

    def reveal(self, hands_dealt: int) -> list[dict[str, Any]]:
        """The ``seeds_revealed`` entries: every used commitment with its seed and hand range."""
        out = []
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
