"""What requests nobody may make cost the server: a record import with no key, and made-up
share links, scorer links and keys past the anonymous limit.

    .venv/bin/python -m bench.anonymous [--repo PATH] [--imports 8] [--tokens 3000]

Starts ``prefscore serve`` from the checkout at ``--repo`` (default: this one) on 127.0.0.1
with a fresh SQLite database, then:

- ``import``: ``--imports`` POSTs in a row of a 4 MiB JSON array of integers to
  ``/v1/tables/import`` with no key; the server's CPU seconds, its RSS, and the worst
  ``/health`` latency seen by a poller (every 50 ms) meanwhile;
- ``tokens``: a second server with ``PREFSCORE_ANONYMOUS_RATE_LIMIT`` and
  ``PREFSCORE_SHARE_RATE_LIMIT`` at 10; ``--tokens`` GETs each of ``/v1/shared/{new token}``,
  ``/v1/score/{new link}`` and ``/v1/conventions`` with a new made-up key: the answers by
  status and the server's CPU per request.

Every loop is bounded; the machine it runs on may be busy (say so with the figures)."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of the process and its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Served:
    def __init__(self, repo: Path, workdir: Path, env: dict[str, str]):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environ = {k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"}
        environ.update({"DATABASE_URL": f"sqlite:///{workdir}/bench-{self.port}.db", "PYTHONPATH": str(repo), **env})
        self.log = open(workdir / f"server-{self.port}.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from app.cli import main; main()", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=workdir,
            env=environ,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.log.close()


def _poll_health(url: str, stop: threading.Event, worst: list[float]) -> None:
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            t = time.monotonic()
            try:
                client.get(url + "/health")
            except httpx.HTTPError:
                pass
            worst[0] = max(worst[0], time.monotonic() - t)
            stop.wait(0.05)


def bench_import(repo: Path, workdir: Path, imports: int) -> dict[str, float]:
    body = ("[" + ",".join(["1234567"] * 524_000) + "]").encode()  # 4 MiB less a little
    server = Served(repo, workdir, {})
    try:
        pid = server.proc.pid
        cpu0, worst, stop = _cpu(pid), [0.0], threading.Event()
        poller = threading.Thread(target=_poll_health, args=(server.url, stop, worst), daemon=True)
        poller.start()
        statuses: Counter[int] = Counter()
        t0 = time.monotonic()
        with httpx.Client(timeout=120) as client:
            for _ in range(imports):
                statuses[client.post(server.url + "/v1/tables/import", content=body, headers={"content-type": "application/json"}).status_code] += 1
        elapsed = time.monotonic() - t0
        stop.set()
        poller.join(130)
        return {
            "statuses": dict(statuses),
            "body_bytes": len(body),
            "wall_s": round(elapsed, 2),
            "server_cpu_s": round(_cpu(pid) - cpu0, 2),
            "rss_mib": round(_rss_mib(pid), 1),
            "worst_health_s": round(worst[0], 3),
        }
    finally:
        server.stop()


def bench_tokens(repo: Path, workdir: Path, n: int) -> dict[str, object]:
    server = Served(repo, workdir, {"PREFSCORE_ANONYMOUS_RATE_LIMIT": "10", "PREFSCORE_SHARE_RATE_LIMIT": "10"})
    out: dict[str, object] = {}
    try:
        pid = server.proc.pid
        kinds = {
            "share": lambda: (f"/v1/shared/{secrets.token_urlsafe(16)}", {}),
            "scorer": lambda: (f"/v1/score/sc_{secrets.token_urlsafe(32)[:43]}", {}),
            "key": lambda: ("/v1/conventions", {"Authorization": f"Bearer pk_{secrets.token_urlsafe(32)}"}),
        }
        with httpx.Client(timeout=30) as client:
            for kind, make in kinds.items():
                cpu0, statuses = _cpu(pid), Counter()
                for _ in range(n):
                    path, headers = make()
                    statuses[client.get(server.url + path, headers=headers).status_code] += 1
                out[kind] = {"statuses": dict(statuses), "server_cpu_ms_per_request": round((_cpu(pid) - cpu0) * 1000 / n, 3)}
        out["rss_mib"] = round(_rss_mib(pid), 1)
        return out
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=HERE)
    parser.add_argument("--imports", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-anonymous-") as tmp:
        result = {
            "repo": str(args.repo),
            "import": bench_import(args.repo.resolve(), Path(tmp), min(args.imports, 50)),
            "tokens": bench_tokens(args.repo.resolve(), Path(tmp), min(args.tokens, 100_000)),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
