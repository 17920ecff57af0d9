"""GET /v1/conventions: every preset with every field of the rule table, typed in the OpenAPI
document (docs/rules.md, "The rule table")."""

from __future__ import annotations

from app.rules import CONVENTION_NAMES, FIELD_NAMES, PRESETS, make_rules
from app.rules.fields import to_json


def test_every_preset_lists_every_field_with_type_choices_and_its_value(api):
    r = api.get("/v1/conventions")
    assert r.status_code == 200
    body = r.json()
    assert [c["name"] for c in body] == list(CONVENTION_NAMES)
    for conv in body:
        fields = {o["name"]: o for o in conv["options"] if "alias_of" not in o}
        assert list(fields) == list(FIELD_NAMES)
        rules = make_rules(conv["name"], conv["players"][0])
        for name, spec in fields.items():
            assert spec["default"] == to_json(getattr(rules, name)), (conv["name"], name)
            assert spec["type"] in ("bool", "int", "enum", "int_list", "cost_ladder")
            assert spec["description"]
            if spec["type"] in ("bool", "enum", "int_list", "cost_ladder"):
                assert spec["default"] in spec["choices"], (conv["name"], name)
        assert fields["single_whister"]["choices"] == ["open", "closed", "gentlemen", "gentlemen_always"]
        assert fields["allpass_costs"]["arithmetic_max"] == 100
        assert conv["classic_options"] == list(PRESETS[conv["name"]].classic)


def test_classic_aliases_are_listed_where_they_were_options(api):
    body = {c["name"]: c for c in api.get("/v1/conventions").json()}
    aliases = {c: {o["name"]: o for o in conv["options"] if "alias_of" in o} for c, conv in body.items()}
    assert aliases["sochi"]["gentlemen_whist"] == {
        "name": "gentlemen_whist",
        "type": "bool",
        "default": False,
        "choices": [False, True],
        "alias_of": "single_whister",
        "description": aliases["sochi"]["gentlemen_whist"]["description"],
    }
    assert (
        set(aliases["rostov"]) == {"dealer_clean"} and aliases["rostov"]["dealer_clean"]["default"] is False
    )
    assert aliases["vmk"] == {}


def test_openapi_types_the_catalog(client):
    doc = client.get("/openapi.json").json()
    op = doc["paths"]["/v1/conventions"]["get"]
    assert op["operationId"] == "listConventions"
    schema = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["type"] == "array" and schema["items"]["$ref"].endswith("/ConventionOut")
    field = doc["components"]["schemas"]["RuleField"]
    assert set(field["properties"]["type"]["enum"]) == {"bool", "int", "enum", "int_list", "cost_ladder"}


def test_a_table_may_override_any_field_over_http(api):
    t = api.table(
        convention="piter", options={"single_whister": "closed", "allpass_costs": {"start": 2, "step": 2}}
    )
    assert t["options"]["single_whister"] == "closed"
    assert t["options"]["allpass_costs"] == {"start": 2, "step": 2}
    r = api.post(
        "/v1/tables",
        json={"players": ["A", "B", "C"], "convention": "sochi", "options": {"end_of_game": "deals"}},
    )
    assert r.status_code == 422
    assert {e["field"] for e in r.json()["errors"]} == {"options.end_of_game"}  # needs game_deals
