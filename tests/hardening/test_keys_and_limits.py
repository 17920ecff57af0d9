"""Keys and limits: administration is a property of the key, keys are listed (never with a
secret) and revoked; requests without a valid key never write to the database; the key
cache forgets gradually; the share link is rate-limited by token."""

from __future__ import annotations

import secrets

from fastapi.testclient import TestClient
from sqlalchemy import select

PROBLEM = "application/problem+json"


def _rate_limit_counts(db) -> dict[tuple[str, int], int]:  # noqa: ANN001
    from app.kit.db.models import RateLimitRow

    with db.read() as session:
        return {(r.bucket, r.window): r.count for r in session.scalars(select(RateLimitRow))}


def _buckets_written(before: dict, after: dict) -> set[str]:
    """The buckets whose rows were made or counted up between two readings (rows of other
    tests' windows may be deleted meanwhile: a limiter clears old windows on its first hit)."""
    return {key[0] for key, count in after.items() if before.get(key) != count}


def test_six_hundred_made_up_keys_write_nothing(client, db):
    """Before: 600 requests with random `Bearer pk_...` made 600 rate-limit rows."""
    before = _rate_limit_counts(db)
    for _ in range(600):
        r = client.get("/v1/conventions", headers={"Authorization": f"Bearer pk_{secrets.token_urlsafe(32)}"})
        assert r.status_code == 401
    assert _buckets_written(before, _rate_limit_counts(db)) == set()


def _app(settings, db, **changes):  # noqa: ANN001

    from app.main import create_app

    return create_app(settings.model_copy(update=changes), db=db)


def test_requests_without_a_valid_key_are_limited_per_address_in_memory(settings, db, an_hour_long_window):
    from app.kit.limiter import bucket_of

    app = _app(settings, db, anonymous_rate_limit=5, rate_limit_window=3600)
    before = _rate_limit_counts(db)
    with TestClient(app) as c:
        statuses = [
            c.get("/v1/conventions", headers={"Authorization": f"Bearer pk_{i}"}).status_code
            for i in range(5)
        ]
        statuses += [c.get("/v1/tables/x").status_code]
        assert statuses == [401] * 5 + [429]
        r = c.get("/v1/conventions")
        assert r.status_code == 429 and r.headers["content-type"].startswith(PROBLEM)
        assert 1 <= int(r.headers["Retry-After"]) <= 3600
        # a valid key is not held back by the address's count
        assert (
            c.get("/v1/conventions", headers={"Authorization": f"Bearer {settings.admin_key}"}).status_code
            == 200
        )
    # The valid key's row only. Counted by bucket, not by rows: an earlier test in the same
    # hour may have made the admin key's row of this window already.
    assert _buckets_written(before, _rate_limit_counts(db)) == {bucket_of(settings.admin_key)}


def test_the_share_link_is_rate_limited_by_token(settings, db, api, an_hour_long_window):
    table = api.table()
    app = _app(settings, db, share_rate_limit=3, rate_limit_window=3600)
    with TestClient(app) as c:
        token = table["share_token"]
        paths = [f"/v1/shared/{token}", f"/v1/shared/{token}/sheet.svg", f"/shared/{token}"]
        assert [c.get(p).status_code for p in paths] == [200, 200, 200]
        r = c.get(f"/v1/shared/{token}/deals")
        assert r.status_code == 429 and r.headers["content-type"].startswith(PROBLEM), r.text
        assert int(r.headers["Retry-After"]) >= 1
        assert "share link" in r.json()["detail"]
        assert c.get("/v1/shared/another-token").status_code == 404  # its own budget


def test_the_key_cache_forgets_the_least_recently_used_one_at_a_time():
    """Before: the cache emptied completely at 4,096 entries."""
    from app.keys.service import INVALID, _KeyCache

    cache = _KeyCache(ttl=60, size=4096)
    for i in range(4096):
        cache.put(f"d{i}", INVALID)
    assert cache.get("d0") == INVALID  # used: now the most recent
    cache.put("new", INVALID)
    assert len(cache) == 4096
    assert cache.get("d1") is None  # the least recently used went
    assert cache.get("d0") == INVALID and cache.get("d2") == INVALID and cache.get("new") == INVALID
    for i in range(10_000):
        cache.put(f"flood{i}", INVALID)
        assert len(cache) == 4096


