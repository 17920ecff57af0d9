from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Header, Path, Query, Response
from starlette.concurrency import run_in_threadpool

from app.kit.db import Database

from app.rules import FieldError
from app.deals import service as svc
from app.deals.service import DealInfo, Written
from app.kit.errors import Unprocessable
from app.tables.service import Limits, TableInfo
from app.kit.settings import Settings

from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Owner, get_settings
from app.kit.headers import ETAG, IDEMPOTENT_REPLAYED, LOCATION
from app.deals.schemas import DEAL_EXAMPLES, DealCorrected, DealInput, DealPage, DealWithSheet, StoredDeal
from app.kit.problem_schemas import problem_responses

router = APIRouter(prefix="/v1/tables/{table_id}", tags=["deals"], route_class=BodyRoute)
_KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
DealNumber = Annotated[int, Path(ge=1, le=10**9, description="the deal's number, 1 for the first")]
PAGE_MAX = 200
DealBody = Annotated[DealInput, Body(openapi_examples=DEAL_EXAMPLES)]
IfMatch = Annotated[str | None, Header(alias="If-Match", description="the sheet's ETag; a stale one is 412 and nothing is written")]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="1-255 visible ASCII characters; a retry with the same key and body returns the first response",
    ),
]
Config = Annotated[Settings, Depends(get_settings)]


def deal_response(table: TableInfo, deal: DealInfo) -> dict:
    """What a write stores and answers: the model's JSON (an idempotent replay sends the same)."""
    return DealWithSheet.of(table, deal).model_dump(mode="json")


def corrected_response(table: TableInfo, deal: DealInfo, rescored: list[int]) -> dict:
    return DealCorrected.of_correction(table, deal, rescored).model_dump(mode="json")


def _answer(written: Written, response: Response, location: str | None = None) -> None:
    response.status_code = written.status
    if location is not None:
        response.headers["Location"] = location
    if written.etag is not None:
        response.headers["ETag"] = written.etag


@router.post(
    "/deals",
    operation_id="postDeal",
    status_code=201,
    response_model=DealWithSheet,
    responses={
        201: {"headers": {**LOCATION, **ETAG, **IDEMPOTENT_REPLAYED}},
        **problem_responses(401, 404, 409, 412, 422),
    },
)
async def post_deal(
    table_id: str,
    deal: DealBody,
    db: DB,
    owner: Owner,
    response: Response,
    settings: Config,
    idempotency_key: IdempotencyKey = None,
    if_match: IfMatch = None,
) -> DealWithSheet:
    """Score a deal: 201 with the stored deal, its entries and the new sheet."""
    # ``async def``: the use case runs in the thread pool, and FastAPI checks and serialises
    # the answer here on the loop; a plain ``def`` would cost a second thread-pool round trip
    # for the check of the returned model.
    return await post_and_answer(db, owner, table_id, deal, response, settings, idempotency_key, if_match, f"/v1/tables/{table_id}/deals")


async def post_and_answer(
    db: Database,
    owner: str,
    table_id: str,
    deal: DealInput,
    response: Response,
    settings: Settings,
    idempotency_key: str | None,
    if_match: str | None,
    deals_url: str,
) -> DealWithSheet:
    """A post as every route that posts answers it (by key, by scorer link): the key
    checked, the deal posted in the thread pool, Location, ETag and Idempotent-Replayed set."""
    if idempotency_key is not None and not _KEY_RE.fullmatch(idempotency_key):
        raise Unprocessable(
            "Idempotency-Key must be 1-255 visible ASCII characters",
            [FieldError("Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)")],
        )
    answer, written = await run_in_threadpool(_post, db, owner, table_id, deal, idempotency_key, if_match, Limits.of(settings))
    _answer(written, response, f"{deals_url}/{answer.deal.root.number}")
    if written.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return answer


