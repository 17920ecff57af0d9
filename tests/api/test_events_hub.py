"""The live-update hub alone (app/live/hub.py), with fake reads: one read per change for
all of a table's streams, the kind worked out from the revision column, a slow subscriber
kept to the newest state, a table gone."""

from __future__ import annotations

import asyncio
import json

from app.live.hub import Hub
from app.live.limits import EVENT_QUEUE_MAX as QUEUE_MAX
from app.live.subscription import Current, Subscription, TableEvent


class FakeDatabase:
    def __init__(self) -> None:
        self.tables: dict[str, Current] = {}
        self.reads = 0

    def set(self, table: str, revision: int, deal_count: int) -> None:
        self.tables[table] = Current(
            table, "anna", revision, deal_count, f'"{table}-{revision}"', {"deal_count": deal_count}
        )

    def load_current(self, tables: list[str]) -> dict[str, Current]:
        self.reads += 1
        return {t: self.tables[t] for t in tables if t in self.tables}

    def load_revisions(self, tables: list[str], owners: list[str]) -> dict[str, tuple[str, int, int]]:
        return {
            t: (c.owner, c.revision, c.deal_count)
            for t, c in self.tables.items()
            if t in tables or c.owner in owners
        }


async def _direct(fn, *args):  # noqa: ANN001, ANN002, ANN202
    return fn(*args)


def _hub(db: FakeDatabase) -> Hub:
    return Hub(db.load_current, db.load_revisions, _direct)


def test_one_read_per_change_for_every_stream_of_a_table():
    async def main() -> None:
        db = FakeDatabase()
        db.set("t", 0, 0)
        hub = _hub(db)
        subs = [Subscription(None, frozenset({"t"})) for _ in range(50)]
        for s in subs:
            hub.subscribe(s)
        hub.seed([("t", 0, 0)], "anna")
        db.set("t", 1, 1)
        hub.changed("t", "anna", 1, "deal.posted")
        got = [await s.next(1) for s in subs]
        assert db.reads == 1
        assert all([(e.kind, e.revision) for e in g] == [("deal.posted", 1)] for g in got)
        assert len({id(g[0]) for g in got}) == 1  # the same event object: encoded once

    asyncio.run(main())


def test_the_kind_is_worked_out_from_the_revision_column_when_no_writer_said_it():
    # a correction or a change of the table itself keeps the deal count: only "sheet" is sure
    async def main() -> None:
        db = FakeDatabase()
        db.set("t", 3, 3)
        hub = _hub(db)
        sub = Subscription(None, frozenset({"t"}))
        hub.subscribe(sub)
        hub.seed([("t", 3, 3)], "anna")
        for revision, deal_count, kind in (
            (4, 4, "deal.posted"),
            (5, 3, "deal.undone"),
            (6, 3, "sheet"),
            (8, 4, "sheet"),
        ):
            db.set("t", revision, deal_count)
            await hub.poll()
            [event] = await sub.next(1)
            assert (event.kind, event.revision) == (kind, revision)
        await hub.poll()  # nothing changed: nothing sent, nothing read
        assert await sub.next(0.05) == []

    asyncio.run(main())


def test_a_subscriber_that_does_not_read_has_a_bounded_queue_ending_at_the_newest_state():
    sub = Subscription(None, frozenset({"t"}))
    for revision in range(1, QUEUE_MAX + 10):
        sub.push(TableEvent("deal.posted", "t", revision))
    items = asyncio.run(sub.next(0))
    # beyond QUEUE_MAX waiting, the older ones of a table are dropped: what is left is a
    # short run ending at the newest (a stream only sends revisions above what it sent)
    revisions = [e.revision for e in items]
    assert len(revisions) <= QUEUE_MAX and revisions[-1] == QUEUE_MAX + 9 and revisions[0] > 1
    assert revisions == sorted(revisions)


def test_a_table_gone_is_table_deleted_for_its_streams_and_the_owners():
    async def main() -> None:
        db = FakeDatabase()
        db.set("t", 2, 2)
        hub = _hub(db)
        table_stream, owner_stream = Subscription(None, frozenset({"t"})), Subscription("anna", None)
        hub.subscribe(table_stream)
        hub.subscribe(owner_stream)
        hub.seed([("t", 2, 2)], "anna")
        del db.tables["t"]
        await hub.poll()
        for sub in (table_stream, owner_stream):
            [event] = await sub.next(1)
            assert (event.kind, event.table_id) == ("table.deleted", "t")
        hub.unsubscribe(table_stream)
        hub.unsubscribe(owner_stream)
        assert hub.count == 0 and hub.tables == []

    asyncio.run(main())


