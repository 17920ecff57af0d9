"""The open game record: export (JSON validated against docs/record.schema.json, CSV),
import under another key and export again (the same document but ids and timestamps),
refusals (entries that disagree, an unknown version, too large), the import's own body limit."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path

import jsonschema

from .samples import ALLPASS, PULKA, pass_6s

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "record.schema.json").read_text())
PROBLEM = "application/problem+json"


def fields(response) -> set[str]:
    assert response.headers["content-type"].startswith(PROBLEM), response.text
    return {e["field"] for e in response.json()["errors"]}


def played(api, **kw):
    t = api.table(pool_target=4, **kw)
    for deal in PULKA:
        api.deal(t["id"], deal)
    return t


def export(api, table_id):
    r = api.get(f"/v1/tables/{table_id}/export")
    assert r.status_code == 200, r.text
    return r.json()


def without_ids_and_times(record):
    out = copy.deepcopy(record)
    for key in ("id", "created_at", "updated_at"):
        out["table"].pop(key)
    for d in out["deals"]:
        d.pop("created_at")
    return out


def test_the_export_is_a_valid_record(api):
    t = played(api)
    api.client.patch(
        f"/v1/tables/{t['id']}", json={"title": "Tuesday", "note": "at Vera's"}, headers=api.headers
    )
    record = export(api, t["id"])
    jsonschema.validate(record, SCHEMA)
    assert record["format"] == "prefscore-record" and record["version"] == 1
    assert record["table"]["id"] == t["id"] and record["table"]["title"] == "Tuesday"
    assert record["table"]["rules_version"] == 2
    # Every field of the typed rule table, with its value.
    from app.rules import FIELD_NAMES

    assert set(record["table"]["rules"]) == set(FIELD_NAMES)
    assert record["table"]["rules"]["pool_rate"] == 1
    assert [d["number"] for d in record["deals"]] == [1, 2, 3, 4]
    stored = api.get(f"/v1/tables/{t['id']}/deals/1").json()
    assert record["deals"][0]["deal"]["contract"] == stored["contract"] == "6S"
    assert record["deals"][0]["created_at"] == stored["created_at"]
    # Deal 1: Boris (seat 1) plays 6S unwhisted in sochi, scale 1: 2 in his pool.
    assert record["deals"][0]["entries"] == [{"kind": "pool", "seat": 1, "on": None, "amount": 2}]
    assert record["sheet"]["finished"] is True and record["sheet"]["players"][0]["name"] == "Anna"


def test_export_import_export_is_the_same_document(api, other_api):
    t = played(api, players=["Anna", "Boris", "Vera"])
    first = export(api, t["id"])
    r = other_api.post("/v1/tables/import", json=first)
    assert r.status_code == 201, r.text
    new = r.json()
    assert r.headers["location"] == f"/v1/tables/{new['id']}" and new["id"] != t["id"]
    assert new["deal_count"] == 4 and new["sheet"] == api.get(f"/v1/tables/{t['id']}/sheet").json()
    second = export(other_api, new["id"])
    assert without_ids_and_times(second) == without_ids_and_times(first)
    # The deals keep the times they were played.
    assert [d["created_at"] for d in second["deals"]] == [d["created_at"] for d in first["deals"]]
    # The imported table plays on like any other.
    assert other_api.get("/v1/tables").json()["items"][0]["id"] == new["id"]


def test_a_four_player_table_with_options_round_trips(api, other_api):
    t = api.table(
        convention="piter",
        options={"stalingrad": True, "allpass_costs": [2, 4, 6]},
        players=["A", "B", "C", "D"],
    )
    # Four players: the dealer (seat 0, then 1) sits out.
    api.deal(
        t["id"],
        {
            "type": "contract",
            "declarer": 1,
            "contract": "6H",
            "defenders": {"2": "whist", "3": "pass"},
            "tricks": {"1": 6, "2": 3, "3": 1},
        },
    )
    api.deal(t["id"], {"type": "allpass", "tricks": {"0": 2, "2": 5, "3": 3}})
    first = export(api, t["id"])
    jsonschema.validate(first, SCHEMA)
    r = other_api.post("/v1/tables/import", json=first)
    assert r.status_code == 201, r.text
    assert without_ids_and_times(export(other_api, r.json()["id"])) == without_ids_and_times(first)


def test_an_empty_table_round_trips(api, other_api):
    t = api.table()
    first = export(api, t["id"])
    r = other_api.post("/v1/tables/import", json=first)
    assert r.status_code == 201, r.text
    assert without_ids_and_times(export(other_api, r.json()["id"])) == without_ids_and_times(first)


def test_entries_that_disagree_are_refused_naming_the_first_deal(api, other_api):
    record = export(api, played(api)["id"])
    record["deals"][2]["entries"][0]["amount"] = 99
    record["deals"][3]["entries"][0]["amount"] = 99
    r = other_api.post("/v1/tables/import", json=record)
    assert r.status_code == 422 and r.json()["deal"] == 3
    assert fields(r) == {"deals.2.entries"}
    assert other_api.get("/v1/tables").json()["items"] == []


def test_a_deal_that_does_not_fit_and_a_wrong_sheet_are_refused(api, other_api):
    record = export(api, played(api)["id"])
    bad = copy.deepcopy(record)
    bad["deals"][1]["deal"] = {"type": "allpass"}
    r = other_api.post("/v1/tables/import", json=bad)
    assert r.status_code == 422 and r.json()["deal"] == 2 and fields(r) == {"deals.1.deal"}
    bad = copy.deepcopy(record)
    bad["sheet"]["players"][0]["mountain"] = 1000
    assert fields(other_api.post("/v1/tables/import", json=bad)) == {"sheet"}
    bad = copy.deepcopy(record)
    bad["table"]["rules"]["pool_rate"] = 7
    assert fields(other_api.post("/v1/tables/import", json=bad)) == {"table.rules.pool_rate"}
    bad = copy.deepcopy(record)
    bad["players"][1]["name"] = "anna"
    assert fields(other_api.post("/v1/tables/import", json=bad)) == {"players"}
    assert other_api.get("/v1/tables").json()["items"] == []


def test_an_unknown_format_or_version_is_named(api, other_api):
    record = export(api, api.table()["id"])
    r = other_api.post("/v1/tables/import", json={**record, "version": 2})
    assert r.status_code == 422 and "version" in fields(r)
    r = other_api.post("/v1/tables/import", json={**record, "format": "pulka-xml"})
    assert r.status_code == 422 and "format" in fields(r)
    r = other_api.post("/v1/tables/import", json={**record, "extra": 1})
    assert r.status_code == 422 and fields(r) == {"extra"}


def test_too_many_deals_are_refused(api, other_api, app):
    record = export(api, played(api)["id"])
    limit = app.state.settings.max_deals_per_table
    record["deals"] = [record["deals"][0]] * (limit + 1)
    r = other_api.post("/v1/tables/import", json=record)
    assert r.status_code == 422 and fields(r) == {"deals"}


def test_the_import_has_its_own_larger_body_limit(api, other_api, app):
    """A record over the 64 KiB of every other route is taken; one over the record limit is
    413, and the other routes keep their limit."""
    t = api.table()
    for i in range(60):
        api.deal(t["id"], pass_6s(i % 3) if i % 2 else ALLPASS)
        if api.get(f"/v1/tables/{t['id']}/sheet").json()["finished"]:
            break
    record = export(api, t["id"])
    record["table"]["note"] = None
    body = json.dumps(record)
    padding = " " * (app.state.settings.max_body_bytes + 1000)
    big = body[:-1] + padding + "}"
    assert len(big) > app.state.settings.max_body_bytes
    r = other_api.client.post(
        "/v1/tables/import", content=big, headers={**other_api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 201, r.text
    huge = body[:-1] + " " * (app.state.settings.max_record_bytes + 1) + "}"
    r = other_api.client.post(
        "/v1/tables/import", content=huge, headers={**other_api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.headers["content-type"].startswith(PROBLEM)
    assert str(app.state.settings.max_record_bytes) in r.json()["detail"]
    r = api.client.post(
        "/v1/tables",
        content='{"players": ["A","B","C"], "convention": "sochi"' + padding + "}",
        headers={**api.headers, "Content-Type": "application/json"},
    )
    assert r.status_code == 413


def test_hostile_json_in_a_record_is_named(api, other_api):
    body = json.dumps(export(api, api.table()["id"])).replace('"title": null', '"title": "a\\u0001b"')
    r = other_api.client.post(
        "/v1/tables/import", content=body, headers={**other_api.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 422 and fields(r) == {"table.title"}


def test_csv_has_one_row_per_entry(api):
    t = played(api)
    r = api.get(f"/v1/tables/{t['id']}/export?format=csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    record = export(api, t["id"])
    assert len(rows) == sum(max(1, len(d["entries"])) for d in record["deals"])
    first = rows[0]
    assert (
        first["deal"] == "1"
        and first["type"] == "contract"
        and first["declarer"] == "1"
        and first["contract"] == "6S"
    )
    assert first["seat"] == "1" and first["kind"] == "pool" and first["on"] == "" and first["amount"] == "2"
    assert list(rows[0]) == [
        "deal",
        "type",
        "declarer",
        "contract",
        "seat",
        "kind",
        "on",
        "amount",
        "amount_exact",
        "created_at",
    ]


def test_the_export_etag_answers_304(api):
    t = api.table()
    r = api.get(f"/v1/tables/{t['id']}/export")
    again = api.get(f"/v1/tables/{t['id']}/export", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    csv_tag = api.get(f"/v1/tables/{t['id']}/export?format=csv").headers["etag"]
    assert csv_tag != r.headers["etag"]
    api.deal(t["id"], pass_6s(1))
    assert (
        api.get(f"/v1/tables/{t['id']}/export", headers={"If-None-Match": r.headers["etag"]}).status_code
        == 200
    )
