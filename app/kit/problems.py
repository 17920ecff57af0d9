"""RFC 9457 problem details for every error: 4xx from the services and the router, pydantic's
validation errors (with the bad fields named), 503 with Retry-After when the database cannot
be reached (SQLAlchemy's connection-level errors), and a 500 fallback that says nothing
inside. ``install`` registers every error handler of the app.

Every problem is worded in the language its request asks for (``problem_lang``): ``?lang=``,
else the best of Accept-Language, else English. Pages default to Russian; problems default
to English because the API answered in English before it spoke Russian, and a client that
states no preference must keep getting the sentences it was written against.
``problem_body`` is the one place a problem's words are translated (``title``, ``detail``,
each ``errors[].reason``); ``type``, ``status``, the fields and the codes stay as they are."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import unquote

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from app.kit import observability as obs
from app.kit.bodies import REFUSALS
from app.kit.db import outage
from app.kit.errors import (
    Conflict,
    Forbidden,
    NotFound,
    PreconditionFailed,
    ServiceError,
    Unauthorized,
    Unavailable,
    Unprocessable,
)
from app.kit.i18n import LANGUAGES, N_, Lang, language, negotiate
from app.kit.lang import language_headers
from app.kit.limits import ACCEPT_LANGUAGE_MAX, MAX_LISTED_ERRORS
from app.kit.validation_errors import field_errors
from app.rules import FieldError, Sentence

PROBLEM = "application/problem+json"
log = logging.getLogger("prefscore.api")

_TITLES = {
    400: N_("Bad request"),
    401: N_("Unauthorized"),
    403: N_("Forbidden"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    406: N_("Not acceptable"),
    409: N_("Conflict"),
    412: N_("Precondition failed"),
    413: N_("Content too large"),
    415: N_("Unsupported media type"),
    422: N_("Invalid request"),
    429: N_("Too many requests"),
    431: N_("Request header fields too large"),
    500: N_("Internal server error"),
    503: N_("Service unavailable"),
}
# The language of a problem when the request names none we have (see the module's doc).
PROBLEM_LANGUAGE = "en"
_SLUGS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    412: "precondition-failed",
    413: "content-too-large",
    422: "invalid",
    500: "internal",
    503: "unavailable",
}


def problem_type(status: int, slug: str | None = None) -> str:
    return f"https://prefscore.example/problems/{slug or _SLUGS.get(status, str(status))}"


def problem_lang(scope: Scope | None) -> Lang:
    """The language of a problem answering the request of ``scope``: its ``?lang=`` (ru or
    en), else the best of its Accept-Language (at most ACCEPT_LANGUAGE_MAX characters read),
    else English. Read from the ASGI scope, so that middleware answers the same way."""
    if not scope:
        return language(PROBLEM_LANGUAGE)
    query: str | None = None
    for item in scope.get("query_string", b"").split(b"&"):
        if item.startswith(b"lang="):
            code = unquote(item[5:25].decode("latin-1")).strip().lower()
            if code in LANGUAGES:
                query = code
                break
    accept = ""
    for key, value in scope.get("headers", ()):
        if key == b"accept-language":
            accept = value[:ACCEPT_LANGUAGE_MAX].decode("latin-1")
            break
    return negotiate(query, accept, default=PROBLEM_LANGUAGE)


def problem_body(
    status: int,
    detail: str,
    lang: Lang,
    *,
    title: str | None = None,
    errors: list[FieldError] | list[dict[str, str]] | None = None,
    error_count: int | None = None,
    slug: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A problem's JSON object, its words in ``lang``. Its ``errors`` list at most
    MAX_LISTED_ERRORS entries; when there were more, ``error_count`` says how many
    (``error_count`` given: that many). ``slug``: a type of its own (else the status's)."""
    body: dict[str, Any] = {
        "type": problem_type(status, slug),
        "title": lang.sentence(title or _TITLES.get(status, "Error")),
        "status": status,
        "detail": lang.sentence(detail),
    }
    if errors is not None:
        # A body of 32,000 refused items must not make an answer of 32,000 sentences.
        listed = errors[:MAX_LISTED_ERRORS]
        body["errors"] = [_error(e, lang) for e in listed]
        count = max(error_count or 0, len(errors))
        if count > len(listed):
            body["error_count"] = count
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def _error(error: FieldError | dict[str, str], lang: Lang) -> dict[str, str]:
    if isinstance(error, dict):
        return {**error, "reason": lang.sentence(error["reason"])} if "reason" in error else error
    return {"field": error.field, "reason": lang.sentence(error.reason)}


def problem(
    status: int,
    detail: str,
    *,
    scope: Scope | None,
    title: str | None = None,
    errors: list[FieldError] | list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
    error_count: int | None = None,
    slug: str | None = None,
    **extra: Any,
) -> JSONResponse:
    """A problem+json answer to the request of ``scope``, in its language (``problem_lang``;
    None: no request to ask, English)."""
    lang = problem_lang(scope)
    body = problem_body(
        status, detail, lang, title=title, errors=errors, error_count=error_count, slug=slug, **extra
    )
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=language_headers(lang, headers))


