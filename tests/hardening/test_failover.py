"""The service through a database outage (a failover, a restart, a lost connection), faults
injected into the engine: a request that loses its connection mid-transaction is a retryable
503 that stored nothing, /health says whether the database takes writes, and the webhook
deliverer and the ratings' rater wait for the database and go on without losing or doubling
their work."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import exc as sa_exc

from app.events import changes
from app.kit.db import make_database
from app.kit.db.outage import Pause, is_outage
from app.main import create_app
from app.ratings.rater import Rater
from app.webhooks.delivery import Deliverer
from tests.conftest import Api, new_owner_key
from tests.ratings.test_api import _play, _players, _rated_table
from tests.ratings.test_rater import _stored
from tests.support.receiver import Receiver

DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
LOOPBACK = ("127.0.0.0/8", "::1/128")
DATABASE_UNAVAILABLE = "https://prefscore.example/problems/database-unavailable"


def _lost(dialect: Any) -> Exception:
    return dialect.loaded_dbapi.OperationalError("server closed the connection unexpectedly")


class Away:
    """A Database whose every way in fails as a lost server does while ``on``."""

    def __init__(self, db: Any):
        self.on = False
        self.refused = 0
        for way in ("write", "write_core", "read", "lookup"):
            setattr(db, way, self._guard(getattr(db, way), db))

    def _guard(self, way: Any, db: Any) -> Any:
        @contextmanager
        def guarded() -> Iterator[Any]:
            if self.on:
                self.refused += 1
                raise sa_exc.OperationalError(
                    "SELECT 1", {}, _lost(db.engine.dialect), connection_invalidated=True
                )
            with way() as unit:
                yield unit

        return guarded


class LoopThread:
    """An event loop in a thread running a background task (a deliverer, a rater)."""

    def __init__(self, task: Any):
        self.task = task
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)

    async def _main(self) -> None:
        self.task.start()
        try:
            while not self.stopping.is_set():
                await asyncio.sleep(0.02)
        finally:
            await self.task.stop()

    def __enter__(self) -> LoopThread:
        self.thread.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.stopping.set()
        self.thread.join(15)


def _wait(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.parametrize(
    "error, outage",
    [
        (sa_exc.OperationalError("SELECT 1", {}, psycopg.OperationalError("the connection is lost")), True),
        (sa_exc.InterfaceError("SELECT 1", {}, psycopg.InterfaceError("the connection is closed")), True),
        (
            sa_exc.DBAPIError(
                "SELECT 1", {}, psycopg.DatabaseError("terminating connection"), connection_invalidated=True
            ),
            True,
        ),
        (
            sa_exc.InternalError(
                "INSERT",
                {},
                psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction"),
            ),
            True,
        ),
        (psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly"), True),
        (sa_exc.TimeoutError("QueuePool limit reached"), True),
        (sa_exc.IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation("duplicate key")), False),
        (ValueError("not the database"), False),
    ],
)
def test_what_counts_as_the_database_away(error, outage):
    assert is_outage(error) is outage


@pytest.mark.parametrize("lost", ["connection lost", "read-only after a failover"])
def test_a_write_that_loses_its_connection_mid_transaction_is_a_retryable_503_that_stored_nothing(
    api, db, monkeypatch, lost
):
    table = api.table()
    dialect = db.engine.dialect
    commit, failed = dialect.do_commit, []

    def lost_at_commit(dbapi_connection: Any) -> None:
        # The statements of the post have run; the COMMIT never reaches the server.
        if not failed:
            failed.append(True)
            if lost == "connection lost":
                raise _lost(dialect)
            raise psycopg.errors.ReadOnlySqlTransaction("cannot execute COMMIT in a read-only transaction")
        commit(dbapi_connection)

    monkeypatch.setattr(dialect, "do_commit", lost_at_commit)
    key = {"Idempotency-Key": str(uuid.uuid4())}
    r = api.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=key)
    assert r.status_code == 503, r.text
    body = r.json()
    assert body["type"] == DATABASE_UNAVAILABLE and body["retryable"] is True, body
    assert int(r.headers["Retry-After"]) >= 1
    assert api.log(table["id"]) == []  # rolled back: not half a deal, not a deal at all
    again = api.post(f"/v1/tables/{table['id']}/deals", json=DEAL, headers=key)
    assert again.status_code == 201, again.text
    assert len(api.log(table["id"])) == 1


def test_health_says_whether_the_database_takes_writes(client, db, monkeypatch):
    ok = client.get("/health")
    assert ok.status_code == 200 and ok.json() == {"status": "ok", "database": "ok", "writes": True}
    monkeypatch.setattr(
        db,
        "write_probe",
        lambda: ("read-only", "the PostgreSQL server is a standby in recovery: it takes no writes"),
    )
    down = client.get("/health")
    assert (
        down.status_code == 503 and down.json()["database"] == "read-only" and down.json()["writes"] is False
    )


@pytest.fixture
def webhook_app(settings, db) -> Iterator[TestClient]:
    """An app that registers loopback webhooks and delivers none itself."""
    app = create_app(
        settings.model_copy(update={"webhooks_allowed_networks": LOOPBACK, "webhooks_deliver": False}), db=db
    )
    with TestClient(app) as client:
        yield client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def test_the_deliverer_waits_for_the_database_and_sends_each_delivery_once(
    settings, webhook_app, admin_headers, receiver, caplog
):
    name, key = new_owner_key(webhook_app, admin_headers)
    owner = Api(webhook_app, key, name)
    hook = owner.post("/v1/webhooks", json={"url": receiver.url, "types": ["deal.posted"]}).json()
    quick = settings.model_copy(
        update={
            "webhooks_allowed_networks": LOOPBACK,
            "webhooks_poll_interval": 0.05,
            "webhooks_retry_schedule": ("0.2",),
        }
    )
    own = make_database(quick)
    away = Away(own)
    deliverer = Deliverer(own, quick)
    deliverer.outage = Pause("webhooks", logging.getLogger("prefscore.webhooks"), first=0.05, most=0.2)
    table = owner.table()
    try:
        with caplog.at_level(logging.WARNING, logger="prefscore.webhooks"), LoopThread(deliverer):
            # 1. Away from the start: nothing is claimed or sent, the deliverer waits.
            away.on = True
            for _ in range(3):
                owner.deal(table["id"], DEAL)
            time.sleep(1.5)
            assert receiver.received == [] and deliverer.outage.paused
            complaints = [
                r.getMessage()
                for r in caplog.records
                if r.name == "prefscore.webhooks" and r.levelno >= logging.WARNING
            ]
            away.on = False
            _wait(lambda: len(receiver.received) == 3, 10, "the deliverer did not resume")
            # 2. Away while deliveries are in flight: their outcomes wait, nothing is sent twice.
            receiver.delay = 0.5
            for _ in range(2):
                owner.deal(table["id"], DEAL)
            _wait(lambda: receiver.in_progress == 2, 10, "the deliveries did not start")
            away.on = True
            time.sleep(1.5)
            away.on = False
            _wait(
                lambda: not deliverer.outcomes and not deliverer._sending, 10, "the outcomes were not written"
            )
            time.sleep(0.5)  # a doubled send would come now
    finally:
        own.dispose()
    ids = [h["webhook-id"] for h, _b in receiver.received]
    assert len(ids) == 5 == len(set(ids)), ids
    items = owner.get(f"/v1/webhooks/{hook['id']}/deliveries?limit=100").json()["items"]
    assert sorted(d["state"] for d in items) == ["delivered"] * 5
    assert all(d["attempt_count"] == 1 for d in items), items
    # One line when the database went away (and one when it came back), not one per look.
    assert len(complaints) <= 1, complaints
    print(
        f"\ndeliverer: {away.refused} refused database calls, {len(complaints)} log line(s) in the 1.5 s outage"
    )


@pytest.fixture
def no_rater(monkeypatch):
    monkeypatch.setattr(
        changes, "_sinks", [s for s in changes._sinks if not isinstance(getattr(s, "__self__", None), Rater)]
    )


def test_the_rater_waits_for_the_database_and_rates_what_it_was_told(api, db, settings, no_rater):
    own = make_database(settings)
    away = Away(own)
    rater = Rater(own, sweep_seconds=600)  # no sweep within the test: only what it was told
    rater.outage = Pause("ratings", logging.getLogger("prefscore.ratings"), first=0.05, most=0.2)
    ids = _players(api, "Anna", "Boris", "Vera")
    table = _rated_table(api, ids)
    try:
        with LoopThread(rater):
            _wait(lambda: rater._wake is not None, 5, "the rater did not start")
            time.sleep(0.2)  # its first look for what was left pending
            away.on = True
            _play(api, table["id"])  # the post that finishes the table tells the rater
            _wait(lambda: away.refused > 0, 5, "the rater was not told")
            time.sleep(1.0)
            assert _stored(db, table["id"]) == (True, 0)
            away.on = False
            back = time.monotonic()
            _wait(
                lambda: _stored(db, table["id"]) == (False, 6),
                10,
                "the rater did not rate the table once the database was back",
            )
            print(
                f"\nrater: rated {time.monotonic() - back:.2f} s after the database came back ({away.refused} refused database calls)"
            )
    finally:
        own.dispose()
