"""Webhooks: register an endpoint (its ``whsec_`` secret given out once), list, read, change
(URL, event types, tables, pause and resume), delete, rotate the secret (the previous one
signs beside it for ``PREFSCORE_WEBHOOKS_SECRET_OVERLAP``), the delivery log, a redelivery,
a test event. Deliveries themselves are written by the changes (app/events/outbox.py) and sent
by delivery.py."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.events.catalogue import TOURNAMENT_HOOKS
from app.events.outbox import mask, names
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.rules import FieldError, Sentence, said, sentence
from app.webhooks import addresses
from app.webhooks import repository as repo
from app.webhooks.limits import WEBHOOK_ATTEMPTS_SHOWN, WEBHOOKS_PER_OWNER
from app.webhooks.model import Attempt, Created, Delivery, Endpoint

__all__ = ["Created", "Delivery", "Endpoint"]

UNSET: Any = object()


@dataclass(frozen=True)
class Policy:
    """What the settings say about endpoints: the networks allowed although private, the
    secret rotation's overlap."""

    allowed: tuple = ()
    overlap: timedelta = timedelta(days=1)


def new_secret() -> str:
    """24 random bytes, base64, with the specification's ``whsec_`` prefix."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def check_url(url: str, policy: Policy) -> None:
    """The URL may be a webhook's (addresses.py), or 422 naming ``url``."""
    try:
        addresses.resolve(url, policy.allowed)
    except addresses.AddressRefused as exc:
        raise Unprocessable(
            Sentence("the webhook's url is refused: {reason}", reason=sentence(said(exc))),
            [FieldError("url", said(exc))],
        ) from None


