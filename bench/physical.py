"""The physical limit: the same pulkas posted through prefscore and written by a bare script.

    python -m bench.physical                 # PostgreSQL, 8 clients, about 1 minute
    python -m bench.physical --quick         # fewer deals
    python -m bench.physical --clients 1 --deals 300

One run, side by side, on a fresh PostgreSQL database (127.0.0.1:5432, user postgres):

- ``prefscore``: the service started as ``prefscore serve`` does (one worker process); each of
  ``--clients`` threads creates a table and posts its pulka's deals one after the other
  (keep-alive ``http.client``), the whole generated log of a Sochi table of three;
- ``bare``: each thread holds one psycopg connection and inserts the same deals, one row per
  deal (table id, number, the deal's JSON as posted) in its own transaction: one commit per
  deal, PostgreSQL's default durability (``synchronous_commit`` on), as every post is.

Both client sides are Python threads in this process (their CPU is reported apart). Printed:
deals a second each way and their ratio (the service's share of the physical limit), and where
the rest goes: CPU a deal of the service's process, of PostgreSQL's, of the clients; the
transactions, rows read and written, and WAL bytes a deal (from ``pg_stat_database`` and the
WAL position before and after). The ratio is reported through bench/targets.py (the issue
asks it reported, not held to a number: its "target" is the posting target, 0.8).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.rules import make_rules
from bench.http import Postgres, cpu_delta, cpu_snapshot, migrate, server_env, service_server
from bench.targets import Figure, report
from tests.support.deallog import generate_log

POOL_TARGET = 20
BARE_TABLE = """CREATE TABLE bare_deals (
    table_id text NOT NULL, number integer NOT NULL, body jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (table_id, number))"""


@dataclass(frozen=True)
class Pulka:
    first_dealer: int
    bodies: list[str]  # each deal as posted, JSON text


def pulkas(count: int, deals: int, seed: int) -> list[Pulka]:
    """``count`` Sochi pulkas of three, up to ``deals`` deals each (a finished table ends one)."""
    rules = make_rules("sochi", 3, POOL_TARGET, {})
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        dealer = rng.randrange(3)
        log = generate_log(rules, dealer, rng, deals, close=False)
        out.append(Pulka(dealer, [json.dumps(b, separators=(",", ":")) for b in log.bodies]))
    return out


def _on_cpu(pids: dict[int, float]) -> dict[int, float]:
    """Seconds on a CPU of each process (all its threads), from the scheduler's nanosecond
    count (a process's ticks in /proc/PID/stat are 10 ms: a backend doing 100 short inserts
    shows none)."""
    out = {}
    for pid in pids:
        total = 0
        try:
            for task in Path(f"/proc/{pid}/task").iterdir():
                total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        out[pid] = total / 1e9
    return out


def _database_counters(conn: Any) -> dict[str, int]:
    row = conn.execute(
        "SELECT xact_commit, tup_returned + tup_fetched, tup_inserted + tup_updated + tup_deleted,"
        " pg_current_wal_lsn() - '0/0'::pg_lsn FROM pg_stat_database WHERE datname = current_database()"
    ).fetchone()
    return {"commits": row[0], "rows_read": row[1], "rows_written": row[2], "wal_bytes": int(row[3])}


def _measured(
    name: str, admin_dsn: str, server_pid: int | None, run: Any, deals: int, done: Any = None
) -> dict[str, Any]:
    """Run ``run()`` and what it cost: wall, CPU by side, the database's counters a deal.
    ``done()`` ends the run's connections before the counters are read: a backend reports its
    counters when it ends (an idle pooled one only every few seconds)."""
    import psycopg

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        before_db = _database_counters(conn)
        before = cpu_snapshot([server_pid] if server_pid else [])
        before_server, before_postgres = _on_cpu(before.server), _on_cpu(before.postgres)
        own0 = os.times()
        start = time.perf_counter()
        run()
        wall = time.perf_counter() - start
        own1 = os.times()
        after = cpu_snapshot([server_pid] if server_pid else [])
        after_server, after_postgres = _on_cpu(after.server), _on_cpu(after.postgres)
        if done is not None:
            done()
        time.sleep(1.1)  # a backend's counters reach the shared statistics at most once a second
        conn.execute("SELECT pg_stat_clear_snapshot()")
        after_db = _database_counters(conn)
    clients = (own1.user + own1.system) - (own0.user + own0.system)
    per = {k: (after_db[k] - before_db[k]) / deals for k in before_db}
    out = {
        "name": name,
        "deals": deals,
        "wall_s": round(wall, 3),
        "deals_per_s": round(deals / wall, 1),
        "cpu_ms_per_deal": {
            "service": round(cpu_delta(before_server, after_server) * 1000 / deals, 3) if server_pid else 0.0,
            "postgres": round(cpu_delta(before_postgres, after_postgres) * 1000 / deals, 3),
            "clients": round(clients * 1000 / deals, 3),
        },
        "per_deal": {k: round(v, 2) for k, v in per.items()},
    }
    print(
        f"{name:10} {out['deals_per_s']:8.1f} deals/s  CPU ms a deal: {out['cpu_ms_per_deal']}  "
        f"a deal: {out['per_deal']}",
        file=sys.stderr,
    )
    return out


def _in_threads(work: list[Any]) -> None:
    errors: list[BaseException] = []

    def guarded(job: Any) -> None:
        try:
            job()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, after every thread is done
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(job,)) for job in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _post_pulka(port: int, key: str, pulka: Pulka) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    table = json.dumps(
        {
            "players": ["Anna", "Boris", "Vera"],
            "convention": "sochi",
            "pool_target": POOL_TARGET,
            "first_dealer": pulka.first_dealer,
        }
    )
    conn.request("POST", "/v1/tables", body=table, headers=auth)
    resp = conn.getresponse()
    table_id = json.loads(resp.read())["id"]
    for body in pulka.bodies:
        conn.request("POST", f"/v1/tables/{table_id}/deals", body=body, headers=auth)
        resp = conn.getresponse()
        resp.read()
        if resp.status != 201:
            raise RuntimeError(f"POST deal: {resp.status}")
    conn.close()


def _insert_pulka(conn: Any, pulka: Pulka) -> None:
    table_id = secrets.token_hex(16)
    for number, body in enumerate(pulka.bodies, 1):
        conn.execute(
            "INSERT INTO bare_deals (table_id, number, body) VALUES (%s, %s, %s)", (table_id, number, body)
        )


def _key(port: int, admin: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "POST",
        "/v1/keys",
        body=json.dumps({"owner": "physical"}),
        headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"},
    )
    key = json.loads(conn.getresponse().read())["key"]
    conn.close()
    return key


def run(clients: int, deals: int, seed: int) -> dict[str, Any]:
    import psycopg

    loads = pulkas(clients, deals, seed)
    total = sum(len(p.bodies) for p in loads)
    with Postgres() as pg, tempfile.TemporaryDirectory() as tmp:
        dsn = f"host=127.0.0.1 port=5432 user=postgres dbname={pg.name}"
        admin = "pk_bench_" + secrets.token_urlsafe(24)
        env = server_env(pg.url, admin)
        migrate(env)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(BARE_TABLE)
        server = service_server("physical-service", env, 1)
        server.start(Path(tmp))
        try:
            server.wait_ready()
            key = _key(server.port, admin)
            assert server.proc is not None
            service = _measured(
                "prefscore",
                dsn,
                server.proc.pid,
                lambda: _in_threads([lambda p=p: _post_pulka(server.port, key, p) for p in loads]),
                total,
                server.stop,
            )
            # Connected before and closed after the measure, as the service's pool is.
            conns = [psycopg.connect(dsn, autocommit=True) for _ in loads]
            bare = _measured(
                "bare",
                dsn,
                None,
                lambda: _in_threads([lambda c=c, p=p: _insert_pulka(c, p) for c, p in zip(conns, loads)]),
                total,
                lambda: [c.close() for c in conns],
            )
        finally:
            server.stop()
    return {"clients": clients, "deals": total, "service": service, "bare": bare}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, nargs="+", default=[1, 8], help="clients (threads), each a table")
    p.add_argument(
        "--deals", type=int, default=400, help="deals of each client's pulka at most (default 400)"
    )
    p.add_argument("--seed", type=int, default=36)
    p.add_argument("--quick", action="store_true", help="--deals 120")
    args = p.parse_args(argv)
    deals = 120 if args.quick else args.deals
    figures, runs = [], []
    for clients in args.clients:
        res = run(clients, deals, args.seed)
        runs.append(res)
        ratio = res["service"]["deals_per_s"] / res["bare"]["deals_per_s"]
        figures.append(
            # Issue 36, point 7: a ratio to report, with where the rest goes, not a target.
            Figure(f"prefscore ÷ bare inserts, deals a second (c={clients})", ratio, None, db="postgres")
        )
    report("physical", figures, {"runs": runs})
    return 0


if __name__ == "__main__":
    sys.exit(main())
