"""Runtime configuration, read from the environment (see README "Configuration")."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_DATABASE_URL = "sqlite:///prefscore.db"


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, not {raw!r}") from exc


def _bool_env(name: str, default: bool) -> bool:
    raw = (os.environ.get(name) or "").strip().lower()
    if raw == "":
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 1/0, true/false, yes/no or on/off, not {raw!r}")


@dataclass(frozen=True)
class Settings:
    """Everything the service needs to run.

    ``database_url``: a SQLAlchemy URL (``DATABASE_URL``); the default is a SQLite file
    ``prefscore.db`` in the working directory.
    ``admin_key``: ``PREFSCORE_ADMIN_KEY``, accepted as the key of owner ``admin`` when set.
    ``threads``: worker threads for sync endpoints; the database pool is sized to match so
    that a busy server never waits on a pool smaller than its thread pool.
    """

    database_url: str = DEFAULT_DATABASE_URL
    admin_key: str | None = None
    threads: int = 40
    sqlite_busy_timeout_ms: int = 10_000
    max_body_bytes: int = 64 * 1024
    # Operations and hardening (app/api/middleware.py, app/observability.py, app/ratelimit.py).
    log_format: str = "json"  # PREFSCORE_LOG_FORMAT: json (one object per line) or text
    log_level: str = "INFO"  # PREFSCORE_LOG_LEVEL
    metrics_enabled: bool = True  # PREFSCORE_METRICS=0 hides /metrics
    rate_limit: int = 100_000  # PREFSCORE_RATE_LIMIT: requests per key per window; 0 switches it off
    rate_limit_window: int = 60  # PREFSCORE_RATE_LIMIT_WINDOW, seconds
    max_json_depth: int = 32  # PREFSCORE_MAX_JSON_DEPTH
    cors_origins: tuple[str, ...] = ()  # PREFSCORE_CORS_ORIGINS: comma-separated origins ("*" for any); empty: no CORS
    security_headers: bool = True  # PREFSCORE_SECURITY_HEADERS=0 drops nosniff, frame and referrer headers
    hsts_seconds: int = 0  # PREFSCORE_HSTS_SECONDS: Strict-Transport-Security max-age (serve behind TLS only)
    content_security_policy: str = "default-src 'none'; frame-ancestors 'none'"  # PREFSCORE_CSP, on JSON responses
    # What one key may store (app/services/tables.py Limits).
    max_deals_per_table: int = 2000  # PREFSCORE_MAX_DEALS_PER_TABLE: a post beyond is 409
    max_tables_per_owner: int = 1000  # PREFSCORE_MAX_TABLES_PER_OWNER: a new table beyond is 409
    idempotency_days: int = 7  # PREFSCORE_IDEMPOTENCY_DAYS: Idempotency-Key answers kept this long; 0 keeps them for ever

    @classmethod
    def from_env(cls) -> "Settings":
        admin = os.environ.get("PREFSCORE_ADMIN_KEY") or None
        return cls(
            database_url=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            admin_key=admin,
            threads=_int_env("PREFSCORE_THREADS", 40),
            sqlite_busy_timeout_ms=_int_env("PREFSCORE_SQLITE_BUSY_TIMEOUT_MS", 10_000),
            max_body_bytes=_int_env("PREFSCORE_MAX_BODY_BYTES", 64 * 1024),
            log_format=(os.environ.get("PREFSCORE_LOG_FORMAT") or "json").strip().lower(),
            log_level=(os.environ.get("PREFSCORE_LOG_LEVEL") or "INFO").strip().upper(),
            metrics_enabled=_bool_env("PREFSCORE_METRICS", True),
            rate_limit=_int_env("PREFSCORE_RATE_LIMIT", 100_000),
            rate_limit_window=_int_env("PREFSCORE_RATE_LIMIT_WINDOW", 60),
            max_json_depth=_int_env("PREFSCORE_MAX_JSON_DEPTH", 32),
            cors_origins=tuple(o.strip() for o in os.environ.get("PREFSCORE_CORS_ORIGINS", "").split(",") if o.strip()),
            security_headers=_bool_env("PREFSCORE_SECURITY_HEADERS", True),
            hsts_seconds=_int_env("PREFSCORE_HSTS_SECONDS", 0),
            content_security_policy=os.environ.get("PREFSCORE_CSP", "default-src 'none'; frame-ancestors 'none'"),
            max_deals_per_table=_int_env("PREFSCORE_MAX_DEALS_PER_TABLE", 2000),
            max_tables_per_owner=_int_env("PREFSCORE_MAX_TABLES_PER_OWNER", 1000),
            idempotency_days=_int_env("PREFSCORE_IDEMPOTENCY_DAYS", 7),
        )

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