def test_an_admin_owner_name_is_not_an_admin_key(client, admin_headers):
    """Before: POST /v1/keys {"owner": "admin"} gave a key that minted keys. ("admin" itself
    is now refused: it is the environment admin key's owner.)"""
    assert client.post("/v1/keys", json={"owner": "admin"}, headers=admin_headers).status_code == 422
    r = client.post("/v1/keys", json={"owner": "administrator"}, headers=admin_headers)
    assert r.status_code == 201, r.text
    named_admin = {"Authorization": f"Bearer {r.json()['key']}"}
    assert client.get("/v1/conventions", headers=named_admin).status_code == 200
    for method, path, body in (
        ("post", "/v1/keys", {"owner": "x"}),
        ("get", "/v1/keys", None),
        ("delete", "/v1/keys/1", None),
    ):
        r = client.request(method, path, json=body, headers=named_admin)
        assert r.status_code == 403, (method, path, r.text)
        assert r.headers["content-type"].startswith(PROBLEM)


def test_keys_are_listed_without_secrets_and_revoked(client, admin_headers):
    r = client.post("/v1/keys", json={"owner": "revocable"}, headers=admin_headers)
    key = r.json()["key"]
    headers = {"Authorization": f"Bearer {key}"}
    assert client.get("/v1/conventions", headers=headers).status_code == 200  # now cached
    listed = client.get("/v1/keys", headers=admin_headers)
    assert listed.status_code == 200
    mine = [k for k in listed.json()["items"] if k["owner"] == "revocable"]
    assert len(mine) == 1 and set(mine[0]) == {"id", "owner", "prefix", "admin", "created_at", "revoked_at"}
    assert mine[0]["prefix"] == key[:12] and mine[0]["admin"] is False and mine[0]["revoked_at"] is None
    assert key not in listed.text and "hash" not in listed.text
    r = client.delete(f"/v1/keys/{mine[0]['id']}", headers=admin_headers)
    assert r.status_code == 200 and r.json()["revoked_at"] is not None
    # refused at once on the process that revoked it, although its answer was cached
    assert client.get("/v1/conventions", headers=headers).status_code == 401
    assert (
        client.delete(f"/v1/keys/{mine[0]['id']}", headers=admin_headers).status_code == 200
    )  # again: no change
    assert client.delete("/v1/keys/999999999", headers=admin_headers).status_code == 404
    assert client.delete("/v1/keys/0", headers=admin_headers).status_code == 422


def test_openapi_names_the_key_operations(client):
    spec = client.get("/openapi.json").json()
    ops = {
        op["operationId"] for path in ("/v1/keys", "/v1/keys/{key_id}") for op in spec["paths"][path].values()
    }
    assert ops == {"createKey", "listKeys", "revokeKey"}


