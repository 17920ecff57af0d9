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

from bench.players import CPU, _database, _p, _timed

# The quiet before a timed standings read (``_table_changes``).
PAUSE = 0.02
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
    url: str, players: int, rounds: int, requests: int, posts: int, seed: int, changes: int = 0
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
        later: list[str] = []  # the last round's tables played after the table-change phase
        for number in range(1, rounds + 1):
            t0 = time.perf_counter()
            r = await client.post(f"/v1/tournaments/{tid}/rounds", json={"seed": seed + number}, headers=h)
            assert r.status_code == 201, r.text
            draws.append(time.perf_counter() - t0)
            tables = [t["table_id"] for t in r.json()["rounds"][-1]["tables"]]
            if number == rounds and changes:
                tables, later = tables[: -(changes + 1)], tables[-(changes + 1) :]
            for table in tables:
                p = await client.post(f"/v1/tables/{table}/deals", json=_six(rng.randrange(3)), headers=h)
                assert p.status_code == 201, p.text
        out["played"] = time.perf_counter() - start
        out["draw"] = draws
        if later:
            out.update(await _table_changes(client, h, tid, later, requests, rng))
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
            await asyncio.sleep(PAUSE)  # what the post set going in the background is done
            t, r = await _timed(
                lambda: client.get(f"/v1/tournaments/{tid}/standings", headers=h), "standings_changed"
            )
            assert r.status_code == 200
            times.append(t)
            await asyncio.sleep(PAUSE)  # a cached read after the same quiet (``_table_changes``)
            _, r = await _timed(
                lambda: client.get(f"/v1/tournaments/{tid}/standings", headers=h), "standings_paused"
            )
            assert r.status_code == 200
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


async def _cpu_of(call: Any) -> tuple[float, float]:
    """(CPU, wall) of one request: the app runs in this process, so its CPU time is ours."""
    start, cpu = time.perf_counter(), time.process_time()
    r = await call()
    assert r.status_code == 200, r.text
    return time.process_time() - cpu, time.perf_counter() - start


