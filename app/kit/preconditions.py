"""Preconditions in one place, as HTTP declares them: the two conditional headers (If-Match
on the writes, If-None-Match on the reads), declared once for every route that has them, and
the 304 of an answer whose ETag the client has. The headers are parsed here into the values
the use cases take (``Expected``, ``Seen``: app/kit/versions.py, no HTTP in them; the If-Match
check is made inside the use case's transaction); the ETags are app/kit/etags.py's;
the sheet's 304 before the framework's routing is app/tables/sheet_answers.py's, by the same
function as the route's.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header
from starlette.responses import Response

from app.kit import etags
from app.kit.versions import Expected, Seen, still_held

IfMatch = Annotated[
    str | None,
    Header(alias="If-Match", description="the sheet's ETag; a stale one is 412 and nothing is written"),
]
# The tables' routes describe the same header as the table's ETag (the same value).
TableIfMatch = Annotated[
    str | None,
    Header(alias="If-Match", description="the table's ETag; a stale one is 412 and nothing is written"),
]
IfNoneMatch = Annotated[
    str | None,
    Header(alias="If-None-Match", description="an ETag of this answer: 304 when it is still current"),
]


def not_modified_response(seen: Seen | str | None, etag: str) -> Response | None:
    """The 304 of an answer whose current ``etag`` the client has (``seen``, its
    If-None-Match), else None. A header's text is still taken from the routes that do not
    yet declare ``SeenVersions`` (app/tournaments/router.py, app/ratings/router.py)."""
    if isinstance(seen, str):
        seen = Seen.parse(seen)
    if still_held(seen, etag):
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": etags.CACHE})
    return None


# The same headers parsed at the edge, as the use cases take them: a route declares
# ``expected: SheetPrecondition`` and hands the ``Expected`` on (the OpenAPI document still
# describes the header, through the dependency). ``async def``: parsing a header is
# microseconds, and the framework runs a plain ``def`` dependency in the thread pool, a
# round trip through it for every request that declares one (every post of a deal).
async def _expected_sheet(if_match: IfMatch = None) -> Expected | None:
    return Expected.parse(if_match)


async def _expected_table(if_match: TableIfMatch = None) -> Expected | None:
    return Expected.parse(if_match)


async def _seen(if_none_match: IfNoneMatch = None) -> Seen | None:
    return Seen.parse(if_none_match)


SheetPrecondition = Annotated[Expected | None, Depends(_expected_sheet)]
TablePrecondition = Annotated[Expected | None, Depends(_expected_table)]
SeenVersions = Annotated[Seen | None, Depends(_seen)]
