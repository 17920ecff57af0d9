"""Per-key rate limit: 429 problem+json with Retry-After, counted in the database so that two
server processes share one count (on SQLite as on PostgreSQL)."""

from __future__ import annotations

import httpx

from .harness import auth, is_problem

LIMIT = 6


def test_rate_limit_is_per_key_and_shared_across_processes(fresh_db, servers, admin_key, an_hour_long_window):
    env = {"PREFSCORE_RATE_LIMIT": str(LIMIT), "PREFSCORE_RATE_LIMIT_WINDOW": "3600"}
    a = servers.start(fresh_db, env=env, name="rl-a")
    b = servers.start(fresh_db, env=env, name="rl-b")
    other = httpx.post(f"{a.url}/v1/keys", json={"owner": "someone-else"}, headers=auth(admin_key)).json()[
        "key"
    ]
    # the admin key spent one request above; alternate processes for the rest of its budget
    statuses = [
        httpx.get(f"{(a, b)[i % 2].url}/v1/conventions", headers=auth(admin_key)).status_code
        for i in range(LIMIT - 1)
    ]
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

    server = servers.start(
        fresh_db, env={"PREFSCORE_RATE_LIMIT": "2", "PREFSCORE_RATE_LIMIT_WINDOW": "2"}, name="rl-window"
    )
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


def test_leases_renewed_at_once_are_all_kept(db):
    """Requests that find the lease used up together (four here) each reserve hits in the
    database; the process keeps every reservation, so the next requests are answered from
    memory instead of going back to the database (a lease replaced by the last renewal
    wasted the others' and sent one request in eight to the database under 8 clients)."""
    import threading

    from app.kit.limiter import RateLimiter

    # limit 10,000, lease_max 8, lease_share 16: each reservation is min(8, 10,000 // 16) = 8.
    limiter = RateLimiter(db, 10_000, 3600, lease_max=8, lease_share=16)
    upsert = limiter._upsert
    barrier = threading.Barrier(4)
    calls = []

    def together(bucket, window, n=1):  # noqa: ANN001, ANN202
        calls.append(n)
        barrier.wait(timeout=10)  # all four have missed the lease before any stores one
        return upsert(bucket, window, n)

    limiter._upsert = together
    now = 1_000_000.5  # one fixed moment, inside one window
    threads = [threading.Thread(target=limiter.hit, args=("pk_test", now)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert calls == [8, 8, 8, 8]
    # 4 x 8 = 32 hits reserved and counted; 4 handed out to the four requests: 28 are left
    # in memory, each answered without the database; the 29th needs a new reservation.
    limiter._upsert = lambda *a: (_ for _ in ()).throw(AssertionError("went to the database"))
    answered = [limiter.try_local("pk_test", now) for _ in range(28)]
    assert all(d is not None and d.allowed for d in answered)
    assert limiter.try_local("pk_test", now) is None
    # Remaining as the database counts it: 10,000 - 32 reserved, all of them now used.
    assert answered[-1].remaining == 10_000 - 32
