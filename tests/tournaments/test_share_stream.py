"""A tournament's share link carries each change of its standings
(``GET /v1/shared/{token}/tournament/events``, app/live): a ``tournament.standings`` event
with the tournament's revision as its id, for that tournament only; Last-Event-ID resumes; a
replaced or unknown token is a 404, and replacing the token ends the open streams. On a real
uvicorn (a stream never ends for a test client)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import Api, new_owner_key
from tests.sse import Event, EventReader
from tests.support.served import served

from .test_api import six_spades

_ONE_ROUND = {
    "convention": "sochi",
    "rounds": 1,
    "game_end": {"kind": "deals", "deals": 1},
    "entrants": ["A", "B", "C"],
}


def _next(r: EventReader) -> Event:
    """The next event that is not about the stream itself."""
    return r.next_table_event(15)


def _quiet(r: EventReader, seconds: float) -> None:
    """No event but the stream's own in ``seconds``."""
    assert [e for e in r.quiet(seconds) if not e.event.startswith("stream.")] == []


def test_the_share_link_stream_carries_its_tournament_standings_only(owner, server):
    t = owner.post("/v1/tournaments", json={"name": "Shared", **_ONE_ROUND}).json()
    other = owner.post("/v1/tournaments", json={"name": "Other", **_ONE_ROUND}).json()
    url = f"{server}/v1/shared/{t['share_token']}/tournament/events"
    r = EventReader(url)
    try:
        assert r.status == 200 and r.content_type.startswith("text/event-stream")
        # the first event: the tournament as it is now (created: revision 0)
        first = _next(r)
        assert first.event == "tournament.standings"
        assert (
            first.data == {"kind": "tournament.standings", "tournament": t["id"], "revision": 0}
            and first.id == "0"
        )

        # another tournament of the same owner moves: nothing on this stream
        owner.post(f"/v1/tournaments/{other['id']}/rounds").raise_for_status()
        _quiet(r, 1.0)

        drawn = owner.post(f"/v1/tournaments/{t['id']}/rounds").json()
        e = _next(r)  # the round drawn: revision 0 -> 1
        assert e.event == "tournament.standings" and e.data == {
            "kind": "tournament.standings",
            "tournament": t["id"],
            "revision": 1,
        }
        assert e.id == "1"

        table = drawn["rounds"][0]["tables"][0]
        assert owner.post(f"/v1/tables/{table['table_id']}/deals", json=six_spades(0)).status_code == 201
        e = _next(r)  # the one deal finished the table: the round closed, the standings moved
        assert e.data["tournament"] == t["id"] and int(e.id) == e.data["revision"] > 1
        assert owner.get(f"/v1/tournaments/{t['id']}").json()["rounds"][0]["status"] == "closed"
        _quiet(r, 0.5)
    finally:
        r.close()


def test_last_event_id_resumes_without_repeating_the_current_revision(owner, server):
    t = owner.post("/v1/tournaments", json={"name": "Resume", **_ONE_ROUND}).json()
    owner.post(f"/v1/tournaments/{t['id']}/rounds").raise_for_status()  # revision 1
    url = f"{server}/v1/shared/{t['share_token']}/tournament/events"
    up_to_date = EventReader(url, {"Last-Event-ID": "1"})
    behind = EventReader(url, {"Last-Event-ID": "0"})
    after = EventReader(f"{url}?after=1")
    try:
        e = _next(behind)  # missed the draw: told at once
        assert e.id == "1" and e.data["revision"] == 1
        _quiet(up_to_date, 0.5)
        _quiet(after, 0.1)
        owner.post(
            f"/v1/tournaments/{t['id']}/adjustments", json={"entrant": 1, "amount": 1, "reason": "fair play"}
        ).raise_for_status()
        for reader in (up_to_date, behind, after):
            e = _next(reader)
            assert e.id == "2" and e.data["revision"] == 2
    finally:
        for reader in (up_to_date, behind, after):
            reader.close()


