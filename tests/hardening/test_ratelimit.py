"""Per-key rate limit: 429 problem+json with Retry-After, counted in the database so that two
server processes share one count (on SQLite as on PostgreSQL)."""

from __future__ import annotations

import httpx

from .harness import auth, is_problem


LIMIT = 6


def test_rate_limit_is_per_key_and_shared_across_processes(fresh_db, servers, admin_key):
    env = {"PREFSCORE_RATE_LIMIT": str(LIMIT), "PREFSCORE_RATE_LIMIT_WINDOW": "3600"}
    a = servers.start(fresh_db, env=env, name="rl-a")
    b = servers.start(fresh_db, env=env, name="rl-b")
    other = httpx.post(f"{a.url}/v1/keys", json={"owner": "someone-else"}, headers=auth(admin_key)).json()["key"]
    # the admin key spent one request above; alternate processes for the rest of its budget
    statuses = [httpx.get(f"{(a, b)[i % 2].url}/v1/conventions", headers=auth(admin_key)).status_code for i in range(LIMIT - 1)]
    assert statuses == [200] * (LIMIT - 1)
    for server in (a, b):
        r = httpx.get(f"{server.url}/v1/conventions", headers=auth(admin_key))
        assert r.status_code == 429, r.text
        assert is_problem(r)
        assert 1 <= int(r.headers["Retry-After"]) <= 3600
    # another key has its own budget; the share link and /health are not counted
    assert httpx.get(f"{b.url}/v1/conventions", headers=auth(other)).status_code == 200
    assert httpx.get(f"{a.url}/health").status_code == 200
    # the counter stores a hash of the key, not the key
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(fresh_db, poolclass=NullPool)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT bucket, count FROM rate_limits")).all()
    engine.dispose()
    assert sorted(c for _, c in rows) == [1, LIMIT + 2]
    assert all(admin_key not in bucket and other not in bucket for bucket, _ in rows)


def test_rate_limit_window_resets(fresh_db, servers, admin_key):
    import time

    server = servers.start(fresh_db, env={"PREFSCORE_RATE_LIMIT": "2", "PREFSCORE_RATE_LIMIT_WINDOW": "2"}, name="rl-window")
    deadline = time.monotonic() + 10
    seen_429 = False
    while time.monotonic() < deadline:
        r = httpx.get(f"{server.url}/v1/conventions", headers=auth(admin_key))
        if r.status_code == 429:
            seen_429 = True
            time.sleep(int(r.headers["Retry-After"]))
            assert httpx.get(f"{server.url}/v1/conventions", headers=auth(admin_key)).status_code == 200
            break
    assert seen_429
