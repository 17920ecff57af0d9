"""The scorer links' SQL: count, add, list and revoke a table's links; find the links of a
token's prefix (with their table's owner, while the owner has a working key)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from app.keys.repository import owner_has_a_key
from app.kit.db.models import utcnow
from app.scorer.orm import ScorerLinkRow
from app.tables.orm import TableRow

_LINKS = ScorerLinkRow.__table__
_TABLES = TableRow.__table__


@dataclass(frozen=True)
class LinkInfo:
    """A stored link as listed: never its hash nor its token."""

    id: int
    table_id: str
    prefix: str
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class LinkMatch:
    """A working link whose token has a given prefix: its hash to compare, its table's owner."""

    id: int
    hash: str
    table_id: str
    owner: str


def _info(row: ScorerLinkRow) -> LinkInfo:
    return LinkInfo(row.id, row.table_id, row.prefix, row.created_at, row.revoked_at)


def active_links(session: Session, table_id: str) -> int:
    return session.scalars(
        select(func.count())
        .select_from(ScorerLinkRow)
        .where(ScorerLinkRow.table_id == table_id, ScorerLinkRow.revoked_at.is_(None))
    ).one()


def add_link(session: Session, table_id: str, prefix: str, digest: str) -> LinkInfo:
    row = ScorerLinkRow(table_id=table_id, prefix=prefix, hash=digest, created_at=utcnow())
    session.add(row)
    session.flush()
    return _info(row)


def links_of(session: Session, table_id: str, *, after: int = 0, rows: int | None = None) -> list[LinkInfo]:
    """The table's links, revoked ones included, oldest first: at most ``rows`` after the link
    ``after`` (keyset paging on its id)."""
    query = (
        select(ScorerLinkRow)
        .where(ScorerLinkRow.table_id == table_id, ScorerLinkRow.id > after)
        .order_by(ScorerLinkRow.id)
    )
    return [_info(row) for row in session.scalars(query if rows is None else query.limit(rows))]


def link(session: Session, link_id: int) -> LinkInfo | None:
    row = session.get(ScorerLinkRow, link_id)
    return None if row is None else _info(row)


def revoke(session: Session, link_id: int, table_id: str, revision: int) -> LinkInfo:
    """The link revoked, and the table's revision moved to ``revision`` (its streams wake up)."""
    row = session.get_one(ScorerLinkRow, link_id)
    row.revoked_at = utcnow()
    session.execute(update(_TABLES).where(_TABLES.c.id == table_id).values(revision=revision))
    session.flush()
    return _info(row)


def links_with_prefix(conn, prefix: str) -> list[LinkMatch]:  # noqa: ANN001
    """The working links whose token starts with ``prefix``."""
    query = (
        select(_LINKS.c.id, _LINKS.c.hash, _LINKS.c.table_id, _TABLES.c.owner)
        .join(_TABLES, _TABLES.c.id == _LINKS.c.table_id)
        .where(_LINKS.c.prefix == prefix, _LINKS.c.revoked_at.is_(None), owner_has_a_key(_TABLES.c.owner))
    )
    return [LinkMatch(*row) for row in conn.execute(query)]
