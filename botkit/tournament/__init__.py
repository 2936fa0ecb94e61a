"""``sheepshead tournament``: a duplicate tournament between bot strategies, in-process.

- :mod:`botkit.tournament.play`: the duplicate seatings, one deal's plays, the worker pool;
- :mod:`botkit.tournament.worker`: a worker process of the pool, a fresh interpreter;
- :mod:`botkit.tournament.stats`: tallies, intervals clustered by deal, the JSON results;
- :mod:`botkit.tournament.report`: the table, the progress bar, the worst deals side by side;
- :mod:`botkit.tournament.progress`: the progress file an interrupted run is resumed from;
- :mod:`botkit.tournament.cli`: the subcommand's options and run.

docs/bots.md, "Tournaments", has the format and every field of the results.
"""
