"""Security: keys never stored or logged in clear, a wrong key does the same work as a right
one, another owner's table is 404 on every route, the share link only reads, and CORS and
the security headers follow the settings."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import httpx
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.pool import NullPool

from .harness import auth, create_table, is_problem

LIVE_ENV = {"PREFSCORE_CORS_ORIGINS": "https://app.example", "PREFSCORE_HSTS_SECONDS": "600"}
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


def _new_key(live, owner: str) -> str:
    r = httpx.post(f"{live.url}/v1/keys", json={"owner": owner}, headers=live.headers)
    assert r.status_code == 201, r.text
    return r.json()["key"]


def _database_text(url: str, workdir: Path) -> str:
    """Everything the database holds, as text (every row of every table; for SQLite also the
    raw bytes of the file and its WAL)."""
    parts: list[str] = []
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            for table in inspect(conn).get_table_names():
                for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                    parts.append(repr(tuple(row)))
    finally:
        engine.dispose()
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        for p in (path, Path(str(path) + "-wal")):
            if p.exists():
                parts.append(p.read_bytes().decode("latin-1"))
    return "\n".join(parts)


def test_keys_are_never_stored_or_logged_in_clear(live):
    key = _new_key(live, "secret-keeper")
    wrong = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    table = create_table(live.url, key)
    assert (
        httpx.post(f"{live.url}/v1/tables/{table['id']}/deals", json=DEAL, headers=auth(key)).status_code
        == 201
    )
    assert httpx.get(f"{live.url}/v1/tables/{table['id']}", headers=auth(wrong)).status_code == 401
    assert httpx.get(f"{live.url}/v1/tables/{table['id']}", headers=auth("pk_" + "z" * 43)).status_code == 401
    stored = _database_text(live.database_url, live.server.workdir)
    logs = live.server.logs()
    assert "secret-keeper" in stored  # the dump does see the data
    for secret in (key, wrong, live.key, key[3:]):
        assert secret not in stored
        assert secret not in logs
    assert hashlib.sha256(key.encode()).hexdigest() in stored  # what is stored instead
    # share tokens are capabilities: not in the access log either
    assert table["share_token"] not in logs or "/v1/shared/" not in logs


def test_a_wrong_key_does_the_same_work_as_a_right_one(live, monkeypatch):
    """Instrumented, not timed: for a right key, a wrong key with a known prefix, a key with
    an unknown prefix and a short garbage key, authenticate() hashes once, runs the same one
    query and makes at least one constant-time comparison of equal-length digests, and never
    compares a secret with ``==``."""
    from sqlalchemy import event

    from app.keys import service as keys_mod
    from app.kit.db import make_database
    from app.kit.settings import Settings

    key = _new_key(live, "timing")
    db = make_database(Settings(database_url=live.database_url, threads=2))
    calls: dict[str, list] = {}

    real_hash = keys_mod.hash_key
    real_compare = hmac.compare_digest

    def counting_hash(k: str) -> str:
        calls["hash"].append(len(k))
        return real_hash(k)

    def counting_compare(a, b) -> bool:
        calls["compare"].append((len(a), len(b)))
        return real_compare(a, b)

    def on_query(*_args, **_kw) -> None:
        calls["query"].append(1)

    monkeypatch.setattr(keys_mod, "hash_key", counting_hash)
    monkeypatch.setattr(keys_mod.hmac, "compare_digest", counting_compare)
    event.listen(db.engine, "before_cursor_execute", on_query)
    try:
        tokens = {
            "right": key,
            "wrong, known prefix": key[:12] + "x" * (len(key) - 12),
            "unknown prefix": "pk_" + "q" * (len(key) - 3),
            "short garbage": "nope",
        }
        profiles = {}
        for label, token in tokens.items():
            calls = {"hash": [], "compare": [], "query": []}
            owner = keys_mod.authenticate(db, token, None)
            assert (owner == "timing") == (label == "right")
            digest_compares = [c for c in calls["compare"] if c == (64, 64)]
            profiles[label] = (len(calls["hash"]), len(calls["query"]), len(digest_compares) >= 1)
        assert len(set(profiles.values())) == 1, profiles
        assert profiles["right"][0] == 1 and profiles["right"][1] >= 1 and profiles["right"][2], profiles

        # A repeat within the cache's lifetime costs the same whether the key is right or
        # wrong: one hash, no query (the answers of lookups are cached, invalid ones too).
        repeats = {}
        for label, token in tokens.items():
            calls = {"hash": [], "compare": [], "query": []}
            owner = keys_mod.authenticate(db, token, None)
            assert (owner == "timing") == (label == "right")
            repeats[label] = (len(calls["hash"]), len(calls["query"]))
        assert set(repeats.values()) == {(1, 0)}, repeats
    finally:
        event.remove(db.engine, "before_cursor_execute", on_query)
        db.dispose()


def _table_routes(live) -> list[tuple[str, str]]:
    spec = httpx.get(f"{live.url}/openapi.json").json()
    routes = []
    for path, item in spec["paths"].items():
        if "{table_id}" in path:
            for method in item:
                if method in ("get", "post", "put", "delete", "patch"):
                    routes.append((method.upper(), path))
    return routes


def test_every_route_of_a_table_is_404_to_another_owner(live):
    mine = _new_key(live, "owner-a")
    theirs = _new_key(live, "owner-b")
    table = create_table(live.url, mine)
    assert (
        httpx.post(f"{live.url}/v1/tables/{table['id']}/deals", json=DEAL, headers=auth(mine)).status_code
        == 201
    )
    before = httpx.get(f"{live.url}/v1/tables/{table['id']}/sheet", headers=auth(mine)).json()
    routes = _table_routes(live)
    assert len(routes) >= 8, routes
    for method, path in routes:
        seen_detail = None  # the 404 of the real table, compared with the made-up one's
        for table_id, expect_same in ((table["id"], False), ("0" * 32, True)):
            url = live.url + path.replace("{table_id}", table_id).replace("{number}", "1").replace(
                "{link_id}", "1"
            )
            body = DEAL if method in ("POST", "PUT") else None
            r = httpx.request(method, url, json=body, headers=auth(theirs))
            assert r.status_code == 404, f"{method} {path}: {r.status_code} {r.text}"
            assert is_problem(r)
            detail = r.json()["detail"].replace(table_id, "<id>")
            if expect_same:
                assert detail == seen_detail, f"{method} {path}: the 404 tells the tables apart"
            seen_detail = detail
    after = httpx.get(f"{live.url}/v1/tables/{table['id']}/sheet", headers=auth(mine)).json()
    assert after == before


def test_the_share_link_only_reads(live):
    key = _new_key(live, "sharer")
    table = create_table(live.url, key)
    token = table["share_token"]
    assert httpx.get(f"{live.url}/v1/shared/{token}").status_code == 200
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        for suffix in ("", "/deals", "/deals/1", "/sheet"):
            r = httpx.request(method, f"{live.url}/v1/shared/{token}{suffix}", json=DEAL)
            assert r.status_code in (404, 405), f"{method} {suffix}: {r.status_code}"
            assert is_problem(r)
    # the token is not a key either
    r = httpx.get(f"{live.url}/v1/tables/{table['id']}", headers=auth(token))
    assert r.status_code == 401 and is_problem(r)
    assert httpx.get(f"{live.url}/v1/tables/{table['id']}/sheet", headers=auth(key)).json()["deal_count"] == 0


def test_cors_and_security_headers_follow_the_settings(live, fresh_db, servers):
    preflight = {
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,idempotency-key",
    }
    r = httpx.options(f"{live.url}/v1/tables", headers=preflight)
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert "idempotency-key" in r.headers["access-control-allow-headers"].lower()
    r = httpx.options(f"{live.url}/v1/tables", headers={**preflight, "Origin": "https://evil.example"})
    assert r.headers.get("access-control-allow-origin") != "https://evil.example"
    r = httpx.get(f"{live.url}/v1/conventions", headers={**live.headers, "Origin": "https://app.example"})
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["strict-transport-security"].startswith("max-age=600")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    # errors carry them too
    r = httpx.get(f"{live.url}/v1/tables/nope", headers={**live.headers, "Origin": "https://app.example"})
    assert r.status_code == 404 and r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["access-control-allow-origin"] == "https://app.example"

    plain = servers.start(
        fresh_db, env={"PREFSCORE_SECURITY_HEADERS": "0", "PREFSCORE_CSP": ""}, name="plain"
    )
    r = httpx.get(
        f"{plain.url}/v1/conventions", headers={**auth(plain.admin_key), "Origin": "https://app.example"}
    )
    assert r.status_code == 200
    for name in (
        "access-control-allow-origin",
        "x-frame-options",
        "strict-transport-security",
        "content-security-policy",
    ):
        assert name not in r.headers, name
