"""The one error shape: an RFC 9457 problem, sent as ``application/problem+json``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.kit.limits import MAX_LISTED_ERRORS

PROBLEM = "application/problem+json"


class FieldProblem(BaseModel):
    field: str = Field(
        description='the refused field: a dotted path in the body ("tricks.1"), a query parameter or a header'
    )
    reason: str = Field(description="why, in a sentence")


# The example of a validation problem: the schema's own, and the 422's in the answers' examples.
_INVALID_EXAMPLE: dict[str, Any] = {
    "type": "https://prefscore.example/problems/invalid",
    "title": "Invalid request",
    "status": 422,
    "detail": "the request is not valid: declarer",
    "errors": [{"field": "declarer", "reason": "declarer must be a seat number from 0 to 3"}],
}


class Problem(BaseModel):
    """What went wrong. Validation problems list each refused field in ``errors``."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": [_INVALID_EXAMPLE]})

    type: str = Field(description="a URI naming the kind of problem")
    title: str
    status: int
    detail: str = Field(description="what happened, for a person")
    errors: list[FieldProblem] | None = Field(
        default=None,
        max_length=MAX_LISTED_ERRORS,
        description=f"each refused field (validation problems), at most {MAX_LISTED_ERRORS} of them",
    )
    error_count: int | None = Field(
        default=None,
        description=f"when more than the {MAX_LISTED_ERRORS} listed fields were refused: how many in all",
    )
    # Extension members, present on some problems only.
    deal: int | None = Field(
        default=None, description="409 of a correction: the later deal it would make invalid"
    )
    reason: str | None = Field(
        default=None,
        description="409: dealer_mismatch, finished, later_deal_invalid, archived, deal_limit or table_limit (a word for programs)",
    )
    last: int | None = Field(default=None, description="409 of an undo: the number of the last deal")
    current_etag: str | None = Field(default=None, description="412: the sheet's current ETag")
    database: str | None = Field(default=None, description='503 of /health: "down", "read-only" or "full"')
    writes: bool | None = Field(
        default=None, description="503 of /health: whether the database takes writes (false)"
    )
    retryable: bool | None = Field(
        default=None,
        description="503: true when the database was away for a moment (nothing of the request was stored; send it again after Retry-After)",
    )
    request_id: str | None = Field(default=None, description="500: the request's X-Request-ID, to quote")
    field: str | None = Field(
        default=None,
        deprecated=True,
        description="the Idempotency-Key refusal's field, also in errors (this member goes in the next version)",
    )


_DESCRIPTIONS = {
    304: "not modified: the version named by If-None-Match is current",
    400: "bad request",
    401: "no API key, or not a valid one",
    403: "this key may not do that",
    404: "no such table, deal, record or share link (or another owner's)",
    409: "the deal does not fit the table's state (dealer, finished game, a later deal)",
    412: "If-Match names an older version of the sheet; nothing was written",
    413: "the request body is too large",
    422: "a field is refused; each is named in errors",
    429: "too many requests with this key; retry after Retry-After seconds",
    503: "the database is unavailable; retry after Retry-After seconds",
}


_TYPE = "https://prefscore.example/problems/"
# Each error status's own example, as this service words it (app/kit/problems.py, the
# middlewares), so that /docs and /redoc show a 404 as a 404, not the 422 above.
EXAMPLES: dict[int, dict[str, Any]] = {
    400: {
        "type": _TYPE + "bad-request",
        "title": "Bad request",
        "status": 400,
        "detail": "There was an error parsing the body",
    },
    401: {
        "type": _TYPE + "unauthorized",
        "title": "Unauthorized",
        "status": 401,
        "detail": "an API key is required: Authorization: Bearer <key>",
    },
    403: {
        "type": _TYPE + "forbidden",
        "title": "Forbidden",
        "status": 403,
        "detail": "only an admin key can manage keys (PREFSCORE_ADMIN_KEY, or a key made with `prefscore keys create --admin`)",
    },
    404: {
        "type": _TYPE + "not-found",
        "title": "Not found",
        "status": 404,
        "detail": "no table '9f0c2a7e41d34b6c8e5f0a1b2c3d4e5f'",
    },
    409: {
        "type": _TYPE + "conflict",
        "title": "Conflict",
        "status": 409,
        "detail": 'table 9f0c2a7e41d34b6c8e5f0a1b2c3d4e5f is archived; unarchive it (PATCH with "archived": false) to change its deals',
        "reason": "archived",
    },
    412: {
        "type": _TYPE + "precondition-failed",
        "title": "Precondition failed",
        "status": 412,
        "detail": "the sheet has changed since that ETag (If-Match); fetch it again",
        "current_etag": '"5d1e0c9a"',
    },
    413: {
        "type": _TYPE + "content-too-large",
        "title": "Content too large",
        "status": 413,
        "detail": "the request body is larger than 65536 bytes",
    },
    422: _INVALID_EXAMPLE,
    429: {
        "type": _TYPE + "429",
        "title": "Too many requests",
        "status": 429,
        "detail": "this key made more than 100000 requests in 60 seconds; retry after 12 s",
    },
    500: {
        "type": _TYPE + "internal",
        "title": "Internal server error",
        "status": 500,
        "detail": "an unexpected error occurred; it has been logged",
        "request_id": "6f1d2c3b4a59",
    },
    503: {
        "type": _TYPE + "database-unavailable",
        "title": "Service unavailable",
        "status": 503,
        "detail": "the database is unavailable; retry shortly",
        "retryable": True,
    },
}


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Error responses for the OpenAPI document, each ``application/problem+json`` with the
    Problem schema (app/kit/openapi.py moves the media type; FastAPI would say JSON)."""
    return {
        s: {"model": Problem, "description": _DESCRIPTIONS.get(s, "a problem (RFC 9457)")} for s in statuses
    }
