"""The webhooks' SQL: an owner's endpoints and the tables they are limited to; the delivery
log; and the deliverer's statements — the look for due deliveries, the claim (``FOR UPDATE
SKIP LOCKED`` on PostgreSQL; on SQLite the one writer at a time is the one claimer), the
outcomes of a batch of attempts, and the cleanup of finished deliveries."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from app.events.catalogue import TEST_EVENT
from app.events.orm import (
    WebhookAttemptRow,
    WebhookDeliveryRow,
    WebhookEndpointRow,
    WebhookEndpointTableRow,
)

_E = WebhookEndpointRow.__table__
_ET = WebhookEndpointTableRow.__table__
_D = WebhookDeliveryRow.__table__
_A = WebhookAttemptRow.__table__


@dataclass(frozen=True, slots=True)
class EndpointRecord:
    """An endpoint as stored: its secrets too (the service shows neither)."""

    id: int
    owner: str
    url: str
    types: int  # the event kinds' bits
    all_tables: bool
    secret: str
    previous_secret: str | None
    previous_until: datetime | None
    active: bool
    disabled_at: datetime | None
    disabled_reason: str | None
    failing_since: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class LoggedDelivery:
    """A delivery as its endpoint's log shows it."""

    id: int
    type: str
    table_id: str | None  # a tournament's id for a tournament's event
    revision: int | None
    deal_number: int | None
    occurred_at: datetime
    state: str
    due_at: datetime | None
    attempts: int
    last_status: int | None
    last_error: str | None
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    attempted_at: datetime
    status: int | None
    duration_ms: int
    error: str | None


@dataclass(frozen=True, slots=True)
class ClaimedDelivery:
    """A due delivery claimed for sending, with what its payload and signature need of its endpoint."""

    id: int
    endpoint_id: int
    owner: str
    type: str
    table_id: str | None
    revision: int | None
    deal_number: int | None
    deal_count: int | None
    occurred_at: datetime
    attempts: int
    data: dict[str, Any] | None
    url: str
    secret: str
    previous_secret: str | None
    previous_until: datetime | None
    failing_since: datetime | None


_ENDPOINT = select(*(_E.c[f] for f in EndpointRecord.__dataclass_fields__))
_LOGGED = select(*(_D.c[f] for f in LoggedDelivery.__dataclass_fields__))


# --- endpoints ------------------------------------------------------------------------------


def count_endpoints(session: Session, owner: str) -> int:
    return session.scalar(select(func.count()).select_from(_E).where(_E.c.owner == owner)) or 0


def insert_endpoint(session: Session, values: dict[str, Any], tables: list[str] | None) -> int:
    endpoint_id = session.execute(insert(_E).values(**values).returning(_E.c.id)).scalar_one()
    set_tables(session, endpoint_id, tables)
    return endpoint_id


def set_tables(session: Session, endpoint_id: int, tables: list[str] | None) -> None:
    session.execute(delete(_ET).where(_ET.c.endpoint_id == endpoint_id))
    if tables:
        session.execute(insert(_ET), [{"endpoint_id": endpoint_id, "table_id": t} for t in tables])


def endpoint_row(
    session: Session, owner: str, endpoint_id: int, *, lock: bool = False
) -> EndpointRecord | None:
    query = _ENDPOINT.where(_E.c.id == endpoint_id, _E.c.owner == owner)
    if lock:
        query = query.with_for_update()
    row = session.execute(query).one_or_none()
    return None if row is None else EndpointRecord(*row)


def endpoint_rows(session: Session, owner: str) -> list[EndpointRecord]:
    return [
        EndpointRecord(*row)
        for row in session.execute(_ENDPOINT.where(_E.c.owner == owner).order_by(_E.c.id))
    ]


