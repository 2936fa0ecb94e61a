"""Build script: the package metadata is in ``pyproject.toml``; this file adds one option.

With ``SHEEPSHEAD_COMPILE=1`` in the environment, the server's hot path (the engine, the protocol
and the server modules of ``COMPILED_MODULES``) is compiled to C extensions with
mypyc, which ships with mypy. ``make compiled`` builds that into ``build/compiled``; putting it
first on ``PYTHONPATH`` runs the same code with less CPU per action (README.md, "Hosting", has
the figures). Without the variable this is a plain pure-Python build, and nothing here needs
mypy.
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED_MODULES = [
    "engine/__init__.py",
    "engine/actions.py",
    "engine/cards.py",
    "engine/hand.py",
    "engine/match.py",
    "engine/record.py",
    "engine/rules.py",
    "engine/scoring.py",
    "engine/tricks.py",
    "engine/view.py",
    "protocol/__init__.py",
    "protocol/errors.py",
    "protocol/events.py",
    "protocol/framing.py",
    "protocol/requests.py",
    "protocol/text.py",
    "protocol/version.py",
    "server/app.py",
    "server/config.py",
    "server/net/connection.py",
    "server/net/limits.py",
    "server/tables/history.py",
    "server/tables/hub.py",
    "server/tables/ledger.py",
    "server/tables/lobby.py",
    "server/tables/presence.py",
    "server/tables/seats.py",
    "server/tables/states.py",
    "server/tables/table.py",
    "server/tables/table_config.py",
    "server/tables/turns.py",
]
"""What ``SHEEPSHEAD_COMPILE=1`` compiles. Left out:

- the engine's errors: a compiled error class that also derives from ``ValueError`` loses its
  ``code`` to compiled callers (the bad-card reply became ``internal_error``);
- the store: its time is SQLite's, and ``DatabaseInUse`` derives from ``RuntimeError``, which
  mypyc cannot compile;
- the bots (mypyc 2.4 fails on ``engine/bots/search.py``), the client and the command line.
"""


def _extensions() -> list[object]:
    if os.environ.get("SHEEPSHEAD_COMPILE") != "1":
        return []
    from mypyc.build import mypycify

    # mypy reads pyproject.toml, whose overrides name modules this build does not check.
    options = ["--no-warn-unused-configs"]
    # The C compiler's optimisation only: ``make test`` builds its copy at 0 (the same code and
    # run-time checks, compiled in about half the CPU time); the copy for hosting is at 3.
    opt_level = os.environ.get("SHEEPSHEAD_OPT_LEVEL", "3")
    target = os.environ.get("SHEEPSHEAD_MYPYC_DIR", "build/mypyc")
    return list(mypycify([*options, *COMPILED_MODULES], opt_level=opt_level, target_dir=target))


setup(ext_modules=_extensions())
