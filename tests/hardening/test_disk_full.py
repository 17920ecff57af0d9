"""A SQLite database that cannot take a write (its disk full) is unhealthy: /health commits a
small write now and then (app/kit/db/engine.py ``write_probe``) instead of only asking the file's
permissions. Before, posts answered 503 while /health said ok.

The full disk is simulated where SQLite reports it, at the DB-API: every writing statement
of the app's engine fails with SQLite's own "database or disk is full" (as the existing test
of a read-only file makes the connections query-only). Where the machine allows it (root,
tmpfs) the second test fills a real file system."""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
import subprocess

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from .conftest import needs_postgres
from .harness import is_postgres_run

sqlite_only = pytest.mark.skipif(is_postgres_run(), reason="SQLite's full disk")

WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|PRAGMA\s+user_version\s*=)", re.IGNORECASE)
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


def _app(path):
    from app.kit.db import make_database, migrate
    from app.kit.settings import Settings
    from app.main import create_app

    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    admin = "pk_full_admin_" + secrets.token_urlsafe(8)
    settings = Settings(database_url=url, admin_key=admin, threads=2)
    db = make_database(settings)
    return create_app(settings, db=db), db, {"Authorization": f"Bearer {admin}"}


@sqlite_only
def test_a_full_disk_makes_health_503_and_its_probe_is_throttled(tmp_path):
    app, db, auth = _app(tmp_path / "prefscore.db")
    probes: list[str] = []
    full = {"on": False}

    def statements(_conn, _cursor, statement, _params, _context, _many):  # noqa: ANN001
        if statement.lstrip().upper().startswith("PRAGMA USER_VERSION ="):
            probes.append(statement)
        if full["on"] and WRITES.match(statement):
            raise sqlite3.OperationalError("database or disk is full")

    event.listen(db.engine, "before_cursor_execute", statements)
    try:
        with TestClient(app) as c:
            table = c.post(
                "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=auth
            ).json()
            db.write_probe_interval = 0
            assert c.get("/health").status_code == 200

            full["on"] = True
            r = c.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=auth)
            assert r.status_code == 503, r.text
            health = c.get("/health")
            assert health.status_code == 503 and health.json()["database"] == "full", health.text
            assert "database or disk is full" in health.json()["detail"]
            assert (
                c.get(f"/v1/tables/{table['id']}", headers=auth).json()["deal_count"] == 0
            )  # nothing written

            full["on"] = False  # room again
            assert c.get("/health").status_code == 200
            assert c.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=auth).status_code == 201

            db.write_probe_interval = 3600
            probes.clear()
            for _ in range(20):
                assert c.get("/health").status_code == 200
            assert len(probes) <= 1  # at most one write for 20 health checks
    finally:
        db.dispose()


@pytest.fixture
def small_disk(tmp_path):
    where = tmp_path / "small"
    where.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        pytest.skip("no mount command")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


def _fill(where) -> None:
    fd = os.open(where / "pad", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


@sqlite_only
def test_a_really_full_file_system(small_disk):
    app, db, auth = _app(small_disk / "prefscore.db")
    db.write_probe_interval = 0
    try:
        with TestClient(app) as c:
            table = c.post(
                "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=auth
            ).json()
            assert c.get("/health").status_code == 200
            _fill(small_disk)
            posted = [
                c.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=auth).status_code
                for _ in range(3)
            ]
            assert 503 in posted, posted
            health = c.get("/health")
            assert health.status_code == 503 and health.json()["database"] == "full", health.text
            os.remove(small_disk / "pad")
            assert c.get("/health").status_code == 200
    finally:
        db.dispose()


@needs_postgres
def test_a_postgresql_database_that_takes_no_writes_is_unhealthy(fresh_db):
    """PostgreSQL's equivalent: a server or database that makes every transaction read-only
    (a standby in recovery is the other case the probe asks about)."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    from app.kit.db import make_database
    from app.kit.settings import Settings
    from app.main import create_app

    settings = Settings(database_url=fresh_db, admin_key="pk_ro_admin_" + secrets.token_urlsafe(8), threads=2)
    db = make_database(settings)
    try:
        with TestClient(create_app(settings, db=db)) as c:
            assert c.get("/health").status_code == 200
            engine = create_engine(fresh_db, isolation_level="AUTOCOMMIT")
            with engine.connect() as conn:
                conn.exec_driver_sql(
                    f'ALTER DATABASE "{make_url(fresh_db).database}" SET default_transaction_read_only = on'
                )
            engine.dispose()
            db.engine.dispose()  # new connections take the database's setting
            db.write_probe_interval = 0
            health = c.get("/health")
            assert health.status_code == 503 and health.json()["database"] == "read-only", health.text
            r = c.post(
                "/v1/tables",
                json={"players": ["A", "B", "C"], "convention": "sochi"},
                headers={"Authorization": f"Bearer {settings.admin_key}"},
            )
            assert r.status_code == 503 and "cannot be written" in r.json()["detail"], r.text  # was a 500
    finally:
        db.dispose()
