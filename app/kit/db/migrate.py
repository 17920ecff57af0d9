"""Alembic, driven from code: ``prefscore db upgrade`` and ``prefscore serve`` use this, and
so do the tests (the schema is only ever made by the migrations).

An upgrade holds a lock for the whole run, so any number of processes can start on one
database at once: the first migrates, the others wait and then find nothing to do (without
it two ``prefscore serve`` on an empty database both created the tables, and one died).
PostgreSQL: a session advisory lock on its own connection. SQLite: an exclusive ``flock``
on ``<database file>.migrate-lock`` beside the database file (processes on one machine:
a SQLite file is not shared across machines anyway). The migrations run against the leader
(``DATABASE_URL``) only: a standby is refused with a clear message (``refuse_standby``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

import migrations

SCRIPT_LOCATION = str(Path(migrations.__file__).resolve().parent)
# pg_advisory_lock's key: any constant the service's other locks do not use ("prefscore").
ADVISORY_LOCK_KEY = 0x70726566


def alembic_config(database_url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    # Kept out of the ini interpolation: a URL may contain "%".
    cfg.attributes["database_url"] = database_url
    return cfg


@contextmanager
def migration_lock(database_url: str) -> Iterator[None]:
    """Held while the schema changes: one process at a time per database."""
    url = make_url(database_url)
    backend = url.get_backend_name()
    if (
        backend == "sqlite"
        and url.database
        and url.database != ":memory:"
        and not url.database.startswith("file:")
    ):
        path = Path(url.database + ".migrate-lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock
        return
    if backend == "postgresql":
        engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_LOCK_KEY})
        finally:
            engine.dispose()
        return
    yield


class NotTheLeader(RuntimeError):
    """The migrations were pointed at a standby: they run once, against the leader."""


def refuse_standby(database_url: str) -> None:
    """PostgreSQL: raise NotTheLeader when the server is a standby in recovery (a replica's
    URL given for the leader's), before anything is locked or tried."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        return
    engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if conn.execute(text("SELECT pg_is_in_recovery()")).scalar():
                raise NotTheLeader(
                    f"the database at {url.render_as_string(hide_password=True)} is a standby (in recovery): "
                    "migrations run once, against the leader (DATABASE_URL, never PREFSCORE_READ_DATABASE_URL)"
                )
    finally:
        engine.dispose()


def upgrade(database_url: str, revision: str = "head") -> None:
    refuse_standby(database_url)
    with migration_lock(database_url):
        command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str) -> None:
    refuse_standby(database_url)
    with migration_lock(database_url):
        command.downgrade(alembic_config(database_url), revision)


def current(database_url: str) -> str | None:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def head() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