def test_a_replaced_share_token_ends_the_stream_and_is_not_found(owner, server):
    t = owner.post("/v1/tournaments", json={"name": "Rotated", **_ONE_ROUND}).json()
    old = t["share_token"]
    r = EventReader(f"{server}/v1/shared/{old}/tournament/events")
    try:
        assert _next(r).id == "0"
        new = owner.post(f"/v1/tournaments/{t['id']}/share-token").json()["share_token"]
        assert new != old
        assert r.ended.wait(10), "the old link's stream goes on"
    finally:
        r.close()
    gone = EventReader(f"{server}/v1/shared/{old}/tournament/events")
    assert gone.status == 404 and "problem+json" in gone.content_type
    fresh = EventReader(f"{server}/v1/shared/{new}/tournament/events")
    try:
        assert fresh.status == 200 and _next(fresh).data["tournament"] == t["id"]
    finally:
        fresh.close()


@pytest.mark.parametrize("token", ["x" * 24, "short", "no-such-token-at-all-0000"])
def test_an_unknown_token_is_a_404_problem(client, token):
    r = client.get(f"/v1/shared/{token}/tournament/events")
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/problem+json")


def test_a_change_written_by_another_process_reaches_the_stream_on_the_poll_interval(owner, server, db):
    """A change this process was not told of (another process's write on SQLite, a lost
    notification): the tournament's revision read on the poll interval finds it."""
    from sqlalchemy import update

    from app.tournaments.orm import TournamentRow

    t = owner.post("/v1/tournaments", json={"name": "Elsewhere", **_ONE_ROUND}).json()
    r = EventReader(f"{server}/v1/shared/{t['share_token']}/tournament/events?after=0")
    try:
        _quiet(r, 0.3)
        rows = TournamentRow.__table__
        with db.write() as session:  # no announcement: as another process's write seen from here
            session.execute(update(rows).where(rows.c.id == t["id"]).values(revision=5))
        e = _next(r)
        assert e.id == "5" and e.data == {
            "kind": "tournament.standings",
            "tournament": t["id"],
            "revision": 5,
        }
    finally:
        r.close()


def test_the_stream_is_declared_as_the_other_streams_are(client):
    doc = client.get("/openapi.json").json()
    op = doc["paths"]["/v1/shared/{token}/tournament/events"]["get"]
    assert op["operationId"] == "streamSharedTournamentEvents" and op["security"] == []
    assert list(op["responses"]["200"]["content"]) == ["text/event-stream"]
    assert (
        op["x-event-stream"] is True
        and "curl -N" in op["description"]
        and "Authorization" not in op["description"]
    )
    for code in ("404", "422", "429", "503"):
        assert list(op["responses"][code]["content"]) == ["application/problem+json"], code
    assert {"Last-Event-ID", "after"} <= {p["name"] for p in op["parameters"]}
    event = op["responses"]["200"]["content"]["text/event-stream"]["schema"]
    assert "tournament.standings" in event["properties"]["event"]["enum"]
    assert set(doc["components"]["schemas"]["TournamentChange"]["required"]) == {
        "kind",
        "tournament",
        "revision",
    }


# --- the bounds the other streams have: a share token's cap, the slots given back ---------------

_CAPS = {
    "events_max_per_share_token": 2,
    "events_heartbeat": 600,
    "events_poll_interval": 0.1,
    "events_recheck_interval": 0.3,
}


@pytest.fixture(scope="module")
def capped(settings, db) -> Iterator[tuple[str, object]]:
    from app.main import create_app

    app = create_app(settings.model_copy(update=_CAPS), db=db)
    with served(app, lifespan="on") as url:
        yield url, app


