"""Test databases: the one PREFSCORE_TEST_DATABASE_URL names, or SQLite files.

Shared by the fixtures of tests/conftest.py, the hardening harness and bench/soak.py.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TEST_DB_ENV = "PREFSCORE_TEST_DATABASE_URL"


def test_database_base_url() -> str | None:
    return os.environ.get(TEST_DB_ENV) or None


@contextmanager
def fresh_database(tmp_dir: Path, label: str = "db") -> Iterator[str]:
    """A new, empty database on the configured server (or a new SQLite file); dropped after."""
    base = test_database_base_url()
    if base is None or base.startswith("sqlite"):
        path = tmp_dir / f"{label}-{uuid.uuid4().hex[:8]}.db"
        yield f"sqlite:///{path}"
        return
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.pool import NullPool

    url = make_url(base)
    if url.get_backend_name() != "postgresql":
        raise pytest.UsageError(f"{TEST_DB_ENV} must be a sqlite or postgresql URL")
    name = f"prefscore_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield url.set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def is_postgres_run() -> bool:
    base = test_database_base_url()
    return bool(base) and base.startswith("postgresql")
