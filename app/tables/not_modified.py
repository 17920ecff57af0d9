"""The sheet's 304 answered before the framework's routing and dependency solving.

``GET /v1/tables/{id}/sheet`` with ``If-None-Match`` is what a client polling a table sends
most, and most of its cost was the framework finding the route and solving its dependencies
around a point read (docs/performance.md). This layer sits inside the rate limit, so the request
is counted and its key identified as every other; when the rate limit identified a valid key,
it makes the route's own check (``sheet_not_modified`` below) and sends its 304.
Everything else goes on to the route, which answers as it always has: no If-None-Match, no
valid key, an unknown table (the route's 404), any error. When the sheet has changed, the
route is told (``SHEET_CHANGED``) so that it does not read the ETag a second time.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.kit.db import Database
from app.kit.middleware.asgi import header
from app.kit.middleware.rate_limit import CALLER_SCOPE_KEY
from app.kit.preconditions import not_modified_response
from app.kit.versions import Seen
from app.tables import service  # looked up when called (a test counts its reads)

# Set in a request's scope when its If-None-Match was compared with the current ETag and did
# not match (below): the route does not read it again.
SHEET_CHANGED = "prefscore.sheet_changed"


async def sheet_not_modified(db: Database, owner: str, table_id: str, seen: Seen | None) -> Response | None:
    """The 304 of a sheet whose current ETag the client has (``seen``, its If-None-Match), else None (it has
    changed). Raises NotFound as the route does. The one definition of the sheet's 304, used
    by ``GET /v1/tables/{id}/sheet`` and by the shortcut before the framework's routing."""
    return not_modified_response(seen, await service.current_etag_on_loop(db, owner, table_id))


OPERATION = "getSheet"


class SheetNotModified:
    def __init__(self, app: ASGIApp, db: Database, routes: list[Any]):
        self.app = app
        self.db = db
        # The route itself, found among the app's routes (this layer imports no router): its
        # path pattern is the one definition of the path, and the access line and metrics
        # name it as they name every routed request.
        self.route: Any = _find(routes, OPERATION)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET" and not scope.get("root_path"):
            match = self.route.path_regex.match(scope.get("path", ""))
            caller = scope.get(CALLER_SCOPE_KEY) if match else None
            if_none_match = header(scope, b"if-none-match") if caller else None
            if caller is not None and if_none_match is not None and caller[1]:
                try:
                    unchanged = await sheet_not_modified(
                        self.db,
                        caller[1].owner,
                        match["table_id"],
                        Seen.parse(if_none_match.decode("latin-1")),
                    )
                except Exception:  # noqa: BLE001 - an unknown table, the database away: the route's answer
                    pass
                else:
                    if unchanged is not None:
                        scope["route"] = self.route
                        await unchanged(scope, receive, send)
                        return
                    scope[SHEET_CHANGED] = True
        await self.app(scope, receive, send)


def _find(routes: list[Any], operation_id: str) -> Any:
    """The route of an operation, in the app's routes or the routers they include."""
    for route in routes:
        if getattr(route, "operation_id", None) == operation_id:
            return route
        included = getattr(route, "original_router", None)  # an included router (FastAPI keeps it whole)
        found = _find(included.routes, operation_id) if included is not None else None
        if found is not None:
            return found
    return None
