"""The attacks of a hostile client, replayed against a real server: what each one costs the
server (CPU seconds of its process group, resident memory, /health latency while it runs) and
what the attacker got (status codes, answer bytes, streams held, ...).

    .venv/bin/python -m bench.attacks                         # this checkout, SQLite, every scenario
    .venv/bin/python -m bench.attacks --checkout DIR          # the server runs DIR's code
    .venv/bin/python -m bench.attacks --db postgres --only 7,9,10
    .venv/bin/python -m bench.attacks --scale 0.25            # smaller attacks, a quick look

Each scenario gets its own ``prefscore serve`` (of ``--checkout``) on 127.0.0.1 with a fresh
SQLite file or a fresh PostgreSQL database (created and dropped), its set-up (keys, tables, a
2,000-deal log written straight into the database) outside the measured window, then the
attack inside it. The window samples, every 50 ms, the resident memory of every process of
the server's process group (/proc/<pid>/status VmRSS; VmHWM at the end), reads their CPU
(/proc/<pid>/stat utime+stime, and the reaped children's) before and after, and probes
``GET /health`` every 100 ms on a connection of its own. Every scenario reports; none asserts:
the same run describes the code before and after a fix. A scenario that outlives its time
limit is reported as hung and its server killed. Results: a markdown table on stdout and
``bench/results/attacks-<time>-<commit>[-postgres].json``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # every connection of this benchmark goes here, and nowhere else
PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432"
CLK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
ALLPASS = {"type": "allpass", "tricks": {"0": 3, "1": 3, "2": 4}}
PLAYERS = ["Anna", "Boris", "Vera"]


# --------------------------------------------------------------------------- the server


def process_group(pgid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2 :].split()
        if int(rest[2]) == pgid:
            pids.append(int(name))
    return pids


def group_cpu(pgid: int) -> float:
    """CPU seconds of every process of the group (user + system, with reaped children)."""
    total = 0
    for pid in process_group(pgid):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2 :].split()
        total += int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14])
    return total / CLK


def group_memory(pgid: int) -> tuple[float, float]:
    """(sum of VmRSS, largest VmHWM) over the group, in MiB."""
    rss = hwm = 0
    for pid in process_group(pgid):
        try:
            with open(f"/proc/{pid}/status") as f:
                text = f.read()
        except OSError:
            continue
        m = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
        h = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
        rss += int(m.group(1)) if m else 0
        hwm = max(hwm, int(h.group(1)) if h else 0)
    return rss / 1024, hwm / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Database:
    """A fresh SQLite file or PostgreSQL database for one server; dropped by ``drop``."""

    def __init__(self, kind: str, workdir: Path):
        self.kind = kind
        if kind == "sqlite":
            self.url = f"sqlite:///{workdir / ('attack-' + secrets.token_hex(4) + '.db')}"
            self.name = None
            return
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool

        self.name = "prefscore_attack_" + secrets.token_hex(6)
        admin = create_engine(PG_BASE + "/postgres", isolation_level="AUTOCOMMIT", poolclass=NullPool)
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self.name}"'))
        admin.dispose()
        self.url = f"{PG_BASE}/{self.name}"

    def drop(self) -> None:
        if self.name is None:
            return
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool

        admin = create_engine(PG_BASE + "/postgres", isolation_level="AUTOCOMMIT", poolclass=NullPool)
        try:
            with admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
        finally:
            admin.dispose()


def checkout_python(checkout: Path) -> str:
    own = checkout / ".venv" / "bin" / "python"
    return str(own) if own.exists() else sys.executable


class Server:
    """``prefscore serve`` of ``checkout`` in its own process group; its log in ``workdir``."""

    def __init__(self, checkout: Path, db: Database, workdir: Path, env: dict[str, str]):
        self.checkout = checkout
        self.db = db
        self.port = free_port()
        self.admin = "pk_attack_admin_" + secrets.token_urlsafe(12)
        self.log_path = workdir / f"server-{self.port}.log"
        self.extra = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.app_file: str | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("PREFSCORE_") and k not in ("DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR")
        }
        env.update(
            DATABASE_URL=self.db.url,
            PREFSCORE_ADMIN_KEY=self.admin,
            PREFSCORE_LOG_LEVEL="WARNING",
            PYTHONPATH=str(self.checkout),
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",  # nothing written into the checkout
        )
        env.update(self.extra)
        return env

    def start(self, timeout: float = 60) -> None:
        code = (
            f"import sys; sys.path.insert(0, {str(self.checkout)!r}); import app; "
            "print('prefscore-app-file:', app.__file__, flush=True); "
            "from app.cli.main import main; main()"
        )
        args = [checkout_python(self.checkout), "-c", code, "serve", "--host", HOST, "--port", str(self.port)]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                args,
                cwd=self.checkout,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.logs()[-3000:]}")
            try:
                if request(self.port, "GET", "/health", timeout=2)[0] == 200:
                    m = re.search(r"prefscore-app-file: (\S+)", self.logs())
                    self.app_file = m.group(1) if m else None
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start in {timeout} s:\n{self.logs()[-3000:]}")

    @property
    def pgid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group: any child left behind
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass

    def logs(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""


# --------------------------------------------------------------------------- HTTP by hand


def connect(port: int, timeout: float = 10) -> socket.socket:
    return socket.create_connection((HOST, port), timeout=timeout)


def head_bytes(
    method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None, host: str = HOST
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    for k, v in (headers or {}).items():
        lines.append(f"{k}: {v}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def read_head(
    sock: socket.socket, deadline: float, limit: int = 65536
) -> tuple[int | None, dict[str, str], bytes]:
    """The status and headers of an answer (None if the connection ended first), and what
    came after the head."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0 or len(buf) > limit:
            return None, {}, buf
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            return None, {}, buf
        if not chunk:
            return None, {}, buf
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split()[1])
    except (IndexError, ValueError):
        return None, {}, buf
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return status, headers, rest


def read_body(
    sock: socket.socket, headers: dict[str, str], rest: bytes, deadline: float, keep: int = 64 << 20
) -> tuple[int, bytes, bool]:
    """(bytes of the body, the first ``keep`` of them, complete?)."""
    total = len(rest)
    kept = rest[:keep]

    def more() -> bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        return sock.recv(1 << 20)

    try:
        if "content-length" in headers:
            want = int(headers["content-length"])
            while total < want:
                chunk = more()
                if not chunk:
                    return total, kept, False
                total += len(chunk)
                if len(kept) < keep:
                    kept += chunk[: keep - len(kept)]
            return want, kept[:want], True
        if headers.get("transfer-encoding", "").lower() == "chunked":
            raw = rest
            while not raw.endswith(b"0\r\n\r\n"):
                chunk = more()
                if not chunk:
                    return len(raw), raw[:keep], False
                raw += chunk if len(raw) < keep else b""
            return len(raw), raw[:keep], True  # framing included: a close enough count
        while True:
            chunk = more()
            if not chunk:
                return total, kept, True
            total += len(chunk)
            if len(kept) < keep:
                kept += chunk[: keep - len(kept)]
    except (TimeoutError, OSError):
        return total, kept, False


