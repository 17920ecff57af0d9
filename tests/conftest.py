"""Shared fixtures: a database made by the migrations, the app, an HTTP client and keys.

The database comes from ``PREFSCORE_TEST_DATABASE_URL``:
- unset: SQLite files in a temporary directory;
- ``postgresql+psycopg://user@host:port/db``: a fresh database ``prefscore_t_<random>`` is
  created on that server for the session (connecting to the URL's database) and dropped at
  the end, so that runs never collide.
Schemas are always made with Alembic, never ``create_all``.
"""

from __future__ import annotations

import os
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.databases import fresh_database

ADMIN_KEY = "pk_test_admin_" + secrets.token_urlsafe(16)
# The command-line client speaks the machine's language (app/cli/client/language.py): the tests
# read its English unless they ask for another (tests/views/test_client_languages.py).
os.environ["PREFSCORE_LANG"] = "en"


@pytest.fixture
def new_database(tmp_path: Path):
    """``with new_database("label") as url:`` a fresh, empty database of the configured kind."""
    return lambda label="db": fresh_database(tmp_path, label)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from app.kit.db import migrate

    with fresh_database(tmp_path_factory.mktemp("db"), "api") as url:
        migrate.upgrade(url)
        yield url


@pytest.fixture(scope="session")
def settings(database_url: str):
    from app.kit.settings import Settings

    # The session's apps deliver no webhook: tests/api/test_webhooks.py starts its own deliverer.
    return Settings(database_url=database_url, admin_key=ADMIN_KEY, threads=8, webhooks_deliver=False)


@pytest.fixture(scope="session")
def db(settings) -> Iterator[Any]:
    from app.kit.db import make_database

    database = make_database(settings)
    yield database
    database.dispose()


@pytest.fixture(scope="session")
def app(settings, db):
    from app.main import create_app

    return create_app(settings, db=db)


@pytest.fixture(scope="session")
def client(app) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def admin_key() -> str:
    return ADMIN_KEY


@pytest.fixture(scope="session")
def admin_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"}


class Api:
    """A client acting as one owner (a fresh key per test), with small helpers."""

    def __init__(self, client: Any, key: str, owner: str):
        self.client = client
        self.key = key
        self.owner = owner
        self.headers = {"Authorization": f"Bearer {key}"}

    def _h(self, headers: dict[str, str] | None) -> dict[str, str]:
        return {**self.headers, **(headers or {})}

    def get(self, url: str, headers: dict[str, str] | None = None, **kw: Any):
        return self.client.get(url, headers=self._h(headers), **kw)

    def post(self, url: str, json: Any = None, headers: dict[str, str] | None = None, **kw: Any):
        return self.client.post(url, json=json, headers=self._h(headers), **kw)

    def put(self, url: str, json: Any = None, headers: dict[str, str] | None = None, **kw: Any):
        return self.client.put(url, json=json, headers=self._h(headers), **kw)

    def delete(self, url: str, headers: dict[str, str] | None = None, **kw: Any):
        return self.client.delete(url, headers=self._h(headers), **kw)

    def table(self, **body: Any) -> dict[str, Any]:
        body.setdefault("players", ["Anna", "Boris", "Vera"])
        body.setdefault("convention", "sochi")
        r = self.post("/v1/tables", json=body)
        assert r.status_code == 201, r.text
        return r.json()

    def deal(self, table_id: str, body: dict[str, Any], expect: int = 201, **kw: Any) -> dict[str, Any]:
        r = self.post(f"/v1/tables/{table_id}/deals", json=body, **kw)
        assert r.status_code == expect, r.text
        return r.json()

    def log(self, table_id: str) -> list[dict[str, Any]]:
        """The table's stored deals, every page of the listing followed."""
        out, url = [], f"/v1/tables/{table_id}/deals?limit=200"
        while url:
            page = self.get(url).json()
            out += page["items"]
            url = page["next"]
        return out


def new_owner_key(client: Any, admin_headers: dict[str, str], owner: str | None = None) -> tuple[str, str]:
    owner = owner or f"owner-{uuid.uuid4().hex[:10]}"
    r = client.post("/v1/keys", json={"owner": owner}, headers=admin_headers)
    assert r.status_code == 201, r.text
    return owner, r.json()["key"]


@pytest.fixture
def an_hour_long_window() -> None:
    """For tests that count hits against a rate limit with ``rate_limit_window=3600``: the
    limiters' windows are the clock's hours, so a test started in an hour's last seconds
    would see its count start again halfway. Such a test waits for the next hour then."""
    left = 3600 - time.time() % 3600
    if left < 60:
        time.sleep(left + 0.1)


@pytest.fixture
def api(client, admin_headers) -> Api:
    owner, key = new_owner_key(client, admin_headers)
    return Api(client, key, owner)


@pytest.fixture
def other_api(client, admin_headers) -> Api:
    owner, key = new_owner_key(client, admin_headers)
    return Api(client, key, owner)
