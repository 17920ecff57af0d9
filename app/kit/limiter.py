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

Leases: a process does not go to the database for every request. It reserves several hits
at once (``count = count + n``) and hands them out in memory until they are used up or the
window ends; ``n`` is at most 64 (``PREFSCORE_RATE_LIMIT_LEASE_MAX``) and at most 1/16
(``PREFSCORE_RATE_LIMIT_LEASE_SHARE``) of what the window's budget has left as
far as this process knows, so it shrinks to 1 (one upsert per request, an exact count) as
the limit nears. With the default limit (100,000 a minute) that is one upsert per 64
requests per key and process; what is reserved but not used by the end of the window counts
against the key, at most 64 hits per process and window.

Only requests with a valid key (or scorer link) are counted here: requests without a key or
with a wrong one, and every share and scorer link request, are counted in memory per client
address, and share links per token (``MemoryLimiter``), never with a database write; the
address is counted before a presented key is looked up (app/kit/middleware/rate_limit.py).

When the database cannot be reached the limiter lets the request through (the request then
meets the same database and answers 503 itself): a broken counter must not lock everyone out.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from app.kit.caching import Kept
from app.kit.db import Database
from app.kit.repository import forget_windows_before, reserve_hits
from app.kit.settings import default_of

log = logging.getLogger("prefscore.ratelimit")


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    retry_after: int  # seconds until the window ends