def test_cli_admin_keys_list_and_revoke(settings, client, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from app.cli.main import main

    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    runner = CliRunner()
    made = runner.invoke(main, ["keys", "create", "cli-admin", "--admin"])
    assert made.exit_code == 0, made.output
    key = made.stdout.strip().splitlines()[-1]
    assert "written to" in made.stderr
    admin = {"Authorization": f"Bearer {key}"}
    assert client.get("/v1/keys", headers=admin).status_code == 200  # a stored admin key
    listed = runner.invoke(main, ["keys", "list"])
    assert listed.exit_code == 0 and "cli-admin" in listed.stdout and key not in listed.output
    key_id = next(int(line.split()[0]) for line in listed.stdout.splitlines() if "cli-admin" in line)
    revoked = runner.invoke(main, ["keys", "revoke", str(key_id)])
    assert revoked.exit_code == 0, revoked.output
    assert runner.invoke(main, ["keys", "revoke", "999999999"]).exit_code != 0


def test_keys_create_does_not_make_a_new_sqlite_file_unless_asked(monkeypatch, tmp_path):
    """Before: run outside the checkout it silently created a new prefscore.db there."""
    from click.testing import CliRunner

    from app.cli.main import main

    missing = tmp_path / "elsewhere" / "prefscore.db"
    missing.parent.mkdir()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{missing}")
    runner = CliRunner()
    r = runner.invoke(main, ["keys", "create", "anna"])
    assert r.exit_code != 0 and "no database at" in r.output and not missing.exists()
    r = runner.invoke(main, ["keys", "create", "anna", "--create-database"])
    assert r.exit_code == 0, r.output
    assert missing.exists() and str(missing) in r.stderr


def test_the_env_admin_key_stops_working_when_rotated(settings, db):

    from app.main import create_app

    old = settings.admin_key
    with TestClient(
        create_app(
            settings.model_copy(update={"admin_key": "pk_rotated_" + secrets.token_urlsafe(16)}), db=db
        )
    ) as c:
        assert c.get("/v1/keys", headers={"Authorization": f"Bearer {old}"}).status_code == 401


def test_a_sqlite_file_that_cannot_be_written_is_unhealthy(tmp_path, caplog, monkeypatch):
    """Before: every write answered 503 "retry shortly" forever while /health said ok.
    The file is made unwritable the way the tests can on any machine (they may run as
    root, who writes to any file): the process is told it may not write it, and SQLite's
    connections are query-only, which fails writes as a read-only file does."""
    import os

    from sqlalchemy import event

    from app.kit.db import engine as engine_mod
    from app.kit.db import make_database, migrate
    from app.kit.settings import Settings
    from app.main import create_app

    path = tmp_path / "ro" / "prefscore.db"
    path.parent.mkdir()
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    admin = "pk_ro_admin_" + secrets.token_urlsafe(8)
    settings = Settings(database_url=url, admin_key=admin, threads=2)
    db = make_database(settings)
    with TestClient(create_app(settings, db=db)) as c:
        assert c.get("/health").status_code == 200
        real_access = os.access
        monkeypatch.setattr(
            engine_mod.os,
            "access",
            lambda p, mode: False if str(p) == str(path) and mode == os.W_OK else real_access(p, mode),
        )
        db.engine.dispose()
        event.listen(db.engine, "connect", lambda conn, _record: conn.execute("PRAGMA query_only = ON"))
        r = c.get("/health")
        assert r.status_code == 503 and r.json()["database"] == "read-only", r.text
        assert "not writable" in r.json()["detail"]
        r = c.post("/v1/keys", json={"owner": "x"}, headers={"Authorization": f"Bearer {admin}"})
        assert r.status_code == 503 and "retry shortly" not in r.json()["detail"], r.text
    db.dispose()
    assert any("cannot be written" in rec.getMessage() for rec in caplog.records)


def test_a_revoked_key_stops_working_on_another_process_within_the_cache_lifetime(
    settings, client, admin_headers
):
    """Another process has its own key cache: a second app on its own Database (as another
    worker has) with a one-second cache lifetime refuses the key at most a second after the
    revocation."""
    import time

    from app.kit.db import make_database
    from app.main import create_app

    key = client.post("/v1/keys", json={"owner": "elsewhere"}, headers=admin_headers).json()["key"]
    key_id = next(
        k["id"]
        for k in client.get("/v1/keys", headers=admin_headers).json()["items"]
        if k["prefix"] == key[:12]
    )
    other_db = make_database(settings)
    try:
        with TestClient(create_app(settings.model_copy(update={"key_cache_ttl": 1}), db=other_db)) as other:
            headers = {"Authorization": f"Bearer {key}"}
            assert other.get("/v1/conventions", headers=headers).status_code == 200  # cached there now
            assert client.delete(f"/v1/keys/{key_id}", headers=admin_headers).status_code == 200
            deadline = time.monotonic() + 5
            while other.get("/v1/conventions", headers=headers).status_code == 200:
                assert time.monotonic() < deadline, "still accepted 5 s after the revocation"
                time.sleep(0.1)
            assert time.monotonic() - (deadline - 5) <= 2.5
    finally:
        other_db.dispose()
