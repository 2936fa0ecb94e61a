"""The Sheepshead rules engine: pure, deterministic, no I/O.

Everything the server, clients and bots know about the rules comes from here: cards and card
sets (:mod:`engine.cards`), rule options (:mod:`engine.rules`), actions (:mod:`engine.actions`),
the hand state machine (:mod:`engine.hand`), scoring (:mod:`engine.scoring`), per-seat views
(:mod:`engine.view`), matches (:mod:`engine.match`) and hand records (:mod:`engine.record`).
"""

from engine.actions import (
    Action,
    Alone,
    Blitz,
    Bury,
    Call,
    Crack,
    NoCrack,
    NoRecrack,
    Pass,
    Pick,
    Play,
    Recrack,
    Seat,
    Unknown,
    action_from_dict,
)
from engine.cards import Card, CardSet, card_code, parse_card
from engine.errors import (
    BadCardError,
    BadRecordError,
    IllegalActionError,
    RuleOptionError,
    SheepsheadError,
)
from engine.hand import Deal, Hand, Phase
from engine.match import Match
from engine.record import RecordError, export_record, hand_from_record, replay_record
from engine.rules import RuleSet
from engine.scoring import HandResult, Trick
from engine.view import seat_view

__all__ = [
    "Action",
    "Alone",
    "BadCardError",
    "BadRecordError",
    "Blitz",
    "Bury",
    "Call",
    "Card",
    "CardSet",
    "Crack",
    "Deal",
    "Hand",
    "HandResult",
    "IllegalActionError",
    "Match",
    "NoCrack",
    "NoRecrack",
    "Pass",
    "Phase",
    "Pick",
    "Play",
    "RecordError",
    "Recrack",
    "RuleOptionError",
    "RuleSet",
    "Seat",
    "SheepsheadError",
    "Trick",
    "Unknown",
    "action_from_dict",
    "card_code",
    "export_record",
    "hand_from_record",
    "parse_card",
    "replay_record",
    "seat_view",
]
