"""The tables' SQL: a table row loaded (locked for a write), by share token, by ids; the
owner's lock and count; the listing's keyset query and its cursor; the writes of a change,
a deletion and a new share token."""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    bindparam,
    case,
    column,
    delete,
    func,
    or_,
    select,
    table,
    text,
    update,
)
from sqlalchemy.orm import Session

from app.kit.db import Database, driver
from app.kit.db.models import utcnow
from app.kit.errors import NotFound, Unprocessable
from app.kit.etags import TABLE_ID_RE, checked_table_id
from app.rules import FieldError, Sentence
from app.tables.model import SHARE_TOKEN_RE, StoredTable, stored
from app.tables.orm import TableRow

_TABLES = TableRow.__table__
# A table's deals and the replays of their posts (app/deals/orm.py), named by their tables'
# names: deleted with the table (the deals sit above the tables, which import nothing of them).
_DEALS = table("deals", column("table_id"))
_IDEMPOTENCY = table("idempotency_keys", column("table_id"))


@dataclass(frozen=True)
class TableVersion:
    """What a table's ETag is made of, and its owner (who is told of a change)."""

    id: str
    owner: str
    revision: int
    deal_count: int


@dataclass(frozen=True)
class ListedRow:
    """A table as the listing reads it: its state and options only when it has finished (what
    its settlement needs), None otherwise."""

    id: str
    convention: str
    title: str | None
    players: list[str]
    deal_count: int
    revision: int
    archived_at: datetime | None
    created_at: datetime
    updated_at: datetime
    pool_target: int
    rules_version: int
    finished: bool | None
    state: dict[str, Any] | None
    options: dict[str, Any] | None


def _table_query(owner: str, table_id: str, lock: bool, columns):  # noqa: ANN001
    """The query of one owner's table, locked for update when asked."""
    query = select(columns).where(_TABLES.c.id == checked_table_id(table_id), _TABLES.c.owner == owner)
    return query.with_for_update() if lock else query


def load_row(session: Session, owner: str, table_id: str, *, lock: bool) -> StoredTable:
    """The table row, locked for update when asked (PostgreSQL: SELECT ... FOR UPDATE; SQLite
    holds the database write lock from BEGIN IMMEDIATE). Another owner's table is not found."""
    row = session.execute(_table_query(owner, table_id, lock, _TABLES)).one_or_none()
    if row is None:
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
    return stored(row)


def load_table(
    session: Session | Connection, owner: str, table_id: str, *, lock: bool, statement: Any = None
) -> StoredTable:
    """``load_row`` read as plain columns (no ORM object): for the use cases that write with Core
    statements. Same checks, same lock. ``statement``: a select of the row built once, with
    the parameters ``table_id`` and ``owner`` (posting's, which reads a column more)."""
    if statement is None:
        query, params = _table_query(owner, table_id, lock, _TABLES), None
    else:
        query, params = statement, {"table_id": checked_table_id(table_id), "owner": owner}
    row = session.execute(query, params).one_or_none()
    if row is None:
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
    return stored(row)


def shared_row(session: Session, token: str) -> StoredTable:
    """The table row of a share token (404 for a malformed or unknown one)."""
    if not SHARE_TOKEN_RE.fullmatch(token):
        raise NotFound("no shared table with this token")
    row = session.execute(select(_TABLES).where(_TABLES.c.share_token == token)).one_or_none()
    if row is None or not secrets.compare_digest(row.share_token, token):
        raise NotFound("no shared table with this token")
    return stored(row)


def rows_by_ids(conn: Connection, table_ids: list[str]) -> list[StoredTable]:
    """The rows of these tables, whoever owns them, in one statement; an id that names no
    table (or cannot be one) is absent."""
    ids = [t for t in table_ids if TABLE_ID_RE.fullmatch(t)]
    if not ids:
        return []
    if len(ids) == 1:  # the usual case (a change names one table), read on the driver
        row = driver.one_or_none(conn, _ROW_BY_ID, {"table_id": ids[0]})
        return [] if row is None else [stored(row)]
    return [stored(row) for row in conn.execute(select(_TABLES).where(_TABLES.c.id.in_(ids)))]


# One table's row by id, whoever owns it: the read after a change at one table (a tournament's
# standings, the live-update hub), where SQLAlchemy's work around the statement cost more than
# the database's (app/kit/db/driver.py).
_ROW_BY_ID = driver.Prepared(select(_TABLES).where(_TABLES.c.id == bindparam("table_id")))


_VERSIONS = select(_TABLES.c.id, _TABLES.c.owner, _TABLES.c.revision, _TABLES.c.deal_count)


def versions_by_ids(conn: Connection, table_ids: list[str]) -> list[TableVersion]:
    """The versions of these tables, whoever owns them, in one statement; an id that names no
    table (or cannot be one) is absent."""
    ids = [t for t in table_ids if TABLE_ID_RE.fullmatch(t)]
    if not ids:
        return []
    return [TableVersion(*row) for row in conn.execute(_VERSIONS.where(_TABLES.c.id.in_(ids)))]


def count_tables(session: Session, owner: str) -> int:
    return session.scalars(select(func.count()).select_from(TableRow).where(TableRow.owner == owner)).one()


def fresh(session: Session, table_id: str) -> StoredTable:
    """The table row as this transaction left it."""
    return stored(session.execute(select(_TABLES).where(_TABLES.c.id == table_id)).one())


def change_table(session: Session, table_id: str, values: dict[str, Any]) -> None:
    session.execute(update(_TABLES).where(_TABLES.c.id == table_id).values(**values))


