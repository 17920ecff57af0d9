"""Server-sent events (app/live/router.py, app/events): the streams of one table by key
and by share link, and the owner-wide stream, on a real uvicorn (a test client would wait for
the end of a stream that never ends)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import Api, new_owner_key
from tests.sse import EventReader
from tests.support.served import served

DEAL = {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}}
DEAL2 = {"type": "contract", "declarer": 2, "contract": "6S", "defenders": {"0": "pass", "1": "pass"}}


@pytest.fixture(scope="module")
def server(settings, db) -> Iterator[str]:
    from app.main import create_app

    app = create_app(
        settings.model_copy(
            update={"events_heartbeat": 0.5, "events_poll_interval": 0.1, "events_recheck_interval": 0.3}
        ),
        db=db,
    )
    with served(app, lifespan="on") as url:
        yield url


def test_a_table_stream_starts_with_the_sheet_then_sends_each_change(owner, server, readers):
    table = owner.table()
    tid = table["id"]
    r = EventReader(f"{server}/v1/tables/{tid}/events", owner.headers)
    readers.append(r)
    assert r.status == 200 and r.content_type.startswith("text/event-stream")
    first = r.next()
    assert (first.event, first.id) == ("sheet", "0")
    assert first.data["sheet"]["deal_count"] == 0 and first.data["table"] == tid

    posted = owner.post(f"/v1/tables/{tid}/deals", json=DEAL)
    e = r.next()
    assert (e.event, e.id) == ("deal.posted", "1")
    # the same sheet and ETag as GET /sheet answers now
    sheet = owner.get(f"/v1/tables/{tid}/sheet")
    assert (
        e.data["sheet"] == sheet.json() and e.data["etag"] == sheet.headers["ETag"] == posted.headers["ETag"]
    )

    owner.post(f"/v1/tables/{tid}/deals", json=DEAL2)
    assert r.next().event == "deal.posted"
    assert owner.put(f"/v1/tables/{tid}/deals/1", json={**DEAL, "contract": "7S"}).status_code == 200
    e = r.next()
    assert (e.event, e.id, e.data["sheet"]["deal_count"]) == ("deal.corrected", "3", 2)
    assert owner.delete(f"/v1/tables/{tid}/deals/2").status_code == 200
    e = r.next()
    assert (e.event, e.id, e.data["sheet"]["deal_count"]) == ("deal.undone", "4", 1)


def test_a_deal_posted_through_this_process_is_sent_without_reading_the_table_back(
    owner, server, readers, monkeypatch
):
    """The post hands the hub the table as it stored it: the event carries the sheet GET
    answers, and the hub makes no read of the table for it (the database's own notification
    of the same post, on PostgreSQL, is recognised as already sent)."""
    from app.live import reads

    table = owner.table()
    tid = table["id"]
    r = EventReader(f"{server}/v1/tables/{tid}/events", owner.headers)
    readers.append(r)
    assert r.next().event == "sheet"
    asked: list[list[str]] = []
    real = reads.get_tables

    def counting(db, table_ids):  # noqa: ANN001, ANN202
        asked.append(list(table_ids))
        return real(db, table_ids)

    monkeypatch.setattr(reads, "get_tables", counting)
    posted = owner.post(f"/v1/tables/{tid}/deals", json=DEAL)
    e = r.next()
    assert (e.event, e.id) == ("deal.posted", "1")
    sheet = owner.get(f"/v1/tables/{tid}/sheet")
    assert e.data["sheet"] == sheet.json() and e.data["etag"] == posted.headers["ETag"]
    time.sleep(0.5)  # longer than the revision watcher's interval here (0.1 s, 0.3 s)
    assert [ids for ids in asked if tid in ids] == []


def test_the_shared_stream_is_the_same_without_a_key(owner, server, readers):
    table = owner.table()
    r = EventReader(f"{server}/v1/shared/{table['share_token']}/events")
    readers.append(r)
    assert r.next().event == "sheet"
    owner.post(f"/v1/tables/{table['id']}/deals", json=DEAL)
    e = r.next()
    assert e.event == "deal.posted" and e.data["sheet"]["deal_count"] == 1


def test_resume_after_missing_deals_gets_the_current_state_at_once(owner, server, readers):
    tid = owner.table()["id"]
    r = EventReader(f"{server}/v1/tables/{tid}/events", owner.headers)
    readers.append(r)
    assert r.next().id == "0"
    r.close()
    for body in (DEAL, DEAL2, {**DEAL, "declarer": 0, "defenders": {"1": "pass", "2": "pass"}}):
        assert owner.post(f"/v1/tables/{tid}/deals", json=body).status_code == 201
    again = EventReader(f"{server}/v1/tables/{tid}/events", {**owner.headers, "Last-Event-ID": "0"})
    readers.append(again)
    e = again.next(timeout=2)
    assert (e.event, e.id, e.data["sheet"]["deal_count"]) == ("sheet", "3", 3)
    # up to date: nothing more until the next change
    current = EventReader(f"{server}/v1/tables/{tid}/events?after=3", owner.headers)
    readers.append(current)
    assert [x for x in current.quiet(0.8) if not x.event.startswith("stream.")] == []
    owner.post(f"/v1/tables/{tid}/deals", json=DEAL2)
    assert current.next().id == "4"


def test_heartbeat_comments_keep_an_idle_stream_open(owner, server, readers):
    tid = owner.table()["id"]
    r = EventReader(f"{server}/v1/tables/{tid}/events?after=0", owner.headers)
    readers.append(r)
    time.sleep(1.3)  # the heartbeat of this server: 0.5 s
    assert any(c.startswith("ping") for c in r.comments), r.comments
    assert r.response_headers.get("cache-control") == "no-cache"
    assert r.response_headers.get("x-accel-buffering") == "no"


def test_the_owner_wide_stream_carries_every_table_of_the_owner(owner, server, readers):
    a, b = owner.table()["id"], owner.table()["id"]
    r = EventReader(f"{server}/v1/events", owner.headers)
    readers.append(r)
    time.sleep(0.2)  # the stream is open (it sends nothing first): no deal is posted before it
    owner.post(f"/v1/tables/{b}/deals", json=DEAL)
    owner.post(f"/v1/tables/{a}/deals", json=DEAL)
    got = [r.next_table_event() for _ in range(2)]
    # in either order: two changes seen together are read (and sent) as one batch
    assert sorted((e.event, e.id) for e in got) == sorted(
        [("deal.posted", f"{b}:1"), ("deal.posted", f"{a}:1")]
    )
    c = owner.table()["id"]  # a table made after the stream opened
    owner.post(f"/v1/tables/{c}/deals", json=DEAL)
    e = r.next_table_event()
    if e.data["revision"] == 0:
        # The post's own signal reached this process's hub just before its COMMIT
        # (app/events/changes.py): read too early, a table new to the hub is sent as it was
        # at creation; the notification of the commit follows.
        e = r.next_table_event()
    assert e.data["table"] == c and e.data["sheet"]["deal_count"] == 1


def test_the_owner_wide_stream_filtered_by_tables(owner, server, readers):
    a, b = owner.table()["id"], owner.table()["id"]
    r = EventReader(f"{server}/v1/events?tables={a}", owner.headers)
    readers.append(r)
    first = r.next()
    assert (first.event, first.id) == ("sheet", f"{a}:0")
    owner.post(f"/v1/tables/{b}/deals", json=DEAL)
    owner.post(f"/v1/tables/{a}/deals", json=DEAL)
    e = r.next_table_event()
    assert (e.event, e.id) == ("deal.posted", f"{a}:1")


def test_another_owners_table_and_bad_requests_are_problems(owner, client, admin_headers, server):
    _name, other_key = new_owner_key(client, admin_headers)
    tid = owner.table()["id"]
    with httpx.Client(base_url=server, timeout=10) as c:
        for url, headers, status in (
            (f"/v1/tables/{tid}/events", {"Authorization": f"Bearer {other_key}"}, 404),
            (f"/v1/tables/{tid}/events", {}, 401),
            ("/v1/tables/nope/events", owner.headers, 404),
            ("/v1/shared/not-a-token-at-all/events", {}, 404),
            (f"/v1/events?tables={tid}", {"Authorization": f"Bearer {other_key}"}, 404),
            ("/v1/events?tables=,", owner.headers, 422),
            (f"/v1/tables/{tid}/events?after=-1", owner.headers, 422),
        ):
            r = c.get(url, headers=headers)
            assert r.status_code == status, (url, r.text)
            assert r.headers["content-type"].startswith("application/problem+json"), url


def test_a_table_that_disappears_ends_its_streams(owner, server, readers, db):
    # Tables cannot be deleted through the API yet: the row is deleted directly, and the
    # revision watcher (every 0.1 s on SQLite, 0.3 s under LISTEN here) finds it gone.
    from sqlalchemy import delete

    from app.tables.orm import TableRow

    table = owner.table()
    keyed = EventReader(f"{server}/v1/tables/{table['id']}/events?after=0", owner.headers)
    shared = EventReader(f"{server}/v1/shared/{table['share_token']}/events?after=0")
    readers += [keyed, shared]
    time.sleep(0.2)
    with db.write() as session:
        session.execute(delete(TableRow).where(TableRow.id == table["id"]))
    for r in (keyed, shared):
        e = r.next_table_event(timeout=5)
        assert e.event == "table.deleted" and e.data["table"] == table["id"]
        assert r.ended.wait(5), "the stream did not end"


def test_too_many_streams_is_503(owner, server, readers):
    from app.live import router as events

    tid = owner.table()["id"]
    r = EventReader(f"{server}/v1/tables/{tid}/events", owner.headers)
    readers.append(r)
    r.next()
    # the server's hub is in this process: lower its bound to what is open now
    hubs = [h for h in _hubs(events)]
    assert hubs
    saved = [(h, h.max_subscriptions) for h in hubs]
    try:
        for h in hubs:
            h.max_subscriptions = h.count
        refused = owner.get(f"/v1/tables/{tid}/events")
        assert refused.status_code == 503 and refused.headers["content-type"].startswith(
            "application/problem+json"
        )
    finally:
        for h, m in saved:
            h.max_subscriptions = m


def _hubs(events_module):
    import gc

    from app.live.hub import Hub

    return [o for o in gc.get_objects() if isinstance(o, Hub) and o.count > 0]


def test_the_streams_are_declared_in_the_openapi_document(client):
    doc = client.get("/openapi.json").json()
    expected = {
        "/v1/tables/{table_id}/events": ("streamTableEvents", {"401", "404", "422", "503"}),
        "/v1/shared/{token}/events": ("streamSharedEvents", {"404", "422", "503"}),
        "/v1/events": ("streamOwnerEvents", {"401", "404", "422", "503"}),
    }
    for path, (operation_id, errors) in expected.items():
        op = doc["paths"][path]["get"]
        assert op["operationId"] == operation_id
        assert list(op["responses"]["200"]["content"]) == ["text/event-stream"], path
        assert errors <= set(op["responses"]), path
        for code in errors:
            assert list(op["responses"][code]["content"]) == ["application/problem+json"], (path, code)
        assert "Last-Event-ID" in {p["name"] for p in op["parameters"]}, path
    assert doc["paths"]["/v1/shared/{token}/events"]["get"]["security"] == []


def test_rename_archive_and_delete_through_the_api_reach_the_streams(owner, server, readers):
    table = owner.table()
    tid = table["id"]
    keyed = EventReader(f"{server}/v1/tables/{tid}/events?after=0", owner.headers)
    shared = EventReader(f"{server}/v1/shared/{table['share_token']}/events?after=0")
    readers += [keyed, shared]
    time.sleep(0.2)
    patch = owner.client.patch
    changes = [
        (
            "table.renamed",
            lambda: patch(
                f"/v1/tables/{tid}", json={"players": ["Anna", "Boris", "Vera K."]}, headers=owner.headers
            ),
        ),
        (
            "table.archived",
            lambda: patch(f"/v1/tables/{tid}", json={"archived": True}, headers=owner.headers),
        ),
        ("table.deleted", lambda: owner.delete(f"/v1/tables/{tid}")),
    ]
    for kind, change in changes:  # one at a time: the hub may fold changes that come together
        assert change().status_code in (200, 204)
        for r in (keyed, shared):
            assert r.next_table_event(timeout=5).event == kind
    for r in (keyed, shared):
        assert r.ended.wait(5), "the stream did not end"


def test_a_new_share_token_ends_the_streams_of_the_old_link(owner, server, readers):
    table = owner.table()
    keyed = EventReader(f"{server}/v1/tables/{table['id']}/events?after=0", owner.headers)
    old = EventReader(f"{server}/v1/shared/{table['share_token']}/events?after=0")
    readers += [keyed, old]
    time.sleep(0.2)
    assert owner.post(f"/v1/tables/{table['id']}/share-token").status_code == 200
    assert old.ended.wait(5), "the old link's stream goes on"
    assert keyed.next_table_event(timeout=5).event == "table.renamed" and not keyed.ended.is_set()


def _key_id(client, admin_headers, key: str) -> int:
    (found,) = [
        k["id"]
        for k in client.get("/v1/keys", headers=admin_headers).json()["items"]
        if key.startswith(k["prefix"])
    ]
    return found


def _streams(server: str, key: str, table: dict) -> list[EventReader]:
    """A table's keyed stream and the owner-wide one, opened with ``key``, each past its start."""
    headers = {"Authorization": f"Bearer {key}"}
    keyed = EventReader(f"{server}/v1/tables/{table['id']}/events", headers)
    assert keyed.next().event == "sheet"
    owner_wide = EventReader(f"{server}/v1/events?tables={table['id']}", headers)
    assert owner_wide.next().event == "sheet"
    return [keyed, owner_wide]


