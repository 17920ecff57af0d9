from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.db import Database
from app.rules import FieldError, settle
from app.services import tables as svc
from app.services.errors import Unprocessable
from app.settings import Settings

from ..deps import DB, Owner, get_settings
from ..render import render_settlement, render_sheet, render_table
from ..schemas import SettlementOut, SharedOut, Sheet, TableCreate, TableOut, problem_responses

router = APIRouter(prefix="/v1", tags=["tables"])
STAKE_MAX = Fraction(1_000_000)


def parse_stake(raw: str | None) -> Fraction | None:
    """A decimal string (``0.5``, ``10``) as an exact Fraction; 422 otherwise."""
    if raw is None:
        return None
    reason = None
    try:
        text = raw.strip()
        if len(text) > 32:
            raise InvalidOperation
        value = Decimal(text)
        if not value.is_finite():
            reason = "must be a finite number"
        elif value < 0:
            reason = "must not be negative"
        else:
            stake = Fraction(value)
            if stake > STAKE_MAX:
                reason = f"must be at most {STAKE_MAX}"
            elif stake.denominator > 10**6:
                reason = "at most 6 decimal places"
            else:
                return stake
    except (InvalidOperation, ValueError):
        reason = "must be a decimal number, e.g. 0.5"
    raise Unprocessable(f"stake {reason}", [FieldError("stake", reason)])


@router.post(
    "/tables",
    status_code=201,
    response_model=TableOut,
    responses=problem_responses(401, 409, 413, 422),
)
def create_table(
    body: TableCreate, db: DB, owner: Owner, request: Request, settings: Annotated[Settings, Depends(get_settings)]
) -> JSONResponse:
    """Create a table; the response is the table, ``Location`` its URL."""
    fields = body.model_fields_set
    table = svc.create_table(
        db,
        owner,
        players=body.players,
        convention=body.convention,
        pool_target=body.pool_target if "pool_target" in fields else None,
        first_dealer=body.first_dealer,
        options=body.options,
        limits=svc.Limits.of(settings),
    )
    return JSONResponse(
        render_table(table),
        status_code=201,
        headers={"Location": f"/v1/tables/{table.id}", "ETag": table.etag},
    )


@router.get("/tables/{table_id}", response_model=TableOut, responses=problem_responses(401, 404))
def get_table(table_id: str, db: DB, owner: Owner) -> JSONResponse:
    table = svc.get_table(db, owner, table_id)
    return JSONResponse(render_table(table), headers={"ETag": table.etag})


def _none_match(header: str | None, etag: str) -> bool:
    if header is None:
        return False
    tags = [t.strip() for t in header.split(",")]
    # If-None-Match uses the weak comparison: W/"x" matches "x".
    return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)


@router.get(
    "/tables/{table_id}/sheet",
    response_model=Sheet,
    responses={304: {"description": "the sheet has not changed (If-None-Match)"}, **problem_responses(401, 404)},
)
async def get_sheet(
    table_id: str,
    db: DB,
    owner: Owner,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The sheet, with a strong ETag; ``If-None-Match`` with it answers 304."""
    # ``async def``: a 304 is answered from the ETag alone, read on the event loop where the
    # database allows it (SQLite), without a thread-pool round trip; the full sheet is loaded
    # and rendered in the thread pool.
    if if_none_match is not None:
        etag = await svc.current_etag_on_loop(db, owner, table_id)
        if _none_match(if_none_match, etag):
            return Response(status_code=304, headers={"ETag": etag, "Cache-Control": "private, no-cache"})
    return await run_in_threadpool(_sheet_response, db, owner, table_id)


def _sheet_response(db: Database, owner: str, table_id: str) -> JSONResponse:
    table = svc.get_table(db, owner, table_id)
    headers = {"ETag": table.etag, "Cache-Control": "private, no-cache"}
    return JSONResponse(render_sheet(table), headers=headers)


@router.get("/tables/{table_id}/settlement", response_model=SettlementOut, responses=problem_responses(401, 404, 422))
def get_settlement(
    table_id: str,
    db: DB,
    owner: Owner,
    stake: Annotated[str | None, Query(description="money per whist, a decimal such as 0.5", max_length=32)] = None,
) -> JSONResponse:
    """Balances (exact and rounded to 0.01, summing to 0) and the fewest transfers."""
    value = parse_stake(stake)
    table = svc.get_table(db, owner, table_id)
    return JSONResponse(render_settlement(table, settle(table.rules, table.state, value), value))


@router.get(
    "/shared/{token}",
    response_model=SharedOut,
    responses=problem_responses(404, 422),
    tags=["shared"],
    openapi_extra={"security": []},
)
def get_shared(
    token: str,
    db: DB,
    stake: Annotated[str | None, Query(max_length=32)] = None,
) -> JSONResponse:
    """The read-only share link: the table, its sheet and settlement, without a key."""
    value = parse_stake(stake)
    table = svc.get_shared(db, token)
    out = render_table(table)
    out["settlement"] = render_settlement(table, settle(table.rules, table.state, value), value)
    return JSONResponse(out, headers={"Cache-Control": "private, no-cache"})
