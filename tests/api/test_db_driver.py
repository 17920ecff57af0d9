"""Statements on the driver itself (app/kit/db/driver.py), used where SQLAlchemy's work per
statement would cost more than the statement: they run in the caller's transaction, bind
values as SQLAlchemy would, and fail with SQLAlchemy's exceptions (so a lost database is
still a 503, not a 500)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from app.kit.db.driver import Driver, for_drivers
from app.ratings.orm import PlayerRatingRow, RatedTableRow

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
