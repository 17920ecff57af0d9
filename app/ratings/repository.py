"""The ratings' SQL: the owner's ratings lock, the rated tables in finishing order, each
table's changes to its players' ratings, the current ratings and the leaderboard's keyset
range. Every function runs in the caller's unit of work (a Session or a Connection); the
hot path's statements (a table finishing) are built once. The rebuild's own SQL is in
rebuild_repository.py."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from sqlalchemy import (
    Boolean,
    Connection,
    DateTime,
    Row,
    bindparam,
    column,
    delete,
    func,
    insert,
    literal_column,
    select,
    table,
    text,
    true,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.kit.db.driver import Driver, Prepared, execute, for_drivers, one_or_none
from app.ratings.model import RatedTable, StoredChange, StoredRating
from app.ratings.orm import PlayerRatingRow, RatedTableRow, RatingChangeRow

_RATED = RatedTableRow.__table__
_CHANGES = RatingChangeRow.__table__
_CURRENT = PlayerRatingRow.__table__
# The columns the ratings read of the tables, players and seats of the domains above them
# (app/tables/orm.py, app/players/orm.py), named here by their tables' names: the ratings
# sit below those domains and import none of them.
_PLAYERS = table("players", column("id"), column("owner"), column("name"))
_SEATS = table(
    "player_tables",
    column("table_id"),
    column("seat"),
    column("player_id"),
    column("finished", Boolean),
    column("balance"),
)
_TABLES = table(
    "tables",
    column("id"),
    column("owner"),
    column("convention"),
    column("players"),
    column("rated", Boolean),
    column("updated_at", DateTime(timezone=True)),
)
# An IN list is read in chunks of this many ids.
CHUNK = 500

Unit = Session | Connection

R = TypeVar("R")


def _records(kind: type[R], rows: Iterable[Row]) -> list[R]:
    """Each row as its frozen record (the record's fields are the query's columns)."""
    return [kind(**r._mapping) for r in rows]


_LOCK = for_drivers("SELECT pg_advisory_xact_lock(hashtextextended(:name, 24))")


def lock_pools(conn: Unit, owner: str) -> None:
    """Serialise the rating writes of one owner: two tables finishing at once with a player in
    common must not both start from the same rating. SQLite: the writer holds the database.
    PostgreSQL: a transaction-scoped advisory lock of its own (not the registrations')."""
    if _dialect(conn) == "postgresql":
        Driver(conn).run(_LOCK, {"name": f"ratings {owner}"})


_INSERT_RATED = insert(_RATED)
_INSERT_CHANGES = insert(_CHANGES)


def insert_rated(conn: Unit, rows: list[dict[str, Any]]) -> None:
    """Rated tables: table_id, owner, convention, seq, outcome, finished_at, stamp."""
    if rows:
        conn.execute(_INSERT_RATED, rows)


_CHANGE_FIELDS = (
    "owner",
    "pool",
    "seq",
    "table_id",
    "player_id",
    "mu_before",
    "sigma_before",
    "mu",
    "sigma",
    "games",
)
_CURRENT_FIELDS = ("pool", "player_id", "owner", "mu", "sigma", "ordinal", "games", "seq")
_PG_TYPES = {
    **dict.fromkeys(("owner", "pool", "table_id", "player_id"), "text"),
    **dict.fromkeys(("seq", "games"), "integer"),
    **dict.fromkeys(("mu_before", "sigma_before", "mu", "sigma", "ordinal"), "float8"),
}


def _pg_unnest(table: str, fields: tuple[str, ...], tail: str = "") -> Any:
    """PostgreSQL: many rows as one statement of one array per column (``unnest``), built once:
    one round trip where an executemany makes one per row, and a text the driver prepares once."""
    arrays = ", ".join(f"CAST(:{f} AS {_PG_TYPES[f]}[])" for f in fields)
    return text(f"INSERT INTO {table} ({', '.join(fields)}) SELECT * FROM unnest({arrays}){tail}")


_PG_CHANGES = _pg_unnest("rating_changes", _CHANGE_FIELDS)
_PG_CURRENT = _pg_unnest(
    "player_ratings",
    _CURRENT_FIELDS,
    " ON CONFLICT (pool, player_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in ("mu", "sigma", "ordinal", "games", "seq")),
)


def _columns(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[str, list[Any]]:
    return {f: [r[f] for r in rows] for f in fields}


def insert_changes(conn: Unit, rows: list[dict[str, Any]]) -> None:
    """Rating changes: owner, pool, seq, table_id, player_id, mu_before, sigma_before, mu, sigma, games."""
    if not rows:
        return
    if _dialect(conn) == "postgresql":
        conn.execute(_PG_CHANGES, _columns(rows, _CHANGE_FIELDS))
    else:
        conn.execute(_INSERT_CHANGES, rows)


def _upsert(dialect: str) -> Any:
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    stmt = make(_CURRENT)
    return stmt.on_conflict_do_update(
        index_elements=[_CURRENT.c.pool, _CURRENT.c.player_id],
        set_={c: stmt.excluded[c] for c in ("mu", "sigma", "ordinal", "games", "seq")},
    )


_UPSERT = {d: _upsert(d) for d in ("postgresql", "sqlite")}


def _dialect(conn: Unit) -> str:
    return conn.get_bind().dialect.name if isinstance(conn, Session) else conn.dialect.name


def write_current(conn: Unit, rows: list[dict[str, Any]]) -> None:
    """Current ratings, inserted or replaced: pool, player_id, owner, mu, sigma, ordinal, games, seq."""
    if not rows:
        return
    if _dialect(conn) == "postgresql":  # one row per player and pool, as ON CONFLICT requires
        conn.execute(_PG_CURRENT, _columns(rows, _CURRENT_FIELDS))
    else:
        conn.execute(_UPSERT["sqlite"], rows)


_CURRENT_COLUMNS_READ = (
    _CURRENT.c.pool,
    _CURRENT.c.player_id,
    _CURRENT.c.mu,
    _CURRENT.c.sigma,
    _CURRENT.c.games,
)
_CURRENT_OF = select(*_CURRENT_COLUMNS_READ).where(
    _CURRENT.c.pool.in_(bindparam("pools", expanding=True)),
    _CURRENT.c.player_id.in_(bindparam("ids", expanding=True)),
)


def current(
    conn: Unit, pools: Iterable[str], player_ids: Iterable[str]
) -> dict[tuple[str, str], StoredRating]:
    """The current ratings of these players in these pools, by (pool, player id)."""
    rows = conn.execute(_CURRENT_OF, {"pools": list(pools), "ids": list(player_ids)}).all()
    return {(r.pool, r.player_id): StoredRating(**r._mapping) for r in rows}


# --- a table finishing: the post's hot path --------------------------------------------------
#
# The post that finishes a rated table only takes the table's place in its owner's finishing
# order, pending; its ratings are written after the commit (``pending_tables``, ``mark_rated``).
# On the driver itself (app/kit/db/driver.py): SQLAlchemy's own work per statement would cost
# the post more than the database does.

# The next place in the owner's finishing order: one past the last, pending. Its parameters
# (``place_params``) are named apart from every column: on PostgreSQL the post makes this a
# member of its own statement (app/deals/repository.py).
_PLACE_OWNER = bindparam("place_owner", type_=_RATED.c.owner.type)
_NEXT_PLACE = select(
    bindparam("place_table", type_=_RATED.c.table_id.type),
    _PLACE_OWNER,
    bindparam("place_convention", type_=_RATED.c.convention.type),
    func.coalesce(func.max(_RATED.c.seq), 0) + 1,
    bindparam("place_outcome", type_=_RATED.c.outcome.type),
    bindparam("place_finished_at", type_=_RATED.c.finished_at.type),
    literal_column("0"),
    true(),
).where(_RATED.c.owner == _PLACE_OWNER)
_PLACE_COLUMNS = ("table_id", "owner", "convention", "seq", "outcome", "finished_at", "stamp", "pending")
_TAKE_PLACE = Prepared(insert(_RATED).from_select(_PLACE_COLUMNS, _NEXT_PLACE))
# PostgreSQL: the next place, or nothing when another table took it meanwhile. Two tables
# finishing at once read the same last place; the unique (owner, seq) makes the second wait
# for the first's commit and then do nothing; its next try, a statement of its own, reads the
# place the first took.
PLACE_TRIED = (
    pg_insert(_RATED)
    .from_select(_PLACE_COLUMNS, _NEXT_PLACE)
    .on_conflict_do_nothing(index_elements=[_RATED.c.owner, _RATED.c.seq])
    .returning(_RATED.c.seq)
)
_TRY_PLACE = Prepared(PLACE_TRIED)
_PLACE_TRIES = 1000  # each lost try is another table's commit: far more than an owner finishes at once


def place_params(
    table_id: str, owner: str, convention: str, outcome: list[Any], finished_at: Any
) -> dict[str, Any]:
    """The parameters of a finished rated table's place (``take_place``, ``PLACE_TRIED``)."""
    return {
        "place_table": table_id,
        "place_owner": owner,
        "place_convention": convention,
        "place_outcome": outcome,
        "place_finished_at": finished_at,
    }


def take_place(unit: Unit, place: dict[str, Any], *, tried: bool = False) -> None:
    """A finished rated table's place (``place_params``), the owner's next in the finishing
    order, pending. SQLite: one statement (the writer holds the database). PostgreSQL: one
    statement when no other table of the owner is taking a place at the same moment (a round
    trip less than taking the lock first; ``tried``: the post's own statement tried it and
    lost); else the owner's ratings lock, then tries until a place is free: a try that finds
    its place taken found it taken by a commit, so each try makes progress, and the lock keeps
    the losers from trying all at once."""
    if _dialect(unit) != "postgresql":
        execute(unit, _TAKE_PLACE, place)
        return
    if not tried and one_or_none(unit, _TRY_PLACE, place) is not None:
        return
    lock_pools(unit, place["place_owner"])
    for _ in range(_PLACE_TRIES):
        if one_or_none(unit, _TRY_PLACE, place) is not None:
            return
    raise RuntimeError(
        f"no place in the finishing order of {place['place_owner']} after {_PLACE_TRIES} tries"
    )


_PENDING = (
    select(_RATED.c.table_id, _RATED.c.convention, _RATED.c.seq, _RATED.c.outcome)
    .where(_RATED.c.pending, _RATED.c.owner == bindparam("owner"))
    .order_by(_RATED.c.seq)
)
_ANY_PENDING = select(_RATED.c.seq).where(_RATED.c.pending, _RATED.c.owner == bindparam("owner")).limit(1)


def pending_tables(conn: Unit, owner: str) -> list[RatedTable]:
    """The owner's finished rated tables whose ratings are not written yet, in finishing order
    (always the last ones: whatever rates a table rates every pending one before it)."""
    return _records(RatedTable, conn.execute(_PENDING, {"owner": owner}))


def any_pending(conn: Unit, owner: str) -> bool:
    return conn.execute(_ANY_PENDING, {"owner": owner}).first() is not None


def owners_pending(conn: Unit) -> list[str]:
    """Every owner with a pending table (the rater's sweep)."""
    return list(conn.execute(select(_RATED.c.owner).where(_RATED.c.pending).distinct()).scalars())


_MARK_RATED = update(_RATED).where(_RATED.c.table_id == bindparam("rated_table")).values(pending=False)


def mark_rated(conn: Unit, table_id: str) -> None:
    conn.execute(_MARK_RATED, {"rated_table": table_id})


def rated_row(conn: Unit, table_id: str) -> RatedTable | None:
    row = conn.execute(select(_RATED).where(_RATED.c.table_id == table_id)).one_or_none()
    return None if row is None else RatedTable(**row._mapping)


def set_outcome(conn: Unit, table_id: str, outcome: list[Any]) -> None:
    conn.execute(update(_RATED).where(_RATED.c.table_id == table_id).values(outcome=outcome))


def delete_rated(conn: Unit, table_id: str) -> None:
    conn.execute(delete(_RATED).where(_RATED.c.table_id == table_id))


def _in_pool(query: Any, pool: str) -> Any:
    return query if pool == "" else query.where(_RATED.c.convention == pool)


def rated_from(conn: Unit, owner: str, pool: str, seq: int) -> list[RatedTable]:
    """The owner's rated tables of ``pool`` from place ``seq`` of the finishing order on, in order."""
    query = select(_RATED.c.table_id, _RATED.c.convention, _RATED.c.seq, _RATED.c.outcome).where(
        _RATED.c.owner == owner, _RATED.c.seq >= seq
    )
    return _records(RatedTable, conn.execute(_in_pool(query, pool).order_by(_RATED.c.seq)))


def players_changed_from(conn: Unit, owner: str, pool: str, seq: int) -> set[str]:
    return set(
        conn.execute(
            select(_CHANGES.c.player_id)
            .where(_CHANGES.c.owner == owner, _CHANGES.c.pool == pool, _CHANGES.c.seq >= seq)
            .distinct()
        ).scalars()
    )


def delete_changes_from(conn: Unit, owner: str, pool: str, seq: int) -> None:
    conn.execute(
        delete(_CHANGES).where(_CHANGES.c.owner == owner, _CHANGES.c.pool == pool, _CHANGES.c.seq >= seq)
    )


def last_changes(conn: Unit, pool: str, player_ids: Iterable[str]) -> dict[str, StoredChange]:
    """Each player's latest stored change in ``pool`` (mu, sigma, games, seq): their rating as it stands."""
    found: dict[str, StoredChange] = {}
    ids = sorted(set(player_ids))
    later = _CHANGES.alias("later")
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        newest = (
            select(func.max(later.c.seq))
            .where(later.c.pool == pool, later.c.player_id == _CHANGES.c.player_id)
            .scalar_subquery()
        )
        rows = conn.execute(
            select(
                _CHANGES.c.player_id, _CHANGES.c.mu, _CHANGES.c.sigma, _CHANGES.c.games, _CHANGES.c.seq
            ).where(_CHANGES.c.pool == pool, _CHANGES.c.player_id.in_(chunk), _CHANGES.c.seq == newest)
        ).all()
        found.update((r.player_id, StoredChange(**r._mapping)) for r in rows)
    return found


def delete_current(conn: Unit, pool: str, player_ids: Iterable[str]) -> None:
    ids = sorted(set(player_ids))
    for start in range(0, len(ids), CHUNK):
        conn.execute(
            delete(_CURRENT).where(
                _CURRENT.c.pool == pool, _CURRENT.c.player_id.in_(ids[start : start + CHUNK])
            )
        )


def bump_stamps(conn: Unit, owner: str, seq: int) -> None:
    """The tables from place ``seq`` on were rated again: their settlement's ETag moves."""
    conn.execute(
        update(_RATED).where(_RATED.c.owner == owner, _RATED.c.seq >= seq).values(stamp=_RATED.c.stamp + 1)
    )


# --- reads -----------------------------------------------------------------------------------


def owned_players(conn: Unit, owner: str, player_ids: Iterable[str]) -> set[str]:
    """Which of these ids are ``owner``'s registered players."""
    ids = list(player_ids)
    return set(
        conn.execute(select(_PLAYERS.c.id).where(_PLAYERS.c.owner == owner, _PLAYERS.c.id.in_(ids))).scalars()
    )


def rating_of(conn: Unit, pool: str, player_id: str) -> StoredRating | None:
    row = conn.execute(
        select(_CURRENT.c.player_id, _CURRENT.c.mu, _CURRENT.c.sigma, _CURRENT.c.games).where(
            _CURRENT.c.pool == pool, _CURRENT.c.player_id == player_id
        )
    ).one_or_none()
    return None if row is None else StoredRating(**row._mapping)


def history(conn: Unit, pool: str, player_id: str, *, before: int | None, rows: int) -> list[StoredChange]:
    """The player's changes in ``pool``, the latest first, those before place ``before`` when given."""
    query = (
        select(
            _CHANGES.c.player_id,
            _CHANGES.c.seq,
            _CHANGES.c.table_id,
            _CHANGES.c.mu_before,
            _CHANGES.c.sigma_before,
            _CHANGES.c.mu,
            _CHANGES.c.sigma,
            _CHANGES.c.games,
            _RATED.c.finished_at,
        )
        .join(_RATED, _RATED.c.table_id == _CHANGES.c.table_id)
        .where(_CHANGES.c.pool == pool, _CHANGES.c.player_id == player_id)
    )
    if before is not None:
        query = query.where(_CHANGES.c.seq < before)
    return _records(StoredChange, conn.execute(query.order_by(_CHANGES.c.seq.desc()).limit(rows)))


_BOARD = select(
    _CURRENT.c.player_id,
    _PLAYERS.c.name,
    _CURRENT.c.mu,
    _CURRENT.c.sigma,
    _CURRENT.c.ordinal,
    _CURRENT.c.games,
).join(_PLAYERS, _PLAYERS.c.id == _CURRENT.c.player_id)


def leaderboard(
    conn: Unit, owner: str, pool: str, *, after: tuple[float, str] | None, rows: int
) -> list[StoredRating]:
    """At most ``rows`` of the pool's ratings by ordinal, the highest first (ties by player id, descending),
    those after ``after`` (ordinal, id) when given: one range of the (owner, pool, ordinal, id) index."""
    query = _BOARD.where(_CURRENT.c.owner == owner, _CURRENT.c.pool == pool)
    if after is not None:
        # One row-value comparison: the index range starts right after the cursor.
        query = query.where(tuple_(_CURRENT.c.ordinal, _CURRENT.c.player_id) < tuple_(*after))
    ordered = query.order_by(_CURRENT.c.ordinal.desc(), _CURRENT.c.player_id.desc()).limit(rows)
    return _records(StoredRating, conn.execute(ordered))


def table_changes(conn: Unit, table_id: str, pool: str) -> list[StoredChange]:
    """A rated table's changes in ``pool``: player_id, mu_before, sigma_before, mu, sigma, games."""
    return _records(
        StoredChange,
        conn.execute(
            select(
                _CHANGES.c.player_id,
                _CHANGES.c.mu_before,
                _CHANGES.c.sigma_before,
                _CHANGES.c.mu,
                _CHANGES.c.sigma,
                _CHANGES.c.games,
            ).where(_CHANGES.c.table_id == table_id, _CHANGES.c.pool == pool)
        ),
    )


def before_tables(conn: Unit, table_ids: Iterable[str], pool: str) -> dict[tuple[str, str], StoredChange]:
    """The ratings the players of these rated tables had before them in ``pool``, by (table
    id, player id): player_id, mu_before, sigma_before, games (after the table)."""
    ids = list(table_ids)
    found: dict[tuple[str, str], StoredChange] = {}
    for start in range(0, len(ids), CHUNK):
        query = select(
            _CHANGES.c.table_id,
            _CHANGES.c.player_id,
            _CHANGES.c.mu_before,
            _CHANGES.c.sigma_before,
            _CHANGES.c.mu,
            _CHANGES.c.sigma,
            _CHANGES.c.games,
        ).where(_CHANGES.c.pool == pool, _CHANGES.c.table_id.in_(ids[start : start + CHUNK]))
        found.update({(r.table_id, r.player_id): StoredChange(**r._mapping) for r in conn.execute(query)})
    return found


def current_in_pool(conn: Unit, pool: str, player_ids: Iterable[str]) -> dict[str, StoredRating]:
    """The current ratings of these players in one pool, by player id (read in chunks)."""
    ids = list(player_ids)
    found: dict[str, StoredRating] = {}
    for start in range(0, len(ids), CHUNK):
        rows = conn.execute(_CURRENT_OF, {"pools": [pool], "ids": ids[start : start + CHUNK]})
        found.update({r.player_id: StoredRating(**r._mapping) for r in rows})
    return found


def rated_stamp(conn: Unit, table_id: str) -> int | None:
    return conn.execute(select(_RATED.c.stamp).where(_RATED.c.table_id == table_id)).scalar_one_or_none()
