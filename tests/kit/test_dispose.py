"""A connection still checked out when its Database is disposed (a request's or a worker's
thread ending after its app stopped) is closed when it comes back, not left open for the
garbage collector: psycopg's ResourceWarning at collection, turned into an error by the
suite, once failed whichever test happened to be running then."""

from __future__ import annotations

import gc
import sqlite3

from sqlalchemy import text

from app.kit.db import make_database
from app.kit.settings import Settings


def _is_closed(driver_connection) -> bool:
    if isinstance(driver_connection, sqlite3.Connection):
        try:
            driver_connection.execute("SELECT 1")
        except sqlite3.ProgrammingError:  # "Cannot operate on a closed database."
            return True
        return False
    return bool(driver_connection.closed)


def test_a_connection_out_at_dispose_is_closed_when_it_comes_back(database_url):
    db = make_database(Settings(database_url=database_url))
    held = db.engine.connect()
    held.execute(text("SELECT 1"))
    driver_connection = held.connection.driver_connection
    db.dispose()
    assert not _is_closed(driver_connection)  # still in use by its thread
    held.close()
    assert _is_closed(driver_connection)


def test_a_database_used_after_dispose_keeps_nothing_open(database_url):
    db = make_database(Settings(database_url=database_url))
    db.dispose()
    with db.engine.connect() as late:
        late.execute(text("SELECT 1"))
        driver_connection = late.connection.driver_connection
    assert _is_closed(driver_connection)
    del late
    gc.collect()
