"""HTTP benchmark of the service against a minimal baseline on the same stack (issue 5).

    python -m bench.http                # SQLite and PostgreSQL, about 6-8 minutes on 2 cores
    python -m bench.http --quick        # shorter runs, about 2 minutes
    python -m bench.http --db sqlite --duration 5 --rounds 2

For each database (a fresh SQLite file in a temporary directory; a fresh PostgreSQL database
on 127.0.0.1:5432, user postgres, created here and dropped at the end) it starts, as separate
processes on free 127.0.0.1 ports, each with ``PREFSCORE_ADMIN_KEY`` set:

- the service: migrations applied, then uvicorn serving ``app.main:create_app`` as
  ``prefscore serve`` does (one worker process; on PostgreSQL also a second instance with
  two worker processes);
- the baseline ``bench/baseline.py`` (FastAPI + uvicorn + SQLAlchemy on the same database:
  ``POST /insert`` one row, ``GET /fixed`` a fixed JSON object, ``GET /select/{id}`` one row
  read by primary key), with one worker (and two on
  PostgreSQL).

The load comes from ``wrk`` (C, event loop; installed with apt-get when missing), a process
of its own, driven by ``bench/wrk/load.lua``: ``-t N -c N``, so each of the N clients is one
connection on its own wrk thread with its own path, hence its own table when posting (one
table's posts serialise on its row lock by design). Measured pairs run back to back (the
servers all stay up, idle ones cost nothing), so a ratio compares two runs taken under the
same load of the machine; ``--rounds R`` repeats everything and keeps the median, the loads
compared with one another (the reads; the posts) taken in turn round after round, so that
each one's runs spread over the same minutes as the others' (the machine's speed drifts by
tens of per cent within minutes here).

Every run also records the CPU seconds used by the server processes, by wrk, by PostgreSQL
and by the whole machine, so the generator's own cost is visible (requests per CPU-second of
wrk is its ceiling on one core) and so is any other load on the machine.

Posting is measured twice: each client at its own plain table ("service POST deal"), and
each client taking in turn four tables of its own ("service POST deal mix", bench/http_mix.py):
a plain one, a rated one with three registered players, one of a second owner with one
webhook endpoint (a receiver on 127.0.0.1 answering 204; the service's deliverer sends every
delivery during the run), and one of a tournament's round. The mix is what issue 36's target
(post ÷ baseline insert: at least 0.8 on PostgreSQL, 0.7 on SQLite) is about.

The post that finishes a rated table is timed at the client against one that finishes an
unrated table (bench/http_mix.py ``finishing``; target: at most 1.10 at the median).

Every figure with a target is also handed to bench/targets.py (bench "http").

The posting latency at a table's 10th and 1,000th deal comes from a sequential client
(``http.client``, keep-alive) that posts to pairs of tables, a fresh one and one filled to
990 deals, alternating between them, so that both windows (deals 1-19 and 991-1009,
centred on the 10th and the 1,000th) see the same machine.

One table of all figures and ratios is printed, and written as JSON under ``bench/results/``
(git-ignored), with the commit it was measured on.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import targets

ROOT = Path(__file__).resolve().parent.parent
LUA = Path(__file__).resolve().parent / "wrk" / "load.lua"
RESULTS = Path(__file__).resolve().parent / "results"
PYTHON = sys.executable

ALLPASS = {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}}
ALLPASS_BODY = json.dumps(ALLPASS, separators=(",", ":"))
PG_ADMIN_DSN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"

# Issue 36's targets (posting: per database).
TARGETS = {
    "post_vs_insert": {"postgres": 0.8, "sqlite": 0.7},
    "not_modified_vs_fixed": 0.9,
    "sheet_vs_select": 0.9,
    "growth_1000_vs_10": 1.1,
    "finishing_rated_vs_unrated": 1.1,
    "two_vs_one_worker": 1.6,
}

CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------- machinery


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if not shutil.which("apt-get"):
        sys.exit("bench: wrk is missing and apt-get is not available; install wrk by hand")
    log("wrk is missing: installing the Debian package")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    ok = subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "wrk"], env=env, capture_output=True)
    if ok.returncode != 0:
        subprocess.run([*sudo, "apt-get", "update", "-qq"], env=env, check=True)
        subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "wrk"], env=env, check=True)
    found = shutil.which("wrk")
    if not found:
        sys.exit("bench: could not install wrk")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git_commit() -> dict[str, Any]:
    def run(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    return {
        "commit": run("rev-parse", "HEAD"),
        "short": run("rev-parse", "--short", "HEAD"),
        # Only the paths that make up what is measured: the service, its engine, its schema.
        "dirty_paths": [
            line[3:]
            for line in run(
                "status", "--porcelain", "--", "app", "migrations", "bench/baseline.py"
            ).splitlines()
        ],
    }


def _all_procs() -> dict[int, tuple[str, int, float]]:
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            raw = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        rest = raw[raw.rindex(")") + 2 :].split()
        out[pid] = (comm, int(rest[1]), (int(rest[11]) + int(rest[12])) / CLK_TCK)
    return out


def _machine_busy() -> float:
    """CPU seconds spent not idle by the whole machine (all cores) since boot."""
    parts = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    vals = [int(v) for v in parts]
    idle = vals[3] + (vals[4] if len(vals) > 4 else 0)
    return (sum(vals[:8]) - idle) / CLK_TCK


@dataclass
class CpuSnapshot:
    server: dict[int, float]  # pid -> cpu seconds, the server's process tree
    postgres: dict[int, float]  # pid -> cpu seconds, every postgres process
    machine: float


def cpu_snapshot(root_pids: list[int]) -> CpuSnapshot:
    procs = _all_procs()
    children: dict[int, list[int]] = {}
    for pid, (_, ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    server: dict[int, float] = {}
    stack = list(root_pids)
    while stack:
        pid = stack.pop()
        if pid in procs:
            server[pid] = procs[pid][2]
        stack.extend(children.get(pid, []))
    postgres = {pid: cpu for pid, (comm, _, cpu) in procs.items() if comm.startswith("postgres")}
    return CpuSnapshot(server, postgres, _machine_busy())


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two snapshots by the processes alive at the end (a process
    that started in between counts from zero; one that ended in between is not seen)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


# ---------------------------------------------------------------------------- servers


@dataclass
class Server:
    name: str
    argv: list[str]
    env: dict[str, str]
    port: int
    health: str = "/health"
    proc: subprocess.Popen | None = None
    logfile: Any = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, logdir: Path) -> None:
        self.logfile = open(logdir / f"{self.name}.log", "wb")
        self.proc = subprocess.Popen(
            self.argv,
            env=self.env,
            cwd=ROOT,
            stdout=self.logfile,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see its log")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", self.health)
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer {self.health} within {timeout:.0f}s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        if self.logfile is not None:
            self.logfile.close()
            self.logfile = None


def service_server(name: str, env: dict[str, str], workers: int) -> Server:
    # Exactly `prefscore serve` (the migrations were applied once before, so that several
    # instances do not race to apply them).
    port = free_port()
    argv = [
        PYTHON, "-c", "from app.cli.main import main; main()", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers), "--no-upgrade",
    ]  # fmt: skip
    return Server(name, argv, env, port)


def baseline_server(name: str, env: dict[str, str], workers: int) -> Server:
    # The same uvicorn settings as `prefscore serve` (bench/baseline.py main).
    port = free_port()
    argv = [
        PYTHON,
        "-m",
        "bench.baseline",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    return Server(name, argv, env, port)


def migrate(env: dict[str, str]) -> None:
    """The service's schema (its migrations) and the baseline's table, before any server."""
    code = (
        "import os; from app.kit.db.migrate import upgrade; upgrade(os.environ['DATABASE_URL']); "
        "from bench.baseline import prepare; prepare()"
    )
    subprocess.run([PYTHON, "-c", code], env=env, cwd=ROOT, check=True)


# ---------------------------------------------------------------------------- databases


class Postgres:
    def __init__(self) -> None:
        self.name = f"prefscore_bench_{os.getpid()}_{secrets.token_hex(3)}"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{self.name}"

    def __enter__(self) -> Postgres:
        import psycopg

        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc: object) -> None:
        import psycopg

        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# ---------------------------------------------------------------------------- clients


class Client:
    """A keep-alive JSON client on http.client: little overhead for the sequential runs."""

    def __init__(self, port: int, key: str | None = None) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.key = key
        self.last = time.monotonic()

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None):
        hdrs = dict(headers or {})
        if self.key:
            hdrs["Authorization"] = f"Bearer {self.key}"
        data = None
        if body is not None:
            data = body if isinstance(body, str) else json.dumps(body)
            hdrs["Content-Type"] = "application/json"
        if time.monotonic() - self.last > 2.0:
            # uvicorn closes a keep-alive connection idle for 5 s: start a new one first.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        self.conn.request(method, path, body=data, headers=hdrs)
        resp = self.conn.getresponse()
        raw = resp.read()
        self.last = time.monotonic()
        payload = json.loads(raw) if raw and resp.getheader("content-type", "").find("json") >= 0 else None
        return resp.status, dict(resp.getheaders()), payload

    def expect(
        self, status: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ):
        got, hdrs, payload = self.call(method, path, body, headers)
        if got != status:
            raise RuntimeError(f"{method} {path}: expected {status}, got {got}: {payload}")
        return hdrs, payload

    def close(self) -> None:
        self.conn.close()


def header(headers: dict[str, str], name: str) -> str | None:
    for k, v in headers.items():
        if k.lower() == name.lower():
            return v
    return None


def new_table(client: Client) -> str:
    body = {"players": ["Anna", "Boris", "Vera"], "convention": "sochi", "first_dealer": 0}
    _, table = client.expect(201, "POST", "/v1/tables", body)
    return table["id"]


# ---------------------------------------------------------------------------- wrk runs


@dataclass
class Load:
    method: str
    paths: list[str]
    body: str | None = None
    headers: list[str] = field(default_factory=list)
    etags: list[str] | None = None
    expect: int = 200


def run_wrk(
    wrk: str, server: Server, load: Load, clients: int, duration: float, tmp: Path, pg: bool
) -> dict[str, Any]:
    out = tmp / f"wrk-{secrets.token_hex(4)}.json"
    env = dict(
        os.environ,
        BENCH_METHOD=load.method,
        BENCH_PATHS="|".join(load.paths),
        BENCH_BODY=load.body or "",
        BENCH_HEADERS="|".join(load.headers),
        BENCH_ETAGS="|".join(load.etags or []),
        BENCH_OUT=str(out),
    )
    argv = [
        wrk, "-t", str(clients), "-c", str(clients), "-d", f"{max(1, round(duration))}s",
        "--timeout", "30s", "-s", str(LUA), server.base,
    ]  # fmt: skip
    before = cpu_snapshot([server.proc.pid])
    ru0 = os.times()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    ru1 = os.times()
    after = cpu_snapshot([server.proc.pid])
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr or proc.stdout}")
    res = json.loads(out.read_text())
    out.unlink()
    seconds = res["duration_us"] / 1e6
    good = res["statuses"].get(str(load.expect), 0)
    res["rps"] = good / seconds
    res["p50_ms"] = res["latency_us"]["p50"] / 1000
    res["p99_ms"] = res["latency_us"]["p99"] / 1000
    res["unexpected"] = res["requests"] - good
    wrk_cpu = (ru1.children_user + ru1.children_system) - (ru0.children_user + ru0.children_system)
    res["cpu_s"] = {
        "wall": round(seconds, 3),
        "server": round(cpu_delta(before.server, after.server), 3),
        "wrk": round(wrk_cpu, 3),
        "postgres": round(cpu_delta(before.postgres, after.postgres), 3) if pg else 0.0,
        "machine": round(after.machine - before.machine, 3),
    }
    res["cpu_s"]["other"] = round(
        res["cpu_s"]["machine"] - res["cpu_s"]["server"] - res["cpu_s"]["wrk"] - res["cpu_s"]["postgres"], 3
    )
    # What one core of wrk could issue at this rate: the generator's ceiling.
    res["wrk_ceiling_rps_per_core"] = round(res["requests"] / wrk_cpu) if wrk_cpu > 0 else None
    return res


# ---------------------------------------------------------------------------- growth


def growth(port: int, key: str, pairs: int, small: int = 19, fill: int = 990) -> dict[str, Any]:
    """Posting latency around a table's 10th and 1,000th deal (sequential, alternating)."""
    setup = Client(port, key)
    smalls = [new_table(setup) for _ in range(pairs)]
    bigs = [new_table(setup) for _ in range(pairs)]
    setup.close()

    def fill_table(table_id: str) -> None:
        c = Client(port, key)
        for _ in range(fill):
            c.expect(201, "POST", f"/v1/tables/{table_id}/deals", ALLPASS_BODY)
        c.close()

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=min(pairs, 4)) as pool:
        list(pool.map(fill_table, bigs))
    fill_seconds = time.monotonic() - t0

    client = Client(port, key)
    lat_small: dict[int, list[float]] = {}
    lat_big: dict[int, list[float]] = {}
    for i in range(1, small + 1):
        for s, b in zip(smalls, bigs):
            for table_id, store, number in ((s, lat_small, i), (b, lat_big, fill + i)):
                t = time.perf_counter()
                _, body = client.expect(201, "POST", f"/v1/tables/{table_id}/deals", ALLPASS_BODY)
                store.setdefault(number, []).append((time.perf_counter() - t) * 1000)
                if body["deal"]["number"] != number:
                    raise RuntimeError(
                        f"expected deal {number}, the service numbered it {body['deal']['number']}"
                    )
    client.close()
    all_small = [v for vs in lat_small.values() for v in vs]
    all_big = [v for vs in lat_big.values() for v in vs]
    p10 = statistics.median(all_small)
    p1000 = statistics.median(all_big)
    return {
        "pairs": pairs,
        "window_small": [1, small],
        "window_big": [fill + 1, fill + small],
        "median_ms_around_10": round(p10, 3),
        "median_ms_around_1000": round(p1000, 3),
        "median_ms_at_10": round(statistics.median(lat_small[10]), 3),
        "median_ms_at_1000": round(statistics.median(lat_big[1000]), 3),
        "ratio": round(p1000 / p10, 3),
        "fill_deals_per_s": round(pairs * fill / fill_seconds, 1),
    }