def tables_of(session: Session, endpoint_ids: list[int]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = defaultdict(list)
    if endpoint_ids:
        rows = session.execute(
            select(_ET.c.endpoint_id, _ET.c.table_id)
            .where(_ET.c.endpoint_id.in_(endpoint_ids))
            .order_by(_ET.c.table_id)
        )
        for endpoint_id, table_id in rows:
            out[endpoint_id].append(table_id)
    return out


def change_endpoint(session: Session, endpoint_id: int, values: dict[str, Any]) -> None:
    session.execute(update(_E).where(_E.c.id == endpoint_id).values(**values))


def delete_endpoint(session: Session, endpoint_id: int) -> None:
    # The deliveries and their attempts go with it (ON DELETE CASCADE); said here too, for a
    # SQLite connection made without the foreign keys pragma.
    deliveries = select(_D.c.id).where(_D.c.endpoint_id == endpoint_id).scalar_subquery()
    session.execute(delete(_A).where(_A.c.delivery_id.in_(deliveries)))
    session.execute(delete(_D).where(_D.c.endpoint_id == endpoint_id))
    session.execute(delete(_ET).where(_ET.c.endpoint_id == endpoint_id))
    session.execute(delete(_E).where(_E.c.id == endpoint_id))


# --- the delivery log -------------------------------------------------------------------------


def insert_test_delivery(session: Session, endpoint: EndpointRecord, at: datetime) -> int:
    return session.execute(
        insert(_D)
        .values(
            endpoint_id=endpoint.id,
            owner=endpoint.owner,
            type=TEST_EVENT,
            occurred_at=at,
            state="pending",
            due_at=at,
            attempts=0,
        )
        .returning(_D.c.id)
    ).scalar_one()


def delivery_rows(
    session: Session, endpoint_id: int, *, before: int | None, rows: int
) -> list[LoggedDelivery]:
    """The endpoint's deliveries, newest first, ids below ``before`` (keyset paging)."""
    query = _LOGGED.where(_D.c.endpoint_id == endpoint_id)
    if before is not None:
        query = query.where(_D.c.id < before)
    return [LoggedDelivery(*row) for row in session.execute(query.order_by(_D.c.id.desc()).limit(rows))]


def delivery_row(session: Session, endpoint_id: int, delivery_id: int) -> LoggedDelivery | None:
    row = session.execute(
        _LOGGED.where(_D.c.id == delivery_id, _D.c.endpoint_id == endpoint_id)
    ).one_or_none()
    return None if row is None else LoggedDelivery(*row)


def attempts_of(session: Session, delivery_ids: list[int], latest: int) -> dict[int, list[AttemptRecord]]:
    """The latest ``latest`` attempts of each delivery, oldest first."""
    out: dict[int, list[AttemptRecord]] = defaultdict(list)
    if not delivery_ids:
        return out
    rows = session.execute(
        select(_A.c.delivery_id, _A.c.attempted_at, _A.c.status, _A.c.duration_ms, _A.c.error)
        .where(_A.c.delivery_id.in_(delivery_ids))
        .order_by(_A.c.delivery_id, _A.c.id.desc())
    )
    for delivery_id, *attempt in rows:
        if len(out[delivery_id]) < latest:
            out[delivery_id].append(AttemptRecord(*attempt))
    return {k: v[::-1] for k, v in out.items()}


def redeliver(session: Session, delivery_id: int, now: datetime) -> None:
    """Pending again, due now, with the same webhook-id."""
    session.execute(
        update(_D).where(_D.c.id == delivery_id).values(state="pending", due_at=now, finished_at=None)
    )


# --- the deliverer --------------------------------------------------------------------------

_DUE = select(_D.c.id).where(_D.c.state == "pending", _D.c.due_at <= bindparam("now")).limit(1)
_OLDEST = select(func.min(_D.c.occurred_at)).where(_D.c.state == "pending")


def anything_due(conn: Connection, now: datetime) -> bool:
    """A read, no lock: whether a claim would find anything (most looks find nothing)."""
    return conn.execute(_DUE, {"now": now}).first() is not None


def oldest_pending(conn: Connection) -> datetime | None:
    return conn.execute(_OLDEST).scalar()


def claim_order(
    conn: Connection,
    now: datetime,
    rows: int,
    per_endpoint: int,
    skip_owners: list[str],
    skip_endpoints: list[int],
) -> list[int]:
    """Ids of due deliveries of active endpoints in turns, at most ``rows``: each owner's
    first, then each owner's second…, an owner's turns going round its endpoints (each
    endpoint's oldest due first, at most ``per_endpoint`` of one). The owners and endpoints
    named are left out (they hold all they may). A read: ``claim_candidates`` locks."""
    where = [_D.c.state == "pending", _D.c.due_at <= now, _E.c.active, _E.c.disabled_at.is_(None)]
    if skip_owners:
        where.append(_D.c.owner.not_in(skip_owners))
    if skip_endpoints:
        where.append(_D.c.endpoint_id.not_in(skip_endpoints))
    owners = (
        conn.execute(
            select(_D.c.owner).join(_E, _E.c.id == _D.c.endpoint_id).where(*where).distinct().limit(2)
        )
        .scalars()
        .all()
    )
    if len(owners) <= 1:
        return _one_owners_turns(conn, where, rows, per_endpoint)
    return _owners_turns(conn, where, rows, per_endpoint)


def _one_owners_turns(conn: Connection, where: list[Any], rows: int, per_endpoint: int) -> list[int]:
    """One owner due (the usual case): its oldest, the endpoints' turns made here; the
    ranking of ``_owners_turns`` reads every due row, this only the first ones by the due index."""
    query = select(_D.c.id, _D.c.endpoint_id).join(_E, _E.c.id == _D.c.endpoint_id).where(*where)
    found = conn.execute(query.order_by(_D.c.due_at, _D.c.id).limit(rows)).all()
    nth: Counter[int] = Counter()
    turns = []
    for place, (delivery, endpoint) in enumerate(found):
        nth[endpoint] += 1
        if nth[endpoint] <= per_endpoint:
            turns.append((nth[endpoint], place, delivery))
    return [delivery for _n, _p, delivery in sorted(turns)]


def _owners_turns(conn: Connection, where: list[Any], rows: int, per_endpoint: int) -> list[int]:
    """Several owners due: each endpoint's due rows ranked, then each owner's, in SQL."""
    due = (
        select(
            _D.c.id,
            _D.c.owner,
            _D.c.due_at,
            func.row_number()
            .over(partition_by=_D.c.endpoint_id, order_by=(_D.c.due_at, _D.c.id))
            .label("nth"),
        )
        .join(_E, _E.c.id == _D.c.endpoint_id)
        .where(*where)
        .subquery()
    )
    turns_ = (
        select(
            due.c.id,
            due.c.due_at,
            func.row_number()
            .over(partition_by=due.c.owner, order_by=(due.c.nth, due.c.due_at, due.c.id))
            .label("turn"),
        )
        .where(due.c.nth <= per_endpoint)
        .subquery()
    )
    return list(
        conn.execute(
            select(turns_.c.id).order_by(turns_.c.turn, turns_.c.due_at, turns_.c.id).limit(rows)
        ).scalars()
    )


_CLAIMABLE = (
    select(*(_D.c[f] if f in _D.c else _E.c[f] for f in ClaimedDelivery.__dataclass_fields__))
    .join(_E, _E.c.id == _D.c.endpoint_id)
    .where(
        _D.c.id.in_(bindparam("ids", expanding=True)),
        _D.c.state == "pending",
        _D.c.due_at <= bindparam("now"),
        _E.c.active,
        _E.c.disabled_at.is_(None),
    )
    .with_for_update(of=_D, skip_locked=True)  # SQLite renders none: its writer holds the file
)
_LEASE = update(_D).where(_D.c.id == bindparam("claimed")).values(due_at=bindparam("lease_until"))


def claim_candidates(conn: Connection, now: datetime, ids: list[int]) -> list[ClaimedDelivery]:
    """These deliveries (``claim_order``'s) if still due, in that order, locked (rows another
    claim holds are skipped); the claimer takes some of them (``lease``) and leaves the rest
    to the next claim."""
    if not ids:
        return []
    found = {row[0]: ClaimedDelivery(*row) for row in conn.execute(_CLAIMABLE, {"now": now, "ids": ids})}
    return [found[i] for i in ids if i in found]


def lease(conn: Connection, ids: list[int], lease_until: datetime) -> None:
    """The claimed deliveries pushed one lease ahead: another claim skips them and, if this
    process dies with them, they are due again then."""
    if ids:
        conn.execute(_LEASE, [{"claimed": i, "lease_until": lease_until} for i in ids])


_ATTEMPT = insert(_A).values(
    delivery_id=bindparam("delivery"),
    attempted_at=bindparam("attempted_at"),
    status=bindparam("status"),
    duration_ms=bindparam("duration_ms"),
    error=bindparam("error"),
)
_OUTCOME = (
    update(_D)
    .where(_D.c.id == bindparam("delivery"))
    .values(
        state=bindparam("new_state"),
        due_at=bindparam("next_at"),
        attempts=_D.c.attempts + 1,
        last_status=bindparam("status"),
        last_error=bindparam("error"),
        finished_at=bindparam("done_at"),
    )
)


def release(conn: Connection, due: list[dict[str, Any]]) -> None:
    """Claimed deliveries given back unsent, due again at ``due_at`` (no attempt counted)."""
    if due:
        conn.execute(update(_D).where(_D.c.id == bindparam("delivery")).values(due_at=bindparam("due")), due)


def existing(conn: Connection, delivery_ids: list[int]) -> set[int]:
    """Which of these deliveries are still there (their endpoint not deleted meanwhile), each
    kept there until the commit (``FOR KEY SHARE``: an endpoint's deletion waits)."""
    if not delivery_ids:
        return set()
    query = select(_D.c.id).where(_D.c.id.in_(delivery_ids)).with_for_update(key_share=True)
    return set(conn.execute(query).scalars())


def record(conn: Connection, outcomes: list[dict[str, Any]]) -> None:
    """A batch of attempts: each delivery's attempt row and its new state (``delivery``,
    ``attempted_at``, ``status``, ``duration_ms``, ``error``, ``new_state``, ``next_at``, ``done_at``)."""
    if outcomes:
        conn.execute(_ATTEMPT, outcomes)
        conn.execute(_OUTCOME, outcomes)


def endpoints_answered(conn: Connection, endpoint_ids: list[int]) -> None:
    """A delivery went through: these endpoints are not failing (any more)."""
    if endpoint_ids:
        conn.execute(
            update(_E)
            .where(_E.c.id.in_(endpoint_ids), _E.c.failing_since.is_not(None))
            .values(failing_since=None)
        )


def endpoint_failing(
    conn: Connection, endpoint_id: int, now: datetime, give_up_before: datetime, reason: str
) -> bool:
    """An attempt failed: the endpoint is failing since its first failure; one failing since
    before ``give_up_before`` is disabled with ``reason``. Whether it was disabled now."""
    conn.execute(
        update(_E).where(_E.c.id == endpoint_id, _E.c.failing_since.is_(None)).values(failing_since=now)
    )
    disabled = conn.execute(
        update(_E)
        .where(_E.c.id == endpoint_id, _E.c.disabled_at.is_(None), _E.c.failing_since <= give_up_before)
        .values(disabled_at=now, disabled_reason=reason[:500], updated_at=now)
    ).rowcount
    return bool(disabled)


def disable(conn: Connection, endpoint_id: int, now: datetime, reason: str) -> None:
    conn.execute(
        update(_E)
        .where(_E.c.id == endpoint_id, _E.c.disabled_at.is_(None))
        .values(disabled_at=now, disabled_reason=reason[:500], updated_at=now)
    )


def anything_to_clean(conn: Connection, cutoff: datetime) -> bool:
    """A read: whether ``clean`` would delete anything (a server without webhooks never writes for them)."""
    query = select(_D.c.id).where(_D.c.state != "pending", _D.c.finished_at < cutoff).limit(1)
    return conn.execute(query).first() is not None


def clean(conn: Connection, cutoff: datetime, rows: int) -> int:
    """At most ``rows`` deliveries finished before ``cutoff``, with their attempts; how many."""
    ids = list(
        conn.execute(
            select(_D.c.id)
            .where(_D.c.state != "pending", _D.c.finished_at < cutoff)
            .limit(rows)
            .with_for_update(skip_locked=True)
        ).scalars()
    )
    if not ids:
        return 0
    conn.execute(delete(_A).where(_A.c.delivery_id.in_(ids)))
    return conn.execute(delete(_D).where(_D.c.id.in_(ids))).rowcount
