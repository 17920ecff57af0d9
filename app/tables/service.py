"""Tables: create, read (by id for its owner, by ids for the live updates, by share token),
list, change, delete, a new share token. Domain results and domain errors only: the routes
(app/tables/router.py) pick the status codes and headers."""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import replace
from typing import Any

from anyio import to_thread

from app.events.changes import announce
from app.kit.db import Database
from app.kit.db.engine import LoopReadUnavailable
from app.kit.db.models import utcnow
from app.kit.errors import Conflict, NotFound, Unprocessable
from app.kit.etags import checked_table_id, sheet_etag
from app.kit.repository import lock_owner
from app.kit.versions import Expected, check_expected
from app.players.service import SeatLink, check_links, link_seats, player_name
from app.ratings import service as ratings
from app.rules import RULES_VERSION, FieldError, InvalidTable, Sentence, TableState, make_rules, settle
from app.tables import repository as repo
from app.tables.limits import GAMES_MAX
from app.tables.model import (
    DEFAULT_LIMITS,
    UNSET,
    Limits,
    ListedTable,
    TableInfo,
    TablePage,
    check_names,
    info,
    loaded,
    rules_of,
    state_of,
)
from app.tables.orm import TableRow

# The table row other domains' use cases start from, in their own transaction and lock.
from app.tables.repository import load_row, load_table, shared_row

log = logging.getLogger("prefscore.tables")


def make_room_for_a_table(session: Any, owner: str, limits: Limits) -> None:
    """In a writing transaction about to add a table of ``owner``: take the owner's lock
    (concurrent creations are counted one after the other) and refuse a table beyond the
    owner's limit."""
    lock_owner(session, owner)
    count = repo.count_tables(session, owner)
    if count >= limits.tables_per_owner:
        raise Conflict(
            Sentence(
                "this key's owner has {count} tables, the most one owner may have (PREFSCORE_MAX_TABLES_PER_OWNER={tables_per_owner})",
                count=count,
                tables_per_owner=limits.tables_per_owner,
            ),
            reason="table_limit",
            limit=limits.tables_per_owner,
        )


def create_table(
    db: Database,
    owner: str,
    *,
    players: list[str | SeatLink],
    convention: str,
    pool_target: int | None = None,
    first_dealer: int = 0,
    options: dict[str, Any] | None = None,
    rated: bool = False,
    title: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> TableInfo:
    """A new table (``title``: its title from the start, no rename after). Nothing is
    announced: a table is first heard of by its first change."""
    errors: list[FieldError] = []
    # A seat given as a registered player or an external id is linked to the registry (docs/api.md,
    # "Players and statistics"); a plain name is not.
    links = {seat: p for seat, p in enumerate(players) if isinstance(p, SeatLink)}
    names = [player_name(p.name if isinstance(p, SeatLink) else p) for p in players]
    errors.extend(check_links(links))
    errors.extend(check_names(names))
    games = (options or {}).get("games")
    if isinstance(games, int) and not isinstance(games, bool) and games > GAMES_MAX:
        errors.append(
            FieldError("options.games", Sentence("must be at most {games_max}", games_max=GAMES_MAX))
        )
    try:
        rules = make_rules(convention, players=len(names), pool_target=pool_target, options=options or {})
    except InvalidTable as exc:
        errors.extend(exc.errors)
        rules = None
    if not 0 <= first_dealer < len(names):
        errors.append(FieldError("first_dealer", Sentence("must be a seat 0-{last}", last=len(names) - 1)))
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
        rated=rated,
        title=(title.strip() or None) if title is not None else None,
    )
    with db.write() as session:
        make_room_for_a_table(session, owner, limits)
        session.add(row)
        session.flush()
        link_seats(
            session,
            owner,
            row.id,
            convention,
            row.created_at,
            {s: replace(p, name=names[s]) for s, p in links.items()},
        )
        result = info(row, rules, state)
    return result


