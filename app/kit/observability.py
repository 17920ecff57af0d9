"""Operations: JSON logs that carry the request id on every line, and Prometheus metrics.

Logs: ``configure_logging`` puts one handler on the root logger that writes one JSON object
per line to stderr (``PREFSCORE_LOG_FORMAT=text`` for a human format), and routes uvicorn's
loggers through it. Every line has ``request_id``: the id of the request being served (taken
from ``X-Request-ID`` when the client sends a sane one, else generated), or null outside a
request. The id lives in a context variable, which Starlette copies into the worker thread of
a sync endpoint, so lines logged by the services carry it too. uvicorn's own access log is
switched off: the middleware writes one access line per request, with the id, the route
template, the status and the duration (never a header, a key or a query string; the tokens
in paths are masked, ``mask_tokens``).

Metrics (prometheus-client): requests by method, route template and status; latency by
method and route template; requests in progress; deals posted; rate-limited requests;
database-unavailable answers; webhook deliveries by outcome, their failures and the outbox's age. With several worker processes set ``PROMETHEUS_MULTIPROC_DIR``
(an empty directory, before the server starts): every worker then writes its samples there
and ``/metrics`` adds them up (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import uuid
from contextvars import ContextVar
from typing import Any

from app.kit.limits import REQUEST_ID_MAX

REQUEST_ID: ContextVar[str | None] = ContextVar("prefscore_request_id", default=None)
_REQUEST_ID_RE = re.compile(rf"^[A-Za-z0-9._:@/+=-]{{1,{REQUEST_ID_MAX}}}$")
# The path prefixes whose next segment is a token (a capability in place of a key): the
# domains declare them, app/main.py hands them in (``mask_tokens``).
_TOKEN_PREFIXES: tuple[str, ...] = ()


def request_id_from(header: str | None) -> str:
    """The client's X-Request-ID when it is a sane token (1-128 of ``A-Za-z0-9._:@/+=-``),
    otherwise a new one: nothing a client sends can forge or break a log line."""
    if header and _REQUEST_ID_RE.fullmatch(header):
        return header
    return uuid.uuid4().hex


def mask_tokens(paths: tuple[str, ...]) -> None:
    """Mask in the logs the token of every path under these templates (each ends in
    ``{token}``): a token in a path is a capability, a read or a write one."""
    global _TOKEN_PREFIXES
    _TOKEN_PREFIXES = tuple(p.removesuffix("{token}") for p in paths)


def loggable_path(path: str) -> str:
    """The request path as logged, its token masked when it carries one (``mask_tokens``)."""
    for prefix in _TOKEN_PREFIXES:
        if path.startswith(prefix):
            token, slash, rest = path[len(prefix) :].partition("/")
            if token:
                return f"{prefix}***{slash}{rest}"
    return path


# --------------------------------------------------------------------------- logging

_STANDARD = set(logging.LogRecord("x", 0, "x", 0, "x", None, None).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "color_message",
}


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, message, request_id, and any ``extra``.

    Every request writes a line: the second's text is kept while the second lasts, and one
    encoder serves every line (``json.dumps`` with options builds a new one per call)."""

    _encoder = json.JSONEncoder(default=str, ensure_ascii=False)

    def __init__(self) -> None:
        super().__init__()
        self._second: tuple[int, str] = (-1, "")

    def _timestamp(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        kept, text = self._second
        if kept != second:  # a tuple swapped whole: threads that race write the same text
            text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = (second, text)
        return f"{text}.{int(record.msecs):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": self._timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = record.stack_info
        return self._encoder.encode(out)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")


def configure_logging(fmt: str = "json", level: str = "INFO") -> None:
    """Install the service's log handler on the root logger (idempotent: a second call
    replaces it) and send uvicorn's loggers through it."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_prefscore", False):
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler._prefscore = True  # type: ignore[attr-defined]
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(TextFormatter() if fmt == "text" else JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
    access = logging.getLogger("uvicorn.access")
    access.handlers = []
    access.propagate = False
    access.disabled = True  # replaced by the middleware's access line, which has the request id


# --------------------------------------------------------------------------- metrics

DEALS_ROUTE = "/v1/tables/{table_id}/deals"
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Metrics:
    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram

        self.requests = Counter(
            "prefscore_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
        )
        self.latency = Histogram(
            "prefscore_http_request_duration_seconds",
            "Time to answer, by method and route template",
            ["method", "route"],
            buckets=_BUCKETS,
        )
        self.in_progress = Gauge(
            "prefscore_http_requests_in_progress", "Requests being answered", multiprocess_mode="livesum"
        )
        self.deals = Counter(
            "prefscore_deals_posted", "Deals written (201 on POST .../deals, idempotent replays excluded)"
        )
        self.replays = Counter(
            "prefscore_idempotent_replays", "POST .../deals answered from a stored Idempotency-Key response"
        )
        self.rate_limited = Counter(
            "prefscore_rate_limited", "Requests refused with 429 by the per-key rate limit"
        )
        self.db_unavailable = Counter(
            "prefscore_database_unavailable", "Requests answered 503 because the database was away"
        )
        self.replica_reads = Counter(
            "prefscore_replica_reads",
            "Reads of the routes a replica may serve, by the server that answered: replica, or leader (the replica had not replayed the client's write, or was away)",
            ["server"],
        )
        self.webhook_deliveries = Counter(
            "prefscore_webhook_deliveries",
            "Webhook delivery attempts, by outcome (delivered, retry, gone)",
            ["outcome"],
        )
        self.webhook_failures = Counter(
            "prefscore_webhook_failures", "Webhook delivery attempts that failed (no 2xx answer)"
        )
        self.webhook_outbox_age = Gauge(
            "prefscore_webhook_outbox_age_seconds",
            "Age of the oldest webhook delivery not yet delivered",
            multiprocess_mode="max",
        )


_metrics: _Metrics | None = None


def metrics() -> _Metrics:
    """The process's metrics (created once: prometheus-client's registry is global)."""
    global _metrics
    if _metrics is None:
        _metrics = _Metrics()
    return _metrics


def render_metrics() -> tuple[bytes, str]:
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        # prometheus_client leaves this constructor unannotated (the library is typed otherwise)
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
