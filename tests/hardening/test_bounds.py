"""Input is bounded by its form before anything converts it: a value whose conversion costs
more the longer it is (an exact fraction of ``1e9999999``, an integer of thousands of
digits) is refused from its text, in microseconds, whatever its length allows."""

from __future__ import annotations

import time

import pytest

PROBLEM = "application/problem+json"

# The worst stakes the 32-character limit allows: exponents as large (and as small) as fit,
# the longest mantissas, zero mantissas with huge exponents, digits of other scripts.
# Before the form check, Fraction(Decimal("1e9999999")) took 5.9 s of CPU; the 32-character
# ones with 30-digit exponents would take hours.
WORST_STAKES = [
    "1e9999999",
    "1e" + "9" * 30,
    "1E+" + "9" * 29,
    "9" * 31 + "e",
    "1e-" + "9" * 29,
    "0e" + "9" * 30,
    "0." + "0" * 28 + "1e",
    "." + "9" * 27 + "e999",
    "-1e" + "9" * 29,
    "9" * 24 + "e" + "9" * 7,
    "١e" + "٩" * 30,  # Arabic-Indic digits: Decimal accepts them
    "1e99",
    "9" * 32,
    "0." + "0" * 29 + "1",
]


def test_the_worst_stakes_are_refused_in_well_under_10_ms_of_cpu():
    from app.kit.errors import Unprocessable
    from app.kit.stake import parse_stake

    for stake in WORST_STAKES:
        assert len(stake) <= 32
        started = time.process_time()
        with pytest.raises(Unprocessable) as refused:
            parse_stake(stake)
        spent = time.process_time() - started
        assert spent < 0.010, f"{stake!r}: {spent * 1000:.1f} ms of CPU"
        assert [e.field for e in refused.value.errors] == ["stake"]


@pytest.mark.parametrize("stake", WORST_STAKES)
def test_the_worst_stakes_are_422_on_both_routes(api, client, stake):
    table = api.table()
    r = api.get(f"/v1/tables/{table['id']}/settlement", params={"stake": stake})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert [e["field"] for e in r.json()["errors"]] == ["stake"]
    r = client.get(f"/v1/shared/{table['share_token']}", params={"stake": stake})
    assert r.status_code == 422, r.text
    assert [e["field"] for e in r.json()["errors"]] == ["stake"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.5", "1/2"),
        ("10", "10"),
        ("2.5e1", "25"),
        ("1e6", "1000000"),
        (".25", "1/4"),
        ("1.", "1"),
        ("0", "0"),
        ("-0", "0"),
        ("5e-1", "1/2"),
        ("0.000001", "1/1000000"),
        (" 3 ", "3"),
    ],
)
def test_plain_decimals_still_pass(text, value):
    from fractions import Fraction

    from app.kit.stake import parse_stake

    assert parse_stake(text) == Fraction(value)


@pytest.mark.parametrize(
    "text",
    [
        "1000000.5",
        "1e7",
        "0.0000001",
        "1e-7",
        "-1",
        "NaN",
        "inf",
        "1_000",
        "0x10",
        "",
        ".",
        "e5",
        "1e",
        "1e+",
        "1e999",
    ],
)
def test_out_of_range_or_malformed_stakes_are_refused(text):
    from app.kit.errors import Unprocessable
    from app.kit.stake import parse_stake

    with pytest.raises(Unprocessable):
        parse_stake(text)


def test_the_body_limit_is_the_frameworks_and_answers_problem_json(app, api):
    """FastAPI's own ``max_body_size`` bounds bodies; its 413 reaches the client as
    problem+json with the request id and the security headers, streamed or not."""
    assert app.max_body_size == 64 * 1024
    table = api.table()
    big = b'{"note": "' + b"x" * (70 * 1024) + b'"}'
    r = api.post(f"/v1/tables/{table['id']}/deals", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.headers["content-type"].startswith(PROBLEM), r.text
    assert (
        r.json()["status"] == 413
        and "x-request-id" in r.headers
        and r.headers["x-content-type-options"] == "nosniff"
    )

    def chunks():
        for _ in range(70):
            yield b"x" * 1024

    r = api.post(
        f"/v1/tables/{table['id']}/deals", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413 and r.headers["content-type"].startswith(PROBLEM), r.text


@pytest.mark.parametrize("length", ["9" * 40, "1e3", "-1", "0x10", "١٢"])
def test_a_content_length_is_refused_by_its_form(live, length):
    import socket

    request = (
        f"POST /v1/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {live.key}\r\nContent-Length: {length}\r\n\r\n{{}}"
    ).encode()
    with socket.create_connection(("127.0.0.1", live.server.port), timeout=10) as s:
        s.sendall(request)
        s.settimeout(5)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    assert data.startswith(b"HTTP/1.1 400"), data[:300]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/tables/{t}/deals/" + "9" * 10_000),
        ("GET", "/v1/tables/{t}/deals?after=" + "9" * 10_000),
        ("DELETE", "/v1/keys/" + "9" * 10_000),
    ],
    ids=["deal number", "after", "key id"],
)
def test_long_integers_in_paths_and_queries_are_refused_cheaply(api, admin_headers, method, path):
    """Integers are parsed by pydantic-core, which bounds them cheaply (a million digits:
    about 1 ms); on a served port the URL is bounded by the header limit too (16 KiB)."""
    table = api.table()
    started = time.process_time()
    r = api.client.request(
        method,
        path.replace("{t}", table["id"]),
        headers={**api.headers, **(admin_headers if "keys" in path else {})},
    )
    spent = time.process_time() - started
    assert r.status_code == 422 and r.headers["content-type"].startswith(PROBLEM), r.text[:300]
    assert spent < 0.5, f"{spent * 1000:.0f} ms of CPU"