def get_table(db: Database, owner: str, table_id: str) -> TableInfo:
    with db.read() as session:
        return loaded(repo.load_row(session, owner, table_id, lock=False))


def get_tables(db: Database, table_ids: list[str]) -> dict[str, TableInfo]:
    """Tables by id, whoever owns them, in one statement (the live-update hub reads every
    table that changed at once; a change names the table, and its row names the owner).
    An id that names no table is absent."""
    with db.lookup() as conn:
        rows = repo.rows_by_ids(conn, table_ids)
    return {row.id: loaded(row) for row in rows}


def versions(db: Database, table_ids: list[str]) -> dict[str, tuple[int, int]]:
    """(revision, deal count) of tables by id, whoever owns them, in one statement, without
    their rows (a view built from them is as new as these: every change of a table moves its
    revision or its deal count). An id that names no table is absent."""
    with db.lookup() as conn:
        return {row.id: (row.revision, row.deal_count) for row in repo.versions_by_ids(conn, table_ids)}


def get_shared(db: Database, token: str) -> TableInfo:
    with db.read() as session:
        return loaded(repo.shared_row(session, token))


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
    """The owner's tables, latest activity first, keyset-paged (``repository.listed_rows``);
    a page of tables being played decodes and folds no state."""
    with db.read() as session:
        rows = repo.listed_rows(
            session,
            owner,
            status=status,
            convention=convention,
            player=player_name(player) if player is not None else None,
            after=after,
            rows=limit + 1,
        )
    tables = tuple(_listed(r) for r in rows[:limit])
    nxt = repo.encode_cursor(tables[-1].updated_at, tables[-1].id) if len(rows) > limit and tables else None
    return TablePage(tables, nxt)


def _listed(row: Any) -> ListedTable:
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