def _endpoint(row: repo.EndpointRecord, tables: list[str] | None) -> Endpoint:
    return Endpoint(
        id=row.id,
        url=row.url,
        types=tuple(names(row.types)),
        tables=None if row.all_tables else tuple(tables or ()),
        active=row.active,
        disabled_at=row.disabled_at,
        disabled_reason=row.disabled_reason,
        failing_since=row.failing_since,
        previous_secret_until=row.previous_until if row.previous_secret else None,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _found(session: Any, owner: str, endpoint_id: int, *, lock: bool = False) -> repo.EndpointRecord:
    row = repo.endpoint_row(session, owner, endpoint_id, lock=lock)
    if row is None:  # another owner's endpoint too
        raise NotFound(Sentence("no webhook {endpoint_id}", endpoint_id=endpoint_id))
    return row


def _distinct(items: list[str] | None) -> list[str] | None:
    return None if items is None else list(dict.fromkeys(items))


def create(
    db: Database, owner: str, url: str, types: list[str], tables: list[str] | None, policy: Policy
) -> Created:
    check_url(url, policy)
    tables = _distinct(tables)
    secret = new_secret()
    now = utcnow()
    with db.write() as session:
        if repo.count_endpoints(session, owner) >= WEBHOOKS_PER_OWNER:
            raise Conflict(
                Sentence(
                    "an owner may have {webhooks_per_owner} webhooks; delete one first",
                    webhooks_per_owner=WEBHOOKS_PER_OWNER,
                ),
                reason="webhook_limit",
                limit=WEBHOOKS_PER_OWNER,
            )
        values = {
            "owner": owner,
            "url": url,
            "types": mask(types),
            "all_tables": tables is None,
            "secret": secret,
            "active": True,
            "created_at": now,
            "updated_at": now,
        }
        endpoint_id = repo.insert_endpoint(session, values, tables)
        row = repo.endpoint_row(session, owner, endpoint_id)
        assert row is not None  # just written
        return Created(_endpoint(row, tables), secret)


def list_endpoints(db: Database, owner: str) -> list[Endpoint]:
    with db.read() as session:
        rows = repo.endpoint_rows(session, owner)
        tables = repo.tables_of(session, [r.id for r in rows])
        return [_endpoint(r, tables.get(r.id)) for r in rows]


def get(db: Database, owner: str, endpoint_id: int) -> Endpoint:
    with db.read() as session:
        row = _found(session, owner, endpoint_id)
        return _endpoint(row, repo.tables_of(session, [row.id]).get(row.id))


def change(
    db: Database,
    owner: str,
    endpoint_id: int,
    policy: Policy,
    *,
    url: str = UNSET,
    types: list[str] = UNSET,
    tables: list[str] | None = UNSET,
    active: bool | None = None,
) -> Endpoint:
    """Change what is given. ``active``: False pauses (nothing is written for it meanwhile),
    True resumes — a disabled endpoint too, its reason cleared and its failures forgotten."""
    if url is not UNSET:
        check_url(url, policy)
    if tables is not UNSET:
        tables = _distinct(tables)
    now = utcnow()
    with db.write() as session:
        row = _found(session, owner, endpoint_id, lock=True)
        values: dict[str, Any] = {"updated_at": now}
        if url is not UNSET:
            values["url"] = url
        if types is not UNSET:
            values["types"] = mask(types)
        if tables is not UNSET:
            values["all_tables"] = tables is None
            repo.set_tables(session, row.id, tables)
        if active is not None:
            values["active"] = active
            if active:
                values.update(disabled_at=None, disabled_reason=None, failing_since=None)
        repo.change_endpoint(session, row.id, values)
        fresh = _found(session, owner, endpoint_id)
        return _endpoint(fresh, repo.tables_of(session, [row.id]).get(row.id))


def delete(db: Database, owner: str, endpoint_id: int) -> None:
    with db.write() as session:
        row = _found(session, owner, endpoint_id, lock=True)
        repo.delete_endpoint(session, row.id)


def rotate_secret(db: Database, owner: str, endpoint_id: int, policy: Policy) -> Created:
    """A new secret; the one it replaces signs beside it (both in ``webhook-signature``)
    until the overlap is over, so that receivers can change theirs meanwhile."""
    secret = new_secret()
    now = utcnow()
    with db.write() as session:
        row = _found(session, owner, endpoint_id, lock=True)
        repo.change_endpoint(
            session,
            row.id,
            {
                "secret": secret,
                "previous_secret": row.secret,
                "previous_until": now + policy.overlap,
                "updated_at": now,
            },
        )
        fresh = _found(session, owner, endpoint_id)
        return Created(_endpoint(fresh, repo.tables_of(session, [row.id]).get(row.id)), secret)


def _delivery(row: repo.LoggedDelivery | None, attempts: list[repo.AttemptRecord]) -> Delivery:
    assert row is not None  # found or just written, in this transaction
    return Delivery(
        id=row.id,
        type=row.type,
        # A tournament's event keeps the tournament's id where a table's keeps the table's.
        table_id=None if row.type in TOURNAMENT_HOOKS else row.table_id,
        tournament_id=row.table_id if row.type in TOURNAMENT_HOOKS else None,
        revision=row.revision,
        deal_number=row.deal_number,
        occurred_at=row.occurred_at,
        state=row.state,
        next_attempt_at=row.due_at if row.state == "pending" else None,
        attempt_count=row.attempts,
        last_status=row.last_status,
        last_error=row.last_error,
        finished_at=row.finished_at,
        attempts=tuple(Attempt(a.attempted_at, a.status, a.duration_ms, a.error) for a in attempts),
    )


def deliveries(
    db: Database, owner: str, endpoint_id: int, *, before: int | None, limit: int
) -> tuple[list[Delivery], int | None]:
    """The endpoint's deliveries, newest first, with their latest attempts; keyset-paged by
    id (the next page: ids below the last one given)."""
    with db.read() as session:
        row = _found(session, owner, endpoint_id)
        rows = repo.delivery_rows(session, row.id, before=before, rows=limit + 1)
        page = rows[:limit]
        attempts = repo.attempts_of(session, [r.id for r in page], WEBHOOK_ATTEMPTS_SHOWN)
        out = [_delivery(r, attempts.get(r.id, [])) for r in page]
        return out, (page[-1].id if len(rows) > limit else None)


def redeliver(db: Database, owner: str, endpoint_id: int, delivery_id: int) -> Delivery:
    """Send a delivery again, now, with its webhook-id (a receiver that has it sees a repeat)."""
    now = utcnow()
    with db.write() as session:
        row = _found(session, owner, endpoint_id, lock=True)
        found = repo.delivery_row(session, row.id, delivery_id)
        if found is None:
            raise NotFound(
                Sentence(
                    "webhook {endpoint_id} has no delivery {delivery_id}",
                    endpoint_id=endpoint_id,
                    delivery_id=delivery_id,
                )
            )
        repo.redeliver(session, found.id, now)
        return _delivery(repo.delivery_row(session, row.id, delivery_id), [])


def send_test(db: Database, owner: str, endpoint_id: int) -> Delivery:
    """A ``webhook.test`` event to this endpoint alone (a paused or disabled one waits for its resume)."""
    now = utcnow()
    with db.write() as session:
        row = _found(session, owner, endpoint_id, lock=True)
        delivery_id = repo.insert_test_delivery(session, row, now)
        return _delivery(repo.delivery_row(session, row.id, delivery_id), [])


def latest_at(deliveries_: list[Delivery]) -> datetime | None:
    return max((d.occurred_at for d in deliveries_), default=None)
