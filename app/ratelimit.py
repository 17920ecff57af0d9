"""Per-key rate limit, counted in the service's own database so that every server process
(and every worker) shares one count: a fixed window of ``window`` seconds and at most
``limit`` requests per key in it.

Storage: the table ``rate_limits`` (migration 0002): one row per (bucket, window) where the
bucket is a SHA-256 of the presented key (never the key itself). A request is one upsert —
``INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`` — which both
PostgreSQL and SQLite (3.35+) do atomically, so concurrent processes never lose a hit. The
database was chosen over an in-process counter (wrong as soon as there are two processes)
and over a Redis-backed library (one more server to run and watch for a service whose only
state is already its database). Old windows are deleted by the first hit of each new window
in each process.

When the database cannot be reached the limiter lets the request through (the request then
meets the same database and answers 503 itself): a broken counter must not lock everyone out.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from dataclasses import dataclass

from sqlalchemy import delete
from sqlalchemy.exc import SQLAlchemyError

from app.db import Database
from app.db.models import RateLimitRow

log = logging.getLogger("prefscore.ratelimit")


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # seconds until the window ends


def bucket_of(token: str) -> str:
    return hashlib.sha256(b"prefscore-rate-limit\x00" + token.encode("utf-8", "surrogatepass")).hexdigest()


class RateLimiter:
    def __init__(self, db: Database, limit: int, window_seconds: int):
        self.db = db
        self.limit = limit
        self.window = max(1, window_seconds)
        self._seen_window: int | None = None
        self.table = RateLimitRow.__table__
        if db.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        self._insert = insert

    def _upsert(self, bucket: str, window: int) -> int:
        t = self.table
        stmt = self._insert(t).values(bucket=bucket, window=window, count=1)
        stmt = stmt.on_conflict_do_update(index_elements=[t.c.bucket, t.c.window], set_={"count": t.c.count + 1}).returning(t.c.count)
        with self.db.engine.begin() as conn:
            count = conn.execute(stmt).scalar_one()
            if self._seen_window != window:
                self._seen_window = window
                conn.execute(delete(t).where(t.c.window < window - 1))
        return int(count)

    def hit(self, token: str, now: float | None = None) -> Decision:
        now = time.time() if now is None else now
        window = int(now // self.window)
        retry_after = max(1, math.ceil((window + 1) * self.window - now))
        try:
            count = self._upsert(bucket_of(token), window)
        except SQLAlchemyError as exc:
            log.warning("rate limit: the counter could not be updated (%s); letting the request through", type(exc).__name__)
            return Decision(True, self.limit, self.limit, retry_after)
        return Decision(count <= self.limit, self.limit, max(0, self.limit - count), retry_after)
