"""Event-stream slots shared fairly (app/live/hub.py, app/live/router.py): a share
token, a scorer link, a key and a client address without a key each hold at most their own
number of open streams (429 naming the cap) while every other holder still gets one; a
stream's slots come back when it ends (the client gone, a revocation, the server stopping);
a scorer link is looked up once per change for all its streams; a Last-Event-ID that is not
a revision is ignored, however long."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from tests.conftest import Api, new_owner_key
from tests.sse import EventReader
from tests.support.served import served

from .samples import pass_6s

PROBLEM = "application/problem+json"
# Small caps, so that a test reaches each. The heartbeat is long: the only link lookups are
# the ones a change makes, and a revocation can only end its streams at once.
CAPS = {
    "events_max_per_share_token": 3,
    "events_max_per_scorer_link": 3,
    "events_max_per_key": 3,
    "events_max_per_address": 5,
    "events_heartbeat": 600,
    "events_poll_interval": 0.1,
    "events_recheck_interval": 0.3,
}


@pytest.fixture(scope="module")
def served_app(settings, db) -> Iterator[tuple[str, Any]]:
    from app.main import create_app

    app = create_app(settings.model_copy(update=CAPS), db=db)
    with served(app, lifespan="on") as url:
        yield url, app


@pytest.fixture
def server(served_app) -> str:
    url, app = served_app
    live = getattr(app.state, "live", None)
    if live is not None:
        _wait(lambda: live.hub.count == 0, "the streams of an earlier test are still counted")
    return url


def _hub(served_app):
    return served_app[1].state.live.hub


def _wait(check, what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.02)


def _open(readers: list[EventReader], url: str, headers: dict[str, str] | None = None) -> EventReader:
    r = EventReader(url, headers)
    readers.append(r)
    if r.status == 200:
        assert r.next().event == "sheet"
    return r


def _refused(r: EventReader, cap: str, limit: int) -> None:
    assert r.status == 429, (r.url, r.status)
    assert r.ended.wait(5)
    assert r.content_type.startswith(PROBLEM)
    assert int(r.response_headers["retry-after"]) >= 1
    import json

    body = json.loads(r.body)
    assert (body["status"], body["cap"], body["limit"]) == (429, cap, limit), body
    assert f"PREFSCORE_EVENTS_MAX_PER_{cap.upper()}" in body["detail"]


def _link(owner: Api, table_id: str) -> dict[str, Any]:
    r = owner.post(f"/v1/tables/{table_id}/scorer-link")
    assert r.status_code == 201, r.text
    return r.json()


def test_one_share_token_holds_at_most_its_cap_while_another_still_gets_a_stream(
    owner, server, served_app, readers
):
    a, b = owner.table(), owner.table()
    url_a = f"{server}/v1/shared/{a['share_token']}/events"
    held = [_open(readers, url_a) for _ in range(3)]
    assert all(r.status == 200 for r in held)
    _refused(_open(readers, url_a), "share_token", 3)
    assert _open(readers, f"{server}/v1/shared/{b['share_token']}/events").status == 200
    # a stream that ends (its client gone) gives its slot back
    held[0].close()
    hub = _hub(served_app)
    _wait(
        lambda: hub.held.get(("share_token", a["share_token"])) == 2,
        "the closed stream's slot was not given back",
    )
    assert _open(readers, url_a).status == 200


def test_a_replaced_share_link_gives_its_slots_back(owner, server, served_app, readers):
    table = owner.table()
    old = [_open(readers, f"{server}/v1/shared/{table['share_token']}/events") for _ in range(3)]
    assert owner.post(f"/v1/tables/{table['id']}/share-token").status_code == 200
    for r in old:
        assert r.ended.wait(5), "the old link's stream goes on"
    hub = _hub(served_app)
    _wait(lambda: ("share_token", table["share_token"]) not in hub.held, "the old link still holds slots")


def test_one_address_holds_at_most_its_cap_of_streams_without_a_key(owner, server, readers):
    tables = [owner.table() for _ in range(3)]
    for t in tables[:2]:  # 3 + 2 from this address: its cap of 5
        for _ in range(3 if t is tables[0] else 2):
            assert _open(readers, f"{server}/v1/shared/{t['share_token']}/events").status == 200
    _refused(_open(readers, f"{server}/v1/shared/{tables[2]['share_token']}/events"), "address", 5)
    link = _link(owner, tables[2]["id"])
    _refused(_open(readers, f"{server}/v1/score/{link['token']}/events"), "address", 5)
    # a keyed stream is counted by its key, not by address
    assert _open(readers, f"{server}/v1/tables/{tables[2]['id']}/events", owner.headers).status == 200


def test_one_key_holds_at_most_its_cap_while_another_owner_still_gets_a_stream(
    owner, server, served_app, client, admin_headers, readers
):
    table = owner.table()
    mine = [
        _open(readers, f"{server}/v1/tables/{table['id']}/events", owner.headers),
        _open(readers, f"{server}/v1/tables/{table['id']}/events", owner.headers),
        _open(readers, f"{server}/v1/events?tables={table['id']}", owner.headers),
    ]
    assert all(r.status == 200 for r in mine)
    _refused(_open(readers, f"{server}/v1/tables/{table['id']}/events", owner.headers), "key", 3)
    _refused(_open(readers, f"{server}/v1/events", owner.headers), "key", 3)
    name, other_key = new_owner_key(client, admin_headers)
    with httpx.Client(base_url=server, timeout=10) as http:
        other = Api(http, other_key, name)
        other_table = other.table()
    assert _open(readers, f"{server}/v1/tables/{other_table['id']}/events", other.headers).status == 200
    # the key revoked: its streams end and give their slots back
    (key_id,) = [
        k["id"]
        for k in client.get("/v1/keys", headers=admin_headers).json()["items"]
        if owner.key.startswith(k["prefix"])
    ]
    assert httpx.delete(f"{server}/v1/keys/{key_id}", headers=admin_headers, timeout=10).status_code == 200
    for r in mine:
        assert r.ended.wait(5), r.url
    hub = _hub(served_app)
    _wait(lambda: ("key", f"id:{key_id}") not in hub.held, "the revoked key still holds slots")


def test_one_scorer_link_holds_at_most_its_cap_while_another_link_still_gets_a_stream(
    owner, server, served_app, readers
):
    table = owner.table()
    first, second = _link(owner, table["id"]), _link(owner, table["id"])
    url = f"{server}/v1/score/{first['token']}/events"
    held = [_open(readers, url) for _ in range(3)]
    assert all(r.status == 200 for r in held)
    _refused(_open(readers, url), "scorer_link", 3)
    kept = _open(readers, f"{server}/v1/score/{second['token']}/events")
    assert kept.status == 200
    # the link revoked: its streams end at once and give their slots back; the other's go on
    assert owner.delete(f"/v1/tables/{table['id']}/scorer-links/{first['id']}").status_code == 200
    for r in held:
        assert r.ended.wait(5), "the stream of a revoked link did not end"
    hub = _hub(served_app)
    _wait(lambda: ("scorer_link", str(first["id"])) not in hub.held, "the revoked link still holds slots")
    assert kept.next_table_event().event == "sheet" and not kept.ended.is_set()


def test_the_streams_of_a_scorer_link_cost_one_link_lookup_per_change(owner, server, readers, db):
    """Three streams on one link and two on another: a posted deal reaches all five after one
    read of the scorer links, not one per stream."""
    table = owner.table()
    first, second = _link(owner, table["id"]), _link(owner, table["id"])
    streams = [_open(readers, f"{server}/v1/score/{first['token']}/events") for _ in range(3)]
    streams += [_open(readers, f"{server}/v1/score/{second['token']}/events") for _ in range(2)]
    assert all(r.status == 200 for r in streams)
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_args):  # noqa: ANN001, ANN002, ANN202
        if "scorer_links" in statement:
            statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        for number, declarer in enumerate((1, 2), 1):
            owner.deal(table["id"], pass_6s(declarer))  # through the key: no link lookup of its own
            for r in streams:
                e = r.next_table_event()
                assert (e.event, e.id) == ("deal.posted", str(number))
        time.sleep(0.3)
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    assert len(statements) == 2, statements


@pytest.mark.parametrize(
    "last_event_id",
    ["7" * 5000, "9" * 21, "²".encode("latin-1"), "-1", "1e3"],
    ids=["5000-digits", "21-digits", "superscript-two", "negative", "exponent"],
)
def test_a_last_event_id_that_is_not_a_revision_is_ignored(owner, server, readers, last_event_id):
    table = owner.table()
    link = _link(owner, table["id"])
    for url, headers in (
        (f"{server}/v1/tables/{table['id']}/events", owner.headers),
        (f"{server}/v1/shared/{table['share_token']}/events", {}),
        (f"{server}/v1/score/{link['token']}/events", {}),
        (f"{server}/v1/events", owner.headers),
    ):
        r = EventReader(url, {**headers, "Last-Event-ID": last_event_id})
        readers.append(r)
        assert r.status == 200, (url, r.status, getattr(r, "body", ""))
        if "/v1/events" not in url:
            e = r.next()  # resumed from nothing: the current state first
            assert (e.event, e.id) == ("sheet", "0")
        r.close()


def test_the_process_bound_is_503_with_retry_after(owner, server, served_app, readers):
    table = owner.table()
    assert _open(readers, f"{server}/v1/tables/{table['id']}/events", owner.headers).status == 200
    hub = _hub(served_app)
    saved = hub.max_subscriptions
    hub.max_subscriptions = hub.count
    try:
        r = owner.get(f"/v1/shared/{table['share_token']}/events")
    finally:
        hub.max_subscriptions = saved
    assert r.status_code == 503 and r.headers["content-type"].startswith(PROBLEM)
    assert int(r.headers["retry-after"]) >= 1 and r.json()["cap"] == "server"


def test_the_server_stopping_gives_every_slot_back(settings, db, client, admin_headers):
    """A stopping server (SIGTERM: sse-starlette's AppStatus, set here by hand since this
    server runs on a thread) ends its streams, and each gives its slots back."""
    from sse_starlette.sse import AppStatus

    from app.main import create_app

    app = create_app(settings.model_copy(update=CAPS), db=db)
    opened: list[EventReader] = []
    try:
        with served(app, lifespan="on") as url, httpx.Client(base_url=url, timeout=10) as http:
            name, key = new_owner_key(client, admin_headers)
            owner = Api(http, key, name)
            table = owner.table()
            link = _link(owner, table["id"])
            _open(opened, f"{url}/v1/tables/{table['id']}/events", owner.headers)
            _open(opened, f"{url}/v1/shared/{table['share_token']}/events")
            _open(opened, f"{url}/v1/score/{link['token']}/events")
            hub = app.state.live.hub
            assert hub.count == 3 and len(hub.held) == 4
            AppStatus.should_exit = True
            for r in opened:
                assert r.ended.wait(10), r.url
        assert hub.count == 0 and hub.held == {}
    finally:
        AppStatus.should_exit = False
        for r in opened:
            r.close()
