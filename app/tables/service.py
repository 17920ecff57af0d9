"""Tables: create, read (by id for its owner, or by share token), and the helpers the deal
use cases share (loading a table with its effective rules and current state, the ETag)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import unicodedata
import uuid
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, and_, case, delete, func, or_, select, text, update
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.kit.db import Database, TableRow
from app.kit.db.engine import LoopReadUnavailable
from app.kit.db.models import utcnow
from app.live.announce import announce
from app.rules import (
    RULES_VERSION,
    FieldError,
    InvalidTable,
    Rules,
    Settlement,
    TableState,
    make_rules,
    settle,
)

from app.kit.errors import Conflict, NotFound, Unprocessable

if TYPE_CHECKING:
    from app.kit.settings import Settings

    from app.players.service import SeatLink

# Games in a match (the ``games`` field). A real match is a handful of games; the bound keeps
# a new table's settings from promising more play than any table can hold. It is checked when
# a table is made, not by the engine, so that a table stored before the bound still loads.
GAMES_MAX = 99


@dataclass(frozen=True)
class Limits:
    """What one key may store (docs/configuration.md): deals per table, tables per owner,
    and how long an Idempotency-Key's answer is kept (None: for ever)."""

    deals_per_table: int = 2000
    tables_per_owner: int = 1000
    idempotency_ttl: timedelta | None = timedelta(days=7)

    @classmethod
    def of(cls, settings: "Settings") -> "Limits":
        days = settings.idempotency_days
        return cls(
            deals_per_table=settings.max_deals_per_table,
            tables_per_owner=settings.max_tables_per_owner,
            idempotency_ttl=timedelta(days=days) if days > 0 else None,
        )


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class TableInfo:
    id: str
    owner: str
    convention: str
    players: tuple[str, ...]
    pool_target: int
    options: dict[str, Any]
    first_dealer: int
    share_token: str
    deal_count: int
    revision: int
    created_at: datetime
    rules: Rules
    state: TableState
    updated_at: datetime | None = None
    title: str | None = None
    note: str | None = None
    archived_at: datetime | None = None
    rules_version: int = RULES_VERSION

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    @property
    def etag(self) -> str:
        return sheet_etag(self.id, self.revision, self.deal_count)


def sheet_etag(table_id: str, revision: int, deal_count: int) -> str:
    """A strong ETag of the sheet, derived without rendering it. ``revision`` changes on
    every write (an undo then another deal leaves deal_count as it was)."""
    raw = f"{table_id}:{revision}:{deal_count}:{RULES_VERSION}".encode()
    return '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'


@lru_cache(maxsize=1024)
def _rules_cached(convention: str, players: int, pool_target: int, options_json: str, rules_version: int) -> Rules:
    return make_rules(
        convention, players=players, pool_target=pool_target, options=json.loads(options_json), rules_version=rules_version
    )


def rules_of(row: TableRow) -> Rules:
    """The table's rules under the rules version it was created with: a table keeps scoring
    as it always did when a later version reads a seed passage anew (docs/rules.md)."""
    return _rules_cached(
        row.convention, len(row.players), row.pool_target, json.dumps(row.options, sort_keys=True), row.rules_version
    )


def state_of(row: TableRow) -> TableState:
    """The engine state after the table's last deal, as stored: it was written under the
    table's own rules version, which ``rules_of`` gives back, so it never needs a new fold."""
    return TableState.from_dict(row.state)


def info(row: TableRow, rules: Rules, state: TableState) -> TableInfo:
    return TableInfo(
        id=row.id,
        owner=row.owner,
        convention=row.convention,
        players=tuple(row.players),
        pool_target=row.pool_target,
        options=dict(row.options),
        first_dealer=row.first_dealer,
        share_token=row.share_token,
        deal_count=row.deal_count,
        revision=row.revision,
        created_at=row.created_at,
        rules=rules,
        state=state,
        updated_at=row.updated_at,
        title=row.title,
        note=row.note,
        archived_at=row.archived_at,
        rules_version=row.rules_version,
    )


