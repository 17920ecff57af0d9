"""The rater: every serving process rates the rated tables its posts finished, right after
each such post has been answered, from a task of its event loop started with the app.

The post that finishes a rated table only takes the table's place in the owner's finishing
order, pending (app/ratings/service.py ``on_table_finished``), so that rating never slows a
post down. This process's committed posts tell the rater (app/events/changes.py's sinks)
once the post's answer has been sent (app/kit/after_response.py: a rating in the thread
pool while the answer is built and sent on the event loop would share the GIL with it, and
the person at the table would wait for the rating after all); it then rates the owner's
pending tables in one write transaction, in finishing order. Nothing depends on it for
being right, only for being early: every read of the ratings rates what is still pending
first (``caught_up``), and a sweep every ``SWEEP_SECONDS`` rates what a process that
stopped between a post and its rating left.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import anyio.to_thread

from app.events.changes import add_sink, remove_sink
from app.kit.after_response import after_response
from app.kit.db import Database
from app.kit.db.outage import Pause, is_outage
from app.ratings import repository as repo
from app.ratings.service import rate_owner

log = logging.getLogger("prefscore.ratings")

# How often the rater looks for pending tables it was not told of (another process's).
SWEEP_SECONDS = 60.0


class Rater:
    def __init__(self, db: Database, *, sweep_seconds: float = SWEEP_SECONDS):
        self.db = db
        self.sweep_seconds = sweep_seconds
        self._owners: set[str] = set()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self.outage = Pause("ratings", log)

    def start(self) -> None:
        """On the running loop; idempotent."""
        if self._task is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        add_sink(self._committed)
        self._task = self._loop.create_task(self._run())

    async def stop(self) -> None:
        remove_sink(self._committed)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
            self._task = None

    def _committed(self, table_id: str, owner: str, revision: int, kind: str, stored: Any = None) -> None:
        """A change committed in this process (a writing thread): a post that finished a rated
        table has left it pending."""
        if kind != "deal.posted" or stored is None or not stored.rated or not stored.state.finished:
            return
        loop = self._loop
        if loop is not None:

            def tell() -> None:
                loop.call_soon_threadsafe(self._told, owner)

            if not after_response(tell):  # not a request's (a script's, a test's): at once
                tell()

    def _told(self, owner: str) -> None:
        self._owners.add(owner)
        if self._wake is not None:
            self._wake.set()

    async def _run(self) -> None:
        assert self._wake is not None
        # While the database is away each step waits for it (self.outage) and then goes on
        # with the owners it held: a told owner is not dropped to wait for the next sweep.
        owners = await self.outage.run(
            anyio.to_thread.run_sync, self._pending_owners
        )  # left by an earlier process
        while True:
            for owner in sorted(owners):
                try:
                    await self.outage.run(anyio.to_thread.run_sync, rate_owner, self.db, owner)
                except Exception:  # noqa: BLE001 - the next read of these ratings rates them
                    log.exception("ratings: the pending tables of owner %s could not be rated", owner)
            try:
                await asyncio.wait_for(self._wake.wait(), self.sweep_seconds)
                owners = set()
            except TimeoutError:
                owners = await self.outage.run(anyio.to_thread.run_sync, self._pending_owners)
            self._wake.clear()
            owners |= self._owners
            self._owners.clear()

    def _pending_owners(self) -> set[str]:
        try:
            with self.db.read() as session:
                return set(repo.owners_pending(session))
        except Exception as exc:  # noqa: BLE001
            if is_outage(exc):
                raise  # the pause waits for the database, then looks again
            log.exception("ratings: the pending tables could not be looked for")
            return set()
