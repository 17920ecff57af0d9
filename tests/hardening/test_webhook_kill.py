"""Webhooks are never lost: a server is killed with SIGKILL while deliveries are in flight
(twice, in the middle of a write load), started again on the same port; every acknowledged
deal reaches the receiver at least once, each with one webhook-id, and a repeat carries the
same webhook-id and the same body. On PostgreSQL a second process delivers beside it (the
claims skip each other's rows)."""

from __future__ import annotations

import json
import time
from collections import defaultdict

import httpx
from standardwebhooks.webhooks import Webhook

from tests.support.receiver import Receiver

from .harness import Stats, Writer, auth, create_table, is_postgres_run

CLIENTS = 4
DEALS_EACH = 50
ENV = {
    "PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS": "127.0.0.0/8",
    "PREFSCORE_WEBHOOKS_LEASE": "3",  # a killed process's claims are due again after 3 s
    "PREFSCORE_WEBHOOKS_RETRY_SCHEDULE": "0.5",
    "PREFSCORE_WEBHOOKS_POLL_INTERVAL": "0.2",
    "PREFSCORE_WEBHOOKS_IN_FLIGHT_PER_ENDPOINT": "2",
}


def _wait(cond, timeout: float, what: str) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_sigkill_while_deliveries_are_in_flight(fresh_db, servers, admin_key):
    receiver = Receiver(
        delay=0.2
    )  # slower than the writers: deliveries queue up and are in flight at each kill
    try:
        victim = servers.start(fresh_db, name="victim", env=ENV)
        urls = [victim.url]
        if is_postgres_run():
            urls.append(servers.start(fresh_db, name="survivor", env=ENV).url)
        hook = httpx.post(
            victim.url + "/v1/webhooks",
            json={"url": receiver.url, "types": ["deal.posted"]},
            headers=auth(admin_key),
            timeout=30,
        )
        assert hook.status_code == 201, hook.text
        secret = hook.json()["secret"]
        table = create_table(victim.url, admin_key)
        writers = [
            Writer(f"w{i}", urls, table["id"], admin_key, DEALS_EACH, seed=500 + i) for i in range(CLIENTS)
        ]
        for w in writers:
            w.start()
        kills = 0
        in_flight_at_kill = []
        for threshold in (30, 110):
            _wait(
                lambda: sum(w.stats.acked for w in writers) >= threshold, 60, "the write load did not start"
            )
            _wait(
                lambda: receiver.in_progress > 0,
                10,
                f"no delivery in flight ({len(receiver.received)} received, {sum(w.stats.acked for w in writers)} acknowledged)",
            )
            in_flight_at_kill.append(receiver.in_progress)
            victim.kill()
            kills += 1
            time.sleep(0.3)
            victim.start()
        for w in writers:
            w.join(150)
            assert not w.is_alive() and w.error is None, w.error
        stats = Stats()
        for w in writers:
            stats.merge(w.stats)
        acked = set(stats.acks.values())
        assert len(acked) == CLIENTS * DEALS_EACH

        def numbers() -> set[int]:
            return {e["data"]["deal_number"] for e in receiver.events()}

        _wait(lambda: acked <= numbers(), 60, f"missing deliveries: {sorted(acked - numbers())[:20]}")
        time.sleep(1)  # a repeat still under way arrives too
        by_id: dict[str, set[bytes]] = defaultdict(set)
        ids_of_deal: dict[int, set[str]] = defaultdict(set)
        for headers, body in receiver.received:
            Webhook(secret).verify(body, headers)  # every attempt signed
            by_id[headers["webhook-id"]].add(body)
            ids_of_deal[json.loads(body)["data"]["deal_number"]].add(headers["webhook-id"])
        assert all(len(bodies) == 1 for bodies in by_id.values()), "a webhook-id came with two bodies"
        assert all(len(ids) == 1 for ids in ids_of_deal.values()), (
            "a deal was delivered under two webhook-ids"
        )
        repeats = len(receiver.received) - len(by_id)
        print(
            f"\nwebhook kill test ({'postgresql' if is_postgres_run() else 'sqlite'}): {kills} SIGKILLs "
            f"with {in_flight_at_kill} deliveries in flight; {len(acked)} deals acknowledged, "
            f"{len(by_id)} delivered (every one), {len(receiver.received)} requests received, {repeats} repeats "
            f"with the same webhook-id; {stats.connection_errors} connection errors and {stats.status_5xx} 5xx to the writers"
        )
    finally:
        receiver.close()
