"""The tables' revision column read on an interval, in one query per process for every table
its streams watch (not one per subscriber). On SQLite it is how a change committed by another
process on the same file (``--workers N``) reaches this process's streams; on PostgreSQL it
is a slow safety net under LISTEN/NOTIFY (and how a table deleted without a notification is
noticed)."""

from __future__ import annotations

import logging

from app.live.hub import Hub
from app.live.intervals import every

log = logging.getLogger("prefscore.events")


class RevisionWatcher:
    def __init__(self, hub: Hub, interval: float):
        self.hub = hub
        self.interval = interval

    async def run(self) -> None:
        await every(self.interval, self.step, self.failed)

    async def step(self) -> None:
        await self.hub.poll()
        if self.hub.interrupted and not self.hub.listener_down:
            self.hub.recovered()

    def failed(self, exc: Exception) -> None:
        log.warning("live updates: could not read the revisions: %s", exc)
        self.hub.outage("the database cannot be read; the stream resumes when it can")
