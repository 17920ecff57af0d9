"""What a read replica costs a post and takes off the leader (docs/deployment.md § Reads
from replicas): a PostgreSQL leader and its streaming replica made here
(tests/replica_pair.py), one app without ``PREFSCORE_READ_DATABASE_URL`` and one with it,
deals posted in alternating blocks through each (the same leader), each post timed in the
client (an in-process TestClient); then sheets read with and without the writer's position.

    .venv/bin/python -m bench.replicas            # about 30 s; --posts, --blocks
"""

from __future__ import annotations

import argparse
import logging
import secrets
import statistics
import time

from fastapi.testclient import TestClient

from app.kit.db import migrate
from app.kit.db.replicas import VISIT, Visit
from app.kit.settings import Settings
from app.main import create_app
from tests import replica_pair

KEY = "pk_bench_admin_" + secrets.token_urlsafe(12)
AUTH = {"Authorization": f"Bearer {KEY}"}
DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}


def _post_times(client: TestClient, posts: int) -> list[float]:
    table = client.post(
        "/v1/tables",
        json={"players": ["A", "B", "C"], "convention": "sochi", "pool_target": 1000},
        headers=AUTH,
    ).json()["id"]
    times = []
    for _ in range(posts):
        started = time.perf_counter()
        r = client.post(f"/v1/tables/{table}/deals", json=DEAL, headers=AUTH)
        times.append(time.perf_counter() - started)
        assert r.status_code == 201, r.text
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=150)
    parser.add_argument("--blocks", type=int, default=4)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # the access lines
    why = replica_pair.available()
    if why:
        raise SystemExit(why)
    pair = replica_pair.ReplicaPair().start()
    try:
        migrate.upgrade(pair.leader_url)
        base = Settings(database_url=pair.leader_url, admin_key=KEY, threads=4, webhooks_deliver=False)
        with (
            TestClient(create_app(base)) as plain,
            TestClient(
                create_app(base.model_copy(update={"read_database_url": pair.replica_url}))
            ) as replicated,
        ):
            times: dict[str, list[float]] = {"leader only": [], "with a replica": []}
            for _ in range(args.blocks):
                times["leader only"] += _post_times(plain, args.posts)
                times["with a replica"] += _post_times(replicated, args.posts)
            for name, got in times.items():
                got.sort()
                print(
                    f"post, {name}: p50 {statistics.median(got) * 1000:.2f} ms, p90 {got[int(len(got) * 0.9)] * 1000:.2f} ms ({len(got)} posts)"
                )
            db = replicated.app.state.db
            # The position's own cost, apart from the noise of whole posts: one read after a commit.
            visit = Visit({}, frozenset())
            token = VISIT.set(visit)
            spent = []
            for _ in range(500):
                started = time.perf_counter()
                db._note_write()
                spent.append(time.perf_counter() - started)
            VISIT.reset(token)
            print(
                f"the position after a write (pg_current_wal_lsn()): p50 {statistics.median(spent) * 1000:.3f} ms"
            )
            table = replicated.post(
                "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH
            ).json()["id"]
            stranger = TestClient(replicated.app)
            before = (db.replica_reads, db.leader_reads)
            for _ in range(100):
                replicated.post(f"/v1/tables/{table}/deals", json=DEAL, headers=AUTH)
                replicated.get(f"/v1/tables/{table}/sheet", headers=AUTH)  # the writer, at once
                stranger.get(f"/v1/tables/{table}/sheet", headers=AUTH)  # a reader without a position
            print(
                f"200 sheet reads (100 by the writer right after its post, 100 by others): {db.replica_reads - before[0]} from the replica, "
                f"{db.leader_reads - before[1]} sent to the leader (the replica had not replayed the write yet)"
            )
    finally:
        pair.stop()


if __name__ == "__main__":
    main()
