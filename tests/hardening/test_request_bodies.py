"""Request bodies cost bounded work: every list (and map) of a request model has a maximum
length, checked before its items; an error answer lists at most 20 entries plus how many
there were; and a body larger than a few KiB is parsed and validated in the thread pool,
never on the event loop (which every other request waits for)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from app.kit import schemas as schema_common
from tests.api.samples import PULKA

PROBLEM = "application/problem+json"
MAX_LISTED_ERRORS = 20  # app/kit/errors.py
JSON = {"Content-Type": "application/json"}


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


# --- every list of a request model has a maximum length ---------------------------------
def _resolve(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return components[ref.rsplit("/", 1)[-1]] if ref else schema


def _unbounded(schema: Any, components: dict[str, Any], where: str, seen: set[str]) -> list[str]:
    """The places in ``schema`` where an array has no maxItems or a map no maxProperties."""
    if isinstance(schema, list):
        return [p for i, s in enumerate(schema) for p in _unbounded(s, components, f"{where}[{i}]", seen)]
    if not isinstance(schema, dict):
        return []
    ref = schema.get("$ref")
    if ref:
        if ref in seen:
            return []
        return _unbounded(_resolve(schema, components), components, ref.rsplit("/", 1)[-1], seen | {ref})
    found = []
    if schema.get("type") == "array" and "maxItems" not in schema:
        found.append(where)
    extra = schema.get("additionalProperties")
    if schema.get("type") == "object" and extra not in (None, False) and "maxProperties" not in schema:
        found.append(where)
    for key, value in schema.items():
        if key in ("properties", "items", "anyOf", "oneOf", "allOf", "additionalProperties", "prefixItems"):
            if key == "properties":
                found += [
                    p for name, s in value.items() for p in _unbounded(s, components, f"{where}.{name}", seen)
                ]
            else:
                found += _unbounded(value, components, f"{where}.{key}", seen)
    return found


def test_every_list_and_map_of_every_request_body_has_a_maximum_length(app):
    document = app.openapi()
    components = document["components"]["schemas"]
    bodies = 0
    unbounded = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for media in operation.get("requestBody", {}).get("content", {}).values():
                bodies += 1
                unbounded += [
                    f"{method.upper()} {path}: {p}"
                    for p in _unbounded(media["schema"], components, "body", set())
                ]
    assert bodies >= 8  # tables, patch, deals, corrections, players, keys, scorer deals, import
    assert unbounded == []


def test_a_map_is_refused_by_its_length_before_its_keys_are_read(api):
    """pydantic stops a list at its max_length but reads every item of a map first."""
    t = api.table()
    tricks = {f"k{i}": "x" for i in range(5000)}
    r = api.post(f"/v1/tables/{t['id']}/deals", json={"type": "allpass", "tricks": tricks})
    assert r.status_code == 422
    assert r.json()["errors"] == [{"field": "tricks", "reason": "tricks must have at most 4 items"}]


# --- an error answer lists at most 20 entries, and how many there were -------------------
def _writeoff_body(size: int) -> bytes:
    head = b'{"type": "contract", "declarer": 0, "contract": "6S", "defenders": {"1": "pass", "2": "pass"}, "choices": {"writeoff": ['
    count = (size - len(head) - 4) // 3
    return head + b", ".join([b"9"] * count) + b"]}}"


def _bounded_refusal(r, size: int = 8 * 1024) -> dict[str, Any]:
    assert r.status_code == 422, r.text[:500]
    assert r.headers["content-type"].startswith(PROBLEM)
    assert len(r.content) < size, len(r.content)
    problem = r.json()
    assert 1 <= len(problem["errors"]) <= MAX_LISTED_ERRORS
    return problem


def test_a_64_kib_writeoff_list_is_one_refusal(api):
    t = api.table()
    body = _writeoff_body(60 * 1024)
    r = api.client.post(f"/v1/tables/{t['id']}/deals", content=body, headers={**api.headers, **JSON})
    problem = _bounded_refusal(r)
    assert problem["errors"] == [
        {"field": "choices.writeoff", "reason": "choices.writeoff must have at most 4 items"}
    ]
    assert api.get(f"/v1/tables/{t['id']}").json()["deal_count"] == 0


def test_a_64_kib_writeoff_list_through_a_scorer_link_is_one_refusal(api):
    t = api.table()
    token = api.post(f"/v1/tables/{t['id']}/scorer-link").json()["token"]
    r = api.client.post(f"/v1/score/{token}/deals", content=_writeoff_body(60 * 1024), headers=JSON)
    _bounded_refusal(r)
    assert api.get(f"/v1/tables/{t['id']}").json()["deal_count"] == 0


def test_an_import_whose_deals_are_100k_ones_is_one_refusal(api, other_api):
    t = api.table(pool_target=4)
    for deal in PULKA:
        api.deal(t["id"], deal)
    record = api.get(f"/v1/tables/{t['id']}/export").json()
    record["deals"] = [1] * 100_000
    r = other_api.client.post(
        "/v1/tables/import", content=json.dumps(record), headers={**other_api.headers, **JSON}
    )
    problem = _bounded_refusal(r)
    assert {e["field"].split(".")[0] for e in problem["errors"]} == {"deals"}


def test_more_than_20_refused_fields_are_listed_as_20_and_counted(api):
    t = api.table()
    body = {"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}} | {f"unknown_{i}": 1 for i in range(30)}
    problem = _bounded_refusal(api.post(f"/v1/tables/{t['id']}/deals", json=body))
    assert len(problem["errors"]) == MAX_LISTED_ERRORS and problem["error_count"] == 30
    assert problem["detail"].count("unknown_") == MAX_LISTED_ERRORS


def test_a_service_refusal_of_more_than_20_fields_is_listed_as_20_and_counted(api):
    """The rules' own refusals (unknown options) are cut the same way."""
    options = {f"no_such_option_{i}": 1 for i in range(30)}
    r = api.post("/v1/tables", json={"players": ["A", "B", "C"], "convention": "sochi", "options": options})
    problem = _bounded_refusal(r)
    assert len(problem["errors"]) == MAX_LISTED_ERRORS and problem["error_count"] == 30