def _post(
    db: Database,
    owner: str,
    table_id: str,
    deal: DealInput,
    idempotency_key: str | None,
    if_match: str | None,
    limits: Limits,
) -> tuple[DealWithSheet, Written]:
    built: list[DealWithSheet] = []

    def render(table: TableInfo, stored: DealInfo) -> dict:
        built.append(DealWithSheet.of(table, stored))
        # What is stored for a retry is the model's JSON; without a key nothing is stored.
        return built[-1].model_dump(mode="json") if idempotency_key is not None else {}

    digest = None if idempotency_key is None else svc.request_hash(deal.body())
    written = svc.post_deal(
        db, owner, table_id, deal.to_deal(), render, idempotency_key=idempotency_key, digest=digest, if_match=if_match, limits=limits
    )
    # A replay answers what was stored, through the same model: the same bytes as the first time.
    answer = built[-1] if built and not written.replayed else DealWithSheet.model_validate(written.response)
    return answer, written


@router.get(
    "/deals",
    operation_id="listDeals",
    response_model=DealPage,
    responses=problem_responses(401, 404, 422),
)
def list_deals(
    table_id: str,
    db: DB,
    owner: Owner,
    after: Annotated[int, Query(ge=0, le=10**9, description="list the deals numbered above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX, description="at most this many deals")] = 50,
) -> DealPage:
    """Deals in order, keyset-paged by number: follow ``next`` until it is null."""
    page = svc.list_deals(db, owner, table_id, after=after, limit=limit)
    nxt = f"/v1/tables/{table_id}/deals?after={page.next_after}&limit={limit}" if page.next_after else None
    return DealPage(items=[StoredDeal.of(d) for d in page.deals], next=nxt)


@router.get(
    "/deals/{number}",
    operation_id="getDeal",
    response_model=StoredDeal,
    responses=problem_responses(401, 404, 422),
)
def get_deal(table_id: str, number: DealNumber, db: DB, owner: Owner) -> StoredDeal:
    """One deal of the log, with the entries it wrote."""
    _table, deal = svc.get_deal(db, owner, table_id, number)
    return StoredDeal.of(deal)


@router.delete(
    "/deals/{number}",
    operation_id="undoDeal",
    response_model=DealWithSheet,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404, 409, 412, 422)},
)
def undo_deal(
    table_id: str,
    number: DealNumber,
    db: DB,
    owner: Owner,
    response: Response,
    if_match: IfMatch = None,
) -> DealWithSheet:
    """Undo the last deal (only the last: 409 otherwise). Returns the removed deal and the sheet."""
    return undo_and_answer(db, owner, table_id, number, response, if_match)


def undo_and_answer(db: Database, owner: str, table_id: str, number: int, response: Response, if_match: str | None) -> DealWithSheet:
    written = svc.undo_last(db, owner, table_id, number, deal_response, if_match=if_match)
    _answer(written, response)
    return DealWithSheet.model_validate(written.response)


@router.put(
    "/deals/{number}",
    operation_id="correctDeal",
    response_model=DealCorrected,
    responses={200: {"headers": ETAG}, **problem_responses(401, 404, 409, 412, 422)},
)
def correct_deal(
    table_id: str,
    number: DealNumber,
    deal: DealBody,
    db: DB,
    owner: Owner,
    response: Response,
    if_match: IfMatch = None,
) -> DealCorrected:
    """Correct a past deal; later deals are re-scored. If one of them no longer fits, 409 names
    it (``deal``) and nothing changes."""
    return correct_and_answer(db, owner, table_id, number, deal, response, if_match)


def correct_and_answer(
    db: Database, owner: str, table_id: str, number: int, deal: DealInput, response: Response, if_match: str | None
) -> DealCorrected:
    written = svc.correct_deal(
        db, owner, table_id, number, deal.to_deal(), corrected_response, if_match=if_match, post_render=deal_response
    )
    _answer(written, response)
    return DealCorrected.model_validate(written.response)
