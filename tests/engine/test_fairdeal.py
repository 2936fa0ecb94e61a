"""The pure part of commit–reveal deals: seeds to deals, and every way a record can fail."""

from __future__ import annotations

import copy
import hashlib
import hmac
from pathlib import Path
from typing import Any

from engine.cards import card_code
from engine.fairdeal import (
    SCHEME,
    check_record,
    commitment,
    deal_codes,
    deal_seed,
    derived_seed,
    first_dealer,
    summary,
)
from engine.hand import Deal, shuffled_deck
from engine.match import Match
from engine.record import export_record
from engine.rules import RuleSet

SERVER_SEED = bytes(range(32))
CLIENT_SEEDS = [bytes([seat]) * 32 for seat in range(5)]


def test_the_deal_seed_is_the_hmac_written_in_the_protocol() -> None:
    message = b"".join(CLIENT_SEEDS) + (7).to_bytes(4, "big")
    expected = hmac.new(SERVER_SEED, message, hashlib.sha256).digest()
    assert deal_seed(SERVER_SEED, CLIENT_SEEDS, 7) == int.from_bytes(expected, "big")
    assert commitment(SERVER_SEED) == hashlib.sha256(SERVER_SEED).hexdigest()
    # Every input matters: another hand, another client seed, another server seed.
    assert deal_seed(SERVER_SEED, CLIENT_SEEDS, 8) != deal_seed(SERVER_SEED, CLIENT_SEEDS, 7)
    other = [CLIENT_SEEDS[0], bytes(32), *CLIENT_SEEDS[2:]]
    assert deal_seed(SERVER_SEED, other, 7) != deal_seed(SERVER_SEED, CLIENT_SEEDS, 7)
    assert deal_seed(bytes(32), CLIENT_SEEDS, 7) != deal_seed(SERVER_SEED, CLIENT_SEEDS, 7)


def match_records(hands: int) -> list[dict[str, Any]]:
    """A match dealt by the scheme, its records carrying the revealed ``fair`` map."""
    seeds = [CLIENT_SEEDS[0], *(derived_seed(SERVER_SEED, s) for s in range(1, 5))]
    match = Match(
        RuleSet(),
        seed=0,
        hand_limit=hands,
        first_dealer=first_dealer(SERVER_SEED),
        deal_seed=lambda n: deal_seed(SERVER_SEED, seeds, n),
    )
    records = []
    while True:
        while not match.hand.is_over:
            match.apply(match.hand.legal_actions()[0])
        record = export_record(match.hand)
        record["fair"] = {
            "scheme": SCHEME,
            "hand": match.number,
            "commitment": commitment(SERVER_SEED),
            "first_hand": 0,
            "client_seeds": [s.hex() for s in seeds],
            "sources": ["client", "bot", "bot", "bot", "bot"],
            "server_seed": SERVER_SEED.hex(),
        }
        records.append(record)
        if match.is_over:
            return records
        match.next_hand()


def test_an_honest_match_verifies() -> None:
    records = match_records(3)
    assert summary([check_record(r) for r in records]) == "all 3 deals verified"
    assert summary([check_record(records[0])]) == "the deal verified"


def failing(change: Any) -> str:
    records = match_records(3)
    record = copy.deepcopy(records[1])
    change(record)
    records[1] = record
    return summary([check_record(r) for r in records])


def test_every_tampering_is_caught_and_the_hand_named() -> None:
    def swap_cards(r: dict[str, Any]) -> None:
        hands = r["deal"]["hands"]
        hands[0][0], hands[2][0] = hands[2][0], hands[0][0]

    def other_server_seed(r: dict[str, Any]) -> None:
        r["fair"]["server_seed"] = "ab" * 32

    def forged_bot_seed(r: dict[str, Any]) -> None:
        r["fair"]["client_seeds"][3] = "cd" * 32

    def other_dealer(r: dict[str, Any]) -> None:
        r["dealer"] = (r["dealer"] + 1) % 5

    def unrevealed(r: dict[str, Any]) -> None:
        r["fair"]["server_seed"] = "not hex"

    cases = {
        swap_cards: "the cards dealt are not the ones the seeds give",
        other_server_seed: "the revealed server seed does not match the commitment",
        forged_bot_seed: "seat 3's bot seed is not the derived one",
        other_dealer: "is not the dealer the seed names",
        unrevealed: "the server seed is not revealed",
    }
    for change, reason in cases.items():
        verdict = failing(change)
        assert verdict.startswith("hand 2 does not verify: "), verdict
        assert reason in verdict, (change.__name__, verdict)


def test_a_record_without_fair_data_is_not_verified() -> None:
    record = match_records(1)[0]
    del record["fair"]
    verdict = check_record(record)
    assert not verdict.ok and "fair" in verdict.reason
    assert summary([verdict]).startswith("a record cannot be checked (0 of 1 deals verified): ")


