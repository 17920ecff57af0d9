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


class _Compiled:
    """A statement compiled for one dialect, with what SQLAlchemy would do around it: the
    parameters' defaults and bind processing, and the columns' names and result processing."""

    def __init__(self, statement: Any, dialect: Any) -> None:
        compiled = statement.compile(dialect=dialect)
        self.text: str = compiled.string
        # Positional styles (sqlite3's "?") take the values in this order; named ones a dict.
        self.order: tuple[str, ...] | None = tuple(compiled.positiontup) if compiled.positional else None
        self.defaults: dict[str, Any] = {
            name: bind.value for bind, name in compiled.bind_names.items() if bind.value is not None
        }
        self.binds: tuple[tuple[str, Any], ...] = tuple(compiled._bind_processors.items())
        columns = getattr(compiled, "_result_columns", None) or []
        self.keys: tuple[str, ...] = tuple(c.keyname for c in columns)
        self.results: tuple[tuple[int, Any], ...] = tuple(
            (i, process)
            for i, c in enumerate(columns)
            if (process := c.type._cached_result_processor(dialect, None)) is not None
        )

    def values(self, params: Mapping[str, Any]) -> Any:
        values = {**self.defaults, **params}
        for name, process in self.binds:
            if name in values:
                values[name] = process(values[name])
        return values if self.order is None else tuple(values[name] for name in self.order)

    def row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        if not self.results:
            return tuple(raw)
        out = list(raw)
        for i, process in self.results:
            out[i] = process(out[i])
        return tuple(out)


class Prepared:
    """A Core statement run on the driver itself (``one_or_none``, ``execute``), compiled once
    per dialect: the text SQLAlchemy would send, the parameters processed as it would bind
    them (JSON, dates, literal values) and the row's values as it would return them, without
    its work per execution (execution context, parameter building, result wrappers), which on
    a hot path costs more than the database (app/deals/repository.py: the post's read and
    writes). The compiled form's processors are SQLAlchemy's own (its compiler's
    ``_bind_processors`` and ``_result_columns``, SQLAlchemy 2.0's: tests/api/test_db_driver.py
    checks the row and the values against SQLAlchemy's own); a literal value of None or a
    callable bind is not supported (none is used)."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def compiled(self, dialect: Any) -> _Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = _Compiled(self.statement, dialect)
        return found


class Record:
    """A row of a ``Prepared`` read: its values by column name, as attributes and through
    ``_mapping`` (as a SQLAlchemy Row offers them)."""

    __slots__ = ("_mapping",)

    def __init__(self, keys: Sequence[str], values: Sequence[Any]) -> None:
        self._mapping = dict(zip(keys, values))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._mapping[name]
        except KeyError:
            raise AttributeError(name) from None


def _run(
    unit: Session | Connection, prepared: Prepared, params: Any, *, many: bool = False
) -> tuple[Any, _Compiled]:
    """Execute ``prepared`` on the driver (``many``: once for each of ``params``, in one
    executemany); its cursor. The engine's ``before_cursor_execute`` listeners still see the
    statement (as they would through SQLAlchemy), when it has some."""
    db = Driver(unit)
    compiled = prepared.compiled(db._dialect)
    values = [compiled.values(row) for row in params] if many else compiled.values(params)
    conn = db._conn
    with db._translated(compiled.text, values):
        cursor = db._raw.cursor()
        if conn._has_events or conn.engine._has_events:
            conn.dispatch.before_cursor_execute(conn, cursor, compiled.text, values, None, many)
        (cursor.executemany if many else cursor.execute)(compiled.text, values)
    return cursor, compiled


def one_or_none(unit: Session | Connection, prepared: Prepared, params: Mapping[str, Any]) -> Record | None:
    """The one row of a ``Prepared`` read in the caller's transaction, or None."""
    cursor, compiled = _run(unit, prepared, params)
    raw = cursor.fetchone()
    cursor.close()
    return None if raw is None else Record(compiled.keys, compiled.row(raw))


def execute(unit: Session | Connection, prepared: Prepared, params: Mapping[str, Any]) -> None:
    """A ``Prepared`` write in the caller's transaction."""
    cursor, _ = _run(unit, prepared, params)
    cursor.close()


def execute_many(unit: Session | Connection, prepared: Prepared, rows: Sequence[Mapping[str, Any]]) -> None:
    """A ``Prepared`` write once for each of ``rows``, in the caller's transaction, in one
    ``executemany`` (psycopg sends them in one pipeline)."""
    if rows:
        cursor, _ = _run(unit, prepared, rows, many=True)
        cursor.close()
