"""Many clients posting to one table at once, through real server processes: every
acknowledged deal is stored exactly once, numbers are 1..N without gaps, and the stored sheet
equals re-scoring the stored log. Clients that lose their connection (a client-side timeout,
a socket dropped right after sending) retry with the same Idempotency-Key."""

from __future__ import annotations

from .conftest import needs_postgres
from .harness import Writer, create_table, run_writers, verify_table

CLIENTS = 8
DEALS_EACH = 20


def _check(stats, verdict, clients: int, each: int) -> None:
    assert verdict.problems == [], "\n".join(verdict.problems[:30])
    assert len(stats.acks) == clients * each
    assert verdict.stored == clients * each


@needs_postgres
def test_eight_clients_two_processes_one_postgres(fresh_db, servers, admin_key):
    a = servers.start(fresh_db, name="pg-a")
    b = servers.start(fresh_db, name="pg-b")
    table = create_table(a.url, admin_key)
    writers = [
        Writer(
            f"c{i}",
            [a.url, b.url],
            table["id"],
            admin_key,
            DEALS_EACH,
            seed=i,
            timeout_rate=0.08,
            drop_rate=0.04,
        )
        for i in range(CLIENTS)
    ]
    stats = run_writers(writers, timeout=150)
    verdict = verify_table(b.url, admin_key, table["id"], stats)
    _check(stats, verdict, CLIENTS, DEALS_EACH)
    assert stats.timeouts_injected + stats.drops_injected > 0
    assert stats.retries > 0


def test_eight_clients_one_process(fresh_db, servers, admin_key):
    """One process on the run's database (SQLite in the default run)."""
    server = servers.start(fresh_db, name="single")
    table = create_table(server.url, admin_key)
    writers = [
        Writer(
            f"s{i}",
            [server.url],
            table["id"],
            admin_key,
            DEALS_EACH,
            seed=100 + i,
            timeout_rate=0.08,
            drop_rate=0.04,
        )
        for i in range(CLIENTS)
    ]
    stats = run_writers(writers, timeout=150)
    verdict = verify_table(server.url, admin_key, table["id"], stats)
    _check(stats, verdict, CLIENTS, DEALS_EACH)
    assert stats.retries > 0


def test_same_key_at_once_writes_once(fresh_db, servers, admin_key):
    """Eight clients send the same deal with the same Idempotency-Key at the same moment (a
    retry racing the original): one deal is written and everyone gets its answer."""
    import threading

    import httpx

    server = servers.start(fresh_db, name="same-key")
    table = create_table(server.url, admin_key)
    body = {
        "type": "contract",
        "declarer": 1,
        "contract": "6S",
        "defenders": {"0": "pass", "2": "pass"},
        "note": "once",
    }
    barrier = threading.Barrier(CLIENTS)
    answers: list[tuple[int, int | None]] = []

    def post() -> None:
        barrier.wait()
        r = httpx.post(
            f"{server.url}/v1/tables/{table['id']}/deals",
            json=body,
            headers={"Authorization": f"Bearer {admin_key}", "Idempotency-Key": "the-same-key"},
            timeout=30,
        )
        answers.append(
            (r.status_code, r.json().get("deal", {}).get("number") if r.status_code == 201 else None)
        )

    threads = [threading.Thread(target=post) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert answers == [(201, 1)] * CLIENTS
    verdict = verify_table(server.url, admin_key, table["id"])
    assert verdict.problems == [] and verdict.stored == 1
