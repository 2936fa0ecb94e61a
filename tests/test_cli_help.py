"""Every ``sheepshead`` command's ``--help``: each option explained, presets shown by name."""

from __future__ import annotations

import re

import pytest

from client.cli import COMMANDS, main
from engine.rules import PRESET_TITLES


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_of_every_command_has_help(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No option is listed bare, and a command with ``--preset`` says what each preset is
    called at the table (docs/rules.md, "Presets"), not only its command-line name."""
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    options = out.split("options:", 1)[1]
    # An option line with nothing after its flags and no help line indented under it.
    lines = options.splitlines()
    for i, line in enumerate(lines):
        if re.fullmatch(r"  -\S.*", line) and "  " not in line.strip():
            following = lines[i + 1] if i + 1 < len(lines) else ""
            assert following.startswith(" " * 10), f"{command}: {line.strip()} has no help"
    if "--preset" in options:
        flat = " ".join(options.split())
        for title in PRESET_TITLES.values():
            assert title in flat, f"{command} --help does not show the preset {title!r}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_shows_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A new user's first question, what a typical command line looks like, is answered
    under "examples:" (no command's help had one; serve's own note stays above them)."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    examples = out.split("\nexamples:\n", 1)[1].splitlines()
    assert examples and all(line.startswith(f"  sheepshead {command}") for line in examples)


def test_a_mistyped_or_missing_command_is_a_usage_error_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`sheepshead tournment` named the commands without the near one; `sheepshead` alone
    printed its help on stdout, though it exits 2."""
    assert main(["tournment"]) == 2
    captured = capsys.readouterr()
    assert "unknown command 'tournment' (did you mean 'tournament'?)" in captured.err
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "commands:" in captured.err
    assert main(["--help"]) == 0
    assert "commands:" in capsys.readouterr().out


def test_play_refuses_more_hands_than_a_table_takes_before_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`play --hands 100000` started the embedded server, which refused the table (exit 1,
    `bad_request: field 'hands' must be from 1 to 1000`): a usage error, said as one."""
    with pytest.raises(SystemExit) as exc:
        main(["play", "--hands", "100000", "--memory"])
    assert exc.value.code == 2
    assert "--hands: must be from 1 to 1000, or 0 (no limit)" in capsys.readouterr().err
