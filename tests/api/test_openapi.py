"""The contract a generator reads: /openapi.json names each operation, declares every error
as problem+json with the one Problem schema, every header a route sends, request fields with
defaults as optional, and the deal as named unions."""

from __future__ import annotations

import json

import pytest

PROBLEM = "application/problem+json"
OPERATIONS = {
    ("post", "/v1/tables"): "createTable",
    ("get", "/v1/tables/{table_id}"): "getTable",
    ("post", "/v1/tables/{table_id}/deals"): "postDeal",
    ("get", "/v1/tables/{table_id}/deals"): "listDeals",
    ("get", "/v1/tables/{table_id}/deals/{number}"): "getDeal",
    ("delete", "/v1/tables/{table_id}/deals/{number}"): "undoDeal",
    ("put", "/v1/tables/{table_id}/deals/{number}"): "correctDeal",
    ("get", "/v1/tables/{table_id}/sheet"): "getSheet",
    ("get", "/v1/tables/{table_id}/sheet.svg"): "getSheetSvg",
    ("get", "/v1/tables/{table_id}/settlement"): "getSettlement",
    ("get", "/v1/shared/{token}"): "getSharedTable",
    ("get", "/v1/shared/{token}/deals"): "listSharedDeals",
    ("get", "/v1/shared/{token}/sheet.svg"): "getSharedSheetSvg",
    ("post", "/v1/keys"): "createKey",
    ("post", "/v1/players"): "createPlayer",
    ("get", "/v1/players"): "listPlayers",
    ("get", "/v1/players/{player_id}"): "getPlayer",
    ("patch", "/v1/players/{player_id}"): "updatePlayer",
    ("get", "/v1/players/{player_id}/stats"): "getPlayerStats",
    ("get", "/v1/tables"): "listTables",
    ("patch", "/v1/tables/{table_id}"): "updateTable",
    ("delete", "/v1/tables/{table_id}"): "deleteTable",
    ("post", "/v1/tables/{table_id}/share-token"): "rotateShareToken",
    ("get", "/v1/tables/{table_id}/export"): "exportTable",
    ("post", "/v1/tables/import"): "importTable",
    ("get", "/health"): "getHealth",
}


@pytest.fixture(scope="module")
def doc(client) -> dict:
    return client.get("/openapi.json").json()


def operations(doc: dict):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "delete", "patch"):
                yield method, path, op


