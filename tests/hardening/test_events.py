"""Live updates across processes: a subscriber on one server process and a writer on
another, one database (PostgreSQL: LISTEN/NOTIFY; SQLite: the revision column), and a cut of
the database connection while subscribed (PostgreSQL, through the cuttable TCP proxy)."""

from __future__ import annotations

import httpx
from sqlalchemy.engine import make_url

from tests.sse import EventReader

from .conftest import needs_postgres
from .harness import TcpProxy, auth, create_table, is_postgres_run

DEALS = [
    {"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
    {"type": "contract", "declarer": 2, "contract": "6S", "defenders": {"0": "pass", "1": "pass"}},
    {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
]
# The slow safety-net read is pushed out of the way: on PostgreSQL only NOTIFY can deliver.
ENV = {
    "PREFSCORE_EVENTS_HEARTBEAT": "1",
    "PREFSCORE_EVENTS_RECHECK_INTERVAL": "600",
    "PREFSCORE_EVENTS_POLL_INTERVAL": "0.1",
}


def _post(base: str, key: str, table_id: str, body: dict, **headers: str) -> httpx.Response:
    r = httpx.post(
        f"{base}/v1/tables/{table_id}/deals", json=body, headers={**auth(key), **headers}, timeout=15
    )
    assert r.status_code == 201, r.text
    return r


def test_a_change_written_by_one_process_reaches_the_subscribers_of_another(fresh_db, servers, admin_key):
    viewer = servers.start(fresh_db, env=ENV, name="viewer")
    writer = servers.start(fresh_db, env=ENV, name="writer")
    table = create_table(writer.url, admin_key)
    keyed = EventReader(f"{viewer.url}/v1/tables/{table['id']}/events", auth(admin_key))
    shared = EventReader(f"{viewer.url}/v1/shared/{table['share_token']}/events")
    owner_wide = EventReader(f"{viewer.url}/v1/events", auth(admin_key))
    try:
        assert keyed.next().event == shared.next().event == "sheet"
        for number, body in enumerate(DEALS, 1):
            posted = _post(writer.url, admin_key, table["id"], body)
            for reader in (keyed, shared, owner_wide):
                e = reader.next_table_event(timeout=5)
                # the writer's NOTIFY names the kind (PostgreSQL); the revision column's step
                # shows it (SQLite, one deal more)
                assert e.event == "deal.posted", (reader.url, e)
                assert e.data["revision"] == number and e.data["etag"] == posted.headers["ETag"]
                assert e.data["sheet"] == posted.json()["sheet"]
    finally:
        for reader in (keyed, shared, owner_wide):
            reader.close()


def test_a_subscriber_that_reconnects_after_missing_three_deals_gets_the_current_sheet(
    fresh_db, servers, admin_key
):
    viewer = servers.start(fresh_db, env=ENV, name="viewer")
    writer = servers.start(fresh_db, env=ENV, name="writer")
    table = create_table(writer.url, admin_key)
    reader = EventReader(f"{viewer.url}/v1/tables/{table['id']}/events", auth(admin_key))
    last = reader.next().id
    reader.close()
    for body in DEALS:
        posted = _post(writer.url, admin_key, table["id"], body)
    again = EventReader(
        f"{viewer.url}/v1/tables/{table['id']}/events", {**auth(admin_key), "Last-Event-ID": last}
    )
    try:
        e = again.next(timeout=5)
        assert (e.event, e.id) == ("sheet", "3")
        assert e.data["sheet"] == posted.json()["sheet"] and e.data["etag"] == posted.headers["ETag"]
    finally:
        again.close()


@needs_postgres
def test_a_cut_database_connection_is_told_then_resumed_with_nothing_lost(fresh_db, servers, admin_key):
    assert is_postgres_run()
    url = make_url(fresh_db)
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432)).start()
    reader = None
    try:
        behind = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
        viewer = servers.start(behind, env=ENV, name="viewer-behind-proxy")
        writer = servers.start(fresh_db, env=ENV, name="writer")
        table = create_table(writer.url, admin_key)
        reader = EventReader(f"{viewer.url}/v1/tables/{table['id']}/events", auth(admin_key))
        assert reader.next().event == "sheet"
        _post(writer.url, admin_key, table["id"], DEALS[0])
        assert reader.next_table_event(timeout=5).id == "1"

        proxy.cut()
        told = reader.next(timeout=15)
        assert told.event == "stream.interrupted", told
        # written while the viewer's process cannot hear: its NOTIFY is lost to it
        _post(writer.url, admin_key, table["id"], DEALS[1])
        posted = _post(writer.url, admin_key, table["id"], DEALS[2])
        proxy.restore()

        resumed = reader.next(timeout=30)
        assert resumed.event == "stream.resumed", resumed
        e = reader.next_table_event(timeout=15)
        # both deals were committed while cut: the stream re-reads the revision and sends the
        # current state (revision 3, the last deal's sheet)
        assert e.id == "3" and e.data["sheet"] == posted.json()["sheet"], e
        assert not reader.ended.is_set()
        _post(writer.url, admin_key, table["id"], {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
        after = reader.next_table_event(timeout=5)
        assert (after.event, after.id) == ("deal.posted", "4")
        assert viewer.alive() and viewer.starts == 1
    finally:
        if reader is not None:
            reader.close()
        proxy.close()
