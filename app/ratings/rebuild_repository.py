"""The rebuild's SQL (app/ratings/rebuild.py): every owner with ratings, the seats of an
owner's rated tables, every stored rating row of an owner, and all of them written anew."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    delete,
    func,
    select,
)
from sqlalchemy.orm import Session

from app.ratings.model import RateableSeat, RatedTable, StoredChange, StoredRating
from app.ratings.repository import (
    _CHANGE_FIELDS,
    _CHANGES,
    _CURRENT,
    _CURRENT_FIELDS,
    _RATED,
    _SEATS,
    _TABLES,
    Unit,
    _records,
    insert_rated,
)


def owners(conn: Unit) -> list[str]:
    """Every owner with a rated table, or a rating stored."""
    found = set(conn.execute(select(_TABLES.c.owner).where(_TABLES.c.rated.is_(True)).distinct()).scalars())
    found |= set(conn.execute(select(_RATED.c.owner).distinct()).scalars())
    found |= set(conn.execute(select(_CURRENT.c.owner).distinct()).scalars())
    return sorted(found)


def rateable_seats(conn: Unit, owner: str) -> list[RateableSeat]:
    """Every seat row of the owner's rated tables: table id, convention, the table's number of
    seats, updated_at, seat, player id, finished, balance."""
    return _records(
        RateableSeat,
        conn.execute(
            select(
                _TABLES.c.id,
                _TABLES.c.convention,
                func.json_array_length(_TABLES.c.players).label("seats"),
                _TABLES.c.updated_at,
                _SEATS.c.seat,
                _SEATS.c.player_id,
                _SEATS.c.finished,
                _SEATS.c.balance,
            )
            .join(_SEATS, _SEATS.c.table_id == _TABLES.c.id)
            .where(_TABLES.c.owner == owner, _TABLES.c.rated.is_(True))
            .order_by(_TABLES.c.id, _SEATS.c.seat)
        ),
    )


def all_rated(conn: Unit, owner: str) -> list[RatedTable]:
    return _records(
        RatedTable, conn.execute(select(_RATED).where(_RATED.c.owner == owner).order_by(_RATED.c.seq))
    )


def all_changes(conn: Unit, owner: str) -> list[StoredChange]:
    return _records(StoredChange, conn.execute(select(_CHANGES).where(_CHANGES.c.owner == owner)))


def all_current(conn: Unit, owner: str) -> list[StoredRating]:
    return _records(StoredRating, conn.execute(select(_CURRENT).where(_CURRENT.c.owner == owner)))


def _bulk_insert(conn: Unit, table: Any, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    """Many rows of plain values (no JSON) in one executemany of the driver's own: a rebuild
    writes hundreds of thousands, and SQLAlchemy's parameter processing per row cost more
    than the database's insert."""
    if not rows:
        return
    connection = conn.connection() if isinstance(conn, Session) else conn
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    sql = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join([mark] * len(columns))})"
    connection.exec_driver_sql(sql, [tuple(r[c] for c in columns) for r in rows])


def insert_all(
    conn: Unit, rated: list[dict[str, Any]], changes: list[dict[str, Any]], current: list[dict[str, Any]]
) -> None:
    """Every rating row of an owner, written anew (the rebuild, after ``forget_owner``)."""
    insert_rated(conn, rated)
    _bulk_insert(conn, _CHANGES, changes, _CHANGE_FIELDS)
    _bulk_insert(conn, _CURRENT, current, _CURRENT_FIELDS)


def forget_owner(conn: Unit, owner: str) -> None:
    """Every rating row of the owner (the rebuild writes them all again)."""
    conn.execute(delete(_CHANGES).where(_CHANGES.c.owner == owner))
    conn.execute(delete(_CURRENT).where(_CURRENT.c.owner == owner))
    conn.execute(delete(_RATED).where(_RATED.c.owner == owner))
