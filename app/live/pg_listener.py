"""PostgreSQL: one dedicated connection per process LISTENs to the channel every write
NOTIFYs in its own transaction (app.events.changes), and hands each notification to the hub.

When the connection is lost (a database restart, a network cut), the streams are told
(``stream.interrupted``); the listener connects again with a growing pause, and once it
listens again every watched table is read again, so a change committed meanwhile is sent
(``stream.resumed``, then the events). A connection that goes silent is found by a ``SELECT 1``
whenever no notification came for ``check_seconds``."""

from __future__ import annotations

import asyncio
import json
import logging

import psycopg

from app.events.changes import origin
from app.live.hub import Hub
from app.live.repository import listen, ping

log = logging.getLogger("prefscore.events")


class PgListener:
    def __init__(self, conninfo: str, hub: Hub, *, connect_timeout: float = 10, check_seconds: float = 5):
        self.conninfo = conninfo
        self.hub = hub
        self.connect_timeout = connect_timeout
        self.check_seconds = check_seconds
        self.listening = asyncio.Event()  # set while LISTEN is in place (tests wait for it)
        self.connections = 0

    async def run(self) -> None:
        pause = 0.2
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, connect_timeout=max(1, int(self.connect_timeout))
                )
            except (psycopg.Error, OSError) as exc:
                self._lost(f"cannot connect: {exc}")
                await asyncio.sleep(pause)
                pause = min(pause * 2, 5.0)
                continue
            try:
                async with conn:
                    await listen(conn)
                    self.connections += 1
                    pause = 0.2
                    self.listening.set()
                    self.hub.listener_down = False
                    self.hub.recovered()  # the first time: nothing watched yet, or a resume
                    await self._listen(conn)
            except (TimeoutError, psycopg.Error, OSError) as exc:
                self._lost(str(exc) or type(exc).__name__)
                await asyncio.sleep(pause)

    def _lost(self, why: str) -> None:
        if self.listening.is_set() or not self.hub.listener_down:
            log.warning("live updates: the PostgreSQL listener lost its connection (%s); reconnecting", why)
        self.listening.clear()
        self.hub.listener_down = True
        self.hub.outage("the database connection was lost; the stream resumes when it is back")

    async def _listen(self, conn: psycopg.AsyncConnection) -> None:
        while True:
            got = False
            async for note in conn.notifies(timeout=self.check_seconds):
                got = True
                self._note(note.payload)
            if not got:
                await asyncio.wait_for(ping(conn), self.check_seconds)

    def _note(self, payload: str) -> None:
        try:
            table, owner, revision, kind, *rest = json.loads(payload)
        except (ValueError, TypeError):
            return
        if rest and rest[0] == origin():
            return  # this process's own write: handed over in-process already (app.events.changes)
        self.hub.changed(str(table), str(owner), int(revision), str(kind))
