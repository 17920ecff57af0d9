"""The deals' SQL: the post's locked read and its writes (built once; on PostgreSQL one
statement), the kept answers of Idempotency-Keys and their expiry, a page of the log, one
deal, the whole log, and the writes of an undo or a correction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from app.deals.model import DealInfo, deal_info
from app.deals.orm import DealRow, IdempotencyRow
from app.events.repository import ENQUEUE_POSTED, has_endpoints
from app.kit.db import driver
from app.kit.db.models import utcnow
from app.kit.errors import NotFound
from app.kit.etags import checked_table_id
from app.kit.repository import NOTIFY
from app.players import service as players
from app.ratings import service as ratings
from app.rules import Sentence
from app.tables.model import StoredTable, stored
from app.tables.orm import TableRow

_TABLES = TableRow.__table__
_DEALS = DealRow.__table__
_IDEMPOTENCY = IdempotencyRow.__table__
# Expired idempotency records deleted by one post (see expire_keys).
EXPIRY_BATCH = 50

# The posting path's writes, built once: executed with a dict of parameters, they cost no
# statement construction and no cache-key walk per post (docs/performance.md). The parameters
# that are not the deal row's own columns are named apart from every column: when the writes
# are one statement, a parameter named after a column of another of its tables would be
# taken for a value of that column.
_INSERT_DEAL = insert(_DEALS).values(
    table_id=bindparam("table_id"),
    number=bindparam("number"),
    body=bindparam("body"),
    entries=bindparam("entries"),
    created_at=bindparam("posted_at"),
    dealer=bindparam("dealer"),
    game=bindparam("game"),  # the game it belongs to, kept for the views (no re-scoring to learn it)
)
_UPDATE_TABLE = (
    update(_TABLES)
    .where(_TABLES.c.id == bindparam("table_id"))
    .values(
        state=bindparam("new_state"),
        deal_count=bindparam("number"),
        revision=bindparam("new_revision"),
        updated_at=bindparam("posted_at"),
    )
)
# The answer kept for a retry with the same Idempotency-Key (status_code: the column of the
# records' first format, always the post's).
_KEEP_ANSWER = insert(_IDEMPOTENCY).values(
    table_id=bindparam("table_id"),
    key=bindparam("idempotency_key"),
    request_hash=bindparam("request_hash"),
    status_code=201,
    response=bindparam("answer"),
    deal_number=bindparam("number"),
    created_at=bindparam("posted_at"),
)


# PostgreSQL: the deal, the table row, the kept answer (with a key), the webhooks' deliveries
# (when the owner has an active endpoint: app/events/outbox.py), the registered seats' rows
# (app/players), a finished rated table's place (app/ratings) and the notification in one
# statement (data-modifying CTEs, which SQLite does not have): one round trip where there
# were three to six, most of what a post costs this process beyond the framework. Its one
# row: the notification's, and the place taken (null when another table's commit took it).
# Run on the driver (app/kit/db/driver.py ``Prepared``): SQLAlchemy's work around each
# execution cost the post more than its statements' own. Each combination built once.
@cache
def _posted_pg(keyed: bool, hooked: bool, seats: bool, placed: bool) -> driver.Prepared:
    place = ratings.PLACE_TRIED.cte("placed")
    return driver.Prepared(
        select(NOTIFY, *([select(place.c.seq).scalar_subquery().label("placed")] if placed else [])).add_cte(
            _INSERT_DEAL.cte("posted"),
            _UPDATE_TABLE.cte("moved"),
            *([_KEEP_ANSWER.cte("kept")] if keyed else []),
            *([ENQUEUE_POSTED.cte("announced")] if hooked else []),
            *([players.SEAT_ROWS_REWRITTEN.cte("seated")] if seats else []),
            *([place] if placed else []),
        )
    )


# SQLite: the same writes one by one (it has no data-modifying CTEs).
_POSTED_SQLITE = tuple(
    driver.Prepared(s) for s in (_INSERT_DEAL, _UPDATE_TABLE, _KEEP_ANSWER, ENQUEUE_POSTED)
)
# The post's read of the table row, locked, with the rows of its registered seats (so that a
# post costs no statement more than before the registry, and one update at a table with some)
# and whether its owner has an active webhook endpoint (``hooked``: only then are deliveries
# written), per dialect: the JSON aggregate is each one's own.
_POST_READ = {
    dialect: driver.Prepared(
        select(
            _TABLES,
            players.registered_seats(dialect, _TABLES),
            has_endpoints(_TABLES.c.owner).label("hooked"),
        )
        .where(_TABLES.c.id == bindparam("table_id"), _TABLES.c.owner == bindparam("owner"))
        .with_for_update(of=_TABLES)
    )
    for dialect in ("postgresql", "sqlite")
}


@dataclass(frozen=True)
class KeptAnswer:
    """What an Idempotency-Key keeps at a table: its request's hash and the answer."""

    request_hash: str | None
    response: dict[str, Any]


