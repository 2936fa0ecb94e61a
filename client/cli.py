"""The ``sheepshead`` command: one entry point, one module per subcommand.

Each subcommand lives in its own module exposing ``HELP`` (one line), ``configure(parser)`` and
``run(args) -> int``; modules are imported only when their subcommand runs, so ``sheepshead
replay`` never pays for Textual and ``sheepshead serve`` never pays for the client.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Protocol, cast

COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("client.play", "play a local game: you and four bots, server embedded"),
    "join": ("client.join", "connect to a server and open the lobby"),
    "watch": ("client.join", "spectate a table on a server"),
    "serve": ("server.cli", "run a server for others to join"),
    "bot": ("client.bot_runner", "play a seat over the network with a bot strategy"),
    "tournament": ("botkit.tournament.cli", "duplicate tournament between bot strategies"),
    "replay": ("client.replay", "replay hand records (sheepshead-hand/1)"),
    "standings": ("server.standings_cli", "standings of a server's players (for its host)"),
    "verify": ("client.verify", "check hand records' deals against the revealed seeds"),
    "servers": ("client.discover", "list the sheepshead servers on this network (mDNS)"),
}
"""Subcommand name -> (module, one-line help)."""

EXAMPLES: dict[str, tuple[str, ...]] = {
    "play": (
        "sheepshead play                       # you and four bots, 10 hands",
        "sheepshead play --bots search --preset tavern --hands 5",
    ),
    "join": (
        "sheepshead join 192.168.1.20 --name Ann   # the address serve printed",
        "sheepshead join                       # look for servers on this network",
    ),
    "watch": ("sheepshead watch 192.168.1.20 --table t1",),
    "serve": (
        "sheepshead serve --host 0.0.0.0       # a LAN party: prints the addresses to join",
        "sheepshead serve --host 0.0.0.0 --ssh 2222 --web 8080 --db ~/club.db",
    ),
    "bot": (
        "sheepshead bot 127.0.0.1 --create --strategy search --hands 5",
        "sheepshead bot 192.168.1.20 --table t1 --strategy ./mybot.js",
    ),
    "tournament": (
        "sheepshead tournament --strategies search,heuristic --deals 200 --jobs 2 --json out.json",
        "sheepshead tournament --strategies heuristic,random --deals 4 --save-hands hands",
    ),
    "replay": (
        "sheepshead replay hands/deal0001-seating00.json   # from tournament --save-hands",
        "sheepshead replay --json ~/.local/share/sheepshead/hands/*.json   # exported with x",
    ),
    "standings": (
        "sheepshead standings --db ~/club.db --tonight",
        "sheepshead standings --db ~/club.db --since 18:00 --by per-hand",
    ),
    "verify": ("sheepshead verify ~/.local/share/sheepshead/hands/*.json   # exported with x",),
    "servers": ("sheepshead servers --json",),
}
"""Subcommand name -> command lines shown under "examples:" in its ``--help``."""


class Subcommand(Protocol):
    """What a subcommand module provides."""

    def configure(self, parser: argparse.ArgumentParser, command: str) -> None:
        """Add the subcommand's arguments to ``parser``."""

    def run(self, args: argparse.Namespace) -> int:
        """Run it; return the exit status."""


def _top_help() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: sheepshead COMMAND [OPTIONS]", "", "Five-handed Sheepshead.", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run 'sheepshead COMMAND --help' for a command's options."]
    return "\n".join(lines)


def _epilog(text: str | None, examples: Sequence[str]) -> str | None:
    """A command's own epilog, wrapped, then its examples, one a line.

    >>> print(_epilog("A note.", ["sheepshead x --y"]))
    A note.
    <BLANKLINE>
    examples:
      sheepshead x --y
    """
    parts = [textwrap.fill(text, 79)] if text else []
    if examples:
        parts.append("examples:\n" + "\n".join(f"  {line}" for line in examples))
    return "\n\n".join(parts) or None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``sheepshead`` command line; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        # Asked for, the help is the answer (stdout, 0); with no command it is a usage
        # error, said where errors go (a script's `sheepshead > out` printed it into out).
        print(_top_help(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] == "--version":
        from importlib.metadata import version

        print(f"sheepshead {version('sheepshead')}")
        return 0
    command = args[0]
    if command not in COMMANDS:
        import difflib

        near = difflib.get_close_matches(command, COMMANDS, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        print(f"sheepshead: unknown command {command!r}{hint}\n\n{_top_help()}", file=sys.stderr)
        return 2
    module_name, help_ = COMMANDS[command]
    module = cast(Subcommand, importlib.import_module(module_name))
    parser = argparse.ArgumentParser(
        prog=f"sheepshead {command}",
        description=help_,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the examples' lines as written
    )
    module.configure(parser, command)
    parser.epilog = _epilog(parser.epilog, EXAMPLES.get(command, ()))
    namespace = parser.parse_args(args[1:])
    namespace.command = command
    try:
        return module.run(namespace)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (`sheepshead standings | head -5`): a traceback
        # said so. Python's own recipe: the rest goes nowhere, so the flush at exit is quiet.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
