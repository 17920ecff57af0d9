"""The reads made on the event loop (a 304's ETag): on PostgreSQL from psycopg_pool's
AsyncConnectionPool at the libpq level (app/kit/db/loop_reads.py), each seeing the last
committed row, a connection that failed under a read never used again; with the database
away they give way to the thread pool (which answers 503) within a fraction of a second."""

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


def _loop_db(url: str, **settings: object):
    return make_database(Settings(database_url=url, **settings))  # type: ignore[arg-type]


_PID = "SELECT pg_backend_pid() WHERE 1 = ?"


def _on_loop(db, scenario):
    """``scenario()`` run on a new event loop, its loop reads closed on that loop, then the database."""

    async def closing():
        try:
            return await scenario()
        finally:
            await db.close_loop_reads()

    try:
        return asyncio.run(closing())
    finally:
        db.dispose()


@needs_postgres
def test_a_connection_broken_under_a_read_is_not_used_again(fresh_db):
    db = _loop_db(fresh_db, pg_loop_connections=1)

    async def scenario() -> None:
        (pid,) = await db.read_one_async(_PID, (1,)) or (None,)
        with db.engine.begin() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with pytest.raises(LoopReadUnavailable):
            await db.read_one_async(_PID, (1,))
        (again,) = await db.read_one_async(_PID, (1,)) or (None,)
        assert again is not None and again != pid

    _on_loop(db, scenario)


@needs_postgres
def test_a_read_cancelled_mid_statement_leaves_no_connection_behind(fresh_db):
    db = _loop_db(fresh_db, pg_loop_connections=1)

    async def scenario() -> None:
        (pid,) = await db.read_one_async(_PID, (1,)) or (None,)
        slow = asyncio.ensure_future(db.read_one_async("SELECT 1, pg_sleep(5) WHERE 1 = ?", (1,)))
        await asyncio.sleep(0.2)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        # Its connection was closed, not handed to the next read with a statement in flight.
        (again,) = await db.read_one_async(_PID, (1,)) or (None,)
        assert again is not None and again != pid

    _on_loop(db, scenario)


@needs_postgres
def test_a_failing_statement_gives_way_and_the_next_read_is_answered(fresh_db):
    db = _loop_db(fresh_db, pg_loop_connections=1)

    async def scenario() -> None:
        with pytest.raises(LoopReadUnavailable):
            await db.read_one_async("SELECT 1 / (1 - ?)", (1,))
        assert await db.read_one_async("SELECT 2 WHERE 1 = ?", (1,)) == (2,)
        assert await db.read_one_async("SELECT 3 WHERE 1 = ?", (2,)) is None

    _on_loop(db, scenario)


@needs_postgres
@pytest.mark.parametrize("prepared", [True, False])
def test_loop_reads_prepare_their_statement_only_when_allowed(fresh_db, prepared):
    # db_prepared_statements off (e.g. behind a transaction-pooling PgBouncer): nothing kept
    # on the server; on, one statement prepared per connection and reused.
    db = _loop_db(fresh_db, pg_loop_connections=1, db_prepared_statements=prepared)
    count = "SELECT count(*) FROM pg_prepared_statements WHERE 1 = ?"

    async def scenario() -> list[tuple[object, ...] | None]:
        return [await db.read_one_async(count, (1,)) for _ in range(3)]

    counts = _on_loop(db, scenario)
    assert counts == ([(1,)] * 3 if prepared else [(0,)] * 3)


@needs_postgres
def test_loop_reads_take_any_parameter_and_load_psycopgs_types(fresh_db):
    db = _loop_db(fresh_db)

    async def scenario() -> list[tuple[object, ...] | None]:
        return [
            await db.read_one_async(
                "SELECT ?::text, ?::int8, ?::numeric, ?::text IS NULL", ("é ?", 7, None, None)
            ),
            await db.read_one_async("SELECT ?::float8, ?::bool", (0.5, True)),  # psycopg's dumpers
        ]

    rows = _on_loop(db, scenario)
    assert rows == [("é ?", 7, None, True), (0.5, True)]


@needs_postgres
def test_a_read_beyond_the_bound_waits_for_a_connection_then_gives_way(fresh_db):
    db = _loop_db(fresh_db, pg_loop_connections=1, loop_connection_wait=0.1)

    async def scenario() -> None:
        (pid,) = await db.read_one_async(_PID, (1,)) or (None,)
        slow = asyncio.ensure_future(
            db.read_one_async("SELECT pg_backend_pid(), pg_sleep(0.6) WHERE 1 = ?", (1,))
        )
        await asyncio.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(LoopReadUnavailable):
            await db.read_one_async(_PID, (1,))
        assert time.monotonic() - started >= 0.09  # it waited for the busy connection
        assert (await slow or (None,))[0] == pid
        # The connection went back to the pool after its read and serves the next one.
        assert await db.read_one_async(_PID, (1,)) == (pid,)
        stats = db._pg_pools[asyncio.get_running_loop()].get_stats()
        assert stats["pool_size"] == 1 and stats.get("requests_errors", 0) == 1, stats

    _on_loop(db, scenario)
