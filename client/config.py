"""Where the terminal client keeps its files, and how it reads a server address.

Every path comes from :mod:`platformdirs` (``user_config_dir("sheepshead")`` for the player key,
seat tokens and settings; ``user_data_dir("sheepshead")`` for the local game's database and
exported hand records). ``SHEEPSHEAD_CONFIG_DIR`` moves every file the client writes: the config
files into it and the data files into its ``data`` folder, so two people sharing one machine
account are two players. ``SHEEPSHEAD_DATA_DIR`` moves the data files alone (and wins over
``SHEEPSHEAD_CONFIG_DIR`` for them).

>>> parse_address("cards.example.org")
('cards.example.org', 7453)
>>> parse_address("[::1]:9000")
('::1', 9000)
>>> parse_address("host:0")
Traceback (most recent call last):
...
client.config.AddressError: bad port '0' in 'host:0' (expected 1-65535)
"""

from __future__ import annotations

import argparse
import getpass
import os
import re
import secrets
import sys
from pathlib import Path
from typing import Final

import platformdirs

APP_NAME: Final = "sheepshead"
"""The directory name used under the platform's data and config folders."""

DEFAULT_PORT: Final = 7453
"""The port ``sheepshead serve`` listens on unless told otherwise."""

CLIENT_NAME: Final = "sheepshead-tui/0.1"
"""What the terminal client calls itself in ``hello``."""

MAX_NAME: Final = 24
"""The longest display name the server accepts."""


class AddressError(ValueError):
    """A ``HOST[:PORT]`` argument that cannot be used (``bad_address``)."""

    code = "bad_address"


CONFIG_DIR_VARIABLE: Final = "SHEEPSHEAD_CONFIG_DIR"
"""The environment variable that moves every file of the client (see :func:`config_dir`)."""

DATA_DIR_VARIABLE: Final = "SHEEPSHEAD_DATA_DIR"
"""The environment variable that moves the data files only (see :func:`data_dir`)."""


def data_dir() -> Path:
    """The user data directory (created on first use): ``SHEEPSHEAD_DATA_DIR``, else the
    ``data`` folder of ``SHEEPSHEAD_CONFIG_DIR``, else the platform's."""
    override = os.environ.get(DATA_DIR_VARIABLE)
    config_override = os.environ.get(CONFIG_DIR_VARIABLE)
    if override:
        path = Path(override)
    elif config_override:
        path = Path(config_override) / "data"
    else:
        path = platformdirs.user_data_path(APP_NAME)
    path.mkdir(parents=True, exist_ok=True)
    return path


PLAYER_KEY_FILE: Final = "player_key"
"""The file in the config directory that holds this player's key (see :func:`player_key`)."""


def config_dir() -> Path:
    """Where the player key, seat tokens and settings live: ``SHEEPSHEAD_CONFIG_DIR`` when set,
    else ``platformdirs.user_config_dir("sheepshead")``."""
    override = os.environ.get(CONFIG_DIR_VARIABLE)
    return Path(override) if override else platformdirs.user_config_path(APP_NAME)


def player_key(directory: Path | None = None) -> str | None:
    """This player's key: a random secret made once in ``directory`` (default :func:`config_dir`)
    and sent in ``hello`` so the server knows the same player again (PROTOCOL.md, "Identity").

    ``SHEEPSHEAD_PLAYER_KEY=off`` in the environment sends none (a browser door tab without a
    player cookie; with one, the door puts the key derived from it in the tab's directory).
    None also when the file cannot be read or written.
    """
    if os.environ.get("SHEEPSHEAD_PLAYER_KEY") == "off":
        return None
    path = (directory or config_dir()) / PLAYER_KEY_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
        if 16 <= len(key) <= 128:
            return key
    except (OSError, UnicodeDecodeError):
        pass
    key = secrets.token_urlsafe(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Made readable by its owner only, before the secret is written into it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key + "\n")
    except OSError:
        return None
    return key


def local_db_path() -> Path:
    """The SQLite file of the server that ``sheepshead play`` embeds."""
    return data_dir() / "local.db"


def export_dir() -> Path:
    """Where exported hand records are written (created on first use)."""
    path = data_dir() / "hands"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_name() -> str:
    """A display name for a player who gave none: the login name, else "Player"."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = re.sub(r"[^\w .-]", "", name).strip()[:MAX_NAME]
    return name or "Player"


def add_name_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--name`` (``join``, ``watch``, ``play``); :func:`name_argument` reads it."""
    parser.add_argument(
        "--name",
        default=None,
        help=f"your display name, at most {MAX_NAME} characters (default: your login)",
    )


def name_argument(given: str | None) -> str:
    """The display name of ``--name``, or :func:`default_name` without it; raises
    :class:`ValueError` with the message to print for an empty or too long one.

    ``--name ""`` took the login name silently, as if the option were left out.
    """
    if given is None:
        return default_name()
    name = given.strip()
    if not name:
        raise ValueError(
            f"--name is empty: give a name, or leave --name out to use {default_name()}"
        )
    if len(name) > MAX_NAME:
        raise ValueError(f"--name must be 1 to {MAX_NAME} characters")
    from protocol.text import clean_name

    if not clean_name(name):  # the server refuses it too, once the table is being set up
        raise ValueError(
            f"--name {given!r} shows nothing (only invisible characters): give a name others "
            "can read"
        )
    return name


def name_or_status(given: str | None) -> str | int:
    """:func:`name_argument` for a command's ``run`` (``join``, ``watch``, ``play``): the name,
    or exit status 2 once its message is printed on stderr."""
    try:
        return name_argument(given)
    except ValueError as exc:
        print(f"sheepshead: {exc}", file=sys.stderr)
        return 2


_BRACKETED = re.compile(r"^\[([^\]]+)\](?::(\S*))?$")


def format_address(host: str, port: int) -> str:
    """``host:port`` as :func:`parse_address` reads it back: an IPv6 host in brackets.

    >>> format_address("::1", 7453), format_address("club.lan", 7453)
    ('[::1]:7453', 'club.lan:7453')
    """
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """Split ``HOST[:PORT]`` (IPv6 hosts in brackets) into a host and a port."""
    text = text.strip()
    match = _BRACKETED.match(text)
    if match:
        host, port_text = match.group(1), match.group(2)
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, None
    if not host:
        raise AddressError(f"no host in {text!r} (expected HOST or HOST:PORT)")
    if port_text is None:
        return host, default_port
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise AddressError(f"bad port {port_text!r} in {text!r} (expected 1-65535)")
    return host, int(port_text)
