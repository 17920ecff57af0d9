"""The hook a write calls inside its transaction to announce a change of a table.

PostgreSQL: ``pg_notify`` in the same transaction, so the notification is delivered to every
listening process if and only if the write commits. Every database: the change is also handed
to this process's hub once the session commits (no round trip through the database for the
subscribers of the process that wrote)."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import event, text
from sqlalchemy.orm import Session

CHANNEL = "prefscore_tables"
_PENDING = "prefscore_changes"

# (table_id, owner, revision, kind) -> None, called after commit from the writing thread.
Sink = Callable[[str, str, int, str], None]
_sinks: list[Sink] = []


def announce(session: Session, table_id: str, owner: str, revision: int, kind: str) -> None:
    """Announce that ``table_id`` is at ``revision`` after a change of ``kind`` (one of
    app.events.KINDS), once this transaction commits."""
    if session.get_bind().dialect.name == "postgresql":
        payload = json.dumps([table_id, owner, revision, kind], separators=(",", ":"))
        session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": payload})
    session.info.setdefault(_PENDING, []).append((table_id, owner, revision, kind))


def add_sink(sink: Sink) -> None:
    if sink not in _sinks:
        _sinks.append(sink)


def remove_sink(sink: Sink) -> None:
    if sink in _sinks:
        _sinks.remove(sink)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    changes = session.info.pop(_PENDING, None)
    if changes:
        for sink in list(_sinks):
            for change in changes:
                sink(*change)


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_PENDING, None)