def test_the_streams_of_a_key_revoked_elsewhere_end_within_the_heartbeat(
    owner, server, readers, client, admin_headers, db
):
    from sqlalchemy import update

    from app.keys.orm import ApiKey
    from app.kit.db.models import utcnow

    table = owner.table()
    second = client.post("/v1/keys", json={"owner": owner.owner}, headers=admin_headers).json()["key"]
    doomed = _streams(server, owner.key, table)
    kept = _streams(server, second, table)
    shared = EventReader(f"{server}/v1/shared/{table['share_token']}/events")
    readers += [*doomed, *kept, shared]
    assert shared.next().event == "sheet"
    # Revoked by another process (`prefscore keys revoke`, another replica): only the
    # database knows. This server reads its open streams' keys every heartbeat (0.5 s here).
    with db.write() as session:
        session.execute(
            update(ApiKey)
            .where(ApiKey.id == _key_id(client, admin_headers, owner.key))
            .values(revoked_at=utcnow())
        )
    for r in doomed:
        assert r.ended.wait(10), r.url
    # the server forgot the key's cached answer with it: a new stream is refused at once
    again = EventReader(f"{server}/v1/tables/{table['id']}/events", owner.headers)
    readers.append(again)
    assert again.status == 401
    # the other key's streams and the share link's go on
    owner.headers = {"Authorization": f"Bearer {second}"}
    owner.post(f"/v1/tables/{table['id']}/deals", json=DEAL)
    for r in (*kept, shared):
        assert r.next_table_event().event == "deal.posted", r.url


def test_the_streams_of_a_key_revoked_through_this_server_end_at_once(settings, db, client, admin_headers):
    from app.main import create_app

    # A heartbeat of 10 minutes: only the revocation itself can end the streams in this test.
    app = create_app(settings.model_copy(update={"events_heartbeat": 600}), db=db)
    with served(app, lifespan="on") as url:
        name, key = new_owner_key(client, admin_headers)
        with httpx.Client(base_url=url, timeout=10) as http:
            table = Api(http, key, name).table()
        streams = _streams(url, key, table)
        try:
            r = httpx.delete(
                f"{url}/v1/keys/{_key_id(client, admin_headers, key)}", headers=admin_headers, timeout=10
            )
            assert r.status_code == 200 and r.json()["revoked_at"] is not None
            for s in streams:
                assert s.ended.wait(10), s.url
        finally:
            for s in streams:
                s.close()
