"""The longer soak of issue 4: many writer clients through several server processes for a
while, with injected client timeouts, dropped sockets and SIGKILLed servers (restarted on the
same port), then the checks of the hardening tests: every acknowledged deal stored exactly
once, numbers 1..N, stored entries and sheets equal to re-scoring the logs.

    .venv/bin/python bench/soak.py --seconds 120 --clients 16 --processes 2 \
        --database postgresql+psycopg://postgres@127.0.0.1:5432/test

With a PostgreSQL URL a fresh database is created on that server (and dropped after); without
one, a SQLite file in a temporary directory (then use --processes 1 or more: SQLite is shared
by processes too, only slower). Prints the figures as JSON. Exit status 1 if anything is lost.
Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, bench/ is sys.path[0], and bench/http.py would shadow the standard library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import argparse
import json
import os
import random
import tempfile
import threading
import time

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardening.harness import (  # noqa: E402
    TEST_DB_ENV,
    Server,
    Stats,
    Writer,
    create_table,
    fresh_database,
    verify_table,
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--tables", type=int, default=4, help="clients are spread over this many tables")
    p.add_argument(
        "--database", default=os.environ.get(TEST_DB_ENV), help="PostgreSQL server URL (default: SQLite)"
    )
    p.add_argument("--timeout-rate", type=float, default=0.05)
    p.add_argument("--drop-rate", type=float, default=0.02)
    p.add_argument(
        "--kill-every", type=float, default=10.0, help="SIGKILL a server every N seconds (0: never)"
    )
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()

    if args.database:
        os.environ[TEST_DB_ENV] = args.database
    else:
        os.environ.pop(TEST_DB_ENV, None)
    rng = random.Random(args.seed)
    admin_key = "pk_soak_" + os.urandom(12).hex()
    from app.kit.db import migrate

    with (
        tempfile.TemporaryDirectory(prefix="prefscore-soak-") as tmp,
        fresh_database(Path(tmp), "soak") as url,
    ):
        migrate.upgrade(url)
        servers = [
            Server(url, Path(tmp), admin_key, upgrade=False, name=f"soak{i}").start()
            for i in range(args.processes)
        ]
        urls = [s.url for s in servers]
        kills = 0
        try:
            tables = [create_table(urls[0], admin_key)["id"] for _ in range(args.tables)]
            deadline = time.monotonic() + args.seconds
            stop = threading.Event()
            # 1000-point pools close after about 800 deals of this mix: stay below that per table
            per_client = max(1, 700 * args.tables // args.clients)
            writers = [
                Writer(
                    f"w{i}",
                    urls,
                    tables[i % len(tables)],
                    admin_key,
                    per_client,
                    seed=args.seed * 1000 + i,
                    timeout_rate=args.timeout_rate,
                    drop_rate=args.drop_rate,
                    deadline=deadline + 120,
                    stop=stop,
                )
                for i in range(args.clients)
            ]
            started = time.monotonic()
            for w in writers:
                w.start()
            next_kill = started + args.kill_every if args.kill_every > 0 else float("inf")
            while time.monotonic() < deadline and any(w.is_alive() for w in writers):
                if time.monotonic() >= next_kill:
                    victim = rng.choice(servers)
                    victim.kill()
                    kills += 1
                    time.sleep(0.2)
                    victim.start()
                    next_kill = time.monotonic() + args.kill_every
                time.sleep(0.05)
            stop.set()
            for w in writers:
                w.join(180)
            elapsed = time.monotonic() - started
            stats = Stats()
            by_table: dict[str, Stats] = {t: Stats() for t in tables}
            for w in writers:
                if w.error is not None:
                    raise w.error
                stats.merge(w.stats)
                by_table[w.table_id].merge(w.stats)
            # an unfinished key (the stop came while it was being retried) may or may not be
            # stored; it must not be stored twice, and every acknowledged one must be there
            problems: list[str] = []
            stored = 0
            for t, s in by_table.items():
                s.keys = s.keys  # all keys tried, acknowledged or not
                verdict = verify_table(urls[0], admin_key, t, s)
                stored += verdict.stored
                problems += verdict.problems
            figures = {
                "database": "postgresql" if url.startswith("postgresql") else "sqlite",
                "processes": args.processes,
                "clients": args.clients,
                "tables": args.tables,
                "seconds": round(elapsed, 1),
                "deals_acknowledged": len(stats.acks),
                "deals_stored": stored,
                "deals_per_second": round(stored / elapsed, 1),
                "requests_sent": stats.attempts,
                "retries": stats.retries,
                "client_timeouts_injected": stats.timeouts_injected,
                "sockets_dropped_injected": stats.drops_injected,
                "server_sigkills": kills,
                "connection_errors_seen": stats.connection_errors,
                "responses_5xx_seen": stats.status_5xx,
                "idempotent_replays_seen": stats.replayed,
                "deals_lost": sum(1 for p in problems if "not stored" in p),
                "problems": problems[:20],
            }
            print(json.dumps(figures, indent=2))
            return 1 if problems else 0
        finally:
            for s in servers:
                s.stop(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
