"""The compose stack of docker-compose.yml brought up with podman-compose: PostgreSQL, the
one-off migration, PgBouncer in transaction mode, two API replicas and HAProxy, with the
images built here (the file's images are overridable by environment variables). Then:
a pulka through the load balancer, psycopg's prepared statements through PgBouncer (off: it
works; on: it breaks), and a rolling restart under 8 writing clients and 8 event-stream
subscribers that loses nothing.

Runs in the PostgreSQL pass of .ci/run only (the SQLite pass runs the single image,
tests/deploy/test_image.py), so each pass builds and starts only what it needs.

podman-compose 1.0 starts services in dependency order but does not wait for the
``service_healthy`` / ``service_completed_successfully`` conditions that docker compose
honours, so the fixture brings the stack up in those same stages itself.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.hardening.harness import (
    Stats,
    Writer,
    auth,
    create_table,
    endless_menu,
    fetch_deals,
    free_port,
    is_postgres_run,
    sheet_problems,
    sheets_after_each_deal,
    verify_table,
)
from tests.sse import ResumingReader

from . import podman as pm

pytestmark = pytest.mark.skipif(
    not is_postgres_run(), reason="the compose stack runs in the PostgreSQL pass (.ci/run runs tests twice)"
)

ADMIN = "pk_compose_admin_" + secrets.token_urlsafe(12)


class Stack:
    def __init__(self, compose: pm.Compose, url: str, app_image: str, password: str):
        self.compose = compose
        self.url = url
        self.app_image = app_image
        self.password = password

    def wait_lb(self, timeout: float = 60) -> None:
        """Until the load balancer answers /health (both replicas are up behind it by then,
        as the caller waited for their health)."""
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
        raise RuntimeError(
            f"the load balancer did not answer /health: {last!r}\n{self.compose.logs('lb')[-3000:]}"
        )


@pytest.fixture(scope="module")
def stack(app_image: str, bases: dict[str, str]) -> Iterator[Stack]:
    base = bases["PREFSCORE_BASE_IMAGE"]
    port = free_port()
    password = secrets.token_hex(8)
    # The two small images at once: their builds mostly wait for the Debian mirror.
    with ThreadPoolExecutor(2) as pool:
        pgbouncer, haproxy = pool.map(
            lambda name: pm.build(pm.REPO / "deploy" / name, name, base), ["pgbouncer", "haproxy"]
        )
    compose = pm.Compose(
        f"prefscore-t{secrets.token_hex(3)}",
        {
            "PREFSCORE_IMAGE": app_image,
            "POSTGRES_IMAGE": bases["PREFSCORE_POSTGRES_IMAGE"],
            "PGBOUNCER_IMAGE": pgbouncer,
            "HAPROXY_IMAGE": haproxy,
            "BASE_IMAGE": base,
            "PREFSCORE_ADMIN_KEY": ADMIN,
            "POSTGRES_PASSWORD": password,
            "PREFSCORE_BIND": "127.0.0.1",
            "PREFSCORE_PORT": str(port),
        },
    )
    try:
        compose.run("up", "-d", "db", "pgbouncer")
        pm.wait_healthy(compose.container("db"))
        pm.wait_healthy(compose.container("pgbouncer"))
        compose.run("up", "-d", "--no-deps", "migrate")
        code = pm.podman("wait", compose.container("migrate"), timeout=120).stdout.strip()
        assert code == "0", f"the migration exited with {code}:\n{compose.logs('migrate')[-3000:]}"
        compose.run("up", "-d", "--no-deps", "api1", "api2", "lb")
        for service in ("api1", "api2"):
            pm.wait_healthy(compose.container(service))
        s = Stack(compose, f"http://127.0.0.1:{port}", app_image, password)
        s.wait_lb()
        yield s
    finally:
        if sys.exc_info()[0] is not None:
            for service in ("db", "migrate", "pgbouncer", "api1", "api2", "lb"):
                print(f"--- {service}\n{compose.logs(service)[-2000:]}", file=sys.stderr)
        # Containers with their anonymous volumes (the image's /data), the named volume, the network.
        containers = [compose.container(s) for s in ("lb", "api1", "api2", "migrate", "pgbouncer", "db")]
        pm.podman("rm", "--force", "--volumes", "--time", "1", *containers, check=False)
        compose.run("down", "-v", "-t", "5", check=False)
        pm.podman("network", "rm", "--force", compose.network, check=False)


def test_a_pulka_through_the_load_balancer_reaches_both_replicas(stack: Stack):
    table = create_table(stack.url, ADMIN)
    deals = [
        {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
        {
            "type": "contract",
            "declarer": 1,
            "contract": "7H",
            "defenders": {"2": "whist", "0": "pass"},
            "tricks": {"1": 7, "2": 2, "0": 1},
        },
        {"type": "misere", "declarer": 2, "tricks": {"2": 0}},
        {
            "type": "contract",
            "declarer": 0,
            "contract": "8NT",
            "defenders": {"1": "whist", "2": "whist"},
            "tricks": {"0": 7, "1": 2, "2": 1},
        },
    ]
    with httpx.Client(base_url=stack.url, headers=auth(ADMIN), timeout=30) as client:
        for deal in deals:
            r = client.post(f"/v1/tables/{table['id']}/deals", json=deal)
            assert r.status_code == 201, r.text
        # No sticky sessions: reads spread by the load balancer reach both replicas. Read in
        # rounds of 10 until both have logged the table (a loaded machine can leave one
        # replica's health check late for a moment, or its log a moment behind), at most 100.
        served: set[str] = set()
        for _ in range(10):
            for _ in range(10):
                assert client.get(f"/v1/tables/{table['id']}/sheet").status_code == 200
            served = {s for s in ("api1", "api2") if f"/v1/tables/{table['id']}" in stack.compose.logs(s)}
            if len(served) == 2:
                break
            time.sleep(0.5)
    assert served == {"api1", "api2"}, served
    verdict = verify_table(stack.url, ADMIN, table["id"])
    assert verdict.stored == len(deals) and verdict.problems == []


# Six connections of the service's own engine (app.kit.db.engine.make_engine from the
# environment), through PgBouncer, one after the other: each runs a statement often enough for
# psycopg to prepare it on the server connection PgBouncer lent it; PgBouncer lends a server
# connection one of them prepared on to a later one, whose own preparation of the statement
# collides ("prepared statement ... already exists"), or which finds its statement missing.
# Six, not two: the replicas' own queries (their deliverers and raters) also borrow server
# connections, and two alone were once lent two different ones.
PROBE = """
from sqlalchemy import text
from app.kit.db.engine import make_engine
from app.kit.settings import Settings
engine = make_engine(Settings.from_env())
for conn in [engine.connect() for _ in range(6)]:
    for n in range(8):
        assert conn.execute(text("SELECT CAST(:n AS integer) + 1"), {"n": n}).scalar() == n + 1
        conn.commit()