def test_a_change_this_process_wrote_is_sent_as_stored_without_a_read():
    """A post hands its hub the table as it stored it (app.events.changes.committed): the
    streams get that state with no read of the database. A signal without it (another
    process's notification) is read; a stale one (its revision already sent) is dropped."""

    async def main() -> None:
        db = FakeDatabase()
        db.set("t", 0, 0)
        hub = Hub(db.load_current, db.load_revisions, _direct, from_stored=lambda stored: stored)
        sub = Subscription(None, frozenset({"t"}))
        hub.subscribe(sub)
        hub.seed([("t", 0, 0)], "anna")
        stored = Current("t", "anna", 1, 1, '"t-1"', {"deal_count": 1})
        hub.changed("t", "anna", 1, "deal.posted", stored)
        got = await sub.next(1)
        assert [(e.kind, e.revision, e.etag, e.sheet) for e in got] == [
            ("deal.posted", 1, '"t-1"', {"deal_count": 1})
        ]
        assert db.reads == 0
        # The same change heard again through the database's notification: already sent.
        hub.changed("t", "anna", 1, "deal.posted")
        assert await sub.next(0.05) == [] and db.reads == 0
        # Another process's change (no stored state): read once.
        db.set("t", 2, 2)
        hub.changed("t", "anna", 2, "deal.posted")
        got = await sub.next(1)
        assert [(e.kind, e.revision) for e in got] == [("deal.posted", 2)] and db.reads == 1

    asyncio.run(main())


def test_the_listener_skips_its_own_processs_notifications():
    """A notification names the process that wrote (app.events.changes.origin): that
    process's listener leaves it, its write was handed over in-process; another process's
    is passed on, and so is one without the member (written by an older version)."""
    from app.events.changes import origin
    from app.live.pg_listener import PgListener

    seen = []

    class Recorder:
        def changed(self, *args):  # noqa: ANN002, ANN202
            seen.append(args)

    listener = PgListener("postgresql://unused", Recorder())  # type: ignore[arg-type]
    listener._note(json.dumps(["t", "anna", 1, "deal.posted", origin()]))
    listener._note(json.dumps(["t", "anna", 2, "deal.posted", "4242-another"]))
    listener._note(json.dumps(["t", "anna", 3, "deal.undone"]))
    listener._note("not json")
    assert seen == [("t", "anna", 2, "deal.posted"), ("t", "anna", 3, "deal.undone")]


def test_a_stored_state_that_cannot_be_shown_is_read_instead():
    async def main() -> None:
        db = FakeDatabase()
        db.set("t", 0, 0)

        def broken(stored):  # noqa: ANN001, ANN202
            raise ValueError("cannot render")

        hub = Hub(db.load_current, db.load_revisions, _direct, from_stored=broken)
        sub = Subscription(None, frozenset({"t"}))
        hub.subscribe(sub)
        hub.seed([("t", 0, 0)], "anna")
        db.set("t", 1, 1)
        hub.changed("t", "anna", 1, "deal.posted", object())
        got = await sub.next(1)
        assert [(e.kind, e.revision) for e in got] == [("deal.posted", 1)] and db.reads == 1

    asyncio.run(main())


