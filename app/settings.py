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

    @classmethod
    def from_env(cls) -> "Settings":
        admin = os.environ.get("PREFSCORE_ADMIN_KEY") or None
        return cls(
            database_url=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            admin_key=admin,
            threads=_int_env("PREFSCORE_THREADS", 40),
            sqlite_busy_timeout_ms=_int_env("PREFSCORE_SQLITE_BUSY_TIMEOUT_MS", 10_000),
            max_body_bytes=_int_env("PREFSCORE_MAX_BODY_BYTES", 64 * 1024),
        )

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