def request(
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    timeout: float = 60,
    host: str = HOST,
) -> tuple[int | None, dict[str, str], bytes, dict[str, Any]]:
    """One request on a new connection: the whole body is sent (a refusal while sending is
    noted, then the answer is read all the same). Returns status, headers, body, notes."""
    notes: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    start = time.perf_counter()
    with connect(port, timeout) as sock:
        try:
            sock.sendall(head_bytes(method, path, headers, body, host) + (body or b""))
        except OSError as exc:
            notes["send_error"] = type(exc).__name__
        status, hdrs, rest = read_head(sock, deadline)
        data = b""
        if status is not None and method != "HEAD" and status not in (204, 304):
            n, data, complete = read_body(sock, hdrs, rest, deadline)
            notes["body_bytes"] = n
            if not complete:
                notes["body_incomplete"] = True
    notes["seconds"] = round(time.perf_counter() - start, 4)
    return status, hdrs, data, notes


def jrequest(
    port: int, method: str, path: str, key: str | None = None, payload: Any = None, timeout: float = 60
) -> tuple[int | None, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    body = None
    if payload is not None:
        body = json.dumps(payload).encode()
        headers["Content-Type"] = "application/json"
    status, _h, data, _n = request(port, method, path, headers, body, timeout)
    try:
        return status, json.loads(data) if data else None
    except ValueError:
        return status, None


# --------------------------------------------------------------------------- the measured window


class Window:
    """CPU, memory and /health latency of the server between ``start`` and ``stop``."""

    def __init__(self, server: Server):
        self.server = server
        self.stop_event = threading.Event()
        self.rss_peak = 0.0
        self.latencies: list[float] = []
        self.probe_status: Counter[str] = Counter()
        self.inflight: float | None = None
        self.conn: http.client.HTTPConnection | None = None

    def start(self) -> Window:
        self.cpu0 = group_cpu(self.server.pgid)
        self.rss0, _ = group_memory(self.server.pgid)
        self.rss_peak = self.rss0
        self.t0 = time.monotonic()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.prober = threading.Thread(target=self._probe, daemon=True)
        self.sampler.start()
        self.prober.start()
        return self

    def cpu(self) -> float:
        return group_cpu(self.server.pgid)

    def _sample(self) -> None:
        while not self.stop_event.wait(0.05):
            rss, _ = group_memory(self.server.pgid)
            self.rss_peak = max(self.rss_peak, rss)

    def _probe(self) -> None:
        for _ in range(100_000):
            if self.stop_event.is_set():
                return
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.server.port, timeout=60)
            start = time.monotonic()
            self.inflight = start
            try:
                self.conn.request("GET", "/health")
                r = self.conn.getresponse()
                r.read()
                self.probe_status[str(r.status)] += 1
                if r.getheader("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
            except (OSError, http.client.HTTPException) as exc:
                if self.stop_event.is_set():
                    return
                self.probe_status[type(exc).__name__] += 1
                try:
                    self.conn.close()
                except Exception:  # noqa: BLE001
                    pass
                self.conn = None
            self.inflight = None
            self.latencies.append(time.monotonic() - start)
            self.stop_event.wait(0.1)

    def stop(self) -> dict[str, Any]:
        cpu = group_cpu(self.server.pgid) - self.cpu0
        rss_end, hwm = group_memory(self.server.pgid)
        self.stop_event.set()
        inflight = self.inflight
        lat = list(self.latencies)
        if inflight is not None:  # a probe still waiting: its wait so far counts
            lat.append(time.monotonic() - inflight)
            self.probe_status["unanswered at the end"] += 1
        conn = self.conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.sampler.join(2)
        self.prober.join(5)
        return {
            "window_s": round(time.monotonic() - self.t0, 2),
            "cpu_s": round(cpu, 2),
            "rss_before_mib": round(self.rss0, 1),
            "rss_peak_mib": round(max(self.rss_peak, rss_end), 1),
            "rss_end_mib": round(rss_end, 1),
            "vmhwm_mib": round(hwm, 1),
            "health_max_ms": round(max(lat) * 1000, 1) if lat else None,
            "health_p50_ms": round(statistics.median(lat) * 1000, 1) if lat else None,
            "health_probes": len(lat),
            "health_status": dict(self.probe_status),
        }


# --------------------------------------------------------------------------- set-up helpers


class Ctx:
    """What a scenario gets: the server, the sizes, the window (for CPU splits) and ``out``,
    the outcome it fills as it goes (so that a hung scenario still reports what it saw)."""

    def __init__(self, server: Server, sizes: dict[str, Any], checkout: Path):
        self.server = server
        self.port = server.port
        self.sizes = sizes
        self.checkout = checkout
        self.out: dict[str, Any] = {}
        self.window: Window | None = None
        self.deadline = 0.0
        self.state: dict[str, Any] = {}

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def cpu(self) -> float:
        return group_cpu(self.server.pgid)


def make_key(ctx: Ctx, owner: str | None = None) -> str:
    status, body = jrequest(
        ctx.port, "POST", "/v1/keys", ctx.server.admin, {"owner": owner or "attack-" + secrets.token_hex(4)}
    )
    if status != 201:
        raise RuntimeError(f"POST /v1/keys: {status} {body}")
    return body["key"]


def make_table(ctx: Ctx, key: str, players: list[str] | None = None) -> dict[str, Any]:
    status, body = jrequest(
        ctx.port,
        "POST",
        "/v1/tables",
        key,
        {"players": players or PLAYERS, "convention": "sochi", "pool_target": 1000},
    )
    if status != 201:
        raise RuntimeError(f"POST /v1/tables: {status} {body}")
    return body


def make_scorer_link(ctx: Ctx, key: str, table_id: str) -> str:
    status, body = jrequest(ctx.port, "POST", f"/v1/tables/{table_id}/scorer-link", key)
    if status != 201:
        raise RuntimeError(f"POST scorer-link: {status} {body}")
    return body["token"]


def fill(ctx: Ctx, table_id: str, deals: int, seed: int = 7, pool_target: int = 1_000_000) -> None:
    """Write ``deals`` generated deals into the table with the checkout's own code
    (bench/attacks_fill.py, as bench/bigtable.py fills its long table)."""
    args = [
        checkout_python(ctx.checkout),
        str(REPO / "bench" / "attacks_fill.py"),
        str(ctx.checkout),
        str(REPO),
        ctx.server.db.url,
        table_id,
        str(deals),
        str(seed),
        str(pool_target),
    ]
    done = subprocess.run(
        args, cwd=ctx.checkout, env=ctx.server.env(), timeout=600, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"filling the table failed: {done.stderr[-1500:]}")


def problem_summary(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"answer_bytes": len(data)}
    try:
        body = json.loads(data)
    except ValueError:
        return out
    if isinstance(body, dict):
        if isinstance(body.get("errors"), list):
            out["errors_listed"] = len(body["errors"])
        for k, v in body.items():
            if isinstance(v, int) and k != "status":
                out[f"field_{k}"] = v
        out["detail"] = str(body.get("detail", ""))[:160]
    return out


def stream_open(
    port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 10
) -> tuple[int | None, socket.socket | None, dict[str, str]]:
    """Open an event stream: the status once its head arrived; the socket is kept (unread)
    when the stream is open (200), closed otherwise."""
    sock = connect(port, timeout)
    try:
        sock.sendall(head_bytes("GET", path, {"Accept": "text/event-stream", **(headers or {})}))
        status, hdrs, _rest = read_head(sock, time.monotonic() + timeout)
    except OSError:
        sock.close()
        return None, None, {}
    if status == 200:
        return status, sock, hdrs
    sock.close()
    return status, None, hdrs


class Drainer(threading.Thread):
    """Reads and discards what the streams send; counts the occurrences of ``marker``."""

    def __init__(self, socks: list[socket.socket], marker: bytes = b"event: deal.posted"):
        super().__init__(daemon=True)
        self.sel = selectors.DefaultSelector()
        self.marker = marker
        self.count = 0
        self.bytes = 0
        self.closed = 0
        self.stop = threading.Event()
        self.tails: dict[int, bytes] = {}
        for s in socks:
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ)

    def run(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(0.1):
                s: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = s.recv(1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.sel.unregister(s)
                    self.closed += 1
                    continue
                self.bytes += len(data)
                joined = self.tails.get(s.fileno(), b"") + data
                self.count += joined.count(self.marker)
                self.tails[s.fileno()] = joined[-(len(self.marker) - 1) :]


def close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


# --------------------------------------------------------------------------- the scenarios


def s1(ctx: Ctx) -> None:
    """Eight 4 MiB integer arrays to POST /v1/tables/import with no key, then one with a made-up key."""
    count, size = ctx.sizes["s1_count"], ctx.sizes["s1_bytes"]
    body = b"[" + b"1," * (size // 2 - 2) + b"1]"
    ctx.out.update(requests=0, statuses={}, seconds=[])
    statuses: Counter[str] = Counter()
    for i in range(count + ctx.sizes["s1_wrong_key"]):
        if ctx.left() <= 0:
            break
        headers = {"Content-Type": "application/json"}
        who = "no key"
        if i >= count:  # then a made-up key
            headers["Authorization"] = "Bearer pk_" + secrets.token_urlsafe(24)
            who = "wrong key"
        status, _h, _d, notes = request(
            ctx.port, "POST", "/v1/tables/import", headers, body, timeout=min(120, ctx.left())
        )
        statuses[
            f"{who}: {status}" + (f" ({notes['send_error']} while sending)" if "send_error" in notes else "")
        ] += 1
        ctx.out["requests"] += 1
        ctx.out["seconds"].append(notes["seconds"])
        ctx.out["statuses"] = dict(statuses)
    ctx.out["summary"] = (
        f"{ctx.out['requests']}× {len(body) >> 10} KiB: {dict(statuses)}, max {max(ctx.out['seconds'], default=0):.2f} s each"
    )


def s2_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    table = make_table(ctx, key)
    status, _h, data, _n = request(
        ctx.port,
        "POST",
        f"/v1/tables/{table['id']}/deals",
        {"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        json.dumps(ALLPASS).encode(),
    )
    status, record = jrequest(ctx.port, "GET", f"/v1/tables/{table['id']}/export", key)
    if status != 200:
        raise RuntimeError(f"export: {status}")
    ctx.state.update(key=key, table=table, record=record, scorer=make_scorer_link(ctx, key, table["id"]))


def s2(ctx: Ctx) -> None:
    """A record whose deals are a long list of 1s (keyed); a 64 KiB deal with
    choices.writeoff [9, 9, ...] keyed and through a scorer link."""
    key, table = ctx.state["key"], ctx.state["table"]
    size = ctx.sizes["s2_list_bytes"]
    record = dict(ctx.state["record"], deals=["__DEALS__"])
    raw = json.dumps(record).encode()
    ones = b"1," * (size // 2 - 1) + b"1"
    body = raw.replace(b'"__DEALS__"', ones)
    start_cpu = ctx.cpu()
    status, _h, data, notes = request(
        ctx.port,
        "POST",
        "/v1/tables/import",
        {"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        body,
        timeout=min(600, ctx.left()),
    )
    ctx.out["import"] = {
        "items": size // 2,
        "body_bytes": len(body),
        "status": status,
        "seconds": notes["seconds"],
        "cpu_s": round(ctx.cpu() - start_cpu, 2),
        **problem_summary(data),
        **{k: v for k, v in notes.items() if k != "seconds"},
    }
    target = ctx.sizes["s2_deal_bytes"]
    deal = dict(ALLPASS, choices={"writeoff": ["__W__"]})
    shell = json.dumps(deal).encode()
    n = (target - len(shell)) // 2
    body = shell.replace(b'"__W__"', b",".join([b"9"] * n))
    for name, path, headers in (
        ("writeoff_keyed", f"/v1/tables/{table['id']}/deals", {"Authorization": f"Bearer {key}"}),
        ("writeoff_scorer_link", f"/v1/score/{ctx.state['scorer']}/deals", {}),
    ):
        if ctx.left() <= 0:
            break
        start_cpu = ctx.cpu()
        status, _h, data, notes = request(
            ctx.port,
            "POST",
            path,
            {**headers, "Content-Type": "application/json"},
            body,
            timeout=min(120, ctx.left()),
        )
        ctx.out[name] = {
            "items": n,
            "body_bytes": len(body),
            "status": status,
            "seconds": notes["seconds"],
            "cpu_s": round(ctx.cpu() - start_cpu, 2),
            **problem_summary(data),
        }
    parts = []
    for name in ("import", "writeoff_keyed", "writeoff_scorer_link"):
        r = ctx.out.get(name)
        if r:
            parts.append(
                f"{name}: {r['status']}, {r.get('errors_listed', '?')} errors, {r.get('answer_bytes', 0) / 1e6:.2f} MB, {r['cpu_s']} CPU-s"
            )
    ctx.out["summary"] = "; ".join(parts)


def s3(ctx: Ctx) -> None:
    """MiBs of tiny pipelined requests on one connection, never read."""
    size, hold = ctx.sizes["s3_bytes"], ctx.sizes["s3_hold_s"]
    one = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    chunk = one * (65536 // len(one))
    sent = 0
    stop_reason = "all sent"
    start = time.monotonic()
    sock = connect(ctx.port)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        while sent < size:
            left = min(ctx.left() - hold - 2, ctx.sizes["s3_send_limit_s"] - (time.monotonic() - start))
            if left <= 0:
                stop_reason = "send time limit (the server stopped reading)"
                break
            sock.settimeout(left)
            try:
                sent += sock.send(chunk)
            except TimeoutError:
                stop_reason = "send time limit (the server stopped reading)"
                break
            except OSError as exc:
                stop_reason = f"{type(exc).__name__} (the server closed it)"
                break
            ctx.out.update(bytes_sent=sent, requests_sent=sent // len(one))
        ctx.out.update(
            bytes_sent=sent,
            requests_sent=sent // len(one),
            send_seconds=round(time.monotonic() - start, 2),
            stop=stop_reason,
        )
        held = time.monotonic()
        last = ctx.cpu()
        while time.monotonic() - held < min(hold, ctx.left() - 1):  # until the server is idle again
            time.sleep(1)
            now = ctx.cpu()
            if now - last < 0.05 and time.monotonic() - held >= 2:
                break
            last = now
        ctx.out["held_s"] = round(time.monotonic() - held, 1)
    finally:
        sock.close()
    ctx.out["summary"] = (
        f"{sent / 2**20:.2f} MiB ({sent // len(one)} requests) in {ctx.out['send_seconds']} s: {stop_reason}; held unread {ctx.out['held_s']} s (until the server idled, at most {hold} s)"
    )


def s4(ctx: Ctx) -> None:
    """A header line that never ends, streamed for up to N seconds."""
    limit = ctx.sizes["s4_seconds"]
    sent = 0
    start = time.monotonic()
    reason = "time limit"
    sock = connect(ctx.port)
    try:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: ")
        chunk = b"a" * 65536
        while True:
            left = min(limit - (time.monotonic() - start), ctx.left() - 3)
            if left <= 0:
                break
            sock.settimeout(left)
            try:
                sent += sock.send(chunk)
            except TimeoutError:
                reason = (
                    "time limit" if time.monotonic() - start >= limit - 0.5 else "the server stopped reading"
                )
                break
            except OSError as exc:
                reason = f"{type(exc).__name__} (the server closed it)"
                break
            ctx.out["bytes_sent"] = sent
        elapsed = time.monotonic() - start
        status, _h, _rest = read_head(sock, time.monotonic() + 2)
    finally:
        sock.close()
    ctx.out.update(bytes_sent=sent, seconds=round(elapsed, 2), stop=reason, answer_status=status)
    ctx.out["summary"] = f"{sent / 2**20:.1f} MiB of one header in {elapsed:.1f} s: {reason}; answer {status}"


def s5(ctx: Ctx) -> None:
    """Slow connections, each a complete first request then a slow second one: how many
    are still open after T seconds."""
    n, total = ctx.sizes["s5_connections"], ctx.sizes["s5_seconds"]
    first = head_bytes("GET", "/health") + b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    socks: list[socket.socket] = []
    answered: set[int] = set()
    for _ in range(n):
        try:
            s = connect(ctx.port, 5)
            s.sendall(first)
            s.setblocking(False)
            socks.append(s)
        except OSError:
            break
    ctx.out["opened"] = len(socks)
    open_ = set(range(len(socks)))
    start = time.monotonic()
    marks: dict[str, int] = {}
    next_mark = 5.0
    try:
        while time.monotonic() - start < total and ctx.left() > 1:
            for i in list(open_):
                s = socks[i]
                try:
                    data = s.recv(65536)
                    if not data:
                        open_.discard(i)
                        continue
                    if b"HTTP/1.1" in data:
                        answered.add(i)
                except BlockingIOError:
                    pass
                except OSError:
                    open_.discard(i)
                    continue
                try:
                    s.send(b"a")
                except BlockingIOError:
                    pass
                except OSError:
                    open_.discard(i)
            elapsed = time.monotonic() - start
            if elapsed >= next_mark:
                marks[f"{next_mark:.0f}s"] = len(open_)
                next_mark += 5
            ctx.out.update(still_open=len(open_), open_at=dict(marks))
            time.sleep(1)
    finally:
        close_all(socks)
    ctx.out.update(
        still_open=len(open_),
        open_at=marks,
        first_answered=len(answered),
        seconds=round(time.monotonic() - start, 1),
    )
    ctx.out["summary"] = (
        f"{len(socks)} connections, first request answered on {len(answered)}; still open after {ctx.out['seconds']} s: {len(open_)} (by 5 s: {marks})"
    )


def s6_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    other = make_key(ctx)
    ctx.state.update(table=make_table(ctx, key), other=other, other_table=make_table(ctx, other))


def s6(ctx: Ctx) -> None:
    """One share token opens streams, never reading, until refused; then another owner."""
    most = ctx.sizes["s6_streams"]
    token = ctx.state["table"]["share_token"]
    socks: list[socket.socket] = []
    refused: Counter[str] = Counter()
    start = time.monotonic()
    try:
        for _ in range(most):
            if ctx.left() <= 5:
                break
            try:
                status, sock, _h = stream_open(
                    ctx.port, f"/v1/shared/{token}/events", timeout=min(10, ctx.left())
                )
            except OSError as exc:
                refused[type(exc).__name__] += 1
                break
            if sock is not None:
                socks.append(sock)
                ctx.out["held"] = len(socks)
                continue
            refused[str(status)] += 1
            break
        ctx.out.update(
            held=len(socks),
            first_refusal=dict(refused),
            seconds_to_refusal=round(time.monotonic() - start, 2),
        )
        status, sock, _h = stream_open(
            ctx.port,
            f"/v1/tables/{ctx.state['other_table']['id']}/events",
            {"Authorization": f"Bearer {ctx.state['other']}"},
        )
        ctx.out["other_owner_stream"] = status
        if sock is not None:
            sock.close()
        status, sock, _h = stream_open(
            ctx.port, f"/v1/shared/{ctx.state['other_table']['share_token']}/events"
        )
        ctx.out["other_share_stream"] = status
        if sock is not None:
            sock.close()
    finally:
        close_all(socks)
    ctx.out["summary"] = (
        f"one share token held {len(socks)} streams (tried up to {most}), then {dict(refused) or 'never refused'} "
        f"after {ctx.out['seconds_to_refusal']} s; another owner's keyed stream: {ctx.out.get('other_owner_stream')}, "
        f"share stream: {ctx.out.get('other_share_stream')}"
    )


def s7_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    table = make_table(ctx, key)
    ctx.state.update(key=key, table=table, scorer=make_scorer_link(ctx, key, table["id"]))


def _post_deals(ctx: Ctx, n: int) -> int:
    ok = 0
    path = f"/v1/tables/{ctx.state['table']['id']}/deals"
    conn = http.client.HTTPConnection(HOST, ctx.port, timeout=120)
    try:
        for _ in range(n):
            if ctx.left() <= 5:
                break
            conn.request(
                "POST",
                path,
                json.dumps(ALLPASS),
                {"Authorization": f"Bearer {ctx.state['key']}", "Content-Type": "application/json"},
            )
            r = conn.getresponse()
            r.read()
            ok += r.status == 201
    finally:
        conn.close()
    return ok


def s7(ctx: Ctx) -> None:
    """Streams on one scorer link (then on one share link), then deals posted: the server's
    CPU per posted deal, against the same posts with no stream open."""
    n, deals = ctx.sizes["s7_streams"], ctx.sizes["s7_deals"]
    cpu0 = ctx.cpu()
    posted = _post_deals(ctx, deals)
    ctx.out["no_streams"] = {
        "posted": posted,
        "cpu_ms_per_deal": round((ctx.cpu() - cpu0) * 1000 / max(posted, 1), 1),
    }
    for name, path in (
        ("scorer_link", f"/v1/score/{ctx.state['scorer']}/events"),
        ("share_link", f"/v1/shared/{ctx.state['table']['share_token']}/events"),
    ):
        socks: list[socket.socket] = []
        refused: Counter[str] = Counter()
        drainer: Drainer | None = None
        try:
            for _ in range(n):
                if ctx.left() <= 20:
                    break
                status, sock, _h = stream_open(ctx.port, path, timeout=min(10, ctx.left()))
                if sock is None:
                    refused[str(status)] += 1
                    if sum(refused.values()) >= 3:
                        break
                    continue
                socks.append(sock)
            drainer = Drainer(socks)
            drainer.start()
            time.sleep(1)
            cpu0 = ctx.cpu()
            t0 = time.monotonic()
            posted = _post_deals(ctx, deals)
            want = posted * len(socks)
            for _ in range(200):  # until every stream has every event, at most 20 s
                if drainer.count >= want or ctx.left() <= 3:
                    break
                time.sleep(0.1)
            cpu = ctx.cpu() - cpu0
            ctx.out[name] = {
                "streams": len(socks),
                "refused": dict(refused),
                "posted": posted,
                "events_delivered": drainer.count,
                "events_expected": want,
                "seconds": round(time.monotonic() - t0, 2),
                "cpu_ms_per_deal": round(cpu * 1000 / max(posted, 1), 1),
                "streams_ended_by_server": drainer.closed,
            }
        finally:
            if drainer is not None:
                drainer.stop.set()
                drainer.join(2)
            close_all(socks)
            time.sleep(0.5)
    parts = [f"no streams {ctx.out['no_streams']['cpu_ms_per_deal']} ms"]
    for name in ("scorer_link", "share_link"):
        r = ctx.out.get(name)
        if r:
            parts.append(
                f"{r['streams']} {name} streams {r['cpu_ms_per_deal']} ms ({r['events_delivered']}/{r['events_expected']} events{', refused ' + str(r['refused']) if r['refused'] else ''})"
            )
    ctx.out["summary"] = "CPU per posted deal: " + "; ".join(parts)


def s8_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    tables = [make_table(ctx, key) for _ in range(2)]
    for i, t in enumerate(tables):
        fill(ctx, t["id"], ctx.sizes["big_deals"], seed=7 + i)
    ctx.state.update(key=key, tables=tables)


def s8(ctx: Ctx) -> None:
    """Eight concurrent sheet.png of long tables, each a language and layout not drawn yet."""
    key = ctx.state["key"]
    combos = [
        (t["id"], lang, layout)
        for t in ctx.state["tables"]
        for lang in ("ru", "en")
        for layout in ("phone", "wide")
    ]
    combos = combos[: ctx.sizes["s8_requests"]]
    results: list[dict[str, Any]] = [{} for _ in combos]

    def one(i: int, table_id: str, lang: str, layout: str) -> None:
        try:
            status, _h, data, notes = request(
                ctx.port,
                "GET",
                f"/v1/tables/{table_id}/sheet.png?lang={lang}&layout={layout}",
                {"Authorization": f"Bearer {key}"},
                timeout=max(1, ctx.left() - 2),
            )
            results[i] = {
                "lang": lang,
                "layout": layout,
                "status": status,
                "bytes": len(data),
                "seconds": notes["seconds"],
            }
        except OSError as exc:
            results[i] = {"lang": lang, "layout": layout, "status": type(exc).__name__}

    threads = [threading.Thread(target=one, args=(i, *c), daemon=True) for i, c in enumerate(combos)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.1, ctx.left()))
    statuses = Counter(str(r.get("status", "unfinished")) for r in results)
    secs = [r["seconds"] for r in results if "seconds" in r]
    ctx.out.update(requests=results, statuses=dict(statuses), deals=ctx.sizes["big_deals"])
    ctx.out["summary"] = (
        f"{len(combos)} PNGs of {ctx.sizes['big_deals']}-deal tables at once: {dict(statuses)}, slowest {max(secs, default=0):.1f} s"
    )


def s9_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    table = make_table(ctx, key)
    fill(ctx, table["id"], ctx.sizes["big_deals"])
    ctx.state.update(key=key, table=table, scorer=make_scorer_link(ctx, key, table["id"]))


def s9(ctx: Ctx) -> None:
    """One deal of a long table (the first, and the last) listed keyed, through the share
    link, through the scorer link."""
    n = ctx.sizes["s9_requests"]
    tid = ctx.state["table"]["id"]
    last = ctx.sizes["big_deals"] - 1
    routes = []
    for where, after in (("first", 0), ("last", last)):
        routes += [
            (
                f"keyed_{where}",
                f"/v1/tables/{tid}/deals?after={after}&limit=1",
                {"Authorization": f"Bearer {ctx.state['key']}"},
            ),
            (
                f"share_link_{where}",
                f"/v1/shared/{ctx.state['table']['share_token']}/deals?after={after}&limit=1",
                {},
            ),
            (f"scorer_link_{where}", f"/v1/score/{ctx.state['scorer']}/deals?after={after}&limit=1", {}),
        ]
    for name, path, headers in routes:
        conn = http.client.HTTPConnection(HOST, ctx.port, timeout=60)
        times: list[float] = []
        statuses: Counter[str] = Counter()
        cpu0 = ctx.cpu()
        try:
            for _ in range(n):
                if ctx.left() <= 3:
                    break
                t0 = time.perf_counter()
                conn.request("GET", path, headers=headers)
                r = conn.getresponse()
                r.read()
                times.append(time.perf_counter() - t0)
                statuses[str(r.status)] += 1
        finally:
            conn.close()
        ctx.out[name] = {
            "requests": len(times),
            "statuses": dict(statuses),
            "p50_ms": round(statistics.median(times) * 1000, 1) if times else None,
            "cpu_ms_per_request": round((ctx.cpu() - cpu0) * 1000 / max(len(times), 1), 1),
        }
    ctx.out["deals"] = ctx.sizes["big_deals"]
    ctx.out["summary"] = "limit=1 of a {}-deal log, p50 / CPU per request: ".format(
        ctx.sizes["big_deals"]
    ) + "; ".join(
        f"{k} {v['p50_ms']} / {v['cpu_ms_per_request']} ms {v['statuses']}"
        for k, v in ctx.out.items()
        if isinstance(v, dict)
    )


def s10(ctx: Ctx) -> None:
    """With both anonymous limits at 10 a minute: made-up share tokens, scorer tokens and keys."""
    variants = (
        ("share_tokens", ctx.sizes["s10_share"], lambda: (f"/v1/shared/{secrets.token_urlsafe(16)}", {})),
        ("scorer_tokens", ctx.sizes["s10_other"], lambda: (f"/v1/score/{secrets.token_urlsafe(24)}", {})),
        (
            "keys",
            ctx.sizes["s10_other"],
            lambda: ("/v1/tables", {"Authorization": "Bearer pk_" + secrets.token_urlsafe(24)}),
        ),
    )
    for name, n, make in variants:
        statuses: Counter[str] = Counter()
        conn: http.client.HTTPConnection | None = None
        cpu0 = ctx.cpu()
        t0 = time.monotonic()
        done = 0
        for _ in range(n):
            if ctx.left() <= 3:
                break
            path, headers = make()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, ctx.port, timeout=30)
                conn.request("GET", path, headers=headers)
                r = conn.getresponse()
                r.read()
                statuses[str(r.status)] += 1
                if r.getheader("connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException) as exc:
                statuses[type(exc).__name__] += 1
                if conn is not None:
                    conn.close()
                conn = None
            done += 1
            ctx.out[name] = {"requests": done, "statuses": dict(statuses)}
        if conn is not None:
            conn.close()
        ctx.out[name] = {
            "requests": done,
            "statuses": dict(statuses),
            "seconds": round(time.monotonic() - t0, 2),
            "cpu_ms_per_request": round((ctx.cpu() - cpu0) * 1000 / max(done, 1), 2),
        }
    ctx.out["summary"] = "; ".join(
        f"{k}: {v['requests']} → {v['statuses']}, {v['cpu_ms_per_request']} ms CPU each"
        for k, v in ctx.out.items()
        if isinstance(v, dict)
    )


def s11_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    ctx.state.update(key=key, table=make_table(ctx, key))


def s11(ctx: Ctx) -> None:
    """A Last-Event-ID of 5,000 digits on the keyed and the share streams."""
    digits = "1" * 5000
    t = ctx.state["table"]
    for name, path, headers in (
        ("keyed", f"/v1/tables/{t['id']}/events", {"Authorization": f"Bearer {ctx.state['key']}"}),
        ("share_link", f"/v1/shared/{t['share_token']}/events", {}),
    ):
        status, sock, _h = stream_open(ctx.port, path, {**headers, "Last-Event-ID": digits})
        if sock is not None:
            sock.close()
        ctx.out[name] = status
    ctx.out["summary"] = (
        f"Last-Event-ID of 5,000 digits: keyed {ctx.out['keyed']}, share {ctx.out['share_link']}"
    )


def s12_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    status, body = jrequest(ctx.port, "POST", "/v1/players", key, {"name": "Anna"})
    if status != 201:
        raise RuntimeError(f"POST /v1/players: {status} {body}")
    ctx.state.update(key=key, player=body["id"])


def s12(ctx: Ctx) -> None:
    """Player stats with ?to=9999-12-31."""
    status, body = jrequest(
        ctx.port, "GET", f"/v1/players/{ctx.state['player']}/stats?to=9999-12-31", ctx.state["key"]
    )
    ctx.out.update(
        status=status, detail=str((body or {}).get("detail", ""))[:160] if isinstance(body, dict) else None
    )
    ctx.out["summary"] = f"?to=9999-12-31: {status}"


def s13_setup(ctx: Ctx) -> None:
    ctx.state["key"] = make_key(ctx)


def s13(ctx: Ctx) -> None:
    """GET /v1/tables/ with Host: evil.example."""
    for name, headers in (("anonymous", {}), ("keyed", {"Authorization": f"Bearer {ctx.state['key']}"})):
        status, hdrs, _d, _n = request(ctx.port, "GET", "/v1/tables/", headers, host="evil.example")
        ctx.out[name] = {"status": status, "location": hdrs.get("location")}
    ctx.out["summary"] = "; ".join(
        f"{k}: {v['status']} Location {v['location']!r}" for k, v in ctx.out.items()
    )


def s14_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    ctx.state.update(key=key, table=make_table(ctx, key, ["__CONFIG__", "Boris", "Vera"]))


def s14(ctx: Ctx) -> None:
    """A player named __CONFIG__: does the share page's title (or heading) show the token?"""
    token = ctx.state["table"]["share_token"]
    status, _h, data, _n = request(ctx.port, "GET", f"/shared/{token}")
    page = data.decode("utf-8", "replace")
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    h1 = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    ctx.out.update(
        status=status,
        title_has_token=bool(title and token in title.group(1)),
        heading_has_token=bool(h1 and token in h1.group(1)),
        title=(title.group(1)[:120] if title else None),
    )
    ctx.out["summary"] = (
        f"{status}; token in <title>: {ctx.out['title_has_token']}, in <h1>: {ctx.out['heading_has_token']}"
    )


def s16_setup(ctx: Ctx) -> None:
    status, body = jrequest(
        ctx.port, "POST", "/v1/tables", ctx.server.admin, {"players": PLAYERS, "convention": "sochi"}
    )
    if status != 201:
        raise RuntimeError(f"admin's table: {status} {body}")
    ctx.state["admin_table"] = body


def s16(ctx: Ctx) -> None:
    """A key made for owner "admin" reading the admin key's table; an owner's keys all
    revoked while its scorer link is used; the right-to-left override in a title and an
    external id."""
    admin = ctx.server.admin
    status, body = jrequest(ctx.port, "POST", "/v1/keys", admin, {"owner": "admin"})
    ctx.out["key_for_owner_admin"] = status
    if status == 201:
        read, _b = jrequest(ctx.port, "GET", f"/v1/tables/{ctx.state['admin_table']['id']}", body["key"])
        ctx.out["owner_admin_key_reads_admin_table"] = read
    owner = "revoked-" + secrets.token_hex(4)
    key = make_key(ctx, owner)
    table = make_table(ctx, key)
    scorer = make_scorer_link(ctx, key, table["id"])
    before, _b = jrequest(ctx.port, "GET", f"/v1/score/{scorer}", None)
    _s, keys = jrequest(ctx.port, "GET", "/v1/keys", admin)
    for k in (keys or {}).get("items", []):
        if k["owner"] == owner:
            jrequest(ctx.port, "DELETE", f"/v1/keys/{k['id']}", admin)
    after, _b = jrequest(ctx.port, "GET", f"/v1/score/{scorer}", None)
    ctx.out["scorer_link_before_revoke"] = before
    ctx.out["scorer_link_after_owner_keys_revoked"] = after
    other = make_key(ctx)
    t2 = make_table(ctx, other)
    status, _b = jrequest(
        ctx.port, "PATCH", f"/v1/tables/{t2['id']}", other, {"title": "Friday \u202egnp.exe"}
    )
    ctx.out["rtl_title"] = status
    status, _b = jrequest(
        ctx.port, "POST", "/v1/players", other, {"name": "Anna", "external_id": "ext\u202e1"}
    )
    ctx.out["rtl_external_id"] = status
    ctx.out["summary"] = (
        f"key for owner admin: {ctx.out['key_for_owner_admin']}, reads admin's table: {ctx.out.get('owner_admin_key_reads_admin_table', '-')}; "
        f"scorer link after every key revoked: {after} (before {before}); RTL title {ctx.out['rtl_title']}, RTL external id {ctx.out['rtl_external_id']}"
    )


def s17_setup(ctx: Ctx) -> None:
    ctx.state["key"] = make_key(ctx)


def s17(ctx: Ctx) -> None:
    """A body over the limit written whole before the answer is read (urllib; and by hand):
    1 MB, and 4 and 16 MB (on this machine's loopback 1 MB fits the socket buffers, so the
    broken pipe shows only with more), three tries each."""

    def body_of(size: int) -> bytes:
        return b'{"players": ["Anna", "Boris", "Vera"], "title": "' + b"a" * size + b'"}'

    for size in ctx.sizes["s17_bytes"]:
        body = body_of(size)
        seen: Counter[str] = Counter()
        for _ in range(3):
            if ctx.left() <= 5:
                break
            req = urllib.request.Request(
                ctx.server.url + "/v1/tables",
                data=body,
                method="POST",
                headers={"Authorization": f"Bearer {ctx.state['key']}", "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    seen[str(r.status)] += 1
            except urllib.error.HTTPError as exc:
                seen[str(exc.code)] += 1
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                seen[type(reason).__name__] += 1
        ctx.out[f"urllib_{size // 1_000_000}MB"] = dict(seen)
    body = body_of(4_000_000)
    for name, headers in (
        ("raw_keyed_4MB", {"Authorization": f"Bearer {ctx.state['key']}"}),
        ("raw_anonymous_4MB", {}),
    ):
        status, _h, _d, notes = request(
            ctx.port, "POST", "/v1/tables", {**headers, "Content-Type": "application/json"}, body, timeout=30
        )
        ctx.out[name] = {"status": status, **{k: v for k, v in notes.items() if k in ("send_error",)}}
    ctx.out["summary"] = (
        "urllib, 3 tries: "
        + ", ".join(f"{k[7:]} {v}" for k, v in ctx.out.items() if k.startswith("urllib_"))
        + (
            f"; by hand (answer read after a refused send) keyed {ctx.out['raw_keyed_4MB']}, anonymous {ctx.out['raw_anonymous_4MB']}"
        )
    )


def s18_setup(ctx: Ctx) -> None:
    key = make_key(ctx)
    table = make_table(ctx, key)
    # the longest record a client can have: pool target 1,000 (the most the service takes);
    # this log's game ends at deal 1,037
    fill(ctx, table["id"], ctx.sizes["s18_deals"], pool_target=1000)
    status, _h, record, _n = request(
        ctx.port, "GET", f"/v1/tables/{table['id']}/export", {"Authorization": f"Bearer {key}"}, None, 120
    )
    if status != 200:
        raise RuntimeError(f"export: {status}")
    other = make_key(ctx)
    ctx.state.update(key=key, record=record, other=other, other_table=make_table(ctx, other))


def s18(ctx: Ctx) -> None:
    """One key's heaviest requests at once: imports of a long record (a 1,000-deal table's),
    while another owner posts a deal every 50 ms: what the one key costs and how
    long the other owner waits."""
    n = ctx.sizes["s18_imports"]
    record, key = ctx.state["record"], ctx.state["key"]
    statuses: Counter[str] = Counter()
    waits: list[float] = []
    stop = threading.Event()

    def import_once() -> None:
        status, _h, _d, _n = request(
            ctx.port,
            "POST",
            "/v1/tables/import",
            {"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            record,
            max(5.0, ctx.left() - 5),
        )
        statuses[str(status)] += 1

    def other_owner() -> None:
        path = f"/v1/tables/{ctx.state['other_table']['id']}/deals"
        conn = http.client.HTTPConnection(HOST, ctx.port, timeout=120)
        try:
            while not stop.is_set() and ctx.left() > 5:
                t0 = time.perf_counter()
                conn.request(
                    "POST",
                    path,
                    json.dumps(ALLPASS),
                    {"Authorization": f"Bearer {ctx.state['other']}", "Content-Type": "application/json"},
                )
                conn.getresponse().read()
                waits.append(time.perf_counter() - t0)
                stop.wait(0.05)
        finally:
            conn.close()

    poster = threading.Thread(target=other_owner, daemon=True)
    poster.start()
    threads = [threading.Thread(target=import_once, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, ctx.left() - 3))
    stop.set()
    poster.join(10)
    ctx.out.update(
        imports=n,
        record_bytes=len(record),
        statuses=dict(statuses),
        other_posts=len(waits),
        other_post_p50_ms=round(statistics.median(waits) * 1000, 1) if waits else None,
        other_post_max_ms=round(max(waits) * 1000, 1) if waits else None,
    )
    ctx.out["summary"] = (
        f"{n} imports of a {len(record) // 1024} KiB record at once: {dict(statuses)}; another owner's posts"
        f" p50 {ctx.out['other_post_p50_ms']} ms, max {ctx.out['other_post_max_ms']} ms"
    )


def s15(ctx: Ctx) -> None:
    ctx.out["summary"] = "skipped: a full disk is not made by this benchmark"


SCENARIOS: dict[int, dict[str, Any]] = {
    1: {"name": "import, no key, 4 MiB arrays", "run": s1, "limit": 300},
    2: {"name": "422 listing every item", "setup": s2_setup, "run": s2, "limit": 400},
    3: {"name": "pipelined requests never read", "run": s3, "limit": 180},
    4: {"name": "a header line that never ends", "run": s4, "limit": 90},
    5: {"name": "slow second request (slowloris)", "run": s5, "limit": 90},
    6: {
        "name": "one share token takes every stream",
        "setup": s6_setup,
        "run": s6,
        "limit": 180,
        "env": lambda sz: {"PREFSCORE_EVENTS_MAX_SUBSCRIPTIONS": str(sz["s6_limit"])},
    },
    7: {"name": "streams on one link, CPU per deal", "setup": s7_setup, "run": s7, "limit": 300},
    8: {"name": "8 concurrent PNGs of long tables", "setup": s8_setup, "run": s8, "limit": 400},
    9: {"name": "one deal of a long log", "setup": s9_setup, "run": s9, "limit": 300},
    10: {
        "name": "made-up tokens and keys, limits 10",
        "run": s10,
        "limit": 240,
        "env": lambda sz: {"PREFSCORE_ANONYMOUS_RATE_LIMIT": "10", "PREFSCORE_SHARE_RATE_LIMIT": "10"},
    },
    11: {"name": "Last-Event-ID of 5,000 digits", "setup": s11_setup, "run": s11, "limit": 60},
    12: {"name": "player stats to=9999-12-31", "setup": s12_setup, "run": s12, "limit": 60},
    13: {"name": "redirect with Host: evil.example", "setup": s13_setup, "run": s13, "limit": 60},
    14: {"name": "a player named __CONFIG__", "setup": s14_setup, "run": s14, "limit": 60},
    15: {"name": "full disk (skipped)", "run": s15, "limit": 5, "skip": True},
    16: {"name": "owner admin, revoked owner, RTL", "setup": s16_setup, "run": s16, "limit": 60},
    17: {"name": "1 MB body written before reading", "setup": s17_setup, "run": s17, "limit": 120},
    18: {"name": "one key's imports at once", "setup": s18_setup, "run": s18, "limit": 300},
}


def sizes_for(scale: float) -> dict[str, Any]:
    def sc(x: float, least: int = 1) -> int:
        return max(least, int(x * scale))

    return {
        "s1_count": 8,
        "s1_wrong_key": 1,
        "s1_bytes": sc((4 << 20) - 1024, 4096),  # just under the import's 4 MiB body limit
        "s2_list_bytes": sc(1 << 20, 1024),
        "s2_deal_bytes": min(64 << 10, sc(64 << 10, 1024)) - 16,
        "s3_bytes": sc(5 << 20, 65536),
        "s3_hold_s": 30,
        "s3_send_limit_s": 20,
        "s4_seconds": max(3, round(12 * min(scale, 1))),
        "s5_connections": sc(200, 10),
        "s5_seconds": 15,
        "s6_limit": sc(300, 20),
        "s6_streams": sc(300, 20) + 20,
        "s7_streams": sc(1000, 10),
        "s7_deals": 10,
        "big_deals": min(2000, sc(2000, 50)),
        "s8_requests": 8,
        "s9_requests": 20,
        "s10_share": sc(3000, 50),
        "s10_other": sc(500, 20),
        "s17_bytes": [1_000_000, 4_000_000, 16_000_000],
        "s18_imports": sc(32, 2),
        "s18_deals": min(1000, sc(1000, 50)),
    }


# --------------------------------------------------------------------------- running


def run_one(
    num: int,
    spec: dict[str, Any],
    checkout: Path,
    db_kind: str,
    sizes: dict[str, Any],
    workdir: Path,
    extra_env: dict[str, str] | None = None,
) -> dict[str, Any]:
    result: dict[str, Any] = {"scenario": num, "name": spec["name"], "status": "ok"}
    if spec.get("skip"):
        result["status"] = "skipped"
        result["outcome"] = {"summary": "skipped: a full disk is not made by this benchmark"}
        return result
    db = Database(db_kind, workdir)
    env = {**(spec["env"](sizes) if "env" in spec else {}), **(extra_env or {})}
    server = Server(checkout, db, workdir, env)
    ctx = Ctx(server, sizes, checkout)
    result["server_env"] = env
    try:
        server.start()
        result["app_file"] = server.app_file
        if "setup" in spec:
            spec["setup"](ctx)
        time.sleep(0.5)
        window = Window(server).start()
        ctx.window = window
        ctx.deadline = time.monotonic() + spec["limit"]
        error: list[str] = []

        def attack() -> None:
            try:
                spec["run"](ctx)
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                error.append(f"{type(exc).__name__}: {exc}")
                error.append(traceback.format_exc()[-1500:])

        thread = threading.Thread(target=attack, daemon=True)
        thread.start()
        thread.join(spec["limit"] + 5)
        if thread.is_alive():
            result["status"] = f"hung: still running after its {spec['limit']} s limit"
        elif error:
            result["status"] = "error: " + error[0][:300]
            result["traceback"] = error[1]
        time.sleep(0.3)
        result["measure"] = window.stop()
        result["server_alive_after"] = server.alive()
        if server.alive():
            try:
                result["health_after"] = request(server.port, "GET", "/health", timeout=10)[0]
            except OSError as exc:
                result["health_after"] = type(exc).__name__
        tracebacks = server.logs().count("Traceback")
        result["server_tracebacks"] = tracebacks
    except Exception as exc:  # noqa: BLE001
        result["status"] = f"error: {type(exc).__name__}: {str(exc)[:300]}"
    finally:
        result["outcome"] = dict(ctx.out)
        server.stop()
        try:
            db.drop()
        except Exception as exc:  # noqa: BLE001
            result["db_drop_error"] = str(exc)[:200]
    return result


def commit_of(checkout: Path) -> str:
    try:
        rev = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return (rev or "unknown") + ("-dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def fmt(v: Any) -> str:
    return "-" if v is None else str(v)


def table(results: list[dict[str, Any]]) -> str:
    rows = [
        "| # | scenario | run | wall s | CPU s | RSS before → peak MiB (HWM) | /health max / p50 ms (probes) | outcome |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        m = r.get("measure") or {}
        mem = (
            f"{fmt(m.get('rss_before_mib'))} → {fmt(m.get('rss_peak_mib'))} ({fmt(m.get('vmhwm_mib'))})"
            if m
            else "-"
        )
        health = (
            f"{fmt(m.get('health_max_ms'))} / {fmt(m.get('health_p50_ms'))} ({fmt(m.get('health_probes'))})"
            if m
            else "-"
        )
        summary = str((r.get("outcome") or {}).get("summary", "")).replace("|", "/")
        if r.get("server_alive_after") is False:
            summary += " **server died**"
        rows.append(
            f"| {r['scenario']} | {r['name']} | {r['status'][:60]} | {fmt(m.get('window_s'))} | {fmt(m.get('cpu_s'))} | {mem} | {health} | {summary} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--checkout", type=Path, default=REPO, help="whose code the server runs (default: this checkout)"
    )
    parser.add_argument(
        "--db",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help=f"a fresh SQLite file, or a fresh database on {PG_BASE}",
    )
    parser.add_argument("--only", default="", help="scenarios to run, comma-separated (default: all)")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply the attack sizes (default 1: about 5-10 minutes on the old code)",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting of every server (e.g. a cap lifted), repeatable",
    )
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results", help="where the JSON goes")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the servers are stopped on the way out
    checkout = args.checkout.resolve()
    chosen = [int(x) for x in args.only.split(",") if x.strip()] or sorted(SCENARIOS)
    sizes = sizes_for(args.scale)
    commit = commit_of(checkout)
    started = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    header = {
        "started": started,
        "checkout": str(checkout),
        "commit": commit,
        "database": args.db,
        "python": checkout_python(checkout),
        "scale": args.scale,
        "sizes": sizes,
        "cpus": os.cpu_count(),
        "loadavg_start": loadavg(),
        "note": "a shared, noisy machine: other work runs beside the server; CPU seconds are the server's own, wall times and /health latency move with the load",
    }
    print(f"# Attacks against {checkout} at {commit} ({args.db}), {started}")
    print(
        f"load average at the start {header['loadavg_start']} on {header['cpus']} CPUs (a shared, noisy machine)"
    )
    print("sizes: " + ", ".join(f"{k}={v}" for k, v in sizes.items()))
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="prefscore-attacks-") as tmp:
        workdir = Path(tmp)
        for num in chosen:
            spec = SCENARIOS[num]
            print(f"-- {num}: {spec['name']} ...", file=sys.stderr, flush=True)
            r = run_one(
                num, spec, checkout, args.db, sizes, workdir, dict(item.split("=", 1) for item in args.env)
            )
            if r.get("app_file") and "app_file" not in header:
                header["app_file"] = r["app_file"]
                print(f"the server's app: {r['app_file']}")
            print(f"   {r['status']}: {r.get('outcome', {}).get('summary', '')}", file=sys.stderr, flush=True)
            results.append(r)
    header["loadavg_end"] = loadavg()
    print(f"load average at the end {header['loadavg_end']}\n")
    print(table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.db == "sqlite" else "-postgres"
    path = args.out / f"attacks-{started}-{commit}{suffix}.json"
    path.write_text(json.dumps({**header, "results": results}, indent=1, ensure_ascii=False) + "\n")
    print(f"\nresults: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