print("probe: ok")
"""


def _probe(stack: Stack, prepared: str) -> tuple[int, str]:
    result = pm.podman(
        "run",
        "--rm",
        "--network",
        stack.compose.network,
        "-e",
        f"DATABASE_URL=postgresql+psycopg://prefscore:{stack.password}@pgbouncer:6432/prefscore",
        "-e",
        f"PREFSCORE_DB_PREPARED_STATEMENTS={prepared}",
        stack.app_image,
        "python",
        "-c",
        PROBE,
        check=False,
        timeout=120,
    )
    return result.returncode, result.stdout + result.stderr


def test_prepared_statements_are_off_behind_pgbouncer_and_would_break_it(stack: Stack):
    code, out = _probe(stack, "0")
    assert code == 0 and "probe: ok" in out, out[-3000:]
    code, out = _probe(stack, "1")
    assert code != 0 and "prepared statement" in out, out[-3000:]


def _subscribers(stack: Stack, tables: list[dict], stop: threading.Event) -> list[ResumingReader]:
    """Event streams through the load balancer: each table's keyed stream, the share link's of
    the first two, the owner-wide stream and an owner-wide one of the last two tables."""
    base, key = stack.url, auth(ADMIN)
    subs = [
        ResumingReader(f"keyed{i}", f"{base}/v1/tables/{t['id']}/events", key, stop=stop)
        for i, t in enumerate(tables)
    ]
    subs += [
        ResumingReader(f"shared{i}", f"{base}/v1/shared/{t['share_token']}/events", stop=stop)
        for i, t in enumerate(tables[:2])
    ]
    subs.append(ResumingReader("owner", f"{base}/v1/events", key, stop=stop))
    subs.append(
        ResumingReader(
            "owner-listed", f"{base}/v1/events?tables={tables[2]['id']},{tables[3]['id']}", key, stop=stop
        )
    )
    return subs


def _wait_until(what: str, done, timeout: float = 45, subscribers: list[ResumingReader] = ()) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            state = "; ".join(
                f"{s.name}: {s.connections} connections, {len(s.events)} events, last id {s.last_id}, "
                f"{s.failed_opens} failed opens {s.statuses}, error {s.error!r}"
                for s in subscribers
            )
            raise AssertionError(f"not within {timeout}s: {what} ({state})")
        time.sleep(0.1)


def _stream_problems(sub: ResumingReader, finals: dict[str, tuple[dict, str, list[dict]]]) -> list[str]:
    """What ``sub`` missed or got wrong of the tables in ``finals`` (table id -> the table, its
    sheet's ETag and the engine's sheet at each revision): an event whose sheet is not the
    stored deals' up to its revision, a revision that goes backwards, a last event that is not
    the table's final state."""
    problems: list[str] = []
    by_table: dict[str, list] = {}
    for e in sub.events:
        if e.data["table"] in finals:
            by_table.setdefault(e.data["table"], []).append(e)
    for table_id, (table, etag, sheets) in finals.items():
        events = by_table.get(table_id, [])
        if not events:
            problems.append(f"{sub.name}: nothing of table {table_id}")
            continue
        revisions = [e.data["revision"] for e in events]
        backwards = [(a, b) for a, b in zip(revisions, revisions[1:]) if b < a]
        if backwards:
            problems.append(
                f"{sub.name}: table {table_id} went back from revision {backwards[0][0]} to {backwards[0][1]}"
            )
        for e in events:
            # The tables were only posted to: revision r is the sheet after the first r deals.
            r = e.data["revision"]
            if not 0 <= r < len(sheets):
                problems.append(
                    f"{sub.name}: revision {r} of table {table_id}, which has {len(sheets) - 1} deals"
                )
                break
            wrong = sheet_problems(sheets[r], e.data["sheet"], f"{sub.name} {table_id}@{r}")
            if wrong:
                problems += wrong[:3]
                break
        last = events[-1]
        if (last.data["revision"], last.data["etag"]) != (table["deal_count"], etag):
            problems.append(
                f"{sub.name}: table {table_id} ended at revision {last.data['revision']}, not {table['deal_count']}"
            )
    return problems


