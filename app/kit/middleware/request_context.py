"""The request's context: its id (``X-Request-ID`` passed through when sane, else made up;
echoed on every response), one JSON access line per request, Prometheus metrics by route
template, a last-resort 500 problem+json that still carries the request id, and the work
left for after the response (app/kit/after_response.py). It wraps
the whole framework stack (see app/kit/middleware/__init__.py)."""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Scope, Send

from app.kit import after_response
from app.kit import observability as obs
from app.kit.middleware.asgi import header, send_problem
from app.kit.problems import UNEXPECTED
from app.kit.settings import Settings

access_log = logging.getLogger("prefscore.access")
log = logging.getLogger("prefscore.api")


class _Request:
    """What the context keeps of one request while it runs."""

    __slots__ = (
        "request_id",
        "token",
        "later",
        "started",
        "status",
        "replayed",
        "response_started",
        "rewriting",
    )

    def __init__(self, request_id: str, token: object, later: object):
        self.request_id = request_id
        self.token = token
        self.later = later  # app/kit/after_response.py: what waits for the response
        self.started = time.perf_counter()
        self.status = 0
        self.replayed = False
        self.response_started = False
        self.rewriting = False  # used by app/kit/middleware/outer_layer.py (a 413 being rewritten)


class RequestContext:
    """A request's id, access line and metrics, in four steps (``begin``,
    ``response_started``, ``failed``, ``finish``) that app/kit/middleware/outer_layer.py calls."""

    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.metrics = obs.metrics() if settings.metrics_enabled else None

    def begin(self, scope: Scope) -> _Request:
        raw_id = header(scope, b"x-request-id")
        request_id = obs.request_id_from(raw_id.decode("latin-1") if raw_id else None)
        request = _Request(request_id, obs.REQUEST_ID.set(request_id), after_response.begin())
        if self.metrics is not None:
            self.metrics.in_progress.inc()
        return request

    def response_started(self, request: _Request, status: int, headers: list[tuple[bytes, bytes]]) -> None:
        """Note the status (and an idempotent replay); echo the request id (``headers`` is
        the response's list, changed in place)."""
        request.response_started = True
        request.status = status
        for key, value in headers:
            if key == b"idempotent-replayed":
                request.replayed = value == b"true"
        headers.append((b"x-request-id", request.request_id.encode()))

    async def failed(self, request: _Request, scope: Scope, send: Send) -> None:
        """An exception escaped the app (call from ``except``): log it and answer 500, or
        raise it again when a response has started. ``send`` must be the wrapper that calls
        ``response_started``."""
        if request.response_started and request.status == 500:
            # The framework's error middleware answered it with the app's 500 handler
            # (which logged it) and raised it again for the server: it ends here.
            return
        log.exception(
            "unhandled error on %s %s", scope.get("method"), obs.loggable_path(scope.get("path", ""))
        )
        if request.response_started:
            raise
        await send_problem(
            scope, send, 500, "Internal server error", UNEXPECTED, request_id=request.request_id
        )

    def finish(self, request: _Request, scope: Scope) -> None:
        """Metrics and the access line, then what waited for the response (call from
        ``finally``, once the response has been sent)."""
        elapsed = time.perf_counter() - request.started
        status = request.status
        route = scope.get("route")
        template = getattr(route, "path", None) or ("<unmatched>" if status == 404 else "<other>")
        method = scope.get("method", "")
        metrics = self.metrics
        if metrics is not None:
            metrics.in_progress.dec()
            metrics.requests.labels(method, template, str(status)).inc()
            metrics.latency.labels(method, template).observe(elapsed)
            if template == obs.DEALS_ROUTE and method == "POST" and status == 201:
                (metrics.replays if request.replayed else metrics.deals).inc()
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
        obs.REQUEST_ID.reset(request.token)  # type: ignore[arg-type]
        after_response.finish(request.later)  # type: ignore[arg-type]
