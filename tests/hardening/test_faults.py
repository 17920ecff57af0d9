"""Faults: a server killed with SIGKILL in the middle of a write load, and the database going
away (a TCP proxy between the service and PostgreSQL is cut, so that the machine's shared
PostgreSQL server, which other tests use, keeps running)."""

from __future__ import annotations

import time

import httpx
from sqlalchemy.engine import make_url

from .conftest import needs_postgres
from .harness import TcpProxy, Writer, auth, create_table, is_postgres_run, is_problem, verify_table

CLIENTS = 8


def _wait_acked(writers, at_least: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(w.stats.acked for w in writers) < at_least:
        assert time.monotonic() < deadline, "the write load did not start"
        assert any(w.is_alive() for w in writers), "the writers stopped early"
        time.sleep(0.01)


def test_sigkill_in_the_middle_of_a_write_load(fresh_db, servers, admin_key):
    """Kill a server (SIGKILL) twice while 8 clients write; restart it on the same port. The
    clients retry with the same Idempotency-Key. No acknowledged deal is lost, none is doubled,
    none is half-written (the table's count and sheet equal the re-scored log). On PostgreSQL
    the clients use two processes, and one of them is the one killed."""
    victim = servers.start(fresh_db, name="victim")
    urls = [victim.url]
    if is_postgres_run():
        urls.append(servers.start(fresh_db, name="survivor").url)
    table = create_table(victim.url, admin_key)
    writers = [
        Writer(f"k{i}", urls, table["id"], admin_key, 25, seed=200 + i, timeout_rate=0.03)
        for i in range(CLIENTS)
    ]
    for w in writers:
        w.start()
    kills = 0
    for threshold in (30, 110):
        _wait_acked(writers, threshold)
        victim.kill()
        kills += 1
        time.sleep(0.3)
        victim.start()
    for w in writers:
        w.join(150)
        assert not w.is_alive()
        assert w.error is None, w.error
    from .harness import Stats

    stats = Stats()
    for w in writers:
        stats.merge(w.stats)
    verdict = verify_table(victim.url, admin_key, table["id"], stats)
    assert verdict.problems == [], "\n".join(verdict.problems[:30])
    assert verdict.stored == len(stats.acks) == CLIENTS * 25
    assert kills == 2 and stats.connection_errors + stats.status_5xx > 0


@needs_postgres
def test_database_down_is_503_and_recovers_without_restart(fresh_db, servers, admin_key):
    url = make_url(fresh_db)
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432)).start()
    try:
        server = servers.start(
            url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False),
            name="behind-proxy",
        )
        table = create_table(server.url, admin_key)
        deals = f"{server.url}/v1/tables/{table['id']}/deals"
        deal = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
        assert httpx.post(deals, json=deal, headers=auth(admin_key)).status_code == 201

        proxy.cut()
        deadline = time.monotonic() + 20
        while True:
            health = httpx.get(server.url + "/health", timeout=15)
            if health.status_code == 503 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert health.status_code == 503, health.text
        for response in (
            httpx.get(f"{server.url}/v1/tables/{table['id']}", headers=auth(admin_key), timeout=15),
            httpx.post(
                deals, json=deal, headers={**auth(admin_key), "Idempotency-Key": "during-outage"}, timeout=15
            ),
            httpx.get(f"{server.url}/v1/tables/{table['id']}/sheet", headers=auth(admin_key), timeout=15),
        ):
            assert response.status_code == 503, response.text
            assert is_problem(response), response.text
            assert "Retry-After" in response.headers

        proxy.restore()
        deadline = time.monotonic() + 30
        while httpx.get(server.url + "/health", timeout=15).status_code != 200:
            assert time.monotonic() < deadline, "the service did not recover"
            time.sleep(0.2)
        r = httpx.post(
            deals, json=deal, headers={**auth(admin_key), "Idempotency-Key": "during-outage"}, timeout=15
        )
        assert r.status_code == 201, r.text
        assert r.json()["deal"]["number"] == 2
        assert server.starts == 1 and server.alive()
        verdict = verify_table(server.url, admin_key, table["id"])
        assert verdict.problems == [] and verdict.stored == 2
    finally:
        proxy.close()
