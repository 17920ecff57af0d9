"""No request body is received before the caller is authenticated: a route that needs a key
answers 401, and a scorer link that is unknown or revoked 404, without reading a byte of the
body (the gate of app/kit/middleware/rate_limit.py, outside the body checks and the
framework). Before, the framework read and parsed the body first -- a 4 MiB record import
with no key cost seconds of CPU on the event loop before its 401.

The app is called as an ASGI server would call it, with a ``receive`` that counts the body
bytes it hands out."""

from __future__ import annotations

import json
import secrets
from typing import Any

import anyio
import pytest
from sqlalchemy.exc import OperationalError

from tests.api.samples import PASS_6S

PROBLEM = "application/problem+json"
CHUNK = 64 * 1024


class Sent:
    def __init__(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.bytes_read = 0

    def json(self) -> Any:
        return json.loads(self.body)


def call(app: Any, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Sent:
    """One request to the ASGI ``app``: its answer and how many body bytes the app received."""
    out = Sent()
    chunks = [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)] or [b""]

    async def receive() -> dict[str, Any]:
        if chunks:
            chunk = chunks.pop(0)
            out.bytes_read += len(chunk)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        await anyio.sleep(3600)  # the body has all been read: the client waits for its answer
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out.status = message["status"]
            out.headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            out.body += message.get("body", b"")

    raw = [
        (b"host", b"testserver"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": raw,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }

    async def run() -> None:
        with anyio.fail_after(60):
            await app(scope, receive, send)

    anyio.run(run)
    return out


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


# A large JSON body of each route that takes one (the import's: an array of integers).
IMPORT_BODY = b"[" + b",".join(b"1234567" for _ in range(64 * 1024)) + b"]"  # ~512 KiB


def _bodies(tid: str) -> list[tuple[str, str, bytes]]:
    deal = _json({**PASS_6S, "note": "x" * 30_000})
    return [
        (
            "POST",
            "/v1/tables",
            _json({"players": ["Anna", "Boris", "Vera"], "convention": "sochi", "title": "t" * 40_000}),
        ),
        ("POST", "/v1/tables/import", IMPORT_BODY),
        ("POST", f"/v1/tables/{tid}/deals", deal),
        ("PUT", f"/v1/tables/{tid}/deals/1", deal),
        ("PATCH", f"/v1/tables/{tid}", _json({"title": "x" * 40_000})),
        ("POST", "/v1/players", _json({"name": "x" * 40_000})),
        ("POST", "/v1/keys", _json({"owner": "x" * 40_000})),
    ]


NO_KEYS = [
    ({}, "an API key is required: Authorization: Bearer <key>"),
    ({"Authorization": "Basic eDp5"}, "an API key is required: Authorization: Bearer <key>"),
    ({"Authorization": "Bearer   "}, "an API key is required: Authorization: Bearer <key>"),
    (
        {"Authorization": "Bearer pk_made_up_and_cached"},
        "this API key is not valid",
    ),  # the second time: from the cache
    ({"Authorization": "Bearer pk_made_up_and_cached"}, "this API key is not valid"),
]


TID = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("method", "path", "body"), _bodies(TID), ids=[f"{m} {p}" for m, p, _ in _bodies(TID)]
)
def test_a_request_without_a_valid_key_is_refused_before_its_body_is_read(app, method, path, body):
    assert len(body) > 30_000
    for headers, detail in NO_KEYS + [
        ({"Authorization": f"Bearer pk_{secrets.token_urlsafe(32)}"}, "this API key is not valid")
    ]:
        r = call(app, method, path, body, headers)
        assert r.status == 401, (method, path, headers, r.body[:300])
        assert r.bytes_read == 0, (method, path, headers, r.bytes_read)
        # the answer the dependency gives (app/kit/deps.py, app/kit/problems.py)
        assert r.headers["content-type"].startswith(PROBLEM)
        assert r.headers["www-authenticate"] == "Bearer"
        assert r.json() == {
            "type": "https://prefscore.example/problems/unauthorized",
            "title": "Unauthorized",
            "status": 401,
            "detail": detail,
        }


def test_a_valid_key_still_gets_its_body_read(app, api):
    body = _json({"players": ["Anna", "Boris", "Vera"], "convention": "sochi"})
    r = call(app, "POST", "/v1/tables", body, {"Authorization": f"Bearer {api.key}"})
    assert r.status == 201, r.body
    assert r.bytes_read == len(body)


def test_an_unknown_or_revoked_scorer_link_is_refused_before_its_body_is_read(app, api):
    tid = api.table()["id"]
    made = api.post(f"/v1/tables/{tid}/scorer-link").json()
    valid = made["token"]
    revoked = api.post(f"/v1/tables/{tid}/scorer-link").json()
    assert api.delete(f"/v1/tables/{tid}/scorer-links/{revoked['id']}").status_code == 200
    deal = _json({**PASS_6S, "note": "x" * 30_000})
    for token in ("sc_" + secrets.token_urlsafe(32)[:43], revoked["token"], "not-a-link"):
        for method, path in (("POST", f"/v1/score/{token}/deals"), ("PUT", f"/v1/score/{token}/deals/1")):
            r = call(app, method, path, deal)
            assert r.status == 404, (path, r.body[:300])
            assert r.bytes_read == 0, (path, r.bytes_read)
            assert r.headers["content-type"].startswith(PROBLEM)
            assert r.json()["detail"] == "no scorer link with this token (or it was revoked)"
    body = _json(PASS_6S)
    r = call(app, "POST", f"/v1/score/{valid}/deals", body)
    assert r.status == 201, r.body
    assert r.bytes_read == len(body)


@pytest.mark.parametrize("lookup", ["app.keys.service.identify", "app.scorer.service.resolve"])
def test_a_lookup_that_cannot_reach_the_database_is_503_before_the_body(app, monkeypatch, lookup):
    def away(*_a: Any, **_k: Any) -> None:
        raise OperationalError("SELECT 1", {}, ConnectionError("the database is away"))

    monkeypatch.setattr(lookup, away)
    path = "/v1/tables" if "keys" in lookup else f"/v1/score/sc_{'A' * 43}/deals"
    r = call(
        app,
        "POST",
        path,
        _json({"x": "y" * 40_000}),
        {"Authorization": f"Bearer pk_{secrets.token_urlsafe(32)}"},
    )
    assert r.status == 503, r.body
    assert r.bytes_read == 0
    assert r.headers["content-type"].startswith(PROBLEM) and r.headers["retry-after"] == "1"


def test_the_gate_knows_which_routes_need_a_key():
    """The gate (app/kit/middleware/rate_limit.py) asks for a key on every ``/v1`` route but
    the share and scorer links': each route's own dependencies say the same."""
    from fastapi.routing import APIRoute

    from app.kit.deps import current_caller, current_scorer
    from app.main import ROUTERS
    from app.records import router as records

    def calls(dependant: Any) -> set[Any]:
        out = set()
        for sub in dependant.dependencies:
            out.add(sub.call)
            out |= calls(sub)
        return out

    seen = 0
    for router in (records.router, *ROUTERS):
        for route in router.routes:
            if not isinstance(route, APIRoute) or not route.path.startswith("/v1/"):
                continue
            seen += 1
            deps = calls(route.dependant)
            if route.path.startswith("/v1/shared/"):
                assert current_caller not in deps and current_scorer not in deps, route.path
            elif route.path.startswith("/v1/score/"):
                assert current_scorer in deps, route.path
            else:
                assert current_caller in deps, route.path
    assert seen > 30
