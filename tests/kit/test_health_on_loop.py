"""/health answered on the event loop: a load balancer's frequent ask waits for no thread of
the pool (nor for the interpreter behind a busy loop's work), but when its write probe is due."""

from __future__ import annotations

import time

from app.kit import health


def test_health_takes_no_thread_when_its_probe_is_not_due(client, db, monkeypatch):
    assert client.get("/health").status_code == 200  # the probe made once
    db._probe_at = time.monotonic()  # and not due again for write_probe_interval

    def no_thread(*args, **kwargs):
        raise AssertionError("/health went to the thread pool")

    monkeypatch.setattr(health, "run_in_threadpool", no_thread)
    r = client.get("/health")
    assert r.status_code == 200 and r.json() == {"status": "ok", "database": "ok", "writes": True}


def test_health_probes_in_a_thread_when_due(client, db, monkeypatch):
    threaded = []
    real = health.run_in_threadpool

    async def counted(fn, *args):
        threaded.append(getattr(fn, "__name__", fn))
        return await real(fn, *args)

    monkeypatch.setattr(health, "run_in_threadpool", counted)
    db._probe_at = float("-inf")
    assert client.get("/health").status_code == 200
    assert threaded == ["write_probe"]
