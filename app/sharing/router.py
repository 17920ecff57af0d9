"""Pictures of a table: the paper sheet as SVG and PNG (by key or by share link), in a
language (``?lang=``, else ``Accept-Language``) and a layout (``?layout=phone|wide``), and
the share link's deal log. The live page at ``/shared/{token}`` is app/sharing/page.py.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from starlette.types import Scope

from app.deals.schemas import SharedDealPage, StoredDeal
from app.deals.service import list_shared_deals
from app.kit import etags
from app.kit.bodies import BodyRoute
from app.kit.db import Database
from app.kit.deps import DB, NO_KEY, Owner, ScorerAccess
from app.kit.headers import CACHE_CONTROL, ETAG, LANGUAGE, RETRY_AFTER, not_modified
from app.kit.i18n import Lang
from app.kit.lang import PageLang, language_headers
from app.kit.preconditions import SeenVersions
from app.kit.problem_schemas import problem_responses
from app.kit.problems import service_problem
from app.kit.versions import Seen
from app.render import LAYOUTS
from app.sharing.drawing import DrawingBusy, Pictures
from app.sharing.pictures import SheetAddress, sheet_picture

router = APIRouter()

SVG = "image/svg+xml"
PNG = "image/png"
from app.sharing.limits import SHARED_PAGE_MAX  # noqa: E402


class Layout(StrEnum):
    """The picture's layouts, the renderer's (LAYOUTS)."""

    phone = "phone"
    wide = "wide"


assert {layout.value for layout in Layout} == set(LAYOUTS), "the layouts the renderer draws"
LayoutQuery = Annotated[
    Layout, Query(description="phone: 360 units wide (the default); wide: 640, for a desktop at its own size")
]


async def get_pictures(request: Request) -> Pictures:
    """The app's pictures: drawn by ETag (which names the table, its revision, the render
    version, the language and the layout) once per revision, in its worker processes."""
    return request.app.state.pictures


PicturesDep = Annotated[Pictures, Depends(get_pictures)]


def _picture_responses(media: str, what: str) -> dict[int | str, dict[str, Any]]:
    return {
        200: {
            "content": {media: {"schema": {"type": "string", "format": "binary"}}},
            "description": f"the sheet drawn as on paper ({what})",
            "headers": {**ETAG, **CACHE_CONTROL, **LANGUAGE},
        },
        **not_modified("the picture has not changed (If-None-Match)"),
    }


def drawing_problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The problems of a picture route: those given, 409 (a table too long to draw) and 503
    with Retry-After (every drawing worker busy, or the picture took too long)."""
    out = problem_responses(*statuses, 409, 503)
    out[503] = {**out[503], "headers": RETRY_AFTER}
    return out


SVG_RESPONSES = _picture_responses(SVG, "SVG")
PNG_RESPONSES = _picture_responses(PNG, "PNG, twice the SVG's size, at most 12 megapixels")


def picture_response(
    db: Database,
    pictures: Pictures,
    of: SheetAddress,
    seen: Seen | None,
    lang: Lang,
    layout: str,
    fmt: str,
    scope: Scope,
) -> Response:
    """The picture as HTTP: 304 when the viewer has it, 503 with Retry-After when every drawing
    worker is busy (a table too long to draw is the service's Conflict: 409)."""
    try:
        drawn = sheet_picture(db, pictures, of, fmt=fmt, lang=lang, layout=layout, seen=seen)
    except DrawingBusy as exc:
        return service_problem(exc, scope)
    headers = {"ETag": drawn.etag, "Cache-Control": etags.CACHE, **language_headers(lang)}
    if drawn.body is None:
        return Response(status_code=304, headers=headers)
    return Response(drawn.body, media_type=PNG if fmt == "png" else SVG, headers=headers)


def _keyed_picture(fmt: str) -> Callable[..., Response]:
    def picture(
        table_id: str,
        db: DB,
        owner: Owner,
        pictures: PicturesDep,
        lang: PageLang,
        request: Request,
        seen: SeenVersions,
        layout: LayoutQuery = Layout.phone,
    ) -> Response:
        return picture_response(
            db,
            pictures,
            SheetAddress(owner=owner, table_id=table_id),
            seen,
            lang,
            layout.value,
            fmt,
            request.scope,
        )

    return picture


