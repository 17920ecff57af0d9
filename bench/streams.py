"""Idle event streams: what each costs the server, and one change fanned out to all of them.

One ``prefscore serve`` process (one worker) per database (SQLite and PostgreSQL); a separate
load process opens N idle streams of one table through its share link
(``/v1/shared/{token}/events?after=<revision>``: the client has the current revision, so no
first event; every stream watches the same table), with asyncio and raw sockets. The server's
resident memory (VmRSS) is read with 0, N/2 and N streams open: the cost per stream is the
difference over N (the slope from N/2 to N is reported too). Then ``--deals`` deals are posted to
the table, ``--gap`` seconds apart, and each stream's event is timed from its POST (p50, p99,
max over every stream and deal) while this process asks ``/health`` every 5 ms on a
connection of its own: the p99 of the asks sent between a deal's POST and its last event is
the figure, beside the p99 of 2 s of asks with the streams idle (the machine's own noise).

    .venv/bin/python -m bench.streams                 # N=10,000, both databases
    .venv/bin/python -m bench.streams --quick         # N=1,000, well under 2 minutes
    .venv/bin/python -m bench.streams --before main   # the same run of another commit first

``--before REF`` measures the tree at REF (``git archive``, served from a temporary directory)
and then this tree, in the same run, side by side. Each stream takes a file descriptor in the
server and one in the load process: the limit of open files is raised to its hard limit
(``ulimit -Hn``) and the run says how many streams fit. Figures go through bench/targets.py.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PYTHON = sys.executable
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
ADMIN = "pk_bench_admin_streams_0123456789"
DEALS = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "contract", "declarer": 2, "contract": "6S", "defenders": {"0": "pass", "1": "pass"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _proc(pid: int) -> tuple[int, float]:
    """(VmRSS bytes, CPU seconds) of one process."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------- load side


async def _stream(
    port: int, request: bytes, arrivals: list[list[float]], opened: list[int], sem: asyncio.Semaphore
) -> None:
    async with sem:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        opened[0] += 1
    mine: list[float] = []
    arrivals.append(mine)
    tail = b""
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                return
            # one "id: " line per event (chunk sizes, data and pings do not start a line so);
            # read in blocks, not lines, so the load process keeps up with 10,000 streams
            seen = (tail + data).count(b"\nid: ")
            mine.extend([time.monotonic()] * seen)
            tail = data[-4:]  # shorter than the pattern: never counted twice
    finally:
        writer.close()


async def _ask(line: dict[str, Any]) -> dict[str, Any]:
    """Tell the parent (stdout), wait for its answer (stdin; the loop keeps reading the streams)."""
    print(json.dumps(line), flush=True)
    return json.loads(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))


