"""What the hub hands out and to whom: the events of a table, of a tournament and of a stream
itself as its streams send them (each encoded once, however many streams send it), and one
open stream's subscription with its queue of waiting events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.live.limits import EVENT_QUEUE_MAX


@dataclass(frozen=True)
class Current:
    """A table as its streams show it."""

    table_id: str
    owner: str
    revision: int
    deal_count: int
    etag: str
    sheet: dict[str, Any]
    # Which share link reads the table now: a stream opened through another one ends.
    share_token: str | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TableEvent:
    kind: str
    table_id: str
    revision: int
    etag: str | None = None
    sheet: dict[str, Any] | None = None
    share_token: str | None = field(default=None, compare=False, repr=False)  # never sent
    # The event as sent, by id style: encoded once, however many streams send it.
    wire: dict[bool, bytes] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, kind: str, current: Current) -> TableEvent:
        return cls(kind, current.table_id, current.revision, current.etag, current.sheet, current.share_token)

    def data(self) -> str:
        body: dict[str, Any] = {"kind": self.kind, "table": self.table_id, "revision": self.revision}
        if self.etag is not None:
            body["etag"] = self.etag
        if self.sheet is not None:
            body["sheet"] = self.sheet
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class StreamNotice:
    """An event about the stream itself (the database connection lost, regained)."""

    kind: str
    detail: str

    def data(self) -> str:
        return json.dumps({"kind": self.kind, "detail": self.detail}, ensure_ascii=False)


class TournamentEvent(StreamNotice):
    """A change of a tournament's standings, on its owner's owner-wide streams and on the
    streams of its share link (there with its revision as the event id)."""

    revision: int  # set once, as the frozen fields are (not a field: equality is the notice's)

    def __init__(self, kind: str, tournament_id: str, revision: int):
        super().__init__(kind, tournament_id)
        object.__setattr__(self, "revision", revision)

    def data(self) -> str:
        return json.dumps(
            {"kind": self.kind, "tournament": self.detail, "revision": self.revision}, separators=(",", ":")
        )


# Whose slots a stream takes (``Subscription.holders``): each holder may keep at most its
# cap of streams open in a process (``Hub.caps``), so no one holder fills the process.
SHARE_TOKEN = "share_token"
SCORER_LINK = "scorer_link"
KEY = "key"
ADDRESS = "address"
Holder = tuple[str, str]  # (SHARE_TOKEN | SCORER_LINK | KEY | ADDRESS, who)


@dataclass(eq=False, slots=True)
class Subscription:
    """One open stream: the tables it watches (``tables``), or every table of ``owner``
    (``tables`` None), and the stored key it was opened with (``key_id``; None for the share
    link and the environment's admin key). Events wait in a short queue until the stream
    sends them; ``ended`` says the stream must end now (its key or link was revoked).

    ``holders``: whose slots it takes (its key, share token, scorer link, client address).
    ``link_id``: opened through that scorer link, it is sent an event only once the hub has
    seen the link still works (one lookup per change for every stream of the link).
    ``share_token``: opened through that share link, it ends when its table is read with
    another share token (the link was replaced).
    ``tournament``: the stream of a tournament's share link (``tables`` empty): it is sent the
    tournament's standings changes, and ends when the tournament is read with another share
    token or is gone.
    ``listener``: called at each push and at the end instead of waking ``next`` (the stream
    writing the subscription, app/live/stream.py): an idle stream then holds no waiting
    future or task of its own. One of 10,000 idle streams, it is kept small (slots, a list)."""

    owner: str | None
    tables: frozenset[str] | None
    key_id: int | None = None
    ended: bool = False
    holders: tuple[Holder, ...] = ()
    link_id: int | None = None
    share_token: str | None = None
    tournament: str | None = None
    _subscribed: bool = False
    _queue: list[Any] = field(default_factory=list)
    listener: Callable[[], None] | None = None
    _waiter: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        if self.listener is not None:
            self.listener()
            return
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def end(self) -> None:
        self.ended = True
        self._wake()

    def push(self, item: Any) -> None:
        self._queue.append(item)
        if len(self._queue) > EVENT_QUEUE_MAX:
            self._coalesce()
        self._wake()

    @property
    def waiting(self) -> bool:
        return bool(self._queue)

    def _coalesce(self) -> None:
        """A subscriber that does not read keeps only the newest event of each table (and of
        each tournament): it still gets the current state, not a growing backlog."""
        newest: dict[Any, Any] = {}
        other = []
        for item in self._queue:
            if isinstance(item, (TableEvent, TournamentEvent)):
                key = item.table_id if isinstance(item, TableEvent) else ("tournament", item.detail)
                newest.pop(key, None)
                newest[key] = item
            else:
                other = [item]
        self._queue = other + list(newest.values())[-EVENT_QUEUE_MAX:]

    def take(self) -> list[Any]:
        """The events waiting (now none)."""
        items, self._queue = self._queue, []
        return items

    async def next(self, timeout: float | None = None) -> list[Any]:
        """The events waiting, after waiting for one at most ``timeout`` seconds."""
        if not self._queue and not self.ended:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(self._waiter, timeout)
            except TimeoutError:
                return []
            finally:
                self._waiter = None
        return self.take()


class TooManySubscriptions(Exception):
    """No slot for one more stream: ``cap`` names the bound reached (a holder's kind, or
    None for the process's), ``limit`` its value."""

    def __init__(self, cap: str | None = None, limit: int = 0):
        super().__init__(cap or "process", limit)
        self.cap = cap
        self.limit = limit
