"""Table passwords: scrypt for new tables, the old salted SHA-256 still opens restored ones."""

from __future__ import annotations

import hashlib

import pytest

from protocol.requests import RequestError
from server.tables.lobby import Lobby
from server.tables.table import Table
from server.tables.table_config import SCRYPT_N, TableConfig, hash_password, password_matches
from tests.server.support import table_config


def test_a_new_password_is_a_salted_scrypt_hash() -> None:
    first, second = hash_password("pw"), hash_password("pw")
    assert first.startswith(f"scrypt${SCRYPT_N}$8$1$") and first != second  # fresh salt
    assert password_matches("pw", first) and password_matches("pw", second)
    assert not password_matches("pW", first) and not password_matches("", first)
    assert not password_matches("pw", "scrypt$broken")


def config(password_hash: str | None, salt: str | None) -> TableConfig:
    return table_config(password_salt=salt, password_hash=password_hash)


async def test_a_table_stored_with_the_old_hash_still_opens(lobby: Lobby) -> None:
    legacy = hashlib.sha256(b"abcd:sesame").hexdigest()
    table = Table(lobby, "t1", config(legacy, "abcd"))
    table.check_password("sesame")
    with pytest.raises(RequestError) as refused:
        table.check_password("open up")
    assert refused.value.code == "bad_password"
    modern = Table(lobby, "t2", config(hash_password("sesame"), None))
    modern.check_password("sesame")
    with pytest.raises(RequestError):
        modern.check_password(None)


@pytest.fixture
def lobby() -> Lobby:
    from server.app import ServerConfig
    from server.storage.store import Store

    return Lobby(ServerConfig(), Store(None))