def set_locked(session: Session, table_ids: list[str], reason: str | None) -> list[TableVersion]:
    """Lock (``reason``) or unlock (None) these tables, each one's revision moved on (a change
    of the log worked out before the lock is then not written: app/deals/service.py
    ``_refold``); their versions as now stored."""
    if not table_ids:
        return []
    session.execute(
        update(_TABLES)
        .where(_TABLES.c.id.in_(table_ids))
        .values(locked=reason, revision=_TABLES.c.revision + 1, updated_at=utcnow())
    )
    return [TableVersion(*row) for row in session.execute(_VERSIONS.where(_TABLES.c.id.in_(table_ids)))]


def new_share_token(session: Session, table_id: str, revision: int) -> None:
    change_table(
        session,
        table_id,
        {"share_token": secrets.token_urlsafe(24), "revision": revision, "updated_at": utcnow()},
    )


def delete_table(session: Session, table_id: str) -> None:
    """The table with every deal and idempotency record (explicitly: SQLite enforces no
    foreign key unless asked)."""
    session.execute(delete(_IDEMPOTENCY).where(_IDEMPOTENCY.c.table_id == table_id))
    session.execute(delete(_DEALS).where(_DEALS.c.table_id == table_id))
    session.execute(delete(_TABLES).where(_TABLES.c.id == table_id))


# --- the listing --------------------------------------------------------------------------------

_LISTED = (
    "id",
    "convention",
    "title",
    "players",
    "deal_count",
    "revision",
    "archived_at",
    "created_at",
    "updated_at",
    "pool_target",
    "rules_version",
)


def encode_cursor(updated_at: datetime, table_id: str) -> str:
    """The opaque cursor of a listing: the last item's (updated_at, id), base64url."""
    raw = json.dumps([_utc(updated_at).isoformat(), table_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    bad = Unprocessable(
        "the cursor is not one this listing gave",
        [FieldError("after", "after must be a cursor from a listing's next link")],
    )
    if len(cursor) > 200:
        raise bad
    try:
        when, table_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        moment = datetime.fromisoformat(when)
    except (ValueError, TypeError):
        raise bad from None
    if not isinstance(table_id, str) or not TABLE_ID_RE.fullmatch(table_id) or moment.tzinfo is None:
        raise bad
    return moment, table_id


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _has_player(dialect: str, name: str):  # noqa: ANN202
    """The table has a player of this name (its NFC form, as stored)."""
    if dialect == "postgresql":
        return text("CAST(tables.players AS jsonb) @> jsonb_build_array(CAST(:player AS text))").bindparams(
            player=name
        )
    return text(
        "EXISTS (SELECT 1 FROM json_each(tables.players) WHERE json_each.value = :player)"
    ).bindparams(player=name)


def listed_rows(
    session: Session,
    owner: str,
    *,
    status: str | None,
    convention: str | None,
    player: str | None,
    after: str | None,
    rows: int,
) -> list[ListedRow]:
    """At most ``rows`` of the owner's tables, latest activity first (updated_at, then id,
    descending), keyset-paged on the index (owner, updated_at, id). Without ``status``: every
    table but the archived. Only the listed columns are read: the state and the options (what
    a settlement needs) of finished tables alone."""
    finished = _TABLES.c.state["finished"].as_boolean()
    done = finished.is_(True)
    query = select(
        *(_TABLES.c[name] for name in _LISTED),
        finished.label("finished"),
        case((done, _TABLES.c.state)).label("state"),
        case((done, _TABLES.c.options)).label("options"),
    ).where(_TABLES.c.owner == owner)
    if status == "archived":
        query = query.where(_TABLES.c.archived_at.is_not(None))
    else:
        query = query.where(_TABLES.c.archived_at.is_(None))
        if status == "finished":
            query = query.where(done)
        elif status == "active":
            query = query.where(finished.is_not(True))
    if convention is not None:
        query = query.where(_TABLES.c.convention == convention)
    if after is not None:
        moment, last_id = decode_cursor(after)
        query = query.where(
            or_(_TABLES.c.updated_at < moment, and_(_TABLES.c.updated_at == moment, _TABLES.c.id < last_id))
        )
    if player is not None:
        query = query.where(_has_player(session.get_bind().dialect.name, player))
    query = query.order_by(_TABLES.c.updated_at.desc(), _TABLES.c.id.desc()).limit(rows)
    return [ListedRow(**row._mapping) for row in session.execute(query)]


# --- the sheet's version (revision, deal count) alone: a conditional read's whole cost ------
# The event-loop read is plain DB-API SQL (``?`` parameters, Database.read_one_async).
_VERSION_SQL = (
    f"SELECT {TableRow.revision.key}, {TableRow.deal_count.key} FROM {TableRow.__tablename__} "
    f"WHERE {TableRow.id.key} = ? AND {TableRow.owner.key} = ?"
)
_VERSION = select(TableRow.revision, TableRow.deal_count).where(
    TableRow.id == bindparam("table_id"), TableRow.owner == bindparam("owner")
)


def sheet_version(conn: Connection, owner: str, table_id: str) -> tuple[int, int] | None:
    """(revision, deal_count) of the owner's table, or None."""
    row = conn.execute(_VERSION, {"table_id": table_id, "owner": owner}).one_or_none()
    return None if row is None else (row.revision, row.deal_count)


async def sheet_version_on_loop(db: Database, owner: str, table_id: str) -> tuple[Any, ...] | None:
    """The same, read from the event loop (Database.read_one_async; raises LoopReadUnavailable
    when that read is not to be had)."""
    return await db.read_one_async(_VERSION_SQL, (table_id, owner))
