"""The bot kit's optional extras (``pyproject.toml``: ``rl``, ``openspiel``, ``cluster``), and
the one way to say how to install one.

sheepshead is not published on PyPI: ``pip install 'sheepshead[rl]'`` finds nothing, so every
hint names the install from a checkout, ``pip install -e '.[rl]'``.
"""

from __future__ import annotations

__all__ = ["install_hint", "missing_extra"]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, and where to run it.

    >>> install_hint("rl")
    "pip install -e '.[rl]' in a checkout of sheepshead (it is not on PyPI)"
    """
    return f"pip install -e '.[{extra}]' in a checkout of sheepshead (it is not on PyPI)"


def missing_extra(module: str, extra: str, missing: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error to raise when ``module`` cannot import a package of ``extra``: it says which
    package, which extra and how to install it, where a bare ``No module named 'gymnasium'``
    said neither. ``module`` wraps its imports of the extra's packages::

        try:
            import gymnasium
        except ModuleNotFoundError as missing:
            raise missing_extra("botkit.env", "rl", missing) from None
    """
    return ModuleNotFoundError(
        f"{module} needs {missing.name or missing} (the {extra} extra), which is not installed "
        f"here: {install_hint(extra)}",
        name=missing.name,
    )
