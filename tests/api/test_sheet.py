"""Sheet (ETag, 304), settlement (stake, exact balances) and the read-only share link."""

from __future__ import annotations

import pytest

from .samples import ALLPASS, PASS_6S, PULKA, pass_6s

PROBLEM = "application/problem+json"


def test_sheet_etag_and_304(api):
    tid = api.table()["id"]
    r = api.get(f"/v1/tables/{tid}/sheet")
    assert r.status_code == 200
    etag = r.headers["etag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    assert r.json()["deal_count"] == 0 and r.json()["players"][0]["name"] == "Anna"
    again = api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": '"other"'}).status_code == 200
    assert api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": f'"a", W/{etag}'}).status_code == 304
    assert api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": "*"}).status_code == 304
    api.deal(tid, PASS_6S)
    changed = api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_etag_changes_after_undo_and_another_deal(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    first = api.get(f"/v1/tables/{tid}/sheet")
    api.delete(f"/v1/tables/{tid}/deals/1")
    api.deal(tid, ALLPASS)
    second = api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": first.headers["etag"]})
    assert second.status_code == 200 and second.json() != first.json()
    assert second.json()["deal_count"] == first.json()["deal_count"] == 1


def test_etag_changes_after_correction(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    etag = api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    r = api.put(f"/v1/tables/{tid}/deals/1", json=ALLPASS)
    assert r.status_code == 200 and r.headers["etag"] != etag
    assert api.get(f"/v1/tables/{tid}/sheet", headers={"If-None-Match": etag}).status_code == 200


def test_settlement_mid_game(api):
    tid = api.table()["id"]
    api.deal(tid, ALLPASS)
    s = api.get(f"/v1/tables/{tid}/settlement")
    assert s.status_code == 200
    body = s.json()
    assert body["final"] is False
    players = body["players"]
    assert [p["name"] for p in players] == ["Anna", "Boris", "Vera"]
    # mountains 2, 5, 3 (mean 10/3): balances 10*(10/3 - m): 40/3, -50/3, 10/3
    assert [p["balance_exact"] for p in players] == ["40/3", "-50/3", "10/3"]
    balances = [p["balance"] for p in players]
    assert round(sum(balances) * 100) == 0
    assert balances == [13.33, -16.67, 3.34] or balances == [13.34, -16.67, 3.33]
    assert sum(t["amount"] for t in body["transfers"]) == pytest.approx(16.67)
    for t in body["transfers"]:
        assert set(t) == {"from", "to", "amount"}


def test_settlement_stake(api):
    tid = api.table(pool_target=4)["id"]
    for body in PULKA:
        api.deal(tid, body)
    s = api.get(f"/v1/tables/{tid}/settlement", params={"stake": "0.5"}).json()
    assert s["final"] is True and s["stake_exact"] == "1/2" and "stake" not in s  # the deprecated copy went
    assert [p["balance"] for p in s["players"]] == [-6, -19, 25]
    assert [p["balance_exact"] for p in s["players"]] == ["-6", "-19", "25"]
    assert s["transfers"] == [{"from": 0, "to": 2, "amount": 6}, {"from": 1, "to": 2, "amount": 19}]
    s = api.get(f"/v1/tables/{tid}/settlement", params={"stake": "0.01"}).json()
    assert [p["balance"] for p in s["players"]] == [-0.12, -0.38, 0.5]
    assert api.get(f"/v1/tables/{tid}/settlement", params={"stake": "0"}).status_code == 200


@pytest.mark.parametrize(
    "stake",
    ["-1", "NaN", "nan", "inf", "-Infinity", "abc", "", "1e400", "1e9", "0.0000001", "1" * 40, "0x10"],
)
def test_settlement_refuses_bad_stakes(api, stake):
    tid = api.table()["id"]
    r = api.get(f"/v1/tables/{tid}/settlement", params={"stake": stake})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert [e["field"] for e in r.json()["errors"]] == ["stake"]


def test_share_link(api, client):
    t = api.table(pool_target=4)
    for body in PULKA[:2]:
        api.deal(t["id"], body)
    r = client.get(f"/v1/shared/{t['share_token']}")
    assert r.status_code == 200, r.text
    shared = r.json()
    assert shared["id"] == t["id"] and shared["deal_count"] == 2
    assert shared["sheet"] == api.get(f"/v1/tables/{t['id']}/sheet").json()
    assert shared["settlement"] == api.get(f"/v1/tables/{t['id']}/settlement").json()
    assert client.get("/v1/shared/not-a-token").status_code == 404
    # the token gives read access to this and nothing else
    assert (
        client.get(
            f"/v1/tables/{t['id']}", headers={"Authorization": f"Bearer {t['share_token']}"}
        ).status_code
        == 401
    )
    assert client.post(f"/v1/shared/{t['share_token']}", json=ALLPASS).status_code == 405
    assert client.delete(f"/v1/shared/{t['share_token']}").status_code == 405
    assert client.get(f"/v1/shared/{t['share_token']}", params={"stake": "-1"}).status_code == 422


def test_a_write_through_another_server_makes_the_old_etag_stale(api, settings):
    """Two servers on one database (as two worker processes or replicas would be): a deal
    posted through the second one must end 304s for the old ETag on the first at once,
    whichever way the first reads the ETag (from the event loop, or from the thread pool)."""
    from fastapi.testclient import TestClient

    from app.kit.db import make_database
    from app.main import create_app

    other_db = make_database(settings)
    try:
        with TestClient(create_app(settings, db=other_db)) as other:
            t = api.table()
            url = f"/v1/tables/{t['id']}/sheet"
            for _ in range(3):  # warm whatever the first server keeps between requests
                first = api.get(url)
                assert api.get(url, headers={"If-None-Match": first.headers["etag"]}).status_code == 304
            r = other.post(f"/v1/tables/{t['id']}/deals", json=PASS_6S, headers=api.headers)
            assert r.status_code == 201, r.text
            after = api.get(url, headers={"If-None-Match": first.headers["etag"]})
            assert after.status_code == 200
            assert after.headers["etag"] != first.headers["etag"]
            assert after.json()["deal_count"] == 1
    finally:
        other_db.dispose()
