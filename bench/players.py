"""Players and statistics at scale: one owner holding 10,000 tables of 30 deals and 200
registered players (three at each table), on SQLite or PostgreSQL.

    .venv/bin/python -m bench.players                       # SQLite, a temporary file
    PREFSCORE_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.players                   # a fresh PostgreSQL database
    .venv/bin/python -m bench.players --tables 1000 --requests 100   # a quick look

The database is made by the migrations and filled directly (bulk inserts of what the
service would have stored: tables, deals, players and their per-table rows from
``player_stats.recompute``), from a few engine-generated 30-deal logs reused across tables,
then analysed (the planner statistics a live database has).
Requests go to the app in this process (httpx's ASGI transport: no network and no
server; the figures are the service's own time, its thread-pool hop included). Printed:

- ``GET /v1/players/{id}/stats``: p50 and p90 over ``--requests`` requests, players in turn
  (each sits at about 150 of the tables);
- ``GET /v1/tables`` (the first page), when the route is there; otherwise "not served";
- ``POST .../deals``: p50 of posting a deal to a table without registered players, to a
  table with three, and with the statistics hook switched off (the code before the
  registry, but for the registered seats' column of the post's read of the table row, which
  finds nothing at such a table): the three interleaved in one run, and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, text
from sqlalchemy.pool import NullPool

ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
OWNER = "bench-owner"
LOG_DEALS = 30


def _logs(count: int, seed: int) -> list[Any]:
    """``count`` 30-deal logs of sochi at 3 players that never finish (pool target 1,000)."""
    from app.rules import make_rules
    from tests.support.deallog import generate_log

    rules = make_rules("sochi", players=3, pool_target=1000, options={})
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        log = generate_log(rules, 0, rng, LOG_DEALS, close=False)
        if len(log.deals) == LOG_DEALS:
            out.append(log)
    return out


def populate(url: str, tables: int, players: int, seed: int) -> list[str]:
    """The owner's tables, deals, players and per-table rows; the player ids."""
    from app.deals.orm import DealRow
    from app.deals.service import entries_to_json
    from app.kit.db.models import utcnow
    from app.players import stats as player_stats
    from app.players.orm import PlayerRow, PlayerTableRow
    from app.players.service import new_player_id
    from app.rules import RULES_VERSION
    from app.tables.orm import TableRow

    logs = _logs(8, seed)
    rules = logs[0].rules
    per_log = []
    for log in logs:
        tallies = player_stats.recompute(rules, 0, log.bodies, range(3))
        per_log.append(
            (
                [
                    {
                        "number": n,
                        "body": d.to_dict(),
                        "entries": entries_to_json(e),
                        "dealer": log.states[n - 1].next_dealer,
                    }
                    for n, (d, e) in enumerate(zip(log.deals, log.entries), 1)
                ],
                log.states[-1].to_dict(),
                tallies,
            )
        )
    rng = random.Random(seed)
    engine = create_engine(url, poolclass=NullPool)
    now = utcnow()
    ids = [new_player_id() for _ in range(players)]
    with engine.begin() as conn:
        conn.execute(
            insert(PlayerRow.__table__),
            [
                {
                    "id": i,
                    "owner": OWNER,
                    "name": f"Player {k}",
                    "external_id": f"user-{k}",
                    "created_at": now,
                    "updated_at": now,
                }
                for k, i in enumerate(ids)
            ],
        )
    batch = 500
    for start in range(0, tables, batch):
        table_rows, deal_rows, seat_rows = [], [], []
        for k in range(start, min(start + batch, tables)):
            tid = uuid.uuid4().hex
            deals, state, tallies = per_log[k % len(per_log)]
            sitting = rng.sample(ids, 3)
            table_rows.append(
                {
                    "id": tid,
                    "owner": OWNER,
                    "convention": "sochi",
                    "players": [f"P{s}" for s in range(3)],
                    "pool_target": 1000,
                    "options": rules.options,
                    "first_dealer": 0,
                    "share_token": secrets.token_urlsafe(24),
                    "state": state,
                    "rules_version": RULES_VERSION,
                    "deal_count": LOG_DEALS,
                    "revision": LOG_DEALS,
                    "created_at": now,
                    "updated_at": now,
                }
            )
            deal_rows += [{**d, "table_id": tid, "created_at": now} for d in deals]
            seat_rows += [
                {
                    "player_id": pid,
                    "table_id": tid,
                    "seat": seat,
                    "convention": "sochi",
                    "table_created_at": now,
                    "deal_count": LOG_DEALS,
                    "finished": False,
                    "balance": str(tallies[seat].balance),
                    "tally": tallies[seat].tally.to_json(),
                }
                for seat, pid in enumerate(sitting)
            ]
        with engine.begin() as conn:
            conn.execute(insert(TableRow.__table__), table_rows)
            conn.execute(insert(DealRow.__table__), deal_rows)
            conn.execute(insert(PlayerTableRow.__table__), seat_rows)
    # A bulk-filled database has no planner statistics yet (a live PostgreSQL gets them from
    # autovacuum): without them PostgreSQL read all 10,000 of the owner's tables and sorted
    # them for the listing's first page instead of walking (owner, updated_at, id).
    with engine.begin() as conn:
        conn.execute(text("ANALYZE"))
    engine.dispose()
    return ids


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _ms(seconds: list[float], what: str) -> str:
    cpu = CPU.get(what, [0.0])
    return (
        f"p50 {_p(seconds, 0.5) * 1000:6.2f} ms   p90 {_p(seconds, 0.9) * 1000:6.2f} ms   "
        f"CPU p50 {_p(cpu, 0.5) * 1000:5.2f} ms"
    )


