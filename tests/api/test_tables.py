"""Tables and conventions over HTTP: create, read, defaults, validation, ownership."""

from __future__ import annotations

import pytest

PROBLEM = "application/problem+json"


def fields(response) -> set[str]:
    assert response.headers["content-type"].startswith(PROBLEM), response.text
    return {e["field"] for e in response.json()["errors"]}


def test_conventions_lists_all_eight_with_options(api):
    r = api.get("/v1/conventions")
    assert r.status_code == 200
    names = [c["name"] for c in r.json()]
    assert names == [
        "sochi",
        "piter",
        "piter_gentleman",
        "rostov",
        "vmk",
        "piter_races",
        "fspr",
        "classic_1996",
    ]
    piter = next(c for c in r.json() if c["name"] == "piter")
    opts = {o["name"]: o for o in piter["options"]}
    assert opts["stalingrad"]["type"] == "bool" and opts["stalingrad"]["default"] is True
    assert opts["allpass_costs"]["default"] == [2, 4, 6]


def test_create_table_returns_the_table(api):
    body = {
        "players": ["Anna", "Boris", "Vera"],
        "convention": "piter",
        "pool_target": 20,
        "first_dealer": 0,
        "options": {"stalingrad": True, "allpass_costs": [2, 4, 6], "exit_levels": [6, 7, 7]},
    }
    r = api.post("/v1/tables", json=body)
    assert r.status_code == 201, r.text
    t = r.json()
    assert r.headers["location"] == f"/v1/tables/{t['id']}"
    assert t["convention"] == "piter" and t["pool_target"] == 20 and t["deal_count"] == 0
    assert t["players"] == [
        {"seat": 0, "name": "Anna"},
        {"seat": 1, "name": "Boris"},
        {"seat": 2, "name": "Vera"},
    ]
    # all options with their effective values
    assert t["options"]["stalingrad"] is True and t["options"]["sliding_allpass"] is True
    assert isinstance(t["share_token"], str) and len(t["share_token"]) >= 20
    sheet = t["sheet"]
    assert sheet["deal_count"] == 0 and sheet["next_dealer"] == 0 and sheet["finished"] is False
    assert sheet["players"][1] == {
        "seat": 1,
        "name": "Boris",
        "pool": 0,
        "pool_closed": False,
        "mountain": 0,
        "whists": {"0": 0, "2": 0},
    }
    assert sheet["allpass"] == {
        "level": 1,
        "streak": 0,
        "next_trick_cost": 2,
        "min_contract": 6,
        "compulsory": False,
    }
    got = api.get(f"/v1/tables/{t['id']}")
    assert got.status_code == 200 and got.json() == t


def test_defaults(api):
    t = api.table(players=["A", "B", "C", "D"], convention="piter_races")
    assert t["pool_target"] == 22 and t["options"]["games"] == 7 and t["sheet"]["match"]["games"] == 7
    t = api.table(convention="rostov", first_dealer=2)
    assert t["pool_target"] == 20 and t["first_dealer"] == 2 and t["sheet"]["next_dealer"] == 2
    assert t["sheet"]["allpass"]["next_trick_cost"] is None


@pytest.mark.parametrize(
    "body, bad",
    [
        ({"players": ["A", "B"], "convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", "C", "D", "E"], "convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", "A"], "convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", "  "], "convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", ""], "convention": "sochi"}, {"players.2"}),
        ({"players": ["A", "B", 3], "convention": "sochi"}, {"players.2"}),
        ({"players": "ABC", "convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", "C"], "convention": "bridge"}, {"convention"}),
        ({"players": ["A", "B", "C"]}, {"convention"}),
        ({"convention": "sochi"}, {"players"}),
        ({"players": ["A", "B", "C"], "convention": "piter_races"}, {"players"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "pool_target": 0}, {"pool_target"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "pool_target": "20"}, {"pool_target"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "pool_target": 2.5}, {"pool_target"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "first_dealer": 3}, {"first_dealer"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "first_dealer": -1}, {"first_dealer"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "colour": "red"}, {"colour"}),
        ({"players": ["A", "B", "C"], "convention": "sochi", "options": {"games": 3}}, {"options.games"}),
        (
            {"players": ["A", "B", "C"], "convention": "sochi", "options": {"stalingrad": "yes"}},
            {"options.stalingrad"},
        ),
        (
            {"players": ["A", "B", "C"], "convention": "piter", "options": {"allpass_costs": [1, 2, 3]}},
            {"options.allpass_costs"},
        ),
        ({"players": ["A", "B", "C"], "convention": "piter", "options": []}, {"options"}),
        ([1, 2, 3], {"body"}),
    ],
)
def test_create_table_refuses_bad_settings(api, body, bad):
    r = api.post("/v1/tables", json=body)
    assert r.status_code == 422, r.text
    p = r.json()
    assert p["status"] == 422 and p["type"] and p["title"] and p["detail"]
    assert bad <= fields(r), p


def test_options_type_errors_never_500(api):
    for value in [None, {"x": 1}, [[1]], 1e308, "true", -1, 10**30]:
        r = api.post(
            "/v1/tables",
            json={"players": ["A", "B", "C"], "convention": "piter", "options": {"clean_writeoff": value}},
        )
        assert r.status_code == 422, (value, r.text)


def test_unknown_table_is_404_problem(api):
    r = api.get("/v1/tables/doesnotexist")
    assert r.status_code == 404 and r.headers["content-type"].startswith(PROBLEM)
    assert r.json()["status"] == 404


def test_other_owner_gets_404_on_every_route(api, other_api):
    t = api.table()
    tid = t["id"]
    api.deal(tid, {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
    deal = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}}
    calls = [
        ("get", f"/v1/tables/{tid}", None),
        ("get", f"/v1/tables/{tid}/sheet", None),
        ("get", f"/v1/tables/{tid}/settlement", None),
        ("get", f"/v1/tables/{tid}/deals", None),
        ("get", f"/v1/tables/{tid}/deals/1", None),
        ("post", f"/v1/tables/{tid}/deals", deal),
        ("put", f"/v1/tables/{tid}/deals/1", deal),
        ("delete", f"/v1/tables/{tid}/deals/1", None),
    ]
    for method, url, body in calls:
        kw = {"json": body} if body is not None else {}
        r = getattr(other_api, method)(url, **kw)
        assert r.status_code == 404, (method, url, r.text)
        assert r.headers["content-type"].startswith(PROBLEM)
    # and nothing changed for the owner
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 1
