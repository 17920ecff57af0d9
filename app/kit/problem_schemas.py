"""The one error shape: an RFC 9457 problem, sent as ``application/problem+json``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.kit.limits import MAX_LISTED_ERRORS

PROBLEM = "application/problem+json"


class FieldProblem(BaseModel):
    field: str = Field(description='the refused field: a dotted path in the body ("tricks.1"), a query parameter or a header')
    reason: str = Field(description="why, in a sentence")


class Problem(BaseModel):
    """What went wrong. Validation problems list each refused field in ``errors``."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "type": "https://prefscore.example/problems/invalid",
                    "title": "Invalid request",
                    "status": 422,
                    "detail": "the request is not valid: declarer",
                    "errors": [{"field": "declarer", "reason": "declarer must be a seat number from 0 to 3"}],
                }
            ]
        },
    )

    type: str = Field(description="a URI naming the kind of problem")
    title: str
    status: int
    detail: str = Field(description="what happened, for a person")
    errors: list[FieldProblem] | None = Field(
        default=None, max_length=MAX_LISTED_ERRORS, description=f"each refused field (validation problems), at most {MAX_LISTED_ERRORS} of them"
    )
    error_count: int | None = Field(
        default=None, description=f"when more than the {MAX_LISTED_ERRORS} listed fields were refused: how many in all"
    )
    # Extension members, present on some problems only.
    deal: int | None = Field(default=None, description="409 of a correction: the later deal it would make invalid")
    reason: str | None = Field(
        default=None, description="409: dealer_mismatch, finished, later_deal_invalid, archived, deal_limit or table_limit (a word for programs)"
    )
    last: int | None = Field(default=None, description="409 of an undo: the number of the last deal")
    current_etag: str | None = Field(default=None, description="412: the sheet's current ETag")
    database: str | None = Field(default=None, description='503 of /health: "down", "read-only" or "full"')
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


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Error responses for the OpenAPI document, each ``application/problem+json`` with the
    Problem schema (app/kit/openapi.py moves the media type; FastAPI would say JSON)."""
    return {s: {"model": Problem, "description": _DESCRIPTIONS.get(s, "a problem (RFC 9457)")} for s in statuses}