CPU: dict[str, list[float]] = {}


async def _timed(call, what: str) -> tuple[float, Any]:  # noqa: ANN001
    """The wall time of one request; its CPU time (this process's: the app runs here) is kept
    in CPU[what], steadier than wall time on a machine shared with other work."""
    start, cpu = time.perf_counter(), time.process_time()
    r = await call()
    CPU.setdefault(what, []).append(time.process_time() - cpu)
    return time.perf_counter() - start, r


def measure(url: str, ids: list[str], requests: int, posts: int, seed: int) -> dict[str, Any]:
    return asyncio.run(_measure(url, ids, requests, posts, seed))


async def _measure(url: str, ids: list[str], requests: int, posts: int, seed: int) -> dict[str, Any]:
    import httpx

    from app.kit.settings import Settings
    from app.main import create_app
    from app.players import service as player_stats  # the hook the deals service calls

    settings = Settings(
        database_url=url, admin_key=ADMIN, rate_limit=0, max_tables_per_owner=10**9, log_level="WARNING"
    )
    app = create_app(settings)
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        r = await client.post("/v1/keys", json={"owner": OWNER}, headers={"Authorization": f"Bearer {ADMIN}"})
        h = {"Authorization": f"Bearer {r.json()['key']}"}
        for pid in ids[:10]:  # warm up
            await client.get(f"/v1/players/{pid}/stats", headers=h)
        times = []
        for k in range(requests):
            t, r = await _timed(
                lambda: client.get(f"/v1/players/{ids[k % len(ids)]}/stats?stake=0.5", headers=h), "stats"
            )
            assert r.status_code == 200, r.text
            times.append(t)
        out["stats"] = times
        out["stats_tables"] = r.json()["tables"]
        r = await client.get("/v1/tables", headers=h)
        if r.status_code == 200:
            times = []
            for _ in range(requests):
                t, r = await _timed(lambda: client.get("/v1/tables", headers=h), "list")
                times.append(t)
            out["list"] = times
        else:
            out["list"] = None
        out.update(await _posting(client, h, ids, posts, seed, player_stats))
    app.state.db.dispose()
    return out


async def _posting(
    client: Any, h: dict[str, str], ids: list[str], posts: int, seed: int, player_stats: Any
) -> dict[str, list[float]]:
    """Posts in three modes, interleaved deal by deal: each mode has its own table (a new one
    every 30 deals), all playing the same generated log."""
    log = _logs(1, seed + 1)[0]
    hook = player_stats.on_deal_posted
    linked_seats = iter(ids[-60:])

    async def new_table(mode: str) -> str:
        names = ["Anna", "Boris", "Vera"]
        players: list[Any] = names
        if mode == "linked":
            players = [{"name": n, "player": next(linked_seats)} for n in names]
        r = await client.post(
            "/v1/tables", json={"players": players, "convention": "sochi", "pool_target": 1000}, headers=h
        )
        assert r.status_code == 201, r.text
        return r.json()["id"]

    modes = ("before", "unlinked", "linked")
    tables = {m: await new_table(m) for m in modes}
    times: dict[str, list[float]] = {m: [] for m in modes}
    for k in range(posts):
        n = k % LOG_DEALS
        if n == 0 and k:
            tables = {m: await new_table(m) for m in modes}
        for mode in modes:
            # "before": the statistics hook off, as the code was before the registry
            player_stats.on_deal_posted = (lambda *a, **kw: None) if mode == "before" else hook
            try:
                t, r = await _timed(
                    lambda: client.post(f"/v1/tables/{tables[mode]}/deals", json=log.bodies[n], headers=h),
                    f"post_{mode}",
                )
            finally:
                player_stats.on_deal_posted = hook
            assert r.status_code == 201, r.text
            times[mode].append(t)
    return {f"post_{m}": v for m, v in times.items()}


@contextmanager
def _database(label: str) -> Iterator[str]:
    from tests.databases import fresh_database

    with tempfile.TemporaryDirectory() as tmp:
        with fresh_database(Path(tmp), label) as url:
            yield url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--posts", type=int, default=300, help="deals posted per mode")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    from app.kit.db import migrate

    with _database("bench_players") as url:
        migrate.upgrade(url)
        start = time.perf_counter()
        ids = populate(url, args.tables, args.players, args.seed)
        kind = url.split(":", 1)[0]
        print(
            f"{kind}: {args.tables} tables of {LOG_DEALS} deals, {args.players} players; filled in {time.perf_counter() - start:.0f} s"
        )
        out = measure(url, ids, args.requests, args.posts, args.seed)
    print(
        f"GET /v1/players/{{id}}/stats   {_ms(out['stats'], 'stats')}   ({out['stats_tables']} tables for the last player)"
    )
    if out["list"] is None:
        print(
            "GET /v1/tables                not served by this checkout (measure after the tables listing is merged)"
        )
    else:
        print(f"GET /v1/tables (first page)   {_ms(out['list'], 'list')}")
    before, unlinked, linked = (_p(out[f"post_{m}"], 0.5) for m in ("before", "unlinked", "linked"))
    for m in ("before", "unlinked", "linked"):
        print(f"POST deal, {m:9}            {_ms(out[f'post_{m}'], f'post_{m}')}")
    print(
        f"POST ratios (wall p50): unlinked/before {unlinked / before:.3f}   linked/before {linked / before:.3f}"
    )
    before, unlinked, linked = (_p(CPU[f"post_{m}"], 0.5) for m in ("before", "unlinked", "linked"))
    print(
        f"POST ratios (CPU p50):  unlinked/before {unlinked / before:.3f}   linked/before {linked / before:.3f}"
    )
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
