from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from app.deals import answers
from app.deals import service as svc
from app.deals.answers import Config, DealBody, DealNumber, IdempotencyKey
from app.deals.limits import DEALS_PAGE_MAX
from app.deals.schemas import DealCorrected, DealPage, DealWithSheet, StoredDeal
from app.kit.bodies import BodyRoute
from app.kit.deps import DB, Owner
from app.kit.headers import ETAG, IDEMPOTENT_REPLAYED, LOCATION
from app.kit.preconditions import SheetPrecondition
from app.kit.problem_schemas import problem_responses

router = APIRouter(prefix="/v1/tables/{table_id}", tags=["deals"], route_class=BodyRoute)


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
    expected: SheetPrecondition,
    idempotency_key: IdempotencyKey = None,
) -> DealWithSheet:
    """Score a deal: 201 with the stored deal, its entries and the new sheet."""
    # ``async def``: the use case runs in the thread pool, and FastAPI checks and serialises
    # the answer here on the loop; a plain ``def`` would cost a second thread-pool round trip
    # for the check of the returned model.
    return await answers.post(
        db,
        owner,
        table_id,
        deal,
        idempotency_key=idempotency_key,
        expected=expected,
        settings=settings,
        response=response,
        deals_url=f"/v1/tables/{table_id}/deals",
    )


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
    limit: Annotated[int, Query(ge=1, le=DEALS_PAGE_MAX, description="at most this many deals")] = 50,
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
    expected: SheetPrecondition,
) -> DealWithSheet:
    """Undo the last deal (only the last: 409 otherwise). Returns the removed deal and the sheet."""
    return answers.undone(svc.undo_last(db, owner, table_id, number, expected=expected), response)


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
    expected: SheetPrecondition,
) -> DealCorrected:
    """Correct a past deal; later deals are re-scored. If one of them no longer fits, 409 names
    it (``deal``) and nothing changes."""
    return answers.corrected(
        svc.correct_deal(db, owner, table_id, number, deal.to_deal(), expected=expected), response
    )
