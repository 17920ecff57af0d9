"""Preconditions in one place: the sheet's ETag, how it is read, and the two conditional
headers (If-Match on the writes, If-None-Match on the reads) as FastAPI dependencies.

The sheet's ETag is derived from three columns of the table row (its id, revision and deal
count), never from the rendered sheet, so that a conditional request costs a point read.
``sheet_not_modified`` is the one definition of the sheet's 304: the route and the shortcut
before the framework's routing (app/kit/middleware/sheet_not_modified.py) both call it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Annotated

from fastapi import Header
from sqlalchemy import bindparam, select
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from app.kit import etags
from app.kit.db import Database, TableRow
from app.kit.db.engine import LoopReadUnavailable
from app.kit.errors import NotFound, PreconditionFailed
from app.rules import RULES_VERSION

IfMatch = Annotated[str | None, Header(alias="If-Match", description="the sheet's ETag; a stale one is 412 and nothing is written")]
# The tables' routes describe the same header as the table's ETag (the same value).
TableIfMatch = Annotated[str | None, Header(alias="If-Match", description="the table's ETag; a stale one is 412 and nothing is written")]
IfNoneMatch = Annotated[str | None, Header(alias="If-None-Match", description="an ETag of this answer: 304 when it is still current")]


def sheet_etag(table_id: str, revision: int, deal_count: int) -> str:
    """A strong ETag of the sheet, derived without rendering it. ``revision`` changes on
    every write (an undo then another deal leaves deal_count as it was)."""
    raw = f"{table_id}:{revision}:{deal_count}:{RULES_VERSION}".encode()
    return '"' + hashlib.sha256(raw).hexdigest()[:32] + '"'


def check_if_match(if_match: str | None, current: str) -> None:
    """If-Match with strong comparison; ``*`` matches any current sheet."""
    if if_match is None:
        return
    tags = [t.strip() for t in if_match.split(",") if t.strip()]
    if "*" in tags or current in tags:
        return
    raise PreconditionFailed("the sheet has changed since that ETag (If-Match); fetch it again", current_etag=current)


def not_modified_response(if_none_match: str | None, etag: str) -> Response | None:
    """The 304 of an answer whose current ``etag`` If-None-Match names, else None."""
    if etags.none_match(if_none_match, etag):
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": etags.CACHE})
    return None


# --- the sheet's version, read alone ---------------------------------------------------------
# The form of a table's id (a uuid4's hex): an id that cannot be one is not found at once,
# never sent to the database.
TABLE_ID_RE = re.compile(r"^[0-9a-f]{32}$")
# The event-loop read is plain DB-API SQL (``?`` parameters, Database.read_one_async).
_VERSION_SQL = (
    f"SELECT {TableRow.revision.key}, {TableRow.deal_count.key} FROM {TableRow.__tablename__} "
    f"WHERE {TableRow.id.key} = ? AND {TableRow.owner.key} = ?"
)
_VERSION = select(TableRow.revision, TableRow.deal_count).where(
    TableRow.id == bindparam("table_id"), TableRow.owner == bindparam("owner")
)


def checked_table_id(table_id: str) -> str:
    if not TABLE_ID_RE.fullmatch(table_id):
        raise NotFound(f"no table {table_id[:40]!r}")
    return table_id


def current_etag(db: Database, owner: str, table_id: str) -> str:
    """The sheet's ETag alone: two columns of the table row, no state loaded, so that a
    conditional request answered 304 reads no more than it needs. Another owner's table is
    not found."""
    checked_table_id(table_id)
    with db.lookup() as conn:
        found = conn.execute(_VERSION, {"table_id": table_id, "owner": owner}).one_or_none()
    if found is None:
        raise NotFound(f"no table {table_id!r}")
    return sheet_etag(table_id, found.revision, found.deal_count)


async def current_etag_on_loop(db: Database, owner: str, table_id: str) -> str:
    """``current_etag`` for an ``async def`` caller, read from the event loop without a
    thread-pool round trip (``Database.read_one_async``: SQLite, a point read of the WAL file,
    microseconds; PostgreSQL, an async autocommit connection). Each read is of the database's
    committed state, so a write by any process is seen at once. When that read is not
    available (busy, an error), it is ``current_etag`` in the thread pool."""
    checked_table_id(table_id)
    if db.reads_on_loop:
        try:
            found = await db.read_one_async(_VERSION_SQL, (table_id, owner))
        except LoopReadUnavailable:
            pass
        else:
            if found is None:
                raise NotFound(f"no table {table_id!r}")
            return sheet_etag(table_id, found[0], found[1])
    return await run_in_threadpool(current_etag, db, owner, table_id)


# Set in a request's scope when its If-None-Match was compared with the current ETag and did
# not match (app/kit/middleware/sheet_not_modified.py): the route does not read it again.
SHEET_CHANGED = "prefscore.sheet_changed"


async def sheet_not_modified(db: Database, owner: str, table_id: str, if_none_match: str) -> Response | None:
    """The 304 of a sheet whose current ETag ``If-None-Match`` names, else None (it has
    changed). Raises NotFound as the route does. The one definition of the sheet's 304, used
    by ``GET /v1/tables/{id}/sheet`` and by the shortcut before the framework's routing."""
    return not_modified_response(if_none_match, await current_etag_on_loop(db, owner, table_id))
