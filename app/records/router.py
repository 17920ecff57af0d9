"""The open game record: export a table (JSON, or CSV for a spreadsheet) and import one as a
new table, re-scored. The import has its own body limit (``PREFSCORE_MAX_RECORD_BYTES``,
4 MiB): a long table's record is larger than the 64 KiB every other route accepts; create_app
includes this router with it."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.kit import etags
from app.kit.bodies import BodyRoute, loop_parse_bytes
from app.kit.deps import DB, Owner, get_settings
from app.kit.errors import Unprocessable
from app.kit.headers import CACHE_CONTROL, ETAG, LOCATION, not_modified
from app.kit.middleware.body_guard import json_problem_off_loop
from app.kit.preconditions import IfNoneMatch
from app.kit.problem_schemas import problem_responses
from app.kit.settings import Settings
from app.records import service as svc
from app.records.schemas import Record
from app.rules import FieldError, Sentence
from app.tables.model import Limits, TableInfo
from app.tables.schemas import TableOut
from app.tables.service import current_etag

router = APIRouter(prefix="/v1/tables", tags=["records"], route_class=BodyRoute)


def body_limits(settings: Settings) -> dict[str, int]:
    """The routes with a body limit of their own, by path: the record import (a long table's
    record is larger than any other body)."""
    return {"/v1/tables/import": settings.max_record_bytes}


CSV = "text/csv"


async def checked_json(request: Request) -> None:
    """The checks the body guard makes of every other body (NaN, huge numbers, depth, control
    characters), made here because this route's body is read under its own, larger limit
    (the guard lets it through unread)."""
    body = await request.body()
    # a record of 4 MiB is parsed off the event loop
    found = await json_problem_off_loop(
        body, request.app.state.settings.max_json_depth, loop_parse_bytes(request)
    )
    if found is not None:
        field, reason = found
        raise Unprocessable(
            Sentence("the request is not valid: {fields}", fields=field), [FieldError(field, reason)]
        )


@router.get(
    "/{table_id}/export",
    operation_id="exportTable",
    response_model=Record,
    responses={
        200: {
            "headers": {**ETAG, **CACHE_CONTROL},
            "content": {CSV: {"schema": {"type": "string"}, "example": ",".join(svc.CSV_COLUMNS) + "\r\n"}},
            "description": "the record (JSON), or with ?format=csv one row per entry",
        },
        **not_modified(),
        **problem_responses(401, 404, 422),
    },
)
def export_table(
    table_id: str,
    db: DB,
    owner: Owner,
    response: Response,
    format: Annotated[
        Literal["json", "csv"],
        Query(description="json (the record, docs/record.md) or csv (one row per entry)"),
    ] = "json",
    if_none_match: IfNoneMatch = None,
) -> Record | Response:
    """The table as an open game record (docs/record.md): its rules, players, deals with their
    entries and the final sheet. ``?format=csv``: the deals and entries for a spreadsheet."""
    etag = etags.record_etag(current_etag(db, owner, table_id), format)
    headers = {"ETag": etag, "Cache-Control": etags.CACHE}
    if etags.none_match(if_none_match, etag):
        return Response(status_code=304, headers=headers)
    if format == "csv":
        text = svc.export_csv(db, owner, table_id)
        headers["Content-Disposition"] = f'attachment; filename="prefscore-{table_id}.csv"'
        return Response(text, media_type=CSV + "; charset=utf-8", headers=headers)
    response.headers.update(headers)
    return Record.model_validate(svc.export_record(db, owner, table_id))


@router.post(
    "/import",
    operation_id="importTable",
    status_code=201,
    response_model=TableOut,
    dependencies=[Depends(checked_json)],
    responses={201: {"headers": {**LOCATION, **ETAG}}, **problem_responses(401, 409, 413, 422)},
)
async def import_table(
    record: Annotated[Record, Body()],
    db: DB,
    owner: Owner,
    response: Response,
    settings: Annotated[Settings, Depends(get_settings)],
) -> TableOut:
    """A new table from a record (docs/record.md), re-scored: a record whose entries or sheet
    disagree with the re-scoring is refused (422, naming the first deal that differs). The body
    may be up to ``PREFSCORE_MAX_RECORD_BYTES`` (4 MiB); its deals at most the deal limit.
    The body is parsed and validated in the thread pool, as is the rest."""

    def store() -> TableInfo:
        return svc.import_record(db, owner, record.model_dump(mode="json"), limits=Limits.of(settings))

    table = await run_in_threadpool(store)
    response.headers["Location"] = f"/v1/tables/{table.id}"
    response.headers["ETag"] = table.etag
    return await run_in_threadpool(TableOut.of, table)
