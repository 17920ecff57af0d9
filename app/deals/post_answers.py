"""A deal's post answered before the framework's routing.

``POST /v1/tables/{id}/deals`` is the write a scorer's client sends most. Once its use case
and its statements were trimmed, most of a post's CPU was the framework around them: finding
the route among all the others, solving its seven dependencies, validating the answer it had
just built (docs/performance.md, lesson 21). This layer sits where the sheet's answers do
(app/tables/sheet_answers.py): inside the rate limit and the body guard, so the caller is
identified and counted and the body read, bounded and checked as for every request. For a
valid key and a small JSON body it does what the route does, with the route's own parts: the
body validated by the route's body field, the Idempotency-Key and If-Match headers read as the
route reads them (the first of each), the same use case (``answers.scored``), the same answer
(``answers.posted``) serialised by the route's response field with the route's status and
headers; a refusal of the use case is answered by the app's own handler of it. Anything else
goes on to the route with the body replayed, and is answered as it always was: no valid key,
a body that is not JSON or not a deal, a malformed key header, a body large enough to be
parsed off the loop. The answers are the route's byte for byte (tests/api/test_post_answers.py).
"""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from app.deals import answers
from app.kit.bodies import is_json, parse_and_validate
from app.kit.db import Database
from app.kit.errors import Unprocessable
from app.kit.middleware.asgi import find_route, header, replayed, whole_body
from app.kit.middleware.rate_limit import key_owner
from app.kit.settings import Settings
from app.kit.versions import Expected

OPERATION = "postDeal"


class PostAnswers:
    def __init__(self, app: ASGIApp, db: Database, settings: Settings, routes: list[Any]):
        self.app = app
        self.db = db
        self.settings = settings
        self.route: Any = find_route(routes, OPERATION)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST" and not scope.get("root_path"):
            match = self.route.path_regex.match(scope.get("path", ""))
            owner = key_owner(scope) if match else None
            if owner is not None and _json_body(scope):
                body = await whole_body(receive)
                if body is None:
                    return  # the client left
                answer = await self._answer(scope, owner, match["table_id"], body)
                if answer is not None:
                    await answer(scope, receive, send)
                    return
                receive = replayed(body, receive)
        await self.app(scope, receive, send)

    async def _answer(self, scope: Scope, owner: str, table_id: str, body: bytes) -> Response | None:
        """The post's answer, or None: the route answers."""
        if len(body) > self.settings.loop_parse_bytes:
            return None  # the route parses it in the thread pool (app/kit/bodies.py)
        try:
            deal, refusals = parse_and_validate(body, self.route.body_field)
            key = answers.checked_key(_text(header(scope, b"idempotency-key")))
        except (RequestValidationError, Unprocessable):
            return None
        if refusals is not None:
            return None
        expected = Expected.parse(_text(header(scope, b"if-match")))
        scope["route"] = self.route
        scope["path_params"] = {"table_id": table_id}
        try:
            result = await answers.scored(self.db, owner, table_id, deal, key, expected, self.settings)
        except Exception as exc:
            handle = _handler(scope, exc)
            if handle is None:
                raise  # as from the route: on to the outermost layers' 500
            answer: Response = await handle(Request(scope), exc)
            return answer
        return self._posted(result, table_id)

    def _posted(self, result: Any, table_id: str) -> Response:
        """The 201 as the framework makes the route's: the answer's JSON by the route's
        response field, then the headers the route set on its response."""
        answer = answers.posted(result)
        set_by_route = Response()
        del set_by_route.headers["content-length"]
        answers.posted_headers(result, answer, set_by_route, f"/v1/tables/{table_id}/deals")
        content = self.route.response_field.serialize_json(answer, by_alias=True)
        response = Response(
            content=content, status_code=set_by_route.status_code, media_type="application/json"
        )
        response.headers.raw.extend(set_by_route.headers.raw)
        return response


def _json_body(scope: Scope) -> bool:
    """Whether the framework would read the body as JSON (the usual type compared as bytes
    first: ``is_json`` parses the header)."""
    content_type = header(scope, b"content-type")
    return content_type == b"application/json" or (
        content_type is not None and is_json(content_type.decode("latin-1"))
    )


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("latin-1")


def _handler(scope: Scope, exc: Exception) -> Any:
    """The app's handler of ``exc`` as the framework's exception layer finds it (by the
    exception's classes, nearest first); None for what only the outermost 500 answers."""
    handlers = scope["app"].exception_handlers
    for kind in type(exc).__mro__:
        if kind is Exception:
            return None
        if kind in handlers:
            return handlers[kind]
    return None
