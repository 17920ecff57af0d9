"""The open game record's SQL: a table's deal rows read in order for an export, and an
imported table written with all its deals."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from app.deals.orm import DealRow
from app.tables.orm import TableRow


def deal_rows(session: Session, table_id: str) -> list[DealRow]:
    """The table's deals in order."""
    return list(
        session.scalars(select(DealRow).where(DealRow.table_id == table_id).order_by(DealRow.number)).all()
    )


def insert_table(session: Session, row: TableRow, deals: list[dict[str, Any]]) -> None:
    """A new table row and its deals (each a ``deals`` row's values), in one statement for the deals."""
    session.add(row)
    session.flush()
    if deals:
        session.execute(insert(DealRow.__table__), deals)
