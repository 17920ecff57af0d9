"""The hook a write calls inside its transaction to announce a change of a table.

PostgreSQL: ``pg_notify`` in the same transaction, so the notification is delivered to every
listening process if and only if the write commits. Every database: the change is also handed
to this process's hub once the session commits (no round trip through the database for the
subscribers of the process that wrote)."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import Connection, Engine, bindparam, event, func, select
from sqlalchemy.orm import Session

CHANNEL = "prefscore_tables"
_PENDING = "prefscore_changes"

# PostgreSQL's notification of a change, as a column expression, so that a write can carry
# it in its own statement (posting a deal does: app/services/deals.py); its parameter is
# ``notification``, the text that ``notification()`` makes.
NOTIFY = func.pg_notify(bindparam("channel", CHANNEL), bindparam("notification"))
_NOTIFY_ALONE = select(NOTIFY)

# (table_id, owner, revision, kind) -> None, called after commit from the writing thread.
Sink = Callable[[str, str, int, str], None]
_sinks: list[Sink] = []


def notification(table_id: str, owner: str, revision: int, kind: str) -> str:
    """The text PostgreSQL delivers to every listening process (app/events/pg_listener.py)."""
    return json.dumps([table_id, owner, revision, kind], separators=(",", ":"))


def announce(
    session: Session | Connection, table_id: str, owner: str, revision: int, kind: str, *, notified: bool = False
) -> None:
    """Announce that ``table_id`` is at ``revision`` after a change of ``kind`` (one of
    app.events.KINDS), once this transaction commits. ``session`` is the write's Session, or
    its plain Connection (posting a deal writes on one: app/db/engine.py write_core).
    ``notified``: the write's own statement carried ``NOTIFY`` with this ``notification()``."""
    dialect = session.dialect if isinstance(session, Connection) else session.get_bind().dialect
    if dialect.name == "postgresql" and not notified:
        session.execute(_NOTIFY_ALONE, {"notification": notification(table_id, owner, revision, kind)})
    session.info.setdefault(_PENDING, []).append((table_id, owner, revision, kind))


def add_sink(sink: Sink) -> None:
    if sink not in _sinks:
        _sinks.append(sink)


def remove_sink(sink: Sink) -> None:
    if sink in _sinks:
        _sinks.remove(sink)


def _hand_over(changes: list[tuple[str, str, int, str]] | None) -> None:
    for sink in list(_sinks):
        for change in changes or ():
            sink(*change)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    _hand_over(session.info.pop(_PENDING, None))


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_PENDING, None)


# A write on a plain Connection keeps its changes in the connection's info. Its "commit" event
# comes just before the database's COMMIT: a commit that then fails hands the hub a change
# that did not happen, which costs one read of the table (the hub reads every change from the
# database, so no stream is told a revision that is not stored).
@event.listens_for(Engine, "commit")
def _connection_committed(conn: Connection) -> None:
    _hand_over(conn.info.pop(_PENDING, None))


@event.listens_for(Engine, "rollback")
def _connection_rolled_back(conn: Connection) -> None:
    conn.info.pop(_PENDING, None)
