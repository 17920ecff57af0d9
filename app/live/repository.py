"""The live updates' SQL: listening to PostgreSQL's notifications of changes (app/events/changes.py
sends them in the writer's transaction), and the hub's reads of the watched tables'
revisions and of the open streams' scorer links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, or_, select

from app.keys.repository import owner_has_a_key
from app.kit.repository import CHANNEL
from app.scorer.orm import ScorerLinkRow
from app.tables.orm import TableRow

_TABLES = TableRow.__table__
_LINKS = ScorerLinkRow.__table__


@dataclass(frozen=True, slots=True)
class TableRevision:
    """Where a watched table stands: its owner, its revision and its number of deals."""

    id: str
    owner: str
    revision: int
    deal_count: int


async def listen(conn: Any) -> None:
    """Listen to the channel on a dedicated psycopg AsyncConnection (app/live/pg_listener.py)."""
    await conn.execute(f"LISTEN {CHANNEL}")


async def ping(conn: Any) -> None:
    """One round trip on that connection: it is still there."""
    await conn.execute("SELECT 1")


def revisions(conn: Connection, tables: list[str], owners: list[str]) -> list[TableRevision]:
    """Where the tables ``tables`` and of every table of
    ``owners``, in one statement."""
    conditions = []
    if tables:
        conditions.append(_TABLES.c.id.in_(tables))
    if owners:
        conditions.append(_TABLES.c.owner.in_(owners))
    query = select(_TABLES.c.id, _TABLES.c.owner, _TABLES.c.revision, _TABLES.c.deal_count)
    return [TableRevision(*row) for row in conn.execute(query.where(or_(*conditions)))]


def working_links(conn: Connection, link_ids: list[int]) -> list[int]:
    """Those of the scorer links ``link_ids`` that still work: not revoked, their table there,
    its owner with a working key."""
    return list(
        conn.execute(
            select(_LINKS.c.id)
            .join(_TABLES, _TABLES.c.id == _LINKS.c.table_id)
            .where(_LINKS.c.id.in_(link_ids), _LINKS.c.revoked_at.is_(None), owner_has_a_key(_TABLES.c.owner))
        ).scalars()
    )
