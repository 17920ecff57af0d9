"""A big tournament's public views against a real server: what the tournament page
(``/tournament/{token}``) and the share link's JSON (``/v1/shared/{token}/tournament``) cost
the first time and again, and how four anonymous readers of them slow ``/health``.

    .venv/bin/python -m bench.public_views                           # SQLite, about 1 min
    PREFSCORE_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python -m bench.public_views                       # a fresh PostgreSQL database
    .venv/bin/python -m bench.public_views --source /path/to/another/checkout

The server is ``prefscore serve`` (one process) from ``--source`` (default: this checkout),
so the same measurement runs against another version of the code. The tournament has
``--players`` entrants (600, the most a tournament takes) at 3-player tables; its first
round is drawn and played (one deal a table ends its game) and closed, the second drawn and
one deal posted at half its tables. Printed, for each view:

- ``first``: the server's CPU time (from /proc, in clock ticks: the mean) and the wall time
  (the median) of the first request after a change (a deal posted at one of the current
  round's tables), over ``--changes`` changes;
- ``again``: the same for a repeat of an unchanged view, over ``--requests``; and their ratio;
- ``/health``: its p50 alone, then while four anonymous readers (two on each view) loop for
  ``--seconds``, and how many views they got.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
TICK = os.sysconf("SC_CLK_TCK")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu(pid: int) -> float:
    """The CPU seconds of a process and its children so far (utime + stime + children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def _env(source: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"}
    env.update(
        DATABASE_URL=url,
        PREFSCORE_ADMIN_KEY=ADMIN,
        PREFSCORE_RATE_LIMIT="0",
        PREFSCORE_ANONYMOUS_RATE_LIMIT="0",
        PREFSCORE_SHARE_RATE_LIMIT="0",
        PREFSCORE_MAX_TABLES_PER_OWNER="100000",
        PREFSCORE_LOG_LEVEL="WARNING",
        PYTHONPATH=str(source),
    )
    return env


def _six(declarer: int) -> dict[str, Any]:
    return {
        "type": "contract",
        "declarer": declarer,
        "contract": "6S",
        "defenders": {str(s): "pass" for s in range(3) if s != declarer},
    }


def _timed(client: httpx.Client, pid: int, path: str) -> tuple[float, float, int]:
    """(server CPU s, wall s, bytes) of one GET."""
    cpu, start = _cpu(pid), time.perf_counter()
    r = client.get(path)
    wall = time.perf_counter() - start
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return _cpu(pid) - cpu, wall, len(r.content)


def measure(base: str, pid: int, players: int, requests: int, changes: int, seconds: float) -> dict[str, Any]:
    admin = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=120)
    key = admin.post("/v1/keys", json={"owner": f"bench-{secrets.token_hex(3)}"}).json()["key"]
    owner = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=120)
    body = {
        "name": "Federation cup",
        "convention": "sochi",
        "rounds": 5,
        "game_end": {"kind": "deals", "deals": 1},
        "scoring": "gambler_ru",
        "entrants": [f"Player {i}" for i in range(1, players + 1)],
    }
    r = owner.post("/v1/tournaments", json=body)
    assert r.status_code == 201, r.text
    t = r.json()
    tid, token = t["id"], t["share_token"]
    tables = []
    for number in (1, 2):
        r = owner.post(f"/v1/tournaments/{tid}/rounds", json={"seed": number})
        assert r.status_code == 201, r.text
        tables = [x["table_id"] for x in r.json()["rounds"][-1]["tables"]]
        for k, table in enumerate(tables if number == 1 else tables[::2]):
            p = owner.post(f"/v1/tables/{table}/deals", json=_six(k % 3))
            assert p.status_code == 201, p.text
    assert owner.get(f"/v1/tournaments/{tid}/standings").status_code == 200  # closes round 1
    later = tables[1::2]  # tables of round 2 not played yet: a deal there is a change
    views = {"page": f"/tournament/{token}", "json": f"/v1/shared/{token}/tournament"}
    out: dict[str, Any] = {"players": players}
    anonymous = httpx.Client(base_url=base, timeout=120)
    for name, path in views.items():
        first, again = [], []
        size = 0
        for _ in range(changes):
            table = later.pop()
            assert owner.post(f"/v1/tables/{table}/deals", json=_six(0)).status_code == 201
            cpu, wall, size = _timed(anonymous, pid, path)
            first.append((cpu, wall))
            for _ in range(max(1, requests // changes)):
                again.append(_timed(anonymous, pid, path)[:2])
        out[name] = {
            "bytes": size,
            "first_cpu_ms": statistics.mean(c for c, _ in first) * 1000,
            "first_wall_ms": statistics.median(w for _, w in first) * 1000,
            "again_cpu_ms": statistics.mean(c for c, _ in again) * 1000,
            "again_wall_ms": statistics.median(w for _, w in again) * 1000,
        }
    # /health alone, then under four readers of an unchanging tournament
    health = []
    for _ in range(100):
        start = time.perf_counter()
        assert anonymous.get("/health").status_code == 200
        health.append(time.perf_counter() - start)
        time.sleep(0.01)
    out["health_alone_p50_ms"] = statistics.median(health) * 1000
    stop = threading.Event()
    got: list[int] = []

    def read(path: str) -> None:
        with httpx.Client(base_url=base, timeout=120) as reader:
            while not stop.is_set():
                assert reader.get(path).status_code == 200
                got.append(1)

    readers = [
        threading.Thread(target=read, args=(views["page" if i % 2 else "json"],), daemon=True)
        for i in range(4)
    ]
    for x in readers:
        x.start()
    health = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        assert anonymous.get("/health").status_code == 200
        health.append(time.perf_counter() - start)
        time.sleep(0.01)
    stop.set()
    for x in readers:
        x.join()
    out["health_readers_p50_ms"] = statistics.median(health) * 1000
    out["health_readers_max_ms"] = max(health) * 1000
    out["views_read"] = len(got)
    return out


def run(source: Path, args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(REPO))
    from tests.databases import fresh_database

    with (
        tempfile.TemporaryDirectory(prefix="prefscore-public-views-") as tmp,
        fresh_database(Path(tmp), "bench") as url,
    ):
        env = _env(source, url)
        cli = [sys.executable, "-c", "from app.cli.main import main; main()"]
        subprocess.run(cli + ["db", "upgrade"], cwd=tmp, env=env, check=True, capture_output=True)
        port = _port()
        log = open(Path(tmp) / "server.log", "wb")
        server = subprocess.Popen(
            cli + ["serve", "--no-upgrade", "--port", str(port)],
            cwd=tmp,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(base + "/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError((Path(tmp) / "server.log").read_text()[-3000:])
                time.sleep(0.1)
            out = measure(base, server.pid, args.players, args.requests, args.changes, args.seconds)
            out["database"] = url.split(":", 1)[0]
            return out
        finally:
            server.terminate()
            server.wait(10)
            log.close()


PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=600)
    parser.add_argument("--requests", type=int, default=30, help="repeats of an unchanged view, per view")
    parser.add_argument(
        "--changes", type=int, default=5, help="changes, each followed by a first read, per view"
    )
    parser.add_argument("--seconds", type=float, default=12.0, help="how long the four readers read")
    parser.add_argument("--source", type=Path, default=REPO, help="the checkout whose server is measured")
    parser.add_argument("--before", metavar="REV", help="measure the server of this commit too, side by side")
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default=None)
    parser.add_argument("--quick", action="store_true", help="fewer requests, changes and seconds")
    args = parser.parse_args(argv)
    from bench.targets import source_tree

    if args.quick:
        args.requests, args.changes, args.seconds = 20, 3, 4.0
    dbs = [None] if args.db is None else ["sqlite", "postgres"] if args.db == "both" else [args.db]
    runs = []
    with tempfile.TemporaryDirectory(prefix="prefscore-public-views-before-") as tmp:
        sources = [("", args.source.resolve())]
        if args.before:
            old = source_tree(args.before, Path(tmp) / "before", "app", "migrations")
            sources = [(args.before, old), ("", args.source.resolve())]
        for db in dbs:
            for label, source in sources:
                saved = os.environ.get("PREFSCORE_TEST_DATABASE_URL")
                if db == "sqlite":
                    os.environ.pop("PREFSCORE_TEST_DATABASE_URL", None)
                elif db == "postgres":
                    os.environ["PREFSCORE_TEST_DATABASE_URL"] = saved or PG
                try:
                    print(f"server from {label or source}")
                    r = run(source, args)
                finally:
                    if saved is None:
                        os.environ.pop("PREFSCORE_TEST_DATABASE_URL", None)
                    else:
                        os.environ["PREFSCORE_TEST_DATABASE_URL"] = saved
                _print(r, args)
                runs.append((label, r))
    _report(runs)
    return 0


def _print(r: dict[str, Any], args: argparse.Namespace) -> None:
    print(f"{r['database']}: {r['players']} entrants")
    for name in ("page", "json"):
        v = r[name]
        print(
            f"  {name:4} {v['bytes'] / 1e6:.2f} MB: first CPU {v['first_cpu_ms']:.0f} ms (wall {v['first_wall_ms']:.0f}), "
            f"again CPU {v['again_cpu_ms']:.1f} ms (wall {v['again_wall_ms']:.1f}), "
            f"again/first CPU {v['again_cpu_ms'] / max(v['first_cpu_ms'], 1e-9):.3f}"
        )
    print(
        f"  /health p50 alone {r['health_alone_p50_ms']:.1f} ms; with 4 readers {r['health_readers_p50_ms']:.1f} ms "
        f"(worst {r['health_readers_max_ms']:.0f} ms), {r['views_read']} views read in {args.seconds:.0f} s"
    )
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def _report(runs: list[tuple[str, dict[str, Any]]]) -> None:
    """The issue's targets through bench/targets.py: this checkout's figures, those of
    ``--before`` alongside in the JSON."""
    sys.path.insert(0, str(REPO))
    from bench.targets import Figure, report

    names = {
        "json": "public view repeat ÷ first, CPU (600 entrants)",
        "page": "public page repeat ÷ first, CPU (600 entrants)",
    }
    figures, before = [], {}
    for label, r in runs:
        db = "postgres" if r["database"].startswith("postgres") else "sqlite"
        for view, name in names.items():
            v = r[view]
            ratio = v["again_cpu_ms"] / max(v["first_cpu_ms"], 1e-9)
            if label:
                before[f"before {label} [{db}] {name}"] = ratio
            else:
                figures.append(Figure(name, ratio, 0.1, at_least=False, db=db))
    for key, value in before.items():
        print(f"  {key}: {value:.3f}")
    report("public_views", figures, {"before": before})


if __name__ == "__main__":
    raise SystemExit(main())
