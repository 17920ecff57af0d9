"""The highly available stack of deploy/ha/compose.yml brought up with podman-compose: etcd (one
member here; three in the documented layout), three PostgreSQL 15 nodes under Patroni 3.0 with
synchronous replication, HAProxy in front of them (writes to the leader, reads to the
replicas), PgBouncer, two API replicas and the load balancer, with the images built here.

Then:
- a point-in-time restore: a full pgBackRest backup, a deal, a moment, another deal; the
  archive restored to that moment holds the first deal and not the second;
- failovers under load: clients posting deals with Idempotency-Keys through the load
  balancer, at several tables and through scorer links, event streams open, a webhook
  receiver; the leader's container is killed (SIGKILL); writes resume within a measured
  bound; the old leader comes back as a replica (pg_rewind) with one leader only; a replica
  is killed under readers of the replicas' port, who see at most one retry. Nothing
  acknowledged is lost or doubled, a retried key gets its first answer, the streams resume
  from Last-Event-ID with no change missed, every deal's webhook arrives under one id.

PREFSCORE_HA_FAILOVERS (1 by default) sets how many leaders are killed in a run. Runs in the
PostgreSQL pass of .ci/run only, like tests/deploy/test_compose.py.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import psycopg
import pytest

from tests.hardening.harness import (
    Stats,
    auth,
    create_table,
    endless_menu,
    fetch_deals,
    free_port,
    is_postgres_run,
    read_through,
    sheets_after_each_deal,
    verify_table,
)
from tests.sse import ResumingReader

from . import podman as pm
from .test_compose import _stream_problems, _wait_until

pytestmark = pytest.mark.skipif(
    not is_postgres_run(), reason="the HA stack runs in the PostgreSQL pass (.ci/run runs tests twice)"
)

ADMIN = "pk_ha_admin_" + secrets.token_urlsafe(12)
COMPOSE_FILE = pm.REPO / "deploy" / "ha" / "compose.yml"
NODES = ("pg1", "pg2", "pg3")
FAILOVERS = int(os.environ.get("PREFSCORE_HA_FAILOVERS", "1"))
# Seconds from the leader's SIGKILL to the next acknowledged deal: ttl + loop_wait + a promotion
# is about 9 s; the new leader's first commits may wait a few seconds more for its synchronous
# standby (docs/deployment.md, "A failover, and how long it takes").
WRITE_RESUME_BOUND = 20.0

# The webhook receiver: answers 204 at once and prints each delivery as a line of JSON.
RECEIVER = r"""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
lock = threading.Lock()
class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        data = body.get("data", {})
        line = json.dumps({"id": self.headers.get("webhook-id"), "type": body.get("type"),
                           "table": data.get("table_id"), "deal": data.get("deal_number")})
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
ThreadingHTTPServer(("0.0.0.0", 8080), H).serve_forever()
"""


class HaCompose(pm.Compose):
    """A podman-compose project of deploy/ha/compose.yml."""

    def run(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        command = ["podman-compose", "-p", self.project, "-f", str(COMPOSE_FILE), *args]
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            cwd=COMPOSE_FILE.parent,
            env=self.environment,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
            )
        return result


def _up(compose: HaCompose, *services: str) -> None:
    """``up -d --no-deps`` the services; podman-compose 1.0 exits 0 even when one of the
    containers it runs could not be made (seen once under load), so what is missing is asked
    for again."""
    compose.run("up", "-d", "--no-deps", *services)
    for _ in range(2):
        missing = [
            x
            for x in services
            if pm.podman("container", "exists", compose.container(x), check=False).returncode != 0
        ]
        if not missing:
            return
        time.sleep(1)
        compose.run("up", "-d", "--no-deps", *missing)


class Ha:
    def __init__(self, compose: HaCompose, url: str, replica_port: int, images: dict[str, str]):
        self.compose = compose
        self.url = url
        self.replica_port = replica_port
        self.images = images
        self.hooks = f"{compose.project}_hooks"
        self.timings: dict[str, float] = {}

    def cluster(self) -> list[dict]:
        """Patroni's members (GET /cluster) as any running node sees them."""
        for node in NODES:
            c = self.compose.container(node)
            if not pm.inspect(c)["State"].get("Running"):
                continue
            r = pm.podman(
                "exec",
                c,
                "python3",
                "-c",
                "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8008/cluster', timeout=3).read().decode())",
                check=False,
                timeout=30,
            )
            if r.returncode == 0:
                return json.loads(r.stdout)["members"]
        return []

    def leader(self) -> str | None:
        leaders = [m["name"] for m in self.cluster() if m["role"] == "leader"]
        return leaders[0] if len(leaders) == 1 else None

    def wait_cluster(self, timeout: float = 120, timeline_above: int = 0) -> list[dict]:
        """Until one leader, a synchronous standby and a replica all run (on a timeline above
        ``timeline_above``)."""
        deadline = time.monotonic() + timeout
        members: list[dict] = []
        while time.monotonic() < deadline:
            members = self.cluster()
            roles = sorted(
                m["role"]
                for m in members
                if m["state"] in ("running", "streaming") and m.get("timeline", 0) > timeline_above
            )
            if len(members) == 3 and roles == ["leader", "replica", "sync_standby"]:
                return members
            time.sleep(1)
        raise RuntimeError(f"the cluster is not whole after {timeout}s: {members}\n" + self.node_logs())

    def psql(self, node: str, sql: str, database: str = "prefscore") -> str:
        return pm.podman(
            "exec",
            self.compose.container(node),
            "psql",
            "-h",
            "/var/run/postgresql",
            "-U",
            "postgres",
            "-d",
            database,
            "-Atc",
            sql,
            timeout=60,
        ).stdout.strip()

    def node_logs(self) -> str:
        out = []
        for node in NODES:
            lines = [
                ln
                for ln in self.compose.logs(node).splitlines()
                if not ln.startswith((" ", "Traceback", "ConnectionResetError"))
                and "Exception happened" not in ln
            ]
            out.append(f"--- {node}\n" + "\n".join(lines[-30:]))
        return "\n".join(out)

    def wait_lb(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < deadline:
            try:
                r = httpx.get(self.url + "/health", timeout=5)
                if r.status_code == 200:
                    return
                last = r.status_code
            except httpx.HTTPError as exc:
                last = exc
            time.sleep(0.3)
        raise RuntimeError(f"the load balancer did not answer /health: {last!r}")

    def deliveries(self) -> list[dict]:
        r = pm.podman("logs", self.hooks, check=False)
        return [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]


@pytest.fixture(scope="module")
def ha_stack(app_image: str, bases: dict[str, str]) -> Iterator[Ha]:
    began = time.monotonic()
    base = bases["PREFSCORE_BASE_IMAGE"]
    with ThreadPoolExecutor(3) as pool:
        patroni, pgbouncer, haproxy = pool.map(
            lambda c: pm.build(c[0], c[1], base),
            [
                (pm.REPO / "deploy" / "ha" / "postgres", "ha-postgres"),
                (pm.REPO / "deploy" / "pgbouncer", "pgbouncer"),
                (pm.REPO / "deploy" / "haproxy", "haproxy"),
            ],
        )
    built = time.monotonic()
    port, primary_port, replica_port = free_port(), free_port(), free_port()
    compose = HaCompose(
        f"prefscore-ha{secrets.token_hex(3)}",
        {
            "PREFSCORE_IMAGE": app_image,
            "PATRONI_IMAGE": patroni,
            "PGBOUNCER_IMAGE": pgbouncer,
            "HAPROXY_IMAGE": haproxy,
            "BASE_IMAGE": base,
            "PREFSCORE_ADMIN_KEY": ADMIN,
            "PREFSCORE_DB_PASSWORD": secrets.token_hex(8),
            "PATRONI_SUPERUSER_PASSWORD": secrets.token_hex(8),
            "PATRONI_REPLICATION_PASSWORD": secrets.token_hex(8),
            # One etcd member: the test kills PostgreSQL nodes, not etcd's.
            "ETCD_INITIAL_CLUSTER": "etcd1=http://etcd1:2380",
            "PATRONI_ETCD3_HOSTS": "etcd1:2379",
            # A killed node stays down until the test starts it again.
            "PG_RESTART": "no",
            "PREFSCORE_BIND": "127.0.0.1",
            "PREFSCORE_PORT": str(port),
            "PREFSCORE_DB_PRIMARY_PORT": str(primary_port),
            "PREFSCORE_DB_REPLICA_PORT": str(replica_port),
            # The receiver runs on the project's network (10.89/16 with netavark).
            "PREFSCORE_WEBHOOKS_ALLOWED_NETWORKS": "10.0.0.0/8",
            "PREFSCORE_WEBHOOKS_RETRY_SCHEDULE": "1,1,2,3,5,10",
        },
    )
    s = Ha(compose, f"http://127.0.0.1:{port}", replica_port, {"patroni": patroni, "app": app_image})
    services = ("lb", "api1", "api2", "pgbouncer", "migrate", "dbproxy", "pg1", "pg2", "pg3", "etcd1")
    try:
        _up(compose, "etcd1", "pg1", "pg2", "pg3", "dbproxy")
        s.wait_cluster()
        s.timings["cluster"] = time.monotonic() - built
        _up(compose, "migrate")
        code = pm.podman("wait", compose.container("migrate"), timeout=180).stdout.strip()
        assert code == "0", f"the migration exited with {code}:\n{compose.logs('migrate')[-3000:]}"
        pm.podman(
            "run",
            "-d",
            "--name",
            s.hooks,
            "--network",
            compose.network,
            "--network-alias",
            "hooks",
            app_image,
            "python",
            "-c",
            RECEIVER,
        )
        _up(compose, "pgbouncer", "api1", "api2", "lb")
        for service in ("api1", "api2"):
            pm.wait_healthy(compose.container(service), timeout=120)
        s.wait_lb()
        s.timings["build"] = built - began
        s.timings["up"] = time.monotonic() - built
        yield s
    finally:
        if sys.exc_info()[0] is not None:
            print(s.node_logs(), file=sys.stderr)
            for service in ("dbproxy", "pgbouncer", "api1", "api2"):
                print(f"--- {service}\n{compose.logs(service)[-2000:]}", file=sys.stderr)
        pm.podman(
            "rm",
            "--force",
            "--volumes",
            "--time",
            "1",
            s.hooks,
            *[compose.container(x) for x in services],
            check=False,
            timeout=180,
        )
        compose.run("down", "-v", "-t", "1", check=False)
        # The volumes of the services never started here (etcd2, etcd3), which `down` leaves.
        for volume in ("etcd1", "etcd2", "etcd3", "pg1", "pg2", "pg3", "pgbackrest"):
            pm.podman("volume", "rm", "--force", f"{compose.project}_{volume}", check=False)
        pm.podman("network", "rm", "--force", compose.network, check=False)
        print(
            f"\nHA stack: images {s.timings.get('build', 0):.0f}s, cluster {s.timings.get('cluster', 0):.0f}s, "
            f"up {s.timings.get('up', 0):.0f}s, whole module {time.monotonic() - began:.0f}s",
            file=sys.stderr,
        )


@pytest.fixture
def ha(ha_stack: Ha, request: pytest.FixtureRequest) -> Iterator[Ha]:
    """The stack as each test starts on it: the cluster whole and the load balancer serving
    (whatever the test before left settling has settled). A test that fails prints the logs
    of the nodes, HAProxy, PgBouncer, the API replicas and the load balancer."""
    ha_stack.wait_cluster()
    ha_stack.wait_lb()
    failed_before = request.session.testsfailed
    yield ha_stack
    if request.session.testsfailed > failed_before:
        print(ha_stack.node_logs(), file=sys.stderr)
        for service in ("dbproxy", "pgbouncer", "api1", "api2", "lb"):
            print(f"--- {service}\n{ha_stack.compose.logs(service)[-3000:]}", file=sys.stderr)


# --------------------------------------------------------------------------- point-in-time


def _post(url: str, table_id: str, note: str) -> dict:
    deal = {
        "type": "contract",
        "declarer": 0,
        "contract": "6S",
        "defenders": {"1": "pass", "2": "pass"},
        "note": note,
    }
    r = httpx.post(
        f"{url}/v1/tables/{table_id}/deals",
        json=deal,
        headers={**auth(ADMIN), "Idempotency-Key": note},
        timeout=30,
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_a_point_in_time_restore_finds_exactly_the_deals_before_it(ha: Ha):
    """A full backup, deal A, a moment T, deal B; pgBackRest restores the backup and replays
    the archived WAL up to T into a new data directory: the restored table has A, not B."""
    leader = ha.leader()
    assert leader is not None
    node = ha.compose.container(leader)
    began = time.monotonic()
    pm.podman("exec", node, "pgbackrest", "--stanza=prefscore", "--type=full", "backup", timeout=300)
    backed_up = time.monotonic()
    table = create_table(ha.url, ADMIN)
    _post(ha.url, table["id"], "pitr-A")
    time.sleep(1.0)
    target = datetime.now(UTC)
    time.sleep(1.0)
    _post(ha.url, table["id"], "pitr-B")
    # `check` switches to a new WAL segment and waits until it is archived: B is in the archive.
    pm.podman("exec", node, "pgbackrest", "--stanza=prefscore", "check", timeout=120)
    restore = (
        "set -e; pgbackrest --stanza=prefscore --type=time --target='{target}' --target-action=promote restore; "
        "pg_ctl -D /var/lib/postgresql/data/pgdata -w -t 120 -l /tmp/restore.log "
        "-o '-c archive_mode=off -c listen_addresses= -c unix_socket_directories=/tmp -c synchronous_standby_names=' start >/dev/null; "
        "until [ \"$(psql -h /tmp -U postgres -d prefscore -Atc 'select pg_is_in_recovery()')\" = f ]; do sleep 0.2; done; "
        "psql -h /tmp -U postgres -d prefscore -Atc \"select body->>'note' from deals where table_id = '{table}' order by number\""
    ).format(target=target.isoformat(sep=" "), table=table["id"])
    r = pm.podman(
        "run",
        "--rm",
        # The restore needs no network (the archive's volume in, a server on a socket): no
        # network is set up and torn down beside the stack's while it serves.
        "--network",
        "none",
        "-v",
        f"{ha.compose.project}_pgbackrest:/var/lib/pgbackrest",
        "--entrypoint",
        "sh",
        ha.images["patroni"],
        "-c",
        restore,
        check=False,
        timeout=300,
    )
    notes = r.stdout.split()
    print(
        f"\npoint-in-time restore: backup {backed_up - began:.1f}s, restore and query {time.monotonic() - backed_up:.1f}s; "
        f"restored to {target.isoformat()} between A and B: {notes}",
        file=sys.stderr,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert notes == ["pitr-A"]
    # The live table has both.
    assert [d["note"] for d in fetch_deals(ha.url, ADMIN, table["id"])] == ["pitr-A", "pitr-B"]


# --------------------------------------------------------------------------- failover


@dataclass
class Ack:
    sent: float
    done: float


@dataclass
class Timed(Stats):
    ack_times: list[Ack] = field(default_factory=list)
    status_503: int = 0
    retried_keys: dict[str, tuple[bytes, int]] = field(
        default_factory=dict
    )  # key -> (body, number) of deals that needed a retry


class DealWriter(threading.Thread):
    """Posts deals to one path (a table's, or a scorer link's) through the load balancer, each
    with its own Idempotency-Key (also the deal's note) and retried with the same key and body
    after a connection error, a timeout, a 5xx (a 503's Retry-After honoured, at most 1 s) or
    a 429, until it is acknowledged."""

    def __init__(
        self,
        name: str,
        url: str,
        path: str,
        headers: dict[str, str],
        table_id: str,
        *,
        seed: int,
        stop: threading.Event,
    ):
        super().__init__(name=name, daemon=True)
        self.url, self.path, self.headers, self.table_id = url, path, headers, table_id
        self.stop_event = stop
        self.stats = Timed()
        self.menu = endless_menu()  # writing until stopped: no table may finish
        self.rng = random.Random(seed)
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001
            self.error = exc

    def _run(self) -> None:
        deadline = time.monotonic() + 600
        with httpx.Client(timeout=20) as client:
            i = 0
            while not self.stop_event.is_set():
                idem = f"{self.name}-{i}-{secrets.token_hex(4)}"
                i += 1
                raw = json.dumps(dict(self.rng.choice(self.menu), note=idem)).encode()
                headers = {**self.headers, "Idempotency-Key": idem, "Content-Type": "application/json"}
                self.stats.keys.append(idem)
                tries = 0
                while True:
                    if time.monotonic() > deadline:
                        self.stats.unexpected.append(f"{idem}: gave up at the deadline")
                        return
                    tries += 1
                    self.stats.attempts += 1
                    if tries > 1:
                        self.stats.retries += 1
                    sent = time.monotonic()
                    try:
                        r = client.post(self.url + self.path, content=raw, headers=headers)
                    except (httpx.TransportError, OSError):
                        self.stats.connection_errors += 1
                        time.sleep(0.1)
                        continue
                    if r.status_code == 201:
                        number = r.json()["deal"]["number"]
                        if r.headers.get("Idempotent-Replayed") == "true":
                            self.stats.replayed += 1
                        self.stats.acks[idem] = number
                        self.stats.acked += 1
                        self.stats.ack_times.append(Ack(sent, time.monotonic()))
                        if tries > 1:
                            self.stats.retried_keys[idem] = (raw, number)
                        break
                    if r.status_code >= 500 or r.status_code == 429:
                        self.stats.status_5xx += r.status_code >= 500
                        self.stats.status_503 += r.status_code == 503
                        wait = r.headers.get("Retry-After", "")
                        time.sleep(min(1.0, float(wait)) if wait.isdigit() else 0.1)
                        continue
                    self.stats.unexpected.append(f"{idem}: {r.status_code} {r.text[:300]}")
                    break

    def replay_retried(self) -> list[str]:
        """Every deal that needed a retry, posted once more with its key and body: the same
        answer (its deal number), marked as replayed."""
        problems = []
        with httpx.Client(timeout=30) as client:
            for idem, (raw, number) in list(self.stats.retried_keys.items())[:100]:
                r = client.post(
                    self.url + self.path,
                    content=raw,
                    headers={**self.headers, "Idempotency-Key": idem, "Content-Type": "application/json"},
                )
                if (
                    r.status_code != 201
                    or r.json()["deal"]["number"] != number
                    or r.headers.get("Idempotent-Replayed") != "true"
                ):
                    problems.append(f"{idem}: {r.status_code} {r.text[:200]} (first answer: deal {number})")
        return problems


class ReplicaReader(threading.Thread):
    """Reads the deals' count from the replicas' port of HAProxy over one connection, again and
    again; a read that fails is retried on a new connection. Counts the tries of each read."""

    def __init__(self, name: str, port: int, password: str, stop: threading.Event):
        super().__init__(name=name, daemon=True)
        self.conninfo = f"host=127.0.0.1 port={port} dbname=prefscore user=prefscore password={password} connect_timeout=5"
        self.stop_event = stop
        self.reads = 0
        self.most_tries = 0
        self.failed: list[str] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        conn = None
        try:
            while not self.stop_event.is_set():
                for tries in range(1, 4):
                    try:
                        if conn is None:
                            conn = psycopg.connect(self.conninfo, autocommit=True)
                        conn.execute("SELECT count(*) FROM deals").fetchone()
                        self.reads += 1
                        self.most_tries = max(self.most_tries, tries)
                        break
                    except psycopg.Error as exc:
                        self.failed.append(str(exc)[:200])
                        if conn is not None:
                            conn.close()
                        conn = None
                time.sleep(0.05)
        except BaseException as exc:  # noqa: BLE001
            self.error = exc
        finally:
            if conn is not None:
                conn.close()


def _promotion(ha: Ha, node: str | None, since: str, killed_at: datetime) -> list[str]:
    """Patroni's steps on the new leader, in seconds after the kill: when it took the key, when
    PostgreSQL was promoted, when it named a synchronous standby."""
    if node is None:
        return []
    logs = pm.podman("logs", "--since", since, ha.compose.container(node), check=False)
    steps = []
    for line in (logs.stdout + logs.stderr).splitlines():
        if any(
            k in line
            for k in (
                "promoted self",
                "acquired session lock",
                "Assigning synchronous",
                "assigned to",
                "cleared rewind state",
                "received promote request",
                "selected new timeline",
            )
        ):
            try:
                at = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC)
            except ValueError:
                try:
                    at = datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)
                except ValueError:
                    continue
            steps.append(f"{(at - killed_at).total_seconds():.1f}s {line[24:110].strip()}")
    return steps[:8]


def _rewound(ha: Ha, node: str, since: str) -> str:
    """What Patroni said of the old leader's return: a pg_rewind run, or none needed."""
    logs = pm.podman("logs", "--since", since, ha.compose.container(node), check=False)
    text = logs.stdout + logs.stderr
    if "pg_rewind exit code=0" in text or "running pg_rewind from" in text:
        return "pg_rewind"
    if "Lucky us! Rewind is not needed" in text or "rewind is not needed" in text.lower():
        return "no rewind needed"
    return "joined"


def test_failovers_under_load_lose_nothing(ha: Ha):
    made = [create_table(ha.url, ADMIN) for _ in range(4)]
    tables = [t["id"] for t in made]
    links = []
    for t in tables[:2]:
        r = httpx.post(f"{ha.url}/v1/tables/{t}/scorer-link", headers=auth(ADMIN), timeout=30)
        assert r.status_code == 201, r.text
        links.append(r.json()["token"])
    r = httpx.post(
        f"{ha.url}/v1/webhooks",
        json={"url": "http://hooks:8080/", "types": ["deal.posted"], "tables": tables},
        headers=auth(ADMIN),
        timeout=30,
    )
    assert r.status_code == 201, r.text

    unsubscribe = threading.Event()
    base, key = ha.url, auth(ADMIN)
    subscribers = [
        ResumingReader(f"keyed{i}", f"{base}/v1/tables/{t['id']}/events", key, stop=unsubscribe)
        for i, t in enumerate(made)
    ]
    subscribers.append(
        ResumingReader("shared0", f"{base}/v1/shared/{made[0]['share_token']}/events", stop=unsubscribe)
    )
    subscribers.append(ResumingReader("owner", f"{base}/v1/events", key, stop=unsubscribe))
    for sub in subscribers:
        sub.start()
    _wait_until(
        "every table stream has its first state",
        lambda: all(s.events for s in subscribers if s.name != "owner"),
        subscribers=subscribers,
    )
    _wait_until(
        "the owner-wide stream is open",
        lambda: all(s.connections for s in subscribers),
        subscribers=subscribers,
    )

    stop = threading.Event()
    writers = [
        DealWriter(
            f"w{i}", ha.url, f"/v1/tables/{tables[i]}/deals", auth(ADMIN), tables[i], seed=i, stop=stop
        )
        for i in range(4)
    ]
    writers += [
        DealWriter(f"s{i}", ha.url, f"/v1/score/{links[i]}/deals", {}, tables[i], seed=10 + i, stop=stop)
        for i in range(2)
    ]
    password = ha.compose.environment["PREFSCORE_DB_PASSWORD"]
    readers = [ReplicaReader(f"r{i}", ha.replica_port, password, stop) for i in range(2)]
    for w in writers + readers:
        w.start()

    def acked() -> int:
        return sum(w.stats.acked for w in writers)

    began = time.monotonic()
    failovers: list[dict] = []
    replica_kill: dict = {}
    try:
        _wait_until("the writers write", lambda: acked() >= 30, timeout=60, subscribers=subscribers)
        _wait_until(
            "every stream has an event", lambda: all(s.events for s in subscribers), subscribers=subscribers
        )
        for n in range(FAILOVERS):
            members = ha.wait_cluster()
            timeline = max(m.get("timeline", 0) for m in members)
            old = next(m["name"] for m in members if m["role"] == "leader")
            before = acked()
            since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            # From before `podman kill` (the leader dies somewhere within it) to the first deal
            # acknowledged of those sent after it returned: an upper bound of the time no
            # write was acknowledged.
            sync = [m["name"] for m in members if m["role"] == "sync_standby"]
            killing, killing_at = time.monotonic(), datetime.now(UTC)
            pm.podman("kill", "--signal", "KILL", ha.compose.container(old), timeout=60)
            killed = time.monotonic()
            # Every stream opened again with Last-Event-ID while there is no leader.
            time.sleep(1)
            for sub in subscribers:
                sub.drop()

            def resumed() -> float | None:
                after = [a.done for w in writers for a in w.stats.ack_times if a.sent > killed]
                return min(after) - killing if after else None

            _wait_until(
                f"writes resume after killing {old}",
                lambda: resumed() is not None,
                timeout=60,
                subscribers=subscribers,
            )
            unavailable = resumed()
            _wait_until(f"a new leader in place of {old}", lambda: ha.leader() not in (None, old), timeout=60)
            new = ha.leader()
            time.sleep(2)  # the new leader under load, the old one down
            pm.podman("start", ha.compose.container(old), timeout=60)
            back = time.monotonic()
            members = ha.wait_cluster(timeout=120, timeline_above=timeline)
            role = next(m["role"] for m in members if m["name"] == old)
            failovers.append(
                {
                    "killed": old,
                    "sync standby": sync,
                    "new leader": new,
                    "new leader's log": _promotion(ha, new, since, killing_at),
                    "write unavailability": round(unavailable, 1),
                    "acked meanwhile": acked() - before,
                    "old leader back as": role,
                    "rejoin": _rewound(ha, old, since),
                    "rejoined in": round(time.monotonic() - back, 1),
                }
            )
            time.sleep(2)
        # A replica killed under the readers of the replicas' port, then started again.
        members = ha.wait_cluster()
        victim = next(m["name"] for m in members if m["role"] == "replica")
        reads = sum(r.reads for r in readers)
        pm.podman("kill", "--signal", "KILL", ha.compose.container(victim), timeout=60)
        killed = time.monotonic()
        _wait_until(
            "the replicas' port serves reads again",
            lambda: sum(r.reads for r in readers) > reads + 20,
            timeout=30,
            subscribers=subscribers,
        )
        time.sleep(2)
        pm.podman("start", ha.compose.container(victim), timeout=60)
        ha.wait_cluster(timeout=120)
        replica_kill = {
            "killed": victim,
            "reads served meanwhile": sum(r.reads for r in readers) - reads,
            "back in": round(time.monotonic() - killed, 1),
        }
        time.sleep(1)
    finally:
        stop.set()
        for w in writers + readers:
            w.join(60)
    load_time = time.monotonic() - began

    # Exactly one leader, every node's PostgreSQL agreeing: no split brain.
    members = ha.wait_cluster()
    primaries = [n for n in NODES if ha.psql(n, "select pg_is_in_recovery()", "postgres") == "f"]
    assert [m["name"] for m in members if m["role"] == "leader"] == primaries and len(primaries) == 1, (
        members,
        primaries,
    )

    for t in writers + readers:
        assert not t.is_alive(), f"{t.name} still running"
        if t.error is not None:
            raise t.error
    total = Timed()
    problems: list[str] = []
    stored = 0
    finals: dict[str, tuple[dict, str, list[dict]]] = {}
    for i, table_id in enumerate(tables):
        mine = Stats()
        for w in writers:
            if w.table_id == table_id:
                mine.merge(w.stats)
        total.merge(mine)
        verdict = verify_table(ha.url, ADMIN, table_id, mine)
        stored += verdict.stored
        problems += [f"table {i}: {p}" for p in verdict.problems]
        table = read_through(
            lambda: httpx.get(f"{ha.url}/v1/tables/{table_id}", headers=auth(ADMIN), timeout=30)
        ).json()
        etag = read_through(
            lambda: httpx.get(f"{ha.url}/v1/tables/{table_id}/sheet", headers=auth(ADMIN), timeout=30)
        ).headers["ETag"]
        finals[table_id] = (table, etag, sheets_after_each_deal(table, fetch_deals(ha.url, ADMIN, table_id)))
    replays = [p for w in writers for p in w.replay_retried()]
    retried = sum(len(w.stats.retried_keys) for w in writers)

    def watched(sub: ResumingReader) -> dict[str, tuple[dict, str, list[dict]]]:
        if sub.name.startswith(("keyed", "shared")):
            return {tables[int(sub.name[-1])]: finals[tables[int(sub.name[-1])]]}
        return finals

    def caught_up(sub: ResumingReader) -> bool:
        last = {e.data["table"]: e.data["revision"] for e in sub.events}
        return all(last.get(t) == table["deal_count"] for t, (table, _e, _s) in watched(sub).items())

    try:
        _wait_until(
            "every stream has the final state",
            lambda: all(caught_up(s) for s in subscribers),
            subscribers=subscribers,
        )
    except AssertionError:
        pass  # told below, stream by stream
    finally:
        unsubscribe.set()
        for sub in subscribers:
            sub.join(15)
    missed = [p for sub in subscribers for p in _stream_problems(sub, watched(sub))]

    # Webhooks: one deal.posted delivery per stored deal, under one webhook-id.
    expected = {(t, n) for t in tables for n in range(1, finals[t][0]["deal_count"] + 1)}

    def hooks() -> dict[tuple[str, int], set[str]]:
        ids: dict[tuple[str, int], set[str]] = {}
        for d in ha.deliveries():
            if d["type"] == "deal.posted":
                ids.setdefault((d["table"], d["deal"]), set()).add(d["id"])
        return ids

    try:
        _wait_until("every deal's webhook arrives", lambda: expected <= set(hooks()), timeout=60)
    except AssertionError:
        pass
    got = hooks()
    lost_hooks = sorted(expected - set(got))
    two_ids = {k: v for k, v in got.items() if len(v) > 1}
    strangers = sorted(set(got) - expected)
    deliveries = len(ha.deliveries())

    print(
        f"\nfailover under load ({len(writers)} clients, {load_time:.0f}s): {total.acked} deals acknowledged, {stored} stored, "
        f"{total.attempts} requests, {total.retries} retries ({retried} deals retried, {len(replays)} replays differing), "
        f"{total.status_5xx} 5xx ({sum(w.stats.status_503 for w in writers)} 503), {total.connection_errors} connection errors; "
        f"failovers: {failovers}; replica killed: {replica_kill}, replica reads {sum(r.reads for r in readers)}, "
        f"most tries of one read {max(r.most_tries for r in readers)}, failed tries {sum(len(r.failed) for r in readers)}; "
        f"{len(subscribers)} streams: {sum(len(s.events) for s in subscribers)} events, {sum(s.reconnects for s in subscribers)} reconnects, "
        f"missed {len(missed)}; webhooks: {len(expected)} deals, {deliveries} deliveries, lost {len(lost_hooks)}, "
        f"under two ids {len(two_ids)}",
        file=sys.stderr,
    )
    assert problems == [] and total.unexpected == [], (problems[:10], total.unexpected[:10])
    assert stored == total.acked == len(total.acks)
    assert replays == [], replays[:10]
    assert all(f["write unavailability"] <= WRITE_RESUME_BOUND for f in failovers), failovers
    assert all(f["old leader back as"] in ("replica", "sync_standby") for f in failovers), failovers
    assert all(r.most_tries <= 2 for r in readers), [r.failed[:3] for r in readers]
    assert missed == [], missed[:10]
    assert lost_hooks == [] and two_ids == {} and strangers == [], (
        lost_hooks[:10],
        list(two_ids.items())[:5],
        strangers[:5],
    )
    assert all(s.reconnects >= FAILOVERS for s in subscribers), "a stream was not resumed"


# --------------------------------------------------------------------------- capacity


def _cpu_seconds(container: str) -> float:
    """The CPU time a container has used (its cgroup's accounting: v1 cpuacct, or v2 cpu.stat)."""
    path = pm.inspect(container)["State"].get("CgroupPath", "")
    v1 = f"/sys/fs/cgroup/cpuacct{path}/cpuacct.usage"
    if os.path.exists(v1):
        return int(open(v1).read()) / 1e9
    for line in open(f"/sys/fs/cgroup{path}/cpu.stat").read().splitlines():
        if line.startswith("usage_usec"):
            return int(line.split()[1]) / 1e6
    raise RuntimeError(f"no CPU accounting for {container}")


@pytest.mark.skipif(
    not os.environ.get("PREFSCORE_HA_MEASURE"),
    reason="measurements for docs/deployment.md: PREFSCORE_HA_MEASURE=1",
)
def test_capacity_figures(ha: Ha):
    """The figures of docs/deployment.md's capacity model: CPU per deal of a service process,
    PgBouncer, the load balancers, the leader and each replica (CPU time, not throughput: this
    machine is shared, so a rate is only a rate of its free cores), then CPU per sheet read."""
    members = ha.wait_cluster()
    role = {m["name"]: m["role"] for m in members}
    watched = ["api1", "api2", "pgbouncer", "lb", "dbproxy", *NODES]

    def sample() -> dict[str, float]:
        return {s: _cpu_seconds(ha.compose.container(s)) for s in watched}

    tables = [create_table(ha.url, ADMIN)["id"] for _ in range(8)]
    stop = threading.Event()
    writers = [
        DealWriter(f"m{i}", ha.url, f"/v1/tables/{t}/deals", auth(ADMIN), t, seed=i, stop=stop)
        for i, t in enumerate(tables)
    ]
    for w in writers:
        w.start()
    time.sleep(3)  # warm
    before, acked, t0 = sample(), sum(w.stats.acked for w in writers), time.monotonic()
    time.sleep(20)
    after, deals, seconds = sample(), sum(w.stats.acked for w in writers) - acked, time.monotonic() - t0
    stop.set()
    for w in writers:
        w.join(30)
    per_deal = {s: (after[s] - before[s]) / deals * 1000 for s in watched}
    label = {n: f"{n} ({role.get(n)})" for n in NODES}
    print(
        f"\ncapacity, writes: {deals} deals in {seconds:.1f}s ({deals / seconds:.0f}/s) from 8 clients; CPU ms per deal: "
        + ", ".join(f"{label.get(s, s)} {v:.2f}" for s, v in per_deal.items()),
        file=sys.stderr,
    )

    # Sheet reads through the load balancer (today served by the leader).
    stop = threading.Event()
    counts = [0] * 8

    def reader(i: int) -> None:
        with httpx.Client(base_url=ha.url, headers=auth(ADMIN), timeout=30) as client:
            while not stop.is_set():
                assert client.get(f"/v1/tables/{tables[i]}/sheet").status_code == 200
                counts[i] += 1

    threads = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(8)]
    for t in threads:
        t.start()
    time.sleep(2)
    before, done, t0 = sample(), sum(counts), time.monotonic()
    time.sleep(15)
    after, reads, seconds = sample(), sum(counts) - done, time.monotonic() - t0
    stop.set()
    for t in threads:
        t.join(30)
    per_read = {s: (after[s] - before[s]) / reads * 1000 for s in watched}
    print(
        f"capacity, sheet reads: {reads} in {seconds:.1f}s ({reads / seconds:.0f}/s) from 8 clients; CPU ms per read: "
        + ", ".join(f"{label.get(s, s)} {v:.3f}" for s, v in per_read.items()),
        file=sys.stderr,
    )
    assert deals > 0 and reads > 0