def test_a_few_refusals_are_all_listed_without_a_count(api):
    t = api.table()
    problem = _bounded_refusal(
        api.post(f"/v1/tables/{t['id']}/deals", json={"type": "allpass", "tricks": {"0": 11}, "x": 1})
    )
    assert len(problem["errors"]) == 2 and "error_count" not in problem


# --- large bodies are parsed and validated off the event loop -----------------------------
@pytest.fixture
def parses(monkeypatch):
    """Where each JSON parse of more than 4 KiB and each validation of a request model ran:
    True on the event loop, False in a worker thread."""
    seen: dict[str, list[bool]] = {"parse": [], "validate": []}
    loads = json.loads
    valid_text = schema_common._valid_text

    def recording_loads(s, *a, **kw):
        if len(s) > 4096:
            seen["parse"].append(_on_loop())
        return loads(s, *a, **kw)

    def recording_valid_text(value):
        if isinstance(value, dict):  # a model validating a body (not an instance made already)
            seen["validate"].append(_on_loop())
        return valid_text(value)

    monkeypatch.setattr(json, "loads", recording_loads)
    monkeypatch.setattr(schema_common, "_valid_text", recording_valid_text)
    return seen


def test_a_large_import_is_parsed_and_validated_off_the_event_loop(api, other_api, parses):
    t = api.table(pool_target=4)
    for deal in PULKA:
        api.deal(t["id"], deal)
    record = api.get(f"/v1/tables/{t['id']}/export").json()
    record["table"]["note"] = "\\u00e9" * 2000  # an escape: the guard's byte scan cannot clear it
    body = json.dumps(record).encode()
    assert len(body) > 8 * 1024
    parses["parse"].clear()
    parses["validate"].clear()
    r = other_api.client.post("/v1/tables/import", content=body, headers={**other_api.headers, **JSON})
    assert r.status_code in (201, 422), r.text[:300]
    assert len(parses["parse"]) >= 2  # the route's parse and the hostile-JSON check
    assert parses["validate"]
    assert not any(parses["parse"]) and not any(parses["validate"]), parses


@pytest.mark.parametrize("escape", [False, True])
def test_a_large_deal_body_is_parsed_and_validated_off_the_event_loop(api, parses, escape):
    """A deal padded to 16 KiB: with an escape the guard must parse it as well."""
    t = api.table()
    deal = dict(PULKA[0], note="\\u00e9" if escape else "e")
    body = json.dumps(deal)[:-1] + " " * 16 * 1024 + "}"
    parses["parse"].clear()
    parses["validate"].clear()
    r = api.client.post(f"/v1/tables/{t['id']}/deals", content=body, headers={**api.headers, **JSON})
    assert r.status_code == 201, r.text
    assert len(parses["parse"]) >= (2 if escape else 1) and parses["validate"]
    assert not any(parses["parse"]) and not any(parses["validate"]), parses


def test_a_large_refused_body_waits_for_the_key_check(client):
    """Refusals found in the thread pool are answered in their turn: no key, 401 first."""
    body = _writeoff_body(16 * 1024)
    r = client.post("/v1/tables/0123456789abcdef0123456789abcdef/deals", content=body, headers=JSON)
    assert r.status_code == 401


def test_a_large_body_that_is_not_json_is_named(api):
    t = api.table()
    body = b'{"type": "allpass", ' + b" " * 8 * 1024 + b"oops}"
    r = api.client.post(f"/v1/tables/{t['id']}/deals", content=body, headers={**api.headers, **JSON})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "body"


def test_every_route_with_a_body_uses_the_off_loop_route_class(app):
    from fastapi.routing import APIRoute

    from app.kit.bodies import BodyRoute

    def routes(items):
        for route in items:
            inner = getattr(route, "original_router", None)
            if inner is not None:
                yield from routes(inner.routes)
            else:
                yield route

    with_body = [r for r in routes(app.router.routes) if isinstance(r, APIRoute) and r.body_field is not None]
    assert len(with_body) >= 8
    assert [r.path for r in with_body if not isinstance(r, BodyRoute)] == []
    assert threading.current_thread() is threading.main_thread()


def test_the_listed_bound_is_the_documented_one():
    from app.kit.limits import MAX_LISTED_ERRORS as listed

    assert listed == MAX_LISTED_ERRORS
