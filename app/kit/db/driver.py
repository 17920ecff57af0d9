"""Statements run on the database driver itself, inside the caller's transaction, for the few
hot paths where SQLAlchemy's own work per statement (compiling, events, bound and result
type processing, result wrappers) costs more than the database does: a 3-row read of
floats costs it about 60 µs against 15 µs through sqlite3 directly.

The texts are the driver's: written with ``:name`` parameters (sqlite3's named style), turned
into psycopg's ``%(name)s`` by ``for_drivers``. A driver error comes out as SQLAlchemy's own
exception (``sqlalchemy.exc.OperationalError`` and the rest), so that the service's error
handling (a lost database is a 503) sees what it sees from any other statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Column, Connection
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session

_NAMED = re.compile(r"(?<![:\w]):(\w+)")


def for_drivers(sql: str) -> dict[str, str]:
    """A statement's text for each dialect, from one written with ``:name`` parameters."""
    return {"sqlite": sql, "postgresql": _NAMED.sub(r"%(\1)s", sql)}


def _same(value: Any) -> Any:
    return value


_processors: dict[tuple[str, Any], Any] = {}


class Driver:
    """The caller's transaction as its driver connection: ``rows`` and ``run`` take a
    statement of ``for_drivers`` (or a dialect's own text)."""

    def __init__(self, unit: Session | Connection) -> None:
        conn = unit.connection() if isinstance(unit, Session) else unit
        self._conn = conn
        self._dialect = conn.dialect
        self.dialect = conn.dialect.name
        self._dbapi = conn.dialect.loaded_dbapi
        raw = conn.connection.driver_connection
        assert raw is not None  # a checked-out connection holds its driver's
        self._raw: Any = raw

    def bound(self, column: Column[Any], value: Any) -> Any:
        """``value`` as SQLAlchemy would bind it to ``column`` (a date's text on SQLite, a
        JSON document's text), so that rows written here read back like any other."""
        process = _processors.get((self.dialect, column))
        if process is None:
            process = column.type.dialect_impl(self._dialect).bind_processor(self._dialect) or _same
            _processors[(self.dialect, column)] = process
        return process(value)

    def _text(self, sql: str | Mapping[str, str]) -> str:
        return sql if isinstance(sql, str) else sql[self.dialect]

    @contextmanager
    def _translated(self, sql: str, params: Any) -> Iterator[None]:
        try:
            yield
        except self._dbapi.Error as exc:
            # As SQLAlchemy does for its own statements (and app/kit/db/engine.py for a
            # read-only server): a lost connection, or one to a leader a failover demoted,
            # is not given back to the pool.
            gone = getattr(exc, "sqlstate", None) == "25006" or self._dialect.is_disconnect(
                exc, self._raw, None
            )
            if gone:
                self._conn.engine.pool._invalidate(
                    self._conn.connection, exc
                )  # the pool's older connections too
                self._conn.invalidate(exc)
            raise sa_exc.DBAPIError.instance(
                sql, params, exc, self._dbapi.Error, connection_invalidated=gone
            ) from exc

    def rows(self, sql: str | Mapping[str, str], params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        text = self._text(sql)
        with self._translated(text, params):
            found: list[tuple[Any, ...]] = self._raw.execute(text, params).fetchall()
            return found

    def run(self, sql: str | Mapping[str, str], params: Mapping[str, Any] | Sequence[Any]) -> None:
        text = self._text(sql)
        with self._translated(text, params):
            self._raw.execute(text, params)
