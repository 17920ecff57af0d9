"""ASGI middleware of the service. ``install`` is the one place create_app adds middleware.

From the outside in:

- ``RequestContext``: the request id (``X-Request-ID`` passed through when sane, else made
  up; echoed on every response), one JSON access line per request, Prometheus metrics by
  route template, the security headers, and a last-resort 500 problem+json that still carries
  the request id.
- CORS (Starlette's), only when ``PREFSCORE_CORS_ORIGINS`` names origins.
- ``BodyGuard``: bodies over ``max_body_bytes`` are refused with 413 before anything parses
  them (by Content-Length at once, and by counting the bytes of a streamed body); a JSON body
  is then checked for what a JSON parser accepts but nothing downstream should see — NaN and
  Infinity (not JSON at all), numbers beyond ±2^53 (RFC 7493) or overflowing to infinity,
  nesting deeper than ``max_json_depth``, control characters other than tab/newline/return
  and lone surrogates in any string or key — and refused with a 422 problem naming the field.
- ``RateLimit``: per-key fixed-window limit counted in the database (app.ratelimit); 429 with
  Retry-After.

The routes answer 503 problem+json (with Retry-After) when the database cannot be reached:
``install`` registers handlers for SQLAlchemy's connection-level errors.
"""

from __future__ import annotations

import json
import logging
import math
import time
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import exc as sa_exc
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import observability as obs
from app.settings import Settings

from .problems import PROBLEM, problem, problem_type

access_log = logging.getLogger("prefscore.access")
log = logging.getLogger("prefscore.api")

_BODY_METHODS = {b"POST", b"PUT", b"PATCH", b"DELETE"}
MAX_SAFE_INTEGER = 2**53 - 1


def _problem_bytes(status: int, title: str, detail: str, **extra: Any) -> bytes:
    body = {"type": problem_type(status), "title": title, "status": status, "detail": detail}
    body.update(extra)
    return json.dumps(body, ensure_ascii=False).encode()


async def _send_problem(send: Send, status: int, title: str, detail: str, headers: list[tuple[bytes, bytes]] | None = None, **extra: Any) -> None:
    body = _problem_bytes(status, title, detail, **extra)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode())] + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


# --------------------------------------------------------------------------- request context


class RequestContext:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.metrics = obs.metrics() if settings.metrics_enabled else None
        self.security_headers = _security_headers(settings)
        self.csp = settings.content_security_policy.encode() if settings.content_security_policy else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw_id = _header(scope, b"x-request-id")
        request_id = obs.request_id_from(raw_id.decode("latin-1") if raw_id else None)
        token = obs.REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 0
        replayed = False
        response_started = False
        metrics = self.metrics
        if metrics is not None:
            metrics.in_progress.inc()

        async def send_wrapper(message: Message) -> None:
            nonlocal status, replayed, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = list(message.get("headers", ()))
                content_type = b""
                for key, value in headers:
                    if key == b"idempotent-replayed":
                        replayed = value == b"true"
                    elif key == b"content-type":
                        content_type = value
                headers.append((b"x-request-id", request_id.encode()))
                headers.extend(self.security_headers)
                if self.csp is not None and b"json" in content_type:
                    headers.append((b"content-security-policy", self.csp))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            log.exception("unhandled error on %s %s", scope.get("method"), obs.loggable_path(scope.get("path", "")))
            if response_started:
                raise
            await _send_problem(
                send_wrapper, 500, "Internal server error", "an unexpected error occurred; it has been logged", request_id=request_id
            )
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or ("<unmatched>" if status == 404 else "<other>")
            method = scope.get("method", "")
            if metrics is not None:
                metrics.in_progress.dec()
                metrics.requests.labels(method, template, str(status)).inc()
                metrics.latency.labels(method, template).observe(elapsed)
                if template == obs.DEALS_ROUTE and method == "POST" and status == 201:
                    (metrics.replays if replayed else metrics.deals).inc()
            client = scope.get("client")
            access_log.info(
                "%s %s %s",
                method,
                template,
                status,
                extra={
                    "method": method,
                    "path": obs.loggable_path(scope.get("path", "")),
                    "route": template,
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 2),
                    "client": client[0] if client else None,
                },
            )
            obs.REQUEST_ID.reset(token)


def _security_headers(settings: Settings) -> list[tuple[bytes, bytes]]:
    if not settings.security_headers:
        return []
    headers = [
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]
    if settings.hsts_seconds > 0:
        headers.append((b"strict-transport-security", f"max-age={settings.hsts_seconds}; includeSubDomains".encode()))
    return headers


# --------------------------------------------------------------------------- body guard


class _Reject(Exception):
    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason


class _Bad:
    """A parsed number that must be refused (the parser hooks cannot know the field)."""

    def __init__(self, reason: str):
        self.reason = reason


def _parse_int(text: str) -> Any:
    digits = len(text) - (text[0] == "-")
    if digits > 16:
        return _Bad("integer out of range")
    value = int(text)
    return value if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER else _Bad("integer out of range")


def _parse_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _Bad("number out of range")


def _parse_constant(name: str) -> Any:
    return _Bad(f"{name} is not a JSON number")