def schema(doc: dict, ref_or_schema: dict) -> dict:
    ref = ref_or_schema.get("$ref")
    return doc["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else ref_or_schema


def test_operation_ids_are_readable_and_stable(doc):
    found = {(m, p): op.get("operationId") for m, p, op in operations(doc)}
    for key, operation_id in OPERATIONS.items():
        assert found.get(key) == operation_id, key
    ids = [i for i in found.values() if i]
    assert len(ids) == len(set(ids))


def test_the_html_page_and_metrics_are_not_operations(doc):
    assert "/shared/{token}" not in doc["paths"] and "/metrics" not in doc["paths"]


def test_one_schema_name_per_shape(doc):
    # a model used both ways would be split by FastAPI into "X-Input" and "X-Output"
    assert [n for n in doc["components"]["schemas"] if n.endswith(("-Input", "-Output"))] == []


def test_no_fastapi_validation_error_anywhere(doc):
    text = json.dumps(doc)
    assert "HTTPValidationError" not in text and '"ValidationError"' not in text
    assert "#/components/schemas/ValidationError" not in text


def test_every_error_is_problem_json_with_the_problem_schema(doc):
    assert {"type", "title", "status", "detail"} <= set(doc["components"]["schemas"]["Problem"]["required"])
    problem = doc["components"]["schemas"]["Problem"]["properties"]
    assert {"errors", "deal"} <= set(problem)
    for method, path, op in operations(doc):
        errors = {code: r for code, r in op["responses"].items() if code[0] in "45"}
        assert errors, (method, path)
        for code, response in errors.items():
            assert list(response["content"]) == [PROBLEM], (method, path, code)
            assert response["content"][PROBLEM]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_statuses_declared_where_they_can_happen(doc):
    for method, path, op in operations(doc):
        codes = set(op["responses"])
        assert "503" in codes, (method, path)
        if op.get("requestBody"):
            assert {"413", "422"} <= codes, (method, path)
        if path.startswith("/v1/") and op.get("security") != []:
            assert {"401", "429"} <= codes, (method, path)
            assert "Retry-After" in op["responses"]["429"]["headers"]
        assert "Retry-After" in op["responses"]["503"]["headers"]
    deal = doc["paths"]["/v1/tables/{table_id}/deals"]["post"]["responses"]
    assert {"404", "409", "412", "422"} <= set(deal)


def test_response_headers_declared(doc):
    paths = doc["paths"]
    post = paths["/v1/tables/{table_id}/deals"]["post"]["responses"]["201"]["headers"]
    assert {"Location", "ETag", "Idempotent-Replayed"} <= set(post)
    assert {"Location", "ETag"} <= set(paths["/v1/tables"]["post"]["responses"]["201"]["headers"])
    for path in (
        "/v1/tables/{table_id}/sheet",
        "/v1/tables/{table_id}/settlement",
        "/v1/shared/{token}",
        "/v1/shared/{token}/deals",
        "/v1/tables/{table_id}/sheet.svg",
        "/v1/shared/{token}/sheet.svg",
    ):
        responses = paths[path]["get"]["responses"]
        assert {"ETag", "Cache-Control"} <= set(responses["200"]["headers"]), path
        assert "ETag" in responses["304"]["headers"], path
        assert "content" not in responses["304"], path


def test_request_fields_with_defaults_are_optional(doc):
    table = doc["components"]["schemas"]["TableCreate"]
    assert set(table["required"]) == {"players", "convention"}
    for name in ("first_dealer", "pool_target", "options"):
        # openapi-typescript makes a property with a default required: the default is said in words
        assert "default" not in table["properties"][name], name
    assert "default 0" in table["properties"]["first_dealer"]["description"]
    for kind in ("ContractDeal", "MisereDeal", "RemiseDeal", "AllpassDeal", "Choices", "Talon"):
        s = doc["components"]["schemas"][kind]
        assert "type" not in s.get("required", []), kind
        for name, prop in s["properties"].items():
            assert name == "type" or "default" not in prop, (kind, name)


def test_the_deal_input_is_a_named_union_with_constant_tags(doc):
    body = doc["paths"]["/v1/tables/{table_id}/deals"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/DealInput"}
    assert (
        doc["paths"]["/v1/tables/{table_id}/deals/{number}"]["put"]["requestBody"]["content"][
            "application/json"
        ]["schema"]
        == body["schema"]
    )
    union = doc["components"]["schemas"]["DealInput"]
    assert union["discriminator"]["propertyName"] == "type"
    assert set(union["discriminator"]["mapping"]) == {
        "contract",
        "misere",
        "remise",
        "allpass",
        "close",
        "penalty",
    }
    for tag, ref in union["discriminator"]["mapping"].items():
        variant = schema(doc, {"$ref": ref})
        assert variant["properties"]["type"]["const"] == tag
        assert variant["properties"]["type"]["default"] == tag  # a generator fills it in
    assert set(body["examples"]) == {"contract", "misere", "remise", "allpass", "close", "penalty"}


def test_the_stored_deal_is_typed_per_kind(doc):
    schemas = doc["components"]["schemas"]
    stored = schemas["StoredDeal"]
    assert set(stored["discriminator"]["mapping"]) == {
        "contract",
        "misere",
        "remise",
        "allpass",
        "close",
        "penalty",
    }
    contract = schemas["StoredContractDeal"]
    assert {"number", "type", "declarer", "contract", "defenders", "entries"} <= set(contract["required"])
    assert "contract" not in schemas["StoredAllpassDeal"]["properties"]
    assert "declarer" not in schemas["StoredAllpassDeal"]["properties"]
    assert schemas["DealWithSheet"]["properties"]["deal"] == {"$ref": "#/components/schemas/StoredDeal"}
    get_deal = doc["paths"]["/v1/tables/{table_id}/deals/{number}"]["get"]["responses"]["200"]
    assert get_deal["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/StoredDeal"}


def test_one_paged_shape_for_both_listings(doc):
    schemas = doc["components"]["schemas"]
    keyed = doc["paths"]["/v1/tables/{table_id}/deals"]["get"]
    shared = doc["paths"]["/v1/shared/{token}/deals"]["get"]
    assert keyed["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/DealPage"
    }
    page = schemas["SharedDealPage"]
    assert {"items", "next"} <= set(page["required"]) and "deals" not in page["properties"]
    for op in (keyed, shared):
        params = {p["name"]: p["schema"] for p in op["parameters"] if p["in"] == "query"}
        assert params["limit"]["maximum"] == 200 and params["after"]["minimum"] == 0


def test_every_request_body_has_an_example(doc):
    for method, path, op in operations(doc):
        if "requestBody" not in op:
            continue
        content = op["requestBody"]["content"]["application/json"]
        target = schema(doc, content["schema"])
        assert content.get("examples") or target.get("examples"), (method, path)


def test_headers_every_answer_carries_are_declared(doc):
    for method, path, op in operations(doc):
        for code, response in op["responses"].items():
            assert "X-Request-ID" in response["headers"], (method, path, code)
        if "401" in op["responses"]:
            assert "WWW-Authenticate" in op["responses"]["401"]["headers"]
        if "429" in op["responses"]:
            assert {"Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(
                op["responses"]["429"]["headers"]
            )


def test_the_declared_headers_are_sent(api, doc):
    from .samples import PASS_6S

    table = api.post("/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"})
    calls = [(("post", "/v1/tables"), table)]
    tid = table.json()["id"]
    calls.append(
        (
            ("post", "/v1/tables/{table_id}/deals"),
            api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "h"}),
        )
    )
    calls.append(
        (
            ("post", "/v1/tables/{table_id}/deals"),
            api.post(f"/v1/tables/{tid}/deals", json=PASS_6S, headers={"Idempotency-Key": "h"}),
        )
    )
    for path in (
        "/v1/tables/{table_id}/sheet",
        "/v1/tables/{table_id}/settlement",
        "/v1/tables/{table_id}/sheet.svg",
    ):
        calls.append((("get", path), api.get(path.replace("{table_id}", tid))))
    for (method, path), r in calls:
        declared = doc["paths"][path][method]["responses"][str(r.status_code)]["headers"]
        # Idempotent-Replayed is sent on a replay only; a replay has no ETag (the sheet it
        # carries may be older than the current one)
        replay = "idempotent-replayed" in r.headers
        missing = {h for h in declared if h.lower() not in r.headers} - (
            {"ETag"} if replay else {"Idempotent-Replayed"}
        )
        assert missing == set(), (method, path, missing)
    assert calls[2][1].headers["Idempotent-Replayed"] == "true"