# ---------------------------------------------------------------------------- one database


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of repeated runs, the one with the median throughput (its latencies come with it)."""
    ordered = sorted(runs, key=lambda r: r["rps"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    if len(runs) > 1:
        chosen["rounds_rps"] = [round(r["rps"], 1) for r in runs]
    return chosen


def server_env(url: str, admin: str) -> dict[str, str]:
    """The environment of a benchmarked server. A client posts to one table for the whole
    run, more deals than a table may hold by default (2,000): the limit is raised, as the
    posting cost does not depend on the count (the growth figures show it). One key makes
    every request of the run, more than the default per-key rate limit allows (100,000 a
    minute: the 304s alone pass 2,500 a second); it is raised too, so that every request is
    still counted (the rate limit's cost is measured) and none is refused."""
    return dict(
        os.environ, DATABASE_URL=url, PREFSCORE_ADMIN_KEY=admin, PYTHONUNBUFFERED="1",
        PREFSCORE_MAX_DEALS_PER_TABLE="1000000", PREFSCORE_RATE_LIMIT="1000000000",
        PREFSCORE_MAX_TABLES_PER_OWNER="1000000",
        # The mix's webhook endpoint is a receiver on this machine (bench/http_mix.py).
        PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS="127.0.0.0/8",
    )  # fmt: skip


def bench_database(db: str, url: str, args: argparse.Namespace, wrk: str, tmp: Path) -> dict[str, Any]:
    from bench import http_mix  # it builds on this module's clients

    pg = db == "postgres"
    admin = "pk_bench_" + secrets.token_urlsafe(24)
    env = server_env(url, admin)
    migrate(env)
    servers = {
        "service": service_server(f"{db}-service-1w", env, 1),
        "baseline": baseline_server(f"{db}-baseline-1w", env, 1),
    }
    if pg and not args.skip_workers:
        servers["service2"] = service_server(f"{db}-service-2w", env, 2)
        servers["baseline2"] = baseline_server(f"{db}-baseline-2w", env, 2)
    result: dict[str, Any] = {"database": db, "runs": {}}
    receiver = http_mix.Receiver()
    try:
        receiver.__enter__()
        for s in servers.values():
            s.start(tmp)
        for s in servers.values():
            s.wait_ready()
        svc = servers["service"]

        # An owner key, created the way a deployment would (the admin key only makes it):
        # every measured request pays the real key lookup.
        admin_client = Client(svc.port, admin)
        _, created = admin_client.expect(201, "POST", "/v1/keys", {"owner": "bench"})
        key = created["key"]
        # The mix's second owner, the one with a webhook endpoint.
        hooked_key = admin_client.expect(201, "POST", "/v1/keys", {"owner": "bench-hooked"})[1]["key"]
        admin_client.close()
        auth = [f"Authorization: Bearer {key}"]
        setup = Client(svc.port, key)

        clients = sorted(set(args.clients))
        tables = {c: [new_table(setup) for _ in range(c)] for c in clients}
        # A few deals on each, so that the sheet and the settlement have something to show.
        for ids in tables.values():
            for t in ids:
                for _ in range(3):
                    setup.expect(201, "POST", f"/v1/tables/{t}/deals", ALLPASS_BODY)

        def etags(ids: list[str]) -> list[str]:
            out = []
            for t in ids:
                hdrs, _ = setup.expect(200, "GET", f"/v1/tables/{t}/sheet")
                tag = header(hdrs, "etag")
                if not tag:
                    raise RuntimeError("the sheet has no ETag")
                setup.expect(304, "GET", f"/v1/tables/{t}/sheet", headers={"If-None-Match": tag})
                out.append(tag)
            return out

        def measure(group: list[tuple[str, Server, Callable[[int], Load]]], c: int, suffix: str = "") -> None:
            """The loads of a group compared with one another, a run of each in turn, round
            after round (the machine's speed drifts within minutes: each load's runs are then
            spread over the same minutes as the others'), each load's median run kept as
            ``<name>@<clients><suffix>``."""
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in group}
            for _ in range(args.rounds):
                for name, server, load_for in group:
                    if args.warmup > 0:
                        run_wrk(wrk, server, load_for(c), c, args.warmup, tmp, pg)
                    runs[name].append(run_wrk(wrk, server, load_for(c), c, args.duration, tmp, pg))
            for name, server, _ in group:
                r = median_run(runs[name])
                r["clients"] = c
                r["server"] = server.name
                result["runs"][f"{name}@{c}{suffix}"] = r
                log(
                    f"{db:8} {name:22} c={c}: {r['rps']:8.1f} req/s  p50 {r['p50_ms']:7.2f} ms  "
                    f"p99 {r['p99_ms']:7.2f} ms  unexpected {r['unexpected']}"
                )

        base = servers["baseline"]
        fixed = lambda c: Load("GET", ["/fixed"])  # noqa: E731
        # Rows for the baseline's one-row read, one per client (as the service's tables).
        base_client = Client(base.port)
        rows = {
            c: [base_client.expect(201, "POST", "/insert", ALLPASS_BODY)[1]["id"] for _ in range(c)]
            for c in clients
        }
        base_client.close()
        select_row = lambda c: Load("GET", [f"/select/{i}" for i in rows[c]])  # noqa: E731
        insert = lambda c: Load("POST", ["/insert"], ALLPASS_BODY, expect=201)  # noqa: E731
        post = lambda c: Load(  # noqa: E731
            "POST", [f"/v1/tables/{t}/deals" for t in tables[c]], ALLPASS_BODY, auth, expect=201
        )
        hooked = Client(svc.port, hooked_key)
        mixes = {c: http_mix.mix(setup, hooked, hooked_key, receiver.url, c) for c in clients}
        hooked.close()
        post_mix = lambda c: Load("POST", mixes[c].paths, ALLPASS_BODY, auth, expect=201)  # noqa: E731
        sheet = lambda c: Load("GET", [f"/v1/tables/{t}/sheet" for t in tables[c]], None, auth)  # noqa: E731
        settlement = lambda c: Load(  # noqa: E731
            "GET", [f"/v1/tables/{t}/settlement" for t in tables[c]], None, auth
        )

        # Reads first (the tables do not change), each next to its baseline.
        for c in clients:
            tags = etags(tables[c])
            not_modified = lambda c, tags=tags: Load(  # noqa: E731
                "GET", [f"/v1/tables/{t}/sheet" for t in tables[c]], None, auth, tags, expect=304
            )
            reads = [
                ("baseline GET fixed", base, fixed),
                ("baseline GET select", base, select_row),
                ("service GET sheet 304", svc, not_modified),
                ("service GET sheet", svc, sheet),
                ("service GET settlement", svc, settlement),
            ]
            measure(reads, c)
        for c in clients:
            posts = [
                ("baseline POST insert", base, insert),
                ("service POST deal", svc, post),
                ("service POST deal mix", svc, post_mix),
            ]
            measure(posts, c)

        if not args.skip_growth:
            g = growth(svc.port, key, args.growth_pairs)
            result["growth"] = g
            log(
                f"{db:8} growth: median {g['median_ms_around_10']:.2f} ms around deal 10, "
                f"{g['median_ms_around_1000']:.2f} ms around deal 1000 (ratio {g['ratio']:.2f})"
            )

        if not args.skip_finishing:
            f = http_mix.finishing(svc.port, key, svc.proc.pid, args.finishing_pairs)
            result["finishing"] = f
            log(
                f"{db:8} finishing post: median {f['median_ms_rated']:.2f} ms rated, "
                f"{f['median_ms_unrated']:.2f} ms unrated (ratio {f['ratio']:.2f}); server CPU "
                f"{f['server_cpu_ms_rated']:.2f} / {f['server_cpu_ms_unrated']:.2f} ms a post "
                f"(ratio {f['server_cpu_ratio']:.2f})"
            )

        if "service2" in servers:
            c = max(clients)
            svc2, base2 = servers["service2"], servers["baseline2"]
            # Fresh tables for this comparison, shared by both instances (same database).
            tables[c] = [new_table(setup) for _ in range(c)]
            workers = [
                ("service1 POST", svc, post),
                ("service2 POST", svc2, post),
                ("baseline1 POST", base, insert),
                ("baseline2 POST", base2, insert),
            ]
            measure(workers, c, " workers")
        setup.close()
    finally:
        for s in servers.values():
            s.stop()
        receiver.__exit__()
    return result


