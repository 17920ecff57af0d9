"""The request's context: its id (``X-Request-ID`` passed through when sane, else made up;
echoed on every response), one JSON access line per request, Prometheus metrics by route
template, and a last-resort 500 problem+json that still carries the request id. It wraps
the whole framework stack (see app/api/middleware/__init__.py)."""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import observability as obs
from app.settings import Settings

from .asgi import header, send_problem

access_log = logging.getLogger("prefscore.access")
log = logging.getLogger("prefscore.api")


class RequestContext:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.metrics = obs.metrics() if settings.metrics_enabled else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw_id = header(scope, b"x-request-id")
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
                for key, value in headers:
                    if key == b"idempotent-replayed":
                        replayed = value == b"true"
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except Exception:
            if response_started and status == 500:
                # The framework's error middleware answered it with the app's 500 handler
                # (which logged it) and raised it again for the server: it ends here.
                return
            log.exception("unhandled error on %s %s", scope.get("method"), obs.loggable_path(scope.get("path", "")))
            if response_started:
                raise
            await send_problem(
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