def test_a_rolling_restart_loses_nothing(stack: Stack):
    """8 clients post deals through the load balancer, each deal with its Idempotency-Key and
    retried (same key, same body) after a connection error, a timeout or a 5xx, while api1 and
    then api2 are stopped (SIGTERM) and started again, and then api1 is killed (SIGKILL) and
    started again. Every acknowledged deal is stored exactly once, numbers have no gaps, every
    sheet equals replaying its stored deals, and every 5xx was resolved by a retry.

    Meanwhile 8 event streams, opened through the load balancer before the first deal, are
    kept open: each one that ends with its replica is opened again with ``Last-Event-ID``
    (docs/api.md: "If the table has changed since, the first event is the current state
    (`sheet`) at once, however many changes were missed"). Nothing is missed: every event's
    sheet is the stored deals' up to its revision, no revision goes backwards, and each
    stream's last event of each table is the table's final state."""
    made = [create_table(stack.url, ADMIN) for _ in range(4)]
    tables = [t["id"] for t in made]
    stop = threading.Event()
    unsubscribe = threading.Event()
    subscribers = _subscribers(stack, made, unsubscribe)
    for sub in subscribers:
        sub.start()
    # The tables' streams begin with the current state (revision 0); the owner-wide ones are
    # open once the owner's tables count them (stream opens are spread over both replicas).
    _wait_until(
        "every table stream has its first state",
        lambda: all(s.events for s in subscribers if not s.name.startswith("owner")),
        subscribers=subscribers,
    )
    _wait_until(
        "the owner-wide streams are open",
        lambda: all(s.connections for s in subscribers),
        subscribers=subscribers,
    )
    writers = [
        Writer(
            f"w{i}",
            [stack.url],
            tables[i % 4],
            ADMIN,
            100_000,
            seed=i,
            stop=stop,
            deadline=time.monotonic() + 300,
            menu=endless_menu(),  # as many deals as the restarts' time allows, none finishing a table
        )
        for i in range(8)
    ]
    for w in writers:
        w.start()
    steps: list[str] = []
    began = time.monotonic()

    def step(what: str) -> None:
        steps.append(
            f"{what} at {time.monotonic() - began:.1f}s with {sum(w.stats.acked for w in writers)} acknowledged"
        )

    try:
        # An owner-wide stream that has received no event yet has no id to resume from.
        _wait_until(
            "every stream has an event", lambda: all(s.events for s in subscribers), subscribers=subscribers
        )
        time.sleep(1.5)
        for service, how in (("api1", "stop"), ("api2", "stop"), ("api1", "kill")):
            container = stack.compose.container(service)
            if how == "stop":
                pm.podman("stop", "--time", "30", container, timeout=60)  # SIGTERM (the image's STOPSIGNAL)
            else:
                pm.podman("kill", "--signal", "KILL", container, timeout=60)
                pm.podman("wait", container, check=False, timeout=60)
            step(f"{how} {service}")
            time.sleep(1)  # the other replica alone
            pm.podman(
                "start", container, check=False, timeout=60
            )  # the restart policy may have done so already
            pm.wait_healthy(container)
            step(f"{service} healthy")
            time.sleep(2.5)  # HAProxy: two good checks a second apart put it back
        time.sleep(1)
    finally:
        stop.set()
        for w in writers:
            w.join(120)
        if sys.exc_info()[0] is not None:
            unsubscribe.set()
            for service in ("api1", "api2"):  # what the replicas said of their event streams
                said = [
                    line
                    for line in stack.compose.logs(service).splitlines()
                    if "/events" in line or "live updates" in line
                ]
                print(f"--- {service}\n" + "\n".join(said[-40:]), file=sys.stderr)
    step("writers done")
    for w in writers:
        assert not w.is_alive(), f"{w.name} still running"
        if w.error is not None:
            raise w.error
    total = Stats()
    problems: list[str] = []
    stored = 0
    finals: dict[str, tuple[dict, str, list[dict]]] = {}
    for i, table_id in enumerate(tables):
        mine = Stats()
        for w in writers[i::4]:
            mine.merge(w.stats)
        total.merge(mine)
        verdict = verify_table(stack.url, ADMIN, table_id, mine)
        stored += verdict.stored
        problems += [f"table {i}: {p}" for p in verdict.problems]
        table = httpx.get(f"{stack.url}/v1/tables/{table_id}", headers=auth(ADMIN), timeout=30).json()
        etag = httpx.get(f"{stack.url}/v1/tables/{table_id}/sheet", headers=auth(ADMIN), timeout=30).headers[
            "ETag"
        ]
        finals[table_id] = (
            table,
            etag,
            sheets_after_each_deal(table, fetch_deals(stack.url, ADMIN, table_id)),
        )
    step("verified")

    def watched(sub: ResumingReader) -> dict[str, tuple[dict, str, list[dict]]]:
        if sub.name.startswith("keyed") or sub.name.startswith("shared"):
            return {tables[int(sub.name[-1])]: finals[tables[int(sub.name[-1])]]}
        return {t: finals[t] for t in (tables if sub.name == "owner" else tables[2:])}

    def caught_up(sub: ResumingReader) -> bool:
        last = {e.data["table"]: e.data["revision"] for e in sub.events}
        return all(last.get(t) == table["deal_count"] for t, (table, _e, _s) in watched(sub).items())

    try:
        _wait_until(
            "every stream has the final state",
            lambda: all(caught_up(s) for s in subscribers),
            subscribers=subscribers,
        )
        step("streams caught up")
    except AssertionError:
        pass  # told below, stream by stream
    finally:
        unsubscribe.set()
        for sub in subscribers:
            sub.join(15)
    step("streams done")
    for sub in subscribers:
        if sub.error is not None:
            raise sub.error
    missed = [p for sub in subscribers for p in _stream_problems(sub, watched(sub))]
    notes = {d.get("note") for table_id in tables for d in fetch_deals(stack.url, ADMIN, table_id)}
    lost = len([key for key in total.acks if key not in notes])
    print(
        f"\nrolling restart: {total.acked} deals acknowledged, {stored} stored, {total.attempts} requests, "
        f"{total.retries} retries, {total.status_5xx} 5xx seen (all resolved by a retry), "
        f"{total.connection_errors} connection errors, {total.replayed} idempotent replays, lost {lost}; "
        f"{len(subscribers)} event streams: {sum(len(s.events) for s in subscribers)} events seen, "
        f"{sum(s.reconnects for s in subscribers)} reconnects, {sum(s.failed_opens for s in subscribers)} failed opens "
        f"{sorted(set(st for s in subscribers for st in s.statuses))}, {sum(s.silences for s in subscribers)} silent, "
        f"missed {len(missed)}; " + "; ".join(steps),
        file=sys.stderr,
    )
    assert problems == [] and total.unexpected == []
    assert stored == total.acked == len(total.acks) and lost == 0
    assert total.acked >= 100, "the clients barely wrote during the restarts"
    assert missed == []
    assert all(s.reconnects for s in subscribers), "a stream lived through every restart: nothing was resumed"
