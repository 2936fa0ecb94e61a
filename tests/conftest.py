"""Every test process collects garbage as a server does (``ServerConfig.gc_thresholds``).

With the interpreter's thresholds a test process, holding every imported module and Textual's
widgets, walked its whole heap every 70,000 allocations: a fifth of the client tests' CPU.
Once the tests are collected, what is alive is frozen (no collection walks it again) and the
server's thresholds apply (``Server.start`` set them in whichever process a test started a
server in, so a process's tests ran under either, depending on their order).
"""

from __future__ import annotations

import gc

import pytest

from server.config import ServerConfig


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection left alive and take the server's thresholds."""
    thresholds = ServerConfig().gc_thresholds
    assert thresholds is not None
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