def bucket_of(token: str) -> str:
    return hashlib.sha256(b"prefscore-rate-limit\x00" + token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class _Lease:
    window: int
    left: int  # hits reserved in the database and not handed out yet
    counted: int  # the database's count right after this process's last reservation


class RateLimiter:
    def __init__(
        self,
        db: Database,
        limit: int,
        window_seconds: int,
        *,
        lease_max: int = default_of("rate_limit_lease_max"),
        lease_share: int = default_of("rate_limit_lease_share"),
        max_leases: int = default_of("rate_limit_max_leases"),
    ):
        self.db = db
        self.limit = limit
        self.window = max(1, window_seconds)
        self.lease_max = max(1, lease_max)
        self.lease_share = max(1, lease_share)
        self.max_leases = max(1, max_leases)
        self._seen_window: int | None = None
        self._leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()

    def _upsert(self, bucket: str, window: int, n: int = 1) -> int:
        # db.write_core(): on SQLite it queues with the service's other writers
        # (app/kit/db/engine.py); Core statements only, so no ORM Session around them.
        with self.db.write_core() as conn:
            count = reserve_hits(conn, bucket, window, n)
            if self._seen_window != window:
                self._seen_window = window
                forget_windows_before(conn, window - 1)
        return count

    def _window(self, now: float | None) -> tuple[int, int]:
        now = time.time() if now is None else now
        window = int(now // self.window)
        return window, max(1, math.ceil((window + 1) * self.window - now))

    def try_local(self, token: str, now: float | None = None) -> Decision | None:
        """A decision from this process's lease, without the database; None when there is
        none left (then ``hit``). Cheap enough to call on the event loop."""
        window, retry_after = self._window(now)
        bucket = bucket_of(token)
        with self._lock:
            lease = self._leases.get(bucket)
            if lease is None or lease.window != window or lease.left <= 0:
                return None
            lease.left -= 1
            used = lease.counted - lease.left
        return Decision(True, self.limit, max(0, self.limit - used), retry_after)

    def hit(self, token: str, now: float | None = None) -> Decision:
        local = self.try_local(token, now)
        if local is not None:
            return local
        window, retry_after = self._window(now)
        bucket = bucket_of(token)
        with self._lock:
            lease = self._leases.get(bucket)
            known = lease.counted if lease is not None and lease.window == window else 0
        n = max(1, min(self.lease_max, (self.limit - known) // self.lease_share))
        try:
            count = self._upsert(bucket, window, n)
        except SQLAlchemyError as exc:
            log.warning(
                "rate limit: the counter could not be updated (%s); letting the request through",
                type(exc).__name__,
            )
            return Decision(True, self.limit, self.limit, retry_after)
        # This request is hit number count - n + 1 of the window; the lease is what of the
        # n reserved hits still fits under the limit, this one included.
        granted = max(0, min(n, self.limit - (count - n)))
        with self._lock:
            if len(self._leases) > self.max_leases:
                self._leases = {b: v for b, v in self._leases.items() if v.window == window}
            current = self._leases.get(bucket)
            if current is not None and current.window == window:
                # Concurrent requests found the lease used up together and each reserved
                # hits: all of them are counted in the database, so all are kept. Replacing
                # the lease would waste the others' and send the next requests back to the
                # database at once (with 8 clients, an upsert for every 8 requests).
                current.left += max(0, granted - 1)
                current.counted = max(current.counted, count)
            else:
                self._leases[bucket] = _Lease(window, max(0, granted - 1), count)
        if granted == 0:
            return Decision(False, self.limit, 0, retry_after)
        return Decision(True, self.limit, max(0, self.limit - (count - (granted - 1))), retry_after)


class MemoryLimiter:
    """A fixed-window count per name (a client address, a share token) kept in this
    process's memory: for requests that have no valid key, so that counting them never
    writes to the database (a flood of made-up keys must not queue behind real writes).
    Each process counts for itself; at most ``max_names`` names are remembered per window,
    the least recently seen forgotten first."""

    def __init__(self, limit: int, window_seconds: int, max_names: int = 100_000):
        self.limit = limit
        self.window = max(1, window_seconds)
        self.max_names = max(1, max_names)
        self._window: int | None = None
        self._counts: Kept[str, int] = Kept(self.max_names)
        self._lock = threading.Lock()

    def hit(self, name: str, now: float | None = None) -> Decision:
        now = time.time() if now is None else now
        window = int(now // self.window)
        retry_after = max(1, math.ceil((window + 1) * self.window - now))
        with self._lock:
            if window != self._window:
                self._window = window
                self._counts.clear()
            count = (self._counts.get(name) or 0) + 1
            self._counts.put(name, count)  # the most recently seen; the least goes beyond max_names
        if count > self.limit:
            return Decision(False, self.limit, 0, retry_after)
        return Decision(True, self.limit, self.limit - count, retry_after)

    def refund(self, name: str, now: float | None = None) -> None:
        """Give back one hit of ``name`` in the current window (a request counted here before
        it proved to be counted elsewhere: a key that turned out valid)."""
        window = int((time.time() if now is None else now) // self.window)
        with self._lock:
            count = self._counts.get(name) if window == self._window else None
            if count:
                self._counts.put(name, count - 1)


class Busy(Exception):
    """A holder's turn did not come: too many of its requests in progress and waiting."""

    def __init__(self, in_progress: int, retry_after: int):
        super().__init__(in_progress)
        self.in_progress = in_progress
        self.retry_after = retry_after


class _Holder:
    __slots__ = ("running", "waiting")

    def __init__(self) -> None:
        self.running = 0
        self.waiting: deque[asyncio.Future[None]] = deque()


class FairShare:
    """At most ``limit`` requests of one holder (a key, a scorer link, a share link) in
    progress at once in this process, so that no holder takes every worker thread and
    database connection: the next ones wait their turn on the event loop, in order, with
    their bodies unread (a waiting request holds a coroutine, not a thread), at most
    ``queue`` of them for at most ``wait`` seconds each; past that, ``Busy`` (429).

    A rate limit bounds how many requests a holder makes in a minute; this bounds how many
    of them run at once, whatever each costs. Event streams are not counted here: they have
    caps of their own (app/live). Used on the event loop only: no lock."""

    def __init__(self, limit: int, queue: int, wait: float):
        self.limit = max(1, limit)
        self.queue = max(0, queue)
        self.wait = max(0.0, wait)
        self._holders: dict[Hashable, _Holder] = {}

    def in_progress(self, name: Hashable) -> int:
        holder = self._holders.get(name)
        return holder.running if holder is not None else 0

    async def enter(self, name: Hashable) -> None:
        """Wait for a turn of ``name``; ``leave(name)`` must follow once the request is done."""
        holder = self._holders.get(name)
        if holder is None:
            holder = self._holders[name] = _Holder()
        if holder.running < self.limit and not holder.waiting:
            holder.running += 1
            return
        if len(holder.waiting) >= self.queue:
            raise Busy(holder.running, max(1, math.ceil(self.wait)))
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        holder.waiting.append(turn)
        try:
            await asyncio.wait_for(asyncio.shield(turn), self.wait)
        except TimeoutError:
            if self._withdraw(name, holder, turn):
                raise Busy(holder.running, max(1, math.ceil(self.wait))) from None
            # the turn came just as the wait ended: it is this request's
        except BaseException:
            if not self._withdraw(name, holder, turn):
                self.leave(name)  # the turn came, but the request is gone: pass it on
            raise

    def _withdraw(self, name: Hashable, holder: _Holder, turn: asyncio.Future[None]) -> bool:
        """Stop waiting for ``turn``: True if it had not come (the request leaves the queue),
        False if it had (the request holds a turn)."""
        if turn.done() and not turn.cancelled():
            return False
        turn.cancel()
        holder.waiting.remove(turn)
        self._forget(name, holder)
        return True

    def leave(self, name: Hashable) -> None:
        """A request of ``name`` is done: its turn goes to the first one waiting."""
        holder = self._holders[name]
        while holder.waiting:
            turn = holder.waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # ``running`` stays: the turn is handed over
                return
        holder.running -= 1
        self._forget(name, holder)

    def _forget(self, name: Hashable, holder: _Holder) -> None:
        if holder.running == 0 and not holder.waiting:
            self._holders.pop(name, None)
