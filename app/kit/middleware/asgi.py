"""Small ASGI helpers the middleware share: a header of the scope, a problem+json answer
(worded, like every problem, in the request's language: app/kit/problems.py), a route found
by its operation (for the layers that answer a route's requests before the routing)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from app.kit.i18n import Lang
from app.kit.lang import language_headers
from app.kit.problems import PROBLEM, problem_body, problem_lang


def header(scope: Scope, name: bytes) -> bytes | None:
    value: bytes
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def problem_bytes(lang: Lang, status: int, title: str, detail: str, **extra: Any) -> bytes:
    body = problem_body(status, detail, lang, title=title, **extra)
    return json.dumps(body, ensure_ascii=False).encode()


def language_header_list(lang: Lang) -> list[tuple[bytes, bytes]]:
    """A problem's Content-Language and Vary, as ASGI headers."""
    return [(k.lower().encode(), v.encode()) for k, v in language_headers(lang).items()]


async def send_problem(
    scope: Scope,
    send: Send,
    status: int,
    title: str,
    detail: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    **extra: Any,
) -> None:
    lang = problem_lang(scope)
    body = problem_bytes(lang, status, title, detail, **extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())]
            + language_header_list(lang)
            + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


def find_route(routes: list[Any], operation_id: str) -> Any:
    """The route of an operation, in the app's routes or the routers they include: a layer
    that answers before the routing imports no router, and names its requests by the route
    (its path pattern is the one definition of the path; the access line and the metrics name
    the route as they name every routed request)."""
    for route in routes:
        if getattr(route, "operation_id", None) == operation_id:
            return route
        included = getattr(route, "original_router", None)  # an included router (FastAPI keeps it whole)
        found = find_route(included.routes, operation_id) if included is not None else None
        if found is not None:
            return found
    return None


async def whole_body(receive: Receive) -> bytes | None:
    """A request's body, read to its end; None when the client left first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the next layer, once a layer has read the body: that body, then what the
    client sends next (its disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
