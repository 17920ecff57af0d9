"""Tournaments at a federation's scale: the standings of a 200-player, 10-round tournament,
and a deal posted at a tournament's table against one at an ordinary table, on SQLite or
PostgreSQL.

    .venv/bin/python -m bench.tournaments                   # SQLite, a temporary file
    PREFSCORE_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.tournaments               # a fresh PostgreSQL database
    .venv/bin/python -m bench.tournaments --players 30 --rounds 3 --requests 50   # a quick look

The tournament is played through the API (httpx's ASGI transport: the app in this process,
no network): ``--players`` entrants at 3-player tables (200: 66 tables and 2 byes a round),
gambler.ru's scoring, each table's game ended after one deal (a 6♠ of a seat drawn from the
seed, passed by both defenders), ``--rounds`` rounds each drawn, played and closed as its
last table finishes. Then, printed:

- ``GET /v1/tournaments/{id}/standings``: p50 and p90 over ``--requests`` requests without
  If-None-Match, with the process's CPU time per request (the standings of a version already
  computed are answered from the process's cache of them); the same right after a change of
  the tournament (an adjustment), when they are computed anew; and the service's
  ``standings`` alone (no HTTP);
- ``POST .../deals``: p50 of posting a deal at a tournament's table (a round played "for
  time": it never ends by its pools) and at an ordinary table of the same rules, interleaved
  deal by deal, and their ratio (wall and CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import time
from datetime import UTC
from typing import Any

from bench.players import CPU, _database, _ms, _p, _timed

ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
OWNER = "bench-director"


def _six(declarer: int) -> dict[str, Any]:
    return {
        "type": "contract",
        "declarer": declarer,
        "contract": "6S",
        "defenders": {str(s): "pass" for s in range(3) if s != declarer},
    }


async def _measure(
    url: str, players: int, rounds: int, requests: int, posts: int, seed: int
) -> dict[str, Any]:
    import httpx

    from app.kit.settings import Settings
    from app.main import create_app
    from app.tournaments import service as svc

    settings = Settings(
        database_url=url, admin_key=ADMIN, rate_limit=0, max_tables_per_owner=10**9, log_level="WARNING"
    )
    app = create_app(settings)
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=120
    ) as client:
        r = await client.post("/v1/keys", json={"owner": OWNER}, headers={"Authorization": f"Bearer {ADMIN}"})
        h = {"Authorization": f"Bearer {r.json()['key']}"}
        body = {
            "name": "Federation cup",
            "convention": "sochi",
            "rounds": rounds,
            "game_end": {"kind": "deals", "deals": 1},
            "scoring": "gambler_ru",
            "entrants": [f"Player {i}" for i in range(1, players + 1)],
        }
        r = await client.post("/v1/tournaments", json=body, headers=h)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        start = time.perf_counter()
        draws = []
        for number in range(1, rounds + 1):
            t0 = time.perf_counter()
            r = await client.post(f"/v1/tournaments/{tid}/rounds", json={"seed": seed + number}, headers=h)
            assert r.status_code == 201, r.text
            draws.append(time.perf_counter() - t0)
            for table in r.json()["rounds"][-1]["tables"]:
                p = await client.post(
                    f"/v1/tables/{table['table_id']}/deals", json=_six(rng.randrange(3)), headers=h
                )
                assert p.status_code == 201, p.text
        out["played"] = time.perf_counter() - start
        out["draw"] = draws
        r = await client.get(f"/v1/tournaments/{tid}/standings", headers=h)  # closes the last round
        assert r.status_code == 200 and r.json()["rounds_closed"] == rounds, r.text
        out["rows"] = len(r.json()["items"])
        times = []
        for _ in range(requests):
            t, r = await _timed(
                lambda: client.get(f"/v1/tournaments/{tid}/standings", headers=h), "standings"
            )
            assert r.status_code == 200
            times.append(t)
        out["standings"] = times
        times = []
        for k in range(max(5, requests // 10)):
            # a change of the tournament (an adjustment): the next read computes them anew
            a = await client.post(
                f"/v1/tournaments/{tid}/adjustments",
                json={"entrant": 1 + k % players, "amount": 1, "reason": "bench"},
                headers=h,
            )
            assert a.status_code == 201, a.text
            t, r = await _timed(
                lambda: client.get(f"/v1/tournaments/{tid}/standings", headers=h), "standings_changed"
            )
            assert r.status_code == 200
            times.append(t)
        out["standings_changed"] = times
        db = app.state.db
        times = []
        for _ in range(requests):
            t, _r = await _timed(_async(svc.standings, db, OWNER, tid), "service")
            times.append(t)
        out["service"] = times
        out.update(await _posting(client, h, posts))
    app.state.db.dispose()
    return out


def _async(fn, *args):  # noqa: ANN001, ANN002, ANN202
    async def call():  # noqa: ANN202
        return fn(*args)

    return call


async def _posting(client: Any, h: dict[str, str], posts: int) -> dict[str, list[float]]:
    """A deal at a tournament's table and at an ordinary table of the same rules, in turn."""
    r = await client.post(
        "/v1/tournaments",
        json={
            "name": "Posting",
            "convention": "sochi",
            "rounds": 1,
            "game_end": {"kind": "director"},
            "entrants": ["Anna", "Boris", "Vera"],
        },
        headers=h,
    )
    tid = r.json()["id"]
    r = await client.post(f"/v1/tournaments/{tid}/rounds", headers=h)
    at_tournament = r.json()["rounds"][0]["tables"][0]["table_id"]
    r = await client.post(
        "/v1/tables",
        json={
            "players": ["Anna", "Boris", "Vera"],
            "convention": "sochi",
            "options": {"end_of_game": "deals", "game_deals": 10_000},
        },
        headers=h,
    )
    ordinary = r.json()["id"]
    times: dict[str, list[float]] = {"tournament": [], "ordinary": []}
    for k in range(posts):
        for mode, table in (
            (("tournament", at_tournament), ("ordinary", ordinary))
            if k % 2
            else (("ordinary", ordinary), ("tournament", at_tournament))
        ):
            t, r = await _timed(
                lambda: client.post(f"/v1/tables/{table}/deals", json=_six(k % 3), headers=h), f"post_{mode}"
            )
            assert r.status_code == 201, r.text
            times[mode].append(t)
    return {f"post_{m}": v for m, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--posts", type=int, default=300, help="deals posted per kind of table")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    from app.kit.db import migrate

    with _database("bench_tournaments") as url:
        migrate.upgrade(url)
        out = asyncio.run(_measure(url, args.players, args.rounds, args.requests, args.posts, args.seed))
    kind = url.split(":", 1)[0]
    print(
        f"{kind}: {args.players} players, {args.rounds} rounds played in {out['played']:.0f} s (draw p50 {_p(out['draw'], 0.5) * 1000:.0f} ms)"
    )
    print(f"GET standings ({out['rows']} rows)   {_ms(out['standings'], 'standings')}")
    print(f"GET standings after a change   {_ms(out['standings_changed'], 'standings_changed')}")
    print(f"service standings alone   {_ms(out['service'], 'service')}")
    for m in ("tournament", "ordinary"):
        print(f"POST deal, {m:10}      {_ms(out[f'post_{m}'], f'post_{m}')}")
    wall = _p(out["post_tournament"], 0.5) / _p(out["post_ordinary"], 0.5)
    cpu = _p(CPU["post_tournament"], 0.5) / _p(CPU["post_ordinary"], 0.5)
    print(f"POST ratio tournament/ordinary: wall p50 {wall:.3f}   CPU p50 {cpu:.3f}")
    load = os.getloadavg()
    print(f"load average {' '.join(f'{x:.1f}' for x in load)}")
    _save(kind, args, out, load)
    return 0


def _save(kind: str, args: argparse.Namespace, out: dict[str, Any], load: tuple[float, float, float]) -> None:
    """The figures in bench/results/tournaments-<time>-<commit>[-postgres].json."""
    import json
    import subprocess
    from datetime import datetime
    from pathlib import Path

    root = Path(__file__).resolve().parent
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = f"tournaments-{stamp}-{commit}{'-dirty' if dirty else ''}{'-postgres' if kind.startswith('postgresql') else ''}.json"

    def summary(what: str) -> dict[str, float]:
        return {
            "p50_ms": _p(out[what], 0.5) * 1000,
            "p90_ms": _p(out[what], 0.9) * 1000,
            "cpu_p50_ms": _p(CPU[what], 0.5) * 1000,
        }

    figures = {
        "database": kind,
        "players": args.players,
        "rounds": args.rounds,
        "requests": args.requests,
        "posts": args.posts,
        "played_s": out["played"],
        "draw_p50_ms": _p(out["draw"], 0.5) * 1000,
        "standings": summary("standings"),
        "standings_after_a_change": summary("standings_changed"),
        "service_standings": summary("service"),
        "post_tournament_table": summary("post_tournament"),
        "post_ordinary_table": summary("post_ordinary"),
        "load_average": list(load),
    }
    (root / "results" / name).write_text(json.dumps(figures, indent=1) + "\n")
    print(f"results: bench/results/{name}")


if __name__ == "__main__":
    sys.exit(main())
