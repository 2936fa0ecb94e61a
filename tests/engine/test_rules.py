"""RuleSet: presets, overrides, validation and the record form (docs/rules.md, "Presets")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine import RuleOptionError, RuleSet
from engine.rules import (
    DEFAULT_PRESET,
    OPTION_HELP,
    OPTION_NAMES,
    OPTION_TITLES,
    PRESET_TITLES,
    PRESETS_OPTIONS,
    option_choices,
    option_title,
    preset_title,
    value_title,
)

DEFAULTS = {
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


def test_seed_preset_is_every_default() -> None:
    rules = RuleSet.from_preset("seed")
    assert rules == RuleSet() == RuleSet.from_preset()
    assert rules.options() == DEFAULTS
    assert rules.preset == "seed"
    assert rules.to_dict() == {"preset": "seed"}


def test_wisconsin_preset() -> None:
    rules = RuleSet.from_preset("wisconsin")
    assert rules.options() == {
        **DEFAULTS,
        "jack_order": "clubs-first",
        "double_on_the_bump": True,
    }
    assert rules.to_dict() == {"preset": "wisconsin"}


def test_tavern_preset_is_wisconsin_with_cracking_and_blitzing() -> None:
    rules = RuleSet.from_preset("tavern")
    assert rules.options() == {
        **RuleSet.from_preset("wisconsin").options(),
        "cracking": True,
        "blitzing": True,
    }
    assert rules.to_dict() == {"preset": "tavern"}
    assert RuleSet.from_preset("tavern", crack_by="defenders").to_dict() == {
        "preset": "tavern",
        "crack_by": "defenders",
    }


def test_every_preset_has_a_title() -> None:
    assert set(PRESET_TITLES) == set(PRESETS_OPTIONS)
    assert PRESET_TITLES["tavern"] == "Tavern"
    assert PRESET_TITLES["wisconsin"] == "Wisconsin (standard)"


def test_every_option_and_value_has_a_title_for_people() -> None:
    assert set(OPTION_TITLES) == set(OPTION_NAMES)
    for name in OPTION_NAMES:
        assert option_title(name) != name and len(option_title(name)) <= 26  # the dialog's column
        shown = [value_title(name, value) for value in option_choices(name)]
        assert len(set(shown)) == len(shown), name
        for value, title in zip(option_choices(name), shown, strict=True):
            # A wire value is shown as itself only where it is already a plain word.
            assert title != value or str(value).isalpha(), (name, value)


def test_overrides() -> None:
    rules = RuleSet.from_preset("seed", no_pick="doubler", unknown_card=True)
    assert rules.no_pick == "doubler" and rules.unknown_card
    assert rules.to_dict() == {"preset": "seed", "no_pick": "doubler", "unknown_card": True}
    # Overriding a preset's own choice back to the default is kept in the record form.
    rules = RuleSet.from_preset("wisconsin", jack_order="seed")
    assert rules.to_dict() == {"preset": "wisconsin", "jack_order": "seed"}
    assert rules.double_on_the_bump
    # An override equal to the preset's value is not repeated.
    assert RuleSet.from_preset("wisconsin", double_on_the_bump=True).to_dict() == {
        "preset": "wisconsin"
    }


def test_unknown_option_or_preset() -> None:
    with pytest.raises(RuleOptionError) as info:
        RuleSet.from_preset("seed", crackling=True)
    assert info.value.code == "bad_rules"
    assert "crackling" in info.value.message
    with pytest.raises(RuleOptionError):
        RuleSet.from_preset("bavarian")
    with pytest.raises(RuleOptionError):
        RuleSet.from_dict({"preset": "seed", "blitz": False})
    with pytest.raises(RuleOptionError):
        RuleSet.from_dict({"preset": 3})
    with pytest.raises(RuleOptionError):
        RuleSet.from_dict(["seed"])  # type: ignore[arg-type]
    with pytest.raises(RuleOptionError):
        RuleSet().replace(players=4)
    # msgpack maps may have non-string keys.
    with pytest.raises(RuleOptionError):
        RuleSet.from_dict({1: True})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("jack_order", "spades-first"),
        ("jack_order", None),
        ("no_pick", "redeal"),
        ("partner", "jack-of-hearts"),
        ("unknown_card", 1),
        ("unknown_card", "true"),
        ("no_trick_partner_exempt", None),
        ("double_on_the_bump", 0),
        ("leaster_needs_trick", "no"),
        ("jack_order", ["seed"]),
        ("cracking", 1),
        ("blitzing", "yes"),
        ("crack_by", "everyone"),
    ],
)
def test_bad_values_are_rejected(name: str, value: Any) -> None:
    with pytest.raises(RuleOptionError) as info:
        RuleSet.from_preset("seed", **{name: value})
    assert name in info.value.message
    with pytest.raises(RuleOptionError):
        RuleSet.from_dict({name: value})
    with pytest.raises(RuleOptionError):
        RuleSet().replace(**{name: value})


def all_rule_sets() -> list[RuleSet]:
    out = []
    names = list(OPTION_NAMES)
    for preset in ("seed", "wisconsin", "tavern"):
        for values in itertools.product(*(option_choices(n) for n in names)):
            out.append(RuleSet.from_preset(preset, **dict(zip(names, values, strict=True))))
    return out


def test_to_dict_from_dict_round_trip_for_every_combination() -> None:
    sets = all_rule_sets()
    assert len(sets) == 3 * 2 * 3 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2
    for rules in sets:
        data = rules.to_dict()
        assert RuleSet.from_dict(data) == rules
        assert set(data) <= {"preset", *OPTION_NAMES}
        assert data["preset"] == rules.preset


def test_from_dict_defaults_to_seed() -> None:
    assert RuleSet.from_dict({}) == RuleSet()
    assert RuleSet.from_dict({"leaster_needs_trick": False}) == RuleSet(leaster_needs_trick=False)


def test_replace_keeps_the_preset() -> None:
    rules = RuleSet.from_preset("wisconsin").replace(no_pick="forced-pick")
    assert rules.preset == "wisconsin" and rules.no_pick == "forced-pick"
    assert rules.jack_order == "clubs-first"


def test_every_option_has_help_and_choices() -> None:
    assert set(OPTION_HELP) == set(OPTION_NAMES) == set(DEFAULTS)
    for name in OPTION_NAMES:
        assert OPTION_HELP[name]
        assert DEFAULTS[name] in option_choices(name)


def test_rule_sets_are_immutable_and_hashable() -> None:
    rules = RuleSet()
    with pytest.raises(AttributeError):
        rules.jack_order = "clubs-first"  # type: ignore[misc]
    assert len({RuleSet(), RuleSet.from_preset("seed"), RuleSet.from_preset("wisconsin")}) == 2


def test_the_default_preset_is_the_standard_game_and_every_preset_has_a_title() -> None:
    assert DEFAULT_PRESET == "wisconsin"
    assert RuleSet.from_preset(DEFAULT_PRESET).jack_order == "clubs-first"
    assert RuleSet().preset == "seed"  # records without rules still mean seed
    assert set(PRESET_TITLES) == set(PRESETS_OPTIONS)
    assert preset_title("wisconsin") == "Wisconsin (standard)"
    assert preset_title("seed") == "gamerules.com text (J♠ over J♣)"
    assert preset_title("house") == "house"