# ---------------------------------------------------------------------------- report


def ratios(res: dict[str, Any], clients: list[int]) -> list[dict[str, Any]]:
    runs = res["runs"]
    out = []
    post_target = TARGETS["post_vs_insert"][res["database"]]

    def add(name: str, num: str, den: str, target: float | None, higher_is_better: bool = True) -> None:
        if num in runs and den in runs:
            value = runs[num]["rps"] / runs[den]["rps"] if runs[den]["rps"] else float("nan")
            ok = None if target is None else (value >= target if higher_is_better else value <= target)
            out.append({"name": name, "value": round(value, 3), "target": target, "ok": ok})

    for c in clients:
        add(
            f"POST deal mix / baseline insert (c={c})",
            f"service POST deal mix@{c}",
            f"baseline POST insert@{c}",
            post_target,
        )
        add(
            f"POST deal / baseline insert (c={c})",
            f"service POST deal@{c}",
            f"baseline POST insert@{c}",
            post_target,
        )
        add(
            f"sheet 304 / baseline fixed (c={c})",
            f"service GET sheet 304@{c}",
            f"baseline GET fixed@{c}",
            TARGETS["not_modified_vs_fixed"],
        )
        add(
            f"sheet 304 / baseline select (c={c})",
            f"service GET sheet 304@{c}",
            f"baseline GET select@{c}",
            None,
        )
        add(
            f"baseline select / baseline fixed (c={c})",
            f"baseline GET select@{c}",
            f"baseline GET fixed@{c}",
            None,
        )
        add(
            f"sheet 200 / baseline select (c={c})",
            f"service GET sheet@{c}",
            f"baseline GET select@{c}",
            TARGETS["sheet_vs_select"],
        )
        add(f"sheet 200 / baseline fixed (c={c})", f"service GET sheet@{c}", f"baseline GET fixed@{c}", None)
        add(
            f"settlement / baseline fixed (c={c})",
            f"service GET settlement@{c}",
            f"baseline GET fixed@{c}",
            None,
        )

    def at_most(name: str, value: float, target: float) -> None:
        out.append({"name": name, "value": value, "target": target, "ok": value <= target})

    if "growth" in res:
        at_most(
            "POST latency around deal 1000 / around deal 10 (p50)",
            res["growth"]["ratio"],
            TARGETS["growth_1000_vs_10"],
        )
    if "finishing" in res:
        f = res["finishing"]
        at_most(
            "finishing POST rated / unrated (p50, at the client)",
            f["ratio"],
            TARGETS["finishing_rated_vs_unrated"],
        )
        out.append({
            "name": "finishing POST rated / unrated (server CPU, p50)",
            "value": f["server_cpu_ratio"], "target": None, "ok": None,
        })  # fmt: skip
    c = max(clients)
    add(
        f"service 2 workers / 1 worker POST (c={c})",
        f"service2 POST@{c} workers",
        f"service1 POST@{c} workers",
        TARGETS["two_vs_one_worker"],
    )
    add(
        f"baseline 2 workers / 1 worker insert (c={c})",
        f"baseline2 POST@{c} workers",
        f"baseline1 POST@{c} workers",
        None,
    )
    return out


