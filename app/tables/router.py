from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Body, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.kit import etags
from app.kit.bodies import BodyRoute
from app.kit.db import Database
from app.kit.deps import DB, Owner, get_settings
from app.kit.headers import CACHE_CONTROL, ETAG, LOCATION, not_modified
from app.kit.preconditions import (
    SeenVersions,
    TablePrecondition,
    not_modified_response,
)
from app.kit.problem_schemas import problem_responses
from app.kit.schemas import ConventionName
from app.kit.settings import Settings
from app.kit.stake import StakeQuery, parse_stake
from app.players.service import SeatLink
from app.ratings import service as ratings
from app.rules import settle
from app.tables import service as svc
from app.tables.limits import TABLES_PAGE_MAX
from app.tables.model import UNSET, Limits
from app.tables.schemas import SettlementOut, SharedOut, TableCreate, TableList, TableOut, TablePatch
from app.tables.sheet_answers import SHEET_CHANGED, kept_sheet, sheet_not_modified, sheet_response
from app.tables.sheet_schemas import Sheet

router = APIRouter(prefix="/v1", tags=["tables"], route_class=BodyRoute)


Status = Literal["active", "finished", "archived"]
ConventionQuery = ConventionName


@router.get(
    "/tables",
    operation_id="listTables",
    response_model=TableList,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **not_modified(), **problem_responses(401, 422)},
)
def list_tables(
    db: DB,
    owner: Owner,
    response: Response,
    seen: SeenVersions,
    status: Annotated[
        Status | None,
        Query(
            description="active (being played), finished or archived; left out: every table that is not archived"
        ),
    ] = None,
    convention: Annotated[
        ConventionQuery | None, Query(description="only the tables of this convention")
    ] = None,
    player: Annotated[
        str | None,
        Query(min_length=1, max_length=64, description="only the tables with a player of this name"),
    ] = None,
    after: Annotated[
        str | None,
        Query(max_length=200, description="the cursor of the page to read, from the last page's next"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=TABLES_PAGE_MAX, description="at most this many tables")] = 50,
) -> TableList | Response:
    """The key owner's tables, latest activity first (a deal, an undo, a rename, ...),
    keyset-paged: follow ``next`` until it is null. ``ETag`` of the page; ``If-None-Match``
    answers 304."""
    page = svc.list_tables(
        db, owner, status=status, convention=convention, player=player, after=after, limit=limit
    )
    params = {
        k: v for k, v in (("status", status), ("convention", convention), ("player", player)) if v is not None
    }
    nxt = None
    if page.next_cursor is not None:
        nxt = "/v1/tables?" + urlencode({**params, "after": page.next_cursor, "limit": limit})
    query = urlencode({**params, "after": after or "", "limit": limit})
    etag = etags.listing_etag(query, [(t.id, t.revision, t.deal_count) for t in page.tables], nxt)
    if (unchanged := not_modified_response(seen, etag)) is not None:
        return unchanged
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = etags.CACHE
    return TableList.of(page, nxt)


@router.post(
    "/tables",
    operation_id="createTable",
    status_code=201,
    response_model=TableOut,
    responses={201: {"headers": {**LOCATION, **ETAG}}, **problem_responses(401, 409, 422)},
)
def create_table(
    body: TableCreate,
    db: DB,
    owner: Owner,
    response: Response,
    settings: Annotated[Settings, Depends(get_settings)],
) -> TableOut:
    """Create a table; the response is the table, ``Location`` its URL."""
    fields = body.model_fields_set
    table = svc.create_table(
        db,
        owner,
        players=[
            p if isinstance(p, str) else SeatLink(p.name, p.player, p.external_id) for p in body.players
        ],
        convention=body.convention,
        pool_target=body.pool_target if "pool_target" in fields else None,
        first_dealer=body.first_dealer,
        options=body.options,
        rated=body.rated,
        limits=Limits.of(settings),
    )
    response.headers["Location"] = f"/v1/tables/{table.id}"
    response.headers["ETag"] = table.etag
    return TableOut.of(table)


@router.get(
    "/tables/{table_id}",
    operation_id="getTable",
    response_model=TableOut,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404)},
)
def get_table(table_id: str, db: DB, owner: Owner, response: Response) -> TableOut:
    """The table: its settings, players, share token and sheet. ``ETag`` is the sheet's."""
    table = svc.get_table(db, owner, table_id)
    response.headers["ETag"] = table.etag
    return TableOut.of(table)


