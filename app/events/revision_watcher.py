"""The tables' revision column read on an interval, in one query per process for every table
its streams watch (not one per subscriber). On SQLite it is how a change committed by another
process on the same file (``--workers N``) reaches this process's streams; on PostgreSQL it
is a slow safety net under LISTEN/NOTIFY (and how a table deleted without a notification is
noticed)."""

from __future__ import annotations

import asyncio
import logging

from .hub import Hub

log = logging.getLogger("prefscore.events")


class RevisionWatcher:
    def __init__(self, hub: Hub, interval: float):
        self.hub = hub
        self.interval = max(0.01, interval)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.hub.poll()
            except Exception as exc:  # noqa: BLE001  (the database is away: try again next time)
                log.warning("live updates: could not read the revisions: %s", exc)
                self.hub.outage("the database cannot be read; the stream resumes when it can")
            else:
                if self.hub.interrupted and not self.hub.listener_down:
                    self.hub.recovered()
