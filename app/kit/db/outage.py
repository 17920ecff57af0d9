"""The database away for a while: a lost connection, a server restarting, a failover.

What counts as an outage (``is_outage``): SQLAlchemy's connection-level errors
(OperationalError, InterfaceError, any DBAPIError whose connection was invalidated), the
pool's TimeoutError, the driver's own errors of that kind raised outside SQLAlchemy, and
PostgreSQL's "cannot execute ... in a read-only transaction" (SQLSTATE 25006), which a
leader demoted by a failover answers to the writes of its old connections. A request that
meets one is answered 503 with Retry-After (app/kit/problems.py): its transaction rolled back
when the error left its block, so nothing of it is stored and the same request may be sent
again. A SQLite file that cannot be written is not an outage: retrying does not help until the
operator fixes it (``is_permanent``).

``Pause`` is the background tasks' side (the webhook deliverer, the ratings' rater): they
wait, with a growing pause, while the database is away, and go on where they were when it is
back, instead of dropping what they held or logging an error every second.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import exc as sa_exc

T = TypeVar("T")

# The problem type of a database outage (a retryable 503).
PROBLEM_SLUG = "database-unavailable"
# Seconds a client is told to wait before sending the request again.
RETRY_AFTER = 1
_READ_ONLY_SQLSTATE = "25006"


def _sqlstate(exc: BaseException) -> str | None:
    return getattr(getattr(exc, "orig", exc), "sqlstate", None)


def is_permanent(exc: BaseException) -> bool:
    """A SQLite file (or its directory) this process may not write: an operator's fix, not a wait."""
    return "readonly database" in str(getattr(exc, "orig", exc))


def is_read_only(exc: BaseException) -> bool:
    """PostgreSQL refused a write in a read-only transaction (a standby, a demoted leader, or
    default_transaction_read_only)."""
    return _sqlstate(exc) == _READ_ONLY_SQLSTATE


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` says the database cannot be reached or written for now (see the module)."""
    if isinstance(exc, sa_exc.TimeoutError):
        return True
    if isinstance(exc, sa_exc.DBAPIError):
        return (
            exc.connection_invalidated
            or isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError))
            or _sqlstate(exc) == _READ_ONLY_SQLSTATE
        )
    if isinstance(exc, (sqlite3.OperationalError, sqlite3.InterfaceError)):
        return True
    try:
        import psycopg
    except ImportError:  # pragma: no cover - SQLite-only installs
        return False
    return (
        isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError))
        or _sqlstate(exc) == _READ_ONLY_SQLSTATE
    )


class Pause:
    """Runs a background task's step until the database lets it through: while the step
    meets an outage, waits (``first`` seconds, doubled each time up to ``most``) and runs it
    again. Says so in the log once when the database goes away and once when it is back.
    Any other error is the caller's."""

    def __init__(
        self,
        what: str,
        log: logging.Logger,
        *,
        first: float = 0.2,
        most: float = 5.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        self.what = what
        self.log = log
        self.first = first
        self.most = most
        self._sleep = sleep
        self.away_since: float | None = None
        self.waits = 0  # pauses taken, all outages together

    @property
    def paused(self) -> bool:
        return self.away_since is not None

    async def run(self, step: Callable[..., Awaitable[T]], *args: Any) -> T:
        wait = self.first
        while True:
            try:
                result = await step(*args)
            except Exception as exc:
                if not is_outage(exc):
                    raise
                if self.away_since is None:
                    self.away_since = time.monotonic()
                    self.log.warning(
                        "%s: the database is unavailable (%s); paused until it is back",
                        self.what,
                        type(exc).__name__,
                    )
                self.waits += 1
                await self._sleep(wait)
                wait = min(self.most, wait * 2)
                continue
            if self.away_since is not None:
                self.log.warning(
                    "%s: the database is back after %.1f s; resumed",
                    self.what,
                    time.monotonic() - self.away_since,
                )
                self.away_since = None
            return result


def error_kinds() -> tuple[type[Exception], ...]:
    """The exception classes among which ``is_outage`` looks (for an app's error handlers)."""
    kinds: list[type[Exception]] = [sa_exc.DBAPIError, sa_exc.TimeoutError, sqlite3.Error]
    try:
        import psycopg
    except ImportError:  # pragma: no cover
        return tuple(kinds)
    return (*kinds, psycopg.Error)
