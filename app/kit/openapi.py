"""The served OpenAPI document, finished so that generated clients are clean.

FastAPI declares every error response as ``application/json`` and adds a 422 of its own
``HTTPValidationError`` shape, which this service never sends. Here, once the document is
generated:

- every error status (4xx, 5xx) is ``application/problem+json`` with the one ``Problem``
  schema;
- the statuses every route can answer are declared where they can happen: 422 on a route
  with parameters or a body, 413 on a route with a body (the body limit), 429 on every
  ``/v1`` route, keyed or reached by a share or scorer link (the rate limits and the fair
  share of app/kit/middleware/rate_limit.py, with ``Retry-After``), 503 everywhere (the
  database is unavailable, with ``Retry-After``);
- the headers every answer of a kind carries are declared on it: ``X-Request-ID`` on all,
  ``WWW-Authenticate`` on 401, ``Retry-After`` and ``RateLimit-*`` on 429;
- an optional parameter's schema is not nullable (it is left out, never sent as null);
- ``HTTPValidationError`` and ``ValidationError`` are gone from the components;
- the shapes named with ``name_schemas`` or ``name_schema`` (no route's body nor answer, e.g.
  the JSON of an event stream's events) are added to them;
- the requests this service makes to its users' servers (``declare_webhooks``: OpenAPI 3.1's
  ``webhooks``) are declared beside the paths.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import TypeAdapter

from app.kit.headers import RATE_LIMIT, REQUEST_ID, RETRY_AFTER, WWW_AUTHENTICATE
from app.kit.problem_schemas import _DESCRIPTIONS, EXAMPLES, PROBLEM

_PROBLEM_SCHEMA = {"$ref": "#/components/schemas/Problem"}
EVENT_STREAM = "text/event-stream"
# Marks an event-stream operation: /docs offers no "Try it out" for it (app/kit/docs_ui.py),
# since Swagger UI waits for the whole answer and a stream never ends.
STREAM_EXTENSION = "x-event-stream"
_STREAM_HOWTO = (
    "\n\n**An event stream** (`text/event-stream`): the answer never ends; each event comes as "
    "it happens, with a comment line every few seconds to keep the connection open. /docs "
    'cannot show it (it waits for the end of the answer), so it offers no "Try it out" here. '
    "Read it with a browser's `EventSource`, or with curl, which prints each event as it comes:\n\n"
    "```\ncurl -N -H 'Accept: text/event-stream'{key} {url}\n```\n\n"
    "Reconnect with `Last-Event-ID` (the last `id:` received) to get only what was missed."
)
_FASTAPI_ONLY = ("HTTPValidationError", "ValidationError")
# A route reached by a share or scorer link has no key to count: the link and the address are.
_LINK_TOO_MANY = "too many requests through this link or from this address; retry after Retry-After seconds"
# The shapes the document names though no route takes or answers one as its body.
_NAMED: list[Any] = []
_NAMED_AS: dict[str, dict[str, Any]] = {}
_WEBHOOKS: dict[str, dict[str, Any]] = {}
_METHODS = ("get", "put", "post", "delete", "patch", "options", "head")


def _problem(status: int, existing: dict[str, Any] | None = None) -> dict[str, Any]:
    out = dict(existing or {})
    example = EXAMPLES.get(status)
    out["content"] = {PROBLEM: {"schema": _PROBLEM_SCHEMA, **({"example": example} if example else {})}}
    if not out.get("description") or out["description"] in ("Validation Error", "Successful Response"):
        out["description"] = _DESCRIPTIONS.get(status, "a problem (RFC 9457)")
    if status in (429, 503):
        out["headers"] = {**out.get("headers", {}), **RETRY_AFTER}
    if status == 429:
        out["headers"] = {**out["headers"], **RATE_LIMIT}
    if status == 401:
        out["headers"] = {**out.get("headers", {}), **WWW_AUTHENTICATE}
    return out


def _not_null(parameter: dict[str, Any]) -> None:
    """An optional parameter is left out, never sent as null: ``string``, not ``string | null``
    (generators then type it ``str | Unset``, not ``None | str | Unset``)."""
    schema = parameter.get("schema", {})
    options = schema.get("anyOf")
    if not parameter.get("required") and options and {"type": "null"} in options and len(options) == 2:
        (kept,) = [o for o in options if o != {"type": "null"}]
        del schema["anyOf"]
        parameter["schema"] = {**kept, **schema}


def name_schemas(*types: Any) -> None:
    """Name these types (pydantic models, TypedDicts) in the document's components, with the
    types they refer to: a description can then point at them (an event's ``data``)."""
    _NAMED.extend(t for t in types if t not in _NAMED)


def name_schema(name: str, schema: dict[str, Any]) -> None:
    """Name a schema made by hand (one that points at another component by its name)."""
    _NAMED_AS[name] = schema


def declare_webhooks(webhooks: dict[str, dict[str, Any]]) -> None:
    """Declare the requests this service sends to its users' servers, by name: each a path
    item (``{"post": operation}``) of the document's ``webhooks``."""
    _WEBHOOKS.update(webhooks)


def _named_schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    for named in _NAMED:
        schema = TypeAdapter(named).json_schema(
            mode="serialization", ref_template="#/components/schemas/{model}"
        )
        schemas.update(schema.pop("$defs", {}))
        schemas[named.__name__] = schema
    return {**schemas, **_NAMED_AS}


def _explain_stream(path: str, operation: dict[str, Any]) -> None:
    """An operation answering an event stream says so, how to read it, and carries the
    extension that turns off /docs' "Try it out" for it."""
    if EVENT_STREAM not in operation.get("responses", {}).get("200", {}).get("content", {}):
        return
    url = "http://127.0.0.1:8000" + path.replace("{table_id}", "$TABLE").replace("{token}", "$TOKEN")
    # a stream reached by a share or scorer link needs no key (its security is empty)
    key = "" if operation.get("security") == [] else ' -H "Authorization: Bearer $PREFSCORE_KEY"'
    howto = _STREAM_HOWTO.replace("{key}", key).replace("{url}", url)
    operation["description"] = (operation.get("description") or "").rstrip() + howto
    operation[STREAM_EXTENSION] = True


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """The document with the error declarations above (changed in place and returned)."""
    for path, item in document.get("paths", {}).items():
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            for parameter in operation.get("parameters", []):
                _not_null(parameter)
            _explain_stream(path, operation)
            responses = operation.setdefault("responses", {})
            statuses = {503}
            if operation.get("parameters") or operation.get("requestBody"):
                statuses.add(422)
            if operation.get("requestBody"):
                statuses.add(413)
            if path.startswith("/v1/"):
                statuses.add(429)
            for status in statuses:
                responses.setdefault(str(status), {})
            if (
                "429" in responses
                and operation.get("security", None) == []
                and not responses["429"].get("description")
            ):
                responses["429"]["description"] = _LINK_TOO_MANY
            for code, response in list(responses.items()):
                if code[0] in "45":
                    responses[code] = _problem(int(code), response)
            for response in responses.values():
                response["headers"] = {**response.get("headers", {}), **REQUEST_ID}
            operation["responses"] = dict(sorted(responses.items()))
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name in _FASTAPI_ONLY:
        schemas.pop(name, None)
    for name, schema in _named_schemas().items():
        schemas.setdefault(name, schema)  # a shape a route already names stays as it is
    document["components"]["schemas"] = dict(sorted(schemas.items()))
    if _WEBHOOKS:
        document["webhooks"] = dict(_WEBHOOKS)
    return document


def install(app: FastAPI) -> None:
    """Serve the finished document at /openapi.json (built once, on the first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = finish(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    openapi_version=app.openapi_version,
                    summary=app.summary,
                    description=app.description,
                    routes=app.routes,
                    tags=app.openapi_tags,
                    servers=app.servers,
                )
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