@dataclass(frozen=True)
class LoggedDeal:
    """A deal of the log as stored, with its row's id and the game it belongs to; ``entries``
    as stored (JSON), so that a refold compares them with what it would write."""

    id: int
    number: int
    body: dict[str, Any]
    entries: list[dict[str, Any]]
    created_at: datetime
    dealer: int | None
    game: int | None


_KEPT = select(_IDEMPOTENCY.c.request_hash, _IDEMPOTENCY.c.response).where(
    _IDEMPOTENCY.c.table_id == bindparam("table_id"), _IDEMPOTENCY.c.key == bindparam("key")
)


def table_to_post_at(conn: Connection, owner: str, table_id: str) -> StoredTable:
    """The table row a post writes, locked, with its registered seats (``registered``)."""
    row = driver.one_or_none(
        conn, _POST_READ[conn.dialect.name], {"table_id": checked_table_id(table_id), "owner": owner}
    )
    if row is None:
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
    return stored(row)


def write_post(
    conn: Connection,
    params: dict[str, Any],
    *,
    keyed: bool,
    hooked: bool = False,
    seats: bool = False,
    placed: bool = False,
) -> bool:
    """The post's writes: the deal, the table row, the kept answer (``keyed``), the webhooks'
    deliveries (``hooked``: ``params``' ``event_*``); on PostgreSQL with the notification
    (``params["notification"]``), the seats' rows (``seats``: ``params["seat_rows"]``) and
    the table's place (``placed``: ``params``' ``place_*``), all in one statement. Whether the
    place was taken (False on SQLite, where the caller writes the seats and the place)."""
    if conn.dialect.name == "postgresql":
        row = driver.one_or_none(conn, _posted_pg(keyed, hooked, seats, placed), params)
        return placed and row is not None and row.placed is not None
    deal, table, answer, deliveries = _POSTED_SQLITE
    driver.execute(conn, deal, params)
    driver.execute(conn, table, params)
    if keyed:
        driver.execute(conn, answer, params)
    if hooked:
        driver.execute(conn, deliveries, params)
    return False


def kept_answer(conn: Connection, table_id: str, key: str) -> KeptAnswer | None:
    """The record of an Idempotency-Key at a table: its request's hash and kept answer."""
    row = conn.execute(_KEPT, {"table_id": table_id, "key": key}).one_or_none()
    return None if row is None else KeptAnswer(*row)


def expire_keys(conn: Session | Connection, table_id: str, key: str, cutoff: datetime) -> None:
    """Idempotency records older than ``cutoff``: this key's own (so that it can be used
    again), and a small batch of any table's, so that the cleanup keeps pace with the posts
    that add records without ever making one post slow. PostgreSQL skips rows another
    transaction is deleting at the same moment instead of waiting for it."""
    conn.execute(
        delete(_IDEMPOTENCY).where(
            _IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.key == key, _IDEMPOTENCY.c.created_at < cutoff
        )
    )
    batch = (
        select(_IDEMPOTENCY.c.id)
        .where(_IDEMPOTENCY.c.created_at < cutoff)
        .order_by(_IDEMPOTENCY.c.created_at)
        .limit(EXPIRY_BATCH)
        .with_for_update(skip_locked=True)  # SQLite renders no FOR UPDATE: its writer holds the file
    )
    conn.execute(delete(_IDEMPOTENCY).where(_IDEMPOTENCY.c.id.in_(batch.scalar_subquery())))


def delete_expired(session: Session, cutoff: datetime, batch: int) -> int:
    """At most ``batch`` idempotency records older than ``cutoff``; how many."""
    rows = select(_IDEMPOTENCY.c.id).where(_IDEMPOTENCY.c.created_at < cutoff).limit(batch)
    deleted = session.execute(delete(_IDEMPOTENCY).where(_IDEMPOTENCY.c.id.in_(rows.scalar_subquery())))
    return cast("CursorResult[Any]", deleted).rowcount  # a DML statement's result is a cursor's