UNEXPECTED = N_("an unexpected error occurred; it has been logged")


def not_valid(fields: str) -> Sentence:
    """The detail of a 422 naming its refused fields."""
    return Sentence("the request is not valid: {fields}", fields=fields)


# The one mapping from a refusal's kind (app/kit/errors.py, which knows no HTTP) to its status.
STATUSES: dict[type[ServiceError], int] = {
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    PreconditionFailed: 412,
    Unprocessable: 422,
    Unavailable: 503,
}


def status_of(exc: ServiceError) -> int:
    """The HTTP status of a refusal: its nearest kind's (a domain's subclass takes its kind's),
    else 400."""
    for kind in type(exc).__mro__:
        if kind in STATUSES:
            return STATUSES[kind]
    return 400


def service_problem(exc: ServiceError, scope: Scope | None) -> JSONResponse:
    """The answer to a use case's refusal (a handler's or a middleware's)."""
    headers: dict[str, str] | None = None
    if isinstance(exc, Unauthorized):
        headers = {"WWW-Authenticate": "Bearer"}
    elif isinstance(exc, Unavailable):
        headers = {"Retry-After": str(exc.retry_after)}
    return problem(
        status_of(exc),
        exc.detail,
        scope=scope,
        errors=exc.errors or None,
        headers=headers,
        **exc.extra,
    )


def validation_errors(
    exc: RequestValidationError, request: Request | None = None
) -> tuple[list[dict[str, str]], int | None]:
    """The refused fields with a sentence of our own (app/kit/validation_errors.py): at most
    MAX_LISTED_ERRORS of them, and when there were more, how many refusals pydantic made
    (None otherwise). A body validated in the thread pool (app/kit/bodies.py) brings its own
    refusals in place of its stand-in's."""
    errors = list(exc.errors())
    found = request.scope.get(REFUSALS) if request is not None else None
    if found is not None:
        errors = [e for e in errors if tuple(e.get("loc", ()))[:1] != ("body",)] + found
    listed = field_errors(errors, MAX_LISTED_ERRORS + 1)
    if len(listed) > MAX_LISTED_ERRORS:
        return listed[:MAX_LISTED_ERRORS], len(errors)
    return listed, None


def database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """The answer to a request that met a database outage (app/kit/db/outage.py): its
    transaction has rolled back, so it may be sent again as it was (503, Retry-After, a
    problem type of its own and ``retryable``); a SQLite file that cannot be written is the
    operator's to fix (503 without Retry-After)."""
    obs.metrics().db_unavailable.inc()
    if outage.is_permanent(exc):
        # Not a moment's outage: retrying will not help until someone fixes the permissions.
        why = request.app.state.db.write_problem() or str(getattr(exc, "orig", exc))
        log.error("the database cannot be written: %s", why)
        return problem(
            503,
            "the database cannot be written; the operator has to fix it (see the server's log)",
            scope=request.scope,
            title="Service unavailable",
            retryable=False,
        )
    if outage.is_read_only(exc):
        # A leader demoted by a failover (or a server set read-only): /health says which.
        log.warning("the database takes no writes: %s", str(getattr(exc, "orig", exc)).strip())
        detail = N_(
            "the database cannot be written at the moment (a failover, or a server that takes no writes); retry shortly"
        )
    else:
        log.warning(
            "the database is unavailable: %s", type(exc).__name__, exc_info=log.isEnabledFor(logging.DEBUG)
        )
        detail = N_("the database is unavailable; retry shortly")
    return problem(
        503,
        detail,
        scope=request.scope,
        title="Service unavailable",
        headers={"Retry-After": str(outage.RETRY_AFTER)},
        slug=outage.PROBLEM_SLUG,
        retryable=True,
    )


def is_connection_error(exc: sa_exc.DBAPIError) -> bool:
    return outage.is_outage(exc) or outage.is_permanent(exc)


def install(app: FastAPI) -> None:
    async def db_error(request: Request, exc: Exception) -> Response:
        if outage.is_outage(exc) or outage.is_permanent(exc):
            return await anyio.to_thread.run_sync(database_unavailable, request, exc)
        raise exc

    # Every database error comes here; what is not an outage goes on to the 500 below.
    for kind in outage.error_kinds():
        app.add_exception_handler(kind, db_error)

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return service_problem(exc, request.scope)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors, count = validation_errors(exc, request)
        fields = ", ".join(sorted({e["field"] for e in errors}))
        return problem(422, not_valid(fields), scope=request.scope, errors=errors, error_count=count)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else _TITLES.get(exc.status_code, "Error")
        if exc.status_code == 404 and detail == "Not Found":
            detail = N_("no such resource")
        elif exc.status_code == 405 and detail == "Method Not Allowed":
            detail = N_("this method is not allowed on this resource")
        return problem(exc.status_code, detail, scope=request.scope, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, obs.loggable_path(request.url.path))
        return problem(500, UNEXPECTED, scope=request.scope, request_id=obs.REQUEST_ID.get())
