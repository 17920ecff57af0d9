"""Reusable pieces of the hardening tests and of the soak (bench/soak.py): real server
processes, a cuttable TCP proxy in front of PostgreSQL, writer clients that retry with the
same Idempotency-Key, and the checks that nothing was lost, doubled or half-written.

Everything talks to 127.0.0.1 only and every loop is bounded.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx

from tests.databases import TEST_DB_ENV, fresh_database, is_postgres_run  # noqa: F401  (re-exported to the tests and bench/soak.py)

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
PROBLEM = "application/problem+json"


# --------------------------------------------------------------------------- databases


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_all(s: socket.socket, timeout: float) -> bytes:
    """What the server sends on ``s`` until it closes the connection, resets it, or
    ``timeout`` seconds pass."""
    s.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return data


# --------------------------------------------------------------------------- servers


class Server:
    """``prefscore serve`` in a subprocess (its own process group), logs to a file."""

    def __init__(
        self,
        database_url: str,
        workdir: Path,
        admin_key: str,
        *,
        port: int | None = None,
        env: dict[str, str] | None = None,
        upgrade: bool = True,
        name: str = "server",
    ):
        self.database_url = database_url
        self.workdir = Path(workdir)
        self.admin_key = admin_key
        self.port = port or free_port()
        self.extra_env = dict(env or {})
        self.upgrade = upgrade
        self.name = name
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = self.workdir / f"{name}-{self.port}.log"
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, wait: bool = True, timeout: float = 40.0) -> Server:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("PREFSCORE_") and k not in ("DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR")
        }
        env.update(
            {
                "DATABASE_URL": self.database_url,
                "PREFSCORE_ADMIN_KEY": self.admin_key,
                "PYTHONPATH": str(REPO),
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.extra_env)
        args = [
            PYTHON,
            "-c",
            "from app.cli.main import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        if not self.upgrade:
            args.append("--no-upgrade")
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            args, cwd=self.workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.starts += 1
        if wait:
            self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 40.0, status: tuple[int, ...] = (200,)) -> None:
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.logs()[-4000:]}")
            try:
                r = httpx.get(self.url + "/health", timeout=2)
                if r.status_code in status:
                    return
                last = r.status_code
            except httpx.HTTPError as exc:
                last = exc
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not ready after {timeout}s (last: {last!r}):\n{self.logs()[-4000:]}")

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL, no goodbye."""
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(10)

    def stop(self, timeout: float = 20.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait(10)
        return self.proc.returncode

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def logs(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""


# --------------------------------------------------------------------------- TCP proxy


class TcpProxy:
    """A tiny TCP forwarder to ``target`` that can be cut (every connection closed, new ones
    refused) and restored: the database "goes away" without touching the shared server."""

    def __init__(self, target: tuple[str, int], port: int | None = None):
        self.target = target
        self.port = port or free_port()
        self._lock = threading.Lock()
        self._socks: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connections = 0

    def start(self) -> TcpProxy:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.2)
        self._listener = listener
        self._stop.clear()
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()
        return self

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            self.connections += 1
            with self._lock:
                self._socks.update((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.close()
                except OSError:
                    pass
            with self._lock:
                self._socks.discard(a)
                self._socks.discard(b)

    def cut(self) -> None:
        """Close the listener and every open connection: the database is gone."""
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._lock:
            socks = list(self._socks)
            self._socks.clear()
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(5)

    def restore(self) -> None:
        self.start()

    def close(self) -> None:
        self.cut()


# --------------------------------------------------------------------------- deals


def deal_menu(players: int = 3) -> list[dict[str, Any]]:
    """Deal bodies that are valid in any state of a ``sochi`` table that has no all-pass
    streak and is not finished: so concurrent clients can post them in any order."""
    menu: list[dict[str, Any]] = []
    for d in range(players):
        a, b = [str(x) for x in range(players) if x != d]
        s = str(d)
        menu += [
            {"type": "contract", "declarer": d, "contract": "6S", "defenders": {a: "pass", b: "pass"}},
            {
                "type": "contract",
                "declarer": d,
                "contract": "7H",
                "defenders": {a: "whist", b: "pass"},
                "tricks": {s: 7, a: 2, b: 1},
            },
            {
                "type": "contract",
                "declarer": d,
                "contract": "7D",
                "defenders": {a: "whist", b: "pass"},
                "tricks": {s: 5, a: 4, b: 1},
            },
            {
                "type": "contract",
                "declarer": d,
                "contract": "8NT",
                "defenders": {a: "whist", b: "whist"},
                "tricks": {s: 7, a: 2, b: 1},
            },
            {
                "type": "contract",
                "declarer": d,
                "contract": "9C",
                "defenders": {a: "whist", b: "whist"},
                "tricks": {s: 8, a: 1, b: 1},
            },
            {"type": "misere", "declarer": d, "tricks": {s: 2}},
            {"type": "misere", "declarer": d, "tricks": {s: 0}},
        ]
    return menu


TABLE_BODY = {
    "players": ["Anna", "Boris", "Vera"],
    "convention": "sochi",
    "pool_target": 1000,
    "first_dealer": 0,
}


def create_table(base_url: str, key: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    r = httpx.post(base_url + "/v1/tables", json=body or TABLE_BODY, headers=auth(key), timeout=30)
    assert r.status_code == 201, r.text
    return r.json()


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --------------------------------------------------------------------------- writers


@dataclass
class Stats:
    attempts: int = 0
    acked: int = 0
    retries: int = 0
    timeouts_injected: int = 0
    drops_injected: int = 0
    connection_errors: int = 0
    status_5xx: int = 0
    replayed: int = 0
    unexpected: list[str] = field(default_factory=list)
    acks: dict[str, int] = field(default_factory=dict)  # idempotency key -> deal number
    keys: list[str] = field(default_factory=list)  # every key tried (each until acknowledged)

    def merge(self, other: Stats) -> None:
        for name in (
            "attempts",
            "acked",
            "retries",
            "timeouts_injected",
            "drops_injected",
            "connection_errors",
            "status_5xx",
            "replayed",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.unexpected += other.unexpected
        self.acks.update(other.acks)
        self.keys += other.keys


def drop_after_send(base_url: str, path: str, headers: dict[str, str], body: bytes) -> None:
    """Send a whole request, then close the socket without reading the answer."""
    host, port = base_url.removeprefix("http://").split(":")
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        f"Content-Length: {len(body)}",
        "Content-Type: application/json",
    ]
    head += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        # Linger off: the close is an RST, as when a phone loses its network.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


def endless_menu(players: int = 3) -> list[dict[str, Any]]:
    """The deals of ``deal_menu`` that write nothing to the pool, as the engine scores them (each
    declarer fails): a table fed only these never finishes, however many deals a fast machine
    posts in a test's time (the pool target is at most 1,000: about 860 of the whole menu's deals
    finished one)."""
    from app.rules import Deal, make_rules, replay

    rules = make_rules(TABLE_BODY["convention"], players=players, pool_target=TABLE_BODY["pool_target"])
    return [d for d in deal_menu(players) if not any(replay(rules, 0, [Deal.from_dict(d)]).state.pools)]


class Writer(threading.Thread):
    """Posts ``count`` deals to one table, each with its own Idempotency-Key (also written in
    the deal's note so that the stored log can be matched to the acknowledgements). A deal is
    retried with the same key and body until it is acknowledged: after an injected client
    timeout, a dropped socket, a refused connection (a killed server) or a 5xx."""

    def __init__(
        self,
        name: str,
        urls: list[str],
        table_id: str,
        key: str,
        count: int,
        *,
        seed: int = 0,
        timeout_rate: float = 0.0,
        drop_rate: float = 0.0,
        deadline: float | None = None,
        stop: threading.Event | None = None,
        menu: list[dict[str, Any]] | None = None,
    ):
        super().__init__(name=name, daemon=True)
        self.urls = list(urls)
        self.table_id = table_id
        self.key = key
        self.count = count
        self.rng = random.Random(seed)
        self.timeout_rate = timeout_rate
        self.drop_rate = drop_rate
        self.deadline = deadline or (time.monotonic() + 600)
        self.stop_event = stop or threading.Event()
        self.stats = Stats()
        self.menu = menu or deal_menu()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def _run(self) -> None:
        path = f"/v1/tables/{self.table_id}/deals"
        with httpx.Client(timeout=30) as client:
            for i in range(self.count):
                if self.stop_event.is_set() or time.monotonic() > self.deadline:
                    return
                idem = f"{self.name}-{i}-{secrets.token_hex(4)}"
                body = dict(self.rng.choice(self.menu), note=idem)
                raw = json.dumps(body).encode()
                headers = {**auth(self.key), "Idempotency-Key": idem}
                self.stats.keys.append(idem)
                tries = 0
                while True:
                    if time.monotonic() > self.deadline:
                        self.stats.unexpected.append(f"{idem}: gave up at the deadline")
                        return
                    url = self.urls[self.rng.randrange(len(self.urls))]
                    tries += 1
                    self.stats.attempts += 1
                    if tries > 1:
                        self.stats.retries += 1
                    roll = self.rng.random()
                    try:
                        if roll < self.drop_rate:
                            self.stats.drops_injected += 1
                            drop_after_send(url, path, headers, raw)
                            continue
                        timeout = (
                            self.rng.uniform(0.001, 0.03) if roll < self.drop_rate + self.timeout_rate else 30
                        )
                        if timeout < 30:
                            self.stats.timeouts_injected += 1
                        r = client.post(
                            url + path,
                            content=raw,
                            headers={**headers, "Content-Type": "application/json"},
                            timeout=timeout,
                        )
                    except httpx.TimeoutException:
                        continue
                    except (httpx.TransportError, OSError):
                        self.stats.connection_errors += 1
                        time.sleep(0.05)
                        continue
                    if r.status_code == 201:
                        number = r.json()["deal"]["number"]
                        if r.headers.get("Idempotent-Replayed") == "true":
                            self.stats.replayed += 1
                        previous = self.stats.acks.get(idem)
                        if previous is not None and previous != number:
                            self.stats.unexpected.append(f"{idem}: acknowledged as {previous} and {number}")
                        self.stats.acks[idem] = number
                        self.stats.acked += 1
                        break
                    if r.status_code >= 500:
                        self.stats.status_5xx += 1
                        time.sleep(0.05)
                        continue
                    self.stats.unexpected.append(f"{idem}: {r.status_code} {r.text[:300]}")
                    break


def run_writers(writers: list[Writer], timeout: float) -> Stats:
    for w in writers:
        w.start()
    for w in writers:
        w.join(timeout)
    total = Stats()
    for w in writers:
        assert not w.is_alive(), f"{w.name} still running after {timeout}s"
        if w.error is not None:
            raise w.error
        total.merge(w.stats)
    return total


# --------------------------------------------------------------------------- verification


def read_through(get: Callable[[], httpx.Response], tries: int = 20) -> httpx.Response:
    """A read as a client makes it through a failover: a 503 that says it may be retried
    (database-unavailable, with Retry-After: a pooled connection cut with its server) is asked
    again after a pause; anything else is the answer."""
    r = get()
    for _ in range(tries):
        if r.status_code != 503 or "Retry-After" not in r.headers:
            break
        time.sleep(min(float(r.headers["Retry-After"]), 1.0))
        r = get()
    return r


def fetch_deals(base_url: str, key: str, table_id: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    url: str | None = f"/v1/tables/{table_id}/deals?limit=200"
    with httpx.Client(base_url=base_url, headers=auth(key), timeout=30) as client:
        for _ in range(100_000):
            if url is None:
                break
            r = read_through(lambda: client.get(url))
            assert r.status_code == 200, r.text
            page = r.json()
            out += page["items"]
            url = page.get("next")
    return out


_DEAL_FIELDS = (
    "type",
    "declarer",
    "contract",
    "defenders",
    "tricks",
    "dealer",
    "choices",
    "talon",
    "over_misere",
    "note",
)


def _close(expected: Any, actual: Any, where: str, problems: list[str]) -> None:
    """Compare an exact engine value with its JSON rendering (amounts rounded to 0.01)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            problems.append(f"{where}: {actual!r} is not an object")
            return
        for k, v in expected.items():
            if str(k) not in actual and k not in actual:
                problems.append(f"{where}.{k}: missing")
                continue
            _close(v, actual.get(str(k), actual.get(k)), f"{where}.{k}", problems)
    elif isinstance(expected, (list, tuple)):
        if not isinstance(actual, list) or len(actual) != len(expected):
            problems.append(f"{where}: {actual!r} != {expected!r}")
            return
        for i, (e, a) in enumerate(zip(expected, actual)):
            _close(e, a, f"{where}[{i}]", problems)
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if expected != actual:
            problems.append(f"{where}: {actual!r} != {expected!r}")
    elif isinstance(expected, (int, Fraction)):
        if (
            isinstance(actual, bool)
            or not isinstance(actual, (int, float))
            or abs(Fraction(expected) - Fraction(actual)) > Fraction(1, 200)
        ):
            problems.append(f"{where}: {actual!r} != {expected!r}")
    elif expected != actual:
        problems.append(f"{where}: {actual!r} != {expected!r}")


@dataclass
class Verdict:
    stored: int
    problems: list[str]


def verify_table(base_url: str, key: str, table_id: str, stats: Stats | None = None) -> Verdict:
    """Every acknowledged deal stored exactly once, numbers 1..N without gaps, the stored
    entries and sheet equal to re-scoring the stored log with the engine."""
    from app.rules import Deal, make_rules, replay, sheet

    problems: list[str] = []
    answer = read_through(
        lambda: httpx.get(f"{base_url}/v1/tables/{table_id}", headers=auth(key), timeout=30)
    )
    assert answer.status_code == 200, (answer.status_code, answer.text)
    table = answer.json()
    deals = fetch_deals(base_url, key, table_id)
    numbers = [d["number"] for d in deals]
    if numbers != list(range(1, len(deals) + 1)):
        problems.append(f"deal numbers are not 1..{len(deals)}: {numbers[:20]}...")
    if table["deal_count"] != len(deals):
        problems.append(f"table says {table['deal_count']} deals, the log has {len(deals)}")
    notes = Counter(d.get("note") for d in deals)
    doubled = [n for n, c in notes.items() if c > 1 and n is not None]
    if doubled:
        problems.append(f"stored more than once: {doubled[:10]}")
    if stats is not None:
        by_note = {d.get("note"): d["number"] for d in deals}
        lost = [k for k in stats.acks if k not in by_note]
        if lost:
            problems.append(f"{len(lost)} acknowledged deals are not stored: {lost[:10]}")
        moved = [k for k, n in stats.acks.items() if k in by_note and by_note[k] != n]
        if moved:
            problems.append(f"acknowledged under another number: {moved[:10]}")
        strangers = [n for n in notes if n not in set(stats.keys)]
        if strangers:
            problems.append(f"stored deals nobody posted: {strangers[:10]}")
        problems += stats.unexpected[:20]
    players = table["players"]
    rules = make_rules(
        table["convention"], players=len(players), pool_target=table["pool_target"], options=table["options"]
    )
    first_dealer = table.get("first_dealer", 0)
    rep = replay(
        rules, first_dealer, [Deal.from_dict({k: d[k] for k in _DEAL_FIELDS if k in d}) for d in deals]
    )
    expected_sheet = sheet(rules, rep.state)
    actual_sheet = read_through(
        lambda: httpx.get(f"{base_url}/v1/tables/{table_id}/sheet", headers=auth(key), timeout=30)
    ).json()
    _close(expected_sheet, actual_sheet, "sheet", problems)
    for d, entries in zip(deals, rep.entries):
        _close([e.to_dict() for e in entries], d["entries"], f"deal {d['number']} entries", problems)
    return Verdict(stored=len(deals), problems=problems)


# --------------------------------------------------------------------------- problem+json


def sheets_after_each_deal(table: dict[str, Any], deals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine's sheet after 0, 1, ..., N of the stored ``deals`` of ``table`` (as GET
    /v1/tables/{id} answers it): of a table that was only posted to, the sheet at each
    revision."""
    from app.rules import Deal, TableState, apply_deal, make_rules, sheet

    rules = make_rules(
        table["convention"],
        players=len(table["players"]),
        pool_target=table["pool_target"],
        options=table["options"],
    )
    state = TableState.new(rules, table.get("first_dealer", 0))
    out = [sheet(rules, state)]
    for d in deals:
        state = apply_deal(rules, state, Deal.from_dict({k: d[k] for k in _DEAL_FIELDS if k in d})).state
        out.append(sheet(rules, state))
    return out


def sheet_problems(expected: dict[str, Any], actual: Any, where: str) -> list[str]:
    """Where the JSON sheet ``actual`` differs from the engine's ``expected`` (amounts to 0.01)."""
    problems: list[str] = []
    _close(expected, actual, where, problems)
    return problems


def is_problem(response: httpx.Response) -> bool:
    if not response.headers.get("content-type", "").startswith(PROBLEM):
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return (
        all(k in body for k in ("type", "title", "status", "detail"))
        and body["status"] == response.status_code
    )
