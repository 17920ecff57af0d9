"""Statements on the driver itself (app/kit/db/driver.py), used where SQLAlchemy's work per
statement would cost more than the statement: they run in the caller's transaction, bind
values as SQLAlchemy would, and fail with SQLAlchemy's exceptions (so a lost database is
still a 503, not a 500)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from app.deals import repository as deals_repo
from app.deals.orm import IdempotencyRow
from app.kit.db import driver as prepared
from app.kit.db.driver import Driver, for_drivers
from app.ratings.orm import PlayerRatingRow, RatedTableRow
from tests.api.samples import PASS_6S

_READ = for_drivers("SELECT mu, games FROM player_ratings WHERE pool = :pool AND player_id = :player")
_WRITE = for_drivers(
    "INSERT INTO player_ratings (pool, player_id, owner, mu, sigma, ordinal, games, seq) "
    "VALUES (:pool, :player, 'owner-driver', 25.5, 8.0, 1.5, 1, 1)"
)


def test_the_texts_are_each_drivers_own():
    sql = for_drivers("SELECT CAST(a AS text), a::text FROM t WHERE b = :b AND c IN (:c0, :c1)")
    assert sql["sqlite"] == "SELECT CAST(a AS text), a::text FROM t WHERE b = :b AND c IN (:c0, :c1)"
    assert (
        sql["postgresql"]
        == "SELECT CAST(a AS text), a::text FROM t WHERE b = %(b)s AND c IN (%(c0)s, %(c1)s)"
    )


def test_a_statement_runs_in_the_callers_transaction(db):
    params = {"pool": "driver-test", "player": "p" * 32}
    with pytest.raises(RuntimeError):
        with db.write() as session:
            Driver(session).run(_WRITE, params)
            assert Driver(session).rows(_READ, params) == [(25.5, 1)]  # seen inside
            raise RuntimeError("rolled back")
    with db.read() as session:
        assert Driver(session).rows(_READ, params) == []  # gone with the transaction
    with db.write() as session:
        Driver(session).run(_WRITE, params)
    with db.read() as session:
        assert (
            session.execute(
                select(PlayerRatingRow.mu).where(PlayerRatingRow.pool == "driver-test")
            ).scalar_one()
            == 25.5
        )
    with db.write() as session:
        session.query(PlayerRatingRow).filter(PlayerRatingRow.pool == "driver-test").delete()


def test_a_driver_error_is_sqlalchemys(db):
    with db.read() as session:
        with pytest.raises(sa_exc.DBAPIError) as raised:
            Driver(session).rows(for_drivers("SELECT x FROM no_such_table WHERE y = :y"), {"y": 1})
    assert raised.value.orig is not None and "no_such_table" in str(raised.value)


def test_values_are_bound_as_sqlalchemy_binds_them(db):
    moment = datetime(2026, 12, 2, 10, 30, 5, 123456, tzinfo=UTC)
    with db.read() as session:
        driver = Driver(session)
        finished = driver.bound(RatedTableRow.__table__.c.finished_at, moment)
        outcome = driver.bound(RatedTableRow.__table__.c.outcome, [["p", "-3/2"]])
    if driver.dialect == "sqlite":
        assert finished == "2026-12-02 10:30:05.123456"  # SQLAlchemy's text of a date on SQLite
        assert outcome == '[["p", "-3/2"]]'
    else:
        assert finished == moment
        assert outcome.obj == [["p", "-3/2"]]  # psycopg's JSON wrapper, as SQLAlchemy binds it


def _seated_table(api):
    ids = []
    for name in ("Anna", "Boris", "Vera"):
        r = api.post("/v1/players", json={"name": name})
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    t = api.table(
        players=[{"name": n, "player": i} for n, i in zip(("Anna", "Boris", "Vera"), ids)], rated=True
    )
    api.deal(t["id"], PASS_6S)
    return t


def test_a_prepared_read_returns_what_sqlalchemy_returns(api, db):
    """The post's locked read on the driver (``Prepared``): every column as SQLAlchemy's row
    has it (JSON documents, dates, booleans, the registered seats' aggregate)."""
    t = _seated_table(api)
    with db.write() as session:
        conn = session.connection()
        read = deals_repo._POST_READ[conn.dialect.name]
        columns = read.statement.selected_columns
        owner = conn.execute(select(columns.owner).where(columns.id == t["id"])).scalar_one()
        params = {"table_id": t["id"], "owner": owner}
        expected = dict(conn.execute(read.statement, params).one()._mapping)
        got = prepared.one_or_none(conn, read, params)
        missing = prepared.one_or_none(conn, read, {"table_id": t["id"], "owner": "someone else"})
    assert got is not None and missing is None
    assert got._mapping == expected
    assert len(got.registered) == 3 and got.rated is True and got.hooked is False
    assert got.id == t["id"] and isinstance(got.created_at, datetime)


def test_one_table_read_on_the_driver_is_the_table_sqlalchemy_reads(api, db):
    """A change names one table: its row is read on the driver (app/tables/repository.py
    ``rows_by_ids``), the same record as the statement for many tables gives."""
    from app.tables import repository as tables_repo

    t = _seated_table(api)
    other = api.table()
    with db.lookup() as conn:
        (one,) = tables_repo.rows_by_ids(conn, [t["id"]])
        both = {r.id: r for r in tables_repo.rows_by_ids(conn, [t["id"], other["id"]])}
        assert tables_repo.rows_by_ids(conn, ["0" * 32]) == []
    assert one == both[t["id"]] and one.id == t["id"] and one.rated is True
    assert isinstance(one.state, dict) and isinstance(one.created_at, datetime)


def test_a_prepared_write_binds_as_sqlalchemy_binds(api, db):
    """A write on the driver (``Prepared``): its JSON, its date and its literal value (the
    kept answer's status) read back through SQLAlchemy as written."""
    t = api.table()
    moment = datetime(2026, 12, 2, 10, 30, 5, 123456, tzinfo=UTC)
    answer = {"deal": {"number": 1}, "sheet": {"balances": ["-3/2", 0, "3/2"]}}
    keep = prepared.Prepared(deals_repo._KEEP_ANSWER)
    with db.write() as session:
        prepared.execute(
            session,
            keep,
            {
                "table_id": t["id"],
                "idempotency_key": "prepared-1",
                "request_hash": "h",
                "answer": answer,
                "number": 1,
                "posted_at": moment,
            },
        )
    with db.read() as session:
        row = session.execute(select(IdempotencyRow).where(IdempotencyRow.key == "prepared-1")).scalar_one()
        assert (row.table_id, row.status_code, row.response, row.deal_number) == (t["id"], 201, answer, 1)
        assert row.created_at.replace(tzinfo=UTC) == moment


def test_a_prepared_write_for_many_rows_binds_each_as_sqlalchemy_binds(api, db):
    """``execute_many``: one statement for several rows (a rated table's seats), each bound
    as SQLAlchemy binds it, in the caller's transaction."""
    t = api.table()
    moment = datetime(2026, 12, 5, 1, 45, 0, 654321, tzinfo=UTC)
    keep = prepared.Prepared(deals_repo._KEEP_ANSWER)
    rows = [
        {
            "table_id": t["id"],
            "idempotency_key": f"many-{n}",
            "request_hash": f"h{n}",
            "answer": {"deal": {"number": n}, "sheet": {"balances": [f"-{n}/2", 0, f"{n}/2"]}},
            "number": n,
            "posted_at": moment,
        }
        for n in (1, 2, 3)
    ]
    with pytest.raises(RuntimeError), db.write() as session:
        prepared.execute_many(session, keep, rows)
        raise RuntimeError("rolled back")
    with db.write() as session:
        prepared.execute_many(session, keep, rows)
        prepared.execute_many(session, keep, [])  # nothing to write: no statement
    with db.read() as session:
        stored = session.execute(
            select(IdempotencyRow).where(IdempotencyRow.table_id == t["id"]).order_by(IdempotencyRow.key)
        ).scalars()
        got = [
            (r.key, r.request_hash, r.response, r.deal_number, r.created_at.replace(tzinfo=UTC))
            for r in stored
        ]
    want = [(r["idempotency_key"], r["request_hash"], r["answer"], r["number"], moment) for r in rows]
    assert got == want
