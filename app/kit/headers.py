"""The response headers of the contract, declared for the OpenAPI document (what a route
sends, it declares: generated clients can then read them)."""

from __future__ import annotations

from typing import Any

from app.kit.i18n import LANGUAGES


def _header(description: str, **schema: Any) -> dict[str, Any]:
    return {"description": description, "schema": {"type": "string", **schema}}


ETAG = {
    "ETag": _header(
        'the version of this answer (strong), e.g. "3f2a…": send it back in If-None-Match or If-Match'
    )
}
LOCATION = {"Location": _header("the URL of what was created", format="uri-reference")}
CACHE_CONTROL = {
    "Cache-Control": _header(
        'how the answer may be kept: "private, no-cache" (ask again with If-None-Match), "no-store" for a new key'
    )
}
# A replay carries no ETag: the sheet it stored may be older than the current one.
IDEMPOTENT_REPLAYED = {
    "Idempotent-Replayed": _header(
        '"true" when this is the stored answer to an earlier request with the same Idempotency-Key',
        enum=["true"],
    )
}
REQUEST_ID = {
    "X-Request-ID": _header(
        "the request's id (the caller's X-Request-ID when sane, else made up): quote it in a report"
    )
}
WWW_AUTHENTICATE = {"WWW-Authenticate": _header('"Bearer": an API key is needed')}
RATE_LIMIT = {
    "RateLimit-Limit": _header("requests allowed in a window", pattern=r"^[0-9]+$"),
    "RateLimit-Remaining": _header("requests left in this window", pattern=r"^[0-9]+$"),
    "RateLimit-Reset": _header("seconds until the window ends", pattern=r"^[0-9]+$"),
}
# An answer in a language people read (a picture, a page): app/kit/lang.py.
LANGUAGE = {
    "Content-Language": _header("the language of the words in this answer", enum=list(LANGUAGES)),
    "Vary": _header('"Accept-Language": the answer depends on it'),
}
RETRY_AFTER = {"Retry-After": _header("seconds to wait before retrying", pattern=r"^[0-9]+$")}


def not_modified(
    description: str = "not modified: the ETag named by If-None-Match is current",
) -> dict[int | str, dict[str, Any]]:
    """The 304 of a conditional GET: no body, the ETag again."""
    return {304: {"description": description, "headers": {**ETAG, **CACHE_CONTROL}}}
