from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Path, Query
from fastapi.responses import JSONResponse

from app.rules import FieldError
from app.services import deals as svc
from app.services.deals import DealInfo
from app.services.errors import Unprocessable
from app.services.tables import Limits, TableInfo
from app.settings import Settings

from ..deps import DB, Owner, get_settings
from ..render import deal_response, render_deal, render_sheet
from ..schemas import DealBody, DealCorrected, DealOut, DealPage, DealWithSheet, problem_responses

router = APIRouter(prefix="/v1/tables/{table_id}", tags=["deals"])
_KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
DealNumber = Annotated[int, Path(ge=1, le=10**9)]
Config = Annotated[Settings, Depends(get_settings)]


def _body(deal: Any) -> dict[str, Any]:
    return deal.model_dump(exclude_unset=True)


def _headers(table_id: str, number: int | None, etag: str | None) -> dict[str, str]:
    headers = {}
    if number is not None:
        headers["Location"] = f"/v1/tables/{table_id}/deals/{number}"
    if etag is not None:
        headers["ETag"] = etag
    return headers


@router.post(
    "/deals",
    status_code=201,
    response_model=DealWithSheet,
    responses=problem_responses(401, 404, 409, 412, 413, 422),
)
def post_deal(
    table_id: str,
    deal: Annotated[DealBody, Body()],
    db: DB,
    owner: Owner,
    settings: Config,
    idempotency_key: Annotated[str | None, Header(description="a retry with the same key and body returns the first response")] = None,
    if_match: Annotated[str | None, Header(description="the sheet's ETag; a stale one is 412")] = None,
) -> JSONResponse:
    """Score a deal: 201 with the stored deal, its entries and the new sheet."""
    if idempotency_key is not None and not _KEY_RE.fullmatch(idempotency_key):
        raise Unprocessable(
            "Idempotency-Key must be 1-255 visible ASCII characters",
            [FieldError("Idempotency-Key", "1-255 visible ASCII characters")],
        )
    written = svc.post_deal(
        db,
        owner,
        table_id,
        _body(deal),
        deal_response,
        idempotency_key=idempotency_key,
        if_match=if_match,
        limits=Limits.of(settings),
    )
    number = (written.response.get("deal") or {}).get("number")
    headers = _headers(table_id, number, written.etag)
    if written.replayed:
        headers["Idempotent-Replayed"] = "true"
    return JSONResponse(written.response, status_code=written.status, headers=headers)


@router.get("/deals", response_model=DealPage, responses=problem_responses(401, 404, 422))
def list_deals(
    table_id: str,
    db: DB,
    owner: Owner,
    after: Annotated[int, Query(ge=0, le=10**9, description="list the deals numbered above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> JSONResponse:
    """Deals in order, keyset-paged by number: follow ``next`` until it is null."""
    page = svc.list_deals(db, owner, table_id, after=after, limit=limit)
    nxt = f"/v1/tables/{table_id}/deals?after={page.next_after}&limit={limit}" if page.next_after else None
    return JSONResponse({"items": [render_deal(d) for d in page.deals], "next": nxt})


@router.get("/deals/{number}", response_model=DealOut, responses=problem_responses(401, 404, 422))
def get_deal(table_id: str, number: DealNumber, db: DB, owner: Owner) -> JSONResponse:
    _table, deal = svc.get_deal(db, owner, table_id, number)
    return JSONResponse(render_deal(deal))


@router.delete(
    "/deals/{number}",
    response_model=DealWithSheet,
    responses=problem_responses(401, 404, 409, 412, 422),
)
def undo_deal(
    table_id: str,
    number: DealNumber,
    db: DB,
    owner: Owner,
    if_match: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    """Undo the last deal (only the last: 409 otherwise). Returns the removed deal and the sheet."""
    written = svc.undo_last(db, owner, table_id, number, deal_response, if_match=if_match)
    return JSONResponse(written.response, status_code=written.status, headers=_headers(table_id, None, written.etag))


def _corrected(table: TableInfo, deal: DealInfo, rescored: list[int]) -> dict[str, Any]:
    return {"deal": render_deal(deal), "sheet": render_sheet(table), "rescored": rescored}


@router.put(
    "/deals/{number}",
    response_model=DealCorrected,
    responses=problem_responses(401, 404, 409, 412, 413, 422),
)
def correct_deal(
    table_id: str,
    number: DealNumber,
    deal: Annotated[DealBody, Body()],
    db: DB,
    owner: Owner,
    if_match: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    """Correct a past deal; later deals are re-scored. If one of them no longer fits, 409 names
    it (``deal``) and nothing changes."""
    written = svc.correct_deal(
        db, owner, table_id, number, _body(deal), _corrected, if_match=if_match, post_render=deal_response
    )
    return JSONResponse(written.response, status_code=written.status, headers=_headers(table_id, None, written.etag))
