"""The ways into the database (``Database``): a writing transaction, a read, a lookup, a read
on the event loop, each per dialect; the engines themselves are made in ``dialects.py``.

SQLite has one writer at a time: this process's writers queue on a lock and are woken as the
writer before them commits. PostgreSQL: writers lock the table row with SELECT ... FOR UPDATE.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, sessionmaker

from app.kit.db.dialects import LOOKUP, READONLY, make_engine, make_read_engine
from app.kit.db.outage import is_outage
from app.kit.db.replicas import NEVER, current_visit, parse_position, replayed_enough
from app.kit.observability import metrics
from app.kit.settings import Settings, default_of


class LoopReadUnavailable(Exception):
    """An event-loop read could not be made here; make it in the thread pool instead."""


class Database:
    """The ways into the database, one per need (the repositories take what these give):

    - ``write()``: one transaction that locks as it writes, as an ORM Session; ``write_core()``
      the same transaction, lock and queue as a plain Connection, for a use case that writes
      with Core statements only (posting a deal, the rate limit's counter): a Session around
      a transaction costs more than the post's own statements (docs/performance.md);
    - ``read()``: a consistent read of several statements (a Session);
    - ``lookup()``: one read-only statement without a transaction around it;
    - ``read_one_async()``: one read-only statement on the event loop (the sheet's ETag
      before its 304).

    The transactions commit or roll back on leaving the block, so a use case has committed
    before it returns."""

    def __init__(
        self,
        engine: Engine,
        *,
        loop_busy_timeout_ms: int = default_of("sqlite_loop_busy_timeout_ms"),
        pg_loop_connections: int = default_of("pg_loop_connections"),
        pg_prepare: bool = default_of("db_prepared_statements"),
        loop_connection_wait: float = default_of("loop_connection_wait"),
        loop_reconnect_timeout: float = default_of("loop_reconnect_timeout"),
        write_probe_interval: float = default_of("write_probe_interval"),
        write_probe_busy_ms: int = default_of("write_probe_busy_ms"),
        read_engine: Engine | None = None,
    ):
        self.engine = engine
        self._set_replica(engine, read_engine)
        self._disposed = False
        for pooled in (engine, read_engine):
            if pooled is not None:
                event.listen(pooled, "checkin", self._close_if_disposed)
        self._loop_connection_wait = loop_connection_wait
        self._loop_reconnect_timeout = loop_reconnect_timeout
        self._write_probe_busy_ms = write_probe_busy_ms
        self._loop_busy_timeout_ms = loop_busy_timeout_ms
        self._pg_loop_connections = pg_loop_connections
        self._pg_prepare = {} if pg_prepare else {"prepare_threshold": None}
        self.dialect = engine.dialect.name
        self._writer = sessionmaker(engine, expire_on_commit=False)
        self._write_lock = threading.RLock() if self.dialect == "sqlite" else None
        self._reader = sessionmaker(engine.execution_options(**{READONLY: True}), expire_on_commit=False)
        lookup: dict[str, Any] = {READONLY: True, LOOKUP: True}
        if self.dialect != "sqlite":
            # Not on SQLite: pysqlite's AUTOCOMMIT would be reset to its own transaction handling
            # on check-in, which the BEGIN IMMEDIATE recipe (dialects.py) switches off.
            lookup["isolation_level"] = "AUTOCOMMIT"
        self._lookup = engine.execution_options(**lookup)
        self._loop_conns = threading.local()
        self._loop_all: list[sqlite3.Connection] = []
        self._loop_lock = threading.Lock()
        # A plain file path only (a "file:" URI with options is left to the pooled engine).
        database = engine.url.database if self.dialect == "sqlite" and not engine.url.query else None
        self._sqlite_path = database or None
        self._pg_conninfo = (
            engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            if self.dialect == "postgresql" and engine.url.get_driver_name() == "psycopg"
            else None
        )
        # One AsyncConnectionPool per event loop (see read_one_async).
        self._pg_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )
        self.write_probe_interval = write_probe_interval
        self._probe_lock = threading.Lock()
        self._probe_at = float("-inf")
        self._probe_answer: tuple[str, str] | None = None

    def _set_replica(self, engine: Engine, read_engine: Engine | None) -> None:
        # A streaming replica for the reads a replica may serve (app/kit/db/replicas.py).
        self.read_engine = read_engine if engine.dialect.name == "postgresql" else None
        self._replica_reader = (
            sessionmaker(self.read_engine.execution_options(**{READONLY: True}), expire_on_commit=False)
            if self.read_engine is not None
            else None
        )
        self._position_lookup = (
            engine.execution_options(isolation_level="AUTOCOMMIT") if self.read_engine is not None else None
        )
        # Reads of replica-servable routes: served by the replica, and sent to the leader
        # because the replica had not replayed the client's write yet.
        self.replica_reads = 0
        self.leader_reads = 0

    # Reads on the event loop, for the one read that is worth it (a sheet's ETag before its
    # 304, app/kit/preconditions.py): a point read without a thread-pool round trip.
    #
    # SQLite: a point read of a WAL database is a few microseconds and never waits for a
    # writer (WAL readers see the last committed state), so it costs less than the thread-pool
    # round trip a sync endpoint needs. Each thread (in the server: the one event-loop thread)
    # has its own plain sqlite3 connection in autocommit mode, so each statement reads the
    # file's current committed state, written by this process or any other.
    #
    # PostgreSQL: psycopg_pool's AsyncConnectionPool per event loop (a psycopg async
    # connection waits on the loop it is used from), its connections in autocommit (one
    # statement, no BEGIN/ROLLBACK, so each read sees the last committed row). The statement
    # goes through psycopg's libpq wrapper, prepared once per connection unless
    # db_prepared_statements is off (loop_reads.py); a read that fails or is cancelled closes
    # its connection, which the pool then discards. When no connection comes within
    # LOOP_CONNECTION_WAIT (all busy, or the database away), or on any error, the caller
    # gets LoopReadUnavailable and uses the pooled engine in the thread pool instead (which
    # answers 503 if the database is away).
    @property
    def reads_on_loop(self) -> bool:
        return self._sqlite_path is not None or self._pg_conninfo is not None

    def _sqlite_read_one(self, path: str, sql: str, params: tuple) -> tuple | None:  # type: ignore[type-arg]
        conn = getattr(self._loop_conns, "conn", None)
        if conn is None:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self._loop_busy_timeout_ms)}")
            conn.execute("PRAGMA query_only = ON")
            self._loop_conns.conn = conn
            with self._loop_lock:
                self._loop_all.append(conn)
        # fetchall() steps the statement to its end, which ends its implicit read transaction
        # at once (a statement left open would pin an old snapshot of the file).
        rows: list[tuple[Any, ...]] = conn.execute(sql, params).fetchall()
        return rows[0] if rows else None

    async def read_one_async(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """One row of one read-only statement (raw DB-API SQL, ``?`` parameters), read on the
        event loop, or None; raises LoopReadUnavailable when the caller should use the thread
        pool (``reads_on_loop`` false, busy, an error)."""
        if self._sqlite_path is not None:
            try:
                return self._sqlite_read_one(self._sqlite_path, sql, params)
            except sqlite3.Error as exc:
                raise LoopReadUnavailable(str(exc)) from exc
        if self._pg_conninfo is None:
            raise LoopReadUnavailable("no reads on the loop for this database")
        import psycopg

        from app.kit.db.loop_reads import PointReadFailed, encodable, point_read

        pool = await self._loop_pool(self._pg_conninfo)
        try:
            # getconn/putconn, not pool.connection(): its connection's own context (a commit
            # or rollback call, nothing to do in autocommit) doubles the checkout's CPU.
            conn = await pool.getconn(timeout=self._loop_connection_wait)
            try:
                if encodable(params):
                    # At the libpq level, prepared once per connection (loop_reads.py): a
                    # fifth of the CPU of conn.execute; not prepared when prepared statements
                    # are off (``_pg_prepare`` then holds psycopg's override). A failed read
                    # closes its connection.
                    return await point_read(conn, sql, params, prepare=not self._pg_prepare)
                cur = await conn.execute(sql.replace("?", "%s"), params)
                rows = await cur.fetchall()
            finally:
                await pool.putconn(conn)
        except (psycopg.Error, PointReadFailed) as exc:  # PoolTimeout, PoolClosed are psycopg's
            # The pool drops a closed or broken connection (and one returned mid-statement).
            raise LoopReadUnavailable(str(exc)) from exc
        return rows[0] if rows else None

    async def _loop_pool(self, conninfo: str) -> Any:
        from psycopg_pool import AsyncConnectionPool

        loop = asyncio.get_running_loop()
        pool = self._pg_pools.get(loop)
        if pool is None:
            assert self._pg_conninfo is not None  # read_one_async asks only then
            pool = AsyncConnectionPool(
                conninfo,
                kwargs={"autocommit": True, "connect_timeout": 5, **self._pg_prepare},
                # Made when asked for (a process that never answers a 304 opens none),
                # at most pg_loop_connections, closed after 10 idle minutes.
                min_size=0,
                max_size=self._pg_loop_connections,
                open=False,
                name="prefscore-loop-reads",
                # No check on checkout (a round trip per read, what pool_pre_ping cost); a
                # broken connection fails its statement and the pool discards it.
                # After a failed connection attempt the pool retries with backoff; giving
                # up soon lets the next read start a new attempt at once when the database
                # is back, instead of waiting for a backoff grown long during an outage.
                reconnect_timeout=self._loop_reconnect_timeout,
            )
            await pool.open(wait=False)
            self._pg_pools[loop] = pool
        return pool

    async def close_loop_reads(self) -> None:
        """Close the event-loop connections of the running loop (the app's lifespan, at
        shutdown: a pool's connections and tasks belong to its loop)."""
        pool = self._pg_pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await pool.close(timeout=1.0)

    @contextmanager
    def write(self) -> Iterator[Session]:
        if self._write_lock is None:
            with self._writer.begin() as session:
                yield session
            self._note_write()
            return
        # SQLite has one writer at a time. Threads of this process queue here and are woken
        # as soon as the writer before them commits; left to BEGIN IMMEDIATE they would poll
        # with SQLite's busy handler, which sleeps longer and longer (up to 100 ms) between
        # tries. Other processes on the same file still wait through the busy timeout.
        with self._write_lock:
            with self._writer.begin() as session:
                yield session

    @contextmanager
    def write_core(self) -> Iterator[Connection]:
        """``write()`` as a plain Connection, for a use case that writes with Core statements
        only (posting a deal): the same transaction, lock and queue without the Session's
        layer over each statement (docs/performance.md)."""
        if self._write_lock is None:
            with self.engine.begin() as conn:
                yield conn
            self._note_write()
            return
        with self._write_lock:
            with self.engine.begin() as conn:
                yield conn

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A consistent read: on the replica when the request's route may be served there
        and the replica has replayed the client's last write (app/kit/db/replicas.py), else
        on the leader."""
        replica = self._replica_session() if self._replica_reader is not None else None
        # Closing ends the transaction (a rollback) and keeps loaded objects readable.
        with replica or self._reader() as session:
            yield session

    def _replica_session(self) -> Session | None:
        visit = current_visit()
        if visit is None or not visit.may_use_replica():
            return None
        assert self._replica_reader is not None
        session = self._replica_reader()
        if visit.position is not None:
            # In the read's own transaction: its later statements see at least this much.
            try:
                replayed = session.execute(text("SELECT pg_last_wal_replay_lsn()")).scalar()
            except Exception as exc:
                session.close()
                if is_outage(exc):
                    self._counted("leader")
                    return None  # the replica is away: the leader serves
                raise
            if not replayed_enough(replayed, visit.position):
                session.close()
                self._counted("leader")
                return None
        self._counted("replica")
        return session

    def _counted(self, server: str) -> None:
        if server == "replica":
            self.replica_reads += 1
        else:
            self.leader_reads += 1
        metrics().replica_reads.labels(server).inc()

    def _note_write(self) -> None:
        """After a committed write of a request, when reads may go to a replica: the leader's
        WAL position, which the client gets back (app/kit/middleware/read_your_writes.py)."""
        if self._position_lookup is None:
            return
        visit = current_visit()
        if visit is None:
            return
        try:
            with self._position_lookup.connect() as conn:
                visit.wrote(
                    parse_position(conn.exec_driver_sql("SELECT pg_current_wal_lsn()").scalar()) or NEVER
                )
        except Exception:  # noqa: BLE001 - committed all the same; its reads go to the leader
            visit.wrote(NEVER)

    @contextmanager
    def lookup(self) -> Iterator[Connection]:
        """A connection for one read-only statement (an API key, a sheet's ETag) run without
        a transaction around it: no BEGIN and no ROLLBACK round trips. A single statement
        sees one consistent snapshot by itself; use ``read()`` for more than one."""
        with self._lookup.connect() as conn:
            yield conn

    def write_problem(self) -> str | None:
        """Why this database cannot be written, as far as can be told without writing: for
        a SQLite file, a file or a directory (where SQLite keeps its WAL and journal) this
        process may not write. None when nothing is known to be wrong."""
        if self.dialect != "sqlite" or not self.engine.url.database:
            return None
        path = os.path.abspath(self.engine.url.database)
        if os.path.exists(path) and not os.access(path, os.W_OK):
            return f"the SQLite file {path} is not writable by this process"
        directory = os.path.dirname(path)
        if not os.access(directory, os.W_OK):
            return f"the directory {directory} of the SQLite file is not writable by this process (SQLite keeps its journal there)"
        return None

    def write_probe_due(self) -> bool:
        """The next ``write_probe`` writes (else it answers its last answer at once)."""
        return time.monotonic() - self._probe_at >= self.write_probe_interval

    def write_probe(self) -> tuple[str, str] | None:
        """Whether a write can be committed now, found by committing one: None, or (state,
        why) with state "full" or "read-only". Throttled: one probe per
        ``write_probe_interval`` seconds and process, the answer reused in between.

        SQLite: ``PRAGMA user_version`` set to its own value in a BEGIN IMMEDIATE
        transaction, a one-page commit to the WAL, which fails as a deal's post does when
        the disk is full ("database or disk is full"); BEGIN IMMEDIATE and a rollback alone
        write nothing and would pass. While a writer is at work (this process's or, beyond
        ``write_probe_busy_ms``, another's) the database is being written: the last answer
        stands. PostgreSQL: the server takes writes (not a standby in recovery, not
        read-only by default)."""
        if time.monotonic() - self._probe_at < self.write_probe_interval or not self._probe_lock.acquire(
            blocking=False
        ):
            return self._probe_answer
        try:
            answer = self._probe_sqlite() if self.dialect == "sqlite" else self._probe_postgresql()
            if answer != "busy":
                self._probe_answer = answer  # type: ignore[assignment]
                self._probe_at = time.monotonic()
            return self._probe_answer
        finally:
            self._probe_lock.release()

    def _probe_sqlite(self) -> tuple[str, str] | str | None:
        lock = self._write_lock
        if lock is None or not lock.acquire(blocking=False):
            return "busy"
        try:
            # No BEGIN from the "begin" event: the probe sets a short busy timeout first.
            with self.engine.connect().execution_options(**{LOOKUP: True}) as conn:
                busy = conn.exec_driver_sql("PRAGMA busy_timeout").scalar()
                conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(self._write_probe_busy_ms)}")
                try:
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    try:
                        version = int(conn.exec_driver_sql("PRAGMA user_version").scalar() or 0)
                        conn.exec_driver_sql(f"PRAGMA user_version = {version}")
                        conn.exec_driver_sql("COMMIT")
                    except sa_exc.DBAPIError:
                        try:
                            conn.exec_driver_sql("ROLLBACK")
                        except sa_exc.DBAPIError:
                            pass  # SQLite rolled back itself
                        raise
                except sa_exc.OperationalError as exc:
                    why = str(exc.orig)
                    if "locked" in why or "busy" in why:
                        return "busy"
                    if "full" in why:
                        return (
                            "full",
                            f"a write cannot be committed: {why} (the disk of the SQLite file, or its size limit)",
                        )
                    return "read-only", f"a write cannot be committed: {why}"
                finally:
                    conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(busy or 0)}")
        finally:
            lock.release()
        return None

    def _probe_postgresql(self) -> tuple[str, str] | None:
        if self.dialect != "postgresql":
            return None
        with self._lookup.connect() as conn:
            recovery, read_only = conn.execute(
                text("SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only')")
            ).one()
        if recovery:
            return "read-only", "the PostgreSQL server is a standby in recovery: it takes no writes"
        if read_only == "on":
            return (
                "read-only",
                "the PostgreSQL server makes transactions read-only (default_transaction_read_only)",
            )
        return None

    def ping(self) -> None:
        with self.engine.connect().execution_options(**{READONLY: True}) as conn:
            conn.execute(text("SELECT 1"))

    def _close_if_disposed(self, _dbapi_connection: Any, record: Any) -> None:
        # A connection still out when dispose() ran (a request's or a worker's thread ending
        # after its app stopped) comes back to a pool no one holds: closed here, on its way
        # in, rather than left open for the garbage collector (psycopg warns of that).
        if self._disposed:
            record.invalidate()

    def dispose(self) -> None:
        self._disposed = True
        with self._loop_lock:
            conns, self._loop_all[:] = list(self._loop_all), []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._loop_conns = threading.local()
        # Pools still open here belong to loops whose app did not close them
        # (close_loop_reads): close them on their own loop if it still runs.
        pools, self._pg_pools = list(self._pg_pools.items()), weakref.WeakKeyDictionary()
        for loop, pool in pools:
            if not loop.is_closed():
                try:
                    asyncio.run_coroutine_threadsafe(pool.close(timeout=1.0), loop)
                except RuntimeError:
                    pass
        self.engine.dispose()
        if self.read_engine is not None:
            self.read_engine.dispose()


def make_database(settings: Settings) -> Database:
    return Database(
        make_engine(settings),
        loop_busy_timeout_ms=settings.sqlite_loop_busy_timeout_ms,
        pg_loop_connections=settings.pg_loop_connections,
        pg_prepare=settings.db_prepared_statements,
        loop_connection_wait=settings.loop_connection_wait,
        loop_reconnect_timeout=settings.loop_reconnect_timeout,
        write_probe_interval=settings.write_probe_interval,
        write_probe_busy_ms=settings.write_probe_busy_ms,
        read_engine=make_read_engine(settings),
    )
