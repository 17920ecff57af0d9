"""Deals over HTTP: post, list (keyset paging), get, undo, correct, idempotency, If-Match."""

from __future__ import annotations

from .samples import ALLPASS, PASS_6S, PULKA, pass_6s

PROBLEM = "application/problem+json"


def fields(response) -> set[str]:
    assert response.headers["content-type"].startswith(PROBLEM), response.text
    return {e["field"] for e in response.json().get("errors", [])}


def test_post_deal_scores_and_stores_it(api):
    t = api.table()
    r = api.post(f"/v1/tables/{t['id']}/deals", json=PASS_6S)
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/v1/tables/{t['id']}/deals/1"
    assert r.headers["etag"].startswith('"')
    out = r.json()
    deal = out["deal"]
    assert deal["number"] == 1 and deal["type"] == "contract" and deal["contract"] == "6S"
    assert deal["entries"] == [{"kind": "pool", "seat": 0, "amount": 2}]
    assert out["sheet"]["players"][0]["pool"] == 2 and out["sheet"]["deal_count"] == 1
    assert out["sheet"]["next_dealer"] == 1
    got = api.get(f"/v1/tables/{t['id']}/deals/1")
    assert got.status_code == 200 and got.json() == deal
    assert api.get(f"/v1/tables/{t['id']}").json()["deal_count"] == 1


def test_pulka_to_the_end_and_after(api):
    t = api.table(pool_target=4)
    tid = t["id"]
    for n, body in enumerate(PULKA, start=1):
        out = api.deal(tid, body)
        assert out["deal"]["number"] == n
    sheet = out["sheet"]
    assert sheet["finished"] is True
    assert [p["pool"] for p in sheet["players"]] == [4, 4, 4]
    assert [p["mountain"] for p in sheet["players"]] == [2, 5, -1]
    assert sheet["players"][1]["whists"] == {"0": 12, "2": 0}
    assert sheet["players"][2]["whists"] == {"0": 0, "1": 20}
    # a finished table refuses deals: 409
    r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS)
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM)
    s = api.get(f"/v1/tables/{tid}/settlement").json()
    assert s["final"] is True
    assert [p["balance"] for p in s["players"]] == [-12, -38, 50]
    assert [p["balance_exact"] for p in s["players"]] == ["-12", "-38", "50"]
    assert s["transfers"] == [{"from": 0, "to": 2, "amount": 12}, {"from": 1, "to": 2, "amount": 38}]


def test_pydantic_errors_name_the_fields(api):
    tid = api.table()["id"]
    bad = [
        (
            {"type": "contract", "declarer": "0", "contract": "6S", "defenders": {"1": "pass", "2": "pass"}},
            {"declarer"},
        ),
        (
            {"type": "contract", "declarer": 0, "contract": "5S", "defenders": {"1": "pass", "2": "pass"}},
            {"contract"},
        ),
        (
            {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "maybe", "2": "pass"}},
            {"defenders.1"},
        ),
        (
            {"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"x": "pass", "2": "pass"}},
            {"defenders.x"},
        ),
        ({"type": "contract", "declarer": 0, "contract": "6S"}, {"defenders"}),
        ({**PASS_6S, "extra": 1}, {"extra"}),
        ({"type": "allpass"}, {"tricks"}),
        ({"type": "allpass", "tricks": {"0": 11, "1": 0, "2": 0}}, {"tricks.0"}),
        ({"type": "remise", "declarer": 0}, {"contract"}),
        ({"type": "misere", "declarer": 7}, {"declarer"}),
        ({"type": "slam"}, {"type"}),
        ({"declarer": 0}, {"type"}),
        ({**ALLPASS, "note": "x" * 501}, {"note"}),
        ({**ALLPASS, "choices": {"steal": 1}}, {"choices.steal"}),
        ({**ALLPASS, "talon": {"bonus": "king"}}, {"talon.bonus"}),
        ({**ALLPASS, "dealer": None}, {"dealer"}),
        ("allpass", {"body"}),
    ]
    for body, expected in bad:
        r = api.post(f"/v1/tables/{tid}/deals", json=body)
        assert r.status_code == 422, (body, r.text)
        assert expected <= fields(r), (body, r.json())
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 0


