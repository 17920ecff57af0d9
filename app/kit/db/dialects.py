"""The engines per dialect (``make_engine``; the replica's, ``make_read_engine``).

SQLite: WAL, a busy timeout, and writing transactions that start with BEGIN IMMEDIATE
(SQLAlchemy's pysqlite recipe: pysqlite's own transaction handling is switched off and the
"begin" event emits the BEGIN), so concurrent writers wait for each other instead of failing
with "database is locked". Read-only sessions begin DEFERRED so readers never queue behind
writers (WAL lets them read the last committed state).

PostgreSQL: a plain pooled engine; writers lock the table row with SELECT ... FOR UPDATE.

The pool is sized to the worker thread pool (pool_size + max_overflow == threads): a sync
endpoint holds at most one connection at a time, so no thread can wait forever for a pool
slot held by another waiting thread.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext, make_url

from app.kit.settings import Settings

# Execution options the engines' events read (app/kit/db/engine.py sets them): a read-only
# transaction (SQLite: BEGIN DEFERRED), and a lookup (one statement, no transaction).
READONLY = "prefscore_readonly"
LOOKUP = "prefscore_lookup"


def _sqlite_events(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy (the "begin" event below) decide when transactions start.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(LOOKUP):
            return  # one statement, in SQLite's own autocommit mode: it is its own transaction
        if conn.get_execution_options().get(READONLY):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(settings: Settings) -> Engine:
    url = make_url(settings.database_url)
    threads = max(1, settings.threads)
    pool_size = max(1, min(threads, settings.db_pool_size))
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:"):
            raise ValueError("prefscore needs a SQLite file (sqlite:///path.db), not an in-memory database")
        engine = create_engine(
            url,
            pool_size=pool_size,
            max_overflow=max(0, threads - pool_size),
            pool_timeout=settings.db_pool_timeout,
            connect_args={"check_same_thread": False, "timeout": settings.sqlite_busy_timeout_ms / 1000},
        )
        _sqlite_events(engine, settings.sqlite_busy_timeout_ms)
        return engine
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=max(0, threads - pool_size),
        pool_timeout=settings.db_pool_timeout,
        # The connection given back last is lent first: in a quiet moment one connection
        # serves one request after another, so psycopg prepares a rare statement (its fifth
        # run on a connection) where a pool lending its connections in turn never would.
        pool_use_lifo=True,
        # No pool_pre_ping: it costs a round trip on every checkout, that is on every
        # transaction. A connection broken by a database restart raises a disconnect error
        # on its first use instead; SQLAlchemy then invalidates the whole pool, so one
        # request per worker fails (503) and the next ones get fresh connections.
        connect_args=_pg_connect_args(settings, url.get_driver_name())
        if url.get_backend_name() == "postgresql"
        else {},
    )
    if url.get_backend_name() == "postgresql":
        _pg_events(engine)
    return engine


def _pg_events(engine: Engine) -> None:
    @event.listens_for(engine, "handle_error")
    def _read_only_is_gone(context: ExceptionContext) -> None:
        # "cannot execute ... in a read-only transaction": a failover demoted the server this
        # pool reached (or it is a standby). Its connections are dropped like lost ones, so
        # that the next ones are made afresh, through the balancer, to the new leader.
        if getattr(context.original_exception, "sqlstate", None) == "25006":
            context.is_disconnect = True


def _pg_connect_args(settings: Settings, driver: str) -> dict[str, object]:
    args: dict[str, object] = {"connect_timeout": settings.db_connect_timeout}
    if driver == "psycopg" and not settings.db_prepared_statements:
        # Behind PgBouncer in transaction mode each transaction may get another server
        # connection: a statement psycopg prepared on one is missing (or taken) on the next.
        args["prepare_threshold"] = None
    return args


def make_read_engine(settings: Settings) -> Engine | None:
    """The replica's engine, when ``read_database_url`` names one beside a PostgreSQL leader."""
    if not settings.read_database_url or make_url(settings.database_url).get_backend_name() != "postgresql":
        return None
    return make_engine(settings.model_copy(update={"database_url": settings.read_database_url}))