def per_request_ms(r: dict[str, Any]) -> float:
    """The server's CPU milliseconds per request of a run: steadier than its rate on a
    machine that other work shares."""
    return 1000 * r["cpu_s"]["server"] / r["requests"] if r["requests"] else float("nan")


def at_most(name: str) -> bool:
    """The ratios whose target is a ceiling (the others' is a floor)."""
    return "latency" in name or "rated / unrated" in name


def figures(report: dict[str, Any]) -> list[targets.Figure]:
    """The ratios that have a target, as bench/targets.py takes them."""
    return [
        targets.Figure(
            r["name"], r["value"], r["target"], at_least=not at_most(r["name"]), db=res["database"]
        )
        for res in report["databases"]
        for r in res["ratios"]
        if r["target"] is not None
    ]


def render(report: dict[str, Any]) -> str:
    lines = []
    commit = report["commit"]
    dirty = f" (+ uncommitted changes in {', '.join(commit['dirty_paths'])})" if commit["dirty_paths"] else ""
    lines.append(f"prefscore HTTP bench, commit {commit['short']}{dirty}, {report['started']}")
    lines.append(
        f"{report['machine']['cpus']} CPUs; load average at start {report['machine']['loadavg_start']}; "
        f"{report['args']['duration']}s per run, {report['args']['rounds']} round(s); generator: wrk"
    )
    head = (
        f"{'db':8} {'measurement':34} {'cl':>3} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'bad':>5} "
        f"{'srv cpu':>8} {'wrk cpu':>8} {'pg cpu':>7} {'other':>6} {'srv ms/req':>10}"
    )
    lines.append(head)
    lines.append("-" * len(head))
    for res in report["databases"]:
        for name, r in res["runs"].items():
            label = name.rsplit("@", 1)[0]
            cpu = r["cpu_s"]
            lines.append(
                f"{res['database']:8} {label:34} {r['clients']:>3} {r['rps']:>9.1f} {r['p50_ms']:>8.2f} "
                f"{r['p99_ms']:>8.2f} {r['unexpected']:>5} {cpu['server']:>8.2f} {cpu['wrk']:>8.2f} "
                f"{cpu['postgres']:>7.2f} {cpu['other']:>6.2f} {per_request_ms(r):>10.3f}"
            )
        if "growth" in res:
            g = res["growth"]
            lines.append(
                f"{res['database']:8} {'POST latency p50 around deal 10':34} {1:>3} {'':>9} "
                f"{g['median_ms_around_10']:>8.2f}"
            )
            lines.append(
                f"{res['database']:8} {'POST latency p50 around deal 1000':34} {1:>3} {'':>9} "
                f"{g['median_ms_around_1000']:>8.2f}"
            )
        if "finishing" in res:
            f = res["finishing"]
            for kind in ("rated", "unrated"):
                lines.append(
                    f"{res['database']:8} {'finishing POST p50, ' + kind:34} {1:>3} {'':>9} "
                    f"{f['median_ms_' + kind]:>8.2f} {'':>8} {'':>5} {'':>8} {'':>8} {'':>7} {'':>6} "
                    f"{f['server_cpu_ms_' + kind]:>10.3f}"
                )
    lines.append("")
    lines.append("ratios (target; PASS/FAIL)")
    lines.append("(the server's CPU per request of each pair is in the table: its ratio is steadier)")
    for res in report["databases"]:
        for r in res["ratios"]:
            verdict = "" if r["ok"] is None else ("PASS" if r["ok"] else "FAIL")
            target = (
                ""
                if r["target"] is None
                else (f"<= {r['target']}" if at_most(r["name"]) else f">= {r['target']}")
            )
            lines.append(f"{res['database']:8} {r['name']:52} {r['value']:>7.3f}  {target:>7} {verdict}")
    lines.append("")
    ceilings = [
        (res["database"], r["wrk_ceiling_rps_per_core"], r["rps"], r["cpu_s"]["wrk"], r["cpu_s"]["wall"])
        for res in report["databases"]
        for name, r in res["runs"].items()
        if name.startswith("baseline GET fixed") and r["wrk_ceiling_rps_per_core"]
    ]
    for db, ceiling, rps, wcpu, wall in ceilings:
        lines.append(
            f"generator ceiling ({db}, fixed JSON): wrk used {wcpu:.2f} CPU-s in {wall:.1f}s for {rps:.0f} req/s, "
            f"i.e. about {ceiling} req/s per core of wrk"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.http", description=__doc__.split("\n\n")[0])
    p.add_argument("--db", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    p.add_argument("--duration", type=float, default=8.0, help="seconds per measured run (default 8)")
    p.add_argument("--warmup", type=float, default=1.0, help="seconds of unmeasured load before each run")
    p.add_argument("--rounds", type=int, default=1, help="repeat each measurement, keep the median")
    p.add_argument("--clients", default="1,8", help="comma-separated numbers of concurrent clients")
    p.add_argument("--growth-pairs", type=int, default=3, help="pairs of tables for the deal 10/1000 latency")
    p.add_argument("--skip-growth", action="store_true")
    p.add_argument("--finishing-pairs", type=int, default=40, help="rated/unrated pairs of finishing posts")
    p.add_argument("--skip-finishing", action="store_true")
    p.add_argument("--skip-workers", action="store_true", help="no 1-vs-2 worker comparison on PostgreSQL")
    p.add_argument("--quick", action="store_true", help="3s runs, no warm-up, one pair for the growth test")
    p.add_argument("--out", help="JSON file to write (default bench/results/http-<time>-<commit>.json)")
    args = p.parse_args(argv)
    if args.quick:
        args.duration, args.warmup, args.growth_pairs = 3.0, 0.0, 1
        args.finishing_pairs = min(args.finishing_pairs, 15)
    args.clients = [int(c) for c in str(args.clients).split(",")]
    dbs = [d.strip() for d in args.db.split(",") if d.strip()]
    for d in dbs:
        if d not in ("sqlite", "postgres"):
            p.error(f"unknown database {d!r}")

    wrk = ensure_wrk()
    commit = git_commit()
    report: dict[str, Any] = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": {"cpus": os.cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()]},
        "args": {k: v for k, v in vars(args).items()},
        "targets": TARGETS,
        "databases": [],
    }
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="prefscore-bench-") as tmpdir:
        tmp = Path(tmpdir)
        for d in dbs:
            log(f"{d}: starting")
            if d == "sqlite":
                res = bench_database(d, f"sqlite:///{tmp / 'bench.db'}", args, wrk, tmp)
            else:
                with Postgres() as pgdb:
                    res = bench_database(d, pgdb.url, args, wrk, tmp)
            res["ratios"] = ratios(res, args.clients)
            report["databases"].append(res)
        logs = {f.name: f.read_text(errors="replace")[-2000:] for f in tmp.glob("*.log") if f.stat().st_size}
    report["server_log_tails"] = logs
    report["elapsed_s"] = round(time.monotonic() - t0, 1)
    report["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    text = render(report)
    report["table"] = text
    RESULTS.mkdir(exist_ok=True)
    out = (
        Path(args.out)
        if args.out
        else RESULTS
        / (f"http-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}-{commit['short'] or 'nogit'}.json")
    )
    out.write_text(json.dumps(report, indent=2, default=str))
    print(text)
    targets.report("http", figures(report), {"results": str(out)})
    print(f"\n(took {report['elapsed_s']:.0f}s; written to {out})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
