"""What a table's creator chose (:class:`TableConfig`, stored as JSON with the table), and the
table's password.

A password is stored as a salted scrypt hash and checked in constant time. A stored hash reads
``scrypt$<n>$<r>$<p>$<salt hex>$<hash hex>``, so its cost parameters can change without making
older tables unopenable. Tables stored before scrypt keep a salted SHA-256 (``password_salt``
beside it in the table's configuration) and are still checked.

>>> stored = hash_password("open sesame")
>>> password_matches("open sesame", stored), password_matches("open sesame!", stored)
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

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


SCRYPT_N: Final = 1 << 12
"""scrypt's cost: 4 MiB of memory and about 5 ms of one core per check. A check runs on the event
loop, so it is kept short, and ``ServerConfig.password_rate`` bounds how many one address may
cause; a table password guards a card game for an evening, not an account."""

SCRYPT_R: Final = 8
SCRYPT_P: Final = 1
SALT_BYTES: Final = 16
HASH_BYTES: Final = 32
_SCHEME: Final = "scrypt"


def hash_password(password: str) -> str:
    """The stored form of a new table password (a fresh random salt each time)."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"{_SCHEME}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str, legacy_salt: str | None = None) -> bool:
    """Whether ``password`` opens a table whose stored hash is ``stored``.

    ``legacy_salt``: the salt of a hash stored before scrypt (salted SHA-256).
    """
    if stored.startswith(_SCHEME + "$"):
        try:
            _, n, r, p, salt, digest = stored.split("$")
            expected = bytes.fromhex(digest)
            given = _scrypt(password, bytes.fromhex(salt), int(n), int(r), int(p))
        except ValueError:  # a damaged stored hash opens nothing
            return False
        return hmac.compare_digest(given, expected)
    if legacy_salt is None:
        return False
    text = f"{legacy_salt}:{password}".encode("utf-8", "surrogatepass")
    return hmac.compare_digest(hashlib.sha256(text).hexdigest(), stored)


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    secret = password.encode("utf-8", "surrogatepass")
    return hashlib.scrypt(secret, salt=salt, n=n, r=r, p=p, dklen=HASH_BYTES, maxmem=64 << 20)
