"""The kit's SQL: what every domain asks of an owner (the lock that serialises its registrations,
tables and players alike), the change feed's notification, and the rate limit's shared
counters (app/kit/limiter.py)."""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, delete, func, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.kit.db.models import RateLimitRow

_OWNER_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:owner, 15))")


def lock_owner(session: Session, owner: str) -> None:
    """Serialise the registrations of one owner (its tables, its players) in their writing
    transactions, so that two at once cannot both pass a limit or take one external id.
    SQLite: the writer already holds the database. PostgreSQL: a transaction-scoped advisory
    lock on the owner's name."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_OWNER_LOCK, {"owner": owner})


# --- the change feed (app/events/changes.py) -----------------------------------------------

CHANNEL = "prefscore_tables"

# PostgreSQL's notification of a change, as a column expression, so that a write can carry
# it in its own statement; its parameter is ``notification`` (app.events.changes.notification).
NOTIFY = func.pg_notify(bindparam("channel", CHANNEL), bindparam("notification"))
_NOTIFY_ALONE = select(NOTIFY)


def notify(session: Session, notification: str) -> None:
    """PostgreSQL: deliver ``notification`` on the channel when this transaction commits."""
    session.execute(_NOTIFY_ALONE, {"notification": notification})


# --- the rate limit's counters (table rate_limits) ----------------------------------------

_RATE_LIMITS = RateLimitRow.__table__


def reserve_hits(conn: Connection, bucket: str, window: int, n: int) -> int:
    """Add ``n`` hits to ``bucket``'s count in ``window``; the new count. One
    ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``, atomic on both databases."""
    t = _RATE_LIMITS
    insert = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    counted = insert(t).values(bucket=bucket, window=window, count=n)
    stmt = counted.on_conflict_do_update(
        index_elements=[t.c.bucket, t.c.window], set_={"count": t.c.count + n}
    ).returning(t.c.count)
    return int(conn.execute(stmt).scalar_one())


def forget_windows_before(conn: Connection, window: int) -> None:
    """Delete every count of a window before ``window``."""
    conn.execute(delete(_RATE_LIMITS).where(_RATE_LIMITS.c.window < window))
