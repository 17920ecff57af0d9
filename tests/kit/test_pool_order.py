"""PostgreSQL's pool lends the connection given back last (app/kit/db/dialects.py): in a quiet
moment one connection serves one request after another, so psycopg prepares a rare statement
at its fifth run there (a rated table's place in the finishing order), where a pool lending its
connections in turn spread it over all of them and prepared it on none."""

from __future__ import annotations

import pytest

from app.kit.db import make_database
from app.kit.settings import Settings
from tests.databases import is_postgres_run

pytestmark = pytest.mark.skipif(not is_postgres_run(), reason="PostgreSQL's pool only")


def test_the_connection_given_back_last_is_lent_first(database_url):
    db = make_database(Settings(database_url=database_url, threads=4))
    try:
        first, second = db.engine.connect(), db.engine.connect()
        lent = [c.connection.driver_connection for c in (first, second)]
        first.close()
        second.close()  # given back last
        for _ in range(3):
            with db.engine.connect() as again:
                assert again.connection.driver_connection is lent[1]
    finally:
        db.dispose()
