"""One point read on a psycopg async connection, at the libpq level (``psycopg.pq``).

The read before a sheet's 304 is one statement of one row, made hundreds of times a second.
Through ``AsyncConnection.execute`` psycopg spends about 80 µs of CPU on it (a cursor, the
query's conversion, its lock, three waits on the loop with a timer each); the same round trip
through psycopg's libpq wrapper, with the statement prepared once per connection, costs about
15 µs (bench/loop_reads.py). The connection still comes from, and goes back to,
psycopg_pool, and the row is loaded by psycopg's own Transformer, so types are as psycopg's.

The caller owns the connection for the read (a pool checkout). A read that fails, or is
cancelled, leaves the connection closed, so the pool discards it and never hands out a
connection in an unknown state.
"""

from __future__ import annotations

import asyncio
import itertools
import weakref
from typing import Any

import psycopg
from psycopg import abc, pq
from psycopg.adapt import Transformer

# Per connection: the names of the statements prepared on it, and its Transformer.
_prepared: weakref.WeakKeyDictionary[
    psycopg.AsyncConnection[Any], tuple[dict[str, bytes], abc.Transformer]
] = weakref.WeakKeyDictionary()
# A statement in ``?`` style, once converted: its name and its text with $n parameters (the
# app's few constant statements; a name is never given twice, whichever thread asks first).
_statements: dict[str, tuple[bytes, bytes]] = {}
_numbers = itertools.count()


class PointReadFailed(Exception):
    """The read failed; its connection has been closed."""


def _statement(sql: str) -> tuple[bytes, bytes]:
    known = _statements.get(sql)
    if known is None:
        parts = sql.split("?")
        text = parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], 1))
        name = f"prefscore_loop_{next(_numbers)}".encode()
        known = _statements.setdefault(sql, (name, text.encode()))
    return known


def encodable(params: tuple[Any, ...]) -> bool:
    """Whether the parameters go as text without psycopg's dumpers (str, int, None)."""
    return all(p is None or type(p) is str or type(p) is int for p in params)


def _encoded(params: tuple[Any, ...]) -> list[bytes | None]:
    return [None if p is None else (p if type(p) is str else str(p)).encode() for p in params]


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


async def _ready(loop: asyncio.AbstractEventLoop, fd: int, *, write: bool = False) -> None:
    fut = loop.create_future()
    if write:
        loop.add_writer(fd, _wake, fut)
    else:
        loop.add_reader(fd, _wake, fut)
    try:
        await fut
    finally:
        if write:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)


async def _result(pgconn: pq.abc.PGconn) -> pq.abc.PGresult:
    """The result of the statement just sent (the last one, the others drained)."""
    loop = asyncio.get_running_loop()
    fd = pgconn.socket
    while pgconn.flush():  # 1: part of the statement is still to be sent
        await _ready(loop, fd, write=True)
    while True:
        pgconn.consume_input()
        if not pgconn.is_busy():
            break
        await _ready(loop, fd)
    result = pgconn.get_result()
    while (more := pgconn.get_result()) is not None:
        result = more
    if result is None:
        raise psycopg.OperationalError("no result from the server")
    return result


async def point_read(
    conn: psycopg.AsyncConnection[Any], sql: str, params: tuple[Any, ...], *, prepare: bool
) -> tuple[Any, ...] | None:
    """The first row of ``sql`` (``?`` parameters, each a str, an int or None: see
    ``encodable``) or None, on an idle autocommit connection; raises PointReadFailed."""
    try:
        return await _point_read(conn, sql, params, prepare)
    except BaseException as exc:  # a broken connection, an error, a cancellation mid-read
        await conn.close()
        if isinstance(exc, psycopg.Error):
            raise PointReadFailed(str(exc)) from exc
        raise


async def _point_read(
    conn: psycopg.AsyncConnection[Any], sql: str, params: tuple[Any, ...], prepare: bool
) -> tuple[Any, ...] | None:
    pgconn = conn.pgconn
    state = _prepared.get(conn)
    if state is None:
        state = _prepared[conn] = ({}, Transformer.from_context(conn))
    names, loader = state
    name, text = _statement(sql)
    if not prepare:
        pgconn.send_query_params(text, _encoded(params))
    else:
        if sql not in names:
            pgconn.send_prepare(name, text)
            _checked(await _result(pgconn), pq.ExecStatus.COMMAND_OK)
            names[sql] = name
        pgconn.send_query_prepared(name, _encoded(params))
    result = _checked(await _result(pgconn), pq.ExecStatus.TUPLES_OK)
    if not result.ntuples:
        return None
    loader.set_pgresult(result)
    row: tuple[Any, ...] = loader.load_row(0, tuple)
    return row


def _checked(result: pq.abc.PGresult, expected: pq.ExecStatus) -> pq.abc.PGresult:
    if result.status != expected:
        raise psycopg.DatabaseError(result.get_error_message() or f"status {result.status}")
    return result