def test_engine_errors_name_the_fields(api):
    tid = api.table()["id"]
    cases = [
        {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 4}},  # 11 tricks
        {
            "type": "contract",
            "declarer": 0,
            "contract": "6S",
            "defenders": {"1": "whist", "2": "pass"},
        },  # no tricks
        {"type": "misere", "declarer": 0, "tricks": {"0": 0}, "over_misere": True},
        {**ALLPASS, "talon": {"bonus": "ace"}},
    ]
    for body in cases:
        r = api.post(f"/v1/tables/{tid}/deals", json=body)
        assert r.status_code == 422, (body, r.text)
        p = r.json()
        assert p["errors"] and all(e["field"] and e["reason"] for e in p["errors"]), p
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 0


def test_body_that_is_not_json(api):
    tid = api.table()["id"]
    r = api.post(
        f"/v1/tables/{tid}/deals", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 422 and fields(r) == {"body"}
    r = api.post(f"/v1/tables/{tid}/deals", content=b"", headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM)


def test_dealer_mismatch_is_409(api):
    tid = api.table()["id"]
    r = api.post(f"/v1/tables/{tid}/deals", json={**ALLPASS, "dealer": 2})
    assert r.status_code == 409 and "dealer" in fields(r)
    api.deal(tid, {**ALLPASS, "dealer": 0})


def test_list_deals_keyset_paging(api):
    tid = api.table()["id"]
    for _ in range(7):
        api.deal(tid, ALLPASS)
    r = api.get(f"/v1/tables/{tid}/deals", params={"limit": 3})
    assert r.status_code == 200
    page = r.json()
    numbers = [d["number"] for d in page["items"]]
    seen = list(numbers)
    while page["next"]:
        page = api.get(page["next"]).json()
        seen += [d["number"] for d in page["items"]]
    assert numbers == [1, 2, 3] and seen == list(range(1, 8))
    assert api.get(f"/v1/tables/{tid}/deals", params={"after": 7}).json() == {"items": [], "next": None}
    everything = api.get(f"/v1/tables/{tid}/deals").json()
    assert len(everything["items"]) == 7 and everything["next"] is None
    assert all(d["entries"] for d in everything["items"])
    for params in ({"limit": 0}, {"limit": 201}, {"after": -1}, {"limit": "x"}):
        r = api.get(f"/v1/tables/{tid}/deals", params=params)
        assert r.status_code == 422 and fields(r) == set(params), r.text


def test_get_unknown_deal(api):
    tid = api.table()["id"]
    assert api.get(f"/v1/tables/{tid}/deals/1").status_code == 404
    assert api.get(f"/v1/tables/{tid}/deals/0").status_code == 422
    assert api.get(f"/v1/tables/{tid}/deals/abc").status_code == 422
    assert api.get(f"/v1/tables/{tid}/deals/99999999999999999999").status_code == 422


def test_idempotency_key(api):
    tid = api.table()["id"]
    h = {"Idempotency-Key": "deal-1-abc"}
    first = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers=h)
    again = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers=h)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
    other = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers=h)
    assert other.status_code == 422 and other.headers["content-type"].startswith(PROBLEM)
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
    # another key is another deal; a refused deal stores no key
    assert (
        api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": "k2"}).status_code
        == 201
    )
    bad = {"type": "allpass", "tricks": {"0": 9, "1": 9, "2": 9}}
    assert api.post(f"/v1/tables/{tid}/deals", json=bad, headers={"Idempotency-Key": "k3"}).status_code == 422
    assert (
        api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": "k3"}).status_code
        == 201
    )
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 3
    r = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"Idempotency-Key": "x" * 300})
    assert r.status_code == 422 and fields(r) == {"Idempotency-Key"}


