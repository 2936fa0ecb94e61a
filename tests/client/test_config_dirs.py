"""SHEEPSHEAD_CONFIG_DIR moves every file the client writes, so two people sharing one machine
account, each with their own directory, are two players."""

from __future__ import annotations

from pathlib import Path

import pytest

from client import config, join, settings
from server.app import Server


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home, so a file written to the platform's default folders is seen."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SHEEPSHEAD_PLAYER_KEY", raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "SHEEPSHEAD_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    return home


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


async def test_two_config_dirs_are_two_players_and_nothing_goes_to_the_home(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path, monkeypatch)
    keys = []
    for who in ("ann", "bob"):
        folder = tmp_path / who
        monkeypatch.setenv("SHEEPSHEAD_CONFIG_DIR", str(folder))
        # The real path of `sheepshead join`: its player key and token store.
        session, reason = await join.connect("127.0.0.1", server.port, who.title())
        assert session is not None, reason
        try:
            # Creating a table seats its host: the seat token is kept in the token store.
            await session.request("create_table", name=f"{who}'s", preset="seed")
        finally:
            await session.close()
        keys.append(session.player_key)
        assert (folder / config.PLAYER_KEY_FILE).read_text().strip() == session.player_key
        tokens = (folder / "tokens.json").read_text()
        assert f"127.0.0.1:{server.port}" in tokens
        assert settings.settings_path() == folder / "settings.toml"
        assert config.data_dir() == folder / "data"
        assert config.export_dir().parent == folder / "data"
    assert keys[0] is not None and keys[1] is not None
    assert keys[0] != keys[1]
    assert _files(home) == []


def test_the_data_dir_variable_still_wins_for_the_data_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch)
    monkeypatch.setenv("SHEEPSHEAD_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setenv("SHEEPSHEAD_DATA_DIR", str(tmp_path / "data"))
    assert config.config_dir() == tmp_path / "conf"
    assert config.data_dir() == tmp_path / "data"
    assert config.local_db_path() == tmp_path / "data" / "local.db"
