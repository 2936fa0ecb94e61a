"""A long event-loop pass does not hold every frame until its end: the batch is flushed (commit
first) once it is ``BATCH_SECONDS`` old."""

from __future__ import annotations

import time

from protocol import events as m
from protocol.framing import encode
from server.app import BATCH_CHECK, BATCH_SECONDS

from .support import Raw, running_server


async def test_a_long_pass_flushes_its_batch_early_and_commits_first() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        await raw.hello()
        (conn,) = server.connections
        store = server.store
        assert store is not None
        store.commit()
        before = store.commits
        frame = encode(m.notice(table=None, code="test", text="hi", seat=None))
        # Within one callback, as in one long pass: a write, then frames after a slow stretch.
        store.create_table({"name": "t"}, created=0.0)
        server.queue(conn, frame)
        time.sleep(BATCH_SECONDS * 2)
        for _ in range(BATCH_CHECK):
            server.queue(conn, frame)
        # Flushed before the pass ended, and the write before the frames was committed first.
        assert store.commits == before + 1 and not store.dirty
        received = [await raw.recv() for _ in range(BATCH_CHECK + 1)]
        assert {msg["code"] for msg in received} == {"test"}
        await raw.close()