TABLE_ID_RE = re.compile(r"^[0-9a-f]{32}$")
SHARE_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def _checked_id(table_id: str) -> str:
    """An id that cannot be one is not found at once (never sent to the database)."""
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(f"no table {table_id[:40]!r}")
    return table_id


def _table_query(owner: str, table_id: str, lock: bool, columns):  # noqa: ANN001
    """The query of one owner's table, locked for update when asked."""
    table = TableRow.__table__
    query = select(columns).where(table.c.id == _checked_id(table_id), table.c.owner == owner)
    return query.with_for_update() if lock else query


def load_row(session: Session, owner: str, table_id: str, *, lock: bool) -> TableRow:
    """The table row, locked for update when asked (PostgreSQL: SELECT ... FOR UPDATE; SQLite
    holds the database write lock from BEGIN IMMEDIATE). Another owner's table is not found."""
    row = session.scalars(_table_query(owner, table_id, lock, TableRow)).one_or_none()
    if row is None:
        raise NotFound(f"no table {table_id!r}")
    return row


def load_table(session: Session, owner: str, table_id: str, *, lock: bool, statement: Any = None) -> Row:
    """``load_row`` as a plain row (no ORM object): for the use cases that write with Core
    statements. Same checks, same lock. ``statement``: a select of the row built once, with
    the parameters ``table_id`` and ``owner`` (posting's, which reads a column more)."""
    if statement is None:
        query, params = _table_query(owner, table_id, lock, TableRow.__table__), None
    else:
        query, params = statement, {"table_id": _checked_id(table_id), "owner": owner}
    row = session.execute(query, params).one_or_none()
    if row is None:
        raise NotFound(f"no table {table_id!r}")
    return row


def player_name(raw: str) -> str:
    """A player's name as stored: trimmed and in Unicode NFC, so that "é" typed as one code
    point or as "e" and a combining accent is one name."""
    return unicodedata.normalize("NFC", raw.strip())


def _lock_owner(session: Session, owner: str) -> None:
    """Serialise the table creations of one owner, so that two at once cannot both pass the
    limit. SQLite: the writer already holds the database. PostgreSQL: a transaction-scoped
    advisory lock on the owner's name."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:owner, 15))"), {"owner": owner})


def check_names(names: list[str], field: str = "players") -> list[FieldError]:
    """The checks of a rename: those of ``create_table`` (not empty, printable, distinct
    ignoring case, in NFC)."""
    if any(not n for n in names):
        return [FieldError(field, "names must not be empty")]
    if any(not n.isprintable() for n in names):
        return [FieldError(field, "names must not contain control characters")]
    if len(set(unicodedata.normalize("NFC", n.casefold()) for n in names)) != len(names):
        return [FieldError(field, "names must be distinct")]
    return []


def make_room_for_a_table(session: Session, owner: str, limits: Limits) -> None:
    """In a writing transaction about to add a table of ``owner``: take the owner's lock
    (concurrent creations are counted one after the other) and refuse a table beyond the
    owner's limit (409)."""
    _lock_owner(session, owner)
    count = session.scalar(select(func.count()).select_from(TableRow).where(TableRow.owner == owner))
    if count >= limits.tables_per_owner:
        raise Conflict(
            f"this key's owner has {count} tables, the most one owner may have "
            f"(PREFSCORE_MAX_TABLES_PER_OWNER={limits.tables_per_owner})",
            reason="table_limit",
            limit=limits.tables_per_owner,
        )


