"""The table's rule options (docs/rules.md) and the named presets.

>>> rules = RuleSet.from_preset("wisconsin", leaster_needs_trick=False)
>>> rules.jack_order, rules.double_on_the_bump, rules.leaster_needs_trick
('clubs-first', True, False)
>>> rules.to_dict()
{'preset': 'wisconsin', 'leaster_needs_trick': False}
>>> RuleSet.from_preset("seed", cracking="yes")
Traceback (most recent call last):
...
engine.errors.RuleOptionError: rule option cracking must be one of False, True, not 'yes'
>>> PRESET_TITLES["tavern"]
'Tavern'
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from engine.cards import JackOrder
from engine.errors import RuleOptionError

NoPick = Literal["leaster", "doubler", "forced-pick"]
"""What happens when all five pass (docs/rules.md, "2. Picking")."""

PartnerRule = Literal["called-ace", "jack-of-diamonds"]
"""How the picker's partner is chosen (docs/rules.md, "4. Choosing a partner")."""

CrackBy = Literal["unoffered", "defenders"]
"""Who may crack (docs/rules.md, "Cracking and blitzing"): the seats never offered the blind, or
every seat but the picker."""

_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "jack_order": ("seed", "clubs-first"),
    "no_pick": ("leaster", "doubler", "forced-pick"),
    "partner": ("called-ace", "jack-of-diamonds"),
    "unknown_card": (False, True),
    "no_trick_partner_exempt": (False, True),
    "double_on_the_bump": (False, True),
    "leaster_needs_trick": (False, True),
    "blitzing": (False, True),
    "cracking": (False, True),
    "crack_by": ("unoffered", "defenders"),
}

OPTION_HELP: Final[dict[str, str]] = {
    "jack_order": "the order of the jacks in trump: J♠ J♣ J♥ J♦ (the gamerules.com text) or "
    "J♣ J♠ J♥ J♦ (Wisconsin)",
    "no_pick": "when all five pass: a leaster, a doubler (the next hand counts double) or the "
    "dealer must pick",
    "partner": "the picker's partner: whoever holds the fail ace the picker calls, or whoever "
    "holds J♦",
    "unknown_card": "a picker with no legal call may call an ace with a face-down unknown card",
    "no_trick_partner_exempt": "if the picker's side takes no trick the picker pays it all",
    "double_on_the_bump": "a losing picker's side pays double",
    "leaster_needs_trick": "a leaster is won only by a player who took a trick",
    "blitzing": "the picker may show a black or red queen pair before burying (×2 each)",
    "cracking": "after the call a defender may crack (×2) and the picker re-crack (×2 more)",
    "crack_by": "who may crack: the seats never offered the blind, or any defender",
}
"""One line per option in people's words, for the client's create-table dialog and rules panel
(the option's values as they are written in files and on the command line: docs/rules.md)."""


OPTION_TITLES: Final[dict[str, str]] = {
    "jack_order": "Jacks in trump",
    "no_pick": "When everybody passes",
    "partner": "Partner",
    "unknown_card": "Unknown card",
    "no_trick_partner_exempt": "No trick: picker pays all",
    "double_on_the_bump": "Double on the bump",
    "leaster_needs_trick": "Leaster needs a trick",
    "blitzing": "Blitzing",
    "cracking": "Cracking",
    "crack_by": "Who may crack",
}
"""How each option is shown to people (the wire names are for files and the command line)."""

_VALUE_TITLES: Final[dict[str, dict[object, str]]] = {
    "jack_order": {"seed": "J♠ J♣ J♥ J♦", "clubs-first": "J♣ J♠ J♥ J♦"},
    "no_pick": {
        "leaster": "leaster",
        "doubler": "doubler: next hand ×2",
        "forced-pick": "the dealer must pick",
    },
    "partner": {"called-ace": "called ace", "jack-of-diamonds": "whoever holds J♦"},
    "crack_by": {"unoffered": "seats not offered the blind", "defenders": "any defender"},
}


