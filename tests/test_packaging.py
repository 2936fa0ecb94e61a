"""What an install from a wheel (and the compiled build, made by the same ``build_py``) carries.

Setuptools copies only ``.py`` files of a package unless ``pyproject.toml`` names its other
files; a file the program reads at run time that is not named there is missing from every
install but the editable one, which is why the checks read the configuration, not the checkout.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server", "client", "botkit")


def _package_data() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data: dict[str, list[str]] = config["tool"]["setuptools"].get("package-data", {})
    return data


def _shipped(path: Path, data: dict[str, list[str]]) -> bool:
    """Whether ``package-data`` names ``path`` (patterns are relative to their package)."""
    for package, patterns in data.items():
        folder = ROOT / package.replace(".", "/")
        if folder in path.parents:
            relative = path.relative_to(folder).as_posix()
            if any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
                return True
    return False


def test_every_file_the_packages_read_at_run_time_is_package_data() -> None:
    data = _package_data()
    others = [
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.is_file()
        and path.suffix not in {".py", ".pyc", ".so", ".c", ".h"}
        and "__pycache__" not in path.parts
    ]
    assert others, "the client's stylesheet at least is not Python"
    missing = [str(path.relative_to(ROOT)) for path in others if not _shipped(path, data)]
    assert not missing, f"not in [tool.setuptools.package-data] of pyproject.toml: {missing}"


def test_the_client_stylesheet_is_shipped() -> None:
    assert _shipped(ROOT / "client" / "styles.tcss", _package_data())
