"""Live updates of one process: the hub, and the tasks that feed it (started with the first
stream or the app, stopped with the app)."""

from __future__ import annotations

import asyncio
from functools import partial

import anyio.to_thread
from sqlalchemy.engine import make_url

from app.events.changes import add_sink, remove_sink
from app.keys.service import revoked_among
from app.kit.db import Database
from app.kit.settings import Settings
from app.live.hub import Hub
from app.live.key_watcher import KeyWatcher
from app.live.pg_listener import PgListener
from app.live.reads import current, load_current, load_revisions, load_revoked_links
from app.live.revision_watcher import RevisionWatcher
from app.live.stream import Heartbeat
from app.live.subscription import ADDRESS, KEY, SCORER_LINK, SHARE_TOKEN
from app.tournaments.service import versions as tournament_versions


async def _run_sync(fn, *args):  # noqa: ANN001, ANN002, ANN202
    return await anyio.to_thread.run_sync(fn, *args)


class LiveUpdates:
    def __init__(self, db: Database, settings: Settings):
        self.db = db
        self.settings = settings
        self.hub = Hub(
            partial(load_current, db),
            partial(load_revisions, db),
            _run_sync,
            load_revoked=partial(revoked_among, db),
            load_revoked_links=partial(load_revoked_links, db),
            from_stored=current,
            load_tournaments=partial(tournament_versions, db),
            max_subscriptions=settings.events_max_subscriptions,
            caps={
                SHARE_TOKEN: settings.events_max_per_share_token,
                SCORER_LINK: settings.events_max_per_scorer_link,
                KEY: settings.events_max_per_key,
                ADDRESS: settings.events_max_per_address,
            },
        )
        self.streams = Heartbeat(settings.events_heartbeat)  # every open stream of the process
        self.listener: PgListener | None = None
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def started(self) -> bool:
        return bool(self._tasks)

    def start(self) -> None:
        """On the running loop; idempotent."""
        if self._tasks:
            return
        loop = asyncio.get_running_loop()
        self.hub.loop = loop
        add_sink(self.hub.changed_threadsafe)
        if self.db.dialect == "postgresql":
            conninfo = (
                make_url(self.settings.events_database_url or self.settings.database_url)
                .set(drivername="postgresql")
                .render_as_string(hide_password=False)
            )
            self.listener = PgListener(
                conninfo,
                self.hub,
                connect_timeout=self.settings.db_connect_timeout,
                check_seconds=self.settings.events_heartbeat,
            )
            self._tasks.append(loop.create_task(self.listener.run()))
            interval = self.settings.events_recheck_interval
        else:
            interval = self.settings.events_poll_interval
        self._tasks.append(loop.create_task(RevisionWatcher(self.hub, interval).run()))
        self._tasks.append(loop.create_task(KeyWatcher(self.hub, self.settings.events_heartbeat).run()))
        self._tasks.append(loop.create_task(self.streams.run()))
        self._tasks.append(loop.create_task(self.streams.end_on_exit()))

    async def stop(self) -> None:
        remove_sink(self.hub.changed_threadsafe)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        self._tasks.clear()
