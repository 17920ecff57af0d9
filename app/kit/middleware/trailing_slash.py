"""A path that differs from a route's only by a trailing slash is redirected with a relative
``Location`` (the path and the query, nothing taken from the request's Host header).

The router's own redirect (Starlette's ``redirect_slashes``) builds an absolute URL from the
Host header, so ``GET /v1/tables/`` with ``Host: evil.example`` was sent to
``http://evil.example/v1/tables``. It is switched off; this fallback runs where the router
would answer 404, matches the path with the slash added or removed against the same routes,
and answers 307 (method and body kept) to the path alone, or the 404 as before."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI
from starlette._utils import get_route_path
from starlette.responses import RedirectResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send


def relative_location(path: str, query_string: bytes) -> str:
    """``path`` (decoded, as in the ASGI scope) percent-encoded, with one leading slash (a
    Location of "//host/..." would name another host), and the query as sent."""
    location = "/" + quote(path, safe="/!$&'()*+,;=:@-._~").lstrip("/")
    if query_string:
        location += "?" + query_string.decode("latin-1")
    return location


def install(app: FastAPI) -> None:
    router = app.router
    router.redirect_slashes = False
    not_found: ASGIApp = router.default

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and get_route_path(scope) not in ("", "/"):
            path = scope["path"]
            other = {**scope, "path": path.rstrip("/") if path.endswith("/") else path + "/"}
            if any(route.matches(other)[0] is not Match.NONE for route in router.routes):
                response = RedirectResponse(
                    relative_location(other["path"], scope.get("query_string", b"")), status_code=307
                )
                await response(scope, receive, send)
                return
        await not_found(scope, receive, send)

    router.default = default
