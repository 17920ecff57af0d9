"""Fixtures of the hardening tests: fresh databases (SQLite file, or a new database on the
PostgreSQL server of PREFSCORE_TEST_DATABASE_URL) and real ``prefscore serve`` processes."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import Server, fresh_database, is_postgres_run

HARD_ADMIN_KEY = "pk_hard_admin_" + secrets.token_urlsafe(16)

needs_postgres = pytest.mark.skipif(
    not is_postgres_run(),
    reason="PostgreSQL only: set PREFSCORE_TEST_DATABASE_URL=postgresql+psycopg://... (.ci/run does)",
)


@pytest.fixture
def fresh_db(tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database for one test."""
    from app.kit.db import migrate

    with fresh_database(tmp_path) as url:
        migrate.upgrade(url)
        yield url


class Servers:
    """Starts servers on demand; stops (SIGKILL if needed) every one at the end."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.started: list[Server] = []

    def start(
        self,
        database_url: str,
        *,
        env: dict[str, str] | None = None,
        name: str | None = None,
        wait: bool = True,
        port: int | None = None,
    ) -> Server:
        server = Server(
            database_url,
            self.workdir,
            HARD_ADMIN_KEY,
            env=env,
            upgrade=False,
            port=port,
            name=name or f"server{len(self.started)}",
        )
        self.started.append(server)
        return server.start(wait=wait)

    def stop_all(self) -> None:
        for server in self.started:
            try:
                server.stop(timeout=10)
            except Exception:  # noqa: BLE001
                server.kill()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    s = Servers(tmp_path)
    yield s
    s.stop_all()


@pytest.fixture
def admin_key() -> str:
    return HARD_ADMIN_KEY


class Live:
    """One server for a module, with a table of the admin owner."""

    def __init__(self, server: Server, database_url: str):
        self.server = server
        self.url = server.url
        self.database_url = database_url
        self.key = HARD_ADMIN_KEY
        self.headers = {"Authorization": f"Bearer {HARD_ADMIN_KEY}"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Live]:
    """A migrated database and a server on it, shared by the tests of one module. A module
    can set ``LIVE_ENV`` (a dict) for the server's environment."""
    from app.kit.db import migrate

    workdir = tmp_path_factory.mktemp("live")
    env = getattr(request.module, "LIVE_ENV", None)
    with fresh_database(workdir, "live") as url:
        migrate.upgrade(url)
        server = Server(url, workdir, HARD_ADMIN_KEY, env=env, upgrade=False, name="live").start()
        try:
            yield Live(server, url)
        finally:
            server.stop(timeout=10)