def test_the_player_routes_follow_the_contract(doc):
    paths, schemas = doc["paths"], doc["components"]["schemas"]
    created = paths["/v1/players"]["post"]["responses"]
    assert {"Location", "ETag"} <= set(created["201"]["headers"]) and "409" in created
    assert "ETag" in paths["/v1/players/{player_id}"]["get"]["responses"]["200"]["headers"]
    assert {"404", "409", "422"} <= set(paths["/v1/players/{player_id}"]["patch"]["responses"])
    assert {"404", "422"} <= set(paths["/v1/players/{player_id}/stats"]["get"]["responses"])
    page = paths["/v1/players"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert page == {"$ref": "#/components/schemas/PlayerPage"}
    assert {"items", "next"} <= set(schemas["PlayerPage"]["required"])
    stats = schemas["PlayerStatsOut"]
    assert {"tables", "finished", "balance_exact", "declared", "misere", "whists", "allpass"} <= set(
        stats["required"]
    )
    assert "from" in stats["properties"] and "from_" not in stats["properties"]
    params = {p["name"] for p in paths["/v1/players/{player_id}/stats"]["get"]["parameters"]}
    assert {"convention", "from", "to", "stake"} <= params
    # a table's seat: a name or a seat object linking a registered player
    seat = schemas["TableCreate"]["properties"]["players"]["items"]
    assert {"$ref": "#/components/schemas/SeatIn"} in seat.get("anyOf", seat.get("oneOf", []))
    assert set(schemas["SeatIn"]["required"]) == {"name"}


def test_the_collection_and_record_routes_declare_their_answers(doc):
    paths = doc["paths"]
    listing = paths["/v1/tables"]["get"]
    assert {"ETag", "Cache-Control"} <= set(listing["responses"]["200"]["headers"])
    assert "304" in listing["responses"] and {"401", "422"} <= set(listing["responses"])
    assert listing["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/TableList"
    }
    params = {p["name"]: p["schema"] for p in listing["parameters"] if p["in"] == "query"}
    assert (
        params["status"]["enum"] == ["active", "finished", "archived"] and params["limit"]["maximum"] == 200
    )
    assert {"status", "convention", "player", "after", "limit"} <= set(params)
    patch = paths["/v1/tables/{table_id}"]["patch"]
    assert {"404", "412", "422"} <= set(patch["responses"]) and "ETag" in patch["responses"]["200"]["headers"]
    assert "If-Match" in {p["name"] for p in patch["parameters"]}
    delete = paths["/v1/tables/{table_id}"]["delete"]
    assert "204" in delete["responses"] and "content" not in delete["responses"]["204"]
    export = paths["/v1/tables/{table_id}/export"]["get"]["responses"]
    assert set(export["200"]["content"]) == {"application/json", "text/csv"} and "304" in export
    imported = paths["/v1/tables/import"]["post"]
    assert {"Location", "ETag"} <= set(imported["responses"]["201"]["headers"])
    assert {"409", "413", "422"} <= set(imported["responses"])
    assert imported["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Record"
    }


def test_the_collection_headers_are_sent(api, doc):
    t = api.post("/v1/tables", json={"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}).json()
    calls = [
        (("get", "/v1/tables"), api.get("/v1/tables")),
        (
            ("patch", "/v1/tables/{table_id}"),
            api.client.patch(f"/v1/tables/{t['id']}", json={"title": "x"}, headers=api.headers),
        ),
        (("post", "/v1/tables/{table_id}/share-token"), api.post(f"/v1/tables/{t['id']}/share-token")),
        (("get", "/v1/tables/{table_id}/export"), api.get(f"/v1/tables/{t['id']}/export")),
    ]
    record = calls[-1][1].json()
    calls.append((("post", "/v1/tables/import"), api.post("/v1/tables/import", json=record)))
    for (method, path), r in calls:
        declared = doc["paths"][path][method]["responses"][str(r.status_code)]["headers"]
        missing = {h for h in declared if h.lower() not in r.headers}
        assert missing == set(), (method, path, missing)
