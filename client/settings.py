"""The terminal client's own settings: how the table is shown and how keys act. No wire change.

They are read from ``settings.toml`` in the client's config directory
(:func:`client.config.config_dir`: ``SHEEPSHEAD_CONFIG_DIR``, else the platform's), and
the ``play``/``join``/``watch`` options override the file::

    trick_pause = 1.5        # seconds a finished trick stays in the centre, at least
    bell = true              # ring the terminal bell once when it becomes your turn
    confirm_cards = false    # play a card by choosing it, then pressing its key again
    hide_card_points = false # hide the other seats' card points during a hand

A missing or unreadable file means the defaults; an unknown key or a value of the wrong type is
ignored (and named in :attr:`ClientSettings.problems`), so a typo never stops the game.

>>> ClientSettings.from_map({"bell": False, "trick_pause": 2, "colour": "red"})
ClientSettings(trick_pause=2.0, bell=False, confirm_cards=False, hide_card_points=False)
"""

from __future__ import annotations

import argparse
import dataclasses
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from client.config import config_dir

DEFAULT_TRICK_PAUSE: Final = 1.5
"""Seconds a finished trick stays on the table at least (the server waits as long)."""


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """What a player may change about the terminal client."""

    trick_pause: float = DEFAULT_TRICK_PAUSE
    """A finished trick stays in the centre until the next card is led and this long at least."""
    bell: bool = True
    """Ring the terminal bell once when it becomes your turn."""
    confirm_cards: bool = False
    """A card is played by choosing it and pressing the same key again."""
    hide_card_points: bool = False
    """The other seats' running card points are hidden during a hand (tricks won stay)."""
    problems: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """What could not be read from the settings file (shown once, never fatal)."""

    @classmethod
    def from_map(cls, data: Mapping[str, Any]) -> ClientSettings:
        """Settings from a map (the parsed file); bad entries keep their default."""
        values: dict[str, Any] = {}
        problems: list[str] = []
        kinds = {f.name: f.type for f in dataclasses.fields(cls) if f.name != "problems"}
        for key, value in data.items():
            kind = kinds.get(key)
            if kind is None:
                problems.append(f"unknown setting {key!r}")
            elif kind == "bool" and isinstance(value, bool):
                values[key] = value
            elif (
                kind == "float"
                and isinstance(value, int | float)
                and not isinstance(value, bool)
                and 0 <= value <= 30
            ):
                values[key] = float(value)
            else:
                problems.append(f"bad value for {key}: {value!r}")
        return cls(**values, problems=tuple(problems))

    @classmethod
    def load(cls, path: Path | None = None) -> ClientSettings:
        """Read the settings file (:func:`settings_path` unless given)."""
        path = settings_path() if path is None else path
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return cls()
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            return cls(problems=(f"{path}: {exc}",))
        return cls.from_map(data)

    def with_overrides(self, **changes: Any) -> ClientSettings:
        """A copy with the given settings changed; None means "keep"."""
        given = {k: v for k, v in changes.items() if v is not None}
        return dataclasses.replace(self, **given) if given else self


def settings_path() -> Path:
    """Where the settings file is looked for."""
    return config_dir() / "settings.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that override the settings file, for ``play``, ``join`` and ``watch``."""
    group = parser.add_argument_group(
        "table display", f"override the settings file ({settings_path()})"
    )
    group.add_argument(
        "--confirm-cards",
        action="store_true",
        default=None,
        help="play a card by choosing it, then pressing its key (or Enter) again",
    )
    group.add_argument(
        "--no-bell",
        dest="bell",
        action="store_false",
        default=None,
        help="do not ring the terminal bell when it becomes your turn",
    )
    group.add_argument(
        "--hide-points",
        dest="hide_card_points",
        action="store_true",
        default=None,
        help="hide the other seats' card points during a hand (count them yourself)",
    )
    group.add_argument(
        "--trick-pause",
        type=seconds_argument(30),
        default=None,
        metavar="SECONDS",
        help=f"how long a finished trick stays shown at least (default {DEFAULT_TRICK_PAUSE})",
    )


def from_arguments(args: argparse.Namespace) -> ClientSettings:
    """The settings file with the command line's overrides."""
    return ClientSettings.load().with_overrides(
        confirm_cards=getattr(args, "confirm_cards", None),
        bell=getattr(args, "bell", None),
        hide_card_points=getattr(args, "hide_card_points", None),
        trick_pause=getattr(args, "trick_pause", None),
    )


def seconds_argument(high: float) -> Callable[[str], float]:
    """An argparse type: a number of seconds from 0 to ``high``."""

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from 0 to {high:g} seconds")
        return value

    return seconds
