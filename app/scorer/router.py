"""Scorer links: the owner makes, lists and revokes them (``/v1/tables/{id}/scorer-link``,
``/v1/tables/{id}/scorer-links``); a link (``/v1/score/{token}``, no key) posts, undoes and
corrects the deals of its one table and reads what the scoring page needs: the table with
its choices and settlement and the log. Its picture is drawn by app/sharing/router.py and
its event stream sent by app/live/router.py, as every picture and stream.

Every write is the deals service's (app/deals/service.py), answered as the keyed deal routes
answer (app/deals/answers.py), as the table's owner; the link only decides which table."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from app.deals import answers
from app.deals import service as deals
from app.deals.answers import Config, DealBody, DealNumber, IdempotencyKey
from app.deals.schemas import DealCorrected, DealWithSheet
from app.kit.bodies import BodyRoute
from app.kit.deps import DB, NO_KEY, Owner, ScorerAccess
from app.kit.headers import CACHE_CONTROL, ETAG, IDEMPOTENT_REPLAYED, LOCATION
from app.kit.preconditions import SheetPrecondition
from app.kit.problem_schemas import problem_responses
from app.rules import settle
from app.scorer import service as links
from app.scorer.limits import SCORER_LINKS_MAX
from app.scorer.schemas import (
    ScorerDeal,
    ScorerDealPage,
    ScorerLink,
    ScorerLinkCreated,
    ScorerLinkList,
    ScorerTable,
)
from app.tables.schemas import SettlementOut
from app.tables.service import get_table

owner_router = APIRouter(prefix="/v1/tables/{table_id}", tags=["scorer links"], route_class=BodyRoute)
router = APIRouter(prefix="/v1/score/{token}", tags=["scorer"], route_class=BodyRoute)
LinkId = Annotated[int, Path(ge=1, le=2**53 - 1, description="the link's id")]
from app.deals.limits import DEALS_PAGE_MAX as PAGE_MAX  # noqa: E402

_NO_STORE = {"headers": CACHE_CONTROL}


@owner_router.post(
    "/scorer-link",
    operation_id="createScorerLink",
    status_code=201,
    response_model=ScorerLinkCreated,
    responses={201: {"headers": {**LOCATION, **CACHE_CONTROL}}, **problem_responses(401, 404, 409, 422)},
)
def create_scorer_link(table_id: str, db: DB, owner: Owner, response: Response) -> ScorerLinkCreated:
    """A new scorer link of the table: ``/score/{token}`` posts, undoes and corrects this
    table's deals (from a phone at the table) and nothing else. The token is shown this once;
    only its hash is kept. At most 20 links of a table work at a time (409)."""
    link, token = links.create_link(db, owner, table_id)
    page = links.link_path(token)
    response.headers["Location"] = page
    response.headers["Cache-Control"] = "no-store"
    return ScorerLinkCreated(**ScorerLink.of(link).model_dump(), token=token, link=page)


@owner_router.get(
    "/scorer-links",
    operation_id="listScorerLinks",
    response_model=ScorerLinkList,
    responses={200: _NO_STORE, **problem_responses(401, 404)},
)
def list_scorer_links(
    table_id: str,
    db: DB,
    owner: Owner,
    response: Response,
    after: Annotated[
        int,
        Query(
            ge=0,
            le=2**53 - 1,
            description="list the links after this one (its id), from the last page's next",
        ),
    ] = 0,
    limit: Annotated[
        int,
        Query(
            ge=1, le=SCORER_LINKS_MAX, description="at most this many links (all of a table's, by default)"
        ),
    ] = SCORER_LINKS_MAX,
) -> ScorerLinkList:
    """The table's scorer links, revoked ones included, oldest first, keyset-paged (follow
    ``next`` until it is null): id, prefix, when made and revoked. Never a token nor a hash."""
    response.headers["Cache-Control"] = "no-store"
    found, last = links.list_links(db, owner, table_id, after=after, limit=limit)
    nxt = f"/v1/tables/{table_id}/scorer-links?after={last}&limit={limit}" if last is not None else None
    return ScorerLinkList(items=[ScorerLink.of(link) for link in found], next=nxt)


@owner_router.delete(
    "/scorer-links/{link_id}",
    operation_id="revokeScorerLink",
    response_model=ScorerLink,
    responses={200: _NO_STORE, **problem_responses(401, 404, 422)},
)
def revoke_scorer_link(
    table_id: str, link_id: LinkId, db: DB, owner: Owner, response: Response
) -> ScorerLink:
    """Revoke a scorer link: refused from now on, its open event streams end at once.
    Revoking again changes nothing."""
    response.headers["Cache-Control"] = "no-store"
    return ScorerLink.of(links.revoke_link(db, owner, table_id, link_id))


# --- what a scorer link may do ------------------------------------------------------------


@router.get(
    "",
    operation_id="getScorerTable",
    response_model=ScorerTable,
    responses={200: {"headers": {**ETAG, **CACHE_CONTROL}}, **problem_responses(404)},
    openapi_extra=NO_KEY,
)
def get_scorer_table(scorer: ScorerAccess, db: DB, response: Response) -> ScorerTable:
    """The link's table: players, sheet, settlement (in whists) and the choices its rules
    allow a deal (``choices``); no share token. ``ETag`` is the sheet's, for ``If-Match``."""
    table = get_table(db, scorer.owner, scorer.table_id)
    response.headers["Cache-Control"] = "no-store"
    response.headers["ETag"] = table.etag
    settlement = SettlementOut.of(table, settle(table.rules, table.state, None), None)
    return ScorerTable.of(table, settlement)


