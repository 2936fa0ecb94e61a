"""The session's token store: one JSON file, written atomically, readable only by its owner."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from client.session import TokenStore


def test_tokens_are_kept_per_server_and_name(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "conf" / "tokens.json")
    assert store.get("h:1", "Ann") is None
    store.put("h:1", "Ann", "t-ann")
    store.put("h:1", "Bo", "t-bo")
    store.put("h:2", "Ann", "t-ann-2")
    assert store.get("h:1", "Ann") == "t-ann" and store.get("h:2", "Ann") == "t-ann-2"
    store.remove("h:1", "Ann", "another-clients-token")  # filed since by another client: kept
    assert store.get("h:1", "Ann") == "t-ann"
    store.remove("h:1", "Ann")
    store.remove("h:1", "nobody")
    assert TokenStore(store.path).load() == {"h:1": {"Bo": "t-bo"}, "h:2": {"Ann": "t-ann-2"}}


def test_the_file_is_private_and_replaced_atomically(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    store.put("h:1", "Ann", "secret")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    inode = os.stat(store.path).st_ino
    store.put("h:1", "Ann", "newer")
    assert os.stat(store.path).st_ino != inode  # a new file took the old one's place
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["tokens.json"]  # no temporary left


def test_a_damaged_file_counts_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    store = TokenStore(path)
    assert store.load() == {}
    store.put("h:1", "Ann", "t")
    assert store.get("h:1", "Ann") == "t"
    path.write_text('{"h:1": ["x"], "h:2": {"Ann": 5, "Bo": "ok"}}')
    assert store.load() == {"h:2": {"Bo": "ok"}}