def option_title(name: str) -> str:
    """The display name of a rule option.

    >>> option_title("double_on_the_bump")
    'Double on the bump'
    """
    return OPTION_TITLES.get(name, name)


def value_title(name: str, value: object) -> str:
    """How a value of option ``name`` is shown to people.

    >>> value_title("jack_order", "clubs-first"), value_title("cracking", True)
    ('J♣ J♠ J♥ J♦', 'yes')
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _VALUE_TITLES.get(name, {}).get(value, str(value))


def _verify_option(name: str, value: object) -> None:
    """Raise :class:`RuleOptionError` unless ``name`` is an option and ``value`` one of its
    choices, of its type. Checked before a :class:`RuleSet` is made: the mypyc build's typed
    constructor would refuse a wrong type with a bare TypeError first."""
    choices = _CHOICES.get(name)
    if choices is None:
        raise RuleOptionError(f"unknown rule option {name!r}")
    if value not in choices or type(value) is not type(choices[0]):
        allowed = ", ".join(repr(c) for c in choices)
        raise RuleOptionError(f"rule option {name} must be one of {allowed}, not {value!r}")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every house-rule choice of docs/rules.md; the defaults are the ``seed`` preset."""

    jack_order: JackOrder = "seed"
    no_pick: NoPick = "leaster"
    partner: PartnerRule = "called-ace"
    unknown_card: bool = False
    no_trick_partner_exempt: bool = True
    double_on_the_bump: bool = False
    leaster_needs_trick: bool = True
    blitzing: bool = False
    cracking: bool = False
    crack_by: CrackBy = "unoffered"
    preset: str = "seed"

    def __post_init__(self) -> None:
        for name in _CHOICES:
            _verify_option(name, getattr(self, name))
        if self.preset not in PRESETS_OPTIONS:
            raise RuleOptionError(f"unknown rules preset {self.preset!r}")

    @classmethod
    def from_preset(cls, preset: str = "seed", **overrides: Any) -> RuleSet:
        """The preset's rules with some options changed; unknown names raise RuleOptionError."""
        if preset not in PRESETS_OPTIONS:
            names = ", ".join(PRESETS_OPTIONS)
            raise RuleOptionError(f"unknown rules preset {preset!r} (choose from {names})")
        for name, value in overrides.items():
            _verify_option(name, value)
        options: dict[str, Any] = {**PRESETS_OPTIONS[preset], **overrides}
        return cls(preset=preset, **options)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Rules from a record's ``rules`` map: ``{"preset": ..., option: value, ...}``."""
        if not isinstance(data, Mapping):
            raise RuleOptionError("rules must be a map of option names to values")
        # Keys typed as objects: the map comes from a file or the wire, and the mypyc build
        # checks a str-typed name at run time (a bare TypeError, not this error).
        keys: list[object] = list(data)
        if not all(isinstance(name, str) for name in keys):
            raise RuleOptionError("rule option names must be strings")
        options = dict(data)
        preset = options.pop("preset", "seed")
        if not isinstance(preset, str):
            raise RuleOptionError("rules preset must be a string")
        return cls.from_preset(preset, **options)

    def to_dict(self) -> dict[str, Any]:
        """The preset name plus only the options that differ from it."""
        base = PRESETS_OPTIONS[self.preset]
        out: dict[str, Any] = {"preset": self.preset}
        for name in _CHOICES:
            value = getattr(self, name)
            if value != base.get(name, _DEFAULTS[name]):
                out[name] = value
        return out

    def options(self) -> dict[str, Any]:
        """Every option with its value, preset excluded."""
        return {name: getattr(self, name) for name in _CHOICES}

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some options changed (validated)."""
        for name, value in changes.items():
            _verify_option(name, value)
        return dataclasses.replace(self, **changes)


_DEFAULTS: Final[dict[str, Any]] = {
    "jack_order": "seed",
    "no_pick": "leaster",
    "partner": "called-ace",
    "unknown_card": False,
    "no_trick_partner_exempt": True,
    "double_on_the_bump": False,
    "leaster_needs_trick": True,
    "blitzing": False,
    "cracking": False,
    "crack_by": "unoffered",
}

PRESETS_OPTIONS: Final[dict[str, dict[str, Any]]] = {
    "seed": {},
    "wisconsin": {"jack_order": "clubs-first", "double_on_the_bump": True},
    "tavern": {
        "jack_order": "clubs-first",
        "double_on_the_bump": True,
        "cracking": True,
        "blitzing": True,
    },
}
"""Each preset as the options it changes from the defaults (docs/rules.md, "Presets" and "Cracking
and blitzing")."""

PRESET_TITLES: Final[dict[str, str]] = {
    "wisconsin": "Wisconsin (standard)",
    "tavern": "Tavern",
    "seed": "gamerules.com text (J♠ over J♣)",
}
"""How each preset is shown to people (never the bare wire name)."""

DEFAULT_PRESET: Final = "wisconsin"
"""The preset a table, ``sheepshead play`` and a tournament use when none is chosen: the
standard game. ``RuleSet()`` and records without ``rules`` still mean ``seed``."""


def preset_title(preset: str) -> str:
    """The display name of a preset; an unknown name is shown as it is.

    >>> preset_title("wisconsin"), preset_title("custom")
    ('Wisconsin (standard)', 'custom')
    """
    return PRESET_TITLES.get(preset, preset)


def presets_help(default: str = DEFAULT_PRESET) -> str:
    """The ``--preset`` help of every command: each name with how it is shown to people.

    >>> print(presets_help("seed"))  # doctest: +NORMALIZE_WHITESPACE
    the rules preset: wisconsin = Wisconsin (standard); tavern = Tavern;
    seed = gamerules.com text (J♠ over J♣) (default seed; docs/rules.md, "Presets")
    """
    shown = "; ".join(f"{name} = {title}" for name, title in PRESET_TITLES.items())
    return f'the rules preset: {shown} (default {default}; docs/rules.md, "Presets")'


def rules_title(rules: RuleSet) -> str:
    """How a set of rules is shown to people: the preset's name, then each option changed
    from it.

    >>> rules_title(RuleSet.from_preset("wisconsin"))
    'Wisconsin (standard)'
    >>> rules_title(RuleSet.from_preset("wisconsin", no_pick="doubler", cracking=True))
    'Wisconsin (standard), changed: When everybody passes: doubler: next hand ×2; Cracking: yes'
    """
    changed = [
        f"{option_title(name)}: {value_title(name, value)}"
        for name, value in rules.to_dict().items()
        if name != "preset"
    ]
    title = preset_title(rules.preset)
    return f"{title}, changed: {'; '.join(changed)}" if changed else title


OPTION_NAMES: Final[tuple[str, ...]] = tuple(_CHOICES)
"""Every rule option name, in docs/rules.md order."""


def option_choices(name: str) -> tuple[object, ...]:
    """The allowed values of one option."""
    return _CHOICES[name]


@functools.lru_cache(maxsize=256)
def wire_map(rules: RuleSet) -> dict[str, Any]:
    """``rules.to_dict()``, built once per rule set and shared: treat it as read-only.

    Rule sets are immutable and a server sees few of them, while every view and every table
    summary carries one.

    >>> wire_map(RuleSet.from_preset("wisconsin")) is wire_map(RuleSet.from_preset("wisconsin"))
    True
    """
    return rules.to_dict()


@functools.lru_cache(maxsize=256)
def resolved_map(rules: RuleSet) -> dict[str, Any]:
    """The preset name and **every** option's value (the view's ``rules``), built once per rule
    set and shared: treat it as read-only.

    Unlike :meth:`RuleSet.to_dict` nothing is left for the reader to look up in the preset, so
    ``view["rules"]["jack_order"]`` is always there.

    >>> resolved_map(RuleSet.from_preset("wisconsin"))["jack_order"]
    'clubs-first'
    >>> RuleSet.from_dict(resolved_map(RuleSet())) == RuleSet()
    True
    """
    return {"preset": rules.preset, **rules.options()}