@router.get(
    "/deals",
    operation_id="listScorerDeals",
    response_model=ScorerDealPage,
    responses={200: _NO_STORE, **problem_responses(404, 422)},
    openapi_extra=NO_KEY,
)
def list_scorer_deals(
    scorer: ScorerAccess,
    token: str,
    db: DB,
    response: Response,
    after: Annotated[int, Query(ge=0, le=10**9, description="list the deals numbered above this")] = 0,
    limit: Annotated[int, Query(ge=1, le=PAGE_MAX, description="at most this many deals")] = PAGE_MAX,
) -> ScorerDealPage:
    """The deal log with the dealer of each deal, keyset-paged: follow ``next`` until it is null."""
    page = links.scorer_log(db, scorer, after=after, limit=limit)
    response.headers["Cache-Control"] = "no-store"
    nxt = f"/v1/score/{token}/deals?after={page.next_after}&limit={limit}" if page.next_after else None
    return ScorerDealPage(items=[ScorerDeal.of(deal) for deal in page.deals], next=nxt)


@router.post(
    "/deals",
    operation_id="postScorerDeal",
    status_code=201,
    response_model=DealWithSheet,
    responses={
        201: {"headers": {**LOCATION, **ETAG, **IDEMPOTENT_REPLAYED}},
        **problem_responses(404, 409, 412, 422),
    },
    openapi_extra=NO_KEY,
)
async def post_scorer_deal(
    scorer: ScorerAccess,
    token: str,
    deal: DealBody,
    db: DB,
    response: Response,
    settings: Config,
    expected: SheetPrecondition,
    idempotency_key: IdempotencyKey = None,
) -> DealWithSheet:
    """Score a deal of the link's table, as ``POST /v1/tables/{id}/deals`` does."""
    return await answers.post(
        db,
        scorer.owner,
        scorer.table_id,
        deal,
        idempotency_key=idempotency_key,
        expected=expected,
        settings=settings,
        response=response,
        deals_url=f"/v1/score/{token}/deals",
    )


@router.delete(
    "/deals/{number}",
    operation_id="undoScorerDeal",
    response_model=DealWithSheet,
    responses={200: {"headers": ETAG}, **problem_responses(404, 409, 412, 422)},
    openapi_extra=NO_KEY,
)
def undo_scorer_deal(
    scorer: ScorerAccess, number: DealNumber, db: DB, response: Response, expected: SheetPrecondition
) -> DealWithSheet:
    """Undo the last deal of the link's table (409 for another one)."""
    return answers.undone(
        deals.undo_last(db, scorer.owner, scorer.table_id, number, expected=expected), response
    )


@router.put(
    "/deals/{number}",
    operation_id="correctScorerDeal",
    response_model=DealCorrected,
    responses={200: {"headers": ETAG}, **problem_responses(404, 409, 412, 422)},
    openapi_extra=NO_KEY,
)
def correct_scorer_deal(
    scorer: ScorerAccess,
    number: DealNumber,
    deal: DealBody,
    db: DB,
    response: Response,
    expected: SheetPrecondition,
) -> DealCorrected:
    """Correct a past deal of the link's table; later deals are re-scored (409 naming the one
    that would no longer fit, and nothing changes)."""
    changed = deals.correct_deal(db, scorer.owner, scorer.table_id, number, deal.to_deal(), expected=expected)
    return answers.corrected(changed, response)