def _shared_picture(fmt: str) -> Callable[..., Response]:
    def picture(
        token: str,
        db: DB,
        pictures: PicturesDep,
        lang: PageLang,
        request: Request,
        seen: SeenVersions,
        layout: LayoutQuery = Layout.phone,
    ) -> Response:
        return picture_response(
            db, pictures, SheetAddress(token=token), seen, lang, layout.value, fmt, request.scope
        )

    return picture


# The four pictures: SVG and PNG, by key and by share link, one handler each from the above.
for fmt, responses, operation, what in (
    ("svg", SVG_RESPONSES, "Svg", "The sheet drawn as the paper pulka"),
    ("png", PNG_RESPONSES, "Png", "The same picture as PNG (for messengers and bots)"),
):
    router.add_api_route(
        f"/v1/tables/{{table_id}}/sheet.{fmt}",
        _keyed_picture(fmt),
        methods=["GET"],
        operation_id=f"getSheet{operation}",
        tags=["views"],
        response_class=Response,
        responses={**responses, **drawing_problems(401, 404, 422)},
        summary=f"Get Sheet {operation}",
        description=f"{what}: the target in a circle, one sector per player with mountain, pool and whists as "
        "running sequences, the all-pass level, who deals next, the final balances. ``?lang=``, ``?layout=``; "
        "``ETag``; ``If-None-Match`` answers 304.",
    )
    router.add_api_route(
        f"/v1/shared/{{token}}/sheet.{fmt}",
        _shared_picture(fmt),
        methods=["GET"],
        operation_id=f"getSharedSheet{operation}",
        tags=["shared"],
        response_class=Response,
        responses={**responses, **drawing_problems(404, 422)},
        openapi_extra={"security": []},
        summary=f"Get Shared Sheet {operation}",
        description=f"{what}, through the read-only share link (no key); as by key.",
    )


@router.get(
    "/v1/shared/{token}/deals",
    operation_id="listSharedDeals",
    tags=["shared"],
    response_model=SharedDealPage,
    responses={
        200: {"headers": {**ETAG, **CACHE_CONTROL}},
        **not_modified("unchanged (If-None-Match)"),
        **problem_responses(404, 422),
    },
    openapi_extra={"security": []},
)
def get_shared_deals(
    token: str,
    db: DB,
    response: Response,
    seen: SeenVersions,
    after: Annotated[int, Query(ge=0, le=10**9, description="list the deals numbered above this")] = 0,
    limit: Annotated[
        int, Query(ge=1, le=SHARED_PAGE_MAX, description="at most this many deals")
    ] = SHARED_PAGE_MAX,
) -> SharedDealPage | Response:
    """The deal log through the read-only share link, keyset-paged like the keyed listing:
    each stored deal with its entries; follow ``next`` until it is null."""
    page = list_shared_deals(db, token, after=after, limit=limit, seen=seen)
    headers = {"ETag": page.table.etag, "Cache-Control": etags.CACHE}
    if page.current:
        return Response(status_code=304, headers=headers)
    items = [StoredDeal.of(d) for d in page.deals]
    nxt = f"/v1/shared/{token}/deals?after={page.next_after}&limit={limit}" if page.next_after else None
    response.headers.update(headers)
    return SharedDealPage(items=items, next=nxt)


# --- the picture a scorer link's page shows (the link is the credential: no key) -----------

scorer_router = APIRouter(prefix="/v1/score/{token}", tags=["scorer"], route_class=BodyRoute)


@scorer_router.get(
    "/sheet.svg",
    operation_id="getScorerSheetSvg",
    response_class=Response,
    responses={**SVG_RESPONSES, **drawing_problems(404, 422)},
    openapi_extra=NO_KEY,
)
def get_scorer_sheet_svg(
    scorer: ScorerAccess,
    db: DB,
    pictures: PicturesDep,
    lang: PageLang,
    request: Request,
    seen: SeenVersions,
    layout: LayoutQuery = Layout.phone,
) -> Response:
    """The sheet drawn as the paper pulka, as ``/v1/tables/{id}/sheet.svg`` draws it (``?lang=``, ``?layout=``)."""
    return picture_response(
        db,
        pictures,
        SheetAddress(owner=scorer.owner, table_id=scorer.table_id),
        seen,
        lang,
        layout.value,
        "svg",
        request.scope,
    )
