"""The player registry's SQL: the ``players`` rows, and the ``player_tables`` rows that keep
each registered seat's tally (app/players/stats.py). Every function runs in the caller's
unit of work (a Session of ``Database.write()`` or ``read()``); what they read comes back as
frozen records (``Player``, ``LinkedSeat``, ``SeatTally``), never as rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    Integer,
    String,
    bindparam,
    column,
    func,
    insert,
    select,
    table,
    update,
)
from sqlalchemy.orm import Session

from app.kit.db import driver
from app.players.orm import PlayerRow, PlayerTableRow

_PLAYERS = PlayerRow.__table__
_ROWS = PlayerTableRow.__table__
# The deals' log (app/deals/orm.py), named by its table's name: the players sit below the
# deals and import nothing of them; a seat's tally is read from its table's deal bodies.
_DEALS = table("deals", column("table_id"), column("number"), column("body", JSON))


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    external_id: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class LinkedSeat:
    """A registered seat's row at a table: its id and its tally as stored (JSON)."""

    id: int
    seat: int
    tally: dict[str, Any]


@dataclass(frozen=True)
class SeatTally:
    """A registered seat's row as stored: its deals, whether the table finished, its balance
    (exact text) and its tally (JSON)."""

    seat: int
    deal_count: int
    finished: bool
    balance: str
    tally: dict[str, Any]


_PLAYER_COLUMNS = (
    _PLAYERS.c.id,
    _PLAYERS.c.name,
    _PLAYERS.c.external_id,
    _PLAYERS.c.created_at,
    _PLAYERS.c.updated_at,
)


# --- players ------------------------------------------------------------------------------


def count_players(session: Session, owner: str) -> int:
    return session.scalars(select(func.count()).select_from(_PLAYERS).where(_PLAYERS.c.owner == owner)).one()


def player_of_external_id(session: Session, owner: str, external_id: str) -> str | None:
    """The id of ``owner``'s player with this external id, if any."""
    return session.scalar(
        select(_PLAYERS.c.id).where(_PLAYERS.c.owner == owner, _PLAYERS.c.external_id == external_id)
    )


def owned_player_id(session: Session, owner: str, player_id: str) -> str | None:
    """``player_id`` when it is one of ``owner``'s players."""
    return session.scalar(select(_PLAYERS.c.id).where(_PLAYERS.c.id == player_id, _PLAYERS.c.owner == owner))


def find_player(session: Session, owner: str, player_id: str) -> Player | None:
    """One of ``owner``'s players."""
    row = session.execute(
        select(*_PLAYER_COLUMNS).where(_PLAYERS.c.id == player_id, _PLAYERS.c.owner == owner)
    ).one_or_none()
    return None if row is None else Player(*row)


def players_after(session: Session, owner: str, after: str | None, limit: int) -> list[Player]:
    """At most ``limit`` of ``owner``'s players in id order, those after ``after`` when given."""
    query = select(*_PLAYER_COLUMNS).where(_PLAYERS.c.owner == owner)
    if after is not None:
        query = query.where(_PLAYERS.c.id > after)
    return [Player(*row) for row in session.execute(query.order_by(_PLAYERS.c.id).limit(limit))]


def insert_player(
    session: Session, *, player_id: str, owner: str, name: str, external_id: str | None, now: datetime
) -> None:
    session.execute(
        insert(_PLAYERS).values(
            id=player_id, owner=owner, name=name, external_id=external_id, created_at=now, updated_at=now
        )
    )


def change_player(session: Session, player_id: str, **values: Any) -> None:
    """Set the columns ``values`` of one player."""
    session.execute(update(_PLAYERS).where(_PLAYERS.c.id == player_id).values(**values))


# --- the rows of registered seats (player_tables) -----------------------------------------


def insert_seat_rows(session: Session, rows: list[dict[str, Any]]) -> None:
    """The rows of a new table's registered seats, in one statement."""
    session.execute(insert(_ROWS), rows)


# Built once, executed with parameters: no statement construction per post or refold.
_LINKED_AT = select(_ROWS.c.id, _ROWS.c.seat, _ROWS.c.tally).where(_ROWS.c.table_id == bindparam("table_id"))
_REWRITE = driver.Prepared(
    update(_ROWS)
    .where(_ROWS.c.id == bindparam("row_id"))
    .values(
        tally=bindparam("new_tally"),
        deal_count=bindparam("new_count"),
        finished=bindparam("new_finished"),
        balance=bindparam("new_balance"),
    )
)  # on the driver: an executemany through SQLAlchemy cost a rated table's post a sixth of its CPU


