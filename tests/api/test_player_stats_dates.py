"""Any date a client may send is answered 200 or a 422 problem naming the field, never a
500: a player's statistics with the first and the last day a date can hold, and a record's
times outside the years a UTC time can hold."""

from __future__ import annotations

import pytest

PROBLEM = "application/problem+json"


@pytest.fixture
def player(api):
    anna = api.post("/v1/players", json={"name": "Anna"}).json()
    assert (
        api.post(
            "/v1/tables",
            json={
                "players": [{"name": "Anna", "player": anna["id"]}, "Boris", "Vera"],
                "convention": "sochi",
            },
        ).status_code
        == 201
    )
    return anna


@pytest.mark.parametrize(
    "query",
    [
        "to=9999-12-31",
        "from=9999-12-31",
        "from=9999-12-31&to=9999-12-31",
        "from=0001-01-01",
        "to=0001-01-01",
        "from=0001-01-01&to=9999-12-31",
    ],
)
def test_the_extreme_dates_are_answered(api, player, query):
    r = api.get(f"/v1/players/{player['id']}/stats?{query}")
    assert r.status_code == 200, r.text
    expected = 1 if "to=0001" not in query and "from=9999" not in query else 0
    assert r.json()["tables"] == expected, r.text


@pytest.mark.parametrize(
    "param, value",
    [
        ("to", "10000-01-01"),
        ("to", "9999-12-32"),
        ("from", "0000-12-31"),
        ("from", "-1"),
        ("to", "99999999999999999999"),
        ("to", "253402300800"),  # the first second after 9999-12-31 as a Unix time
        ("from", "1e400"),
        ("to", "2026-02-30"),
        ("to", "x" * 1000),
    ],
)
def test_dates_that_are_not_dates_are_422(api, player, param, value):
    r = api.get(f"/v1/players/{player['id']}/stats", params={param: value})
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert param in [e["field"] for e in r.json()["errors"]], r.text


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_a_deal_time_outside_the_utc_years_is_422(api, when):
    """An imported deal's time: such a time was stored, and on PostgreSQL every later read of
    the table's deals was a 500 (the stored time could not be read back)."""
    table = api.table()
    api.deal(table["id"], {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}})
    record = api.get(f"/v1/tables/{table['id']}/export").json()
    record["deals"] = [{**d, "created_at": when} for d in record["deals"]]
    r = api.post("/v1/tables/import", json=record)
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert "deals.0.created_at" in [e["field"] for e in r.json()["errors"]], r.text
