"""The per-process hub of live updates: which open streams watch which tables, and the fan-out
of each change to them.

A change is only a signal ("table T may be at revision R now"); the hub then reads the
current state of the tables that changed, in one read for all of them, and hands the same
event to every stream of those tables. So the database work per change is one read per
process, however many viewers the table has, and a stream that missed a signal (an outage,
another process on SQLite) still gets the current state: the revision is read again, never
taken from the signal.

The streams opened through a scorer link get a change only once the hub has looked the link
up, in one read for every link with a change waiting (not one per stream); a revoked link's
streams end instead. Slots are shared fairly: besides the process's bound, each holder of
streams (a key, a share token, a scorer link, a client address without a key) keeps at most
its cap (``Hub.caps``); a stream gives its slots back when it ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from app.events.catalogue import INTERRUPTED, RESUMED, STANDINGS, TOURNAMENT_KINDS
from app.live.subscription import (
    Current,
    Holder,
    StreamNotice,
    Subscription,
    TableEvent,
    TooManySubscriptions,
    TournamentEvent,
)

log = logging.getLogger("prefscore.events")

# Reads the hub makes in the thread pool: the current state of some tables (absent: gone),
# and the (owner, revision, deal_count) of some tables and of every table of some owners.
LoadCurrent = Callable[[list[str]], dict[str, Current]]
LoadRevisions = Callable[[list[str], list[str]], dict[str, tuple[str, int, int]]]
# Of some stored keys (scorer links), those that no longer work (revoked, gone).
LoadRevoked = Callable[[list[int]], set[int]]
# (revision, share_token) of some tournaments (absent: gone).
LoadTournaments = Callable[[list[str]], dict[str, tuple[int, str]]]
# A table as the write that changed it stored it (app.events.changes.committed), as its
# streams show it.
FromStored = Callable[[Any], Current]
RunSync = Callable[..., Awaitable[Any]]


class Hub:
    def __init__(
        self,
        load_current: LoadCurrent,
        load_revisions: LoadRevisions,
        run_sync: RunSync,
        *,
        load_revoked: LoadRevoked | None = None,
        load_revoked_links: LoadRevoked | None = None,
        from_stored: FromStored | None = None,
        load_tournaments: LoadTournaments | None = None,
        max_subscriptions: int = 10_000,
        caps: dict[str, int] | None = None,
    ):
        self._load_current = load_current
        self._from_stored = from_stored
        self._load_revisions = load_revisions
        self._load_revoked = load_revoked
        self._load_revoked_links = load_revoked_links
        self._load_tournaments = load_tournaments
        self._run_sync = run_sync
        self.max_subscriptions = max_subscriptions
        # streams one holder may keep open, by the holder's kind (absent or 0: no cap)
        self.caps: dict[str, int] = dict(caps or {})
        self.held: dict[Holder, int] = {}  # holder -> its streams open now
        self._by_table: dict[str, set[Subscription]] = {}
        self._by_owner: dict[str, set[Subscription]] = {}
        self._by_key: dict[int, set[Subscription]] = {}
        self._by_link: dict[int, set[Subscription]] = {}
        # events for the streams of scorer links, until the links are seen to work
        self._held_back: dict[int, list[tuple[Subscription, Any]]] = {}
        self._link_checker: asyncio.Task[None] | None = None
        self._known: dict[str, tuple[int, int]] = {}  # table -> (revision, deal_count) last sent
        self._owner_of: dict[str, str] = {}  # table -> owner, for the tables known
        self._hints: dict[tuple[str, int], str] = {}  # (table, revision) -> the kind its writer announced
        self._dirty: set[str] = set()
        self._refresher: asyncio.Task[None] | None = None
        # the tournaments whose share links have streams: the revision last sent, and those to read again
        self._by_tournament: dict[str, set[Subscription]] = {}
        self._tournament_known: dict[str, int] = {}
        self._tournaments_dirty: set[str] = set()
        self._tournament_refresher: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.count = 0
        self.interrupted = False
        self.listener_down = False  # set by the PostgreSQL listener while it reconnects

    # --- subscribers

    def subscribe(self, sub: Subscription) -> None:
        """Take a slot for ``sub`` (TooManySubscriptions: none left, for the process or for
        one of its holders; nothing is taken then)."""
        if sub._subscribed:
            return
        if self.count >= self.max_subscriptions:
            raise TooManySubscriptions(None, self.max_subscriptions)
        for holder in sub.holders:
            cap = self.caps.get(holder[0], 0)
            if cap > 0 and self.held.get(holder, 0) >= cap:
                raise TooManySubscriptions(holder[0], cap)
        sub._subscribed = True
        self.count += 1
        for holder in sub.holders:
            self.held[holder] = self.held.get(holder, 0) + 1
        if sub.key_id is not None:
            self._by_key.setdefault(sub.key_id, set()).add(sub)
        if sub.link_id is not None:
            self._by_link.setdefault(sub.link_id, set()).add(sub)
        if sub.tournament is not None:
            self._by_tournament.setdefault(sub.tournament, set()).add(sub)
        if sub.tables is None:
            assert sub.owner is not None
            self._by_owner.setdefault(sub.owner, set()).add(sub)
        else:
            for table in sub.tables:
                self._by_table.setdefault(table, set()).add(sub)

    def unsubscribe(self, sub: Subscription) -> None:
        """Give the slot back (again: nothing happens)."""
        if not sub._subscribed:
            return
        sub._subscribed = False
        self.count -= 1
        for holder in sub.holders:
            left = self.held.get(holder, 0) - 1
            if left > 0:
                self.held[holder] = left
            else:
                self.held.pop(holder, None)
        keyed = self._by_key.get(sub.key_id) if sub.key_id is not None else None
        if keyed is not None:
            keyed.discard(sub)
            if not keyed:
                del self._by_key[sub.key_id]  # type: ignore[arg-type]
        linked = self._by_link.get(sub.link_id) if sub.link_id is not None else None
        if linked is not None:
            linked.discard(sub)
            if not linked:
                del self._by_link[sub.link_id]  # type: ignore[arg-type]
        followers = self._by_tournament.get(sub.tournament) if sub.tournament is not None else None
        if followers is not None:
            followers.discard(sub)
            if not followers:
                del self._by_tournament[sub.tournament]  # type: ignore[arg-type]
                self._tournament_known.pop(sub.tournament, None)  # type: ignore[arg-type]
        if sub.tables is None:
            subs = self._by_owner.get(sub.owner or "")
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._by_owner[sub.owner or ""]
                    for table, owner in list(self._owner_of.items()):
                        if owner == sub.owner and table not in self._by_table:
                            self._forget(table)
        else:
            for table in sub.tables:
                subs = self._by_table.get(table)
                if subs is not None:
                    subs.discard(sub)
                    if not subs:
                        del self._by_table[table]
                        if self._owner_of.get(table) not in self._by_owner:
                            self._forget(table)

    def _forget(self, table: str) -> None:
        self._known.pop(table, None)
        self._owner_of.pop(table, None)

    def seed(self, currents: Iterable[tuple[str, int, int]], owner: str | None = None) -> None:
        """What a new stream has just read: (table, revision, deal_count)."""
        for table, revision, deal_count in currents:
            if table not in self._known or self._known[table][0] < revision:
                self._known[table] = (revision, deal_count)
            if owner is not None:
                self._owner_of[table] = owner

    def seed_tournament(self, tournament: str, revision: int) -> None:
        """What a new stream of the tournament's share link has just read. A revision newer
        than the one its other streams were sent is read again for them (not taken as sent)."""
        known = self._tournament_known.get(tournament)
        if known is None:
            self._tournament_known[tournament] = revision
        elif known < revision:
            self._tournaments_dirty.add(tournament)
            self._kick_tournaments()

    @property
    def tables(self) -> list[str]:
        return list(set(self._by_table) | set(self._known))

    @property
    def owners(self) -> list[str]:
        return list(self._by_owner)

    def _watched(self, table: str, owner: str | None) -> bool:
        return (
            table in self._by_table or table in self._known or (owner is not None and owner in self._by_owner)
        )

    # --- signals

    def changed(
        self,
        table: str,
        owner: str | None = None,
        revision: int | None = None,
        kind: str | None = None,
        stored: Any = None,
    ) -> None:
        """A signal (on the loop): ``table`` may have changed. Its state is read again, unless
        the write that changed it is this process's and handed over what it stored
        (``stored``, committed at ``revision``): that is sent as it is. A tournament's change
        (``kind`` in TOURNAMENT_KINDS; ``table`` is then the tournament) goes to its owner's
        owner-wide streams as it is."""
        if kind in TOURNAMENT_KINDS:
            event = TournamentEvent(kind, table, revision or 0)
            for sub in self._by_owner.get(owner or "", ()):
                self._send(sub, event)
            if table in self._by_tournament and (
                revision is None or revision > self._tournament_known.get(table, -1)
            ):
                self._tournaments_dirty.add(table)
                self._kick_tournaments()
            return
        if not self._watched(table, owner):
            return
        known = self._known.get(table)
        if revision is not None and known is not None and revision <= known[0]:
            return
        if revision is not None and kind is not None:
            if len(self._hints) > 10_000:
                self._hints.clear()
            self._hints[(table, revision)] = kind
        if stored is not None and self._from_stored is not None:
            try:
                current = self._from_stored(stored)
            except Exception:  # noqa: BLE001 - then read it, as another process's change
                log.exception(
                    "live updates: the stored state of table %s could not be shown; reading it", table
                )
            else:
                self._deliver(table, current)
                return
        self._dirty.add(table)
        self._kick()

    def changed_threadsafe(
        self, table: str, owner: str, revision: int, kind: str, stored: Any = None
    ) -> None:
        """``changed`` from a writer's thread (app.events.changes's sink)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.changed, table, owner, revision, kind, stored)

    def revisions_seen(self, rows: dict[str, tuple[str, int, int]], asked: Iterable[str]) -> None:
        """The revision column as just read (the SQLite watcher, a resumed listener): every
        table whose revision is not the one last sent is read again, a table gone ends."""
        for table in asked:
            if table not in rows and self._watched(table, None):
                self._dirty.add(table)
        for table, (owner, revision, deal_count) in rows.items():
            known = self._known.get(table)
            self._owner_of[table] = owner
            if known is None:
                if table in self._by_table or revision == 0:
                    self._known.setdefault(table, (revision, deal_count))
                    continue
                self._dirty.add(table)  # a table of a watched owner, new to this process
            elif known[0] != revision:
                self._dirty.add(table)
        self._kick()

    async def poll(self) -> None:
        """One read of the revision column of every watched table (and every table of the
        owners watched whole), then ``revisions_seen``."""
        tables, owners = self.tables, self.owners
        if tables or owners:
            rows = await self._run_sync(self._load_revisions, tables, owners)
            self.revisions_seen(rows, tables)
        if self._by_tournament and self._load_tournaments is not None:
            watched = list(self._by_tournament)
            self._tournaments_seen(watched, await self._run_sync(self._load_tournaments, watched))

    # --- keys

    def key_revoked(self, key_id: int) -> None:
        """End every stream opened with the stored key ``key_id``."""
        for sub in self._by_key.get(key_id, ()):
            sub.end()

    def key_revoked_threadsafe(self, key_id: int) -> None:
        """``key_revoked`` from a request's thread (the process that revoked the key)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.key_revoked, key_id)

    async def check_keys(self) -> None:
        """One read of whether the keys of the open keyed streams still work, and one of the
        scorer links of the open link streams; the streams of a revoked one end (however it
        was revoked, by whichever process, even without a change of its table)."""
        if self._by_key and self._load_revoked is not None:
            for key_id in await self._run_sync(self._load_revoked, list(self._by_key)):
                self.key_revoked(key_id)
        if self._by_link and self._load_revoked_links is not None:
            for link_id in await self._run_sync(self._load_revoked_links, list(self._by_link)):
                self.link_revoked(link_id)

    # --- scorer links

    def link_revoked(self, link_id: int) -> None:
        """End every stream opened through the scorer link ``link_id``; what was held back for
        them is dropped."""
        self._held_back.pop(link_id, None)
        for sub in self._by_link.get(link_id, ()):
            sub.end()

    def _send(self, sub: Subscription, item: Any) -> None:
        """``item`` to ``sub``; to a scorer link's stream only once the link is seen to work."""
        if sub.link_id is None or self._load_revoked_links is None:
            sub.push(item)
            return
        self._held_back.setdefault(sub.link_id, []).append((sub, item))
        if self._link_checker is None or self._link_checker.done():
            self._link_checker = asyncio.get_running_loop().create_task(self._release_held_back())

    async def _release_held_back(self) -> None:
        """One lookup of every scorer link with events waiting (however many streams each has
        and however many events wait), then the events of the links that work are sent and
        the streams of the others end. Events that arrive meanwhile wait for the next lookup."""
        assert self._load_revoked_links is not None
        while self._held_back:
            held, self._held_back = self._held_back, {}
            try:
                revoked = await self._run_sync(self._load_revoked_links, list(held))
            except Exception as exc:  # noqa: BLE001  (the database is away: look again shortly)
                log.warning("live updates: could not read the scorer links of %d streams: %s", len(held), exc)
                for link_id, items in held.items():
                    if link_id in self._by_link:
                        self._held_back[link_id] = items + self._held_back.get(link_id, [])
                await asyncio.sleep(1.0)
                continue
            for link_id, items in held.items():
                if link_id in revoked:
                    self.link_revoked(link_id)
                    continue
                for sub, item in items:
                    if sub._subscribed and not sub.ended:
                        sub.push(item)

    def notice(self, kind: str, detail: str) -> None:
        """Tell every stream (the database connection lost or regained)."""
        item = StreamNotice(kind, detail)
        for subs in (*self._by_table.values(), *self._by_owner.values(), *self._by_tournament.values()):
            for sub in subs:
                sub.push(item)

    def outage(self, detail: str) -> None:
        if not self.interrupted:
            self.interrupted = True
            self.notice(INTERRUPTED, detail)

    def recovered(self) -> None:
        """The database is back: every watched table is read again (nothing lost)."""
        if self.interrupted:
            self.interrupted = False
            self.notice(RESUMED, "the database connection is back; changes since are sent")
        self._dirty.update(self.tables)
        self._kick()
        self._tournaments_dirty.update(self._by_tournament)
        self._kick_tournaments()

    # --- fan-out

    def _kick(self) -> None:
        if self._dirty and (self._refresher is None or self._refresher.done()):
            self._refresher = asyncio.get_running_loop().create_task(self._refresh())

    async def _refresh(self) -> None:
        while self._dirty:
            batch = list(self._dirty)
            self._dirty.clear()
            try:
                currents = await self._run_sync(self._load_current, batch)
            except Exception as exc:  # noqa: BLE001  (the database is away: read again when it is back)
                log.warning("live updates: could not read %d changed tables: %s", len(batch), exc)
                self._dirty.update(batch)
                self.outage("the database cannot be read; the stream resumes when it can")
                await asyncio.sleep(1.0)
                continue
            if self.interrupted and not self.listener_down:
                self.interrupted = False
                self.notice(RESUMED, "the database can be read again; changes since are sent")
            for table in batch:
                self._deliver(table, currents.get(table))

    def _deliver(self, table: str, current: Current | None) -> None:
        if current is None:
            known = self._known.get(table)
            owner = self._owner_of.get(table)
            self._forget(table)
            event = TableEvent("table.deleted", table, (known[0] + 1) if known else 0)
            for sub in (*self._by_table.get(table, ()), *self._by_owner.get(owner or "", ())):
                self._send(sub, event)
            return
        known = self._known.get(table)
        if known is not None and current.revision <= known[0]:
            return
        kind = self._hints.pop((table, current.revision), None)
        if kind is None:
            kind = "sheet"
            # No writer said what it was (another process on SQLite, a resumed listener): one
            # deal more or less is a post or an undo; anything else (a correction, a change of
            # the table itself) is only the current state.
            if known is not None and current.revision == known[0] + 1:
                kind = {1: "deal.posted", -1: "deal.undone"}.get(current.deal_count - known[1], "sheet")
        self._known[table] = (current.revision, current.deal_count)
        self._owner_of[table] = current.owner
        event = TableEvent.of(kind, current)
        for sub in self._by_table.get(table, ()):
            if (
                sub.share_token is not None
                and current.share_token is not None
                and current.share_token != sub.share_token
            ):
                sub.end()  # opened through a share link replaced since: the old link stops at once
                continue
            self._send(sub, event)
        for sub in self._by_owner.get(current.owner, ()):
            self._send(sub, event)

    # --- the streams of tournaments' share links

    def _kick_tournaments(self) -> None:
        if (
            self._tournaments_dirty
            and self._load_tournaments is not None
            and (self._tournament_refresher is None or self._tournament_refresher.done())
        ):
            self._tournament_refresher = asyncio.get_running_loop().create_task(self._refresh_tournaments())

    async def _refresh_tournaments(self) -> None:
        """One read of every tournament that changed (however many streams follow it)."""
        assert self._load_tournaments is not None
        while self._tournaments_dirty:
            batch = [t for t in self._tournaments_dirty if t in self._by_tournament]
            self._tournaments_dirty.clear()
            if not batch:
                return
            try:
                rows = await self._run_sync(self._load_tournaments, batch)
            except Exception as exc:  # noqa: BLE001  (the database is away: read again when it is back)
                log.warning("live updates: could not read %d changed tournaments: %s", len(batch), exc)
                self._tournaments_dirty.update(batch)
                self.outage("the database cannot be read; the stream resumes when it can")
                await asyncio.sleep(1.0)
                continue
            self._tournaments_seen(batch, rows)

    def _tournaments_seen(self, asked: Iterable[str], rows: dict[str, tuple[int, str]]) -> None:
        """The tournaments as just read: a newer revision is sent to their share links'
        streams; a stream whose share token was replaced, or whose tournament is gone, ends."""
        for tournament in asked:
            found = rows.get(tournament)
            followers = list(self._by_tournament.get(tournament, ()))
            if found is None:
                for sub in followers:
                    sub.end()
                continue
            revision, share_token = found
            event = None
            if revision > self._tournament_known.get(tournament, -1):
                self._tournament_known[tournament] = revision
                event = TournamentEvent(STANDINGS, tournament, revision)
            for sub in followers:
                if sub.share_token is not None and sub.share_token != share_token:
                    sub.end()  # the link was replaced: the old one stops at once
                elif event is not None:
                    sub.push(event)
