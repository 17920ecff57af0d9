"""CPU per read of ``Database.read_one_async``, the read on the event loop before a sheet's 304.

    python -m bench.loop_reads                  # both databases, best of 5 rounds
    python -m bench.loop_reads --db postgres --quick
    python -m bench.loop_reads --profile        # cProfile of the PostgreSQL read, top entries

The read alone, without the app around it: the CPU seconds of this process per read, the best
of ``--rounds`` rounds, with 1 and 8 callers at once on one event loop. On SQLite it is a plain
sqlite3 point read; on PostgreSQL an async autocommit connection per read (app/kit/db/engine.py).
``bench.asgi`` gives the same read inside the whole 304.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from bench.http import Postgres

SQL = "SELECT revision, deal_count FROM loop_bench WHERE id = ? AND owner = ?"


async def _rounds(url: str, n: int, rounds: int, callers: tuple[int, ...]) -> dict[int, float]:
    from sqlalchemy import text

    from app.kit.db import make_database
    from app.kit.settings import Settings

    db = make_database(Settings(database_url=url))
    with db.engine.begin() as conn:
        conn.execute(
            text("CREATE TABLE loop_bench (id text PRIMARY KEY, owner text, revision int, deal_count int)")
        )
        conn.execute(text("INSERT INTO loop_bench VALUES ('t1', 'k1', 3, 7)"))
    out: dict[int, float] = {}
    try:
        assert await db.read_one_async(SQL, ("t1", "k1")) == (3, 7)

        async def caller(reads: int) -> None:
            for _ in range(reads):
                if await db.read_one_async(SQL, ("t1", "k1")) is None:
                    raise RuntimeError("no row")

        for at_once in callers:
            best = float("inf")
            for _ in range(rounds):
                started = time.process_time()
                await asyncio.gather(*(caller(n // at_once) for _ in range(at_once)))
                best = min(best, (time.process_time() - started) / (n // at_once * at_once))
            out[at_once] = best * 1e6
    finally:
        await db.close_loop_reads()
        db.dispose()
    return out


def measure(db: str, n: int, rounds: int, callers: tuple[int, ...] = (1, 8)) -> dict[int, float]:
    if db == "sqlite":
        with tempfile.TemporaryDirectory(prefix="prefscore-loopreads-") as tmp:
            return asyncio.run(_rounds(f"sqlite:///{Path(tmp) / 'bench.db'}", n, rounds, callers))
    with Postgres() as pg:
        return asyncio.run(_rounds(pg.url, n, rounds, callers))


def profile(n: int) -> None:
    prof = cProfile.Profile(time.process_time)  # CPU, not the waits
    with Postgres() as pg:
        prof.enable()
        asyncio.run(_rounds(pg.url, n, 1, (1,)))
        prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.loop_reads", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    p.add_argument("-n", type=int, default=2000, help="reads per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="500 reads, 3 rounds")
    p.add_argument("--profile", action="store_true", help="cProfile the PostgreSQL read")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.rounds = 500, 3
    if args.profile:
        profile(args.n)
        return 0
    for db in ("sqlite", "postgres") if args.db == "both" else (args.db,):
        for at_once, us in measure(db, args.n, args.rounds).items():
            print(
                f"{db:8} read_one_async, {at_once} at once: {us:7.1f} µs CPU per read (best of {args.rounds})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