def test_idempotency_keys_are_per_table(api):
    a, b = api.table()["id"], api.table()["id"]
    h = {"Idempotency-Key": "same"}
    assert api.post(f"/v1/tables/{a}/deals", json=PASS_6S, headers=h).status_code == 201
    assert api.post(f"/v1/tables/{b}/deals", json=ALLPASS, headers=h).status_code == 201


def test_if_match(api):
    tid = api.table()["id"]
    etag = api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    r = api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"If-Match": etag})
    assert r.status_code == 201
    new = r.headers["etag"]
    assert new != etag and new == api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    stale = api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"If-Match": etag})
    assert stale.status_code == 412 and stale.headers["content-type"].startswith(PROBLEM)
    for method, url, body in [
        ("put", f"/v1/tables/{tid}/deals/1", ALLPASS),
        ("delete", f"/v1/tables/{tid}/deals/1", None),
    ]:
        kw = {"json": body} if body else {}
        r = getattr(api, method)(url, headers={"If-Match": etag}, **kw)
        assert r.status_code == 412, r.text
    assert api.get(f"/v1/tables/{tid}/deals/1").json()["type"] == "contract"
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
    assert (
        api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"If-Match": f'"x", {new}'}).status_code
        == 201
    )
    assert api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"If-Match": "*"}).status_code == 201
    weak = "W/" + api.get(f"/v1/tables/{tid}/sheet").headers["etag"]
    assert api.post(f"/v1/tables/{tid}/deals", json=ALLPASS, headers={"If-Match": weak}).status_code == 412


