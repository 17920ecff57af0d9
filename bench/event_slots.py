"""What one holder of event streams can take from a ``prefscore serve`` process (SQLite):

1. ``flood``: one share token opens streams (never reading them) until refused, or until
   ``--flood`` are open; then another owner's keyed stream and another share token's are
   tried. Figures: the streams the token holds, the server's RSS growth (VmRSS), the answers
   the others get, /health's worst latency meanwhile.
2. ``link``: ``--link-streams`` streams on one scorer link, all reading, while ``--deals``
   deals are posted one at a time (each waits until every stream has it). Figures: server
   CPU seconds per posted deal, /health latency (p50, max) meanwhile. The per-link and
   per-address caps are lifted for this phase (it measures the cost of a change, not the cap).

    .venv/bin/python -m bench.event_slots --tree /path/to/checkout   # the code measured

The server runs the checkout given (``PYTHONPATH``), with this interpreter; the load runs in
this process (asyncio, raw sockets). Rate limits are off: the slots are measured, not the
request budget. The figures are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DEAL_BODIES = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "contract", "declarer": 2, "contract": "6S", "defenders": {"0": "pass", "1": "pass"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, tree: Path, tmp: Path, extra: dict[str, str]):
        self.port = free_port()
        self.admin = "adm_" + secrets.token_hex(16)
        db = tmp / f"slots-{self.port}.db"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "PREFSCORE_DATABASE_URL": f"sqlite:///{db}",
            "PREFSCORE_ADMIN_KEY": self.admin,
            "PREFSCORE_RATE_LIMIT": "0",
            "PREFSCORE_ANONYMOUS_RATE_LIMIT": "0",
            "PREFSCORE_SHARE_RATE_LIMIT": "0",
            "PREFSCORE_LOG_LEVEL": "WARNING",
            **extra,
        }
        self.tree = tree
        self.log = open(tmp / f"slots-{self.port}.log", "wb")

    def start(self) -> "Server":
        code = "import os; from app.db.migrate import upgrade; upgrade(os.environ['PREFSCORE_DATABASE_URL'])"
        subprocess.run([sys.executable, "-c", code], env=self.env, cwd=self.tree, check=True)
        argv = [sys.executable, "-c", "from app.cli import main; main()", "serve", "--host", "127.0.0.1", "--port", str(self.port), "--no-upgrade"]
        self.proc = subprocess.Popen(argv, env=self.env, cwd=self.tree, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Authorization": f"Bearer {key or self.admin}", "Content-Type": "application/json"}
        c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        r = c.getresponse()
        data = r.read()
        if r.status >= 300:
            raise RuntimeError(f"{method} {path}: {r.status} {data[:200]!r}")
        return json.loads(data) if data else None

    def table(self, key: str | None = None) -> dict[str, Any]:
        return self.call("POST", "/v1/tables", {"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}, key)


async def open_stream(port: int, path: str, headers: str = "") -> tuple[int, asyncio.StreamReader | None, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n{headers}\r\n".encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return status, reader, writer


class HealthProbe:
    """/health every 100 ms on its own thread-free connection; latencies kept."""

    def __init__(self, port: int):
        self.port = port
        self.latencies: list[float] = []
        self._stop = asyncio.Event()

    async def run(self) -> None:
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.write(b"GET /health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
                await writer.drain()
                await reader.read()
                writer.close()
            except OSError:
                pass
            self.latencies.append(time.monotonic() - start)
            await asyncio.sleep(0.1)

    def stop(self) -> dict[str, float]:
        self._stop.set()
        got = self.latencies or [float("nan")]
        return {"health_p50_ms": round(statistics.median(got) * 1000, 1), "health_max_ms": round(max(got) * 1000, 1), "health_samples": len(got)}


async def flood(server: Server, limit: int, seconds: float) -> dict[str, Any]:
    mine, theirs = server.table(), server.table()
    bob = server.call("POST", "/v1/keys", {"owner": "bob"})["key"]
    bobs = server.table(bob)
    rss0 = rss_mib(server.pid)
    probe = HealthProbe(server.port)
    probing = asyncio.create_task(probe.run())
    held: list[asyncio.StreamWriter] = []
    refused: dict[int, int] = {}
    deadline = time.monotonic() + seconds
    path = f"/v1/shared/{mine['share_token']}/events"
    while len(held) < limit and time.monotonic() < deadline:
        batch = await asyncio.gather(*(open_stream(server.port, path) for _ in range(min(200, limit - len(held)))), return_exceptions=True)
        stop = False
        for item in batch:
            if isinstance(item, BaseException):
                refused[-1] = refused.get(-1, 0) + 1
                stop = True
                continue
            status, _reader, writer = item
            if status == 200:
                held.append(writer)  # never read again
            else:
                refused[status] = refused.get(status, 0) + 1
                writer.close()
                stop = True
        if stop:
            break
    await asyncio.sleep(1)
    rss1 = rss_mib(server.pid)
    others = {}
    for name, p, h in (
        ("other_owner_keyed", f"/v1/tables/{bobs['id']}/events", f"Authorization: Bearer {bob}\r\n"),
        ("other_share_token", f"/v1/shared/{theirs['share_token']}/events", ""),
    ):
        status, _r, w = await open_stream(server.port, p, h)
        others[name] = status
        w.close()
    health = probe.stop()
    await probing
    for w in held:
        w.close()
    return {"streams_held_by_one_token": len(held), "refused": refused, "rss_growth_mib": round(rss1 - rss0, 1), **others, **health}


async def link_cost(server: Server, streams: int, deals: int) -> dict[str, Any]:
    table = server.table()
    link = server.call("POST", f"/v1/tables/{table['id']}/scorer-link")
    got = [0] * streams
    wanted = asyncio.Event()
    target = 0

    async def read(i: int, reader: asyncio.StreamReader) -> None:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                got[i] = int(line[4:].strip())
                if target and min(got) >= target:
                    wanted.set()

    opened = []
    for start in range(0, streams, 100):
        batch = await asyncio.gather(*(open_stream(server.port, f"/v1/score/{link['token']}/events?after=0") for _ in range(min(100, streams - start))))
        opened += batch
    statuses = [s for s, _r, _w in opened]
    assert statuses.count(200) == streams, {s: statuses.count(s) for s in set(statuses)}
    readers = [asyncio.create_task(read(i, r)) for i, (_s, r, _w) in enumerate(opened)]
    await asyncio.sleep(1)
    probe = HealthProbe(server.port)
    probing = asyncio.create_task(probe.run())
    await asyncio.sleep(0.5)
    cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
    for n in range(1, deals + 1):
        wanted.clear()
        target = n
        await asyncio.to_thread(server.call, "POST", f"/v1/tables/{table['id']}/deals", DEAL_BODIES[(n - 1) % 3])
        await asyncio.wait_for(wanted.wait(), 120)
    cpu1, t1 = cpu_seconds(server.pid), time.monotonic()
    health = probe.stop()
    await probing
    for t in readers:
        t.cancel()
    for _s, _r, w in opened:
        w.close()
    return {
        "link_streams": streams,
        "deals": deals,
        "cpu_ms_per_deal": round((cpu1 - cpu0) / deals * 1000, 1),
        "wall_ms_per_deal": round((t1 - t0) / deals * 1000, 1),
        **health,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1], help="the checkout whose app is served")
    p.add_argument("--flood", type=int, default=10_100, help="at most this many streams on one share token")
    p.add_argument("--flood-seconds", type=float, default=180)
    p.add_argument("--link-streams", type=int, default=1000)
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--phase", choices=["flood", "link", "both"], default="both")
    args = p.parse_args()
    out: dict[str, Any] = {"tree": str(args.tree), "loadavg_start": Path("/proc/loadavg").read_text().split()[:3]}
    with tempfile.TemporaryDirectory() as tmp:
        if args.phase in ("flood", "both"):
            server = Server(args.tree, Path(tmp), {}).start()
            try:
                out["flood"] = asyncio.run(flood(server, args.flood, args.flood_seconds))
            finally:
                server.stop()
        if args.phase in ("link", "both"):
            lifted = {"PREFSCORE_EVENTS_MAX_PER_SCORER_LINK": "0", "PREFSCORE_EVENTS_MAX_PER_ADDRESS": "0"}
            server = Server(args.tree, Path(tmp), lifted).start()
            try:
                out["link"] = asyncio.run(link_cost(server, args.link_streams, args.deals))
            finally:
                server.stop()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