def test_each_holder_keeps_at_most_its_cap_and_gets_its_slots_back():
    """Slots are shared fairly: a holder (share token, scorer link, key, client address) at
    its cap is refused with the cap named while every other holder still gets one; a stream
    counts against each of its holders, and ending it gives every slot back (once)."""
    from app.live.subscription import ADDRESS, SHARE_TOKEN, TooManySubscriptions

    hub = _hub(FakeDatabase())
    hub.caps = {SHARE_TOKEN: 2, ADDRESS: 3}

    def stream(token: str, address: str) -> Subscription:
        return Subscription(
            None, frozenset({"t"}), holders=((SHARE_TOKEN, token), (ADDRESS, address)), share_token=token
        )

    a1, a2 = stream("A", "10.0.0.1"), stream("A", "10.0.0.2")
    hub.subscribe(a1)
    hub.subscribe(a2)
    refused = []
    for sub in (
        stream("A", "10.0.0.3"),
        stream("B", "10.0.0.1"),
        stream("C", "10.0.0.1"),
        stream("D", "10.0.0.1"),
    ):
        try:
            hub.subscribe(sub)
        except TooManySubscriptions as e:
            refused.append((e.cap, e.limit))
    # the third of token A; then 10.0.0.1 holds three (A, B, C) and D is refused by address
    assert refused == [(SHARE_TOKEN, 2), (ADDRESS, 3)]
    assert hub.count == 4 and hub.held[(SHARE_TOKEN, "A")] == 2 and hub.held[(ADDRESS, "10.0.0.1")] == 3
    hub.unsubscribe(a1)
    hub.unsubscribe(a1)  # again: nothing more is given back
    assert hub.count == 3 and hub.held[(SHARE_TOKEN, "A")] == 1 and hub.held[(ADDRESS, "10.0.0.1")] == 2
    hub.subscribe(stream("A", "10.0.0.9"))
    hub.unsubscribe(a2)
    assert (SHARE_TOKEN, "A") in hub.held and (ADDRESS, "10.0.0.2") not in hub.held


class FakeLinks:
    def __init__(self) -> None:
        self.revoked: set[int] = set()
        self.lookups: list[list[int]] = []

    def load_revoked(self, link_ids: list[int]) -> set[int]:
        self.lookups.append(sorted(link_ids))
        return {i for i in link_ids if i in self.revoked}


def test_the_streams_of_scorer_links_cost_one_link_lookup_per_change():
    """Every stream opened through a scorer link is sent a change only once the link is seen
    to work: one lookup for all the streams of all the links, not one per stream; a revoked
    link's streams end and are sent nothing."""

    async def main() -> None:
        db, links = FakeDatabase(), FakeLinks()
        db.set("t", 0, 0)
        hub = Hub(db.load_current, db.load_revisions, _direct, load_revoked_links=links.load_revoked)
        first = [Subscription(None, frozenset({"t"}), link_id=1) for _ in range(40)]
        second = [Subscription(None, frozenset({"t"}), link_id=2) for _ in range(10)]
        keyed = Subscription(None, frozenset({"t"}), key_id=9)
        for sub in (*first, *second, keyed):
            hub.subscribe(sub)
        hub.seed([("t", 0, 0)], "anna")
        db.set("t", 1, 1)
        hub.changed("t", "anna", 1, "deal.posted")
        for sub in (*first, *second, keyed):
            assert [(e.kind, e.revision) for e in await sub.next(1)] == [("deal.posted", 1)]
        assert links.lookups == [[1, 2]]

        links.revoked.add(1)  # a revocation is a change of the table
        db.set("t", 2, 1)
        hub.changed("t", "anna", 2, "sheet")
        for sub in second:
            assert [e.revision for e in await sub.next(1)] == [2]
        assert len(links.lookups) == 2
        for sub in first:
            assert sub.ended and await sub.next(0) == []
        assert not keyed.ended

        # revoked without a change of the table (by hand): the periodic check ends them
        links.revoked.add(2)
        await hub.check_keys()
        assert all(sub.ended for sub in second) and len(links.lookups) == 3

    asyncio.run(main())


def test_a_stream_of_a_replaced_share_link_ends_at_the_change():
    async def main() -> None:
        db = FakeDatabase()
        db.tables["t"] = Current("t", "anna", 0, 0, '"t-0"', {}, share_token="old")
        hub = _hub(db)
        old, keyed = (
            Subscription(None, frozenset({"t"}), share_token="old"),
            Subscription(None, frozenset({"t"})),
        )
        hub.subscribe(old)
        hub.subscribe(keyed)
        hub.seed([("t", 0, 0)], "anna")
        db.tables["t"] = Current("t", "anna", 1, 0, '"t-1"', {}, share_token="new")
        hub.changed("t", "anna", 1, "table.renamed")
        assert [e.kind for e in await keyed.next(1)] == ["table.renamed"]
        assert old.ended and await old.next(0) == []

    asyncio.run(main())