def test_undo_only_the_last(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    api.deal(tid, ALLPASS)
    r = api.delete(f"/v1/tables/{tid}/deals/1")
    assert r.status_code == 409 and r.headers["content-type"].startswith(PROBLEM)
    assert api.delete(f"/v1/tables/{tid}/deals/3").status_code == 404
    r = api.delete(f"/v1/tables/{tid}/deals/2")
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["deal"]["number"] == 2 and out["deal"]["type"] == "allpass"
    sheet = out["sheet"]
    assert sheet["deal_count"] == 1 and sheet["next_dealer"] == 1
    assert [p["mountain"] for p in sheet["players"]] == [0, 0, 0]
    assert api.get(f"/v1/tables/{tid}/deals/2").status_code == 404
    # numbering continues without a gap
    assert api.deal(tid, pass_6s(2))["deal"]["number"] == 2
    assert api.delete(f"/v1/tables/{tid}/deals/2").status_code == 200
    assert api.delete(f"/v1/tables/{tid}/deals/1").status_code == 200
    assert api.delete(f"/v1/tables/{tid}/deals/1").status_code == 404
    assert api.get(f"/v1/tables/{tid}/sheet").json()["deal_count"] == 0


def test_undo_reopens_a_finished_table(api):
    tid = api.table(pool_target=4)["id"]
    for body in PULKA:
        api.deal(tid, body)
    assert api.get(f"/v1/tables/{tid}/sheet").json()["finished"] is True
    assert api.delete(f"/v1/tables/{tid}/deals/4").status_code == 200
    assert api.get(f"/v1/tables/{tid}/sheet").json()["finished"] is False
    assert api.deal(tid, PULKA[3])["sheet"]["finished"] is True


def test_correction_rescores_later_deals(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    api.deal(tid, ALLPASS)
    api.deal(tid, pass_6s(2))
    before = api.get(f"/v1/tables/{tid}/deals/2").json()
    # deal 1 was really Boris's 7: deal 2 (an all-pass at cost 1 either way) keeps its entries
    fix = {"type": "contract", "declarer": 1, "contract": "7S", "defenders": {"0": "pass", "2": "pass"}}
    r = api.put(f"/v1/tables/{tid}/deals/1", json=fix)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["deal"]["number"] == 1 and out["deal"]["contract"] == "7S"
    assert out["deal"]["entries"] == [{"kind": "pool", "seat": 1, "amount": 4}]
    assert [p["pool"] for p in out["sheet"]["players"]] == [0, 4, 2]
    assert out["sheet"]["deal_count"] == 3
    assert isinstance(out["rescored"], list)
    assert api.get(f"/v1/tables/{tid}/deals/2").json()["entries"] == before["entries"]
    assert api.get(f"/v1/tables/{tid}/deals/1").json()["contract"] == "7S"


def test_correction_rescoring_changes_entries(api):
    # sochi with all-pass costs [1, 2, 3]: turning deal 1 into an all-pass makes deal 2 the second one
    tid = api.table(options={"allpass_costs": [1, 2, 3]})["id"]
    api.deal(tid, pass_6s(0))
    api.deal(tid, ALLPASS)
    assert api.get(f"/v1/tables/{tid}/deals/2").json()["entries"][1] == {
        "kind": "mountain",
        "seat": 1,
        "amount": 5,
    }
    r = api.put(f"/v1/tables/{tid}/deals/1", json=ALLPASS)
    assert r.status_code == 200, r.text
    assert r.json()["rescored"] == [2]
    assert api.get(f"/v1/tables/{tid}/deals/2").json()["entries"][1] == {
        "kind": "mountain",
        "seat": 1,
        "amount": 10,
    }
    assert [p["mountain"] for p in r.json()["sheet"]["players"]] == [6, 15, 9]


def test_correction_refused_when_a_later_deal_becomes_invalid(api):
    # sochi with exits [6, 7, 7]: after an all-pass the lowest contract is 7
    tid = api.table(options={"exit_levels": [6, 7, 7]})["id"]
    api.deal(tid, pass_6s(0))
    six_hearts = {
        "type": "contract",
        "declarer": 1,
        "contract": "6H",
        "defenders": {"0": "pass", "2": "pass"},
    }
    api.deal(tid, six_hearts)
    api.deal(tid, ALLPASS)
    sheet_before = api.get(f"/v1/tables/{tid}/sheet")
    deals_before = api.get(f"/v1/tables/{tid}/deals").json()
    r = api.put(f"/v1/tables/{tid}/deals/1", json=ALLPASS)
    assert r.status_code == 409, r.text
    p = r.json()
    assert r.headers["content-type"].startswith(PROBLEM)
    assert p["deal"] == 2 and "deal 2" in p["detail"] and p["errors"]
    # nothing changed
    assert api.get(f"/v1/tables/{tid}/deals").json() == deals_before
    sheet_after = api.get(f"/v1/tables/{tid}/sheet")
    assert sheet_after.json() == sheet_before.json()
    assert sheet_after.headers["etag"] == sheet_before.headers["etag"]


def test_correction_with_the_wrong_dealer_is_409(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    api.deal(tid, {**ALLPASS, "dealer": 1})
    before = api.get(f"/v1/tables/{tid}/deals/2").json()
    r = api.put(f"/v1/tables/{tid}/deals/2", json={**ALLPASS, "dealer": 2})
    assert r.status_code == 409 and "dealer" in fields(r)
    assert api.get(f"/v1/tables/{tid}/deals/2").json() == before


def test_correction_of_unknown_or_invalid_deal(api):
    tid = api.table()["id"]
    api.deal(tid, pass_6s(0))
    assert api.put(f"/v1/tables/{tid}/deals/2", json=ALLPASS).status_code == 404
    r = api.put(f"/v1/tables/{tid}/deals/1", json={"type": "allpass", "tricks": {"0": 9, "1": 9, "2": 9}})
    assert r.status_code == 422 and fields(r)
    r = api.put(f"/v1/tables/{tid}/deals/1", json={"type": "allpass"})
    assert r.status_code == 422 and "tricks" in fields(r)
    assert api.get(f"/v1/tables/{tid}/deals/1").json()["type"] == "contract"