def _wait(check, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_a_share_token_holds_at_most_its_cap_of_streams_and_gets_its_slots_back(
    client, admin_headers, capped
):
    url, app = capped
    name, key = new_owner_key(client, admin_headers)
    with httpx.Client(base_url=url, timeout=20) as c:
        owner = Api(c, key, name)
        t = owner.post("/v1/tournaments", json={"name": "Capped", **_ONE_ROUND}).json()
        other = owner.post("/v1/tournaments", json={"name": "Not capped", **_ONE_ROUND}).json()
    stream = f"{url}/v1/shared/{t['share_token']}/tournament/events"
    readers = [EventReader(stream) for _ in range(2)]
    try:
        assert [r.status for r in readers] == [200, 200]
        refused = EventReader(stream)
        readers.append(refused)
        assert refused.status == 429 and refused.content_type.startswith("application/problem+json")
        assert refused.ended.wait(5)  # the problem read whole
        assert (
            '"cap":"share_token"' in refused.body.replace(" ", "")
            and "PREFSCORE_EVENTS_MAX_PER_SHARE_TOKEN" in refused.body
        )
        assert int(refused.response_headers["retry-after"]) >= 1
        # another tournament's link still gets one
        readers.append(EventReader(f"{url}/v1/shared/{other['share_token']}/tournament/events"))
        assert readers[-1].status == 200
        # a stream that ends gives its slot back
        readers[0].close()
        hub = app.state.live.hub
        _wait(
            lambda: hub.held.get(("share_token", t["share_token"])) == 1,
            "the closed stream's slot was not given back",
        )
        readers.append(EventReader(stream))
        assert readers[-1].status == 200
    finally:
        for r in readers:
            r.close()
    _wait(lambda: hub.count == 0 and not hub._by_tournament, "the streams' slots were not all given back")


# --- the hub alone, with fake reads ------------------------------------------------------------


class _Tournaments:
    def __init__(self) -> None:
        self.rows: dict[str, tuple[int, str]] = {}
        self.reads = 0

    def load(self, ids: list[str]) -> dict[str, tuple[int, str]]:
        self.reads += 1
        return {t: self.rows[t] for t in ids if t in self.rows}


async def _direct(fn, *args):  # noqa: ANN001, ANN002, ANN202
    return fn(*args)


def _follower(hub, tournament: str, token: str):
    from app.live.subscription import Subscription

    sub = Subscription(None, frozenset(), share_token=token, tournament=tournament)
    hub.subscribe(sub)
    return sub


def test_one_read_per_change_for_every_stream_of_a_tournament_and_none_for_another():
    import asyncio

    from app.live.hub import Hub

    async def main() -> None:
        db = _Tournaments()
        db.rows = {"t": (3, "tok"), "u": (7, "other")}
        hub = Hub(lambda ids: {}, lambda tables, owners: {}, _direct, load_tournaments=db.load)
        subs = [_follower(hub, "t", "tok") for _ in range(20)]
        hub.seed_tournament("t", 3)
        hub.changed("u", "anna", 8, "tournament.standings")  # nobody follows u here
        db.rows["t"] = (4, "tok")
        hub.changed("t", "anna", 4, "tournament.standings")
        got = [await s.next(1) for s in subs]
        assert db.reads == 1  # one read of t for its 20 streams, none of u
        assert all([(e.detail, e.revision) for e in g] == [("t", 4)] for g in got)
        # a change announced again (the poll, a second notification) is not sent twice
        hub.changed("t", "anna", 4, "tournament.standings")
        assert await subs[0].next(0.05) == []
        for s in subs:
            hub.unsubscribe(s)
        assert hub.count == 0 and not hub._by_tournament and not hub._tournament_known

    asyncio.run(main())


def test_a_stream_opened_at_a_newer_revision_does_not_hide_it_from_the_others():
    # the older stream was sent revision 3; a change to 4 not yet read when a new stream
    # opens and reads 4: the older stream still gets 4
    import asyncio

    from app.live.hub import Hub

    async def main() -> None:
        db = _Tournaments()
        db.rows = {"t": (3, "tok")}
        hub = Hub(lambda ids: {}, lambda tables, owners: {}, _direct, load_tournaments=db.load)
        old = _follower(hub, "t", "tok")
        hub.seed_tournament("t", 3)
        db.rows["t"] = (4, "tok")  # committed elsewhere, its signal not here yet
        new = _follower(hub, "t", "tok")
        hub.seed_tournament("t", 4)
        assert [(e.revision) for e in await old.next(1)] == [4]
        assert [e.revision for e in await new.next(1)] == [4]  # the stream's own dedupe drops it (router)

    asyncio.run(main())


def test_a_slow_follower_keeps_the_newest_revision():
    # a queue over EVENT_QUEUE_MAX keeps the newest event of each tournament beside the
    # newest notice about the stream: the revision is not lost behind a "stream.resumed"
    from app.events.catalogue import RESUMED
    from app.live.limits import EVENT_QUEUE_MAX
    from app.live.subscription import StreamNotice, Subscription, TournamentEvent

    sub = Subscription(None, frozenset(), tournament="t")
    for revision in range(EVENT_QUEUE_MAX):
        sub.push(TournamentEvent("tournament.standings", "t", revision))
    sub.push(StreamNotice(RESUMED, "back"))  # one more than the queue holds: coalesced
    kept = [(e.kind, getattr(e, "revision", None)) for e in sub._queue]
    assert kept == [(RESUMED, None), ("tournament.standings", EVENT_QUEUE_MAX - 1)]
