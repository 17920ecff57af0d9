"""The sheet's answers made before the framework's routing: its 304, and its 200 from bytes kept.

``GET /v1/tables/{id}/sheet`` is what a client watching a table sends most, and most of its cost
was the framework finding the route and solving its dependencies around a point read, then
building and serialising a sheet that had not changed since the last reader's
(docs/performance.md). This layer sits inside the rate limit, so the request is counted and
its key identified as every other; when the rate limit identified a valid key, it reads the
sheet's current ETag (the route's own read, ``sheet_not_modified`` below) and answers a 304 if
the client holds it, or a 200 with the bytes kept for that ETag if a reader in this process
built them. Everything else goes on to the route, which answers as it always has (and keeps
the bytes it built): no valid key, an unknown table (the route's 404), any error. When the ETag
was read here, the route is told (``SHEET_CHANGED``) so that it does not compare it again.

The bytes are kept by ETag, read from the database on every request, so a write by any process
is seen at once; a representation is the same bytes whichever path sends it (``sheet_json``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit import etags
from app.kit.built import Built
from app.kit.db import Database
from app.kit.middleware.asgi import find_route, header
from app.kit.middleware.rate_limit import key_owner
from app.kit.preconditions import not_modified_response
from app.kit.versions import Seen
from app.tables import service  # looked up when called (a test counts its reads)
from app.tables.limits import SHEET_BYTES_KEPT
from app.tables.sheet_schemas import Sheet

# Set in a request's scope when its sheet's current ETag was read before the routing and
# the client did not hold it (below): the route does not compare it again.
SHEET_CHANGED = "prefscore.sheet_changed"

# A table's sheet as sent, by (owner, table), kept at the ETag it was built at.
_SHEETS: Built[bytes] = Built(4096, max_bytes=SHEET_BYTES_KEPT, weigh=len)


def sheet_json(sheet: Sheet) -> bytes:
    """The sheet's JSON exactly as the framework writes a route's answer (its fields by alias,
    compact, UTF-8), so that one ETag names one sequence of bytes."""
    body = sheet.model_dump(mode="json", by_alias=True)
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def kept_sheet(owner: str, table_id: str, etag: str, build: Callable[[], Sheet]) -> bytes:
    """The sheet's bytes at ``etag``: kept, or ``build()`` serialised now and kept."""
    return _SHEETS.get_or_build((owner, table_id), etag, lambda: sheet_json(build()))


def sheet_response(body: bytes, etag: str) -> Response:
    return Response(body, media_type="application/json", headers={"ETag": etag, "Cache-Control": etags.CACHE})


async def sheet_not_modified(db: Database, owner: str, table_id: str, seen: Seen | None) -> Response | None:
    """The 304 of a sheet whose current ETag the client has (``seen``, its If-None-Match), else None (it has
    changed). Raises NotFound as the route does. The one definition of the sheet's 304, used
    by ``GET /v1/tables/{id}/sheet`` and by the answers before the framework's routing."""
    return not_modified_response(seen, await service.current_etag_on_loop(db, owner, table_id))


async def _answer(db: Database, scope: Scope, owner: str, table_id: str) -> Response | None:
    """The 304 or the kept 200 of this request, else None (the route answers)."""
    if_none_match = header(scope, b"if-none-match")
    if if_none_match is None and db.read_engine is not None:
        # A replica serves the full reads (app/kit/db/replicas.py): the ETag read here is
        # the leader's, which a plain read is meant to spare. The route keeps the bytes too.
        return None
    try:
        etag = await service.current_etag_on_loop(db, owner, table_id)
    except Exception:  # noqa: BLE001 - an unknown table, the database away: the route's answer
        return None
    seen = Seen.parse(if_none_match.decode("latin-1")) if if_none_match is not None else None
    unchanged = not_modified_response(seen, etag)
    if unchanged is not None:
        return unchanged
    scope[SHEET_CHANGED] = True
    body = _SHEETS.get((owner, table_id), etag)
    return None if body is None else sheet_response(body, etag)


OPERATION = "getSheet"


class SheetAnswers:
    def __init__(self, app: ASGIApp, db: Database, routes: list[Any]):
        self.app = app
        self.db = db
        self.route: Any = find_route(routes, OPERATION)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET" and not scope.get("root_path"):
            match = self.route.path_regex.match(scope.get("path", ""))
            owner = key_owner(scope) if match else None
            if owner is not None:
                answer = await _answer(self.db, scope, owner, match["table_id"])
                if answer is not None:
                    scope["route"] = self.route
                    await answer(scope, receive, send)
                    return
        await self.app(scope, receive, send)
