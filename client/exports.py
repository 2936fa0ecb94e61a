"""The quota of exported hand records: a folder of them keeps the newest ``MAX_FILES`` files
and ``MAX_BYTES`` bytes at most, the oldest dropped first.

Every export path (``SheepsheadApp.export_hand``: ``x`` at the table, in a hand's result and in
the history) calls :func:`enforce_quota` after writing. Without it, an SSH player who holds
``x`` in a watched table wrote a new file per press into their directory on the server, never
pruned (some 350 MB an hour per session).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Final

MAX_FILES: Final = 50
"""Exported records a folder keeps, by default."""

MAX_BYTES: Final = 20 << 20
"""Bytes of exported records a folder keeps, by default."""


def enforce_quota(
    folder: Path,
    *,
    keep: Path | None = None,
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
) -> list[Path]:
    """Delete the oldest ``*.json`` files in ``folder`` until at most ``max_files`` of them,
    of ``max_bytes`` together, are left; ``keep`` (the file just written) is never deleted.
    Returns the deleted files. Files that vanish or cannot be deleted meanwhile are skipped.

    >>> import tempfile, os
    >>> folder = Path(tempfile.mkdtemp())
    >>> for n in range(4):
    ...     _ = (folder / f"h{n}.json").write_text("x" * 10)
    ...     os.utime(folder / f"h{n}.json", (n, n))
    >>> [p.name for p in enforce_quota(folder, max_files=2)]
    ['h0.json', 'h1.json']
    >>> [p.name for p in enforce_quota(folder, max_bytes=15, keep=folder / "h2.json")]
    ['h3.json']
    """
    files: list[tuple[float, str, int, Path]] = []
    for path in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            stat = path.stat()
            files.append((stat.st_mtime, path.name, stat.st_size, path))
    files.sort()
    count = len(files)
    total = sum(size for _, _, size, _ in files)
    deleted: list[Path] = []
    for _, _, size, path in files:
        if count <= max_files and total <= max_bytes:
            break
        if keep is not None and path == keep:
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        else:
            deleted.append(path)
        count -= 1
        total -= size
    return deleted
