"""Request bodies parsed and validated off the event loop.

FastAPI reads a route's JSON body with ``json.loads`` and validates it against the route's
model on the event loop, where a large body (the record import takes 4 MiB) stalls every other
request for as long as it takes. ``BodyRoute`` (the route class of every router that takes a
body) does both in the thread pool for a body larger than ``PREFSCORE_LOOP_PARSE_BYTES``
(4 KiB) and hands FastAPI the result: the parsed body, already validated, through Starlette's
cache of ``request.json()`` (a model instance validates again at once). A smaller body is left
to FastAPI, as the thread hop would cost more than the parse.

The refusals of a body found in the thread wait for their turn: FastAPI meets a stand-in that
fails at once, after the route's dependencies (the key is checked first, as for any body), and
the 422 handler (app/kit/problems.py) lists the refusals found here instead of the stand-in's.
"""

from __future__ import annotations

import email.message
import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from app.kit.settings import default_of

REFUSALS = "prefscore.body_refusals"
"""The scope key of the refusals found in the thread pool (a list of pydantic errors)."""


class _RefusedBody:
    """The body as FastAPI sees it when the thread pool refused it: no model takes it."""

    __slots__ = ()


REFUSED = _RefusedBody()


def loop_parse_bytes(request: Request) -> int:
    settings = getattr(request.app.state, "settings", None)
    limit: int = getattr(settings, "loop_parse_bytes", default_of("loop_parse_bytes"))
    return limit


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI parses a body of this Content-Type as JSON (its own test)."""
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _json_invalid(exc: json.JSONDecodeError) -> RequestValidationError:
    # FastAPI's own error for a body that is not JSON (fastapi.routing.get_request_handler).
    error = {
        "type": "json_invalid",
        "loc": ("body", exc.pos),
        "msg": "JSON decode error",
        "input": {},
        "ctx": {"error": exc.msg},
    }
    return RequestValidationError([error], body=exc.doc)


def parse_and_validate(body: bytes, field: Any) -> tuple[Any, list[Any] | None]:
    """(the body parsed and validated by ``field``, None), or (REFUSED, its refusals); a body
    that is not JSON raises FastAPI's RequestValidationError. Meant for the thread pool."""
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise _json_invalid(exc) from exc
    if field is None:
        return value, None
    validated, errors = field.validate(value, {}, loc=("body",))
    if errors:
        return REFUSED, list(errors)
    return validated, None


class BodyRoute(APIRoute):
    """An APIRoute whose JSON body, when larger than ``loop_parse_bytes``, is parsed (and
    validated, for a route with one body parameter) in the thread pool."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler
        # Several body parameters are embedded in one object FastAPI builds: parse only.
        field = None if self._embed_body_fields else self.body_field

        async def handle(request: Request) -> Response:
            if is_json(request.headers.get("content-type")):
                body = await _read(request)
                if len(body) > loop_parse_bytes(request):
                    value, refusals = await run_in_threadpool(parse_and_validate, body, field)
                    if refusals is not None:
                        request.scope[REFUSALS] = refusals
                    request._json = value  # Starlette's cache of request.json(), which FastAPI reads
            return await handler(request)

        return handle


async def _read(request: Request) -> bytes:
    """The body, as FastAPI would read it: its body-size limit's 413 passes through, any other
    failure to read is FastAPI's 400."""
    try:
        return await request.body()
    except HTTPException:
        raise
    except Exception as exc:
        from fastapi._body_limit import get_body_limit_error

        error = get_body_limit_error(exc)
        if error is not None:
            raise error from exc
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from exc