def test_a_record_saved_before_the_reveal_cannot_be_checked_and_a_failure_comes_first() -> None:
    """A record without the server seed (saved during the match) is not a failure: the summary
    names it and says why; a hand that does fail is still said first."""
    records = match_records(3)
    del records[2]["fair"]["server_seed"]
    said = summary([check_record(r) for r in records])
    assert said.startswith("hand 3 cannot be checked (2 of 3 deals verified): the server seed is")
    assert "saved before the match ended" in said
    records[0]["fair"]["server_seed"] = "ab" * 32
    assert summary([check_record(r) for r in records]).startswith("hand 1 does not verify: ")


def test_the_protocols_test_vector_is_what_the_engine_deals() -> None:
    """PROTOCOL.md §13's vector, read from the page: a deal seed whose HMAC starts with a zero
    byte (hashed as 31 bytes), the SHA-512 read big-endian, the deck and each seat's cards."""
    text = (Path(__file__).resolve().parents[2] / "PROTOCOL.md").read_text(encoding="utf-8")
    block = text.split("**Test vector**", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    vector = dict(line.split(":", 1) for line in block.strip().splitlines())
    vector = {key.strip(): value.strip() for key, value in vector.items()}
    server_seed = bytes(range(32))
    client_seeds = [bytes([seat + 1]) * 32 for seat in range(5)]
    seed = deal_seed(server_seed, client_seeds, 63)
    assert commitment(server_seed) == vector["commitment"]
    assert f"{seed:064x}" == vector["hmac"] and vector["hmac"].startswith("00")
    hashed = seed.to_bytes(max(8, (seed.bit_length() + 7) // 8), "big")
    assert hashed.hex() == vector["hashed"] and len(hashed) == 31
    assert hashlib.sha512(hashed).hexdigest().startswith(vector["sha512"].split()[0])
    assert " ".join(card_code(c) for c in shuffled_deck(seed)) == vector["deck"]
    hands, blind = deal_codes(Deal.from_seed(0, seed))
    for seat in range(5):
        assert sorted(vector[f"seat {seat}"].split()) == sorted(hands[seat])
    assert sorted(vector["blind"].split()) == sorted(blind)


def two_commitment_records() -> list[dict[str, Any]]:
    """A three-hand match: hands 0-1 dealt with SERVER_SEED, hand 2 with a later commitment
    (someone sat down), each record's ``fair`` map as the server writes it once revealed."""
    later = bytes(range(32, 64))
    seeds = {s: [derived_seed(s, seat) for seat in range(5)] for s in (SERVER_SEED, later)}
    used = lambda n: SERVER_SEED if n < 2 else later  # noqa: E731
    match = Match(
        RuleSet(),
        seed=0,
        hand_limit=3,
        first_dealer=first_dealer(SERVER_SEED),
        deal_seed=lambda n: deal_seed(used(n), seeds[used(n)], n),
    )
    records = []
    while True:
        while not match.hand.is_over:
            match.apply(match.hand.legal_actions()[0])
        record = export_record(match.hand)
        server_seed = used(match.number)
        record["fair"] = {
            "scheme": SCHEME,
            "hand": match.number,
            "commitment": commitment(server_seed),
            "first_hand": 0 if server_seed == SERVER_SEED else 2,
            "client_seeds": [s.hex() for s in seeds[server_seed]],
            "sources": ["bot"] * 5,
            "server_seed": server_seed.hex(),
        }
        if server_seed != SERVER_SEED:
            record["fair"]["match_commitment"] = commitment(SERVER_SEED)
            record["fair"]["match_server_seed"] = SERVER_SEED.hex()
        records.append(record)
        if match.is_over:
            return records
        match.next_hand()


def test_a_later_commitments_dealer_is_checked_by_the_matchs_first_seed() -> None:
    records = two_commitment_records()
    assert summary([check_record(r) for r in records]) == "all 3 deals verified"
    # The dealer moved one seat (cards relabelled to match): the match's first seed catches it.
    moved = copy.deepcopy(records[2])
    moved["dealer"] = (moved["dealer"] + 1) % 5
    moved["deal"]["hands"] = moved["deal"]["hands"][-1:] + moved["deal"]["hands"][:-1]
    verdict = check_record(moved)
    assert not verdict.ok and "not the dealer" in verdict.reason
    # A first seed that is not the match's first commitment's is refused.
    forged = copy.deepcopy(records[2])
    forged["fair"]["match_server_seed"] = bytes(32).hex()
    assert "first seed does not match" in check_record(forged).reason
    # A record without the match's first seed (an older server's): verified, and it says what
    # it could not check.
    bare = copy.deepcopy(records[2])
    del bare["fair"]["match_commitment"], bare["fair"]["match_server_seed"]
    verdicts = [check_record(r) for r in (*records[:2], bare)]
    assert all(v.ok for v in verdicts)
    assert summary(verdicts) == (
        "all 3 deals verified (the dealer of hand 3 not checked: a later commitment's record"
        " without the match's first seed)"
    )
