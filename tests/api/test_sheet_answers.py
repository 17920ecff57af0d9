"""The sheet's 304 and kept 200 answered before the framework's routing (app/tables/sheet_answers.py):
the same answer as the route's, counted by the rate limit, logged by route template; every
request it cannot answer is the route's, with the route's errors."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from app.tables import service as table_service
from tests.conftest import new_owner_key

PROBLEM = "application/problem+json"
SHEET = "/v1/tables/{table_id}/sheet"


def test_the_304_has_the_route_s_headers_and_access_line(api, caplog):
    tid = api.table()["id"]
    etag = api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    with caplog.at_level(logging.INFO, logger="prefscore.access"):
        r = api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": etag, "X-Request-ID": "poll-304"})
    assert r.status_code == 304 and r.content == b""
    assert r.headers["etag"] == etag and r.headers["cache-control"] == "private, no-cache"
    assert r.headers["x-request-id"] == "poll-304" and r.headers["x-content-type-options"] == "nosniff"
    line = [
        rec
        for rec in caplog.records
        if rec.name == "prefscore.access" and getattr(rec, "status", None) == 304
    ]
    assert len(line) == 1 and line[0].route == SHEET and line[0].method == "GET"


def test_a_changed_sheet_reads_its_etag_once(api, monkeypatch):
    tid = api.table()["id"]
    reads = []
    current = table_service.current_etag_on_loop

    async def counted(*args):
        reads.append(args[2])
        return await current(*args)

    monkeypatch.setattr(table_service, "current_etag_on_loop", counted)
    r = api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": '"an-old-one"'})
    assert r.status_code == 200 and r.json()["deal_count"] == 0 and r.headers["etag"]
    assert reads == [tid]  # compared before the routing, not again in the route


def test_what_it_cannot_answer_is_the_route_s(api, other_api, client):
    tid = api.table()["id"]
    any_etag = {"If-None-Match": "*"}
    for r in (
        api.get("/v1/tables/0123456789abcdef0123456789abcdef/sheet", headers=any_etag),  # no such table
        api.get("/v1/tables/not-a-table-id/sheet", headers=any_etag),
        other_api.get(f"/v1/tables/{tid}/sheet", headers=any_etag),  # another owner's
    ):
        assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM)
    for headers in ({}, {"Authorization": "Bearer pk_made_up"}, {"Authorization": "Basic eDp5"}):
        r = client.get(f"/v1/tables/{tid}/sheet", headers={**headers, **any_etag})
        assert r.status_code == 401 and r.headers["content-type"].startswith(PROBLEM)


def test_the_304s_are_counted_by_the_rate_limit(settings, db, admin_headers, an_hour_long_window):
    from app.main import create_app

    app = create_app(settings.model_copy(update={"rate_limit": 4, "rate_limit_window": 3600}), db=db)
    with TestClient(app) as c:
        _, key = new_owner_key(c, admin_headers)
        auth = {"Authorization": f"Bearer {key}"}
        tid = c.post(
            "/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}, headers=auth
        ).json()["id"]  # 1
        etag = c.get(f"/v1/tables/{tid}/sheet", headers=auth).headers["etag"]  # 2
        polls = [
            c.get(f"/v1/tables/{tid}/sheet", headers={**auth, "If-None-Match": etag}).status_code
            for _ in range(3)
        ]
    assert polls == [304, 304, 429]  # requests 3 and 4 within the limit of 4, the 5th refused


def test_the_settlement_and_share_etags_name_the_json_shape():
    # The settlement's and the share link's JSON lost their deprecated fields (``stake``,
    # ``deals``): a copy cached before must not be revalidated as current (304) after.
    from app.kit import etags as tags

    sheet = '"abc"'
    assert tags.settlement_etag(sheet, None) == '"abc-settle2-s0"'
    assert tags.shared_etag(sheet, None) == '"abc-shared2-s0"'


ALLPASS = {"type": "allpass", "tricks": {"0": 4, "1": 3, "2": 3}}


def test_a_sheet_is_built_once_per_etag_and_sent_as_kept(api, monkeypatch):
    from app.tables import sheet_answers

    tid = api.table(players=["Анна", "Борис", "Вера"])["id"]
    api.deal(tid, ALLPASS)
    builds = []
    serialise = sheet_answers.sheet_json

    def counted(sheet):
        builds.append(sheet.deal_count)
        return serialise(sheet)

    monkeypatch.setattr(sheet_answers, "sheet_json", counted)
    first = api.get(f"/v1/tables/{tid}/sheet")
    again = [api.get(f"/v1/tables/{tid}/sheet") for _ in range(3)]
    assert first.status_code == 200 and builds == [1]  # built by the route, then kept
    for r in again:  # sent from the kept bytes before the routing, headers as the route's
        assert r.status_code == 200 and r.content == first.content
        assert (
            r.headers["etag"] == first.headers["etag"] and r.headers["cache-control"] == "private, no-cache"
        )
        assert r.headers["content-type"] == "application/json"
    api.deal(tid, ALLPASS)  # a new ETag: the kept bytes are not sent for it
    changed = api.get(f"/v1/tables/{tid}/sheet")
    assert changed.json()["deal_count"] == 2 and changed.headers["etag"] != first.headers["etag"]
    assert builds == [1, 2]


def test_the_kept_bytes_are_the_framework_s_own(api):
    # One ETag, one sequence of bytes: what the route sent before the bytes were kept (the
    # framework's serialisation of the response model) is what is kept and sent now.
    from fastapi.encoders import jsonable_encoder
    from starlette.responses import JSONResponse

    from app.tables.sheet_answers import sheet_json
    from app.tables.sheet_schemas import Sheet

    tid = api.table(players=["Анна", "Борис", "Вера"])["id"]
    for _ in range(3):
        api.deal(tid, ALLPASS)
    sheet = Sheet.model_validate(api.get(f"/v1/tables/{tid}/sheet").json())
    assert sheet_json(sheet) == JSONResponse(jsonable_encoder(sheet)).body
    assert api.get(f"/v1/tables/{tid}/sheet").content == sheet_json(sheet)


def test_another_process_s_write_is_seen_at_once(settings, db, admin_headers):
    # The bytes are kept by the ETag read from the database on every request: a post through
    # another app (another process's, sharing the database) ends them at once.
    from app.main import create_app

    with TestClient(create_app(settings, db=db)) as one, TestClient(create_app(settings, db=db)) as two:
        _, key = new_owner_key(one, admin_headers)
        auth = {"Authorization": f"Bearer {key}"}
        tid = one.post(
            "/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}, headers=auth
        ).json()["id"]
        assert [one.get(f"/v1/tables/{tid}/sheet", headers=auth).json()["deal_count"] for _ in range(2)] == [
            0,
            0,
        ]
        assert two.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers=auth).status_code == 201
        assert one.get(f"/v1/tables/{tid}/sheet", headers=auth).json()["deal_count"] == 1