def update_table(
    db: Database,
    owner: str,
    table_id: str,
    *,
    players: list[str] | None = None,
    title: str | None = UNSET,
    note: str | None = UNSET,
    archived: bool | None = None,
    expected: Expected | None = None,
) -> TableInfo:
    """Rename players (the sheet is by seat, so it is unchanged), set the title and the note,
    archive or unarchive. What changes bumps the revision and updated_at (the table's ETag
    and its place in the listing); a change to nothing writes nothing."""
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
        row = repo.load_table(session, owner, table_id, lock=True)
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        if players is not None:
            if len(names) != len(row.players):
                raise Unprocessable(
                    "a rename gives every seat's name",
                    [
                        FieldError(
                            "players",
                            Sentence(
                                "players must list all {players} names of the table, seat 0 first",
                                players=len(row.players),
                            ),
                        )
                    ],
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
            repo.change_table(session, row.id, values)
            kind = "table.archived" if "archived_at" in values else "table.renamed"
            announce(session, row.id, row.owner, row.revision + 1, kind)
        return loaded(repo.fresh(session, row.id))


def delete_table(db: Database, owner: str, table_id: str, *, expected: Expected | None = None) -> None:
    """The owner's explicit DELETE: the table with every deal and idempotency record; its
    share token goes with its row. The only way a table holding a deal is deleted."""
    with db.write() as session:
        row = repo.load_table(session, owner, table_id, lock=True)
        check_expected(expected, sheet_etag(row.id, row.revision, row.deal_count))
        _delete(session, row)


def _delete(session: Any, row: Any, *, unheard: bool = False) -> None:
    """``unheard``: a table dropped before anything of it was announced (made for a change
    that was then refused: no deal, no change since it was made) goes without an event, so
    that a refused change leaves no event behind."""
    if row.rated:  # its players' ratings are made again without it, from its place on
        ratings.on_table_changed(session, row.id, None)
    repo.delete_table(session, row.id)
    if not (unheard and row.revision == 0 and row.deal_count == 0):
        announce(session, row.id, row.owner, row.revision + 1, "table.deleted")


def drop_unplayed(session: Any, owner: str, table_id: str, *, unheard: bool = False) -> int | None:
    """In the caller's writing transaction: delete a table that holds no deal (a table another
    domain made and replaces, e.g. a tournament's before its round starts). Its row is locked
    first, as every write of a deal locks it, so a deal posted meanwhile either is stored
    before (and the table stays: its deal count is returned, the caller refuses) or waits and
    then finds no table; a deal is never acknowledged and then deleted. None when dropped or
    already gone."""
    try:
        row = repo.load_table(session, owner, table_id, lock=True)
    except NotFound:
        return None
    if row.deal_count > 0:
        return row.deal_count
    _delete(session, row, unheard=unheard)
    return None


def drop_unplayed_table(db: Database, owner: str, table_id: str) -> None:
    """``drop_unplayed`` in a transaction of its own (undoing a table made for a change that
    failed); a table that got a deal meanwhile is kept, one never changed since it was made
    goes without an event (nothing of it was announced)."""
    with db.write() as session:
        if drop_unplayed(session, owner, table_id, unheard=True) is not None:
            log.warning("tables: table %s holds a deal and is kept", table_id)


def rotate_share_token(db: Database, owner: str, table_id: str) -> TableInfo:
    """A new share token: the old link is not found from this commit on (every read by token
    goes to the database; the pictures are cached by the table's ETag, which the new
    revision changes)."""
    with db.write() as session:
        row = repo.load_table(session, owner, table_id, lock=True)
        repo.new_share_token(session, row.id, row.revision + 1)
        announce(session, row.id, row.owner, row.revision + 1, "table.renamed")
        return loaded(repo.fresh(session, row.id))


def lock_tables(session: Any, table_ids: list[str], reason: str | None) -> None:
    """In the caller's writing transaction: lock these tables (``reason``, in words: their
    deals are then neither posted, undone nor corrected) or unlock them (None). A tournament
    locks the tables of a closed round (app/tournaments)."""
    for row in repo.set_locked(session, table_ids, reason):
        announce(session, row.id, row.owner, row.revision, "sheet")


# --- the sheet's ETag alone (a conditional request reads no more) ---------------------------


def current_etag(db: Database, owner: str, table_id: str) -> str:
    """The sheet's ETag alone: two columns of the table row, no state loaded, so that a
    conditional request answered 304 reads no more than it needs. Another owner's table is
    not found."""
    checked_table_id(table_id)
    with db.lookup() as conn:
        found = repo.sheet_version(conn, owner, table_id)
    if found is None:
        raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
    revision, deal_count = found
    return sheet_etag(table_id, revision, deal_count)


async def current_etag_on_loop(db: Database, owner: str, table_id: str) -> str:
    """``current_etag`` for an ``async def`` caller, read from the event loop without a
    thread-pool round trip (``Database.read_one_async``: SQLite, a point read of the WAL file,
    microseconds; PostgreSQL, an async autocommit connection). Each read is of the database's
    committed state, so a write by any process is seen at once. When that read is not
    available (busy, an error), it is ``current_etag`` in the thread pool."""
    checked_table_id(table_id)
    if db.reads_on_loop:
        try:
            found = await repo.sheet_version_on_loop(db, owner, table_id)
        except LoopReadUnavailable:
            pass
        else:
            if found is None:
                raise NotFound(Sentence("no table {table_id!r}", table_id=table_id))
            return sheet_etag(table_id, found[0], found[1])
    return await to_thread.run_sync(current_etag, db, owner, table_id)


__all__ = [
    "current_etag",
    "current_etag_on_loop",
    "create_table",
    "delete_table",
    "drop_unplayed",
    "drop_unplayed_table",
    "get_shared",
    "get_table",
    "get_tables",
    "list_tables",
    "load_row",
    "lock_tables",
    "load_table",
    "make_room_for_a_table",
    "rotate_share_token",
    "shared_row",
    "update_table",
]
