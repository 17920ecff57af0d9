"""The HTTP protocol layer: the server's cost per request and what one hostile connection
costs, side by side for uvicorn's httptools and h11 protocols and the service's own.

    python -m bench.protocol                          # cost per request, about 1 minute
    python -m bench.protocol --base /work/old-checkout  # also that checkout's protocol
    python -m bench.protocol --attacks                 # the hostile connections instead

Every server is the app of ``prefscore serve`` (``app.main:create_app``, one process, a
fresh SQLite database) under uvicorn with another ``http=`` protocol: ``httptools`` (stock),
``h11`` (stock), ``bounded`` (``app.kit.http_limits:BoundedHttpTools`` of this checkout) and,
with ``--base DIR``, ``base`` (the same class from the checkout DIR). The servers run as
separate processes on 127.0.0.1 and are measured one after the other in each round.

Cost: the server process's CPU time (user + system, from /proc) per request, for keep-alive
``GET /health`` on 4 connections (one request at a time each), for one connection sending
its requests 8 at a time (pipelined) before reading the 8 answers, and for keep-alive
``GET /nothing`` (a 404 without the database: more of the cost is the protocol's); the median
of the rounds, and the ratio to stock httptools. The machine's other work inflates every figure alike.

Attacks (one run each; RSS from /proc/<pid>/status, /health timed meanwhile on another
connection): ``pipeline`` 5 MiB of tiny pipelined requests on one connection never read;
``header`` one header line that never ends (up to 64 MiB or 12 s; "accepted" includes what
the kernels buffered); ``slow-behind`` 200 connections each sending one whole request, the
start of a second one, then a byte every half second: how many are still open after the
header timeout (2 s here) + 3 s; ``urllib-413`` a 1 MB body written by urllib a moment after
its headers, before reading (the 413, or a broken pipe).
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
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
ADMIN = "pk_bench_" + secrets.token_urlsafe(16)
PROTOCOLS = {"httptools": "httptools", "h11": "h11", "bounded": "app.kit.http_limits:BoundedHttpTools"}
GET = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, name: str, http: str, source: Path, workdir: Path, env: dict[str, str] | None = None):
        self.name, self.port = name, free_port()
        db = workdir / f"{name}.sqlite"
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith("PREFSCORE_") and k != "DATABASE_URL"
        }
        self.env.update(
            {"DATABASE_URL": f"sqlite:///{db}", "PREFSCORE_ADMIN_KEY": ADMIN, "PYTHONPATH": str(source)}
        )
        self.env.update(env or {})
        subprocess.run(
            [
                PYTHON,
                "-c",
                "from app.kit.db import migrate; import os; migrate.upgrade(os.environ['DATABASE_URL'])",
            ],
            env=self.env,
            cwd=workdir,
            check=True,
        )
        code = (
            "import uvicorn; uvicorn.run('app.main:create_app', factory=True, host='127.0.0.1', "
            f"port={self.port}, http={http!r}, log_level='warning', access_log=False)"
        )
        self.log = open(workdir / f"{name}.log", "wb")
        self.proc = subprocess.Popen(
            [PYTHON, "-c", code], env=self.env, cwd=workdir, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if health(self.port, 2) is not None:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not start: {(workdir / f'{name}.log').read_text()[-2000:]}")

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss(self, key: str = "VmRSS") -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


def health(port: int, timeout: float) -> float | None:
    """Seconds for one GET /health on a new connection; None when it did not answer 200."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(GET)
        data = b""
        while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + _length(data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return time.monotonic() - started if data.startswith(b"HTTP/1.1 200") else None


def _length(data: bytes) -> int:
    head = data.split(b"\r\n\r\n", 1)[0].lower()
    for line in head.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


def _read_answers(s: socket.socket, buf: bytes, n: int) -> bytes:
    """Read ``n`` whole answers (Content-Length framed) from ``s``; return what is left over."""
    for _ in range(n):
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                total = end + 4 + _length(buf[: end + 4])
                if len(buf) >= total:
                    buf = buf[total:]
                    break
            chunk = s.recv(262144)
            if not chunk:
                raise ConnectionError("closed")
            buf += chunk
    return buf


def _client(port: int, requests: int, batch: int, request: bytes, status: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        for i in range(requests // batch):
            s.sendall(request * batch)
            if i == 0:
                while len(buf) < 12:
                    buf += s.recv(65536)
                assert buf.startswith(b"HTTP/1.1 " + status), buf[:100]
            buf = _read_answers(s, buf, batch)


def cost(server: Server, connections: int, requests: int, batch: int, path: str = "/health") -> float:
    """Server CPU microseconds per request."""
    request = b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % path.encode()
    status = b"200" if path == "/health" else b"404"
    threads = [
        threading.Thread(target=_client, args=(server.port, requests, batch, request, status))
        for _ in range(connections)
    ]
    before = server.cpu()
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return (server.cpu() - before) * 1e6 / (connections * (requests // batch) * batch)


# --------------------------------------------------------------------------- attacks


class Probe(threading.Thread):
    """/health every 0.2 s on a new connection while an attack runs: the worst latency."""

    def __init__(self, server: Server):
        super().__init__(daemon=True)
        self.server, self.stop, self.worst, self.failed, self.peak = server, threading.Event(), 0.0, 0, 0.0

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, self.server.rss())
            try:
                took = health(self.server.port, 60)
                if took is None:
                    self.failed += 1
                else:
                    self.worst = max(self.worst, took)
            except OSError:
                self.failed += 1
            self.stop.wait(0.2)


def attack_pipeline(server: Server) -> str:
    total = 5 * 1024 * 1024
    data = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" * (total // 34)
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.settimeout(0.5)
        deadline = time.monotonic() + 20
        while sent < len(data) and time.monotonic() < deadline:
            try:
                sent += s.send(data[sent : sent + 262144])
            except TimeoutError:
                continue
            except OSError:
                break
        time.sleep(3)  # let the server work on what it read
        return f"sent {sent / 2**20:.1f} MiB"


def attack_header(server: Server) -> str:
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Endless: ")
        piece = b"a" * 65536
        deadline = time.monotonic() + 12
        try:
            while sent < 64 * 2**20 and time.monotonic() < deadline:
                s.sendall(piece)
                sent += len(piece)
        except OSError:
            pass
        s.settimeout(2)
        try:
            answer = s.recv(100).split(b"\r\n", 1)[0].decode()
        except OSError as exc:
            answer = type(exc).__name__
    return f"accepted {sent / 2**20:.2f} MiB of one header line, answer {answer or 'none (closed)'}"


def attack_slow_behind(server: Server, header_timeout: float) -> str:
    socks = []
    try:
        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            s.sendall(GET + b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            socks.append(s)
        for _ in range(int((header_timeout + 3) / 0.5)):  # a byte every half second each
            time.sleep(0.5)
            for s in socks:
                try:
                    s.send(b"a")
                except OSError:
                    pass
        still = 0
        for s in socks:
            s.settimeout(0.2)
            try:
                for _ in range(100):
                    if not s.recv(65536):
                        break  # closed by the server
                else:
                    still += 1
            except TimeoutError:
                still += 1
            except OSError:
                pass
        return f"{still} of 200 still open after {header_timeout + 3:g} s"
    finally:
        for s in socks:
            s.close()


def attack_urllib_413(server: Server) -> str:
    def body():  # the headers go first; the body a moment later, once the server has answered
        time.sleep(0.3)
        for _ in range(100):
            yield b"x" * 10_000

    results = []
    for _ in range(3):
        req = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/v1/tables",
            data=body(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Content-Length": "1000000",
                "Authorization": f"Bearer {ADMIN}",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                results.append(str(r.status))
        except urllib.error.HTTPError as exc:
            results.append(str(exc.code))
        except (urllib.error.URLError, OSError) as exc:
            results.append(type(getattr(exc, "reason", exc)).__name__)
    return "urllib got " + ", ".join(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="a checkout whose BoundedHttpTools to measure as 'base'")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=2000, help="per connection and round")
    parser.add_argument("--only", help="comma-separated protocol names")
    parser.add_argument("--attacks", action="store_true")
    parser.add_argument("--attack", help="comma-separated attack names (with --attacks)")
    args = parser.parse_args()
    protocols = [(name, http, ROOT) for name, http in PROTOCOLS.items()]
    if args.base:
        protocols.insert(2, ("base", "app.kit.http_limits:BoundedHttpTools", args.base.resolve()))
    if args.only:
        keep = args.only.split(",")
        protocols = [p for p in protocols if p[0] in keep]
    with tempfile.TemporaryDirectory(prefix="bench-protocol-") as tmp:
        if args.attacks:
            run_attacks(protocols, Path(tmp), args.attack.split(",") if args.attack else None)
        else:
            run_cost(protocols, Path(tmp), args.rounds, args.requests)


def run_cost(protocols: list[tuple[str, str, Path]], workdir: Path, rounds: int, requests: int) -> None:
    servers = [Server(name, http, source, workdir) for name, http, source in protocols]
    cases = {
        "keep-alive GET /health, 4 connections": (4, requests, 1, "/health"),
        "pipelined by 8, 1 connection": (1, requests * 2, 8, "/health"),
        "keep-alive GET /nothing (404, no database), 4 connections": (4, requests, 1, "/nothing"),
    }
    results: dict[tuple[str, str], list[float]] = {}
    try:
        for server in servers:  # warm-up
            cost(server, 1, 200, 1)
        for _ in range(rounds):
            for case, (connections, n, batch, path) in cases.items():
                for server in servers:
                    results.setdefault((case, server.name), []).append(
                        cost(server, connections, n, batch, path)
                    )
    finally:
        for server in servers:
            server.stop()
    print(
        f"server CPU per request, µs (median of {rounds} rounds; ratio to stock httptools); load {os.getloadavg()[0]:.1f}"
    )
    names = [s.name for s in servers]
    print(f"| case | {' | '.join(names)} |")
    print(f"|---|{'---|' * len(names)}")
    for case in cases:
        ref = statistics.median(results[(case, names[0])])
        cells = []
        for name in names:
            m = statistics.median(results[(case, name)])
            cells.append(f"{m:.0f} ({m / ref:.2f})")
        print(f"| {case} | {' | '.join(cells)} |")


def run_attacks(protocols: list[tuple[str, str, Path]], workdir: Path, only: list[str] | None) -> None:
    env = {"PREFSCORE_HEADER_TIMEOUT": "2"}
    attacks = {
        "pipeline": attack_pipeline,
        "header": attack_header,
        "slow-behind": lambda server: attack_slow_behind(server, 2),
        "urllib-413": attack_urllib_413,
    }
    print(
        "| attack | protocol | result | server CPU s | RSS MiB before -> peak | worst /health s | /health failed |"
    )
    print("|---|---|---|---|---|---|---|")
    for attack, run in attacks.items():
        if only and attack not in only:
            continue
        for name, http, source in protocols:
            server = Server(f"{name}-{attack}", http, source, workdir, env)
            try:
                time.sleep(0.5)
                rss, cpu = server.rss(), server.cpu()
                probe = Probe(server)
                probe.start()
                try:
                    result = run(server)
                finally:
                    probe.stop.set()
                    probe.join(90)
                print(
                    f"| {attack} | {name} | {result} | {server.cpu() - cpu:.2f} | {rss:.0f} -> {max(probe.peak, server.rss()):.0f} "
                    f"| {probe.worst:.2f} | {probe.failed} |",
                    flush=True,
                )
            finally:
                server.stop()


if __name__ == "__main__":
    main()
