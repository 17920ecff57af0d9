"""The scorer links' SQL: count, add, list and revoke a table's links; find the links of a
token's prefix (with their table's owner, while the owner has a working key)."""

from __future__ import annotations

from sqlalchemy import Row, func, select, update
from sqlalchemy.orm import Session

from app.keys.repository import owner_has_a_key
from app.kit.db.models import utcnow
from app.scorer.orm import ScorerLinkRow
from app.tables.orm import TableRow

_LINKS = ScorerLinkRow.__table__
_TABLES = TableRow.__table__


def active_links(session: Session, table_id: str) -> int:
    return session.scalar(
        select(func.count())
        .select_from(ScorerLinkRow)
        .where(ScorerLinkRow.table_id == table_id, ScorerLinkRow.revoked_at.is_(None))
    )


def add_link(session: Session, table_id: str, prefix: str, digest: str) -> ScorerLinkRow:
    row = ScorerLinkRow(table_id=table_id, prefix=prefix, hash=digest, created_at=utcnow())
    session.add(row)
    session.flush()
    return row


def links_of(
    session: Session, table_id: str, *, after: int = 0, rows: int | None = None
) -> list[ScorerLinkRow]:
    """The table's links, revoked ones included, oldest first: at most ``rows`` after the link
    ``after`` (keyset paging on its id)."""
    query = (
        select(ScorerLinkRow)
        .where(ScorerLinkRow.table_id == table_id, ScorerLinkRow.id > after)
        .order_by(ScorerLinkRow.id)
    )
    return list(session.scalars(query if rows is None else query.limit(rows)))


def link(session: Session, link_id: int) -> ScorerLinkRow | None:
    return session.get(ScorerLinkRow, link_id)


def revoke(session: Session, row: ScorerLinkRow, table_id: str, revision: int) -> None:
    """The link revoked, and the table's revision moved to ``revision`` (its streams wake up)."""
    row.revoked_at = utcnow()
    session.execute(update(_TABLES).where(_TABLES.c.id == table_id).values(revision=revision))
    session.flush()


def links_with_prefix(conn, prefix: str) -> list[Row]:  # noqa: ANN001
    """(id, hash, table_id, owner) of the working links whose token starts with ``prefix``."""
    return list(
        conn.execute(
            select(_LINKS.c.id, _LINKS.c.hash, _LINKS.c.table_id, _TABLES.c.owner)
            .join(_TABLES, _TABLES.c.id == _LINKS.c.table_id)
            .where(_LINKS.c.prefix == prefix, _LINKS.c.revoked_at.is_(None), owner_has_a_key(_TABLES.c.owner))
        ).all()
    )
