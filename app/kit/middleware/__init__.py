"""The service's ASGI middleware, one job per module. From the outside in:

- ``security_headers``: nosniff, framing, referrer, HSTS and Content-Security-Policy;
- ``request_context``: request id, access log, metrics, last-resort 500;
- ``body_guard.BodyLimitProblem``: the framework's 413 as problem+json;
- (the framework's own stack: its error middleware and its body-size limit,
  FastAPI ``max_body_size``)
- CORS (Starlette's), only when ``PREFSCORE_CORS_ORIGINS`` names origins;
- ``rate_limit``: the caller's key or scorer link checked before any of the body is read
  (401, 404), and the rate limits: per key (database), per address and per share token
  (memory); 429;
- ``body_guard.BodyGuard``: hostile JSON (422);
- (app/tables/sheet_answers.py, added by app/main.py before these: the sheet's 304 and its
  kept 200 before the framework's routing, the route's own read).

The first three wrap the whole framework stack (``wrap``, called by the app's
``build_middleware_stack``) so that they see every answer, the framework's own included;
they run as one ASGI layer (``outer_layer``) that calls each module in turn;
``install`` adds the others with ``add_middleware``.

The error handlers (problem+json for every error, 503 when the database is away) are in
app/kit/problems.py.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import Response
from starlette.types import ASGIApp

from app.kit import observability as obs
from app.kit.middleware.body_guard import BodyGuard, BodyLimit, BodyLimitProblem, check_json
from app.kit.middleware.outer_layer import OuterLayer
from app.kit.middleware.rate_limit import Links, RateLimit
from app.kit.middleware.request_context import RequestContext
from app.kit.middleware.security_headers import SecurityHeaders
from app.kit.settings import Settings

__all__ = [
    "OuterLayer",
    "BodyGuard",
    "BodyLimit",
    "BodyLimitProblem",
    "Links",
    "RateLimit",
    "RequestContext",
    "SecurityHeaders",
    "check_json",
    "install",
    "wrap",
]


def wrap(stack: ASGIApp, settings: Settings, body_limits: dict[str, int]) -> ASGIApp:
    """The outermost layers, around the framework's whole middleware stack: one pass
    (``outer_layer.OuterLayer``) that calls security headers, request context and the 413 in
    order. ``body_limits``: the routes with a body limit of their own, by path (the domains
    name them; app/main.py gathers them)."""
    return OuterLayer(stack, settings=settings, path_limits=body_limits)


def install(app: FastAPI, settings: Settings, body_limits: dict[str, int], links: Links) -> None:
    """Middleware (Starlette applies the last added outermost) and /metrics; ``body_limits``
    as ``wrap``'s; ``links``, the paths that carry a token in place of a key (the domains
    name them; app/main.py gathers them): the gate counts them, the logs mask their tokens."""
    obs.configure_logging(settings.log_format, settings.log_level)
    obs.mask_tokens(links.paths())
    app.add_middleware(
        BodyGuard,
        max_json_depth=settings.max_json_depth,
        own_limit_paths=frozenset(body_limits),
        loop_parse_bytes=settings.loop_parse_bytes,
    )
    # Outside BodyGuard: the caller is authenticated before anything reads the body.
    app.add_middleware(
        RateLimit,
        settings=settings,
        db=app.state.db,
        lookups=app.state.lookups,
        body_limits=body_limits,
        links=links,
    )
    if settings.cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                "If-Match",
                "If-None-Match",
                "X-Request-ID",
                "Prefscore-Position",
            ],
            expose_headers=[
                "ETag",
                "Location",
                "Retry-After",
                "X-Request-ID",
                "Idempotent-Replayed",
                "Prefscore-Position",
            ],
            max_age=600,
        )

    if settings.metrics_enabled:

        @app.get("/metrics", include_in_schema=False)
        def metrics_endpoint() -> Response:
            payload, content_type = obs.render_metrics()
            return Response(payload, media_type=content_type)