async def load_main(args: argparse.Namespace) -> None:
    spec = json.loads(Path(args.spec).read_text())
    port, token, revision = spec["port"], spec["token"], spec["revision"]
    request = (
        f"GET /v1/shared/{token}/events?after={revision} HTTP/1.1\r\nHost: bench\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()
    sem = asyncio.Semaphore(64)
    # warm-up: some streams opened and closed, so the baseline has every module and pool
    warm: list[list[float]] = []
    tasks = [asyncio.create_task(_stream(port, request, warm, [0], sem)) for _ in range(20)]
    await asyncio.sleep(1.0)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(1.0)
    await _ask({"mark": "0", "streams": 0})
    arrivals: list[list[float]] = []
    opened = [0]
    tasks = []
    started = time.monotonic()
    for target in (args.streams // 2, args.streams):
        while len(tasks) < target:
            tasks.append(asyncio.create_task(_stream(port, request, arrivals, opened, sem)))
        while opened[0] < target and not any(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        failed = [t for t in tasks if t.done()]
        if failed:
            raise RuntimeError(f"{len(failed)} streams failed: {failed[0].exception()!r}")
        await asyncio.sleep(2.0)  # settled
        await _ask(
            {"mark": str(target), "streams": opened[0], "open_s": round(time.monotonic() - started, 1)}
        )
    posted = (await _ask({"ready": True}))["posted"]  # [monotonic time of each POST]
    deadline = time.monotonic() + args.wait
    while time.monotonic() < deadline and sum(len(a) for a in arrivals) < len(posted) * len(arrivals):
        await asyncio.sleep(0.05)
    delays = [a[i] - posted[i] for a in arrivals for i in range(min(len(a), len(posted)))]
    last = []  # when each deal's fan-out ended
    for i in range(len(posted)):
        each = sorted(a[i] for a in arrivals if len(a) > i)
        last.append(each[-1] if each else posted[i] + args.wait)
    missing = len(posted) * len(arrivals) - len(delays)
    print(json.dumps({"delays": delays, "missing": missing, "windows": list(zip(posted, last))}), flush=True)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# --------------------------------------------------------------------------- parent


class HealthPoller(threading.Thread):
    """``/health`` every ``every`` seconds on one keep-alive connection; the answers' times."""

    def __init__(self, port: int, every: float = 0.005):
        super().__init__(daemon=True)
        self.port, self.every = port, every
        self.times: list[float] = []
        self.starts: list[float] = []  # time.monotonic() of each ask
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop.is_set():
            self.starts.append(time.monotonic())
            t0 = time.perf_counter()
            conn.request("GET", "/health")
            r = conn.getresponse()
            r.read()
            self.times.append(time.perf_counter() - t0)
            self.stop.wait(self.every)
        conn.close()


def measure(tree: Path, db: str, database: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    import httpx

    sys.path.insert(0, str(REPO))
    from tests.databases import TEST_DB_ENV, fresh_database
    from tests.hardening.harness import Server

    os.environ[TEST_DB_ENV] = database if db == "postgres" else ""
    n = args.streams
    env = {
        "PYTHONPATH": str(tree),
        "PREFSCORE_RATE_LIMIT": "0",
        "PREFSCORE_ANONYMOUS_RATE_LIMIT": "0",
        "PREFSCORE_SHARE_RATE_LIMIT": "0",
        "PREFSCORE_LOG_LEVEL": "WARNING",
        # one share link from one address holds every stream here: the caps that keep one
        # holder from taking the process's streams are lifted for the measurement
        "PREFSCORE_EVENTS_MAX_SUBSCRIPTIONS": str(n + 100),
        "PREFSCORE_EVENTS_MAX_PER_SHARE_TOKEN": str(n + 100),
        "PREFSCORE_EVENTS_MAX_PER_ADDRESS": str(n + 100),
    }
    with fresh_database(tmp, f"streams-{db}") as url:
        server = Server(url, tmp, ADMIN, env=env, name=f"streams-{db}-{tree.name}").start(timeout=90)
        try:
            with httpx.Client(
                base_url=server.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
            ) as c:
                r = c.post(
                    "/v1/tables",
                    json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi", "pool_target": 500},
                )
                r.raise_for_status()
                table = r.json()
                revision = 0  # a new table's; with ?after=0 the streams start idle
            spec = tmp / f"spec-{db}-{tree.name}.json"
            spec.write_text(
                json.dumps({"port": server.port, "token": table["share_token"], "revision": revision})
            )
            return _drive(server, spec, table["id"], args)
        finally:
            server.stop()


def _drive(server: Any, spec: Path, table_id: str, args: argparse.Namespace) -> dict[str, Any]:
    import httpx

    pid = server.proc.pid
    load = subprocess.Popen(
        [PYTHON, "-m", "bench.streams", "--load", "--spec", str(spec), "--streams", str(args.streams),
         "--wait", str(args.wait)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert load.stdin is not None and load.stdout is not None
    marks: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {}
    poller = HealthPoller(server.port)
    try:
        for line in load.stdout:
            msg = json.loads(line)
            if "mark" in msg:
                rss, cpu = _proc(pid)
                marks[msg["mark"]] = msg | {"rss": rss, "cpu": cpu}
                print(f"    {msg['streams']} streams: rss {rss / 2**20:.1f} MiB, cpu {cpu:.1f} s", flush=True)
                load.stdin.write("{}\n")
                load.stdin.flush()
            elif "ready" in msg:
                poller.start()
                time.sleep(2.0)  # /health with the streams idle, for comparison
                out["health_idle"] = list(poller.times)
                cpu0 = _proc(pid)[1]
                posted = []
                with httpx.Client(
                    base_url=server.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=30
                ) as c:
                    c.get("/health")
                    for k in range(args.deals):
                        posted.append(time.monotonic())
                        c.post(f"/v1/tables/{table_id}/deals", json=DEALS[k % 3]).raise_for_status()
                        time.sleep(args.gap)
                load.stdin.write(json.dumps({"posted": posted}) + "\n")
                load.stdin.flush()
            elif "delays" in msg:
                out["cpu_fanout_s"] = round(_proc(pid)[1] - cpu0, 2)
                poller.stop.set()
                out["delays"], out["missing"] = msg["delays"], msg["missing"]
                # the asks sent while a deal's events were going out (its POST to its last event)
                out["health_fanout"] = [
                    took
                    for at, took in zip(poller.starts, poller.times, strict=False)
                    if any(a <= at <= b for a, b in msg["windows"])
                ]
    finally:
        poller.stop.set()
        load.wait(60)
    if load.returncode:
        raise RuntimeError(f"the load process failed ({load.returncode})")
    n = marks[str(args.streams)]["streams"]
    half = marks[str(args.streams // 2)]
    full = marks[str(args.streams)]
    per = (full["rss"] - marks["0"]["rss"]) / n / 1024
    slope = (full["rss"] - half["rss"]) / max(1, full["streams"] - half["streams"]) / 1024
    return {
        "streams": n,
        "open_s": full["open_s"],
        "rss_0_mib": round(marks["0"]["rss"] / 2**20, 1),
        "rss_n_mib": round(full["rss"] / 2**20, 1),
        "kib_per_stream": round(per, 2),
        "kib_per_stream_slope": round(slope, 2),
        "cpu_open_ms_per_stream": round((full["cpu"] - marks["0"]["cpu"]) / n * 1000, 3),
        "fanout_p50_s": round(_pct(out["delays"], 0.5), 4),
        "fanout_p99_s": round(_pct(out["delays"], 0.99), 4),
        "fanout_max_s": round(max(out["delays"], default=float("nan")), 4),
        "missing": out["missing"],
        "cpu_fanout_s": out["cpu_fanout_s"],
        "health_p99_ms": round(_pct(out["health_fanout"], 0.99) * 1000, 2),
        "health_fanout_asked": len(out["health_fanout"]),
        "health_idle_p99_ms": round(_pct(out["health_idle"], 0.99) * 1000, 2),
        "health_max_ms": round(max(poller.times, default=float("nan")) * 1000, 2),
        "health_asked": len(poller.times),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    p.add_argument("--database", default=os.environ.get("PREFSCORE_BENCH_PG", DEFAULT_PG))
    p.add_argument("--streams", type=int, default=10_000)
    p.add_argument("--quick", action="store_true", help="1,000 streams, 3 deals")
    p.add_argument("--deals", type=int, default=5)
    p.add_argument("--gap", type=float, default=2.0, help="seconds between the deals")
    p.add_argument("--wait", type=float, default=15.0, help="seconds to wait for the last events")
    p.add_argument("--before", metavar="REF", help="measure the tree at REF first, side by side")
    p.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the server and the load
    if args.load:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        asyncio.run(load_main(args))
        return
    if args.quick:
        args.streams, args.deals = min(args.streams, 1000), 3
    if args.streams + 200 > hard:
        print(f"the hard limit of open files is {hard}: {hard - 200} streams at most", flush=True)
        args.streams = hard - 200
    run(args)


def run(args: argparse.Namespace) -> None:
    from bench.targets import Figure, report, source_tree

    dbs = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    results: dict[str, dict[str, Any]] = {}
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        trees = [("after", REPO)]
        if args.before:
            trees.insert(0, ("before", source_tree(args.before, tmp / "before")))
        for db in dbs:
            for label, tree in trees:
                print(f"{db}, {label} ({tree}): {args.streams} streams", flush=True)
                r = results[f"{db}/{label}"] = measure(tree, db, args.database, args, tmp)
                print("    " + json.dumps(r), flush=True)
                if label == "after":
                    figures += [
                        Figure("server memory per idle stream", r["kib_per_stream"], 20, False, " KiB", db),
                        Figure(
                            f"fan-out p99 to {r['streams']} streams", r["fanout_p99_s"], 1.0, False, " s", db
                        ),
                        Figure("/health p99 during the fan-out", r["health_p99_ms"], 50, False, " ms", db),
                    ]
    if args.before:
        keys = ["kib_per_stream", "kib_per_stream_slope", "fanout_p50_s", "fanout_p99_s", "health_p99_ms", "health_idle_p99_ms",
                "cpu_open_ms_per_stream", "cpu_fanout_s"]  # fmt: skip
        for db in dbs:
            print(f"{db}: before -> after")
            for k in keys:
                print(f"    {k}: {results[f'{db}/before'][k]} -> {results[f'{db}/after'][k]}")
    report("streams", figures, {"runs": results, "before": args.before, "streams": args.streams})


if __name__ == "__main__":
    main()
