"""Whether the keys of the open keyed streams still work, read on an interval (the heartbeat's)
in one query per process: a key revoked by any process, or in the database by hand, ends its
streams within that interval. The process that revokes a key ends its streams at once
(app/keys/router.py)."""

from __future__ import annotations

import logging

from app.live.hub import Hub
from app.live.intervals import every

log = logging.getLogger("prefscore.events")


class KeyWatcher:
    def __init__(self, hub: Hub, interval: float):
        self.hub = hub
        self.interval = interval

    async def run(self) -> None:
        await every(self.interval, self.hub.check_keys, self.failed)

    def failed(self, exc: Exception) -> None:
        # The database is away: the revision watcher tells the streams.
        log.warning("live updates: could not read the keys of the open streams: %s", exc)
