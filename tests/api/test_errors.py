"""Errors are problem+json everywhere; health; the OpenAPI document; no input makes a 500."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.kit.settings import Settings
from app.main import create_app

from .samples import ALLPASS

PROBLEM = "application/problem+json"


def is_problem(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["status"] == status and body["type"] and body["title"] and isinstance(body["detail"], str)
    return body


def test_unknown_route_and_method(client, api):
    is_problem(client.get("/nope"), 404)
    is_problem(api.get("/v1/nope"), 404)
    is_problem(client.delete("/health"), 405)
    is_problem(api.put("/v1/tables", json={}), 405)


def test_body_too_large_is_413(api):
    tid = api.table()["id"]
    big = {**ALLPASS, "note": "x" * 100_000}
    is_problem(api.post(f"/v1/tables/{tid}/deals", json=big), 413)

    # chunked, without a Content-Length
    def chunks():
        yield b'{"type": "allpass", "note": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    r = api.post(f"/v1/tables/{tid}/deals", content=chunks(), headers={"Content-Type": "application/json"})
    is_problem(r, 413)
    assert api.get(f"/v1/tables/{tid}").json()["deal_count"] == 0


def test_unexpected_errors_are_problem_500(settings, db, admin_key, monkeypatch):
    from app.conventions import service as conventions

    def boom():
        raise RuntimeError("secret internals")

    monkeypatch.setattr(conventions, "conventions_catalog", boom)
    app = create_app(settings, db=db)
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/v1/conventions", headers={"Authorization": f"Bearer {admin_key}"})
        body = is_problem(r, 500)
        assert "secret" not in r.text and body["title"]


def test_health_ok(client):
    r = client.get("/health")
    assert r.status_code == 200 and r.json() == {"status": "ok", "database": "ok", "writes": True}


def test_health_503_when_the_database_is_down(tmp_path):
    url = f"sqlite:///{tmp_path}/missing-dir/x.db"  # a directory that does not exist
    app = create_app(Settings(database_url=url, admin_key="k"))
    with TestClient(app) as c:
        r = c.get("/health")
        is_problem(r, 503)
        assert r.json()["database"] == "down"


def test_health_503_postgres_unreachable():
    app = create_app(Settings(database_url="postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2"))
    with TestClient(app) as c:
        is_problem(c.get("/health"), 503)


def test_openapi_describes_the_api(client):
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for path in (
        "/health",
        "/v1/conventions",
        "/v1/keys",
        "/v1/tables",
        "/v1/tables/{table_id}",
        "/v1/tables/{table_id}/deals",
        "/v1/tables/{table_id}/deals/{number}",
        "/v1/tables/{table_id}/sheet",
        "/v1/tables/{table_id}/settlement",
        "/v1/shared/{token}",
    ):
        assert path in paths, path
    assert set(paths["/v1/tables/{table_id}/deals/{number}"]) >= {"get", "put", "delete"}
    body = paths["/v1/tables/{table_id}/deals"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    if "$ref" in body:  # the named union, DealInput
        body = doc["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    assert body["discriminator"]["propertyName"] == "type"
    assert set(body["discriminator"]["mapping"]) == {
        "contract",
        "misere",
        "remise",
        "allpass",
        "close",
        "penalty",
    }
    schemas = doc["components"]["schemas"]
    assert schemas["ContractDeal"]["additionalProperties"] is False
    assert {"401", "404", "409", "412", "422"} <= set(
        paths["/v1/tables/{table_id}/deals"]["post"]["responses"]
    )
    assert "bearer" in str(doc["components"]["securitySchemes"]).lower()


def test_garbage_never_500s(api):
    tid = api.table()["id"]
    junk = [
        None,
        0,
        "x",
        [],
        {},
        {"type": None},
        {"type": "contract", "declarer": True},
        {"type": "allpass", "tricks": []},
        {"type": "allpass", "tricks": {"0": True}},
        {"type": "contract", "declarer": 0, "contract": "6S", "defenders": []},
        {
            "type": "contract",
            "declarer": 0,
            "contract": "6S",
            "defenders": {"0": "whist", "1": "whist", "2": "whist"},
        },
        {
            "type": "contract",
            "declarer": 0,
            "contract": "6S",
            "defenders": {"1": "whist", "2": "whist"},
            "tricks": {"3": 10},
        },
        {"type": "misere", "declarer": 3},
        {"type": "remise", "declarer": 0, "contract": "10NT", "dealer": 3},
        {"type": "allpass", "tricks": {"0": 10}, "choices": {"writeoff": [0, 0]}},
        {"type": "allpass", "tricks": {"0": 10}, "choices": {"help": 3, "writeoff": [3]}},
    ]
    for body in junk:
        r = api.post(f"/v1/tables/{tid}/deals", json=body)
        assert r.status_code in (409, 422), (body, r.text)
        assert r.headers["content-type"].startswith(PROBLEM)
    for method in ("get", "delete"):
        assert getattr(api, method)(f"/v1/tables/{'x' * 3000}/deals/1").status_code == 404
    assert api.get("/v1/tables/%00").status_code == 404
    assert api.get("/v1/tables/%00/deals/1").status_code == 404
    assert api.get("/v1/shared/%00").status_code == 404
    r = api.post("/v1/tables", json={"players": ["A\u0000", "B", "C"], "convention": "sochi"})
    assert r.status_code == 422
    raw = b'{"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "note": "a joker \\ud83c\\udccf"}'
    r = api.post(f"/v1/tables/{tid}/deals", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 201, r.text
    assert api.get(f"/v1/tables/{tid}/deals/1").json()["note"] == "a joker \U0001f0cf"
    for raw in (
        b'{"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "note": "lone \\ud800"}',
        b'{"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "note": "nul \\u0000"}',
        b'{"type": "allpass", "tricks": {"0": 2, "1": 5, "2": 3}, "\\udfff": 1}',
    ):
        r = api.post(f"/v1/tables/{tid}/deals", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, r.text
    raw = b'{"players": ["A", "B", "C"], "convention": "piter", "options": {"\\ud800": 1}}'
    assert (
        api.post("/v1/tables", content=raw, headers={"Content-Type": "application/json"}).status_code == 422
    )