async def _table_changes(
    client: Any, h: dict[str, str], tid: str, later: list[str], requests: int, rng: random.Random
) -> dict[str, list[float]]:
    """The last round being played: the first read of the standings after a change at one of
    its tables (a deal that finishes it), each followed by cached reads of the same version;
    the last table then played (the round closes).

    The first read comes after a pause, so that what the post set going in the background is
    done and its CPU is not the read's; each cached read it is compared with comes after the
    same pause (``cached``). On this kind of machine the first request after 20 ms of quiet
    costs more CPU than the same request right after another, whatever it does (a read of
    ``SELECT 1``: 1.1 against 0.2 ms), which is the machine's and not the standings'. The
    cached reads made back to back, as earlier sittings compared them, are kept too
    (``cached_back_to_back``)."""

    def read() -> Any:
        return client.get(f"/v1/tournaments/{tid}/standings", headers=h)

    await read()
    got: dict[str, list[float]] = {}

    async def timed(what: str) -> None:
        cpu, wall = await _cpu_of(read)
        got.setdefault(what, []).append(cpu)
        got.setdefault(f"{what}_wall", []).append(wall)

    for table in later[:-1]:
        p = await client.post(f"/v1/tables/{table}/deals", json=_six(rng.randrange(3)), headers=h)
        assert p.status_code == 201, p.text
        await asyncio.sleep(PAUSE)  # what the post set going in the background is done
        await timed("first")
        for _ in range(max(3, requests // len(later))):
            await asyncio.sleep(PAUSE)  # the same quiet before the read as the first had
            await timed("cached")
        for _ in range(3):
            await timed("cached_back_to_back")
    p = await client.post(f"/v1/tables/{later[-1]}/deals", json=_six(0), headers=h)
    assert p.status_code == 201, p.text
    return {f"table_change_{k}": v for k, v in got.items()}


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
    parser.add_argument("--changes", type=int, default=20, help="changes at one table of the last round")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="fewer requests, posts and changes (~1 min)")
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default=None)
    parser.add_argument("--before", metavar="REV", help="measure the app of this commit too, side by side")
    parser.add_argument("--child", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.requests, args.posts, args.changes = 40, 30, 8
    if args.child:
        return _child(args)
    if args.db is None and not args.before:
        return _one(args)  # as before: one run in this process, on the database the environment names
    return _side_by_side(args)


def _one(args: argparse.Namespace) -> int:
    from app.kit.db import migrate

    with _database("bench_tournaments") as url:
        migrate.upgrade(url)
        out = asyncio.run(
            _measure(url, args.players, args.rounds, args.requests, args.posts, args.seed, args.changes)
        )
    kind = url.split(":", 1)[0]
    out["cpu"] = CPU
    _print(kind, args, out)
    _save(kind, args, out, os.getloadavg())
    _report([(_db_name(kind), "", out)])
    return 0


def _child(args: argparse.Namespace) -> int:
    import json

    from app.kit.db import migrate

    with _database("bench_tournaments") as url:
        migrate.upgrade(url)
        out = asyncio.run(
            _measure(url, args.players, args.rounds, args.requests, args.posts, args.seed, args.changes)
        )
    out["cpu"] = CPU
    with open(args.child, "w") as f:
        json.dump(out, f)
    return 0


PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def _side_by_side(args: argparse.Namespace) -> int:
    """Each database, the app of ``--before`` (its app/ and migrations/ taken with git archive)
    and this checkout's, each in a process of its own running this very bench."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    from bench.targets import source_tree

    repo = Path(__file__).resolve().parent.parent
    dbs = ["sqlite", "postgres"] if args.db in (None, "both") else [args.db]
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-tournaments-") as tmp:
        sources = [("", repo)]
        if args.before:
            old = source_tree(args.before, Path(tmp) / "before", "app", "migrations")
            sources = [(args.before, old), ("", repo)]
        for db in dbs:
            for label, source in sources:
                env = {k: v for k, v in os.environ.items() if k != "PREFSCORE_TEST_DATABASE_URL"}
                if db == "postgres":
                    env["PREFSCORE_TEST_DATABASE_URL"] = os.environ.get("PREFSCORE_TEST_DATABASE_URL") or PG
                env["PYTHONPATH"] = f"{source}{os.pathsep}{repo}"  # its app first, this bench
                result = Path(tmp) / f"{db}-{label or 'now'}.json"
                subprocess.run(
                    [sys.executable, "-m", "bench.tournaments", *_argv(args), "--child", str(result)],
                    cwd=tmp,
                    env=env,
                    check=True,
                )
                out = json.loads(result.read_text())
                print(f"--- {db}, {'app of ' + label if label else 'this checkout'}")
                _print(db, args, out)
                runs.append((db, label, out))
    _report(runs)
    return 0


def _argv(args: argparse.Namespace) -> list[str]:
    return [
        f"--players={args.players}",
        f"--rounds={args.rounds}",
        f"--requests={args.requests}",
        f"--posts={args.posts}",
        f"--changes={args.changes}",
        f"--seed={args.seed}",
    ]


def _db_name(kind: str) -> str:
    return "postgres" if kind.startswith("postgres") else "sqlite"


def _print(kind: str, args: argparse.Namespace, out: dict[str, Any]) -> None:
    cpu = out["cpu"]
    print(
        f"{kind}: {args.players} players, {args.rounds} rounds played in {out['played']:.0f} s (draw p50 {_p(out['draw'], 0.5) * 1000:.0f} ms)"
    )
    if "table_change_first" in out:
        for what, label in (
            ("cached", "cached read after the same pause"),
            ("cached_back_to_back", "cached read, back to back"),
            ("first", "first read after a change at one table"),
        ):
            print(
                f"GET standings, last round being played: {label}: CPU p50 "
                f"{_p(out[f'table_change_{what}'], 0.5) * 1000:.2f} ms, wall p50 "
                f"{_p(out[f'table_change_{what}_wall'], 0.5) * 1000:.2f} ms"
            )
    print(f"GET standings ({out['rows']} rows)   {_ms_of(out, cpu, 'standings')}")
    print(f"GET standings after a change   {_ms_of(out, cpu, 'standings_changed')}")
    print(f"service standings alone   {_ms_of(out, cpu, 'service')}")
    for m in ("tournament", "ordinary"):
        print(f"POST deal, {m:10}      {_ms_of(out, cpu, f'post_{m}')}")
    wall = _p(out["post_tournament"], 0.5) / _p(out["post_ordinary"], 0.5)
    ratio = _p(cpu["post_tournament"], 0.5) / _p(cpu["post_ordinary"], 0.5)
    print(f"POST ratio tournament/ordinary: wall p50 {wall:.3f}   CPU p50 {ratio:.3f}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def _ms_of(out: dict[str, Any], cpu: dict[str, list[float]], what: str) -> str:
    return (
        f"p50 {_p(out[what], 0.5) * 1000:6.2f} ms   p90 {_p(out[what], 0.9) * 1000:6.2f} ms   "
        f"CPU p50 {_p(cpu.get(what, [0.0]), 0.5) * 1000:5.2f} ms"
    )


def _report(runs: list[tuple[str, str, dict[str, Any]]]) -> None:
    """The issue's target through bench/targets.py: this checkout's figures, those of
    ``--before`` alongside in the JSON."""
    from bench.targets import Figure, report

    figures, extra = [], {}
    for db, label, out in runs:
        if "table_change_first" not in out:
            continue
        cpu = out["cpu"]
        first = _p(out["table_change_first"], 0.5)
        ratio = first / _p(out["table_change_cached"], 0.5)
        also = {
            "first ÷ cached read back to back": first / _p(out["table_change_cached_back_to_back"], 0.5),
            "after an adjustment ÷ cached after the same pause, CPU": _p(cpu["standings_changed"], 0.5)
            / _p(cpu["standings_paused"], 0.5),
        }
        name = "standings first read after a change ÷ cached read (200 players, 10 rounds)"
        if label:
            extra[f"before {label} [{db}]"] = {name: ratio, **also}
            continue
        figures.append(Figure(name, ratio, 2.0, at_least=False, db=db))
        extra |= {f"[{db}] {k}": v for k, v in also.items()}
    for key, value in extra.items():
        print(f"  {key}: {value}")
    if figures:
        report("tournaments", figures, {"also": extra})


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
