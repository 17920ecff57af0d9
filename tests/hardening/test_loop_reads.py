"""The reads made on the event loop (a 304's ETag): on PostgreSQL from psycopg_pool's
AsyncConnectionPool, each seeing the last committed row; with the database away they give
way to the thread pool (which answers 503) within a fraction of a second."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from sqlalchemy import text

from app.kit.db import make_database
from app.kit.db.engine import LoopReadUnavailable
from app.kit.settings import Settings

from .conftest import needs_postgres


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once closed


def test_an_unreachable_postgres_gives_way_to_the_thread_pool_at_once():
    db = make_database(
        Settings(database_url=f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/none")
    )

    async def reads() -> list[float]:
        took = []
        try:
            for _ in range(3):
                started = time.monotonic()
                with pytest.raises(LoopReadUnavailable):
                    await db.read_one_async("SELECT 1 WHERE 1 = ?", (1,))
                took.append(time.monotonic() - started)
        finally:
            await db.close_loop_reads()
        return took

    try:
        took = asyncio.run(reads())
    finally:
        db.dispose()
    # The pool's wait (LOOP_CONNECTION_WAIT, 0.1 s) and no more; generous for a busy machine.
    assert max(took) < 2.0, took


@needs_postgres
def test_each_loop_read_sees_the_last_commit_and_reuses_its_connections(fresh_db):
    db = make_database(Settings(database_url=fresh_db, pg_loop_connections=2))
    with db.engine.begin() as conn:
        conn.execute(text("CREATE TABLE loop_probe (id int PRIMARY KEY, n int)"))
        conn.execute(text("INSERT INTO loop_probe VALUES (1, 0)"))

    async def scenario() -> None:
        try:
            for n in range(1, 6):
                with db.engine.begin() as conn:  # another connection commits
                    conn.execute(text("UPDATE loop_probe SET n = :n WHERE id = 1"), {"n": n})
                assert await db.read_one_async("SELECT n FROM loop_probe WHERE id = ?", (1,)) == (n,)
            # More reads at once than connections: each is answered or gives way, none fails.
            outcomes = await asyncio.gather(
                *(
                    db.read_one_async("SELECT n FROM loop_probe, pg_sleep(0.05) WHERE id = ?", (1,))
                    for _ in range(6)
                ),
                return_exceptions=True,
            )
            assert all(o == (5,) or isinstance(o, LoopReadUnavailable) for o in outcomes), outcomes
            assert sum(o == (5,) for o in outcomes) >= 2
            stats = db._pg_pools[asyncio.get_running_loop()].get_stats()
            assert stats["pool_size"] <= 2, stats
        finally:
            await db.close_loop_reads()
        assert not db._pg_pools

    try:
        asyncio.run(scenario())
    finally:
        db.dispose()
