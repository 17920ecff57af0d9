"""Ratings at scale, on SQLite or PostgreSQL:

- the last post of a table (the one that finishes it): rated against unrated, both with
  every seat a registered player (what rating the table adds to the post's CPU: its place
  in the finishing order), and the rating itself, which the rater does after the commit
  (``rate_owner``, one table pending, as the rater runs it);
- the leaderboard of one owner's 10,000 rated players (``GET /v1/ratings``: its first page
  and pages further down, through the cursor);
- ``prefscore ratings rebuild`` of 100,000 finished rated tables (three registered players
  each, 2,000 players): from nothing stored (every rating written) and again (all agree).

    .venv/bin/python -m bench.ratings                        # SQLite, a temporary file
    PREFSCORE_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.ratings                    # a fresh PostgreSQL database
    .venv/bin/python -m bench.ratings --tables 10000 --posts 50   # a quick look

Requests go to the app in this process (httpx's ASGI transport: no network, no server);
CPU is this process's time (``time.process_time``), steadier than wall time on a shared
machine. The leaderboard's and the rebuild's tables are filled directly (bulk inserts of
what the service stores); the posts go through the API.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, insert, text
from sqlalchemy.pool import NullPool

ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
# README's short pulka (sochi, pool 4): its fourth deal finishes the table.
PULKA = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}},
    {
        "type": "contract",
        "declarer": 0,
        "contract": "7H",
        "defenders": {"1": "whist", "2": "pass"},
        "tricks": {"0": 7, "1": 3, "2": 0},
    },
    {"type": "misere", "declarer": 2, "tricks": {"2": 0}},
]


def _p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# --- the last post -------------------------------------------------------------------------


async def _last_posts(
    client: Any, h: dict[str, str], posts: int, seed: int, rated_after: Any
) -> dict[str, list[float]]:
    """``posts`` tables of each kind, interleaved: three deals posted, then the fourth (which
    finishes the table) timed, and after a rated one the rater's work (``rated_after``,
    timed apart). Both kinds seat three of 60 registered players."""
    rng = random.Random(seed)
    ids = []
    for k in range(60):
        r = await client.post("/v1/players", json={"name": f"Player {k}"}, headers=h)
        ids.append(r.json()["id"])
    cpu: dict[str, list[float]] = {"unrated": [], "rated": [], "rater": []}
    wall: dict[str, list[float]] = {"unrated": [], "rated": []}
    for _ in range(posts):
        for kind in ("unrated", "rated"):
            seats = [{"name": n, "player": p} for n, p in zip(("Anna", "Boris", "Vera"), rng.sample(ids, 3))]
            r = await client.post(
                "/v1/tables",
                json={"players": seats, "convention": "sochi", "pool_target": 4, "rated": kind == "rated"},
                headers=h,
            )
            tid = r.json()["id"]
            for body in PULKA[:3]:
                assert (await client.post(f"/v1/tables/{tid}/deals", json=body, headers=h)).status_code == 201
            start, c = time.perf_counter(), time.process_time()
            r = await client.post(f"/v1/tables/{tid}/deals", json=PULKA[3], headers=h)
            cpu[kind].append(time.process_time() - c)
            wall[kind].append(time.perf_counter() - start)
            assert r.status_code == 201, r.text
            if kind == "rated":  # what the rater does right after the commit, here in turn
                c = time.process_time()
                rated_after()
                cpu["rater"].append(time.process_time() - c)
    r = await client.get("/v1/ratings?limit=200", headers=h)
    assert r.status_code == 200 and sum(s["rating"]["games"] for s in r.json()["items"]) == 3 * posts, r.text
    return {
        "cpu_unrated": cpu["unrated"],
        "cpu_rated": cpu["rated"],
        "cpu_rater": cpu["rater"],
        "wall_unrated": wall["unrated"],
        "wall_rated": wall["rated"],
    }


# --- the leaderboard -------------------------------------------------------------------------


def fill_leaderboard(url: str, owner: str, players: int, seed: int) -> None:
    """``players`` registered players of ``owner`` with ratings in the pool of every
    convention and in sochi's, as the model leaves them after 1 to 60 tables."""
    from app.kit.db.models import utcnow
    from app.players.orm import PlayerRow
    from app.players.service import new_player_id
    from app.ratings.model import Rating
    from app.ratings.orm import PlayerRatingRow

    rng = random.Random(seed)
    engine = create_engine(url, poolclass=NullPool)
    now = utcnow()
    for start in range(0, players, 2000):
        rows, ratings = [], []
        for k in range(start, min(start + 2000, players)):
            pid = new_player_id()
            rows.append(
                {
                    "id": pid,
                    "owner": owner,
                    "name": f"Player {k}",
                    "external_id": None,
                    "created_at": now,
                    "updated_at": now,
                }
            )
            for pool in ("", "sochi"):
                r = Rating(rng.gauss(25, 4), rng.uniform(1.5, 8.3), rng.randint(1, 60))
                ratings.append(
                    {
                        "pool": pool,
                        "player_id": pid,
                        "owner": owner,
                        "mu": r.mu,
                        "sigma": r.sigma,
                        "ordinal": r.ordinal,
                        "games": r.games,
                        "seq": k + 1,
                    }
                )
        with engine.begin() as conn:
            conn.execute(insert(PlayerRow.__table__), rows)
            conn.execute(insert(PlayerRatingRow.__table__), ratings)
    with engine.begin() as conn:
        conn.execute(text("ANALYZE"))
    engine.dispose()


