"""The baseline the service is measured against: the same stack with nothing of its own.

FastAPI + uvicorn + SQLAlchemy 2 on the same database, with two endpoints:

- ``POST /insert``: takes a JSON object (the bench sends it a deal body) and inserts it as one
  row in one committed transaction (ORM session, like the service's use cases);
- ``GET /fixed``: returns a fixed JSON object;
- ``GET /select/{id}``: reads one row by primary key (two columns, one Core SELECT through
  ``db.lookup()``, the path the service's key lookup and ETag read take), 404 when absent. It
  tells what one database read per request costs on this stack.

All are plain ``def`` endpoints with a declared return type, as the service's are, so both
run on the same thread pool and serialise through pydantic-core. The database is opened with
the service's own ``app.kit.db.make_database`` (SQLite: WAL, ``synchronous=NORMAL``, a busy
timeout, ``BEGIN IMMEDIATE`` for writers and their in-process queue; PostgreSQL: the same
pooled psycopg engine, sized to the thread pool), and the insert is a ``db.write()``
transaction, so a ratio service/baseline measures the service's own work and not a
difference of configuration.

Run it with ``python -m bench.baseline --port P`` (uvicorn with the settings of ``prefscore
serve``); the database is ``DATABASE_URL``. It creates its one table ``bench_rows`` (not part
of the service's schema); ``prepare()`` makes it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import Body, FastAPI, HTTPException
from pydantic import BaseModel
from sqlalchemy import JSON, DateTime, Integer, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.kit.db import make_database
from app.kit.settings import Settings


class Base(DeclarativeBase):
    pass


class BenchRow(Base):
    __tablename__ = "bench_rows"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Inserted(BaseModel):
    id: int


class Selected(BaseModel):
    id: int
    created_at: datetime


class Fixed(BaseModel):
    status: str
    service: str
    version: int


FIXED = Fixed(status="ok", service="baseline", version=1)


def _settings(database_url: str | None) -> Settings:
    settings = Settings.from_env()
    return settings if database_url is None else settings.model_copy(update={"database_url": database_url})


def prepare(database_url: str | None = None) -> None:
    """Create ``bench_rows`` (once, before any server starts: workers would race to)."""
    db = make_database(_settings(database_url))
    try:
        with db.write() as session:
            Base.metadata.create_all(session.connection())
    finally:
        db.dispose()


def create_app(database_url: str | None = None) -> FastAPI:
    db = make_database(_settings(database_url))
    app = FastAPI(title="prefscore bench baseline", openapi_url=None, docs_url=None, redoc_url=None)

    @app.post("/insert", status_code=201)
    def insert(body: dict[str, Any] = Body(...)) -> Inserted:
        with db.write() as session:
            row = BenchRow(body=body, created_at=datetime.now(UTC))
            session.add(row)
            session.flush()
            return Inserted(id=row.id)

    @app.get("/select/{row_id}")
    def select_row(row_id: int) -> Selected:
        with db.lookup() as conn:
            found = conn.execute(
                select(BenchRow.id, BenchRow.created_at).where(BenchRow.id == row_id)
            ).one_or_none()
        if found is None:
            raise HTTPException(404, "no such row")
        return Selected(id=found.id, created_at=found.created_at)

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