def registered_seats(dialect: str, table: Any) -> Any:
    """A column for the post's read of the table row (``table`` is the tables Table): the rows
    of the table's registered seats as one JSON array of ``[id, seat, tally, player_id]`` (null or empty
    when none), read through the ``player_tables`` unique index in the statement that locks
    the table instead of a query of its own."""
    if dialect == "postgresql":
        rows = func.json_agg(
            func.json_build_array(_ROWS.c.id, _ROWS.c.seat, _ROWS.c.tally, _ROWS.c.player_id), type_=JSON
        )
    else:
        rows = func.json_group_array(
            func.json_array(_ROWS.c.id, _ROWS.c.seat, func.json(_ROWS.c.tally), _ROWS.c.player_id), type_=JSON
        )
    return select(rows).where(_ROWS.c.table_id == table.c.id).scalar_subquery().label("registered")


def rewrite_seat_rows(session: Session | Connection, changes: list[dict[str, Any]]) -> None:
    """Replace rows' tallies, in one executemany: each change has ``row_id``, ``new_tally``,
    ``new_count``, ``new_finished`` and ``new_balance``."""
    driver.execute_many(session, _REWRITE, changes)


# PostgreSQL: the same rewrite as one statement, which the post makes a member of its own
# (app/deals/repository.py): a rated table's post then costs no round trip more than any
# other. The changes travel as one JSON array (``seat_rows_param``), read back as rows with
# the names ``rewrite_seat_rows`` gives them.
_CHANGES = (
    func.json_to_recordset(bindparam("seat_rows", type_=JSON))
    .table_valued(
        column("row_id", Integer),
        column("new_tally", JSON),
        column("new_count", Integer),
        column("new_finished", Boolean),
        column("new_balance", String),
    )
    .render_derived(name="seat_changes", with_types=True)
)
SEAT_ROWS_REWRITTEN = (
    update(_ROWS)
    # The table's own rows by its index (a handful), whatever the planner guesses of the array.
    .where(_ROWS.c.table_id == bindparam("seat_table", type_=_ROWS.c.table_id.type))
    .where(_ROWS.c.id == _CHANGES.c.row_id)
    .values(
        tally=_CHANGES.c.new_tally,
        deal_count=_CHANGES.c.new_count,
        finished=_CHANGES.c.new_finished,
        balance=_CHANGES.c.new_balance,
    )
)


def seat_rows_param(table_id: str, changes: list[dict[str, Any]]) -> dict[str, Any]:
    """``SEAT_ROWS_REWRITTEN``'s parameters for the changes of ``rewrite_seat_rows`` of the
    rows of table ``table_id``."""
    return {"seat_table": table_id, "seat_rows": changes}


_SEATED = select(_ROWS.c.seat, _ROWS.c.player_id).where(_ROWS.c.table_id == bindparam("table_id"))


def seated_players(session: Session | Connection, table_id: str) -> dict[int, str]:
    """The table's registered seats: seat → player id."""
    return {r.seat: r.player_id for r in session.execute(_SEATED, {"table_id": table_id})}


def linked_seat_rows(session: Session, table_id: str) -> list[LinkedSeat]:
    """The table's registered seats' rows."""
    return [LinkedSeat(*row) for row in session.execute(_LINKED_AT, {"table_id": table_id})]


def deal_bodies(session: Session, table_id: str) -> Iterable[dict[str, Any]]:
    """The stored bodies of the table's deals, in order."""
    return session.scalars(
        select(_DEALS.c.body).where(_DEALS.c.table_id == table_id).order_by(_DEALS.c.number)
    )


def stat_rows(
    session: Session,
    player_id: str,
    *,
    convention: str | None,
    since: datetime | None,
    before: datetime | None,
) -> list[SeatTally]:
    """The player's rows of the tables of ``convention`` created from ``since`` up to (not
    including) ``before``, each bound when given; one fetchall."""
    query = select(_ROWS.c.seat, _ROWS.c.deal_count, _ROWS.c.finished, _ROWS.c.balance, _ROWS.c.tally).where(
        _ROWS.c.player_id == player_id
    )
    if convention is not None:
        query = query.where(_ROWS.c.convention == convention)
    if since is not None:
        query = query.where(_ROWS.c.table_created_at >= since)
    if before is not None:
        query = query.where(_ROWS.c.table_created_at < before)
    return [
        SeatTally(s, count, bool(done), balance, tally)
        for s, count, done, balance, tally in session.execute(query)
    ]


def seat_rows(session: Session, table_id: str) -> list[SeatTally]:
    """The table's rows as stored."""
    query = select(_ROWS.c.seat, _ROWS.c.deal_count, _ROWS.c.finished, _ROWS.c.balance, _ROWS.c.tally).where(
        _ROWS.c.table_id == table_id
    )
    return [
        SeatTally(s, count, bool(done), balance, tally)
        for s, count, done, balance, tally in session.execute(query)
    ]