async def _leaderboard(client: Any, h: dict[str, str], requests: int) -> dict[str, list[float]]:
    cursors = [None]
    url = "/v1/ratings?limit=50"
    for _ in range(20):  # the cursors of the first 20 pages
        page = (await client.get(url, headers=h)).json()
        url = page["next"]
        cursors.append(url)
    out: dict[str, list[float]] = {"first": [], "deeper": [], "first_cpu": [], "deeper_cpu": []}
    for k in range(requests):
        for kind, target in (("first", "/v1/ratings?limit=50"), ("deeper", cursors[1 + k % 20])):
            start, c = time.perf_counter(), time.process_time()
            r = await client.get(target, headers=h)
            out[f"{kind}_cpu"].append(time.process_time() - c)
            out[kind].append(time.perf_counter() - start)
            assert r.status_code == 200 and len(r.json()["items"]) == 50, r.text
    return out


# --- the rebuild -----------------------------------------------------------------------------


def fill_rated_tables(url: str, owner: str, tables: int, players: int, seed: int) -> None:
    """``tables`` finished rated tables of three of ``players`` registered players, stored as
    the service stores them (the table row, its seats' rows with their balances, its place in
    the finishing order), with no rating stored: the rebuild writes every one."""
    from app.kit.db.models import utcnow
    from app.players.orm import PlayerRow, PlayerTableRow
    from app.players.service import new_player_id
    from app.players.stats import Tally
    from app.ratings.orm import RatedTableRow
    from app.rules import RULES_VERSION
    from app.tables.orm import TableRow

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
                    "owner": owner,
                    "name": f"Player {k}",
                    "external_id": None,
                    "created_at": now,
                    "updated_at": now,
                }
                for k, i in enumerate(ids)
            ],
        )
    empty = Tally().to_json()
    batch = 5000
    for start in range(0, tables, batch):
        table_rows, seat_rows, rated_rows = [], [], []
        for k in range(start, min(start + batch, tables)):
            tid = uuid.uuid4().hex
            sitting = rng.sample(ids, 3)
            a, b = rng.randint(-60, 60), rng.randint(-60, 60)
            balances = [a, b, -a - b]
            table_rows.append(
                {
                    "id": tid,
                    "owner": owner,
                    "convention": "sochi",
                    "players": ["Anna", "Boris", "Vera"],
                    "pool_target": 4,
                    "options": {},
                    "first_dealer": 0,
                    "share_token": secrets.token_urlsafe(24),
                    "state": {},
                    "rules_version": RULES_VERSION,
                    "deal_count": 4,
                    "revision": 4,
                    "created_at": now,
                    "updated_at": now,
                    "rated": True,
                }
            )
            seat_rows += [
                {
                    "player_id": pid,
                    "table_id": tid,
                    "seat": seat,
                    "convention": "sochi",
                    "table_created_at": now,
                    "deal_count": 4,
                    "finished": True,
                    "balance": str(balances[seat]),
                    "tally": empty,
                }
                for seat, pid in enumerate(sitting)
            ]
            rated_rows.append(
                {
                    "table_id": tid,
                    "owner": owner,
                    "convention": "sochi",
                    "seq": k + 1,
                    "outcome": [[p, str(bal)] for p, bal in zip(sitting, balances)],
                    "finished_at": now,
                    "stamp": 0,
                }
            )
        with engine.begin() as conn:
            conn.execute(insert(TableRow.__table__), table_rows)
            conn.execute(insert(PlayerTableRow.__table__), seat_rows)
            conn.execute(insert(RatedTableRow.__table__), rated_rows)
    with engine.begin() as conn:
        conn.execute(text("ANALYZE"))
    engine.dispose()


def _rebuild(url: str) -> tuple[float, float, Any]:
    """The rebuild as ``prefscore ratings rebuild`` runs it: wall and CPU seconds, and its result."""
    from app.kit.db import make_database
    from app.kit.settings import Settings
    from app.ratings.service import rebuild

    db = make_database(Settings(database_url=url, admin_key=ADMIN, log_level="WARNING"))
    try:
        start, c = time.perf_counter(), time.process_time()
        done = rebuild(db)
        return time.perf_counter() - start, time.process_time() - c, done
    finally:
        db.dispose()


# --- the run -----------------------------------------------------------------------------------


