"""The reads of the live-update hub, made in the thread pool: the current state of the tables
that changed (one read for all of them), the revision column of the watched tables, and
which scorer links of the open streams no longer work."""

from __future__ import annotations

from typing import Any

from app.kit.db import Database
from app.live import repository
from app.live.subscription import Current
from app.tables.limits import REVISIONS_CHUNK
from app.tables.model import TableInfo
from app.tables.service import get_tables
from app.tables.sheet_schemas import Sheet


def _chunks(items: list[str]) -> list[list[str]]:
    return [items[i : i + REVISIONS_CHUNK] for i in range(0, len(items), REVISIONS_CHUNK)] or [[]]


def sheet_json(table: TableInfo) -> dict[str, Any]:
    """The sheet as every event carries it: the sheet answer's JSON (encoded once per change)."""
    return Sheet.of(table).model_dump(mode="json")


def current(table: TableInfo) -> Current:
    return Current(
        table.id,
        table.owner,
        table.revision,
        table.deal_count,
        table.etag,
        sheet_json(table),
        table.share_token,
    )


def load_current(db: Database, tables: list[str]) -> dict[str, Current]:
    """The tables' current state (a table gone is absent), read in one statement per chunk
    (app.tables.service.get_tables: each row becomes a TableInfo the one way rows do)."""
    out: dict[str, Current] = {}
    for chunk in _chunks(tables):
        for table_id, table in get_tables(db, chunk).items():
            out[table_id] = current(table)
    return out


def load_owner_tables(db: Database, owner: str) -> dict[str, Current]:
    """Every table of ``owner`` as its streams show it (an owner-wide stream that resumes)."""
    return load_current(db, list(load_revisions(db, [], [owner])))


def load_revisions(db: Database, tables: list[str], owners: list[str]) -> dict[str, tuple[str, int, int]]:
    """(owner, revision, deal_count) of ``tables`` and of every table of ``owners``."""
    out: dict[str, tuple[str, int, int]] = {}
    with db.lookup() as conn:
        for chunk in _chunks(tables):
            if not chunk and not owners:
                continue
            for row in repository.revisions(conn, chunk, owners):
                out[row.id] = (row.owner, row.revision, row.deal_count)
            owners = []  # read once
    return out


def load_revoked_links(db: Database, link_ids: list[int]) -> set[int]:
    """Of the scorer links ``link_ids``, those revoked or gone, or whose owner has no working
    key left: one statement per chunk, for every stream of those links at once."""
    wanted = sorted(set(link_ids))
    working: set[int] = set()
    with db.lookup() as conn:
        for i in range(0, len(wanted), REVISIONS_CHUNK):
            working.update(repository.working_links(conn, wanted[i : i + REVISIONS_CHUNK]))
    return set(wanted) - working