# One page of a table's log: the deal columns, the (table_id, number) unique index in order.
_PAGE = (
    select(_DEALS.c.number, _DEALS.c.body, _DEALS.c.entries, _DEALS.c.created_at, _DEALS.c.dealer)
    .where(_DEALS.c.table_id == bindparam("table_id"), _DEALS.c.number > bindparam("after"))
    .order_by(_DEALS.c.number)
    .limit(bindparam("rows"))
)


def page_rows(session: Session, table_id: str, *, after: int, rows: int) -> list[DealInfo]:
    """At most ``rows`` deals numbered above ``after``, in order; the deals before are never read."""
    return [
        deal_info(r) for r in session.execute(_PAGE, {"table_id": table_id, "after": after, "rows": rows})
    ]


def deal_row(session: Session, table_id: str, number: int) -> DealInfo | None:
    found = session.scalars(
        select(DealRow).where(DealRow.table_id == table_id, DealRow.number == number)
    ).one_or_none()
    return None if found is None else deal_info(found)


_LOG = select(
    _DEALS.c.id,
    _DEALS.c.number,
    _DEALS.c.body,
    _DEALS.c.entries,
    _DEALS.c.created_at,
    _DEALS.c.dealer,
    _DEALS.c.game,
)


def log(session: Session, table_id: str) -> list[LoggedDeal]:
    """The whole log of a table, in order, with each row's id."""
    query = _LOG.where(_DEALS.c.table_id == table_id).order_by(_DEALS.c.number)
    return [LoggedDeal(*row) for row in session.execute(query)]


def penalty_rows(session: Session, table_ids: list[str]) -> list[tuple[str, DealInfo]]:
    """The penalties of these tables' logs (the body's type read in SQL), by table and number:
    each with its table's id."""
    query = (
        select(
            _DEALS.c.table_id,
            _DEALS.c.number,
            _DEALS.c.body,
            _DEALS.c.entries,
            _DEALS.c.created_at,
            _DEALS.c.dealer,
        )
        .where(_DEALS.c.table_id.in_(table_ids), _DEALS.c.body["type"].as_string() == "penalty")
        .order_by(_DEALS.c.table_id, _DEALS.c.number)
    )
    return [(row.table_id, deal_info(row)) for row in session.execute(query)]


def keyed_numbers(session: Session, table_id: str, numbers: list[int]) -> list[int]:
    """Which of these deals were posted with an Idempotency-Key still kept."""
    return list(
        session.scalars(
            select(_IDEMPOTENCY.c.deal_number)
            .where(_IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.deal_number.in_(numbers))
            .distinct()
        ).all()
    )


def write_refold(
    session: Session,
    table_id: str,
    *,
    retire: int | None,
    remove_id: int | None,
    rewrites: list[dict[str, Any]],
    answers: list[dict[str, Any]],
    state: dict[str, Any],
    deal_count: int,
    revision: int,
) -> None:
    """The writes of an undo or a correction: the keys of deal ``retire`` retired, the row
    ``remove_id`` deleted, the ``rewrites`` ({"row_id", "new_body", "new_entries",
    "new_dealer", "new_game"}) and the kept ``answers`` ({"number", "answer"}) written, the table row moved."""
    if retire is not None:
        session.execute(
            delete(_IDEMPOTENCY).where(
                _IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.deal_number == retire
            )
        )
    if remove_id is not None:
        session.execute(delete(_DEALS).where(_DEALS.c.id == remove_id))
    if rewrites:
        session.execute(
            update(_DEALS)
            .where(_DEALS.c.id == bindparam("row_id"))
            .values(
                body=bindparam("new_body"),
                entries=bindparam("new_entries"),
                dealer=bindparam("new_dealer"),
                game=bindparam("new_game"),
            ),
            rewrites,
        )
    if answers:
        session.execute(
            update(_IDEMPOTENCY)
            .where(_IDEMPOTENCY.c.table_id == table_id, _IDEMPOTENCY.c.deal_number == bindparam("number"))
            .values(response=bindparam("answer")),
            answers,
        )
    session.execute(
        update(_TABLES)
        .where(_TABLES.c.id == table_id)
        .values(state=state, deal_count=deal_count, revision=revision, updated_at=utcnow())
    )