async def _requests(url: str, posts: int, requests: int, board_owner: str, seed: int) -> dict[str, Any]:
    import httpx

    from app.kit.settings import Settings
    from app.main import create_app
    from app.ratings.service import rate_owner

    app = create_app(
        Settings(
            database_url=url, admin_key=ADMIN, rate_limit=0, max_tables_per_owner=10**9, log_level="WARNING"
        )
    )
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        admin = {"Authorization": f"Bearer {ADMIN}"}
        key = (await client.post("/v1/keys", json={"owner": "bench-posts"}, headers=admin)).json()["key"]
        # The app's lifespan (and so its rater) does not run under the ASGI transport: the
        # rater's work is done in turn, timed apart.
        rated_after = partial(rate_owner, app.state.db, "bench-posts")
        out.update(await _last_posts(client, {"Authorization": f"Bearer {key}"}, posts, seed, rated_after))
        key = (await client.post("/v1/keys", json={"owner": board_owner}, headers=admin)).json()["key"]
        out.update(await _leaderboard(client, {"Authorization": f"Bearer {key}"}, requests))
    app.state.db.dispose()
    return out


@contextmanager
def _database(label: str) -> Iterator[str]:
    from tests.databases import fresh_database

    with tempfile.TemporaryDirectory() as tmp:
        with fresh_database(Path(tmp), label) as url:
            yield url


def _ms(values: list[float]) -> str:
    return f"p50 {_p(values, 0.5) * 1000:6.2f} ms  p90 {_p(values, 0.9) * 1000:6.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--posts", type=int, default=200, help="finishing posts timed per kind (rated, unrated)"
    )
    parser.add_argument("--players", type=int, default=10_000, help="rated players on the leaderboard")
    parser.add_argument("--requests", type=int, default=200, help="leaderboard requests per kind")
    parser.add_argument("--tables", type=int, default=100_000, help="rated tables the rebuild recomputes")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    from app.kit.db import migrate

    figures: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    with _database("bench_ratings") as url:
        migrate.upgrade(url)
        kind = url.split(":", 1)[0]
        figures["database"] = kind
        fill_leaderboard(url, "bench-board", args.players, args.seed)
        out = asyncio.run(_requests(url, args.posts, args.requests, "bench-board", args.seed))
        unrated, rated = _p(out["cpu_unrated"], 0.5), _p(out["cpu_rated"], 0.5)
        print(f"{kind}: the post that finishes a table, {args.posts} of each kind (CPU):")
        print(f"  unrated  {_ms(out['cpu_unrated'])}   wall {_ms(out['wall_unrated'])}")
        print(f"  rated    {_ms(out['cpu_rated'])}   wall {_ms(out['wall_rated'])}")
        print(f"  rated / unrated (CPU p50) {rated / unrated:.3f}   (target at most 1.10)")
        print(f"  the rating after the commit (the rater, one table)   CPU {_ms(out['cpu_rater'])}")
        print(f"GET /v1/ratings, {args.players} rated players, {args.requests} requests each:")
        print(
            f"  first page   {_ms(out['first'])}   CPU {_ms(out['first_cpu'])}   (target p50 at most 10 ms)"
        )
        print(f"  pages 2-21   {_ms(out['deeper'])}   CPU {_ms(out['deeper_cpu'])}")
        figures["last_post"] = {
            k: {"p50_ms": _p(v, 0.5) * 1000, "p90_ms": _p(v, 0.9) * 1000}
            for k, v in out.items()
            if k.startswith(("cpu", "wall"))
        }
        figures["last_post"]["cpu_ratio_p50"] = rated / unrated
        figures["leaderboard"] = {
            k: {"p50_ms": _p(v, 0.5) * 1000, "p90_ms": _p(v, 0.9) * 1000}
            for k, v in out.items()
            if k.startswith(("first", "deeper"))
        }
    with _database("bench_ratings_rebuild") as url:
        migrate.upgrade(url)
        start = time.perf_counter()
        fill_rated_tables(url, "bench-rebuild", args.tables, 2000, args.seed)
        print(f"rebuild: {args.tables} rated tables filled in {time.perf_counter() - start:.0f} s")
        wall, cpu, done = _rebuild(url)
        print(
            f"  from nothing stored: {wall:6.1f} s (CPU {cpu:.1f} s), {done.tables} tables, {done.count} differences written   (target under 60 s)"
        )
        wall2, cpu2, done2 = _rebuild(url)
        print(f"  again (all agree):   {wall2:6.1f} s (CPU {cpu2:.1f} s), {done2.count} differences")
        assert done2.count == 0 and done.tables == args.tables
        figures["rebuild"] = {
            "tables": args.tables,
            "first_s": wall,
            "first_cpu_s": cpu,
            "again_s": wall2,
            "again_cpu_s": cpu2,
        }
    figures["load_average"] = os.getloadavg()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
