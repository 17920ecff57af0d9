"""What drawing pictures costs the serving process: eight PNGs of long tables at once.

    .venv/bin/python -m bench.pictures                          # this checkout's server
    .venv/bin/python -m bench.pictures --source /path/to/another/checkout

A server (``prefscore serve`` from ``--source``, SQLite in a temporary directory) gets two
tables of ``--deals`` deals each (generated with the engine, tests/support/deallog.py, and
written straight into the database), then eight PNG requests at once: the two tables, in
two languages and two layouts (eight different pictures, none drawn before). While they
run, ``/health`` is asked every 50 ms. Printed: the serving process's CPU seconds and RSS
(VmRSS) growth, the CPU of its child processes (the picture workers, if any), the slowest
``/health`` answer, and the answers' statuses.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
ADMIN = "pk_bench_admin_" + secrets.token_urlsafe(12)
PLAYERS = ["Anna", "Boris", "Vera"]
TICKS = os.sysconf("SC_CLK_TCK")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                pass
    return out


def fill(url: str, table_id: str, deals: int, seed: int) -> None:
    """Write ``deals`` generated deals into the table, as the service would have stored them."""
    from sqlalchemy import create_engine, insert, update

    from app.db import DealRow, TableRow
    from app.db.models import utcnow
    from app.rules import RULES_VERSION, make_rules
    from app.services.deals import entries_to_json
    from tests.support.deallog import generate_log

    rules = make_rules("sochi", players=3, pool_target=1_000_000, options={})
    log = generate_log(rules, 0, random.Random(seed), deals)
    assert len(log.deals) == deals, "the generated table finished early"
    engine = create_engine(url)
    now = utcnow()
    with engine.begin() as conn:
        conn.execute(
            insert(DealRow.__table__),
            [
                {"table_id": table_id, "number": n, "body": d.to_dict(), "entries": entries_to_json(e), "created_at": now}
                for n, (d, e) in enumerate(zip(log.deals, log.entries), start=1)
            ],
        )
        conn.execute(
            update(TableRow.__table__)
            .where(TableRow.__table__.c.id == table_id)
            .values(
                pool_target=1_000_000,
                options=rules.options,
                state=log.states[-1].to_dict(),
                rules_version=RULES_VERSION,
                deal_count=deals,
                revision=deals,
            )
        )
    engine.dispose()


def attack(base: str, server: int, urls: list[str]) -> dict[str, object]:
    cpu0, rss0 = cpu_seconds(server), rss_mib(server)
    kids0 = {pid: cpu_seconds(pid) for pid in children(server)}
    statuses: list[int] = []
    health: list[float] = []
    done = threading.Event()
    peak = [rss0]

    def get(url: str) -> None:
        with httpx.Client(base_url=base, timeout=300) as c:
            statuses.append(c.get(url).status_code)

    def watch() -> None:
        with httpx.Client(base_url=base, timeout=300) as c:
            for _ in range(20_000):  # bounded: 50 ms apart, at most ~17 min
                if done.is_set():
                    break
                start = time.perf_counter()
                c.get("/health")
                health.append(time.perf_counter() - start)
                peak[0] = max(peak[0], rss_mib(server))
                time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.3)
    start = time.perf_counter()
    workers = [threading.Thread(target=get, args=(u,), daemon=True) for u in urls]
    for w in workers:
        w.start()
    for w in workers:
        w.join(600)
    wall = time.perf_counter() - start
    done.set()
    watcher.join(60)
    kids = children(server)
    kid_cpu = sum(cpu_seconds(pid) - kids0.get(pid, 0.0) for pid in kids if Path(f"/proc/{pid}").exists())
    return {
        "wall_s": wall,
        "server_cpu_s": cpu_seconds(server) - cpu0,
        "children_cpu_s": kid_cpu,
        "rss_before_mib": rss0,
        "rss_peak_mib": peak[0],
        "children_rss_mib": sum(rss_mib(pid) for pid in kids if Path(f"/proc/{pid}").exists()),
        "health_worst_s": max(health) if health else 0.0,
        "health_count": len(health),
        "statuses": sorted(statuses),
    }


def run(source: Path, deals: int, seed: int, extra_env: dict[str, str]) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="prefscore-pictures-") as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"}
        env.update(
            DATABASE_URL=url,
            PREFSCORE_ADMIN_KEY=ADMIN,
            PREFSCORE_RATE_LIMIT="0",
            PREFSCORE_ANONYMOUS_RATE_LIMIT="0",
            PREFSCORE_LOG_LEVEL="WARNING",
            PYTHONPATH=str(source),
            **extra_env,
        )
        cli = [sys.executable, "-c", "from app.cli import main; main()"]
        subprocess.run(cli + ["db", "upgrade"], cwd=tmp, env=env, check=True, capture_output=True)
        port = _port()
        log = open(Path(tmp) / "server.log", "wb")
        server = subprocess.Popen(
            cli + ["serve", "--no-upgrade", "--port", str(port)], cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT
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
            admin = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60)
            urls = []
            for i in range(2):
                table = admin.post("/v1/tables", json={"players": PLAYERS, "convention": "sochi"}).json()
                fill(url, table["id"], deals, seed + i)
                urls += [
                    f"/v1/shared/{table['share_token']}/sheet.png?lang={lang}&layout={layout}"
                    for lang in ("ru", "en")
                    for layout in ("phone", "wide")
                ]
            return attack(base, server.pid, urls)
        finally:
            server.terminate()
            server.wait(20)
            log.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--source", type=Path, default=REPO, help="the checkout whose server is measured")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server (repeatable)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    r = run(args.source.resolve(), args.deals, args.seed, extra)
    print(f"server from {args.source}, 2 tables of {args.deals} deals, 8 PNGs at once")
    print(
        f"  wall {r['wall_s']:.1f} s; serving process CPU {r['server_cpu_s']:.1f} s, RSS {r['rss_before_mib']:.0f} -> "
        f"{r['rss_peak_mib']:.0f} MiB (peak); workers CPU {r['children_cpu_s']:.1f} s, RSS {r['children_rss_mib']:.0f} MiB; "
        f"/health worst {r['health_worst_s'] * 1000:.0f} ms over {r['health_count']} asks; statuses {r['statuses']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
