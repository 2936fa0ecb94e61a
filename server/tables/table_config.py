"""What a table's creator chose, stored as JSON with the table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.rules import RuleSet


@dataclass(frozen=True)
class TableConfig:
    """What the creator chose; stored as JSON with the table."""

    name: str
    rules: RuleSet
    hands: int | None
    password_salt: str | None
    password_hash: str | None
    turn_timer: float | None
    grace: float
    hints: bool = False
    """Whether the seated people may ask the coach for hints (``server.tables.hints``)."""

    def to_dict(self) -> dict[str, Any]:
        """The stored JSON form."""
        return {
            "name": self.name,
            "rules": self.rules.to_dict(),
            "hands": self.hands,
            "password_salt": self.password_salt,
            "password_hash": self.password_hash,
            "turn_timer": self.turn_timer,
            "grace": self.grace,
            "hints": self.hints,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableConfig:
        """Read the stored JSON form back."""
        return cls(
            name=str(data["name"]),
            rules=RuleSet.from_dict(data.get("rules", {})),
            hands=data.get("hands"),
            password_salt=data.get("password_salt"),
            password_hash=data.get("password_hash"),
            turn_timer=data.get("turn_timer"),
            grace=float(data.get("grace", 60.0)),
            hints=bool(data.get("hints", False)),
        )