_BAD_CHARS = frozenset(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") | {"\x7f"}


def _bad_string(s: str) -> str | None:
    for ch in s:
        if ch in _BAD_CHARS:
            return "control characters are not allowed"
        if "\ud800" <= ch <= "\udfff":
            return "lone surrogates are not allowed"
    return None


def check_json(value: Any, max_depth: int) -> None:
    """Raise _Reject(field, reason) for the first thing in ``value`` nothing should store."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > max_depth:
            raise _Reject(path or "body", f"nested deeper than {max_depth} levels")
        if isinstance(item, _Bad):
            raise _Reject(path or "body", item.reason)
        if isinstance(item, str):
            reason = _bad_string(item)
            if reason:
                raise _Reject(path or "body", reason)
        elif isinstance(item, dict):
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                reason = _bad_string(key)
                if reason:
                    raise _Reject(path or "body", f"a key: {reason}")
                stack.append((child, where, depth + 1))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{path}.{i}" if path else str(i), depth + 1))


class BodyGuard:
    """413 for bodies over the limit (before parsing), 422 for hostile JSON (see above)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int, max_json_depth: int = 32):
        self.app = app
        self.limit = max_body_bytes
        self.max_depth = max_json_depth

    async def _too_large(self, send: Send) -> None:
        await _send_problem(send, 413, "Content too large", f"the request body is larger than {self.limit} bytes")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "").encode() not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                if int(length) > self.limit:
                    await self._too_large(send)
                    return
            except ValueError:
                pass
        elif _header(scope, b"transfer-encoding") is None:
            await self.app(scope, receive, send)  # no body
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        content_type = (_header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        if body and (not content_type or content_type == b"application/json" or content_type.endswith(b"+json")):
            rejection = self._check(body)
            if rejection is not None:
                field, reason = rejection
                await _send_problem(
                    send,
                    422,
                    "Invalid request",
                    f"the request is not valid: {field}",
                    errors=[{"field": field, "reason": reason}],
                )
                return

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _check(self, body: bytes) -> tuple[str, str] | None:
        try:
            value = json.loads(body, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
        except RecursionError:
            return "body", f"nested deeper than {self.max_depth} levels"
        except ValueError:
            return None  # not JSON (or not UTF-8): the route's own parser answers 422
        try:
            check_json(value, self.max_depth)
        except _Reject as exc:
            return exc.field, exc.reason
        return None


# Kept for code that knew the first version of this module.
BodyLimit = BodyGuard


# --------------------------------------------------------------------------- rate limit


class RateLimit:
    """Per-key limit on ``/v1`` requests that present a bearer key (the share link and
    unauthenticated requests are not counted here)."""

    def __init__(self, app: ASGIApp, limiter: Any):
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith("/v1/") or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        auth = _header(scope, b"authorization")
        if not auth or not auth[:7].lower() == b"bearer " or not auth[7:].strip():
            await self.app(scope, receive, send)
            return
        token = auth[7:].strip().decode("latin-1")
        # Most requests are decided from this process's lease, on the loop; only a new lease
        # needs the database, in the thread pool (app/ratelimit.py).
        decision = self.limiter.try_local(token) or await anyio.to_thread.run_sync(self.limiter.hit, token)
        if not decision.allowed:
            obs.metrics().rate_limited.inc()
            await _send_problem(
                send,
                429,
                "Too many requests",
                f"this key made more than {decision.limit} requests in {self.limiter.window} seconds; retry after {decision.retry_after} s",
                headers=[
                    (b"retry-after", str(decision.retry_after).encode()),
                    (b"ratelimit-limit", str(decision.limit).encode()),
                    (b"ratelimit-remaining", b"0"),
                    (b"ratelimit-reset", str(decision.retry_after).encode()),
                ],
            )
            return
        await self.app(scope, receive, send)


# --------------------------------------------------------------------------- install


def _database_unavailable(_request: Request, exc: Exception) -> JSONResponse:
    log.warning("the database is unavailable: %s", type(exc).__name__, exc_info=log.isEnabledFor(logging.DEBUG))
    obs.metrics().db_unavailable.inc()
    return problem(503, "the database is unavailable; retry shortly", title="Service unavailable", headers={"Retry-After": "1"})


def _is_connection_error(exc: sa_exc.DBAPIError) -> bool:
    return exc.connection_invalidated or isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError))


def install(app: FastAPI, settings: Settings) -> None:
    """Middleware (Starlette applies the last added outermost), the 503 handlers, /metrics."""
    obs.configure_logging(settings.log_format, settings.log_level)

    async def db_error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, sa_exc.TimeoutError) or (isinstance(exc, sa_exc.DBAPIError) and _is_connection_error(exc)):
            return await anyio.to_thread.run_sync(_database_unavailable, request, exc)
        raise exc

    app.add_exception_handler(sa_exc.OperationalError, db_error)
    app.add_exception_handler(sa_exc.InterfaceError, db_error)
    app.add_exception_handler(sa_exc.TimeoutError, db_error)

    if settings.rate_limit > 0:
        from app.ratelimit import RateLimiter

        app.add_middleware(RateLimit, limiter=RateLimiter(app.state.db, settings.rate_limit, settings.rate_limit_window))
    app.add_middleware(BodyGuard, max_body_bytes=settings.max_body_bytes, max_json_depth=settings.max_json_depth)
    if settings.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Request-ID"],
            expose_headers=["ETag", "Location", "Retry-After", "X-Request-ID", "Idempotent-Replayed"],
            max_age=600,
        )
    app.add_middleware(RequestContext, settings=settings)

    if settings.metrics_enabled:

        @app.get("/metrics", include_in_schema=False)
        def metrics_endpoint() -> Response:
            payload, content_type = obs.render_metrics()
            return Response(payload, media_type=content_type)
