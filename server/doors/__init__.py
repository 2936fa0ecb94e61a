"""The doors: ``serve --ssh`` and ``serve --web``, each session a ``sheepshead join`` child."""
