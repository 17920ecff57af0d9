"""Hostile input gets a clean 4xx problem+json, never a 5xx: oversized bodies (413 before
parsing, by Content-Length and by counting a streamed body), deep nesting, huge integers,
NaN and Infinity, control characters, lone surrogates, very long names and headers."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from .harness import create_table, is_problem

LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def table_id(live) -> str:
    table = create_table(live.url, live.key)
    r = httpx.post(
        f"{live.url}/v1/tables/{table['id']}/deals",
        json={"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}},
        headers=live.headers,
    )
    assert r.status_code == 201, r.text
    return table["id"]


def _assert_clean_4xx(r: httpx.Response, *allowed: int) -> None:
    assert 400 <= r.status_code < 500, f"{r.status_code}: {r.text[:500]}"
    if allowed:
        assert r.status_code in allowed, f"{r.status_code}: {r.text[:500]}"
    assert is_problem(r), f"not problem+json: {r.headers.get('content-type')} {r.text[:500]}"


def test_content_length_over_the_limit_is_413_before_the_body_is_sent(live):
    """The server answers 413 from the headers alone: the client has not sent one body byte."""
    with socket.create_connection(("127.0.0.1", live.server.port), timeout=10) as s:
        s.sendall(
            (
                "POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Authorization: Bearer {live.key}\r\nContent-Length: {50 * 1024 * 1024}\r\n\r\n"
            ).encode()
        )
        s.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    assert data.startswith(b"HTTP/1.1 413"), data[:300]
    assert b"application/problem+json" in data.lower()


def test_streamed_body_over_the_limit_is_413(live, table_id):
    """A chunked body has no Content-Length: the bytes are counted as they arrive."""
    sent = 0

    def chunks():
        nonlocal sent
        piece = b'{"note": "' + b"x" * 8192
        for _ in range(64):  # up to 512 KB; the server stops us long before
            sent += len(piece)
            yield piece
            piece = b"x" * 8192

    try:
        r = httpx.post(
            f"{live.url}/v1/tables/{table_id}/deals",
            content=chunks(),
            headers={**live.headers, "Content-Type": "application/json"},
            timeout=20,
        )
    except httpx.TransportError:
        pytest.fail("the server dropped the connection instead of answering 413")
    _assert_clean_4xx(r, 413)


def test_body_at_the_limit_is_parsed(live):
    """64 KB is refused only above the limit: a body of exactly the limit gets to validation."""
    body = b'{"players": ["a", "b", "c"], "convention": "sochi", "x": "'
    body += b"y" * (LIMIT - len(body) - 2) + b'"}'
    assert len(body) == LIMIT
    r = httpx.post(
        f"{live.url}/v1/tables", content=body, headers={**live.headers, "Content-Type": "application/json"}
    )
    _assert_clean_4xx(r, 422)


def _deep(n: int) -> bytes:
    return b'{"players": ' + b"[" * n + b"]" * n + b', "convention": "sochi"}'


def _table(extra: str) -> bytes:
    return ('{"players": ["Anna", "Boris", "Vera"], "convention": "sochi"' + extra + "}").encode()


def _deal(
    extra: str,
    base: str = '"type": "contract", "declarer": 1, "contract": "6S", "defenders": {"0": "pass", "2": "pass"}',
) -> bytes:
    return ("{" + base + extra + "}").encode()


TABLE_BODIES = {
    "deep-nesting-30000": _deep(30_000),
    "deep-nesting-2000": _deep(2000),
    "deep-nesting-in-options": _table(', "options": {"a": ' + "[" * 5000 + "]" * 5000 + "}"),
    "huge-int-5000-digits": _table(', "pool_target": ' + "9" * 5000),
    "huge-int-30-digits": _table(', "pool_target": ' + "9" * 30),
    "huge-negative-int": _table(', "first_dealer": -' + "9" * 40),
    "huge-int-in-options": _table(', "options": {"allpass_costs": [' + "7" * 400 + "]}"),
    "nan": _table(', "pool_target": NaN'),
    "infinity": _table(', "pool_target": Infinity'),
    "minus-infinity": _table(', "first_dealer": -Infinity'),
    "float-overflow": _table(', "pool_target": 1e999'),
    "nan-in-options": _table(', "options": {"allpass_costs": [NaN, 2]}'),
    "infinity-in-options": _table(', "options": {"allpass_costs": [1e400]}'),
    "float-pool-target": _table(', "pool_target": 20.5'),
    "nul-in-name": b'{"players": ["An\\u0000na", "Boris", "Vera"], "convention": "sochi"}',
    "escape-in-name": b'{"players": ["\\u001b[31mAnna", "Boris", "Vera"], "convention": "sochi"}',
    "bell-in-name": b'{"players": ["Anna\\u0007", "Boris", "Vera"], "convention": "sochi"}',
    "raw-control-in-name": b'{"players": ["Anna\x01", "Boris", "Vera"], "convention": "sochi"}',
    "lone-surrogate-in-name": b'{"players": ["\\ud800", "Boris", "Vera"], "convention": "sochi"}',
    "nul-in-option-name": b'{"players": ["Anna", "Boris", "Vera"], "convention": "sochi", "options": {"\\u0000": true}}',
    "nul-in-key": b'{"players": ["Anna", "Boris", "Vera"], "convention": "sochi", "\\u0000": 1}',
    "long-name-60k": (
        '{"players": ["' + "A" * 60_000 + '", "Boris", "Vera"], "convention": "sochi"}'
    ).encode(),
    "long-name-65": ('{"players": ["' + "A" * 65 + '", "Boris", "Vera"], "convention": "sochi"}').encode(),
    "blank-names": b'{"players": ["", " ", "  "], "convention": "sochi"}',
    "invalid-utf8": b'{"players": ["\xff\xfe", "Boris", "Vera"], "convention": "sochi"}',
    "many-options": (
        '{"players": ["a", "b", "c"], "convention": "sochi", "options": {'
        + ",".join(f'"o{i}": {i}' for i in range(6000))
        + "}}"
    ).encode(),
    "many-players": (
        '{"players": [' + ",".join(f'"p{i}"' for i in range(8000)) + '], "convention": "sochi"}'
    ).encode(),
    "not-json": b"players=Anna",
    "truncated": b'{"players": ["Anna", ',
    "null": b"null",
    "array": b"[]",
    "string": b'"hello"',
    "empty": b"",
    "bom": b'\xef\xbb\xbf{"players": ["Anna", "Boris", "Vera"], "convention": "sochi"}',
}


@pytest.mark.parametrize("name", sorted(TABLE_BODIES))
def test_hostile_table_bodies(live, name):
    r = httpx.post(
        f"{live.url}/v1/tables",
        content=TABLE_BODIES[name],
        headers={**live.headers, "Content-Type": "application/json"},
        timeout=30,
    )
    if name == "bom" and r.status_code == 201:
        return  # a BOM may be tolerated; refusing it is fine too
    _assert_clean_4xx(r)


DEAL_BODIES = {
    "huge-declarer": _deal(', "dealer": ' + "1" * 25),
    "huge-tricks": _deal("", '"type": "allpass", "tricks": {"0": 99999999999999999999999, "1": 5, "2": 3}'),
    "nan-tricks": _deal("", '"type": "allpass", "tricks": {"0": NaN, "1": 5, "2": 3}'),
    "infinite-declarer": _deal("", '"type": "misere", "declarer": Infinity'),
    "nul-in-note": _deal(', "note": "ab\\u0000cd"'),
    "surrogate-in-note": _deal(', "note": "\\udfff"'),
    "long-note": _deal(', "note": "' + "n" * 501 + '"'),
    "deep-note": _deal(', "note": ' + "[" * 3000 + "]" * 3000),
    "deep-choices": _deal(', "choices": {"writeoff": ' + "[" * 100 + "]" * 100 + "}"),
    "huge-seat-key": _deal("", '"type": "allpass", "tricks": {"' + "9" * 4000 + '": 1}'),
    "unknown-type": b'{"type": "\\u0000"}',
}


@pytest.mark.parametrize("name", sorted(DEAL_BODIES))
def test_hostile_deal_bodies(live, table_id, name):
    r = httpx.post(
        f"{live.url}/v1/tables/{table_id}/deals",
        content=DEAL_BODIES[name],
        headers={**live.headers, "Content-Type": "application/json"},
        timeout=30,
    )
    _assert_clean_4xx(r)
    r = httpx.put(
        f"{live.url}/v1/tables/{table_id}/deals/1",
        content=DEAL_BODIES[name],
        headers={**live.headers, "Content-Type": "application/json"},
        timeout=30,
    )
    _assert_clean_4xx(r)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/tables/{t}/deals/99999999999999999999999999",
        "/v1/tables/{t}/deals/-99999999999999999999",
        "/v1/tables/{t}/deals/NaN",
        "/v1/tables/{t}/deals/1e999",
        "/v1/tables/{t}/deals?after=99999999999999999999999&limit=1",
        "/v1/tables/{t}/deals?limit=-1",
        "/v1/tables/{t}/deals?limit=" + "9" * 500,
        "/v1/tables/{t}/settlement?stake=NaN",
        "/v1/tables/{t}/settlement?stake=Infinity",
        "/v1/tables/{t}/settlement?stake=1e999",
        "/v1/tables/{t}/settlement?stake=" + "9" * 5000,
        "/v1/tables/{t}/settlement?stake=-1",
        "/v1/tables/{t}/settlement?stake=%00",
        "/v1/tables/" + "x" * 6000,
        "/v1/tables/%00",
        "/v1/tables/%ff%fe/sheet",
        "/v1/shared/" + "s" * 6000,
        "/v1/shared/%00",
    ],
)
def test_hostile_paths_and_queries(live, table_id, path):
    r = httpx.get(live.url + path.replace("{t}", table_id), headers=live.headers, timeout=30)
    _assert_clean_4xx(r)


@pytest.mark.parametrize(
    "headers",
    [
        {"Idempotency-Key": "k" * 300},
        {"Idempotency-Key": "a b"},
        {"Idempotency-Key": "\u00e9t\u00e9"},
        {"If-Match": '"' + "e" * 5000 + '"'},
        {"Authorization": "Bearer " + "k" * 7000},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic Zm9vOmJhcg=="},
        {"Authorization": "Bearer \u00e9"},
        {"Content-Type": "text/plain"},
        {"Content-Length": "-1"},
        {"Content-Length": "abc"},
    ],
    ids=lambda h: "-".join(f"{k}:{v[:12]}" for k, v in h.items()),
)
def test_hostile_headers(live, table_id, headers):
    body = _deal("")
    base = {**live.headers, "Content-Type": "application/json"}
    base.update(headers)
    raw = [f"{k}: {v}" for k, v in base.items() if k.lower() != "content-length"]
    if "Content-Length" in headers:
        raw.append(f"Content-Length: {headers['Content-Length']}")
    else:
        raw.append(f"Content-Length: {len(body)}")
    request = (
        f"POST /v1/tables/{table_id}/deals HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + "\r\n".join(raw)
        + "\r\n\r\n"
    ).encode("utf-8") + body
    with socket.create_connection(("127.0.0.1", live.server.port), timeout=10) as s:
        s.sendall(request)
        s.settimeout(10)
        data = b""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0
    assert 400 <= status < 500, data[:500]
    head, _, payload = data.partition(b"\r\n\r\n")
    if status == 400 and payload == b"Invalid HTTP request received.":
        return  # refused by uvicorn's HTTP parser before the application sees it
    assert b"application/problem+json" in head.lower(), data[:500]


def test_server_is_still_healthy_after_all_this(live):
    assert httpx.get(live.url + "/health").status_code == 200
