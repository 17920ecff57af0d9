"""The deliverer: every serving process sends the outbox's due deliveries (app/events/outbox.py)
from a task of its event loop, started with the app. No other kind of process.

One round: a look (a read: is anything due?), claims of up to ``PREFSCORE_WEBHOOKS_BATCH``
due rows of active endpoints (each pushed a lease ahead: ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, SQLite's one writer at a time elsewhere), the sends (aiohttp, no redirect followed,
the checked address connected to, the answer read up to a bound), and the outcomes written in
batches, each delivery's on its own when a batch fails (one bad row sinks no other; a delivery
whose endpoint was deleted while it was sent is dropped).

Shared fairly: a claim takes owners in turns (each owner's first due delivery, then each
one's second…; an owner's turns go round its endpoints), no endpoint given more than it answers
within half a lease at its recent pace, no owner more than its share of what the process holds.
Places: at most ``PREFSCORE_WEBHOOKS_IN_FLIGHT_PER_ENDPOINT`` to one endpoint and
``PREFSCORE_WEBHOOKS_IN_FLIGHT_PER_OWNER`` of one owner at once. An endpoint that keeps giving
no answer within the timeout is backed off (a circuit breaker): its queued deliveries are
given back, due after a pause that grows, and it holds one place until it answers again. Each delivery counts against
its owner's budget, ``PREFSCORE_WEBHOOKS_RATE_LIMIT`` a minute: beyond it they wait, due.
A process that dies with
claimed deliveries leaves them due again once their lease is over: each is delivered at least
once, with the same ``webhook-id`` on a repeat.

The process's own commits that wrote deliveries wake it (app/events/changes.py's delivery
sinks; a post of an owner without an endpoint wakes nothing), and it claims them 200 ms later,
a burst's together; another process's are seen at the next look
(``PREFSCORE_WEBHOOKS_POLL_INTERVAL``). The outcomes are written once all that was claimed
is sent, when a batch of them is full, or after half a second."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import aiohttp
import anyio.to_thread
from sqlalchemy.exc import InterfaceError, OperationalError

from app.events.changes import add_delivery_sink, remove_delivery_sink
from app.events.payloads import utc
from app.kit.db import Database
from app.kit.db.models import utcnow
from app.kit.db.outage import Pause
from app.kit.observability import metrics
from app.kit.settings import Settings
from app.webhooks import addresses, sending
from app.webhooks import repository as repo
from app.webhooks.sending import wait_before_retry

log = logging.getLogger("prefscore.webhooks")
_SILENT_BEFORE_BACKOFF = 3  # answers missed in a row before an endpoint is backed off
_BACKOFF_FIRST = 5.0  # seconds of its first pause; each next one doubles
_BACKOFF_MOST = 60.0
# Seconds a round woken by this process's own deliveries waits first: the deliveries of a burst
# of writes, or of a steady stream of them, are then claimed together, one claim's statements
# for several, not one each (at 50 ms a stream of 80 a second came in fours, and a delivery
# cost its post more than the post itself: docs/performance.md lesson 22).
_GATHER = 0.2
# Seconds the outcomes of deliveries wait at most to be written: sooner when a batch of them is
# full or when all that was claimed is sent (a round's together, one transaction for them). A
# process that dies meanwhile leaves them claimed; their leases make them due again (delivered
# at least once, with the same webhook-id).
_OUTCOMES_EVERY = 0.5


class Deliverer:
    def __init__(self, db: Database, settings: Settings, *, clock: Callable[[], datetime] = utcnow):
        self.db = db
        self.settings = settings
        self.clock = clock
        self.allowed = addresses.networks(settings.webhooks_allowed_networks)
        self.schedule = tuple(float(s) for s in settings.webhooks_retry_schedule)
        self.base = settings.webhooks_public_url.rstrip("/")
        self.in_flight: Counter[int] = Counter()
        self.queues: dict[int, deque[Any]] = {}  # claimed, waiting for a place
        self.pace: dict[int, float] = {}  # each endpoint's recent seconds per delivery
        self.owner_of: dict[int, str] = {}  # endpoint -> owner, for the endpoints held
        self.owner_in_flight: Counter[str] = Counter()
        self.owner_pace: dict[str, float] = {}  # each owner's recent seconds per delivery
        self.waiting: dict[str, dict[int, None]] = {}  # an owner's endpoints waiting for its places, in turn
        self.silent: dict[int, int] = {}  # the breaker: endpoint -> answers missed in a row
        self.budget: dict[str, tuple[float, float]] = {}  # owner -> (deliveries left, when counted)
        self.released: list[dict[str, Any]] = []  # claimed deliveries given back unsent
        self.outcomes: list[dict[str, Any]] = []
        self.failures: list[tuple[int, str, bool]] = []  # (endpoint, reason, gone)
        self.answered: set[int] = set()
        self.sent = 0  # attempts settled by this deliverer
        self.delivered = 0  # of which went through
        self._tasks: list[asyncio.Task[None]] = []
        self._sending: set[asyncio.Task[None]] = set()
        self._wake: asyncio.Event | None = None
        self._flushed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: aiohttp.ClientSession | None = None
        self._cleaned = 0.0
        self._looked = 0.0  # when the last look was made (time.monotonic)
        self._written = False  # a write of this process has written deliveries since the last round
        self.outage = Pause("webhooks", log)

    # --- the task's life
    def start(self) -> None:
        """On the running loop; idempotent."""
        if self._tasks:
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._flushed = asyncio.Event()
        self._places = asyncio.Semaphore(self.settings.webhooks_concurrency)
        self._client = sending.session(self.settings.webhooks_concurrency)
        add_delivery_sink(self._due)
        self._tasks = [self._loop.create_task(self._run()), self._loop.create_task(self._flush_loop())]

    async def stop(self) -> None:
        remove_delivery_sink(self._due)
        for task in self._tasks:
            task.cancel()
        for task in list(self._sending):
            task.cancel()
        for task in [*self._tasks, *self._sending]:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        self._tasks.clear()
        if self.outcomes or self.failures or self.answered or self.released:
            await anyio.to_thread.run_sync(self._write_outcomes)
        if self._client is not None:
            await self._client.close()

    def _due(self) -> None:
        """A write committed in this process with deliveries (a writing thread): claim now."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._written_now)

    def _written_now(self) -> None:
        assert self._wake is not None
        self._written = True
        self._wake.set()

    def wake(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # --- rounds
    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), self.settings.webhooks_poll_interval)
            except TimeoutError:
                pass
            if self._written:
                await asyncio.sleep(_GATHER)
            self._wake.clear()
            written, self._written = self._written, False
            try:
                await self.outage.run(self.round, written)  # waits while the database is away
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 — the database away: the next look tries again
                log.exception("webhooks: a round of deliveries failed")
                await asyncio.sleep(self.settings.webhooks_poll_interval)

    async def round(self, written: bool = False) -> int:
        """Claim until nothing more is due or this process holds all it may; how many were
        claimed. ``written``: this process wrote deliveries since the last round, so some are
        due; the look is skipped then, unless the last one is older than a poll (it keeps the
        outbox's age and its cleaning going under a steady stream of writes)."""
        claimed = 0
        looked_lately = time.monotonic() - self._looked < self.settings.webhooks_poll_interval
        if not (written and looked_lately) and not await anyio.to_thread.run_sync(self._look):
            return 0
        while True:
            room = self.most_held - self.held
            if room <= 0 or (self.held and room < self.settings.webhooks_batch // 2):
                return claimed  # claims of a few rows each would cost a transaction per delivery
            want = min(room, self.settings.webhooks_batch)
            rows = await anyio.to_thread.run_sync(self._claim, want)
            for row in rows:
                # Here on the loop, not in the claiming thread: a delivery of the endpoint that
                # ended meanwhile forgets its owner when its queue is empty (then its rows
                # would be pumped under no owner's places).
                self.owner_of[row.endpoint_id] = row.owner
                self.queues.setdefault(row.endpoint_id, deque()).append(row)
            for endpoint in {row.endpoint_id for row in rows}:
                self._pump(endpoint)
            claimed += len(rows)
            if len(rows) < want:
                return claimed

    @property
    def most_held(self) -> int:
        """Deliveries this process holds at most (claimed: queued or being sent)."""
        return 2 * self.settings.webhooks_batch

    @property
    def held(self) -> int:
        return sum(self.in_flight.values()) + sum(len(q) for q in self.queues.values())

    def may_hold(self, endpoint: int) -> int:
        """What one endpoint may hold: what it answers within half a lease at its recent pace
        (an endpoint not heard from yet is taken to use the whole timeout), so that a claimed
        delivery is sent before its lease ends however slow its endpoint is; one while it is
        backed off."""
        if self.backed_off(endpoint):
            return 1
        pace = self.pace.get(endpoint, self.settings.webhooks_timeout)
        per = self.settings.webhooks_in_flight_per_endpoint
        return max(per, int(per * self.settings.webhooks_lease / 2 / max(pace, 0.001)))

    def owner_may_hold(self, owner: str) -> int:
        """What one owner may hold: what its places answer within half a lease at its recent
        pace, and never so much that a claim for the other owners would be too small to make."""
        pace = self.owner_pace.get(owner, self.settings.webhooks_timeout)
        per = self.settings.webhooks_in_flight_per_owner
        share = self.most_held - self.settings.webhooks_batch // 2
        return max(1, min(share, max(per, int(per * self.settings.webhooks_lease / 2 / max(pace, 0.001)))))

    def owner_held(self, owner: str) -> int:
        held = [e for e, o in self.owner_of.items() if o == owner]
        return sum(self.in_flight[e] + len(self.queues.get(e, ())) for e in held)

    def places(self, endpoint: int) -> int:
        """Deliveries to the endpoint at once: one while it is backed off (the breaker's probe)."""
        return 1 if self.backed_off(endpoint) else self.settings.webhooks_in_flight_per_endpoint

    def backed_off(self, endpoint: int) -> bool:
        return self.silent.get(endpoint, 0) >= _SILENT_BEFORE_BACKOFF

    def _pump(self, endpoint: int) -> None:
        """Start sending the endpoint's queued deliveries, at most so many at once, and no
        more of its owner's than the owner's places (the endpoint then waits its turn)."""
        queue = self.queues.get(endpoint)
        loop = asyncio.get_running_loop()
        owner = self.owner_of.get(endpoint, "")
        while queue and self.in_flight[endpoint] < self.places(endpoint):
            if self.owner_in_flight[owner] >= self.settings.webhooks_in_flight_per_owner:
                self.waiting.setdefault(owner, {})[endpoint] = None
                break
            row = queue.popleft()
            self.in_flight[endpoint] += 1
            self.owner_in_flight[owner] += 1
            task = loop.create_task(self._deliver(row))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        if not queue:
            self.queues.pop(endpoint, None)

    def _pump_owner(self, owner: str, endpoint: int) -> None:
        """A place of the owner's is free: its waiting endpoints first, in turn, then this one."""
        waiting = self.waiting.get(owner)
        while waiting and self.owner_in_flight[owner] < self.settings.webhooks_in_flight_per_owner:
            first = next(iter(waiting))
            del waiting[first]
            self._pump(first)
        if waiting is not None and not waiting:
            self.waiting.pop(owner, None)
        self._pump(endpoint)

    def _spend(self, owner: str, now: float, spent: int = 0) -> float:
        """The deliveries the owner may still start this minute (its budget refills evenly)."""
        rate = self.settings.webhooks_rate_limit
        if rate <= 0:
            return float("inf")
        left, at = self.budget.get(owner, (float(rate), now))
        left = min(float(rate), left + (now - at) * rate / 60) - spent
        self.budget[owner] = (left, now)
        return left

    def _look(self) -> bool:
        self._looked = time.monotonic()
        now = self.clock()
        with self.db.lookup() as conn:
            due = repo.anything_due(conn, now)
            oldest = repo.oldest_pending(conn) if due or time.monotonic() - self._cleaned > 5 else None
        since = utc(oldest)
        metrics().webhook_outbox_age.set(max(0.0, (now - since).total_seconds()) if since else 0.0)
        if time.monotonic() - self._cleaned > min(60.0, self.settings.webhooks_retention / 10):
            self._cleaned = time.monotonic()
            self.clean(now)
        return due

    def clean(self, now: datetime | None = None) -> int:
        """Delete deliveries finished longer than the retention ago (in batches); how many."""
        cutoff = (now or self.clock()) - timedelta(seconds=self.settings.webhooks_retention)
        with self.db.lookup() as conn:
            if not repo.anything_to_clean(conn, cutoff):
                return 0
        deleted = 0
        while True:
            with self.db.write_core() as conn:
                done = repo.clean(conn, cutoff, 1000)
            deleted += done
            if done < 1000:
                return deleted

    def _claim(self, rows: int) -> list[repo.ClaimedDelivery]:
        """Up to ``rows`` due deliveries, owners in turns, none beyond what its endpoint or
        its owner may hold or its owner's budget (the rest is left unclaimed for the next
        claim, here or in another process)."""
        now = self.clock()
        lease = now + timedelta(seconds=self.settings.webhooks_lease)
        held = Counter(self.in_flight)
        for endpoint, queue in list(self.queues.items()):
            held[endpoint] += len(queue)
        owners: Counter[str] = Counter()
        for endpoint, count in held.items():
            owners[self.owner_of.get(endpoint, "")] += count
        clock = time.monotonic()
        full_owners = [
            o
            for o in set(owners) | set(self.budget)
            if owners[o] >= self.owner_may_hold(o) or self._spend(o, clock) < 1
        ]
        full_endpoints = [e for e, count in held.items() if count >= self.may_hold(e)]
        with self.db.write_core() as conn:
            order = repo.claim_order(conn, now, rows * 2, rows, full_owners, full_endpoints)
            taken: list[repo.ClaimedDelivery] = []
            for row in repo.claim_candidates(conn, now, order):
                owner = row.owner
                if (
                    len(taken) < rows
                    and held[row.endpoint_id] < self.may_hold(row.endpoint_id)
                    and owners[owner] < self.owner_may_hold(owner)
                    and self._spend(owner, clock) >= 1
                ):
                    held[row.endpoint_id] += 1
                    owners[owner] += 1
                    self._spend(owner, clock, 1)
                    taken.append(row)
            repo.lease(conn, [r.id for r in taken], lease)
        return taken

    # --- one delivery
    async def _deliver(self, row: Any) -> None:
        endpoint, owner = row.endpoint_id, row.owner
        try:
            async with self._places:
                outcome = await self.send(row)
        finally:
            self.in_flight[endpoint] -= 1
            if self.in_flight[endpoint] <= 0:
                del self.in_flight[endpoint]
            self.owner_in_flight[owner] -= 1
            if self.owner_in_flight[owner] <= 0:
                del self.owner_in_flight[owner]
        previous = self.pace.get(endpoint)
        self.pace[endpoint] = outcome[3] if previous is None else 0.8 * previous + 0.2 * outcome[3]
        previous = self.owner_pace.get(owner)
        self.owner_pace[owner] = outcome[3] if previous is None else 0.8 * previous + 0.2 * outcome[3]
        self._settle(row, *outcome)
        # Only a timeout holds a place long: a refused connection fails at once, and is left to the retries.
        self._breaker(
            endpoint, answered=not (outcome[0] is None and (outcome[1] or "").startswith(sending.TIMED_OUT))
        )
        self._pump_owner(owner, endpoint)
        if not self.in_flight and not self.queues and self._flushed is not None:
            self._flushed.set()  # all that was claimed is sent: its outcomes written together now
        # Its queue ran dry: claim more now rather than at the next look; not while its owner
        # holds all it may (the claim would take nothing of it: a write for nothing).
        room = self.held < self.most_held and self.owner_held(owner) < self.owner_may_hold(owner)
        if endpoint not in self.queues and room and self._wake is not None:
            self._wake.set()
        if endpoint not in self.queues and endpoint not in self.in_flight:
            self.owner_of.pop(endpoint, None)

    def _breaker(self, endpoint: int, *, answered: bool) -> None:
        """An endpoint that gave no answer within the timeout so many times in a row is backed
        off: its queued deliveries are given back, due after a pause that doubles
        each time (at most a minute), and it keeps one place until it answers again."""
        if answered:
            self.silent.pop(endpoint, None)
            return
        missed = self.silent[endpoint] = self.silent.get(endpoint, 0) + 1
        pause = min(_BACKOFF_MOST, _BACKOFF_FIRST * 2 ** max(0, missed - _SILENT_BEFORE_BACKOFF))
        queue = self.queues.pop(endpoint, None) if missed >= _SILENT_BEFORE_BACKOFF else None
        if queue:
            due = self.clock() + timedelta(seconds=pause)
            self.released.extend({"delivery": row.id, "due": due} for row in queue)
            self.waiting.get(self.owner_of.get(endpoint, ""), {}).pop(endpoint, None)

    async def send(self, row: Any) -> sending.Outcome:
        """POST the delivery: (status, error, Retry-After seconds, duration in seconds)."""
        assert self._client is not None
        return await sending.post(self._client, row, self.base, self.allowed, self.settings, self.clock())

    def _settle(
        self, row: Any, status: int | None, error: str | None, asked: float | None, duration: float
    ) -> None:
        now = self.clock()
        outcome = {
            "delivery": row.id,
            "attempted_at": now,
            "status": status,
            "duration_ms": int(duration * 1000),
            "error": error,
        }
        m = metrics()
        if error is None:
            outcome.update(new_state="delivered", next_at=None, done_at=now)
            self.answered.add(row.endpoint_id)
            self.delivered += 1
            m.webhook_deliveries.labels("delivered").inc()
        elif status == 410:
            outcome.update(new_state="failed", next_at=None, done_at=now)
            self.failures.append((row.endpoint_id, "the endpoint answered 410 Gone", True))
            m.webhook_deliveries.labels("gone").inc()
            m.webhook_failures.inc()
        else:
            wait = wait_before_retry(
                row.attempts + 1, self.schedule, self.settings.webhooks_retry_jitter, asked
            )
            outcome.update(new_state="pending", next_at=now + timedelta(seconds=wait), done_at=None)
            self.failures.append((row.endpoint_id, error, False))
            m.webhook_deliveries.labels("retry").inc()
            m.webhook_failures.inc()
        self.outcomes.append(outcome)
        self.sent += 1
        if len(self.outcomes) >= self.settings.webhooks_batch and self._flushed is not None:
            self._flushed.set()

    # --- the outcomes, in batches
    async def _flush_loop(self) -> None:
        assert self._flushed is not None
        while True:
            try:
                await asyncio.wait_for(self._flushed.wait(), _OUTCOMES_EVERY)
            except TimeoutError:
                pass
            self._flushed.clear()
            if self.outcomes or self.failures or self.answered or self.released:
                try:
                    await anyio.to_thread.run_sync(self._write_outcomes)
                except Exception:  # noqa: BLE001 — kept for the next flush; the lease covers them
                    log.exception("webhooks: the outcomes of some deliveries could not be written")
                    await asyncio.sleep(self.settings.webhooks_poll_interval)

    def _write_outcomes(self) -> None:
        """What the attempts say of their endpoints, then the attempts and the deliveries' new
        states (the endpoints' rows first, in the order an endpoint's deletion takes them). One
        transaction; when it fails, each part in its own, so that a delivery that cannot be
        written (gone with its endpoint, or worse) holds back no other. Kept for the next
        flush only while the database is away."""
        outcomes, failures, answered, released = self.outcomes, self.failures, self.answered, self.released
        self.outcomes, self.failures, self.answered, self.released = [], [], set(), []
        try:
            try:
                with self.db.write_core() as conn:
                    self._endpoints(conn, failures, answered)
                    self._record(conn, outcomes, released)
            except (OperationalError, InterfaceError):
                raise
            except Exception:  # noqa: BLE001 — one row among them: each on its own
                log.warning(
                    "webhooks: a batch of %d outcomes failed; writing each on its own",
                    len(outcomes),
                    exc_info=True,
                )
                self._alone("the endpoints' failures", lambda conn: self._endpoints(conn, failures, answered))
                for one in outcomes:
                    self._alone(
                        f"delivery {one['delivery']}", partial(self._record, outcomes=[one], released=[])
                    )
                for one in released:
                    self._alone(
                        f"delivery {one['delivery']}", partial(self._record, outcomes=[], released=[one])
                    )
        except (OperationalError, InterfaceError):
            self.outcomes[:0], self.failures[:0], self.released[:0] = outcomes, failures, released
            self.answered |= answered
            raise

    def _alone(self, what: str, write: Callable[[Any], None]) -> None:
        """One part of a failed batch in its own transaction; dropped and said once if it fails
        too (a delivery's lease makes it due again)."""
        try:
            with self.db.write_core() as conn:
                write(conn)
        except (OperationalError, InterfaceError):
            raise
        except Exception:  # noqa: BLE001
            log.exception("webhooks: the outcome of %s could not be written; it is dropped", what)

    def _record(self, conn: Any, outcomes: list[dict[str, Any]], released: list[dict[str, Any]]) -> None:
        there = repo.existing(conn, [o["delivery"] for o in outcomes])
        gone = [o["delivery"] for o in outcomes if o["delivery"] not in there]
        if gone:  # said once: nothing of them is kept to be tried again
            log.info("webhooks: deliveries %s dropped: their endpoint was deleted while they were sent", gone)
        repo.record(conn, [o for o in outcomes if o["delivery"] in there])
        repo.release(conn, released)

    def _endpoints(self, conn: Any, failures: list[tuple[int, str, bool]], answered: set[int]) -> None:
        now = self.clock()
        give_up_before = now - timedelta(seconds=self.settings.webhooks_disable_after)
        failing = {e for e, _r, _g in failures}
        repo.endpoints_answered(conn, [e for e in answered if e not in failing])
        for endpoint, reason, gone in failures:
            if gone:
                repo.disable(conn, endpoint, now, reason)
            elif repo.endpoint_failing(
                conn,
                endpoint,
                now,
                give_up_before,
                f"failing since before {give_up_before:%Y-%m-%d %H:%M:%S} UTC; last: {reason}",
            ):
                log.warning("webhooks: endpoint %s disabled after failing for too long", endpoint)

    async def drain(self, timeout: float = 10) -> None:
        """Tests: wait until nothing is being sent and every outcome is written."""
        deadline = time.monotonic() + timeout
        while (
            self._sending or self.queues or self.outcomes or self.failures or self.released
        ) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
