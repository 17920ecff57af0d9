"""The webhooks' outbox as a write sees it: an event's deliveries written in the transaction of
the change it announces, one per active endpoint of the owner that wants it (repository.py
holds the statements; app/webhooks delivers them after the commit). Which kinds go, and their
bits in an endpoint's filter, are the catalogue's (catalogue.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, CursorResult
from sqlalchemy.orm import Session

from app.events.catalogue import WEBHOOK_BITS
from app.events.repository import ENQUEUE_CHANGED, ENQUEUE_POSTED, ENQUEUE_WITH_DATA, is_hooked

__all__ = ["enqueue", "enqueue_with_data", "event_params", "is_hooked", "mask", "names"]


def mask(types: Iterable[str]) -> int:
    """An endpoint's stored filter: the bits of the kinds it subscribes to."""
    out = 0
    for name in types:
        out |= WEBHOOK_BITS[name]
    return out


def names(bits: int) -> list[str]:
    """The kinds a stored filter subscribes to, in the catalogue's order."""
    return [name for name, bit in WEBHOOK_BITS.items() if bits & bit]


def event_params(
    owner: str,
    table_id: str,
    revision: int,
    kind: str,
    at: datetime,
    *,
    deal: int | None = None,
    deal_count: int | None = None,
) -> dict[str, Any] | None:
    """The statement's parameters for a change of ``kind``, or None when no endpoint can want
    it (a kind webhooks do not deliver)."""
    bit = WEBHOOK_BITS.get(kind)
    if bit is None:
        return None
    return {
        "event_owner": owner,
        "event_type": kind,
        "event_table": table_id,
        "event_revision": revision,
        "event_deal": deal,
        "event_count": deal_count,
        "event_at": at,
        "event_bit": bit,
    }


def enqueue(conn: Session | Connection, params: dict[str, Any] | None, *, posted: bool = False) -> bool:
    """Write the deliveries of one event in the caller's transaction; whether any was written."""
    if params is None:
        return False
    written = conn.execute(ENQUEUE_POSTED if posted else ENQUEUE_CHANGED, params)
    return bool(cast("CursorResult[Any]", written).rowcount)  # a Session's too, for an INSERT


def enqueue_with_data(
    conn: Session | Connection,
    owner: str,
    table_id: str,
    kind: str,
    at: datetime,
    data: dict[str, Any],
    *,
    revision: int | None = None,
) -> None:
    """Write the deliveries of one event that carries ``data`` (a JSON object stored with each
    delivery: its payload is the same on every attempt, whatever changed since)."""
    params = event_params(owner, table_id, revision or 0, kind, at)
    if params is not None:
        params.update(event_revision=revision, event_data=data)
        conn.execute(ENQUEUE_WITH_DATA, params)
