"""Reads from a streaming replica, writes to the leader, read-your-writes (app/kit/db/replicas.py):
a real replica made by the test (tests/replica_pair.py), its replay paused to make it lag.
A write followed at once by a read through the lagging replica still sees the write (its
position, in the cookie or the header, sends the read to the leader); reads without a
position are served by the replica; migrations refuse the replica. SQLite: no replica, no
position (the setting is ignored)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.kit.db import make_database, migrate
from app.kit.db.replicas import POSITION, format_position, parse_position
from app.kit.settings import Settings
from app.main import create_app
from tests import replica_pair

from .conftest import HARD_ADMIN_KEY, needs_postgres

DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
AUTH = {"Authorization": f"Bearer {HARD_ADMIN_KEY}"}


def test_positions_read_and_written():
    assert parse_position("16/B374D848") == (0x16 << 32) + 0xB374D848
    assert format_position(parse_position("16/B374D848")) == "16/B374D848"
    for bad in ("", "16", "x/1", "1/2/3", "123456789/0"):
        assert parse_position(bad) is None


def test_sqlite_has_no_replica_and_sends_no_position(tmp_path):
    url = f"sqlite:///{tmp_path}/one.db"
    migrate.upgrade(url)
    settings = Settings(
        database_url=url, read_database_url=url, admin_key=HARD_ADMIN_KEY, threads=2, webhooks_deliver=False
    )
    with TestClient(create_app(settings)) as c:
        assert c.app.state.db.read_engine is None
        r = c.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH)
        assert r.status_code == 201 and POSITION not in r.headers and "set-cookie" not in r.headers


@pytest.fixture(scope="module")
def pair() -> Iterator[replica_pair.ReplicaPair]:
    why = replica_pair.available()
    if why:
        pytest.skip(why)
    made = replica_pair.ReplicaPair().start()
    try:
        yield made
    finally:
        made.stop()


@pytest.fixture(scope="module")
def app(pair) -> Iterator[TestClient]:
    migrate.upgrade(pair.leader_url)
    settings = Settings(
        database_url=pair.leader_url,
        read_database_url=pair.replica_url,
        admin_key=HARD_ADMIN_KEY,
        threads=4,
        webhooks_deliver=False,
        read_after_seconds=30,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def _counted(server: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("prefscore_replica_reads_total", {"server": server}) or 0.0


def _sheet(client: TestClient, table_id: str, **kw) -> dict:
    r = client.get(f"/v1/tables/{table_id}/sheet", headers={**AUTH, **kw.pop("headers", {})}, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def _deals(sheet: dict) -> int:
    return sheet["deal_count"] if "deal_count" in sheet else len(sheet.get("deals", []))


@needs_postgres
def test_a_write_then_a_read_through_a_lagging_replica_sees_the_write(pair, app):
    db = app.app.state.db
    made = app.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH)
    assert made.status_code == 201, made.text
    table = made.json()["id"]
    position = made.headers[POSITION]
    assert f"{POSITION}={position}" in made.headers["set-cookie"]
    pair.wait_replayed(position)

    # Reads without a position: the replica's.
    stranger = TestClient(app.app)
    before, counted = db.replica_reads, _counted("replica")
    for _ in range(5):
        assert _deals(_sheet(stranger, table)) == 0
    assert db.replica_reads - before == 5 and _counted("replica") - counted == 5

    pair.pause_replay()
    try:
        posted = app.post(f"/v1/tables/{table}/deals", json=DEAL, headers=AUTH)
        assert posted.status_code == 201, posted.text
        wrote = posted.headers[POSITION]
        assert parse_position(wrote) > parse_position(position)
        time.sleep(0.3)  # the replica has the WAL by now, and applies none of it
        assert parse_position(pair.replayed()) < parse_position(wrote), "the replica does not lag"

        # The writer at once, with its cookie: the leader answers, with the deal.
        leader_before, replica_before = db.leader_reads, db.replica_reads
        assert _deals(_sheet(app, table)) == 1
        # ...and with the header alone (a client without cookies).
        assert _deals(_sheet(stranger, table, headers={POSITION: wrote})) == 1
        assert db.leader_reads - leader_before == 2 and db.replica_reads == replica_before
        # Without a position the lagging replica answers: the deal is not there yet.
        assert _deals(_sheet(stranger, table)) == 0
        assert db.replica_reads - replica_before == 1
    finally:
        pair.resume_replay()
    pair.wait_replayed(wrote)
    replica_before = db.replica_reads
    assert _deals(_sheet(app, table)) == 1  # caught up: the replica serves the writer again
    assert db.replica_reads - replica_before == 1
    print(
        f"\nreads: {db.replica_reads} from the replica, {db.leader_reads} sent to the leader for a position it had not replayed"
    )


@needs_postgres
def test_writes_and_other_reads_go_to_the_leader(pair, app):
    db = app.app.state.db
    before = db.replica_reads
    assert app.get("/v1/keys", headers=AUTH).status_code == 200  # not a route a replica serves
    made = app.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH)
    assert made.status_code == 201
    assert db.replica_reads == before


@needs_postgres
def test_migrations_refuse_the_replica(pair, app):
    with pytest.raises(migrate.NotTheLeader, match="standby"):
        migrate.upgrade(pair.replica_url)


@needs_postgres
def test_a_replica_away_sends_a_read_with_a_position_to_the_leader(pair, app):
    """A read URL that answers nothing: a read with a position is the leader's, not a 503."""
    settings = app.app.state.settings.model_copy(
        update={
            "read_database_url": "postgresql+psycopg://postgres@127.0.0.1:1/none",
            "db_connect_timeout": 2,
        }
    )
    db = make_database(settings)
    try:
        with TestClient(create_app(settings, db=db)) as c:
            made = c.post(
                "/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH
            )
            assert made.status_code == 201
            assert _deals(_sheet(c, made.json()["id"])) == 0
            assert db.leader_reads == 1
    finally:
        db.dispose()


@needs_postgres
def test_writes_to_a_demoted_leader_are_retryable_and_drop_its_connections(pair, app):
    """The service pointed at a server that takes no writes (a leader a failover demoted; here
    the replica): each write is a retryable 503, and the pool's connections are dropped (the
    next ones are made afresh: through the balancer, to the new leader)."""
    from sqlalchemy import event

    made = app.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi"}, headers=AUTH)
    pair.wait_replayed(made.headers[POSITION])
    table = made.json()["id"]
    settings = app.app.state.settings.model_copy(
        update={"database_url": pair.replica_url, "read_database_url": ""}
    )
    db = make_database(settings)
    connects: list[int] = []
    event.listen(db.engine, "connect", lambda *_a: connects.append(1))
    try:
        with TestClient(create_app(settings, db=db)) as demoted:
            for path, body in (
                (f"/v1/tables/{table}/deals", DEAL),
                ("/v1/tables", {"players": ["A", "B", "C"], "convention": "sochi"}),
            ):
                r = demoted.post(path, json=body, headers=AUTH)
                assert r.status_code == 503 and r.json()["retryable"] is True and r.headers["Retry-After"], (
                    r.text
                )
                assert r.json()["type"].endswith("/database-unavailable")
                made_before = len(connects)
                assert demoted.get(f"/v1/tables/{table}", headers=AUTH).status_code == 200
                assert len(connects) > made_before, (
                    f"{path}: the next read reused a connection to the read-only server"
                )
    finally:
        db.dispose()