@router.get(
    "/tables/{table_id}/sheet",
    operation_id="getSheet",
    response_model=Sheet,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **not_modified(), **problem_responses(401, 404)},
)
async def get_sheet(
    table_id: str,
    db: DB,
    owner: Owner,
    request: Request,
    seen: SeenVersions,
) -> Response:
    """The sheet, with a strong ETag; ``If-None-Match`` with it answers 304."""
    # ``async def``: a 304 is answered from the ETag alone, read on the event loop where the
    # database allows it, without a thread-pool round trip; the full sheet is loaded, built
    # and serialised in the thread pool, once per ETag in this process (its bytes are kept).
    # Most 304s, and the 200s whose bytes are kept, are answered before the framework's
    # routing by the same read (app/tables/sheet_answers.py); when that read found the sheet
    # changed, it is not compared again here.
    if seen is not None and not request.scope.get(SHEET_CHANGED):
        unchanged = await sheet_not_modified(db, owner, table_id, seen)
        if unchanged is not None:
            return unchanged
    body, etag = await run_in_threadpool(_sheet, db, owner, table_id)
    return sheet_response(body, etag)


@router.patch(
    "/tables/{table_id}",
    operation_id="updateTable",
    response_model=TableOut,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404, 412, 422)},
)
def update_table(
    table_id: str,
    db: DB,
    owner: Owner,
    response: Response,
    expected: TablePrecondition,
    # Optional: a PATCH without a body changes nothing, and another owner's table is then
    # 404 like on every other route (not 422 for the missing body first).
    body: Annotated[TablePatch, Body()] = None,  # type: ignore[assignment]
) -> TableOut:
    """Rename the players (the sheet is by seat: unchanged), set the title or the note, archive
    (``"archived": true``) or unarchive. A field left out is left as it is."""
    body = body or TablePatch()
    fields = body.model_fields_set
    table = svc.update_table(
        db,
        owner,
        table_id,
        players=body.players if "players" in fields else None,
        title=body.title if "title" in fields else UNSET,
        note=body.note if "note" in fields else UNSET,
        archived=body.archived if "archived" in fields else None,
        expected=expected,
    )
    response.headers["ETag"] = table.etag
    return TableOut.of(table)


@router.delete(
    "/tables/{table_id}",
    operation_id="deleteTable",
    status_code=204,
    response_class=Response,
    responses={
        204: {"description": "deleted, with every deal, idempotency record and the share link"},
        **problem_responses(401, 404, 412),
    },
)
def delete_table(table_id: str, db: DB, owner: Owner, expected: TablePrecondition) -> Response:
    """Delete the table for good: its deals, its idempotency records, its share link (404 from now on)."""
    svc.delete_table(db, owner, table_id, expected=expected)
    return Response(status_code=204)


@router.post(
    "/tables/{table_id}/share-token",
    operation_id="rotateShareToken",
    response_model=TableOut,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404)},
)
def rotate_share_token(table_id: str, db: DB, owner: Owner, response: Response) -> TableOut:
    """A new share token (in ``share_token``): the old share link is not found from now on."""
    table = svc.rotate_share_token(db, owner, table_id)
    response.headers["ETag"] = table.etag
    return TableOut.of(table)


def _sheet(db: Database, owner: str, table_id: str) -> tuple[bytes, str]:
    table = svc.get_table(db, owner, table_id)
    return kept_sheet(owner, table_id, table.etag, lambda: Sheet.of(table)), table.etag


@router.get(
    "/tables/{table_id}/settlement",
    operation_id="getSettlement",
    response_model=SettlementOut,
    responses={
        200: {"headers": {**ETAG, **CACHE_CONTROL}},
        **not_modified(),
        **problem_responses(401, 404, 422),
    },
)
def get_settlement(
    table_id: str,
    db: DB,
    owner: Owner,
    response: Response,
    seen: SeenVersions,
    stake: StakeQuery = None,
) -> SettlementOut | Response:
    """Balances (exact and rounded to 0.01, summing to 0) and the fewest transfers. ``ETag``
    (of the sheet and the stake); ``If-None-Match`` answers 304."""
    value = parse_stake(stake)
    table = svc.get_table(db, owner, table_id)
    # A rated table's settlement shows its rating changes, which a correction of an earlier
    # table moves without touching this one: their version is part of the ETag.
    rating = ratings.table_rating(db, table.id) if table.rated else None
    etag = etags.settlement_etag(table.etag, value, ratings.table_etag_part(rating))
    if (unchanged := not_modified_response(seen, etag)) is not None:
        return unchanged
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = etags.CACHE
    return SettlementOut.of(table, settle(table.rules, table.state, value), value, rating)


@router.get(
    "/shared/{token}",
    operation_id="getSharedTable",
    response_model=SharedOut,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **not_modified(), **problem_responses(404, 422)},
    tags=["shared"],
    openapi_extra={"security": []},
)
def get_shared(
    token: str,
    db: DB,
    response: Response,
    seen: SeenVersions,
    stake: StakeQuery = None,
) -> SharedOut | Response:
    """The read-only share link: the table, its sheet and settlement, without a key. ``ETag``;
    ``If-None-Match`` answers 304."""
    value = parse_stake(stake)
    table = svc.get_shared(db, token)
    etag = etags.shared_etag(table.etag, value)
    if (unchanged := not_modified_response(seen, etag)) is not None:
        return unchanged
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = etags.CACHE
    settlement = SettlementOut.of(table, settle(table.rules, table.state, value), value)
    return SharedOut.of_shared(table, settlement)
