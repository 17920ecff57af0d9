"""Capacity of the live updates: one ``prefscore serve`` process on PostgreSQL, 2,000 open
event streams over 200 tables while 20 writers post a deal each per second; then viewers
polling the sheet every 2 s with If-None-Match instead, as many as the server can answer.

    .venv/bin/python -m bench.events                  # about 3 minutes
    .venv/bin/python -m bench.events --viewers 400 --tables 40 --seconds 10   # a quick look

The load (viewers and writers) runs in a separate process (``load``, asyncio with raw
sockets for the viewers, httpx for the writers), so it never shares the server's
interpreter. Figures: each event's delay from the writer's POST to its arrival at every
subscriber of its table (p50, p99, max; and from the writer's 201, which the event may
precede); the server's resident memory per idle stream; the
server's CPU seconds in three phases of the same length: writers alone, writers + 2,000
streams, writers + ``--poll-viewers`` pollers; the viewers' share is the phase minus writers
alone.

Push and polling are compared per viewer-second (the viewers' CPU share over viewers times
seconds), each side measured at a rate the server keeps up with: 2,000 viewers polling every
2 s ask 1,000 answers a second, more than one process on 2 shared cores gives (it answered
140-240), and a phase whose polls queue measures what the server managed, not what the
viewers asked. So the pollers are fewer (``--poll-viewers``, default a tenth: 100 polls a
second), every poll they ask is answered (the run says so, or says it fell behind), and their
CPU per viewer-second is what each of the 2,000 would cost. Results:
``bench/results/events-<time>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DEALS = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "contract", "declarer": 2, "contract": "6S", "defenders": {"0": "pass", "1": "pass"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
]


# --------------------------------------------------------------------------- server side


def _pids(root: int) -> list[int]:
    """The server process and its children (uvicorn may fork)."""
    out = [root]
    try:
        children = Path(f"/proc/{root}/task/{root}/children").read_text().split()
    except OSError:
        children = []
    for c in children:
        out += _pids(int(c))
    return out


def cpu_seconds(root: int) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in _pids(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def rss_bytes(root: int) -> int:
    total = 0
    for pid in _pids(root):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


# --------------------------------------------------------------------------- load side


async def _open(port: int, request: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(request)
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return reader, writer


async def viewer_stream(
    port: int, table: str, token: str, arrivals: list[tuple[str, int, float]], ready: asyncio.Event
) -> None:
    request = f"GET /v1/shared/{token}/events?after=0 HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode()
    reader, writer = await _open(port, request)
    ready.set()
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            # chunked transfer: size lines and SSE lines arrive interleaved; only "id:" matters
            if line.startswith(b"id: "):
                arrivals.append((table, int(line[4:].strip()), time.monotonic()))
    finally:
        writer.close()


async def viewer_poll(
    port: int,
    table: str,
    key: str,
    interval: float,
    counts: dict[str, int],
    stop: asyncio.Event,
    phase: float,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    etag = None
    await asyncio.sleep(phase)
    # On a fixed schedule (one poll every ``interval`` from the first), not ``interval`` after
    # each answer: the polls asked are then exactly the viewers over the interval, and a slow
    # answer shows as polls not answered instead of a lower rate asked.
    start, k = time.monotonic(), 0
    try:
        while not stop.is_set():
            head = f"GET /v1/tables/{table}/sheet HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {key}\r\n"
            if etag:
                head += f"If-None-Match: {etag}\r\n"
            writer.write((head + "\r\n").encode())
            await writer.drain()
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
                elif name.lower() == "etag":
                    etag = value.strip()
            if length:
                await reader.readexactly(length)
            counts[status.split()[1].decode()] = counts.get(status.split()[1].decode(), 0) + 1
            k += 1
            await asyncio.sleep(max(0.0, start + k * interval - time.monotonic()))
    finally:
        writer.close()


async def writers(
    base: str,
    key: str,
    tables: list[str],
    n: int,
    seconds: float,
    posted: dict[tuple[str, int], tuple[float, float]],
    errors: list[str],
) -> None:
    import httpx

    # Every writer's client is made and its connection opened before the clock starts: making
    # an AsyncClient costs the load process ~20 ms (its TLS context), and made inside the
    # timed loop the 20 of them held up the first posts of each phase by up to 0.4 s (1 s on
    # a busy machine), a delay of the load, not of the server, that set the phase's p99.
    clients = [
        httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30)
        for _ in range(n)
    ]

    async def one(i: int, client: httpx.AsyncClient, start: float) -> None:
        mine = tables[i::n]
        k = 0
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        while time.monotonic() - start < seconds:
            table = mine[k % len(mine)]
            sent = time.monotonic()
            r = await client.post(f"/v1/tables/{table}/deals", json=DEALS[k % len(DEALS)])
            now = time.monotonic()
            if r.status_code == 201:
                posted[(table, r.json()["sheet"]["deal_count"])] = (sent, now)  # revision == deal count here
            else:
                errors.append(f"{r.status_code} {r.text[:100]}")
            k += 1
            await asyncio.sleep(max(0.0, start + k * 1.0 - time.monotonic()))

    try:
        await asyncio.gather(*(client.get("/health") for client in clients))
        # spread over the second, as independent writers would be, not all at one instant
        start = time.monotonic()
        await asyncio.gather(*(one(i, client, start + i / n) for i, client in enumerate(clients)))
    finally:
        await asyncio.gather(*(client.aclose() for client in clients))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def load_main(args: argparse.Namespace) -> dict[str, Any]:
    """The load process: told the tables, it runs the phases and reports on stdout."""
    spec = json.loads(Path(args.spec).read_text())
    port, key, tables = spec["port"], spec["key"], spec["tables"]
    base = f"http://127.0.0.1:{port}"
    per_table = args.viewers // len(tables)
    out: dict[str, Any] = {}

    def mark(name: str) -> None:
        print(json.dumps({"mark": name}), flush=True)
        # the parent measures the server's CPU and memory at each mark, then answers
        sys.stdin.readline()

    # phase 1: writers alone
    mark("writers-start")
    posted: dict[tuple[str, int], float] = {}
    errors: list[str] = []
    await writers(base, key, [t["id"] for t in tables], args.writers, args.seconds, posted, errors)
    mark("writers-end")

    # phase 2: the streams, idle, then with the writers
    arrivals: list[tuple[str, int, float]] = []
    tasks = []
    for i in range(per_table):
        for t in tables:
            ready = asyncio.Event()
            tasks.append(asyncio.create_task(viewer_stream(port, t["id"], t["share_token"], arrivals, ready)))
            await asyncio.wait_for(ready.wait(), 30)
        await asyncio.sleep(0.05)
    await asyncio.sleep(3)
    failed = [t for t in tasks if t.done()]
    out["streams_open"] = len(tasks) - len(failed)
    mark("streams-idle")
    await asyncio.sleep(args.seconds / 2)  # idle: heartbeats only
    mark("push-start")
    posted2: dict[tuple[str, int], tuple[float, float]] = {}
    await writers(base, key, [t["id"] for t in tables], args.writers, args.seconds, posted2, errors)
    await asyncio.sleep(2)  # the last events
    mark("push-end")
    # An event's delay from the writer sending its POST (an upper bound: the post's own time
    # is in it), and from the writer's 201 (a lower bound, 0 when the event came first: the
    # writing process sends it to its streams as it commits, before the answer).
    delays = []
    after_201 = []
    missing = 0
    got = {}
    for table, revision, at in arrivals:
        got.setdefault((table, revision), []).append(at)
    for (table, revision), (sent, t201) in posted2.items():
        ats = got.get((table, revision), [])
        missing += per_table - len(ats)
        delays += [a - sent for a in ats]
        after_201 += [max(0.0, a - t201) for a in ats]
    # The slowest deals with their time into the phase: a burst (many deals at one moment)
    # is a stall of one process; scattered ones are the steady state's tail.
    phase_start = min((sent for sent, _ in posted2.values()), default=0.0)
    slowest = sorted(
        (
            (max(got.get(key, [sent])) - sent, sent - phase_start, t201 - sent)
            for key, (sent, t201) in posted2.items()
        ),
        reverse=True,
    )[:10]
    out["push"] = {
        "deals": len(posted2),
        "deliveries": len(delays),
        "expected_deliveries": len(posted2) * per_table,
        "missing": missing,
        "p50_ms": round(_pct(delays, 0.5) * 1000, 1),
        "p99_ms": round(_pct(delays, 0.99) * 1000, 1),
        "max_ms": round(max(delays) * 1000, 1) if delays else None,
        "mean_ms": round(statistics.fmean(delays) * 1000, 1) if delays else None,
        "after_201_p50_ms": round(_pct(after_201, 0.5) * 1000, 1),
        "after_201_p99_ms": round(_pct(after_201, 0.99) * 1000, 1),
        "before_201": sum(1 for d in after_201 if d == 0.0),
        "slowest_deals": [
            {"delay_ms": round(d * 1000, 1), "at_s": round(at, 2), "post_ms": round(p * 1000, 1)}
            for d, at, p in slowest
        ],
    }
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(2)

    # phase 3: --poll-viewers viewers polling every 2 s with If-None-Match, with the writers,
    # spread over the tables in turn
    stop = asyncio.Event()
    counts: dict[str, int] = {}
    pollers = []
    for n in range(args.poll_viewers):
        t = tables[n % len(tables)]
        pollers.append(
            asyncio.create_task(
                viewer_poll(
                    port, t["id"], key, args.poll_interval, counts, stop, (n % 200) * args.poll_interval / 200
                )
            )
        )
    await asyncio.sleep(args.poll_interval + 1)
    mark("poll-start")
    counts.clear()
    await writers(base, key, [t["id"] for t in tables], args.writers, args.seconds, {}, errors)
    mark("poll-end")
    out["poll"] = {"answers": dict(counts), "per_second": round(sum(counts.values()) / args.seconds, 1)}
    stop.set()
    await asyncio.gather(*pollers, return_exceptions=True)
    out["writer_errors"] = errors[:10]
    out["writer_error_count"] = len(errors)
    return out


# --------------------------------------------------------------------------- parent


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--database",
        default=os.environ.get("PREFSCORE_BENCH_PG", DEFAULT_PG),
        help="a PostgreSQL server URL (a fresh database is made on it)",
    )
    p.add_argument("--viewers", type=int, default=2000)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--writers", type=int, default=20)
    p.add_argument("--seconds", type=float, default=30, help="length of each measured phase")
    p.add_argument("--poll-interval", type=float, default=2.0)
    p.add_argument(
        "--poll-viewers", type=int, help="viewers in the polling phase (default: a tenth of --viewers)"
    )
    p.add_argument("--load", help=argparse.SUPPRESS)  # the load process
    p.add_argument("--spec", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.poll_viewers is None:
        args.poll_viewers = max(1, args.viewers // 10)
    if args.load:
        result = asyncio.run(load_main(args))
        print(json.dumps({"result": result}), flush=True)
        return
    run(args)


def run(args: argparse.Namespace) -> None:
    import resource

    import httpx

    sys.path.insert(0, str(REPO))
    from tests.databases import TEST_DB_ENV
    from tests.hardening.harness import Server, fresh_database

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, args.viewers * 2 + 1000))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))  # inherited by the server and the load
    os.environ[TEST_DB_ENV] = args.database
    admin = "pk_bench_admin_events_0123456789"
    with tempfile.TemporaryDirectory() as tmp, fresh_database(Path(tmp), "events") as url:
        from app.kit.db import migrate

        migrate.upgrade(url)
        env = {
            "PREFSCORE_RATE_LIMIT": "0",
            "PREFSCORE_ANONYMOUS_RATE_LIMIT": "0",
            "PREFSCORE_SHARE_RATE_LIMIT": "0",
            "PREFSCORE_LOG_LEVEL": "WARNING",
            "PREFSCORE_EVENTS_MAX_SUBSCRIPTIONS": str(args.viewers + 100),
            # every viewer here is one key at one address: the per-holder caps, which keep
            # one caller from taking the process's streams, are lifted for the measurement
            "PREFSCORE_EVENTS_MAX_PER_KEY": str(args.viewers + 100),
            "PREFSCORE_EVENTS_MAX_PER_ADDRESS": str(args.viewers + 100),
        }
        server = Server(url, Path(tmp), admin, env=env, upgrade=False, name="events-bench").start()
        try:
            headers = {"Authorization": f"Bearer {admin}"}
            tables = []
            with httpx.Client(base_url=server.url, headers=headers, timeout=30) as c:
                for _ in range(args.tables):
                    r = c.post(
                        "/v1/tables",
                        json={
                            "players": ["Anna", "Boris", "Vera"],
                            "convention": "sochi",
                            "pool_target": 500,
                        },
                    )
                    r.raise_for_status()
                    tables.append({"id": r.json()["id"], "share_token": r.json()["share_token"]})
            spec = Path(tmp) / "spec.json"
            spec.write_text(json.dumps({"port": server.port, "key": admin, "tables": tables}))
            pid = server.proc.pid  # type: ignore[union-attr]
            load = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench.events",
                    "--load",
                    "1",
                    "--spec",
                    str(spec),
                    "--viewers",
                    str(args.viewers),
                    "--writers",
                    str(args.writers),
                    "--seconds",
                    str(args.seconds),
                    "--poll-interval",
                    str(args.poll_interval),
                    "--poll-viewers",
                    str(args.poll_viewers),
                ],
                cwd=REPO,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            marks: dict[str, dict[str, float]] = {}
            result = None
            assert load.stdout is not None and load.stdin is not None
            for line in load.stdout:
                msg = json.loads(line)
                if "mark" in msg:
                    marks[msg["mark"]] = {
                        "t": time.monotonic(),
                        "cpu": cpu_seconds(pid),
                        "rss": rss_bytes(pid),
                        "load": loadavg()[0],
                    }
                    print(
                        f"{msg['mark']}: server cpu {marks[msg['mark']]['cpu']:.2f} s, rss {marks[msg['mark']]['rss'] / 2**20:.1f} MiB, load {marks[msg['mark']]['load']}",
                        flush=True,
                    )
                    load.stdin.write("\n")
                    load.stdin.flush()
                elif "result" in msg:
                    result = msg["result"]
            load.wait()
        finally:
            server.stop()
    assert result is not None, "the load process gave no result"

    def cpu(a: str, b: str) -> float:
        return marks[b]["cpu"] - marks[a]["cpu"]

    writers_alone = cpu("writers-start", "writers-end")
    push = cpu("push-start", "push-end")
    poll = cpu("poll-start", "poll-end")
    # the push phase lasts 2 s longer (the last events): its writers' share is scaled to it
    push_len = marks["push-end"]["t"] - marks["push-start"]["t"]
    poll_len = marks["poll-end"]["t"] - marks["poll-start"]["t"]
    base_rate = writers_alone / (marks["writers-end"]["t"] - marks["writers-start"]["t"])
    push_viewers = push - base_rate * (push_len - 2)
    poll_viewers = poll - base_rate * poll_len
    idle_rss = marks["streams-idle"]["rss"] - marks["writers-end"]["rss"]
    answered = sum(result["poll"]["answers"].values())
    asked = args.poll_viewers / args.poll_interval * poll_len
    kept_up = answered >= 0.95 * asked  # else the polls queued: the figure is what the server managed
    # Per viewer-second: the streams' share over 2,000 viewers for the push phase (without the
    # 2 s of the last events), the pollers' share over --poll-viewers for the poll phase.
    push_per_viewer_s = push_viewers / (result["streams_open"] * (push_len - 2))
    poll_per_viewer_s = poll_viewers / (args.poll_viewers * poll_len)
    figures = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "setup": {
            "viewers": args.viewers,
            "tables": args.tables,
            "writers": args.writers,
            "deals_per_second": args.writers,
            "phase_seconds": args.seconds,
            "poll_interval": args.poll_interval,
            "poll_viewers": args.poll_viewers,
            "database": "postgresql",
            "server_processes": 1,
            "cores": os.cpu_count(),
            "load_average_at_marks": {k: v["load"] for k, v in marks.items()},
        },
        "delivery": result["push"],
        "streams_open": result["streams_open"],
        "memory": {
            "per_idle_stream_kib": round(idle_rss / max(1, result["streams_open"]) / 1024, 1),
            "server_rss_before_mib": round(marks["writers-end"]["rss"] / 2**20, 1),
            "server_rss_with_streams_mib": round(marks["streams-idle"]["rss"] / 2**20, 1),
        },
        "cpu_seconds": {
            "writers_alone": round(writers_alone, 2),
            "writers_and_streams": round(push, 2),
            "writers_and_pollers": round(poll, 2),
            "streams_share": round(push_viewers, 2),
            "pollers_share": round(poll_viewers, 2),
            "polls_answered": answered,
            "polls_asked": round(asked),
            "pollers_kept_up": kept_up,
            "ms_per_viewer_second_push": round(push_per_viewer_s * 1000, 4),
            "ms_per_viewer_second_poll": round(poll_per_viewer_s * 1000, 4),
            "push_over_poll_per_viewer_second": round(push_per_viewer_s / poll_per_viewer_s, 3)
            if poll_per_viewer_s > 0
            else None,
            "ms_per_delivery_with_heartbeats": round(
                push_viewers / max(1, result["push"]["deliveries"]) * 1000, 3
            ),
            "ms_per_answered_poll": round(poll_viewers / max(1, answered) * 1000, 3),
            "idle_streams_cpu_per_second": round(
                (marks["push-start"]["cpu"] - marks["streams-idle"]["cpu"])
                / (marks["push-start"]["t"] - marks["streams-idle"]["t"]),
                3,
            ),
        },
        "poll": result["poll"],
        "writer_errors": result["writer_error_count"],
    }
    out = HERE / "results" / f"events-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    c = figures["cpu_seconds"]
    print(
        f"push / poll, server CPU per viewer-second: {c['push_over_poll_per_viewer_second']} (target <= 0.1); "
        f"pollers {'kept up' if kept_up else 'FELL BEHIND: the poll side is what the server managed'} "
        f"({answered} of {round(asked)} polls answered)"
    )
    print(f"written: {out.relative_to(REPO)}")


if __name__ == "__main__":
    main()
