"""How a deal route answers, whichever route it is (by key, app/deals/router.py; by scorer
link, app/scorer/router.py): the request's parameters and the
answer built from what the deals service returned, with its status and headers."""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated

from anyio import to_thread
from fastapi import Body, Depends, Header, Path, Response

from app.deals import service
from app.deals.model import Changed, Posted, request_hash
from app.deals.posted_schemas import DEAL_EXAMPLES, DealInput
from app.deals.schemas import DealCorrected, DealWithSheet
from app.kit.db import Database
from app.kit.deps import get_settings
from app.kit.errors import Unprocessable
from app.kit.settings import Settings
from app.kit.versions import Expected
from app.rules import FieldError
from app.tables.model import Limits

_KEY_RE = re.compile(r"^[\x21-\x7e]{1,255}$")
DealNumber = Annotated[int, Path(ge=1, le=10**9, description="the deal's number, 1 for the first")]
DealBody = Annotated[DealInput, Body(openapi_examples=DEAL_EXAMPLES)]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="1-255 visible ASCII characters; a retry with the same key and body returns the first response",
    ),
]
Config = Annotated[Settings, Depends(get_settings)]


def checked_key(key: str | None) -> str | None:
    if key is not None and not _KEY_RE.fullmatch(key):
        raise Unprocessable(
            "Idempotency-Key must be 1-255 visible ASCII characters",
            [
                FieldError(
                    "Idempotency-Key", "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)"
                )
            ],
        )
    return key


def fingerprint(body: DealInput, key: str | None) -> str | None:
    """What a key is kept with: the hash of the deal as sent (another body with the key is refused)."""
    return request_hash(body.body()) if key is not None else None


async def post(
    db: Database,
    owner: str,
    table_id: str,
    deal: DealInput,
    *,
    idempotency_key: str | None,
    expected: Expected | None,
    settings: Settings,
    response: Response,
    deals_url: str,
) -> DealWithSheet:
    """A post as both deal routes make it (by key, by scorer link): the key checked, the use
    case in the thread pool, the answer built on the loop, its status and headers set."""
    result = await scored(db, owner, table_id, deal, checked_key(idempotency_key), expected, settings)
    answer = posted(result)
    posted_headers(result, answer, response, deals_url)
    return answer


async def scored(
    db: Database,
    owner: str,
    table_id: str,
    deal: DealInput,
    key: str | None,
    expected: Expected | None,
    settings: Settings,
) -> Posted:
    """The post's use case, in the thread pool (``key`` checked)."""
    return await to_thread.run_sync(
        partial(
            service.post_deal,
            db,
            owner,
            table_id,
            deal.to_deal(),
            idempotency_key=key,
            request_hash=fingerprint(deal, key),
            expected=expected,
            limits=Limits.of(settings),
        )
    )


def posted(result: Posted) -> DealWithSheet:
    """The answer to a post, or to its retry with the same key: built the same way from the
    same deal and table, so a replay is the first answer again (an answer kept before posts
    were kept as domain results is sent as it was kept, through the same model)."""
    if result.earlier_answer is not None:
        return DealWithSheet.model_validate(result.earlier_answer)
    return DealWithSheet.of(result.table, result.deal)  # type: ignore[arg-type]


def posted_headers(result: Posted, answer: DealWithSheet, response: Response, deals_url: str) -> None:
    """201 with Location, and the sheet's ETag; a replay says so and carries no ETag (the
    sheet it kept may be older than the current one)."""
    response.status_code = 201
    response.headers["Location"] = f"{deals_url}/{answer.deal.root.number}"
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    else:
        response.headers["ETag"] = result.table.etag  # type: ignore[union-attr]


def undone(result: Changed, response: Response) -> DealWithSheet:
    response.headers["ETag"] = result.table.etag
    return DealWithSheet.of(result.table, result.deal)


def corrected(result: Changed, response: Response) -> DealCorrected:
    response.headers["ETag"] = result.table.etag
    return DealCorrected.of_correction(result.table, result.deal, list(result.rescored))
