"""How a write announces a change of a table.

PostgreSQL: ``pg_notify`` in the same transaction, so the notification is delivered to every
listening process if and only if the write commits. Every database: the change is also handed
to this process's hub once the write has committed (no round trip through the database for
the subscribers of the process that wrote).

Every database: the webhooks' outbox gets the deliveries of the change in the same
transaction (app/events/outbox.py), so that a committed change is delivered at least once.

A write through a Session calls ``announce`` inside its transaction and the hand-over follows
its commit. Posting a deal writes on a plain Connection with its notification in its own
statement (``NOTIFY``, app/deals/service.py) and calls ``committed`` once it has committed,
with the table as it stored it: the hub then sends that state to this process's streams
without reading it back."""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.events.outbox import enqueue, event_params
from app.kit.db.models import utcnow
from app.kit.repository import CHANNEL, NOTIFY, notify

log = logging.getLogger("prefscore.events")
_PENDING = "prefscore_changes"
# NOTIFY: the notification as a column expression, for a write that carries it in its own
# statement (posting a deal); its parameter ``notification`` is the text ``notification()`` makes.

# (table_id, owner, revision, kind, stored) -> None, called after commit from the writing
# thread; ``stored`` is the table as the write stored it (an app.tables.service.TableInfo)
# when the write has it at hand, else None (the hub reads it).
Sink = Callable[[str, str, int, str, Any], None]
_sinks: list[Sink] = []
# Told, after a commit that wrote webhook deliveries, that some are due (the deliverer claims
# them); a commit that wrote none tells them nothing (every post would cost the deliverer a look).
_delivery_sinks: list[Callable[[], None]] = []
_DELIVERIES = "prefscore_deliveries"


_origin: tuple[int, str] | None = None


def origin() -> str:
    """This process, as its notifications name it: its listener ignores its own, since every
    write of this process hands its change over in-process as well (and a post the table it
    stored, which the hub then need not read back). Made again in a forked child."""
    global _origin
    pid = os.getpid()
    if _origin is None or _origin[0] != pid:
        _origin = (pid, f"{pid}-{secrets.token_hex(6)}")
    return _origin[1]


def notification(table_id: str, owner: str, revision: int, kind: str) -> str:
    """The text PostgreSQL delivers to every listening process (app/live/pg_listener.py):
    the table, its owner, revision and kind, and the process that wrote it."""
    return json.dumps([table_id, owner, revision, kind, origin()], separators=(",", ":"))


def announce(
    session: Session, table_id: str, owner: str, revision: int, kind: str, *, deal: int | None = None
) -> None:
    """Announce that ``table_id`` is at ``revision`` after a change of ``kind`` (a kind of the
    catalogue, app/events/catalogue.py; ``deal``: the deal it undid or corrected), once this
    transaction commits. The webhooks' deliveries of the change are written in this
    transaction (app/events/outbox.py)."""
    if enqueue(session, event_params(owner, table_id, revision, kind, utcnow(), deal=deal)):
        session.info[_DELIVERIES] = True
    if session.get_bind().dialect.name == "postgresql":
        notify(session, notification(table_id, owner, revision, kind))
    session.info.setdefault(_PENDING, []).append((table_id, owner, revision, kind, None))


def committed(
    table_id: str, owner: str, revision: int, kind: str, stored: Any = None, *, deliveries: bool = True
) -> None:
    """Hand this process's hub a change that has committed (a write that sent its own
    notification: posting a deal), with the table as stored when the writer has it;
    ``deliveries``: whether the write may have written webhook deliveries. It never raises:
    the write is done, and a stream that missed this catches up on its next read."""
    try:
        _hand_over([(table_id, owner, revision, kind, stored)], deliveries=deliveries)
    except Exception:  # noqa: BLE001
        log.exception("live updates: a committed change of table %s could not be handed over", table_id)


def taken(session: Session) -> list[tuple[str, str, int, str, Any]]:
    """The changes ``session`` announced, taken from it: for a Session that writes inside a
    plain Connection's transaction (its commit is the Connection's, which no Session event
    follows), whose writer hands them over with ``hand_over`` once it has committed."""
    session.info.pop(_DELIVERIES, None)  # ``hand_over`` takes any change as a maybe
    return list(session.info.pop(_PENDING, None) or ())


def hand_over(changes: list[tuple[str, str, int, str, Any]]) -> None:
    """``committed`` for changes ``taken`` from a Session (told, if any, that deliveries may
    be due): never raises."""
    try:
        _hand_over(changes, deliveries=bool(changes))
    except Exception:  # noqa: BLE001
        log.exception("live updates: committed changes could not be handed over")


def add_sink(sink: Sink) -> None:
    if sink not in _sinks:
        _sinks.append(sink)


def remove_sink(sink: Sink) -> None:
    if sink in _sinks:
        _sinks.remove(sink)


def add_delivery_sink(sink: Callable[[], None]) -> None:
    if sink not in _delivery_sinks:
        _delivery_sinks.append(sink)


def remove_delivery_sink(sink: Callable[[], None]) -> None:
    if sink in _delivery_sinks:
        _delivery_sinks.remove(sink)


def _hand_over(changes: list[tuple[str, str, int, str, Any]] | None, *, deliveries: bool) -> None:
    for sink in list(_sinks):
        for change in changes or ():
            sink(*change)
    if deliveries:
        for told in list(_delivery_sinks):
            told()


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    _hand_over(session.info.pop(_PENDING, None), deliveries=session.info.pop(_DELIVERIES, False))


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_PENDING, None)
    session.info.pop(_DELIVERIES, None)


# CHANNEL and NOTIFY are the repository's, named here for the writers that announce.
__all__ = [
    "CHANNEL",
    "NOTIFY",
    "Sink",
    "add_delivery_sink",
    "add_sink",
    "announce",
    "committed",
    "hand_over",
    "notification",
    "origin",
    "remove_delivery_sink",
    "remove_sink",
    "taken",
]
