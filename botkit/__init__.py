"""Bot tooling: what trains and measures bots, outside the game itself.

- :mod:`botkit.env` (with :mod:`botkit.actions`, :mod:`botkit.encode`, :mod:`botkit.cache`):
  the PettingZoo training environment; needs the ``rl`` extra (numpy, gymnasium, pettingzoo).
- :mod:`botkit.tournament`: ``sheepshead tournament``, duplicate tournaments between strategies.

``engine``, ``protocol``, ``server`` and ``client`` never import it (``client/cli.py`` names
``botkit.tournament.cli`` as the module of a subcommand); it imports them. This module imports
nothing, so the tournament runs without the ``rl`` extra.
"""