def create_table(
    db: Database,
    owner: str,
    *,
    players: "list[str | SeatLink]",
    convention: str,
    pool_target: int | None = None,
    first_dealer: int = 0,
    options: dict[str, Any] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> TableInfo:
    from app.players.service import SeatLink, check_links, link_seats  # players.py builds on this module

    errors: list[FieldError] = []
    # A seat given as a registered player or an external id is linked to the registry (docs/api.md,
    # "Players and statistics"); a plain name is not.
    links = {seat: p for seat, p in enumerate(players) if isinstance(p, SeatLink)}
    names = [player_name(p.name if isinstance(p, SeatLink) else p) for p in players]
    errors.extend(check_links(links))
    if any(not n for n in names):
        errors.append(FieldError("players", "names must not be empty"))
    elif any(not n.isprintable() for n in names):
        errors.append(FieldError("players", "names must not contain control characters"))
    elif len(set(unicodedata.normalize("NFC", n.casefold()) for n in names)) != len(names):
        errors.append(FieldError("players", "names must be distinct"))
    games = (options or {}).get("games")
    if isinstance(games, int) and not isinstance(games, bool) and games > GAMES_MAX:
        errors.append(FieldError("options.games", f"must be at most {GAMES_MAX}"))
    try:
        rules = make_rules(convention, players=len(names), pool_target=pool_target, options=options or {})
    except InvalidTable as exc:
        errors.extend(exc.errors)
        rules = None
    if not 0 <= first_dealer < len(names):
        errors.append(FieldError("first_dealer", f"must be a seat 0-{len(names) - 1}"))
    if errors or rules is None:
        raise Unprocessable("the table's settings do not fit", errors)
    state = TableState.new(rules, first_dealer=first_dealer)
    row = TableRow(
        id=uuid.uuid4().hex,
        owner=owner,
        convention=convention,
        players=names,
        pool_target=rules.pool_target,
        options=rules.options,
        first_dealer=first_dealer,
        share_token=secrets.token_urlsafe(24),
        state=state.to_dict(),
        rules_version=RULES_VERSION,
        deal_count=0,
        revision=0,
    )
    with db.write() as session:
        make_room_for_a_table(session, owner, limits)
        session.add(row)
        session.flush()
        link_seats(session, owner, row.id, convention, row.created_at, {s: replace(p, name=names[s]) for s, p in links.items()})
        result = info(row, rules, state)
    return result


def get_table(db: Database, owner: str, table_id: str) -> TableInfo:
    with db.read() as session:
        row = load_row(session, owner, table_id, lock=False)
        rules = rules_of(row)
        return info(row, rules, state_of(row))


def get_tables(db: Database, table_ids: list[str]) -> dict[str, TableInfo]:
    """Tables by id, whoever owns them, in one statement (the live-update hub reads every
    table that changed at once; a change names the table, and its row names the owner).
    An id that names no table is absent."""
    ids = [t for t in table_ids if TABLE_ID_RE.fullmatch(t)]
    if not ids:
        return {}
    t = TableRow.__table__
    with db.lookup() as conn:
        rows = conn.execute(select(t).where(t.c.id.in_(ids))).all()
    return {row.id: info(row, rules_of(row), state_of(row)) for row in rows}


def current_etag(db: Database, owner: str, table_id: str) -> str:
    """The sheet's ETag alone: three columns of the table row, no state loaded, so that a
    conditional GET that is answered 304 reads no more than it needs."""
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(f"no table {table_id[:40]!r}")
    with db.lookup() as conn:
        found = conn.execute(
            select(TableRow.revision, TableRow.deal_count).where(TableRow.id == table_id, TableRow.owner == owner)
        ).one_or_none()
    if found is None:
        raise NotFound(f"no table {table_id!r}")
    return sheet_etag(table_id, found.revision, found.deal_count)


_ETAG_SQL = (
    f"SELECT {TableRow.revision.key}, {TableRow.deal_count.key} FROM {TableRow.__tablename__} "
    f"WHERE {TableRow.id.key} = ? AND {TableRow.owner.key} = ?"
)


async def current_etag_on_loop(db: Database, owner: str, table_id: str) -> str:
    """``current_etag`` for an ``async def`` endpoint, read from the event loop without a
    thread-pool round trip (``Database.read_one_async``: SQLite, a point read of the WAL
    file, microseconds; PostgreSQL, an async autocommit connection). Each read is of the
    database's committed state, so a write by any process is seen at once. When that read
    is not available (busy, an error), it is ``current_etag`` in the thread pool."""
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(f"no table {table_id[:40]!r}")
    if db.async_reads:
        try:
            found = await db.read_one_async(_ETAG_SQL, (table_id, owner))
        except LoopReadUnavailable:
            pass
        else:
            if found is None:
                raise NotFound(f"no table {table_id!r}")
            return sheet_etag(table_id, found[0], found[1])
    return await run_in_threadpool(current_etag, db, owner, table_id)


def shared_row(session: Session, token: str) -> TableRow:
    """The table row of a share token (404 for a malformed or unknown one)."""
    if not SHARE_TOKEN_RE.fullmatch(token):
        raise NotFound("no shared table with this token")
    row = session.scalars(select(TableRow).where(TableRow.share_token == token)).one_or_none()
    if row is None or not secrets.compare_digest(row.share_token, token):
        raise NotFound("no shared table with this token")
    return row


def get_shared(db: Database, token: str) -> TableInfo:
    with db.read() as session:
        row = shared_row(session, token)
        rules = rules_of(row)
        return info(row, rules, state_of(row))


# --- the tables collection: list, change, delete, a new share token -------------------------

STATUSES = ("active", "finished", "archived")
TITLE_MAX = 200
NOTE_MAX = 2000


@dataclass(frozen=True)
class ListedTable:
    """A table as the listing shows it: no state or rules, only the settlement of a finished
    table (a table being played has no final balances to show)."""

    id: str
    convention: str
    title: str | None
    players: tuple[str, ...]
    deal_count: int
    revision: int
    archived: bool
    created_at: datetime
    updated_at: datetime
    settlement: Settlement | None  # in whists, when the game is finished

    @property
    def finished(self) -> bool:
        return self.settlement is not None


@dataclass(frozen=True)
class TablePage:
    tables: tuple[ListedTable, ...]
    next_cursor: str | None


def encode_cursor(updated_at: datetime, table_id: str) -> str:
    """The opaque cursor of a listing: the last item's (updated_at, id), base64url."""
    raw = json.dumps([_utc(updated_at).isoformat(), table_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    bad = Unprocessable("the cursor is not one this listing gave", [FieldError("after", "after must be a cursor from a listing's next link")])
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
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _has_player(dialect: str, name: str):  # noqa: ANN202
    """The table has a player of this name (its NFC form, as stored)."""
    if dialect == "postgresql":
        return text("CAST(tables.players AS jsonb) @> jsonb_build_array(CAST(:player AS text))").bindparams(player=name)
    return text("EXISTS (SELECT 1 FROM json_each(tables.players) WHERE json_each.value = :player)").bindparams(player=name)


def list_tables(
    db: Database,
    owner: str,
    *,
    status: str | None = None,
    convention: str | None = None,
    player: str | None = None,
    after: str | None = None,
    limit: int = 50,
) -> TablePage:
    """The owner's tables, latest activity first (updated_at, then id, descending), keyset-paged
    on the index (owner, updated_at, id). Without ``status``: every table but the archived.

    Only the listed columns are read: the state and the options (what a settlement needs) of
    finished tables alone, so a page of tables being played decodes and folds no state."""
    table = TableRow.__table__
    finished = table.c.state["finished"].as_boolean()
    done = finished.is_(True)
    query = select(
        *(table.c[name] for name in _LISTED),
        finished.label("finished"),
        case((done, table.c.state)).label("state"),
        case((done, table.c.options)).label("options"),
    ).where(table.c.owner == owner)
    if status == "archived":
        query = query.where(table.c.archived_at.is_not(None))
    else:
        query = query.where(table.c.archived_at.is_(None))
        if status == "finished":
            query = query.where(done)
        elif status == "active":
            query = query.where(finished.is_not(True))
    if convention is not None:
        query = query.where(table.c.convention == convention)
    if after is not None:
        moment, last_id = decode_cursor(after)
        query = query.where(
            or_(table.c.updated_at < moment, and_(table.c.updated_at == moment, table.c.id < last_id))
        )
    query = query.order_by(table.c.updated_at.desc(), table.c.id.desc()).limit(limit + 1)
    with db.read() as session:
        if player is not None:
            query = query.where(_has_player(session.get_bind().dialect.name, player_name(player)))
        rows = session.execute(query).all()
    tables = tuple(_listed(r) for r in rows[:limit])
    nxt = encode_cursor(tables[-1].updated_at, tables[-1].id) if len(rows) > limit and tables else None
    return TablePage(tables, nxt)


_LISTED = (
    "id", "convention", "title", "players", "deal_count", "revision", "archived_at", "created_at", "updated_at",
    "pool_target", "rules_version",
)


def _listed(row: Row) -> ListedTable:
    settlement = settle(rules_of(row), state_of(row)) if row.finished else None
    return ListedTable(
        id=row.id,
        convention=row.convention,
        title=row.title,
        players=tuple(row.players),
        deal_count=row.deal_count,
        revision=row.revision,
        archived=row.archived_at is not None,
        created_at=row.created_at,
        updated_at=row.updated_at,
        settlement=settlement,
    )


UNSET: Any = object()


def update_table(
    db: Database,
    owner: str,
    table_id: str,
    *,
    players: list[str] | None = None,
    title: str | None = UNSET,
    note: str | None = UNSET,
    archived: bool | None = None,
    if_match: str | None = None,
) -> TableInfo:
    """Rename players (the sheet is by seat, so it is unchanged), set the title and the note,
    archive or unarchive. What changes bumps the revision and updated_at (the table's ETag
    and its place in the listing); a change to nothing writes nothing."""
    from app.deals.service import check_if_match  # deals imports this module

    values: dict[str, Any] = {}
    errors: list[FieldError] = []
    if players is not None:
        names = [player_name(p) for p in players]
        errors.extend(check_names(names))
    if title is not UNSET and title is not None:
        title = title.strip() or None
    if note is not UNSET and note is not None and not note.strip():
        note = None
    if errors:
        raise Unprocessable("the change does not fit the table", errors)
    with db.write() as session:
        row = load_table(session, owner, table_id, lock=True)
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        if players is not None:
            if len(names) != len(row.players):
                raise Unprocessable(
                    "a rename gives every seat's name",
                    [FieldError("players", f"players must list all {len(row.players)} names of the table, seat 0 first")],
                )
            if names != list(row.players):
                values["players"] = names
        if title is not UNSET and title != row.title:
            values["title"] = title
        if note is not UNSET and note != row.note:
            values["note"] = note
        now = utcnow()
        if archived is not None and archived != (row.archived_at is not None):
            values["archived_at"] = now if archived else None
        if values:
            values.update(revision=row.revision + 1, updated_at=now)
            session.execute(update(TableRow.__table__).where(TableRow.__table__.c.id == row.id).values(**values))
            kind = "table.archived" if "archived_at" in values else "table.renamed"
            announce(session, row.id, row.owner, row.revision + 1, kind)
        fresh = session.scalars(select(TableRow).where(TableRow.id == row.id)).one()
        return info(fresh, rules_of(fresh), state_of(fresh))


def delete_table(db: Database, owner: str, table_id: str, *, if_match: str | None = None) -> None:
    """Delete the table with every deal and idempotency record (explicitly: SQLite enforces no
    foreign key unless asked); its share token goes with its row."""
    from app.kit.db import DealRow, IdempotencyRow

    from app.deals.service import check_if_match

    with db.write() as session:
        row = load_table(session, owner, table_id, lock=True)
        check_if_match(if_match, sheet_etag(row.id, row.revision, row.deal_count))
        session.execute(delete(IdempotencyRow.__table__).where(IdempotencyRow.__table__.c.table_id == row.id))
        session.execute(delete(DealRow.__table__).where(DealRow.__table__.c.table_id == row.id))
        session.execute(delete(TableRow.__table__).where(TableRow.__table__.c.id == row.id))
        announce(session, row.id, row.owner, row.revision + 1, "table.deleted")


def rotate_share_token(db: Database, owner: str, table_id: str) -> TableInfo:
    """A new share token: the old link is not found from this commit on (every read by token
    goes to the database; the pictures are cached by the table's ETag, which the new
    revision changes)."""
    with db.write() as session:
        row = load_table(session, owner, table_id, lock=True)
        session.execute(
            update(TableRow.__table__)
            .where(TableRow.__table__.c.id == row.id)
            .values(share_token=secrets.token_urlsafe(24), revision=row.revision + 1, updated_at=utcnow())
        )
        announce(session, row.id, row.owner, row.revision + 1, "table.renamed")
        fresh = session.scalars(select(TableRow).where(TableRow.id == row.id)).one()
        return info(fresh, rules_of(fresh), state_of(fresh))
