"""The baseline the service is measured against: the same stack with nothing of its own.

FastAPI + uvicorn + SQLAlchemy 2 on the same database, with two endpoints:

- ``POST /insert``: takes a JSON object (the bench sends it a deal body) and inserts it as one
  row in one committed transaction (ORM session, like the service's use cases);
- ``GET /fixed``: returns a fixed JSON object.

Both are plain ``def`` endpoints with a declared return type, as the service's are, so both
run on the same thread pool and serialise through pydantic-core. The database is set up the
way the service sets up its own (SQLite: WAL, ``synchronous=NORMAL``, a busy timeout,
``BEGIN IMMEDIATE`` for writers; PostgreSQL: a pooled psycopg engine), and the pool is sized
to the thread pool of 40, so a ratio service/baseline measures the service's own work and
not a difference of configuration.

Run it with ``uvicorn --factory bench.baseline:create_app``; the database is ``DATABASE_URL``.
The bench creates its one table ``bench_rows`` (it is not part of the service's schema).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any

from fastapi import Body, FastAPI
from pydantic import BaseModel
from sqlalchemy import JSON, DateTime, Engine, Integer, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

THREADS = 40


class Base(DeclarativeBase):
    pass


class BenchRow(Base):
    __tablename__ = "bench_rows"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Inserted(BaseModel):
    id: int


class Fixed(BaseModel):
    status: str
    service: str
    version: int


FIXED = Fixed(status="ok", service="baseline", version=1)


def make_engine(database_url: str) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        engine = create_engine(
            url,
            pool_size=10,
            max_overflow=THREADS - 10,
            pool_timeout=60,
            connect_args={"check_same_thread": False, "timeout": 10},
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):  # noqa: ANN001
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("PRAGMA busy_timeout = 10000")
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = NORMAL")
            finally:
                cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn):  # noqa: ANN001
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_size=10, max_overflow=THREADS - 10, pool_timeout=60, pool_pre_ping=True)


def create_app(database_url: str | None = None) -> FastAPI:
    engine = make_engine(database_url or os.environ["DATABASE_URL"])
    Base.metadata.create_all(engine)  # idempotent; every worker may run it
    sessions = sessionmaker(engine, expire_on_commit=False)
    app = FastAPI(title="prefscore bench baseline", openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/insert", status_code=201)
    def insert(body: dict[str, Any] = Body(...)) -> Inserted:
        with sessions.begin() as session:
            row = BenchRow(body=body, created_at=datetime.now(timezone.utc))
            session.add(row)
            session.flush()
            return Inserted(id=row.id)

    @app.get("/fixed")
    def fixed() -> Fixed:
        return FIXED

    @app.get("/health")
    def health() -> Fixed:
        return FIXED

    return app


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.baseline --port P --workers N``: uvicorn with the settings that
    ``prefscore serve`` uses (factory, proxy headers, log level info with its access log)."""
    import argparse

    import uvicorn

    p = argparse.ArgumentParser(prog="python -m bench.baseline")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8001)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    uvicorn.run(
        "bench.baseline:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        proxy_headers=True,
        log_level="info",
    )


if __name__ == "__main__":
    main()
