"""The outbox's SQL: the statement that writes one webhook delivery per matching endpoint in
the transaction of the change it announces (outbox.py makes its parameters; app/webhooks
delivers them after the commit).

The statement is an ``INSERT … SELECT`` from the owner's endpoints: with no active endpoint
that wants the event it writes nothing, and costs one indexed lookup (on PostgreSQL it rides
in the deal post's one statement as a CTE, no round trip of its own)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    DateTime,
    Integer,
    String,
    and_,
    bindparam,
    cast,
    column,
    exists,
    insert,
    literal,
    or_,
    select,
    table,
    type_coerce,
)
from sqlalchemy.orm import Session

# The webhooks' tables (app/webhooks/orm.py, a domain above) by their names, with the columns
# these statements use.
_E = table(
    "webhook_endpoints",
    column("id", Integer),
    column("owner", String),
    column("types", Integer),
    column("all_tables", Boolean),
    column("active", Boolean),
    column("disabled_at", DateTime(timezone=True)),
)
_ET = table("webhook_endpoint_tables", column("endpoint_id", Integer), column("table_id", String))
_D = table(
    "webhook_deliveries",
    *(column(name, Integer) for name in ("endpoint_id", "revision", "deal_number", "deal_count", "attempts")),
    *(column(name, String) for name in ("owner", "type", "table_id", "state")),
    *(column(name, DateTime(timezone=True)) for name in ("occurred_at", "due_at")),
    column("data", JSON),
)
_TABLES = table("tables", column("id"), column("deal_count"))  # app/tables/orm.py, by its name


# Typed, not CAST: SQLite would read CAST(… AS DATETIME) as a number; psycopg sends a
# datetime as timestamptz by itself.
_AT = DateTime(timezone=True)


def _enqueue(deal_count: Any, *, data: bool = False) -> Any:
    """INSERT … SELECT: one pending delivery per active endpoint of the owner that wants this
    type of event for this table. The parameters are named apart from every column (the
    statement may be a CTE of the deal post's). ``data``: the event's own data (a JSON
    object, ``event_data``) is stored with it, for an event whose payload its row's columns
    cannot make."""
    extra = [type_coerce(bindparam("event_data"), JSON)] if data else []
    wanted = select(
        _E.c.id,
        _E.c.owner,
        cast(bindparam("event_type"), String(40)),
        cast(bindparam("event_table"), String(32)),
        cast(bindparam("event_revision"), Integer),
        cast(bindparam("event_deal"), Integer),
        deal_count,
        bindparam("event_at", type_=_AT),
        literal("pending", String(12)),
        bindparam("event_at", type_=_AT),
        literal(0, Integer),
        *extra,
    ).where(
        _E.c.owner == bindparam("event_owner"),
        _E.c.active,
        _E.c.disabled_at.is_(None),
        _E.c.types.op("&")(cast(bindparam("event_bit"), Integer)) != 0,
        or_(
            _E.c.all_tables,
            exists().where(and_(_ET.c.endpoint_id == _E.c.id, _ET.c.table_id == bindparam("event_table"))),
        ),
    )
    # PostgreSQL: each endpoint row is locked as its foreign key would lock it (FOR KEY SHARE),
    # so that an endpoint deleted by a transaction under way is waited for and then skipped; the
    # insert's own key check would otherwise find it gone and fail the whole write (a deal post
    # answered 500). SQLite, one writer at a time, renders no lock.
    wanted = wanted.with_for_update(read=True, key_share=True, of=_E)
    columns = [
        "endpoint_id",
        "owner",
        "type",
        "table_id",
        "revision",
        "deal_number",
        "deal_count",
        "occurred_at",
        "state",
        "due_at",
        "attempts",
    ]
    if data:
        columns.append("data")
    return insert(_D).from_select(columns, wanted)


# The deal post knows the table's deal count; a write through a Session reads it from the
# table row as this transaction left it (none when the table was deleted).
ENQUEUE_POSTED = _enqueue(cast(bindparam("event_count"), Integer))
ENQUEUE_CHANGED = _enqueue(
    select(_TABLES.c.deal_count).where(_TABLES.c.id == bindparam("event_table")).scalar_subquery()
)


# An event with data of its own (rating.changed): no deal count.
ENQUEUE_WITH_DATA = _enqueue(literal(None, Integer), data=True)


def has_endpoints(owner: Any) -> Any:
    """Whether ``owner`` (a column or a parameter) has an active endpoint: a column a write's
    locked read carries, so that a post of an owner without one writes and costs nothing
    more. Under the write's lock the endpoints cannot change before its insert (SQLite: one
    writer; PostgreSQL: the post then writes the deliveries in its statement, which an
    endpoint's creation committed meanwhile would have missed anyway by a moment)."""
    return exists().where(_E.c.owner == owner, _E.c.active, _E.c.disabled_at.is_(None))


_HOOKED = select(has_endpoints(bindparam("hooked_owner")))


def is_hooked(conn: Session | Connection, owner: str) -> bool:
    """Whether ``owner`` has an active endpoint now (a write that announces several events
    asks once, and writes nothing for an owner without one)."""
    return bool(conn.execute(_HOOKED, {"hooked_owner": owner}).scalar())
